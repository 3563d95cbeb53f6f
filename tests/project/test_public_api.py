"""The public surface: pinned per namespace, stated once, cheap to import, honest names.

``public_api.json`` lists, for every public namespace with an ``__all__``,
the names it exports. Changing the API means editing that file on purpose.
"""

from __future__ import annotations

import ast
import json
import pickle
import pkgutil
import subprocess
import sys
import textwrap
from importlib import import_module
from pathlib import Path
from types import ModuleType

import pytest

import signet_sdk
import signet_sdk.plugin
from signet_sdk import models
from signet_sdk.wire import errors
from signet_sdk.wire.lifecycle import LIFECYCLE

PINNED: dict[str, list[str]] = json.loads(
    Path(__file__).with_name("public_api.json").read_text(encoding="utf-8")
)
#: The modules that state their names in a ``TYPE_CHECKING`` block (read at run time).
STATED_ONCE = ("signet_sdk", "signet_sdk.plugin", "signet_sdk.agent", "signet_sdk.testing")


# -- the pin -------------------------------------------------------------------------


@pytest.mark.parametrize("namespace", sorted(PINNED))
def test_a_namespace_exports_what_is_pinned(namespace: str) -> None:
    exported = import_module(namespace).__all__
    assert len(set(exported)) == len(exported), f"{namespace}.__all__ repeats a name"
    assert sorted(exported) == PINNED[namespace], (
        f"{namespace}.__all__ differs from tests/project/public_api.json: "
        f"added {sorted(set(exported) - set(PINNED[namespace]))}, "
        f"removed {sorted(set(PINNED[namespace]) - set(exported))}"
    )


def test_every_public_namespace_is_pinned() -> None:
    public = [
        f"signet_sdk.{info.name}"
        for info in pkgutil.iter_modules(signet_sdk.__path__)
        if not info.name.startswith("_")
    ]
    with_all = {name for name in public if hasattr(import_module(name), "__all__")}
    assert with_all | {"signet_sdk"} == set(PINNED)


@pytest.mark.parametrize("name", STATED_ONCE)
def test_nothing_public_is_there_by_accident(name: str) -> None:
    """Every attribute without an underscore is exported, a submodule, or module plumbing."""
    module = import_module(name)
    for public in module.__all__:
        getattr(module, public)
    present = {n for n in vars(module) if not n.startswith("_")}
    submodules = {n for n in present if isinstance(getattr(module, n), ModuleType)}
    # ``TYPE_CHECKING`` guards the block; ``annotations`` is what ``from __future__`` binds.
    assert present - set(module.__all__) - submodules == {"TYPE_CHECKING", "annotations"}


@pytest.mark.parametrize("namespace", sorted(PINNED))
def test_every_exported_name_resolves(namespace: str) -> None:
    module = import_module(namespace)
    for name in PINNED[namespace]:
        assert getattr(module, name) is not None, f"{namespace}.{name}"


def test_the_top_level_is_what_a_user_reaches_for_first() -> None:
    top = set(signet_sdk.__all__)
    tree = {
        name
        for name in errors.__all__
        if isinstance(cls := getattr(errors, name), type) and issubclass(cls, errors.SignetError)
    }
    assert "ConflictError" in tree and tree <= top, "the whole error tree"
    lifecycle = {
        model for row in LIFECYCLE.values() for model in (row.params_model, row.result_model)
    }
    assert len(lifecycle) == 16 and lifecycle <= top, "the lifecycle's params and results"
    for name in lifecycle:
        assert getattr(signet_sdk, name) is getattr(models, name)
    assert set(models.__all__) & top == lifecycle, "every other model: signet_sdk.models"


def test_plugin_author_names_live_in_signet_sdk_plugin() -> None:
    moved = [
        "dispatch",
        "dispatch_async",
        "Dispatched",
        "EventSpec",
        "HarnessPlugin",
        "HarnessTranslator",
        "GenericTranslator",
        "NativeOutput",
        "LifecycleCall",
        "client_sender",
        "find_plugin",
        "installed_adapters",
        "installed_plugins",
        "broken_plugins",
        "BrokenPlugin",
    ]
    for name in moved:
        assert name in signet_sdk.plugin.__all__, name
        assert name not in signet_sdk.__all__, name
        with pytest.raises(AttributeError):
            getattr(signet_sdk, name)


@pytest.mark.parametrize("name", STATED_ONCE)
def test_unknown_attribute_is_an_attribute_error(name: str) -> None:
    module = import_module(name)
    with pytest.raises(AttributeError, match="NoSuchThing"):
        module.NoSuchThing  # noqa: B018


# -- each name stated once ------------------------------------------------------------


