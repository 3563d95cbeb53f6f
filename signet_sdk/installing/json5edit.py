"""Minimal edits of a JSON5 document: what is not touched keeps its bytes.

Harness config files are JSON5 (OpenClaw's ``openclaw.json``: comments,
trailing commas, unquoted keys, single quotes) or JSONC (OpenCode's
``opencode.jsonc``: comments and trailing commas, a subset of JSON5). A
parse-and-dump round trip would lose the user's comments and layout, so an
installer parses the text only to locate spans and splices its own members
in (and out) as text, laid out as the file lays out its own
(:mod:`.json_layout`: its indent unit where a container is spread over
lines, one line where it is compact). Inserting a member or an item and
removing it again gives back the original bytes.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from . import json_layout as layout

__all__ = [
    "Json5Error",
    "Node",
    "append_item",
    "as_parsed",
    "find",
    "parse",
    "plain",
    "remove_item",
    "remove_member",
    "replace_value",
    "set_member",
]


class Json5Error(ValueError):
    """The text is not JSON5; the message says where."""


@dataclass
class Node:
    kind: str  # "object", "array" or "scalar"
    start: int
    end: int
    value: Any = None
    #: object members: (key, key start, value node)
    members: list[tuple[str, int, Node]] = field(default_factory=list)
    items: list[Node] = field(default_factory=list)


_NUMBER = re.compile(
    r"[+-]?(?:Infinity|NaN|0[xX][0-9a-fA-F]+|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)"
)
_IDENT = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v", "0": "\0"}


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def fail(self, what: str) -> Json5Error:
        line = self.text.count("\n", 0, self.pos) + 1
        return Json5Error(f"line {line}: {what}")

    def skip(self) -> None:
        t = self.text
        while self.pos < len(t):
            c = t[self.pos]
            if c in " \t\r\n\ufeff\u00a0\u2028\u2029":
                self.pos += 1
            elif t.startswith("//", self.pos):
                nl = t.find("\n", self.pos)
                self.pos = len(t) if nl < 0 else nl + 1
            elif t.startswith("/*", self.pos):
                close = t.find("*/", self.pos + 2)
                if close < 0:
                    raise self.fail("unterminated comment")
                self.pos = close + 2
            else:
                return

    def string(self) -> str:
        t, quote = self.text, self.text[self.pos]
        self.pos += 1
        out: list[str] = []
        while self.pos < len(t):
            c = t[self.pos]
            if c == quote:
                self.pos += 1
                return "".join(out)
            if c == "\\":
                nxt = t[self.pos + 1 : self.pos + 2]
                if nxt == "u":
                    out.append(chr(int(t[self.pos + 2 : self.pos + 6], 16)))
                    self.pos += 6
                    continue
                if nxt == "\n":
                    self.pos += 2
                    continue
                out.append(_ESCAPES.get(nxt, nxt))
                self.pos += 2
                continue
            if c == "\n":
                break
            out.append(c)
            self.pos += 1
        raise self.fail("unterminated string")

    def value(self) -> Node:
        self.skip()
        t, start = self.text, self.pos
        if start >= len(t):
            raise self.fail("value expected")
        c = t[start]
        if c == "{":
            return self.obj()
        if c == "[":
            return self.arr()
        if c in "\"'":
            value = self.string()
            return Node("scalar", start, self.pos, value)
        for word, val in (("true", True), ("false", False), ("null", None)):
            if t.startswith(word, start):
                self.pos += len(word)
                return Node("scalar", start, self.pos, val)
        m = _NUMBER.match(t, start)
        if m:
            self.pos = m.end()
            return Node("scalar", start, self.pos, m.group())
        raise self.fail(f"unexpected {c!r}")

    def closed(self, node: Node, close: str) -> bool:
        """Skip blanks; at ``close``, step over it and end ``node`` there."""
        self.skip()
        if not self.text.startswith(close, self.pos):
            return False
        self.pos += 1
        node.end = self.pos
        return True

    def comma(self, close: str) -> None:
        """After a member or item: step over a ``,`` (trailing ones are JSON5), else ``close``."""
        self.skip()
        if self.text.startswith(",", self.pos):
            self.pos += 1
        elif not self.text.startswith(close, self.pos):
            raise self.fail(f"',' or '{close}' expected")

    def obj(self) -> Node:
        node = Node("object", self.pos, -1)
        self.pos += 1
        while not self.closed(node, "}"):
            key_start = self.pos
            if self.text[self.pos : self.pos + 1] in ("'", '"'):
                key = self.string()
            else:
                m = _IDENT.match(self.text, self.pos)
                if not m:
                    raise self.fail("member name expected")
                key, self.pos = m.group(), m.end()
            self.skip()
            if not self.text.startswith(":", self.pos):
                raise self.fail("':' expected")
            self.pos += 1
            node.members.append((key, key_start, self.value()))
            self.comma("}")
        return node

    def arr(self) -> Node:
        node = Node("array", self.pos, -1)
        self.pos += 1
        while not self.closed(node, "]"):
            node.items.append(self.value())
            self.comma("]")
        return node


def parse(text: str) -> Node:
    """The document's tree of spans; raises :class:`Json5Error`.

    The parser recurses per level, so a document nested past Python's
    recursion limit is a :class:`Json5Error` too: the installers report
    it naming the file, rather than dying with a traceback.
    """
    p = _Parser(text)
    try:
        root = p.value()
    except RecursionError:
        raise p.fail("nested too deeply to edit") from None
    p.skip()
    if p.pos != len(text):
        raise p.fail("text after the document")
    return root


def plain(node: Node) -> Any:
    """The node's value as Python data (numbers as their text)."""
    if node.kind == "object":
        return {k: plain(v) for k, _, v in node.members}
    if node.kind == "array":
        return [plain(i) for i in node.items]
    return node.value


