"""The ``signet-sdk`` command: a thin dispatcher that imports only what it runs.

``signet-sdk hook ...`` sits on a prompt's critical path, so nothing here is
imported eagerly: each subcommand loads its own module when chosen.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence

__all__ = ["main"]

USAGE = """\
usage: signet-sdk <command> [options]

commands:
  demo                       play a two-session story through every installed adapter
  dev-daemon                 run the bundled mock daemon on 127.0.0.1 (default port 3850)
  parity [--json] [--daemon-url URL]
                             print the parity matrix of every installed adapter
  hook <harness> <event>     run one harness hook event (reads the event on stdin)
  install <harness> [...]    merge this SDK's hooks into a harness's settings
  uninstall <harness> [...]  remove them again
  adapters                   list installed harness adapters
  version                    print the version
"""


def _entry(group: str, name: str) -> Callable[[list[str]], int] | None:
    from importlib.metadata import entry_points

    for ep in entry_points(group=group, name=name):
        fn: Callable[[list[str]], int] = ep.load()
        return fn
    return None


def _harness_command(group: str, verb: str, args: list[str]) -> int:
    if not args:
        sys.stderr.write(
            f"signet-sdk {verb}: name a harness, e.g. 'signet-sdk {verb} claude-code'\n"
        )
        return 2
    harness, rest = args[0], args[1:]
    fn = _entry(group, harness)
    if fn is None:
        from importlib.metadata import entry_points

        names = sorted({ep.name for ep in entry_points(group=group)}) or ["none"]
        sys.stderr.write(
            f"signet-sdk {verb}: no {verb} support installed for {harness!r} "
            f"(installed: {', '.join(names)})\n"
        )
        return 2
    return fn([verb, *rest] if group == "signet_sdk.installers" else rest)


def _lazy(module: str, func: str = "main") -> Callable[[list[str]], int]:
    def run(args: list[str]) -> int:
        from importlib import import_module

        fn: Callable[[list[str]], int] = getattr(import_module(module), func)
        return fn(args)

    return run


def _adapters(_: list[str]) -> int:
    from ._registry import installed_adapters

    names = installed_adapters()
    sys.stdout.write("\n".join(names) + ("\n" if names else "(none installed)\n"))
    return 0


def _version(_: list[str]) -> int:
    from ._version import __version__

    sys.stdout.write(f"signet-sdk {__version__}\n")
    return 0


COMMANDS: dict[str, Callable[[list[str]], int]] = {
    "demo": _lazy("signet_sdk._demo"),
    "dev-daemon": _lazy("signet_sdk.mock_daemon._serve"),
    "parity": _lazy("signet_sdk._parity", "cli_main"),
    "hook": lambda args: _harness_command("signet_sdk.hooks", "hook", args),
    "install": lambda args: _harness_command("signet_sdk.installers", "install", args),
    "uninstall": lambda args: _harness_command("signet_sdk.installers", "uninstall", args),
    "adapters": _adapters,
    "version": _version,
}


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help", "help"):
        sys.stdout.write(USAGE)
        return 0 if args else 2
    command = COMMANDS.get(args[0])
    if command is None:
        sys.stderr.write(f"signet-sdk: unknown command {args[0]!r}\n\n{USAGE}")
        return 2
    return command(args[1:])


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
