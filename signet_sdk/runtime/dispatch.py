"""The one path every native event takes: translate, call, render.

The hook runner (a process per event), the adapter server (plugin
harnesses over HTTP), the parity suite and the in-process library path all
run events through :func:`dispatch` or :func:`dispatch_async`. What differs
between them is only ``send``: how one lifecycle call reaches the daemon
(the stdlib client, the async pool, a durable outbox in front of either).

``send(call)`` returns the daemon's decoded answer (a wire dict) or None
when the answer is not known yet (a write handed to the outbox); it raises
a :class:`~signet_sdk.SignetError` when the daemon did not help. With
``fail_open`` such an error, or a payload the translator rejects, gives the
translator's neutral output and the error is reported in the result.

Standard library only: the hook path imports this.
"""

from __future__ import annotations

import os

from signet_sdk.runtime.native import NativeOutput
from signet_sdk.wire.errors import SignetError
from signet_sdk.wire.record import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable, Mapping
    from typing import Any

    from signet_sdk.runtime.translator import HarnessTranslator
    from signet_sdk.wire.lifecycle import LifecycleCall

__all__ = [
    "MAX_CONTEXT_CHARS",
    "Dispatched",
    "cap_context",
    "degraded_notice",
    "dispatch",
    "dispatch_async",
    "fail_open_output",
]

#: The calls whose answer a harness puts in front of the model.
_INJECTING = ("session_start", "user_prompt_submit")

#: The most text an answer may put into a model's context (``SIGNET_MAX_CONTEXT_CHARS``).
#: The daemon's own budget is a few thousand tokens; an answer far past that is a fault,
#: and a harness handed megabytes would pay for them on every turn.
MAX_CONTEXT_CHARS = 100_000
#: The answer fields a translator passes on to the model as context (newer daemons
#: split ``inject`` into the stable and the dynamic part: each is capped alike).
_CONTEXT_FIELDS = ("inject", "summaryPrompt", "stableSystemPrompt", "dynamicContext")


def cap_context(result: Any, limit: int | None = None) -> Any:
    """``result`` with each context field cut to ``limit`` characters, at a line end,
    and a last line saying how much was left out."""
    if not isinstance(result, dict):
        return result
    if limit is None:
        raw = os.environ.get("SIGNET_MAX_CONTEXT_CHARS", "").strip()
        # ASCII digits only: "²" is a digit to str.isdigit, and no number to int().
        limit = int(raw) if raw.isascii() and raw.isdigit() else MAX_CONTEXT_CHARS
    over = [k for k in _CONTEXT_FIELDS if isinstance(result.get(k), str) and len(result[k]) > limit]
    if not over:
        return result
    capped = dict(result)
    for key in over:
        text: str = capped[key]
        cut = text.rfind("\n", 0, limit)
        kept = text[: cut if cut > 0 else limit]
        capped[key] = f"{kept}\n[{len(text) - len(kept)} characters of memory context left out]"
    return capped


class Dispatched(Record):
    """One event's run: the output, the calls made, their answers, the first error."""

    output: NativeOutput
    calls: list[LifecycleCall]
    results: list[Any]
    error: Exception | None = None

    @property
    def degraded(self) -> str | None:
        """Why the output is the neutral one, or None when the daemon answered."""
        if self.error is None:
            return None
        return f"{type(self.error).__name__}: {self.error}"


def degraded_notice(
    translator: HarnessTranslator, event: str, payload: Any, run: Dispatched
) -> Any:
    """The output that tells the model, in one line, that memory could not be loaded.

    Opt-in (``SIGNET_DEGRADED_NOTICE=1`` on the hook path): by default a
    failed read is silent. Only for an event whose injecting call failed at
    the daemon; otherwise, or if the translator cannot render it, ``run``'s
    own output.
    """
    if run.error is None or not isinstance(run.error, SignetError):
        return run.output
    if not any(call.action in _INJECTING for call in run.calls):
        return run.output
    line = (
        "[Signet memory could not be loaded for this turn: the memory daemon did not "
        f"answer ({type(run.error).__name__}). Continue without it.]"
    )
    results = [{"inject": line} if call.action in _INJECTING else None for call in run.calls]
    try:
        return translator.render(event, payload, results)
    except Exception:
        return run.output


def _plan(
    translator: HarnessTranslator, event: str, payload: Mapping[str, Any], fail_open: bool
) -> list[LifecycleCall] | Dispatched:
    try:
        return translator.translate(event, payload)
    except Exception as exc:  # a bad payload, or a translator bug: the harness carries on
        if not fail_open:
            raise
        return Dispatched(translator.neutral(event), [], [], exc)


def fail_open_output(
    translator: HarnessTranslator, event: str, payload: Mapping[str, Any]
) -> NativeOutput:
    """The translator's output for an event whose daemon calls failed or ran out of time.

    Its ``fail_open(event, payload)`` when it has one (an optional method: an
    :class:`~signet_sdk.runtime.handlers.EventTranslator` has it), else
    ``neutral(event)``; ``neutral`` too when that method itself fails.
    """
    method = getattr(translator, "fail_open", None)
    if method is not None:
        try:
            output = method(event, payload)
            if isinstance(output, NativeOutput):
                return output
        except Exception:
            pass
    return translator.neutral(event)


def _finish(
    translator: HarnessTranslator,
    event: str,
    payload: Mapping[str, Any],
    calls: list[LifecycleCall],
    results: list[Any],
    error: Exception | None,
    fail_open: bool,
) -> Dispatched:
    if error is not None:
        return Dispatched(fail_open_output(translator, event, payload), calls, results, error)
    results = [cap_context(r) for r in results]
    try:
        return Dispatched(translator.render(event, payload, results), calls, results)
    except Exception as exc:  # an answer the translator did not expect: fail open too
        if not fail_open:
            raise
        return Dispatched(fail_open_output(translator, event, payload), calls, results, exc)


def dispatch(
    translator: HarnessTranslator,
    event: str,
    payload: Mapping[str, Any],
    send: Callable[[LifecycleCall], Any],
    *,
    fail_open: bool = True,
) -> Dispatched:
    """Run one native event: every call is attempted; any failure gives neutral output."""
    plan = _plan(translator, event, payload, fail_open)
    if isinstance(plan, Dispatched):
        return plan
    results: list[Any] = []
    error: Exception | None = None
    for call in plan:
        try:
            results.append(send(call))
        except SignetError as exc:
            if not fail_open:
                raise
            results.append(None)
            error = error or exc
    return _finish(translator, event, payload, plan, results, error, fail_open)


async def dispatch_async(
    translator: HarnessTranslator,
    event: str,
    payload: Mapping[str, Any],
    send: Callable[[LifecycleCall], Awaitable[Any]],
    *,
    fail_open: bool = True,
) -> Dispatched:
    """:func:`dispatch` for event loops: ``send`` is awaited."""
    plan = _plan(translator, event, payload, fail_open)
    if isinstance(plan, Dispatched):
        return plan
    results: list[Any] = []
    error: Exception | None = None
    for call in plan:
        try:
            results.append(await send(call))
        except SignetError as exc:
            if not fail_open:
                raise
            results.append(None)
            error = error or exc
    return _finish(translator, event, payload, plan, results, error, fail_open)
