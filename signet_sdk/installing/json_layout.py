"""What an editor adds to a JSON document's text, laid out the way the file lays out its own.

A user's config file has its own layout: an indent unit (two spaces, four,
a tab), containers spread over lines and containers kept on one line. The
text editors (:mod:`.json5edit`'s member and item edits, :mod:`.json_reshape`)
read that layout here and produce their insertions in it, as splices: a
member or item added to a container spread over lines goes on a line of
its own, at its neighbours' indent, nested one file unit deeper per level;
one added to a compact container stays on the container's line. The unit
is the file's first indented line's lead (two spaces when the file shows
none).
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .json5edit import Node

__all__ = [
    "Splice",
    "add_item",
    "add_member",
    "indent_unit",
    "line_lead",
    "render",
    "replace_node",
    "spreads",
]

#: A text edit: replace ``text[start:end]`` with the string.
Splice = tuple[int, int, str]

#: An indented line's lead, when what follows starts no comment (``//``, ``/*``, `` * ...``).
_INDENTED = re.compile(r"^([ \t]+)[^\s/*]", re.MULTILINE)


def indent_unit(text: str) -> str:
    """The file's indent step: its first indented line's lead (two spaces when there is none)."""
    found = _INDENTED.search(text)
    return found.group(1) if found else "  "


def line_lead(text: str, pos: int) -> str:
    """The leading blanks of the line ``pos`` is on."""
    start = text.rfind("\n", 0, pos) + 1
    line = text[start:pos]
    return line[: len(line) - len(line.lstrip(" \t"))]


def render(value: Any, lead: str, unit: str, spread: bool) -> str:
    """``value`` as JSON: on one line, or over lines from ``lead``, ``unit`` deeper per level."""
    if not spread:
        return json.dumps(value, ensure_ascii=False)
    return json.dumps(value, indent=unit, ensure_ascii=False).replace("\n", "\n" + lead)


def spreads(text: str, node: Node, root: Node) -> bool:
    """Whether what goes into ``node`` is laid out over lines.

    A container already spread over lines is; a compact one is not; an
    empty one follows the document (the top level always spreads).
    """
    if "\n" in text[node.start : node.end]:
        return True
    empty = not node.members and not node.items
    return empty and (node is root or "\n" in text[root.start : root.end])


def _into_empty(text: str, node: Node, inner: str, spread: bool) -> Splice:
    """``node`` (``{}`` or ``[]``) holding ``inner``, an already rendered member or item."""
    opening, closing = text[node.start], text[node.end - 1]
    if not spread:
        return node.start, node.end, opening + inner + closing
    lead = line_lead(text, node.start)
    return node.start, node.end, f"{opening}\n{inner}\n{lead}{closing}"


def add_member(text: str, obj: Node, root: Node, key: str, value: Any) -> Splice:
    """``key: value`` after the last member of ``obj`` (an empty one is laid out anew)."""
    spread, unit = spreads(text, obj, root), indent_unit(text)
    if not obj.members:
        lead = line_lead(text, obj.start) + unit if spread else ""
        member = json.dumps(key, ensure_ascii=False) + ": " + render(value, lead, unit, spread)
        return _into_empty(text, obj, lead + member, spread)
    _, key_start, last = obj.members[-1]
    lead = line_lead(text, key_start)
    member = json.dumps(key, ensure_ascii=False) + ": " + render(value, lead, unit, spread)
    return last.end, last.end, (",\n" + lead if spread else ", ") + member


def add_item(text: str, arr: Node, root: Node, index: int, value: Any) -> Splice:
    """``value`` as item ``index`` of ``arr`` (``len(arr.items)``: at the end)."""
    spread, unit = spreads(text, arr, root), indent_unit(text)
    if not arr.items:
        lead = line_lead(text, arr.start) + unit if spread else ""
        return _into_empty(text, arr, lead + render(value, lead, unit, spread), spread)
    if index < len(arr.items):  # before an item: the separator the user uses after it
        at = arr.items[index]
        lead = line_lead(text, at.start)
        after = text[arr.items[index - 1].end : at.start] if index else (",\n" + lead)
        sep = after if spread or index else ", "
        return at.start, at.start, render(value, lead, unit, spread) + sep
    last = arr.items[-1]
    lead = line_lead(text, last.start)
    return (
        last.end,
        last.end,
        (",\n" + lead if spread else ", ") + render(value, lead, unit, spread),
    )


def replace_node(text: str, node: Node, root: Node, value: Any) -> Splice:
    """``value`` in place of ``node``, from the lead of its line (over lines when the file is)."""
    lead, spread = line_lead(text, node.start), "\n" in text[root.start : root.end]
    return node.start, node.end, render(value, lead, indent_unit(text), spread)
