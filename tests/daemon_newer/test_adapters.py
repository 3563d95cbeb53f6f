"""Answers of daemons newer than 0.145.8 through every installed adapter and the hook runner.

Every installed harness plugin's vectors that make one session-start or one
user-prompt-submit call are run again with the daemon's answer replaced by a
newer daemon's (:mod:`test_answers`, each shaped as upstream's
source writes it): through the translator with the answer as a dict, through
``run_event`` on a typed client (the answer parsed into its model and back),
and through ``signet-sdk hook <harness> <event>`` as a command-hook harness
runs it. The harness must see exactly what it sees for a 0.145.8-style answer
carrying the same context: the split fields, the hash, the clock and the
envelope change nothing it shows.

Then the load-shedding 503 on the hook path: a prompt submission fails open
at once (one request, neutral output), and a remember waits in the outbox,
unspent, until the daemon takes it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import respx

from signet_sdk import AdapterClient, run_event
from signet_sdk.hooks.delivery import Delivery
from signet_sdk.hooks.outbox import Outbox
from signet_sdk.hooks.sender import flush
from signet_sdk.runtime.dispatch import Dispatched, dispatch
from signet_sdk.runtime.files import outbox_dir
from signet_sdk.runtime.plugin import HarnessPlugin
from signet_sdk.runtime.registry import installed_plugins
from signet_sdk.testing import ScriptedDaemon
from signet_sdk.testing.hook_process import hook_log_lines, run_hook
from signet_sdk.testing.scripted import Reply
from signet_sdk.testing.vectors import load_vectors
from signet_sdk.wire.config import resolve_config
from signet_sdk.wire.errors import ServiceUnavailableError
from signet_sdk.wire.lifecycle import LifecycleCall

from .test_answers import (
    ANSWERS,
    DYNAMIC,
    NOTIFICATION_INJECT,
    OVERLOADED_CAPTURE,
    PROMPT_CONTEXT_TEXT,
    STABLE,
    STUB_DYNAMIC,
)

BASE = "http://127.0.0.1:3996"

#: Newer answer -> the 0.145.8-style answer that carries the same context for a harness.
EQUIVALENT: dict[str, dict[str, Any]] = {
    "session_start": {"inject": f"{STABLE}\n\n{DYNAMIC}"},
    "user_prompt_submit": {"inject": PROMPT_CONTEXT_TEXT, "memoryCount": 1},
    "user_prompt_submit_low_signal": {"inject": "", "memoryCount": 0},
    "user_prompt_submit_notifications_only": {"inject": NOTIFICATION_INJECT, "memoryCount": 0},
}
#: The text of each newer answer a harness must put in front of its model.
SHOWN = {
    "session_start": STABLE,
    "user_prompt_submit": PROMPT_CONTEXT_TEXT,
    "user_prompt_submit_notifications_only": "## Cross-agent notifications",
}


def _cases() -> list[tuple[HarnessPlugin, dict[str, Any], str]]:
    """(plugin, vector, answer name) for each vector making one injecting call answered 200."""
    cases = []
    for plugin in installed_plugins():
        for vector in load_vectors(plugin):
            actions = [c["action"] for c in vector.get("calls") or []]
            answers = vector.get("answers") or []
            if "error" in vector or len(actions) != 1 or actions[0] not in SHOWN:
                continue
            if any(a.get("status", 200) != 200 for a in answers):
                continue
            for name in EQUIVALENT:
                if name.startswith(actions[0]):
                    cases.append((plugin, vector, name))
    return cases


CASES = _cases()


def _id(case: tuple[HarnessPlugin, dict[str, Any], str]) -> str:
    plugin, vector, name = case
    return f"{plugin.name}:{vector['name']}:{name}"


def _run(plugin: HarnessPlugin, vector: dict[str, Any], answer: Any) -> Dispatched:
    return dispatch(
        plugin.make_translator({}), str(vector["event"]), vector["payload"], lambda c: answer
    )


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def test_every_installed_plugin_is_replayed() -> None:
    plugins = {p.name for p in installed_plugins()}
    assert len(plugins) >= 10
    assert {plugin.name for plugin, _, _ in CASES} == plugins
    # Not vacuous: each harness shows a newer daemon's context in at least one case.
    for name in plugins:
        shown = [
            case
            for case in CASES
            if case[0].name == name
            and case[2] in SHOWN
            and any(
                SHOWN[case[2]] in text
                for text in _strings(_run(*case[:2], ANSWERS[case[2]].body).output.to_wire())
            )
        ]
        assert shown, name


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_a_newer_answer_renders_as_its_0145_equivalent(
    case: tuple[HarnessPlugin, dict[str, Any], str],
) -> None:
    plugin, vector, name = case
    newer = _run(plugin, vector, ANSWERS[name].body)
    older = _run(plugin, vector, EQUIVALENT[name])
    assert newer.error is None, newer.degraded
    assert newer.output.to_wire() == older.output.to_wire()


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_the_typed_client_keeps_what_the_adapter_renders(
    case: tuple[HarnessPlugin, dict[str, Any], str],
) -> None:
    plugin, vector, name = case
    call = vector["calls"][0]
    with respx.mock(base_url=BASE, assert_all_called=True) as mock:
        mock.post(call["path"]).respond(200, json=ANSWERS[name].body)
        with AdapterClient(plugin.name, BASE, runtime_path=plugin.runtime_path) as client:  # type: ignore[arg-type]
            typed = run_event(client, str(vector["event"]), vector["payload"], plugin=plugin)
    assert typed.error is None, typed.degraded
    assert typed.output.to_wire() == _run(plugin, vector, ANSWERS[name].body).output.to_wire()


def test_notifications_beside_split_context_reach_the_model() -> None:
    """Newer daemons append unread cross-agent notifications to ``inject`` only
    (hooks-routes.ts@0f06b2b9, withCrossAgentNotifications): they follow the split fields."""
    plugin = next(p for p in installed_plugins() if p.name == "claude-code")
    vector = next(v for v in load_vectors(plugin) if v["name"] == "session-start-newer-daemon")
    run = _run(plugin, vector, ANSWERS["session_start_with_notifications"].body)
    assert any(NOTIFICATION_INJECT in t for t in _strings(run.output.to_wire()))
    assert any(STUB_DYNAMIC in t for t in _strings(run.output.to_wire()))


# -- the hook runner ----------------------------------------------------------


def _first(plugin: HarnessPlugin, name: str) -> dict[str, Any] | None:
    return next((v for p, v, n in CASES if p is plugin and n == name), None)


HOOK_CASES = [
    (plugin, vector, name)
    for plugin in installed_plugins()
    for name in ("session_start", "user_prompt_submit")
    if (vector := _first(plugin, name)) is not None
]


@pytest.fixture
def state(tmp_path: Path) -> dict[str, str]:
    """A private state directory, and no circuit breaker between runs."""
    return {"XDG_STATE_HOME": str(tmp_path / "state"), "SIGNET_BREAKER_FAILURES": "0"}


@pytest.mark.parametrize("case", HOOK_CASES, ids=_id)
def test_the_hook_command_prints_what_the_translator_renders(
    case: tuple[HarnessPlugin, dict[str, Any], str], state: dict[str, str]
) -> None:
    plugin, vector, name = case
    with ScriptedDaemon() as daemon:
        daemon.replies = [Reply(200, ANSWERS[name].body)]
        run = run_hook(
            plugin.name, str(vector["event"]), vector["payload"], daemon_url=daemon.url, env=state
        )
        received = daemon.wait_for(1)
    assert (run.returncode, run.stderr) == (0, b"")
    assert [r.path for r in received] == [vector["calls"][0]["path"]]
    assert run.stdout == _run(plugin, vector, ANSWERS[name].body).output.text.encode()


def test_an_overloaded_prompt_submission_fails_open_at_once(state: dict[str, str]) -> None:
    plugin = next(p for p in installed_plugins() if p.name == "claude-code")
    vector = _first(plugin, "user_prompt_submit")
    assert vector is not None
    shed = ANSWERS["user_prompt_submit_overloaded"]
    with ScriptedDaemon() as daemon:
        daemon.default = Reply(shed.status, shed.body)
        run = run_hook(
            plugin.name, str(vector["event"]), vector["payload"], daemon_url=daemon.url, env=state
        )
        received = list(daemon.requests)  # the hook has exited: all it sent has arrived
    assert (run.returncode, run.stdout, run.stderr) == (0, b"", b"")
    assert len(received) == 1
    logged = [line for line in hook_log_lines(state) if "failed open" in line]
    assert len(logged) == 1 and "Too many concurrent prompt submissions" in logged[0]


class _NoDetachedSender(Delivery):
    """The hook's delivery, with the detached sender counted instead of started."""

    spawned = 0

    def spawn_sender(self) -> None:
        self.spawned += 1


