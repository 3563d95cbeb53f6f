"""``signet-sdk install qwen-code`` / ``uninstall``: our hooks and memory tools in Qwen's settings.

Qwen Code reads hooks from ``settings.json``: per event a list of groups
(``{"matcher"?, "hooks": [{"type": "command", "command": ..., "name"?,
"timeout"?}]}``), gathered from the user's file (``~/.qwen/settings.json``,
``$QWEN_HOME/settings.json`` when that is set) and the project's
(``DIR/.qwen/settings.json`` with ``--project DIR``). The installer adds one
group per event we register, running ``signet-sdk hook qwen-code <Event>``,
and (unless ``--no-mcp``) the memory tools as the MCP server
``mcpServers.signet`` (``signet-sdk mcp`` on stdio; ``--trust-tools`` adds
Qwen's ``trust: true``, so its tools run without a confirmation).

Rules:

* The file is edited as text (Qwen Code strips comments before parsing it):
  the user's comments, layout, hooks, servers and every other setting keep
  their bytes; only our members are spliced in or out.
* Our handlers are recognised by their command (``signet-sdk hook
  qwen-code`` or ``-m signet_sdk hook qwen-code``), so an install from
  another environment is updated in place rather than duplicated.
* Timeouts are milliseconds of 1000 or more: Qwen Code 0.24 reads a
  ``timeout`` below 1000 as seconds and from 1000 up as milliseconds, older
  releases read milliseconds only, so these mean the same to both. Each is
  the hook's own deadline plus a margin, so Qwen Code never kills a hook
  still within its deadline; SessionEnd is short, since its hook only hands
  its work to the durable outbox.
* A second run finds nothing to change and writes nothing. ``--dry-run``
  prints the diff and writes nothing.
* What the install changed is recorded beside the settings
  (``signet-sdk-install.json``, 0600): ``uninstall`` puts back the exact
  bytes when the file is as we left it, and otherwise removes only our
  members (and the containers only they filled).
* A file that does not parse, or whose ``hooks``/``mcpServers`` (or an event
  list we add to) have the wrong shape, or whose ``signet`` server is the
  user's own, is reported with its path (exit 1) and left untouched.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from signet_sdk.installing import cli
from signet_sdk.installing import json5edit as j5
from signet_sdk.installing.command import millisecond_timeouts, runs_sdk, sdk_shell_command
from signet_sdk.installing.files import InstallError
from signet_sdk.installing.group_lists import command_groups
from signet_sdk.installing.mcp import MCP_NAME, sdk_mcp_entry
from signet_sdk.installing.settings_file import SettingsInstaller
from signet_sdk.installing.undo import RECORD

__all__ = [
    "HOOK_NAME",
    "MCP_NAME",
    "RECORD",
    "hook_command",
    "hook_groups",
    "hook_timeouts",
    "is_ours",
    "main",
    "mcp_entry",
    "merge",
    "settings_path",
    "unmerge",
]

#: The ``name`` of our handlers (Qwen's hook listings and logs show it).
HOOK_NAME = "signet-sdk"
#: Keys of Qwen's ``hooks`` object that configure hooks rather than name an event.
_CONFIG_KEYS = frozenset({"enabled", "disabled", "notifications"})
#: Milliseconds Qwen waits beyond the hook's own deadline before killing it.
_MARGIN_MS = 2000
#: SessionEnd only hands its writes to the outbox and a detached sender.
_SESSION_END_MS = 5000
#: Events handled but not registered: SubagentStop sends nothing.
_UNREGISTERED = frozenset({"SubagentStop"})
_HOOK_ARGS = ("hook", "qwen-code")
_MANAGED_BY = "signet-sdk install qwen-code"


def hook_timeouts(env: Mapping[str, str] | None = None) -> dict[str, int]:
    """Qwen Code's ``timeout`` (milliseconds) per registered event.

    The hook's own deadline for the event (from ``SIGNET_*_TIMEOUT`` in
    ``env``, else the contract's defaults) plus a margin.
    """
    from . import PLUGIN

    return millisecond_timeouts(
        PLUGIN.events,
        env,
        margin_ms=_MARGIN_MS,
        short={"SessionEnd": _SESSION_END_MS},
        floor_ms=1000,
        unregistered=_UNREGISTERED,
    )


def hook_command(python: str | None = None) -> str:
    """The shell command Qwen Code runs (absolute, no PATH lookup), without the event."""
    return sdk_shell_command(_HOOK_ARGS, python)


def is_ours(handler: Any) -> bool:
    """Whether a hook handler is one this installer wrote (from any environment)."""
    return runs_sdk(handler, _HOOK_ARGS)


def hook_groups(command: str, timeouts: Mapping[str, int]) -> dict[str, dict[str, Any]]:
    """Event -> the one group we register for it."""
    return command_groups(command, timeouts, name=HOOK_NAME)


def mcp_entry(python: str | None = None, *, trust: bool = False) -> dict[str, Any]:
    """Qwen's stdio MCP server entry running ``signet-sdk mcp``, labelled as Qwen Code.

    ``trust`` sets Qwen's ``trust: true``: no confirmation before the server's
    tools run (in a trusted workspace).
    """
    return sdk_mcp_entry("qwen-code", python, trust=trust)


def settings_path(project: str | None, env: Mapping[str, str]) -> Path:
    """``DIR/.qwen/settings.json`` for a project, else the user's settings file."""
    if project:
        return Path(project).expanduser().absolute() / ".qwen" / "settings.json"
    from ._paths import qwen_dir

    return Path(qwen_dir(env)).expanduser().absolute() / "settings.json"


# -- the settings text ---------------------------------------------------------

_SETTINGS = SettingsInstaller(
    "qwen-code",
    is_ours,
    restart_note="Qwen Code reads its settings at start-up: restart running sessions.",
    settings_keys=_CONFIG_KEYS,
)
#: ``merge(path, text, groups, entry)``: the settings with ours in; the members it created.
merge = _SETTINGS.merge
#: ``unmerge(path, text, created=None)``: the settings without ours; notes on what was kept.
unmerge = _SETTINGS.unmerge


def _run(opts: argparse.Namespace, env: dict[str, str]) -> int:
    path = settings_path(opts.project, env)
    if opts.verb == "install":
        groups = hook_groups(hook_command(opts.python), hook_timeouts(env))
        entry = None if opts.no_mcp else mcp_entry(opts.python, trust=opts.trust_tools)
        return _SETTINGS.install(path, groups, entry, opts.dry_run)
    return _SETTINGS.uninstall(path, opts.dry_run)


#: ``main(["install" | "uninstall", *options])``; 0 ok, 1 a file we cannot change, 2 usage.
main = cli.command(
    "qwen-code",
    "Merge Signet's Qwen Code hooks and memory tools (MCP server 'signet') "
    "into Qwen Code's settings.json, or remove them.",
    _run,
    [cli.Option("--project", "use DIR/.qwen/settings.json", "DIR")],
    [
        (
            cli.NO_MCP,
            cli.Option(
                "--trust-tools",
                "mark the memory tools' server trusted (its tools run without a confirmation)",
            ),
        )
    ],
    dry_run="print the diff, write nothing",
    python="interpreter whose signet-sdk command to register",
    refused=(InstallError, j5.Json5Error),
)


if __name__ == "__main__":
    sys.exit(main())
