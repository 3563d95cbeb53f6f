"""Native events in-process: a harness plugin's translator on an ``AdapterClient``.

For a Python harness (or a user's own agent loop) that holds a client and
receives native events: ``run_event(client, event, payload)`` translates
with the plugin registered for ``client.harness``, makes each call through
the client (params validated, retries and deadline applied) and renders the
native output, all through :func:`~signet_sdk.runtime.dispatch.dispatch`.

Transcript paths are read only inside the plugin's transcript roots and
staged the way every daemon accepts them; the staged copy is removed once
the daemon has answered.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from signet_sdk.runtime.dispatch import Dispatched, dispatch, dispatch_async
from signet_sdk.wire.lifecycle import LifecycleCall
from signet_sdk.wire.log import logger as log

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable, Mapping

    from signet_sdk.client.async_client import AsyncAdapterClient
    from signet_sdk.client.sync_client import AdapterClient
    from signet_sdk.runtime.plugin import HarnessPlugin

__all__ = ["prepare_transcript", "run_event", "run_event_async"]


def prepare_transcript(
    plugin: HarnessPlugin, call: LifecycleCall
) -> tuple[LifecycleCall, str | None]:
    """The call with its ``transcriptPath`` staged (or inlined), plus the staged file.

    A plugin without transcript roots reads no file: the path is sent as is.
    The caller removes the staged file once the daemon has answered.
    """
    path = call.body.get("transcriptPath")
    roots = plugin.transcript_roots()
    if not isinstance(path, str) or roots is None:
        return call, None
    from signet_sdk.runtime.transcripts import attach_transcript, take_transcript

    tag = f"{plugin.name}-{call.action}"

    def say(message: str) -> None:
        log.warning("%s: %s", tag, message)

    body, snapshot = take_transcript(call.body, roots, say)
    staged = None if snapshot is None else attach_transcript(body, snapshot, tag, log=say)
    return LifecycleCall(call.action, body), None if staged is None else str(staged)


def _unlink(path: str | None) -> None:
    if path is not None:
        import contextlib
        import os

        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)


def _wire(result: Any) -> Any:
    """A typed result back in the daemon's own shape, as translators read it."""
    return result.model_dump(mode="json", by_alias=True, exclude_unset=True)


def _plugin(client: AdapterClient | AsyncAdapterClient, plugin: HarnessPlugin | None) -> Any:
    if plugin is not None:
        return plugin
    from signet_sdk.runtime.registry import plugin_for

    return plugin_for(client.harness)


def client_sender(client: AdapterClient, plugin: HarnessPlugin) -> Callable[[LifecycleCall], Any]:
    """``send`` for :func:`dispatch`: one typed call on ``client``, answered as a wire dict."""

    def send(call: LifecycleCall) -> Any:
        prepared, staged = prepare_transcript(plugin, call)
        try:
            return _wire(client.call_lifecycle(prepared))
        finally:
            _unlink(staged)

    return send


def async_client_sender(
    client: AsyncAdapterClient, plugin: HarnessPlugin
) -> Callable[[LifecycleCall], Awaitable[Any]]:
    """``send`` for :func:`dispatch_async` on an ``AsyncAdapterClient``."""

    async def send(call: LifecycleCall) -> Any:
        prepared, staged = prepare_transcript(plugin, call)
        try:
            return _wire(await client.call_lifecycle(prepared))
        finally:
            _unlink(staged)

    return send


def _report(plugin: HarnessPlugin, event: str, run: Dispatched) -> Dispatched:
    if run.error is not None:
        log.warning("%s %s failed open: %s", plugin.name, event, run.error)
    return run


def run_event(
    client: AdapterClient,
    event: str,
    payload: Mapping[str, Any],
    *,
    plugin: HarnessPlugin | None = None,
    fail_open: bool = True,
) -> Dispatched:
    """Run one native event for ``client.harness``; ``.output`` is what the harness gets."""
    chosen = _plugin(client, plugin)
    translator = chosen.make_translator()
    run = dispatch(translator, event, payload, client_sender(client, chosen), fail_open=fail_open)
    return _report(chosen, event, run)


async def run_event_async(
    client: AsyncAdapterClient,
    event: str,
    payload: Mapping[str, Any],
    *,
    plugin: HarnessPlugin | None = None,
    fail_open: bool = True,
) -> Dispatched:
    """:func:`run_event` on an ``AsyncAdapterClient``."""
    chosen = _plugin(client, plugin)
    translator = chosen.make_translator()
    send = async_client_sender(client, chosen)
    run = await dispatch_async(translator, event, payload, send, fail_open=fail_open)
    return _report(chosen, event, run)
