"""The mock daemon against the real one: one scenario, both daemons, route by route.

For each supported release the same scenario (every route the SDK calls, in
a story order, plus error cases) goes to the real daemon of that release and
to ``signet-sdk dev-daemon --daemon-version <minor>`` started as a child
process on a free loopback port. Each step's status code must match, and so
must its answer's *shape*: the set of keys, recursively, and each value's
JSON type (lists by their elements' merged shape; empty on one side only is a
difference). Values that differ by nature (ids, timestamps, timings, pids,
paths, rendered texts) are not compared; error messages of 4xx answers and the
outcomes a client branches on (:data:`COMPARED_VALUES`: statuses, counts,
engines, dedupe figures, job states) are. The test also checks that the
scenario reaches every route of the endpoint map the release serves.

Where the answers differ on purpose (what the mock cannot honestly produce,
or 0.109 answers the mock keeps byte for byte for its own tests),
:data:`ALLOWED` lists the paths with the reason, per release.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import httpx
import pytest

from signet_sdk.testing import stop_process
from signet_sdk.testing.real_daemon import SUPPORTED_VERSIONS, DaemonKit, free_port
from signet_sdk.wire.endpoints import ENDPOINTS
from signet_sdk.wire.versions import parse_version

from ..daemon_support import wait_for_health

State = dict[str, Any]


@dataclass
class Step:
    """One request of the scenario. ``path`` and string values in ``body`` may name
    earlier captures as ``{name}``; ``capture`` saves values from the answer."""

    name: str
    method: str
    path: str
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    since: tuple[int, int] = (0, 109)
    capture: Callable[[State, Any], None] | None = None
    poll: bool = False  # repeat until the answer's status is completed or failed
    stream: bool = False  # an event stream: its content type and first frame


_PLACEHOLDER = re.compile(r"\{([a-z_]+)\}")


def _fill(value: Any, state: State) -> Any:
    if isinstance(value, str):
        return _PLACEHOLDER.sub(lambda m: str(state[m.group(1)]), value)
    if isinstance(value, dict):
        return {k: _fill(v, state) for k, v in value.items()}
    if isinstance(value, list):
        return [_fill(v, state) for v in value]
    return value


def _save(name: str, key: str) -> Callable[[State, Any], None]:
    def capture(state: State, answer: Any) -> None:
        if isinstance(answer, dict) and answer.get(key) is not None:
            state[name] = answer[key]

    return capture


def _save_first_result(state: State, answer: Any) -> None:
    results = answer.get("results") if isinstance(answer, dict) else None
    if results:
        state["hit"] = results[0]["id"]


def _save_summary(state: State, answer: Any) -> None:
    summaries = answer.get("summaries") if isinstance(answer, dict) else None
    if summaries:
        state["summary"] = summaries[0]["id"]


def _and_repeat(step: Step) -> list[Step]:
    """``step``, then the same request again as ``<name>-repeat``: how a repeat is answered."""
    return [step, replace(step, name=f"{step.name}-repeat")]


def _exec_and_poll(name: str, body: dict[str, Any], job: str) -> list[Step]:
    """A secrets exec saving its job as ``job``, then ``<name>.poll`` for that job's end.

    0.109 answers the exec with the result itself (no job): the poll is 0.145's.
    """
    return [
        Step(name, "POST", "/api/secrets/exec", body, capture=_save(job, "id")),
        Step(f"{name}.poll", "GET", f"/api/secrets/exec/{{{job}}}", since=(0, 145), poll=True),
    ]


KEY = "mvr-session-1"
PROJECT = "/srv/mvr/billing"
PLUGIN = {"x-signet-runtime-path": "plugin"}
LEGACY = {"x-signet-runtime-path": "legacy"}
TRANSCRIPT = "\n".join(
    json.dumps({"type": t, "message": {"role": t, "content": f"turn {i}: {text}"}})
    for i, (t, text) in enumerate(
        [
            ("user", "how do we deploy the billing service to staging?"),
            ("assistant", "Billing deploys with make deploy-staging after the migrations run."),
            ("user", "and which database does staging use? remember it is pg-staging-2"),
            ("assistant", "Staging uses pg-staging-2; production uses pg-prod-1 behind pgbouncer."),
        ]
        * 3
    )
)

MARCH = ("2026-02-15T00:00:00.000Z", "2026-03-15T00:00:00.000Z")
LONG = " ".join(
    f"Warehouse robot {n} sorts parcels in aisle {n} and reports its battery level hourly."
    for n in range(1, 21)
)
#: The scenario's session as its hooks name it: the harness, the session, its project.
SESSION = {"harness": "claude-code", "sessionKey": KEY, "project": PROJECT}

SCENARIO: list[Step] = [
    Step("health", "GET", "/health"),
    # -- a session starts ------------------------------------------------
    Step("session-start.no-harness", "POST", "/api/hooks/session-start", {"sessionKey": KEY}),
    Step("session-start", "POST", "/api/hooks/session-start", SESSION, PLUGIN),
    Step("session-start.other-path", "POST", "/api/hooks/session-start", SESSION, LEGACY),
    # -- memories --------------------------------------------------------
    Step(
        "memory.remember",
        "POST",
        "/api/memory/remember",
        {"content": "The staging database for billing is pg-staging-2", "tags": "infra,db"},
        capture=_save("mem", "id"),
    ),
    Step(
        "memory.remember.duplicate",
        "POST",
        "/api/memory/remember",
        {"content": "The staging database for billing is pg-staging-2"},
    ),
    Step("memory.remember.empty", "POST", "/api/memory/remember", {"content": "  "}),
    Step(
        "memory.remember.temporal",
        "POST",
        "/api/memory/remember",
        {
            "content": "Billing moved to the eu-west-1 region in March",
            "occurredAt": "2026-03-01T00:00:00.000Z",
            "validFrom": "2026-03-01T00:00:00.000Z",
            "sourcePath": "/srv/mvr/billing/notes.md",
            "metadata": {"origin": "mvr"},
        },
        capture=_save("mem_temporal", "id"),
    ),
    Step(
        "memory.remember.bad-occurredAt",
        "POST",
        "/api/memory/remember",
        {"content": "Deploys freeze on Fridays", "occurredAt": "not a date"},
    ),
    Step(
        "memory.remember.inverted-validity",
        "POST",
        "/api/memory/remember",
        {
            "content": "The on-call rotation changes weekly",
            "validFrom": "2026-05-01T00:00:00.000Z",
            "validUntil": "2026-04-01T00:00:00.000Z",
        },
    ),
    *_and_repeat(
        Step(
            "memory.remember.idempotent",
            "POST",
            "/api/memory/remember",
            {"content": "Invoices render with wkhtmltopdf", "idempotencyKey": "mvr-idem-1"},
        )
    ),
    Step(
        "memory.remember.idempotent-conflict",
        "POST",
        "/api/memory/remember",
        {"content": "Invoices render with headless chrome", "idempotencyKey": "mvr-idem-1"},
    ),
    # Both split content over 800 characters into sentence chunks; a repeat stores
    # none (0.109) or is refused (0.145).
    *_and_repeat(
        Step(
            "memory.remember.chunked-unkeyed",
            "POST",
            "/api/memory/remember",
            {"content": LONG.replace("robot", "forklift")},
        )
    ),
    # 0.145 keys chunk groups
    *(
        Step(name, "POST", "/api/memory/remember", body, since=(0, 145))
        for name, body in [
            ("memory.remember.chunked", {"content": LONG, "idempotencyKey": "mvr-chunks-1"}),
            ("memory.remember.chunked-repeat", {"content": LONG, "idempotencyKey": "mvr-chunks-1"}),
            (
                "memory.remember.chunked-conflict",
                {"content": LONG.replace("robot", "drone"), "idempotencyKey": "mvr-chunks-1"},
            ),
            (
                "memory.remember.chunk-key-reused",
                {"content": "Robots charge overnight", "idempotencyKey": "mvr-chunks-1"},
            ),
            (
                "memory.remember.chunked-on-plain-key",
                {"content": LONG.replace("robot", "cart"), "idempotencyKey": "mvr-idem-1"},
            ),
            ("memory.remember.chunked-again", {"content": LONG}),
            (
                "memory.remember.bad-structured",
                {"content": "Robots charge overnight", "structured": []},
            ),
        ]
    ),
    Step(
        "hooks.remember",
        "POST",
        "/api/hooks/remember",
        {"harness": "claude-code", "content": "Billing deploys run make deploy-staging"},
    ),
    Step("hooks.remember.no-content", "POST", "/api/hooks/remember", {"harness": "claude-code"}),
    Step("memory.get", "GET", "/api/memory/{mem}"),
    Step("memory.get.unknown", "GET", "/api/memory/mvr-no-such-memory"),
    # -- recall ----------------------------------------------------------
    Step(
        "memory.recall",
        "POST",
        "/api/memory/recall",
        {"query": "staging database", "limit": 5},
        capture=_save_first_result,
    ),
    Step("memory.recall.no-query", "POST", "/api/memory/recall", {"limit": 5}),
    Step(
        "memory.recall.none",
        "POST",
        "/api/memory/recall",
        {"query": "zyzzyva quokka", "limit": 5},
    ),
    # 0.145 reads a time window (0.109 ignores it) and aggregate (no model: no answer)
    Step(
        "memory.recall.time-filter",
        "POST",
        "/api/memory/recall",
        {"query": "billing", "time": {"start": MARCH[0], "end": MARCH[1]}},
    ),
    Step(
        "memory.recall.time-timeline",
        "POST",
        "/api/memory/recall",
        {
            "query": "billing",
            "time": {
                "start": MARCH[0],
                "end": MARCH[1],
                "mode": "timeline",
                "facets": ["occurred"],
            },
        },
    ),
    Step(
        "hooks.recall.time",
        "POST",
        "/api/hooks/recall",
        {"harness": "claude-code", "query": "region", "time": {"start": MARCH[0]}},
    ),
    Step(
        "memory.recall.aggregate",
        "POST",
        "/api/memory/recall",
        {"query": "billing", "aggregate": True},
    ),
    Step(
        "hooks.recall.aggregate-none",
        "POST",
        "/api/hooks/recall",
        {"harness": "claude-code", "query": "zyzzyva", "aggregate": True},
    ),
    Step(
        "hooks.recall",
        "POST",
        "/api/hooks/recall",
        {"harness": "claude-code", "query": "staging database", "sessionKey": KEY},
        PLUGIN,
    ),
    Step("hooks.recall.no-query", "POST", "/api/hooks/recall", {"harness": "claude-code"}),
    # 0.145 suppresses what this session already recalled (0.109 returns it again)
    Step(
        "hooks.recall.repeat",
        "POST",
        "/api/hooks/recall",
        {"harness": "claude-code", "query": "staging database", "sessionKey": KEY},
        PLUGIN,
    ),
    Step(
        "hooks.recall.include-recalled",
        "POST",
        "/api/hooks/recall",
        {
            "harness": "claude-code",
            "query": "staging database",
            "sessionKey": KEY,
            "includeRecalled": True,
        },
        PLUGIN,
    ),
    Step(
        "hooks.recall.bad-time",
        "POST",
        "/api/hooks/recall",
        {
            "harness": "claude-code",
            "query": "staging",
            "time": {"start": "2026-05-01T00:00:00Z", "end": "2026-04-01T00:00:00Z"},
        },
    ),
    *_and_repeat(
        Step(
            "memory.recall.session",
            "POST",
            "/api/memory/recall",
            {"query": "billing", "sessionKey": "mvr-session-2"},
        )
    ),
    Step(
        "memory.recall.bad-time",
        "POST",
        "/api/memory/recall",
        {"query": "billing", "time": {"start": "not a date"}},
    ),
    Step(
        "memory.recall.bad-budget",
        "POST",
        "/api/memory/recall",
        {"query": "billing", "aggregateBudget": "huge"},
    ),
    # -- a turn ----------------------------------------------------------
    Step(
        "prompt-submit",
        "POST",
        "/api/hooks/user-prompt-submit",
        {
            "harness": "claude-code",
            "sessionKey": KEY,
            "userMessage": "which database does staging use?",
        },
        PLUGIN,
    ),
    Step(
        "prompt-submit.no-message",
        "POST",
        "/api/hooks/user-prompt-submit",
        {"harness": "claude-code", "sessionKey": KEY},
        PLUGIN,
    ),
    Step(
        "prompt-submit.other-path",
        "POST",
        "/api/hooks/user-prompt-submit",
        {"harness": "claude-code", "sessionKey": KEY, "userMessage": "and production?"},
        LEGACY,
    ),
    Step(
        "prompt-submit.low-signal",
        "POST",
        "/api/hooks/user-prompt-submit",
        {"harness": "claude-code", "sessionKey": KEY, "userMessage": "okay cool"},
        PLUGIN,
    ),
    # -- live sessions ---------------------------------------------------
    Step("sessions.list", "GET", "/api/sessions"),
    Step("sessions.get", "GET", f"/api/sessions/{KEY}"),
    Step("sessions.get.unknown", "GET", "/api/sessions/mvr-no-such-session"),
    Step("sessions.bypass.on", "POST", f"/api/sessions/{KEY}/bypass", {"enabled": True}),
    Step(
        "prompt-submit.bypassed",
        "POST",
        "/api/hooks/user-prompt-submit",
        {"harness": "claude-code", "sessionKey": KEY, "userMessage": "anything"},
        PLUGIN,
    ),
    Step("sessions.bypass.off", "POST", f"/api/sessions/{KEY}/bypass", {"enabled": False}),
    Step("sessions.bypass.no-enabled", "POST", f"/api/sessions/{KEY}/bypass", {}),
    Step("sessions.renew", "POST", f"/api/sessions/{KEY}/renew"),
    Step("sessions.renew.unknown", "POST", "/api/sessions/mvr-no-such-session/renew"),
    # -- mutations -------------------------------------------------------
    Step(
        "memory.modify",
        "PATCH",
        "/api/memory/{mem}",
        {"content": "The staging database for billing is pg-staging-3", "reason": "moved"},
    ),
    Step("memory.modify.no-reason", "PATCH", "/api/memory/{mem}", {"importance": 0.9}),
    Step(
        "memory.modify.unknown",
        "PATCH",
        "/api/memory/mvr-no-such-memory",
        {"importance": 0.9, "reason": "r"},
    ),
    Step(
        "memory.modify.batch",
        "POST",
        "/api/memory/modify",
        {"reason": "tidy", "patches": [{"id": "{mem}", "tags": "infra"}, {"id": "nope"}]},
    ),
    Step(
        "memory.forget.preview",
        "POST",
        "/api/memory/forget",
        {"mode": "preview", "ids": ["{mem_temporal}"]},
    ),
    Step(
        "memory.forget.batch",
        "POST",
        "/api/memory/forget",
        {"mode": "execute", "ids": ["{mem_temporal}"], "reason": "obsolete"},
    ),
    Step("memory.forget", "DELETE", "/api/memory/{mem}", {"reason": "obsolete"}),
    Step("memory.forget.again", "DELETE", "/api/memory/{mem}", {"reason": "obsolete"}),
    Step("memory.forget.no-reason", "DELETE", "/api/memory/{mem}"),
    # -- compaction and checkpoints --------------------------------------
    Step(
        "pre-compaction",
        "POST",
        "/api/hooks/pre-compaction",
        {"harness": "claude-code", "sessionKey": KEY, "messageCount": 12},
        PLUGIN,
    ),
    Step(
        "checkpoint-extract",
        "POST",
        "/api/hooks/session-checkpoint-extract",
        {**SESSION, "transcript": TRANSCRIPT},
        PLUGIN,
    ),
    Step(
        "checkpoint-extract.no-key",
        "POST",
        "/api/hooks/session-checkpoint-extract",
        {"harness": "claude-code"},
    ),
    Step(
        "compaction-complete",
        "POST",
        "/api/hooks/compaction-complete",
        {
            **SESSION,
            "summary": "Discussed staging deploys for billing; the database is pg-staging-2.",
        },
        PLUGIN,
    ),
    Step(
        "hooks.recall.after-compaction",
        "POST",
        "/api/hooks/recall",
        {"harness": "claude-code", "query": "billing", "sessionKey": KEY},
        PLUGIN,
    ),
    Step(
        "compaction-complete.no-summary",
        "POST",
        "/api/hooks/compaction-complete",
        {"harness": "claude-code", "sessionKey": KEY},
        PLUGIN,
    ),
    Step("summaries.list", "GET", "/api/sessions/summaries", capture=_save_summary),
    Step("summaries.expand", "POST", "/api/sessions/summaries/expand", {"id": "{summary}"}),
    Step(
        "summaries.expand.unknown",
        "POST",
        "/api/sessions/summaries/expand",
        {"id": "mvr-no-such-node"},
    ),
    # -- later routes: transcripts and session search ---------------------
    Step(
        "prompt-submit.transcript",
        "POST",
        "/api/hooks/user-prompt-submit",
        {
            **SESSION,
            "userMessage": "what did we say about pgbouncer?",
            "transcript": TRANSCRIPT,
        },
        PLUGIN,
    ),
    Step("sessions.transcript", "GET", f"/api/sessions/{KEY}/transcript", since=(0, 145)),
    Step(
        "sessions.transcript.unknown",
        "GET",
        "/api/sessions/mvr-no-such-session/transcript",
        since=(0, 145),
    ),
    Step(
        "sessions.search",
        "POST",
        "/api/sessions/search",
        {"query": "pgbouncer"},
        since=(0, 145),
    ),
    Step("sessions.search.no-query", "POST", "/api/sessions/search", {}, since=(0, 145)),
    # -- secrets ---------------------------------------------------------
    *_exec_and_poll(
        "secrets.exec",
        {"command": "printenv MVR_TOKEN", "secrets": {"MVR_TOKEN": "MVR_SECRET"}},
        "job",
    ),
    *_exec_and_poll(
        "secrets.exec.missing-secret",
        {"command": "printenv MVR_TOKEN", "secrets": {"MVR_TOKEN": "MVR_NOT_STORED"}},
        "failed_job",
    ),
    Step(
        "secrets.exec.no-command",
        "POST",
        "/api/secrets/exec",
        {"secrets": {"MVR_TOKEN": "MVR_SECRET"}},
    ),
    Step("secrets.exec.unknown-job", "GET", "/api/secrets/exec/mvr-no-such-job", since=(0, 145)),
    Step(
        "secrets.exec.no-secrets",
        "POST",
        "/api/secrets/exec",
        {"command": "printenv MVR_TOKEN", "secrets": {}},
    ),
    *_exec_and_poll(
        "secrets.exec.metacharacters",
        {"command": "printenv MVR_TOKEN; ls", "secrets": {"MVR_TOKEN": "MVR_SECRET"}},
        "meta_job",
    ),
    *_exec_and_poll(
        "secrets.exec.timeout",
        {"command": "sleep 2", "secrets": {"MVR_TOKEN": "MVR_SECRET"}, "timeoutMs": 1000},
        "slow_job",
    ),
    # -- synthesis -------------------------------------------------------
    Step("synthesis.config", "GET", "/api/hooks/synthesis/config"),
    Step("synthesis", "POST", "/api/hooks/synthesis", {"trigger": "manual"}),
    Step(
        "synthesis.complete",
        "POST",
        "/api/hooks/synthesis/complete",
        {"content": "# MEMORY\n- staging is pg-staging-2\n"},
    ),
    # -- the session ends ------------------------------------------------
    Step(
        "session-end",
        "POST",
        "/api/hooks/session-end",
        {"harness": "claude-code", "sessionKey": KEY, "cwd": PROJECT, "transcript": TRANSCRIPT},
        PLUGIN,
    ),
    Step(
        "session-end.repeat",
        "POST",
        "/api/hooks/session-end",
        {"harness": "claude-code", "sessionKey": KEY, "cwd": PROJECT},
        PLUGIN,
    ),
    Step("session-end.no-harness", "POST", "/api/hooks/session-end", {"sessionKey": KEY}),
    Step("session-start.after-end", "POST", "/api/hooks/session-start", SESSION, PLUGIN),
    Step(
        "session-start.clear",
        "POST",
        "/api/hooks/session-start",
        {**SESSION, "source": "clear"},
        PLUGIN,
    ),
    Step("session-start.repeat", "POST", "/api/hooks/session-start", SESSION, PLUGIN),
    # -- ops -------------------------------------------------------------
    Step("logs", "GET", "/api/logs?limit=5"),
    Step("logs.stream", "GET", "/api/logs/stream", stream=True),
    Step("unknown-route", "GET", "/api/mvr-no-such-route"),
    # -- a second session: 0.145's new fields, then a clear ---------------
    Step(
        "session-start.child",
        "POST",
        "/api/hooks/session-start",
        {
            "harness": "claude-code",
            "sessionKey": "mvr-session-3",
            "project": PROJECT,
            "source": "startup",
            "parentSessionKey": KEY,
            "harnessAgentId": "sub-agent-1",
        },
        PLUGIN,
    ),
    Step(
        "pre-compaction.agent",
        "POST",
        "/api/hooks/pre-compaction",
        {"harness": "claude-code", "sessionKey": "mvr-session-3", "agentId": "default"},
        PLUGIN,
    ),
    Step(
        "session-end.clear",
        "POST",
        "/api/hooks/session-end",
        {"harness": "claude-code", "sessionKey": "mvr-session-3", "reason": "clear"},
        PLUGIN,
    ),
]


@dataclass
class Answer:
    status: int
    body: Any  # parsed JSON, or the text of a non-JSON answer


def _first_frame(client: httpx.Client, path: str) -> Answer:
    """An event stream's status, content type and first ``data:`` frame (then hang up)."""
    with client.stream("GET", path) as response:
        kind = response.headers.get("content-type", "")
        for line in response.iter_lines():
            if line.startswith("data:"):
                return Answer(response.status_code, {"type": kind, "frame": json.loads(line[5:])})
    return Answer(response.status_code, {"type": kind})


