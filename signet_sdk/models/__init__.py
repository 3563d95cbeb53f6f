"""Every daemon request and response body, as pydantic models.

The modules split by route family, and each one's ``__all__`` lists its
models; this package re-exports them all, so import from here, not from them.
``__all__`` here is the union of theirs, sorted.
"""

from __future__ import annotations

from . import _base, hooks, memory, notifications, ops, sessions, synthesis
from ._base import *  # noqa: F403
from .hooks import *  # noqa: F403
from .memory import *  # noqa: F403
from .notifications import *  # noqa: F403
from .ops import *  # noqa: F403
from .sessions import *  # noqa: F403
from .synthesis import *  # noqa: F403

_FAMILIES = (_base, hooks, memory, notifications, ops, sessions, synthesis)
__all__ = sorted(name for family in _FAMILIES for name in family.__all__)
