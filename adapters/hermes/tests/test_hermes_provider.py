"""The provider as Hermes calls it: fail-open within deadlines, keyed prefetch, tools, loading."""

from __future__ import annotations

import json
import os
import threading
import time
from typing import Any

from signet_adapter_hermes.provider import SignetMemoryProvider, register
from signet_e2e import down_daemon_url

from signet_sdk.testing import Reply, ScriptedDaemon, outbox_entries
from signet_sdk.testing.mock_daemon import MockDaemon

MESSAGES = [
    {"role": "user", "content": "How do I deploy atlas?"},
    {"role": "assistant", "content": "make ship"},
]


def _timed(fn: Any, *args: Any, **kwargs: Any) -> tuple[Any, float]:
    start = time.monotonic()
    value = fn(*args, **kwargs)
    return value, time.monotonic() - start


def test_a_down_daemon_costs_nothing_and_loses_no_write() -> None:
    env = dict(os.environ, SIGNET_DAEMON_URL=down_daemon_url())
    provider = SignetMemoryProvider(env)

    provider.initialize("s-down", platform="cli", hermes_home="/tmp/h", agent_context="primary")
    assert provider.system_prompt_block().startswith("Signet memory is active")
    # the breaker is open after the refused session-start: the prompt costs nothing
    context, took = _timed(provider.prefetch, "How do I deploy atlas?")
    assert context == ""
    assert took < 1.0
    provider.sync_turn("How do I deploy atlas?", "make ship", messages=MESSAGES)
    assert provider.on_pre_compress(MESSAGES) == ""
    provider.on_memory_write("add", "user", "Prefers make targets.")
    provider.on_delegation("find creds", "vault", child_session_id="c1")
    # Hermes extracts what it compresses, through on_session_end: the session goes on.
    provider.on_session_end(MESSAGES)
    provider.on_session_end(MESSAGES)  # and now it ends
    assert provider.flush(10.0)

    queued = outbox_entries(env)
    assert [e["action"] for e in sorted(queued, key=lambda e: e["id"])] == [
        "session_checkpoint_extract",  # the turn
        "remember",
        "remember",
        "session_checkpoint_extract",  # the extraction before compressing
        "session_end",
    ]
    tool = json.loads(provider.handle_tool_call("memory_search", {"query": "atlas"}))
    assert "unreachable" in tool["error"]


def test_a_slow_daemon_costs_each_read_at_most_its_deadline(
    scripted_daemon: ScriptedDaemon,
) -> None:
    env = dict(
        os.environ,
        SIGNET_DAEMON_URL=scripted_daemon.url,
        SIGNET_SESSION_START_TIMEOUT="500",
        SIGNET_PROMPT_SUBMIT_TIMEOUT="500",
        SIGNET_FETCH_TIMEOUT="500",
    )
    provider = SignetMemoryProvider(env)
    scripted_daemon.script([Reply(body={"inject": "late"}, delay=3.0) for _ in range(3)])

    _, took = _timed(provider.initialize, "s-slow", platform="cli", hermes_home="/tmp/h")
    assert took < 2.5
    context, took = _timed(provider.prefetch, "anything about atlas?")
    assert (context, took < 2.5) == ("", True)
    guidance, took = _timed(provider.on_pre_compress, MESSAGES)
    assert (guidance, took < 2.5) == ("", True)
    assert provider.system_prompt_block().startswith("Signet memory is active")


def test_prefetch_answers_only_the_query_it_was_made_for(scripted_daemon: ScriptedDaemon) -> None:
    env = dict(
        os.environ, SIGNET_DAEMON_URL=scripted_daemon.url, SIGNET_PROMPT_SUBMIT_TIMEOUT="1500"
    )
    provider = SignetMemoryProvider(env)
    provider._session = {"id": "s-keyed", "project": "/p"}
    scripted_daemon.script(
        [
            Reply(body={"inject": "recall for the FIRST question"}, delay=4.0),
            Reply(body={"inject": "recall for the second question"}),
            Reply(body={"inject": "recall for the third question"}),
        ]
    )

    assert provider.prefetch("first question") == ""  # late: Hermes is not kept waiting
    assert provider.prefetch("second question") == "recall for the second question"
    _wait_for_threads("signet-prefetch")  # the first answer has arrived by now
    assert provider.prefetch("third question") == "recall for the third question"
    sent = [r.json["userMessage"] for r in scripted_daemon.requests]
    assert sent == ["first question", "second question", "third question"]


