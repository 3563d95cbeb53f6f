"""The public surface: a deliberate __all__, cheap imports, and the adapter registry."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import signet_sdk
from signet_sdk import models as _models

#: The core public names (the models aside), pinned in public_api_core.json:
#: changing the public API means editing that list on purpose.
_PINNED = Path(__file__).with_name("public_api_core.json")
EXPECTED_CORE = set(json.loads(_PINNED.read_text(encoding="utf-8")))


def test_all_is_pinned() -> None:
    assert set(signet_sdk.__all__) == EXPECTED_CORE | set(_models.__all__)
    assert signet_sdk.__all__ == sorted(signet_sdk.__all__)


def test_every_exported_name_resolves() -> None:
    for name in signet_sdk.__all__:
        assert getattr(signet_sdk, name) is not None, name


def test_exceptions_present_as_public_names() -> None:
    assert signet_sdk.ConflictError.__module__ == "signet_sdk"


def test_unknown_attribute_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError):
        signet_sdk.NoSuchThing  # noqa: B018


def imported_after(statement: str) -> set[str]:
    code = f"import sys, json; {statement}; print(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return set(json.loads(out.stdout))


def test_import_signet_sdk_is_light() -> None:
    mods = imported_after("import signet_sdk")
    for heavy in (
        "fastapi",
        "uvicorn",
        "aiohttp",
        "httpx",
        "pydantic",
        "signet_adapter_claude_code",
    ):
        assert heavy not in mods, heavy


def test_hook_path_modules_stay_on_the_standard_library() -> None:
    mods = imported_after(
        "import signet_sdk.wire.lean, signet_sdk.wire.lifecycle, signet_sdk.runtime.dispatch, "
        "signet_sdk.runtime.registry, signet_sdk.runtime.generic, signet_sdk.hooks.runner"
    )
    assert not {"httpx", "pydantic", "fastapi", "anyio"} & mods


def test_client_import_does_not_pull_server_or_adapters() -> None:
    mods = imported_after("from signet_sdk import AdapterClient, create_adapter")
    assert not {"fastapi", "uvicorn", "aiohttp", "signet_adapter_claude_code"} & mods


def test_unknown_harness_gets_a_working_generic_client() -> None:
    adapter = signet_sdk.create_adapter("my-harness", "http://127.0.0.1:1")
    assert type(adapter) is signet_sdk.AdapterClient
    assert isinstance(adapter, signet_sdk.RuntimeAdapter)
    assert adapter.harness == "my-harness"
    assert adapter.config.runtime_path is None
    adapter.close()


def test_installed_plugin_labels_the_client() -> None:
    adapter = signet_sdk.create_adapter("claude-code", "http://127.0.0.1:1")
    assert type(adapter) is signet_sdk.AdapterClient
    assert adapter.harness == "claude-code"
    assert adapter.config.runtime_path == "legacy"
    adapter.close()


def test_strict_lookup_lists_installed_adapters() -> None:
    with pytest.raises(signet_sdk.AdapterNotFoundError) as info:
        signet_sdk.create_adapter("no-such-harness", strict=True)
    installed = signet_sdk.installed_adapters()
    assert info.value.installed == installed
    assert f"installed: {', '.join(installed) or 'none'}" in str(info.value)


def test_async_adapter_for_unknown_harness() -> None:
    adapter = signet_sdk.create_async_adapter("custom", "http://127.0.0.1:1", runtime_path="legacy")
    assert isinstance(adapter, signet_sdk.AsyncRuntimeAdapter)
    assert adapter.config.runtime_path == "legacy"


def test_the_runtime_table_and_the_type_checking_block_list_the_same_names() -> None:
    import ast
    from pathlib import Path

    tree = ast.parse(Path(signet_sdk.__file__).read_text(encoding="utf-8"))
    block = next(n for n in tree.body if isinstance(n, ast.If))
    imported = {
        (alias.asname or alias.name): node.module
        for node in block.body
        if isinstance(node, ast.ImportFrom) and node.module != "typing"
        for alias in node.names
    }
    table = signet_sdk._WHERE
    models = {name: "signet_sdk.models" for name in _models.__all__}
    assert imported == {**table, **models}
    assert signet_sdk.__all__ == sorted({"__version__", *table, *models})
