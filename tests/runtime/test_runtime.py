"""The runtime layer: plugins, dispatch and run_event on the typed client, failing open."""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

import signet_sdk as s
import signet_sdk.plugin as plugin_api
from signet_sdk.testing.mock_daemon import MockDaemon


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[MockDaemon, str]]:
    mock = MockDaemon(version="0.110")  # serves the session transcript route checked below
    with mock.serve() as handle:
        yield mock, handle.url


def test_generic_event_returns_the_inject_text(served: tuple[MockDaemon, str]) -> None:
    mock, url = served
    with s.create_adapter("my-cli", url) as adapter:
        adapter.remember(s.RememberParams(content="the build cache lives on disk three"))
        run = s.run_event(adapter, "session-start", {"sessionKey": "ha-1", "project": "/srv/x"})
    out = run.output
    assert run.degraded is None and out.exit_code == 0
    assert "the build cache lives on disk three" in out.text
    assert out.data["inject"] == out.text  # structured: the daemon's answer
    assert mock.requests_to("/api/hooks/session-start")[-1].json == {
        "sessionKey": "ha-1",
        "project": "/srv/x",
        "harness": "my-cli",
    }


def test_run_event_fails_open_when_the_daemon_is_down() -> None:
    with s.create_adapter("my-cli", "http://127.0.0.1:9", max_retries=0, timeout=1) as adapter:
        run = s.run_event(adapter, "session-start", {"sessionKey": "k"})
        assert run.output == plugin_api.NativeOutput() and isinstance(run.error, s.NotSentError)
        assert run.degraded is not None and run.degraded.startswith("NotSentError: ")
        with pytest.raises(s.NotSentError):
            s.run_event(adapter, "session-start", {"sessionKey": "k"}, fail_open=False)


def test_run_event_fails_open_on_a_bad_payload(served: tuple[MockDaemon, str]) -> None:
    _, url = served
    with s.create_adapter("my-cli", url) as adapter:
        run = s.run_event(adapter, "no-such-event", {})
        assert run.output == plugin_api.NativeOutput() and run.calls == []
        assert isinstance(run.error, s.PayloadError) and run.error.field == "event"
        with pytest.raises(s.PayloadError) as info:
            s.run_event(adapter, "user-prompt-submit", {"userMessage": 5}, fail_open=False)
    assert info.value.field == "userMessage"


