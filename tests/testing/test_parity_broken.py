"""Parity over broken adapter packages: each is a FAIL in its own column, never a crash."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from signet_sdk.plugin import (
    LIFECYCLE,
    EventTranslator,
    HarnessPlugin,
    LifecycleCall,
    NativeOutput,
    on,
    string,
)
from signet_sdk.testing import parity
from signet_sdk.testing.vectors import vector_problems
from signet_sdk.wire.config import resolve_config
from signet_sdk.wire.lean import LeanClient

NEUTRAL = {"data": None, "stdout": "", "exit_code": 0}


class Good(EventTranslator):
    harness = "good"
    context_events = frozenset({"start"})

    def scope(self, payload: Mapping[str, Any]) -> str:
        return str(string(payload, "sid", required=True))

    @on("start")
    def _start(self, payload: Mapping[str, Any], session: str) -> list[LifecycleCall]:
        return [LifecycleCall("session_start", {"sessionKey": session})]


class Broken(Good):
    harness = "broken"

    @on("squash")
    def _squash(self, payload: Mapping[str, Any], session: str) -> list[LifecycleCall]:
        return [LifecycleCall("precompact", {"sessionKey": session})]  # no such action

    def context_output(self, event: str, text: str) -> NativeOutput:
        return {"context": text}  # type: ignore[return-value]  # a plain dict


def start_vector(harness: str) -> dict[str, Any]:
    """A ``start`` event whose context answer the translator shows the model."""
    body = {"sessionKey": "s-1", "harness": harness, "runtimePath": "legacy"}
    return {
        "event": "start",
        "payload": {"sid": "s-1"},
        "calls": [
            {
                "action": "session_start",
                "method": "POST",
                "path": "/api/hooks/session-start",
                "body": body,
            }
        ],
        "answers": [{"status": 200, "body": {"inject": "hello"}}],
        "output": {"data": {"context": "hello"}, "stdout": '{"context":"hello"}', "exit_code": 0},
    }


def package(root: Path, name: str, files: dict[str, str]) -> str:
    """A harness package on ``sys.path``: a ``_translate.py`` without ``translator_for``
    and these ``vectors/`` files. Returns its name."""
    (root / name / "vectors").mkdir(parents=True)
    (root / name / "__init__.py").write_text("")
    (root / name / "_translate.py").write_text("")
    (root / name / "vectors" / "__init__.py").write_text("")
    for file, text in files.items():
        (root / name / "vectors" / file).write_text(text)
    return name


@pytest.fixture
def installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, HarnessPlugin]:
    monkeypatch.syspath_prepend(str(tmp_path))
    tag = tmp_path.name.replace("-", "_")
    ok = json.dumps(start_vector("good"))
    good = package(tmp_path, f"good_{tag}", {"start.json": ok})
    broken = package(
        tmp_path,
        f"broken_{tag}",
        {
            "a-not-json.json": "{calls: []",
            "b-no-event.json": json.dumps({"payload": {"sid": "s-1"}}),
            "c-plain-dict.json": json.dumps(start_vector("broken")),
            "d-unknown-action.json": json.dumps(
                {"event": "squash", "payload": {"sid": "s-1"}, "output": NEUTRAL}
            ),
        },
    )
    untranslatable = package(tmp_path, f"untranslatable_{tag}", {"start.json": ok})
    __import__(untranslatable)  # as its entry point would: the convention reads the module
    found = {
        "good": HarnessPlugin(
            "good",
            translator=Good(),
            events=Good.events,
            runtime_path="legacy",
            vectors=f"{good}.vectors",
        ),
        "broken": HarnessPlugin(
            "broken",
            translator=Broken(),
            events=Broken.events,
            runtime_path="legacy",
            vectors=f"{broken}.vectors",
        ),
        "untranslatable": HarnessPlugin(
            "untranslatable", package=untranslatable, events=["start"], runtime_path="legacy"
        ),
    }
    monkeypatch.setattr(parity, "plugins", lambda: found)
    return found


def test_each_broken_package_is_a_fail_in_its_own_column(
    installed: dict[str, HarnessPlugin],
) -> None:
    report = parity.run_parity(None, list(installed))
    by_name = {h.harness: h for h in report.harnesses}
    assert list(by_name) == ["good", "broken", "untranslatable"]
    assert [(v.name, v.problems) for v in by_name["good"].vectors] == [("start", [])]
    known = ", ".join(LIFECYCLE)
    assert [(v.name, v.event, v.problems) for v in by_name["broken"].vectors] == [
        (
            "a-not-json",
            "?",
            [
                "a-not-json.json: not a JSON vector: Expecting property name"
                " enclosed in double quotes: line 1 column 2 (char 1)"
            ],
        ),
        (
            "b-no-event",
            "?",
            ["the vector has no 'event' (the native event name to run)"],
        ),
        (
            "c-plain-dict",
            "start",
            ["render returned a dict, not a NativeOutput (context_output must return one too)"],
        ),
        (
            "d-unknown-action",
            "squash",
            [
                "handler raised PayloadError: action: unknown lifecycle action 'precompact';"
                f" known: {known}"
            ],
        ),
    ]
    untranslatable = by_name["untranslatable"]
    untranslatable_module = f"{installed['untranslatable'].vectors}".replace(
        ".vectors", "._translate"
    )
    assert (untranslatable.vectors, untranslatable.problems) == (
        [],
        [
            "its translator cannot be made: AttributeError: module"
            f" '{untranslatable_module}'"
            " has no attribute 'translator_for'"
        ],
    )
    assert not report.ok and not untranslatable.ok
    blocks = {b.split(":")[0]: b.splitlines() for b in parity.format_table(report).split("\n\n")}
    assert [line for line in blocks["broken"] if "FAIL" in line or line.startswith(" " * 6)] == [
        "  FAIL a-not-json: a-not-json.json: not a JSON vector: Expecting property name enclosed"
        " in double",
        "      quotes: line 1 column 2 (char 1)",
        "  FAIL b-no-event: the vector has no 'event' (the native event name to run)",
        "  FAIL c-plain-dict: render returned a dict, not a NativeOutput"
        " (context_output must return one too)",
        "  FAIL d-unknown-action: handler raised PayloadError: action: unknown lifecycle action"
        " 'precompact';",
        "      known: session_start, user_prompt_submit, session_end, session_checkpoint_extract,",
        "      pre_compaction, compaction_complete, remember, recall",
    ]
    assert blocks["untranslatable"] == [
        "untranslatable: 0/0 vectors pass; native events:",
        *parity._fill(f"  FAIL {untranslatable.problems[0]}", "      "),
        "  start       MISSING  (no passing vector for this native event)",
    ]
    as_json = parity.ParityReport("x", [untranslatable]).as_dict()["harnesses"]
    assert as_json["untranslatable"]["problems"] == untranslatable.problems


@pytest.mark.parametrize(
    "vector",
    [
        {"payload": {"sid": "s-1"}},
        {"event": "start", "calls": {"action": "session_start"}},
        {"event": "start", "answers": [200]},
        {"event": "start", "output": [], "error": "sid"},
    ],
)
def test_a_vector_of_the_wrong_shape_is_one_check_with_one_message(
    tmp_path: Path, vector: dict[str, Any]
) -> None:
    """Parity checked the shape before ``vector_problems`` checked it again, and said it
    otherwise (the file's name in front): now it says what ``check_vector`` says."""
    file = tmp_path / "bad.json"
    file.write_text(json.dumps(vector))
    plugin = HarnessPlugin("good", translator=Good(), events=Good.events, runtime_path="legacy")
    client = LeanClient(resolve_config("http://127.0.0.1:9", max_retries=0, env={}))
    result = parity._check_file(plugin, str(file), client, None)
    problems, calls, run = vector_problems(plugin, {**vector, "name": "bad"})
    assert (calls, run) == ([], None)
    assert result.problems == problems != []


def test_a_not_applicable_key_that_names_nothing_is_a_fail(
    installed: dict[str, HarnessPlugin],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A typo in ``not_applicable`` ("helth") was ignored: the row it meant stayed MISSING
    with no word of why, or (a row covered anyway) the typo was never seen."""
    from signet_sdk.cli import main as cli_main

    good = installed["good"]
    good.not_applicable = {"health": "real row", "start": "real event", "helth": "typo", "stat": ""}
    report = parity.run_parity(None, ["good"])
    column = report.harnesses[0]
    assert column.problems == [
        f"plugin 'good': not_applicable names {key!r}, which is neither a dependency-map row "
        "nor one of its native events"
        for key in ("helth", "stat")
    ]
    assert column.rows["health"] == (parity.NOT_APPLICABLE, "real row")
    assert not column.ok and not report.ok
    table = parity.format_table(report)
    assert "  FAIL plugin 'good': not_applicable names 'helth', which is neither a" in table
    monkeypatch.setattr(parity, "plugins", lambda: {"generic": good})
    assert cli_main(["parity", "generic"]) == 1
    out, err = capsys.readouterr()
    assert "  FAIL plugin 'good': not_applicable names 'stat', which is neither a" in out
    assert "Traceback" not in out + err
