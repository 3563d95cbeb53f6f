"""A fake Gemini API on 127.0.0.1 for running the real ``gemini`` offline.

Gemini CLI 0.61 with ``GOOGLE_GEMINI_BASE_URL`` set (and any API key) sends
``POST {base}/v1beta/models/<model>:streamGenerateContent?alt=sse`` for the
agent's turns (answered as server-sent events, one ``data:`` line per
chunk), ``:generateContent`` for its utility calls (the compression summary
and its check, JSON answers) and ``:countTokens``. Every request is
appended to a JSON-lines log (method, path, parsed body): what tests search
for injected context.

What the fake answers:

* a request whose system instruction is Gemini's compression prompt (it
  asks for a ``<state_snapshot>``): :data:`SUMMARY`;
* a request asking for JSON (``responseMimeType``, the model router and
  the next-speaker check): one object that fits each of those schemas;
* a turn whose user text holds :data:`TOOLS_MARK`: a call of the
  ``memory_store`` tool, then (after its result) ``memory_search``, then
  :data:`REPLY`, the tool names taken from the request's declarations;
* anything else: :data:`REPLY`.

Each answer reports ``prompt_tokens`` as its prompt token count; a large
value makes Gemini compress before its next model request.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from signet_sdk.testing import Answer, FakeServer, json_answer

REPLY = "FAKE-GEMINI-REPLY: noted."
SUMMARY = (
    "<state_snapshot>GM-E2E-SUMMARY-7d21: atlas deploys go through make ship.</state_snapshot>"
)
TOOLS_MARK = "USE-MEMORY-TOOLS"
STORED = "Atlas staging runs on pg-staging-2, marker GM-TOOL-5150"
_COMPRESS_MARK = "<state_snapshot>"


def _texts(content: Any) -> list[str]:
    parts = content.get("parts") if isinstance(content, dict) else None
    return [
        p["text"] for p in parts or [] if isinstance(p, dict) and isinstance(p.get("text"), str)
    ]


def _tool_names(body: dict[str, Any]) -> list[str]:
    names: list[str] = []
    for tool in body.get("tools") or []:
        for decl in tool.get("functionDeclarations") or []:
            if isinstance(decl, dict) and isinstance(decl.get("name"), str):
                names.append(decl["name"])
    return names


_NOT_FOUND = {"error": {"code": 404, "message": "not here", "status": "NOT_FOUND"}}


class FakeGemini(FakeServer):
    """The server, on a free port from construction until ``close()``."""

    def __init__(self, log_path: Path) -> None:
        self.prompt_tokens = 20
        #: The prompt token count reported with the next tool call (once), when set:
        #: a large one makes Gemini compress before the model call that follows.
        self.tool_call_prompt_tokens: int | None = None
        super().__init__(log_path)

    @property
    def base_url(self) -> str:
        return self.url

    def answer(self, method: str, path: str, body: Any) -> Answer:
        route = path.split("?", 1)[0]
        if method != "POST":
            return json_answer(_NOT_FOUND, 404)
        body = body if body is not None else {}
        if route.endswith(":countTokens"):
            return json_answer({"totalTokens": 20})
        if route.endswith(":streamGenerateContent"):
            chunk = json.dumps(self.generate(body))
            return 200, f"data: {chunk}\r\n\r\n".encode(), "text/event-stream"
        if route.endswith(":generateContent"):
            return json_answer(self.generate(body))
        return json_answer(_NOT_FOUND, 404)

    def _usage(self, parts: list[dict[str, Any]]) -> dict[str, int]:
        used = self.prompt_tokens
        if self.tool_call_prompt_tokens is not None and any("functionCall" in p for p in parts):
            used, self.tool_call_prompt_tokens = self.tool_call_prompt_tokens, None
        return {"promptTokenCount": used, "candidatesTokenCount": 8, "totalTokenCount": used + 8}

    def generate(self, body: dict[str, Any]) -> dict[str, Any]:
        """The ``GenerateContentResponse`` for one request."""
        system = " ".join(_texts(body.get("systemInstruction") or {}))
        config = body.get("generationConfig") or {}
        if _COMPRESS_MARK in system:
            parts: list[dict[str, Any]] = [{"text": SUMMARY}]
        elif config.get("responseMimeType") == "application/json":
            # One object that satisfies each utility schema Gemini asks with
            # (the model router's score, the next-speaker check).
            reply = {
                "complexity_reasoning": "a short question",
                "complexity_score": 10,
                "next_speaker": "user",
                "reasoning": "the answer is complete",
            }
            parts = [{"text": json.dumps(reply)}]
        else:
            parts = self._turn(body)
        return {
            "candidates": [
                {"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}
            ],
            "usageMetadata": self._usage(parts),
            "modelVersion": "gemini-2.5-pro",
        }

    def _turn(self, body: dict[str, Any]) -> list[dict[str, Any]]:
        contents = body.get("contents") or []
        user_texts = [t for c in contents if c.get("role") == "user" for t in _texts(c)]
        asked = any(TOOLS_MARK in t for t in user_texts[-3:])
        if not asked:
            return [{"text": REPLY}]
        done = [
            p["functionResponse"].get("name", "")
            for c in contents
            for p in c.get("parts") or []
            if isinstance(p, dict) and isinstance(p.get("functionResponse"), dict)
        ]
        names = _tool_names(body)
        store = next((n for n in names if n.endswith("memory_store")), None)
        search = next((n for n in names if n.endswith("memory_search")), None)
        if store and not any(d.endswith("memory_store") for d in done):
            return [{"functionCall": {"name": store, "args": {"content": STORED}}}]
        if search and not any(d.endswith("memory_search") for d in done):
            return [{"functionCall": {"name": search, "args": {"query": "atlas staging"}}}]
        return [{"text": REPLY}]