def test_claude_code_library_path_stages_the_transcript(
    served: tuple[MockDaemon, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mock, url = served
    monkeypatch.setenv("SIGNET_TRANSCRIPT_ROOTS", str(tmp_path))
    transcript = tmp_path / "session.jsonl"
    lines = [
        '{"type":"user","message":{"role":"user","content":"Ship the billing fix today?"}}',
        '{"type":"assistant","message":{"role":"assistant","content":"Yes, after review."}}',
    ]
    transcript.write_text("\n".join(lines * 10) + "\n")
    adapter = s.create_adapter("claude-code", url)
    payload: dict[str, object] = {
        "session_id": "ha-cc-1",
        "cwd": "/srv/billing",
        "hook_event_name": "SessionEnd",
        "reason": "other",
        "transcript_path": str(transcript),
    }
    run = s.run_event(adapter, "SessionEnd", payload)
    adapter.close()
    assert run.output == plugin_api.NativeOutput() and run.results[0]["queued"] is True
    sent = mock.requests_to("/api/hooks/session-end")[-1].json
    assert sent is not None
    staged = sent["transcriptPath"]
    assert staged.startswith("/tmp/signet/") and not os.path.exists(staged)
    assert sent["cwd"] == "/srv/billing" and sent["runtimePath"] == "legacy"
    stored = s.AdapterClient("claude-code", url).get_session_transcript("ha-cc-1")
    assert "Ship the billing fix today?" in stored.content


def test_claude_code_library_path_refuses_transcripts_outside_its_roots(
    served: tuple[MockDaemon, str], tmp_path: Path
) -> None:
    mock, url = served
    outside = tmp_path / "elsewhere.jsonl"
    outside.write_text('{"type":"user"}\n')
    with s.create_adapter("claude-code", url) as adapter:
        payload = {"session_id": "ha-cc-2", "reason": "other", "transcript_path": str(outside)}
        s.run_event(adapter, "SessionEnd", payload)
    sent = mock.requests_to("/api/hooks/session-end")[-1].json
    assert sent is not None and "transcriptPath" not in sent and "transcript" not in sent


class _Recorder:
    """A translator that records what it was asked and answers with fixed data."""

    def __init__(self, calls: list[plugin_api.LifecycleCall]) -> None:
        self.calls = calls

    def translate(self, event: str, payload: Mapping[str, Any]) -> list[plugin_api.LifecycleCall]:
        return self.calls

    def render(
        self, event: str, payload: Mapping[str, Any], results: Sequence[Any]
    ) -> plugin_api.NativeOutput:
        return plugin_api.NativeOutput({"results": list(results)})

    def neutral(self, event: str) -> plugin_api.NativeOutput:
        return plugin_api.NativeOutput({"neutral": event}, stdout="")


def test_dispatch_attempts_every_call_then_fails_open_with_the_first_error() -> None:
    calls = [
        plugin_api.LifecycleCall("session_start", {"sessionKey": "a"}),
        plugin_api.LifecycleCall("session_end", {"sessionKey": "a"}),
        plugin_api.LifecycleCall("recall", {"query": "x"}),
    ]
    sent: list[str] = []
    first = s.NotSentError("down", method="POST", url="x")

    def send(call: plugin_api.LifecycleCall) -> Any:
        sent.append(call.action)
        if call.action == "session_start":
            raise first
        if call.action == "recall":
            raise s.APITimeoutError("slow", method="POST", url="x")
        return {"ok": True}

    run = plugin_api.dispatch(_Recorder(calls), "ev", {}, send)
    assert sent == ["session_start", "session_end", "recall"]  # the write was still sent
    assert run.results == [None, {"ok": True}, None]
    assert run.error is first and run.output == plugin_api.NativeOutput(
        {"neutral": "ev"}, stdout=""
    )
    with pytest.raises(s.NotSentError):
        plugin_api.dispatch(_Recorder(calls), "ev", {}, send, fail_open=False)


def test_run_event_uses_the_given_plugin_and_renders_wire_dicts(
    served: tuple[MockDaemon, str],
) -> None:
    mock, url = served
    calls = [
        plugin_api.LifecycleCall("session_start", {"sessionKey": "fake-1"}),
        plugin_api.LifecycleCall("recall", {"query": "anything"}),
    ]
    fake = plugin_api.HarnessPlugin("fake", translator=_Recorder(calls), events=["ev"])
    with s.create_adapter("my-cli", url) as adapter:
        run = s.run_event(adapter, "ev", {}, plugin=fake)
    assert run.error is None and run.calls == calls
    assert all(isinstance(r, dict) for r in run.results)  # wire dicts, not models
    assert run.output == plugin_api.NativeOutput({"results": run.results})
    assert mock.requests_to("/api/hooks/session-start")[-1].json == {
        "sessionKey": "fake-1",
        "harness": "my-cli",
    }


def test_run_event_with_a_fake_plugin_fails_open_after_every_call() -> None:
    calls = [
        plugin_api.LifecycleCall("session_start", {"sessionKey": "a"}),
        plugin_api.LifecycleCall("recall", {"query": "x"}),
    ]
    fake = plugin_api.HarnessPlugin("fake", translator=_Recorder(calls), events=["ev"])
    with s.create_adapter("my-cli", "http://127.0.0.1:9", max_retries=0, timeout=1) as adapter:
        run = s.run_event(adapter, "ev", {}, plugin=fake)
        assert run.output == plugin_api.NativeOutput({"neutral": "ev"}, stdout="")
        assert run.results == [None, None] and isinstance(run.error, s.NotSentError)
        with pytest.raises(s.NotSentError):
            s.run_event(adapter, "ev", {}, plugin=fake, fail_open=False)


@pytest.mark.anyio
async def test_run_event_async_fails_open_and_answers(served: tuple[MockDaemon, str]) -> None:
    _, url = served
    down = s.create_async_adapter("my-cli", "http://127.0.0.1:9", max_retries=0, timeout=1)
    async with down:
        run = await s.run_event_async(down, "session-start", {"sessionKey": "k"})
    assert run.output == plugin_api.NativeOutput() and isinstance(run.error, s.NotSentError)
    async with s.create_async_adapter("my-cli", url) as adapter:
        await adapter.remember(s.RememberParams(content="async runs reach the daemon too"))
        run = await s.run_event_async(adapter, "session-start", {"sessionKey": "k-async"})
        assert run.error is None and "async runs reach the daemon too" in run.output.text
        bad = await s.run_event_async(adapter, "no-such-event", {})
        assert isinstance(bad.error, s.PayloadError) and bad.output == plugin_api.NativeOutput()


def test_dispatch_renders_every_answer() -> None:
    calls = [
        plugin_api.LifecycleCall("recall", {"query": "x"}),
        plugin_api.LifecycleCall("recall", {"query": "y"}),
    ]
    run = plugin_api.dispatch(_Recorder(calls), "ev", {}, lambda call: call.body["query"])
    assert run.error is None and run.degraded is None
    assert run.output.data == {"results": ["x", "y"]}


@pytest.mark.anyio
async def test_dispatch_async_is_the_same_path() -> None:
    async def send(call: plugin_api.LifecycleCall) -> Any:
        if call.body["query"] == "bad":
            raise s.NotSentError("down", method="POST", url="x")
        return call.body["query"]

    good = await plugin_api.dispatch_async(
        _Recorder([plugin_api.LifecycleCall("recall", {"query": "x"})]), "e", {}, send
    )
    assert good.output.data == {"results": ["x"]}
    bad = await plugin_api.dispatch_async(
        _Recorder([plugin_api.LifecycleCall("recall", {"query": "bad"})]), "e", {}, send
    )
    assert bad.output.data == {"neutral": "e"} and isinstance(bad.error, s.NotSentError)


def test_native_output_text_rules() -> None:
    assert plugin_api.NativeOutput().text == ""
    assert plugin_api.NativeOutput({"a": "é"}).text == '{"a":"é"}'
    assert plugin_api.NativeOutput({"a": 1}, stdout="plain").text == "plain"
    assert plugin_api.NativeOutput({"a": 1}, stdout="").text == ""
    assert plugin_api.NativeOutput({"a": 1}, exit_code=2).to_wire() == {
        "data": {"a": 1},
        "stdout": '{"a":1}',
        "exitCode": 2,
    }


def test_plugin_spec_validation() -> None:
    with pytest.raises(ValueError, match="timeout_class"):
        plugin_api.EventSpec("x", "eventually")
    with pytest.raises(ValueError, match="runtime_path"):
        plugin_api.HarnessPlugin("x", translator=_Recorder([]), events=[], runtime_path="sideways")
    plugin = plugin_api.HarnessPlugin(
        "x", translator=_Recorder([]), events=["a", plugin_api.EventSpec("b", detach=True)]
    )
    assert plugin.events["a"] == plugin_api.EventSpec("a") and plugin.events["b"].detach
    assert plugin.vector_files() == [] and plugin.transcript_roots() is None
    assert plugin.load_installer() is None and plugin.story_event("start", None) is None


def test_generic_plugin_and_registry() -> None:
    from signet_sdk.runtime.generic import generic_plugin

    plugin = generic_plugin("anything")
    assert plugin.name == "anything" and "session-start" in plugin.events
    assert plugin.events["user-prompt-submit"].timeout_class == "prompt_submit"
    assert len(plugin.vector_files()) >= 10
    assert plugin_api.find_plugin("no-such-harness") is None
    claude = plugin_api.find_plugin("claude-code")
    assert claude is not None and claude.distribution == "signetai-adapter-claude-code"
    assert "claude-code" in plugin_api.installed_adapters()
    assert [p.name for p in plugin_api.installed_plugins()] == plugin_api.installed_adapters()


class _Buggy(_Recorder):
    """A translator whose own code fails: on translate, or on an answer it did not expect."""

    def __init__(self, where: str) -> None:
        super().__init__([plugin_api.LifecycleCall("recall", {"query": "x"})])
        self.where = where

    def translate(self, event: str, payload: Mapping[str, Any]) -> list[plugin_api.LifecycleCall]:
        if self.where == "translate":
            raise KeyError("session_id")
        return super().translate(event, payload)

    def render(
        self, event: str, payload: Mapping[str, Any], results: Sequence[Any]
    ) -> plugin_api.NativeOutput:
        raise KeyError("inject")


@pytest.mark.parametrize("where", ["translate", "render"])
def test_a_translator_bug_fails_open_too(where: str) -> None:
    run = plugin_api.dispatch(_Buggy(where), "ev", {}, lambda call: {"unexpected": True})
    assert run.output == plugin_api.NativeOutput({"neutral": "ev"}, stdout="")
    assert isinstance(run.error, KeyError) and run.degraded is not None
    with pytest.raises(KeyError):
        plugin_api.dispatch(_Buggy(where), "ev", {}, lambda call: {}, fail_open=False)
