# long module: install and uninstall splice two files as text (settings, MCP) with an undo record
"""``signet-sdk install claude-code`` / ``uninstall``: our hooks in Claude Code's settings.

Claude Code reads hooks from ``settings.json``: per event a list of matcher
groups, each with a list of handlers ``{"type": "command", "command": ...,
"timeout": <seconds>}``. The installer merges one handler per event into
that structure and changes nothing else:

* the file is edited as text (:mod:`signet_sdk.installing.json_reshape`):
  only our handlers (and the groups, event lists and ``hooks`` they need)
  are spliced in or out, so the user's indent, key order, compact arrays,
  an empty ``"hooks": {}`` and every other setting keep their bytes;
* user hooks, including other handlers on the same events, stay where they
  are; our handler is recognised by its command (``signet-sdk hook
  claude-code`` or ``-m signet_sdk hook claude-code``, and the older
  ``signet-claude-code-hook`` forms), so an install from another environment
  or version is updated in place rather than duplicated;
* a second run finds nothing to change and writes nothing;
* timeouts are in seconds, as Claude Code reads them: the contract's
  per-hook deadline plus 2 s, and SessionEnd short, since Claude Code cuts it
  off anyway and the hook only hands its work to the durable outbox;
* what the install changed is recorded beside the settings
  (``signet-sdk-install.json``, 0600: it holds the settings as they were):
  ``uninstall`` puts back the exact bytes when the file is as the install
  left it (removing a file, and the folders, the install created), and
  otherwise removes only our handlers and what only they filled. That
  record is the way back, so no ``.bak`` copies are made;
* ``--dry-run`` prints the unified diff and writes nothing;
* a file that is not valid JSON or has the wrong shape is reported with its
  path and the problem (exit 1) and nothing is changed.

The memory tools are registered too, as the MCP server ``signet``
(``signet-sdk mcp``, stdio) under ``mcpServers``: in ``DIR/.mcp.json`` for
``--project`` (and approved for that project through
``enabledMcpjsonServers`` in its settings, so headless runs load it), else
in the user-scope ``~/.claude.json`` (``$CLAUDE_CONFIG_DIR/.claude.json``
when set). That file is Claude Code's own state, which it rewrites itself:
only the ``mcpServers.signet`` member is spliced in or out
(:mod:`signet_sdk.installing.mcp`; and ``mcpServers`` when the install
created it), never the rest, and the record
keeps only whether the file and ``mcpServers`` were there. A ``signet``
server of the user's is refused, not replaced; ``--no-mcp`` skips it all.

User scope is ``$CLAUDE_CONFIG_DIR/settings.json`` (default
``~/.claude/settings.json``); ``--project DIR`` writes
``DIR/.claude/settings.json``; ``--settings FILE`` names a file directly.
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
from signet_sdk.installing.command import (
    event_deadlines,
    program_words,
    runs_sdk,
    sdk_shell_command,
)
from signet_sdk.installing.files import (
    InstallError,
    missing_folders,
    parse_json,
    read_text,
    remove_empty_folders,
    write_or_remove,
)
from signet_sdk.installing.hook_groups import (
    check_hook_groups,
    merge_hook_groups,
    unmerge_hook_groups,
)
from signet_sdk.installing.json_reshape import reshape
from signet_sdk.installing.mcp import MCP_NAME, add_server, is_sdk_server, remove_server
from signet_sdk.installing.undo import RECORD, read_record, write_record

from ._mcp import approve_mcp, check_mcp, mcp_entry, mcp_path, unapprove_mcp

__all__ = [
    "HOOK_TIMEOUTS",
    "RECORD",
    "SettingsError",
    "hook_command",
    "hook_timeouts",
    "main",
    "merge",
    "unmerge",
]

#: Seconds Claude Code waits beyond the hook's own deadline before killing it.
_MARGIN = 2
#: SessionEnd only hands its write to the outbox; Claude Code cuts it short anyway.
_SESSION_END_TIMEOUT = 5
#: The undo record's ``managedBy``: another installer's record beside the file is not ours.
_MANAGED_BY = "signet-sdk install claude-code"
_HOOKS = "hooks"
_SERVER = "memory tools (MCP server)"


def hook_timeouts(env: Mapping[str, str] | None = None) -> dict[str, int]:
    """Claude Code's ``timeout`` (seconds) per registered event.

    The hook's own deadline for the event (from ``SIGNET_*_TIMEOUT`` in
    ``env``, else the contract's defaults) plus a margin, so Claude Code
    never kills a hook that is still within its deadline.
    """
    from . import PLUGIN

    deadlines = event_deadlines(PLUGIN.events, env)
    return {
        name: _SESSION_END_TIMEOUT if name == "SessionEnd" else math.ceil(seconds) + _MARGIN
        for name, seconds in deadlines.items()
        if name != "SubagentStop"  # sends nothing; not registered
    }


#: Hook events we register with the default deadlines: Claude Code's ``timeout`` in seconds.
HOOK_TIMEOUTS: dict[str, int] = hook_timeouts({})

_HOOK_ARGS = ("hook", "claude-code")
#: Commands earlier versions registered; recognised so an upgrade replaces them.
_LEGACY_PROGRAM = "signet-claude-code-hook"
_LEGACY_MODULE = "signet_adapter_claude_code.hook"


class SettingsError(InstallError):
    """The settings file cannot be merged safely; the message names file and problem."""


def hook_command(python: str | None = None) -> str:
    """The command Claude Code runs, as an absolute path that needs no PATH lookup.

    Prefer the ``signet-sdk`` console script installed beside the
    interpreter; fall back to ``<python> -m signet_sdk``. Either runs the
    core's hook runner: ``... hook claude-code <Event>``.
    """
    return sdk_shell_command(_HOOK_ARGS, python)


def _legacy(words: list[str]) -> bool:
    return program_words(words, _LEGACY_PROGRAM, _LEGACY_MODULE) is not None


def is_ours(handler: Any) -> bool:
    """Whether a handler entry is one this installer wrote (from any environment)."""
    return runs_sdk(handler, _HOOK_ARGS, _legacy)


def _handler(command: str, event: str, timeouts: Mapping[str, int]) -> dict[str, Any]:
    return {"type": "command", "command": f"{command} {event}", "timeout": timeouts[event]}


def merge(
    settings: dict[str, Any], command: str, timeouts: Mapping[str, int] | None = None
) -> dict[str, Any]:
    """``settings`` with exactly one of our handlers per event; everything else as it was."""
    timeouts = HOOK_TIMEOUTS if timeouts is None else timeouts
    wanted = {event: _handler(command, event, timeouts) for event in timeouts}
    return merge_hook_groups(settings, wanted, is_ours)


def unmerge(settings: dict[str, Any]) -> dict[str, Any]:
    """``settings`` without our handlers and without what only they filled."""
    return unmerge_hook_groups(settings, is_ours)


def settings_path(project: str | None, explicit: str | None, env: Mapping[str, str]) -> Path:
    """``--settings FILE``, else ``DIR/.claude/settings.json``, else the user's settings file."""
    if explicit:
        return Path(explicit).expanduser().absolute()
    if project:
        return Path(project).expanduser().absolute() / ".claude" / "settings.json"
    config_dir = env.get("CLAUDE_CONFIG_DIR", "").strip()
    base = Path(config_dir).expanduser() if config_dir else Path.home() / ".claude"
    return base.absolute() / "settings.json"


