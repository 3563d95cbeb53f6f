"""The parity suite, the demo and the signet-sdk command, run for real."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from signet_sdk.plugin import GenericTranslator, HarnessPlugin, LifecycleCall
from signet_sdk.runtime.generic import GENERIC_NOT_APPLICABLE, generic_plugin
from signet_sdk.testing.parity import (
    MISSING,
    NOT_APPLICABLE,
    VectorResult,
    _matrix,
    format_table,
    run_parity,
)

CLI = [sys.executable, "-m", "signet_sdk"]


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
    events = list(generic_plugin("g").events)
    forgetful = HarnessPlugin("forgetful", translator=GenericTranslator(), events=events)
    passing = [VectorResult("s", "session-start", endpoints=["session_start"])]
    rows, evs = _matrix(forgetful, passing)
    assert rows["session-start"][0] == "covered"
    assert rows["health"][0] == MISSING and evs["recall"][0] == MISSING
    rows, _ = _matrix(generic_plugin("g"), passing)
    assert rows["health"] == (NOT_APPLICABLE, GENERIC_NOT_APPLICABLE["health"])


def test_a_vector_whose_request_differs_is_reported(tmp_path: Path) -> None:
    from signet_sdk.testing.mock_daemon import MockDaemon
    from signet_sdk.testing.parity import _check_vector
    from signet_sdk.wire.config import resolve_config
    from signet_sdk.wire.lean import LeanClient

    vector = json.loads(
        (Path(__file__).parents[2] / "contract/vectors/generic/session-start.json").read_text()
    )
    vector["calls"][0]["body"]["project"] = "/somewhere/else"
    mock = MockDaemon()
    with mock.serve() as handle:
        client = LeanClient(resolve_config(handle.url, harness="generic", runtime_path="plugin"))
        result = _check_vector(generic_plugin("generic", "plugin"), vector, client, None)
    assert not result.ok
    assert result.problems[0].startswith("requests differ")


def test_translated_calls_are_plain_data() -> None:
    calls = GenericTranslator().translate("recall", {"query": "q", "harness": "x"})
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


def test_parity_against_a_daemon_url_marks_secrets_exec_not_exercised() -> None:
    """A real daemon's secrets are not planted or run: that row is n/a with its reason."""
    from signet_sdk.testing.mock_daemon import MockDaemon

    with MockDaemon().serve() as handle:
        proc = run("parity", "--daemon-url", handle.url, "claude-code", "--json")
    assert proc.returncode == 0, proc.stdout
    column = json.loads(proc.stdout)["harnesses"]["claude-code"]
    status = column["rows"]["secret-injection"]
    assert status["status"] == "n/a"
    assert "not exercised against a real daemon" in status["reason"]
    assert column["rows"]["memory-search"]["status"] == "covered"


def test_demo_plays_every_adapter_and_passes(monkeypatch: pytest.MonkeyPatch) -> None:
    proc = run("demo", timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    out = proc.stdout
    assert "== generic" in out and "== claude-code" in out
    assert "additionalContext:" in out
    assert "demo: ok" in out and "parity: ok" in out


def test_cli_misc(tmp_path: Path) -> None:
    assert run("version").stdout.startswith("signet-sdk ")
    listed = run("harnesses").stdout
    assert "claude-code  signetai-adapter-claude-code " in listed
    bad = run("frobnicate")
    assert bad.returncode == 2 and "invalid choice: 'frobnicate'" in bad.stderr
    assert run().returncode == 2
    top = run("--help")
    assert top.returncode == 0 and "harnesses" in top.stdout


@pytest.mark.parametrize(
    "command",
    ["demo", "dev-daemon", "parity", "harnesses", "hook", "install", "uninstall", "mcp", "version"],
)
def test_every_subcommand_has_help(command: str) -> None:
    done = run(command, "--help")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: signet-sdk ")
    assert "demo: ok" not in done.stdout  # --help never runs the command


def test_parity_refuses_an_unknown_harness() -> None:
    done = run("parity", "no-such-harness")
    assert done.returncode == 2 and done.stdout == ""
    assert "no plugin installed for 'no-such-harness'" in done.stderr
    from signet_sdk.plugin import installed_adapters

    assert f"installed: {', '.join(['generic', *installed_adapters()])}" in done.stderr


def test_parity_never_says_ok_about_nothing() -> None:
    from signet_sdk.testing.parity import ParityReport

    empty = ParityReport("x", [])
    assert not empty.ok and format_table(empty).endswith("parity: FAILED (nothing to check)")


def test_parity_table_fits_100_columns() -> None:
    done = run("parity")
    assert done.returncode == 0
    wide = [line for line in done.stdout.splitlines() if len(line) > 100]
    assert wide == []


def test_harnesses_json() -> None:
    done = run("harnesses", "--json")
    row = next(r for r in json.loads(done.stdout) if r["name"] == "claude-code")
    assert row["distribution"] == "signetai-adapter-claude-code"
    assert row["events"][0] == "SessionStart" and row["installer"] is True
    assert row["vectors"] == 24 and row["runtimePath"] == "legacy"


def test_hook_for_an_unknown_event_fails_open(tmp_path: Path) -> None:
    env = {"XDG_STATE_HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        [*CLI, "hook", "no-such-harness", "SessionStart"],
        input='{"session_id": "x"}',
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    log = (tmp_path / "signet-sdk" / "hooks.log").read_text()
    assert "no-such-harness SessionStart" in log and "unknown event 'SessionStart'" in log


def test_tool_rows_are_exercised_through_the_declared_path() -> None:
    report = run_parity(None, ["claude-code"])
    (cc,) = report.harnesses
    for row in ("memory-search", "memory-store", "memory-get", "memory-modify", "memory-forget"):
        assert cc.rows[row] == ("covered", "via MCP (signet-sdk mcp)"), row
    assert cc.rows["secret-injection"] == ("covered", "via MCP (signet-sdk mcp)")


def test_a_broken_tool_path_is_missing_not_covered() -> None:
    events = list(generic_plugin("g").events)
    plugin = HarnessPlugin("t", translator=GenericTranslator(), events=events, tools="mcp")
    rows, _ = _matrix(plugin, [], {"memory-search": "memory_search failed: down"})
    assert rows["memory-search"] == (
        MISSING,
        "the MCP (signet-sdk mcp) path: memory_search failed: down",
    )
