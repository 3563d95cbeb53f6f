"""Client behaviour beyond the wire shape: conflicts, errors, retries, streams, the pair."""

from __future__ import annotations

import inspect

import httpx
import pytest
import respx

import signet_sdk as s
import signet_sdk.models as models
from signet_sdk import AdapterClient, AsyncAdapterClient

BASE = "http://127.0.0.1:3998"
CLAIMED = {"error": "session claimed by legacy path"}


class Sleeps(list[float]):
    def __call__(self, seconds: float) -> None:
        self.append(seconds)


@pytest.fixture
def client() -> AdapterClient:
    c = AdapterClient("pi", BASE, runtime_path="plugin", timeout=5.0)
    c._sleep = Sleeps()  # type: ignore[method-assign,assignment]
    return c


def public_methods(cls: type) -> dict[str, inspect.Signature]:
    return {
        name: inspect.signature(fn)
        for name, fn in inspect.getmembers(cls, inspect.isfunction)
        if not name.startswith("_")
    }


def test_sync_and_async_clients_expose_the_same_methods_and_parameters() -> None:
    sync, asyn = public_methods(AdapterClient), public_methods(AsyncAdapterClient)
    sync.pop("close")
    asyn.pop("aclose")
    assert sorted(sync) == sorted(asyn)
    for name in sync:
        assert list(sync[name].parameters) == list(asyn[name].parameters), name
        for p in sync[name].parameters:
            sp, ap = sync[name].parameters[p], asyn[name].parameters[p]
            assert (sp.kind, sp.default, sp.annotation) == (ap.kind, ap.default, ap.annotation), (
                name
            )
        assert inspect.iscoroutinefunction(getattr(AsyncAdapterClient, name)) or name in (
            "stream_logs",
            "with_options",  # returns a configured copy: nothing to await
        )


@respx.mock
def test_runtime_path_409_on_session_start_is_a_typed_outcome(client: AdapterClient) -> None:
    respx.post(f"{BASE}/api/hooks/session-start").respond(409, json=CLAIMED)
    result = client.on_session_start(s.SessionStartParams(session_key="k"))
    assert result.did_nothing and result.skipped and result.duplicate_runtime_path
    assert result.claimed_by == "legacy" and result.inject == ""


@respx.mock
def test_rust_style_409_on_prompt_submit_matches_the_ts_skip_body(client: AdapterClient) -> None:
    respx.post(f"{BASE}/api/hooks/user-prompt-submit").respond(409, json=CLAIMED)
    result = client.on_user_prompt_submit(
        s.UserPromptSubmitParams(session_key="k", user_prompt="x")
    )
    assert (result.skipped, result.duplicate_runtime_path, result.claimed_by) == (
        True,
        True,
        "legacy",
    )


@respx.mock
def test_runtime_path_409_on_remember_raises_so_no_memory_looks_stored(
    client: AdapterClient,
) -> None:
    route = respx.post(f"{BASE}/api/hooks/remember").respond(409, json=CLAIMED)
    with pytest.raises(s.ConflictError) as info:
        client.remember(s.RememberParams(content="keep me"))
    assert info.value.claimed_by == "legacy" and route.call_count == 1


@respx.mock
def test_version_conflict_is_an_error_not_retried(client: AdapterClient) -> None:
    body = {"id": "m1", "status": "version_conflict", "error": "Version conflict"}
    route = respx.patch(f"{BASE}/api/memory/m1").respond(409, json=body)
    with pytest.raises(s.ConflictError) as info:
        client.modify_memory(
            "m1", models.ModifyMemoryRequest(reason="r", content="c", if_version=1)
        )
    assert info.value.body == body and info.value.claimed_by is None and route.call_count == 1


@respx.mock
def test_plain_text_404_for_an_unknown_route(client: AdapterClient) -> None:
    respx.get(f"{BASE}/api/sessions/k").respond(
        404, text="404 Not Found", headers={"content-type": "text/plain"}
    )
    with pytest.raises(s.NotFoundError) as info:
        client.get_session("k")
    assert info.value.body == "404 Not Found"
    assert not isinstance(info.value, s.UnsupportedByDaemonError)