def _reexports_read_by_ast(module: ModuleType) -> dict[str, tuple[str, str]]:
    """What a strict type checker re-exports: top-level and ``TYPE_CHECKING`` imports."""
    assert module.__file__ is not None
    tree = ast.parse(Path(module.__file__).read_text(encoding="utf-8"))
    block = next(
        n for n in tree.body if isinstance(n, ast.If) and ast.unparse(n.test) == "TYPE_CHECKING"
    )
    public: dict[str, tuple[str, str]] = {}
    imported: dict[str, tuple[str, str]] = {}
    for node in [*tree.body, *block.body]:
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                where = (node.module or "", alias.name)
                if alias.asname == alias.name:
                    public[alias.name] = where
                else:
                    imported[alias.asname or alias.name] = where
        elif (
            node in block.body
            and isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Name)
            and node.value.id in imported
        ):
            (target,) = node.targets
            assert isinstance(target, ast.Name)
            public[target.id] = imported[node.value.id]
    return public


@pytest.mark.parametrize("name", STATED_ONCE)
def test_the_run_time_table_is_the_type_checking_block(name: str) -> None:
    """The line scan finds exactly what a type checker reads, and ``__all__`` is that."""
    module = import_module(name)
    table = module._WHERE
    assert table == _reexports_read_by_ast(module)
    assert module.__all__ == sorted(table)
    assert dir(module) == sorted(table)
    for public, (source, attribute) in table.items():
        assert getattr(module, public) is getattr(import_module(source), attribute), public


def test_a_strict_type_checker_reads_the_same_names(tmp_path: Path) -> None:
    """mypy --strict sees the real classes through the blocks, and refuses a name they lack.

    The hidden ``__getattr__`` is what makes a moved name an error for a user's
    type checker instead of a silent ``Any``.
    """
    user = tmp_path / "user_code.py"
    user.write_text(
        textwrap.dedent(
            """
            import signet_sdk
            import signet_sdk.plugin
            from signet_sdk.plugin import json_dumps

            reveal_type(signet_sdk.AdapterClient)
            reveal_type(signet_sdk.ConflictError)
            reveal_type(signet_sdk.__all__)
            reveal_type(json_dumps)
            signet_sdk.dispatch
            signet_sdk.plugin.dumps
            """
        ),
        encoding="utf-8",
    )
    root = Path(signet_sdk.__file__).parents[1]
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", str(user)],
        capture_output=True,
        text=True,
        cwd=root,  # the project's mypy settings and cache
    )
    out = done.stdout
    assert "-> signet_sdk.client.sync_client.AdapterClient" in out, out
    assert "-> signet_sdk.wire.errors.ConflictError" in out, out
    assert 'Revealed type is "list[str]"' in out, out
    assert "sort_keys: bool =" in out, out
    assert 'Module has no attribute "dispatch"' in out, out
    assert 'does not explicitly export attribute "dumps"' in out, out
    assert out.count("error:") == 2, out


def test_the_scan_reads_every_form_a_block_may_take(tmp_path: Path) -> None:
    """Wrapped imports, several names a line, comments and renamed exports."""
    source = textwrap.dedent(
        """
        from __future__ import annotations

        from signet_sdk import _lazy_module

        TYPE_CHECKING = False
        if TYPE_CHECKING:  # the names
            from typing import Any
            from signet_sdk.wire.errors import (
                ConfigError as ConfigError,
                # a comment inside the statement
                GoneError as GoneError,
                status_error,
            )
            from signet_sdk.wire.jsonfast import dumps as dumps, loads as loads  # two
        # a comment at the margin inside the block
            from signet_sdk.wire.lifecycle import LIFECYCLE as table

            make_error = status_error
            lifecycle = table
            __all__: list[str]

        if not TYPE_CHECKING:
            __getattr__, __dir__ = _lazy_module(__name__)

        from signet_sdk.wire.errors import APIError as APIError
        """
    )
    path = tmp_path / "stated_names_probe.py"
    path.write_text(source, encoding="utf-8")
    sys.path.insert(0, str(tmp_path))
    try:
        probe = import_module("stated_names_probe")
        expected = {
            "ConfigError": ("signet_sdk.wire.errors", "ConfigError"),
            "GoneError": ("signet_sdk.wire.errors", "GoneError"),
            "dumps": ("signet_sdk.wire.jsonfast", "dumps"),
            "loads": ("signet_sdk.wire.jsonfast", "loads"),
            "make_error": ("signet_sdk.wire.errors", "status_error"),
            "lifecycle": ("signet_sdk.wire.lifecycle", "LIFECYCLE"),
            "APIError": ("signet_sdk.wire.errors", "APIError"),
        }
        assert probe._WHERE == expected == _reexports_read_by_ast(probe)
        assert probe.__all__ == sorted(expected)
        assert probe.make_error is errors.status_error
        assert probe.lifecycle is LIFECYCLE
        with pytest.raises(AttributeError):
            probe.Any  # noqa: B018
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("stated_names_probe", None)


