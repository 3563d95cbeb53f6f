"""The runtime adapter contract: the lifecycle every harness integration speaks.

Each method is one daemon call. A harness adapter subclasses this (usually
through :class:`~signet_sdk.AdapterClient`, which implements it over HTTP)
and adds only translation between the harness's native events and these
typed calls.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

import signet_sdk.models as models

__all__ = ["AsyncRuntimeAdapter", "RuntimeAdapter"]


class RuntimeAdapter(ABC):
    """A harness's view of the daemon: the lifecycle, synchronously."""

    @property
    @abstractmethod
    def harness(self) -> str:
        """The harness id sent as ``harness`` on every hook (``claude-code``, ...)."""

    @abstractmethod
    def on_session_start(self, params: models.SessionStartParams) -> models.SessionStartResult:
        """Session began: returns the memories and text to inject."""

    @abstractmethod
    def on_user_prompt_submit(
        self, params: models.UserPromptSubmitParams
    ) -> models.UserPromptSubmitResult:
        """A prompt is about to reach the model: returns per-turn context."""

    @abstractmethod
    def on_session_end(self, params: models.SessionEndParams) -> models.SessionEndResult:
        """Session ended: persists the transcript and queues extraction."""

    @abstractmethod
    def on_session_checkpoint(
        self, params: models.CheckpointExtractParams
    ) -> models.CheckpointExtractResult:
        """Mid-session: extracts what the transcript gained since the last checkpoint."""

    @abstractmethod
    def on_pre_compaction(self, params: models.PreCompactionParams) -> models.PreCompactionResult:
        """Compaction is about to run: returns the summary prompt and guidelines."""

    @abstractmethod
    def on_compaction_complete(
        self, params: models.CompactionCompleteParams
    ) -> models.CompactionCompleteResult:
        """Compaction produced a summary: stores it as a memory."""

    @abstractmethod
    def remember(self, params: models.RememberParams) -> models.RememberResult:
        """Stores one memory."""

    @abstractmethod
    def recall(self, params: models.RecallParams) -> models.RecallResult:
        """Searches memories."""


class AsyncRuntimeAdapter(ABC):
    """The same lifecycle for harnesses that run an event loop."""

    @property
    @abstractmethod
    def harness(self) -> str:
        """The harness id sent as ``harness`` on every hook."""

    @abstractmethod
    async def on_session_start(
        self, params: models.SessionStartParams
    ) -> models.SessionStartResult:
        """Session began: returns the memories and text to inject."""

    @abstractmethod
    async def on_user_prompt_submit(
        self, params: models.UserPromptSubmitParams
    ) -> models.UserPromptSubmitResult:
        """A prompt is about to reach the model: returns per-turn context."""

    @abstractmethod
    async def on_session_end(self, params: models.SessionEndParams) -> models.SessionEndResult:
        """Session ended: persists the transcript and queues extraction."""

    @abstractmethod
    async def on_session_checkpoint(
        self, params: models.CheckpointExtractParams
    ) -> models.CheckpointExtractResult:
        """Mid-session: extracts what the transcript gained since the last checkpoint."""

    @abstractmethod
    async def on_pre_compaction(
        self, params: models.PreCompactionParams
    ) -> models.PreCompactionResult:
        """Compaction is about to run: returns the summary prompt and guidelines."""

    @abstractmethod
    async def on_compaction_complete(
        self, params: models.CompactionCompleteParams
    ) -> models.CompactionCompleteResult:
        """Compaction produced a summary: stores it as a memory."""

    @abstractmethod
    async def remember(self, params: models.RememberParams) -> models.RememberResult:
        """Stores one memory."""

    @abstractmethod
    async def recall(self, params: models.RecallParams) -> models.RecallResult:
        """Searches memories."""
