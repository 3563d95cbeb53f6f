"""Our ``[[hooks]]`` entries in Kimi Code's ``config.toml``, edited with tomlkit.

Kimi reads hooks only from the ``hooks`` array of tables of its one
user-level ``config.toml``; each entry allows exactly ``event``,
``matcher``, ``command`` and ``timeout`` (seconds, 1 to 600), and any other
key makes the whole file fail to load (MoonshotAI/kimi-code
``docs/en/customization/hooks.md``; 2.1.0 checks them strictly). tomlkit
keeps every comment, blank line and key order of the user's file; our
entries go at the end of the array, set apart by blank lines where the
user's entries are (and packed where theirs are), so that taking them out
again leaves the user's bytes.

An entry is ours when its command runs ``signet-sdk hook kimi`` (from any
environment); every other entry is the user's and is never changed.

Only ``event``, ``matcher``, ``command`` and ``timeout`` of our entry are
ours. Since our entries end the file, a line the user appends to it
(``default_thinking = true``) lands inside our last ``[[hooks]]`` entry;
when our entries go (uninstall, or a reinstall that replaces them), such a
key moves to the table it would be in without our entries (the nearest
table above them that is not ours; the top level for a file that ended in
root keys), and stays where it is, in an entry then holding only the
user's keys, when that is not safe (its new table has the key already; an
inline entry). Each is said in a note. The edited text must mean exactly
that (checked with :mod:`tomllib`), else the keys stay where they are, and
failing that the file is refused.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import tomlkit
from tomlkit.items import AoT, Array

from signet_sdk.installing.command import runs_sdk
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

__all__ = [
    "HOOK_ARGS",
    "ConfigError",
    "check_toml",
    "is_ours",
    "merge_hooks",
    "toml_data",
    "unmerge_hooks",
]

#: What our hook commands run after the ``signet-sdk`` program.
HOOK_ARGS = ("hook", "kimi")
_FIELDS = ("event", "command", "timeout")
#: The keys of an entry of ours that are ours (``matcher`` only means something there).
_ENTRY_KEYS = frozenset(("event", "matcher", "command", "timeout"))


def is_ours(entry: Any) -> bool:
    """Whether a ``[[hooks]]`` entry runs ``signet-sdk hook kimi`` (from any environment)."""
    return isinstance(entry, Mapping) and runs_sdk({"command": entry.get("command")}, HOOK_ARGS)


def check_toml(path: Path, text: str) -> None:
    """Refuse, naming the file, what cannot be merged: bad TOML or a ``hooks`` of another shape."""
    hooks = parsed(path, text, tomlkit.parse, "; fix it and run again").get("hooks")
    if hooks is None:
        return
    if not isinstance(hooks, AoT | Array):
        raise ConfigError(f"{path}: 'hooks' must be an array of tables ([[hooks]]); left untouched")
    for i, entry in enumerate(hooks):
        if not isinstance(entry, Mapping):
            raise ConfigError(f"{path}: hooks[{i}] is not a table; left untouched")


def toml_data(text: str | None) -> Any:
    """The file's content as plain data (for comparing two texts)."""
    return tomlkit.parse(text or "").unwrap()


def _ours(hooks: Any) -> list[dict[str, Any]]:
    return [{k: entry.get(k) for k in _FIELDS} for entry in (hooks or []) if is_ours(entry)]


def _without_ours(hooks: Any) -> None:
    for i in reversed(range(len(hooks))):
        if is_ours(hooks[i]):
            del hooks[i]


def _table(entry: Mapping[str, Any], *, before: bool, after: bool, inline: bool) -> Any:
    item: Any = tomlkit.inline_table() if inline else tomlkit.table()
    for key in _FIELDS:
        item[key] = entry[key]
    if not inline:
        if before:
            item.trivia.indent = "\n"
        if after:
            item.add(tomlkit.nl())
    return item


def _followed(doc: Any, key: str) -> bool:
    """Whether anything of the document comes after its ``key`` member."""
    names = [k for k, _ in doc.body]
    if key not in names:
        return False
    return any(k is not None or v.as_string().strip() for k, v in doc.body[names.index(key) + 1 :])


def _kept(entry: Mapping[str, Any]) -> dict[str, Any]:
    """What stays of an entry of ours: the user's keys (none, most often)."""
    return {k: v for k, v in entry.items() if k not in _ENTRY_KEYS}


def _unsafe(path: Path) -> ConfigError:
    return ConfigError(
        f"{path}: cannot take Signet's [[hooks]] entries out safely as the file is written; "
        "left untouched"
    )


