"""The command Claude Code runs for each hook event: ``signet-claude-code-hook <Event>``.

Also reachable as ``signet-sdk hook claude-code <Event>`` and ``python -m
signet_adapter_claude_code.hook <Event>``. The event name may be left out; the
payload's ``hook_event_name`` then names it.

What is Claude-specific here, on top of ``signet_sdk._hookrun``:

* Deadlines: SessionStart and SubagentStart use the session-start budget
  (``SIGNET_SESSION_START_TIMEOUT``, 15 s), UserPromptSubmit the prompt
  budget (``SIGNET_PROMPT_SUBMIT_TIMEOUT``, 5 s), the rest
  ``SIGNET_FETCH_TIMEOUT`` (10 s).
* SessionEnd only hands its call to the outbox and starts a detached flusher:
  Claude Code kills SessionEnd hooks after 1.5 s (before 2.1.74) or after
  ``CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS``, and the daemon's session-end
  can take longer than that.
* SessionStart starts a flusher when earlier writes are still queued (a
  daemon that was down last session).
* Transcripts are read only under Claude Code's own directory:
  ``$CLAUDE_CONFIG_DIR/projects`` when set, else ``~/.claude/projects``, plus
  any directories listed in ``SIGNET_TRANSCRIPT_ROOTS`` (``os.pathsep``
  separated). A ``transcript_path`` elsewhere, or a symlink, is not read.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence

__all__ = ["TIMEOUT_CLASS", "hook_main", "main", "transcript_roots"]

#: Event -> the endpoint map's timeout class that bounds the whole hook process.
TIMEOUT_CLASS: Mapping[str, str] = {
    "SessionStart": "session_start",
    "SubagentStart": "session_start",
    "UserPromptSubmit": "prompt_submit",
}


def transcript_roots(env: Mapping[str, str]) -> list[str]:
    """Directories a Claude Code ``transcript_path`` may resolve into."""
    config_dir = env.get("CLAUDE_CONFIG_DIR", "").strip()
    if not config_dir:
        home = env.get("HOME", "").strip() or os.path.expanduser("~")
        config_dir = os.path.join(home, ".claude")
    roots = [os.path.join(config_dir, "projects")]
    extra = env.get("SIGNET_TRANSCRIPT_ROOTS", "")
    roots += [p for p in extra.split(os.pathsep) if p.strip() and os.path.isabs(p.strip())]
    return roots


def hook_main(argv: Sequence[str] | None = None) -> int:
    """Run one Claude Code hook event; always returns 0 (exit 2 would erase a prompt)."""
    env = os.environ
    if env.get("SIGNET_BYPASS") == "1" or env.get("SIGNET_NO_HOOKS") == "1":
        return 0  # before any import that is not needed to decide this
    from signet_sdk._hookrun import run_hook

    from ._translate import ClaudeCodeTranslator

    args = list(sys.argv[1:] if argv is None else argv)
    event = args[0] if args else None
    translator = ClaudeCodeTranslator(project_dir=env.get("CLAUDE_PROJECT_DIR"))
    return run_hook(
        translator,
        event,
        timeout_class=TIMEOUT_CLASS,
        transcript_roots=transcript_roots(env),
        detach=("SessionEnd",),
        replay_on=("SessionStart",),
    )


def main() -> None:
    """Console-script entry point."""
    sys.exit(hook_main())


if __name__ == "__main__":
    main()
