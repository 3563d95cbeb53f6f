"""Finding harness plugins and building clients: ``create_adapter``.

Every harness package registers one :class:`HarnessPlugin` in the
``signet_sdk.adapters`` entry-point group; built-in adapters register
exactly as a third party would. Only the requested plugin's module is
imported. A harness with no package gets the generic plugin and a working
client under its own name.
"""

from __future__ import annotations

from signet_sdk.runtime.entrypoints import InstalledEntryPoint, entry_points
from signet_sdk.runtime.plugin import HarnessPlugin
from signet_sdk.wire.errors import AdapterNotFoundError, InvalidAdapterError

TYPE_CHECKING = False
if TYPE_CHECKING:
    import httpx
    from typing_extensions import Unpack

    from signet_sdk.client.async_client import AsyncAdapterClient
    from signet_sdk.client.sync_client import AdapterClient
    from signet_sdk.wire.config import ClientOptions

__all__ = [
    "ADAPTER_GROUP",
    "BrokenPlugin",
    "broken_plugins",
    "create_adapter",
    "create_async_adapter",
    "find_plugin",
    "installed_adapters",
    "installed_plugins",
    "plugin_for",
]

ADAPTER_GROUP = "signet_sdk.adapters"


def installed_adapters() -> list[str]:
    """Names of every harness with an installed plugin, sorted."""
    return sorted({ep.name for ep in entry_points(ADAPTER_GROUP)})


def _entry_point(harness: str) -> InstalledEntryPoint | None:
    found = [ep for ep in entry_points(ADAPTER_GROUP) if ep.name == harness]
    targets = {ep.value for ep in found}
    if len(targets) > 1:
        raise InvalidAdapterError(
            f"harness {harness!r} is claimed by several packages: {', '.join(sorted(targets))}"
        )
    return found[0] if found else None


def _load(ep: InstalledEntryPoint) -> HarnessPlugin:
    from signet_sdk.runtime.plugin import _load_ref

    try:
        obj = _load_ref(ep.value)
    except Exception as exc:
        raise InvalidAdapterError(
            f"adapter {ep.name!r} ({ep.value}) failed to load: {exc}"
        ) from exc
    if not isinstance(obj, HarnessPlugin):
        raise InvalidAdapterError(
            f"adapter {ep.name!r} ({ep.value}) is not a signet_sdk.plugin.HarnessPlugin "
            f"(got {type(obj).__name__})"
        )
    if obj.name != ep.name:
        raise InvalidAdapterError(
            f"adapter {ep.name!r} ({ep.value}) is registered under another name: {obj.name!r}"
        )
    # The dist-info folder holds the name normalised with underscores; show the
    # PEP 503 form users type into pip.
    obj.distribution = ep.distribution.replace("_", "-").lower()
    obj.version = ep.version
    return obj


def find_plugin(harness: str) -> HarnessPlugin | None:
    """The installed plugin for ``harness``, or None; raises InvalidAdapterError if broken."""
    ep = _entry_point(harness)
    return None if ep is None else _load(ep)


def plugin_for(harness: str, *, strict: bool = False) -> HarnessPlugin:
    """The installed plugin, else the generic one (``strict`` raises AdapterNotFoundError)."""
    if not isinstance(harness, str) or not harness:
        from signet_sdk.wire.errors import ConfigError

        raise ConfigError("harness", f"must be a non-empty string such as 'openclaw': {harness!r}")
    plugin = find_plugin(harness)
    if plugin is not None:
        return plugin
    if strict:
        raise AdapterNotFoundError(harness, installed_adapters())
    from signet_sdk.runtime.generic import generic_plugin

    return generic_plugin(harness)


class BrokenPlugin:
    """An installed plugin that cannot be used: its name, entry point and why."""

    __slots__ = ("name", "reason", "target")

    def __init__(self, name: str, target: str, reason: str) -> None:
        self.name, self.target, self.reason = name, target, reason

    def __repr__(self) -> str:
        return f"BrokenPlugin({self.name!r}, {self.reason!r})"


def _scan() -> tuple[list[HarnessPlugin], list[BrokenPlugin]]:
    """Every installed plugin loaded, or set aside with the reason it cannot load."""
    good: list[HarnessPlugin] = []
    bad: list[BrokenPlugin] = []
    names: dict[str, int] = {}
    eps = sorted(entry_points(ADAPTER_GROUP), key=lambda e: (e.name, e.value))
    for ep in eps:
        names[ep.name] = names.get(ep.name, 0) + 1
    for ep in eps:
        if names[ep.name] > 1:
            bad.append(BrokenPlugin(ep.name, ep.value, "claimed by several packages"))
            continue
        try:
            good.append(_load(ep))
        except InvalidAdapterError as exc:
            bad.append(BrokenPlugin(ep.name, ep.value, str(exc)))
    return good, bad


def installed_plugins() -> list[HarnessPlugin]:
    """Every installed plugin that loads, sorted by name (see :func:`broken_plugins`).

    One package that fails to import must not take the others down: it is
    left out here and reported by :func:`broken_plugins` instead.
    """
    return _scan()[0]


def broken_plugins() -> list[BrokenPlugin]:
    """Installed plugins that fail to import or to validate, each with its reason."""
    return _scan()[1]


def _options(plugin: HarnessPlugin, options: ClientOptions) -> ClientOptions:
    if plugin.runtime_path is not None and "runtime_path" not in options:
        options["runtime_path"] = plugin.runtime_path  # type: ignore[typeddict-item]
    return options


def create_adapter(
    harness: str,
    daemon_url: str | None = None,
    *,
    strict: bool = False,
    http_client: httpx.Client | None = None,
    **options: Unpack[ClientOptions],
) -> AdapterClient:
    """The pre-wired client for ``harness``: an ``AdapterClient`` implementing ``RuntimeAdapter``.

    Configured from ``options`` > environment > defaults; an installed
    plugin contributes its runtime path. A harness with no installed package
    gets a working client under its own name; ``strict=True`` raises
    :class:`AdapterNotFoundError` listing what is installed instead.
    """
    from signet_sdk.client.sync_client import AdapterClient

    plugin = plugin_for(harness, strict=strict)
    return AdapterClient(harness, daemon_url, http_client=http_client, **_options(plugin, options))


def create_async_adapter(
    harness: str,
    daemon_url: str | None = None,
    *,
    strict: bool = False,
    http_client: httpx.AsyncClient | None = None,
    **options: Unpack[ClientOptions],
) -> AsyncAdapterClient:
    """:func:`create_adapter` for event loops: an ``AsyncAdapterClient``."""
    from signet_sdk.client.async_client import AsyncAdapterClient

    plugin = plugin_for(harness, strict=strict)
    return AsyncAdapterClient(
        harness, daemon_url, http_client=http_client, **_options(plugin, options)
    )