def as_parsed(value: Any) -> Any:
    """``value`` as :func:`plain` reads it back once written (numbers as their text).

    What to compare a parsed member with, to tell whether what an installer
    wants there already is there (and the file need not change).
    """
    return plain(parse(json.dumps(value)))


def find(root: Node, path: list[str]) -> Node | None:
    node: Node | None = root
    for key in path:
        if node is None or node.kind != "object":
            return None
        node = next((v for k, _, v in reversed(node.members) if k == key), None)
    return node


def _nest(path: list[str], value: Any) -> Any:
    for key in reversed(path):
        value = {key: value}
    return value


def set_member(text: str, path: list[str], value: Any) -> tuple[str, list[Any] | None]:
    """Set ``path`` to ``value``; returns the text and what changed (None: nothing).

    The change is ``["created", <path of the inserted member>]`` or
    ``["replaced", path, <old value text>]``.
    """
    root = parse(text)
    if root.kind != "object":
        raise Json5Error("the document is not an object")
    node, depth = root, 0
    while depth < len(path):
        child = find(node, [path[depth]])
        if child is None or (depth < len(path) - 1 and child.kind != "object"):
            break
        node, depth = child, depth + 1
    if depth == len(path):
        if plain(node) == value:
            return text, None
        new = _splice(text, layout.replace_node(text, node, root, value))
        return new, ["replaced", path, text[node.start : node.end]]
    if depth < len(path) - 1 and find(node, [path[depth]]) is not None:
        raise Json5Error(f"{'.'.join(path[: depth + 1])} is not an object")
    return _insert(text, node, root, path[depth], _nest(path[depth + 1 :], value)), [
        "created",
        path[: depth + 1],
    ]


def _splice(text: str, splice: layout.Splice) -> str:
    start, end, new = splice
    return text[:start] + new + text[end:]


def _inside(text: str, container: Node) -> str:
    """What an empty ``{...}`` or ``[...]`` holds between its brackets (blanks, comments)."""
    return text[container.start + 1 : container.end - 1]


def _first(text: str, container: Node, root: Node, head: str, value: Any) -> str:
    """``head`` and ``value`` right after the opening bracket, before what ``container`` holds.

    For an empty container with blanks or a comment inside: they stay, so
    taking the first member or item out again gives back these bytes.
    """
    lead, unit = layout.line_lead(text, container.start), layout.indent_unit(text)
    first = head + layout.render(value, lead, unit, layout.spreads(text, container, root))
    return text[: container.start + 1] + first + text[container.start + 1 :]


def _insert(text: str, obj: Node, root: Node, key: str, value: Any) -> str:
    if not obj.members and _inside(text, obj):
        return _first(text, obj, root, json.dumps(key, ensure_ascii=False) + ": ", value)
    return _splice(text, layout.add_member(text, obj, root, key, value))


def _only(text: str, container: Node, start: int, end: int) -> bool:
    """Whether ``text[start:end]``, alone in ``container``, is on lines of its own.

    As :func:`.json_layout.add_member` lays out the first member of an
    empty container spread over lines: taking it out leaves ``{}`` (``[]``).
    """
    before, after = text[container.start + 1 : start], text[end : container.end - 1]
    return bool(before) and not before.strip() and not after.strip()


def remove_member(text: str, path: list[str]) -> str:
    """Remove the member at ``path`` (and the separator that came with it)."""
    root = parse(text)
    parent = find(root, path[:-1])
    if parent is None or parent.kind != "object":
        return text
    members = parent.members
    index = next((i for i in range(len(members) - 1, -1, -1) if members[i][0] == path[-1]), None)
    if index is None:
        return text
    _, key_start, value = members[index]
    if len(members) == 1 and _only(text, parent, key_start, value.end):
        return text[: parent.start] + "{}" + text[parent.end :]
    if index > 0:
        return text[: members[index - 1][2].end] + text[value.end :]
    end = value.end
    rest = _Parser(text)
    rest.pos = end
    rest.skip()
    if text.startswith(",", rest.pos):
        rest.pos += 1
        rest.skip()
        end = rest.pos
    return text[:key_start] + text[end:]


def append_item(text: str, path: list[str], item: Any) -> str:
    """Append ``item`` to the array at ``path`` (which must exist)."""
    root = parse(text)
    arr = find(root, path)
    if arr is None or arr.kind != "array":
        raise Json5Error(f"{'.'.join(path)} is not an array")
    if not arr.items and _inside(text, arr):
        return _first(text, arr, root, "", item)
    return _splice(text, layout.add_item(text, arr, root, len(arr.items), item))


def remove_item(text: str, path: list[str], item: Any) -> str:
    """Remove the last ``item`` from the array at ``path`` (with its separator)."""
    root = parse(text)
    arr = find(root, path)
    if arr is None or arr.kind != "array":
        return text
    index = next(
        (i for i in range(len(arr.items) - 1, -1, -1) if plain(arr.items[i]) == item), None
    )
    if index is None:
        return text
    node = arr.items[index]
    if len(arr.items) == 1 and _only(text, arr, node.start, node.end):
        return text[: arr.start] + "[]" + text[arr.end :]
    if index > 0:
        return text[: arr.items[index - 1].end] + text[node.end :]
    if len(arr.items) > 1:
        return text[: node.start] + text[arr.items[1].start :]
    return text[: node.start] + text[node.end :]


def replace_value(text: str, path: list[str], raw: str) -> str:
    """Put ``raw`` (value text) in place of the value at ``path``."""
    node = find(parse(text), path)
    if node is None:
        return text
    return text[: node.start] + raw + text[node.end :]
