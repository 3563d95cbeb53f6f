"""The demo's story context: the transcript's turns and the harness's own file written from them."""

from __future__ import annotations

import json
from pathlib import Path

from signet_sdk.cli.demo import StoryContext


def test_turns_keep_user_and_assistant_lines_only(tmp_path: Path) -> None:
    ctx = StoryContext("x", "s1", "/w", tmp_path, transcript="user: hi\nnote\nassistant: a: b\n")
    assert ctx.turns() == [("user", "hi"), ("assistant", "a: b")]


def test_write_jsonl_writes_one_record_a_line_under_the_workdir(tmp_path: Path) -> None:
    ctx = StoryContext("x", "s1", "/w", tmp_path)
    path = ctx.write_jsonl("h/projects", "s1.jsonl", [{"a": 1}, {"b": [2]}])
    assert path == str(tmp_path / "h" / "projects" / "s1.jsonl")
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    assert [json.loads(line) for line in lines] == [{"a": 1}, {"b": [2]}]
