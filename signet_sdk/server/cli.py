"""``signet-sdk serve``: the adapter server on uvicorn, safe by default.

Binds 127.0.0.1:3851 unless told otherwise and refuses a non-loopback
address without ``--token``. Writes the discovery state file while it runs
and removes it on exit; one server serves a state directory (a second one
exits at once, naming the first). ``--idle-exit SECONDS`` stops a server
nobody has called for that long (the shims start one on demand with it);
such a background server also stops within seconds once its state file is
gone (its directory deleted) or names another server. SIGTERM and
SIGINT stop it gracefully: uvicorn lets in-flight requests finish, then the
app ends its open agent sessions, finishes its background deliveries and
hands pending writes to the outbox sender. ``--agent --provider NAME`` also
serves the reference runtime's sessions (``/v1/agent/sessions``).
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

__all__ = ["register", "serve"]

PROG = "signet-sdk serve"
#: The app's default, repeated here so ``--help`` needs no FastAPI import.
DEFAULT_BODY_LIMIT = 4 * 1024 * 1024
#: The app's default idle time of an agent session, in seconds.
DEFAULT_AGENT_IDLE = 30 * 60.0


def port_number(text: str) -> int:
    """argparse type of ``--port``: 0-65535, so a bad port is a usage error, not an OverflowError.

    ``socket.bind`` raises OverflowError (no OSError) outside that range.
    """
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port number: {text!r}") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"must be 0-65535, not {value}")
    return value


def _idle_seconds(text: str) -> float:
    """argparse type of ``--idle-exit``: seconds, 0 or more (0: never), finite.

    A negative time would stop the server at its first check; NaN would never stop it.
    """
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not 0 <= value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be 0 or more seconds, not {text}")
    return value


def register(sub: Any) -> None:
    """Add the ``serve`` subcommand to the CLI's subparsers."""
    p = sub.add_parser(
        "serve",
        help="run the adapter server (HTTP) for plugin harnesses and other languages",
        description="Run the RuntimeAdapterServer on uvicorn. It binds loopback by default and "
        "refuses any other address without --token.",
    )
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    p.add_argument(
        "--port", type=port_number, default=3851, help="port (default 3851; 0 picks a free one)"
    )
    p.add_argument(
        "--token",
        help="require 'Authorization: Bearer TOKEN' on every request (SIGNET_ADAPTER_SERVER_TOKEN "
        "sets it without showing it in the process list)",
    )
    p.add_argument("--daemon-url", help="the Signet daemon (default: SIGNET_DAEMON_URL, else 3850)")
    p.add_argument(
        "--idle-exit",
        type=_idle_seconds,
        metavar="SECONDS",
        help="stop after this long without requests, or within seconds once the state file "
        "is gone or names another server (how shims start one in the background)",
    )
    p.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME[:PORT]",
        help="also answer requests whose Host header is NAME (a proxy's name); repeatable",
    )
    p.add_argument(
        "--body-limit",
        type=int,
        default=DEFAULT_BODY_LIMIT,
        metavar="BYTES",
        help=f"refuse larger request bodies with 413 (default {DEFAULT_BODY_LIMIT})",
    )
    p.add_argument("--allow-exec", action="store_true", help="serve the secrets_exec tool")
    agent = p.add_argument_group(
        "agent sessions", "the reference runtime over HTTP: /v1/agent/sessions (server-sent events)"
    )
    agent.add_argument(
        "--agent", action="store_true", help="serve agent sessions (needs --provider)"
    )
    agent.add_argument(
        "--provider", choices=("anthropic", "openai"), help="the model API the sessions call"
    )
    agent.add_argument("--model", help="the model to call (default: the provider's)")
    agent.add_argument(
        "--base-url", help="the model API's URL, e.g. a gateway or a local OpenAI-compatible server"
    )
    agent.add_argument(
        "--agent-idle",
        type=float,
        metavar="SECONDS",
        help=f"end a session after this long without a turn (default {DEFAULT_AGENT_IDLE:g})",
    )
    p.set_defaults(handler=serve)


