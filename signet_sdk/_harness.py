"""Harness adapters: a translator joined to a client, plus the generic one.

A harness package supplies only a translator (pure data in, data out); this
module turns it into a full :class:`RuntimeAdapter` whose ``handle`` method
takes a native event and returns exactly what the harness reads. The same
translator also runs on the stdlib hook path, unchanged.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

from ._async_client import AsyncAdapterClient
from ._client import AdapterClient
from ._exceptions import PayloadError, SignetError
from ._lifecycle import LIFECYCLE_METHODS, LifecycleCall, NativeOutput
from ._log import logger as log
from ._models import HookResult
from ._translator import HarnessTranslator

TYPE_CHECKING = False
if TYPE_CHECKING:
    import httpx
    from typing_extensions import Unpack

    from ._config import ClientOptions

__all__ = ["AsyncHarnessAdapter", "GenericTranslator", "HarnessAdapter", "prepare_transcript"]


_EVENT_OF_ACTION = {action: action.replace("_", "-") for action in LIFECYCLE_METHODS}
_ACTION_OF_EVENT = {event: action for action, event in _EVENT_OF_ACTION.items()}
_INJECTING = frozenset({"session-start", "user-prompt-submit"})
_TOOL_RESULTS = frozenset({"remember", "recall"})


class GenericTranslator:
    """The adapter for a harness nobody packaged: native events are the contract's own.

    An event is a hook name (``session-start``, ``user-prompt-submit``, ...)
    and its payload is that hook's wire body. Output follows the CLI
    convention: the inject text for the two injecting hooks, the JSON answer
    for remember and recall, nothing for the rest.
    """

    events: Sequence[str] = tuple(_ACTION_OF_EVENT)
    not_applicable: Mapping[str, str] = {
        "memory-get": "a tool call, not a lifecycle event: use AdapterClient.get_memory",
        "memory-modify": "a tool call, not a lifecycle event: use AdapterClient.modify_memory",
        "memory-forget": "a tool call, not a lifecycle event: use AdapterClient.forget_memory",
        "secret-injection": "a tool call, not a lifecycle event: use AdapterClient.secrets_exec",
        "health": "not a lifecycle event: use AdapterClient.health",
        "memory-search": "served by the recall event (POST /api/hooks/recall)",
    }

    def __init__(self, harness: str, runtime_path: str | None = None) -> None:
        self.harness = harness
        self.runtime_path = runtime_path

    def translate(self, event: str, payload: Mapping[str, Any]) -> list[LifecycleCall]:
        action = _ACTION_OF_EVENT.get(event)
        if action is None:
            raise PayloadError("event", f"unknown event {event!r}; known: {', '.join(self.events)}")
        if not isinstance(payload, Mapping):
            raise PayloadError("payload", "must be a JSON object")
        body = {k: v for k, v in payload.items() if k not in ("harness", "runtimePath")}
        return [LifecycleCall(action, body)]

    def render(
        self, event: str, payload: Mapping[str, Any], results: Sequence[Any]
    ) -> NativeOutput:
        result = results[0] if results else None
        if not isinstance(result, Mapping):
            return self.neutral(event)
        if event in _INJECTING:
            return NativeOutput(stdout=str(result.get("inject") or ""))
        if event in _TOOL_RESULTS:
            return NativeOutput(stdout=json.dumps(result, separators=(",", ":"), sort_keys=True))
        return NativeOutput()

    def neutral(self, event: str) -> NativeOutput:
        return NativeOutput()

    def story_event(self, step: str, ctx: Any) -> tuple[str, dict[str, Any]] | None:
        """The demo's story steps as this adapter's native events (wire bodies)."""
        key, project = ctx.session_key, ctx.project
        events: dict[str, tuple[str, dict[str, Any]]] = {
            "session_start": ("session-start", {"sessionKey": key, "project": project}),
            "prompt": (
                "user-prompt-submit",
                {"sessionKey": key, "project": project, "userMessage": ctx.prompt},
            ),
            "pre_compaction": ("pre-compaction", {"sessionKey": key, "messageCount": 6}),
            "compaction_complete": (
                "compaction-complete",
                {"sessionKey": key, "project": project, "summary": ctx.summary},
            ),
            "session_end": (
                "session-end",
                {"sessionKey": key, "sessionId": key, "cwd": project, "transcript": ctx.transcript},
            ),
        }
        return events.get(step)


def prepare_transcript(
    translator: HarnessTranslator, call: LifecycleCall
) -> tuple[LifecycleCall, Path | None]:
    """Send a harness transcript file the way both daemons accept it.

    Translators that declare ``transcript_roots`` hand over the harness's own
    ``transcriptPath``; the TS daemon would read it anywhere, but the Rust
    daemon (and the documented rule) wants a file under /tmp/signet within
    400 000 bytes. So the file is read only inside those roots, then staged
    there, or sent inline when larger; a file that cannot be read is left out.
    The caller removes the returned staged file once the daemon has answered.
    """
    path = call.body.get("transcriptPath")
    roots = getattr(translator, "transcript_roots", None)
    if not isinstance(path, str) or roots is None:
        return call, None
    from ._outbox import attach_transcript, take_transcript

    tag = f"{translator.harness}-{call.action}"

    def say(message: str) -> None:
        log.warning("%s: %s", tag, message)

    body, snapshot = take_transcript(call.body, roots, say)
    staged = None if snapshot is None else attach_transcript(body, snapshot, tag, log=say)
    return LifecycleCall(call.action, body), staged


def _wire(result: HookResult) -> dict[str, Any]:
    """A typed result back in the daemon's own shape, as the hook path sees it."""
    return result.model_dump(mode="json", by_alias=True, exclude_unset=True)


