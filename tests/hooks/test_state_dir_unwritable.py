"""A state directory that cannot be written: nothing lost, nothing raised, said once.

The outbox lives in the state directory (``${XDG_STATE_HOME}/signet-sdk``). When
that cannot take a write, every write is sent directly, within the event's
deadline, and ``hooks.log`` says so once per hook process (when the log itself
can be written). The ways it happens, each made for real where a test can:

* ``outbox-file``: a file where the outbox folder should be;
* ``state-file``: a file where the state directory should be;
* ``read-only``: the state directory on a read-only bind mount (a private mount
  namespace, ``unshare -Urm``), or without write permission where that is not
  available and the tests do not run as root;
* ``full`` (ENOSPC) and read-only, in this process: ``os.write``/``os.open`` fail
  under the folder (:func:`fault_support.break_disk`), for the hook runner run
  in-process.

Cells: each fault with each durable action through ``signet-sdk hook``, a shim's
transport (its hook-process path, and its adapter server where one can run), the
hook runner in-process, and what ``signet-sdk doctor`` says about each fault.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import stat
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from signet_sdk.testing.mock_daemon import MockDaemon
from signet_sdk.testing.serve_process import ServeProcess
from signet_sdk.wire.lifecycle import LIFECYCLE

from ..fault_support import SEND_NATIVE, SIGNET_SDK, break_disk

NODE = shutil.which("node")
TRANSPORT = Path(__file__).resolve().parents[2] / "signet_sdk" / "shims" / "transport.mjs"
DEADLINE_MS = 1000
#: Interpreter start-up and exit around a hook's own deadline, on a busy machine.
SLACK = 1.5
FAULTS = ("outbox-file", "state-file", "read-only")
SAID = "outbox unusable ("


@functools.cache
def _read_only_bind() -> bool:
    """Whether a read-only bind mount can be made here in a private mount namespace."""
    unshare = shutil.which("unshare")
    if unshare is None:
        return False
    probe = Path(os.environ.get("TMPDIR", "/tmp")) / f"signet-ro-probe-{os.getpid()}"
    probe.mkdir(exist_ok=True)
    try:
        done = subprocess.run(
            [*_bind_read_only(probe), "sh", "-c", 'touch "$0/x" 2>/dev/null && exit 1; exit 0'],
            capture_output=True,
            timeout=30,
        )
        return done.returncode == 0 and not (probe / "x").exists()
    except (OSError, subprocess.SubprocessError):
        return False
    finally:
        shutil.rmtree(probe, ignore_errors=True)


def _private(folder: Path) -> None:
    """``folder`` and its parents under the test's home, 0700 as signet-sdk makes them."""
    folder.mkdir(parents=True, exist_ok=True)
    for part in (folder, *folder.parents):
        if part.name in ("signet-sdk", "state", "outbox"):
            part.chmod(0o700)


def _file(path: Path) -> None:
    """A private file (0600) where a folder should be."""
    path.write_text("not a folder\n")
    path.chmod(0o600)


def _bind_read_only(folder: Path) -> list[str]:
    """The argv prefix that runs a command with ``folder`` read-only (its own namespace)."""
    script = 'mount --bind "$0" "$0" && mount -o remount,ro,bind "$0" && exec "$@"'
    return [str(shutil.which("unshare")), "-Urm", "sh", "-c", script, str(folder)]


