"""One checked edit of a user's TOML config, for the installers that make it with tomlkit.

Codex's and Kimi Code's installers both edit a user's ``config.toml`` with
tomlkit (so comments, order and style stay) and hold every edit to the same
rules. The rules live here once, so that the two refuse, check and fall
back alike, and say so in the same words:

* a file that cannot be edited is refused with :class:`ConfigError`,
  naming it, before anything is written: text that does not parse
  (:func:`parsed`), or an edit tomlkit cannot make as the file is written
  (:func:`refused_as`);
* an edit stands only when its text means exactly what was intended, read
  back with :mod:`tomllib` (:func:`toml_plain`, :func:`means`), since
  tomlkit can also write a layout wrongly without raising;
* a line the user appended into one of our tables moves out of it
  (:func:`~signet_sdk.installing.toml_places.move_lines_home`) only when
  that edit stands; else it stays where it is (:func:`moving_else_keeping`);
* the blank line that set our appended tables apart does not outlive them
  at the end of the file (:func:`without_blank_end`).

What to change stays in each adapter. The SDK's installing layer stays on
the standard library: tomlkit's parser is passed in, and its errors are
told by their class's name, never imported.
"""

from __future__ import annotations

import contextlib
import tomllib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

__all__ = [
    "ConfigError",
    "means",
    "moving_else_keeping",
    "parsed",
    "refused_as",
    "toml_plain",
    "without_blank_end",
]

T = TypeVar("T")
#: What tomlkit lets through, besides its own ``TOMLKitError``, for a layout its edits
#: do not cover (say, a table put into an inline one).
_LAYOUT_ERRORS = (ValueError, LookupError, TypeError, AttributeError)


class ConfigError(Exception):
    """A file cannot be merged safely; the message names the file and the problem."""


def _is_tomlkit_error(exc: BaseException) -> bool:
    return any(cls.__name__ == "TOMLKitError" for cls in type(exc).__mro__)


def toml_plain(text: str) -> dict[str, Any]:
    """``text`` as plain data; floats as written, so that two reads compare equal (even nan).

    Raises :class:`tomllib.TOMLDecodeError` for text that is not TOML.
    """
    return tomllib.loads(text, parse_float=str)


def parsed(path: Path, text: str, parse: Callable[[str], T], hint: str = "") -> T:
    """``parse(text)`` (``tomlkit.parse``, :func:`toml_plain`), or :class:`ConfigError`
    naming ``path`` (``path: invalid TOML: <why><hint>``) for text it rejects."""
    try:
        return parse(text)
    except Exception as exc:
        if not isinstance(exc, tomllib.TOMLDecodeError) and not _is_tomlkit_error(exc):
            raise
        raise ConfigError(f"{path}: invalid TOML: {exc}{hint}") from None


@contextlib.contextmanager
def refused_as(refusal: ConfigError) -> Iterator[None]:
    """Make a tomlkit edit; what tomlkit raises for a layout it cannot edit is ``refusal``.

    tomlkit's own errors and the built-in ones its edits let through
    (``ValueError``, ``LookupError``, ``TypeError``, ``AttributeError``)
    become the refusal, so the file is refused, never half-edited; any
    other error (a :class:`ConfigError` the edit raised itself) passes.
    """
    try:
        yield
    except Exception as exc:
        if not isinstance(exc, _LAYOUT_ERRORS) and not _is_tomlkit_error(exc):
            raise
        raise refusal from None


def means(text: str, intended: Any, normal: Callable[[Any], Any] | None = None) -> bool:
    """Whether ``text`` is TOML meaning exactly ``intended`` (plain data, as :func:`toml_plain`).

    ``normal``, when given, is applied to both sides first (say, to drop
    the empty tables a format writes as nothing at all).
    """
    try:
        got: Any = toml_plain(text)
    except tomllib.TOMLDecodeError:
        return False
    if normal is not None:
        got, intended = normal(got), normal(intended)
    return bool(got == intended)


def moving_else_keeping(edit: Callable[[bool], T]) -> T:
    """``edit(True)``, moving the user's lines out of our tables; when that is refused
    (:class:`ConfigError`), ``edit(False)``, keeping them where they are.

    Moving a line is an edit of a second table, which tomlkit may not make
    rightly as the file is written; keeping it in place is the smaller
    edit, refused in turn only when the file cannot be edited at all.
    """
    try:
        return edit(True)
    except ConfigError:
        return edit(False)


def without_blank_end(text: str) -> str:
    """``text`` ending in one newline where it ended in a blank line.

    Our tables are appended set apart by a blank line; once they go,
    tomlkit leaves that line at the end of the file, where the user's
    text never had it.
    """
    return text.rstrip("\n") + "\n" if text.endswith("\n\n") else text
