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
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from signet_sdk.client.sync_client import AdapterClient
from signet_sdk.runtime.events import run_event
from signet_sdk.runtime.native import NativeOutput
from signet_sdk.runtime.plugin import HarnessPlugin

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

    def turns(self) -> list[tuple[str, str]]:
        """The transcript's ``user: ...`` and ``assistant: ...`` lines as (role, text)."""
        out = []
        for line in self.transcript.splitlines():
            role, _, text = line.partition(": ")
            if role in ("user", "assistant"):
                out.append((role, text))
        return out

    def write_jsonl(self, folder: str, name: str, records: Iterable[Any]) -> str:
        """Write ``records`` as JSON lines to ``<workdir>/<folder>/<name>``; the file's path.

        The harness's own transcript or session file, laid out as the
        harness writes it, so the story's events can name a real file.
        """
        path = self.workdir / folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
        return str(path)


def _readable(output: NativeOutput) -> str:
    text = output.text.strip()
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
        result = data.get("result")
        if isinstance(result, Mapping) and isinstance(result.get("prependContext"), str):
            return f"prependContext:\n{result['prependContext']}"
        system = data.get("system")
        if isinstance(system, Mapping) and system:
            # Text a plugin holds for the system prompt of the next model requests.
            shown = []
            for name, slot in system.items():
                if isinstance(slot, Mapping) and isinstance(slot.get("text"), str):
                    shown += [f"system slot {name}:", slot["text"]]
            if shown:
                return "\n".join(shown)
        slots = data.get("context")
        if isinstance(slots, Mapping) and slots:
            # A plugin harness's context slots: show the text each slot adds.
            shown = []
            for name, slot in slots.items():
                messages = slot.get("messages", []) if isinstance(slot, Mapping) else []
                texts = [m.get("content") for m in messages if isinstance(m, Mapping)]
                shown.append(f"context slot {name}:")
                shown += [t for t in texts if isinstance(t, str)]
            return "\n".join(shown)
    return json.dumps(data, indent=2)[:600]


def _show(label: str, event: str, output: NativeOutput) -> None:
    body = _readable(output)
    lines = body.splitlines() or [""]
    shown = lines[:12] + ([f"... ({len(lines) - 12} more lines)"] if len(lines) > 12 else [])
    sys.stdout.write(f"  {label:<32} {event}\n")
    sys.stdout.write(textwrap.indent("\n".join(shown), "      │ ", lambda _: True) + "\n")


class Story:
    """Plays the two sessions for one adapter and records what went wrong."""

    def __init__(self, plugin: HarnessPlugin, adapter: AdapterClient, workdir: Path) -> None:
        self.plugin = plugin
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
        native = self.plugin.story_event(step, self.ctx)
        if native is None:
            return NativeOutput(), []
        event, payload = native
        run = run_event(self.adapter, event, payload, plugin=self.plugin)
        if run.error is not None:
            self.failures.append(f"{label}: {run.error}")
        _show(label, event, run.output)
        return run.output, run.results

    def expect(self, ok: bool, what: str) -> None:
        if not ok:
            self.failures.append(what)
            sys.stdout.write(f"      ✗ {what}\n")

    def play(self) -> list[str]:
        from signet_sdk.models import RememberParams

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
            summary=f"Decided for {a.harness}: billing deploys blue-green on Tuesdays; "
            "staging stays on pg-staging-2.",
        )
        if not done and "compaction-complete" in self.plugin.not_applicable:
            # The harness has no event that carries the summary (Cursor): nothing to store.
            sys.stdout.write(f"      │ {a.harness} has no event after a compaction\n")
        else:
            self.expect(
                bool(done) and isinstance(done[0], dict) and done[0].get("memoryId") is not None,
                "compaction summary was not stored as a memory",
            )
        _, ended = self.step("ends with transcript", "session_end", transcript=transcript)
        self.expect(bool(ended) and _did_something(ended[0]), "session end did nothing")

        sys.stdout.write("  session two\n")
        self.ctx.session_key = self.ctx.session_key[:-1] + "2"
        out, _ = self.step("starts", "session_start")
        self.expect(fact in out.text, "session two was not given the remembered fact")
        out, answers = self.step(
            "prompt mentions the deploy",
            "prompt",
            prompt="Remind me: which day do billing deploys go out?",
        )
        answer = answers[0] if answers and isinstance(answers[0], dict) else {}
        if answer.get("engine") and not answer.get("inject"):
            # 0.145 decides per prompt (it injects for a named entity only); the
            # adapter follows its answer and adds no recall of its own.
            engine = answer["engine"]
            sys.stdout.write(f"      │ the daemon injects nothing here (engine {engine})\n")
            self.expect(fact not in out.text, "the adapter injected what the daemon did not")
        elif "prompt-submit" in self.plugin.not_applicable:
            # The harness takes no context at prompt submit (Cursor): nothing may be shown.
            sys.stdout.write(f"      │ {a.harness} takes no context at prompt submit\n")
            self.expect(fact not in out.text, "the adapter showed context the harness ignores")
        else:
            self.expect(fact in out.text, "the prompt about deploys did not get the fact")
        return self.failures


