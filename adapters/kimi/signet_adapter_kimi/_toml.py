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
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import tomlkit
from tomlkit.exceptions import TOMLKitError
from tomlkit.items import AoT, Array

from signet_sdk.installing.command import runs_sdk

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


class ConfigError(Exception):
    """A file cannot be merged safely; the message names the file and the problem."""


def is_ours(entry: Any) -> bool:
    """Whether a ``[[hooks]]`` entry runs ``signet-sdk hook kimi`` (from any environment)."""
    return isinstance(entry, Mapping) and runs_sdk({"command": entry.get("command")}, HOOK_ARGS)


def _parse(path: Path, text: str) -> Any:
    try:
        return tomlkit.parse(text)
    except TOMLKitError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}; fix it and run again") from None


def check_toml(path: Path, text: str) -> None:
    """Refuse, naming the file, what cannot be merged: bad TOML or a ``hooks`` of another shape."""
    hooks = _parse(path, text).get("hooks")
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


def merge_hooks(text: str, wanted: Sequence[Mapping[str, Any]]) -> str:
    """``text`` with our entries exactly ``wanted`` (``event``, ``command``, ``timeout``).

    Blank lines follow the file's style: where the user's last entry is set
    off by a blank line (or ends the file) ours are too; in a file written
    without them, ours come without them.
    """
    doc = tomlkit.parse(text)
    hooks = doc.get("hooks")
    if _ours(hooks) == [dict(w) for w in wanted]:
        return text  # already so: not a byte changes
    if hooks is not None:
        _without_ours(hooks)
        if not len(hooks):
            del doc["hooks"]
            hooks = None
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
        last = hooks[-1].as_string()
        followed = _followed(doc, "hooks")
        spaced = last.endswith("\n\n") or not followed
        first_gap, last_gap = spaced and not last.endswith("\n\n"), spaced and followed
    inline = isinstance(hooks, Array)
    for i, entry in enumerate(wanted):
        before = first_gap if i == 0 else spaced
        after = last_gap and i == len(wanted) - 1
        hooks.append(_table(entry, before=before, after=after, inline=inline))
    return tomlkit.dumps(doc)


def unmerge_hooks(text: str) -> str:
    """``text`` without our entries, and without a ``hooks`` array only they filled.

    The blank line that set our first entry apart stays with the entry
    before it when the file is read back; at the end of the file it is
    taken off again.
    """
    doc = tomlkit.parse(text)
    hooks: Any = doc.get("hooks")
    if not _ours(hooks):
        return text
    _without_ours(hooks)
    if not len(hooks):
        del doc["hooks"]
    out = tomlkit.dumps(doc)
    return out.rstrip("\n") + "\n" if out.endswith("\n\n") else out
