"""Where the contract's data files are: beside the package in a checkout, inside it installed.

Standard library only.
"""

from __future__ import annotations

import os

__all__ = ["contract_dir"]


def contract_dir() -> str:
    """The contract folder (``endpoints.json``, ``schemas/``, ``vectors/``)."""
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    installed = os.path.join(package, "_contract_data")
    if os.path.isdir(installed):
        return installed
    return os.path.join(os.path.dirname(package), "contract")
