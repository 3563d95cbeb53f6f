# long module: the load scenario is one story (lanes, the daemon's crash, the count) read top down
"""The load scenario: many harness sessions at once, a daemon that crashes under them.

``bench_load.py`` runs it at full size and ``tests/real_daemon/test_load_restart.py``
runs it small; both through :func:`run_load`. Not a benchmark itself.

A *lane* is one harness running session after session, a turn at a time:

* command hooks, each event one ``signet-sdk hook <harness> <Event>`` process
  with the harness's payload on stdin: Claude Code (a transcript under
  ``CLAUDE_CONFIG_DIR/projects``), Codex (a rollout under ``CODEX_HOME``,
  its ``compacted`` line read by PostCompact) and a harness nobody packaged
  (``custom-agent``: the contract's own events, ``remember`` included);
* plugin harnesses, each event one ``POST /v1/<harness>/events/<event>`` to
  one ``signet-sdk serve``: pi (its session file under the private HOME) and
  Hermes Agent (``on_memory_write`` remembers; a compaction is Hermes's
  pre-compress, extraction, switch and the summary in the next turn).

Every turn is a prompt, the reply written to the harness's transcript and
the checkpoint; some turns remember a fact; half-way through each session
it is compacted with a summary of its own; the session then ends. Every
prompt, remembered fact and summary carries a marker no other write has,
so the daemon's own API can be asked afterwards what it stored and how
often. All lanes share one private HOME and state directory, as one
user's harnesses do: one outbox, one circuit breaker, one sender.

Part-way through, the real daemon is killed with SIGKILL and started again
on the same port and data (:meth:`RealDaemon.kill`, :meth:`RealDaemon.restart`);
the lanes go on meanwhile. The kill cuts whatever is in flight, or, as a
*quiet kill*, comes once the lanes wait between two events and the outbox is
empty. What the daemon could not take waits in the outbox for the detached
sender, which is given ``flush_seconds``; the count starts once
``signet-sdk outbox status --json`` shows it empty.
"""

from __future__ import annotations

import http.client
import json
import math
import os
import statistics
import subprocess
import sys
import threading
import time
import urllib.parse
import urllib.request
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from signet_sdk.runtime.generic import generic_plugin
from signet_sdk.runtime.plugin import HarnessPlugin
from signet_sdk.runtime.registry import find_plugin
from signet_sdk.testing.real_daemon import RealDaemon
from signet_sdk.testing.serve_process import ServeProcess
from signet_sdk.wire.config import resolve_config

#: The ``signet-sdk`` command of this interpreter's environment.
SDK = str(Path(sys.executable).parent / "signet-sdk")
#: The project every session works in. Not under /tmp: the daemon takes a
#: temporary project for a test run and keeps no summary of it.
PROJECT = "/srv/atlas"
#: The harness nobody packaged: its events are the contract's own.
CUSTOM = "custom-agent"
#: Lane kinds in the order lanes are dealt out (so any count mixes both paths).
KINDS = ("claude-code", "pi", "codex", "hermes-agent", CUSTOM)
#: How the daemon shows each kind of write, as printed beside its count.
WHERE = {
    "remember": "GET /api/memories (content)",
    "compaction summary": "GET /api/memories (type session_summary)",
    "summary node": "GET /api/sessions/summaries (source_type compaction)",
    "session transcript": "GET /api/sessions/:key/transcript",
    "turn in transcript": "GET /api/sessions/:key/transcript (content)",
}


# -- what was done, and how long it took -------------------------------------


@dataclass(frozen=True)
class Timed:
    """One harness event: which, over which path, how long, against which deadline."""

    harness: str
    event: str
    path: str  # "hook process" or "adapter server"
    seconds: float
    deadline: float
    started: float  # time.monotonic() at its start


@dataclass
class Expected:
    """Everything the lanes wrote, by marker: what the daemon must hold once each."""

    remembers: list[str] = field(default_factory=list)
    summaries: list[str] = field(default_factory=list)
    #: session key -> (harness, the turn markers its last transcript holds)
    transcripts: dict[str, tuple[str, list[str]]] = field(default_factory=dict)


@dataclass(frozen=True)
class Count:
    """One row of the result: how many of a kind of write the daemon holds once."""

    kind: str
    expected: int
    once: int
    missing: list[str]
    duplicated: list[str]

    @property
    def ok(self) -> bool:
        return not self.missing and not self.duplicated and self.once == self.expected


