"""``signet-sdk tools list|call``: the memory tool set from a shell or a shim's child process.

``list`` prints the definitions in the shape a caller names (the neutral
one the adapter server serves, OpenAI chat or responses, Anthropic).
``call <name>`` reads the arguments as one JSON object on stdin, runs the
tool against the daemon and prints ``{"result": ...}``; a failure prints
``{"error": "...", "field": ...}`` and exits 1, so a JavaScript shim whose
adapter server is not up yet can still answer a model's tool call with a
readable message. The tool context comes from the flags, else
``SIGNET_SESSION_KEY``, ``SIGNET_PROJECT`` (else the working directory) and
``SIGNET_AGENT_ID``; ``SIGNET_TOOLS_ALLOW_EXEC=1`` enables ``secrets_exec``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

__all__ = ["register"]

#: Arguments larger than this are refused before anything is parsed.
MAX_ARGUMENT_BYTES = 4 * 1024 * 1024


def _allow(env: dict[str, str] | os._Environ[str]) -> bool:
    return env.get("SIGNET_TOOLS_ALLOW_EXEC") == "1"


def _list(ns: argparse.Namespace) -> int:
    from signet_sdk.tools.render import anthropic_tools, openai_tools, tool_definitions

    allow = _allow(os.environ)
    shapes: dict[str, Any] = {
        "neutral": lambda: tool_definitions(allow_commands=allow),
        "openai-chat": lambda: openai_tools("chat", allow_commands=allow),
        "openai-responses": lambda: openai_tools("responses", allow_commands=allow),
        "anthropic": lambda: anthropic_tools(allow_commands=allow),
    }
    sys.stdout.write(json.dumps(shapes[ns.format](), indent=2, ensure_ascii=False) + "\n")
    return 0


def _fail(message: str, **extra: Any) -> int:
    sys.stdout.write(json.dumps({"error": message, **extra}, ensure_ascii=False) + "\n")
    return 1


def _call(ns: argparse.Namespace) -> int:
    from signet_sdk.runtime.registry import create_adapter
    from signet_sdk.tools.definitions import ToolContext
    from signet_sdk.tools.runner import ToolError, call_tool
    from signet_sdk.wire.errors import PayloadError, SignetError

    raw = sys.stdin.buffer.read(MAX_ARGUMENT_BYTES + 1)
    if len(raw) > MAX_ARGUMENT_BYTES:
        return _fail(f"arguments are over {MAX_ARGUMENT_BYTES} bytes", field="arguments")
    try:
        arguments = json.loads(raw) if raw.strip() else {}
    except ValueError as exc:
        return _fail(f"arguments are not JSON: {exc}", field="arguments")
    except RecursionError:  # the parser recurses per level: deep nesting is bad input too
        return _fail("arguments are nested too deeply to be read", field="arguments")
    if not isinstance(arguments, dict):
        return _fail("arguments must be a JSON object", field="arguments")
    env = os.environ
    context = ToolContext(
        session_key=ns.session_key or env.get("SIGNET_SESSION_KEY") or None,
        project=ns.project or env.get("SIGNET_PROJECT") or os.getcwd(),
        agent_id=ns.agent_id or env.get("SIGNET_AGENT_ID") or None,
    )
    harness = ns.harness or env.get("SIGNET_HARNESS") or "tools"
    try:
        with create_adapter(harness) as client:
            result = call_tool(
                client, ns.name, arguments, context=context, allow_commands=_allow(env)
            )
    except PayloadError as exc:
        return _fail(str(exc), field=exc.field)
    except ToolError as exc:
        return _fail(str(exc))
    except SignetError as exc:
        return _fail(f"{ns.name} failed: {exc}")
    sys.stdout.write(json.dumps({"result": result}, ensure_ascii=False) + "\n")
    return 0


def register(sub: Any) -> None:
    """Add ``tools`` with its ``list`` and ``call`` subcommands."""
    tools = sub.add_parser("tools", help="list the memory tools or call one (arguments on stdin)")
    verbs = tools.add_subparsers(dest="tools_command", metavar="<list|call>", required=True)

    p = verbs.add_parser("list", help="print the tool definitions as JSON")
    p.add_argument(
        "--format",
        choices=("neutral", "openai-chat", "openai-responses", "anthropic"),
        default="neutral",
        help="neutral: name, description, inputSchema (what the adapter server lists)",
    )
    p.set_defaults(handler=_list)

    p = verbs.add_parser(
        "call",
        help="run one tool: arguments as a JSON object on stdin, the result as JSON on stdout",
    )
    p.add_argument("name", help="the tool, e.g. memory_search")
    p.add_argument("--harness", help="the harness the call is made for (default SIGNET_HARNESS)")
    p.add_argument("--session-key", help="default SIGNET_SESSION_KEY")
    p.add_argument("--project", help="default SIGNET_PROJECT, else the working directory")
    p.add_argument("--agent-id", help="default SIGNET_AGENT_ID")
    p.set_defaults(handler=_call)
