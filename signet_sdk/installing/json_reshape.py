"""A JSON file's text edited, member by member, until it holds a wanted value.

For an installer that decides what a user's JSON file should hold as data
(Claude Code's ``settings.json``): :func:`reshape` then changes only the
spans that differ, so every other byte (indent, key order, compact arrays,
an empty ``"hooks": {}``) stays as it was. What it adds follows the file's
own layout (:mod:`.json_layout`). Removing what it added gives back the
bytes it started from, which is what lets an uninstall return the user's
original file.

The text must be strict JSON (check it with :func:`.files.parse_json`
first): its spans are read back as JSON values to compare with the wanted
ones. For JSON5 or JSONC, with comments to keep, edit members by path with
:mod:`.json5edit`.
"""

from __future__ import annotations

import difflib
import json
from typing import Any

from . import json5edit as j5
from .json_layout import Splice, add_item, add_member, replace_node

__all__ = ["reshape"]


def _canon(value: Any) -> str:
    """One spelling per JSON value: ``1`` and ``true`` differ, key order does not."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def _value(text: str, node: j5.Node) -> Any:
    # The text is strict JSON, so every span is JSON itself.
    return json.loads(text[node.start : node.end])


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
    return replace_node(text, node, root, want)


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
            return add_member(text, obj, root, key, sub)
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
            return add_item(text, arr, root, i1 + pairs, want[j1 + pairs])
    return None


def reshape(text: str, want: Any) -> str:
    """``text`` (a JSON document) with the fewest spans changed so that it holds ``want``.

    Members and items ``want`` lacks are taken out with their separators
    (an only one leaves its container empty: ``{}``, ``[]``), new ones are
    added at the end of their object (or where ``want`` puts them in a
    list), changed ones are edited inside; nothing else moves.
    """
    for _ in range(100_000):
        root = j5.parse(text)
        found = _edit(text, root, root, want)
        if found is None:
            return text
        start, end, new = found
        text = text[:start] + new + text[end:]
    raise RuntimeError("reshape did not settle")  # pragma: no cover - each edit gets closer
