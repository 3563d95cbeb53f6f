"""The reference runtime's column of the parity matrix: a session that runs, not a table.

Adapters are audited by their vectors; the runtime is audited by running
it. One scripted session of :class:`~signet_sdk.agent.Agent` goes through
a recording proxy to the daemon: open (``/health``, session-start), a turn
whose model calls every memory tool in turn (search, store, get, modify,
forget, and secrets exec where a secret can be planted), ``/remember``, a
compaction, the end. A dependency-map row is covered when the daemon
answered its endpoint with a 2xx during that session; the model is a
:class:`~signet_sdk.testing.providers.ScriptedProvider`, so no network and
no key is needed.
"""

from __future__ import annotations

import json
import re
import tempfile
from collections.abc import Sequence
from typing import Any

from signet_sdk.agent.types import CompletionOptions, CompletionResult, Message, ToolCall, Usage
from signet_sdk.testing.parity import (
    COVERED,
    MISSING,
    NOT_APPLICABLE,
    RUNTIME_COLUMN,
    HarnessReport,
    VectorResult,
)
from signet_sdk.wire.endpoints import DEPENDENCY_MAP_ROWS, endpoint_for_row

__all__ = ["RUNTIME_COLUMN", "runtime_report"]

_MARKER = "parity runtime check: the reference runtime stores and finds this"


def _last_result(messages: Sequence[Message]) -> dict[str, Any]:
    """The newest tool result the model was sent, parsed (the id to work on comes from it)."""
    for message in reversed(messages):
        for result in reversed(message.tool_results):
            try:
                parsed = json.loads(result.content)
            except ValueError:
                return {}
            return parsed if isinstance(parsed, dict) else {}
    return {}


class _ToolTour:
    """The scripted model: one tool per answer, each using what the one before returned."""

    def __init__(self, with_secrets: bool) -> None:
        self.memory_id = ""
        steps: list[tuple[str, Any]] = [
            ("memory_store", lambda: {"content": _MARKER}),
            ("memory_search", lambda: {"query": "parity runtime check", "limit": 5}),
            ("memory_get", lambda: {"id": self.memory_id}),
            (
                "memory_modify",
                lambda: {"id": self.memory_id, "reason": "parity", "content": _MARKER + "!"},
            ),
            ("memory_forget", lambda: {"id": self.memory_id, "reason": "parity"}),
        ]
        if with_secrets:
            steps.append(
                ("secrets_exec", lambda: {"command": "printenv P", "secrets": {"P": "PARITY_S"}})
            )
        self.steps = steps

    def __call__(self, messages: Sequence[Message], options: CompletionOptions) -> Any:
        if not options.tools:  # the compaction's summary request
            return "The parity session stored, found, changed and forgot one memory."
        last = _last_result(messages)
        if isinstance(last.get("id"), str) and not self.memory_id:
            self.memory_id = last["id"]
        if not self.steps:
            return "done"
        name, args = self.steps.pop(0)
        call = ToolCall(f"call_{name}", name, args())
        return CompletionResult("", (call,), "tool_use", Usage(10, 5))


def _answered(requests: Sequence[Any], row: str) -> bool:
    ep = endpoint_for_row(row)
    pattern = re.compile("^" + re.sub(r"\{[^}]+\}", "[^/]+", ep.path) + "$")
    return any(
        r.method == ep.method and pattern.match(r.path) and 200 <= r.status < 300 for r in requests
    )


def runtime_report(url: str, mock: Any) -> HarnessReport:
    """Run the parity session against the daemon at ``url``; the runtime's column."""
    from signet_sdk.agent import Agent, Compaction
    from signet_sdk.testing.providers import ScriptedProvider
    from signet_sdk.testing.recording_proxy import RecordingProxy

    with_secrets = mock is not None
    if with_secrets:
        mock.set_secret("PARITY_S", "parity-secret-value")
    steps: list[VectorResult] = []
    with tempfile.TemporaryDirectory() as home, RecordingProxy(url) as proxy:
        env = {"HOME": home, "XDG_STATE_HOME": f"{home}/state", "SIGNET_OUTBOX_FLUSH_SECONDS": "0"}
        model = ScriptedProvider(default=_ToolTour(with_secrets))
        agent = Agent(
            model,
            daemon_url=proxy.url,
            env=env,
            harness=RUNTIME_COLUMN,
            research=("memory_search",),
            allow_commands=with_secrets,
            compaction=Compaction(at_tokens=None),
            timeout=10.0,
        )
        agent.detached_sender = False  # the home is thrown away with the run

        def step(name: str, run: Any) -> None:
            result = VectorResult(name, name)
            try:
                problem = run()
            except Exception as exc:
                problem = f"{type(exc).__name__}: {exc}"
            if problem:
                result.problems.append(problem)
            steps.append(result)

        holder: dict[str, Any] = {}

        def open_session() -> str | None:
            holder["chat"] = agent.session(project=home)
            notices = holder["chat"].notices
            return "; ".join(notices) if notices else None

        def tool_turn() -> str | None:
            out = holder["chat"].send("Check every memory tool once.")
            failed = [r.content for r in out.tool_results if r.is_error]
            return "; ".join(failed) if failed else None

        def remember() -> None:
            holder["chat"].remember("The parity session remembers this line.")

        def compact() -> str | None:
            return None if holder["chat"].compact() else "no summary was made"

        def end() -> str | None:
            chat = holder["chat"]
            chat.end()
            return "; ".join(chat.notices[-1:]) if not chat.writer.finish(10) else None

        step("open", open_session)
        if "chat" in holder:
            for name, run in (
                ("turn", tool_turn),
                ("remember", remember),
                ("compact", compact),
                ("end", end),
            ):
                step(name, run)
        requests = proxy.requests
    rows: dict[str, tuple[str, str]] = {}
    for row in DEPENDENCY_MAP_ROWS:
        if _answered(requests, row):
            rows[row] = (COVERED, "")
        elif row == "secret-injection" and not with_secrets:
            rows[row] = (NOT_APPLICABLE, "not exercised against a real daemon (it runs a command)")
        else:
            rows[row] = (MISSING, "the parity session made no successful call to it")
    events = {s.name: (COVERED if s.ok else MISSING, "; ".join(s.problems)) for s in steps}
    return HarnessReport(RUNTIME_COLUMN, steps, rows, events)
