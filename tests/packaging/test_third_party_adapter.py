"""A third-party adapter is first-class: built, pip-installed, and seen by every entry point.

The distribution is written from scratch in a temp dir (its own
pyproject, one entry point, a translator, an installer, two vectors),
built and installed with pip into a private target directory, and every
command runs in a subprocess with that directory on ``PYTHONPATH``, as a
user's environment would have it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from signet_sdk.testing.mock_daemon import MockDaemon

PYPROJECT = """\
[build-system]
requires = ["hatchling>=1.21"]
build-backend = "hatchling.build"

[project]
name = "acme-signet-adapter"
version = "1.2.3"
requires-python = ">=3.11"
dependencies = []

[project.entry-points."signet_sdk.adapters"]
acme = "acme_adapter:PLUGIN"

[tool.hatch.build.targets.wheel]
packages = ["acme_adapter"]
"""

PACKAGE = """\
from signet_sdk.runtime.native import NativeOutput
from signet_sdk.runtime.plugin import EventSpec, HarnessPlugin
from signet_sdk.wire.errors import PayloadError
from signet_sdk.wire.lifecycle import LifecycleCall


class AcmeTranslator:
    def translate(self, event, payload):
        if event == "turn":
            text = payload.get("text")
            if not isinstance(text, str):
                raise PayloadError("text", "must be a string")
            body = {"sessionKey": payload["sid"], "userMessage": text, "project": "/acme"}
            return [LifecycleCall("user_prompt_submit", body)]
        if event == "bye":
            return [LifecycleCall("session_end", {"sessionKey": payload["sid"], "reason": "exit"})]
        raise PayloadError("event", "unknown")

    def render(self, event, payload, results):
        inject = (results[0] or {}).get("inject") if results else None
        return NativeOutput({"context": inject}) if inject else self.neutral(event)

    def neutral(self, event):
        return NativeOutput({"context": None})


PLUGIN = HarnessPlugin(
    "acme",
    translator=AcmeTranslator(),
    events=[EventSpec("turn", "prompt_submit"), EventSpec("bye")],
    runtime_path="plugin",
    not_applicable={row: "acme has no such moment" for row in (
        "session-start", "pre-compaction", "compaction-complete",
        "memory-search", "memory-store", "memory-get", "memory-modify", "memory-forget",
        "secret-injection", "health",
    )},
    installer="acme_adapter.install:main",
    vectors="acme_adapter.vectors",
)
"""

INSTALLER = """\
import sys


def main(argv):
    sys.stdout.write("acme installer: " + " ".join(argv) + "\\n")
    return 0
