"""Our memory tools' MCP server, ``signet``, in a harness's JSON ``mcpServers`` file.

Most harnesses read stdio MCP servers from the same shape: ``{"mcpServers":
{<name>: {"command": ..., "args": [...], "env": {...}}}}``. Our entry runs
``signet-sdk mcp`` with ``SIGNET_HARNESS`` naming the harness, so the tools
label what they store. An installer owns the ``signet`` member only while it
runs ``signet-sdk mcp`` (from whatever environment): a server of the user's
that happens to have that name is refused, never replaced. Members are
added and removed as text (:mod:`.json5edit`), in the file's own layout,
so every other byte of the user's file stays.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

from . import json5edit as j5
from .cli import Change
from .command import runs_sdk, sdk_command
from .files import InstallError, parse_config, read_text
from .originals import kept, restored

__all__ = [
    "MCP_NAME",
    "add_server",
    "is_sdk_server",
    "mcp_normal",
    "remove_server",
    "sdk_mcp_entry",
    "server_change",
]

#: The name our MCP server is registered under.
MCP_NAME = "signet"
_PATH = ["mcpServers", MCP_NAME]


def sdk_mcp_entry(
    harness: str, python: str | None = None, *, trust: bool = False
) -> dict[str, Any]:
    """``signet-sdk mcp`` of ``python``'s environment as a stdio server labelled ``harness``.

    ``trust`` adds ``trust: true`` after them (Gemini CLI's and Qwen Code's
    flag for a server whose tools run without a confirmation). A harness
    that wants other keys (a ``type``) adds them around these, in the order
    its own files use.
    """
    words = sdk_command(python)
    entry: dict[str, Any] = {
        "command": words[0],
        "args": [*words[1:], "mcp"],
        "env": {"SIGNET_HARNESS": harness},
    }
    if trust:
        entry["trust"] = True
    return entry


def is_sdk_server(entry: Any) -> bool:
    """Whether an ``mcpServers`` entry runs ``signet-sdk mcp`` (from any environment).

    The same test as a hook's (:func:`.command.runs_sdk`), so a reinstall
    from another environment or version updates the entry in place.
    """
    if not isinstance(entry, dict) or not isinstance(entry.get("command"), str):
        return False
    args = entry.get("args") or []
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        return False
    return runs_sdk({"command": shlex.join([entry["command"], *args])}, ("mcp",))


def _servers(path: Path, text: str) -> dict[str, Any]:
    root = parse_config(path, text, "JSON", objects=("mcpServers",))
    servers = j5.find(root, ["mcpServers"])
    return {} if servers is None else dict(j5.plain(servers))


def add_server(path: Path, text: str | None, entry: dict[str, Any]) -> str:
    """The file's text with our server in it (a new file when ``text`` is None or blank).

    Refused, naming the file, when ``signet`` is a server of the user's.
    """
    if text is None or not text.strip():
        fresh = {"mcpServers": {MCP_NAME: entry}}
        return json.dumps(fresh, indent=2, ensure_ascii=False) + "\n"
    current = _servers(path, text).get(MCP_NAME)
    if current is not None and not is_sdk_server(current):
        raise InstallError(
            f"{path}: mcpServers.{MCP_NAME} is another server; left untouched "
            "(rename it, or install with --no-mcp)"
        )
    if current == entry:
        return text
    try:
        new, _ = j5.set_member(text, _PATH, entry)
    except j5.Json5Error as exc:
        raise InstallError(f"{path}: {exc}; left untouched") from None
    return new


def remove_server(path: Path, text: str | None, *, drop_empty: bool) -> str | None:
    """The file's text without our server; ``text`` itself when ours is not there.

    ``drop_empty`` takes ``mcpServers`` too when ours was all it held (the
    installer knows whether its install created it).
    """
    if text is None or not text.strip():
        return text
    servers = _servers(path, text)
    if not is_sdk_server(servers.get(MCP_NAME)):
        return text
    new = j5.remove_member(text, _PATH)
    if drop_empty and len(servers) == 1:
        new = j5.remove_member(new, ["mcpServers"])
    return new


def mcp_normal(text: str | None) -> dict[str, Any]:
    """An MCP file's content with an empty ``mcpServers`` left out: ``{}`` is no file.

    What :func:`.originals.restored` compares, so an uninstall that leaves
    ``{"mcpServers": {}}`` where there was no file counts as unchanged.
    """
    if text is None or not text.strip():
        return {}
    try:
        data = j5.plain(j5.parse(text))
    except j5.Json5Error:
        return {"unreadable": text}
    if not isinstance(data, dict):
        return {"unreadable": text}
    return {k: v for k, v in data.items() if not (k == "mcpServers" and not v)}


def server_change(verb: str, path: Path, entry: dict[str, Any], what: str) -> Change:
    """The planned change of the MCP file ``path`` for ``verb``, its original kept beside it.

    Install adds ``entry``; uninstall removes ours, with ``mcpServers`` when
    our install created it and nothing joined it since, and gives back the
    original bytes (:mod:`.originals`) when the rest is what it was. For an
    installer whose MCP file is one of several it keeps originals of.
    """
    text = read_text(path)
    if verb == "install":
        return Change(path, text, add_server(path, text, entry), what)
    was_kept, original = kept(path)
    created = was_kept and "mcpServers" not in mcp_normal(original)
    after = remove_server(path, text, drop_empty=created)
    if after == text:
        return Change(path, text, text, what)
    return Change(path, text, restored(path, after, mcp_normal), what)
