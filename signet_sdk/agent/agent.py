"""``Agent``: a model, tools and memory, opened as sessions.

An agent holds what does not change between conversations: the provider,
the instructions, the tool registry, the daemon settings, the limits. Each
``agent.session(...)`` (or ``agent.async_session(...)``) is one
conversation the daemon knows by its session key: opened with ``/health``
and session-start, ended once with the transcript.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Generator, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from signet_sdk.agent.durable import SessionFiles, SessionWriter, live_record, recover_sessions
from signet_sdk.agent.events import Compaction, Limits
from signet_sdk.agent.plan import start_plan
from signet_sdk.agent.state import SessionState
from signet_sdk.agent.types import CompletionOptions

if TYPE_CHECKING:
    from signet_sdk.agent.async_session import AsyncSession
    from signet_sdk.agent.protocols import AsyncProvider, Channel, Provider
    from signet_sdk.agent.session import Session
    from signet_sdk.agent.tools import Tool, ToolRegistry
    from signet_sdk.wire.config import Timeouts

__all__ = ["DEFAULT_HARNESS", "Agent"]

#: The harness name the daemon sees for sessions of this runtime.
DEFAULT_HARNESS = "signet-agent"
#: Characters of an earlier conversation given back to the model on resume.
RESUME_CHARS = 24_000


class Agent:
    """A memory-backed agent (see the module docstring).

    ``provider`` is a :class:`~signet_sdk.agent.protocols.Provider` or an
    :class:`~signet_sdk.agent.protocols.AsyncProvider`; the built-in ones
    give their twin for the other kind of session. ``tools`` are added to
    the memory tools (``memory_tools=False`` leaves those out);
    ``research`` names the tools that run before generation on each turn.
    ``secrets_exec`` is offered only with ``allow_commands=True``. The daemon
    is found as everywhere else: ``daemon_url`` > ``SIGNET_DAEMON_URL`` >
    ``http://127.0.0.1:3850``.
    """

    def __init__(
        self,
        provider: Provider | AsyncProvider,
        *,
        instructions: str = "",
        tools: Iterable[Tool] = (),
        memory_tools: bool | Iterable[str] = True,
        research: Iterable[str] | None = None,
        harness: str = DEFAULT_HARNESS,
        agent_id: str | None = None,
        daemon_url: str | None = None,
        token: str | None = None,
        timeout: float | Timeouts | None = None,
        allow_commands: bool = False,
        limits: Limits | None = None,
        compaction: Compaction | None = None,
        stream: bool = True,
        env: Mapping[str, str] | None = None,
    ) -> None:
        from signet_sdk.agent.tools import ToolRegistry

        self.provider = provider
        self.instructions = instructions
        registry_args: dict[str, Any] = {"memory": memory_tools, "allow_commands": allow_commands}
        if research is not None:
            registry_args["research"] = tuple(research)
        self.tools: ToolRegistry = ToolRegistry(tools, **registry_args)
        self.harness = harness
        self.agent_id = agent_id
        self.daemon_url = daemon_url
        self.token = token
        self.timeout = timeout
        self.limits = limits or Limits()
        self.compaction = compaction or Compaction()
        self.streaming = stream
        self.env: Mapping[str, str] = dict(os.environ if env is None else env)
        #: Whether writes the daemon did not take start the detached outbox sender.
        self.detached_sender = True

    # -- sessions ----------------------------------------------------------

    def session(
        self, *, project: str | None = None, key: str | None = None, resume: str | None = None
    ) -> Session:
        """Open a sync session (``with agent.session(...) as chat``); it is open on return.

        ``resume`` continues an earlier session by its key; ``key`` names a
        new one (default: a fresh ``agent-<hex>``).
        """
        from signet_sdk.agent.session import Session
        from signet_sdk.runtime.registry import create_adapter

        client = create_adapter(self.harness, self.daemon_url, **self._client_options())
        provider = _sync_provider(self.provider)
        session = Session(**self._parts(client, provider, project, key, resume, asynchronous=False))
        session.owns_provider = _is_twin(provider, self.provider)
        try:
            earlier = _earlier(session, resume, lambda: client.get_session_transcript(resume or ""))
            session.open(start_plan(session.state, source="resume" if resume else "startup"))
            if resume:
                _give_back(session, earlier)
        except BaseException:
            session.end(reason="error")
            raise
        return session

    def async_session(
        self, *, project: str | None = None, key: str | None = None, resume: str | None = None
    ) -> _AsyncOpening:
        """Open an async session: ``async with agent.async_session(...) as chat`` (or awaited)."""
        return _AsyncOpening(self, project, key, resume)

    async def _open_async(
        self, project: str | None, key: str | None, resume: str | None
    ) -> AsyncSession:
        import asyncio

        from signet_sdk.agent.async_session import AsyncSession
        from signet_sdk.runtime.registry import create_async_adapter

        client = create_async_adapter(self.harness, self.daemon_url, **self._client_options())
        provider = _async_provider(self.provider)
        parts = await asyncio.to_thread(
            self._parts, client, provider, project, key, resume, asynchronous=True
        )
        session = AsyncSession(**parts)
        session.owns_provider = _is_twin(provider, self.provider)
        try:
            earlier: Any = None
            if resume:
                local = session.files.read_transcript()
                if local:
                    earlier = local
                else:
                    try:
                        earlier = await client.get_session_transcript(resume)
                    except Exception as exc:
                        earlier = exc
            await session.open(start_plan(session.state, source="resume" if resume else "startup"))
            if resume:
                _give_back(session, earlier)
        except BaseException:
            await session.end(reason="error")
            raise
        return session

    def _client_options(self) -> dict[str, Any]:
        options: dict[str, Any] = {"runtime_path": "plugin", "env": self.env}
        if self.agent_id:
            options["agent_id"] = self.agent_id
        if self.token:
            options["token"] = self.token
        if self.timeout is not None:
            options["timeout"] = self.timeout
        return options

    def _parts(
        self,
        client: Any,
        provider: Any,
        project: str | None,
        key: str | None,
        resume: str | None,
        *,
        asynchronous: bool,
    ) -> dict[str, Any]:
        """Everything a session is made of (files touched here: call off the event loop)."""
        from signet_sdk.agent.tools import CallContext

        if key and resume and key != resume:
            raise ValueError("key: give a new session's key or resume an old one, not both")
        session_key = resume or key or f"agent-{uuid.uuid4().hex[:16]}"
        notes: list[str] = []
        recover_sessions(self.env)
        files = SessionFiles(session_key, self.env)
        if (problem := files.ensure()) is not None:
            notes.append(f"memory: the state folder cannot be used ({problem}); writes go directly")
        files.claim(fresh=resume is None)
        try:
            config = client.config
            writer = SessionWriter(
                config,
                self.env,
                files,
                notice=notes.append,
                detached_sender=self.detached_sender,
            )
            files.write_live(live_record(config, session_key, project, files.transcript))
        except BaseException:
            files.release()  # no session came of it: the key is free again
            raise
        state = SessionState(
            key=session_key,
            project=project,
            agent_id=self.agent_id,
            instructions=self.instructions,
            base_options=CompletionOptions(
                tools=self.tools.specs(),
                max_tokens=self.limits.max_tokens,
                cache_key=_cache_key(self.harness, session_key),
            ),
            limits=self.limits,
            compaction=self.compaction,
            append_transcript=files.append_transcript,
            transcript_path=files.transcript,
        )
        context = CallContext(
            session_key=session_key,
            project=project,
            agent_id=self.agent_id,
            client=None if asynchronous else client,
            async_client=client if asynchronous else None,
        )
        return {
            "provider": provider,
            "client": client,
            "tools": self.tools,
            "context": context,
            "state": state,
            "writer": writer,
            "files": files,
            "limits": self.limits,
            "streaming": self.streaming,
            "notices": notes,
        }

    # -- channels ----------------------------------------------------------

    def run(
        self, channel: Channel, *, project: str | None = None, resume: str | None = None
    ) -> str:
        """Serve one session over ``channel`` until it has no more turns; the session key."""
        with self.session(project=project, resume=resume) as chat:
            for line in chat.notices:
                channel.send(_notice(line))
            try:
                while (text := channel.receive()) is not None:
                    if not text.strip():
                        continue
                    for event in chat.stream(text):
                        channel.send(event)
            finally:
                channel.on_close()
            return chat.key


class _AsyncOpening:
    """What ``agent.async_session()`` gives: ``async with`` it, or await it."""

    def __init__(
        self, agent: Agent, project: str | None, key: str | None, resume: str | None
    ) -> None:
        self._agent, self._args = agent, (project, key, resume)
        self._session: AsyncSession | None = None

    def __await__(self) -> Generator[Any, None, AsyncSession]:
        return self._agent._open_async(*self._args).__await__()

    async def __aenter__(self) -> AsyncSession:
        self._session = await self._agent._open_async(*self._args)
        return self._session

    async def __aexit__(self, exc_type: type[BaseException] | None, *rest: object) -> None:
        if self._session is not None:
            await self._session.__aexit__(exc_type, *rest)


def _notice(line: str) -> Any:
    from signet_sdk.agent.events import AgentEvent

    return AgentEvent("notice", line)


def _cache_key(harness: str, session_key: str) -> str:
    """One stable prompt-cache key per session (OpenAI routes cache hits by it)."""
    import hashlib

    return hashlib.sha256(f"{harness}\0{session_key}".encode()).hexdigest()[:32]


def _sync_provider(provider: Any) -> Any:
    from signet_sdk.agent.protocols import Provider

    if _is_async(provider):
        twin = getattr(provider, "as_sync", None)
        if twin is None:
            raise TypeError("provider: an async provider serves only async_session()")
        return twin()
    if not isinstance(provider, Provider):
        raise TypeError("provider: needs id, complete(), stream() and available()")
    return provider


def _async_provider(provider: Any) -> Any:
    if _is_async(provider):
        return provider
    twin = getattr(provider, "as_async", None)
    if twin is not None:
        return twin()
    from signet_sdk.agent.threaded import ThreadedProvider

    return ThreadedProvider(provider)


def _is_twin(provider: Any, given: Any) -> bool:
    """Whether ``provider`` is a built-in provider's twin, made for one session (it closes it).

    A twin of another kind (a user's ``as_async``) may be shared: it stays open.
    """
    from signet_sdk.agent.providers._base import AsyncModelProvider, SyncModelProvider

    return provider is not given and isinstance(provider, SyncModelProvider | AsyncModelProvider)


def _is_async(provider: Any) -> bool:
    import inspect

    return inspect.iscoroutinefunction(getattr(provider, "complete", None))


def _earlier(session: Any, resume: str | None, fetch: Any) -> Any:
    """A resumed session's earlier turns: this machine's transcript, else the daemon's copy."""
    if not resume:
        return None
    local = session.files.read_transcript()
    if local:
        return local
    try:
        return fetch()
    except Exception as exc:
        return exc


def _give_back(session: Any, earlier: Any) -> None:
    """Put a resumed session's earlier conversation in its next turn's message."""
    from signet_sdk.wire.errors import UnsupportedByDaemonError

    if isinstance(earlier, list):
        text = "\n".join(f"{t['role']}: {t['content']}" for t in earlier)
    elif earlier is not None and not isinstance(earlier, BaseException):
        text = str(getattr(earlier, "content", "") or "")
    else:
        text = ""
        if isinstance(earlier, UnsupportedByDaemonError):
            why = "this daemon keeps no session transcripts (0.109 and older)"
        else:
            why = str(earlier) if earlier is not None else "no transcript"
        session.notices.append(f"memory: resuming {session.key} without its earlier turns: {why}")
    if text.strip():
        if len(text) > RESUME_CHARS:
            text = "[earlier turns cut]\n" + text[-RESUME_CHARS:]
        session.state.pending_summary = "Earlier in this session:\n" + text
