"""Claude Code hook events <-> Signet lifecycle calls, as pure data.

Claude Code runs a command for each hook event and hands it one JSON object
on stdin (``session_id``, ``transcript_path``, ``cwd``, ``hook_event_name``
plus per-event fields). This module turns that object into the daemon calls
it implies and turns the daemon's answers into the bytes Claude Code reads
back. It performs no I/O and imports only the standard library and
``signet_sdk``'s stdlib core, because the hook process imports it for every
prompt.

Choices that the daemon contract leaves open, and why:

* The session key is ``session_id``. The project is ``CLAUDE_PROJECT_DIR``
  when the hook runner passes it (it stays the project root when the model
  changes directory), else the payload's ``cwd``.
* ``agentId`` never comes from the payload: Claude's ``agent_id`` names a
  subagent inside one session, so it travels as the lineage hint
  ``harnessAgentId``. The persistence agent comes from ``SIGNET_AGENT_ID``
  and the client adds it.
* ``Stop`` fires after every assistant reply. It becomes a mid-session
  checkpoint carrying the transcript, so a session that never ends cleanly
  (killed terminal, crash) has still handed its turns over.
* ``PreCompact`` output never reaches the model, so its answer is not
  printed; the call still records a pre-compaction checkpoint. ``PostCompact``
  carries Claude's own summary to ``compaction-complete``.
* ``SessionEnd`` forwards ``reason`` verbatim. For ``clear`` the daemon
  discards the session's continuity state and reads no transcript, which is
  what ``/clear`` asks for; the per-turn checkpoints already delivered what
  was said, so no transcript is attached to that call.
* ``SubagentStart`` asks the daemon for context under the parent session
  with the subagent as ``harnessAgentId`` and injects it into the subagent.
  ``SubagentStop`` sends nothing: a subagent's result returns into the parent
  transcript, which the parent's checkpoints carry, and compaction also
  fires ``SubagentStop`` for its internal fork, which must not count as work
  the user saw.
* ``UserPromptSubmit`` sends no transcript. The per-turn checkpoint already
  keeps the daemon's copy current, and staging a file on every prompt would
  sit on the prompt's critical path.
"""

from __future__ import annotations

from signet_sdk.plugin import CommandHookTranslator, LifecycleCall, on, string

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

__all__ = ["EVENTS", "NOT_APPLICABLE", "TRANSLATOR", "ClaudeCodeTranslator", "translator_for"]

#: The memory tool rows are served by the MCP server the installer registers
#: (``HarnessPlugin.tools = "mcp"``); the parity suite exercises them.
NOT_APPLICABLE: Mapping[str, str] = {
    "health": "a daemon status check, not a lifecycle moment of a Claude Code session",
}


class ClaudeCodeTranslator(CommandHookTranslator):
    """The pure half of the Claude Code adapter (a ``HarnessTranslator``).

    ``project_dir`` is the hook environment's ``CLAUDE_PROJECT_DIR``; the
    translator does not read the environment itself so that the same input
    always gives the same calls. Each handler gets the payload and its
    ``session_id``; its ``@on`` line is the event's entry in the plugin.

    Only SessionStart, UserPromptSubmit and SubagentStart put hook output in
    front of the model (``additionalContext``, printed as compact JSON); an
    empty context, like every other event and every failure, is exit 0 and
    no stdout. Never exit 2, which on UserPromptSubmit erases the prompt.
    """

    harness = "claude-code"
    not_applicable = NOT_APPLICABLE
    context_events = frozenset({"SessionStart", "UserPromptSubmit", "SubagentStart"})
    prompt_events = frozenset({"UserPromptSubmit"})

    def __init__(self, project_dir: str | None = None) -> None:
        self.project_dir = project_dir or None

    def project(self, payload: Mapping[str, Any]) -> str | None:
        """``CLAUDE_PROJECT_DIR`` when the hook ran with it, else the event's ``cwd``."""
        cwd = string(payload, "cwd")
        return self.project_dir or cwd or None

    @on("SessionStart", "session_start", flushes=True)
    def _session_start(self, p: Mapping[str, Any], session: str) -> list[LifecycleCall]:
        project, source = self.project(p), string(p, "source")
        agent = string(p, "agent_id")
        parent = string(p, "parent_session_id") or string(p, "parent_session_key")
        call = self.session_start_call(
            session, project, source, harnessAgentId=agent, parentSessionKey=parent
        )
        return [call]

    @on("UserPromptSubmit", "prompt_submit")
    def _prompt(self, p: Mapping[str, Any], session: str) -> list[LifecycleCall]:
        prompt = self.required_prompt(p)
        agent = string(p, "agent_id")
        return self.prompt_calls(session, prompt, self.project(p), harnessAgentId=agent)

    @on("Stop")
    def _stop(self, p: Mapping[str, Any], session: str) -> list[LifecycleCall]:
        transcript = string(p, "transcript_path", required=True)
        assert transcript is not None
        return [self.checkpoint_call(session, self.project(p), transcript)]

    @on("PreCompact")
    def _pre_compact(self, p: Mapping[str, Any], session: str) -> list[LifecycleCall]:
        return self.pre_compact_calls(p, session, "Claude Code")

    @on("PostCompact")
    def _post_compact(self, p: Mapping[str, Any], session: str) -> list[LifecycleCall]:
        summary = string(p, "compact_summary", required=True)
        assert summary is not None
        return [self.compaction_call(session, summary, self.project(p))]

    _subagent_start, _subagent_stop = CommandHookTranslator.subagent_handlers()

    @on("SessionEnd", detach=True)
    def _session_end(self, p: Mapping[str, Any], session: str) -> list[LifecycleCall]:
        reason = string(p, "reason") or "other"
        cwd = self.project(p)
        return [self.session_end_call(session, cwd, reason, string(p, "transcript_path"))]


#: Native events this adapter understands, in lifecycle order.
EVENTS = ClaudeCodeTranslator.event_names

#: The shared instance for callers that have no ``CLAUDE_PROJECT_DIR`` to pass.
TRANSLATOR = ClaudeCodeTranslator()


def translator_for(env: Mapping[str, str]) -> ClaudeCodeTranslator:
    """The translator for a hook process: the project is ``CLAUDE_PROJECT_DIR`` when set."""
    return ClaudeCodeTranslator(project_dir=env.get("CLAUDE_PROJECT_DIR"))
