"""Every endpoint fuzzed from its OpenAPI schema: valid and invalid bodies, never a 5xx.

Valid bodies are drawn from each route's request schema (the spec's
``$ref``s inlined; see ``from_schema``); invalid ones are any JSON at all. The
daemon behind the server is down, so every daemon call fails: the server
must still answer with a 2xx/4xx, or the documented 502/504 for a daemon it
cannot reach on non-fail-open routes, and never a traceback.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from signet_sdk.server import RuntimeAdapterServer

from .server_support import make_client

SERVER = RuntimeAdapterServer("http://127.0.0.1:9", max_retries=0, timeout=0.5)
SPEC = SERVER.fastapi.openapi()
#: The daemon is unreachable: lifecycle and tool routes answer 502 (documented), not 500.
UNREACHABLE = {502, 504}

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4)
    ),
    max_leaves=12,
)


def _inline(schema: Any) -> Any:
    if isinstance(schema, dict):
        if "$ref" in schema:
            name = schema["$ref"].rsplit("/", 1)[1]
            return _inline(SPEC["components"]["schemas"][name])
        return {k: _inline(v) for k, v in schema.items()}
    if isinstance(schema, list):
        return [_inline(v) for v in schema]
    return schema


_SCALARS: dict[str, st.SearchStrategy[Any]] = {
    "string": st.text(max_size=30),
    "integer": st.integers(min_value=-5, max_value=200),
    "number": st.floats(min_value=-5, max_value=200, allow_nan=False),
    "boolean": st.booleans(),
    "null": st.none(),
}


def from_schema(schema: Any) -> st.SearchStrategy[Any]:
    """Values that fit a JSON Schema of the shapes pydantic emits (loosely: bounds ignored)."""
    if not isinstance(schema, dict) or not schema:
        return json_values
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    if "const" in schema:
        return st.just(schema["const"])
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return st.one_of([from_schema(s) for s in schema[key]])
    kind = schema.get("type")
    if kind == "object" or "properties" in schema:
        props = schema.get("properties", {})
        required = set(schema.get("required", []))
        fixed = {k: from_schema(v) for k, v in props.items() if k in required}
        optional = {k: from_schema(v) for k, v in props.items() if k not in required}
        return st.fixed_dictionaries(fixed, optional=optional)
    if kind == "array":
        return st.lists(from_schema(schema.get("items", {})), max_size=3)
    if isinstance(kind, str) and kind in _SCALARS:
        return _SCALARS[kind]
    return json_values


def _routes() -> list[tuple[str, str, Any]]:
    found = []
    for path, item in SPEC["paths"].items():
        for method, op in item.items():
            body = op.get("requestBody", {}).get("content", {}).get("application/json", {})
            found.append((method.upper(), path, _inline(body.get("schema")) if body else None))
    return found


ROUTES = _routes()


def _url(path: str) -> str:
    return (
        path.replace("{harness}", "claude-code")
        .replace("{event}", "UserPromptSubmit")
        .replace("{name}", "memory_search")
        .replace("{action}", "recall")
    )


async def _check(method: str, url: str, body: Any) -> None:
    server = RuntimeAdapterServer("http://127.0.0.1:9", max_retries=0, timeout=0.5)
    try:
        async with make_client(server) as client:
            answer = await client.request(method, url, json=body)
    finally:
        await server.aclose()
    assert answer.status_code < 500 or answer.status_code in UNREACHABLE, (url, body, answer.text)
    assert "Traceback" not in answer.text


@pytest.mark.parametrize(
    ("method", "path", "schema"), ROUTES, ids=[f"{m} {p}" for m, p, _ in ROUTES]
)
@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_no_5xx_for_any_body(method: str, path: str, schema: Any, data: st.DataObject) -> None:
    import anyio

    valid = schema is not None and data.draw(st.booleans())
    body = data.draw(from_schema(schema)) if valid else data.draw(json_values)
    anyio.run(_check, method, _url(path), body)


_segments = st.text(min_size=1, max_size=16).map(lambda t: quote(t, safe=""))


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    template=st.sampled_from(
        [
            "/v1/{a}/lifecycle/{b}",
            "/v1/{a}/lifecycle/recall",
            "/v1/{a}/events/{b}",
            "/v1/claude-code/events/{b}",
            "/v1/tools/{a}",
        ]
    ),
    a=_segments,
    b=_segments,
    body=json_values,
)
def test_no_5xx_for_any_name_in_the_path(template: str, a: str, b: str, body: Any) -> None:
    import anyio

    anyio.run(_check, "POST", template.format(a=a, b=b), body)


def test_every_documented_route_is_fuzzed() -> None:
    paths = {p for _, p, _ in ROUTES}
    assert {"/health", "/v1/tools", "/v1/{harness}/events/{event}"} <= paths
    assert sum(p.startswith("/v1/{harness}/lifecycle/") for p in paths) == 8
    assert httpx  # the client library the ASGI transport comes from
