"""``signet-sdk install claude-code`` / ``uninstall``: our hooks in Claude Code's settings.

Claude Code reads hooks from ``settings.json``: per event a list of matcher
groups, each with a list of handlers ``{"type": "command", "command": ...,
"timeout": <seconds>}``. The installer merges one handler per event into
that structure and changes nothing else:

* user hooks, including other handlers on the same events, and every other
  setting are kept, in their order;
* our handler is recognised by its command (``signet-sdk hook claude-code``
  or ``-m signet_sdk hook claude-code``, and the older
  ``signet-claude-code-hook`` forms), so an install from another
  environment or version is updated in place rather than duplicated;
* a second run finds nothing to change and leaves the file byte-identical;
* timeouts are in seconds, as Claude Code reads them: the contract's
  per-hook deadline plus 2 s, and SessionEnd short, since Claude Code cuts it
  off anyway and the hook only hands its work to the durable outbox;
* before a change the old file is copied to ``settings.json.bak-<UTC time>``,
  and the new one replaces it atomically;
* ``--dry-run`` prints the unified diff and writes nothing;
* a file that is not valid JSON or has the wrong shape is reported with its
  path and the problem (exit 1) and left untouched.

``uninstall`` removes only our handlers, then the groups and event keys that
removing them left empty (and ``hooks`` itself if it ends up empty).

The memory tools are registered too, as the MCP server ``signet``
(``signet-sdk mcp``, stdio) under ``mcpServers``: in ``DIR/.mcp.json`` for
``--project`` (and approved for that project through
``enabledMcpjsonServers`` in its settings, so headless runs load it), else
in the user-scope ``~/.claude.json`` (``$CLAUDE_CONFIG_DIR/.claude.json``
when set). The same rules hold: other servers and keys are kept, a second
run changes nothing, uninstall removes only ours, ``--no-mcp`` skips it.

User scope is ``$CLAUDE_CONFIG_DIR/settings.json`` (default
``~/.claude/settings.json``); ``--project DIR`` writes
``DIR/.claude/settings.json``; ``--settings FILE`` names a file directly.
"""

from __future__ import annotations

import json
import math
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from signet_sdk.installing import cli
from signet_sdk.installing.command import (
    event_deadlines,
    program_words,
    runs_sdk,
    sdk_shell_command,
)
from signet_sdk.installing.files import InstallError, backup, parse_json, read_text, replace_text
from signet_sdk.installing.hook_groups import (
    check_hook_groups,
    merge_hook_groups,
    unmerge_hook_groups,
)

from ._mcp import approve_mcp, mcp_entry, mcp_path, merge_mcp, unmerge_mcp

__all__ = [
    "HOOK_TIMEOUTS",
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


def settings_path(project: str | None, explicit: str | None, env: dict[str, str]) -> Path:
    if explicit:
        return Path(explicit).expanduser().absolute()
    if project:
        return Path(project).expanduser().absolute() / ".claude" / "settings.json"
    config_dir = env.get("CLAUDE_CONFIG_DIR", "").strip()
    base = Path(config_dir).expanduser() if config_dir else Path.home() / ".claude"
    return base.absolute() / "settings.json"


def load(path: Path) -> tuple[dict[str, Any], str | None]:
    """The parsed settings and the original text (None when the file does not exist)."""
    text = read_text(path)
    if text is None:
        return {}, None
    return check_hook_groups(parse_json(path, text, SettingsError), path, SettingsError), text


def render(settings: dict[str, Any]) -> str:
    return json.dumps(settings, indent=2, ensure_ascii=False) + "\n"


def _write(path: Path, text: str, original: str | None) -> Path | None:
    """Back the old file up, then replace it atomically; returns the backup path."""
    copy = backup(path) if original is not None else None
    replace_text(path, text, 0o600)
    return copy


def main(argv: Sequence[str] | None = None) -> int:
    """``main(["install" | "uninstall", *options])``; 0 on success, 1 on a bad file, 2 on usage."""
    parser = cli.parser(
        "claude-code",
        "Merge Signet's Claude Code hooks into settings.json and its memory tools "
        "(MCP server 'signet') into Claude Code's MCP config, or remove them.",
        [
            (
                cli.Option("--project", "use DIR/.claude/settings.json", "DIR"),
                cli.Option("--settings", "use this settings file", "FILE"),
            )
        ],
        [cli.NO_MCP],
        dry_run="print the diff, write nothing",
        python=cli.HOOK_PYTHON,
    )
    opts = cli.parse(parser, argv)
    if isinstance(opts, int):
        return opts

    env = dict(os.environ)
    path = settings_path(opts.project, opts.settings, env)
    install = opts.verb == "install"
    edits: list[cli.Change] = []
    target = path

    def edit(what: str, target: Path, text: str | None, now: dict[str, Any], new: Any) -> None:
        # An absent file stays absent unless install has something to put there.
        same = new == now and (text is not None or not install)
        edits.append(cli.Change(target, text, text if same else render(new), what))

    try:
        current, original = load(path)
        timeouts = hook_timeouts(env)
        updated = (
            merge(current, hook_command(opts.python), timeouts) if install else unmerge(current)
        )
        if not opts.no_mcp and opts.project:
            updated = approve_mcp(updated) if install else unmerge_mcp(updated)
        edit("hooks", path, original, current, updated)
        if not opts.no_mcp:
            target = mcp_path(opts.project, env)
            mcp_now, mcp_text = load(target)
            entry = mcp_entry(hook_command(opts.python), len(_HOOK_ARGS))
            changed = merge_mcp(mcp_now, entry) if install else unmerge_mcp(mcp_now)
            edit("memory tools (MCP server)", target, mcp_text, mcp_now, changed)
    except ValueError as exc:  # a wrong shape found while merging
        problem = f"{target}: {exc}"
        sys.stderr.write(f"signet-sdk {opts.verb} claude-code: {problem}\nNo file was changed.\n")
        return 1
    except InstallError as exc:
        sys.stderr.write(f"signet-sdk {opts.verb} claude-code: {exc}\nNo file was changed.\n")
        return 1

    done = "installed into" if install else "removed from"

    def write(change: cli.Change) -> str:
        copy = _write(change.path, change.after or "", change.before)
        note = f" (previous version saved as {copy})" if copy else ""
        return f"Signet {change.what} {done} {change.path}{note}\n"

    wrote = cli.apply("claude-code", opts.verb, edits, opts.dry_run, write)
    if wrote is None:
        return 1
    if wrote and install:
        sys.stdout.write("Claude Code reads hooks at start-up: restart running sessions.\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
