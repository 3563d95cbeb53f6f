"""``signet-sdk demo``: a two-session story played through every installed adapter.

Session one starts, takes prompts, remembers a fact, compacts and ends with
a transcript; session two starts and must get the fact injected, and a
prompt that mentions it must get it again. Each step goes through the
harness's own native event (translate -> one daemon call -> render), and the
demo prints what the harness would receive. Without ``SIGNET_DAEMON_URL`` it
runs its own dev daemon on a free port with a throwaway database, so a real
daemon's memories are never touched. Exits non-zero when a step misbehaves.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import textwrap
import uuid
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ._exceptions import SignetError
from ._harness import HarnessAdapter
from ._lifecycle import NativeOutput

__all__ = ["main"]

TRANSCRIPT_TURNS = [
    ("user", "We need to decide how the billing service gets deployed."),
    ("assistant", "Options: rolling updates, or blue-green behind the load balancer."),
    ("user", "Blue-green. Rollbacks must take seconds, and we deploy on Tuesdays only."),
    ("assistant", "Noted. I will write the pipeline for a blue-green switch on Tuesdays."),
    ("user", "Also keep the staging database on pg-staging-2 until the migration is done."),
    ("assistant", "Understood: staging stays on pg-staging-2 until the migration lands."),
]


@dataclass
class StoryContext:
    """What a translator needs to build native payloads for a story step."""

    harness: str
    session_key: str
    project: str
    workdir: Path
    prompt: str = ""
    summary: str = ""
    transcript: str = ""


def _story_event(adapter: HarnessAdapter, step: str, ctx: StoryContext) -> tuple[str, Any] | None:
    """The adapter's native event for a story step, if its translator offers one.

    Translators may define ``story_event(step, ctx)``; a step it returns None
    for (or an adapter without the method) is not part of that harness's story.
    """
    hook = getattr(adapter.translator, "story_event", None)
    if hook is None:
        return None
    event: tuple[str, Any] | None = hook(step, ctx)
    return event


def _readable(output: NativeOutput) -> str:
    text = output.stdout.strip()
    if not text:
        return "(nothing on stdout)"
    try:
        data = json.loads(text)
    except ValueError:
        return text
    if isinstance(data, Mapping):
        inner = data.get("hookSpecificOutput")
        if isinstance(inner, Mapping) and "additionalContext" in inner:
            return f"additionalContext:\n{inner['additionalContext']}"
    return json.dumps(data, indent=2)[:600]


def _show(label: str, event: str, output: NativeOutput) -> None:
    body = _readable(output)
    lines = body.splitlines() or [""]
    shown = lines[:12] + ([f"... ({len(lines) - 12} more lines)"] if len(lines) > 12 else [])
    sys.stdout.write(f"  {label:<32} {event}\n")
    sys.stdout.write(textwrap.indent("\n".join(shown), "      │ ", lambda _: True) + "\n")


class Story:
    """Plays the two sessions for one adapter and records what went wrong."""

    def __init__(self, adapter: HarnessAdapter, workdir: Path) -> None:
        self.adapter = adapter
        self.failures: list[str] = []
        name = adapter.harness
        tag = uuid.uuid4().hex[:8]
        self.fact = f"The {name} demo deploys the billing service blue-green on Tuesdays ({tag})"
        self.project = f"/srv/signet-demo/{name}"
        self.ctx = StoryContext(name, f"demo-{name}-{tag}-1", self.project, workdir)

    def step(self, label: str, step: str, **ctx: str) -> tuple[NativeOutput, list[Any]]:
        for key, value in ctx.items():
            setattr(self.ctx, key, value)
        native = _story_event(self.adapter, step, self.ctx)
        if native is None:
            return NativeOutput(), []
        event, payload = native
        try:
            output, results = self.adapter.run_event(event, payload)
        except SignetError as exc:
            self.failures.append(f"{label}: {exc}")
            output, results = self.adapter.translator.neutral(event), []
        _show(label, event, output)
        return output, results

    def expect(self, ok: bool, what: str) -> None:
        if not ok:
            self.failures.append(what)
            sys.stdout.write(f"      ✗ {what}\n")

    def play(self) -> list[str]:
        from ._models import RememberParams

        a, fact = self.adapter, self.fact
        transcript = "\n".join(f"{role}: {text}" for role, text in TRANSCRIPT_TURNS)
        sys.stdout.write(f"\n== {a.harness} (runtime path: {a.config.runtime_path or 'none'})\n")
        sys.stdout.write("  session one\n")
        self.step("starts", "session_start")
        self.step("prompt: plan the deploy", "prompt", prompt="How should billing deploy?")
        stored = a.remember(
            RememberParams(content=fact, project=self.project, session_key=self.ctx.session_key)
        )
        sys.stdout.write(f"  {'remembers a fact':<32} memory tool\n      │ stored as {stored.id}\n")
        self.expect(bool(stored.id), "remember returned no memory id")
        self.step("prompt: keep going", "prompt", prompt="Write the pipeline config next.")
        self.step("compaction begins", "pre_compaction")
        _, done = self.step(
            "compaction completes",
            "compaction_complete",
            summary="Decided: billing deploys blue-green on Tuesdays; staging on pg-staging-2.",
        )
        self.expect(
            bool(done) and getattr(done[0], "memory_id", None) is not None,
            "compaction summary was not stored as a memory",
        )
        _, ended = self.step("ends with transcript", "session_end", transcript=transcript)
        self.expect(bool(ended) and not ended[0].did_nothing, "session end did nothing")

        sys.stdout.write("  session two\n")
        self.ctx.session_key = self.ctx.session_key[:-1] + "2"
        out, _ = self.step("starts", "session_start")
        self.expect(fact in out.stdout, "session two was not given the remembered fact")
        out, _ = self.step(
            "prompt mentions the deploy",
            "prompt",
            prompt="Remind me: which day do billing deploys go out?",
        )
        self.expect(fact in out.stdout, "the prompt about deploys did not get the fact")
        return self.failures


@contextmanager
def _daemon(workdir: Path) -> Iterator[str]:
    url = os.environ.get("SIGNET_DAEMON_URL", "").strip()
    if url:
        sys.stdout.write(f"daemon: {url} (from SIGNET_DAEMON_URL)\n")
        yield url
        return
    from .mock_daemon import MockDaemon

    mock = MockDaemon(db_path=workdir / "demo.sqlite3")
    with mock.serve() as handle:
        sys.stdout.write(
            f"daemon: bundled dev daemon at {handle.url} (set SIGNET_DAEMON_URL to use another)\n"
        )
        yield handle.url


def main(argv: list[str] | None = None) -> int:
    from ._parity import format_table, run_parity
    from ._registry import create_adapter, installed_adapters

    harnesses = ["generic", *installed_adapters()]
    failures: dict[str, list[str]] = {}
    with tempfile.TemporaryDirectory(prefix="signet-demo-") as tmp, _daemon(Path(tmp)) as url:
        # Harness transcripts the story writes live here; adapters read only allowed roots.
        roots = os.environ.get("SIGNET_TRANSCRIPT_ROOTS", "")
        os.environ["SIGNET_TRANSCRIPT_ROOTS"] = os.pathsep.join(filter(None, [roots, tmp]))
        for name in harnesses:
            with create_adapter(name, url) as adapter:
                failures[name] = Story(adapter, Path(tmp)).play()
        sys.stdout.write("\n")
        report = run_parity(url if os.environ.get("SIGNET_DAEMON_URL") else None)
        sys.stdout.write(format_table(report) + "\n")
    bad = {h: f for h, f in failures.items() if f}
    for harness, problems in bad.items():
        for problem in problems:
            sys.stdout.write(f"demo: {harness}: {problem}\n")
    if bad or not report.ok:
        sys.stdout.write("demo: FAILED\n")
        return 1
    sys.stdout.write(f"demo: ok ({len(harnesses)} harnesses, every step did what it should)\n")
    return 0