class _TranslatorMixin:
    translator: ClassVar[HarnessTranslator]

    def _init_translator(self, translator: HarnessTranslator | None, options: ClientOptions) -> str:
        """Install the translator; its runtime path is the default for ``options``."""
        if translator is not None:
            self.translator = translator  # type: ignore[misc]
        tr = getattr(self, "translator", None)
        if not isinstance(tr, HarnessTranslator):
            raise TypeError(f"{type(self).__name__} needs a translator")
        if tr.runtime_path in ("plugin", "legacy") and "runtime_path" not in options:
            options["runtime_path"] = tr.runtime_path  # type: ignore[typeddict-item]
        return tr.harness

    def _prepare(self, call: LifecycleCall) -> tuple[LifecycleCall, Path | None]:
        return prepare_transcript(self.translator, call)

    def _fail_open(self, event: str, exc: Exception) -> NativeOutput:
        log.warning("%s %s failed open: %s", self.translator.harness, event, exc)
        return self.translator.neutral(event)


class HarnessAdapter(_TranslatorMixin, AdapterClient):
    """A harness's adapter: native event in, native output back, one daemon call each.

    Subclass with ``translator = MyTranslator()``, or pass ``translator=``.
    """

    def __init__(
        self,
        daemon_url: str | None = None,
        *,
        translator: HarnessTranslator | None = None,
        http_client: httpx.Client | None = None,
        **options: Unpack[ClientOptions],
    ) -> None:
        harness = self._init_translator(translator, options)
        super().__init__(harness, daemon_url, http_client=http_client, **options)

    def run_event(
        self, event: str, payload: Mapping[str, Any]
    ) -> tuple[NativeOutput, list[HookResult]]:
        """Translate, make each call, render; errors propagate. Returns output and results."""
        results: list[HookResult] = []
        for call in self.translator.translate(event, payload):
            prepared, staged = self._prepare(call)
            try:
                results.append(self.call_lifecycle(prepared))
            finally:
                if staged is not None:
                    staged.unlink(missing_ok=True)
        output = self.translator.render(event, payload, [_wire(r) for r in results])
        return output, results

    def handle(
        self, event: str, payload: Mapping[str, Any], *, fail_open: bool = True
    ) -> NativeOutput:
        """Run one native event; with ``fail_open`` a failure yields the neutral output."""
        try:
            output, _ = self.run_event(event, payload)
            return output
        except SignetError as exc:
            if not fail_open:
                raise
            return self._fail_open(event, exc)


class AsyncHarnessAdapter(_TranslatorMixin, AsyncAdapterClient):
    """:class:`HarnessAdapter` for event loops."""

    def __init__(
        self,
        daemon_url: str | None = None,
        *,
        translator: HarnessTranslator | None = None,
        http_client: httpx.AsyncClient | None = None,
        **options: Unpack[ClientOptions],
    ) -> None:
        harness = self._init_translator(translator, options)
        super().__init__(harness, daemon_url, http_client=http_client, **options)

    async def run_event(
        self, event: str, payload: Mapping[str, Any]
    ) -> tuple[NativeOutput, list[HookResult]]:
        """Translate, make each call, render; errors propagate. Returns output and results."""
        results: list[HookResult] = []
        for call in self.translator.translate(event, payload):
            prepared, staged = self._prepare(call)
            try:
                results.append(await self.call_lifecycle(prepared))
            finally:
                if staged is not None:
                    staged.unlink(missing_ok=True)
        output = self.translator.render(event, payload, [_wire(r) for r in results])
        return output, results

    async def handle(
        self, event: str, payload: Mapping[str, Any], *, fail_open: bool = True
    ) -> NativeOutput:
        """Run one native event; with ``fail_open`` a failure yields the neutral output."""
        try:
            output, _ = await self.run_event(event, payload)
            return output
        except SignetError as exc:
            if not fail_open:
                raise
            return self._fail_open(event, exc)
