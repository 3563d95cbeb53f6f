"""``signet_sdk.models``: the public namespace of every daemon request and response model.

Import models from here: ``from signet_sdk.models import RecallHit``. The
package root re-exports only the lifecycle's params and results
(``signet_sdk.SessionStartParams`` is ``signet_sdk.models.SessionStartParams``);
every other model lives here alone. ``__all__`` below is the list of them,
and the test of the public API pins it.

The modules split the models by route family (``hooks``, ``memory``,
``sessions`` ...) and each names its own in its ``__all__``; they are the
implementation, free to move. So each model names this package as its
``__module__``, set once here as the package loads: reprs, docs and pickles
read ``signet_sdk.models.RecallHit`` whatever was imported first, and stay
valid when a model changes family. The JSON Schemas do not change with it
(they name models by class name), and ``python -m signet_sdk.models.schemas
--check`` holds them.
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

for _name in __all__:
    globals()[_name].__module__ = __name__
del _name
