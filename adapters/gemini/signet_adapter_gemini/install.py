# long module: install and uninstall edit one settings file as text: hooks, MCP server, undo record
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
* A file that does not parse, or whose ``hooks``/``mcpServers`` have the
  wrong shape, is reported with its path (exit 1) and left untouched.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from signet_sdk.installing import cli
from signet_sdk.installing import json5edit as j5
from signet_sdk.installing.command import millisecond_timeouts, runs_sdk, sdk_shell_command
from signet_sdk.installing.files import InstallError, parse_config, read_text
from signet_sdk.installing.group_lists import (
    check_group_lists,
    command_groups,
    event_lists,
    merge_groups,
    remove_groups,
)
from signet_sdk.installing.mcp import is_sdk_server, sdk_mcp_entry
from signet_sdk.installing.undo import RECORD, install_file, read_record, uninstall_file

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

#: The MCP server name under ``mcpServers``; Gemini names its tools ``mcp_signet_<tool>``.
MCP_NAME = "signet"
#: What Gemini shows for our hooks (``/hooks panel``; ``/hooks disable signet-sdk``).
HOOK_NAME = "signet-sdk"
#: Milliseconds Gemini waits beyond the hook's own deadline before killing it.
_MARGIN_MS = 2000
#: SessionEnd only hands its writes to the outbox and a detached sender.
_SESSION_END_MS = 5000
_HOOK_ARGS = ("hook", "gemini")


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


def _parse(path: Path, text: str) -> j5.Node:
    root = parse_config(path, text, "JSON", ["hooks", "mcpServers"])
    check_group_lists(path, root)
    return root


def merge(
    path: Path,
    text: str | None,
    groups: Mapping[str, dict[str, Any]],
    entry: dict[str, Any] | None,
) -> tuple[str, dict[str, Any]]:
    """The settings with our groups and server in, and what was created or replaced."""
    if text is None or not text.strip():
        # A new file: written whole, laid out the way Gemini writes its own.
        fresh: dict[str, Any] = {"hooks": {e: [g] for e, g in groups.items()}}
        if entry is not None:
            fresh["mcpServers"] = {MCP_NAME: entry}
        made = [["hooks"]] + ([["mcpServers"]] if entry is not None else [])
        mcp_made = ["created", ["mcpServers"]] if entry is not None else None
        return json.dumps(fresh, indent=2) + "\n", {"created": made, "mcp": mcp_made}
    _parse(path, text)
    current, _, created = merge_groups(text, groups, is_ours)
    mcp: list[Any] | None = None
    if entry is not None:
        current, mcp = j5.set_member(current, ["mcpServers", MCP_NAME], entry)
    return current, {"created": created, "mcp": mcp}


def unmerge(path: Path, text: str, record: Mapping[str, Any], entry: Any) -> tuple[str, list[str]]:
    """The settings without our groups and server (and what only they filled); notes.

    ``record`` says what the install created; without one (it was deleted), an
    event list or ``hooks`` that our removal leaves empty goes too, and
    ``mcpServers.signet`` goes when it runs ``signet-sdk mcp``.
    """
    root = _parse(path, text)
    current, emptied, notes = remove_groups(path, text, event_lists(root), is_ours)
    known = "created" in record
    created = [list(c) for c in record.get("created") or []] if known else [["hooks"], *emptied]
    root = j5.parse(current)
    for path_created in reversed(created):
        found = j5.find(root, path_created)
        if found is None:
            continue
        empty = (found.kind == "array" and not found.items) or (
            found.kind == "object" and all(_empty(v) for _, _, v in found.members)
        )
        if empty:
            current = j5.remove_member(current, path_created)
            root = j5.parse(current)
    server = j5.find(root, ["mcpServers", MCP_NAME])
    change = record.get("mcp") if known else ["created", ["mcpServers", MCP_NAME]]
    if server is not None and change:
        ours = j5.plain(server) == j5.as_parsed(entry) if known else is_sdk_server(j5.plain(server))
        if not ours:
            notes.append(f"{path}: mcpServers.{MCP_NAME} was changed since install; kept")
        elif change[0] == "replaced":
            current = j5.replace_value(current, ["mcpServers", MCP_NAME], str(change[2]))
        else:
            servers = j5.find(root, ["mcpServers"])
            alone = servers is not None and [k for k, _, _ in servers.members] == [MCP_NAME]
            whole = list(change[1]) == ["mcpServers"] or not known
            current = j5.remove_member(
                current, ["mcpServers"] if alone and whole else ["mcpServers", MCP_NAME]
            )
    return current, notes


def _empty(node: j5.Node) -> bool:
    return node.kind == "array" and not node.items


# -- install / uninstall -------------------------------------------------------


def _install(
    path: Path, groups: Mapping[str, dict[str, Any]], entry: dict[str, Any] | None, dry: bool
) -> int:
    text = read_text(path)
    new, change = merge(path, text, groups, entry)

    def mcp_fields(earlier: Mapping[str, Any] | None) -> dict[str, Any]:
        # Our server replaced by itself: the earlier install knows what it replaced.
        mcp = change["mcp"]
        if earlier is not None and earlier.get("mcp") and mcp is not None and mcp[0] == "replaced":
            mcp = earlier["mcp"]
        return {"mcp": mcp, "entry": entry}

    return install_file(
        path,
        text,
        new,
        change["created"],
        managed_by="signet-sdk install gemini",
        restart_note="Gemini CLI reads settings at start-up: restart running sessions.",
        dry=dry,
        more=mcp_fields,
    )


def _uninstall(path: Path, entry: dict[str, Any], dry: bool) -> int:
    record = read_record(path.with_name(RECORD)) or {}

    def unmerged(text: str) -> tuple[str, list[str]]:
        return unmerge(path, text, record, record.get("entry", entry))

    return uninstall_file("gemini", path, record or None, unmerged, dry)


def _run(opts: argparse.Namespace, env: dict[str, str]) -> int:
    path = settings_path(opts.project, env)
    entry = mcp_entry(opts.python, trust=opts.trust_tools)
    if opts.verb == "install":
        groups = hook_groups(hook_command(opts.python), hook_timeouts(env))
        return _install(path, groups, None if opts.no_mcp else entry, opts.dry_run)
    return _uninstall(path, entry, opts.dry_run)


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
