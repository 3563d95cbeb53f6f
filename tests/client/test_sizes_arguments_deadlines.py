"""The smaller findings of fault injection: context size, reader growth, argument errors,
per-call deadlines."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from signet_sdk import (
    AdapterClient,
    AsyncAdapterClient,
    ConfigError,
    PayloadError,
    SignetError,
    create_adapter,
)
from signet_sdk.plugin import LifecycleCall
from signet_sdk.runtime.dispatch import MAX_CONTEXT_CHARS, cap_context
from signet_sdk.testing.mock_daemon import MockDaemon
from signet_sdk.wire.errors import APITimeoutError
from signet_sdk.wire.lean import _Reader

from ..fault_support import FaultProxy, hook_env, run_hook


@pytest.fixture
def url() -> Iterator[str]:
    daemon = MockDaemon()
    with daemon.serve() as handle:
        yield handle.url
    daemon.close()


# -- injected context -------------------------------------------------------------


def test_cap_context_cuts_at_a_line_and_says_so() -> None:
    inject = "".join(f"memory {i}\n" for i in range(50_000))
    capped = cap_context({"inject": inject, "other": "x" * 200_000}, 1000)
    assert len(capped["inject"]) < 1100 and capped["other"] == "x" * 200_000
    kept, note = capped["inject"].rsplit("\n", 1)
    assert kept.split("\n")[-1].startswith("memory ")  # whole lines only
    assert note == f"[{len(inject) - len(kept)} characters of memory context left out]"
    assert cap_context({"inject": "short"}, 1000) == {"inject": "short"}


@pytest.mark.parametrize("setting", ["²", "١٢", "ten", "-5", ""])
def test_a_context_limit_that_is_no_whole_number_keeps_the_default(
    setting: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SIGNET_MAX_CONTEXT_CHARS", setting)
    inject = "memory\n" * (MAX_CONTEXT_CHARS // 7 + 10)
    capped = cap_context({"inject": inject})
    assert len(inject) > MAX_CONTEXT_CHARS >= len(capped["inject"].rsplit("\n", 1)[0])
    monkeypatch.setenv("SIGNET_MAX_CONTEXT_CHARS", "700")
    assert len(cap_context({"inject": inject})["inject"].rsplit("\n", 1)[0]) <= 700


def test_cap_context_cuts_the_split_fields_of_newer_daemons() -> None:
    big = "".join(f"memory {i}\n" for i in range(50_000))
    answer = {"stableSystemPrompt": big, "dynamicContext": big, "clockContext": "now"}
    capped = cap_context(answer, 1000)
    for key in ("stableSystemPrompt", "dynamicContext"):
        assert len(capped[key]) < 1100
        assert capped[key].endswith("characters of memory context left out]")
    assert capped["clockContext"] == "now"


def test_a_huge_inject_is_not_handed_to_the_harness(tmp_path: Path) -> None:
    inject = "a remembered fact\n" * 600_000  # ~10.8 MB, under the transport's 16 MiB cap
    answer = {"inject": inject, "memories": []}
    with FaultProxy(mode="status", status=200, body=answer) as proxy:
        done = run_hook(hook_env(tmp_path, SIGNET_DAEMON_URL=proxy.url), timeout=60)
    assert done.returncode == 0 and done.stderr == b""
    # JSON escapes each newline as two characters: the cap is on the text itself.
    assert MAX_CONTEXT_CHARS < len(done.stdout) < 2 * MAX_CONTEXT_CHARS
    assert b"characters of memory context left out" in done.stdout


# -- the lean reader grows linearly ----------------------------------------------


class _Trickle:
    """A socket stand-in that hands out ``data`` in small pieces."""

    def __init__(self, data: bytes, piece: int) -> None:
        self.data = memoryview(data)
        self.piece = piece

    def settimeout(self, value: float | None) -> None:
        pass

    def recv(self, n: int) -> bytes:
        out = bytes(self.data[: min(n, self.piece)])
        self.data = self.data[len(out) :]
        return out


def test_lean_reader_takes_a_large_answer_in_linear_time() -> None:
    body = b"x" * (15 * 1024 * 1024)
    head = b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % len(body)
    started = time.monotonic()
    status, _, got = _Reader(_Trickle(head + body, 4096), None).response("GET")
    elapsed = time.monotonic() - started
    assert status == 200 and got == body
    # 3,840 pieces: re-copying the buffer per piece (quadratic) moves ~29 GB and
    # takes minutes; growing a bytearray takes well under a second.
    assert elapsed < 5.0


# -- only SignetError from public calls --------------------------------------------


CASES: list[tuple[str, Callable[[str], Any], type[SignetError], str]] = [
    ("path parameter", lambda u: AdapterClient("h", u).get_memory(""), ConfigError, "id"),
    ("timeout type", lambda u: AdapterClient("h", u, timeout="x"), ConfigError, "timeout"),  # type: ignore[arg-type]
    (
        "max_retries type",
        lambda u: AdapterClient("h", u, max_retries="2"),  # type: ignore[arg-type]
        ConfigError,
        "max_retries",
    ),
    ("daemon_url type", lambda u: AdapterClient("h", 5), ConfigError, "daemon_url"),  # type: ignore[arg-type]
    ("agent_id type", lambda u: AdapterClient("h", u, agent_id=5), ConfigError, "agent_id"),  # type: ignore[arg-type]
    ("token type", lambda u: AdapterClient("h", u, token=5), ConfigError, "token"),  # type: ignore[arg-type]
    ("harness type", lambda u: create_adapter(5), ConfigError, "harness"),  # type: ignore[arg-type]
    (
        "unknown action",
        lambda u: AdapterClient("h", u).call_lifecycle(LifecycleCall("nope", {})),
        PayloadError,
        "action",
    ),
]


@pytest.mark.parametrize(("name", "call", "error", "field"), CASES, ids=[c[0] for c in CASES])
def test_bad_arguments_raise_signet_errors_naming_the_field(
    url: str, name: str, call: Callable[[str], Any], error: type[SignetError], field: str
) -> None:
    with pytest.raises(error) as caught:
        call(url)
    assert caught.value.field == field  # type: ignore[attr-defined]


def test_a_closed_client_raises_a_signet_error(url: str) -> None:
    client = AdapterClient("h", url)
    client.close()
    with pytest.raises(ConfigError, match="client: is closed"):
        client.health()


@pytest.mark.anyio
async def test_a_closed_async_client_raises_a_signet_error(url: str) -> None:
    client = AsyncAdapterClient("h", url)
    await client.aclose()
    with pytest.raises(ConfigError, match="client: is closed"):
        await client.health()


# -- a deadline per call -------------------------------------------------------------


def test_with_options_gives_one_call_its_own_deadline() -> None:
    with FaultProxy(mode="hang") as hung:
        client = AdapterClient("h", hung.url, max_retries=0)
        quick = client.with_options(timeout=1.0)
        assert client.config.timeouts.default == 10.0  # the original is unchanged
        assert quick.config.timeouts.default == 1.0
        started = time.monotonic()
        with pytest.raises(APITimeoutError):
            quick.health()
        assert time.monotonic() - started < 1.6
        with pytest.raises(ConfigError):
            client.with_options(timeout=-1)
        client.close()


@pytest.mark.anyio
async def test_async_with_options_gives_one_call_its_own_deadline() -> None:
    with FaultProxy(mode="hang") as hung:
        async with AsyncAdapterClient("h", hung.url, max_retries=0) as client:
            started = time.monotonic()
            with pytest.raises(APITimeoutError):
                await client.with_options(timeout=1.0).health()
            assert time.monotonic() - started < 1.6
