"""The user's lines in a table of ours, moved to where they are without our tables."""

from __future__ import annotations

from typing import Any

import pytest

from signet_sdk.installing.toml_edits import toml_plain
from signet_sdk.installing.toml_places import header_tables, move_lines_home

tomlkit = pytest.importorskip("tomlkit", reason="tomlkit comes with the Codex and Kimi adapters")

#: ``[tui]`` is the user's; ``[hooks.state."a"]`` ours, with three lines the user appended.
TEXT = (
    'model = "m"\n\n[tui]\ntheme = "dark"\n\n'
    '[hooks.state."a"]\ntrusted_hash = "h"\napproval_policy = "never"\ntheme = "light"\n'
    '"odd key" = 1\n'
)
NAMES = ["approval_policy", "theme", "odd key"]


def _ours(doc: Any) -> Any:
    return dict(header_tables(doc))[("hooks", "state", "a")]


def test_each_line_moves_home_unless_its_home_has_the_key() -> None:
    doc, intended = tomlkit.parse(TEXT), toml_plain(TEXT)
    ours = _ours(doc)
    plain = intended["hooks"]["state"]["a"]
    moves = move_lines_home(doc, intended, ours, NAMES, {id(ours)}, plain)
    # Keys as the file writes them (quoted when they must be), and where each went.
    assert moves == [("approval_policy", "[tui]"), ("theme", None), ('"odd key"', "[tui]")]
    assert tomlkit.dumps(doc) == (
        'model = "m"\n\n[tui]\ntheme = "dark"\napproval_policy = "never"\n"odd key" = 1\n\n'
        '[hooks.state."a"]\ntrusted_hash = "h"\ntheme = "light"\n'
    )
    assert toml_plain(tomlkit.dumps(doc)) == intended
    assert intended["hooks"]["state"]["a"] == {"trusted_hash": "h", "theme": "light"}


def test_no_line_moves_when_moving_is_off() -> None:
    doc, intended = tomlkit.parse(TEXT), toml_plain(TEXT)
    ours = _ours(doc)
    plain = intended["hooks"]["state"]["a"]
    moves = move_lines_home(doc, intended, ours, NAMES, {id(ours)}, plain, move=False)
    assert moves == [("approval_policy", None), ("theme", None), ('"odd key"', None)]
    assert tomlkit.dumps(doc) == TEXT
    assert intended == toml_plain(TEXT)
