"""The tools of an MCP server, as runtime tools: ``McpTools``.

The server is started over stdio with the official ``mcp`` client (the
``mcp`` extra). One background thread owns an event loop and the MCP
session for the server's whole life; sync calls wait on it and async calls
await it from their own loop, so the same ``McpTools`` serves sync and
async sessions, and several of them at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import shlex
import threading
from collections.abc import Coroutine, Mapping, Sequence
from concurrent.futures import CancelledError as FutureCancelled
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from os import PathLike
from types import TracebackType
from typing import TYPE_CHECKING, Any, Self

from signet_sdk.agent.tools.base import CallContext, ToolFailure
from signet_sdk.agent.types import ToolSpec
from signet_sdk.tools.mcp import MCP_HINT
from signet_sdk.wire.errors import SignetError

if TYPE_CHECKING:
    from mcp.client.session import ClientSession
    from mcp.types import CallToolResult
    from mcp.types import Tool as McpToolInfo

__all__ = ["McpServerError", "McpTool", "McpTools"]

log = logging.getLogger("signet_sdk.agent.tools")

#: How long closing waits for the server to go: the MCP client's own shutdown
#: (stdin closed, then SIGTERM, then SIGKILL) is bounded well inside it.
_CLOSE_WAIT = 15.0
#: What a sync call waits beyond the session's own request timeout.
_CALL_GRACE = 5.0


class McpServerError(SignetError, RuntimeError):
    """The MCP server could not be started, or its tools not listed."""


def _require_mcp() -> None:
    try:
        import mcp.client.stdio  # noqa: F401
    except ImportError:
        raise ImportError(f"McpTools: {MCP_HINT}") from None


def _tool_name(prefix: str, remote: str) -> str:
    """A name model APIs accept: characters they refuse become ``_``; at most 64."""
    return re.sub(r"[^A-Za-z0-9_-]", "_", prefix + remote)[:64]


class McpTool:
    """One tool of an MCP server; a call goes to the server through its :class:`McpTools`."""

    __slots__ = ("_owner", "_spec", "description", "input_schema", "name", "remote_name")

    def __init__(self, owner: McpTools, info: McpToolInfo, prefix: str) -> None:
        self._owner = owner
        self.remote_name: str = info.name
        self.name: str = _tool_name(prefix, info.name)
        self.description: str = info.description or info.title or ""
        self.input_schema: Mapping[str, Any] = dict(info.input_schema)
        self._spec = ToolSpec(self.name, self.description, self.input_schema)

    @property
    def run_before_generation(self) -> bool:
        return False

    def spec(self) -> ToolSpec:
        return self._spec

    def __repr__(self) -> str:
        return f"McpTool({self.name!r})"

    def execute(self, input: Mapping[str, Any], context: CallContext) -> Any:
        return _content(self.name, self._owner._call(self.remote_name, input))

    async def aexecute(self, input: Mapping[str, Any], context: CallContext) -> Any:
        return _content(self.name, await self._owner._acall(self.remote_name, input))

    def research_input(self, text: str) -> Mapping[str, Any] | None:
        return None


def _content(name: str, result: CallToolResult) -> Any:
    """The text parts joined; structured content when there is no text; ``isError`` fails."""
    from mcp.types import TextContent

    parts = [
        block.text if isinstance(block, TextContent) else f"[{block.type} content not shown]"
        for block in result.content
    ]
    text = "\n".join(parts)
    if result.is_error:
        raise ToolFailure(text or f"{name} failed (the MCP server gave no message)")
    if not parts and result.structured_content is not None:
        return result.structured_content
    return text


class McpTools:
    """An MCP server's tools: start it, list them, call them; ``close()`` stops the server.

    ``command`` is the server's program and arguments (a ``str`` is split
    as a shell would, but no shell runs). The server gets the MCP client's
    default environment (``PATH``, ``HOME`` ...) plus ``env``. ``prefix``
    is put in front of each tool's name as given (``prefix="fs_"`` makes
    ``read_file`` ``fs_read_file``), for servers whose names would clash;
    characters model APIs refuse in names become ``_``, the server is
    still called by its own name. ``timeout`` bounds starting the server
    and each call (seconds; None waits for ever).

    Use it as a context manager, ``with`` or ``async with``::

        with McpTools(["npx", "-y", "@modelcontextprotocol/server-everything"]) as mcp:
            registry = ToolRegistry(mcp.tools)
    """

    def __init__(
        self,
        command: str | Sequence[str],
        *,
        env: Mapping[str, str] | None = None,
        cwd: str | PathLike[str] | None = None,
        prefix: str | None = None,
        timeout: float | None = 60.0,
    ) -> None:
        _require_mcp()
        argv = shlex.split(command) if isinstance(command, str) else [str(a) for a in command]
        if not argv:
            raise ValueError("McpTools: command is empty")
        self._argv = argv
        self._env = dict(env) if env is not None else None
        self._cwd = cwd
        self._prefix = prefix or ""
        self._timeout = timeout
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._session: ClientSession | None = None
        self._tools: tuple[McpTool, ...] = ()

    def __repr__(self) -> str:
        state = "running" if self._session is not None else "stopped"
        return f"McpTools({shlex.join(self._argv)!r}, {state})"

    @property
    def tools(self) -> tuple[McpTool, ...]:
        """The server's tools, as listed when it started."""
        if self._thread is None:
            raise RuntimeError("McpTools is not started: use it in a with block, or call start()")
        return self._tools

    # -- life cycle ---------------------------------------------------------

    def start(self) -> Self:
        """Start the server and list its tools; blocks until they are listed (or it failed)."""
        with self._lock:
            if self._thread is not None:
                raise RuntimeError("McpTools is started already; it serves one server once")
            started: Future[None] = Future()
            self._thread = threading.Thread(
                target=self._own_loop, args=(started,), name=f"mcp {self._argv[0]}", daemon=True
            )
            self._thread.start()
        try:
            started.result()
        except Exception as exc:
            self.close()
            cause = _leaf(exc)
            reason = (
                f"no answer within {self._timeout:g}s"
                if isinstance(cause, TimeoutError) and self._timeout is not None
                else _describe(cause)
            )
            raise McpServerError(
                f"MCP server {shlex.join(self._argv)!r} did not start: {reason}"
            ) from exc
        return self

    def close(self) -> None:
        """Stop the server process and the thread that served it; idempotent."""
        with self._lock:
            thread, loop, stop = self._thread, self._loop, self._stop
            self._session = None
        if thread is None:
            return
        if loop is not None and stop is not None:
            with contextlib.suppress(RuntimeError):  # the loop has ended already
                loop.call_soon_threadsafe(stop.set)
        thread.join(_CLOSE_WAIT)
        if thread.is_alive():
            log.warning("MCP server %s did not stop within %ss", self._argv[0], _CLOSE_WAIT)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    async def __aenter__(self) -> Self:
        return await asyncio.to_thread(self.start)

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await asyncio.to_thread(self.close)

    # -- the thread that owns the session -----------------------------------

    def _own_loop(self, started: Future[None]) -> None:
        try:
            asyncio.run(self._serve(started))
        except BaseException as exc:  # handed to start(), or the end of a running server
            if not started.done():
                started.set_exception(exc)
            else:
                log.warning("MCP server %s ended: %s", self._argv[0], exc)

    async def _serve(self, started: Future[None]) -> None:
        import anyio
        from mcp.client.session import ClientSession
        from mcp.client.stdio import StdioServerParameters, stdio_client
        from mcp.types import PaginatedRequestParams

        stop = asyncio.Event()
        with self._lock:
            self._loop = asyncio.get_running_loop()
            self._stop = stop
        params = StdioServerParameters(
            command=self._argv[0], args=self._argv[1:], env=self._env, cwd=self._cwd
        )
        async with (
            stdio_client(params) as (read, write),
            ClientSession(read, write, read_timeout_seconds=self._timeout) as session,
        ):
            with anyio.fail_after(self._timeout):
                await session.initialize()
                listed: list[McpToolInfo] = []
                cursor: str | None = None
                while True:
                    page = await session.list_tools(
                        params=None if cursor is None else PaginatedRequestParams(cursor=cursor)
                    )
                    listed.extend(page.tools)
                    cursor = page.next_cursor
                    if not cursor:
                        break
            with self._lock:
                self._tools = tuple(McpTool(self, info, self._prefix) for info in listed)
                self._session = session
            started.set_result(None)
            try:
                await stop.wait()
            finally:
                with self._lock:
                    self._session = None

    # -- calls --------------------------------------------------------------

    def _submit(self, remote: str, arguments: Mapping[str, Any]) -> Future[CallToolResult]:
        with self._lock:
            loop, session = self._loop, self._session
        if loop is None or session is None:
            raise ToolFailure(f"{remote} cannot run: the MCP server is not running")
        call: Coroutine[Any, Any, CallToolResult] = session.call_tool(remote, dict(arguments))
        try:
            return asyncio.run_coroutine_threadsafe(call, loop)
        except RuntimeError:  # the loop closed between the check and the call
            call.close()
            raise ToolFailure(f"{remote} cannot run: the MCP server is not running") from None

    def _call(self, remote: str, arguments: Mapping[str, Any]) -> CallToolResult:
        future = self._submit(remote, arguments)
        wait = None if self._timeout is None else self._timeout + _CALL_GRACE
        try:
            return future.result(wait)
        except FutureCancelled:
            raise ToolFailure(f"{remote} failed: the MCP server closed during the call") from None
        except FutureTimeout:
            future.cancel()
            raise ToolFailure(f"{remote} failed: the MCP server did not answer in time") from None
        except Exception as exc:
            raise ToolFailure(f"{remote} failed: {_describe(exc)}") from None

    async def _acall(self, remote: str, arguments: Mapping[str, Any]) -> CallToolResult:
        # Not ``asyncio.wrap_future``: a call the closing server cancels would then
        # cancel the awaiting task, as if the session itself had been cancelled.
        future = self._submit(remote, arguments)
        loop = asyncio.get_running_loop()
        answered = loop.create_future()

        def relay(_: Future[CallToolResult]) -> None:
            with contextlib.suppress(RuntimeError):  # the caller's loop is gone: nobody waits
                loop.call_soon_threadsafe(_settle, answered)

        future.add_done_callback(relay)
        try:
            await answered
        except asyncio.CancelledError:
            future.cancel()
            raise
        if future.cancelled():
            raise ToolFailure(f"{remote} failed: the MCP server closed during the call")
        error = future.exception()
        if error is not None:
            raise ToolFailure(f"{remote} failed: {_describe(error)}")
        return future.result()


def _settle(answered: asyncio.Future[Any]) -> None:
    if not answered.done():
        answered.set_result(None)


def _leaf(exc: BaseException) -> BaseException:
    """The one error inside task-group wrappers (what the user can act on), else ``exc``."""
    while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
        exc = exc.exceptions[0]
    return exc


def _describe(exc: BaseException) -> str:
    exc = _leaf(exc)
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
