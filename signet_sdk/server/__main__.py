"""``python -m signet_sdk.server``: the same as ``signet-sdk serve``."""

from __future__ import annotations

import argparse
import sys

from signet_sdk.server.cli import register

if __name__ == "__main__":
    parser = argparse.ArgumentParser(prog="python -m signet_sdk.server")
    register(parser.add_subparsers())
    args = parser.parse_args(["serve", *sys.argv[1:]])
    sys.exit(args.handler(args))
