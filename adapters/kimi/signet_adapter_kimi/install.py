"""``signet-sdk install kimi`` / ``uninstall``: our hooks and MCP server for Kimi Code.

Kimi Code reads hooks only from ``[[hooks]]`` in its one user-level
``$KIMI_CODE_HOME/config.toml`` (``~/.kimi-code/config.toml``); it has no
project-level config file (MoonshotAI/kimi-code
``docs/en/configuration/overrides.md``). MCP servers come from
``mcp.json`` beside it, or from a trusted project's ``.kimi-code/mcp.json``
(``docs/en/customization/mcp.md``). The installer changes two files and
nothing else in them:

* ``config.toml`` (edited with tomlkit, so comments, order and formatting
  stay): one ``[[hooks]]`` entry per event, ``event``, ``command``
  (``<signet-sdk> hook kimi <Event>``) and ``timeout`` (seconds: the hook's
  own deadline plus 2, so Kimi never stops a hook still within it), after
  the user's entries. Our entries are recognised by their command, so a
  reinstall from another environment replaces them.
* ``mcp.json`` (``--project DIR``: ``DIR/.kimi-code/mcp.json``; Kimi loads
  it once the folder is trusted): our MCP server ``signet`` (``signet-sdk
  mcp``) under ``mcpServers``, inserted as text so every other byte stays
  (``--no-mcp`` skips it).

A second run changes nothing. Before the first change, each file's
original bytes (or its absence) are kept beside it as
``<file>.signet-sdk-orig``; ``uninstall`` removes what we added and, when
the rest is what it was, puts those exact bytes back (or removes a file we
created). ``--dry-run`` prints the diffs. A file that cannot be parsed is
reported with its path (exit 1), untouched. Both files are written 0600
when new (``config.toml`` holds provider keys); an existing file keeps its
mode.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from signet_sdk.installing import cli
from signet_sdk.installing.command import event_deadlines, sdk_shell_command
from signet_sdk.installing.files import InstallError, read_text
from signet_sdk.installing.mcp import sdk_mcp_entry, server_change
from signet_sdk.installing.originals import apply_keeping, restored

from ._paths import kimi_home
from ._toml import HOOK_ARGS, ConfigError, check_toml, merge_hooks, toml_data, unmerge_hooks

__all__ = ["hook_command", "hook_entries", "hook_timeouts", "main"]

#: Seconds Kimi waits beyond the hook's own deadline before stopping it.
_MARGIN = 2


def hook_timeouts(env: Mapping[str, str] | None = None) -> dict[str, int]:
    """Kimi's ``timeout`` (seconds, 1 to 600) per event, in lifecycle order."""
    from . import PLUGIN

    deadlines = event_deadlines(PLUGIN.events, env)
    return {name: min(max(math.ceil(s) + _MARGIN, 1), 600) for name, s in deadlines.items()}


def hook_command(python: str | None = None) -> str:
    """The command Kimi runs: an absolute ``signet-sdk`` (or ``python -m signet_sdk``)."""
    return sdk_shell_command(HOOK_ARGS, python)


def hook_entries(command: str, timeouts: Mapping[str, int]) -> list[dict[str, Any]]:
    """Our ``[[hooks]]`` entries, one per event."""
    return [
        {"event": event, "command": f"{command} {event}", "timeout": seconds}
        for event, seconds in timeouts.items()
    ]


def _config_normal(text: str | None) -> Any:
    """A config's content; an empty file is no file, and an empty ``hooks = []`` no hooks
    (removing ours takes away the array they filled, the user's empty one included)."""
    data = toml_data(text) if text and text.strip() else {}
    if isinstance(data, dict) and data.get("hooks") == []:
        data = {k: v for k, v in data.items() if k != "hooks"}
    return data


def _config_change(
    verb: str, path: Path, command: str, env: Mapping[str, str]
) -> tuple[cli.Change, list[str]]:
    """config.toml's planned change, and a note per key of the user's found in an entry
    of ours that goes (moved, or kept where it is), to say once written."""
    text = read_text(path)
    check_toml(path, text or "")
    what = "hooks"
    if verb == "install":
        after, notes = merge_hooks(path, text or "", hook_entries(command, hook_timeouts(env)))
        return cli.Change(path, text, text if after == (text or "") else after, what), notes
    if text is None:
        return cli.Change(path, text, text, what), []
    left, notes = unmerge_hooks(path, text)
    if left == text:
        return cli.Change(path, text, text, what), notes
    out: str | None = left if left.strip() else None
    return cli.Change(path, text, restored(path, out, _config_normal), what), notes


def _run(opts: argparse.Namespace, env: dict[str, str]) -> int:
    home = Path(kimi_home(env)).expanduser().absolute()
    project = Path(opts.project).expanduser().absolute() if opts.project else None
    mcp_folder = project / ".kimi-code" if project is not None else home
    verb = opts.verb
    config, notes = _config_change(verb, home / "config.toml", hook_command(opts.python), env)
    changes = [config]
    if not opts.no_mcp:
        entry = sdk_mcp_entry("kimi", opts.python)
        what = "memory tools (MCP server 'signet')"
        changes.append(server_change(verb, mcp_folder / "mcp.json", entry, what))
    wrote = apply_keeping("kimi", verb, changes, opts.dry_run)
    if wrote is None:
        return 1
    if config.after != config.before and not opts.dry_run:
        # A key of the user's was in an entry of ours: say where it went, now that it has.
        sys.stderr.write("".join(f"signet-sdk {verb} kimi: {note}\n" for note in notes))
    if wrote and verb == "install":
        sys.stdout.write(
            "Kimi Code reads its config when a session starts: restart running ones.\n"
        )
        if project is not None:
            sys.stdout.write(
                "Kimi Code has no project config: the hooks serve every project. It loads "
                f"{mcp_folder / 'mcp.json'} once you trust the folder (its trust prompt).\n"
            )
    return 0


#: ``main(["install" | "uninstall", *options])``; 0 ok, 1 a file we cannot change, 2 usage.
main = cli.command(
    "kimi",
    "Register Signet's Kimi Code hooks in ~/.kimi-code/config.toml and its memory tools "
    "(MCP server 'signet') in ~/.kimi-code/mcp.json, or remove them.",
    _run,
    [cli.Option("--project", "register the MCP server in DIR/.kimi-code/mcp.json", "DIR")],
    [cli.NO_MCP],
    dry_run=cli.DIFFS,
    python=cli.HOOK_PYTHON,
    refused=(InstallError, ConfigError),
)


if __name__ == "__main__":
    sys.exit(main())
