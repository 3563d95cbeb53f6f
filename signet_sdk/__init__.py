"""signet_sdk: the Signet runtime adapter contract for Python.

Names are loaded on first use (PEP 562), so ``import signet_sdk`` stays
cheap for hook processes that only need the standard-library path, and never
pulls in pydantic, httpx, FastAPI, uvicorn, aiohttp or any adapter.

The public names are listed once, in the ``TYPE_CHECKING`` block below:
type checkers read it as imports, and at run time the same lines are read
(on the first attribute access, not at import) to know where each name lives.
"""

from __future__ import annotations

from signet_sdk._version import __version__ as __version__

TYPE_CHECKING = False
if TYPE_CHECKING:  # the public API, one line per name
    from typing import Any

    from signet_sdk.client.async_client import AsyncAdapterClient as AsyncAdapterClient
    from signet_sdk.client.contract import AsyncRuntimeAdapter as AsyncRuntimeAdapter
    from signet_sdk.client.contract import RuntimeAdapter as RuntimeAdapter
    from signet_sdk.client.sync_client import AdapterClient as AdapterClient
    from signet_sdk.models import *  # noqa: F403
    from signet_sdk.runtime.dispatch import Dispatched as Dispatched
    from signet_sdk.runtime.dispatch import dispatch as dispatch
    from signet_sdk.runtime.dispatch import dispatch_async as dispatch_async
    from signet_sdk.runtime.events import run_event as run_event
    from signet_sdk.runtime.events import run_event_async as run_event_async
    from signet_sdk.runtime.generic import GenericTranslator as GenericTranslator
    from signet_sdk.runtime.native import NativeOutput as NativeOutput
    from signet_sdk.runtime.plugin import EventSpec as EventSpec
    from signet_sdk.runtime.plugin import HarnessPlugin as HarnessPlugin
    from signet_sdk.runtime.registry import BrokenPlugin as BrokenPlugin
    from signet_sdk.runtime.registry import broken_plugins as broken_plugins
    from signet_sdk.runtime.registry import create_adapter as create_adapter
    from signet_sdk.runtime.registry import create_async_adapter as create_async_adapter
    from signet_sdk.runtime.registry import find_plugin as find_plugin
    from signet_sdk.runtime.registry import installed_adapters as installed_adapters
    from signet_sdk.runtime.registry import installed_plugins as installed_plugins
    from signet_sdk.runtime.translator import HarnessTranslator as HarnessTranslator
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
    from signet_sdk.wire.lifecycle import LifecycleCall as LifecycleCall

_where: dict[str, str] | None = None


def _sources() -> dict[str, str]:
    """Public name -> its module, read from the ``TYPE_CHECKING`` block of this file."""
    global _where
    if _where is None:
        import ast

        with open(__file__, encoding="utf-8") as fh:
            tree = ast.parse(fh.read())
        block = next(n for n in tree.body if isinstance(n, ast.If) and n.body)
        found: dict[str, str] = {}
        for node in block.body:
            if isinstance(node, ast.ImportFrom) and node.module and node.module != "typing":
                for alias in node.names:
                    if alias.name != "*":
                        found[alias.asname or alias.name] = node.module
        _where = found
    return _where


def _public_names() -> list[str]:
    """Core names plus every model; listing the models means importing pydantic."""
    from signet_sdk.models import __all__ as models

    return sorted({"__version__", *_sources(), *models})


def __getattr__(name: str) -> Any:
    if name == "__all__":
        value: Any = _public_names()
    elif name.startswith("__"):
        raise AttributeError(f"module 'signet_sdk' has no attribute {name!r}")
    else:
        from importlib import import_module

        module = _sources().get(name)
        if module is None:
            from signet_sdk.models import __all__ as models

            if name not in models:
                raise AttributeError(f"module 'signet_sdk' has no attribute {name!r}")
            module = "signet_sdk.models"
        value = getattr(import_module(module), name)
        if module == "signet_sdk.wire.errors":
            # Tracebacks read signet_sdk.ConflictError, not the module it lives in.
            value.__module__ = __name__
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    all_names: list[str] = __getattr__("__all__")
    return all_names