def _loopback(host: str) -> bool:
    import ipaddress

    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _wildcard(host: str) -> bool:
    return host in ("0.0.0.0", "::", "")


def _host_names(host: str, shown: str, port: int) -> set[str]:
    """The Host values naming this server: its address (and loopback aliases) with its port."""
    names = {f"{shown}:{port}"}
    if _loopback(host):
        names |= {f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}"}
    return names


def serve(ns: argparse.Namespace) -> int:
    import asyncio
    import socket

    from signet_sdk.wire.errors import ConfigError

    host: str = ns.host
    token = ns.token or os.environ.get("SIGNET_ADAPTER_SERVER_TOKEN") or None
    if not _loopback(host) and not token:
        sys.stderr.write(
            f"{PROG}: refusing to listen on {host} without --token "
            "(anyone who can reach it could read and write your memories)\n"
        )
        return 2
    from signet_sdk.server.discovery import claim, state_owner
    from signet_sdk.wire.config import resolve_config

    try:  # a bad setting is reported before this process takes the state directory
        resolve_config(ns.daemon_url)
        agent = _agent(ns)
    except ConfigError as exc:
        sys.stderr.write(f"{PROG}: {exc}\n")
        return 2
    try:
        owner = claim()
    except OSError as exc:
        sys.stderr.write(f"{PROG}: cannot use the state directory: {exc}\n")
        return 1
    if owner is None:
        other = state_owner()
        who = f" (pid {other})" if other else ""
        sys.stderr.write(
            f"{PROG}: another server{who} already serves this state directory; "
            "stop it first, or give this one its own XDG_STATE_HOME\n"
        )
        return 1
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, ns.port))
        sock.listen(512)
    except OSError as exc:
        sock.close()
        sys.stderr.write(f"{PROG}: cannot listen on {host}:{ns.port}: {exc.strerror}\n")
        return 2
    import uvicorn

    from signet_sdk.server.app import RuntimeAdapterServer
    from signet_sdk.server.discovery import remove_state, write_state

    port = int(sock.getsockname()[1])
    shown = f"[{host}]" if ":" in host else host
    # A wildcard bind is reached locally through loopback: that is what shims get.
    local = {"0.0.0.0": "127.0.0.1", "::": "[::1]"}.get(host, shown)
    url = f"http://{local}:{port}"
    try:
        server_app = RuntimeAdapterServer(
            ns.daemon_url,
            server_token=token,
            allowed_hosts=sorted(_host_names(host, shown, port) | set(ns.allow_host)),
            any_ip_host=_wildcard(host),
            body_limit=ns.body_limit,
            allow_exec=ns.allow_exec,
            agent=agent,
            agent_idle=ns.agent_idle or DEFAULT_AGENT_IDLE,
        )
    except ConfigError as exc:
        sock.close()
        sys.stderr.write(f"{PROG}: {exc}\n")
        return 2
    import gc

    # Everything imported so far lives as long as the server: keep the
    # collector from scanning it again on every collection.
    gc.collect()
    gc.freeze()
    # No proxy headers: the server answers local callers directly, and a client
    # must not be able to claim another address through X-Forwarded-For.
    config = uvicorn.Config(
        server_app.asgi,
        log_level="warning",
        access_log=False,
        timeout_graceful_shutdown=10,
        proxy_headers=False,
        server_header=False,
    )
    server = uvicorn.Server(config)

    async def announce() -> None:
        # Shims find the server by its state file: write it once the app has
        # started (plugins loaded, pool open), so the first event is served warm.
        while not server.started:
            if server.should_exit:
                return
            await asyncio.sleep(0.005)
        state = write_state(url, port, token)
        sys.stdout.write(f"{PROG}: listening on {url} (state: {state}); Ctrl-C to stop\n")
        sys.stdout.flush()

    async def main() -> None:
        tasks = [asyncio.create_task(announce())]
        if ns.idle_exit:
            tasks.append(asyncio.create_task(_idle_watch(server, server_app, ns.idle_exit)))
            tasks.append(asyncio.create_task(_state_watch(server, state_owner)))
        try:
            await server.serve(sockets=[sock])
        finally:
            for task in tasks:
                task.cancel()

    import signal
    import threading

    if threading.current_thread() is threading.main_thread():
        # uvicorn drains in-flight requests on SIGTERM/SIGINT, then raises the
        # signal again under the previous handler: end here, cleanly, with 0.
        signal.signal(signal.SIGTERM, _interrupt)
    try:
        with asyncio.Runner(loop_factory=_loop_factory()) as runner:
            runner.run(main())
    except KeyboardInterrupt:
        pass
    finally:
        remove_state()
        sock.close()
    sys.stderr.write(f"{PROG}: stopped\n")
    return 0


