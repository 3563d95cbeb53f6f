"""A translator's events, declared once on their handlers: ``@on`` and ``EventTranslator``.

An adapter's native events used to be written three times: the tuple of
event names, the event -> method table the translator dispatches on, and the
plugin's list of :class:`EventSpec`; a mismatch between them only showed at
run time. Here each handler method carries its event (name, deadline class,
detach, replay), and the class gathers them in the order they are written,
so the names, the table and the plugin's events come from one place.

Standard library only: every hook process imports this with its translator.
"""

from __future__ import annotations

from signet_sdk.runtime.context import context_text
from signet_sdk.runtime.native import NativeOutput
from signet_sdk.runtime.payload import array, mapping, messages_jsonl, put, string
from signet_sdk.runtime.plugin import EventSpec
from signet_sdk.wire.errors import PayloadError
from signet_sdk.wire.lifecycle import LifecycleCall

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence
    from typing import Any, ClassVar, TypeVar

    Handler = Callable[[Any, Mapping[str, Any], Any], list[LifecycleCall]]
    H = TypeVar("H", bound=Callable[..., list[LifecycleCall]])
    T = TypeVar("T")

__all__ = ["CommandHookTranslator", "EventTranslator", "on"]

#: The attribute ``on`` leaves on a handler: the events it handles, top decorator first.
_MARK = "__signet_events__"


def on(
    event: str, timeout_class: str = "default", *, detach: bool = False, flushes: bool = False
) -> Callable[[H], H]:
    """Mark a translator method as the handler of the native ``event``.

    The arguments are :class:`EventSpec`'s: ``timeout_class`` picks the
    deadline, ``detach`` marks an event the harness kills early, ``flushes``
    flushes pending writes. Stack several ``@on`` for a method that handles
    more than one event. The method is called as ``handler(self, payload,
    scope)`` with what :meth:`EventTranslator.scope` returns.
    """
    spec = EventSpec(event, timeout_class, detach=detach, flushes=flushes)

    def mark(handler: H) -> H:
        earlier: tuple[EventSpec, ...] = getattr(handler, _MARK, ())
        setattr(handler, _MARK, (spec, *earlier))  # decorators apply bottom-up
        return handler

    return mark