class State:
    """One cell's home: its state directory broken by ``fault``; ``wrap`` runs a command in it."""

    def __init__(self, home: Path, fault: str) -> None:
        self.home, self.fault = home, fault
        self.root = home / "state" / "signet-sdk"
        self.prefix: list[str] = []
        if fault == "outbox-file":
            _private(self.root)
            _file(self.root / "outbox")
        elif fault == "state-file":
            _private(self.root.parent)
            _file(self.root)
        elif fault == "read-only":
            _private(self.root)
            if _read_only_bind():
                self.prefix = _bind_read_only(self.root)
            elif os.geteuid() != 0:
                self.root.chmod(0o500)  # no write permission: what a non-root user meets
            else:
                pytest.skip("no read-only bind mount here, and root ignores permissions")

    def env(self, daemon_url: str, **extra: str) -> dict[str, str]:
        base = {k: v for k, v in os.environ.items() if not k.startswith("SIGNET_")}
        return {
            **base,
            "HOME": str(self.home),
            "XDG_STATE_HOME": str(self.home / "state"),
            "SIGNET_DAEMON_URL": daemon_url,
            "SIGNET_FETCH_TIMEOUT": str(DEADLINE_MS),
            "SIGNET_SESSION_START_TIMEOUT": str(DEADLINE_MS),
            "SIGNET_PROMPT_SUBMIT_TIMEOUT": str(DEADLINE_MS),
            "SIGNET_OUTBOX_FLUSH_SECONDS": "0",
            "SIGNET_BREAKER_FAILURES": "0",
            **extra,
        }

    def run(self, argv: list[str], env: dict[str, str], stdin: bytes = b"") -> Any:
        return subprocess.run(
            [*self.prefix, *argv], input=stdin, capture_output=True, env=env, timeout=60
        )

    def hook(self, action: str, daemon_url: str, body: dict[str, Any]) -> tuple[Any, float]:
        """Run the generic harness's hook for ``action`` on ``body``: (the process, its seconds)."""
        started = time.monotonic()
        argv = [SIGNET_SDK, "hook", "fault-matrix", LIFECYCLE[action].slug]
        done = self.run(argv, self.env(daemon_url), json.dumps(body).encode())
        return done, time.monotonic() - started

    def log_lines(self) -> list[str]:
        log = self.root / "hooks.log"
        return log.read_text().splitlines() if log.is_file() else []

    def untouched(self) -> bool:
        """Nothing was written where the outbox should be."""
        outbox = self.root / "outbox"
        return not outbox.is_dir() or not any(outbox.iterdir())

    def restore(self) -> None:
        if self.root.is_dir():
            self.root.chmod(0o700)


@pytest.fixture(scope="module")
def daemon() -> Iterator[tuple[MockDaemon, str]]:
    mock = MockDaemon()
    with mock.serve() as handle:
        yield mock, handle.url
    mock.close()


def _taken(daemon: MockDaemon, action: str, tag: str) -> int:
    """How often the daemon took this cell's write (repeats it recognised aside)."""
    took = 0
    for r in daemon.requests_to(f"/api/hooks/{LIFECYCLE[action].slug}"):
        if tag not in json.dumps(r.json) or r.status >= 300:
            continue
        answer = r.response_json if isinstance(r.response_json, dict) else {}
        if not (answer.get("deduped") or answer.get("duplicateSessionEnd")):
            took += 1
    return took


def _body(action: str, tag: str) -> dict[str, Any]:
    """A write of this cell's own, big enough for the daemon to store it."""
    talk = f"user: how do {tag} deploys work?\nassistant: " + "Through make ship. " * 40
    return {
        "session_end": {"sessionKey": tag, "sessionId": tag, "cwd": "/w/p", "transcript": talk},
        "session_checkpoint_extract": {"sessionKey": tag, "transcript": talk},
        "compaction_complete": {"sessionKey": tag, "summary": f"We chose sqlite ({tag})."},
        "remember": {"content": f"The user prefers tabs ({tag}).", "sessionKey": tag},
    }[action]


WRITES = [a for a, row in LIFECYCLE.items() if row.durable]


