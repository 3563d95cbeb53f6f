#!/usr/bin/env python3
"""Development entry point: ``python3 dev.py demo`` and ``python3 dev.py check``.

Needs only Python 3.11+ and the package registries. It creates ``.venv``
beside this file, installs the SDK and every adapter package under
``adapters/`` into it (editable, with the dev extra), then runs the demo or
every check: lint, format, types, contract drift and the test suite.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PY = BIN / "python"
STAMP = VENV / ".signet-dev-stamp"


def adapter_dirs() -> list[Path]:
    return sorted(p.parent for p in (ROOT / "adapters").glob("*/pyproject.toml"))


#: The project's own end-to-end kit (``signet_e2e``): installed for the tests, never published.
E2E_DIR = ROOT / "e2e"


def _fingerprint() -> str:
    h = hashlib.sha256()
    projects = [ROOT, E2E_DIR, *adapter_dirs()]
    for path in (d / "pyproject.toml" for d in projects):
        h.update(path.read_bytes())
    return h.hexdigest()


def run(*cmd: str | Path, check: bool = True) -> int:
    print("+", " ".join(str(c) for c in cmd), flush=True)
    return subprocess.run([str(c) for c in cmd], cwd=ROOT, check=check).returncode


def ensure_env() -> None:
    if sys.version_info < (3, 11):  # noqa: UP036 - this script runs before the project's Python is known
        sys.exit(f"signet-sdk needs Python 3.11 or newer (this is {sys.version.split()[0]})")
    if not PY.exists():
        print(f"creating {VENV.relative_to(ROOT)}", flush=True)
        venv.EnvBuilder(with_pip=True).create(VENV)
    if STAMP.exists() and STAMP.read_text() == _fingerprint():
        return
    run(PY, "-m", "pip", "install", "--quiet", "--upgrade", "pip")
    editable = ["-e", ".[dev]"]
    for d in [E2E_DIR, *adapter_dirs()]:
        editable += ["-e", str(d.relative_to(ROOT))]
    run(PY, "-m", "pip", "install", "--quiet", *editable)
    STAMP.write_text(_fingerprint())


ASYNC_CLIENT = ROOT / "signet_sdk" / "client" / "async_client.py"
SYNC_CLIENT = ROOT / "signet_sdk" / "client" / "sync_client.py"
#: Names unasync renames, beyond its own (async def, await, __aenter__, AsyncIterator ...).
SYNC_NAMES = {
    "AsyncAdapterClient": "AdapterClient",
    "AsyncRuntimeAdapter": "RuntimeAdapter",
    "AsyncClient": "Client",
    "AsyncHTTPClient": "HTTPClient",
    "async_io_for": "io_for",
    "aclose": "close",
    "aread": "read",
    "aiter_lines": "iter_lines",
    "async_wait": "wait",
}
SYNC_HEADER = (
    "# Generated from async_client.py by unasync (python3 dev.py generate): do not edit.\n"
    "# dev.py check fails when this file and its source disagree.\n"
)


def generated_sync_client() -> str:
    """The sync client as unasync makes it from the async one, formatted by ruff."""
    import tempfile

    import unasync

    with tempfile.TemporaryDirectory() as tmp:
        src, dst = Path(tmp, "_async"), Path(tmp, "_sync")
        src.mkdir()
        (src / "client.py").write_text(ASYNC_CLIENT.read_text())
        rule = unasync.Rule(f"{src}/", f"{dst}/", additional_replacements=SYNC_NAMES)
        unasync.unasync_files([str(src / "client.py")], rules=[rule])
        text = SYNC_HEADER + (dst / "client.py").read_text()
    here = Path(sys.executable).parent / "ruff"  # under plain pytest: this interpreter's ruff
    ruff = here if here.exists() else BIN / "ruff"
    done = subprocess.run(
        [str(ruff), "format", "--stdin-filename", str(SYNC_CLIENT), "-"],
        input=text,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


def generate(check_only: bool = False) -> int:
    """Write the generated twins, or (``check_only``) exit 1 when the committed ones differ."""
    text = generated_sync_client()
    if check_only:
        if SYNC_CLIENT.read_text() != text:
            print(f"{SYNC_CLIENT.relative_to(ROOT)} differs from what async_client.py generates;")
            print("run: python3 dev.py generate")
            return 1
        print(f"{SYNC_CLIENT.relative_to(ROOT)} matches its source")
        return 0
    SYNC_CLIENT.write_text(text)
    print(f"wrote {SYNC_CLIENT.relative_to(ROOT)}")
    return 0


def check() -> int:
    # Each adapter is type-checked on its own: their test folders share module
    # names (conftest), which one mypy run cannot tell apart.
    adapters = [str(d.relative_to(ROOT)) for d in adapter_dirs()]
    steps = [
        (BIN / "ruff", "check", "."),
        (BIN / "ruff", "format", "--check", "."),
        (BIN / "mypy", "signet_sdk"),
        *((BIN / "mypy", adapter) for adapter in adapters),
        (BIN / "mypy", E2E_DIR.name),
        (PY, "-m", "signet_sdk.testing.contract", "--check"),
        (PY, "-m", "signet_sdk.models.schemas", "--check"),
        (PY, "dev.py", "generate", "--check"),
        ("node", "--test", "tests/js/"),
        (BIN / "mkdocs", "build", "--strict"),
    ]
    failed = [" ".join(map(str, s[:2])) for s in steps if run(*s, check=False) != 0]
    # The test suite runs last, so its closing line is the last thing printed.
    if failed:
        print(f"failed before tests: {', '.join(failed)}", flush=True)
    # Under coverage: tests/conftest.py prints the total and holds the floor
    # ([tool.coverage.report] fail_under) before pytest's closing line.
    code = run(PY, "-m", "coverage", "run", "-m", "pytest", "-q", check=False)
    return 1 if failed or code else 0


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in ("demo", "check", "setup", "generate"):
        print(__doc__)
        print("usage: python3 dev.py demo | check | setup | generate [--check]")
        return 2
    ensure_env()
    if argv[0] == "generate":
        if sys.prefix != str(VENV):  # unasync and ruff live in the project's venv
            return run(PY, "dev.py", *argv, check=False)
        return generate(check_only="--check" in argv[1:])
    if argv[0] == "demo":
        return run(BIN / "signet-sdk", "demo", *argv[1:], check=False)
    if argv[0] == "check":
        return check()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
