"""A JSON file's text edited, member by member, until it holds a wanted value.

Claude Code's ``settings.json`` and ``~/.claude.json`` are the user's (and
Claude Code's own) files: the installer decides what they should hold as
data (:mod:`.install`, :mod:`._mcp`), and :func:`reshape` then changes only
the spans that differ, so every other byte (indent, key order, compact
arrays, an empty ``"hooks": {}``) stays as it was. What it adds follows the
file's own layout: its indent unit where the container is spread over
lines, one line where the container is compact. Removing what it added
gives back the bytes it started from, which is what lets an uninstall
return the user's original file.
"""

from __future__ import annotations

import difflib
import json
import re
from typing import Any

from signet_sdk.installing import json5edit as j5

__all__ = ["reshape"]

#: A text edit: replace ``text[start:end]`` with the string.
Splice = tuple[int, int, str]


def _canon(value: Any) -> str:
    """One spelling per JSON value: ``1`` and ``true`` differ, key order does not."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def _value(text: str, node: j5.Node) -> Any:
    # The files are checked as strict JSON first, so every span is JSON itself.
    return json.loads(text[node.start : node.end])


def _lead(text: str, pos: int) -> str:
    """The leading blanks of the line ``pos`` is on."""
    start = text.rfind("\n", 0, pos) + 1
    line = text[start:pos]
    return line[: len(line) - len(line.lstrip(" \t"))]


def _unit(text: str) -> str:
    """The file's indent step: its first indented line's lead (Claude Code's two spaces if none)."""
    found = re.search(r"^([ \t]+)\S", text, re.MULTILINE)
    return found.group(1) if found else "  "


def _render(value: Any, lead: str, unit: str, spread: bool) -> str:
    if not spread:
        return json.dumps(value, ensure_ascii=False)
    return json.dumps(value, indent=unit, ensure_ascii=False).replace("\n", "\n" + lead)


def _spread(text: str, node: j5.Node, root: j5.Node) -> bool:
    """Whether what goes into ``node`` is laid out over lines.

    A container already spread over lines is; a compact one is not; an
    empty one follows the document (the top level always spreads).
    """
    if "\n" in text[node.start : node.end]:
        return True
    empty = not node.members and not node.items
    return empty and (node is root or "\n" in text[root.start : root.end])


def _into_empty(text: str, node: j5.Node, inner: str, spread: bool) -> Splice:
    """``node`` (``{}`` or ``[]``) holding ``inner``, an already rendered member or item."""
    opening, closing = text[node.start], text[node.end - 1]
    if not spread:
        return node.start, node.end, opening + inner + closing
    lead = _lead(text, node.start)
    return node.start, node.end, f"{opening}\n{inner}\n{lead}{closing}"


def _add_member(text: str, obj: j5.Node, root: j5.Node, key: str, value: Any) -> Splice:
    spread, unit = _spread(text, obj, root), _unit(text)
    if not obj.members:
        lead = _lead(text, obj.start) + unit if spread else ""
        member = json.dumps(key, ensure_ascii=False) + ": " + _render(value, lead, unit, spread)
        return _into_empty(text, obj, lead + member, spread)
    _, key_start, last = obj.members[-1]
    lead = _lead(text, key_start)
    member = json.dumps(key, ensure_ascii=False) + ": " + _render(value, lead, unit, spread)
    return last.end, last.end, (",\n" + lead if spread else ", ") + member


def _add_item(text: str, arr: j5.Node, root: j5.Node, index: int, value: Any) -> Splice:
    spread, unit = _spread(text, arr, root), _unit(text)
    if not arr.items:
        lead = _lead(text, arr.start) + unit if spread else ""
        return _into_empty(text, arr, lead + _render(value, lead, unit, spread), spread)
    if index < len(arr.items):  # before an item: the separator the user uses after it
        at = arr.items[index]
        lead = _lead(text, at.start)
        after = text[arr.items[index - 1].end : at.start] if index else (",\n" + lead)
        sep = after if spread or index else ", "
        return at.start, at.start, _render(value, lead, unit, spread) + sep
    last = arr.items[-1]
    lead = _lead(text, last.start)
    return (
        last.end,
        last.end,
        (",\n" + lead if spread else ", ") + _render(value, lead, unit, spread),
    )


def _drop(container: j5.Node, starts: list[int], ends: list[int], i: int, empty: str) -> Splice:
    """Take out member or item ``i`` with the separator that came with it."""
    if len(starts) == 1:
        return container.start, container.end, empty
    if i > 0:
        return ends[i - 1], ends[i], ""
    return starts[0], starts[1], ""


def _edit(text: str, node: j5.Node, root: j5.Node, want: Any) -> Splice | None:
    """The first splice that brings ``node`` closer to ``want``; None when it holds it."""
    if _canon(_value(text, node)) == _canon(want):
        return None
    if node.kind == "object" and isinstance(want, dict):
        return _edit_object(text, node, root, want)
    if node.kind == "array" and isinstance(want, list):
        return _edit_array(text, node, root, want)
    lead, unit = _lead(text, node.start), _unit(text)
    return node.start, node.end, _render(want, lead, unit, "\n" in text[root.start : root.end])


def _edit_object(text: str, obj: j5.Node, root: j5.Node, want: dict[str, Any]) -> Splice | None:
    members = obj.members
    for i, (key, _, _) in enumerate(members):
        if key not in want:
            starts, ends = [m[1] for m in members], [m[2].end for m in members]
            return _drop(obj, starts, ends, i, "{}")
    last = {key: value for key, _, value in members}  # a repeated key: the last one counts
    for key, sub in want.items():
        if key in last:
            found = _edit(text, last[key], root, sub)
            if found is not None:
                return found
    for key, sub in want.items():
        if key not in last:
            return _add_member(text, obj, root, key, sub)
    return None


def _edit_array(text: str, arr: j5.Node, root: j5.Node, want: list[Any]) -> Splice | None:
    have = [_canon(_value(text, item)) for item in arr.items]
    matcher = difflib.SequenceMatcher(None, have, [_canon(w) for w in want], autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        pairs = min(i2 - i1, j2 - j1)
        for p in range(pairs):  # an item changed in place: edit inside it
            found = _edit(text, arr.items[i1 + p], root, want[j1 + p])
            if found is not None:
                return found
        if i2 - i1 > pairs:
            starts = [item.start for item in arr.items]
            ends = [item.end for item in arr.items]
            return _drop(arr, starts, ends, i1 + pairs, "[]")
        if j2 - j1 > pairs:
            return _add_item(text, arr, root, i1 + pairs, want[j1 + pairs])
    return None


def reshape(text: str, want: Any) -> str:
    """``text`` (a JSON document) with the fewest spans changed so that it holds ``want``.

    Members and items ``want`` lacks are taken out with their separators,
    new ones are added at the end of their object (or where ``want`` puts
    them in a list), changed ones are edited inside; nothing else moves.
    """
    for _ in range(100_000):
        root = j5.parse(text)
        found = _edit(text, root, root, want)
        if found is None:
            return text
        start, end, new = found
        text = text[:start] + new + text[end:]
    raise RuntimeError("reshape did not settle")  # pragma: no cover - each edit gets closer
