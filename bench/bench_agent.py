#!/usr/bin/env python3
# long module: three measurements of one runtime, each with its own reference
"""What the reference runtime (``signet_sdk.agent``) costs: its loop, research and import.

1. **The loop's own cost per turn.** A turn of ``Agent`` (sync session and
   async session) against stand-ins in another process (the daemon routes a
   session uses, Anthropic's ``/v1/messages`` and OpenAI's
   ``/v1/chat/completions``, JSON and SSE), next to a hand-written loop making
   the same three calls (user-prompt-submit, the model, the checkpoint) with
   raw ``httpx.Client`` (and raw ``aiohttp`` beside the async session). The
   hand loop builds its requests itself; before anything is timed, one
   session of each is run with the stand-ins' request log on and every
   request body is compared byte for byte (headers too, where both sides
   send through a pool). The Agent's checkpoint goes into the durable outbox
   (fsynced) and is delivered by a writer thread; the hand loop posts it.
   Both are reported, separately as well. Then where that time goes
   (``parts``): one sync turn with the network stubbed where the SDK sends,
   its parts stubbed one more at each step, and the parts on their own.
2. **The research phase** (``@tool(research=True)`` tools run before the
   model call): three tools sleeping 50, 100 and 150 ms; the phase should
   take the slowest (150 ms), not the sum (300 ms).
3. **The import cost**, in a fresh interpreter each time, best of N:
   ``signet_sdk.agent``, what a user's script imports from it, and the
   official vendor SDKs beside it.

    python bench/bench_agent.py                 # everything, a few minutes on 2 cores
    python bench/bench_agent.py --quick         # a smoke run
    python bench/bench_agent.py --only loop     # or parts, research, imports

Figures only; no pass/fail. See bench/README.md for the latest numbers.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime as dt
import gc
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from _agent_standins import Captured, StandIns

PROJECT = "/srv/atlas"
INSTRUCTIONS = "You are terse. Answer in two sentences at most."
MODELS = {"anthropic": "claude-bench", "openai": "gpt-bench"}
HARNESS = "signet-agent"
PARTS = ("loop", "parts", "research", "imports")
FENCE = "signet-memory"


def ms(ns: int) -> float:
    return ns / 1e6


def percentile(samples: Sequence[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def p50_p90(samples: Sequence[float]) -> tuple[float, float]:
    return statistics.median(samples), percentile(samples, 0.9)


def turn_text(index: int) -> str:
    return f"Turn {index}: how do we deploy the staging service today?"


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


@dataclass(frozen=True)
class Combo:
    """One kind of model call: the provider's API and whether its answer is streamed."""

    provider: str
    stream: bool

    @property
    def label(self) -> str:
        return f"{self.provider} {'streamed' if self.stream else 'JSON'}"

    @property
    def slug(self) -> str:
        return f"{self.provider}-{'sse' if self.stream else 'json'}"


COMBOS = [Combo(p, s) for p in ("anthropic", "openai") for s in (False, True)]


# ---------------------------------------------------------------------------
# the hand-written loop
# ---------------------------------------------------------------------------


def fence(kind: str, text: str) -> str:
    return f'<{FENCE} kind="{kind}">\n{text.strip()}\n</{FENCE}>'


