"""config.toml edits for the installer, with tomlkit so comments, order and style stay.

Install turns on ``features.hooks`` and keeps exactly our
``[hooks.state."…"]`` trust entries; uninstall removes those entries (only
while their hash is still ours), the ``features.hooks`` install added, and
the tables that only they filled.

Which ``features.hooks`` is ours. Install adds the key only when it is
missing. On a line of its own (a ``[features]`` table, or a dotted
``features.hooks``) it carries the comment ``# signet-sdk install codex``,
and uninstall removes only a line with that comment, so a user's own
``hooks = true`` stays. An inline table (``features = { web_search = true
}``) has no room for a comment, so there the value is ours when it is still
``true`` and the original kept at the first install
(``config.toml.signet-sdk-orig``, see
:mod:`signet_sdk.installing.originals`) had no ``features.hooks``: install
is the only thing that can have added it since. With no original kept there
is no telling, and the inline value stays. Likewise a table left empty
goes only when the original did not have it (install made it); one the
original had stays, so that its exact bytes can come back. With no original
kept an emptied table goes, since install most likely made it.

Only ``trusted_hash`` in our ``[hooks.state."…"]`` tables is ours. Install
appends them at the end of the file, so a line the user appends afterwards
(``echo 'approval_policy = "never"' >> config.toml``) lands inside our last
one; when our entry goes, such a key moves to the table it would be in
without our tables (the nearest one above that is not ours, nor a
``[features]`` install made; the top level for a file that ended in root
keys), and stays where it is, in a table then holding only the user's keys,
when moving is not safe (the new table has the key; an entry without a
header of its own). Each is said in a note (:func:`_let_go`). A
``[features]`` table install made keeps a key the user put in it: features
are set there on purpose.

TOML lets one table be written in pieces: dotted keys
(``features.web_search = true``), a ``[features]`` header with a
``[features.sub]`` further down past other tables, ``[hooks.state."a"]``
tables split by others. tomlkit joins such pieces into a proxy that reads
well but has no ``item()`` (the value with its comment), and whose nested
deletes lose count of the pieces (IndexError once one is emptied). So what
to change is decided on the plain data (:mod:`tomllib`), and the changes
are made on the pieces as written (:func:`_pieces`), each a real tomlkit
table. Every edit is then checked, since tomlkit can still write a layout
wrongly (a table added under a dotted ``state.x`` inside ``[hooks]`` comes
out as ``[state."…"]``): the new text must parse with :mod:`tomllib` and
mean exactly the intended data, else the file is refused
(:class:`ConfigError`, naming it) rather than written.
"""

from __future__ import annotations

import copy
import tomllib
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import Any

import tomlkit
from tomlkit.container import Container
from tomlkit.items import InlineTable, Table

from signet_sdk.installing.toml_edits import (
    ConfigError,
    means,
    moving_else_keeping,
    parsed,
    refused_as,
    toml_plain,
    without_blank_end,
)
from signet_sdk.installing.toml_places import move_lines_home

__all__ = ["ConfigError", "check_toml", "merge_config", "toml_data", "unmerge_config"]

_FEATURE_NOTE = "# signet-sdk install codex"
_STATE = ("hooks", "state")


def _table(data: Any, *path: str) -> dict[str, Any] | None:
    """The plain table at ``path`` in ``data``; None when absent (or not a table)."""
    for name in path:
        data = data.get(name) if isinstance(data, dict) else None
    return data if isinstance(data, dict) else None


def _goes(original: Mapping[str, Any] | None, *path: str) -> bool:
    """Whether the table at ``path``, once emptied, goes: the kept original lacked it."""
    return original is None or _table(original, *path) is None


def _pieces(doc: Any, path: Sequence[str]) -> list[Any]:
    """The tables, as written, that together make the table at ``path``.

    One for a plain ``[features]``; several for dotted keys, for a header
    repeated further down (``[features]`` … ``[features.sub]``) or for
    ``[hooks.state."a"]`` tables split by others. Each is a real tomlkit
    ``Table`` or ``InlineTable``: its ``item()`` keeps the comment and its
    ``del`` edits that piece of text, which tomlkit's joined proxy does not
    promise.
    """
    found = [doc]
    for name in path:
        found = [
            child
            for piece in found
            for key, child in (piece if isinstance(piece, Container) else piece.value).body
            if key is not None and key.key == name and isinstance(child, Table | InlineTable)
        ]
    return found


def _drop(doc: Any, path: Sequence[str], key: str) -> None:
    """Remove ``key`` from the table at ``path``, from whichever piece holds it."""
    for piece in _pieces(doc, path):
        if key in piece:
            del piece[key]


