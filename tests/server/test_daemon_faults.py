"""The fault matrix, continued: the adapter server and the JavaScript transport.

The hook-path cells (``tests/hooks/test_daemon_faults.py``) run ``signet-sdk hook`` as a
command-hook harness does. JavaScript harnesses reach the daemon another
way: the shared transport (``signet_sdk/shims/transport.mjs``) posts each
event to ``signet-sdk serve``, or runs the hook process while no server
answers. Each cell here is one native event sent by the transport in a
real ``node``, on each of those two paths, against each way a daemon fails:

* down (nothing listens), hanging (reads the request, never answers), slow
  (answers after 4 s), 5xx, malformed JSON (a 200 that is not JSON).

Every cell must give the neutral output within the event's deadline (on the
server path the server's own, the daemon calls' deadline) and lose no write.
The events are the OpenClaw plugin's (a JavaScript harness on this transport),
each with the payload of one of the adapter's contract vectors. The neutral
output is ``null`` (the harness carries on as if no plugin were loaded),
except that a session end is over whatever the daemon does: its write is
safe in the outbox, so the plugin still forgets the session (``{"end": true}``).
A write is never lost and never doubled: it waits in the outbox, or reached
the daemon, once.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from signet_sdk.testing.mock_daemon import MockDaemon
from signet_sdk.testing.serve_process import ServeProcess
from signet_sdk.wire.lifecycle import LIFECYCLE

from ..fault_support import SEND_NATIVE, FaultProxy

NODE = shutil.which("node")
SDK = str(Path(sys.executable).parent / "signet-sdk")
TRANSPORT = Path(__file__).resolve().parents[2] / "signet_sdk" / "shims" / "transport.mjs"
#: The daemon calls' deadline in the server and the hook process, and the
#: event's deadline in the transport (what a shim gives it: that plus a margin).
CALL_DEADLINE_MS = 1000
EVENT_DEADLINE_MS = 3000
#: Waking node after its timer on a loaded 2-core machine.
SLACK = 0.5

SERVER_FAULTS: dict[str, dict[str, Any]] = {
    "down": {},
    "hanging": {"mode": "hang"},
    "slow": {"mode": "slow", "delay": 4.0},
    "5xx": {"mode": "status", "status": 500, "body": {"error": "Hook execution failed"}},
    "malformed": {"mode": "garbage"},
}
PATHS = ("server", "hook-process")

pytestmark = pytest.mark.skipif(NODE is None, reason="node is not installed")  # CI installs it


def _closed_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _env(state: Path, daemon_url: str) -> dict[str, str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("SIGNET_")}
    deadline = str(CALL_DEADLINE_MS)
    return {
        **base,
        "HOME": str(state),
        "XDG_STATE_HOME": str(state),
        "SIGNET_DAEMON_URL": daemon_url,
        "SIGNET_FETCH_TIMEOUT": deadline,
        "SIGNET_SESSION_START_TIMEOUT": deadline,
        "SIGNET_PROMPT_SUBMIT_TIMEOUT": deadline,
        "SIGNET_OUTBOX_FLUSH_SECONDS": "0",  # a detached sender tries nothing and exits
        "SIGNET_BREAKER_FAILURES": "0",
        "SIGNET_SDK_COMMAND": SDK,
        "SIGNET_ADAPTER_AUTOSTART": "0",
    }


#: Sends every lifecycle event at once through the transport; prints per event
#: the output and the milliseconds the transport took.
SEND_ALL = """
const t = await import(process.argv[1]);
const bodies = JSON.parse(process.argv[2]);
const timeoutMs = Number(process.argv[3]);
const out = {};
await Promise.all(Object.entries(bodies).map(async ([slug, body]) => {
  const started = performance.now();
  const data = await t.send("openclaw", slug, body, { timeoutMs });
  out[slug] = { data: data === undefined ? "undefined" : data, ms: performance.now() - started };
}));
process.stderr.write(JSON.stringify(out));
"""


def _send_all(env: dict[str, str], bodies: dict[str, Any]) -> dict[str, Any]:
    args = [json.dumps(bodies), str(EVENT_DEADLINE_MS)]
    done = subprocess.run(
        [str(NODE), "--input-type=module", "-e", SEND_ALL, "--", TRANSPORT.as_uri(), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout == ""  # the transport never writes to stdout
    result: dict[str, Any] = json.loads(done.stderr)
    return result


def _start_node(script: str, env: dict[str, str], *args: str) -> subprocess.Popen[str]:
    """Start ``script`` under Node with the transport's URL, ``args`` and the event deadline."""
    argv = [TRANSPORT.as_uri(), *args, str(EVENT_DEADLINE_MS)]
    return subprocess.Popen(
        [str(NODE), "--input-type=module", "-e", script, "--", *argv],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _outbox(state: Path) -> tuple[list[str], list[str]]:
    """The actions of the pending and the dead entries of a state directory's outbox."""
    root = state / "signet-sdk" / "outbox"
    pending = [json.loads(p.read_text())["action"] for p in root.glob("*.json")]
    dead = [json.loads(p.read_text())["action"] for p in (root / "dead").glob("*.json")]
    return pending, dead


#: The OpenClaw plugin's events (a JavaScript harness on this transport), each as
#: the plugin forwards it: the payload of one of the adapter's own contract vectors.
EVENTS = {
    "session_start": "session-start-gateway",
    "before_prompt_build": "before-prompt-build-first-local",
    "agent_end": "agent-end-checkpoint",
    "before_compaction": "before-compaction",
    "after_compaction": "after-compaction-summary",
    "session_end": "session-end-shutdown",
}


def _vector(name: str) -> dict[str, Any]:
    from importlib.resources import files

    found: dict[str, Any] = json.loads(
        (files("signet_adapter_openclaw.vectors") / f"{name}.json").read_text()
    )
    return found


VECTORS = {event: _vector(name) for event, name in EVENTS.items()}


def _key(tag: str) -> str:
    return f"agent:main:{tag}"


def _bodies(tag: str) -> dict[str, Any]:
    """Each event's payload, in a session of this cell's own."""
    text = json.dumps({event: vector["payload"] for event, vector in VECTORS.items()})
    found: dict[str, Any] = json.loads(text.replace('"agent:main:main"', json.dumps(_key(tag))))
    return found


@pytest.fixture(scope="module")
def daemon() -> Iterator[MockDaemon]:
    mock = MockDaemon()
    with mock.serve() as handle:
        mock.address = (handle.host, handle.port)  # type: ignore[attr-defined]
        yield mock
    mock.close()


def _reached(daemon: MockDaemon, action: str, key: str) -> int:
    """How many times a write of this session reached the daemon."""
    path = f"/api/hooks/{LIFECYCLE[action].slug}"
    return sum(
        1 for r in daemon.requests if r.path == path and (r.json or {}).get("sessionKey") == key
    )


def _run_fault(fault: str, path: str, upstream: tuple[str, int], state: Path) -> dict[str, Any]:
    spec = SERVER_FAULTS[fault]
    proxy = FaultProxy(upstream, **spec) if spec else None
    url = proxy.url if proxy else f"http://127.0.0.1:{_closed_port()}"
    env = _env(state, url)
    try:
        if path == "server":
            with ServeProcess(env):
                sent = _send_all(env, _bodies(f"{fault}-{path}"))
        else:
            sent = _send_all(env, _bodies(f"{fault}-{path}"))
    finally:
        if proxy is not None:
            proxy.close()
    return sent


def test_server_and_transport_fail_open_in_time_and_keep_every_write(
    daemon: MockDaemon, tmp_path: Path
) -> None:
    problems = []
    cells = 0
    for fault in SERVER_FAULTS:
        for path in PATHS:
            state = tmp_path / f"{fault}-{path}"
            sent = _run_fault(fault, path, daemon.address, state)  # type: ignore[attr-defined]
            pending, dead = _outbox(state)
            for event, vector in VECTORS.items():
                cells += 1
                cell = f"{path} {fault} x {event}"
                got = sent[event]
                neutral = None if event != "session_end" else {"end": True}
                if got["data"] != neutral:  # a session end is over, its write safe in the outbox
                    problems.append(f"{cell}: output {got['data']!r}, not {neutral!r}")
                # The transport's deadline; on the server path the server's own, which is
                # the daemon calls' (the transport's margin is for starting a hook process).
                limit = EVENT_DEADLINE_MS if path != "server" else CALL_DEADLINE_MS
                if got["ms"] > limit + SLACK * 1000:
                    problems.append(f"{cell}: took {got['ms']:.0f} ms (deadline {limit} ms)")
                writes = [c["action"] for c in vector["calls"] if LIFECYCLE[c["action"]].durable]
                for action in writes:
                    kept = pending.count(action) + dead.count(action)
                    reached = _reached(daemon, action, _key(f"{fault}-{path}"))
                    if kept > 1 or reached > 1 or kept + reached == 0:
                        problems.append(
                            f"{cell}: {action} kept {kept}, reached the daemon {reached}"
                        )
                    if dead.count(action):
                        problems.append(f"{cell}: a dead letter for a daemon that may recover")
    assert problems == [], "\n".join(problems)
    assert cells == len(SERVER_FAULTS) * len(PATHS) * len(VECTORS) == 60


# -- the server killed in the middle of an event ---------------------------------------

SEND_ONE = """
const t = await import(process.argv[1]);
const started = performance.now();
const data = await t.send("openclaw", process.argv[2], JSON.parse(process.argv[3]), {
  timeoutMs: Number(process.argv[4]),
});
process.stderr.write(JSON.stringify({ data: data ?? null, ms: performance.now() - started }));
"""


def _stored_once(daemon: MockDaemon, action: str, key: str) -> int:
    """How often the daemon took a write of this session (repeats it recognised aside)."""
    path = f"/api/hooks/{LIFECYCLE[action].slug}"
    took = 0
    for r in daemon.requests:
        if r.path != path or (r.json or {}).get("sessionKey") != key or r.status >= 300:
            continue
        answer = r.response_json if isinstance(r.response_json, dict) else {}
        if answer.get("duplicateSessionEnd") or answer.get("duplicate"):
            continue  # a repeat the daemon recognised: not taken again
        took += 1
    return took


def _run_flush(env: dict[str, str], daemon_url: str) -> subprocess.CompletedProcess[str]:
    """Run ``signet-sdk outbox flush`` against the daemon itself, settling nothing first."""
    flush = {**env, "SIGNET_DAEMON_URL": daemon_url, "SIGNET_OUTBOX_SETTLE_SECONDS": "0"}
    return subprocess.run(
        [SDK, "outbox", "flush", "--seconds", "20"],
        env=flush,
        capture_output=True,
        text=True,
        timeout=120,
    )


def _flush(env: dict[str, str], daemon_url: str) -> None:
    """Deliver whatever is queued, to the daemon itself, as the next session's sender would."""
    done = _run_flush(env, daemon_url)
    assert done.returncode == 0, done.stdout + done.stderr


#: What the harness gets when the server dies in the middle of the event: a read is
#: answered by the hook process the transport falls back to (the daemon is fine by
#: then); a write was answered before the server called the daemon (it is detached:
#: safe on disk first), so its output is the write's.
KILLED_OUTPUT = {
    "session_start": lambda data: bool(data and data["carry"]["started"]),
    "before_prompt_build": lambda data: bool(
        data and "signet-memory" in (data["result"] or {}).get("prependContext", "")
    ),
    "before_compaction": lambda data: data is None,
    "agent_end": lambda data: data is None,
    "after_compaction": lambda data: data is None,
    "session_end": lambda data: data == {"end": True},
}


@pytest.mark.parametrize("event", list(VECTORS))
def test_server_killed_mid_event(daemon: MockDaemon, tmp_path: Path, event: str) -> None:
    """The server dies while its first call to the daemon hangs: the transport falls back
    to the hook process in time, and every write reaches the daemon exactly once."""
    key = _key(f"killed-{event}")
    body = _bodies(f"killed-{event}")[event]
    address = daemon.address  # type: ignore[attr-defined]
    # Only the first hook call hangs: the server's. The hook process's pass.
    with FaultProxy(address, mode="hang", fail_first=1, only="/api/hooks/") as hanging:
        env = _env(tmp_path, hanging.url)
        server = ServeProcess(env)
        try:
            node = _start_node(SEND_ONE, env, event, json.dumps(body))
            deadline = time.monotonic() + 10
            while not hanging.requests_to_prefix("/api/hooks/") and time.monotonic() < deadline:
                time.sleep(0.01)
            assert hanging.requests_to_prefix("/api/hooks/"), "the server never called the daemon"
            server.proc.kill()  # in the middle of the event: its call to the daemon hangs
            server.proc.wait(timeout=10)
            out, err = node.communicate(timeout=60)
        finally:
            server.stop()
    assert node.returncode == 0 and out == "", err[-2000:]
    got = json.loads(err)
    assert KILLED_OUTPUT[event](got["data"]), got
    assert got["ms"] < EVENT_DEADLINE_MS + SLACK * 1000
    writes = [c["action"] for c in VECTORS[event]["calls"] if LIFECYCLE[c["action"]].durable]
    if writes:
        _flush(env, f"http://{address[0]}:{address[1]}")
    for action in writes:
        assert _stored_once(daemon, action, key) == 1, [
            (r.path, r.status, r.response_json)
            for r in daemon.requests
            if r.path.endswith(LIFECYCLE[action].slug)
        ]


# -- exactly once, end to end: the server killed at each point of a write -----------------
#
# One event id from the transport, through the server, to the outbox: the transport
# sends it as X-Signet-Event-Id and, when the server went away mid-event, runs the
# hook process with ``--event-id`` (the same id), whose writes then find what the
# server stored, or are sent as repeats the daemon recognises. Each cell sends one
# write event through the transport to ``signet-sdk serve`` and kills the server at
# one point of that write; then the next session's sender flushes whatever is pending,
# and the daemon must have stored the write exactly once, a compaction summary (which
# the daemon itself never de-duplicates) included.

#: Where the server dies. The first three are set by a proxy in front of the daemon,
#: on the write's own route: the server is killed once the proxy has its send.
#: ``answered``: the server had the daemon's answer (and removed its entry); a proxy
#: in front of the server takes its answer to the event and then kills it.
KILL_POINTS: dict[str, dict[str, Any]] = {
    "before": {"mode": "hang"},  # the daemon never gets the server's send
    "while": {"mode": "slow_before", "delay": 2.0},  # it gets it after the server died
    "after": {"mode": "slow", "delay": 2.0},  # it stored it; the server never heard
    "answered": {},
}


class WriteEvent:
    """One native event whose write is under test, as a cell sends it."""

    def __init__(
        self, harness: str, event: str, package: str, vector: str, action: str, key: str
    ) -> None:
        self.harness, self.event, self.action, self.key = harness, event, action, key
        found = json.loads((_files(package) / f"{vector}.json").read_text())
        self.payload: dict[str, Any] = found["payload"]
        self.detached = bool(_plugin_spec(harness, event).detach)

    def payload_for(self, tag: str, home: Path) -> tuple[dict[str, Any], str]:
        """This cell's payload (its own session key and memory text) and that key."""
        # An OpenClaw key names its agent (``agent:<id>:<session>``): kept, as the daemon
        # files the session's summaries under that agent.
        head = self.key.rsplit(":", 1)[0] + ":" if self.key.startswith("agent:") else ""
        key = f"{head}{tag}-{self.key[-8:]}"
        text = json.dumps(self.payload).replace(self.key, key)
        text = text.replace("Prefers make targets", f"Prefers make targets ({tag})")
        text = text.replace("/home/dev/.claude", str(home / ".claude"))
        payload: dict[str, Any] = json.loads(text)
        if isinstance(payload.get("messages"), list):  # a session long enough to summarise
            said = {"role": "assistant", "content": "Deploys go through make ship. " * 30}
            payload["messages"].insert(-1, said)
        return payload, key


def _files(package: str) -> Any:
    from importlib.resources import files

    return files(f"{package}.vectors")


def _plugin_spec(harness: str, event: str) -> Any:
    from signet_sdk.runtime.registry import find_plugin

    plugin = find_plugin(harness)
    assert plugin is not None, harness
    return plugin.events[event]


#: Each durable action, through events that write inline (the server answers after the
#: write) and detached (it answers once the write is on disk): compaction-complete both.
WRITE_EVENTS = {
    "compaction_complete": WriteEvent(
        "claude-code",
        "PostCompact",
        "signet_adapter_claude_code",
        "post-compact",
        "compaction_complete",
        "5f0c3a9e-1b2d-4c6e-8f7a-9b0c1d2e3f40",
    ),
    "compaction_complete-detached": WriteEvent(
        "openclaw",
        "after_compaction",
        "signet_adapter_openclaw",
        "after-compaction-summary",
        "compaction_complete",
        "agent:main:main",
    ),
    "session_checkpoint_extract": WriteEvent(
        "claude-code",
        "Stop",
        "signet_adapter_claude_code",
        "stop-checkpoint",
        "session_checkpoint_extract",
        "5f0c3a9e-1b2d-4c6e-8f7a-9b0c1d2e3f40",
    ),
    "session_end": WriteEvent(
        "hermes-agent",
        "on_session_switch",
        "signet_adapter_hermes",
        "on-session-switch-compression",
        "session_end",
        "20261124_174812_a3f9c2",
    ),
    "remember-detached": WriteEvent(
        "hermes-agent",
        "on_memory_write",
        "signet_adapter_hermes",
        "on-memory-write-add",
        "remember",
        "20261124_174812_a3f9c2",
    ),
}
assert {w.action for w in WRITE_EVENTS.values()} == {
    a for a, row in LIFECYCLE.items() if row.durable
}  # every durable action has its row


def _transcript(home: Path, payload: dict[str, Any]) -> None:
    """The Claude Code transcript a payload names: two turns, well over a checkpoint's minimum."""
    path = payload.get("transcript_path")
    if not isinstance(path, str):
        return
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    lines = [
        {"type": "user", "message": {"role": "user", "content": f"how do deploys work? {i}"}}
        for i in range(12)
    ] + [{"type": "assistant", "message": {"role": "assistant", "content": "make ship. " * 40}}]
    Path(path).write_text("".join(json.dumps(line) + "\n" for line in lines))


def _stored(daemon: MockDaemon, action: str) -> int:
    """What the daemon stored for the cell's one write: a memory, or a summary job."""
    if action in ("session_end", "session_checkpoint_extract"):
        return len(daemon.summary_jobs())
    return daemon.memory_count()


def _wait(condition: Any, seconds: float = 15.0) -> bool:
    end = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > end:
            return False
        time.sleep(0.02)
    return True


def _flush_when_idle(env: dict[str, str], daemon_url: str, outbox: Path) -> None:
    """:func:`_flush` once no detached sender (one a hook started) is at work any more."""
    end = time.monotonic() + 30
    while True:
        done = _run_flush(env, daemon_url)
        if "another sender is at work" not in done.stdout or time.monotonic() > end:
            break
        time.sleep(0.2)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("kill", list(KILL_POINTS))
@pytest.mark.parametrize("write", list(WRITE_EVENTS))
def test_server_killed_at_each_point_of_a_write_stores_it_once(
    tmp_path: Path, write: str, kill: str
) -> None:
    spec = WRITE_EVENTS[write]
    route = f"/api/hooks/{LIFECYCLE[spec.action].slug}"
    payload, _key_of_cell = spec.payload_for(f"{write}-{kill}", tmp_path)
    _transcript(tmp_path, payload)
    daemon = MockDaemon()
    with daemon.serve() as handle:
        fault = KILL_POINTS[kill] or {"mode": "pass"}
        with FaultProxy((handle.host, handle.port), fail_first=1, only=route, **fault) as held:
            env = _env(tmp_path, held.url)
            server = ServeProcess(env)
            front: FaultProxy | None = None
            try:
                if kill == "answered":
                    host, port = server.url.rsplit("//", 1)[1].rsplit(":", 1)
                    front = FaultProxy((host, int(port)), mode="lost", on_answer=server.proc.kill)
                    env = {
                        **env,
                        "SIGNET_ADAPTER_URL": front.url,
                        "SIGNET_ADAPTER_TOKEN": server.token or "",
                    }
                node = _start_node(SEND_NATIVE, env, spec.harness, spec.event, json.dumps(payload))
                if kill != "answered":
                    assert _wait(lambda: held.requests_to(route)), "the server never sent it"
                    server.proc.kill()  # at this point of its write
                out, err = node.communicate(timeout=60)
            finally:
                server.stop()
                if front is not None:
                    front.close()
            if front is not None:  # the server had done the whole event, write included
                assert front.lost and front.lost[0].startswith(b"HTTP/1.1 200 "), front.lost
            assert node.returncode == 0 and out == "", err[-2000:]
            got = json.loads(err)
            assert got["ms"] < EVENT_DEADLINE_MS + SLACK * 1000, got
            if kill == "while":  # the held send reaches the daemon after the server died
                assert _wait(lambda: held.forwarded)
        outbox = tmp_path / "signet-sdk" / "outbox"
        _flush_when_idle(env, handle.url, outbox)
        stored = _stored(daemon, spec.action)
        sends = [(r.status, r.response_json) for r in daemon.requests_to(route)]
    daemon.close()
    assert stored == 1, sends
    assert list(outbox.glob("*.json")) == [] and not list(outbox.glob("dead/*"))