def _wait_for_threads(name: str, seconds: float = 15.0) -> None:
    end = time.monotonic() + seconds
    while any(t.name == name and t.is_alive() for t in threading.enumerate()):
        assert time.monotonic() < end, f"{name} threads still running"
        time.sleep(0.02)


def test_the_tools_reach_the_daemon() -> None:
    mock = MockDaemon()
    with mock.serve() as handle:
        env = dict(os.environ, SIGNET_DAEMON_URL=handle.url, SIGNET_AGENT_ID="atlas-agent")
        provider = SignetMemoryProvider(env)
        provider._session = {"id": "s-tools", "project": "/home/dev/atlas"}
        names = [t["name"] for t in provider.get_tool_schemas()]
        assert names[:5] == [
            "memory_search",
            "memory_store",
            "memory_get",
            "memory_modify",
            "memory_forget",
        ]
        assert "secrets_exec" not in names
        schema = provider.get_tool_schemas()[0]
        assert set(schema) == {"name", "description", "parameters"}

        stored = json.loads(
            provider.handle_tool_call("memory_store", {"content": "atlas ships with make ship"})
        )
        assert "result" in stored, stored
        found = json.loads(provider.handle_tool_call("memory_search", {"query": "make ship"}))
        assert "atlas ships with make ship" in json.dumps(found["result"])
        bad = json.loads(provider.handle_tool_call("memory_store", {}))
        assert bad["field"] == "content"
        unknown = json.loads(provider.handle_tool_call("no_such_tool", {}))
        assert "unknown tool 'no_such_tool'" in unknown["error"]
        remembered = mock.requests_to("/api/memory/remember")
        assert remembered[0].headers["x-signet-agent-id"] == "atlas-agent"
        provider.shutdown()


def test_bypass_turns_the_hooks_off(scripted_daemon: ScriptedDaemon) -> None:
    env = dict(os.environ, SIGNET_DAEMON_URL=scripted_daemon.url, SIGNET_BYPASS="1")
    provider = SignetMemoryProvider(env)
    provider.initialize("s-bypass", platform="cli", hermes_home="/tmp/h")
    assert provider.prefetch("q") == ""
    provider.on_session_end(MESSAGES)
    assert provider.flush(5.0)
    assert scripted_daemon.requests == []
    assert outbox_entries(env) == []


def test_register_builds_the_provider_on_hermes_base_class() -> None:
    from abc import ABC, abstractmethod

    class MemoryProvider(ABC):  # the shape of Hermes's ABC: abstract name and hooks
        @property
        @abstractmethod
        def name(self) -> str: ...

        @abstractmethod
        def is_available(self) -> bool: ...

        @abstractmethod
        def initialize(self, session_id: str, **kwargs: Any) -> None: ...

        @abstractmethod
        def get_tool_schemas(self) -> list[dict[str, Any]]: ...

    class Ctx:
        provider: Any = None

        def register_memory_provider(self, provider: Any) -> None:
            self.provider = provider

    ctx = Ctx()
    provider = register(ctx, MemoryProvider)
    assert ctx.provider is provider
    assert isinstance(provider, MemoryProvider)
    assert provider.name == "signet"
    assert provider.is_available() is True


