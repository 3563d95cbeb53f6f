"""The ``hooks`` block of a command-hook harness's JSON config, merged and unmerged.

Claude Code's ``settings.json`` and Codex's ``hooks.json`` hold the same
shape: ``{"hooks": {Event: [group, ...]}}``, a group being ``{"matcher"?:
..., "hooks": [handler, ...]}`` and a handler ``{"type": "command",
"command": ..., "timeout": seconds}``. An installer owns only the handlers
its ``is_ours`` recognises. Merging leaves exactly one of them per event,
where an earlier install put it (so the user's order holds); unmerging takes
them out with the groups and events only they filled. Every other group,
handler and key, an empty one included, stays as it was.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from .command import put_ours

__all__ = ["check_hook_groups", "merge_hook_groups", "unmerge_hook_groups"]

#: Whether a handler entry is one the installer wrote.
IsOurs = Callable[[Any], bool]


def check_hook_groups(data: Any, path: Path, error: type[Exception]) -> dict[str, Any]:
    """``data`` when its ``hooks`` block has the shape above; else ``error`` naming file and key."""
    if not isinstance(data, dict):
        raise error(f"{path}: expected a JSON object at the top level")
    if "hooks" not in data:
        return data
    hooks = data["hooks"]
    if not isinstance(hooks, dict):
        # ``"hooks": null`` too: merging would have to replace the user's value.
        got = "null" if hooks is None else type(hooks).__name__
        raise error(f"{path}: 'hooks' must be an object, got {got}")
    for event, groups in hooks.items():
        if not isinstance(groups, list):
            raise error(f"{path}: hooks.{event} must be a list of matcher groups")
        for i, group in enumerate(groups):
            if not isinstance(group, dict):
                raise error(f"{path}: hooks.{event}[{i}] must be an object")
            handlers = group.get("hooks")
            if handlers is not None and not isinstance(handlers, list):
                raise error(f"{path}: hooks.{event}[{i}].hooks must be a list")
    return data


def _holds_ours(group: Mapping[str, Any], is_ours: IsOurs) -> bool:
    handlers = group.get("hooks")
    return isinstance(handlers, list) and any(is_ours(h) for h in handlers)


def merge_hook_groups(
    data: Mapping[str, Any], wanted: Mapping[str, Any], is_ours: IsOurs
) -> dict[str, Any]:
    """A copy of checked ``data`` with ``wanted[event]`` as our one handler for each event."""
    out: dict[str, Any] = json.loads(json.dumps(data))
    hooks = out.setdefault("hooks", {})
    for event, handler in wanted.items():
        groups = hooks.setdefault(event, [])
        placed = False
        emptied: list[int] = []
        for i, group in enumerate(groups):
            if not _holds_ours(group, is_ours):
                continue
            group["hooks"], placed = put_ours(group["hooks"], handler, placed, is_ours)
            if not group["hooks"]:
                emptied.append(i)  # held only a duplicate of ours
        hooks[event] = [g for i, g in enumerate(groups) if i not in emptied]
        if not placed:
            hooks[event].append({"hooks": [handler]})
    return out


def unmerge_hook_groups(data: Mapping[str, Any], is_ours: IsOurs) -> dict[str, Any]:
    """A copy of checked ``data`` without our handlers and what only they filled."""
    out: dict[str, Any] = json.loads(json.dumps(data))
    hooks = out.get("hooks")
    if not isinstance(hooks, dict):
        return out
    removed_event = False
    for event in list(hooks):
        groups = hooks[event]
        emptied: list[int] = []
        for i, group in enumerate(groups):
            if _holds_ours(group, is_ours):
                group["hooks"] = [h for h in group["hooks"] if not is_ours(h)]
                if not group["hooks"]:
                    emptied.append(i)
        if not emptied:
            continue
        hooks[event] = [g for i, g in enumerate(groups) if i not in emptied]
        if not hooks[event]:
            del hooks[event]
            removed_event = True
    if removed_event and not hooks:
        del out["hooks"]
    return out
