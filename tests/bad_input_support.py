"""Bad input for the property tests: values of every wrong kind, and payloads spoiled with them.

A spoiled payload starts from a real one (each plugin's contract vectors,
so the fields a translator reads are there to be spoiled) and changes it at
one place: a value replaced by one of the wrong kind, a field dropped, a
key added, or the whole payload replaced by something that is not an
object. The change is drawn as a small description (:class:`Bad`, a path)
and only built inside the test: a list nested 10,000 levels deep cannot be
printed, so a failing example is reported as its description.

The same spoiled payload reaches each surface in its own form: as a Python
value for a translator, as bytes for an HTTP route or a hook's stdin
(:func:`encode`, which writes deep nesting and lone surrogates itself,
since ``json.dumps`` refuses both).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from signet_sdk.runtime.generic import generic_plugin
from signet_sdk.runtime.plugin import HarnessPlugin
from signet_sdk.runtime.registry import installed_plugins

__all__ = [
    "DEEP",
    "EXAMPLES",
    "GARBAGE",
    "Bad",
    "Seed",
    "Spoil",
    "all_plugins",
    "bad_values",
    "build",
    "encode",
    "garbage_bytes",
    "seeds",
    "spoil",
    "spoils",
]

#: Examples per test, by where the input goes: in-process runs are cheap, a
#: route costs an HTTP round trip on a socket, a hook a whole process (the
#: suite runs on two cores). Each is a profile: ``bad-input-<where>``.
EXAMPLES = {"translator": 200, "route": 60, "agent_route": 40, "hook": 30}

for _name, _count in EXAMPLES.items():
    settings.register_profile(
        f"bad-input-{_name}",
        max_examples=_count,
        deadline=None,
        database=None,  # leaves no .hypothesis folder; a failure prints how to reproduce it
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )

#: How deep the deepest nesting goes: far past any parser's recursion limit.
DEEP = 10_000

#: Characters a string may be made of: control characters, line separators, a
#: zero byte, astral characters, and a lone surrogate (valid JSON, ``"\\ud800"``,
#: but not encodable as UTF-8).
_AWKWARD = ["a", "\x00", "\n", "\r\n", "\u2028", "\u202e", "\U0001f9e0", "\ud800", '"', "\\", "é"]


@dataclass(frozen=True)
class Bad:
    """One wrong value, described: ``kind`` and what it is made of."""

    kind: str
    arg: Any = None

    def __repr__(self) -> str:
        return f"Bad({self.kind!r}, {self.arg!r})"


_small_json = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=8,
)


def bad_values() -> st.SearchStrategy[Bad]:
    """Every kind of wrong value a JSON field can hold."""
    return st.one_of(
        st.builds(Bad, st.just("json"), _small_json),  # any type at all, small
        st.sampled_from(
            [
                Bad("json", None),
                Bad("json", True),
                Bad("json", 0),
                Bad("json", -1),
                Bad("json", 2**64),
                Bad("json", 1.5),
                Bad("json", ""),
                Bad("json", "   "),
                Bad("json", []),
                Bad("json", {}),
                Bad("json", [None]),
                Bad("json", {"": None}),
                Bad("float", "nan"),
                Bad("float", "inf"),
                Bad("float", "-inf"),
            ]
        ),
        st.builds(
            Bad, st.sampled_from(["huge", "huge-words"]), st.sampled_from([100_000, 1_000_000])
        ),
        st.builds(Bad, st.just("awkward"), st.lists(st.sampled_from(_AWKWARD), max_size=6)),
        st.builds(
            Bad,
            st.sampled_from(["deep-list", "deep-object"]),
            st.sampled_from([64, 900, DEEP]),
        ),
    )


def build(bad: Bad) -> Any:
    """The value ``bad`` describes (deep nesting built without recursion)."""
    if bad.kind == "json":
        return bad.arg
    if bad.kind == "float":
        return float(bad.arg)
    if bad.kind == "huge":  # one word: what a word-splitting scan finds hardest
        return "x" * (bad.arg - 1) + "\n"
    if bad.kind == "huge-words":  # a pasted log: many words, hyphenated names among them
        text = "atlas-deploy runs make ship on pg-staging-2 at 09:12; "
        return (text * (bad.arg // len(text) + 1))[: bad.arg]
    if bad.kind == "awkward":
        return "".join(bad.arg)
    value: Any = "bottom"
    for _ in range(bad.arg):
        value = [value] if bad.kind == "deep-list" else {"d": value}
    return value


# -- seeds: real payloads to spoil ---------------------------------------------


@dataclass(frozen=True)
class Seed:
    """A payload one plugin accepts for one event, and the daemon's answers to its calls."""

    plugin: str
    event: str
    name: str
    payload: Any
    answers: tuple[Any, ...]

    def __repr__(self) -> str:
        return f"Seed({self.plugin}:{self.event}:{self.name})"


def all_plugins() -> list[HarnessPlugin]:
    """Every installed plugin, and the generic one a harness without a package gets."""
    return [*installed_plugins(), generic_plugin("unpackaged-harness")]


