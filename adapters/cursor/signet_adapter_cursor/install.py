"""``signet-sdk install cursor`` / ``uninstall``: our hooks and memory tools in Cursor's files.

Cursor reads command hooks from ``hooks.json`` (``~/.cursor/hooks.json`` for
the user; ``<project>/.cursor/hooks.json`` in a trusted workspace, with
``--project DIR``) and MCP servers from ``mcp.json`` in the same folder. The
installer adds, and removes again, exactly:

* one definition per event we translate, ``{"command": "<signet-sdk>
  hook cursor <event>", "timeout": <seconds>}``, at the end of that event's
  list (our definition is recognised by its command, so an install from
  another environment updates it rather than adding a second);
* the memory tools as the MCP server ``mcpServers.signet`` (``signet-sdk
  mcp`` on stdio), unless ``--no-mcp``; a server of that name that is not
  ours is refused, never replaced.

Rules:

* Both files are edited as text (:mod:`._edit`): every other hook, server,
  key, comment-free layout byte and order stays as it was.
* Timeouts are in seconds, as Cursor reads them: the hook's own deadline
  for the event plus 2 s, so Cursor never kills a hook still inside it;
  ``sessionEnd`` 5 s, since its hook only hands its work to the outbox.
* A second run finds nothing to change and writes nothing; ``--dry-run``
  prints the diffs and writes nothing.
* What each file was before the install is recorded beside it
  (``signet-sdk-install.json``, 0600). ``uninstall`` puts those exact bytes
  back (or removes a file the install created) when nothing but our
  entries changed since; otherwise it removes only our entries and keeps
  the user's later edits.
* A file that does not parse, or whose ``hooks``, ``hooks.<event>`` or
  ``mcpServers`` has the wrong shape, is reported with its path (exit 1)
  and nothing is changed.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from signet_sdk.installing import cli
from signet_sdk.installing.command import event_deadlines, runs_sdk, sdk_command, sdk_shell_command
from signet_sdk.installing.files import (
    InstallError,
    read_text,
    replace_text,
    write_or_remove,
)

from ._edit import MCP_NAME, merge_hooks, merge_mcp, normal, unmerge_hooks, unmerge_mcp

__all__ = [
    "MCP_NAME",
    "RECORD",
    "config_dir",
    "hook_command",
    "hook_definitions",
    "hook_timeouts",
    "is_ours",
    "main",
    "mcp_entry",
]

#: Beside the files: what they held before the install, so uninstall can put it back.
RECORD = "signet-sdk-install.json"
_MANAGED_BY = "signet-sdk install cursor"
_HOOK_ARGS = ("hook", "cursor")
#: Seconds Cursor waits beyond the hook's own deadline before killing it.
_MARGIN = 2
#: ``sessionEnd`` only hands its write to the outbox and a detached sender.
_SESSION_END_TIMEOUT = 5
#: What uninstall leaves of a file the install created, when nothing else was added.
_SKELETON = {"hooks.json": '{"version": 1}', "mcp.json": "{}"}


def hook_timeouts(env: Mapping[str, str] | None = None) -> dict[str, int]:
    """Cursor's ``timeout`` (seconds) per registered event, under ``env``'s deadlines."""
    from . import PLUGIN

    deadlines = event_deadlines(PLUGIN.events, env)
    return {
        name: _SESSION_END_TIMEOUT if PLUGIN.events[name].detach else math.ceil(seconds) + _MARGIN
        for name, seconds in deadlines.items()
    }


def hook_command(python: str | None = None) -> str:
    """The command Cursor runs (absolute, no PATH lookup), without the event."""
    return sdk_shell_command(_HOOK_ARGS, python)


def is_ours(definition: Any) -> bool:
    """Whether a hook definition is one this installer wrote (from any environment)."""
    return runs_sdk(definition, _HOOK_ARGS)


def hook_definitions(command: str, timeouts: Mapping[str, int]) -> dict[str, dict[str, Any]]:
    """Event -> the one definition we register for it."""
    return {e: {"command": f"{command} {e}", "timeout": s} for e, s in timeouts.items()}


def mcp_entry(python: str | None = None) -> dict[str, Any]:
    """The ``mcpServers`` entry: ``signet-sdk mcp`` on stdio, labelled as Cursor."""
    words = sdk_command(python)
    return {"command": words[0], "args": [*words[1:], "mcp"], "env": {"SIGNET_HARNESS": "cursor"}}


def config_dir(project: str | None, env: Mapping[str, str]) -> Path:
    """``DIR/.cursor`` for a project, else the user's ``~/.cursor``."""
    if project:
        return Path(project).expanduser().absolute() / ".cursor"
    from ._paths import cursor_dir

    return Path(cursor_dir(env)).expanduser().absolute()


# -- the record -----------------------------------------------------------------


def _read_record(path: Path) -> dict[str, Any]:
    text = read_text(path)
    if text is None:
        return {}
    try:
        data = json.loads(text)
    except ValueError:
        raise InstallError(f"{path}: not valid JSON; remove it and run again") from None
    files = data.get("files") if isinstance(data, dict) else None
    if not isinstance(files, dict) or not all(isinstance(v, dict) for v in files.values()):
        raise InstallError(f"{path}: not an install record; remove it and run again")
    return dict(files)


