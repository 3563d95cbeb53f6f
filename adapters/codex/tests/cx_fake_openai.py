"""A fake OpenAI Responses API on 127.0.0.1 for running the real ``codex`` offline.

Codex 0.169 talks to a custom model provider (``wire_api = "responses"``)
with ``POST {base_url}/responses`` and reads a server-sent event stream. This
server answers every such request with one assistant message (``REPLY``, or
``SUMMARY`` when the request is Codex's compaction prompt) as
``response.created``, ``response.output_item.done`` and
``response.completed`` events; ``GET .../models`` gets an empty model list
and anything else a JSON 404. Every request is appended to a JSON-lines log
(method, path, parsed body), which is what tests search for injected context.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

from signet_sdk.testing import Answer, FakeServer, json_answer, sse_answer

REPLY = "FAKE-REPLY: noted."
SUMMARY = "CX-E2E-SUMMARY-31c9: the user asked how atlas deploys work."
#: What Codex asks the model when it compacts (its compaction prompt's first words).
_COMPACT_MARK = "CONTEXT CHECKPOINT COMPACTION"


class FakeResponses(FakeServer):
    """The server, on a free port from construction until ``close()``."""

    def __init__(self, log_path: Path) -> None:
        self._count = 0
        self._count_lock = threading.Lock()
        #: The usage reported per answer; above ``model_auto_compact_token_limit``
        #: it makes Codex compact before its next turn.
        self.total_tokens = 15
        super().__init__(log_path)

    @property
    def base_url(self) -> str:
        return f"{self.url}/v1"

    def answer(self, method: str, path: str, body: Any) -> Answer:
        route = path.split("?")[0]
        if method == "GET" and route.endswith("/models"):
            return json_answer({"object": "list", "data": [], "models": []})
        if method != "POST" or not route.endswith("/responses"):
            return json_answer({"error": {"message": f"no route {path}"}}, 404)
        with self._count_lock:
            self._count += 1
            n = self._count
        rid = f"resp_fake_{n}"
        text = SUMMARY if _COMPACT_MARK in json.dumps(body) else REPLY
        item = {
            "type": "message",
            "id": f"msg_fake_{n}",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}],
        }
        usage = {
            "input_tokens": self.total_tokens - 5,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": 5,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": self.total_tokens,
        }
        events: list[dict[str, Any]] = [
            {"type": "response.created", "response": {"id": rid}},
            {"type": "response.output_item.added", "output_index": 0, "item": item},
            {"type": "response.output_item.done", "output_index": 0, "item": item},
            {
                "type": "response.completed",
                "response": {"id": rid, "output": [item], "usage": usage},
            },
        ]
        return sse_answer((e["type"], e) for e in events)
