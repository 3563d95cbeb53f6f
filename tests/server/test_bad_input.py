"""Every route of the adapter server, fed spoiled bodies on a real socket.

The server runs on uvicorn in a thread with the mock daemon behind it and
an :class:`~signet_sdk.agent.Agent` over a scripted model, so every route
exists: the native events of every installed plugin, the lifecycle, the
tools, the runtime's sessions, health and the documents. The routes are
listed from the app itself, and a route nobody feeds fails the suite.

Each body starts from one the route accepts (a contract vector, a tool's
arguments) and is spoiled at one place (:mod:`bad_input_support`), or is
not JSON at all: invalid UTF-8, a byte order mark, nesting 10,000 levels
deep, half a document. What callers rely on:

* never a 5xx and never a traceback; every answer within the client's
  timeout (a hang fails the test);
* a 4xx is ``{"error": ...}``, and a 422 names the field (``field``, which
  the message starts with);
* a native event answers 200 with ``exitCode`` 0, and when the plugin
  refused the payload, exactly the plugin's neutral output.
"""

from __future__ import annotations

import asyncio
import os
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import httpx
import pytest
import uvicorn
from hypothesis import currently_in_test_context, event, given, settings
from hypothesis import strategies as st

from signet_sdk.agent import Agent
from signet_sdk.runtime.generic import generic_plugin
from signet_sdk.server import RuntimeAdapterServer
from signet_sdk.testing.mock_daemon import MockDaemon
from signet_sdk.testing.providers import ScriptedProvider
from signet_sdk.tools.render import tool_definitions
from signet_sdk.wire.lifecycle import LIFECYCLE

from ..bad_input_support import (
    GARBAGE,
    Seed,
    all_plugins,
    encode,
    garbage_bytes,
    seeds,
    spoil,
    spoils,
)

#: Seconds an answer may take before the request counts as hung (a turn runs a
#: scripted model and a few daemon calls; an event's own deadline is under this).
ANSWER_SECONDS = 60.0

PLUGINS = {plugin.name: plugin for plugin in all_plugins() if plugin.name != "unpackaged-harness"}
GENERIC = generic_plugin("fuzzed-harness")
SLUGS = [row.slug for row in LIFECYCLE.values()]


class Served:
    """``server.asgi`` on uvicorn in a thread, on a free 127.0.0.1 port (lifespan and all)."""

    def __init__(self, server: RuntimeAdapterServer) -> None:
        self.server = server
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        config = uvicorn.Config(server.asgi, log_level="critical", lifespan="on")
        self.uvicorn = uvicorn.Server(config)
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.uvicorn.started:
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.01)

    def _run(self) -> None:
        asyncio.run(self.uvicorn.serve(sockets=[self.sock]))

    def stop(self) -> None:
        self.uvicorn.should_exit = True
        self.thread.join(60)
        self.sock.close()
        assert not self.thread.is_alive(), "the server did not stop"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Served, MockDaemon]]:
    root = tmp_path_factory.mktemp("bad-input-routes")
    env = {k: v for k, v in os.environ.items() if not k.startswith("SIGNET_")}
    env.update(
        HOME=str(root / "home"),
        XDG_STATE_HOME=str(root / "state"),
        SIGNET_OUTBOX_FLUSH_SECONDS="0",  # a detached sender tries once, then exits
    )
    (root / "home").mkdir()
    mock = MockDaemon(db_path=root / "daemon.sqlite3")
    with mock.serve() as handle:
        agent = Agent(ScriptedProvider(), daemon_url=handle.url, research=(), env=env)
        server = RuntimeAdapterServer(
            handle.url,
            env=env,
            outbox_dir=str(root / "outbox"),
            agent=agent,
            max_retries=0,
        )
        live = Served(server)
        try:
            yield live, mock
        finally:
            live.stop()
    mock.close()


@pytest.fixture(scope="module")
def client(served: tuple[Served, MockDaemon]) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=served[0].url, timeout=ANSWER_SECONDS) as http:
        yield http


# -- what every answer must be --------------------------------------------------


def _json(answer: httpx.Response) -> Any:
    assert answer.headers.get("content-type", "").startswith("application/json"), (
        answer.status_code,
        answer.text[:500],
    )
    return answer.json()


def check_answer(answer: httpx.Response) -> Any:
    """No 5xx, no traceback; a 4xx says what is wrong, a 422 names the field. The body."""
    text = answer.text
    if currently_in_test_context():  # counted in hypothesis's statistics
        event(f"answered {answer.status_code}")
    assert answer.status_code < 500, (answer.status_code, text[:2000])
    assert "Traceback" not in text, text[:2000]
    if answer.status_code < 400:
        return _json(answer) if "json" in answer.headers.get("content-type", "") else text
    body = _json(answer)
    assert isinstance(body, dict) and isinstance(body.get("error"), str), body
    if answer.status_code == 422:
        field = body.get("field")
        assert isinstance(field, str) and field, body
        assert body["error"].startswith(f"{field}: ") or field in body["error"], body
    return body


