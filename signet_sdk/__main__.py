"""``python -m signet_sdk ...``: the ``signet-sdk`` command without its console script."""

from __future__ import annotations

import sys

from signet_sdk.cli import main

if __name__ == "__main__":
    sys.exit(main())