@respx.mock
@pytest.mark.parametrize(
    ("version", "unsupported"), [("0.109.15", True), ("0.145.8", False), (None, False)]
)
def test_a_route_newer_than_the_daemon_is_unsupported_not_a_bare_404(
    client: AdapterClient, version: str | None, unsupported: bool
) -> None:
    route = respx.get(f"{BASE}/api/sessions/k/transcript").respond(
        404, text="404 Not Found", headers={"content-type": "text/plain"}
    )
    health = respx.get(f"{BASE}/health").respond(
        200, json={"status": "healthy", "version": version}
    )
    for _ in range(2):
        with pytest.raises(s.NotFoundError) as info:
            client.get_session_transcript("k")
        assert isinstance(info.value, s.UnsupportedByDaemonError) is unsupported
    if unsupported:
        err = info.value
        assert isinstance(err, s.UnsupportedByDaemonError)
        assert (err.daemon_version, err.since, err.endpoint) == (
            "0.109.15",
            "0.145.8",
            "get_session_transcript",
        )
        assert "Signet 0.109.15" in str(err) and "0.145.8 or newer" in str(err)
    assert route.call_count == 2 and health.call_count == 1  # the version is asked once


@respx.mock
def test_safe_read_retried_on_503_with_bounded_backoff(client: AdapterClient) -> None:
    route = respx.post(f"{BASE}/api/hooks/recall").mock(
        side_effect=[httpx.Response(503, json={"error": "server initializing"})] * 2
        + [httpx.Response(200, json={"results": []})]
    )
    result = client.recall(s.RecallParams(query="q"))
    assert result.results == [] and route.call_count == 3
    sleeps = client._sleep
    assert len(sleeps) == 2 and 0 <= sleeps[0] <= 0.2 and 0 <= sleeps[1] <= 0.4


@respx.mock
def test_write_not_retried_on_500(client: AdapterClient) -> None:
    route = respx.post(f"{BASE}/api/hooks/session-end").respond(500, text="Internal Server Error")
    with pytest.raises(s.InternalServerError):
        client.on_session_end(s.SessionEndParams(session_key="k"))
    assert route.call_count == 1 and client._sleep == []


@respx.mock
def test_write_retried_after_429_honouring_retry_after(client: AdapterClient) -> None:
    route = respx.post(f"{BASE}/api/hooks/remember").mock(
        side_effect=[
            httpx.Response(
                429, json={"error": "rate limit exceeded"}, headers={"Retry-After": "1"}
            ),
            httpx.Response(200, json={"id": "m9"}),
        ]
    )
    assert client.remember(s.RememberParams(content="x")).id == "m9"
    assert route.call_count == 2 and client._sleep == [1.0]


@respx.mock
def test_retry_after_longer_than_the_deadline_is_not_waited_for(client: AdapterClient) -> None:
    respx.post(f"{BASE}/api/hooks/remember").respond(
        429, json={"error": "rate limit exceeded"}, headers={"Retry-After": "60"}
    )
    with pytest.raises(s.RateLimitError) as info:
        client.remember(s.RememberParams(content="x"))
    assert info.value.retry_after == 60.0 and client._sleep == []


@respx.mock
def test_write_retried_when_the_connection_was_refused(client: AdapterClient) -> None:
    route = respx.post(f"{BASE}/api/hooks/remember").mock(
        side_effect=[httpx.ConnectError("refused"), httpx.Response(200, json={"id": "m1"})]
    )
    assert client.remember(s.RememberParams(content="x")).id == "m1"
    assert route.call_count == 2


@respx.mock
def test_write_not_retried_after_a_read_timeout(client: AdapterClient) -> None:
    route = respx.post(f"{BASE}/api/hooks/remember").mock(side_effect=httpx.ReadTimeout("slow"))
    with pytest.raises(s.APITimeoutError) as info:
        client.remember(s.RememberParams(content="x"))
    assert route.call_count == 1
    assert isinstance(info.value.__cause__, httpx.ReadTimeout)


@respx.mock
def test_connection_failures_exhaust_max_retries_then_raise_our_error(
    client: AdapterClient,
) -> None:
    route = respx.get(f"{BASE}/health").mock(side_effect=httpx.ConnectError("refused"))
    with pytest.raises(s.NotSentError):
        client.health()
    assert route.call_count == 3  # one try plus max_retries=2


@respx.mock
def test_answer_that_does_not_fit_its_model(client: AdapterClient) -> None:
    respx.get(f"{BASE}/api/sessions").respond(200, json={"sessions": "nope", "count": 0})
    with pytest.raises(s.APIResponseValidationError) as info:
        client.list_sessions()
    assert "SessionList" in str(info.value) and "sessions" in str(info.value)