JSON_TYPES = ["application/json", "application/json; charset=utf-8", "text/plain", None]


def _post(
    http: httpx.Client, method: str, path: str, content: bytes, content_type: str | None
) -> httpx.Response:
    headers = {"content-type": content_type} if content_type else {}
    return http.request(method, path, content=content, headers=headers)


@st.composite
def bodies(draw: st.DrawFn, payloads: list[Any]) -> tuple[bytes, str]:
    """A spoiled payload as bytes (mostly), or garbage; described by a short label."""
    if draw(st.integers(0, 5)) == 0:
        raw = draw(garbage_bytes(), label="garbage")
        return raw, f"garbage {raw[:40]!r}"
    payload = draw(st.sampled_from(payloads), label="payload")
    change = draw(spoils(payload), label="change")
    return encode(spoil(payload, change)), repr(change)


# -- the routes, from the app ---------------------------------------------------


def _app_routes(server: RuntimeAdapterServer) -> set[tuple[str, str]]:
    found: set[tuple[str, str]] = set()
    for route in server.fastapi.routes:
        for method in getattr(route, "methods", None) or ():
            if method != "HEAD":
                found.add((method, getattr(route, "path", "")))
    return found


#: The routes that take no body, each fed garbage by ``test_bodies_on_routes_without_one``.
NO_BODY = [
    "/v1/tools",
    "/v1/agent/sessions",
    "/health",
    "/openapi.json",
    "/docs",
    "/docs/oauth2-redirect",
    "/redoc",
]

#: Every route this file feeds: (method, path template) -> the test that does.
FED = {
    ("POST", "/v1/{harness}/events/{event}"): "test_native_events",
    ("POST", "/v1/{harness}/lifecycle/{action}"): "test_unknown_lifecycle_actions",
    **{("POST", f"/v1/{{harness}}/lifecycle/{s}"): "test_lifecycle_actions" for s in SLUGS},
    ("POST", "/v1/tools/{name}"): "test_tool_calls",
    ("POST", "/v1/agent/sessions"): "test_opening_agent_sessions",
    ("POST", "/v1/agent/sessions/{key}/turns"): "test_agent_turns",
    ("DELETE", "/v1/agent/sessions/{key}"): "test_ending_agent_sessions",
    **{("GET", path): "test_bodies_on_routes_without_one" for path in NO_BODY},
}


def test_every_route_of_the_app_is_fed(served: tuple[Served, MockDaemon]) -> None:
    assert _app_routes(served[0].server) == set(FED)
    assert set(FED.values()) <= set(globals())


# -- native events --------------------------------------------------------------


def _plugin_seeds(name: str) -> list[Seed]:
    return seeds(PLUGINS[name])


@pytest.mark.parametrize("name", sorted(PLUGINS))
@settings(settings.get_profile("bad-input-route"))
@given(data=st.data())
def test_native_events(name: str, data: st.DataObject, client: httpx.Client) -> None:
    plugin = PLUGINS[name]
    seed = data.draw(st.sampled_from(_plugin_seeds(name)), label="seed")
    raw, _ = data.draw(bodies([seed.payload]), label="body")
    kind = data.draw(st.sampled_from(JSON_TYPES), label="content-type")
    answer = _post(client, "POST", f"/v1/{name}/events/{seed.event}", raw, kind)
    body = check_answer(answer)
    if answer.status_code != 200:
        assert answer.status_code == 422 and body["field"] == "body", body
        return
    assert set(body) == {"data", "stdout", "exitCode", "degraded", "pending"}, body
    assert body["exitCode"] == 0
    neutral = plugin.make_translator().neutral(seed.event).to_wire()
    if isinstance(body["degraded"], str) and body["degraded"].startswith("PayloadError"):
        assert (body["data"], body["stdout"]) == (neutral["data"], neutral["stdout"]), body


# -- the lifecycle ----------------------------------------------------------------


def _slug_payloads(slug: str) -> list[Any]:
    return [s.payload for s in seeds(GENERIC) if s.event == slug]


@pytest.mark.parametrize("slug", SLUGS)
@settings(settings.get_profile("bad-input-route"))
@given(data=st.data())
def test_lifecycle_actions(slug: str, data: st.DataObject, client: httpx.Client) -> None:
    raw, _ = data.draw(bodies(_slug_payloads(slug)), label="body")
    kind = data.draw(st.sampled_from(JSON_TYPES), label="content-type")
    check_answer(_post(client, "POST", f"/v1/fuzzed-harness/lifecycle/{slug}", raw, kind))


@settings(settings.get_profile("bad-input-route"))
@given(
    action=st.text(min_size=1, max_size=20).filter(lambda a: a not in SLUGS),
    body=bodies([{}]),
)
def test_unknown_lifecycle_actions(
    action: str, body: tuple[bytes, str], client: httpx.Client
) -> None:
    answer = _post(
        client, "POST", f"/v1/h/lifecycle/{quote(action, safe='')}", body[0], "application/json"
    )
    assert check_answer(answer) is not None
    assert answer.status_code in (404, 405), answer.text


