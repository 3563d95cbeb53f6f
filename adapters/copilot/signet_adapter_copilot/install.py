"""``signet-sdk install copilot`` / ``uninstall``: our hook file and MCP server for Copilot CLI.

Copilot CLI loads every ``*.json`` hook file in ``$COPILOT_HOME/hooks``
(``~/.copilot/hooks``) and, for a folder the user trusted, in the
repository's ``.github/hooks``; each file is ``{"version": 1, "hooks":
{<event>: [{"type": "command", "bash": ..., "timeoutSec": <s>}]}}``
(docs.github.com, "GitHub Copilot CLI hooks reference"). The installer
writes and changes two files, nothing else:

* our own hook file, ``signet-sdk.json``, in ``$COPILOT_HOME/hooks`` (or, with
  ``--project DIR``, in ``DIR/.github/hooks``: Copilot loads it only once
  the folder is trusted, in ``-p`` mode too). It registers
  ``<signet-sdk> hook copilot <event>`` for every event but subagentStop
  (which sends nothing); a handler of the user's put into that file stays.
  Our handler is recognised by its command, so a reinstall from another
  environment updates it in place. ``timeoutSec`` is the hook's own deadline
  plus 2 s, so Copilot never stops a hook still within it;
* ``$COPILOT_HOME/mcp-config.json``: our MCP server ``signet`` (``signet-sdk
  mcp``) under ``mcpServers``, inserted as text so every other server and
  byte stays (``--no-mcp`` skips it). The MCP server is the user's with
  ``--project`` too: project MCP files load in ``-p`` mode only on request.

A second run changes nothing. Before the first change, each file's original
bytes (or its absence) are kept beside it as ``<file>.signet-sdk-orig``;
``uninstall`` removes what we added and, when the rest is what it was, puts
those exact bytes back (or removes a file we created). ``--dry-run`` prints
the diffs. A file that cannot be parsed is reported with its path (exit 1),
untouched.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from signet_sdk.installing import cli
from signet_sdk.installing.command import event_deadlines, put_ours, runs_sdk, sdk_shell_command
from signet_sdk.installing.files import InstallError, parse_json, read_text
from signet_sdk.installing.mcp import sdk_mcp_entry, server_change
from signet_sdk.installing.originals import apply_keeping, restored

from ._paths import copilot_home

__all__ = ["HOOK_FILE", "hook_command", "hook_timeouts", "main", "merge_hooks", "unmerge_hooks"]

#: The hook file we own, in Copilot's hooks folder.
HOOK_FILE = "signet-sdk.json"
_MCP_FILE = "mcp-config.json"
#: Seconds Copilot waits beyond the hook's own deadline before stopping it.
_MARGIN = 2
_HOOK_ARGS = ("hook", "copilot")


def hook_timeouts(env: Mapping[str, str] | None = None) -> dict[str, int]:
    """Copilot's ``timeoutSec`` per registered event."""
    from . import PLUGIN

    deadlines = event_deadlines(PLUGIN.events, env)
    return {
        name: math.ceil(seconds) + _MARGIN
        for name, seconds in deadlines.items()
        if name != "subagentStop"  # sends nothing; not registered
    }


def hook_command(python: str | None = None) -> str:
    """The command Copilot runs: an absolute ``signet-sdk`` (or ``python -m signet_sdk``)."""
    return sdk_shell_command(_HOOK_ARGS, python)


def is_ours(handler: Any) -> bool:
    """Whether a handler entry is one this installer wrote (from any environment)."""
    return isinstance(handler, dict) and runs_sdk({"command": handler.get("bash")}, _HOOK_ARGS)


def _check(data: Any, path: Path) -> dict[str, Any]:
    """``data`` when it has a hook file's shape; else an ``InstallError`` naming the key."""
    if not isinstance(data, dict):
        raise InstallError(f"{path}: expected a JSON object at the top level")
    hooks = data.get("hooks", {})
    if not isinstance(hooks, dict):
        raise InstallError(f"{path}: 'hooks' must be an object, got {type(hooks).__name__}")
    for event, handlers in hooks.items():
        if not isinstance(handlers, list):
            raise InstallError(f"{path}: hooks.{event} must be a list of hooks")
    return data