def load(path: Path, text: str | None) -> dict[str, Any]:
    """The settings ``text`` parsed (``{}``: no file, or blank), once its shape is checked."""
    return check_hook_groups(parse_json(path, text, SettingsError), path, SettingsError)


def render(data: Mapping[str, Any]) -> str:
    """A file we create whole, laid out as Claude Code writes its own."""
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def _same(a: Any, b: Any) -> bool:
    """Equal as JSON values: key order is the user's layout, not a change to write."""
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def _blank(text: str | None) -> bool:
    """No settings to keep (no file, or only blanks): such a file is written whole."""
    return text is None or not text.strip()


def _edited(text: str | None, now: Any, want: Any) -> str | None:
    """``text`` holding ``want``: whole when there is no text to keep, else spliced."""
    if _same(now, want) and text is not None:
        return text
    return render(want) if _blank(text) else reshape(str(text), want)


def _keep_empty(now: Any, want: Any, before: Any) -> Any:
    """``want``, with the empty objects and lists the user had ``before`` kept where they are.

    Removing our handlers empties what held only them; a ``"hooks": {}`` or an
    event's ``[]`` that was there before the install is the user's, not ours.
    """
    if not (isinstance(now, dict) and isinstance(want, dict) and isinstance(before, dict)):
        return want
    out: dict[str, Any] = {}
    for key, value in now.items():
        if key in want:
            out[key] = _keep_empty(value, want[key], before.get(key))
        elif isinstance(value, dict | list) and before.get(key) == type(value)():
            out[key] = type(value)()
        elif isinstance(value, dict) and isinstance(before.get(key), dict):
            # Gone because removing ours emptied it: the user's empty lists in it come back.
            inner = _keep_empty(value, {}, before[key])
            if inner:
                out[key] = inner
    for key, value in want.items():
        out.setdefault(key, value)
    return out


