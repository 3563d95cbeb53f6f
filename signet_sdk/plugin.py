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
    ``flushes=True`` flushes older pending writes when it runs (a session
    start after an outage). ``not_applicable`` maps a dependency-map row or
    native event the adapter does not cover to the reason, which the parity
    suite prints instead of MISSING. ``tools`` (``"mcp"`` or ``"native"``)
    says how the harness's model reaches the memory tools. A package whose
    translator is an ``EventTranslator`` (``harness``, ``not_applicable``
    and the events on its class) declares the rest in one call:
    ``HarnessPlugin.command_hooks(Translator, description=)`` for a harness
    that runs a command per event (runtime path ``legacy``, tools over MCP),
    ``HarnessPlugin.in_harness(Translator, description=, shims=)`` for one
    that loads our shim or provider itself (runtime path ``plugin``, native
    tools); ``tools=`` overrides either default.

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
    :func:`carried` reads what an earlier output carried;
    :func:`messages_jsonl` writes a ``messages`` array as transcript lines
    (:func:`without_image_data` each). A bad payload
    raises ``PayloadError(field, message)``: the core logs it and the
    harness gets the neutral output.

Declaring events once (:class:`EventTranslator`, :func:`on`)
    Subclass ``EventTranslator`` and mark each handler method with
    ``@on(event, timeout_class, detach=, flushes=)`` (the ``EventSpec``
    fields). The class then has ``events`` (pass it to ``HarnessPlugin``)
    and ``event_names``, and a ``translate`` that checks the payload is an
    object, that its ``event_field`` (if set) names the same event, and that
    ``carry`` is an object (if ``carries``), then calls
    ``handler(self, payload, self.scope(payload))``; its ``render`` shows
    the model :func:`context_text` of a ``context_events`` answer through
    ``context_output``. :class:`CommandHookTranslator` is that for a harness
    that runs a command per hook (``session_id`` and ``hook_event_name`` in,
    ``hookSpecificOutput.additionalContext`` out); its ``project(payload)``
    is the event's ``cwd`` unless overridden, and
    ``CommandHookTranslator.subagent_handlers()`` gives the family's
    SubagentStart and SubagentStop handlers to assign in a class body.

Answers and files
    :func:`context_text` is the text to show the model for a daemon answer.
    :func:`snapshot_transcript` (``TranscriptRefused``) reads a harness's
    transcript file safely (size cap, allowed roots); :func:`json_loads` /
    :func:`json_dumps` are the hook path's JSON (no ``json`` import);
    :func:`state_dir` / :func:`private_dir` give the SDK's 0700 state folder;
    a :class:`StateFolder` in it is where a harness's hook processes agree
    without a server (a claim made once, a file replaced whole, old ones
    swept). :func:`harness_home` is a harness's own folder (``$CODEX_HOME``
    or ``~/.codex``), :func:`user_home` the ``HOME`` it sits in, and
    :func:`transcript_roots_with` a ``_paths.transcript_roots`` answer: the
    harness's folders plus the user's ``SIGNET_TRANSCRIPT_ROOTS``.

Running events in-process (:func:`dispatch`, :func:`client_sender`)
    ``dispatch(translator, event, payload, send, fail_open=True)`` is the one
    path every native event takes: translate, ``send`` each call, render.
    A harness that loads Python (Hermes Agent, a user's own loop) calls it
    with ``send=client_sender(client, plugin)``; :func:`dispatch_async` is
    the same for event loops. Any failure gives the translator's neutral
    output, and the :class:`Dispatched` it returns keeps the calls, answers
    and first error (``degraded`` says why, in one line).
    :class:`HarnessTranslator` is the protocol a translator meets
    (``translate``, ``render``, ``neutral``); :class:`GenericTranslator` is
    the one a harness with no package gets (lifecycle slugs as events, wire
    bodies as payloads).

The installed adapters (:func:`installed_adapters`, :func:`find_plugin`)
    ``installed_adapters()`` names every harness with an installed plugin;
    ``find_plugin(name)`` loads one (None when there is none, and
    ``InvalidAdapterError`` when it is broken). ``installed_plugins()``
    loads them all but leaves out a package that fails to load:
    ``broken_plugins()`` reports each as a :class:`BrokenPlugin` (``name``,
    ``target``, ``reason``), so one bad package never hides the others.

Each public name is stated once, in the ``TYPE_CHECKING`` block below, and
loaded on first use: see :func:`signet_sdk._lazy_module`.
"""

from __future__ import annotations

from signet_sdk import _lazy_module

TYPE_CHECKING = False
if TYPE_CHECKING:  # the public names: one line each, and the only place they are listed
    from signet_sdk.runtime.context import context_text as context_text
    from signet_sdk.runtime.dispatch import Dispatched as Dispatched
    from signet_sdk.runtime.dispatch import dispatch as dispatch
    from signet_sdk.runtime.dispatch import dispatch_async as dispatch_async
    from signet_sdk.runtime.events import client_sender as client_sender
    from signet_sdk.runtime.files import harness_home as harness_home
    from signet_sdk.runtime.files import private_dir as private_dir
    from signet_sdk.runtime.files import state_dir as state_dir
    from signet_sdk.runtime.files import transcript_roots_with as transcript_roots_with
    from signet_sdk.runtime.files import user_home as user_home
    from signet_sdk.runtime.generic import GenericTranslator as GenericTranslator
    from signet_sdk.runtime.handlers import CommandHookTranslator as CommandHookTranslator
    from signet_sdk.runtime.handlers import EventTranslator as EventTranslator
    from signet_sdk.runtime.handlers import on as on
    from signet_sdk.runtime.native import NativeOutput as NativeOutput
    from signet_sdk.runtime.payload import array as array
    from signet_sdk.runtime.payload import carried as carried
    from signet_sdk.runtime.payload import integer as integer
    from signet_sdk.runtime.payload import mapping as mapping
    from signet_sdk.runtime.payload import messages_jsonl as messages_jsonl
    from signet_sdk.runtime.payload import put as put
    from signet_sdk.runtime.payload import string as string
    from signet_sdk.runtime.payload import without_image_data as without_image_data
    from signet_sdk.runtime.plugin import EventSpec as EventSpec
    from signet_sdk.runtime.plugin import HarnessPlugin as HarnessPlugin
    from signet_sdk.runtime.registry import BrokenPlugin as BrokenPlugin
    from signet_sdk.runtime.registry import broken_plugins as broken_plugins
    from signet_sdk.runtime.registry import find_plugin as find_plugin
    from signet_sdk.runtime.registry import installed_adapters as installed_adapters
    from signet_sdk.runtime.registry import installed_plugins as installed_plugins
    from signet_sdk.runtime.state_folder import StateFolder as StateFolder
    from signet_sdk.runtime.transcripts import TranscriptRefused as TranscriptRefused
    from signet_sdk.runtime.transcripts import snapshot_transcript as snapshot_transcript
    from signet_sdk.runtime.translator import HarnessTranslator as HarnessTranslator
    from signet_sdk.wire.errors import PayloadError as PayloadError
    from signet_sdk.wire.jsonfast import dumps, loads
    from signet_sdk.wire.lifecycle import LIFECYCLE as LIFECYCLE
    from signet_sdk.wire.lifecycle import LifecycleCall as LifecycleCall

    json_dumps = dumps
    json_loads = loads
    __all__: list[str]

# Hidden from type checkers, which read the block: an unknown name is an error there.
if not TYPE_CHECKING:
    __getattr__, __dir__ = _lazy_module(__name__)
