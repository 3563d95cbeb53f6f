"""``signet-sdk install pi`` / ``uninstall``: our extension in pi's agent directory.

pi loads every ``extensions/*/index.js`` of its agent directory
(``$PI_CODING_AGENT_DIR``, else ``~/.pi/agent``; ``--agent-dir`` names one
directly). The installer writes one directory there, ``extensions/signet-sdk``:

* ``index.js``: the shim (package data), whose first line is the managed
  marker ``SIGNET_SDK_MANAGED_PI_EXTENSION``;
* ``transport.mjs``: the core's shared shim transport;
* ``signet-sdk.json``: the ``signet-sdk`` command the transport runs (this
  environment's, as an absolute path);
* ``signet-pi.json``: which pi events to forward and what of each, from the
  translator's own table, with each event's deadline in milliseconds (the
  adapter's deadline for the event, from ``SIGNET_*_TIMEOUT`` at install
  time, plus a margin), and the memory tools the extension registers with
  pi (from the SDK's tool set).

Rules: the directory is ours only when its ``index.js`` carries the marker
(or it does not exist yet); anything else there (a user's ``index.ts``, our
file names without the marker) is refused, not overwritten (exit 1), since
pi loads the folder as one extension. A second run finds nothing to change
and writes nothing.
``--dry-run`` prints what would change and writes nothing. ``uninstall``
removes only our four files, and the directory if that left it empty; a
directory that is not ours is left alone. Files are replaced atomically.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from signet_sdk.installing import cli
from signet_sdk.installing.command import sdk_command
from signet_sdk.installing.files import InstallError, marked, read_text, replace_text, text_diff

__all__ = [
    "DIRECTORY",
    "MARKER",
    "extension_files",
    "main",
    "sdk_command",
    "shim_spec",
    "shim_tools",
]

#: The directory under ``<agent dir>/extensions`` that holds our files.
DIRECTORY = "signet-sdk"
#: The first line of our ``index.js`` contains this; nothing else is ours.
MARKER = "SIGNET_SDK_MANAGED_PI_EXTENSION"
#: Milliseconds the shim waits beyond the adapter's own deadline for an event.
_MARGIN_MS = 1000
#: How long a model's memory tool call may take before pi gets an error back.
_TOOL_TIMEOUT_MS = 30_000
#: The file Signet's own pi connector installs; both capturing means doubled memories.
_SIGNET_CONNECTOR_FILE = "signet-pi.js"


def shim_spec(env: Mapping[str, str]) -> dict[str, Any]:
    """``signet-pi.json``: the forwarded events, what of each, and each one's deadline."""
    from signet_sdk.installing.command import hook_timeouts

    from . import PLUGIN
    from ._translate import SHIM_EVENTS

    timeouts = hook_timeouts(env)
    events: dict[str, Any] = {}
    for name, rule in SHIM_EVENTS.items():
        spec = PLUGIN.events[name]
        seconds = timeouts.for_class(spec.timeout_class) or 10.0
        events[name] = {**rule, "timeoutMs": math.ceil(seconds * 1000) + _MARGIN_MS}
    return {
        "managedBy": "signet-sdk install pi",
        "harness": PLUGIN.name,
        "events": events,
        "tools": shim_tools(env),
    }


def shim_tools(env: Mapping[str, str]) -> list[dict[str, Any]]:
    """The memory tools pi's model gets, as pi's ``registerTool`` takes them.

    Name, description and parameters (plain JSON Schema, which pi validates
    like its own TypeBox schemas) come from the SDK's one tool set; calls go
    back through the shared transport to the adapter server. ``secrets_exec``
    is listed only when ``SIGNET_TOOLS_ALLOW_EXEC=1`` at install time.
    """
    from signet_sdk.tools import tool_definitions

    allow = env.get("SIGNET_TOOLS_ALLOW_EXEC") == "1"
    return [
        {
            "name": tool["name"],
            "label": tool["name"].replace("_", " "),
            "description": tool["description"],
            "parameters": tool["inputSchema"],
            "timeoutMs": _TOOL_TIMEOUT_MS,
        }
        for tool in tool_definitions(allow_commands=allow)
    ]


def _json(data: Any) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def extension_files(env: Mapping[str, str], python: str | None = None) -> dict[str, str]:
    """File name -> text of everything the installer writes into the extension directory."""
    from importlib.resources import files

    from . import PLUGIN

    shim_dir = PLUGIN.shim_dir()
    assert shim_dir is not None
    index = Path(shim_dir, "index.js").read_text(encoding="utf-8")
    transport = (files("signet_sdk") / "shims" / "transport.mjs").read_text(encoding="utf-8")
    command = {"managedBy": "signet-sdk install pi", "command": sdk_command(python)}
    return {
        "index.js": index,
        "transport.mjs": transport,
        "signet-sdk.json": _json(command),
        "signet-pi.json": _json(shim_spec(env)),
    }


