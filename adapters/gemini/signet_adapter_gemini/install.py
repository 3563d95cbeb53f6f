"""``signet-sdk install gemini`` / ``uninstall``: our hooks and memory tools in Gemini's settings.

Gemini CLI reads hooks from ``settings.json``: per event a list of groups
(``{"matcher"?, "hooks": [{"type": "command", "command": ..., "timeout":
<milliseconds>, "name"?}]}``), merged from the user's file
(``~/.gemini/settings.json``, ``$GEMINI_CLI_HOME/.gemini`` when set) and
the project's (``DIR/.gemini/settings.json`` with ``--project DIR``). The
installer adds one group per event we translate, running
``signet-sdk hook gemini <Event>``, and (unless ``--no-mcp``) the memory
tools as the MCP server ``mcpServers.signet`` (``signet-sdk mcp`` on stdio;
``--trust-tools`` adds Gemini's ``trust: true``, so its tools run without a
confirmation and a headless ``gemini -p`` offers them to the model).

Rules:

* The file is edited as text (Gemini accepts comments in it): the user's
  comments, layout, hooks, servers and every other setting keep their
  bytes; only our members are spliced in or out.
* Our handlers are recognised by their command (``signet-sdk hook gemini``
  or ``-m signet_sdk hook gemini``), so an install from another environment
  is updated in place rather than duplicated.
* Timeouts are in milliseconds, as Gemini reads them: the hook's own
  deadline for the event plus a margin, so Gemini never kills a hook still
  within its deadline; SessionEnd short, since its hook only hands its work
  to the durable outbox.
* A second run finds nothing to change and writes nothing. ``--dry-run``
  prints the diff and writes nothing.
* What the install changed is recorded beside the settings
  (``signet-sdk-install.json``, 0600): ``uninstall`` puts back the exact
  bytes when the file is as we left it, and otherwise removes only our
  members (and what only they filled).
* A file that does not parse, or whose ``hooks``/``mcpServers`` (or an
  event list we add to) have the wrong shape, or whose ``signet`` server
  is the user's own, is reported with its path (exit 1) and left untouched.
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

__all__ = [
    "MCP_NAME",
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

#: What Gemini shows for our hooks (``/hooks panel``; ``/hooks disable signet-sdk``).
HOOK_NAME = "signet-sdk"
#: Milliseconds Gemini waits beyond the hook's own deadline before killing it.
_MARGIN_MS = 2000
#: SessionEnd only hands its writes to the outbox and a detached sender.
_SESSION_END_MS = 5000
_HOOK_ARGS = ("hook", "gemini")
_MANAGED_BY = "signet-sdk install gemini"


def hook_timeouts(env: Mapping[str, str] | None = None) -> dict[str, int]:
    """Gemini's ``timeout`` (milliseconds) per registered event.

    The hook's own deadline for the event (from ``SIGNET_*_TIMEOUT`` in
    ``env``, else the contract's defaults) plus a margin.
    """
    from . import PLUGIN

    short = {name: _SESSION_END_MS for name, spec in PLUGIN.events.items() if spec.detach}
    return millisecond_timeouts(PLUGIN.events, env, margin_ms=_MARGIN_MS, short=short)


def hook_command(python: str | None = None) -> str:
    """The shell command Gemini runs (absolute, no PATH lookup), without the event."""
    return sdk_shell_command(_HOOK_ARGS, python)


def is_ours(handler: Any) -> bool:
    """Whether a hook handler is one this installer wrote (from any environment)."""
    return runs_sdk(handler, _HOOK_ARGS)


def hook_groups(command: str, timeouts: Mapping[str, int]) -> dict[str, dict[str, Any]]:
    """Event -> the one group we register for it."""
    return command_groups(command, timeouts, name=HOOK_NAME, name_first=True)


def mcp_entry(python: str | None = None, *, trust: bool = False) -> dict[str, Any]:
    """Gemini's stdio MCP server entry running ``signet-sdk mcp``, labelled as Gemini.

    ``trust`` sets Gemini's ``trust: true``: no confirmation before the
    server's tools run, which is also what lets a headless ``gemini -p`` in
    the default approval mode offer them to the model at all.
    """
    return sdk_mcp_entry("gemini", python, trust=trust)


def settings_path(project: str | None, env: Mapping[str, str]) -> Path:
    """``DIR/.gemini/settings.json`` for a project, else the user's settings file."""
    if project:
        return Path(project).expanduser().absolute() / ".gemini" / "settings.json"
    from ._paths import gemini_dir

    return Path(gemini_dir(env)).expanduser().absolute() / "settings.json"


# -- the settings text ---------------------------------------------------------

_SETTINGS = SettingsInstaller(
    "gemini",
    is_ours,
    restart_note="Gemini CLI reads settings at start-up: restart running sessions.",
)
#: ``merge(path, text, groups, entry)``: the settings with ours in; the members it created.
merge = _SETTINGS.merge
#: ``unmerge(path, text, created=None)``: the settings without ours; notes on what was kept.
unmerge = _SETTINGS.unmerge


def _put_back_replaced(text: str, record: Mapping[str, Any]) -> str:
    """The user's own ``signet`` server back where an install before the rule replaced it.

    Such an install kept it as ``mcp: ["replaced", members, old JSON]``;
    ours goes only while it is still the entry that install wrote.
    """
    mcp = record.get("mcp")
    if not (isinstance(mcp, list) and len(mcp) == 3 and mcp[0] == "replaced"):
        return text
    server = j5.find(j5.parse(text), ["mcpServers", MCP_NAME])
    if server is None or j5.plain(server) != j5.as_parsed(record.get("entry")):
        return text
    return j5.replace_value(text, ["mcpServers", MCP_NAME], str(mcp[2]))


def _run(opts: argparse.Namespace, env: dict[str, str]) -> int:
    path = settings_path(opts.project, env)
    if opts.verb == "install":
        groups = hook_groups(hook_command(opts.python), hook_timeouts(env))
        entry = None if opts.no_mcp else mcp_entry(opts.python, trust=opts.trust_tools)
        return _SETTINGS.install(path, groups, entry, opts.dry_run)
    return _SETTINGS.uninstall(path, opts.dry_run, _put_back_replaced)


#: ``main(["install" | "uninstall", *options])``; 0 ok, 1 a file we cannot change, 2 usage.
main = cli.command(
    "gemini",
    "Merge Signet's Gemini CLI hooks and memory tools (MCP server 'signet') "
    "into Gemini's settings.json, or remove them.",
    _run,
    [cli.Option("--project", "use DIR/.gemini/settings.json", "DIR")],
    [
        (
            cli.NO_MCP,
            cli.Option(
                "--trust-tools",
                "mark the memory tools' server trusted (no confirmation before its tools run; "
                "needed for headless 'gemini -p' to offer them in the default approval mode)",
            ),
        )
    ],
    dry_run="print the diff, write nothing",
    python="interpreter whose signet-sdk command to register",
    refused=(InstallError, j5.Json5Error),
)


if __name__ == "__main__":
    sys.exit(main())