def run_scenario(url: str, version: tuple[int, int]) -> dict[str, Answer]:
    """Send the scenario to the daemon at ``url``; each step's answer by step name."""
    state: State = {}
    out: dict[str, Answer] = {}
    with httpx.Client(base_url=url, timeout=30) as client:
        for step in SCENARIO:
            if version < step.since:
                continue
            try:
                path, body = _fill(step.path, state), _fill(step.body, state)
            except KeyError as exc:
                out[step.name] = Answer(0, f"needs {exc} from an earlier step")
                continue
            if step.stream:
                out[step.name] = _first_frame(client, path)
                continue
            deadline = time.monotonic() + 20
            while True:
                response = client.request(
                    step.method,
                    path,
                    content=None if body is None else json.dumps(body).encode(),
                    headers={"content-type": "application/json", **step.headers},
                )
                try:
                    answer = Answer(response.status_code, response.json())
                except ValueError:
                    answer = Answer(response.status_code, response.text)
                done = not isinstance(answer.body, dict) or answer.body.get("status") in (
                    "completed",
                    "failed",
                )
                if not step.poll or done or time.monotonic() > deadline:
                    break
                time.sleep(0.1)
            out[step.name] = answer
            if step.capture is not None:
                step.capture(state, answer.body)
    return out


