"""Finding a harness's adapter: the ``signet_sdk.adapters`` entry-point group.

Built-in adapters register exactly as a third party would, so the mechanism
is proven by our own packages. Only the requested entry point is loaded.
"""

from __future__ import annotations

import inspect
from importlib.metadata import EntryPoint, entry_points

from ._exceptions import AdapterNotFoundError, InvalidAdapterError
from ._harness import AsyncHarnessAdapter, GenericTranslator, HarnessAdapter
from ._translator import HarnessTranslator

TYPE_CHECKING = False
if TYPE_CHECKING:
    import httpx
    from typing_extensions import Unpack

    from ._config import ClientOptions

__all__ = ["ADAPTER_GROUP", "create_adapter", "create_async_adapter", "installed_adapters"]

ADAPTER_GROUP = "signet_sdk.adapters"


def installed_adapters() -> list[str]:
    """Names of every harness with an installed adapter package, sorted."""
    return sorted({ep.name for ep in entry_points(group=ADAPTER_GROUP)})


def _entry_point(harness: str) -> EntryPoint | None:
    found = list(entry_points(group=ADAPTER_GROUP, name=harness))
    targets = {ep.value for ep in found}
    if len(targets) > 1:
        raise InvalidAdapterError(
            f"harness {harness!r} is claimed by several packages: {', '.join(sorted(targets))}"
        )
    return found[0] if found else None


def _load(harness: str) -> type[HarnessAdapter] | None:
    ep = _entry_point(harness)
    if ep is None:
        return None
    try:
        obj = ep.load()
    except Exception as exc:
        raise InvalidAdapterError(
            f"adapter {harness!r} ({ep.value}) failed to load: {exc}"
        ) from exc
    if not (inspect.isclass(obj) and issubclass(obj, HarnessAdapter)):
        raise InvalidAdapterError(
            f"adapter {harness!r} ({ep.value}) is not a signet_sdk.HarnessAdapter subclass"
        )
    if inspect.isabstract(obj):
        raise InvalidAdapterError(f"adapter {harness!r} ({ep.value}) leaves abstract methods")
    if not isinstance(getattr(obj, "translator", None), HarnessTranslator):
        raise InvalidAdapterError(f"adapter {harness!r} ({ep.value}) has no translator")
    return obj


def create_adapter(
    harness: str,
    daemon_url: str | None = None,
    *,
    strict: bool = False,
    http_client: httpx.Client | None = None,
    **config: Unpack[ClientOptions],
) -> HarnessAdapter:
    """The adapter for ``harness``, configured from ``config`` > environment > defaults.

    A harness with no installed package gets the generic adapter under its own
    name (a custom harness needs no package); ``strict=True`` raises
    :class:`AdapterNotFoundError` listing what is installed instead.
    """
    cls = _load(harness)
    if cls is not None:
        return cls(daemon_url, http_client=http_client, **config)
    if strict:
        raise AdapterNotFoundError(harness, installed_adapters())
    translator = GenericTranslator(harness)
    return HarnessAdapter(daemon_url, translator=translator, http_client=http_client, **config)


def create_async_adapter(
    harness: str,
    daemon_url: str | None = None,
    *,
    strict: bool = False,
    http_client: httpx.AsyncClient | None = None,
    **config: Unpack[ClientOptions],
) -> AsyncHarnessAdapter:
    """:func:`create_adapter` for event loops: the same translator, an async client."""
    cls = _load(harness)
    translator: HarnessTranslator
    if cls is not None:
        translator = cls.translator
    elif strict:
        raise AdapterNotFoundError(harness, installed_adapters())
    else:
        translator = GenericTranslator(harness)
    return AsyncHarnessAdapter(daemon_url, translator=translator, http_client=http_client, **config)
