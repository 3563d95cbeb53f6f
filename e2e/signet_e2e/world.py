"""What every end-to-end run of a real harness starts from: :func:`harness_world`.

Each adapter's e2e test runs its harness in a fresh project, against a daemon
that records what it receives, with an environment that keeps the harness
and its hook commands inside the test. The harness-specific part (its
program, its fake model, its settings) stays in the adapter's tests; the
rest is the same everywhere and is this context manager::

    with harness_world(tmp_path, ANTHROPIC_API_KEY="x") as world:
        subprocess.run([claude, "-p", "hi"], cwd=world.project, env=world.env)
        (started,) = world.hook_calls("session-start")
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from signet_e2e.real_harness import (
    hook_requests,
    project_parent,
    recording_daemon,
    wait_for_hook,
)
from signet_e2e.terminal import Terminal
from signet_sdk.testing.hook_process import outbox_left
from signet_sdk.testing.mock_daemon._context import DAEMON_VERSION

if TYPE_CHECKING:
    import pytest

__all__ = [
    "TURN_COMPACT_END",
    "HarnessWorld",
    "ProgramWorld",
    "base_env",
    "harness_world",
    "new_project",
]

#: The hooks of a session of one turn that the user compacts, then ends, in the order the
#: daemon gets them: the compaction's summary reaches it before the end.
TURN_COMPACT_END = (
    "session-start",
    "user-prompt-submit",
    "session-checkpoint-extract",
    "pre-compaction",
    "compaction-complete",
    "session-end",
)

#: The type of a world's fake model (FakeOpenAI, FakeGemini, ...).
FakeT = TypeVar("FakeT")


@dataclass
class HarnessWorld:
    """A test project, the recording daemon and its URL, and the harness's environment."""

    project: Path
    daemon: Any  # MockDaemon, or a RecordingProxy in front of a real daemon
    url: str
    env: dict[str, str]

    def run_in_project(
        self, argv: list[str], *, env: dict[str, str] | None = None, timeout: float = 120.0
    ) -> subprocess.CompletedProcess[str]:
        """``argv`` run to its end in the project, under this environment (or ``env``), with
        nothing on stdin and its output captured as text; past ``timeout`` seconds, an error."""
        return subprocess.run(
            argv,
            cwd=self.project,
            env=env or self.env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=timeout,
        )

    def run_group(
        self, argv: list[str], *, env: dict[str, str] | None = None, timeout: float = 180.0
    ) -> subprocess.CompletedProcess[str]:
        """``argv`` run as :meth:`run_in_project` runs it, but in its own process group, all
        of which is stopped after it: harnesses start children (a relaunched node process,
        the MCP server) that would outlive the test. The hooks' detached senders start
        sessions of their own and live on."""
        proc = subprocess.Popen(
            argv,
            cwd=self.project,
            env=env or self.env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        try:
            out, err = proc.communicate(timeout=timeout)
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=30)
        return subprocess.CompletedProcess(argv, proc.returncode, out, err)

    def hook_calls(self, name: str) -> list[Any]:
        """What the daemon received on ``/api/hooks/<name>`` so far."""
        return hook_requests(self.daemon, name)

    def wait_for(self, name: str, count: int = 1, timeout: float = 15.0) -> list[Any]:
        """The requests to ``/api/hooks/<name>``, once there are ``count`` (else an error)."""
        return wait_for_hook(self.daemon, name, count, timeout)

    def started_session(self) -> str:
        """The key of the one session started so far (the daemon got one session-start)."""
        (started,) = self.hook_calls("session-start")
        return str(started.json["sessionKey"])

    def assert_pre_compaction(self, session: str, harness: str, context: str) -> None:
        """The daemon got one pre-compaction: ``session``'s, from ``harness``'s legacy hooks,
        with ``context`` and nothing more."""
        (pre,) = self.hook_calls("pre-compaction")
        assert pre.json == {
            "sessionKey": session,
            "sessionContext": context,
            "harness": harness,
            "runtimePath": "legacy",
        }

    def start_and_prompt(self, session: str, harness: str, runtime_path: str) -> tuple[Any, Any]:
        """The session's one start (``startup``) and one prompt, as a first turn sends them.

        Each was answered 200 and carries the harness, runtime path (body and
        header), session key and project.
        """
        (started,) = self.hook_calls("session-start")
        (prompt,) = self.hook_calls("user-prompt-submit")
        for call in (started, prompt):
            assert call.status == 200, (call.path, call.response_json)
            assert (call.json["harness"], call.json["runtimePath"]) == (harness, runtime_path)
            assert call.headers["x-signet-runtime-path"] == runtime_path
            assert (call.json["sessionKey"], call.json["project"]) == (session, str(self.project))
        assert started.json["source"] == "startup"
        return started, prompt

    def checkpoint_then_end(self, session: str, reason: str, timeout: float = 15.0) -> Any:
        """The session's one checkpoint, then its one end (returned): what a turn and an exit send.

        Both carry the session's key and a transcript staged under /tmp/signet;
        the end has ``reason``, ``sessionId`` equal to the key and the project
        as ``cwd``, and comes after the checkpoint.
        """
        (ended,) = self.wait_for("session-end", timeout=timeout)
        (checkpoint,) = self.hook_calls("session-checkpoint-extract")
        assert checkpoint.json["sessionKey"] == session
        assert checkpoint.json["transcriptPath"].startswith("/tmp/signet/")
        assert ended.json["sessionKey"] == ended.json["sessionId"] == session
        assert (ended.json["reason"], ended.json["cwd"]) == (reason, str(self.project))
        assert ended.json["transcriptPath"].startswith("/tmp/signet/")
        paths = [r.path for r in self.daemon.requests if r.path.startswith("/api/hooks/")]
        assert paths.index(checkpoint.path) < paths.index(ended.path)
        return ended