def shape(value: Any) -> Any:
    """A JSON value's shape: objects by key, lists by their elements' merged shape,
    scalars by JSON type (``null``, ``bool``, ``number``, ``string``)."""
    if isinstance(value, dict):
        return {k: shape(v) for k, v in value.items()}
    if isinstance(value, list):
        merged: Any = None
        for item in value:
            merged = _merge(merged, shape(item))
        return ["list", merged]
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    return "string"


def _merge(a: Any, b: Any) -> Any:
    """Two element shapes as one: objects take the union of their keys."""
    if a is None or b is None:
        return b if a is None else a
    if isinstance(a, dict) and isinstance(b, dict):
        return {k: _merge(a.get(k), b.get(k)) for k in {**a, **b}}
    if a == b:
        return a
    return "|".join(sorted({*str(a).split("|"), *str(b).split("|")}))  # a union of types


def differences(path: str, real: Any, mock: Any, allowed: frozenset[str]) -> list[str]:
    """Where two shapes differ, as ``path: real ... mock ...`` lines; a path (or its
    prefix) in ``allowed`` is not compared."""
    if path in allowed:
        return []
    if isinstance(real, dict) and isinstance(mock, dict):
        out = []
        for key in sorted({*real, *mock}):
            sub = f"{path}.{key}"
            if sub in allowed:
                continue
            if key not in mock:
                out.append(f"{sub}: only the real daemon sends it ({real[key]})")
            elif key not in real:
                out.append(f"{sub}: only the mock sends it ({mock[key]})")
            else:
                out += differences(sub, real[key], mock[key], allowed)
        return out
    if isinstance(real, list) and isinstance(mock, list):
        if (real[1] is None) != (mock[1] is None):
            which = "real" if real[1] is None else "mock"
            return [f"{path}[]: empty on the {which} daemon only"]
        return differences(f"{path}[]", real[1], mock[1], allowed) if real[1] else []
    return [] if real == mock else [f"{path}: real {real}, mock {mock}"]


