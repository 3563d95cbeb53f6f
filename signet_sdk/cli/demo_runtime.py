"""The demo's runtime story: two sessions of the reference runtime on one daemon.

Session one: the model is told a fact and stores it with ``memory_store``
(a real tool call against the daemon). Session two, a new conversation:
the model's very first request must already carry the fact, brought by the
daemon at session start or prompt submit, not by the conversation. The
model is scripted (no key, no network), so the demo shows what the runtime
does around it.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from signet_sdk.agent.types import CompletionOptions, Message

__all__ = ["FACT", "play_runtime_story"]

FACT = "The billing service deploys blue-green, on Tuesdays only."


def _say(line: str) -> None:
    sys.stdout.write(f"  {line}\n")


def play_runtime_story(url: str, folder: Path) -> list[str]:
    """Run the story against the daemon at ``url``; the problems found (none: it worked)."""
    from signet_sdk.agent import Agent
    from signet_sdk.testing.providers import ScriptedProvider, tool_use

    problems: list[str] = []
    sys.stdout.write("\n== runtime (signet_sdk.agent, a scripted model) ==\n")
    env = {"HOME": str(folder), "XDG_STATE_HOME": str(folder / "state")}

    def second_session(messages: Sequence[Message], options: CompletionOptions) -> str:
        seen = FACT in messages[0].text
        return "Blue-green, on Tuesdays." if seen else "I do not know yet."

    model = ScriptedProvider([tool_use(("memory_store", {"content": FACT})), "Stored."])
    agent = Agent(model, daemon_url=url, env=env, instructions="You are a release engineer.")
    with agent.session(project=str(folder)) as chat:
        out = chat.send(f"Remember this: {FACT}")
        results = [r.content for r in out.tool_results]
        _say(f"session one ({chat.key}): the model called {[c.name for c in out.tool_calls]}")
        _say(f"  the daemon answered {results}")
        if not out.tool_results or out.tool_results[0].is_error:
            problems.append(f"runtime: memory_store did not store the fact: {results}")
    model.script = [second_session]
    model.requests.clear()
    with agent.session(project=str(folder)) as chat:
        out = chat.send("How does the billing service deploy?")
        first = model.requests[0].messages[0].text
        _say(f"session two ({chat.key}): the first model request carries the fact: {FACT in first}")
        _say(f"  answer: {out.content}")
        if FACT not in first:
            problems.append("runtime: session two's first model request lacks the stored fact")
    return problems