def _did_something(answer: Any) -> bool:
    """A daemon answer that is not a skip, a bypass or a missing (queued) answer."""
    if not isinstance(answer, dict):
        return False
    return not (answer.get("skipped") or answer.get("bypassed") or answer.get("noop"))


@contextmanager
def _daemon(workdir: Path, url: str | None) -> Iterator[str]:
    """The daemon given (by :func:`~signet_sdk.cli.commands.given_daemon`), else a fresh dev one."""
    if url:
        sys.stdout.write(f"daemon: {url}\n")
        yield url
        return
    from signet_sdk.testing.mock_daemon import MockDaemon

    mock = MockDaemon(db_path=workdir / "demo.sqlite3")
    with mock.serve() as handle:
        sys.stdout.write(f"\ndaemon: a fresh bundled dev daemon at {handle.url}\n")
        yield handle.url


def main(args: Any = None) -> int:
    """Play the story for the generic plugin and every installed one; 1 if any step failed.

    A daemon given by URL that stops answering mid-story ends the demo with
    one line naming it (exit 1), not a traceback from deep in the client.
    """
    from signet_sdk.cli.commands import given_daemon
    from signet_sdk.wire.errors import SignetError

    given = given_daemon(getattr(args, "daemon_url", None))
    url = given[0] if given else None
    try:
        return _play(url)
    except SignetError as exc:
        where = f"the daemon at {url}" if url else "the bundled dev daemon"
        sys.stderr.write(f"signet-sdk demo: a call to {where} failed: {exc}\n")
        return 1


def _play(given: str | None) -> int:
    """The story for each harness and the runtime, then parity: all on the daemon ``given``,
    or (None) each on a fresh dev daemon of its own."""
    from signet_sdk.cli.demo_runtime import play_runtime_story
    from signet_sdk.runtime.generic import generic_plugin
    from signet_sdk.runtime.registry import create_adapter, installed_plugins
    from signet_sdk.testing.parity import format_table, run_parity

    plugins = [generic_plugin("generic"), *installed_plugins()]
    harnesses = [p.name for p in plugins]
    failures: dict[str, list[str]] = {}
    with tempfile.TemporaryDirectory(prefix="signet-demo-") as tmp:
        # Harness transcripts the story writes live here; adapters read only allowed roots.
        roots = os.environ.get("SIGNET_TRANSCRIPT_ROOTS", "")
        os.environ["SIGNET_TRANSCRIPT_ROOTS"] = os.pathsep.join(filter(None, [roots, tmp]))
        for plugin in plugins:
            # Each harness's story gets a fresh dev daemon, so what it is shown is only
            # what its own first session left (a daemon given by URL is shared).
            folder = Path(tmp) / plugin.name
            folder.mkdir()
            with _daemon(folder, given) as url, create_adapter(plugin.name, url) as adapter:
                failures[plugin.name] = Story(plugin, adapter, folder).play()
        folder = Path(tmp) / "runtime"
        folder.mkdir()
        with _daemon(folder, given) as url:
            failures["runtime"] = play_runtime_story(url, folder)
        sys.stdout.write("\n")
        report = run_parity(given)
        sys.stdout.write(format_table(report) + "\n")
    bad = {h: f for h, f in failures.items() if f}
    for harness, problems in bad.items():
        for problem in problems:
            sys.stdout.write(f"demo: {harness}: {problem}\n")
    if bad or not report.ok:
        sys.stdout.write("demo: FAILED\n")
        return 1
    sys.stdout.write(
        f"demo: ok ({len(harnesses)} harnesses and the runtime, every step did what it should)\n"
    )
    return 0