#: Keys whose values are compared too, wherever they appear: outcomes and counts a
#: client branches on (ids, times, texts and scores are not).
COMPARED_VALUES = frozenset(
    [
        "status",
        "code",
        "engine",
        "suppressed",
        "repeatedReturned",
        "contextEpoch",
        "enabled",
        "bypassed",
        "skipped",
        "duplicateRuntimePath",
        "claimedBy",
        "duplicateSessionEnd",
        "endedBy",
        "memoriesSaved",
        "queued",
        "deduped",
        "success",
        "renewed",
        "sessionKnown",
        "timedOut",
        "count",
        "total",
        "updated",
        "deleted",
        "requested",
        "mode",
        "requiresConfirm",
        "already_recalled",
        "timeoutMs",
        "error",
        "contentChanged",
    ]
)


def value_differences(path: str, real: Any, mock: Any, allowed: frozenset[str]) -> list[str]:
    """Where a :data:`COMPARED_VALUES` key has different values (both present)."""
    if path in allowed:
        return []
    out: list[str] = []
    if isinstance(real, dict) and isinstance(mock, dict):
        for key in real.keys() & mock.keys():
            sub = f"{path}.{key}"
            if key in COMPARED_VALUES and not isinstance(real[key], dict | list):
                if real[key] != mock[key] and sub not in allowed:
                    out.append(f"{sub}: real {real[key]!r}, mock {mock[key]!r}")
            else:
                out += value_differences(sub, real[key], mock[key], allowed)
    elif isinstance(real, list) and isinstance(mock, list) and len(real) == len(mock):
        for r, m in zip(real, mock, strict=True):
            out += value_differences(f"{path}[]", r, m, allowed)
    return out


