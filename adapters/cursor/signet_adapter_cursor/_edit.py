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
from signet_sdk.installing.mcp import MCP_NAME, add_server, remove_server

__all__ = [
    "MCP_NAME",
    "merge_hooks",
    "merge_mcp",
    "normal",
    "unmerge_hooks",
    "unmerge_mcp",
]

#: Whether a hook definition is one the installer wrote.
IsOurs = Callable[[Any], bool]


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
        fresh = {"version": 1, "hooks": {e: [d] for e, d in wanted.items()}}
        return json.dumps(fresh, indent=2, ensure_ascii=False) + "\n"
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
            current = j5.append_item(current, ["hooks", event], definition)
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


def merge_mcp(path: Path, text: str | None, entry: dict[str, Any]) -> str:
    """The file with ``mcpServers.signet`` = ``entry``; every other server and key kept.

    A server of that name that is not ours is refused rather than replaced.
    """
    return add_server(path, None if text is None or _nothing_in(text) else text, entry)


def unmerge_mcp(path: Path, text: str) -> str:
    """The file without our server, nor ``mcpServers`` if only ours filled it."""
    return remove_server(path, text, drop_empty=True) or text


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
