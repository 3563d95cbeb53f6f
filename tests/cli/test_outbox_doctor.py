"""``signet-sdk outbox status|flush|purge`` and ``signet-sdk doctor``, run as a user would."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from signet_sdk.hooks.outbox import Outbox
from signet_sdk.testing.mock_daemon import MockDaemon

SIGNET_SDK = str(Path(sys.executable).parent / "signet-sdk")


@pytest.fixture
def home(home: dict[str, str]) -> dict[str, str]:
    """No daemon unless a test names one: port 9 refuses every connection."""
    return {**home, "SIGNET_DAEMON_URL": "http://127.0.0.1:9"}


@pytest.fixture
def daemon() -> Iterator[tuple[MockDaemon, str]]:
    d = MockDaemon(version="0.109")  # the report below names its version
    with d.serve() as handle:
        yield d, handle.url
    d.close()


def cli(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([SIGNET_SDK, *args], capture_output=True, text=True, env=env, timeout=60)


def outbox_of(env: dict[str, str]) -> Outbox:
    return Outbox(Path(env["XDG_STATE_HOME"]) / "signet-sdk" / "outbox", max_attempts=1)


def seed(env: dict[str, str]) -> tuple[str, str]:
    """One pending remember and one dead letter (a 400 the daemon gave)."""
    outbox = outbox_of(env)
    pending = outbox.put("remember", {"content": "keep me"}, harness="claude-code")
    doomed = outbox.put("remember", {"content": "bad"}, harness="claude-code")
    outbox.deliver(doomed.id, lambda e, b: (_ for _ in ()).throw(RuntimeError("no")))
    return pending.id, doomed.id


def test_status_lists_pending_and_dead_with_reasons(home: dict[str, str]) -> None:
    pending, dead = seed(home)
    done = cli(home, "outbox", "status", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert [e["id"] for e in report["pending"]] == [pending]
    assert report["pending"][0]["action"] == "remember"
    assert report["pending"][0]["attempts"] == 0 and report["pending"][0]["inDoubt"] is False
    assert report["dead"] == [
        {"id": dead, "action": "remember", "reason": "gave up after 1 attempts: no"}
    ]
    text = cli(home, "outbox", "status").stdout
    assert f"{pending}  remember" in text and "signet-sdk outbox flush" in text
    assert "gave up after 1 attempts: no" in text and "outbox purge" in text


def test_replay_sends_pending_and_optionally_the_dead(
    home: dict[str, str], daemon: tuple[MockDaemon, str]
) -> None:
    mock, url = daemon
    seed(home)
    env = {**home, "SIGNET_DAEMON_URL": url}
    done = cli(env, "outbox", "flush", "--seconds", "5")
    assert (done.returncode, done.stdout) == (0, "1 sent; 0 still pending\n")
    assert mock.memory_count() == 1
    done = cli(env, "outbox", "flush", "--dead", "--seconds", "5")
    assert done.stdout == "revived 1 dead letters\n1 sent; 0 still pending\n"
    assert mock.memory_count() == 2
    assert outbox_of(env).pending() == []


def test_replay_with_the_daemon_down_keeps_everything(home: dict[str, str]) -> None:
    pending, _ = seed(home)
    done = cli(home, "outbox", "flush", "--seconds", "0.5")
    assert done.returncode == 1 and done.stdout.endswith("1 still pending\n")
    assert outbox_of(home).pending() == [pending]


def test_purge_removes_dead_letters_and_pending_only_when_confirmed(home: dict[str, str]) -> None:
    pending, _dead = seed(home)
    assert cli(home, "outbox", "purge").stdout == "removed 1 entries\n"
    root = Path(outbox_of(home).root)
    assert list((root / "dead").iterdir()) == []
    refused = cli(home, "outbox", "purge", "--pending")
    assert refused.returncode == 2 and "--yes" in refused.stderr
    assert outbox_of(home).pending() == [pending]
    assert cli(home, "outbox", "purge", "--pending", "--yes").stdout == "removed 1 entries\n"
    assert outbox_of(home).pending() == []


def findings(env: dict[str, str]) -> tuple[int, list[dict[str, object]]]:
    done = cli(env, "doctor", "--json")
    return done.returncode, json.loads(done.stdout)


@pytest.mark.parametrize(
    "verb", [["status"], ["status", "--json"], ["purge"], ["purge", "--pending", "--yes"]]
)
def test_every_verb_says_when_the_outbox_cannot_be_used(
    home: dict[str, str], tmp_path: Path, verb: list[str]
) -> None:
    """A file where the state directory should be: status said "pending: 0", purge "removed 0".

    Now each says what ``flush`` says.
    """
    state = tmp_path / "state-file"
    state.write_text("x")
    done = cli({**home, "XDG_STATE_HOME": str(state)}, "outbox", *verb)
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == (
        f"signet-sdk outbox {verb[0]}: the outbox cannot be used: "
        f"[Errno 20] Not a directory: '{state}/signet-sdk'\n"
        "see 'signet-sdk doctor' for what to do\n"
    )
    assert state.read_text() == "x"


def test_flush_dead_checks_the_outbox_before_moving_a_letter(
    home: dict[str, str], tmp_path: Path
) -> None:
    """An outbox that is a link: ``flush --dead`` revived the letters behind it, then refused.

    It now checks the folder as every verb does (``outbox_dir``), before touching anything.
    """
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "dead").mkdir(parents=True)
    (elsewhere / "dead" / "x.json").write_text("{}")
    (elsewhere / "dead" / "x.reason").write_text("no")
    state = Path(home["XDG_STATE_HOME"]) / "signet-sdk"
    state.mkdir(parents=True, mode=0o700)
    (state / "outbox").symlink_to(elsewhere)
    for verb in (["status"], ["flush", "--dead", "--seconds", "0.5"], ["purge"]):
        done = cli(home, "outbox", *verb)
        assert (done.returncode, done.stdout) == (1, ""), verb
        assert done.stderr == (
            f"signet-sdk outbox {verb[0]}: the outbox cannot be used: {state}/outbox is not "
            "a directory (a symlink or a file is in the way)\n"
            "see 'signet-sdk doctor' for what to do\n"
        )
    assert sorted(p.name for p in elsewhere.rglob("*")) == ["dead", "x.json", "x.reason"]


def test_status_and_purge_create_no_folder(home: dict[str, str]) -> None:
    assert cli(home, "outbox", "status").stdout.startswith("outbox: ")
    assert cli(home, "outbox", "purge").stdout == "removed 0 entries\n"
    assert not Path(home["XDG_STATE_HOME"]).exists()


def test_doctor_all_well(home: dict[str, str], daemon: tuple[MockDaemon, str]) -> None:
    code, report = findings({**home, "SIGNET_DAEMON_URL": daemon[1]})
    assert code == 0, report
    messages = [f["message"] for f in report]
    assert messages[0] == f"reachable at {daemon[1]}, Signet 0.109.0"
    between = "supported (between the tested releases 0.109.15, 0.145.8)"
    assert messages[1] == f"Signet 0.109.0: {between}"
    assert "no token needed" in messages
    assert "claude-code: not installed (optional)" in messages
    assert "no pending writes" in messages and "closed" in messages


def test_doctor_says_what_to_do(home: dict[str, str]) -> None:
    seed(home)
    state = Path(home["XDG_STATE_HOME"]) / "signet-sdk"
    (state / "hooks.log").write_text("x")
    os.chmod(state / "hooks.log", 0o644)
    installed = cli(home, "install", "claude-code")
    assert installed.returncode == 0, installed.stderr
    stale = {**home, "SIGNET_PROMPT_SUBMIT_TIMEOUT": "30000"}  # the installed timeouts lag
    code, report = findings(stale)
    assert code == 1
    problems = {f["area"]: f for f in report if not f["ok"]}
    assert "not reachable at http://127.0.0.1:9" in str(problems["daemon"]["message"])
    assert "signet-sdk dev-daemon" in str(problems["daemon"]["fix"])
    cc = next(f for f in report if str(f["message"]).startswith("claude-code"))
    assert cc["ok"] is False and cc["fix"] == (
        "signet-sdk install claude-code  (see the change first with --dry-run)"
    )
    dead = next(f for f in report if "dead letters" in str(f["message"]))
    assert "outbox purge" in str(dead["fix"])
    state_findings = [f for f in report if f["area"] == "state"]
    assert [f["message"] for f in state_findings] == [f"{state / 'hooks.log'} is 0o644"]
    assert "chmod -R go=" in str(state_findings[0]["fix"])
    text = cli(stale, "doctor").stdout
    assert "FIX  daemon" in text and "-> signet-sdk install claude-code" in text


def test_a_bad_daemon_address_is_named_once_not_blamed_on_the_harnesses(
    home: dict[str, str],
) -> None:
    bad = {**home, "SIGNET_DAEMON_URL": "localhost:3850"}
    assert cli(bad, "install", "claude-code").returncode == 0  # installing needs no address
    code, report = findings(bad)
    assert code == 1
    problems = [f for f in report if not f["ok"]]
    assert [f["area"] for f in problems] == ["daemon"]
    assert "SIGNET_DAEMON_URL" in str(problems[0]["message"])
    assert "claude-code: installed and up to date" in [f["message"] for f in report]


def test_a_refused_token_is_not_called_missing(home: dict[str, str]) -> None:
    team = MockDaemon(version="0.145", auth_mode="team", tokens={"right-token": "admin"})
    with team.serve() as handle:
        given = {**home, "SIGNET_DAEMON_URL": handle.url, "SIGNET_TOKEN": "wrong"}
        _, report = findings(given)
    team.close()
    daemon = next(f for f in report if f["area"] == "daemon")
    assert (
        daemon["message"] == f"{handle.url} refuses the token given, even for /health (team mode)"
    )


@pytest.mark.parametrize("seconds", ["nan", "inf", "-1"])
def test_flush_refuses_seconds_that_are_no_length_of_time(
    home: dict[str, str], seconds: str
) -> None:
    """``--seconds nan`` (or ``inf``) with the daemon down never returned; ``-1`` was taken.

    Each is now a usage error naming the option, and the pending write is left as it was.
    """
    pending, _ = seed(home)
    done = cli(home, "outbox", "flush", "--seconds", seconds)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.endswith(
        "signet-sdk outbox flush: error: argument --seconds: "
        f"must be a number of seconds, 0 or more, got '{seconds}'\n"
    )
    assert outbox_of(home).pending() == [pending]
    assert outbox_of(home).attempts(pending) == 0


def test_status_lists_a_foreign_entry_and_a_reason_it_cannot_read(home: dict[str, str]) -> None:
    """A pending file whose body is no object, or whose time is no number, and a reason
    that is a folder: ``status`` stopped with a traceback where the user looks first.

    It now lists each, as a send will find them (a send buries such an entry).
    """
    pending, _ = seed(home)
    root = Path(outbox_of(home).root)
    foreign = "00000000000000000001-1-aaaaaa"
    (root / f"{foreign}.json").write_text('{"action": "remember", "body": ["x"], "created": "x"}')
    (root / "dead" / "odd.reason").mkdir()
    done = cli(home, "outbox", "status")
    assert (done.returncode, done.stderr) == (0, "")
    lines = done.stdout.splitlines()
    assert lines[2] == f"  {foreign}  remember  session -  0s old, 0 failed attempts"
    assert lines[3].startswith(f"  {pending}  remember  session -  ")
    unreadable = f"[Errno 21] Is a directory: '{root}/dead/odd.reason'"
    assert f"  odd  None: (its reason cannot be read: {unreadable})\n" in done.stdout
    report = json.loads(cli(home, "outbox", "status", "--json").stdout)
    assert report["pending"][0] == {
        "id": foreign,
        "action": "remember",
        "harness": None,
        "sessionKey": None,
        "ageSeconds": 0.0,
        "attempts": 0,
        "inDoubt": False,
    }


def test_a_bad_timeout_is_named_once_not_blamed_on_the_harnesses(home: dict[str, str]) -> None:
    """Every install check failed on the variable and each said "fix the file it names"."""
    bad = {**home, "SIGNET_FETCH_TIMEOUT": "abc"}
    code, report = findings(bad)
    assert code == 1
    problems = [f for f in report if not f["ok"]]
    assert [(f["area"], f["fix"]) for f in problems] == [("daemon", "fix SIGNET_FETCH_TIMEOUT")]
    assert [f["message"] for f in report if f["area"] == "harness"] == [
        "installs not checked: they write the hook timeouts, and SIGNET_FETCH_TIMEOUT "
        "cannot be read"
    ]