def test_an_overloaded_remember_waits_in_the_outbox_until_taken(state: dict[str, str]) -> None:
    env = dict(state)
    shed = ANSWERS["remember_overloaded"]
    body = {"content": "Atlas deploys go through `make ship`.", "sessionKey": "session-7"}
    with ScriptedDaemon() as daemon:
        config = resolve_config(daemon.url, harness="claude-code", runtime_path="legacy", env={})
        delivery = _NoDetachedSender(config, env, log=lambda line: None)
        daemon.default = Reply(shed.status, shed.body)
        answer = delivery.send(LifecycleCall("remember", body))
        assert answer is None and delivery.spawned == 1
        outbox = Outbox(outbox_dir(env))
        [entry_id] = outbox.pending()
        assert outbox.attempts(entry_id) == 0  # turned away, not a failed attempt
        assert len(daemon.requests) == 1  # not repeated within the call
        assert not (Path(outbox.root) / "dead").exists() or not list(
            (Path(outbox.root) / "dead").iterdir()
        )
        daemon.default = Reply(200, ANSWERS["remember"].body)
        counts = flush(seconds=5.0, env={**env, "SIGNET_DAEMON_URL": daemon.url})
        received = list(daemon.requests)
    assert counts == {"sent": 1} and outbox.pending() == []
    assert len(received) == 2
    first, second = (r.json for r in received)
    assert first["content"] == second["content"] == body["content"]
    assert first["idempotencyKey"] == second["idempotencyKey"] == entry_id


def test_an_overloaded_read_raises_after_one_request(state: dict[str, str]) -> None:
    shed = ANSWERS["user_prompt_submit_overloaded"]
    with ScriptedDaemon() as daemon:
        daemon.default = Reply(shed.status, shed.body)
        config = resolve_config(daemon.url, harness="claude-code", max_retries=5, env={})
        delivery = Delivery(config, state, log=lambda line: None)
        with pytest.raises(ServiceUnavailableError) as info:
            delivery.send(LifecycleCall("user_prompt_submit", {"userPrompt": "status?"}))
        assert len(daemon.requests) == 1
    assert info.value.overloaded and info.value.error.startswith("Too many concurrent")
    assert OVERLOADED_CAPTURE.startswith("Too many concurrent memory captures")


def test_the_replayed_bodies_are_json_the_daemon_could_send() -> None:
    for answer in ANSWERS.values():
        assert json.loads(json.dumps(answer.body)) == answer.body