@pytest.fixture
def state(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[State]:
    found = State(tmp_path, request.param)
    yield found
    found.restore()


# -- hook processes --------------------------------------------------------------------


@pytest.mark.parametrize("action", WRITES)
@pytest.mark.parametrize("state", FAULTS, indirect=True)
def test_a_hook_sends_its_write_directly_when_the_outbox_cannot_hold_it(
    daemon: tuple[MockDaemon, str], state: State, action: str
) -> None:
    mock, url = daemon
    tag = f"sd-{state.fault}-{action}"
    done, took = state.hook(action, url, _body(action, tag))
    assert (done.returncode, done.stderr) == (0, b"")
    if action == "remember":  # the generic harness prints a tool's answer
        assert json.loads(done.stdout)["id"]
    else:
        assert done.stdout == b""
    assert took < DEADLINE_MS / 1000 + SLACK
    assert _taken(mock, action, tag) == 1
    assert state.untouched()
    said = [line for line in state.log_lines() if SAID in line]
    if state.fault == "outbox-file":  # the log is writable: it says why, once
        assert len(said) == 1 and "is not a directory" in said[0], said
        assert said[0].endswith("writes are sent directly, without a durable copy")
    else:
        assert state.log_lines() == []  # nowhere to say it: nothing raised either


HERMES_TWO_WRITES = {
    "user": "And production?",
    "assistant": "Production uses make ship PROD=1.",
    "messages": [
        {
            "role": "user",
            "content": "[CONTEXT COMPACTION] Earlier turns were compacted.\n"
            "## Active Task\nDeploy atlas with make ship.",
        },
        {"role": "user", "content": "And production?"},
        {"role": "assistant", "content": "Production uses make ship PROD=1."},
    ],
    "session": {"id": "sd-two-writes", "project": "/w/atlas", "platform": "cli"},
    "carry": {"compacted": True},
}


@pytest.mark.parametrize("state", ["outbox-file"], indirect=True)
def test_an_event_with_two_writes_says_it_once(
    daemon: tuple[MockDaemon, str], state: State
) -> None:
    mock, url = daemon
    done = state.run(
        [SIGNET_SDK, "hook", "hermes-agent", "sync_turn"],
        state.env(url),
        json.dumps(HERMES_TWO_WRITES).encode(),
    )
    assert (done.returncode, done.stderr) == (0, b"")
    for action in ("compaction_complete", "session_checkpoint_extract"):
        assert _taken(mock, action, "sd-two-writes") == 1, action
    assert len([line for line in state.log_lines() if SAID in line]) == 1


# -- a shim's transport ----------------------------------------------------------------

#: A write event of each kind a JavaScript harness sends, and its neutral output.
SHIM_WRITES = {
    "compaction_complete": ("openclaw", "after_compaction"),
    "remember": ("hermes-agent", "on_memory_write"),
}


def _shim_payload(action: str, tag: str) -> dict[str, Any]:
    if action == "compaction_complete":
        ctx = {"agentId": "main", "sessionKey": f"agent:main:{tag}", "sessionId": tag}
        return {"messageCount": 2, "compactedCount": 2, "summary": f"Summary {tag}.", "ctx": ctx}
    session = {"id": tag, "project": "/w/atlas", "platform": "cli"}
    return {"action": "add", "target": "user", "content": f"Likes {tag}.", "session": session}


@pytest.mark.skipif(NODE is None, reason="node is not installed")
@pytest.mark.parametrize("path", ["hook-process", "server"])
@pytest.mark.parametrize("action", list(SHIM_WRITES))
@pytest.mark.parametrize("state", FAULTS, indirect=True)
def test_a_shim_gets_its_neutral_output_in_time_and_the_write_is_sent(
    daemon: tuple[MockDaemon, str], state: State, action: str, path: str
) -> None:
    mock, url = daemon
    tag = f"shim-{state.fault}-{action}-{path}"
    env = state.env(url, SIGNET_SDK_COMMAND=SIGNET_SDK, SIGNET_ADAPTER_AUTOSTART="1")
    server = None
    if path == "server":
        if state.fault != "outbox-file":  # `signet-sdk serve` needs its state directory
            done = state.run([SIGNET_SDK, "serve", "--port", "0"], env)
            assert done.returncode == 1 and b"cannot use the state directory" in done.stderr
            return
        server = ServeProcess({**env, "SIGNET_ADAPTER_AUTOSTART": "0"})
    harness, event = SHIM_WRITES[action]
    timeout = str(DEADLINE_MS * 3)
    args = [TRANSPORT.as_uri(), harness, event, json.dumps(_shim_payload(action, tag)), timeout]
    try:
        done = state.run([str(NODE), "--input-type=module", "-e", SEND_NATIVE, "--", *args], env)
    finally:
        if server is not None:
            server.stop()
    assert done.returncode == 0 and done.stdout == b"", done.stderr[-2000:]
    got = json.loads(done.stderr)
    assert got["data"] is None  # both events' neutral output: the harness carries on
    assert got["ms"] < DEADLINE_MS * 3 + SLACK * 1000
    assert _taken(mock, action, tag) == 1
    assert state.untouched()
    # The transport's attempt to start a server went nowhere (no lock, no state file).
    assert not (state.root / "adapter-server.json").exists() or path == "server"


# -- the hook runner in this process: a full disk, a read-only folder ------------------


@pytest.mark.parametrize("how", ["full", "read-only"])
@pytest.mark.parametrize("where", ["outbox", "state"])
def test_the_hook_runner_on_a_disk_that_fails(
    daemon: tuple[MockDaemon, str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    how: str,
    where: str,
) -> None:
    import io

    from signet_adapter_hermes import PLUGIN

    from signet_sdk.hooks.runner import run_hook

    mock, url = daemon
    tag = f"inproc-{how}-{where}"
    payload = json.loads(json.dumps(HERMES_TWO_WRITES).replace("sd-two-writes", tag))
    env = State(tmp_path, "none").env(url)
    root = tmp_path / "state" / "signet-sdk"
    _private(root / "outbox")
    monkeypatch.setenv("SIGNET_NO_HOOKS", "0")  # run_hook sets it for its children
    break_disk(monkeypatch, root / "outbox" if where == "outbox" else root, how)
    read, write = os.pipe()
    os.write(write, json.dumps(payload).encode())
    os.close(write)
    out = io.BytesIO()
    try:
        code = run_hook(PLUGIN, "sync_turn", stdin_fd=read, stdout=out, env=env)
    finally:
        os.close(read)
    monkeypatch.undo()
    assert code == 0
    assert json.loads(out.getvalue())["carry"]["compacted"] is None  # the event's own output
    for action in ("compaction_complete", "session_checkpoint_extract"):
        assert _taken(mock, action, tag) == 1, action
    assert list((root / "outbox").iterdir()) == []  # no entry, no half-written file
    log = (root / "hooks.log").read_text().splitlines() if (root / "hooks.log").exists() else []
    said = [line for line in log if SAID in line]
    if where == "outbox":
        reason = "No space left on device" if how == "full" else "Read-only file system"
        assert len(said) == 1 and reason in said[0], log
    else:
        assert said == []  # the log is on the same disk: nothing said, nothing raised


# -- signet-sdk doctor -----------------------------------------------------------------


def _doctor(env: dict[str, str], prefix: list[str] | None = None) -> list[dict[str, Any]]:
    argv = [*(prefix or []), SIGNET_SDK, "doctor", "--json"]
    done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 1, done.stdout + done.stderr
    return [f for f in json.loads(done.stdout) if f["area"] == "state" and not f["ok"]]


@pytest.mark.parametrize("state", FAULTS, indirect=True)
def test_doctor_names_a_state_directory_that_cannot_be_written(state: State) -> None:
    env = state.env("http://127.0.0.1:9")
    problems = _doctor(env, state.prefix)
    messages = [p["message"] for p in problems]
    root, outbox = state.root, state.root / "outbox"
    direct = "hooks send writes directly, without a durable copy"
    if state.fault == "outbox-file":
        assert messages == [f"{outbox} is not a directory (a file is in the way); {direct}"]
    elif state.fault == "state-file":
        assert messages == [f"{root} is not a directory (a link or a file); {direct}"]
    elif state.prefix:
        assert messages == [f"{root} is on a read-only file system; {direct}"]
    else:
        assert messages == [f"{root} is read-only (not writable by this user); {direct}"]
    assert all(p["fix"] for p in problems)


def test_doctor_names_a_full_disk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from signet_sdk.cli.doctor import diagnose

    root = tmp_path / "state" / "signet-sdk"
    _private(root / "outbox")
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    real = os.statvfs

    def full(path: Any) -> Any:
        found = real(path)
        if not str(path).startswith(str(root)):
            return found
        fields = list(found)
        fields[4] = 12  # f_bavail: 12 blocks left
        return os.statvfs_result(fields)

    monkeypatch.setattr(os, "statvfs", full)
    findings = diagnose({"SIGNET_DAEMON_URL": "http://127.0.0.1:9"})
    state = [f for f in findings if f.area == "state" and not f.ok]
    free = 12 * real(root).f_frsize
    assert [f.message for f in state] == [
        f"the disk holding {root} is full ({free} bytes free); "
        "hooks send writes directly, without a durable copy"
    ]
    assert "make room" in state[0].fix


def test_doctor_says_nothing_of_a_writable_state_directory(tmp_path: Path) -> None:
    root = tmp_path / "state" / "signet-sdk"
    _private(root / "outbox")
    env = State(tmp_path, "none").env("http://127.0.0.1:9")
    done = subprocess.run(
        [SIGNET_SDK, "doctor", "--json"], capture_output=True, text=True, env=env, timeout=60
    )
    state = [f for f in json.loads(done.stdout) if f["area"] == "state"]
    assert [(f["ok"], f["message"]) for f in state] == [
        (True, f"{root}: private (0700, files 0600)")
    ]
    assert stat.S_IMODE(root.stat().st_mode) == 0o700


@pytest.mark.parametrize("state", ["outbox-file", "state-file"], indirect=True)
def test_replay_and_the_breaker_report_name_it_too(state: State) -> None:
    env = state.env("http://127.0.0.1:9", SIGNET_BREAKER_FAILURES="3")
    done = state.run([SIGNET_SDK, "outbox", "flush", "--seconds", "0.5"], env)
    assert done.returncode == 1 and done.stdout == b""
    folder = state.root / "outbox" if state.fault == "outbox-file" else state.root
    assert done.stderr.decode() == (
        f"signet-sdk outbox flush: the outbox cannot be used: {folder} is not a directory "
        "(a symlink or a file is in the way)\nsee 'signet-sdk doctor' for what to do\n"
    )
    report = subprocess.run(
        [SIGNET_SDK, "doctor", "--json"], capture_output=True, text=True, env=env, timeout=60
    )
    breaker = [f["message"] for f in json.loads(report.stdout) if f["area"] == "breaker"]
    if state.fault == "state-file":
        assert breaker == ["circuit breaker unavailable: the state directory cannot hold it"]
    else:  # the breaker lives beside the outbox, not in it
        assert breaker == ["closed"]


#: Each read through a hook, with what the generic harness prints for it: the daemon's
#: inject for a session start (none for a prompt with nothing to recall), recall's answer.
READS = {
    "session_start": ({"project": "/w/p"}, lambda out: out.startswith(b"[memory active")),
    "user_prompt_submit": ({"userMessage": "how do we deploy?"}, lambda out: out == b""),
    "pre_compaction": ({}, lambda out: out == b""),
    "recall": ({"query": "deploys"}, lambda out: json.loads(out)["count"] == 0),
}
assert set(READS) | set(WRITES) == set(LIFECYCLE)


@pytest.mark.parametrize("action", list(READS))
@pytest.mark.parametrize("state", FAULTS, indirect=True)
def test_a_hook_read_is_answered_in_time_whatever_the_state_directory(
    daemon: tuple[MockDaemon, str], state: State, action: str
) -> None:
    mock, url = daemon
    tag = f"sd-read-{state.fault}-{action}"
    body, printed = READS[action]
    done, took = state.hook(action, url, {**body, "sessionKey": tag})
    assert took < DEADLINE_MS / 1000 + SLACK
    assert (done.returncode, done.stderr) == (0, b"")
    assert printed(done.stdout), done.stdout
    path = f"/api/hooks/{LIFECYCLE[action].slug}"
    answered = [r for r in mock.requests_to(path) if (r.json or {}).get("sessionKey") == tag]
    assert [r.status for r in answered] == [200]
    assert state.untouched() and [x for x in state.log_lines() if SAID in x] == []
