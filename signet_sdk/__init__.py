"""signet_sdk: the Signet runtime adapter contract for Python.

Names are loaded on first use (PEP 562), so ``import signet_sdk`` stays
cheap for hook processes that only need the standard-library path, and never
pulls in FastAPI, uvicorn, aiohttp or any adapter.
"""

from __future__ import annotations

from importlib import import_module

from ._version import __version__ as __version__

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ._adapter import (
        AsyncRuntimeAdapter as AsyncRuntimeAdapter,
    )
    from ._adapter import (
        RuntimeAdapter as RuntimeAdapter,
    )
    from ._aiohttp_transport import AiohttpTransport as AiohttpTransport
    from ._async_client import AsyncAdapterClient as AsyncAdapterClient
    from ._client import AdapterClient as AdapterClient
    from ._config import ClientConfig as ClientConfig
    from ._config import Timeouts as Timeouts
    from ._exceptions import (
        AdapterNotFoundError as AdapterNotFoundError,
    )
    from ._exceptions import (
        APIConnectionError as APIConnectionError,
    )
    from ._exceptions import (
        APIError as APIError,
    )
    from ._exceptions import (
        APIResponseValidationError as APIResponseValidationError,
    )
    from ._exceptions import (
        APIStatusError as APIStatusError,
    )
    from ._exceptions import (
        APITimeoutError as APITimeoutError,
    )
    from ._exceptions import (
        AuthenticationError as AuthenticationError,
    )
    from ._exceptions import (
        BadRequestError as BadRequestError,
    )
    from ._exceptions import (
        ConfigError as ConfigError,
    )
    from ._exceptions import (
        ConflictError as ConflictError,
    )
    from ._exceptions import (
        GoneError as GoneError,
    )
    from ._exceptions import (
        InternalServerError as InternalServerError,
    )
    from ._exceptions import (
        InvalidAdapterError as InvalidAdapterError,
    )
    from ._exceptions import (
        NotFoundError as NotFoundError,
    )
    from ._exceptions import (
        NotSentError as NotSentError,
    )
    from ._exceptions import (
        PayloadError as PayloadError,
    )
    from ._exceptions import (
        PayloadTooLargeError as PayloadTooLargeError,
    )
    from ._exceptions import (
        PermissionDeniedError as PermissionDeniedError,
    )
    from ._exceptions import (
        RateLimitError as RateLimitError,
    )
    from ._exceptions import (
        ServiceUnavailableError as ServiceUnavailableError,
    )
    from ._exceptions import (
        SignetError as SignetError,
    )
    from ._exceptions import (
        UnprocessableEntityError as UnprocessableEntityError,
    )
    from ._harness import (
        AsyncHarnessAdapter as AsyncHarnessAdapter,
    )
    from ._harness import (
        GenericTranslator as GenericTranslator,
    )
    from ._harness import (
        HarnessAdapter as HarnessAdapter,
    )
    from ._lifecycle import (
        LifecycleCall as LifecycleCall,
    )
    from ._lifecycle import (
        NativeOutput as NativeOutput,
    )
    from ._models import *  # noqa: F403
    from ._registry import (
        create_adapter as create_adapter,
    )
    from ._registry import (
        create_async_adapter as create_async_adapter,
    )
    from ._registry import (
        installed_adapters as installed_adapters,
    )
    from ._translator import (
        HarnessTranslator as HarnessTranslator,
    )

_SOURCES: dict[str, tuple[str, ...]] = {
    "._adapter": ("AsyncRuntimeAdapter", "RuntimeAdapter"),
    "._aiohttp_transport": ("AiohttpTransport",),
    "._async_client": ("AsyncAdapterClient",),
    "._client": ("AdapterClient",),
    "._config": ("ClientConfig", "Timeouts"),
    "._exceptions": (
        "APIConnectionError",
        "APIError",
        "APIResponseValidationError",
        "APIStatusError",
        "APITimeoutError",
        "AdapterNotFoundError",
        "AuthenticationError",
        "BadRequestError",
        "ConfigError",
        "ConflictError",
        "GoneError",
        "InternalServerError",
        "InvalidAdapterError",
        "NotFoundError",
        "NotSentError",
        "PayloadError",
        "PayloadTooLargeError",
        "PermissionDeniedError",
        "RateLimitError",
        "ServiceUnavailableError",
        "SignetError",
        "UnprocessableEntityError",
    ),
    "._harness": ("AsyncHarnessAdapter", "GenericTranslator", "HarnessAdapter"),
    "._lifecycle": ("LifecycleCall", "NativeOutput"),
    "._translator": ("HarnessTranslator",),
    "._registry": ("create_adapter", "create_async_adapter", "installed_adapters"),
}

_WHERE: dict[str, str] = {name: mod for mod, names in _SOURCES.items() for name in names}
_CORE_ALL = sorted({"__version__", *_WHERE})


def _public_names() -> list[str]:
    """Core names plus every model; listing the models means importing pydantic."""
    from ._models import __all__ as models

    return sorted({*_CORE_ALL, *models})


def __getattr__(name: str) -> Any:
    # ``__all__`` is computed on first use so that ``import signet_sdk`` stays
    # light; the models' names live once, in ``signet_sdk._models.__all__``.
    if name == "__all__":
        value: Any = _public_names()
    else:
        module = _WHERE.get(name)
        if module is None and name.startswith("__"):
            raise AttributeError(f"module 'signet_sdk' has no attribute {name!r}")
        if module is None:
            from ._models import __all__ as models

            if name not in models:
                raise AttributeError(f"module 'signet_sdk' has no attribute {name!r}")
            module = "._models"
        value = getattr(import_module(module, __name__), name)
        if module == "._exceptions":
            # Tracebacks read signet_sdk.ConflictError, not the private module.
            value.__module__ = __name__
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    all_names: list[str] = __getattr__("__all__")
    return all_names