# -- cheap to import ------------------------------------------------------------------


def _run(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return done.stdout


def imported_after(statement: str) -> set[str]:
    code = f"import sys, json; {statement}; print(json.dumps(sorted(sys.modules)))"
    return set(json.loads(_run(code)))


def test_import_signet_sdk_is_light() -> None:
    mods = imported_after("import signet_sdk")
    for heavy in ("fastapi", "uvicorn", "aiohttp", "httpx", "pydantic", "typing"):
        assert heavy not in mods, heavy
    assert not {m for m in mods if m.startswith("signet_adapter_")}


def test_a_process_that_touches_no_name_never_reads_the_table() -> None:
    out = _run(
        "import signet_sdk, signet_sdk.plugin, sys\n"
        "from signet_sdk.plugin import string\n"
        "print('_WHERE' in vars(sys.modules['signet_sdk']))"
    )
    assert out.strip() == "False"


def test_hook_path_modules_stay_on_the_standard_library() -> None:
    mods = imported_after(
        "import signet_sdk.wire.lean, signet_sdk.wire.lifecycle, signet_sdk.runtime.dispatch, "
        "signet_sdk.runtime.registry, signet_sdk.runtime.generic, signet_sdk.hooks.runner"
    )
    assert not {"httpx", "pydantic", "fastapi", "anyio"} & mods


def test_client_import_does_not_pull_server_or_adapters() -> None:
    mods = imported_after("from signet_sdk import AdapterClient, create_adapter")
    assert not {"fastapi", "uvicorn", "aiohttp", "signet_adapter_claude_code"} & mods


# -- names that say where to import from ----------------------------------------------


def test_errors_and_models_name_their_public_module() -> None:
    assert signet_sdk.ConflictError.__module__ == "signet_sdk"
    assert models.RecallHit.__module__ == "signet_sdk.models"
    assert signet_sdk.SessionStartParams.__module__ == "signet_sdk.models"


@pytest.mark.parametrize(
    ("first", "check"),
    [
        ("from signet_sdk.wire.errors import ConflictError as c", "c.__module__ == 'signet_sdk'"),
        (
            "from signet_sdk.wire.lean import LeanClient; import signet_sdk.wire.errors as e",
            "e.RateLimitError.__module__ == 'signet_sdk'",
        ),
        (
            "from signet_sdk.models.memory import RecallHit as c",
            "c.__module__ == 'signet_sdk.models'",
        ),
        ("from signet_sdk import RecallParams as c", "c.__module__ == 'signet_sdk.models'"),
    ],
)
def test_the_public_module_does_not_depend_on_what_was_imported_first(
    first: str, check: str
) -> None:
    assert _run(f"{first}\nprint({check})").strip() == "True"


@pytest.mark.parametrize("namespace", sorted(PINNED))
def test_every_exported_class_is_found_where_its_module_says(namespace: str) -> None:
    """What pickle, reprs and docs rely on: ``__module__`` names a real home."""
    module = import_module(namespace)
    for name in PINNED[namespace]:
        value = getattr(module, name)
        if isinstance(value, type):
            home = import_module(value.__module__)
            assert getattr(home, value.__qualname__) is value, f"{namespace}.{name}"


def test_errors_and_models_pickle() -> None:
    for name in errors.__all__:
        value = getattr(errors, name)
        if isinstance(value, type):
            assert pickle.loads(pickle.dumps(value)) is value
    error = signet_sdk.SignetError("boom")
    back = pickle.loads(pickle.dumps(error))
    assert type(back) is signet_sdk.SignetError and back.args == ("boom",)
    hit = models.RecallResult.model_validate(
        {"results": [{"id": "m1", "content": "c", "score": 0.5}], "query": "q"}
    )
    assert pickle.loads(pickle.dumps(hit)) == hit
    by_reference = pickle.dumps(models.RecallHit)
    assert b"signet_sdk.models" in by_reference and b"models.memory" not in by_reference


# -- the registry, through its public names -------------------------------------------


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
    installed = signet_sdk.plugin.installed_adapters()
    assert info.value.installed == installed
    assert f"installed: {', '.join(installed) or 'none'}" in str(info.value)


def test_async_adapter_for_unknown_harness() -> None:
    adapter = signet_sdk.create_async_adapter("custom", "http://127.0.0.1:1", runtime_path="legacy")
    assert isinstance(adapter, signet_sdk.AsyncRuntimeAdapter)
    assert adapter.config.runtime_path == "legacy"
