"""The library's logger: silent unless asked, and never on stdout.

Harnesses parse a hook's stdout, so a stray log line there would corrupt
their input. The ``signet_sdk`` logger has a NullHandler (no "no handler"
fallback printing to stderr either); ``SIGNET_LOG=debug|info|warning`` adds a
stderr handler at that level for troubleshooting.
"""

from __future__ import annotations

import logging
import os
import sys

__all__ = ["logger"]

logger = logging.getLogger("signet_sdk")
logger.addHandler(logging.NullHandler())

_level = os.environ.get("SIGNET_LOG", "").strip().upper()
if _level in ("DEBUG", "INFO", "WARNING"):
    _handler = logging.StreamHandler(sys.stderr)
    _handler.setFormatter(logging.Formatter("signet_sdk %(levelname)s %(name)s: %(message)s"))
    logger.addHandler(_handler)
    logger.setLevel(_level)