class EventTranslator:
    """Base for a translator whose handlers are marked with :func:`on`.

    A subclass gets ``events`` (the ``EventSpec`` of every marked handler, in
    source order, for ``HarnessPlugin(events=...)``) and ``event_names``, and
    a ``translate`` that checks the payload, picks the event's handler and
    calls it with the payload and :meth:`scope`. Class settings:

    * ``harness`` and ``not_applicable``: the harness's name, and each
      parity row or native event the adapter does not cover with the reason
      (what :meth:`HarnessPlugin.command_hooks` and its siblings read).
    * ``event_field``: a payload field that names the event (Claude Code's
      ``hook_event_name``, pi's ``type``); when present it must agree with the
      event the call is for. Unknown events are reported under this field, or
      under ``event`` when there is none.
    * ``carries``: the payload may hold ``carry``, the state an earlier
      output asked the shim to send back; it must be an object.
    * ``context_events``: events whose first answer holds context for the
      model; ``render`` gives :meth:`context_output` of its
      :func:`context_text` (per-turn text for ``prompt_events``), or
      :meth:`neutral` when there is none. ``neutral`` defaults to no output.
    """

    harness: ClassVar[str] = ""
    not_applicable: ClassVar[Mapping[str, str]] = {}
    event_field: ClassVar[str | None] = None
    carries: ClassVar[bool] = False
    context_events: ClassVar[frozenset[str]] = frozenset()
    prompt_events: ClassVar[frozenset[str]] = frozenset()
    events: ClassVar[tuple[EventSpec, ...]] = ()
    event_names: ClassVar[tuple[str, ...]] = ()
    _handlers: ClassVar[dict[str, Handler]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        specs = {spec.name: spec for spec in cls.events}
        handlers = dict(cls._handlers)
        own: set[str] = set()
        for value in vars(cls).values():
            for spec in getattr(value, _MARK, ()):
                if spec.name in own:
                    raise TypeError(f"{cls.__name__}: event {spec.name!r} has two handlers")
                own.add(spec.name)
                specs[spec.name] = spec
                handlers[spec.name] = value
        cls.events = tuple(specs.values())
        cls.event_names = tuple(specs)
        cls._handlers = handlers

    def handler(self, event: str, payload: Mapping[str, Any]) -> Handler:
        """The handler for ``event`` once ``payload`` may be read as that event.

        Raises :class:`PayloadError` naming the field: a payload that is not
        a JSON object, an ``event_field`` naming another event, an event no
        handler is marked for, a ``carry`` that is not an object.
        """
        if not isinstance(payload, dict):  # (collections.abc costs a hook ~1 ms)
            raise PayloadError("payload", "must be a JSON object")
        field = self.event_field
        named = string(payload, field) if field else None
        if named is not None and named != event:
            raise PayloadError(str(field), f"is {named!r} but the event is {event!r}")
        handler = self._handlers.get(event)
        if handler is None:
            known = ", ".join(self.event_names)
            raise PayloadError(field or "event", f"unsupported event {event!r}; known: {known}")
        if self.carries:
            mapping(payload, "carry")
        return handler

    def scope(self, payload: Mapping[str, Any]) -> Any:
        """What every handler gets after the payload: the session it belongs to, say.

        Called once the payload is known to be an object; may raise
        :class:`PayloadError`. The default is the payload itself.
        """
        return payload

    def translate(self, event: str, payload: Mapping[str, Any]) -> list[LifecycleCall]:
        """The daemon calls one native event implies; a bad field raises :class:`PayloadError`."""
        handler = self.handler(event, payload)
        return handler(self, payload, self.scope(payload))

    def render(
        self, event: str, payload: Mapping[str, Any], results: Sequence[Any]
    ) -> NativeOutput:
        """The context of a ``context_events`` answer for the model, else :meth:`neutral`."""
        if event not in self.context_events or not results:
            return self.neutral(event)
        text = context_text(results[0], prompt=event in self.prompt_events)
        if not text:
            return self.neutral(event)
        return self.context_output(event, text)

    def context_output(self, event: str, text: str) -> NativeOutput:
        """How the harness takes context: ``{"context": text}`` for a plugin shim."""
        return NativeOutput({"context": text})

    def neutral(self, event: str) -> NativeOutput:
        """The fail-open output: nothing, unless the harness needs an explicit answer."""
        return NativeOutput()

    def fail_open(self, event: str, payload: Mapping[str, Any]) -> NativeOutput:
        """The output when the daemon did not help with a payload that was read.

        :meth:`neutral` unless the harness's own next step depends on this
        event having happened (state a shim carries whatever the daemon said).
        """
        return self.neutral(event)

    # -- the calls most harnesses' events come down to ---------------------------

    @staticmethod
    def required(value: T | None, field: str) -> T:
        """``value``, a field the event must carry: missing, it is a :class:`PayloadError`.

        For the readers without a ``required`` of their own
        (``required(array(p, "messages"), "messages")``).
        """
        if value is None:
            raise PayloadError(field, "is required")
        return value

    @staticmethod
    def required_prompt(payload: Mapping[str, Any], field: str = "prompt") -> str:
        """The prompt text at ``field``: a string, maybe blank, never missing.

        Blank is not an error here (the harness sent it; :meth:`prompt_calls`
        makes no call of it), only a missing or non-string prompt is.
        """
        prompt = string(payload, field)
        if prompt is None:
            raise PayloadError(field, "is required")
        return prompt

    @staticmethod
    def prompt_calls(
        session: str, prompt: str, project: str | None, **more: str | None
    ) -> list[LifecycleCall]:
        """The ``user_prompt_submit`` of ``prompt``; none when it is blank.

        The daemon refuses a blank prompt, and there is nothing to recall for
        one. ``more`` are further body fields, put only when they have a value.
        """
        if not prompt.strip():
            return []
        body: dict[str, Any] = {"sessionKey": session, "userPrompt": prompt, "userMessage": prompt}
        put(body, "project", project)
        for key, value in more.items():
            put(body, key, value)
        return [LifecycleCall("user_prompt_submit", body)]

    @staticmethod
    def session_start_call(
        session: str, project: str | None, source: str | None = None, **more: str | None
    ) -> LifecycleCall:
        """The ``session_start`` of ``session``; ``source`` says how it began (startup, resume...).

        ``more`` are further body fields (``parentSessionKey``,
        ``harnessAgentId``), put only when they have a value.
        """
        body: dict[str, Any] = {"sessionKey": session}
        put(body, "project", project)
        put(body, "source", source)
        for key, value in more.items():
            put(body, key, value)
        return LifecycleCall("session_start", body)

    @staticmethod
    def checkpoint_call(
        session: str, project: str | None, transcript: str, *, inline: bool = False
    ) -> LifecycleCall:
        """The ``session_checkpoint_extract`` of ``transcript``: its path, or (``inline``) its text.

        A harness that keeps its transcript in a file hands the path (the
        core reads it safely); one that sends the conversation in the
        event hands the JSONL itself.
        """
        body: dict[str, Any] = {"sessionKey": session}
        put(body, "project", project)
        body["transcript" if inline else "transcriptPath"] = transcript
        return LifecycleCall("session_checkpoint_extract", body)

    @staticmethod
    def turn_checkpoint_calls(
        payload: Mapping[str, Any], session: str, project: str | None
    ) -> list[LifecycleCall]:
        """The checkpoint of a turn whose event carries the conversation (``messages``).

        A plugin harness's end of an agent turn hands the messages
        themselves: they go inline as :func:`messages_jsonl`. Missing
        ``messages`` is a :class:`PayloadError`; none that is an object, no call.
        """
        messages = EventTranslator.required(array(payload, "messages"), "messages")
        transcript = messages_jsonl(messages)
        if not transcript:
            return []
        return [EventTranslator.checkpoint_call(session, project, transcript, inline=True)]

    @staticmethod
    def pre_compaction_call(
        session: str, context: str, message_count: int | None = None
    ) -> LifecycleCall:
        """The ``pre_compaction`` of ``session``: ``context`` says what is being compacted."""
        body: dict[str, Any] = {"sessionKey": session, "sessionContext": context}
        put(body, "messageCount", message_count)
        return LifecycleCall("pre_compaction", body)

    @staticmethod
    def compaction_call(session: str, summary: str, project: str | None) -> LifecycleCall:
        """The ``compaction_complete`` that hands the daemon the harness's ``summary``."""
        body: dict[str, Any] = {"sessionKey": session, "summary": summary}
        put(body, "project", project)
        return LifecycleCall("compaction_complete", body)

    @staticmethod
    def session_end_call(
        session: str,
        cwd: str | None,
        reason: str,
        transcript_path: str | None,
        transcript: str | None = None,
    ) -> LifecycleCall:
        """The ``session_end`` of ``session`` (its own id), with its transcript if there is one.

        The transcript goes by path when the harness keeps it in a file, else
        inline (``transcript``, JSONL); for ``clear``, not at all (the daemon
        discards a cleared session and reads none: none is staged or sent).
        """
        body: dict[str, Any] = {"sessionKey": session, "sessionId": session}
        put(body, "cwd", cwd)
        body["reason"] = reason
        if reason != "clear":
            put(body, "transcriptPath", transcript_path)
            put(body, "transcript", transcript)
        return LifecycleCall("session_end", body)

    @staticmethod
    def subagent_start_calls(session: str, agent: str, project: str | None) -> list[LifecycleCall]:
        """The ``session_start`` of the subagent ``agent`` within ``session``."""
        body: dict[str, Any] = {"sessionKey": session, "harnessAgentId": agent}
        put(body, "project", project)
        body["source"] = "subagent"
        return [LifecycleCall("session_start", body)]

    @staticmethod
    def compaction_context(harness: str, trigger: str, instructions: str | None) -> str:
        """``<harness> compaction (<trigger>)``, with the user's instructions when they gave any.

        What ``pre_compaction`` tells the daemon, so the memory it keeps says
        why and how the conversation was cut.
        """
        context = f"{harness} compaction ({trigger})"
        if instructions and instructions.strip():
            context += f"; user instructions: {instructions.strip()}"
        return context


class CommandHookTranslator(EventTranslator):
    """A harness that runs a command per hook event, as Claude Code, Codex and Gemini CLI do.

    The command gets one JSON object on stdin with ``session_id`` (required,
    each handler's scope) and ``hook_event_name``, and context goes back as
    ``hookSpecificOutput.additionalContext`` on stdout.
    """

    event_field = "hook_event_name"

    def scope(self, payload: Mapping[str, Any]) -> str:
        """The session the event belongs to: ``session_id``, present and not blank."""
        session = string(payload, "session_id", required=True)
        assert session is not None
        return session

    def pre_compact_calls(
        self, payload: Mapping[str, Any], session: str, harness: str, trigger: str = "unknown"
    ) -> list[LifecycleCall]:
        """A ``PreCompact`` hook's ``pre_compaction``: its ``trigger`` (else ``trigger``) and
        the user's ``custom_instructions``, as this hook family sends them."""
        how = string(payload, "trigger") or trigger
        instructions = string(payload, "custom_instructions")
        context = self.compaction_context(harness, how, instructions)
        return [self.pre_compaction_call(session, context)]

    def project(self, payload: Mapping[str, Any]) -> str | None:
        """The project an event belongs to: its ``cwd``, unless the harness knows better."""
        return string(payload, "cwd")

    @staticmethod
    def subagent_handlers() -> tuple[Handler, Handler]:
        """The ``SubagentStart`` and ``SubagentStop`` handlers, as this hook family sends them.

        Assign them in the class body where the two events belong among the
        others (the plugin's events follow the order of the body)::

            _subagent_start, _subagent_stop = CommandHookTranslator.subagent_handlers()

        SubagentStart is the ``session_start`` of the subagent ``agent_id``
        names (:meth:`subagent_id`) in the event's :meth:`project`;
        SubagentStop is :meth:`~EventTranslator.subagent_stop_calls`.
        """

        @on("SubagentStart", "session_start")
        def start(
            self: CommandHookTranslator, p: Mapping[str, Any], session: str
        ) -> list[LifecycleCall]:
            return self.subagent_start_calls(session, self.subagent_id(p), self.project(p))

        @on("SubagentStop")
        def stop(
            self: CommandHookTranslator, p: Mapping[str, Any], session: str
        ) -> list[LifecycleCall]:
            return self.subagent_stop_calls(p)

        return start, stop

    @staticmethod
    def subagent_id(payload: Mapping[str, Any]) -> str:
        """A ``SubagentStart`` hook's ``agent_id``: present and not blank.

        The subagent's own session key is made of it
        (:meth:`~EventTranslator.subagent_start_calls`), so without one there
        is no call to make: a :class:`PayloadError` names the field.
        """
        agent = string(payload, "agent_id", required=True)
        assert agent is not None
        return agent

    @staticmethod
    def subagent_stop_calls(payload: Mapping[str, Any]) -> list[LifecycleCall]:
        """A ``SubagentStop`` hook's calls: none, its ``agent_id`` checked for a clear error.

        What a subagent did reaches the daemon with its parent's transcript;
        the stop itself has nothing to report.
        """
        string(payload, "agent_id")
        return []

    def context_output(self, event: str, text: str) -> NativeOutput:
        """The hook-output envelope the harness reads context from."""
        return NativeOutput(
            {"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}}
        )
