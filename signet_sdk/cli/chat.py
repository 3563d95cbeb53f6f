"""``signet-sdk chat``: a conversation with a model that remembers, through the Signet daemon.

On a terminal it is a conversation: the answer streams to stdout, a tool
call or a memory notice is one line on stderr, and slash commands reach
memory directly (``/help``). Ctrl-C during an answer cancels that turn
only; Ctrl-C at the prompt, Ctrl-D or ``/exit`` ends the session, whose end
reaches the daemon once, with the transcript.

Given ``-p PROMPT``, or a stdin that is not a terminal (all of it is the
prompt), it runs one turn and prints the answer alone on stdout. Exit
codes: 0 answered, 1 the model or the set-up failed, 2 a usage error or a
missing setting, 130 Ctrl-C. ``--json`` prints every event as one JSON
object per line on stdout instead, between a ``session`` line and an
``end`` line, in both modes.

This module is imported to build the parser, so it imports nothing but
the standard library at the top; the runtime loads when the command runs.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from signet_sdk.agent import Agent, Session
    from signet_sdk.cli.chat_view import ChatView
    from signet_sdk.wire.errors import ConfigError

__all__ = ["default_provider", "register"]

PROG = "signet-sdk chat"

_EXAMPLES = """\
examples:
  signet-sdk chat                                  talk; Ctrl-D or /exit ends the session
  signet-sdk chat -p "Where does staging run?"     one question, the answer alone on stdout
  echo "Summarise our deploy steps" | signet-sdk chat --json
  signet-sdk chat --resume agent-0123456789abcdef  continue an earlier session
  signet-sdk chat --mcp "npx -y @modelcontextprotocol/server-filesystem ."
  signet-sdk chat --provider openai --base-url http://127.0.0.1:11434/v1 --model qwen3