def test_the_hooks_as_hermes_calls_them(scripted_daemon: ScriptedDaemon) -> None:
    """The payloads the provider builds from Hermes's own arguments, through to the daemon."""
    env = dict(os.environ, SIGNET_DAEMON_URL=scripted_daemon.url, SIGNET_PROJECT="/home/dev/atlas")
    provider = SignetMemoryProvider(env)
    scripted_daemon.script(
        [
            Reply(body={"inject": "atlas ships with make ship"}, path="/api/hooks/session-start"),
            Reply(body={"inject": "recalled: make ship"}, path="/api/hooks/user-prompt-submit"),
        ]
    )
    provider.initialize("s1", platform="cli", hermes_home="/h", agent_context="primary")
    block = provider.system_prompt_block()
    assert (
        block
        == '<signet-memory source="session-start">\natlas ships with make ship\n</signet-memory>'
    )
    assert provider.system_prompt_block().startswith("Signet memory is active")
    assert provider.prefetch("How do I deploy?") == "recalled: make ship"
    provider.sync_turn("How do I deploy?", "make ship", session_id="s1", messages=MESSAGES)
    provider.on_memory_write("add", "user", "Prefers make.", metadata={"write_origin": "tool"})
    provider.on_delegation("find creds", "in vault", child_session_id="c1")
    provider.on_session_end(MESSAGES)  # /new: the old session ends ...
    provider.on_session_switch("s2", parent_session_id="s1", reset=True, reason="new_session")
    provider.prefetch("and staging?")  # ... and the next prompt belongs to the new one
    assert provider.flush(10.0)

    got = [(r.path.rsplit("/", 1)[-1], r.json) for r in scripted_daemon.wait_for(8)]
    assert len(got) == 8
    bodies = {path: body for path, body in got}
    assert [p for p, _ in got if p in ("session-start", "user-prompt-submit")] == [
        "session-start",
        "user-prompt-submit",
        "session-start",
        "user-prompt-submit",
    ]
    starts = [b for p, b in got if p == "session-start"]
    assert starts[0]["sessionKey"] == "s1" and starts[0]["project"] == "/home/dev/atlas"
    assert starts[1] == {
        "sessionKey": "s2",
        "project": "/home/dev/atlas",
        "source": "new_session",
        "harness": "hermes-agent",
        "runtimePath": "plugin",
    }
    prompts = [b for p, b in got if p == "user-prompt-submit"]
    assert prompts[1]["sessionKey"] == "s2"
    assert "lastAssistantMessage" not in prompts[1]  # a new conversation
    assert bodies["session-checkpoint-extract"]["transcript"] == (
        "user: How do I deploy?\n\nassistant: make ship"
    )
    remembered = [b for p, b in got if p == "remember"]
    assert [b["tags"] for b in remembered] == ["hermes-builtin,user", "delegation,subagent"]
    assert remembered[1]["content"] == "Delegated task: find creds\nResult: in vault"
    (end,) = [b for p, b in got if p == "session-end"]  # the switch did not end s1 again
    assert end["sessionKey"] == "s1" and end["reason"] == "exit"


def test_the_setup_schema_names_the_sdk_variables() -> None:
    schema = SignetMemoryProvider({}).get_config_schema()
    assert [(f["key"], f["env_var"], f.get("secret", False)) for f in schema] == [
        ("daemon_url", "SIGNET_DAEMON_URL", False),
        ("agent_id", "SIGNET_AGENT_ID", False),
        ("token", "SIGNET_TOKEN", True),
    ]


def test_the_breaker_is_shared_with_the_hook_processes(scripted_daemon: ScriptedDaemon) -> None:
    """Failures here count in the hooks' breaker file for this daemon; while it is open,
    reads skip it. Another daemon's breaker is its own."""
    from signet_sdk.hooks.breaker import breaker_for

    env = dict(os.environ, SIGNET_DAEMON_URL=scripted_daemon.url, SIGNET_BREAKER_FAILURES="2")
    scripted_daemon.replies = [Reply(500, {"error": "database is locked"})] * 8
    provider = SignetMemoryProvider(env)
    provider.initialize("s-b1", platform="cli", hermes_home="/tmp/h", agent_context="primary")
    provider.prefetch("How do I deploy atlas?")
    shared = breaker_for(env, scripted_daemon.url)
    assert shared is not None and shared.open_for() > 0  # two failed reads opened it
    made = len(scripted_daemon.requests)

    # A provider in another process (same state directory, same daemon): while the
    # breaker is open its reads answer neutral without a call.
    other = SignetMemoryProvider(env)
    other.initialize("s-b2", platform="cli", hermes_home="/tmp/h", agent_context="primary")
    assert other.prefetch("How do I deploy atlas?") == ""
    assert len(scripted_daemon.requests) == made
    elsewhere = breaker_for(env, down_daemon_url())
    assert elsewhere is not None and elsewhere.open_for() == 0