def merge_hooks(
    data: Mapping[str, Any], command: str, timeouts: Mapping[str, int]
) -> dict[str, Any]:
    """``data`` with exactly one handler of ours per event; every other handler as it was."""
    out: dict[str, Any] = json.loads(json.dumps(data))
    out.setdefault("version", 1)
    hooks = out.setdefault("hooks", {})
    for event in list(hooks):
        if event not in timeouts:  # an event we no longer register
            hooks[event] = [h for h in hooks[event] if not is_ours(h)]
            if not hooks[event]:
                del hooks[event]
    for event, seconds in timeouts.items():
        wanted = {"type": "command", "bash": f"{command} {event}", "timeoutSec": seconds}
        handlers, placed = put_ours(hooks.get(event, []), wanted, False, is_ours)
        hooks[event] = handlers if placed else [*handlers, wanted]
    return out


def unmerge_hooks(data: Mapping[str, Any]) -> dict[str, Any]:
    """``data`` without our handlers, and without the events only they filled."""
    out: dict[str, Any] = json.loads(json.dumps(data))
    hooks = out.get("hooks")
    if isinstance(hooks, dict):
        for event in list(hooks):
            kept = [h for h in hooks[event] if not is_ours(h)]
            if kept:
                hooks[event] = kept
            else:
                del hooks[event]
    return out


def _load_hooks(path: Path, text: str | None) -> dict[str, Any]:
    return _check(parse_json(path, text), path)


def _hooks_normal(data: dict[str, Any]) -> dict[str, Any]:
    """A hook file's content with what holds nothing left out: an empty file is no file."""
    out = {k: v for k, v in data.items() if k != "hooks"}
    hooks = {k: v for k, v in (data.get("hooks") or {}).items() if v}
    if hooks:
        out["hooks"] = hooks
    elif out.get("version") == 1:
        del out["version"]
    return out


def _render(data: Mapping[str, Any]) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def _hook_changes(verb: str, path: Path, command: str, env: Mapping[str, str]) -> cli.Change:
    text = read_text(path)
    data = _load_hooks(path, text)
    if verb == "install":
        merged = merge_hooks(data, command, hook_timeouts(env))
        after: str | None = text if text is not None and data == merged else _render(merged)
        return cli.Change(path, text, after, "hooks")
    left = unmerge_hooks(data)
    if left == data:
        return cli.Change(path, text, text, "hooks")

    def normal(t: str | None) -> Any:
        return _hooks_normal(_load_hooks(path, t))

    after = None if not _hooks_normal(left) else _render(left)
    after = restored(path, after, normal)
    return cli.Change(path, text, after, "hooks")


def mcp_entry(python: str | None = None) -> dict[str, Any]:
    """Our ``mcpServers`` entry in Copilot's form: ``{"type": "local", ..., "tools": ["*"]}``.

    Copilot CLI reads user-level servers from ``$COPILOT_HOME/mcp-config.json``
    (docs.github.com, "Adding MCP servers for GitHub Copilot CLI"); the
    tools reach the model as ``signet-memory_search`` and so on.
    """
    return {"type": "local", **sdk_mcp_entry("copilot", python), "tools": ["*"]}


def _run(opts: argparse.Namespace, env: dict[str, str]) -> int:
    home = Path(copilot_home(env)).expanduser().absolute()
    if opts.project:
        folder = Path(opts.project).expanduser().absolute() / ".github" / "hooks"
    else:
        folder = home / "hooks"
    verb = opts.verb
    changes = [_hook_changes(verb, folder / HOOK_FILE, hook_command(opts.python), env)]
    if not opts.no_mcp:
        entry = mcp_entry(opts.python)
        changes.append(server_change(verb, home / _MCP_FILE, entry, "memory tools (MCP server)"))
    wrote = apply_keeping("copilot", verb, changes, opts.dry_run)
    if wrote is None:
        return 1
    if wrote and verb == "install":
        sys.stdout.write("Copilot CLI reads hooks when a session starts: restart running ones.\n")
        if opts.project:
            sys.stdout.write(
                f"Copilot CLI loads {folder} only in a folder you trust (its folder-trust "
                "prompt, or trustedFolders in ~/.copilot/config.json), in -p mode too.\n"
            )
    return 0


#: ``main(["install" | "uninstall", *options])``; 0 ok, 1 a file we cannot change, 2 usage.
main = cli.command(
    "copilot",
    "Write Signet's GitHub Copilot CLI hook file and register its memory tools "
    "(MCP server 'signet') in ~/.copilot/mcp-config.json, or remove them.",
    _run,
    [cli.Option("--project", f"write DIR/.github/hooks/{HOOK_FILE} instead", "DIR")],
    [cli.NO_MCP],
    dry_run=cli.DIFFS,
    python=cli.HOOK_PYTHON,
)


if __name__ == "__main__":
    sys.exit(main())
