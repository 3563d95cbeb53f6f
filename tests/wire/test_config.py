"""Configuration precedence: arguments > environment > defaults."""

from __future__ import annotations

import pytest

from signet_sdk import AdapterClient
from signet_sdk.wire.config import DEFAULT_DAEMON_URL, Timeouts, resolve_config
from signet_sdk.wire.errors import ConfigError


def test_defaults_with_empty_environment() -> None:
    cfg = resolve_config(env={})
    assert cfg.base_url == DEFAULT_DAEMON_URL == "http://127.0.0.1:3850"
    assert cfg.token is None and cfg.agent_id is None and cfg.runtime_path is None
    assert cfg.timeouts == Timeouts(session_start=15.0, prompt_submit=5.0, default=10.0, write=15.0)
    assert cfg.max_retries == 2


def test_daemon_url_beats_host_and_port() -> None:
    env = {"SIGNET_DAEMON_URL": "http://10.0.0.9:4000", "SIGNET_HOST": "h", "SIGNET_PORT": "1"}
    assert resolve_config(env=env).base_url == "http://10.0.0.9:4000"


def test_host_and_port_when_no_url() -> None:
    assert (
        resolve_config(env={"SIGNET_HOST": "daemon.local"}).base_url == "http://daemon.local:3850"
    )
    assert resolve_config(env={"SIGNET_PORT": "4123"}).base_url == "http://127.0.0.1:4123"
    assert (
        resolve_config(env={"SIGNET_HOST": "::1", "SIGNET_PORT": "9"}).base_url == "http://[::1]:9"
    )


#: An environment that sets the daemon, the credentials and every per-hook deadline (ms).
ENV = {
    "SIGNET_DAEMON_URL": "http://env:1",
    "SIGNET_TOKEN": "t0k",
    "SIGNET_AGENT_ID": "alice",
    "SIGNET_SESSION_START_TIMEOUT": "3000",
    "SIGNET_PROMPT_SUBMIT_TIMEOUT": "2500",
    "SIGNET_FETCH_TIMEOUT": "8000",
}


def test_argument_beats_environment_for_every_setting() -> None:
    cfg = resolve_config(
        "http://arg:2/", token="arg-token", agent_id="arg-agent", timeout=7.5, env=ENV
    )
    assert cfg.base_url == "http://arg:2"
    assert cfg.token == "arg-token"
    assert cfg.agent_id == "arg-agent"
    assert cfg.timeouts.session_start == cfg.timeouts.prompt_submit == 7.5


def test_environment_beats_defaults() -> None:
    cfg = resolve_config(env=ENV)
    assert cfg.base_url == "http://env:1"
    assert (cfg.token, cfg.agent_id) == ("t0k", "alice")
    assert cfg.timeouts.session_start == 3.0
    assert cfg.timeouts.prompt_submit == 2.5
    assert cfg.timeouts.default == 8.0


def test_session_start_falls_back_to_fetch_timeout() -> None:
    assert resolve_config(env={"SIGNET_FETCH_TIMEOUT": "4000"}).timeouts.session_start == 4.0


@pytest.mark.parametrize(("raw", "seconds"), [("10", 1.0), ("999999", 120.0), ("60000", 60.0)])
def test_timeout_variables_are_clamped(raw: str, seconds: float) -> None:
    env = {"SIGNET_PROMPT_SUBMIT_TIMEOUT": raw}
    assert resolve_config(env=env).timeouts.prompt_submit == seconds


