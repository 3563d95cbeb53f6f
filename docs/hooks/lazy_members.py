"""A MkDocs hook: the API reference of a namespace that loads its names lazily.

``signet_sdk`` and ``signet_sdk.plugin`` state each public name once, as a
``TYPE_CHECKING`` import, and serve it on first use; they have no literal
``__all__`` for the docs tool to read. A page that writes ``::: signet_sdk``
with the option ``members: lazy`` gets the module's own ``__all__``, read
from the module at build time, so the page never restates a name.
"""

from __future__ import annotations

import importlib
import re
from typing import Any

BLOCK = re.compile(r"^::: (?P<module>[\w.]+)\n    options:\n      members: lazy\n", re.M)


def _expanded(match: re.Match[str]) -> str:
    module = match["module"]
    names = sorted(importlib.import_module(module).__all__, key=str.lower)
    listed = "".join(f'        - "{name}"\n' for name in names if not name.startswith("_"))
    return f"::: {module}\n    options:\n      members:\n{listed}"


def on_page_markdown(markdown: str, **_: Any) -> str:
    """The page's Markdown with each ``members: lazy`` replaced by the module's names."""
    return BLOCK.sub(_expanded, markdown)
