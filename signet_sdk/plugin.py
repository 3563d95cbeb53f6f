"""Everything a harness adapter's translator needs, in one module: ``signet_sdk.plugin``.

A harness package registers one :class:`HarnessPlugin` (entry point
``signet_sdk.adapters``) and writes a translator: two pure functions,
``translate(event, payload) -> [LifecycleCall]`` and ``render(event,
payload, answers) -> NativeOutput``. The core does the rest (the daemon call,
deadlines, fail-open, the outbox, the parity suite). Translators import the
core only from here; installers use :mod:`signet_sdk.installing`, tests
:mod:`signet_sdk.testing`. Names load on first use: a hook process pays only
for what its translator touches (all of it standard library).

The plugin (:class:`HarnessPlugin`, :class:`EventSpec`)
    ``HarnessPlugin(name, translator, events, installer=, vectors=, shims=,
    runtime_path=, transcript_env=, transcript_roots=, not_applicable=,
    tools=)``. ``events`` maps each native event name to an ``EventSpec``:
    ``timeout_class`` (``session_start``, ``prompt_submit`` or ``default``)
    picks its deadline; ``detach=True`` marks an event the harness kills
    early (its writes go only to the durable outbox and a detached sender);
    ``replay=True`` sends older queued writes again when it runs (a session
    start after an outage). ``not_applicable`` maps a dependency-map row or
    native event the adapter does not cover to the reason, which the parity
    suite prints instead of MISSING. ``tools`` (``"mcp"`` or ``"native"``)
    says how the harness's model reaches the memory tools.

What a translator returns
    :class:`LifecycleCall` ``(action, body)``: one daemon call, ``action``
    one of :data:`LIFECYCLE` (``session_start``, ``user_prompt_submit``,
    ``session_end``, ``session_checkpoint_extract``, ``pre_compaction``,
    ``compaction_complete``, ``remember``, ``recall``), ``body`` in the
    daemon's wire names, without ``harness``/``runtimePath`` (the client adds
    them). ``call.durable`` is true for writes that must never be lost
    (session end, checkpoint, compaction complete, remember): the core sends
    those outbox-first. :class:`NativeOutput` ``(data, stdout=, exit_code=)``:
    what the harness gets back; a command hook prints ``stdout`` (default:
    ``data`` as compact JSON). A plugin shim applies ``data``; a key
    ``carry`` in it is state the shim keeps and sends back on the session's
    next event (read it with :func:`carried`).

Reading payloads
    :func:`string`, :func:`mapping`, :func:`array`, :func:`integer` return
    a field or None and raise :class:`PayloadError` naming the field on a
    wrong type; :func:`put` sets a body key only when there is a value;
    :func:`carried` reads what an earlier output carried. A bad payload
    raises ``PayloadError(field, message)``: the core logs it and the
    harness gets the neutral output.

Declaring events once (:class:`EventTranslator`, :func:`on`)
    Subclass ``EventTranslator`` and mark each handler method with
    ``@on(event, timeout_class, detach=, replay=)`` (the ``EventSpec``
    fields). The class then has ``events`` (pass it to ``HarnessPlugin``)
    and ``event_names``, and a ``translate`` that checks the payload is an
    object, that its ``event_field`` (if set) names the same event, and that
    ``carry`` is an object (if ``carries``), then calls
    ``handler(self, payload, self.scope(payload))``; its ``render`` shows
    the model :func:`context_text` of a ``context_events`` answer through
    ``context_output``. :class:`CommandHookTranslator` is that for a harness
    that runs a command per hook (``session_id`` and ``hook_event_name`` in,
    ``hookSpecificOutput.additionalContext`` out).

Answers and files
    :func:`context_text` is the text to show the model for a daemon answer.
    :func:`snapshot_transcript` (``TranscriptRefused``) reads a harness's
    transcript file safely (size cap, allowed roots); :func:`json_loads` /
    :func:`json_dumps` are the hook path's JSON (no ``json`` import);
    :func:`state_dir` / :func:`private_dir` give the SDK's 0700 state folder.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from signet_sdk.runtime.context import context_text as context_text
    from signet_sdk.runtime.files import private_dir as private_dir
    from signet_sdk.runtime.files import state_dir as state_dir
    from signet_sdk.runtime.handlers import CommandHookTranslator as CommandHookTranslator
    from signet_sdk.runtime.handlers import EventTranslator as EventTranslator
    from signet_sdk.runtime.handlers import on as on
    from signet_sdk.runtime.native import NativeOutput as NativeOutput
    from signet_sdk.runtime.payload import array as array
    from signet_sdk.runtime.payload import carried as carried
    from signet_sdk.runtime.payload import integer as integer
    from signet_sdk.runtime.payload import mapping as mapping
    from signet_sdk.runtime.payload import put as put
    from signet_sdk.runtime.payload import string as string
    from signet_sdk.runtime.plugin import EventSpec as EventSpec
    from signet_sdk.runtime.plugin import HarnessPlugin as HarnessPlugin
    from signet_sdk.runtime.transcripts import TranscriptRefused as TranscriptRefused
    from signet_sdk.runtime.transcripts import snapshot_transcript as snapshot_transcript
    from signet_sdk.wire.errors import PayloadError as PayloadError
    from signet_sdk.wire.jsonfast import dumps as json_dumps
    from signet_sdk.wire.jsonfast import loads as json_loads
    from signet_sdk.wire.lifecycle import LIFECYCLE as LIFECYCLE
    from signet_sdk.wire.lifecycle import LifecycleCall as LifecycleCall

#: Public name -> (module, name there).
_WHERE = {
    "CommandHookTranslator": ("signet_sdk.runtime.handlers", "CommandHookTranslator"),
    "EventSpec": ("signet_sdk.runtime.plugin", "EventSpec"),
    "EventTranslator": ("signet_sdk.runtime.handlers", "EventTranslator"),
    "HarnessPlugin": ("signet_sdk.runtime.plugin", "HarnessPlugin"),
    "LIFECYCLE": ("signet_sdk.wire.lifecycle", "LIFECYCLE"),
    "LifecycleCall": ("signet_sdk.wire.lifecycle", "LifecycleCall"),
    "NativeOutput": ("signet_sdk.runtime.native", "NativeOutput"),
    "PayloadError": ("signet_sdk.wire.errors", "PayloadError"),
    "TranscriptRefused": ("signet_sdk.runtime.transcripts", "TranscriptRefused"),
    "array": ("signet_sdk.runtime.payload", "array"),
    "carried": ("signet_sdk.runtime.payload", "carried"),
    "context_text": ("signet_sdk.runtime.context", "context_text"),
    "integer": ("signet_sdk.runtime.payload", "integer"),
    "json_dumps": ("signet_sdk.wire.jsonfast", "dumps"),
    "json_loads": ("signet_sdk.wire.jsonfast", "loads"),
    "mapping": ("signet_sdk.runtime.payload", "mapping"),
    "on": ("signet_sdk.runtime.handlers", "on"),
    "private_dir": ("signet_sdk.runtime.files", "private_dir"),
    "put": ("signet_sdk.runtime.payload", "put"),
    "snapshot_transcript": ("signet_sdk.runtime.transcripts", "snapshot_transcript"),
    "state_dir": ("signet_sdk.runtime.files", "state_dir"),
    "string": ("signet_sdk.runtime.payload", "string"),
}

__all__ = [
    "LIFECYCLE",
    "CommandHookTranslator",
    "EventSpec",
    "EventTranslator",
    "HarnessPlugin",
    "LifecycleCall",
    "NativeOutput",
    "PayloadError",
    "TranscriptRefused",
    "array",
    "carried",
    "context_text",
    "integer",
    "json_dumps",
    "json_loads",
    "mapping",
    "on",
    "private_dir",
    "put",
    "snapshot_transcript",
    "state_dir",
    "string",
]


def __getattr__(name: str) -> Any:
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module 'signet_sdk.plugin' has no attribute {name!r}")
    import sys

    module, attr = where
    __import__(module)  # no importlib: this runs in every hook process
    value = getattr(sys.modules[module], attr)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return list(__all__)