# -- tools ---------------------------------------------------------------------------


def _sample(schema: dict[str, Any], defs: dict[str, Any]) -> Any:
    """A small value that fits ``schema`` (the shapes pydantic writes for the tool inputs)."""
    if "$ref" in schema:
        return _sample(defs[schema["$ref"].rsplit("/", 1)[1]], defs)
    if "anyOf" in schema:
        return _sample(schema["anyOf"][0], defs)
    kind = schema.get("type")
    if kind == "object":
        required = schema.get("required", [])
        return {
            k: _sample(v, defs) for k, v in schema.get("properties", {}).items() if k in required
        }
    if kind == "array":
        return [_sample(schema.get("items", {}), defs)]
    if kind == "integer":
        return schema.get("minimum", 1)
    if kind == "number":
        return 0.5
    if kind == "boolean":
        return True
    return "atlas deploys go through make ship"


TOOLS = {
    tool["name"]: _sample(tool["inputSchema"], tool["inputSchema"].get("$defs", {}))
    for tool in tool_definitions(allow_commands=False)
}


@pytest.mark.parametrize("name", sorted(TOOLS))
@settings(settings.get_profile("bad-input-route"))
@given(data=st.data())
def test_tool_calls(name: str, data: st.DataObject, client: httpx.Client) -> None:
    raw, _ = data.draw(bodies([TOOLS[name]]), label="body")
    kind = data.draw(st.sampled_from(JSON_TYPES), label="content-type")
    check_answer(_post(client, "POST", f"/v1/tools/{name}", raw, kind))


# -- the runtime's sessions ------------------------------------------------------------


@settings(settings.get_profile("bad-input-agent_route"))
@given(data=st.data())
def test_opening_agent_sessions(data: st.DataObject, client: httpx.Client) -> None:
    seed = {"project": "/home/dev/projects/atlas", "key": "fuzzed-session"}
    raw, _ = data.draw(bodies([seed, {}]), label="body")
    kind = data.draw(st.sampled_from(JSON_TYPES), label="content-type")
    answer = _post(client, "POST", "/v1/agent/sessions", raw, kind)
    body = check_answer(answer)
    if answer.status_code == 201:  # opened: end it, so the next example may use the key
        ended = client.delete(f"/v1/agent/sessions/{quote(body['key'], safe='')}")
        assert ended.status_code == 200, ended.text


@pytest.fixture(scope="module")
def open_session(client: httpx.Client) -> Iterator[str]:
    answer = client.post("/v1/agent/sessions", json={"key": "fuzzed-turns"})
    assert answer.status_code == 201, answer.text
    yield "fuzzed-turns"
    client.delete("/v1/agent/sessions/fuzzed-turns")


@settings(settings.get_profile("bad-input-agent_route"))
@given(data=st.data())
def test_agent_turns(data: st.DataObject, client: httpx.Client, open_session: str) -> None:
    raw, _ = data.draw(bodies([{"text": "How do atlas deploys work?"}]), label="body")
    kind = data.draw(st.sampled_from(JSON_TYPES), label="content-type")
    answer = _post(client, "POST", f"/v1/agent/sessions/{open_session}/turns", raw, kind)
    check_answer(answer)
    if answer.status_code == 200:
        assert answer.headers["content-type"].startswith("text/event-stream")
        assert answer.text.rstrip().split("\n")[-2] in ("event: done", "event: error")


@settings(settings.get_profile("bad-input-agent_route"))
@given(
    key=st.text(min_size=1, max_size=40).filter(lambda k: not k.startswith("fuzzed-")),
    body=bodies([{}]),
)
def test_ending_agent_sessions(key: str, body: tuple[bytes, str], client: httpx.Client) -> None:
    answer = _post(
        client, "DELETE", f"/v1/agent/sessions/{quote(key, safe='')}", body[0], "application/json"
    )
    check_answer(answer)
    assert answer.status_code in (404, 405), answer.text


# -- routes that take no body --------------------------------------------------------------


@pytest.mark.parametrize("path", NO_BODY)
@settings(settings.get_profile("bad-input-route"), max_examples=10)
@given(raw=st.one_of(st.sampled_from(GARBAGE), garbage_bytes()))
def test_bodies_on_routes_without_one(path: str, raw: bytes, client: httpx.Client) -> None:
    answer = _post(client, "GET", path, raw, "application/json")
    check_answer(answer)
    assert answer.status_code == 200, answer.text


def test_a_key_with_a_trailing_slash_never_reaches_another_session(
    client: httpx.Client, open_session: str
) -> None:
    """``a%2F`` is decoded to ``a/``; redirected to ``a``, a DELETE would end session ``a``."""
    answer = client.delete(f"/v1/agent/sessions/{quote(open_session + '/', safe='')}")
    assert answer.status_code == 404, answer.text
    assert check_answer(answer) == {"error": "Not Found"}
    listed = client.get("/v1/agent/sessions").json()["sessions"]
    assert open_session in [s["key"] for s in listed]
