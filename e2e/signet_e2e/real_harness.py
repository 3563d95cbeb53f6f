"""For end-to-end tests that run a real harness: skip or fail, a project, what the daemon saw.

* :func:`unavailable` is how a missing prerequisite ends a test: a skip,
  a failure under CI (:func:`in_ci`); :func:`npm_cache` is where pinned
  npm packages go (see :func:`~signet_e2e.npm_binary`).
* :func:`node_tests` runs a shim's ``node --test`` files as one test.
* :func:`project_parent` is where a test project goes (not under /tmp,
  whose projects the daemon ignores); :func:`remember` stores a memory
  through the daemon's HTTP API.
* :data:`DAEMONS`, :func:`on_every_daemon` and :func:`daemon_of`: a test on
  the mock and on each real release; :func:`get_json` reads a JSON answer.
* :func:`recording_daemon` is the mock daemon, or a real release behind a
  recording proxy; :func:`hook_requests` and :func:`wait_for_hook` read what
  either received on ``/api/hooks/<name>``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import time
import urllib.request
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NoReturn

import pytest

from signet_sdk.testing.real_daemon import SUPPORTED_VERSIONS

__all__ = [
    "DAEMONS",
    "daemon_of",
    "get_json",
    "hook_requests",
    "in_ci",
    "long_prompt",
    "node_tests",
    "npm_cache",
    "on_every_daemon",
    "project_parent",
    "recording_daemon",
    "remember",
    "summary_or_reply",
    "unavailable",
    "wait_for_hook",
]


#: The daemons an end-to-end test can run on: the mock, then each real Signet release.
DAEMONS: tuple[str, ...] = ("mock", *SUPPORTED_VERSIONS)


def on_every_daemon(fixture: str = "world") -> pytest.MarkDecorator:
    """A mark running a test once per daemon of :data:`DAEMONS`, given to ``fixture``
    (indirect), which reads it with :func:`daemon_of`; unmarked tests get the mock."""
    return pytest.mark.parametrize(fixture, DAEMONS, indirect=True)


def daemon_of(request: pytest.FixtureRequest) -> str:
    """The daemon a fixture's test runs on: its :func:`on_every_daemon` parameter, or the mock."""
    return str(getattr(request, "param", "mock"))


def get_json(url: str) -> Any:
    """``GET url`` (10 s at most), its JSON body."""
    with urllib.request.urlopen(url, timeout=10) as response:
        return json.loads(response.read())


def in_ci() -> bool:
    """Whether this runs under CI (``CI`` set to 1, true or yes), where nothing may be skipped."""
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


def unavailable(reason: str) -> NoReturn:
    """End the test for want of a prerequisite: a skip, a failure under CI."""
    if in_ci():
        pytest.fail(reason)
    pytest.skip(reason)


def npm_cache(env: Mapping[str, str] | None = None) -> str:
    """Where pinned npm packages are installed: ``SIGNET_NPM_CACHE``, else the user cache.

    Resolve it at import, before a test's private HOME is in place: the
    install is shared by every test run.
    """
    env = os.environ if env is None else env
    explicit = env.get("SIGNET_NPM_CACHE")
    if explicit:
        return explicit
    base = env.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    return os.path.join(base, "signet-sdk", "npm")


def node_tests(folder: Path, what: str, timeout: float = 120) -> None:
    """Run the ``*.test.mjs`` files in ``folder`` with ``node --test``; fail on a failure."""
    node = shutil.which("node")
    if node is None:
        unavailable(f"node is needed for {what}'s tests")
    files = sorted(str(p) for p in Path(folder).glob("*.test.mjs"))
    assert files, f"no *.test.mjs in {folder}"
    proc = subprocess.run([node, "--test", *files], capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert "# fail 0" in proc.stdout


def project_parent() -> str:
    """A folder for test projects: not /tmp, whose projects the daemon treats as noise."""
    for candidate in ("/var/tmp", os.path.expanduser("~/.cache")):
        if os.path.isdir(candidate) and os.access(candidate, os.W_OK):
            return candidate
    return tempfile.gettempdir()


def long_prompt(question: str) -> str:
    """``question`` and ten steps of filler: a turn long enough that its transcript passes
    the daemon's 500-character minimum for summarising a session."""
    steps = (
        f"Step {i}: check the release notes, the migrations and the staging flag."
        for i in range(10)
    )
    return f"{question} " + " ".join(steps)


def remember(url: str, content: str, **fields: Any) -> None:
    """Store a memory through the daemon at ``url`` (``fields``: more of the request body)."""
    data = json.dumps({"content": content, "importance": 0.9, **fields}).encode()
    request = urllib.request.Request(
        f"{url}/api/memory/remember", data=data, headers={"content-type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        assert response.status == 200


def summary_or_reply(mark: str, summary: str, reply: str) -> Callable[[dict[str, Any]], str]:
    """A fake chat model's answer: ``summary`` when the request's last message holds
    ``mark`` (the words a harness asks for a compaction with), else ``reply``."""

    def answer(body: dict[str, Any]) -> str:
        messages = body.get("messages") or []
        last = json.dumps(messages[-1]) if messages else ""
        return summary if mark in last else reply

    return answer


@contextmanager
def recording_daemon(
    kind: str, request: Any, db_path: Path, *, version: str = "0.110"
) -> Iterator[tuple[Any, str]]:
    """A daemon that records what it receives, and its URL.

    ``kind`` ``"mock"``: the mock daemon answering as ``version`` (0.110 serves
    the session transcript route), its store at ``db_path``; else a fresh
    real daemon of release ``kind`` from the ``real_daemon_kit`` fixture
    (through pytest's ``request``), behind a recording proxy.
    """
    if kind == "mock":
        from signet_sdk.testing.mock_daemon import MockDaemon

        mock = MockDaemon(db_path=db_path, version=version)
        with mock.serve() as handle:
            yield mock, handle.url
        return
    from signet_sdk.testing.recording_proxy import RecordingProxy

    kit = request.getfixturevalue("real_daemon_kit")
    with kit.running(kind) as real, RecordingProxy(real.url) as proxy:
        yield proxy, proxy.url


def hook_requests(daemon: Any, name: str) -> list[Any]:
    """What ``daemon`` (anything with ``.requests`` that have a ``.path``) got on a hook route."""
    return [r for r in daemon.requests if r.path == f"/api/hooks/{name}"]


def wait_for_hook(daemon: Any, name: str, count: int = 1, timeout: float = 20.0) -> list[Any]:
    """The requests to ``/api/hooks/<name>`` once there are ``count``; ``AssertionError`` if not."""
    end = time.monotonic() + timeout
    while True:
        found = hook_requests(daemon, name)
        if len(found) >= count:
            return found
        if time.monotonic() >= end:
            seen = [r.path for r in daemon.requests]
            raise AssertionError(f"{count} x {name} not seen within {timeout}s; saw {seen}")
        time.sleep(0.05)
