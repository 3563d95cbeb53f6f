"""The package's shape, enforced: layers import downward only, and modules stay small.

Every module's imports (top level, inside functions and under
``TYPE_CHECKING`` alike) are read with ``ast``; a module may import
``signet_sdk`` modules of its own layer or a lower one. The standard-library
layers (``wire``, ``hooks``) import no third-party package at all, so a hook
process can never be made to load pydantic or httpx by an import added
lazily. A module over 400 lines must say why in a ``# long module:`` line
at its top.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "signet_sdk"

#: Bottom to top; a layer may import from itself and the layers before it.
LAYERS = [
    "wire",
    "models",
    "client",
    "runtime",
    "hooks",
    "tools",
    "agent",
    "server",
    "testing",
    "cli",
    "installing",
]
#: Layers that may import nothing outside the standard library and signet_sdk.
STDLIB_ONLY = {"wire", "hooks", "installing"}
#: Modules of ``runtime`` that a hook process loads: standard library only too.
STDLIB_ONLY_MODULES = {
    "signet_sdk.runtime.context",
    "signet_sdk.runtime.dispatch",
    "signet_sdk.runtime.entrypoints",
    "signet_sdk.runtime.events",
    "signet_sdk.runtime.files",
    "signet_sdk.runtime.generic",
    "signet_sdk.runtime.handlers",
    "signet_sdk.runtime.native",
    "signet_sdk.runtime.payload",
    "signet_sdk.runtime.plugin",
    "signet_sdk.runtime.registry",
    "signet_sdk.runtime.state_folder",
    "signet_sdk.runtime.transcripts",
    "signet_sdk.runtime.translator",
}
MAX_LINES = 400


def _modules() -> list[tuple[str, Path]]:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(ROOT).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found.append((".".join(parts), path))
    return found


def _type_only(tree: ast.Module) -> set[int]:
    """ids of import nodes under ``if TYPE_CHECKING:`` (never executed)."""
    hidden: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
            hidden.update(id(n) for child in node.body for n in ast.walk(child))
    return hidden


def _imports(module: str, path: Path, *, executed_only: bool = False) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    hidden = _type_only(tree) if executed_only else set()
    names: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in hidden:
            continue
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            names.add(target)
            # ``from signet_sdk import models`` names a module too.
            names.update(f"{target}.{alias.name}" for alias in node.names)
    return names


def _layer(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] != "signet_sdk" or len(parts) < 2:
        return None
    return parts[1] if parts[1] in LAYERS else None


def _stdlib(name: str) -> bool:
    return name.split(".")[0] in sys.stdlib_module_names or name == "__future__"


MODULES = _modules()


def test_every_module_belongs_to_a_layer() -> None:
    loose = [m for m, _ in MODULES if _layer(m) is None]
    assert loose == [
        "signet_sdk",
        "signet_sdk.__main__",
        "signet_sdk._version",
        "signet_sdk.plugin",
    ]


def test_the_adapter_facade_reaches_only_hook_path_modules() -> None:
    """``signet_sdk.plugin`` is what translators import: standard-library modules only."""
    import signet_sdk.plugin as facade

    for name, (module, _) in facade._WHERE.items():
        assert module.startswith("signet_sdk.wire.") or module in STDLIB_ONLY_MODULES, name


@pytest.mark.parametrize(("module", "path"), MODULES, ids=[m for m, _ in MODULES])
def test_imports_point_down(module: str, path: Path) -> None:
    own = _layer(module)
    if own is None:
        return  # the package root re-exports every layer by design
    rank = LAYERS.index(own)
    upward = sorted(
        name
        for name in _imports(module, path)
        if (other := _layer(name)) is not None and LAYERS.index(other) > rank
    )
    assert upward == [], f"{module} ({own}) imports a higher layer: {upward}"


@pytest.mark.parametrize(("module", "path"), MODULES, ids=[m for m, _ in MODULES])
def test_standard_library_layers(module: str, path: Path) -> None:
    if _layer(module) not in STDLIB_ONLY and module not in STDLIB_ONLY_MODULES:
        return
    executed = _imports(module, path, executed_only=True)
    foreign = sorted(
        name for name in executed if not name.startswith("signet_sdk") and not _stdlib(name)
    )
    assert foreign == [], f"{module} must stay on the standard library, imports {foreign}"
    heavy_core = sorted(
        name
        for name in executed
        if name.startswith(("signet_sdk.models", "signet_sdk.client"))
        and module not in ("signet_sdk.runtime.registry",)
    )
    assert heavy_core == [], f"{module} must not load pydantic through {heavy_core}"


def test_registry_loads_clients_only_inside_functions() -> None:
    """``runtime.registry`` is on the hook path: its client imports are lazy or type-only."""
    path = PACKAGE / "runtime" / "registry.py"
    tree = ast.parse(path.read_text(encoding="utf-8"))
    top = [
        node
        for node in tree.body
        if isinstance(node, ast.ImportFrom)
        and (node.module or "").startswith(("signet_sdk.client", "signet_sdk.models"))
    ]
    assert top == []


@pytest.mark.parametrize(
    "path",
    sorted([*PACKAGE.rglob("*.py"), *ROOT.glob("adapters/*/signet_adapter_*/**/*.py")]),
    ids=lambda p: str(p.relative_to(ROOT)),
)
def test_small_modules(path: Path) -> None:
    lines = path.read_text(encoding="utf-8").splitlines()
    if len(lines) <= MAX_LINES:
        return
    reason = [line for line in lines[:3] if line.startswith("# long module: ")]
    assert reason and len(reason[0]) > len("# long module: ") + 10, (
        f"{path.relative_to(ROOT)} has {len(lines)} lines; split it or give a "
        "'# long module: <why>' line at its top"
    )
