"""The runtime's parity column: one real session covers every dependency-map row."""

from __future__ import annotations

from signet_sdk.testing.parity import COVERED, MISSING, format_table, run_parity
from signet_sdk.testing.parity_runtime import runtime_report
from signet_sdk.wire.endpoints import DEPENDENCY_MAP_ROWS


def test_the_runtime_covers_every_row_on_the_mock() -> None:
    report = run_parity(None, ["runtime"])
    assert [h.harness for h in report.harnesses] == ["runtime"]
    column = report.harnesses[0]
    assert {row: status for row, (status, _) in column.rows.items()} == dict.fromkeys(
        DEPENDENCY_MAP_ROWS, COVERED
    )
    assert [s.name for s in column.vectors] == ["open", "turn", "remember", "compact", "end"]
    assert report.ok
    table = format_table(report)
    assert "runtime: 5/5 steps of one session pass:" in table and table.endswith("parity: ok")


def test_rows_a_down_daemon_never_answered_are_missing() -> None:
    column = runtime_report("http://127.0.0.1:9", None)
    assert {row for row, (status, _) in column.rows.items() if status == MISSING} == {
        row for row in DEPENDENCY_MAP_ROWS if row != "secret-injection"
    }
    assert column.rows["secret-injection"][0] == "n/a"
    # The session itself still ran: the chat never needs the daemon.
    assert [s.name for s in column.vectors] == ["open", "turn", "remember", "compact", "end"]
    assert not column.ok