def test_process_environment_is_read_when_env_not_given(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SIGNET_PORT", "3999")
    monkeypatch.setenv("SIGNET_AGENT_ID", "from-os")
    cfg = resolve_config()
    assert cfg.base_url == "http://127.0.0.1:3999" and cfg.agent_id == "from-os"


@pytest.mark.parametrize(
    ("kwargs", "env", "field"),
    [
        ({}, {"SIGNET_PORT": "abc"}, "SIGNET_PORT"),
        ({}, {"SIGNET_PORT": "70000"}, "SIGNET_PORT"),
        ({}, {"SIGNET_DAEMON_URL": "http://h:1/api"}, "SIGNET_DAEMON_URL"),
        ({}, {"SIGNET_DAEMON_URL": "ftp://h"}, "SIGNET_DAEMON_URL"),
        ({}, {"SIGNET_DAEMON_URL": "http://u:p@h:1"}, "SIGNET_DAEMON_URL"),
        ({}, {"SIGNET_FETCH_TIMEOUT": "soon"}, "SIGNET_FETCH_TIMEOUT"),
        ({}, {"SIGNET_FETCH_TIMEOUT": "nan"}, "SIGNET_FETCH_TIMEOUT"),
        ({}, {"SIGNET_SESSION_START_TIMEOUT": "NaN"}, "SIGNET_SESSION_START_TIMEOUT"),
        ({"daemon_url": "localhost:3850"}, {}, "daemon_url"),
        ({"runtime_path": "both"}, {}, "runtime_path"),
        ({"actor_type": "robot"}, {}, "actor_type"),
        ({"timeout": 0}, {}, "timeout"),
        ({"max_retries": -1}, {}, "max_retries"),
    ],
)
def test_bad_settings_name_the_field(
    kwargs: dict[str, object], env: dict[str, str], field: str
) -> None:
    with pytest.raises(ConfigError) as info:
        resolve_config(env=env, **kwargs)  # type: ignore[arg-type]
    assert info.value.field == field
    assert str(info.value).startswith(f"{field}: ")


@pytest.mark.parametrize(
    ("kwargs", "env", "field"),
    [
        ({"agent_id": "ops\r\nx-evil: 1"}, {}, "agent_id"),
        ({}, {"SIGNET_AGENT_ID": "café"}, "SIGNET_AGENT_ID"),
        ({"token": "tok\nen"}, {}, "token"),
        ({}, {"SIGNET_TOKEN": "t\x00k"}, "SIGNET_TOKEN"),
        ({"actor": "me\r"}, {}, "actor"),
    ],
)
def test_header_values_are_validated(
    kwargs: dict[str, str], env: dict[str, str], field: str
) -> None:
    with pytest.raises(ConfigError) as info:
        resolve_config(env=env, **kwargs)  # type: ignore[arg-type]
    assert info.value.field == field and "printable ASCII" in str(info.value)


def test_secrets_never_in_repr_or_errors() -> None:
    config = resolve_config(token="s3cret-token", env={})
    assert "s3cret-token" not in repr(config) and "***" in repr(config)
    assert config.token == "s3cret-token"
    with pytest.raises(ConfigError) as info:
        resolve_config(env={"SIGNET_DAEMON_URL": "http://user:hunter2@127.0.0.1:3850"})
    assert "hunter2" not in str(info.value) and "***@127.0.0.1:3850" in str(info.value)


def test_an_explicit_none_for_timeouts_is_the_default_timeouts() -> None:
    from signet_sdk.wire.config import ClientConfig, Timeouts

    assert ClientConfig(timeouts=None).timeouts == Timeouts()  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("timeout", "field"),
    [
        (float("nan"), "timeout"),
        (float("inf"), "timeout"),
        (1e10, "timeout"),
        (Timeouts(default=float("nan")), "timeout.default"),
        (Timeouts(write=float("inf")), "timeout.write"),
        (Timeouts(prompt_submit=0), "timeout.prompt_submit"),
        (Timeouts(stream=-1.0), "timeout.stream"),
    ],
)
def test_a_deadline_no_clock_can_keep_is_refused_by_name(timeout: object, field: str) -> None:
    # These were accepted; every call then failed with a bare ValueError
    # (NaN) or OverflowError (inf, 1e10 on the sync client) from the I/O library.
    with pytest.raises(ConfigError) as info:
        resolve_config(timeout=timeout, env={})  # type: ignore[arg-type]
    assert info.value.field == field
    with AdapterClient("x", "http://127.0.0.1:9") as client, pytest.raises(ConfigError) as later:
        client.with_options(timeout=timeout)  # type: ignore[arg-type]
    assert later.value.field == field
    assert resolve_config(timeout=1_000_000, env={}).timeouts.default == 1_000_000.0
