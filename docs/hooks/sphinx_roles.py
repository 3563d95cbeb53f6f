"""A MkDocs hook: docstrings' Sphinx roles read as plain code in the API reference.

The docstrings name other objects with Sphinx roles (``:class:`Tool```), which
help readers of the source and of ``help()``. mkdocstrings renders them as
written, so the page would show ``:class:`` before each name; this drops the
role and keeps the name as code.
"""

from __future__ import annotations

import re
from typing import Any

ROLE = re.compile(r":(?:class|func|meth|mod|data|attr|exc|obj|const):(?=<code>)")


def on_page_content(html: str, **_: Any) -> str:
    """The page's HTML with each role prefix removed."""
    return ROLE.sub("", html)
