"""signet_sdk: the Signet runtime adapter contract for Python.

The top level holds what a user reaches for first: the clients
(:class:`AdapterClient`, :class:`AsyncAdapterClient`, the contracts they
implement, :func:`create_adapter`), native events in-process
(:func:`run_event`), the adapter server, the configuration, the whole error
tree and the lifecycle's params and results. Everything else has one home:

* :mod:`signet_sdk.models`: every daemon request and response model;
* :mod:`signet_sdk.plugin`: writing a harness adapter (plugin, translator,
  dispatch) and inspecting the installed ones;
* :mod:`signet_sdk.agent`: the reference runtime;
* :mod:`signet_sdk.tools`: the memory tool set;
* :mod:`signet_sdk.testing` and :mod:`signet_sdk.installing`: for adapter
  tests and installers.

Each public name is stated once, as a ``from M import N as N`` line:
``__version__`` at the top, every other name in the ``TYPE_CHECKING`` block
below. Type checkers read the block as imports; the interpreter never runs
it. Instead, the first lookup of a name that is not yet a global reads those
lines from this file with a plain line scan (:func:`_public_names`), and that
table then serves the name, ``__all__`` and ``dir()``. So ``import
signet_sdk`` costs a hook process almost nothing and never loads pydantic,
httpx, FastAPI, uvicorn, aiohttp or an adapter.
"""

from __future__ import annotations

import sys as _sys  # private: the top level names only its public API

from signet_sdk._version import __version__ as __version__

TYPE_CHECKING = False
if TYPE_CHECKING:  # the public API: one line per name, and the only list of them
    from collections.abc import Callable

    from signet_sdk.client.async_client import AsyncAdapterClient as AsyncAdapterClient
    from signet_sdk.client.contract import AsyncRuntimeAdapter as AsyncRuntimeAdapter
    from signet_sdk.client.contract import RuntimeAdapter as RuntimeAdapter
    from signet_sdk.client.sync_client import AdapterClient as AdapterClient
    from signet_sdk.models import CheckpointExtractParams as CheckpointExtractParams
    from signet_sdk.models import CheckpointExtractResult as CheckpointExtractResult
    from signet_sdk.models import CompactionCompleteParams as CompactionCompleteParams
    from signet_sdk.models import CompactionCompleteResult as CompactionCompleteResult
    from signet_sdk.models import PreCompactionParams as PreCompactionParams
    from signet_sdk.models import PreCompactionResult as PreCompactionResult
    from signet_sdk.models import RecallParams as RecallParams
    from signet_sdk.models import RecallResult as RecallResult
    from signet_sdk.models import RememberParams as RememberParams
    from signet_sdk.models import RememberResult as RememberResult
    from signet_sdk.models import SessionEndParams as SessionEndParams
    from signet_sdk.models import SessionEndResult as SessionEndResult
    from signet_sdk.models import SessionStartParams as SessionStartParams
    from signet_sdk.models import SessionStartResult as SessionStartResult
    from signet_sdk.models import UserPromptSubmitParams as UserPromptSubmitParams
    from signet_sdk.models import UserPromptSubmitResult as UserPromptSubmitResult
    from signet_sdk.runtime.events import run_event as run_event
    from signet_sdk.runtime.events import run_event_async as run_event_async
    from signet_sdk.runtime.registry import create_adapter as create_adapter
    from signet_sdk.runtime.registry import create_async_adapter as create_async_adapter
    from signet_sdk.server import RuntimeAdapterServer as RuntimeAdapterServer
    from signet_sdk.wire.config import ClientConfig as ClientConfig
    from signet_sdk.wire.config import Timeouts as Timeouts
    from signet_sdk.wire.errors import AdapterNotFoundError as AdapterNotFoundError
    from signet_sdk.wire.errors import APIConnectionError as APIConnectionError
    from signet_sdk.wire.errors import APIError as APIError
    from signet_sdk.wire.errors import APIResponseValidationError as APIResponseValidationError
    from signet_sdk.wire.errors import APIStatusError as APIStatusError
    from signet_sdk.wire.errors import APITimeoutError as APITimeoutError
    from signet_sdk.wire.errors import AuthenticationError as AuthenticationError
    from signet_sdk.wire.errors import BadRequestError as BadRequestError
    from signet_sdk.wire.errors import BreakerOpenError as BreakerOpenError
    from signet_sdk.wire.errors import ConfigError as ConfigError
    from signet_sdk.wire.errors import ConflictError as ConflictError
    from signet_sdk.wire.errors import GoneError as GoneError
    from signet_sdk.wire.errors import InternalServerError as InternalServerError
    from signet_sdk.wire.errors import InvalidAdapterError as InvalidAdapterError
    from signet_sdk.wire.errors import JobFailedError as JobFailedError
    from signet_sdk.wire.errors import NotFoundError as NotFoundError
    from signet_sdk.wire.errors import NotSentError as NotSentError
    from signet_sdk.wire.errors import PayloadError as PayloadError
    from signet_sdk.wire.errors import PayloadTooLargeError as PayloadTooLargeError
    from signet_sdk.wire.errors import PermissionDeniedError as PermissionDeniedError
    from signet_sdk.wire.errors import RateLimitError as RateLimitError
    from signet_sdk.wire.errors import ServiceUnavailableError as ServiceUnavailableError
    from signet_sdk.wire.errors import SignetError as SignetError
    from signet_sdk.wire.errors import UnprocessableEntityError as UnprocessableEntityError
    from signet_sdk.wire.errors import UnsupportedByDaemonError as UnsupportedByDaemonError

    #: Served from the block above (``__getattr__``); declared so type checkers know it.
    __all__: list[str]
    #: Public name -> (module it lives in, its name there).
    _Where = dict[str, tuple[str, str]]


