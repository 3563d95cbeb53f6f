"""``signet-sdk install hermes-agent``: the exact bytes written, idempotence, backups, uninstall."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from signet_adapter_hermes.install import MARKER, PLUGIN_TEXT, main, with_provider, without_provider

SDK = str(Path(sys.executable).parent / "signet-sdk")

USER_CONFIG = """\
# my hermes settings
model:
  default: gpt-5.1   # the one I like
memory:
  memory_enabled: true
  # external provider below
  provider: ''
  user_char_limit: 1375
terminal:
  backend: local
"""


def _home(isolated: Path) -> Path:
    return isolated / ".hermes"


def test_install_writes_the_plugin_and_sets_the_provider(isolated: Path) -> None:
    home = _home(isolated)
    home.mkdir()
    (home / "config.yaml").write_text(USER_CONFIG)

    run = subprocess.run([SDK, "install", "hermes-agent"], capture_output=True, text=True)

    assert run.returncode == 0, run.stderr
    plugin = home / "plugins" / "signet" / "__init__.py"
    assert plugin.read_text() == PLUGIN_TEXT
    assert MARKER in PLUGIN_TEXT.splitlines()[0]
    assert (home / "config.yaml").read_bytes() == USER_CONFIG.replace(
        "  provider: ''\n", "  provider: signet\n"
    ).encode()
    (backup,) = home.glob("config.yaml.bak-*")
    assert backup.read_text() == USER_CONFIG
    assert "previous config.yaml saved as" in run.stdout

    again = subprocess.run([SDK, "install", "hermes-agent"], capture_output=True, text=True)
    assert again.returncode == 0
    assert "already installed, nothing changed" in again.stdout
    assert len(list(home.glob("config.yaml.bak-*"))) == 1

    gone = subprocess.run([SDK, "uninstall", "hermes-agent"], capture_output=True, text=True)
    assert gone.returncode == 0, gone.stderr
    assert not (home / "plugins" / "signet").exists()
    assert (home / "config.yaml").read_text() == USER_CONFIG  # provider: '' back as it was


def test_a_fresh_home_gets_a_config_with_only_the_provider(isolated: Path) -> None:
    home = _home(isolated)
    assert main(["install"]) == 0
    assert (home / "config.yaml").read_bytes() == b"memory:\n  provider: signet\n"
    assert list(home.glob("config.yaml.bak-*")) == []
    assert main(["uninstall"]) == 0
    assert not (home / "config.yaml").exists()
    assert not (home / "plugins" / "signet").exists()


def test_dry_run_prints_the_diff_and_writes_nothing(
    isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home = _home(isolated)
    home.mkdir()
    (home / "config.yaml").write_text("model:\n  default: x\n")
    assert main(["install", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert f"+++ {home}/plugins/signet/__init__.py" in out
    assert f"+# {MARKER}" in out
    assert "+memory:\n+  provider: signet\n" in out
    assert not (home / "plugins").exists()
    assert (home / "config.yaml").read_text() == "model:\n  default: x\n"


def test_another_provider_is_refused_unless_forced(
    isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home = _home(isolated)
    home.mkdir()
    text = "memory:\n    provider: honcho   # chosen by me\n"
    (home / "config.yaml").write_text(text)
    assert main(["install"]) == 1
    err = capsys.readouterr().err
    assert "memory.provider is 'honcho'" in err and "No file was changed." in err
    assert not (home / "plugins").exists()
    assert main(["install", "--force"]) == 0
    assert (home / "config.yaml").read_text() == "memory:\n    provider: signet   # chosen by me\n"


def test_files_not_ours_are_left_alone(isolated: Path, capsys: pytest.CaptureFixture[str]) -> None:
    home = _home(isolated)
    theirs = home / "plugins" / "signet" / "__init__.py"
    theirs.parent.mkdir(parents=True)
    theirs.write_text("# Signet's own Hermes plugin\n")
    assert main(["install"]) == 1
    assert "without our marker" in capsys.readouterr().err
    assert not (home / "config.yaml").exists()
    assert main(["uninstall"]) == 0
    assert theirs.read_text() == "# Signet's own Hermes plugin\n"


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("", "memory:\n  provider: signet\n"),
        ("model: x", "model: x\nmemory:\n  provider: signet\n"),
        (
            "memory:\n  memory_enabled: true\n",
            "memory:\n  provider: signet\n  memory_enabled: true\n",
        ),
        ('memory:\n  provider: "signet"\n', 'memory:\n  provider: "signet"\n'),
        ("memory:\r\n  provider: ''\r\nx: 1\r\n", "memory:\r\n  provider: signet\r\nx: 1\r\n"),
        (
            "memory:\n  nested:\n    provider: deep\n",
            "memory:\n  provider: signet\n  nested:\n    provider: deep\n",
        ),
    ],
)
def test_with_provider_edits_the_least_text(before: str, after: str) -> None:
    assert with_provider(before) == after


def test_flow_mappings_are_refused() -> None:
    from signet_adapter_hermes.install import InstallError

    with pytest.raises(InstallError, match="flow mapping"):
        with_provider("memory: {provider: ''}\n")


def test_without_provider_removes_only_ours() -> None:
    assert without_provider("memory:\n  provider: honcho\n") == "memory:\n  provider: honcho\n"
    assert without_provider("a: 1\nmemory:\n  provider: signet\n") == "a: 1\n"
    assert without_provider("memory:\n  provider: signet\n  memory_enabled: true\n") == (
        "memory:\n  memory_enabled: true\n"
    )
    assert without_provider("memory:\n  provider: signet\n") is None


def _fake_hermes(bin_dir: Path, interpreter: str) -> None:
    bin_dir.mkdir(parents=True, exist_ok=True)
    script = bin_dir / "hermes"
    script.write_text(f"#!{interpreter}\nprint('hermes')\n")
    script.chmod(0o755)


def test_install_checks_the_python_hermes_runs_with(
    isolated: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    bin_dir = isolated / "bin"
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    _fake_hermes(bin_dir, sys.executable)  # this environment: the adapter is installed
    assert main(["install"]) == 0
    out = capsys.readouterr().out
    assert "warning" not in out and "note" not in out

    lacking = bin_dir / "python-without-signet"
    lacking.write_text("#!/bin/sh\nexit 1\n")
    lacking.chmod(0o755)
    _fake_hermes(bin_dir, str(lacking))
    assert main(["uninstall"]) == 0
    assert main(["install"]) == 0
    out = capsys.readouterr().out
    assert f"warning: {lacking} (the Python hermes runs with) cannot import" in out
    assert f"{lacking} -m pip install 'signetai-sdk[hermes]'" in out


def test_install_notes_when_hermes_is_not_on_path(
    isolated: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PATH", str(isolated / "empty"))
    assert main(["install"]) == 0
    assert "note: no hermes command on PATH" in capsys.readouterr().out


ORIG = "config.yaml.signet-sdk-orig"


def test_force_then_uninstall_puts_back_the_replaced_line(isolated: Path) -> None:
    home = _home(isolated)
    home.mkdir()
    text = "memory:\n  provider: honcho   # my provider\n  memory_enabled: true\n"
    (home / "config.yaml").write_text(text)

    run = subprocess.run(
        [SDK, "install", "hermes-agent", "--force"], capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr
    assert (home / "config.yaml").read_bytes() == (
        b"memory:\n  provider: signet   # my provider\n  memory_enabled: true\n"
    )
    assert (home / ORIG).read_bytes() == text.encode()
    assert (home / ORIG).stat().st_mode & 0o777 == 0o600

    dry = subprocess.run(
        [SDK, "uninstall", "hermes-agent", "--dry-run"], capture_output=True, text=True
    )
    assert dry.returncode == 0, dry.stderr
    assert (
        "-  provider: signet   # my provider\n+  provider: honcho   # my provider\n" in dry.stdout
    )
    assert (home / ORIG).exists()

    gone = subprocess.run([SDK, "uninstall", "hermes-agent"], capture_output=True, text=True)
    assert gone.returncode == 0, gone.stderr
    assert (home / "config.yaml").read_bytes() == text.encode()
    assert not (home / ORIG).exists()
    assert not (home / "plugins" / "signet").exists()
    assert len(list(home.glob("config.yaml.bak-*"))) == 2


#: install (with ``args``) over ``before`` gives ``installed``; the user then
#: edits ``edit[0]`` into ``edit[1]``; uninstall gives ``after``.
ROUND_TRIPS = {
    "the replaced line comes back among later edits": (
        b'model:\n  default: x\nmemory:\n    provider: ""  # none yet\n',
        [],
        b"model:\n  default: x\nmemory:\n    provider: signet  # none yet\n",
        (b"default: x", b"default: y"),
        b'model:\n  default: y\nmemory:\n    provider: ""  # none yet\n',
    ),
    "a line edited since install is not ours to put back": (
        b"memory:\n  provider: honcho # mine\n  memory_enabled: true\n",
        ["--force"],
        b"memory:\n  provider: signet # mine\n  memory_enabled: true\n",
        (b"signet # mine", b"signet # edited"),
        b"memory:\n  memory_enabled: true\n",
    ),
    "crlf gets its line back with crlf": (
        b"memory:\r\n  provider: honcho\r\nx: 1\r\n",
        ["--force"],
        b"memory:\r\n  provider: signet\r\nx: 1\r\n",
        (b"x: 1", b"x: 2"),
        b"memory:\r\n  provider: honcho\r\nx: 2\r\n",
    ),
    "a memory line the user had stays": (
        b"memory:\n  # pick one later\nmodel: x\n",
        [],
        b"memory:\n  provider: signet\n  # pick one later\nmodel: x\n",
        (b"model: x", b"model: y"),
        b"memory:\n  # pick one later\nmodel: y\n",
    ),
}


@pytest.mark.parametrize(
    ("before", "args", "installed", "edit", "after"),
    list(ROUND_TRIPS.values()),
    ids=list(ROUND_TRIPS),
)
def test_uninstall_undoes_only_the_provider_line_after_the_users_edits(
    isolated: Path,
    before: bytes,
    args: list[str],
    installed: bytes,
    edit: tuple[bytes, bytes],
    after: bytes,
) -> None:
    home = _home(isolated)
    home.mkdir()
    config = home / "config.yaml"
    config.write_bytes(before)
    assert main(["install", *args]) == 0
    assert config.read_bytes() == installed
    assert (home / ORIG).exists()
    config.write_bytes(installed.replace(*edit))
    assert main(["uninstall"]) == 0
    assert config.read_bytes() == after
    assert not (home / ORIG).exists()


@pytest.mark.parametrize("before", [b"\n", b"", b"  \n\n", b"model: x", b"memory:\n"])
def test_a_config_install_grew_comes_back_as_it_was(isolated: Path, before: bytes) -> None:
    home = _home(isolated)
    home.mkdir()
    config = home / "config.yaml"
    config.write_bytes(before)
    assert main(["install"]) == 0
    assert b"  provider: signet\n" in config.read_bytes()
    assert main(["uninstall"]) == 0
    assert config.read_bytes() == before
    assert not (home / ORIG).exists()


def test_a_reinstall_after_a_hand_edit_remembers_the_newer_line(isolated: Path) -> None:
    home = _home(isolated)
    home.mkdir()
    config = home / "config.yaml"
    config.write_bytes(b"memory:\n  provider: honcho\n")
    assert main(["install", "--force"]) == 0
    config.write_bytes(b"memory:\n  provider: mem0  # switched by hand\n")
    assert main(["install", "--force"]) == 0
    assert config.read_bytes() == b"memory:\n  provider: signet  # switched by hand\n"
    assert main(["uninstall"]) == 0
    assert config.read_bytes() == b"memory:\n  provider: mem0  # switched by hand\n"


def test_an_install_without_a_record_uninstalls_as_before(isolated: Path) -> None:
    home = _home(isolated)
    home.mkdir()
    config = home / "config.yaml"
    config.write_bytes(b"a: 1\nmemory:\n  provider: honcho\n  memory_enabled: true\n")
    assert main(["install", "--force"]) == 0
    (home / ORIG).unlink()  # as an install from before the record left it
    assert main(["uninstall"]) == 0
    assert config.read_bytes() == b"a: 1\nmemory:\n  memory_enabled: true\n"
    (home / "config.yaml").write_bytes(b"memory:\n  provider: signet\n")
    assert main(["uninstall"]) == 0
    # No record says install made the file: our line goes, the user's file stays.
    assert config.read_bytes() == b""


def test_a_config_that_named_signet_before_install_is_kept_by_uninstall(isolated: Path) -> None:
    home = _home(isolated)
    home.mkdir()
    config = home / "config.yaml"
    config.write_bytes(b"memory:\n  provider: signet\n")
    assert main(["install"]) == 0
    assert config.read_bytes() == b"memory:\n  provider: signet\n"  # nothing to change
    assert main(["uninstall"]) == 0
    assert config.read_bytes() == b""


def test_an_unreadable_record_is_refused_naming_it(
    isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home = _home(isolated)
    home.mkdir()
    (home / "config.yaml").write_bytes(b"memory:\n  provider: honcho\n")
    assert main(["install", "--force"]) == 0
    (home / ORIG).write_bytes(b"\xff\xfe not text\n")
    assert main(["uninstall"]) == 1
    err = capsys.readouterr().err
    assert f"{home / ORIG}: cannot read" in err and "No file was changed." in err
    assert (home / "config.yaml").read_bytes() == b"memory:\n  provider: signet\n"


@pytest.mark.parametrize(
    ("text", "original", "after"),
    [
        (
            "memory:\n  provider: signet # x\n",
            "memory:\n  provider: honcho # x\n",
            "memory:\n  provider: honcho # x\n",
        ),
        ("memory:\n  provider: signet\n", "memory:\n  provider: ''\n", "memory:\n  provider: ''\n"),
        ("memory:\n  provider: signet\n", "memory:\n", "memory:\n"),
        ("memory:\n  provider: signet\n", None, None),
        # edited since install: no longer ours to swap back; the memory: line it had stays
        ("memory:\n  provider: signet  # mine\n", "memory:\n  provider: honcho\n", "memory:\n"),
        ("a: 1\nmemory:\n  provider: signet\n", "a: 1\n", "a: 1\n"),
        ("memory:\n    provider: signet\n", "memory:\n  provider: honcho\n", "memory:\n"),  # indent
    ],
)
def test_without_provider_puts_back_what_install_replaced(
    text: str, original: str | None, after: str | None
) -> None:
    assert without_provider(text, original) == after


def test_uninstall_takes_away_a_record_left_with_nothing_else(
    isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home = _home(isolated)
    home.mkdir()
    config = home / "config.yaml"
    config.write_bytes(b"memory:\n  provider: honcho\n")
    assert main(["install", "--force"]) == 0
    (home / "plugins" / "signet" / "__init__.py").unlink()
    config.write_bytes(b"memory:\n  provider: mem0\n")  # the user moved on by hand
    capsys.readouterr()
    assert main(["uninstall", "--dry-run"]) == 0
    assert capsys.readouterr().out == f"would remove {home / ORIG}\n"
    assert (home / ORIG).exists()
    assert main(["uninstall"]) == 0
    assert capsys.readouterr().out == f"{home}: nothing of ours there but {ORIG}; removed it\n"
    assert not (home / ORIG).exists()
    assert config.read_bytes() == b"memory:\n  provider: mem0\n"
    assert main(["uninstall"]) == 0
    assert "nothing of ours there, nothing changed" in capsys.readouterr().out


def test_a_folder_where_the_record_goes_is_refused_before_any_write(
    isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home = _home(isolated)
    (home / ORIG).mkdir(parents=True)
    (home / "config.yaml").write_bytes(b"memory:\n  provider: ''\n")
    assert main(["install"]) == 1
    err = capsys.readouterr().err
    assert f"{home / ORIG}: a folder where the record" in err and "No file was changed." in err
    assert not (home / "plugins").exists()
    assert (home / "config.yaml").read_bytes() == b"memory:\n  provider: ''\n"