The model: ANTHROPIC_API_KEY, or OPENAI_API_KEY (OPENAI_BASE_URL for an
OpenAI-compatible server). The daemon: SIGNET_DAEMON_URL (default
http://127.0.0.1:3850) and SIGNET_TOKEN, as for every other command.
Exit codes: 0 answered, 1 failed, 2 a usage error or a missing setting, 130 Ctrl-C.
"""

#: What a one-turn run ends the session with, and exits with, by how its turn ended.
_HEADLESS_END: Mapping[str, tuple[str, int]] = {
    "done": ("exit", 0),
    "error": ("error", 1),
    "cancelled": ("interrupted", 130),
}


def register(sub: Any) -> None:
    """Add ``chat`` to the ``signet-sdk`` subcommands."""
    p = sub.add_parser(
        "chat",
        help="chat with a model that remembers, through the Signet daemon",
        description="Chat with a model that remembers: each turn is recalled into and\n"
        "checkpointed by the Signet daemon, so the next session knows what this one learned.",
        epilog=_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "-p",
        "--prompt",
        metavar="PROMPT",
        help="ask one question, print the answer and exit (piped stdin is one prompt too)",
    )
    p.add_argument(
        "--json",
        action="store_true",
        help="print every event as one JSON object per line on stdout",
    )
    p.add_argument(
        "--provider",
        metavar="anthropic|openai",
        help="the model's API (default: anthropic when ANTHROPIC_API_KEY is set, "
        "else openai when OPENAI_API_KEY or OPENAI_BASE_URL is)",
    )
    p.add_argument("--model", help="the model to call (default: the provider's own default)")
    p.add_argument(
        "--base-url",
        metavar="URL",
        help="the provider's API address: a gateway, or a local OpenAI-compatible server",
    )
    p.add_argument(
        "--project",
        metavar="DIR",
        help="the project memories are kept for (default: the current directory)",
    )
    p.add_argument("--resume", metavar="KEY", help="continue an earlier session by its key")
    p.add_argument(
        "--mcp",
        metavar="CMD",
        action="append",
        default=[],
        help="start this MCP server command and offer its tools to the model (repeatable)",
    )
    p.add_argument(
        "--allow-commands",
        action="store_true",
        help="offer the secrets_exec tool, which runs commands with stored secrets",
    )
    p.add_argument(
        "--no-stream",
        action="store_true",
        help="ask the model for whole answers instead of streamed ones",
    )
    p.add_argument(
        "--instructions",
        metavar="TEXT",
        help="system instructions for the model (who it is, how to answer)",
    )
    p.set_defaults(handler=main)


def default_provider(env: Mapping[str, str]) -> str | None:
    """The provider a key in ``env`` names: Anthropic first, then OpenAI; None when neither."""
    if env.get("ANTHROPIC_API_KEY"):
        return "anthropic"
    if env.get("OPENAI_API_KEY") or env.get("OPENAI_BASE_URL"):
        return "openai"
    return None


def _usage(message: str) -> int:
    """A usage or set-up problem: one line in argparse's words, exit 2."""
    sys.stderr.write(f"{PROG}: error: {message}\n")
    return 2


def _failed(message: str) -> int:
    sys.stderr.write(f"{PROG}: error: {' '.join(message.split())}\n")
    return 1


def _config_problem(exc: ConfigError, provider: str) -> str:
    """A provider's configuration error as the command's user would fix it."""
    detail = str(exc).removeprefix(f"{exc.field}: ")
    if exc.field.endswith("_API_KEY"):
        return (
            f"{exc.field} is not set: the {provider} provider needs an API key "
            "(or --base-url of a server that takes none)"
        )
    flags = {"provider": "--provider", "base_url": "--base-url", "model": "--model"}
    if exc.field in flags:
        return f"argument {flags[exc.field]}: {detail}"
    return str(exc)


def main(ns: argparse.Namespace) -> int:
    """Run ``signet-sdk chat`` with parsed arguments; the exit code."""
    try:
        return _chat(ns)
    except KeyboardInterrupt:
        if sys.stderr.isatty():
            sys.stderr.write("\n")  # after the terminal's ^C, for the shell's prompt
        return 130
    except Exception as exc:  # a last resort: one line, never a traceback
        return _failed(f"{type(exc).__name__}: {exc}")


def _chat(ns: argparse.Namespace) -> int:
    from contextlib import ExitStack

    from signet_sdk.agent import Agent, provider_for
    from signet_sdk.wire.errors import ConfigError

    name = ns.provider or default_provider(os.environ)
    if name is None:
        return _usage(
            "no model provider: set ANTHROPIC_API_KEY, or OPENAI_API_KEY (or OPENAI_BASE_URL "
            "for an OpenAI-compatible server), or pass --provider"
        )
    try:
        provider = provider_for(name, model=ns.model, base_url=ns.base_url)
    except ConfigError as exc:
        return _usage(_config_problem(exc, name))

    prompt: str | None = ns.prompt
    if prompt is None and not sys.stdin.isatty():
        try:
            prompt = sys.stdin.read()
        except UnicodeDecodeError as exc:
            return _usage(f"stdin: not text in the locale's encoding ({exc.reason})")
        if not prompt.strip():
            return _usage("stdin: nothing to ask (the piped input is empty)")
    elif prompt is not None and not prompt.strip():
        return _usage("argument -p/--prompt: the prompt is empty")
    if prompt is not None:
        prompt = prompt.strip()
        from signet_sdk.agent.runner import check_text

        try:
            check_text(prompt, "stdin" if ns.prompt is None else "argument -p/--prompt")
        except ValueError as exc:
            return _usage(str(exc))

    project = ns.project or os.getcwd()
    if os.path.isdir(project):
        project = os.path.abspath(project)

    with ExitStack() as servers:
        tools: list[Any] = []
        for command in ns.mcp:
            from signet_sdk.agent.tools import McpTools

            try:
                server = servers.enter_context(
                    McpTools(command, cwd=project if os.path.isdir(project) else None)
                )
            except (ImportError, ValueError) as exc:
                return _usage(f"argument --mcp: {exc}")
            except Exception as exc:
                return _failed(str(exc))
            tools.extend(server.tools)
        try:
            agent = Agent(
                provider,
                instructions=ns.instructions or "",
                tools=tools,
                allow_commands=ns.allow_commands,
                stream=not ns.no_stream,
            )
        except (TypeError, ValueError) as exc:  # a server offering a tool name taken already
            return _usage(f"argument --mcp: {exc}" if ns.mcp else str(exc))
        return _run(agent, ns, project, prompt)


def _run(agent: Agent, ns: argparse.Namespace, project: str, prompt: str | None) -> int:
    from signet_sdk.agent.terminal import TerminalChannel
    from signet_sdk.cli.chat_view import ChatView
    from signet_sdk.wire.errors import ConfigError

    interactive = prompt is None
    # --json keeps stdout for the JSON lines: the channel's own writing goes to stderr.
    channel = TerminalChannel(stream=interactive, stdout=sys.stderr if ns.json else None)
    view = ChatView(channel, json_lines=ns.json, provider=agent.provider.id)
    try:
        session = agent.session(project=project, resume=ns.resume)
    except ConfigError as exc:
        return _usage(str(exc))
    except (OSError, ValueError) as exc:
        return _failed(f"cannot open the session: {exc}")
    with session as chat:
        view.opened(chat, interactive=interactive)
        if prompt is None:
            reason, code = _converse(chat, view), 0
        else:
            reason, code = _HEADLESS_END[view.turn(chat, prompt)]
        _end(chat, reason)
        view.ended(chat, reason, interactive=interactive)
    return code


def _converse(chat: Session, view: ChatView) -> str:
    """Turns and slash commands until the user is done; the session's end reason."""
    from signet_sdk.cli.chat_view import run_command

    while True:
        line = view.channel.receive()
        if line is None:
            return "exit"
        text = line.strip()
        if not text:
            continue
        if text.startswith("/") and not text.startswith("//"):
            if not run_command(chat, text, view):
                return "exit"
            continue
        view.turn(chat, text[1:] if text.startswith("//") else text)


def _end(chat: Session, reason: str) -> None:
    """End the session; a Ctrl-C pressed meanwhile cannot cut its end in half."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        chat.end(reason=reason)
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        chat.end(reason=reason)
    finally:
        signal.signal(signal.SIGINT, previous)
