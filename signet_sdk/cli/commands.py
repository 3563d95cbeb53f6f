"""Every ``signet-sdk`` subcommand but ``hook``: argparse, ``--help`` everywhere.

Each handler imports what it runs when it runs, so ``signet-sdk version``
does not pay for uvicorn and ``signet-sdk harnesses`` does not pay for
pydantic.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from typing import Any

from signet_sdk._version import __version__

__all__ = ["build_parser", "run"]

Handler = Callable[[argparse.Namespace], int]
#: The mock daemon's release lines (its ``DAEMON_VERSIONS``; a test keeps them equal),
#: spelled out so building the parser imports nothing of the mock.
_MOCK_VERSIONS = ("0.109", "0.145")


class _Parser(argparse.ArgumentParser):
    """Usage errors exit 2 with one line of help, as argparse does, never a traceback."""


#: How long ``demo`` and ``parity`` wait for a daemon given by URL to answer ``/health``.
HEALTH_SECONDS = 5.0


def check_daemon(prog: str, url: str, source: str) -> int:
    """0 when the daemon at ``url`` (given as ``source``) answers ``/health``; else the exit code.

    Asked once, with a short deadline, before a command sends it hundreds of
    calls: a daemon that is down, hangs or is some other server then stops the
    command at once with the reason (it used to take a traceback, or minutes of
    silence while every call waited out its timeout). A URL that is not one is
    a usage error (2) naming ``source``; anything else is a failure (1). A
    daemon in team mode that wants a token even for ``/health`` is a daemon:
    the command's own calls say whether they are let in.
    """
    from signet_sdk.wire.config import resolve_config
    from signet_sdk.wire.errors import (
        APIConnectionError,
        APIStatusError,
        AuthenticationError,
        ConfigError,
        SignetError,
    )
    from signet_sdk.wire.lean import LeanClient

    try:
        config = resolve_config(url, max_retries=0, env={})
    except ConfigError as exc:
        reason = str(exc).removeprefix(f"{exc.field}: ")
        sys.stderr.write(f"{prog}: {source}: {reason}\n")
        return 2
    where = config.base_url
    try:
        health = LeanClient(config).call("health", timeout=HEALTH_SECONDS)
    except AuthenticationError:
        return 0
    except APIConnectionError as exc:
        sys.stderr.write(f"{prog}: no Signet daemon answers at {where} ({source}): {exc}\n")
        return 1
    except APIStatusError as exc:
        sys.stderr.write(
            f"{prog}: {where} ({source}) answered GET /health with {exc.status_code}: "
            "is it a Signet daemon?\n"
        )
        return 1
    except SignetError as exc:
        sys.stderr.write(f"{prog}: {where} ({source}) is not a Signet daemon: {exc}\n")
        return 1
    if not isinstance(health, dict) or not isinstance(health.get("status"), str):
        sys.stderr.write(
            f"{prog}: {where} ({source}) is not a Signet daemon: "
            "its GET /health answer has no status\n"
        )
        return 1
    return 0


def given_daemon(flag: str | None, *, variable: bool = True) -> tuple[str, str] | None:
    """The daemon a command is pointed at and what named it, or None: it starts its own.

    ``--daemon-url`` (``flag``) when not blank, else, with ``variable``,
    ``SIGNET_DAEMON_URL`` when not blank, else None (``demo`` then starts a
    dev daemon, ``parity`` a mock for each harness). The one place the choice
    is made: ``demo``'s ``/health`` check, its story and its closing parity
    run, and ``parity`` (which takes no ``variable``), all ask here.
    """
    import os

    url = (flag or "").strip()
    if url:
        return url, "--daemon-url"
    url = os.environ.get("SIGNET_DAEMON_URL", "").strip() if variable else ""
    return (url, "SIGNET_DAEMON_URL") if url else None


def _demo(ns: argparse.Namespace) -> int:
    from signet_sdk.cli.demo import main as demo_main

    given = given_daemon(ns.daemon_url)
    if given is not None:
        code = check_daemon("signet-sdk demo", *given)
        if code:
            return code
    return demo_main(ns)


def _dev_daemon(ns: argparse.Namespace) -> int:
    from signet_sdk.testing.mock_daemon._serve import serve_from_args

    return serve_from_args(ns)


def _parity(ns: argparse.Namespace) -> int:
    from signet_sdk.runtime.registry import broken_plugins, installed_adapters
    from signet_sdk.testing.parity import format_table, run_parity

    broken = {b.name: b.reason for b in broken_plugins()}
    for name in ns.harness:
        if name in broken:
            sys.stderr.write(f"signet-sdk parity: {name}: broken plugin: {broken[name]}\n")
            return 2
    for name, reason in sorted(broken.items()):  # the others are still checked
        sys.stderr.write(f"signet-sdk parity: skipping {name}, a broken plugin: {reason}\n")
    known = ["generic", *installed_adapters(), "runtime"]
    unknown = [h for h in ns.harness if h not in known]
    if unknown:
        sys.stderr.write(
            f"signet-sdk parity: no plugin installed for {', '.join(map(repr, unknown))} "
            f"(installed: {', '.join(known)})\n"
        )
        return 2
    given = given_daemon(ns.daemon_url, variable=False)  # none: each harness gets a mock
    if given is not None:
        code = check_daemon("signet-sdk parity", *given)
        if code:
            return code
    report = run_parity(given[0] if given else None, ns.harness or None)
    if ns.json:
        sys.stdout.write(json.dumps(report.as_dict(), indent=2) + "\n")
    else:
        sys.stdout.write(format_table(report) + "\n")
    return 0 if report.ok else 1


def _harnesses(ns: argparse.Namespace) -> int:
    from signet_sdk.runtime.registry import broken_plugins, installed_plugins

    broken = broken_plugins()
    rows: list[dict[str, Any]] = []
    for plugin in installed_plugins():
        rows.append(
            {
                "name": plugin.name,
                "distribution": plugin.distribution,
                "version": plugin.version,
                "events": list(plugin.events),
                "vectors": len(plugin.vector_files()),
                "installer": plugin.installer is not None,
                "runtimePath": plugin.runtime_path,
            }
        )
    rows += [{"name": b.name, "broken": b.reason} for b in broken]
    if ns.json:
        sys.stdout.write(json.dumps(rows, indent=2) + "\n")
        return 1 if broken else 0
    if not rows:
        sys.stdout.write("no harness plugins installed (any name still gets the generic client)\n")
        return 0
    for row in rows:
        if "broken" in row:
            sys.stdout.write(_wrap(f"{row['name']}  BROKEN: {row['broken']}", "    ") + "\n")
            continue
        head = f"{row['name']}  {row['distribution']} {row['version']}"
        extra = f"  vectors: {row['vectors']}  installer: {'yes' if row['installer'] else 'no'}"
        sys.stdout.write(head + extra + "\n")
        sys.stdout.write(_wrap("  events: " + ", ".join(row["events"]), "          ") + "\n")
    return 1 if broken else 0


def _wrap(text: str, indent: str, width: int = 100) -> str:
    import textwrap

    return textwrap.fill(text, width=width, subsequent_indent=indent)


def _installer(verb: str) -> Handler:
    def run(ns: argparse.Namespace) -> int:
        from signet_sdk.runtime.registry import find_plugin, installed_plugins
        from signet_sdk.wire.errors import ConfigError, InvalidAdapterError

        try:
            plugin = find_plugin(ns.harness)
        except InvalidAdapterError as exc:
            sys.stderr.write(f"signet-sdk {verb}: {exc}\n")
            return 2
        if plugin is None or plugin.installer is None:
            names = [p.name for p in installed_plugins() if p.installer is not None]
            sys.stderr.write(
                f"signet-sdk {verb}: no installer for {ns.harness!r} "
                f"(harnesses with one: {', '.join(names) or 'none'})\n"
            )
            return 2
        installer = plugin.load_installer()
        assert installer is not None
        try:
            return installer([verb, *ns.args])
        except ConfigError as exc:
            # An install writes the hook timeouts from SIGNET_*_TIMEOUT; an installer
            # that does not report a variable it cannot read still gets one line, not
            # a traceback.
            sys.stderr.write(f"signet-sdk {verb} {ns.harness}: {exc}\n")
            return 1

    return run


def _mcp(ns: argparse.Namespace) -> int:
    from signet_sdk.tools.mcp import main as mcp_main

    return mcp_main()


def _version(ns: argparse.Namespace) -> int:
    sys.stdout.write(f"signet-sdk {__version__}\n")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="signet-sdk",
        description="The Signet runtime adapter contract: harness plugins, dev daemon, parity.",
    )
    parser.add_argument("--version", action="version", version=f"signet-sdk {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="<command>")
    from signet_sdk.server.cli import port_number

    p = sub.add_parser("demo", help="a two-session story through every installed adapter")
    p.add_argument(
        "--daemon-url",
        help="tell the story against this daemon (default: a throwaway bundled dev daemon)",
    )
    p.set_defaults(handler=_demo)

    p = sub.add_parser("dev-daemon", help="run the bundled mock daemon (a stand-in for Signet)")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    p.add_argument("--port", type=port_number, default=3850, help="port to bind (default 3850)")
    p.add_argument(
        "--db",
        default=None,
        help="SQLite file for memories (default $XDG_DATA_HOME/signet-sdk/dev-daemon.sqlite3)",
    )
    p.add_argument(
        "--auth-mode",
        choices=("local", "team", "hybrid"),
        default="local",
        help="local: no checks; team: token always; hybrid: loopback may omit it",
    )
    p.add_argument(
        "--token",
        action="append",
        default=[],
        metavar="TOKEN=ROLE",
        help="accept a bearer token with a role (admin, operator, agent, readonly); repeatable",
    )
    p.add_argument(
        "--daemon-version",
        choices=_MOCK_VERSIONS,
        default=_MOCK_VERSIONS[-1],
        help=f"answer as this Signet release line does (default {_MOCK_VERSIONS[-1]})",
    )
    p.set_defaults(handler=_dev_daemon)

    p = sub.add_parser("parity", help="run every installed adapter's vectors; print the matrix")
    p.add_argument("harness", nargs="*", help="only these harnesses (default: all installed)")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.add_argument("--daemon-url", help="also send each vector's calls to this daemon")
    p.set_defaults(handler=_parity)

    p = sub.add_parser("harnesses", help="list installed harness plugins")
    p.add_argument("--json", action="store_true", help="print the list as JSON")
    p.set_defaults(handler=_harnesses)

    p = sub.add_parser(
        "hook",
        help="run one native hook event (payload on stdin; see 'signet-sdk hook --help')",
        add_help=False,
    )
    for verb, text in (
        ("install", "install a harness's hooks or plugin"),
        ("uninstall", "remove them"),
    ):
        p = sub.add_parser(
            verb,
            help=text,
            description=f"{text}; options after the harness go to its installer "
            f"(try 'signet-sdk {verb} <harness> --help')",
        )
        p.add_argument("harness")
        p.add_argument("args", nargs=argparse.REMAINDER, help="the installer's own options")
        p.set_defaults(handler=_installer(verb))

    from signet_sdk.server.cli import register as register_serve

    register_serve(sub)

    p = sub.add_parser(
        "mcp",
        help="serve the memory tools over MCP on stdio (needs the mcp extra)",
        description="Serve the memory tools over MCP on stdio. The tool context comes from "
        "SIGNET_SESSION_KEY, SIGNET_PROJECT (else the working directory) and SIGNET_AGENT_ID; "
        "SIGNET_TOOLS_ALLOW_EXEC=1 enables secrets_exec.",
    )
    p.set_defaults(handler=_mcp)

    from signet_sdk.cli.tools import register as register_tools

    register_tools(sub)

    from signet_sdk.cli.chat import register as register_chat

    register_chat(sub)

    from signet_sdk.cli.doctor import register as register_doctor
    from signet_sdk.cli.outbox import register as register_outbox
    from signet_sdk.cli.scaffold import register as register_scaffold

    register_outbox(sub)
    register_doctor(sub)
    register_scaffold(sub)

    p = sub.add_parser("version", help="print the version")
    p.set_defaults(handler=_version)
    return parser


def run(argv: Sequence[str]) -> int:
    parser = build_parser()
    try:
        ns = parser.parse_args(list(argv))
    except SystemExit as exc:  # --help (0) or a usage error (2)
        return int(exc.code or 0)
    handler: Handler | None = getattr(ns, "handler", None)
    if handler is None:
        parser.print_help(sys.stderr)
        return 2
    return handler(ns)
