"""Where a line of a TOML config belongs, for the installers that append tables to one.

An installer that appends its tables at the end of a user's ``config.toml``
(Codex's ``[hooks.state."…"]``, Kimi Code's ``[[hooks]]``) owns only the
keys it wrote: a line the user appends afterwards lands inside the last of
them. On uninstall such a line moves to where it would be without our
tables, which TOML decides by order alone: a ``key = value`` line belongs
to the table whose header comes last above it. These helpers read that
order from a tomlkit document (the ``tomlkit`` package those installers
depend on). The SDK's installing layer stays on the standard library, so
tomlkit's items are told apart here by what they are called and what they
hold, never imported. The edit these moves are part of, checked and refused
alike for both installers, is :mod:`.toml_edits`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Iterable, MutableMapping
from typing import Any

__all__ = [
    "Place",
    "header_tables",
    "home_of_lines",
    "is_key_line",
    "key_text",
    "move_line_home",
    "move_lines_home",
    "place_name",
    "value_at",
]

#: A table's place in the plain data: its names, with an index into an array of tables.
Place = tuple[str | int, ...]
_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")


def _is_array_of_tables(item: Any) -> bool:
    return type(item).__name__ == "AoT"


def _is_table(item: Any) -> bool:
    return type(item).__name__ == "Table" and hasattr(item, "is_super_table")


def key_text(name: str) -> str:
    """``name`` as a TOML key is written: bare when it may be, else quoted."""
    return name if _BARE_KEY.fullmatch(name) else json.dumps(name, ensure_ascii=False)


def header_tables(doc: Any) -> list[tuple[Place, Any]]:
    """Every table written under a header of its own, in the file's order, with its place.

    A key line belongs to the table whose header comes last above it, so
    this order is what tells where a line found in one of our tables would
    be without them.
    """
    out: list[tuple[Place, Any]] = []
    counts: dict[Place, int] = {}

    def walk(container: Any, place: Place) -> None:
        for key, item in container.body:
            if key is None:
                continue
            here = (*place, key.key)
            if _is_array_of_tables(item):
                for table in item.body:
                    index = counts.get(here, 0)
                    counts[here] = index + 1
                    out.append(((*here, index), table))
                    walk(table.value, (*here, index))
            elif _is_table(item):
                if not item.is_super_table() and not key.is_dotted():
                    out.append((here, item))
                walk(item.value, here)

    walk(doc, ())
    return out


def value_at(data: Any, place: Place) -> Any:
    """The value at ``place`` in plain data (or a document)."""
    for step in place:
        data = data[step]
    return data


def place_name(place: Place) -> str:
    """A place as the user reads it in the file: ``[a.b]``, ``[[hooks]] entry 2``."""
    if not place:
        return "the top level"
    names = ".".join(key_text(p) for p in place if isinstance(p, str))
    if isinstance(place[-1], int):
        return f"[[{names}]] entry {place[-1] + 1}"
    return f"[{names}]"


def is_key_line(item: Any) -> bool:
    """Whether ``item`` is a ``key = value`` line (dotted or not), not a table's header."""
    return not _is_array_of_tables(item) and not (_is_table(item) and not item.is_super_table())


def home_of_lines(doc: Any, table: Any, ours: Collection[int]) -> tuple[Place, Any] | None:
    """Where the lines under our header ``table`` would be without our tables.

    The nearest table above it written under a header that is not ours
    (``ours`` holds their ``id()``; the top level when there is none); None
    when ``table`` has no header of its own (an inline or dotted entry,
    where the user put a key on purpose).
    """
    headers = header_tables(doc)
    at = next((i for i, (_, found) in enumerate(headers) if found is table), None)
    if at is None:
        return None
    for place, found in reversed(headers[:at]):
        if id(found) not in ours:
            return place, found
    return (), doc


def move_line_home(
    doc: Any,
    intended: Any,
    table: Any,
    name: str,
    ours: Collection[int],
    plain: MutableMapping[str, Any],
) -> str | None:
    """Move the user's line ``name`` out of our ``table`` to its home; where, or None.

    The line goes to :func:`home_of_lines` in the document and its value
    from ``plain`` (our table in the intended data) to the same place in
    ``intended``. It stays (None) when it is a table's header, when our
    table has no header of its own, or when its home already has that key.
    """
    item = table.item(name)
    home = home_of_lines(doc, table, ours) if is_key_line(item) else None
    if home is None or name in value_at(intended, home[0]):
        return None
    del table[name]
    home[1].add(name, item)
    value_at(intended, home[0])[name] = plain.pop(name)
    return place_name(home[0])


def move_lines_home(
    doc: Any,
    intended: Any,
    table: Any,
    names: Iterable[str],
    ours: Collection[int],
    plain: MutableMapping[str, Any],
    move: bool = True,
) -> list[tuple[str, str | None]]:
    """The user's lines ``names`` in our ``table``, each moved home when ``move``.

    A pair a line, for the installer's note on it: its key as the file
    writes it (:func:`key_text`), and where it went (:func:`move_line_home`)
    or None where it stayed. With ``move`` False (a move the installer found
    it cannot make safely) every line stays.
    """
    return [
        (key_text(name), move_line_home(doc, intended, table, name, ours, plain) if move else None)
        for name in names
    ]