@respx.mock
def test_log_stream_yields_entries_and_skips_the_connected_frame(client: AdapterClient) -> None:
    sse = (
        'data: {"type":"connected"}\n\n'
        'data: {"timestamp":"2026-11-21T00:00:00Z","level":"info","category":"hooks",'
        '"message":"a"}\n\n'
        'data: {"timestamp":"2026-11-21T00:00:01Z","level":"warn","category":"hooks",'
        '"message":"b"}\n\n'
    )
    route = respx.get(f"{BASE}/api/logs/stream").respond(
        200, text=sse, headers={"content-type": "text/event-stream"}
    )
    entries = list(client.stream_logs())
    assert [e.message for e in entries] == ["a", "b"]
    assert route.calls[0].request.headers["accept"] == "text/event-stream"


@pytest.mark.anyio
async def test_async_log_stream() -> None:
    sse = (
        'data: {"type":"connected"}\n\n'
        'data: {"timestamp":"t","level":"info","category":"c","message":"m"}\n\n'
    )
    with respx.mock:
        respx.get(f"{BASE}/api/logs/stream").respond(200, text=sse)
        async with (
            httpx.AsyncClient() as http,
            AsyncAdapterClient("pi", BASE, http_client=http) as client,
        ):
            got = [e.message async for e in client.stream_logs()]
    assert got == ["m"]


@pytest.mark.anyio
async def test_async_retry_and_conflict_outcome() -> None:
    with respx.mock:
        route = respx.post(f"{BASE}/api/hooks/recall").mock(
            side_effect=[httpx.ConnectError("x"), httpx.Response(409, json=CLAIMED)]
        )
        async with (
            httpx.AsyncClient() as http,
            AsyncAdapterClient("pi", BASE, http_client=http) as client,
        ):
            slept: list[float] = []

            async def fake_sleep(seconds: float) -> None:
                slept.append(seconds)

            client._sleep = fake_sleep  # type: ignore[method-assign,assignment]
            result = await client.recall(s.RecallParams(query="q"))
    assert route.call_count == 2 and len(slept) == 1
    assert result.claimed_by == "legacy" and result.results == []


def test_raw_httpx_errors_never_escape(client: AdapterClient) -> None:
    with respx.mock:
        respx.post(f"{BASE}/api/hooks/session-start").mock(
            side_effect=httpx.RemoteProtocolError("peer closed")
        )
        with pytest.raises(s.APIConnectionError) as info:
            client.on_session_start(s.SessionStartParams())
    assert not isinstance(info.value, httpx.HTTPError)


def test_bad_harness_name_is_a_config_error() -> None:
    with pytest.raises(s.ConfigError) as info:
        AdapterClient("")
    assert info.value.field == "harness"


class _HeldDaemon:
    """A daemon on 127.0.0.1 whose ``/health`` answers once the test lets it."""

    def __init__(self) -> None:
        import threading
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        self.arrived = threading.Event()
        self.release = threading.Event()
        held = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                held.arrived.set()
                held.release.wait(10)
                body = b'{"status":"healthy"}'
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()


def test_closing_a_with_options_copy_leaves_the_original_working() -> None:
    # The copy closed the shared httpx pool: the original's next call raised
    # httpx's bare RuntimeError "the client has been closed".
    held = _HeldDaemon()
    held.release.set()
    try:
        with AdapterClient("pi", held.url, max_retries=0) as client:
            with client.with_options(timeout=2.0) as fast:
                assert fast.health().status == "healthy"
            assert client.health().status == "healthy"
            with pytest.raises(s.ConfigError):
                fast.health()  # the copy itself is closed
    finally:
        held.stop()


@pytest.mark.anyio
async def test_closing_a_with_options_copy_spares_the_originals_call_in_flight() -> None:
    # The copy closed the shared aiohttp session under a call of the original.
    import asyncio

    held = _HeldDaemon()
    try:
        async with AsyncAdapterClient("pi", held.url, max_retries=0) as client:
            held.release.set()
            await client.health()  # the pool is open and in use
            held.release.clear()
            held.arrived.clear()
            call = asyncio.ensure_future(client.health())
            await asyncio.to_thread(held.arrived.wait, 10)
            await client.with_options(timeout=2.0).aclose()
            held.release.set()
            assert (await call).status == "healthy"
    finally:
        held.stop()
