"""The ``signet-sdk`` command.

``signet-sdk hook ...`` sits on a prompt's critical path, so it is handled
before ``argparse`` (or anything else) is imported; every other subcommand
loads its own module only when chosen. Exit codes: 0 ok, 1 failed, 2 usage.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``signet-sdk`` console script."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] == "hook":
        from signet_sdk.hooks.runner import hook_command

        return hook_command(args[1:])
    from signet_sdk.cli.commands import run

    return run(args)
