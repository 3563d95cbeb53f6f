"""``check_vector`` / ``vector_problems``: what the client would refuse, and a crashing handler."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from signet_sdk.plugin import EventTranslator, HarnessPlugin, LifecycleCall, on, string
from signet_sdk.testing import check_vector, load_vectors
from signet_sdk.testing.vectors import vector_problems

NEUTRAL = {"data": None, "stdout": "", "exit_code": 0}


class Acme(EventTranslator):
    """An imaginary harness whose handlers carry the bugs an author makes."""

    harness = "acme"
    event_field = "event"

    def scope(self, payload: Mapping[str, Any]) -> str:
        return str(string(payload, "sid", required=True))

    @on("squash")
    def _squash(self, payload: Mapping[str, Any], session: str) -> list[LifecycleCall]:
        return [LifecycleCall("pre_compaction", {"sesionKey": session})]  # misspelt

    @on("squashed")
    def _squashed(self, payload: Mapping[str, Any], session: str) -> list[LifecycleCall]:
        return [LifecycleCall("compaction_complete", {"sessionKey": session, "summary": 42})]

    @on("tick")
    def _tick(self, payload: Mapping[str, Any], session: str) -> list[LifecycleCall]:
        if payload["text"].startswith("!"):  # KeyError when the text is absent
            return [LifecycleCall("remember", {"content": payload["text"]})]
        return []


PLUGIN = HarnessPlugin("acme", translator=Acme(), events=Acme.events, runtime_path="legacy")


def one_call(event: str, action: str, path: str, body: dict[str, Any]) -> dict[str, Any]:
    """A vector written to match what the handler sends, so only the body check can fail."""
    wire = {**body, "harness": "acme", "runtimePath": "legacy"}
    return {
        "name": event,
        "event": event,
        "payload": {"event": event, "sid": "s-1"},
        "calls": [{"action": action, "method": "POST", "path": path, "body": wire}],
        "answers": [{"status": 200, "body": {}}],
        "output": NEUTRAL,
    }


@pytest.mark.parametrize(
    ("vector", "problem"),
    [
        (
            one_call("squash", "pre_compaction", "/api/hooks/pre-compaction", {"sesionKey": "s-1"}),
            "pre_compaction body does not fit PreCompactionParams, so the client refuses it:"
            " sesionKey: Extra inputs are not permitted",
        ),
        (
            one_call(
                "squashed",
                "compaction_complete",
                "/api/hooks/compaction-complete",
                {"sessionKey": "s-1", "summary": 42},
            ),
            "compaction_complete body does not fit CompactionCompleteParams, so the client"
            " refuses it: summary: Input should be a valid string",
        ),
    ],
    ids=["unknown field", "wrong type"],
)
def test_a_body_the_client_refuses_fails_the_vector(vector: dict[str, Any], problem: str) -> None:
    problems, calls, run = vector_problems(PLUGIN, vector)
    assert (problems, [c.action for c in calls], run) == (
        [problem],
        [vector["calls"][0]["action"]],
        None,
    )
    with pytest.raises(AssertionError) as caught:
        check_vector(PLUGIN, vector)
    assert str(caught.value) == f"vector {vector['name']!r} ({vector['event']}):\n{problem}"


QUIET_TICK = {"name": "tick", "event": "tick", "payload": {"event": "tick", "sid": "s-1"}}


def test_a_crashing_handler_fails_the_vector() -> None:
    vector = {**QUIET_TICK, "calls": [], "answers": [], "output": NEUTRAL}
    problems, calls, run = vector_problems(PLUGIN, vector)
    assert (problems, calls, run) == (["handler raised KeyError: 'text'"], [], None)
    with pytest.raises(AssertionError) as caught:
        check_vector(PLUGIN, vector)
    assert str(caught.value) == "vector 'tick' (tick):\nhandler raised KeyError: 'text'"


def test_an_expected_refusal_names_what_was_raised_instead() -> None:
    vector = {**QUIET_TICK, "error": {"field": "text"}}
    assert vector_problems(PLUGIN, vector)[0] == [
        "expected PayloadError on 'text', but the handler raised KeyError: 'text'"
    ]


def test_load_vectors_names_a_file_that_is_not_json(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = tmp_path / f"vectors_{tmp_path.name.replace('-', '_')}"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "tick.json").write_text('{"event": "tick",')
    monkeypatch.syspath_prepend(str(tmp_path))
    plugin = HarnessPlugin("acme", translator=Acme(), events=Acme.events, vectors=package.name)
    with pytest.raises(ValueError) as caught:
        load_vectors(plugin)
    assert str(caught.value) == (
        f"{package / 'tick.json'}: not a JSON vector: Expecting property name enclosed in"
        " double quotes: line 1 column 18 (char 17)"
    )
