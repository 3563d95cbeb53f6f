"""Our members in Cursor's ``hooks.json`` and ``mcp.json``, spliced in and out as text.

Both files are the user's: the installer adds one entry per hook event and
one MCP server, and removes exactly those again, leaving every other byte
(their order, layout, other hooks and servers) as it was. The text is
parsed only to find spans (:mod:`signet_sdk.installing.json5edit`); what
is inserted is removed again by the same span, so an install followed by
an uninstall gives back the original bytes.

``hooks.json`` is ``{"version": 1, "hooks": {"<event>": [{"command": ...,
"timeout": <seconds>}, ...]}}``: per event a flat list of definitions, no
matcher groups. ``mcp.json`` is ``{"mcpServers": {"<name>": {...}}}``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from signet_sdk.installing import json5edit as j5
from signet_sdk.installing.files import InstallError, parse_config
from signet_sdk.installing.mcp import is_sdk_server

__all__ = [
    "MCP_NAME",
    "merge_hooks",
    "merge_mcp",
    "normal",
    "unmerge_hooks",
    "unmerge_mcp",
]

#: The name our MCP server is registered under in ``mcpServers``.
MCP_NAME = "signet"

#: Whether a hook definition is one the installer wrote.
IsOurs = Callable[[Any], bool]


def _render(value: Any, indent: str = "") -> str:
    return json.dumps(value, indent=2, ensure_ascii=False).replace("\n", "\n" + indent)


def _line_indent(text: str, pos: int) -> str:
    start = text.rfind("\n", 0, pos) + 1
    lead = text[start:pos]
    return lead if not lead.strip() else ""


def _append(text: str, array: j5.Node, item: Any) -> str:
    """``text`` with ``item`` after the last element of ``array``, laid out like its neighbours.

    An array written one element per line gets the new element on a line of
    its own at the same indent; an inline one gets it inline. Either way
    :func:`json5edit.remove_item` takes out exactly what was added.
    """
    if not array.items:
        first = json.dumps(item, ensure_ascii=False)
        return text[: array.start + 1] + first + text[array.start + 1 :]
    last = array.items[-1]
    if "\n" in text[array.start : last.start]:
        indent = _line_indent(text, last.start)
        added = ",\n" + indent + _render(item, indent)
    else:
        added = ", " + json.dumps(item, ensure_ascii=False)
    return text[: last.end] + added + text[last.end :]


def _nothing_in(text: str) -> bool:
    """A blank file, or one holding only ``{}``: written whole, not spliced."""
    if not text.strip():
        return True
    try:
        root = j5.parse(text)
    except j5.Json5Error:
        return False  # reported with the file's name by the check that follows
    return root.kind == "object" and not root.members


# -- hooks.json -----------------------------------------------------------------


def _check_hooks(path: Path, text: str) -> j5.Node:
    root = parse_config(path, text, "JSON", ["hooks"])
    hooks = j5.find(root, ["hooks"])
    for event, _, node in hooks.members if hooks is not None else []:
        if node.kind != "array":
            raise InstallError(f"{path}: hooks.{event} is not a list; left untouched")
    return root


def merge_hooks(path: Path, text: str | None, wanted: Mapping[str, Any], is_ours: IsOurs) -> str:
    """The file with ``wanted[event]`` as our one definition per event; the rest kept.

    A missing, blank or ``{}`` file is written whole, ``version`` first as
    Cursor's reference writes it. Otherwise an event that is not there gets a list
    holding ours; a list that holds ours keeps its place for other entries,
    and ours (updated if the command or timeout changed) ends it.
    """
    if text is None or _nothing_in(text):
        return _render({"version": 1, "hooks": {e: [d] for e, d in wanted.items()}}) + "\n"
    current = text
    root = _check_hooks(path, current)
    for event, definition in wanted.items():
        node = j5.find(root, ["hooks", event])
        if node is None:
            current, _ = j5.set_member(current, ["hooks", event], [definition])
        else:
            ours = [j5.plain(i) for i in node.items if is_ours(j5.plain(i))]
            if ours == [j5.as_parsed(definition)]:
                continue  # installed as wanted: where it stands
            for old in ours:
                current = j5.remove_item(current, ["hooks", event], old)
            node = j5.find(j5.parse(current), ["hooks", event])
            assert node is not None and node.kind == "array"
            current = _append(current, node, definition)
        root = j5.parse(current)
    return current


def unmerge_hooks(path: Path, text: str, is_ours: IsOurs) -> str:
    """The file without our definitions, nor the event lists and ``hooks`` only they filled."""
    current = text
    root = _check_hooks(path, current)
    hooks = j5.find(root, ["hooks"])
    if hooks is None:
        return text
    emptied = False
    for event, _, node in list(hooks.members):
        ours = [j5.plain(i) for i in node.items if is_ours(j5.plain(i))]
        if not ours:
            continue
        for old in ours:
            current = j5.remove_item(current, ["hooks", event], old)
        if len(ours) == len(node.items):
            current = j5.remove_member(current, ["hooks", event])
            emptied = True
    left = j5.find(j5.parse(current), ["hooks"])
    if emptied and left is not None and not left.members:
        current = j5.remove_member(current, ["hooks"])
    return current


# -- mcp.json -------------------------------------------------------------------


def _check_mcp(path: Path, text: str) -> j5.Node:
    return parse_config(path, text, "JSON", ["mcpServers"])


def merge_mcp(path: Path, text: str | None, entry: dict[str, Any]) -> str:
    """The file with ``mcpServers.signet`` = ``entry``; every other server and key kept.

    A server of that name that is not ours is refused rather than replaced.
    """
    if text is None or _nothing_in(text):
        return _render({"mcpServers": {MCP_NAME: entry}}) + "\n"
    root = _check_mcp(path, text)
    found = j5.find(root, ["mcpServers", MCP_NAME])
    if found is not None and not is_sdk_server(j5.plain(found)):
        raise InstallError(
            f"{path}: mcpServers.{MCP_NAME} is another server; rename it, or install with "
            "--no-mcp; left untouched"
        )
    current, _ = j5.set_member(text, ["mcpServers", MCP_NAME], entry)
    return current


def unmerge_mcp(path: Path, text: str) -> str:
    """The file without our server, nor ``mcpServers`` if only ours filled it."""
    root = _check_mcp(path, text)
    servers = j5.find(root, ["mcpServers"])
    found = j5.find(root, ["mcpServers", MCP_NAME])
    if servers is None or found is None or not is_sdk_server(j5.plain(found)):
        return text
    alone = [k for k, _, _ in servers.members] == [MCP_NAME]
    return j5.remove_member(text, ["mcpServers"] if alone else ["mcpServers", MCP_NAME])


# -- comparing ------------------------------------------------------------------


def normal(text: str | None) -> Any:
    """The file's data with empty lists and objects left out (None: absent, blank or bad).

    Two texts with equal ``normal`` differ only in layout or in empty
    members our uninstall may have taken with it.
    """
    if text is None or not text.strip():
        return None
    try:
        data = j5.plain(j5.parse(text))
    except j5.Json5Error:
        return None
    return _pruned(data)


def _pruned(value: Any) -> Any:
    if isinstance(value, dict):
        kept = {k: _pruned(v) for k, v in value.items()}
        return {k: v for k, v in kept.items() if v not in ({}, [])}
    if isinstance(value, list):
        return [_pruned(v) for v in value]
    return value
