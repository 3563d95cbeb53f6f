"""The lifecycle, once: every action a harness event can become, and one call of it.

This table is the single place that says, for each lifecycle action (the
endpoint name), which ``RuntimeAdapter`` method performs it, the slug used
in URLs and generic event names, the params and result models that type it,
and whether it stores something (and so must survive a killed process).
Every other layer derives its views from here.
"""

from __future__ import annotations

from signet_sdk.wire.record import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

__all__ = ["LIFECYCLE", "LifecycleAction", "LifecycleCall", "action_for_slug"]


class LifecycleAction(Record):
    """One row of the lifecycle table."""

    action: str
    method: str
    slug: str
    params_model: str
    result_model: str
    durable: bool

    def __init__(
        self,
        action: str,
        method: str,
        params_model: str,
        result_model: str,
        *,
        durable: bool = False,
    ) -> None:
        self._init(
            action=action,
            method=method,
            slug=action.replace("_", "-"),
            params_model=params_model,
            result_model=result_model,
            durable=durable,
        )


_ROWS = (
    LifecycleAction(
        "session_start", "on_session_start", "SessionStartParams", "SessionStartResult"
    ),
    LifecycleAction(
        "user_prompt_submit",
        "on_user_prompt_submit",
        "UserPromptSubmitParams",
        "UserPromptSubmitResult",
    ),
    LifecycleAction(
        "session_end", "on_session_end", "SessionEndParams", "SessionEndResult", durable=True
    ),
    LifecycleAction(
        "session_checkpoint_extract",
        "on_session_checkpoint",
        "CheckpointExtractParams",
        "CheckpointExtractResult",
        durable=True,
    ),
    LifecycleAction(
        "pre_compaction", "on_pre_compaction", "PreCompactionParams", "PreCompactionResult"
    ),
    LifecycleAction(
        "compaction_complete",
        "on_compaction_complete",
        "CompactionCompleteParams",
        "CompactionCompleteResult",
        durable=True,
    ),
    LifecycleAction("remember", "remember", "RememberParams", "RememberResult", durable=True),
    LifecycleAction("recall", "recall", "RecallParams", "RecallResult"),
)

#: Action (endpoint name) -> its row, in lifecycle order.
LIFECYCLE: dict[str, LifecycleAction] = {row.action: row for row in _ROWS}
_BY_SLUG = {row.slug: row for row in _ROWS}


def action_for_slug(slug: str) -> LifecycleAction | None:
    """The row for a URL slug or generic event name (``session-start``), or None."""
    return _BY_SLUG.get(slug)


class LifecycleCall(Record):
    """One daemon call a native event implies: the action and its wire body.

    ``body`` uses the daemon's names (``sessionKey``, ``cwd`` ...) and leaves
    out ``harness`` and ``runtimePath``, which the client adds from its config.
    """

    action: str
    body: Mapping[str, Any]

    def __post_init__(self) -> None:
        """Refuse an unknown action here, where the translator's handler makes the call.

        Checked later, a typo (``"precompact"``) surfaced far from its cause: as a
        ``KeyError`` in the hook log or a crashed parity run. A ``PayloadError`` on
        ``action`` is what the client raised for it before, so code that caught that
        still does; a handler that raises it fails open like any translator error.
        """
        if self.action not in LIFECYCLE:
            # Imported only on this rare path: the hook path pays nothing for the check.
            from signet_sdk.wire.errors import PayloadError

            known = ", ".join(LIFECYCLE)
            raise PayloadError(
                "action", f"unknown lifecycle action {self.action!r}; known: {known}"
            )

    @property
    def method(self) -> str:
        """The ``RuntimeAdapter`` method that performs this call."""
        return LIFECYCLE[self.action].method

    @property
    def durable(self) -> bool:
        """True when the call stores something that must not be lost."""
        return LIFECYCLE[self.action].durable