def seeds(plugin: HarnessPlugin) -> list[Seed]:
    """The plugin's contract vectors, plus an empty payload for each event without one."""
    found: list[Seed] = []
    for path in plugin.vector_files():
        with open(path, encoding="utf-8") as f:
            vector = json.load(f)
        event = vector.get("event")
        if event not in plugin.events:
            continue
        answers = tuple(
            a.get("body") if isinstance(a, dict) and a.get("status", 200) < 400 else None
            for a in vector.get("answers") or ()
        )
        name = os.path.basename(path).removesuffix(".json")
        found.append(Seed(plugin.name, event, name, vector.get("payload"), answers))
    covered = {s.event for s in found}
    found += [Seed(plugin.name, e, "empty", {}, ()) for e in plugin.events if e not in covered]
    return found


# -- spoiling ------------------------------------------------------------------


@dataclass(frozen=True)
class Spoil:
    """One change to a payload: at ``path`` (keys and indexes), ``op`` with ``bad``.

    ``op`` is ``replace`` (the value there), ``drop`` (that field), ``add``
    (a new key beside it) or ``whole`` (the payload itself replaced).
    """

    op: str
    path: tuple[str | int, ...]
    bad: Bad | None = None


def _paths(value: Any, prefix: tuple[str | int, ...] = ()) -> Iterator[tuple[str | int, ...]]:
    """Every place in ``value`` a value sits, the deepest last (bounded: vectors are small)."""
    if isinstance(value, dict):
        for key, inner in value.items():
            yield (*prefix, key)
            yield from _paths(inner, (*prefix, key))
    elif isinstance(value, list):
        for index, inner in enumerate(value[:4]):
            yield (*prefix, index)
            yield from _paths(inner, (*prefix, index))


@st.composite
def spoils(draw: st.DrawFn, payload: Any) -> Spoil:
    """A change to ``payload``: mostly one field given a wrong value, sometimes the whole."""
    places = list(_paths(payload))
    op = draw(
        st.sampled_from(["replace"] * 6 + ["drop", "add", "whole"])
        if places
        else st.sampled_from(["add", "whole"])
    )
    if op == "whole":
        return Spoil("whole", (), draw(bad_values()))
    if op == "add":
        key = draw(st.text(max_size=12))
        return Spoil("add", (key,), draw(bad_values()))
    path = draw(st.sampled_from(places))
    return Spoil(op, path, draw(bad_values()) if op == "replace" else None)


def _copy(value: Any) -> Any:
    return json.loads(json.dumps(value))


def spoil(payload: Any, change: Spoil) -> Any:
    """``payload`` (not changed itself) with ``change`` made."""
    if change.op == "whole":
        assert change.bad is not None
        return build(change.bad)
    out = _copy(payload)
    if change.op == "add":
        assert change.bad is not None
        if isinstance(out, dict):
            out[change.path[0]] = build(change.bad)
        return out
    parent = out
    for part in change.path[:-1]:
        parent = parent[part]
    last = change.path[-1]
    if change.op == "drop":
        del parent[last]
    else:
        assert change.bad is not None
        parent[last] = build(change.bad)
    return out


# -- bytes -----------------------------------------------------------------------


def _encode_into(value: Any, out: list[str]) -> None:
    """JSON of ``value`` without recursion limits; floats as Python's ``json`` writes them."""
    stack: list[Any] = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, _Raw):
            out.append(item.text)
        elif isinstance(item, dict):
            out.append("{")
            parts: list[Any] = []
            for n, (key, inner) in enumerate(item.items()):
                if n:
                    parts.append(_Raw(","))
                parts += [_Raw(_string(str(key)) + ":"), inner]
            parts.append(_Raw("}"))
            stack.extend(reversed(parts))
        elif isinstance(item, list):
            out.append("[")
            parts = []
            for n, inner in enumerate(item):
                if n:
                    parts.append(_Raw(","))
                parts.append(inner)
            parts.append(_Raw("]"))
            stack.extend(reversed(parts))
        elif isinstance(item, str):
            out.append(_string(item))
        else:
            out.append(json.dumps(item))  # None, bools, numbers (NaN as NaN, as Python reads it)


@dataclass(frozen=True)
class _Raw:
    text: str


def _string(text: str) -> str:
    # ensure_ascii escapes a lone surrogate as \\ud800 instead of failing to encode it
    return json.dumps(text, ensure_ascii=True)


def encode(value: Any) -> bytes:
    """``value`` as the bytes a harness would send (any depth, lone surrogates escaped)."""
    out: list[str] = []
    _encode_into(value, out)
    return "".join(out).encode("ascii")


#: Bytes that are not a JSON object, or not JSON, or not UTF-8.
GARBAGE = [
    b"",
    b" ",
    b"null",
    b"[]",
    b'"a string"',
    b"42",
    b"{",
    b"{}}",
    b"{'single': 'quotes'}",
    b"\xff\xfe\x00{}",
    b'{"a": "\xff"}',
    b'{"a": "\xc3\x28"}',
    b"\xef\xbb\xbf{}",  # a byte order mark
    b'{"a": 1}{"b": 2}',
    b"\x00" * 16,
    b"[" * DEEP + b"]" * DEEP,
    b'{"a":' * DEEP + b"1" + b"}" * DEEP,
]


def garbage_bytes() -> st.SearchStrategy[bytes]:
    """Bytes a broken or hostile harness might send instead of its payload."""
    return st.one_of(st.sampled_from(GARBAGE), st.binary(max_size=64))
