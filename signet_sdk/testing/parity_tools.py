"""The tool rows of the parity matrix: the memory tool set, exercised against the daemon.

A harness's model reaches the memory tools by a path its plugin declares
(``HarnessPlugin.tools``: ``"mcp"`` when the installer registers ``signet-sdk
mcp``, ``"native"`` when its shim registers them through the harness's own
plugin API). The tools themselves are one shared definition, so each
harness run exercises the whole set once, in order, through ``call_tool``
on a client labelled with the harness: store, search, get, modify, forget,
and (against the bundled mock, where a secret can be planted) secrets exec.
A row is covered only when its tool did what it should here.
"""

from __future__ import annotations

from typing import Any

from signet_sdk.wire.errors import SignetError

__all__ = ["TOOL_PATHS", "TOOL_ROWS", "NotExercised", "exercise_tools"]

#: Dependency-map row -> the tool that serves it.
TOOL_ROWS = {
    "memory-search": "memory_search",
    "memory-store": "memory_store",
    "memory-get": "memory_get",
    "memory-modify": "memory_modify",
    "memory-forget": "memory_forget",
    "secret-injection": "secrets_exec",
}
#: How each declared path is shown.
TOOL_PATHS = {"mcp": "MCP (signet-sdk mcp)", "native": "native tools via the adapter server"}


class NotExercised(str):
    """A tool row deliberately not run here; the text says why (shown as n/a, not a gap)."""


def exercise_tools(harness: str, url: str, mock: Any) -> dict[str, str | None]:
    """Row -> None when its tool worked against the daemon at ``url``, else the problem."""
    from signet_sdk.client.sync_client import AdapterClient
    from signet_sdk.tools.runner import call_tool

    out: dict[str, str | None] = {}
    marker = f"parity tool check for {harness}: the tool path stores and finds this"
    with AdapterClient(harness, url, max_retries=0) as client:

        def run(row: str, args: dict[str, Any], **kw: Any) -> Any:
            try:
                result = call_tool(client, TOOL_ROWS[row], args, **kw)
            except SignetError as exc:
                out[row] = f"{TOOL_ROWS[row]} failed: {exc}"
                return None
            out[row] = None
            return result

        stored = run("memory-store", {"content": marker})
        memory_id = stored.get("id") if stored else None
        found = run("memory-search", {"query": "parity tool check", "limit": 5})
        if found is not None and memory_id not in [h.get("id") for h in found["results"]]:
            out["memory-search"] = "memory_search did not find what memory_store stored"
        if memory_id:
            got = run("memory-get", {"id": memory_id})
            if got is not None and got.get("content") != marker:
                out["memory-get"] = "memory_get did not return the stored content"
            run("memory-modify", {"id": memory_id, "reason": "parity", "content": marker + "!"})
            run("memory-forget", {"id": memory_id, "reason": "parity"})
        else:
            for row in ("memory-get", "memory-modify", "memory-forget"):
                out[row] = "nothing was stored to read, modify or forget"
        if mock is not None:
            mock.set_secret("PARITY_SECRET", "parity-secret-value")
            done = run(
                "secret-injection",
                {"command": "printenv PARITY", "secrets": {"PARITY": "PARITY_SECRET"}},
                allow_commands=True,
            )
            if done is not None and done.get("code") != 0:
                out["secret-injection"] = f"secrets_exec exited {done.get('code')}"
        else:
            out["secret-injection"] = NotExercised(
                "not exercised against a real daemon (it runs a command)"
            )
    return out