#: Paths (``$`` is the answer) the comparison skips, per release line, and why. Each
#: is something the mock cannot honestly reproduce or a difference kept on purpose.
_COMMON: dict[str, str] = {
    # Process figures: the real daemon counts its file descriptors and V8 heap, the
    # mock reports its own rusage; neither means anything for a client.
    "health $.resources": "process figures",
    # Log entries are whatever each daemon chose to log; the envelope is compared.
    "logs $.logs[].data": "log payloads",
    "logs $.logs[].duration": "log payloads",
    "logs $.logs[].error": "log payloads",
}
ALLOWED: dict[str, dict[str, str]] = {
    "0.109": {
        **_COMMON,
        # 0.109's prompt-submit searches with the whole prompt (every word must match,
        # a score of 0.8 at least), so these prompts find nothing on the real daemon;
        # the mock matches any shared word and injects the hit, with its terms and engine.
        "prompt-submit $.queryTerms": "the mock finds a memory",
        "prompt-submit $.engine": "the mock finds a memory",
        "prompt-submit.transcript $.queryTerms": "the mock finds a memory",
        # The mock's stop words are not the daemon's ("okay cool" keeps its terms).
        "prompt-submit.low-signal $.queryTerms": "stop words",
        # The mock's 0.109 compaction summary memory has no session_id.
        "hooks.recall.after-compaction $.results[].session_id": "kept for the 0.109 tests",
        "hooks.recall.after-compaction $.memories[].session_id": "kept for the 0.109 tests",
        # The mock links the compaction summary memory to its node; 0.109 does not.
        "summaries.expand $.linkedMemories": "kept for the 0.109 tests",
        # The mock's 0.109 synthesis config has always carried structuredOutput.
        "synthesis.config $.structuredOutput": "kept for the 0.109 tests",
        # 0.109 also ends its synthesis prompt with a temporal index; the mock's 0.109
        # answer predates it.
        "synthesis $.indexBlock": "kept for the 0.109 tests",
    },
    "0.145": dict(_COMMON),
}


