"""One checked TOML edit: refused naming the file, read back, moved else kept."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest

from signet_sdk.installing.toml_edits import (
    ConfigError,
    means,
    moving_else_keeping,
    parsed,
    refused_as,
    toml_plain,
    without_blank_end,
)


class TOMLKitError(Exception):
    """Named as tomlkit names the base of its errors (the SDK tells them by name)."""


class KeyAlreadyPresent(TOMLKitError):
    """One of tomlkit's errors that is none of the built-in ones."""


def test_plain_data_keeps_floats_as_written_so_two_reads_compare_equal() -> None:
    text = 'a = nan\nb = 1.50\n[t]\nc = "x"\n'
    assert toml_plain(text) == {"a": "nan", "b": "1.50", "t": {"c": "x"}}
    assert toml_plain(text) == toml_plain(text)  # nan too
    with pytest.raises(tomllib.TOMLDecodeError):
        toml_plain("a = ")


def test_text_that_does_not_parse_is_refused_naming_the_file(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    assert parsed(path, "a = 1\n", toml_plain) == {"a": 1}
    with pytest.raises(ConfigError, match=r"config\.toml: invalid TOML: .+; fix it$") as caught:
        parsed(path, "a = ", toml_plain, "; fix it")
    assert str(caught.value).startswith(f"{path}: invalid TOML: ")
    assert caught.value.__cause__ is None and caught.value.__suppress_context__


def test_a_tomlkit_parser_is_refused_by_its_error_name_and_any_other_error_passes(
    tmp_path: Path,
) -> None:
    path = tmp_path / "config.toml"

    def rejects(text: str) -> Any:
        raise KeyAlreadyPresent(f"key 'a' twice in {len(text)} characters")

    with pytest.raises(ConfigError) as caught:
        parsed(path, "a = 1\na = 2\n", rejects)
    assert str(caught.value) == f"{path}: invalid TOML: key 'a' twice in 12 characters"

    def breaks(text: str) -> Any:
        raise RuntimeError(text)

    with pytest.raises(RuntimeError):
        parsed(path, "a = 1\n", breaks)


def test_the_real_tomlkit_parser_is_refused_alike(tmp_path: Path) -> None:
    tomlkit = pytest.importorskip("tomlkit")
    path = tmp_path / "config.toml"
    assert parsed(path, "a = 1\n", tomlkit.parse).unwrap() == {"a": 1}
    with pytest.raises(ConfigError, match=r"^.+config\.toml: invalid TOML: "):
        parsed(path, 'a = "\n', tomlkit.parse)


@pytest.mark.parametrize(
    "error",
    [
        KeyAlreadyPresent("tomlkit's own"),
        ValueError("a value"),
        KeyError("a key"),
        IndexError("a piece"),
        TypeError("a type"),
        AttributeError("an attribute"),
    ],
    ids=lambda error: type(error).__name__,
)
def test_an_edit_tomlkit_cannot_make_is_the_refusal(error: Exception) -> None:
    refusal = ConfigError("config.toml: cannot edit it safely")
    with pytest.raises(ConfigError) as caught, refused_as(refusal):
        raise error
    assert caught.value is refusal
    assert caught.value.__suppress_context__


def test_any_other_error_of_an_edit_passes_as_it_is() -> None:
    own = ConfigError("config.toml: 'hooks' must be a table")
    with pytest.raises(ConfigError) as caught, refused_as(ConfigError("unsafe")):
        raise own
    assert caught.value is own
    with pytest.raises(OSError), refused_as(ConfigError("unsafe")):
        raise OSError("disk")
    with refused_as(ConfigError("unsafe")):
        done = True
    assert done


def test_text_means_the_intended_data_exactly_or_not_at_all() -> None:
    assert means('a = 1.0\n[t]\nb = "x"\n', {"a": "1.0", "t": {"b": "x"}})
    assert not means("a = 1.00\n", {"a": "1.0"})  # floats compare as written
    assert not means("a = 1\nb = 2\n", {"a": 1})
    assert not means("[t\n", {})  # not TOML: means nothing


def test_text_means_the_intended_data_once_both_are_made_normal() -> None:
    def without_empty(data: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in data.items() if v != {}}

    assert means("a = 1\n", {"a": 1, "t": {}}, without_empty)
    assert not means("a = 1\n", {"a": 1, "t": {}})
    assert means("a = 1\n[t]\n", {"a": 1}, without_empty)


def test_an_edit_moves_the_users_lines_and_keeps_them_when_that_is_refused() -> None:
    tried: list[bool] = []

    def edit(move: bool) -> str:
        tried.append(move)
        if move:
            raise ConfigError("config.toml: cannot edit it safely")
        return "kept"

    assert moving_else_keeping(edit) == "kept"
    assert tried == [True, False]

    def stands(move: bool) -> str:
        tried.append(move)
        return "moved"

    tried.clear()
    assert moving_else_keeping(stands) == "moved"
    assert tried == [True]  # moving stood: tried once


def test_an_edit_refused_either_way_is_refused_and_other_errors_are_not_retried() -> None:
    def refused(move: bool) -> str:
        raise ConfigError(f"refused, move={move}")

    with pytest.raises(ConfigError, match="move=False"):
        moving_else_keeping(refused)
    tried: list[bool] = []

    def breaks(move: bool) -> str:
        tried.append(move)
        raise OSError("disk")

    with pytest.raises(OSError):
        moving_else_keeping(breaks)
    assert tried == [True]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a = 1\n\n", "a = 1\n"),
        ("a = 1\n\n\n", "a = 1\n"),
        ("a = 1\n", "a = 1\n"),
        ("a = 1", "a = 1"),
        ("", ""),
        ("\n\n", "\n"),
    ],
)
def test_a_blank_line_at_the_end_goes(text: str, expected: str) -> None:
    assert without_blank_end(text) == expected