"""


def _vector(name: str, text: str, inject: str) -> dict[str, object]:
    return {
        "harness": "acme",
        "name": name,
        "event": "turn",
        "payload": {"sid": "s-1", "text": text},
        "calls": [
            {
                "action": "user_prompt_submit",
                "method": "POST",
                "path": "/api/hooks/user-prompt-submit",
                "body": {
                    "sessionKey": "s-1",
                    "userMessage": text,
                    "project": "/acme",
                    "harness": "acme",
                    "runtimePath": "plugin",
                },
            }
        ],
        "answers": [{"status": 200, "body": {"inject": inject, "memoryCount": 1}}],
        "output": {
            "data": {"context": inject},
            "stdout": json.dumps({"context": inject}, separators=(",", ":")),
            "exit_code": 0,
        },
    }


BYE = {
    "harness": "acme",
    "name": "bye",
    "event": "bye",
    "payload": {"sid": "s-1"},
    "calls": [
        {
            "action": "session_end",
            "method": "POST",
            "path": "/api/hooks/session-end",
            "body": {
                "sessionKey": "s-1",
                "reason": "exit",
                "harness": "acme",
                "runtimePath": "plugin",
            },
        }
    ],
    "answers": [{"status": 200, "body": {"memoriesSaved": 0}}],
    "output": {"data": {"context": None}, "stdout": '{"context":null}', "exit_code": 0},
}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("acme")
    src = root / "src"
    pkg = src / "acme_adapter"
    (pkg / "vectors").mkdir(parents=True)
    (src / "pyproject.toml").write_text(PYPROJECT)
    (pkg / "__init__.py").write_text(PACKAGE)
    (pkg / "install.py").write_text(INSTALLER)
    (pkg / "vectors" / "__init__.py").write_text("")
    turn = _vector("turn-deploy", "how do we deploy", "deploys are blue-green")
    (pkg / "vectors" / "turn-deploy.json").write_text(json.dumps(turn, indent=2))
    (pkg / "vectors" / "bye.json").write_text(json.dumps(BYE, indent=2))
    target = root / "site"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "--target",
            str(target),
            str(src),
        ],
        check=True,
        timeout=300,
    )
    return target


def _run(
    site: Path, *args: str, stdin: str = "", env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("SIGNET_")}
    environ["PYTHONPATH"] = os.pathsep.join([str(site), environ.get("PYTHONPATH", "")])
    environ.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "signet_sdk", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=environ,
        timeout=120,
    )


@pytest.fixture
def daemon(tmp_path: Path) -> Iterator[tuple[MockDaemon, str]]:
    # 0.109 answers every prompt with its Memory Check (0.145 only a named entity).
    mock = MockDaemon(db_path=tmp_path / "d.sqlite3", version="0.109")
    with mock.serve() as handle:
        yield mock, handle.url


def test_listed_by_harnesses(site: Path) -> None:
    done = _run(site, "harnesses", "--json")
    assert done.returncode == 0, done.stderr
    rows = {row["name"]: row for row in json.loads(done.stdout)}
    assert rows["acme"] == {
        "name": "acme",
        "distribution": "acme-signet-adapter",
        "version": "1.2.3",
        "events": ["turn", "bye"],
        "vectors": 2,
        "installer": True,
        "runtimePath": "plugin",
    }


def test_create_adapter_labels_the_client(site: Path) -> None:
    code = textwrap.dedent(
        """
        from signet_sdk import create_adapter
        from signet_sdk.plugin import find_plugin
        client = create_adapter("acme", "http://127.0.0.1:9", strict=True)
        print(type(client).__name__, client.harness, client.config.runtime_path)
        print(find_plugin("acme").distribution)
        """
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("SIGNET_")}
    env["PYTHONPATH"] = str(site)
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:2] == ["AdapterClient acme plugin", "acme-signet-adapter"]


def test_parity_runs_its_vectors(site: Path) -> None:
    done = _run(site, "parity", "acme", "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)["harnesses"]["acme"]
    assert [v["name"] for v in report["vectors"]] == ["bye", "turn-deploy"]
    assert all(v["ok"] for v in report["vectors"])
    assert report["rows"]["prompt-submit"]["status"] == "covered"
    assert report["rows"]["session-end"]["status"] == "covered"
    assert report["events"] == {
        "turn": {"status": "covered", "reason": ""},
        "bye": {"status": "covered", "reason": ""},
    }


def test_hook_runs_its_events(site: Path, daemon: tuple[MockDaemon, str], tmp_path: Path) -> None:
    mock, url = daemon
    payload = json.dumps({"sid": "acme-1", "text": "hello from acme"})
    env = {"SIGNET_DAEMON_URL": url, "XDG_STATE_HOME": str(tmp_path / "state")}
    done = _run(site, "hook", "acme", "turn", stdin=payload, env=env)
    assert done.returncode == 0 and done.stderr == ""
    # The mock daemon's own per-turn context, passed through by the translator.
    assert "Memory Check" in json.loads(done.stdout)["context"]
    sent = [r for r in mock.requests if r.path == "/api/hooks/user-prompt-submit"]
    assert len(sent) == 1
    assert json.loads(sent[0].body) == {
        "sessionKey": "acme-1",
        "userMessage": "hello from acme",
        "project": "/acme",
        "harness": "acme",
        "runtimePath": "plugin",
    }


def test_install_reaches_its_installer(site: Path) -> None:
    done = _run(site, "install", "acme", "--dry-run", "--flag")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "acme installer: install --dry-run --flag\n"
    done = _run(site, "uninstall", "acme")
    assert done.stdout == "acme installer: uninstall\n"