def extension_dir(agent: str | None, env: Mapping[str, str]) -> Path:
    from ._paths import extensions_dir

    if agent:
        return Path(agent).expanduser().absolute() / "extensions" / DIRECTORY
    return Path(extensions_dir(env)) / DIRECTORY


def is_ours(folder: Path) -> bool:
    """Whether ``folder`` holds our extension: its ``index.js`` starts with the marker."""
    return marked(folder / "index.js", MARKER)


def _check_place(folder: Path, names: Sequence[str]) -> None:
    """Refuse a place we would overwrite without owning it, or share with files not ours.

    pi loads the folder as one extension, from one index file: beside a
    user's ``index.ts`` (which pi may load first) ours would never run, or
    theirs would not. So any file there other than our four is refused,
    whether or not ours are there too, and is never touched.
    """
    if folder.is_symlink() or (folder.exists() and not folder.is_dir()):
        raise InstallError(f"{folder}: exists and is not a directory we manage; left untouched")
    if not folder.exists():
        return
    others = sorted(p.name for p in folder.iterdir() if p.name not in names)
    if others:
        raise InstallError(
            f"{folder}: holds {', '.join(others)}, not ours; pi loads this folder as one "
            "extension, so Signet's cannot go beside it; left untouched (move it elsewhere)"
        )
    if is_ours(folder):
        return
    taken = [n for n in names if (folder / n).exists() or (folder / n).is_symlink()]
    if taken:
        raise InstallError(
            f"{folder}: holds {', '.join(taken)} without our marker ({MARKER}) in index.js; "
            "not ours, left untouched"
        )


def _install(folder: Path, files: Mapping[str, str], dry_run: bool) -> int:
    _check_place(folder, list(files))
    changes = []
    for name, text in files.items():
        current = read_text(folder / name)
        if current != text:
            changes.append((name, current, text))
    if not changes:
        sys.stdout.write(f"{folder}: already up to date, nothing changed\n")
        return 0
    if dry_run:
        for name, current, text in changes:
            sys.stdout.write(text_diff(folder / name, current, text, "install"))
        return 0
    # index.js last: the marker appears only once the other files are in place.
    for name, _, text in sorted(changes, key=lambda c: c[0] == "index.js"):
        replace_text(folder / name, text)
    sys.stdout.write(f"Signet pi extension installed into {folder}\n")
    sys.stdout.write("pi loads extensions at start-up: restart running sessions (or /reload).\n")
    connector = folder.parent / _SIGNET_CONNECTOR_FILE
    if connector.exists():
        sys.stdout.write(
            f"note: {connector} (Signet's own pi extension) is installed too; "
            "with both, every session is captured twice\n"
        )
    return 0


def _uninstall(folder: Path, names: Sequence[str], dry_run: bool) -> int:
    if not folder.is_dir() or folder.is_symlink() or not is_ours(folder):
        sys.stdout.write(f"{folder}: no extension of ours there, nothing changed\n")
        return 0
    present = [n for n in names if (folder / n).is_file() and not (folder / n).is_symlink()]
    if dry_run:
        for name in present:
            sys.stdout.write(text_diff(folder / name, read_text(folder / name), None, "uninstall"))
        return 0
    cli.remove_folder(folder, present, "index.js")
    sys.stdout.write(f"Signet pi extension removed from {folder}\n")
    return 0


def _run(opts: argparse.Namespace, env: dict[str, str]) -> int:
    folder = extension_dir(opts.agent_dir, env)
    files = extension_files(env, opts.python)
    if opts.verb == "install":
        return _install(folder, files, opts.dry_run)
    return _uninstall(folder, list(files), opts.dry_run)


#: ``main(["install" | "uninstall", *options])``; 0 on success, 1 when refused, 2 on usage.
main = cli.command(
    "pi",
    "Write Signet's pi extension into pi's agent directory (extensions/signet-sdk), or remove it.",
    _run,
    [
        cli.Option(
            "--agent-dir",
            "pi's agent directory (default: $PI_CODING_AGENT_DIR, else ~/.pi/agent)",
            "DIR",
        )
    ],
    python="interpreter whose signet-sdk command the extension runs",
)


if __name__ == "__main__":
    sys.exit(main())