def _allowed(version: str, step: str) -> frozenset[str]:
    table = ALLOWED[version]
    return frozenset(key.split(" ", 1)[1] for key in table if key.split(" ", 1)[0] == step)


def compare(version: str, real: dict[str, Answer], mock: dict[str, Answer]) -> list[str]:
    """Every difference between the two runs, one line each (empty: they agree)."""
    out: list[str] = []
    for name in real.keys() | mock.keys():
        if name not in real or name not in mock:
            out.append(f"{name}: answered by one daemon only")
            continue
        r, m = real[name], mock[name]
        if r.status != m.status:
            out.append(f"{name}: status real {r.status}, mock {m.status} ({m.body!r:.200})")
            continue
        allowed = _allowed(version, name)
        out += [f"{name} {d}" for d in differences("$", shape(r.body), shape(m.body), allowed)]
        out += [f"{name} {d}" for d in value_differences("$", r.body, m.body, allowed)]
        errors = [b.get("error") if isinstance(b, dict) else None for b in (r.body, m.body)]
        if r.status >= 400 and errors[0] != errors[1]:
            out.append(f"{name}: error real {errors[0]!r}, mock {errors[1]!r}")
        if isinstance(r.body, str) and r.body != m.body:
            out.append(f"{name}: text real {r.body!r:.80}, mock {m.body!r:.80}")
    return sorted(out)