def _released(path: Path, text: str) -> tuple[str, list[str]]:
    """:func:`_release`, moving the user's keys; failing that, keeping them in place."""
    return moving_else_keeping(lambda move: _release(path, text, move))


def _release(path: Path, text: str, move: bool) -> tuple[str, list[str]]:
    """``text`` without our entries, keeping each key of the user's found in one.

    A ``key = value`` line moves, when ``move``, to the table it would be in
    without our entries
    (:func:`~signet_sdk.installing.toml_places.home_of_lines`); else, or
    when its new table has that key, it stays in its entry, which loses
    only our keys (and, without its command, is no longer taken for ours).
    Raises :class:`ConfigError` when tomlkit writes something that does not
    mean exactly that.
    """
    doc, intended = tomlkit.parse(text), toml_plain(text)
    hooks: Any = doc.get("hooks")
    notes: list[str] = []
    with refused_as(_unsafe(path)):
        ours = [(i, entry) for i, entry in enumerate(hooks) if is_ours(entry)]
        ids = {id(entry) for _, entry in ours}
        for i, entry in ours:
            names = [n for n in entry if n not in _ENTRY_KEYS]
            plain = intended["hooks"][i]
            for shown, moved in move_lines_home(doc, intended, entry, names, ids, plain, move):
                if not moved:
                    notes.append(
                        f"{path}: kept your '{shown}' where it is, in the [[hooks]] "
                        f"entry that held Signet's {entry.get('event')} hook "
                        "(moving it is not safe)"
                    )
                    continue
                notes.append(
                    f"{path}: moved your '{shown}' out of Signet's [[hooks]] entry "
                    f"to {moved}, where it is without Signet's entries"
                )
            if any(n not in _ENTRY_KEYS for n in entry):  # kept: only our keys go
                for name in [n for n in entry if n in _ENTRY_KEYS]:
                    del entry[name]
        _without_ours(hooks)
        if not len(hooks):
            del doc["hooks"]
        out = tomlkit.dumps(doc)
    left = [_kept(e) if is_ours(e) else e for e in intended["hooks"]]
    intended["hooks"] = [e for e in left if e]
    if not intended["hooks"]:
        del intended["hooks"]
    if not means(out, intended):
        raise _unsafe(path)
    return out, notes


def merge_hooks(
    path: Path, text: str, wanted: Sequence[Mapping[str, Any]]
) -> tuple[str, list[str]]:
    """``text`` with our entries exactly ``wanted`` (``event``, ``command``, ``timeout``),
    and a note per key of the user's found in an entry of ours that is replaced.

    Blank lines follow the file's style: where the user's last entry is set
    off by a blank line (or ends the file) ours are too; in a file written
    without them, ours come without them. Raises :class:`ConfigError` naming
    ``path`` when the file cannot be edited safely.
    """
    doc = tomlkit.parse(text)
    hooks = doc.get("hooks")
    if _ours(hooks) == [dict(w) for w in wanted]:
        return text, []  # already so: not a byte changes
    notes: list[str] = []
    if _ours(hooks):
        text, notes = _released(path, text)
        doc = tomlkit.parse(text)
        hooks = doc.get("hooks")
    if hooks is None:
        so_far = tomlkit.dumps(doc)
        spaced, first_gap, last_gap = (
            True,
            bool(so_far.strip()) and not so_far.endswith("\n\n"),
            False,
        )
        hooks = tomlkit.aot()
        doc.append("hooks", hooks)
    else:
        last = hooks[-1].as_string() if len(hooks) else ""  # ``hooks = []``: nothing before ours
        followed = _followed(doc, "hooks")
        spaced = last.endswith("\n\n") or not followed
        first_gap, last_gap = spaced and not last.endswith("\n\n"), spaced and followed
    inline = isinstance(hooks, Array)
    for i, entry in enumerate(wanted):
        before = first_gap if i == 0 else spaced
        after = last_gap and i == len(wanted) - 1
        hooks.append(_table(entry, before=before, after=after, inline=inline))
    return tomlkit.dumps(doc), notes


def unmerge_hooks(path: Path, text: str) -> tuple[str, list[str]]:
    """``text`` without our entries, and without a ``hooks`` array only they filled,
    and a note per key of the user's found in one of them (see the module's docstring).

    The blank line that set our first entry apart stays with the entry
    before it when the file is read back; at the end of the file it is
    taken off again. Raises :class:`ConfigError` naming ``path`` when the
    file cannot be edited safely.
    """
    doc = tomlkit.parse(text)
    if not _ours(doc.get("hooks")):
        return text, []
    out, notes = _released(path, text)
    return without_blank_end(out), notes
