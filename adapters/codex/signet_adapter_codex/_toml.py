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
from tomlkit.exceptions import TOMLKitError
from tomlkit.items import InlineTable, Table

__all__ = ["ConfigError", "check_toml", "merge_config", "toml_data", "unmerge_config"]

_FEATURE_NOTE = "# signet-sdk install codex"
_STATE = ("hooks", "state")
#: What tomlkit raises for a layout its edits do not cover (say, a table put into an
#: inline one): the file is then refused, never half-edited.
_EDIT_ERRORS = (TOMLKitError, ValueError, LookupError, TypeError, AttributeError)


class ConfigError(Exception):
    """A file cannot be merged safely; the message names the file and the problem."""


def _parse(path: Path, text: str) -> Any:
    try:
        return tomlkit.parse(text)
    except TOMLKitError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None


def _plain(path: Path, text: str) -> dict[str, Any]:
    """``text`` as plain data; floats as written, so that two reads compare equal (even nan)."""
    try:
        return tomllib.loads(text, parse_float=str)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None


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
    try:
        got = tomllib.loads(text, parse_float=str)
    except tomllib.TOMLDecodeError:
        raise _unsafe(path) from None
    if _pruned(got) != _pruned(intended):
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


def merge_config(
    path: Path, text: str, source: str, old: Mapping[str, str], new: Mapping[str, str]
) -> str:
    """config.toml text with the hooks feature on and our trust entries exactly ``new``.

    ``old`` is our entries as the hooks file had them (those no longer in
    ``new`` go). Raises :class:`ConfigError` naming ``path`` when the file
    cannot be edited safely.
    """
    doc, data = _parse(path, text), _plain(path, text)
    intended = copy.deepcopy(data)
    state_data = _table(data, *_STATE) or {}
    try:
        if "hooks" not in (_table(data, "features") or {}):
            intended.setdefault("features", {})["hooks"] = True
            item = tomlkit.item(True)
            item.comment(_FEATURE_NOTE)
            features = doc.get("features")
            if features is None:
                features = tomlkit.table()
                doc["features"] = features
            features["hooks"] = item  # in an inline table, without the comment
        for key in _ours_stale(state_data, old, new):
            _drop(doc, _STATE, key)
            del intended["hooks"]["state"][key]
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
    except _EDIT_ERRORS:
        raise _unsafe(path) from None
    return _checked(path, out, intended)


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
) -> str:
    """config.toml text without our trust entries and without the feature install added.

    ``original`` is what the kept original means (``{}`` for a file that
    was not there; None when no original was kept): it tells whether an
    inline ``features.hooks`` and an emptied table came from install.
    Raises :class:`ConfigError` naming ``path`` when the file cannot be
    edited safely.
    """
    doc, data = _parse(path, text), _plain(path, text)
    intended = copy.deepcopy(data)
    try:
        gone = _ours_stale(_table(data, *_STATE) or {}, old, ())
        for key in gone:
            _drop(doc, _STATE, key)
            del intended["hooks"]["state"][key]
        if gone and not intended["hooks"]["state"] and _goes(original, *_STATE):
            _drop(doc, ("hooks",), "state")
            del intended["hooks"]["state"]
        if gone and not intended["hooks"] and _goes(original, "hooks"):
            del doc["hooks"]
            del intended["hooks"]
        holder = next((p for p in _pieces(doc, ("features",)) if "hooks" in p), None)
        if holder is not None and _feature_is_ours(holder, original):
            del holder["hooks"]
            del intended["features"]["hooks"]
            if not intended["features"] and _goes(original, "features"):
                del doc["features"]
                del intended["features"]
        out = tomlkit.dumps(doc)
    except _EDIT_ERRORS:
        raise _unsafe(path) from None
    # tomlkit leaves the blank line it put before our first appended table.
    out = out.rstrip("\n") + "\n" if out.endswith("\n\n") else out
    return _checked(path, out, intended)


def check_toml(path: Path, text: str) -> None:
    """Refuse, naming the file, what cannot be edited: text that tomlkit or tomllib
    rejects, or a ``features``, ``hooks`` or ``hooks.state`` that is not a table."""
    _parse(path, text)
    data = _plain(path, text)
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
        return tomllib.loads(text or "", parse_float=str)
    except tomllib.TOMLDecodeError:
        return None