def dumps(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


def _sent_headers(captured: Captured) -> dict[str, str]:
    """The headers to send by hand: the captured ones less those the library adds itself."""
    return {k: v for k, v in captured.headers if k not in ("host", "content-length")}


@dataclass
class Wire:
    """What a hand-written loop needs to know of one combo, read off one Agent session.

    The fixed part of the model body (model, limits, system, tools: what a
    user would write once in their script) and the headers of each kind of
    request; everything that changes per turn the hand loop builds itself.
    """

    combo: Combo
    daemon_url: str
    model_url: str
    prefix: dict[str, Any]
    first_messages: list[dict[str, Any]]
    get_headers: dict[str, str]
    post_headers: dict[str, str]
    model_headers: dict[str, str]

    @classmethod
    def from_session(cls, combo: Combo, daemon_url: str, log: Sequence[Captured]) -> Wire:
        model = next(c for c in log if c.side == "model")
        health = next(c for c in log if c.path == "/health")
        prompt = next(c for c in log if c.path.endswith("/user-prompt-submit"))
        body = json.loads(model.body)
        messages = body.pop("messages")
        host = next(v for k, v in model.headers if k == "host")
        return cls(
            combo=combo,
            daemon_url=daemon_url,
            model_url=f"http://{host}{model.path}",
            prefix=body,
            first_messages=messages[:1] if combo.provider == "openai" else [],
            get_headers=_sent_headers(health),
            post_headers=_sent_headers(prompt),
            model_headers=_sent_headers(model),
        )

    def user(self, text: str) -> dict[str, Any]:
        if self.combo.provider == "anthropic":
            return {"role": "user", "content": [{"type": "text", "text": text}]}
        return {"role": "user", "content": text}

    def assistant(self, text: str) -> dict[str, Any]:
        if self.combo.provider == "anthropic":
            return {"role": "assistant", "content": [{"type": "text", "text": text}]}
        return {"role": "assistant", "content": text}

    def reply_of(self, answer: Any) -> str:
        if self.combo.provider == "anthropic":
            return "".join(b["text"] for b in answer["content"] if b.get("type") == "text")
        text: str = answer["choices"][0]["message"]["content"]
        return text

    def delta_of(self, line: str) -> str:
        """The text in one SSE line ("" for any other line)."""
        if not line.startswith("data: ") or line == "data: [DONE]":
            return ""
        event = json.loads(line[6:])
        if self.combo.provider == "anthropic":
            if event.get("type") == "content_block_delta":
                text: str = event["delta"].get("text", "")
                return text
            return ""
        for choice in event.get("choices") or ():
            piece = choice.get("delta", {}).get("content")
            if piece:
                return str(piece)
        return ""


class HandSession:
    """One conversation by hand: its key, its history, what its next turn must carry."""

    def __init__(self, wire: Wire, key: str, transcript: str) -> None:
        self.wire = wire
        self.key = key
        self.transcript = transcript
        self.messages: list[dict[str, Any]] = list(wire.first_messages)
        self.pending = ""  # the session start's context, for the first turn
        self.last = ""

    def start_body(self) -> bytes:
        return dumps(
            {
                "sessionKey": self.key,
                "project": PROJECT,
                "source": "startup",
                "harness": HARNESS,
                "runtimePath": "plugin",
            }
        )

    def prompt_body(self, text: str) -> bytes:
        body: dict[str, Any] = {
            "userMessage": text,
            "userPrompt": text,
            "sessionKey": self.key,
            "project": PROJECT,
        }
        if self.last:
            body["lastAssistantMessage"] = self.last
        body["harness"] = HARNESS
        body["runtimePath"] = "plugin"
        return dumps(body)

    def model_body(self, text: str, inject: str) -> bytes:
        parts = [fence("session", self.pending)] if self.pending else []
        if inject:
            parts.append(fence("turn", inject))
        parts.append(text)
        self.pending = ""
        self.messages.append(self.wire.user("\n\n".join(parts)))
        return dumps({**self.wire.prefix, "messages": self.messages})

    def took(self, reply: str) -> None:
        self.messages.append(self.wire.assistant(reply))
        self.last = reply

    def checkpoint_body(self) -> bytes:
        return dumps(
            {
                "sessionKey": self.key,
                "project": PROJECT,
                "transcriptPath": self.transcript,
                "harness": HARNESS,
                "runtimePath": "plugin",
            }
        )

    def end_body(self) -> bytes:
        return dumps(
            {
                "sessionKey": self.key,
                "reason": "exit",
                "cwd": PROJECT,
                "transcriptPath": self.transcript,
                "harness": HARNESS,
                "runtimePath": "plugin",
            }
        )


@dataclass
class Turns:
    """Per-turn figures of one variant, in ms; the connections its timed turns opened."""

    turn: list[float] = field(default_factory=list)
    before_checkpoint: list[float] = field(default_factory=list)
    delivered: list[float] = field(default_factory=list)
    put: list[float] = field(default_factory=list)
    write: list[float] = field(default_factory=list)
    model_connections: int = 0
    daemon_connections: int = 0

    def add(self, other: Turns) -> None:
        self.turn += other.turn
        self.before_checkpoint += other.before_checkpoint
        self.delivered += other.delivered
        self.put += other.put
        self.write += other.write
        self.model_connections += other.model_connections
        self.daemon_connections += other.daemon_connections


class Connections:
    """Connections the stand-ins accepted between ``__enter__`` and ``__exit__``."""

    def __init__(self, standins: StandIns, into: Turns) -> None:
        self.standins, self.into = standins, into

    def __enter__(self) -> None:
        self.before = self.standins.stats()["connections"]

    def __exit__(self, *exc: object) -> None:
        after = self.standins.stats()["connections"]
        self.into.model_connections += after["model"] - self.before["model"]
        # less one: the connection that asked for ``after``
        self.into.daemon_connections += after["daemon"] - self.before["daemon"] - 1


class HandSync:
    """The hand loop on one raw ``httpx.Client``: three calls a turn, the checkpoint posted."""

    def __init__(self, wire: Wire, standins: StandIns, files: Callable[[str], str]) -> None:
        import httpx

        self.wire, self.standins, self.files = wire, standins, files
        self.client = httpx.Client()

    def _post(self, path: str, body: bytes) -> Any:
        url = self.wire.daemon_url + path
        return json.loads(
            self.client.post(url, content=body, headers=self.wire.post_headers).content
        )

    def _model(self, body: bytes) -> str:
        wire = self.wire
        if not wire.combo.stream:
            resp = self.client.post(wire.model_url, content=body, headers=wire.model_headers)
            return wire.reply_of(json.loads(resp.content))
        parts = []
        with self.client.stream(
            "POST", wire.model_url, content=body, headers=wire.model_headers
        ) as resp:
            for line in resp.iter_lines():
                parts.append(wire.delta_of(line))
        return "".join(parts)

    def block(self, key: str, turns: int) -> Turns:
        session = HandSession(self.wire, key, self.files(key))
        self.client.get(self.wire.daemon_url + "/health", headers=self.wire.get_headers)
        session.pending = self._post("/api/hooks/session-start", session.start_body())["inject"]
        out = Turns()
        with Connections(self.standins, out):
            for index in range(turns):
                text = turn_text(index)
                t0 = time.perf_counter_ns()
                inject = self._post("/api/hooks/user-prompt-submit", session.prompt_body(text))
                session.took(self._model(session.model_body(text, inject["inject"])))
                t1 = time.perf_counter_ns()
                self._post("/api/hooks/session-checkpoint-extract", session.checkpoint_body())
                t2 = time.perf_counter_ns()
                out.turn.append(ms(t2 - t0))
                out.before_checkpoint.append(ms(t1 - t0))
        self._post("/api/hooks/session-end", session.end_body())
        return out

    def close(self) -> None:
        self.client.close()


class HandAsync:
    """The hand loop on one raw ``aiohttp.ClientSession`` (the async session's library)."""

    def __init__(self, wire: Wire, standins: StandIns, files: Callable[[str], str]) -> None:
        self.wire, self.standins, self.files = wire, standins, files
        self.session: Any = None

    async def _client(self) -> Any:
        if self.session is None:
            import aiohttp

            # The captured headers are sent as they are: nothing of aiohttp's own.
            self.session = aiohttp.ClientSession(
                skip_auto_headers=("User-Agent", "Accept", "Accept-Encoding", "Content-Type")
            )
        return self.session

    async def _post(self, path: str, body: bytes) -> Any:
        client = await self._client()
        async with client.post(
            self.wire.daemon_url + path, data=body, headers=self.wire.post_headers
        ) as resp:
            return json.loads(await resp.read())

    async def _model(self, body: bytes) -> str:
        wire, client = self.wire, await self._client()
        async with client.post(wire.model_url, data=body, headers=wire.model_headers) as resp:
            if not wire.combo.stream:
                return wire.reply_of(json.loads(await resp.read()))
            parts = []
            async for raw in resp.content:
                parts.append(wire.delta_of(raw.decode().rstrip("\r\n")))
            return "".join(parts)

    async def block(self, key: str, turns: int) -> Turns:
        client = await self._client()
        session = HandSession(self.wire, key, self.files(key))
        async with client.get(self.wire.daemon_url + "/health", headers=self.wire.get_headers) as r:
            await r.read()
        session.pending = (await self._post("/api/hooks/session-start", session.start_body()))[
            "inject"
        ]
        out = Turns()
        with Connections(self.standins, out):
            for index in range(turns):
                text = turn_text(index)
                t0 = time.perf_counter_ns()
                inject = await self._post(
                    "/api/hooks/user-prompt-submit", session.prompt_body(text)
                )
                session.took(await self._model(session.model_body(text, inject["inject"])))
                t1 = time.perf_counter_ns()
                await self._post("/api/hooks/session-checkpoint-extract", session.checkpoint_body())
                t2 = time.perf_counter_ns()
                out.turn.append(ms(t2 - t0))
                out.before_checkpoint.append(ms(t1 - t0))
        await self._post("/api/hooks/session-end", session.end_body())
        return out

    async def close(self) -> None:
        if self.session is not None:
            await self.session.close()


# ---------------------------------------------------------------------------
# the Agent
# ---------------------------------------------------------------------------

#: Seconds to wait for the writer thread to deliver a checkpoint.
DELIVERY_WAIT = 10.0


def _timed(function: Callable[..., Any], sink: list[float]) -> Callable[..., Any]:
    """``function``, its calls' durations (ms) appended to ``sink``."""

    def timed(*args: Any) -> Any:
        t0 = time.perf_counter_ns()
        try:
            return function(*args)
        finally:
            sink.append(ms(time.perf_counter_ns() - t0))

    return timed


def _time_writes(chat: Any, out: Turns) -> None:
    """Time the session's outbox puts into ``out.put``, its whole writes into ``out.write``.

    A write (``SessionWriter.submit``) is the put and the hand-off to the
    writer thread; the sync session makes it on the caller's thread.
    """
    chat.writer.delivery.put = _timed(chat.writer.delivery.put, out.put)
    chat.writer.submit = _timed(chat.writer.submit, out.write)


class _AwaitedWrites:
    """Times the async session's writes as its event loop awaits them (``asyncio.to_thread``).

    The session hands ``writer.submit`` to a worker thread; this is the put
    plus the two thread hops, what the turn waits for. Only calls of the
    session's own ``submit`` are timed, and only inside the block.
    """

    def __init__(self, chat: Any, sink: list[float]) -> None:
        self.submit, self.sink = chat.writer.submit, sink

    def __enter__(self) -> None:
        self.real = real = asyncio.to_thread
        submit, sink = self.submit, self.sink

        async def to_thread(function: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
            if function != submit:  # a bound method is made anew at each look-up
                return await real(function, *args, **kwargs)
            t0 = time.perf_counter_ns()
            try:
                return await real(function, *args, **kwargs)
            finally:
                sink.append(ms(time.perf_counter_ns() - t0))

        asyncio.to_thread = to_thread

    def __exit__(self, *exc: object) -> None:
        asyncio.to_thread = self.real


def _wait_delivered(chat: Any) -> None:
    if not chat.writer._writer.wait(DELIVERY_WAIT):
        raise RuntimeError("the checkpoint was not delivered within 10 s")


def make_provider(combo: Combo, model_url: str, env: dict[str, str], *, asynchronous: bool) -> Any:
    from signet_sdk.agent.providers import (
        AnthropicProvider,
        AsyncAnthropicProvider,
        AsyncOpenAIProvider,
        OpenAIProvider,
    )

    classes: dict[str, tuple[Any, Any]] = {
        "anthropic": (AnthropicProvider, AsyncAnthropicProvider),
        "openai": (OpenAIProvider, AsyncOpenAIProvider),
    }
    base = model_url if combo.provider == "anthropic" else f"{model_url}/v1"
    cls = classes[combo.provider][1 if asynchronous else 0]
    return cls(MODELS[combo.provider], base_url=base, env=env)


def make_agent(provider: Any, combo: Combo, daemon_url: str, env: dict[str, str]) -> Any:
    from signet_sdk.agent import Agent

    return Agent(
        provider, instructions=INSTRUCTIONS, daemon_url=daemon_url, env=env, stream=combo.stream
    )


class AgentSync:
    """Turns of ``agent.session()``; the provider (and its pool) lives across sessions."""

    def __init__(self, combo: Combo, standins: StandIns, env: dict[str, str]) -> None:
        self.provider = make_provider(combo, standins.model_url, env, asynchronous=False)
        self.agent = make_agent(self.provider, combo, standins.daemon_url, env)
        self.standins = standins

    def block(self, key: str, turns: int) -> Turns:
        out = Turns()
        with self.agent.session(project=PROJECT, key=key) as chat:
            _time_writes(chat, out)
            with Connections(self.standins, out):
                for index in range(turns):
                    text = turn_text(index)
                    t0 = time.perf_counter_ns()
                    chat.send(text)
                    t1 = time.perf_counter_ns()
                    _wait_delivered(chat)
                    t2 = time.perf_counter_ns()
                    out.turn.append(ms(t1 - t0))
                    out.delivered.append(ms(t2 - t0))
        del out.put[turns:], out.write[turns:]  # the session end's are not a turn's
        return out

    def close(self) -> None:
        self.provider.close()


class AgentAsync:
    """Turns of ``agent.async_session()`` on the bench's one event loop."""

    def __init__(self, combo: Combo, standins: StandIns, env: dict[str, str]) -> None:
        self.provider = make_provider(combo, standins.model_url, env, asynchronous=True)
        self.agent = make_agent(self.provider, combo, standins.daemon_url, env)
        self.standins = standins

    async def block(self, key: str, turns: int) -> Turns:
        out = Turns()
        async with self.agent.async_session(project=PROJECT, key=key) as chat:
            chat.writer.delivery.put = _timed(chat.writer.delivery.put, out.put)
            with Connections(self.standins, out), _AwaitedWrites(chat, out.write):
                for index in range(turns):
                    text = turn_text(index)
                    t0 = time.perf_counter_ns()
                    await chat.send(text)
                    t1 = time.perf_counter_ns()
                    _wait_delivered(chat)
                    t2 = time.perf_counter_ns()
                    out.turn.append(ms(t1 - t0))
                    out.delivered.append(ms(t2 - t0))
        del out.put[turns:]
        return out

    async def close(self) -> None:
        await self.provider.aclose()


# ---------------------------------------------------------------------------
# the same bytes, checked before timing
# ---------------------------------------------------------------------------

#: Values that are fresh per write by design: the outbox stages a copy of the
#: transcript for each delivery, and the hand loop points at its own file.
_PER_WRITE = ("transcriptPath",)


def _comparable(captured: Captured) -> tuple[str, str, str]:
    body = captured.body
    if captured.path.endswith(("/session-checkpoint-extract", "/session-end")):
        value = json.loads(body)
        for name in _PER_WRITE:
            if name in value:
                value[name] = "<per write>"
        body = json.dumps(value, separators=(",", ":"))
    return captured.side, captured.line, body


def compare(agent_log: Sequence[Captured], hand_log: Sequence[Captured]) -> list[str]:
    """Where the hand loop's requests differ from the Agent's ([] when none does)."""
    problems = []
    if len(agent_log) != len(hand_log):
        problems.append(f"{len(agent_log)} requests from the Agent, {len(hand_log)} by hand")
    for a, h in zip(agent_log, hand_log, strict=False):
        if _comparable(a) != _comparable(h):
            problems.append(f"body of {a.line} differs: {a.body[:120]!r} vs {h.body[:120]!r}")
        elif _pooled(a) and a.headers != h.headers:
            diff = sorted(set(a.headers) ^ set(h.headers))
            problems.append(f"headers of {a.line} differ: {diff}")
    return problems


def _pooled(captured: Captured) -> bool:
    """A request both sides send through a connection pool (the Agent's writes are not)."""
    return captured.side == "model" or not captured.path.endswith(
        ("/session-checkpoint-extract", "/session-end")
    )


def _header_notes(agent_log: Sequence[Captured], hand_log: Sequence[Captured]) -> list[str]:
    """Header differences on the writes (the Agent's go out from its writer thread)."""
    notes = set()
    for a, h in zip(agent_log, hand_log, strict=False):
        if a.path.endswith(("/session-checkpoint-extract", "/session-end")):
            agent_only = sorted(set(a.headers) - set(h.headers))
            hand_only = sorted(set(h.headers) - set(a.headers))
            if agent_only or hand_only:
                notes.add(f"writes: Agent sends {agent_only}, hand loop {hand_only}")
    return sorted(notes)


# ---------------------------------------------------------------------------
# the loop bench
# ---------------------------------------------------------------------------


@dataclass
class Variant:
    """One line of the loop table: a combo, a driver, its figures."""

    combo: Combo
    name: str
    run: Callable[[str, int], Turns]
    turns: Turns = field(default_factory=Turns)


def check_wire(
    standins: StandIns,
    combo: Combo,
    agents: tuple[AgentSync, AgentAsync],
    loop: asyncio.AbstractEventLoop,
    env: dict[str, str],
) -> tuple[Wire, list[str], list[str]]:
    """One session of each driver with the log on: the hand loop's requests must equal the Agent's.

    Returns the wire the hand loops send with, the problems (none, or the
    bench stops) and notes on the writes' headers.
    """
    sync_agent, async_agent = agents
    standins.record(True)
    sync_agent.block(f"check-{combo.slug}", 3)
    agent_log = standins.record(True)
    loop.run_until_complete(async_agent.block(f"check-{combo.slug}", 3))
    async_log = standins.record(True)
    wire = Wire.from_session(combo, standins.daemon_url, agent_log)
    files = transcript_of(env)
    hand = HandSync(wire, standins, files)
    hand_async = HandAsync(wire, standins, files)
    try:
        hand.block(f"check-{combo.slug}", 3)
        hand_log = standins.record(True)
        loop.run_until_complete(hand_async.block(f"check-{combo.slug}", 3))
        hand_async_log = standins.record(False)
    finally:
        hand.close()
        loop.run_until_complete(hand_async.close())
    problems = [f"sync: {p}" for p in compare(agent_log, hand_log)]
    problems += [f"async: {p}" for p in compare(async_log, hand_async_log)]
    problems += [f"Agent async vs sync: {p}" for p in compare(agent_log, async_log)]
    notes = _header_notes(agent_log, hand_log)
    return wire, problems, notes


def transcript_of(env: dict[str, str]) -> Callable[[str], str]:
    from signet_sdk.agent.durable import SessionFiles

    return lambda key: SessionFiles(key, env).transcript


def _on(
    loop: asyncio.AbstractEventLoop, close: Callable[[], Awaitable[None]]
) -> Callable[[], None]:
    """``close`` awaited on ``loop``, as a plain call."""

    async def closing() -> None:
        await close()

    return lambda: loop.run_until_complete(closing())


def _blocks_on(
    loop: asyncio.AbstractEventLoop, block: Callable[[str, int], Awaitable[Turns]]
) -> Callable[[str, int], Turns]:
    """An async driver's ``block`` run on ``loop``, as a plain call."""

    async def run(key: str, turns: int) -> Turns:
        return await block(key, turns)

    return lambda key, turns: loop.run_until_complete(run(key, turns))


def bench_loop(
    standins: StandIns, env: dict[str, str], rounds: int, per_session: int, warmup: int
) -> list[Variant]:
    loop = asyncio.new_event_loop()
    variants: list[Variant] = []
    closers: list[Callable[[], object]] = []
    try:
        for combo in COMBOS:
            agents = (AgentSync(combo, standins, env), AgentAsync(combo, standins, env))
            sync_agent, async_agent = agents
            closers += [sync_agent.close, _on(loop, async_agent.close)]
            wire, problems, notes = check_wire(standins, combo, agents, loop, env)
            if problems:
                print(f"{combo.label}: the hand loop does not send what the Agent sends:")
                for line in problems:
                    print(f"  {line}")
                raise SystemExit(1)
            print(f"wire, {combo.label}: every request body identical (sync and async, 3 turns)")
            for note in notes:
                print(f"  {note}")
            files = transcript_of(env)
            hand = HandSync(wire, standins, files)
            hand_async = HandAsync(wire, standins, files)
            closers += [hand.close, _on(loop, hand_async.close)]
            variants += [
                Variant(combo, "hand loop, raw httpx", hand.block),
                Variant(combo, "Agent, sync session", sync_agent.block),
                Variant(combo, "hand loop, raw aiohttp", _blocks_on(loop, hand_async.block)),
                Variant(combo, "Agent, async session", _blocks_on(loop, async_agent.block)),
            ]
        print()
        for r in range(warmup + rounds):
            start = r % len(variants)
            for v in variants[start:] + variants[:start]:
                gc.collect()
                got = v.run(f"bench-{v.combo.slug}-{variants.index(v)}-{r}", per_session)
                if r >= warmup:
                    v.turns.add(got)
    finally:
        for close in closers:
            close()
        loop.close()
    return variants


def _row(name: str, samples: Sequence[float], ref: Sequence[float] | None = None) -> str:
    if not samples:  # not measured on this path (e.g. no write on the caller's thread)
        return f"  {name:<54}{'-':>8}{'-':>8}"
    p50, p90 = p50_p90(samples)
    line = f"  {name:<54}{p50:>8.3f}{p90:>8.3f}"
    if ref is not None:
        r50, r90 = p50_p90(ref)
        line += f"{p50 - r50:>+9.3f}{p90 - r90:>+9.3f}"
    return line


def report_loop(variants: list[Variant], rounds: int, per_session: int) -> None:
    print(
        f"LOOP, ms per turn: {rounds * per_session} turns per variant in {rounds} sessions of"
        f" {per_session} turns, rotating order"
    )
    print(f"  {'':<54}{'p50':>8}{'p90':>8}{'+p50':>9}{'+p90':>9}")
    for combo in COMBOS:
        hand, agent, hand_a, agent_a = (v for v in variants if v.combo == combo)
        print(f"{combo.label}")
        for h, a in ((hand, agent), (hand_a, agent_a)):
            ht, at = h.turns, a.turns
            checkpoint = [t - b for t, b in zip(ht.turn, ht.before_checkpoint, strict=True)]
            print(_row(f"{h.name} (3 calls)", ht.turn))
            print(_row(f"{a.name}, turn as the caller waits", at.turn, ht.turn))
            print(_row("  the same until its checkpoint is delivered", at.delivered, ht.turn))
            print(_row("  its outbox put (on the writer thread, off the turn)", at.put))
            print(_row("  hand loop: posting the checkpoint", checkpoint))
            turns = len(at.turn)
            print(
                f"  new connections per turn: hand loop {ht.model_connections / turns:.2f} model"
                f" + {ht.daemon_connections / turns:.2f} daemon; Agent"
                f" {at.model_connections / turns:.2f} model + {at.daemon_connections / turns:.2f}"
                " daemon"
            )
    print("  +p50/+p90: the Agent's figure less the hand loop's (same driver kind)\n")


# ---------------------------------------------------------------------------
# where the loop's time goes: the same turn with the network taken out
# ---------------------------------------------------------------------------

#: Turns of history before the turn taken apart (the middle of a timed session).
HISTORY_TURNS = 5


def _canned(combo: Combo) -> dict[str, bytes]:
    """The stand-ins' answer bodies by path: what the stubbed network gives back."""
    from _agent_standins import DAEMON_ANSWERS, MODEL_ANSWERS

    found = {
        path.decode(): answer.split(b"\r\n\r\n", 1)[1]
        for (_, path), answer in DAEMON_ANSWERS.items()
    }
    model_path = "/v1/messages" if combo.provider == "anthropic" else "/v1/chat/completions"
    found[model_path] = MODEL_ANSWERS[model_path.encode(), False].split(b"\r\n\r\n", 1)[1]
    return found


def best_us(step: Callable[[], object], count: int, repeats: int) -> float:
    """Microseconds per call of ``step``: the best of ``repeats`` runs of ``count`` calls."""
    best = float("inf")
    for _ in range(repeats):
        gc.collect()
        t0 = time.perf_counter_ns()
        for _ in range(count):
            step()
        best = min(best, (time.perf_counter_ns() - t0) / count / 1000)
    return best


@dataclass
class Breakdown:
    """Microseconds per turn, one more part of the Agent's turn stubbed at each step."""

    combo: Combo
    steps: list[tuple[str, float]] = field(default_factory=list)
    parts: list[tuple[str, float]] = field(default_factory=list)
    hand: float = 0.0


class _StubbedNetwork:
    """``HttpxIO.send`` answering from ``canned`` at once, for as long as the block lasts."""

    def __init__(self, canned: dict[str, bytes]) -> None:
        import httpx

        self.canned = canned
        self.headers = httpx.Headers({"content-type": "application/json"})

    def __enter__(self) -> None:
        from signet_sdk.client.io import HttpxIO

        canned, headers = self.canned, self.headers

        def send(io: Any, request: Any, timeout: float | None) -> tuple[int, Any, bytes]:
            return 200, headers, canned[urlsplit(request.url).path]

        self.real = HttpxIO.send
        HttpxIO.send = send  # type: ignore[assignment]

    def __exit__(self, *exc: object) -> None:
        from signet_sdk.client.io import HttpxIO

        HttpxIO.send = self.real  # type: ignore[method-assign]


def _dropper(root: str) -> Callable[..., str]:
    """A delivery that only removes the entry, as a delivered one is removed."""

    def dropped(entry_id: str, *rest: object) -> str:
        for suffix in (".json", ".transcript"):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(os.path.join(root, entry_id + suffix))
        return "sent"

    return dropped


def breakdown(combo: Combo, env: dict[str, str], count: int, repeats: int) -> Breakdown:
    """A sync JSON turn of the Agent with the network stubbed where the SDK sends.

    Everything else is real: the plan, the daemon client's request and typed
    answer, the codec, the transcript, the outbox put (three fsyncs) and the
    writer thread (whose delivery only drops the entry). Then the same turn
    with one more part stubbed at each step, so each difference is what that
    part costs; then the parts on their own; then the hand loop's own work
    (the same bodies built, the same answers read) without the network.
    """
    canned = _canned(combo)
    provider = make_provider(combo, "http://127.0.0.1:9", env, asynchronous=False)
    agent = make_agent(provider, combo, "http://127.0.0.1:9", env)
    out = Breakdown(combo)
    try:
        with (
            _StubbedNetwork(canned),
            agent.session(project=PROJECT, key=f"parts-{combo.slug}") as chat,
        ):
            body = _take_apart(chat, provider, combo, count, repeats, out)
    finally:
        provider.close()
    out.hand = _hand_work(combo, body, canned, count, repeats)
    return out


def _take_apart(
    chat: Any, provider: Any, combo: Combo, count: int, repeats: int, out: Breakdown
) -> dict[str, Any]:
    """Fill ``out`` from an open session; the model body of the turn taken apart."""
    from signet_sdk.wire.lifecycle import LifecycleCall

    delivery, state, writer = chat.writer.delivery, chat.state, chat.writer._writer
    dropped = _dropper(delivery.outbox().root)
    delivery.deliver = dropped
    for index in range(HISTORY_TURNS):
        chat.send(turn_text(index))
        _wait_delivered(chat)
    length, starts, _ = chat.state_mark()
    last = state.last_reply
    text = turn_text(HISTORY_TURNS)
    transcript_size = os.path.getsize(state.transcript_path)

    def turn() -> None:
        chat.send(text)
        _wait_delivered(chat)
        # Back to the turn before, transcript included: every timed turn is the sixth.
        state.rollback(length, starts)
        state.last_reply = last
        os.truncate(state.transcript_path, transcript_size)

    put, submit = delivery.put, writer.submit
    append, request = state.append_transcript, provider.codec.request
    model, history, options = MODELS[combo.provider], state.history[:length], state.options()
    built: list[Any] = []

    def kept(*args: Any) -> Any:
        built.append(request(*args))
        return built[-1]

    provider.codec.request = kept
    turn()  # the model request of the timed turn, kept for the last step
    provider.codec.request = request

    def stubbed(step: int) -> None:
        """Stub the first ``step`` parts (0: none), restore the others."""
        delivery.put = (lambda call: _STUB_ENTRY) if step >= 1 else put
        writer.submit = (lambda entry_id: None) if step >= 2 else submit
        state.append_transcript = _ignore if step >= 3 else append
        provider.codec.request = (lambda *args: built[0]) if step >= 4 else request

    labels = [
        "whole turn, network stubbed",
        "less the outbox put",
        "less the writer thread",
        "less the transcript appends",
        "less building the model request",
    ]
    best = [float("inf")] * len(labels)
    try:
        for _ in range(repeats):  # interleaved, so a busy moment spoils one run of each
            for step in range(len(labels)):
                stubbed(step)
                best[step] = min(best[step], best_us(turn, count, 1))
    finally:
        stubbed(0)
    out.steps = list(zip(labels, best, strict=True))
    os.truncate(state.transcript_path, transcript_size)

    call = LifecycleCall(
        "session_checkpoint_extract",
        {"sessionKey": chat.key, "project": PROJECT, "transcriptPath": state.transcript_path},
    )
    line = json.dumps({"role": "user", "content": text}) + "\n"
    body: dict[str, Any] = json.loads(request(model, history, options, False).content)

    def writer_round() -> None:
        submit("stub")
        _wait_delivered(chat)

    out.parts = [
        (
            "the outbox put of a checkpoint (Delivery.put)",
            best_us(lambda: dropped(put(call).id), 50, repeats),
        ),
        ("the writer thread: started, delivers, ends", best_us(writer_round, count, repeats)),
        ("two transcript appends", best_us(lambda: (append(line), append(line)), count, repeats)),
        (
            f"the model request, {HISTORY_TURNS} turns of history (codec.request)",
            best_us(lambda: request(model, history, options, False), count, repeats),
        ),
        (
            "  of which the tool specs made JSON-able",
            best_us(_tools_step(combo, options), count, repeats),
        ),
        (
            "the same body by json.dumps, as the hand loop",
            best_us(lambda: dumps(body), count, repeats),
        ),
        ("an asyncio.to_thread hop (the async session's write)", _to_thread_us(count, repeats)),
    ]
    return body


_STUB_ENTRY = type("StubEntry", (), {"id": "stub"})()


def _ignore(*args: object) -> None:
    return None


def _tools_step(combo: Combo, options: Any) -> Callable[[], object]:
    from signet_sdk.agent.providers import anthropic, openai

    if combo.provider == "anthropic":
        return lambda: anthropic._tools(options.tools)
    return lambda: [openai.openai_tool(spec) for spec in options.tools]


def _to_thread_us(count: int, repeats: int) -> float:
    async def hops() -> float:
        t0 = time.perf_counter_ns()
        for _ in range(count):
            await asyncio.to_thread(_ignore)
        return (time.perf_counter_ns() - t0) / count / 1000

    return min(asyncio.run(hops()) for _ in range(repeats))


def _hand_work(
    combo: Combo, model_body: dict[str, Any], canned: dict[str, bytes], count: int, repeats: int
) -> float:
    """The hand loop's turn without the network: its three bodies built, its answers read."""
    prefix = dict(model_body)
    messages = prefix.pop("messages")
    first = messages[:1] if combo.provider == "openai" else []
    wire = Wire(combo, "", "", prefix, first, {}, {}, {})
    session = HandSession(wire, f"parts-{combo.slug}", "/srv/atlas/transcript.jsonl")
    prompt_answer = canned["/api/hooks/user-prompt-submit"]
    model_answer = canned[
        "/v1/messages" if combo.provider == "anthropic" else "/v1/chat/completions"
    ]

    def turn(index: int) -> None:
        text = turn_text(index)
        session.prompt_body(text)
        inject = json.loads(prompt_answer)["inject"]
        session.model_body(text, inject)
        session.took(wire.reply_of(json.loads(model_answer)))
        session.checkpoint_body()

    for index in range(HISTORY_TURNS):
        turn(index)
    kept, last = len(session.messages), session.last

    def timed() -> None:
        turn(HISTORY_TURNS)
        del session.messages[kept:]
        session.last = last

    return best_us(timed, count, repeats)


def report_breakdown(found: list[Breakdown], count: int, repeats: int) -> None:
    print(
        f"WHERE THE TIME GOES: a sync JSON turn with {HISTORY_TURNS} turns of history, network"
        f" stubbed at HttpxIO.send; µs per turn, best of {repeats} x {count}"
    )
    print(f"  {'':<58}" + "".join(f"{b.combo.provider:>12}" for b in found))
    labels = [label for label, _ in found[0].steps]
    for row, label in enumerate(labels):
        values = [b.steps[row][1] for b in found]
        cost = "".join(f"{v:>12.1f}" for v in values)
        print(f"  {label:<58}{cost}")
        if row:
            saved = "".join(f"{b.steps[row - 1][1] - b.steps[row][1]:>+12.1f}" for b in found)
            print(f"  {'    (that part: the difference)':<58}{saved}")
    print(
        f"  {'the hand loop, network stubbed (its bodies and answers)':<58}"
        + "".join(f"{b.hand:>12.1f}" for b in found)
    )
    print("  the parts on their own:")
    for row, (label, _) in enumerate(found[0].parts):
        print(f"    {label:<56}" + "".join(f"{b.parts[row][1]:>12.1f}" for b in found))
    print()


# ---------------------------------------------------------------------------
# the research phase
# ---------------------------------------------------------------------------

RESEARCH_MS = (50, 100, 150)


def research_tools(asynchronous: bool) -> list[Any]:
    """Three before-generation tools that sleep 50, 100 and 150 ms."""
    from signet_sdk.agent import tool

    made = []
    for delay in RESEARCH_MS:
        if asynchronous:
            made.append(tool(name=f"look_{delay}ms", research=True)(_async_sleeper(delay)))
        else:
            made.append(tool(name=f"look_{delay}ms", research=True)(_sleeper(delay)))
    return made


def _sleeper(delay: int) -> Callable[[str], str]:
    def look(query: str) -> str:
        """Looks the turn up somewhere slow."""
        time.sleep(delay / 1000)
        return f"{len(query)} characters looked up in {delay} ms"

    return look


def _async_sleeper(delay: int) -> Callable[[str], Awaitable[str]]:
    async def look(query: str) -> str:
        """Looks the turn up somewhere slow."""
        await asyncio.sleep(delay / 1000)
        return f"{len(query)} characters looked up in {delay} ms"

    return look


def bench_research(
    standins: StandIns, env: dict[str, str], turns: int
) -> dict[tuple[str, str], tuple[list[float], list[float]]]:
    """Per (session kind, tool kind): the phase's time and the whole turn's, per turn, in ms."""
    from signet_sdk.agent import Agent

    combo = Combo("anthropic", False)
    loop = asyncio.new_event_loop()
    found: dict[tuple[str, str], tuple[list[float], list[float]]] = {}

    def agent_of(provider: Any, tools: list[Any]) -> Any:
        return Agent(
            provider,
            instructions=INSTRUCTIONS,
            daemon_url=standins.daemon_url,
            env=env,
            tools=tools,
            memory_tools=False,
            stream=False,
        )

    async def run_async(agent: Any, phases: list[float], whole: list[float]) -> None:
        async with agent.async_session(project=PROJECT) as chat:
            _time_prepare_async(chat, phases)
            for index in range(turns + 1):
                t0 = time.perf_counter_ns()
                await chat.send(turn_text(index))
                whole.append(ms(time.perf_counter_ns() - t0))
                _wait_delivered(chat)

    try:
        for tools_kind in ("def", "async def"):
            tools = research_tools(tools_kind == "async def")
            provider = make_provider(combo, standins.model_url, env, asynchronous=False)
            phases: list[float] = []
            whole: list[float] = []
            with agent_of(provider, tools).session(project=PROJECT) as chat:
                _time_prepare_sync(chat, phases)
                for index in range(turns + 1):
                    t0 = time.perf_counter_ns()
                    chat.send(turn_text(index))
                    whole.append(ms(time.perf_counter_ns() - t0))
                    _wait_delivered(chat)
            provider.close()
            found["sync", tools_kind] = phases[1:], whole[1:]  # the first turn warms up

            async_provider = make_provider(combo, standins.model_url, env, asynchronous=True)
            phases, whole = [], []
            loop.run_until_complete(run_async(agent_of(async_provider, tools), phases, whole))
            loop.run_until_complete(async_provider.aclose())
            found["async", tools_kind] = phases[1:], whole[1:]
    finally:
        loop.close()
    return found


def _time_prepare_sync(chat: Any, sink: list[float]) -> None:
    prepare = chat._prepare

    def timed(effect: Any) -> Any:
        t0 = time.perf_counter_ns()
        try:
            return prepare(effect)
        finally:
            sink.append(ms(time.perf_counter_ns() - t0))

    chat._prepare = timed


def _time_prepare_async(chat: Any, sink: list[float]) -> None:
    prepare = chat._prepare

    async def timed(effect: Any) -> Any:
        t0 = time.perf_counter_ns()
        try:
            return await prepare(effect)
        finally:
            sink.append(ms(time.perf_counter_ns() - t0))

    chat._prepare = timed


def report_research(found: dict[tuple[str, str], tuple[list[float], list[float]]]) -> None:
    slowest, total = max(RESEARCH_MS), sum(RESEARCH_MS)
    turns = len(next(iter(found.values()))[0])
    print(
        f"RESEARCH, three tools sleeping {', '.join(map(str, RESEARCH_MS))} ms, {turns} turns"
        " each (the prompt recall runs beside them)"
    )
    print(
        f"  {'session':<8}{'tools':<11}{'phase p50':>10}{'p90':>8}{'max':>8}"
        f"{'over ' + str(slowest):>10}{'/ ' + str(total):>8}{'turn p50':>10}"
    )
    for (session, kind), (phases, whole) in found.items():
        p50, p90 = p50_p90(phases)
        print(
            f"  {session:<8}{kind:<11}{p50:>10.1f}{p90:>8.1f}{max(phases):>8.1f}"
            f"{p50 - slowest:>+10.1f}{p50 / total:>8.2f}{statistics.median(whole):>10.1f}"
        )
    print("  phase = the Prepare step (recall and research together); ms\n")


# ---------------------------------------------------------------------------
# import time
# ---------------------------------------------------------------------------

IMPORTS = [
    ("import signet_sdk.agent", "import signet_sdk.agent"),
    (
        "from signet_sdk.agent import Agent, AnthropicProvider, OpenAIProvider",
        "from signet_sdk.agent import Agent, AnthropicProvider, OpenAIProvider",
    ),
    (
        "  ... then AnthropicProvider(...) and Agent(...)",
        "from signet_sdk.agent import Agent, AnthropicProvider, OpenAIProvider\n"
        "env = {'ANTHROPIC_API_KEY': 'sk-bench', 'HOME': '/nonexistent'}\n"
        "Agent(AnthropicProvider('claude-sonnet-4-6', env=env), env=env)",
    ),
    ("import signet_sdk.tools", "import signet_sdk.tools"),
    ("import httpx", "import httpx"),
    ("import pydantic", "import pydantic"),
    ("import anthropic", "import anthropic"),
    ("import openai", "import openai"),
]

_PROBE = """
import sys, time
before = len(sys.modules)
t0 = time.perf_counter()
{code}
took = time.perf_counter() - t0
print(took, len(sys.modules) - before)
"""


def bench_imports(runs: int) -> dict[str, tuple[list[float], int]]:
    """Per statement: its time in ms in each fresh interpreter, and the modules it loaded."""
    found: dict[str, tuple[list[float], int]] = {label: ([], 0) for label, _ in IMPORTS}
    env = {k: v for k, v in os.environ.items() if not k.startswith("SIGNET_")}
    for _ in range(runs):
        for label, code in IMPORTS:
            done = subprocess.run(
                [sys.executable, "-c", _PROBE.format(code=code)],
                env=env,
                capture_output=True,
                text=True,
                check=True,
            )
            seconds, modules = done.stdout.split()
            found[label][0].append(float(seconds) * 1000)
            found[label] = (found[label][0], int(modules))
    return found


def report_imports(found: dict[str, tuple[list[float], int]], runs: int) -> None:
    print(f"IMPORTS, a fresh interpreter per statement, {runs} runs each, interleaved")
    print(f"  {'statement':<72}{'best ms':>9}{'median':>9}{'modules':>9}")
    for label, (times, modules) in found.items():
        print(f"  {label:<72}{min(times):>9.1f}{statistics.median(times):>9.1f}{modules:>9}")
    print()


# ---------------------------------------------------------------------------


@dataclass
class Private:
    """A private HOME and state folder for the whole run, removed afterwards."""

    folder: tempfile.TemporaryDirectory[str] = field(
        default_factory=lambda: tempfile.TemporaryDirectory(prefix="bench-agent-")
    )

    def env(self) -> dict[str, str]:
        base = self.folder.name
        os.makedirs(os.path.join(base, "home"), exist_ok=True)
        env = {k: v for k, v in os.environ.items() if not k.startswith("SIGNET_")}
        env.update(
            HOME=os.path.join(base, "home"),
            XDG_STATE_HOME=os.path.join(base, "state"),
            ANTHROPIC_API_KEY="sk-ant-bench",
            OPENAI_API_KEY="sk-bench",
        )
        return env


@dataclass
class Stopwatch:
    started: float = field(default_factory=time.monotonic)

    def __str__(self) -> str:
        return f"{time.monotonic() - self.started:.0f} s"


def versions() -> Iterator[str]:
    from importlib.metadata import PackageNotFoundError, version

    for name in ("httpx", "aiohttp", "pydantic", "anthropic", "openai"):
        try:
            yield f"{name} {version(name)}"
        except PackageNotFoundError:
            yield f"{name} (not installed)"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="a short smoke run")
    ap.add_argument(
        "--only", choices=PARTS, action="append", help="run only this part (repeatable)"
    )
    ap.add_argument("--rounds", type=int, default=30, help="timed sessions per loop variant")
    ap.add_argument("--turns", type=int, default=10, help="turns per session")
    ap.add_argument("--warmup", type=int, default=2, help="untimed rounds first")
    ap.add_argument("--parts-turns", type=int, default=200, help="turns per timed run (parts)")
    ap.add_argument("--parts-repeats", type=int, default=7, help="timed runs, best kept (parts)")
    ap.add_argument("--research-turns", type=int, default=20)
    ap.add_argument("--import-runs", type=int, default=15)
    args = ap.parse_args()
    if args.quick:
        args.rounds, args.turns, args.warmup = 3, 5, 1
        args.parts_turns, args.parts_repeats = 20, 2
        args.research_turns, args.import_runs = 3, 3
    parts = set(args.only or PARTS)

    private = Private()
    env = private.env()
    # The process's own environment too: whatever reads os.environ sees the same folders.
    for name in [k for k in os.environ if k.startswith("SIGNET_")]:
        del os.environ[name]
    os.environ.update(env)

    print(f"signet-sdk agent benchmark, {dt.datetime.now().isoformat(timespec='seconds')}")
    print(
        f"python {platform.python_version()}, {', '.join(versions())}, {os.cpu_count()} cores,"
        f" {platform.machine()}"
    )
    print(f"load average at start: {load()}")
    print(f"command: python bench/bench_agent.py {' '.join(sys.argv[1:])}".rstrip())
    watch = Stopwatch()
    standins = StandIns()
    try:
        print(f"stand-ins: one process, daemon {standins.daemon_url}, model {standins.model_url}")
        print(f"state: {env['XDG_STATE_HOME']}\n")
        if "loop" in parts:
            variants = bench_loop(standins, env, args.rounds, args.turns, args.warmup)
            report_loop(variants, args.rounds, args.turns)
            print(f"load average after the loop: {load()} ({watch})\n")
        if "parts" in parts:
            found = [
                breakdown(combo, env, args.parts_turns, args.parts_repeats)
                for combo in COMBOS
                if not combo.stream
            ]
            report_breakdown(found, args.parts_turns, args.parts_repeats)
        if "research" in parts:
            report_research(bench_research(standins, env, args.research_turns))
    finally:
        standins.stop()
        private.folder.cleanup()
    if "imports" in parts:
        report_imports(bench_imports(args.import_runs), args.import_runs)
    print(f"load average at end: {load()} ({watch})")


if __name__ == "__main__":
    main()