# -- the settings file ------------------------------------------------------------


def _settings_without_ours(
    path: Path, text: str, now: dict[str, Any], approved: bool, old: Mapping[str, Any] | None
) -> str | None:
    """The settings without our handlers (and approval); None: the file goes.

    The recorded ``before`` when the file is byte for byte what the install
    wrote and removing ours leaves what it held then; else only ours are
    spliced out.
    """
    want = unmerge(now)
    if approved:
        want = unapprove_mcp(want)
    if _same(want, now):
        return text
    if old is not None:
        before = old.get("before")
        try:
            was = parse_json(path, before if isinstance(before, str) else None)
        except InstallError:
            was = None
        want = _keep_empty(now, want, was)
        if old.get("after") == text and _same(was, want):
            return before if old.get("existed", True) and isinstance(before, str) else None
    return reshape(text, want)


def _plan_settings(
    path: Path, text: str | None, opts: argparse.Namespace, env: Mapping[str, str], files: Any
) -> cli.Change:
    """The settings file's change; its record entry in ``files`` updated to match."""
    now, key = load(path, text), str(path)
    approved = bool(opts.project) and not opts.no_mcp
    if opts.verb == "uninstall":
        old = files.pop(key, None)
        new = text if text is None else _settings_without_ours(path, text, now, approved, old)
        return cli.Change(path, text, new, _HOOKS)
    want = merge(now, hook_command(opts.python), hook_timeouts(env))
    if approved:
        want = approve_mcp(want, path)
    new = _edited(text, now, want)
    if new != text:
        old = files.get(key)
        if old is not None and old.get("after") == text:
            files[key] = {**old, "after": new}  # ours updated: the user's original still holds
        else:
            # Ours from an install whose record is gone or stale are not the user's.
            before = (
                text
                if _blank(text)
                else _settings_without_ours(path, str(text), now, approved, None)
            )
            files[key] = {
                "existed": text is not None,
                "before": before,
                "after": new,
                "folders": missing_folders(path) if text is None else [],
            }
    return cli.Change(path, text, new, _HOOKS)


# -- the MCP file -------------------------------------------------------------------


