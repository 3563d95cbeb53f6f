"""signet_sdk: the Signet runtime adapter contract for Python.

Names are loaded on first use (PEP 562), so ``import signet_sdk`` stays
cheap for hook processes that only need the standard-library path, and never
pulls in pydantic, httpx, FastAPI, uvicorn, aiohttp or any adapter.

The public names are listed twice, and a test holds the two lists equal:
the ``TYPE_CHECKING`` block below, which type checkers read as imports, and
``_WHERE``, a literal table of where each core name lives, which is what
runs; ``__all__`` is their union with the models' names, literal and sorted.
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
    from signet_sdk.models import BatchForgetRequest as BatchForgetRequest
    from signet_sdk.models import BatchForgetResult as BatchForgetResult
    from signet_sdk.models import BatchModifyItem as BatchModifyItem
    from signet_sdk.models import BatchModifyRequest as BatchModifyRequest
    from signet_sdk.models import BatchModifyResult as BatchModifyResult
    from signet_sdk.models import CheckpointExtractParams as CheckpointExtractParams
    from signet_sdk.models import CheckpointExtractRequest as CheckpointExtractRequest
    from signet_sdk.models import CheckpointExtractResult as CheckpointExtractResult
    from signet_sdk.models import CompactionCompleteParams as CompactionCompleteParams
    from signet_sdk.models import CompactionCompleteRequest as CompactionCompleteRequest
    from signet_sdk.models import CompactionCompleteResult as CompactionCompleteResult
    from signet_sdk.models import ExpandedTranscript as ExpandedTranscript
    from signet_sdk.models import ForgetCandidate as ForgetCandidate
    from signet_sdk.models import ForgetItem as ForgetItem
    from signet_sdk.models import ForgetMemoryRequest as ForgetMemoryRequest
    from signet_sdk.models import ForgetMemoryResult as ForgetMemoryResult
    from signet_sdk.models import HealthDatabaseIntegrity as HealthDatabaseIntegrity
    from signet_sdk.models import HealthPipeline as HealthPipeline
    from signet_sdk.models import HealthStatus as HealthStatus
    from signet_sdk.models import HealthWorkspace as HealthWorkspace
    from signet_sdk.models import HookNotificationItem as HookNotificationItem
    from signet_sdk.models import HookNotifications as HookNotifications
    from signet_sdk.models import HookResult as HookResult
    from signet_sdk.models import Identity as Identity
    from signet_sdk.models import InjectedMemory as InjectedMemory
    from signet_sdk.models import LinkedMemory as LinkedMemory
    from signet_sdk.models import LogEntry as LogEntry
    from signet_sdk.models import LogError as LogError
    from signet_sdk.models import LogList as LogList
    from signet_sdk.models import MemoryPatch as MemoryPatch
    from signet_sdk.models import MemoryRecallRequest as MemoryRecallRequest
    from signet_sdk.models import MemoryRecallResult as MemoryRecallResult
    from signet_sdk.models import MemoryRecord as MemoryRecord
    from signet_sdk.models import MemoryRememberRequest as MemoryRememberRequest
    from signet_sdk.models import ModifyMemoryRequest as ModifyMemoryRequest
    from signet_sdk.models import ModifyMemoryResult as ModifyMemoryResult
    from signet_sdk.models import NotificationsParams as NotificationsParams
    from signet_sdk.models import NotificationsRequest as NotificationsRequest
    from signet_sdk.models import NotificationsResult as NotificationsResult
    from signet_sdk.models import PreCompactionParams as PreCompactionParams
    from signet_sdk.models import PreCompactionRequest as PreCompactionRequest
    from signet_sdk.models import PreCompactionResult as PreCompactionResult
    from signet_sdk.models import RecallAggregate as RecallAggregate
    from signet_sdk.models import RecallDedupe as RecallDedupe
    from signet_sdk.models import RecallHit as RecallHit
    from signet_sdk.models import RecallMeta as RecallMeta
    from signet_sdk.models import RecallParams as RecallParams
    from signet_sdk.models import RecallRequest as RecallRequest
    from signet_sdk.models import RecallResult as RecallResult
    from signet_sdk.models import RecallTime as RecallTime
    from signet_sdk.models import RememberParams as RememberParams
    from signet_sdk.models import RememberRequest as RememberRequest
    from signet_sdk.models import RememberResult as RememberResult
    from signet_sdk.models import RequestModel as RequestModel
    from signet_sdk.models import ResponseModel as ResponseModel
    from signet_sdk.models import SecretsExecJob as SecretsExecJob
    from signet_sdk.models import SecretsExecRequest as SecretsExecRequest
    from signet_sdk.models import SecretsExecResult as SecretsExecResult
    from signet_sdk.models import SessionBypassRequest as SessionBypassRequest
    from signet_sdk.models import SessionBypassResult as SessionBypassResult
    from signet_sdk.models import SessionEndParams as SessionEndParams
    from signet_sdk.models import SessionEndRequest as SessionEndRequest
    from signet_sdk.models import SessionEndResult as SessionEndResult
    from signet_sdk.models import SessionInfo as SessionInfo
    from signet_sdk.models import SessionList as SessionList
    from signet_sdk.models import SessionRenewResult as SessionRenewResult
    from signet_sdk.models import SessionSearchHit as SessionSearchHit
    from signet_sdk.models import SessionSearchRequest as SessionSearchRequest
    from signet_sdk.models import SessionSearchResult as SessionSearchResult
    from signet_sdk.models import SessionStartParams as SessionStartParams
    from signet_sdk.models import SessionStartRequest as SessionStartRequest
    from signet_sdk.models import SessionStartResult as SessionStartResult
    from signet_sdk.models import SessionSummaryList as SessionSummaryList
    from signet_sdk.models import SessionSummaryRow as SessionSummaryRow
    from signet_sdk.models import SessionTranscript as SessionTranscript
    from signet_sdk.models import SignetModel as SignetModel
    from signet_sdk.models import SummaryExpandRequest as SummaryExpandRequest
    from signet_sdk.models import SummaryExpandResult as SummaryExpandResult
    from signet_sdk.models import SummaryNode as SummaryNode
    from signet_sdk.models import SynthesisCompleteRequest as SynthesisCompleteRequest
    from signet_sdk.models import SynthesisCompleteResult as SynthesisCompleteResult
    from signet_sdk.models import SynthesisConfig as SynthesisConfig
    from signet_sdk.models import SynthesisRequest as SynthesisRequest
    from signet_sdk.models import SynthesisResult as SynthesisResult
    from signet_sdk.models import UserPromptSubmitParams as UserPromptSubmitParams
    from signet_sdk.models import UserPromptSubmitRequest as UserPromptSubmitRequest
    from signet_sdk.models import UserPromptSubmitResult as UserPromptSubmitResult
    from signet_sdk.runtime.dispatch import Dispatched as Dispatched
    from signet_sdk.runtime.dispatch import dispatch as dispatch
    from signet_sdk.runtime.dispatch import dispatch_async as dispatch_async
    from signet_sdk.runtime.events import client_sender as client_sender
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
    from signet_sdk.wire.lifecycle import LifecycleCall as LifecycleCall

#: Core public name -> the module it lives in (the models are in ``signet_sdk.models``).
_WHERE: dict[str, str] = {
    "AdapterClient": "signet_sdk.client.sync_client",
    "AdapterNotFoundError": "signet_sdk.wire.errors",
    "APIConnectionError": "signet_sdk.wire.errors",
    "APIError": "signet_sdk.wire.errors",
    "APIResponseValidationError": "signet_sdk.wire.errors",
    "APIStatusError": "signet_sdk.wire.errors",
    "APITimeoutError": "signet_sdk.wire.errors",
    "AsyncAdapterClient": "signet_sdk.client.async_client",
    "AsyncRuntimeAdapter": "signet_sdk.client.contract",
    "AuthenticationError": "signet_sdk.wire.errors",
    "BadRequestError": "signet_sdk.wire.errors",
    "BreakerOpenError": "signet_sdk.wire.errors",
    "broken_plugins": "signet_sdk.runtime.registry",
    "client_sender": "signet_sdk.runtime.events",
    "BrokenPlugin": "signet_sdk.runtime.registry",
    "ClientConfig": "signet_sdk.wire.config",
    "ConfigError": "signet_sdk.wire.errors",
    "ConflictError": "signet_sdk.wire.errors",
    "create_adapter": "signet_sdk.runtime.registry",
    "create_async_adapter": "signet_sdk.runtime.registry",
    "dispatch": "signet_sdk.runtime.dispatch",
    "dispatch_async": "signet_sdk.runtime.dispatch",
    "Dispatched": "signet_sdk.runtime.dispatch",
    "EventSpec": "signet_sdk.runtime.plugin",
    "find_plugin": "signet_sdk.runtime.registry",
    "GenericTranslator": "signet_sdk.runtime.generic",
    "GoneError": "signet_sdk.wire.errors",
    "HarnessPlugin": "signet_sdk.runtime.plugin",
    "HarnessTranslator": "signet_sdk.runtime.translator",
    "installed_adapters": "signet_sdk.runtime.registry",
    "installed_plugins": "signet_sdk.runtime.registry",
    "InternalServerError": "signet_sdk.wire.errors",
    "InvalidAdapterError": "signet_sdk.wire.errors",
    "JobFailedError": "signet_sdk.wire.errors",
    "LifecycleCall": "signet_sdk.wire.lifecycle",
    "NativeOutput": "signet_sdk.runtime.native",
    "NotFoundError": "signet_sdk.wire.errors",
    "NotSentError": "signet_sdk.wire.errors",
    "PayloadError": "signet_sdk.wire.errors",
    "PayloadTooLargeError": "signet_sdk.wire.errors",
    "PermissionDeniedError": "signet_sdk.wire.errors",
    "RateLimitError": "signet_sdk.wire.errors",
    "run_event": "signet_sdk.runtime.events",
    "run_event_async": "signet_sdk.runtime.events",
    "RuntimeAdapter": "signet_sdk.client.contract",
    "ServiceUnavailableError": "signet_sdk.wire.errors",
    "SignetError": "signet_sdk.wire.errors",
    "Timeouts": "signet_sdk.wire.config",
    "UnprocessableEntityError": "signet_sdk.wire.errors",
    "UnsupportedByDaemonError": "signet_sdk.wire.errors",
}

__all__ = [
    "APIConnectionError",
    "APIError",
    "APIResponseValidationError",
    "APIStatusError",
    "APITimeoutError",
    "AdapterClient",
    "AdapterNotFoundError",
    "AsyncAdapterClient",
    "AsyncRuntimeAdapter",
    "AuthenticationError",
    "BadRequestError",
    "BatchForgetRequest",
    "BatchForgetResult",
    "BatchModifyItem",
    "BatchModifyRequest",
    "BatchModifyResult",
    "BreakerOpenError",
    "BrokenPlugin",
    "CheckpointExtractParams",
    "CheckpointExtractRequest",
    "CheckpointExtractResult",
    "ClientConfig",
    "CompactionCompleteParams",
    "CompactionCompleteRequest",
    "CompactionCompleteResult",
    "ConfigError",
    "ConflictError",
    "Dispatched",
    "EventSpec",
    "ExpandedTranscript",
    "ForgetCandidate",
    "ForgetItem",
    "ForgetMemoryRequest",
    "ForgetMemoryResult",
    "GenericTranslator",
    "GoneError",
    "HarnessPlugin",
    "HarnessTranslator",
    "HealthDatabaseIntegrity",
    "HealthPipeline",
    "HealthStatus",
    "HealthWorkspace",
    "HookNotificationItem",
    "HookNotifications",
    "HookResult",
    "Identity",
    "InjectedMemory",
    "InternalServerError",
    "InvalidAdapterError",
    "JobFailedError",
    "LifecycleCall",
    "LinkedMemory",
    "LogEntry",
    "LogError",
    "LogList",
    "MemoryPatch",
    "MemoryRecallRequest",
    "MemoryRecallResult",
    "MemoryRecord",
    "MemoryRememberRequest",
    "ModifyMemoryRequest",
    "ModifyMemoryResult",
    "NativeOutput",
    "NotFoundError",
    "NotSentError",
    "NotificationsParams",
    "NotificationsRequest",
    "NotificationsResult",
    "PayloadError",
    "PayloadTooLargeError",
    "PermissionDeniedError",
    "PreCompactionParams",
    "PreCompactionRequest",
    "PreCompactionResult",
    "RateLimitError",
    "RecallAggregate",
    "RecallDedupe",
    "RecallHit",
    "RecallMeta",
    "RecallParams",
    "RecallRequest",
    "RecallResult",
    "RecallTime",
    "RememberParams",
    "RememberRequest",
    "RememberResult",
    "RequestModel",
    "ResponseModel",
    "RuntimeAdapter",
    "SecretsExecJob",
    "SecretsExecRequest",
    "SecretsExecResult",
    "ServiceUnavailableError",
    "SessionBypassRequest",
    "SessionBypassResult",
    "SessionEndParams",
    "SessionEndRequest",
    "SessionEndResult",
    "SessionInfo",
    "SessionList",
    "SessionRenewResult",
    "SessionSearchHit",
    "SessionSearchRequest",
    "SessionSearchResult",
    "SessionStartParams",
    "SessionStartRequest",
    "SessionStartResult",
    "SessionSummaryList",
    "SessionSummaryRow",
    "SessionTranscript",
    "SignetError",
    "SignetModel",
    "SummaryExpandRequest",
    "SummaryExpandResult",
    "SummaryNode",
    "SynthesisCompleteRequest",
    "SynthesisCompleteResult",
    "SynthesisConfig",
    "SynthesisRequest",
    "SynthesisResult",
    "Timeouts",
    "UnprocessableEntityError",
    "UnsupportedByDaemonError",
    "UserPromptSubmitParams",
    "UserPromptSubmitRequest",
    "UserPromptSubmitResult",
    "__version__",
    "broken_plugins",
    "client_sender",
    "create_adapter",
    "create_async_adapter",
    "dispatch",
    "dispatch_async",
    "find_plugin",
    "installed_adapters",
    "installed_plugins",
    "run_event",
    "run_event_async",
]


def __getattr__(name: str) -> Any:
    if name.startswith("__"):
        raise AttributeError(f"module 'signet_sdk' has no attribute {name!r}")
    from importlib import import_module

    module = _WHERE.get(name)
    if module is None:
        if name not in __all__:
            raise AttributeError(f"module 'signet_sdk' has no attribute {name!r}")
        module = "signet_sdk.models"
    value = getattr(import_module(module), name)
    if module == "signet_sdk.wire.errors":
        # Tracebacks read signet_sdk.ConflictError, not the module it lives in.
        value.__module__ = __name__
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return list(__all__)