def _public_names(module: str) -> _Where:
    """The names ``module`` re-exports, and where each lives, read from its source.

    Public is what a strict type checker reads as a re-export: ``from M import
    A as A`` at the module's top level or in its ``if TYPE_CHECKING:`` block,
    or, in the block, ``N = A`` after a plain ``from M import A`` (a name
    exported under another one). A plain import (``from typing import Any``)
    stays private, here and there, so the run-time table and what mypy sees
    cannot disagree. A line scan, not ``ast``: a hook process must not pay
    for a parser to look up one name. Statements ruff wraps over several
    lines (``from M import (`` ... ``)``) are read too.
    """
    namespace = vars(_sys.modules[module])
    try:
        with open(namespace["__file__"], encoding="utf-8") as file:
            text = file.read()
    except OSError:  # not a plain file (a zip import): ask the loader
        text = namespace["__loader__"].get_source(module)
    if text.startswith('"""'):  # the module's docstring: prose, however it is worded
        text = text[text.index('"""', 3) + 3 :]
    public: _Where = {}
    private: _Where = {}
    in_block = False
    still_open: str | None = None  # M of a ``from M import (`` not closed yet
    for line in text.splitlines():
        if still_open is None:
            if line.startswith("if TYPE_CHECKING:"):
                in_block = True
                continue
            if line[:1] not in ("", " ", "#"):  # back at the left margin
                in_block = False
                if line.startswith(("def ", "class ", "async ", "@")):
                    break  # code: no module-level import comes after it (ruff E402)
            if not (in_block or line.startswith("from ")):
                continue
        code = line.partition("#")[0]
        words = code.split()
        if still_open is not None:
            source, items = still_open, code
            if ")" in items:
                still_open = None
        elif words[:1] == ["from"] and words[2:3] == ["import"]:
            source, items = words[1], code.partition(" import ")[2]
            if "(" in items and ")" not in items:
                still_open = source
        else:
            if len(words) == 3 and words[1] == "=" and words[2] in private:
                public[words[0]] = private[words[2]]  # in the block: ``N = A``
            continue
        for item in items.replace("(", ",").replace(")", ",").split(","):
            parts = item.split()  # ["A"] or ["A", "as", "N"]
            if parts:
                kept = parts[1:] == ["as", parts[0]]
                (public if kept else private)[parts[-1]] = (source, parts[0])
    return public


def _lazy_module(module: str) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """PEP 562 ``__getattr__`` and ``__dir__`` for a module that states its names in a block.

    The table is built on the first lookup of a missing global and kept as the
    module's ``_WHERE``; each name is imported on first use and kept as a global,
    so it never reaches ``__getattr__`` again. ``__all__`` is the sorted table.
    """
    namespace = vars(_sys.modules[module])

    def where() -> _Where:
        table: _Where | None = namespace.get("_WHERE")
        if table is None:
            table = namespace["_WHERE"] = _public_names(module)
        return table

    def public(name: str) -> object:
        table = where()
        if name == "_WHERE":
            return table
        value: object
        if name == "__all__":
            value = sorted(table)
        elif name in table:
            source, attribute = table[name]
            __import__(source)  # no importlib: this runs in hook processes
            value = getattr(_sys.modules[source], attribute)
        else:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        namespace[name] = value
        return value

    def listing() -> list[str]:
        return sorted(where())

    return public, listing


# Hidden from type checkers: they read the block, so a name that is not public
# (a misspelling, a name that moved to signet_sdk.models) is an error there.
if not TYPE_CHECKING:
    __getattr__, __dir__ = _lazy_module(__name__)
