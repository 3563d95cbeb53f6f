"""The parity suite, the demo and the signet-sdk command, run for real."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from signet_sdk import GenericTranslator, LifecycleCall
from signet_sdk.testing.parity import MISSING, NOT_APPLICABLE, VectorResult, _matrix, run_parity

CLI = [sys.executable, "-m", "signet_sdk.cli.main"]


def test_every_installed_adapter_has_full_or_explained_parity() -> None:
    report = run_parity()
    names = [h.harness for h in report.harnesses]
    assert names[0] == "generic" and "claude-code" in names
    for h in report.harnesses:
        assert h.vectors, f"{h.harness} has no vectors"
        failing = {v.name: v.problems for v in h.vectors if not v.ok}
        assert not failing, failing
        gaps = {k: why for k, (status, why) in {**h.rows, **h.events}.items() if status == MISSING}
        assert not gaps, f"{h.harness}: unexplained gaps {gaps}"
    assert report.ok


def test_a_gap_no_adapter_explains_fails_the_suite() -> None:
    class Forgetful(GenericTranslator):
        not_applicable: dict[str, str] = {}

    tr = Forgetful("forgetful")
    passing = [VectorResult("s", "session-start", endpoints=["session_start"])]
    rows, events = _matrix(tr, passing)
    assert rows["session-start"][0] == "covered"
    assert rows["health"][0] == MISSING and events["recall"][0] == MISSING
    explained = GenericTranslator("g")
    rows, _ = _matrix(explained, passing)
    assert rows["health"] == (NOT_APPLICABLE, explained.not_applicable["health"])


def test_a_vector_whose_request_differs_is_reported(tmp_path: Path) -> None:
    from signet_sdk.testing.mock_daemon import MockDaemon
    from signet_sdk.testing.parity import _check_vector
    from signet_sdk.wire.config import resolve_config
    from signet_sdk.wire.lean import LeanClient

    vector = json.loads(
        (Path(__file__).parent.parent / "contract/vectors/generic/session-start.json").read_text()
    )
    vector["calls"][0]["body"]["project"] = "/somewhere/else"
    mock = MockDaemon()
    with mock.serve() as handle:
        client = LeanClient(resolve_config(handle.url, harness="generic", runtime_path="plugin"))
        result = _check_vector(GenericTranslator("generic", "plugin"), vector, client, None)
    assert not result.ok
    assert result.problems[0].startswith("requests differ")


def test_translated_calls_are_plain_data() -> None:
    calls = GenericTranslator("g").translate("recall", {"query": "q", "harness": "x"})
    assert calls == [LifecycleCall("recall", {"query": "q"})]


def run(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=timeout)


def test_cli_parity_json() -> None:
    proc = run("parity", "--json")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    data = json.loads(proc.stdout)
    assert data["ok"] is True and data["daemon"] == "bundled mock daemon"
    cc = data["harnesses"]["claude-code"]
    assert cc["rows"]["session-start"] == {"status": "covered", "reason": ""}
    assert cc["rows"]["health"]["status"] == "n/a" and cc["rows"]["health"]["reason"]
    assert cc["events"]["PostCompact"]["status"] == "covered"


def test_cli_parity_table_against_a_daemon_url() -> None:
    from signet_sdk.testing.mock_daemon import MockDaemon

    with MockDaemon().serve() as handle:
        proc = run("parity", "--daemon-url", handle.url, "generic")
    assert proc.returncode == 0, proc.stdout
    assert f"parity against {handle.url}" in proc.stdout
    assert "parity: ok" in proc.stdout


def test_demo_plays_every_adapter_and_passes(monkeypatch: pytest.MonkeyPatch) -> None:
    proc = run("demo", timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    out = proc.stdout
    assert "== generic" in out and "== claude-code" in out
    assert "additionalContext:" in out
    assert "demo: ok" in out and "parity: ok" in out


def test_cli_misc() -> None:
    assert run("version").stdout.startswith("signet-sdk ")
    assert "claude-code" in run("adapters").stdout.split()
    bad = run("frobnicate")
    assert bad.returncode == 2 and "unknown command 'frobnicate'" in bad.stderr
    hook = run("hook", "no-such-harness", "SessionStart")
    assert hook.returncode == 2 and "installed: claude-code" in hook.stderr
    assert run("--help").returncode == 0