def _pruned(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` without an empty ``hooks.state``, ``hooks`` or ``features``.

    An empty table means nothing to Codex, and tomlkit writes an emptied
    header-less table as nothing at all, so the check of an edit ignores them.
    """
    out = copy.deepcopy(data)
    for path in (_STATE, ("hooks",), ("features",)):
        parent = _table(out, *path[:-1])
        if parent is not None and parent.get(path[-1]) == {}:
            del parent[path[-1]]
    return out


def _unsafe(path: Path) -> ConfigError:
    return ConfigError(
        f"{path}: cannot edit its 'features' or 'hooks' tables safely as they are written; "
        'left untouched (writing them as [features] and [hooks.state."…"] tables avoids this)'
    )


def _checked(path: Path, text: str, intended: dict[str, Any]) -> str:
    """``text``, when it is valid TOML meaning ``intended``; else the file is refused."""
    if not means(text, intended, _pruned):
        raise _unsafe(path)
    return text


def _state_table(doc: Any, create: bool) -> Any:
    """``[hooks.state]``, made when ``create`` (inline inside an inline table, else as
    header-less tables); None when absent and not ``create``."""
    table = doc
    for key in _STATE:
        inner = table.get(key)
        if inner is None:
            if not create:
                return None
            inline = isinstance(table, InlineTable)
            inner = tomlkit.inline_table() if inline else tomlkit.table(is_super_table=True)
            table[key] = inner
        table = inner
    return table


def _ours_stale(
    state: Mapping[str, Any], old: Mapping[str, str], keep: Collection[str]
) -> list[str]:
    """Our entries (key in ``old``, hash still ours) whose key is not in ``keep``."""
    return [
        key
        for key, entry in state.items()
        if key in old and key not in keep and (_table(entry) or {}).get("trusted_hash") == old[key]
    ]


def _let_go(
    path: Path,
    doc: Any,
    intended: Any,
    gone: Sequence[str],
    ours: Collection[str],
    original: Mapping[str, Any] | None,
    move: bool,
) -> list[str]:
    """Remove our entries ``gone`` (keys of ``hooks.state``); return one note per user key.

    Install appends our tables at the end of the file, so a line the user
    appends afterwards (``approval_policy = "never"``) lands inside our last
    one. Only ``trusted_hash`` is ours: any other line in our table is the
    user's and moves, when ``move``, to the table it would be in without
    ours (:func:`~signet_sdk.installing.toml_places.home_of_lines`; the top
    level for a file that ended in root keys).
    A line that cannot move safely (a table's header, an entry without a
    header of its own, a key its new table already has, or ``move`` False)
    stays where it is, in a table that then holds only the user's keys.
    """
    notes: list[str] = []
    state = intended["hooks"]["state"] if gone else {}
    # Every table of ours, staying or not, is passed over in finding a key's home, and so
    # is a [features] that install made (the original had none).
    tables: list[tuple[str, ...]] = [(*_STATE, key) for key in {*gone, *ours}]
    tables += [("features",)] if _goes(original, "features") else []
    skip = {id(piece) for table in tables for piece in _pieces(doc, table)}
    for key in gone:
        pieces = _pieces(doc, (*_STATE, key))
        if set(state[key]) == {"trusted_hash"}:
            _drop(doc, _STATE, key)
            del state[key]
            continue
        for piece in pieces:
            names = [name for name in piece if name != "trusted_hash"]
            if "trusted_hash" in piece:
                del piece["trusted_hash"]
            for shown, moved in move_lines_home(
                doc, intended, piece, names, skip, state[key], move
            ):
                if not moved:
                    notes.append(
                        f"{path}: kept your '{shown}' where it is, in "
                        f'[hooks.state."{key}"] (moving it out of Signet\'s table is not safe)'
                    )
                    continue
                notes.append(
                    f"{path}: moved your '{shown}' out of Signet's [hooks.state] table "
                    f"to {moved}, where it is without Signet's tables"
                )
        del state[key]["trusted_hash"]
        if not state[key]:
            _drop(doc, _STATE, key)
            del state[key]
    return notes


def merge_config(
    path: Path,
    text: str,
    source: str,
    old: Mapping[str, str],
    new: Mapping[str, str],
    original: Mapping[str, Any] | None = None,
) -> tuple[str, list[str]]:
    """config.toml text with the hooks feature on and our trust entries exactly ``new``,
    and a note per key of the user's found in an entry of ours that goes (:func:`_let_go`).

    ``old`` is our entries as the hooks file had them (those no longer in
    ``new`` go); ``original`` is as for :func:`unmerge_config`. Raises
    :class:`ConfigError` naming ``path`` when the file cannot be edited
    safely.
    """
    return moving_else_keeping(lambda move: _merge(path, text, old, new, original, move))


def _merge(
    path: Path,
    text: str,
    old: Mapping[str, str],
    new: Mapping[str, str],
    original: Mapping[str, Any] | None,
    move: bool,
) -> tuple[str, list[str]]:
    doc, data = parsed(path, text, tomlkit.parse), parsed(path, text, toml_plain)
    intended = copy.deepcopy(data)
    state_data = _table(data, *_STATE) or {}
    with refused_as(_unsafe(path)):
        if "hooks" not in (_table(data, "features") or {}):
            intended.setdefault("features", {})["hooks"] = True
            item = tomlkit.item(True)
            item.comment(_FEATURE_NOTE)
            features = doc.get("features")
            if features is None:
                features = tomlkit.table()
                doc["features"] = features
            features["hooks"] = item  # in an inline table, without the comment
        stale = _ours_stale(state_data, old, new)
        notes = _let_go(path, doc, intended, stale, {*old, *new}, original, move)
        for key, value in new.items():
            entry = state_data.get(key)
            if entry is not None and not isinstance(entry, dict):
                raise ConfigError(f"{path}: 'hooks.state.\"{key}\"' must be a table")
            if entry is not None and entry.get("trusted_hash") == value:
                continue
            holders = [piece for piece in _pieces(doc, _STATE) if key in piece]
            if holders:
                holders[0][key]["trusted_hash"] = value
            else:
                state = _state_table(doc, create=True)
                made = tomlkit.inline_table() if isinstance(state, InlineTable) else tomlkit.table()
                made["trusted_hash"] = value
                state[key] = made
            intended.setdefault("hooks", {}).setdefault("state", {}).setdefault(key, {})
            intended["hooks"]["state"][key]["trusted_hash"] = value
        out = tomlkit.dumps(doc)
    if stale and not text.endswith("\n\n"):
        out = without_blank_end(out)  # the blank line before a last table that went
    return _checked(path, out, intended), notes


def _noted(item: Any) -> bool:
    """Whether a ``features.hooks`` value carries the comment we add with it."""
    trivia = getattr(item, "trivia", None)
    return trivia is not None and (trivia.comment or "").lstrip("# ").strip() == _FEATURE_NOTE[2:]


def _feature_is_ours(holder: Any, original: Mapping[str, Any] | None) -> bool:
    """Whether ``features.hooks`` in the piece ``holder`` is the one install added.

    On its own line: it carries our comment. In an inline table (no room for
    a comment): it is still ``true`` and the kept original had no
    ``features.hooks``, since install adds the key only when it is missing.
    """
    item = holder.item("hooks")
    if not isinstance(holder, InlineTable):
        return _noted(item)
    had = _table(original, "features") or {}
    return original is not None and "hooks" not in had and getattr(item, "value", None) is True


def unmerge_config(
    path: Path, text: str, old: Mapping[str, str], original: Mapping[str, Any] | None = None
) -> tuple[str, list[str]]:
    """config.toml text without our trust entries and without the feature install added,
    and a note per key of the user's found in an entry of ours (:func:`_let_go`).

    ``original`` is what the kept original means (``{}`` for a file that
    was not there; None when no original was kept): it tells whether an
    inline ``features.hooks`` and an emptied table came from install.
    A user's key that cannot be moved as the file is written stays where it
    is. Raises :class:`ConfigError` naming ``path`` when the file cannot be
    edited safely.
    """
    return moving_else_keeping(lambda move: _unmerge(path, text, old, original, move))


def _unmerge(
    path: Path, text: str, old: Mapping[str, str], original: Mapping[str, Any] | None, move: bool
) -> tuple[str, list[str]]:
    doc, data = parsed(path, text, tomlkit.parse), parsed(path, text, toml_plain)
    intended = copy.deepcopy(data)
    with refused_as(_unsafe(path)):
        holder = next((p for p in _pieces(doc, ("features",)) if "hooks" in p), None)
        if holder is not None and _feature_is_ours(holder, original):
            del holder["hooks"]
            del intended["features"]["hooks"]
            if not intended["features"] and _goes(original, "features"):
                del doc["features"]
                del intended["features"]
        gone = _ours_stale(_table(data, *_STATE) or {}, old, ())
        notes = _let_go(path, doc, intended, gone, (), original, move)
        if gone and not intended["hooks"]["state"] and _goes(original, *_STATE):
            _drop(doc, ("hooks",), "state")
            del intended["hooks"]["state"]
        if gone and not intended["hooks"] and _goes(original, "hooks"):
            del doc["hooks"]
            del intended["hooks"]
        out = tomlkit.dumps(doc)
    out = without_blank_end(out)  # the blank line before our first appended table
    return _checked(path, out, intended), notes


def check_toml(path: Path, text: str) -> None:
    """Refuse, naming the file, what cannot be edited: text that tomlkit or tomllib
    rejects, or a ``features``, ``hooks`` or ``hooks.state`` that is not a table."""
    parsed(path, text, tomlkit.parse)
    data = parsed(path, text, toml_plain)
    hooks = data.get("hooks", {})
    for name, value in (("features", data.get("features", {})), ("hooks", hooks)):
        if not isinstance(value, dict):
            raise ConfigError(f"{path}: '{name}' must be a table")
    if not isinstance(hooks.get("state", {}), dict):
        raise ConfigError(f"{path}: 'hooks.state' must be a table")


def toml_data(text: str | None) -> Any:
    """What a text means (``{}`` for no file), for comparing two texts; None for text
    that is not TOML (a kept original spoiled since), which then matches nothing."""
    try:
        return toml_plain(text or "")
    except tomllib.TOMLDecodeError:
        return None