@dataclass
class Outage:
    """When the daemon was killed and when it answered again (monotonic seconds)."""

    killed_at: float = 0.0
    back_at: float = 0.0
    turns_before: int = 0
    restart_seconds: float = 0.0


@dataclass
class LoadResult:
    """What :func:`run_load` measured and counted."""

    lanes: list[str]
    turns: int
    timed: list[Timed]
    counts: list[Count]
    outage: Outage
    drained_seconds: float
    pending: int
    dead: list[dict[str, Any]]
    flushes: int
    problems: list[str]
    hooks_log: dict[str, int]
    wall_seconds: float

    def over_deadline(self, margin: float = 0.0) -> list[Timed]:
        return [t for t in self.timed if t.seconds > t.deadline + margin]

    def stored_once(self) -> bool:
        """Every write stored once, but a compaction summary sent again because a killed
        daemon left it half done (said in ``hooks.log``): that one is stored twice."""
        again = self.hooks_log.get(RESENT_AFTER_CUT, 0)
        for c in self.counts:
            if c.kind not in ("compaction summary", "summary node"):
                if not c.ok:
                    return False
            elif c.missing or len(c.duplicated) != again or c.once + again != c.expected:
                return False
        return True

    def ok(self, margin: float = 0.0) -> bool:
        return (
            self.stored_once()
            and not self.over_deadline(margin)
            and not self.problems
            and self.pending == 0
            and not self.dead
        )


#: The ``hooks.log`` count of compaction summaries sent again after a cut.
RESENT_AFTER_CUT = "summaries sent again after a cut"


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q`` quantile (0-1) of ``values``, nearest rank."""
    ordered = sorted(values)
    if not ordered:
        return 0.0
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))]


# -- the world every lane shares -----------------------------------------------


class World:
    """The private HOME and state directory, the daemon, the adapter server, the tally."""

    def __init__(self, base: Path, daemon: RealDaemon, *, think: float, env: dict[str, str]):
        self.base = base
        self.home = base / "home"
        self.daemon = daemon
        self.think = think
        self.env = env
        self.run = uuid.uuid4().hex[:6]
        self.expected = Expected()
        self.timed: list[Timed] = []
        self.problems: list[str] = []
        self.turns_done = 0
        self.lock = threading.Lock()
        #: Closed while the daemon is killed between turns (a quiet kill); lanes
        #: reaching it wait, counted in ``held``.
        self.gate = threading.Condition(self.lock)
        self.gate_open = True
        self.held = 0
        self.server: ServeProcess | None = None
        self._plugins: dict[str, HarnessPlugin] = {}
        self._timeouts = resolve_config(env=env).timeouts

    def marker(self, kind: str, lane: int, session: int, index: int) -> str:
        """A word no other write of this run contains (letters and digits only)."""
        return f"{kind}{self.run}x{lane:02d}x{session}x{index:02d}q"

    def deadline(self, harness: str, event: str) -> float:
        """The event's deadline, as the hook runner and the server compute it."""
        plugin = self._plugins.get(harness)
        if plugin is None:
            plugin = find_plugin(harness) or generic_plugin(harness)
            self._plugins[harness] = plugin
        spec = plugin.events.get(event)
        return self._timeouts.for_class(spec.timeout_class if spec else "default") or 10.0

    def record(self, timed: Timed) -> None:
        with self.lock:
            self.timed.append(timed)

    def problem(self, text: str) -> None:
        with self.lock:
            self.problems.append(text)

    def turn_done(self) -> None:
        with self.lock:
            self.turns_done += 1

    def hook(self, harness: str, event: str, payload: dict[str, Any]) -> bytes:
        """Run one hook event as the harness does; its stdout (the exit code must be 0)."""
        deadline = self.deadline(harness, event)
        started = time.monotonic()
        try:
            done = subprocess.run(
                [SDK, "hook", harness, event],
                input=json.dumps(payload).encode(),
                capture_output=True,
                env=self.env,
                timeout=deadline + 60,
                check=False,
            )
        except subprocess.TimeoutExpired:
            done = subprocess.CompletedProcess(
                [], -1, b"", b"still running a minute past its deadline"
            )
        self.record(
            Timed(harness, event, "hook process", time.monotonic() - started, deadline, started)
        )
        if done.returncode != 0:
            self.problem(f"hook {harness} {event} exited {done.returncode}: {done.stderr[-300:]!r}")
        return done.stdout

    def post(self, harness: str, event: str, payload: dict[str, Any]) -> dict[str, Any]:
        """Post one native event to the adapter server as a shim does; its answer."""
        assert self.server is not None
        deadline = self.deadline(harness, event)
        started = time.monotonic()
        try:
            answer = self.server.post(event, payload, timeout=deadline + 60, harness=harness)
        except (OSError, http.client.HTTPException, ValueError) as exc:
            self.problem(f"server {harness} {event}: {type(exc).__name__}: {exc}")
            answer = {}
        self.record(
            Timed(harness, event, "adapter server", time.monotonic() - started, deadline, started)
        )
        return answer

    def pause(self) -> None:
        """The time between two events, after waiting at the gate if it is closed."""
        with self.gate:
            if not self.gate_open:
                self.held += 1
                self.gate.notify_all()
                self.gate.wait_for(lambda: self.gate_open)
                self.held -= 1
        if self.think > 0:
            time.sleep(self.think)


