"""The cross-agent notification block newer daemons attach to hook answers.

Daemons newer than 0.145.8 keep a durable inbox of messages one agent sends
another, and deliver unread ones at the recipient's next compatible hook:
always at session-start and user-prompt-submit, and through
``POST /api/hooks/notifications`` at a harness's own hooks (Claude Code's
``PreToolUse`` ...). Delivery destroys nothing: a message keeps coming back
until the recipient acknowledges it, so the block carries each message's id
and the path that acknowledges it. Peer content is untrusted coordination
data, never instructions; the daemon's ``inject`` text says so to the model.

Shapes as NicholaiVogel/signetai writes them in
platform/daemon/src/notifications/cross-agent-notifications.ts@0f06b2b9
(``HookNotificationItem``, ``HookNotificationsBlock``).
"""

from __future__ import annotations

from pydantic import Field

from ._base import ResponseModel

__all__ = ["HookNotificationItem", "HookNotifications"]


class HookNotificationItem(ResponseModel):
    """One unread message: who sent it, its text (cut at 1 800 characters), how to acknowledge.

    ``contentLength`` is the length before the cut; ``acknowledgePath`` is
    ``/api/cross-agent/messages/<id>/ack`` (POST it once the message is processed).
    Nothing is required: a block the SDK cannot fully read must not cost the
    answer it rides on (a prompt's context).
    """

    id: str = ""
    created_at: str | None = None
    expires_at: str | None = None
    from_agent_id: str | None = None
    from_session_key: str | None = None
    type: str | None = None
    content: str = ""
    content_length: int | None = None
    content_truncated: bool | None = None
    acknowledge_path: str | None = None


class HookNotifications(ResponseModel):
    """At most 10 (default 5) unread messages for this hook, oldest first.

    ``unreadCount`` counts them all and ``hasMore`` says some were left out;
    ``inject`` is the block rendered for the model, which the daemon also
    appends to the answer's own ``inject``. ``acknowledgeTool`` names the MCP
    tool that acknowledges one (``agent_message_ack``).
    """

    hook: str | None = None
    items: list[HookNotificationItem] = Field(default_factory=list)
    unread_count: int | None = None
    has_more: bool | None = None
    acknowledge_tool: str | None = None
    inject: str = ""