SECRET = ("MVR_SECRET", "mvr-secret-value")


def _route_of(path: str) -> str:
    """The endpoint-map path a concrete request path is sent to (literal segments win)."""
    path = path.split("?", 1)[0]
    for endpoint in sorted(ENDPOINTS, key=lambda e: e.path.count("{")):
        pattern = re.sub(r"\\\{[^}]+\\\}", "[^/]+", re.escape(endpoint.path))
        if re.fullmatch(pattern, path):
            return endpoint.path
    return path


@contextmanager
def dev_daemon(version: str, workdir: Path) -> Iterator[str]:
    """``signet-sdk dev-daemon --daemon-version V`` as a child on a free loopback port,
    stopped by its PID; the URL once it accepts connections."""
    port = free_port()
    args = ["--daemon-version", version, "--port", str(port), "--db", str(workdir / "d.db")]
    code = f"import sys; from signet_sdk.cli import main; sys.exit(main({['dev-daemon', *args]!r}))"
    proc = subprocess.Popen(
        [sys.executable, "-c", code],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env={k: v for k, v in os.environ.items() if not k.startswith("SIGNET_")},
    )
    try:
        assert proc.stdout is not None
        banner = proc.stdout.readline()
        assert f"as Signet {version}" in banner, banner
        url = f"http://127.0.0.1:{port}"
        wait_for_health(url)
        yield url
    finally:
        stop_process(proc)