def _write_record(path: Path, files: Mapping[str, Any]) -> None:
    if not files:
        path.unlink(missing_ok=True)
        return
    record = {"managedBy": _MANAGED_BY, "files": dict(files)}
    replace_text(path, json.dumps(record, indent=2, ensure_ascii=False) + "\n", 0o600)


# -- planning -------------------------------------------------------------------

#: (file name, what it holds of ours, merge text -> text, unmerge text -> text)
Edit = tuple[str, str, Callable[[str | None], str], Callable[[str], str]]


def _edits(
    folder: Path, definitions: Mapping[str, Any], entry: dict[str, Any] | None
) -> list[Edit]:
    hooks, mcp = folder / "hooks.json", folder / "mcp.json"
    out: list[Edit] = [
        (
            "hooks.json",
            "hooks",
            lambda t: merge_hooks(hooks, t, definitions, is_ours),
            lambda t: unmerge_hooks(hooks, t, is_ours),
        )
    ]
    if entry is not None:
        out.append(
            (
                "mcp.json",
                "memory tools (MCP server)",
                lambda t: merge_mcp(mcp, t, entry),
                lambda t: unmerge_mcp(mcp, t),
            )
        )
    return out


#: One file's planned text from its edit and current text; the record's files updated in place.
Step = Callable[[Edit, str | None, dict[str, Any]], str | None]


def _plan(
    folder: Path, edits: list[Edit], record: Mapping[str, Any], step: Step
) -> tuple[list[cli.Change], dict[str, Any]]:
    """Each edited file's change (``step`` of its text) and the record's files afterwards."""
    changes: list[cli.Change] = []
    files = dict(record)
    for edit in edits:
        path = folder / edit[0]
        text = read_text(path)
        changes.append(cli.Change(path, text, step(edit, text, files), edit[1]))
    return changes, files


def _installed(edit: Edit, text: str | None, files: dict[str, Any]) -> str | None:
    """The file with ours merged in; its record entry says what it was before."""
    name, _, merge, unmerge = edit
    new = merge(text)
    if text is not None and new == text:
        return text
    old = files.get(name)
    if old is not None and old.get("after") == text:
        before, existed = old.get("before"), bool(old.get("existed"))
    else:
        # Never record our own entries as the user's: an earlier install's are taken out.
        before = text if text is None or not text.strip() else unmerge(text)
        existed = text is not None if old is None else bool(old.get("existed"))
    files[name] = {"existed": existed, "before": before, "after": new}
    return new


def _restored(name: str, text: str, spliced: str, old: Mapping[str, Any] | None) -> str | None:
    """What uninstall leaves: the recorded original when only our part changed, else ``spliced``."""
    if old is None:
        return spliced
    before = old.get("before") if old.get("existed") else None
    if old.get("after") == text:
        return before
    original = before if before is not None else _SKELETON[name]
    if normal(spliced) == normal(original):
        return before
    return spliced


def _uninstalled(edit: Edit, text: str | None, files: dict[str, Any]) -> str | None:
    """The file without ours (its recorded original when only our part changed)."""
    name, _, _, unmerge = edit
    old = files.pop(name, None)
    if text is None or not text.strip():
        return text
    spliced = unmerge(text)
    return _restored(name, text, spliced, old) if spliced != text else text


# -- the command ----------------------------------------------------------------


def _run(opts: argparse.Namespace, env: dict[str, str]) -> int:
    folder = config_dir(opts.project, env)
    install = opts.verb == "install"
    definitions = hook_definitions(hook_command(opts.python), hook_timeouts(env))
    # Uninstall removes a server of ours whatever environment wrote it.
    entry = None if install and opts.no_mcp else mcp_entry(opts.python)
    edits = _edits(folder, definitions, entry)
    record_path = folder / RECORD
    record = _read_record(record_path)
    changes, files = _plan(folder, edits, record, _installed if install else _uninstalled)
    moved = any(c.before != c.after for c in changes)
    if install and moved and not opts.dry_run:
        _write_record(record_path, files)  # first: a file written after it is never unrecorded
    done = "installed into" if install else "removed from"

    def write(change: cli.Change) -> str:
        # An existing file keeps its mode whatever the umask; a new one is 0600.
        write_or_remove(change.path, change.after, 0o600)
        return f"Signet {change.what} {done} {change.path}\n"

    wrote = cli.apply("cursor", opts.verb, changes, opts.dry_run, write)
    if wrote is None:
        return 1
    if not install and not opts.dry_run and files != record:
        _write_record(record_path, files)
    if wrote and install:
        sys.stdout.write(
            "Cursor reloads hooks.json when it changes; restart Cursor if the memory tools "
            f"(MCP server '{MCP_NAME}') do not show up.\n"
        )
        if opts.project:
            sys.stdout.write("Cursor runs a project's hooks only in a trusted workspace.\n")
    return 0


#: ``main(["install" | "uninstall", *options])``; 0 ok, 1 a file we cannot change, 2 usage.
main = cli.command(
    "cursor",
    "Add Signet's hooks to Cursor's hooks.json and its memory tools (MCP server "
    f"'{MCP_NAME}') to Cursor's mcp.json, or remove them.",
    _run,
    [cli.Option("--project", "use DIR/.cursor/hooks.json and DIR/.cursor/mcp.json", "DIR")],
    [cli.NO_MCP],
    dry_run=cli.DIFFS,
    python=cli.HOOK_PYTHON,
)


if __name__ == "__main__":
    sys.exit(main())