def _agent(ns: argparse.Namespace) -> Any:
    """The ``Agent`` that ``--agent`` asks for (None without it); ConfigError names a bad flag."""
    from signet_sdk.wire.errors import ConfigError

    agent_only = {
        "--provider": ns.provider,
        "--model": ns.model,
        "--base-url": ns.base_url,
        "--agent-idle": ns.agent_idle,
    }
    if not ns.agent:
        given = [flag for flag, value in agent_only.items() if value is not None]
        if given:
            raise ConfigError(given[0], "only with --agent")
        return None
    if not ns.provider:
        raise ConfigError("--agent", "needs --provider anthropic|openai")
    if ns.agent_idle is not None and not ns.agent_idle > 0:
        raise ConfigError(
            "--agent-idle", f"must be a positive number of seconds, not {ns.agent_idle}"
        )
    from signet_sdk.agent import Agent, provider_for

    try:
        provider = provider_for(ns.provider, model=ns.model, base_url=ns.base_url, async_=True)
    except ConfigError:
        raise
    except ValueError as exc:
        raise ConfigError(f"--provider {ns.provider}", str(exc)) from exc
    return Agent(provider, daemon_url=ns.daemon_url)


def _loop_factory() -> Any:
    """uvloop's event loop when it is installed (a core dependency on CPython/POSIX), else None.

    The server spends most of a native event in the event loop and the HTTP
    parser; uvloop and httptools (which uvicorn picks on its own) halve that.
    ``SIGNET_SERVER_LOOP=asyncio`` keeps the standard loop.
    """
    if os.environ.get("SIGNET_SERVER_LOOP", "").strip().lower() == "asyncio":
        return None
    try:
        import uvloop
    except ImportError:
        return None
    return uvloop.new_event_loop


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


async def _idle_watch(server: Any, app: Any, seconds: float) -> None:
    import asyncio
    import time

    while not server.should_exit:
        await asyncio.sleep(min(seconds, 1.0))
        if time.monotonic() - app.last_request >= seconds:
            sys.stderr.write(f"{PROG}: idle for {seconds:g}s, exiting\n")
            server.should_exit = True


#: How often a background server checks that its state file still names it.
STATE_CHECK_SECONDS = 1.0


async def _state_watch(server: Any, owner_of_state: Any) -> None:
    """Stop once the state file (written when the server started) is gone or names another.

    A shim finds a background server only through that file: without it (its
    directory deleted, a temporary HOME removed) or with another server in it,
    nobody can reach this one, so it stops instead of waiting out its idle time.
    """
    import asyncio

    while not server.started and not server.should_exit:
        await asyncio.sleep(0.05)
    while not server.should_exit:
        await asyncio.sleep(STATE_CHECK_SECONDS)
        owner = owner_of_state()
        if owner != os.getpid():
            why = "is gone" if owner is None else f"names another server (pid {owner})"
            sys.stderr.write(f"{PROG}: the state file {why}, exiting\n")
            server.should_exit = True
