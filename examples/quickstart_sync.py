"""A harness integration in a dozen lines: start, prompt, remember, recall, end.

Run against any daemon: SIGNET_DAEMON_URL=http://127.0.0.1:3850 python examples/quickstart_sync.py
(`signet-sdk dev-daemon` starts the bundled one).
"""

from __future__ import annotations

from signet_sdk import (
    RecallParams,
    RememberParams,
    SessionEndParams,
    SessionStartParams,
    UserPromptSubmitParams,
    create_adapter,
)

with create_adapter("example-harness", runtime_path="plugin") as adapter:
    key, project = "example-session-1", "/srv/example"
    start = adapter.on_session_start(SessionStartParams(session_key=key, project=project))
    print("session-start inject:", len(start.inject), "characters")

    stored = adapter.remember(
        RememberParams(content="The example service deploys blue-green", session_key=key)
    )
    print("remembered:", stored.id)

    turn = adapter.on_user_prompt_submit(
        UserPromptSubmitParams(
            session_key=key,
            project=project,
            user_message="does the example service use blue-green deploys?",
        )
    )
    print("prompt inject mentions blue-green:", "blue-green" in turn.inject)

    hits = adapter.recall(RecallParams(query="deploys blue-green", session_key=key, limit=3))
    print("recall hits:", [hit.content for hit in hits.results])

    end = adapter.on_session_end(SessionEndParams(session_key=key, cwd=project, transcript="..."))
    print("session-end did nothing:", end.did_nothing)