def _plan_mcp(
    path: Path, text: str | None, verb: str, entry: dict[str, Any], files: Any
) -> cli.Change:
    """The MCP file's change; its record entry in ``files`` updated to match.

    Only ``mcpServers.signet`` (and ``mcpServers`` when the install created
    it) is touched, by the SDK's :func:`add_server` and :func:`remove_server`,
    once the file is checked as the strict JSON Claude Code reads. The record
    never copies the file (``~/.claude.json`` is Claude Code's whole state),
    only whether it and ``mcpServers`` were there, and a blank file's text.
    """
    now, key = check_mcp(parse_json(path, text, SettingsError), path), str(path)
    servers = now.get("mcpServers") or {}
    if verb == "install":
        new = add_server(path, text, entry)
        if new != text and not (key in files and is_sdk_server(servers.get(MCP_NAME))):
            record: dict[str, Any] = {
                "created": "mcpServers" not in now,
                "folders": missing_folders(path) if text is None else [],
            }
            if _blank(text):
                record["before"] = text  # nothing but what we wrote: give back the blank or no file
            files[key] = record
        return cli.Change(path, text, new, _SERVER)
    old = files.pop(key, None)
    if MCP_NAME in servers and not is_sdk_server(servers[MCP_NAME]):
        sys.stderr.write(f"{path}: mcpServers.{MCP_NAME} does not run signet-sdk; kept\n")
    # Without a record, ``mcpServers`` goes too when ours was all it held.
    after = remove_server(path, text, drop_empty=old is None or bool(old.get("created")))
    if after is None or after == text:
        return cli.Change(path, text, text, _SERVER)
    if old is not None and "before" in old and parse_json(path, after) == {}:
        return cli.Change(path, text, old["before"], _SERVER)
    return cli.Change(path, text, after, _SERVER)


# -- install / uninstall --------------------------------------------------------------


def _record_files(path: Path) -> dict[str, Any]:
    """The files an earlier install recorded (by path); a record we cannot read is refused."""
    record = read_record(path, _MANAGED_BY)
    if record is None:
        return {}
    files = record.get("files")
    if not isinstance(files, dict) or not all(isinstance(v, dict) for v in files.values()):
        raise InstallError(f"{path}: not an install record; remove it and run again")
    return dict(files)


def _write_files(path: Path, files: Mapping[str, Any]) -> None:
    """Keep the record of ``files``; with none left it goes, so nothing of ours stays behind."""
    if files:
        write_record(path, {"managedBy": _MANAGED_BY, "files": dict(files)})
    else:
        path.unlink(missing_ok=True)


def _run(opts: argparse.Namespace, env: dict[str, str]) -> int:
    path = settings_path(opts.project, opts.settings, env)
    install = opts.verb == "install"
    record_path = path.with_name(RECORD)
    recorded = _record_files(record_path)
    files = dict(recorded)
    # Every file is read and checked before the first write: a refusal changes nothing.
    changes = [_plan_settings(path, read_text(path), opts, env, files)]
    if not opts.no_mcp:
        target = mcp_path(opts.project, env)
        entry = mcp_entry(opts.python)
        changes.append(_plan_mcp(target, read_text(target), opts.verb, entry, files))
    moved = any(c.before != c.after for c in changes)
    if install and moved and not opts.dry_run:
        _write_files(record_path, files)  # first: a file written after it is never unrecorded
    done = "installed into" if install else "removed from"

    def write(change: cli.Change) -> str:
        write_or_remove(change.path, change.after, 0o600)
        gone = " (file removed)" if change.after is None else ""
        return f"Signet {change.what} {done} {change.path}{gone}\n"

    wrote = cli.apply("claude-code", opts.verb, changes, opts.dry_run, write)
    if wrote is None:
        return 1
    if not install and not opts.dry_run:
        if files != recorded:
            _write_files(record_path, files)
        gone = [c for c in changes if c.after is None and c.before is not None]
        remove_empty_folders(
            [f for c in gone for f in recorded.get(str(c.path), {}).get("folders", [])]
        )
    if wrote and install:
        sys.stdout.write("Claude Code reads hooks at start-up: restart running sessions.\n")
    return 0


#: ``main(["install" | "uninstall", *options])``; 0 on success, 1 on a bad file, 2 on usage.
main = cli.command(
    "claude-code",
    "Merge Signet's Claude Code hooks into settings.json and its memory tools "
    "(MCP server 'signet') into Claude Code's MCP config, or remove them.",
    _run,
    [
        (
            cli.Option("--project", "use DIR/.claude/settings.json", "DIR"),
            cli.Option("--settings", "use this settings file", "FILE"),
        )
    ],
    [cli.NO_MCP],
    dry_run="print the diff, write nothing",
    python=cli.HOOK_PYTHON,
    refused=(InstallError, ValueError),
)


if __name__ == "__main__":
    sys.exit(main())