@dataclass(kw_only=True)
class ProgramWorld(HarnessWorld, Generic[FakeT]):
    """The world of a harness that is one ``program``, with the fake model it talks to and
    the daemon it runs on: ``version`` is ``"mock"``, or a real release's version."""

    program: str
    fake: FakeT
    version: str = "mock"

    def run(
        self, *args: str, env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        """``program`` with ``args``, headless, as :meth:`~HarnessWorld.run_group` runs it: the
        harness's children (the MCP server, a relaunched node) are stopped after it."""
        return self.run_group([self.program, *args], env=env)

    def terminal(self, *, set_size: bool = False, key_delay: float | None = None) -> Terminal:
        """``program`` in its interactive UI on a pseudo-terminal, in the project and this
        environment (``set_size``, ``key_delay``: as for :class:`~signet_e2e.Terminal`)."""
        return Terminal(
            [self.program], self.project, self.env, set_size=set_size, key_delay=key_delay
        )


@contextmanager
def new_project(prefix: str = "signet-e2e-") -> Iterator[Path]:
    """A project ``atlas`` in a fresh folder, removed afterwards.

    The folder is under :func:`~signet_e2e.project_parent`: the daemon
    treats projects under /tmp as noise.
    """
    base = Path(tempfile.mkdtemp(prefix=prefix, dir=project_parent()))
    project = Path(os.path.realpath(base / "atlas"))
    project.mkdir()
    try:
        yield project
    finally:
        shutil.rmtree(base, ignore_errors=True)


def base_env(**env: str) -> dict[str, str]:
    """The environment a harness runs in: only PATH, LANG=C.UTF-8, this test's HOME and
    XDG_STATE_HOME (its private ones), and ``env``: nothing else of the developer's shell."""
    full = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8"}
    full.update((k, os.environ[k]) for k in ("HOME", "XDG_STATE_HOME") if k in os.environ)
    full.update(env)
    return full


@contextmanager
def harness_world(
    tmp_path: Path,
    *,
    request: pytest.FixtureRequest | None = None,
    daemon: str = "mock",
    version: str = DAEMON_VERSION,
    prefix: str = "signet-e2e-",
    **env: str,
) -> Iterator[HarnessWorld]:
    """A project ``atlas`` in a fresh folder, a daemon, and the environment to run a harness in.

    The project is a :func:`new_project`, the environment :func:`base_env`.
    ``daemon``, ``version``, ``request``: as for
    :func:`~signet_e2e.recording_daemon` (the mock answering as
    ``version``, its store in ``tmp_path``; or a real release, which needs
    pytest's ``request``). The environment holds only PATH,
    LANG=C.UTF-8, this test's HOME and XDG_STATE_HOME, the daemon's URL,
    a 10 s outbox flush, and ``env``. On the way out the hooks' detached
    senders get 10 s to empty the outbox before the daemon goes away.
    """
    db_path = tmp_path / "daemon.sqlite3"
    with (
        new_project(prefix) as project,
        recording_daemon(daemon, request, db_path, version=version) as (recorder, url),
    ):
        full = base_env(SIGNET_DAEMON_URL=url, SIGNET_OUTBOX_FLUSH_SECONDS="10", **env)
        try:
            yield HarnessWorld(project, recorder, url, full)
        finally:
            outbox_left(10, full)
