"""``python -m signet_sdk.server``: the same as ``signet-sdk serve``."""

from __future__ import annotations

import sys

from signet_sdk.cli import main

if __name__ == "__main__":
    sys.exit(main(["serve", *sys.argv[1:]]))
