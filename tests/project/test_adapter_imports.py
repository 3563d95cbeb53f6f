"""Adapters use the core only through its doors: ``signet_sdk.plugin`` above all.

A harness package's modules may import from the core:

* ``signet_sdk.plugin``: everything a translator needs (any module);
* ``signet_sdk.tools``: the memory tool set, for a harness that registers
  the tools natively (any module);
* ``signet_sdk.installing``: the config-file editors, in installer modules;
* the public root ``signet_sdk``, the delivery policy
  ``signet_sdk.hooks.delivery`` and its writer thread ``signet_sdk.hooks.writer``:
  only in an in-process provider (a harness
  that loads Python, such as Hermes Agent), which is a client of the daemon
  itself rather than a translator.

Tests may use ``signet_sdk.testing`` besides. Anything else (``signet_sdk.wire``,
``signet_sdk.runtime`` ...) is the core's inside, free to change.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MODULES = sorted(ROOT.glob("adapters/*/signet_adapter_*/**/*.py"))
#: Installer modules by file name (the installer and what only it imports: the config
#: editors of Copilot's and Kimi's MCP files, Cursor's text edits, Kimi's TOML).
INSTALLERS = {"install.py", "_config.py", "_mcp.py", "_edit.py", "_toml.py"}
#: In-process providers: (adapter, file name).
PROVIDERS = {("hermes", "provider.py"), ("hermes", "_channel.py")}
PROVIDER_DOORS = ("signet_sdk.hooks.delivery", "signet_sdk.hooks.writer")


def _core_imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            continue
        found.update(n for n in names if n == "signet_sdk" or n.startswith("signet_sdk."))
    return found


def test_there_are_adapters_to_check() -> None:
    assert len({p.parts[len(ROOT.parts) + 1] for p in MODULES}) >= 7


@pytest.mark.parametrize("path", MODULES, ids=[str(p.relative_to(ROOT)) for p in MODULES])
def test_an_adapter_module_imports_the_core_only_through_its_doors(path: Path) -> None:
    adapter = path.relative_to(ROOT).parts[1]
    doors = ["signet_sdk.plugin", "signet_sdk.tools"]  # a door admits its submodules too
    root_allowed = False  # ``import signet_sdk`` / ``from signet_sdk import X``
    if path.name in INSTALLERS:
        doors.append("signet_sdk.installing")
    if (adapter, path.name) in PROVIDERS:
        doors += PROVIDER_DOORS
        root_allowed = True

    def through_a_door(module: str) -> bool:
        if module == "signet_sdk":
            return root_allowed
        return any(module == d or module.startswith(d + ".") for d in doors)

    wrong = sorted(m for m in _core_imports(path) if not through_a_door(m))
    assert wrong == [], f"{path.relative_to(ROOT)} imports {wrong}; use {doors}"


@pytest.mark.parametrize(
    "path",
    [p for p in MODULES if p.name in INSTALLERS - {"install.py"}],
    ids=lambda p: str(p.relative_to(ROOT)),
)
def test_an_installer_module_is_imported_only_by_the_installer(path: Path) -> None:
    """What may import ``signet_sdk.installing`` never reaches a hook process."""
    module = f"{path.parent.name}.{path.stem}"
    users = []
    for sibling in path.parent.glob("*.py"):
        if sibling.name in INSTALLERS or sibling == path:
            continue
        tree = ast.parse(sibling.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                target = node.module or ""
                named = [a.name for a in node.names]
                if (node.level and (target == path.stem or path.stem in named)) or (
                    target == module
                ):
                    users.append(sibling.name)
    assert users == [], f"{path.relative_to(ROOT)} is imported by {users}"