def _store_secret(url: str) -> None:
    r = httpx.post(f"{url}/api/secrets/{SECRET[0]}", json={"value": SECRET[1]}, timeout=10)
    assert r.status_code == 200, r.text


@pytest.mark.parametrize("release", SUPPORTED_VERSIONS)
def test_the_mock_answers_the_scenario_as_the_real_daemon_does(
    release: str, real_daemon_kit: DaemonKit, tmp_path: Path
) -> None:
    if release not in real_daemon_kit.versions():
        pytest.skip(f"the real-daemon kit has no {release}")
    minor = ".".join(release.split(".")[:2])
    version = (int(minor.split(".")[0]), int(minor.split(".")[1]))
    with real_daemon_kit.running(release) as real:
        real.store_secret(*SECRET)
        real_answers = run_scenario(real.url, version)
    with dev_daemon(minor, tmp_path) as url:
        _store_secret(url)
        mock_answers = run_scenario(url, version)
    # The scenario ran whole on both: no step lost a value an earlier one captures.
    skipped = [n for n, a in [*real_answers.items(), *mock_answers.items()] if a.status == 0]
    assert not skipped, skipped
    assert compare(minor, real_answers, mock_answers) == []
    # Every route of the endpoint map this release serves was exercised.
    routes = {(s.method, _route_of(s.path)) for s in SCENARIO if version >= s.since}
    wanted = {(e.method, e.path) for e in ENDPOINTS if parse_version(e.since)[:2] <= version}
    assert wanted <= routes, sorted(wanted - routes)
