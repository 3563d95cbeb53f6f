"""The sans-I/O core: requests built from the endpoint map, answers judged.

Both httpx clients and the stdlib hook transport call into here, so the bytes
a daemon receives do not depend on which transport sent them. Nothing in this
module performs I/O or imports a third-party package.
"""

from __future__ import annotations

from signet_sdk._version import __version__
from signet_sdk.wire import jsonfast
from signet_sdk.wire.errors import ConfigError, decode_body, status_error
from signet_sdk.wire.record import Record
from signet_sdk.wire.url import quote, urlencode

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from signet_sdk.wire.config import ClientConfig
    from signet_sdk.wire.endpoints import Endpoint

__all__ = ["PreparedRequest", "build_request", "hook_body", "hook_extras", "judge_response"]

USER_AGENT = f"signet-sdk/{__version__}"


class PreparedRequest(Record):
    """A request ready for any transport: every header and byte decided.

    ``target`` is the path and query alone (the tail of ``url``), which is
    what an HTTP/1.1 request line carries.
    """

    endpoint: Endpoint
    method: str
    url: str
    target: str
    headers: dict[str, str]
    content: bytes | None
    timeout: float | None

    def __init__(
        self,
        endpoint: Endpoint,
        method: str,
        url: str,
        target: str,
        headers: dict[str, str],
        content: bytes | None,
        timeout: float | None,
    ) -> None:
        # Set one by one rather than through Record's shared ``__init__``: a
        # request is built for every call, and this is the cheaper way.
        setattr_ = object.__setattr__
        setattr_(self, "endpoint", endpoint)
        setattr_(self, "method", method)
        setattr_(self, "url", url)
        setattr_(self, "target", target)
        setattr_(self, "headers", headers)
        setattr_(self, "content", content)
        setattr_(self, "timeout", timeout)


def hook_body(config: ClientConfig, ep: Endpoint, body: Mapping[str, Any]) -> dict[str, Any]:
    """Add what the contract wants on every hook body and the caller may omit.

    ``harness`` is required by every session hook; ``runtimePath`` mirrors the
    header so a daemon that ignores one still sees the other; ``agentId`` goes
    in the body *and* the header because TS 0.109's hook recall reads only the
    header. Values the caller set explicitly are kept; an explicit ``None``
    is no value, and gets the client's as a missing member does (sent as
    ``null``, TS 0.109 stored a hook remember under the ``default`` agent
    though the client and its header said another).
    """
    out = dict(body)

    def fill(key: str, value: str | None) -> None:
        if value and out.get(key) is None:
            out.pop(key, None)  # appended, where a body lacking it gets it
            out[key] = value

    if ep.sends_runtime_path:
        fill("harness", config.harness)
        fill("runtimePath", config.runtime_path)
    if ep.hook:
        fill("agentId", config.agent_id)
    return out


def hook_extras(config: ClientConfig, ep: Endpoint) -> tuple[tuple[str, bytes], ...]:
    """What :func:`hook_body` adds to a body lacking them, as encoded members.

    Each pair is a wire key and its ``"key":value`` JSON text, in the order
    :func:`hook_body` appends them, so a body serialised elsewhere can have
    them spliced in with the same bytes as a result.
    """
    added = hook_body(config, ep, {})
    return tuple(
        (key, (jsonfast.dumps(key) + ":" + jsonfast.dumps(value)).encode("utf-8"))
        for key, value in added.items()
    )


def _headers(config: ClientConfig, ep: Endpoint, has_body: bool) -> dict[str, str]:
    headers = {"accept": "application/json", "user-agent": USER_AGENT}
    if ep.timeout == "stream":
        headers["accept"] = "text/event-stream"
    if has_body:
        headers["content-type"] = "application/json"
    if config.token:
        headers["authorization"] = f"Bearer {config.token}"
    if config.agent_id:
        headers["x-signet-agent-id"] = config.agent_id
    if config.runtime_path and ep.sends_runtime_path:
        headers["x-signet-runtime-path"] = config.runtime_path
    if config.actor:
        headers["x-signet-actor"] = config.actor
    if config.actor_type:
        headers["x-signet-actor-type"] = config.actor_type
    if config.no_hooks and ep.hook:
        headers["x-signet-no-hooks"] = "1"
    return headers


def _path(ep: Endpoint, params: Mapping[str, str] | None) -> str:
    path = ep.path
    for name in ep.path_params:
        value = (params or {}).get(name)
        if value is None or value == "":
            raise ConfigError(name, f"{ep.name} needs a non-empty {name!r}")
        text = str(value)
        if text in (".", ".."):
            # A dot segment names no resource: the HTTP library resolves it
            # away (get_session(".") fetched /api/sessions/, the session
            # list) and the daemon's URL parser resolves even "%2E", so no
            # spelling of it reaches the route meant.
            raise ConfigError(name, f"{ep.name} cannot address {text!r}: it is a dot segment")
        # Session keys may hold ':' and '/': the route takes one segment.
        path = path.replace("{" + name + "}", quote(text))
    return path


def build_request(
    config: ClientConfig,
    ep: Endpoint,
    *,
    body: Mapping[str, Any] | None = None,
    path_params: Mapping[str, str] | None = None,
    query: Mapping[str, Any] | None = None,
    timeout: float | None = None,
    header_cache: dict[tuple[str, bool], dict[str, str]] | None = None,
) -> PreparedRequest:
    """Decide method, URL, headers and body bytes for one call to ``ep``.

    POSTs always carry a JSON object (``{}`` at minimum): an empty body on a
    hook route is a 500 in TS 0.109. GETs carry none. ``header_cache`` (owned
    by a client, whose config never changes) keeps each endpoint's headers,
    which depend only on the config and the endpoint; they are shared, so no
    transport may change them in place.
    """
    target = _path(ep, path_params)
    pairs = [(k, _query_value(v)) for k, v in (query or {}).items() if v is not None]
    if pairs:
        target += "?" + urlencode(pairs)
    content: bytes | None = None
    if ep.method in ("POST", "PATCH") or (ep.method == "DELETE" and body):
        data = hook_body(config, ep, body or {}) if ep.hook else dict(body or {})
        content = jsonfast.dumps(data).encode("utf-8")
    deadline = timeout if timeout is not None else config.timeouts.for_class(ep.timeout)
    if header_cache is None:
        headers = _headers(config, ep, content is not None)
    else:
        key = (ep.name, content is not None)
        headers = header_cache.get(key) or header_cache.setdefault(
            key, _headers(config, ep, content is not None)
        )
    return PreparedRequest(
        endpoint=ep,
        method=ep.method,
        url=config.base_url + target,
        target=target,
        headers=headers,
        content=content,
        timeout=deadline,
    )


def _query_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def judge_response(
    request: PreparedRequest, status: int, headers: Mapping[str, str], content: bytes
) -> Any:
    """The decoded body of a 2xx answer; any other status raises its error class."""
    content_type = next((v for k, v in headers.items() if k.lower() == "content-type"), None)
    body = decode_body(content, content_type)
    if 200 <= status < 300:
        return body
    raise status_error(
        method=request.method, url=request.url, status_code=status, body=body, headers=headers
    )