# -- lanes ---------------------------------------------------------------------


def _apply_carry(carry: dict[str, Any], answer: Any) -> None:
    """Keep what a plugin's answer asks its shim to carry (None deletes), as the shim does."""
    data = answer.get("data") if isinstance(answer, dict) else None
    asked = data.get("carry") if isinstance(data, dict) else None
    for key, value in (asked if isinstance(asked, dict) else {}).items():
        if value is None:
            carry.pop(key, None)
        else:
            carry[key] = value


def _jsonl(path: Path, *items: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as fh:
        fh.writelines(json.dumps(item) + "\n" for item in items)


class Lane:
    """One harness: ``turns`` turns in sessions of ``session_turns``, one event at a time."""

    harness: str = ""
    #: Whether this harness turns a remembered fact into a lifecycle write.
    remembers = False
    #: Where a turn's marker goes. The reply, which reaches the daemon only in a
    #: transcript (checkpoint, session end): the daemon also keeps the prompts it
    #: is sent, and a marker there is found even if no transcript arrived.
    marks_prompt = False

    def __init__(self, world: World, index: int, turns: int, session_turns: int) -> None:
        self.world = world
        self.index = index
        self.turns = turns
        self.session_turns = session_turns
        self.session = 0
        self.key = ""

    def run(self) -> None:
        try:
            left, session = self.turns, 0
            while left > 0:
                n = min(self.session_turns, left)
                self.play(session, n)
                left -= n
                session += 1
        except Exception as exc:  # reported, never swallowed: the run then fails
            self.world.problem(f"lane {self.index} ({self.harness}): {type(exc).__name__}: {exc}")

    def play(self, session: int, n: int) -> None:
        """One session: start, ``n`` turns (compacted after the middle one), end."""
        w = self.world
        self.session = session
        compact_after = max(n // 2, 1) if n >= 3 else -1
        self.begin()
        kept: list[str] = []  # turn markers the session's last transcript holds
        for t in range(n):
            w.pause()
            turn = w.marker("t", self.index, session, t)
            asked = f" ({turn})" if self.marks_prompt else ""
            said = "" if self.marks_prompt else f" ({turn})"
            self.prompt(t, f"For the atlas release, what is left in step {t}{asked}?")
            self.reply(t, f"Step {t}{said} needs the migrations reviewed first.")
            kept.append(turn)
            if self.remembers and t % 3 == 1:
                fact = w.marker("r", self.index, session, t)
                self.remember(f"Atlas release note {fact}: staging runs on pg-staging-{t}.")
                with w.lock:
                    w.expected.remembers.append(fact)
            if t == compact_after:
                summary = w.marker("c", self.index, session, t)
                kept = self.compact(f"Atlas release so far, summary {summary}.", kept)
                with w.lock:
                    w.expected.summaries.append(summary)
            w.turn_done()
        w.pause()
        self.end()
        with w.lock:
            w.expected.transcripts[self.key] = (self.harness, kept)

    # What each harness does; ``reply`` writes the turn and makes the checkpoint.
    def begin(self) -> None:
        raise NotImplementedError

    def prompt(self, t: int, text: str) -> None:
        raise NotImplementedError

    def reply(self, t: int, answer: str) -> None:
        raise NotImplementedError

    def remember(self, content: str) -> None:
        raise NotImplementedError

    def compact(self, summary: str, kept: list[str]) -> list[str]:
        """Compact the session; the turn markers its transcript holds afterwards."""
        raise NotImplementedError

    def end(self) -> None:
        raise NotImplementedError


class ClaudeLane(Lane):
    """Claude Code: command hooks; the transcript is the session's JSONL file."""

    harness = "claude-code"

    def begin(self) -> None:
        self.key = str(uuid.uuid4())
        self.file = self.world.home / ".claude" / "projects" / "-srv-atlas" / f"{self.key}.jsonl"
        self.event("SessionStart", source="startup", model="claude-opus-4-8")

    def event(self, name: str, **extra: Any) -> None:
        payload = {
            "session_id": self.key,
            "transcript_path": str(self.file),
            "cwd": PROJECT,
            "permission_mode": "default",
            "hook_event_name": name,
            **extra,
        }
        self.world.hook(self.harness, name, payload)

    def prompt(self, t: int, text: str) -> None:
        self.event("UserPromptSubmit", prompt=text)
        _jsonl(self.file, {"type": "user", "message": {"role": "user", "content": text}})

    def reply(self, t: int, answer: str) -> None:
        message = {"role": "assistant", "content": [{"type": "text", "text": answer}]}
        _jsonl(self.file, {"type": "assistant", "message": message})
        self.event("Stop", stop_hook_active=False, last_assistant_message=answer)

    def compact(self, summary: str, kept: list[str]) -> list[str]:
        self.event("PreCompact", trigger="auto", custom_instructions=None)
        boundary = {
            "type": "system",
            "subtype": "compact_boundary",
            "content": "Conversation compacted",
        }
        note = {"role": "user", "content": f"This session continues from a summary: {summary}"}
        _jsonl(self.file, boundary, {"type": "user", "isCompactSummary": True, "message": note})
        self.event("PostCompact", trigger="auto", compact_summary=summary)
        return kept  # the file keeps every turn

    def end(self) -> None:
        self.event("SessionEnd", reason="other")


class CodexLane(Lane):
    """Codex: command hooks; the transcript is the rollout, its summary a ``compacted`` line."""

    harness = "codex"
    #: The daemon (0.145.8) keeps only the user's lines of a Codex rollout.
    marks_prompt = True

    def begin(self) -> None:
        self.key = str(uuid.uuid4())
        folder = self.world.home / ".codex" / "sessions" / "2026" / "11" / "24"
        self.file = folder / f"rollout-2026-11-24T09-30-00-{self.key}.jsonl"
        _jsonl(self.file, {"type": "session_meta", "payload": {"id": self.key, "cwd": PROJECT}})
        self.turn_id = ""
        self.event("SessionStart", source="startup")

    def event(self, name: str, **extra: Any) -> None:
        payload = {
            "session_id": self.key,
            "transcript_path": str(self.file),
            "cwd": PROJECT,
            "model": "gpt-5.5",
            "permission_mode": "default",
            "hook_event_name": name,
            **extra,
        }
        self.world.hook(self.harness, name, payload)

    def item(self, role: str, text: str) -> None:
        """One message as Codex writes it: the model's item, then the event the UI shows."""
        kind = "input_text" if role == "user" else "output_text"
        item = {"type": "message", "role": role, "content": [{"type": kind, "text": text}]}
        said = "user_message" if role == "user" else "agent_message"
        _jsonl(
            self.file,
            {"type": "response_item", "payload": item},
            {"type": "event_msg", "payload": {"type": said, "message": text}},
        )

    def prompt(self, t: int, text: str) -> None:
        self.turn_id = str(uuid.uuid4())
        self.event("UserPromptSubmit", turn_id=self.turn_id, prompt=text)
        self.item("user", text)

    def reply(self, t: int, answer: str) -> None:
        self.item("assistant", answer)
        self.event(
            "Stop", turn_id=self.turn_id, stop_hook_active=False, last_assistant_message=answer
        )

    def compact(self, summary: str, kept: list[str]) -> list[str]:
        self.event("PreCompact", turn_id=self.turn_id, trigger="auto")
        _jsonl(self.file, {"type": "compacted", "payload": {"message": summary}})
        self.event("PostCompact", turn_id=self.turn_id, trigger="auto")
        return kept  # the rollout keeps every turn

    def end(self) -> None:
        self.event("SessionEnd", reason="other")


class CustomLane(Lane):
    """A harness nobody packaged: the contract's own events, wire bodies on stdin."""

    harness = CUSTOM
    remembers = True

    def begin(self) -> None:
        self.key = f"custom-{uuid.uuid4()}"
        self.lines: list[str] = []
        self.event("session-start", sessionKey=self.key, project=PROJECT, source="startup")

    def event(self, name: str, **body: Any) -> None:
        self.world.hook(self.harness, name, body)

    def prompt(self, t: int, text: str) -> None:
        self.event("user-prompt-submit", sessionKey=self.key, project=PROJECT, userMessage=text)
        self.lines.append(f"user: {text}")

    def reply(self, t: int, answer: str) -> None:
        self.lines.append(f"assistant: {answer}")
        transcript = "\n".join(self.lines)
        self.event(
            "session-checkpoint-extract",
            sessionKey=self.key,
            project=PROJECT,
            transcript=transcript,
        )

    def remember(self, content: str) -> None:
        self.event("remember", content=content, sessionKey=self.key, project=PROJECT, tags="bench")

    def compact(self, summary: str, kept: list[str]) -> list[str]:
        self.event("pre-compaction", sessionKey=self.key, sessionContext="atlas release")
        self.event("compaction-complete", sessionKey=self.key, project=PROJECT, summary=summary)
        return kept  # this harness keeps its whole transcript

    def end(self) -> None:
        transcript = "\n".join(self.lines)
        self.event(
            "session-end",
            sessionKey=self.key,
            sessionId=self.key,
            cwd=PROJECT,
            reason="exit",
            transcript=transcript,
        )


class PiLane(Lane):
    """pi through the adapter server; the transcript is pi's session file."""

    harness = "pi"

    def begin(self) -> None:
        self.key = str(uuid.uuid4())
        folder = self.world.home / ".pi" / "agent" / "sessions" / "--srv-atlas--"
        self.file = folder / f"2026-11-24T09-30-00-000Z_{self.key}.jsonl"
        self.header = {
            "type": "session",
            "version": 3,
            "id": self.key,
            "timestamp": "2026-11-24T09:30:00.000Z",
            "cwd": PROJECT,
        }
        self.leaf: str | None = None
        self.on_disk = False
        self.carry: dict[str, Any] = {}
        self.event("session_start", reason="startup")

    def meta(self, transcript: bool = False) -> dict[str, Any]:
        session: dict[str, Any] = {
            "id": self.key,
            "file": str(self.file),
            "cwd": PROJECT,
            "leafId": self.leaf,
            "persisted": True,
            "onDisk": self.on_disk,
        }
        if transcript:
            session["header"] = self.header
        return session

    def event(self, name: str, *, transcript: bool = False, **fields: Any) -> None:
        payload = {
            "type": name,
            **fields,
            "session": self.meta(transcript),
            "carry": dict(self.carry),
        }
        _apply_carry(self.carry, self.world.post(self.harness, name, payload))

    def entry(self, item: dict[str, Any]) -> None:
        entry_id = uuid.uuid4().hex[:8]
        if not self.on_disk:
            _jsonl(self.file, self.header)
            self.on_disk = True
        _jsonl(self.file, {"id": entry_id, "parentId": self.leaf, **item})
        self.leaf = entry_id

    def prompt(self, t: int, text: str) -> None:
        self.event("input", text=text, source="interactive", images=0)
        self.user = {"role": "user", "content": [{"type": "text", "text": text}]}

    def reply(self, t: int, answer: str) -> None:
        said = {"role": "assistant", "content": [{"type": "text", "text": answer}]}
        self.entry({"type": "message", "message": self.user})
        self.entry({"type": "message", "message": said})
        self.event("agent_end", messages=[self.user, said])

    def compact(self, summary: str, kept: list[str]) -> list[str]:
        prep = {"firstKeptEntryId": self.leaf, "tokensBefore": 31005, "isSplitTurn": False}
        self.event("session_before_compact", preparation={**prep, "messagesToSummarize": 6})
        first_kept = self.leaf
        self.entry({"type": "compaction", "summary": summary, "firstKeptEntryId": first_kept})
        entry = {"id": self.leaf, "summary": summary, "firstKeptEntryId": first_kept}
        self.event("session_compact", compactionEntry={**entry, "tokensBefore": 31005})
        return kept  # the session file keeps every entry

    def end(self) -> None:
        self.event("session_shutdown", transcript=True, reason="quit")


class HermesLane(Lane):
    """Hermes Agent's memory provider through the adapter server; transcripts inline."""

    harness = "hermes-agent"
    remembers = True

    def begin(self) -> None:
        self.key = f"20261124_093000_{uuid.uuid4().hex[:10]}"
        self.carry: dict[str, Any] = {}
        self.messages: list[dict[str, Any]] = [{"role": "system", "content": "You are Hermes."}]
        self.event("initialize", parentSessionId=None)

    def event(self, name: str, **fields: Any) -> None:
        session = {"id": self.key, "project": PROJECT, "platform": "cli", "agentContext": "primary"}
        payload = {**fields, "session": session, "carry": dict(self.carry)}
        _apply_carry(self.carry, self.world.post(self.harness, name, payload))

    def prompt(self, t: int, text: str) -> None:
        self.event("prefetch", query=text)
        self.text = text

    def reply(self, t: int, answer: str) -> None:
        self.messages += [
            {"role": "user", "content": self.text},
            {"role": "assistant", "content": answer},
        ]
        self.event("sync_turn", user=self.text, assistant=answer, messages=list(self.messages))

    def remember(self, content: str) -> None:
        self.event(
            "on_memory_write",
            action="add",
            target="memory",
            content=content,
            metadata={"write_origin": "tool"},
        )

    def compact(self, summary: str, kept: list[str]) -> list[str]:
        # Hermes 0.19: pre-compress, then the provider extracts what is about to be
        # summarised away (on_session_end with those messages), then the switch in
        # place; the summary reaches the provider with the next turn's messages.
        self.event("on_pre_compress", messages=list(self.messages))
        self.event("on_session_end", messages=list(self.messages))
        self.event(
            "on_session_switch",
            newSessionId=self.key,
            parentSessionId=self.key,
            reset=False,
            rewound=False,
            reason="compression",
            messages=list(self.messages),
        )
        note = "[CONTEXT COMPACTION \u2014 REFERENCE ONLY] Earlier turns were compacted into "
        self.messages = [
            self.messages[0],
            {
                "role": "user",
                "content": f"{note}the summary below.\n{summary}",
                "_compressed_summary": True,
            },
        ]
        return []  # the turns so far live on only in the summary

    def end(self) -> None:
        self.event("on_session_end", messages=list(self.messages))


LANES: dict[str, type[Lane]] = {
    "claude-code": ClaudeLane,
    "codex": CodexLane,
    CUSTOM: CustomLane,
    "pi": PiLane,
    "hermes-agent": HermesLane,
}


def mix(count: int) -> list[str]:
    """``count`` lane kinds dealt from :data:`KINDS` in turn."""
    return [KINDS[i % len(KINDS)] for i in range(count)]


# -- the run -----------------------------------------------------------------


def load_env(base: Path, daemon: RealDaemon, flush_seconds: float, **extra: str) -> dict[str, str]:
    """The harnesses' environment: a private HOME and state directory, the real daemon."""
    home = base / "home"
    home.mkdir(parents=True, exist_ok=True)
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "LANG": "C.UTF-8",
        "HOME": str(home),
        "XDG_STATE_HOME": str(base / "state"),
        "CLAUDE_CONFIG_DIR": str(home / ".claude"),
        "CLAUDE_PROJECT_DIR": PROJECT,
        "CODEX_HOME": str(home / ".codex"),
        "SIGNET_DAEMON_URL": daemon.url,
        # Command hooks run as processes; the server is the one this run starts.
        "SIGNET_ADAPTER_AUTOSTART": "0",
        # The detached sender keeps retrying a daemon that is down this long.
        "SIGNET_OUTBOX_FLUSH_SECONDS": f"{flush_seconds:g}",
    }
    env.update(extra)
    return env


def run_load(
    daemon: RealDaemon,
    base: Path,
    *,
    lanes: Sequence[str],
    turns: int,
    session_turns: int = 15,
    think: float = 0.2,
    kill_at: float = 0.5,
    quiet_kill: bool = False,
    down: float = 5.0,
    flush_seconds: float = 120.0,
    drain_timeout: float = 300.0,
    stall: float = 30.0,
    extra_env: dict[str, str] | None = None,
    say: Callable[[str], None] = lambda line: None,
) -> LoadResult:
    """Run the lanes against ``daemon``, crash and restart it, then count what it holds.

    The daemon is killed once ``kill_at`` of all turns are done, left down
    for ``down`` seconds and started again on its port and data: whatever is
    in flight then is cut, or, with ``quiet_kill``, the lanes first wait
    between two events until the outbox is empty, so no send is cut. ``say``
    hears progress lines. Writes still pending after ``stall`` seconds without
    progress are flushed by a new session, as the user's next one would.
    """
    env = load_env(base, daemon, flush_seconds, **(extra_env or {}))
    world = World(base, daemon, think=think, env=env)
    started = time.monotonic()
    outage = Outage()
    if any(LANES[k].harness in ("pi", "hermes-agent") for k in lanes):
        world.server = ServeProcess(env)
    try:
        runners = [LANES[kind](world, i, turns, session_turns) for i, kind in enumerate(lanes)]
        threads = [threading.Thread(target=r.run, name=f"lane-{r.index}") for r in runners]
        for thread in threads:
            thread.start()
        total = len(lanes) * turns
        _crash_and_restart(world, total, kill_at, quiet_kill, down, outage, threads, say)
        for thread in threads:
            thread.join()
        say(f"lanes done after {time.monotonic() - started:.1f} s")
    finally:
        if world.server is not None:
            world.server.stop()  # it hands what it still holds to a sender
    last_event = time.monotonic()
    pending, dead, flushes = _drain(world, drain_timeout, stall, say)
    drained = time.monotonic() - last_event
    counts = count_stored(daemon, world.expected)
    return LoadResult(
        lanes=list(lanes),
        turns=turns,
        timed=world.timed,
        counts=counts,
        outage=outage,
        drained_seconds=drained,
        pending=pending,
        dead=dead,
        flushes=flushes,
        problems=world.problems,
        hooks_log=_hooks_log(base / "state"),
        wall_seconds=time.monotonic() - started,
    )


def _crash_and_restart(
    world: World,
    total: int,
    kill_at: float,
    quiet: bool,
    down: float,
    outage: Outage,
    threads: Sequence[threading.Thread],
    say: Callable[[str], None],
) -> None:
    """Kill the daemon once enough turns are done, keep it down, start it again."""
    while world.turns_done < total * kill_at:
        if not any(t.is_alive() for t in threads):
            raise RuntimeError("the lanes ended before the daemon was killed")
        time.sleep(0.05)
    if quiet:
        end = time.monotonic() + 300
        with world.gate:
            world.gate_open = False
            while world.held < sum(t.is_alive() for t in threads):
                if time.monotonic() > end:
                    raise RuntimeError("the lanes did not stop between events within 300 s")
                world.gate.wait(0.2)  # a lane that ends does not notify: look again
        _wait_empty(world, 120.0)
        say(f"lanes held between events, outbox empty, after {world.turns_done} turns")
    outage.turns_before = world.turns_done
    outage.killed_at = time.monotonic()
    world.daemon.kill()
    say(f"daemon killed (SIGKILL) after {outage.turns_before} of {total} turns")
    with world.gate:
        world.gate_open = True
        world.gate.notify_all()
    time.sleep(down)
    restarting = time.monotonic()
    world.daemon.restart()
    outage.back_at = time.monotonic()
    outage.restart_seconds = outage.back_at - restarting
    say(f"daemon back after {outage.back_at - outage.killed_at:.1f} s")


def _wait_empty(world: World, timeout: float) -> None:
    end = time.monotonic() + timeout
    while outbox_status(world.env)["pending"]:
        if time.monotonic() > end:
            raise RuntimeError(f"the outbox did not empty within {timeout:g} s before the kill")
        time.sleep(0.2)


def outbox_status(env: dict[str, str]) -> dict[str, Any]:
    """``signet-sdk outbox status --json`` in the harnesses' environment."""
    done = subprocess.run(
        [SDK, "outbox", "status", "--json"], env=env, capture_output=True, timeout=60, check=False
    )
    if done.returncode != 0:
        raise RuntimeError(f"signet-sdk outbox status failed: {done.stderr[-300:]!r}")
    status: dict[str, Any] = json.loads(done.stdout)
    return status


def _drain(
    world: World, timeout: float, stall: float, say: Callable[[str], None]
) -> tuple[int, list[dict[str, Any]], int]:
    """Wait until the outbox is empty; pending count, dead letters, later-session flushes.

    A write whose send the crash cut is in doubt: each sender tries it once,
    after it settled, so one may still be pending when no sender is left.
    That is what the user's next session flushes: after ``stall`` seconds
    without progress, one Claude Code SessionStart (which flushes a
    non-empty outbox) stands in for it.
    """
    end = time.monotonic() + timeout
    flushes = 0
    last, still_since = -1, time.monotonic()
    status: dict[str, Any] = {"pending": [], "dead": []}
    while True:
        try:
            status = outbox_status(world.env)
        except (RuntimeError, ValueError) as exc:
            if time.monotonic() > end:
                raise
            say(f"outbox status unreadable, asking again: {exc}")
            time.sleep(1.0)
            continue
        pending = len(status["pending"])
        if pending == 0 or time.monotonic() > end:
            return pending, list(status["dead"]), flushes
        if pending != last:
            last, still_since = pending, time.monotonic()
            say(f"outbox: {pending} pending")
        elif time.monotonic() - still_since > stall:
            flushes += 1
            key = str(uuid.uuid4())
            payload = {"session_id": key, "cwd": PROJECT, "hook_event_name": "SessionStart"}
            world.hook("claude-code", "SessionStart", {**payload, "source": "startup"})
            say(f"outbox: no progress for {stall:g} s; a new Claude Code session flushes it")
            still_since = time.monotonic()
        time.sleep(1.0)


def _hooks_log(state: Path) -> dict[str, int]:
    """How often ``hooks.log`` says a deadline timer fired, a call failed open, a send of a
    write got no answer (it is then in doubt), a compaction summary was sent again to
    finish what a killed daemon left half done, and a write was given up on."""
    try:
        lines = (state / "signet-sdk" / "hooks.log").read_text(errors="replace").splitlines()
    except OSError:
        return {}
    kinds = {
        "deadline timer fired": "deadline of",
        "failed open": "failed open",
        "write sends without an answer": "failed, kept",
        RESENT_AFTER_CUT: "sent again so the daemon resets it",
        "moved to dead letters": "moved to",
    }
    return {name: sum(needle in line for line in lines) for name, needle in kinds.items()}


# -- the count -------------------------------------------------------------------


def _get(daemon: RealDaemon, path: str) -> Any:
    status, body = daemon.request("GET", path)
    if status == 404:
        return None
    if status != 200:
        raise RuntimeError(f"GET {path}: {status} {body[:200]!r}")
    return json.loads(body)


def _tally(kind: str, markers: Sequence[str], texts: Sequence[str]) -> Count:
    found = {m: sum(text.count(m) for text in texts) for m in markers}
    return Count(
        kind,
        len(markers),
        sum(1 for n in found.values() if n == 1),
        [m for m, n in found.items() if n == 0],
        [m for m, n in found.items() if n > 1],
    )


def count_stored(daemon: RealDaemon, expected: Expected) -> list[Count]:
    """What the daemon holds of each expected write, read from its own API."""
    listing = _get(daemon, "/api/memories?limit=1000000") or {}
    memories = listing.get("memories") or []
    remembered = [m.get("content") or "" for m in memories if m.get("type") != "session_summary"]
    summaries = [m.get("content") or "" for m in memories if m.get("type") == "session_summary"]
    nodes: list[str] = []
    for offset in range(0, 100_000, 200):
        page = _get(daemon, f"/api/sessions/summaries?limit=200&depth=0&offset={offset}") or {}
        rows = page.get("summaries") or []
        nodes += [r.get("content") or "" for r in rows if r.get("source_type") == "compaction"]
        if len(rows) < 200:
            break
    stored: list[str] = []
    turns_expected: list[str] = []
    turn_texts: list[str] = []
    for key, (_, kept) in expected.transcripts.items():
        quoted = urllib.parse.quote(key, safe="")
        answer = _get(daemon, f"/api/sessions/{quoted}/transcript")
        content = (answer or {}).get("content") or ""
        if content:
            stored.append(key)
        turns_expected += kept
        turn_texts.append(content)
    sessions = list(expected.transcripts)
    return [
        _tally("remember", expected.remembers, remembered),
        _tally("compaction summary", expected.summaries, summaries),
        _tally("summary node", expected.summaries, nodes),
        Count(
            "session transcript",
            len(sessions),
            len(stored),
            [k for k in sessions if k not in stored],
            [],
        ),
        _tally("turn in transcript", turns_expected, turn_texts),
    ]


def hook_times(timed: Sequence[Timed], path: str) -> tuple[int, float, float, float, float]:
    """Events, p50, p99 and max milliseconds, and the largest share of its deadline."""
    chosen = [t for t in timed if t.path == path]
    ms = [t.seconds * 1000 for t in chosen]
    if not ms:
        return 0, 0.0, 0.0, 0.0, 0.0
    share = max(t.seconds / t.deadline for t in chosen)
    return len(ms), statistics.median(ms), percentile(ms, 0.99), max(ms), share
