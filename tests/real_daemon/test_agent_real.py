"""The reference runtime against the real daemons, every supported version.

A session stores a fact with ``memory_store`` (a real tool call the daemon
answers); a second session's first model request carries it, brought by
the daemon at session start or prompt submit. The parity session covers
every dependency-map row the real daemon can be asked for. The model is
scripted; everything else is the real thing on 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path

from signet_sdk import AdapterClient
from signet_sdk.agent import Agent
from signet_sdk.testing.parity import COVERED, run_parity
from signet_sdk.testing.providers import ScriptedProvider, tool_use
from signet_sdk.testing.real_daemon import RealDaemon


def _fact() -> str:
    return f"The {uuid.uuid4().hex[:6]} billing service deploys blue-green on Tuesdays only."


def test_a_fact_stored_in_one_session_reaches_the_next(
    real_daemon: RealDaemon, agent_env: dict[str, str], tmp_path: Path
) -> None:
    fact = _fact()
    model = ScriptedProvider([tool_use(("memory_store", {"content": fact})), "Stored."])
    agent = Agent(model, daemon_url=real_daemon.url, env=agent_env, instructions="Be terse.")
    with agent.session(project=str(tmp_path)) as chat:
        out = chat.send(f"Remember: {fact}")
        first_key = chat.key
    assert not out.tool_results[0].is_error, out.tool_results[0].content
    assert not chat.notices, chat.notices

    model.requests.clear()
    with agent.session(project=str(tmp_path)) as chat:
        chat.send("How does the billing service deploy?")
    assert fact in model.requests[0].messages[0].text
    if real_daemon.minor != "0.109":  # 0.109 keeps no session transcripts to read back
        with AdapterClient("check", real_daemon.url) as client:
            stored = client.get_session_transcript(first_key).content
        # Reduced to its turns, in the daemon's own words for the roles.
        assert stored == f"User: Remember: {fact}\nAssistant: Stored."


def test_the_async_session_does_the_same(
    real_daemon: RealDaemon, agent_env: dict[str, str], tmp_path: Path
) -> None:
    fact = _fact()
    model = ScriptedProvider([tool_use(("memory_store", {"content": fact})), "Stored."])
    agent = Agent(model, daemon_url=real_daemon.url, env=agent_env)

    async def story() -> str:
        async with agent.async_session(project=str(tmp_path)) as chat:
            await chat.send(f"Remember: {fact}")
        model.requests.clear()
        async with agent.async_session(project=str(tmp_path)) as chat:
            await chat.send("How does the billing service deploy?")
        return model.requests[0].messages[0].text

    assert fact in asyncio.run(story())


def test_the_runtime_parity_column_on_the_real_daemon(real_daemon: RealDaemon) -> None:
    report = run_parity(real_daemon.url, ["runtime"])
    column = report.harnesses[0]
    covered = {row for row, (status, _) in column.rows.items() if status == COVERED}
    # secrets exec runs a command: not exercised against a real daemon (n/a, not missing).
    assert column.rows["secret-injection"][0] == "n/a"
    assert len(covered) == len(column.rows) - 1, column.rows
    assert report.ok


def test_resume_on_another_machine_reads_the_daemons_transcript(
    real_daemon: RealDaemon, agent_env: dict[str, str], tmp_path: Path
) -> None:
    model = ScriptedProvider(["The release train leaves at 16:00."])
    first = Agent(model, daemon_url=real_daemon.url, env=agent_env)
    with first.session() as chat:
        chat.send("When does the release train leave?")
        key = chat.key
    # Another machine (another state folder): no local transcript to resume from.
    elsewhere = {**agent_env, "XDG_STATE_HOME": str(tmp_path / "elsewhere")}
    model.requests.clear()
    with Agent(model, daemon_url=real_daemon.url, env=elsewhere).session(resume=key) as chat:
        chat.send("Remind me?")
        notices = list(chat.notices)
    first_request = model.requests[0].messages[0].text
    if real_daemon.minor == "0.109":
        # 0.109 keeps no session transcripts: the session resumes without its earlier turns.
        assert "The release train leaves at 16:00." not in first_request
        assert any("keeps no session transcripts" in n for n in notices), notices
    else:
        assert "The release train leaves at 16:00." in first_request
        assert not notices, notices


def test_signet_sdk_chat_two_sessions_on_the_real_daemon(
    real_daemon: RealDaemon, agent_env: dict[str, str], tmp_path: Path
) -> None:
    """The command as a user runs it: session one stores a fact, session two is told it."""
    import json
    import subprocess
    import sys

    from signet_sdk.testing.fake_openai import FakeOpenAI

    fact = _fact()
    env = {k: v for k, v in agent_env.items() if not k.startswith(("OPENAI_", "ANTHROPIC_"))}
    env.update(SIGNET_DAEMON_URL=real_daemon.url, OPENAI_API_KEY="x")
    cli = str(Path(sys.executable).parent / "signet-sdk")
    with FakeOpenAI() as model:
        model.tool_script.append(("memory_store", {"content": fact}))
        argv = [cli, "chat", "--provider", "openai", "--base-url", model.base_url, "-p"]

        def chat(prompt: str) -> subprocess.CompletedProcess[str]:
            """One ``signet-sdk chat -p`` run: a process, and so a session, of its own."""
            done = subprocess.run(
                [*argv, prompt], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=120
            )
            assert done.returncode == 0, done.stderr
            return done

        chat(f"Remember: {fact}")
        stored = [m for m in model.chat_bodies()[1]["messages"] if m["role"] == "tool"]
        assert '"status":"saved"' in stored[0]["content"]
        two = chat("How does the billing service deploy?")
        first_of_two = model.chat_bodies()[2]
    assert two.stdout == "Hello from the fake model.\n"
    assert fact in json.dumps(first_of_two["messages"], ensure_ascii=False)
