"""Hook groups per event in a JSON settings file the user edits: spliced in and out as text.

Gemini CLI's and Qwen Code's ``settings.json`` hold ``{"hooks": {Event:
[group, ...]}}``, a group being ``{"matcher"?: ..., "hooks": [handler,
...]}``, in a file that may carry comments. Unlike :mod:`.hook_groups`
(which rewrites a whole JSON file), these work on the text: only our
groups are added or removed, every other byte stays. A group is ours when
every handler in it is (``is_ours``); one mixing ours with the user's is
never touched, only reported.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from . import json5edit as j5
from .files import InstallError

__all__ = [
    "check_group_lists",
    "command_groups",
    "event_lists",
    "merge_groups",
    "mixes_ours",
    "only_ours",
    "remove_groups",
]

#: Whether a handler entry is one the installer wrote.
IsOurs = Callable[[Any], bool]


def command_groups(
    command: str, timeouts: Mapping[str, int], *, name: str, name_first: bool = False
) -> dict[str, dict[str, Any]]:
    """Event -> the one group we register for it: ``command <Event>``, named, with its timeout.

    ``name_first`` puts ``name`` ahead of ``type`` (Gemini CLI's order);
    otherwise it follows ``command`` (Qwen Code's), so each file reads as
    the harness writes its own.
    """

    def handler(event: str, ms: int) -> dict[str, Any]:
        run = {"type": "command", "command": f"{command} {event}"}
        named = {"name": name, **run} if name_first else {**run, "name": name}
        return {**named, "timeout": ms}

    return {event: {"hooks": [handler(event, ms)]} for event, ms in timeouts.items()}


def only_ours(group: Any, is_ours: IsOurs) -> bool:
    """Whether ``group`` holds handlers and all of them are ours: a group we may remove."""
    handlers = group.get("hooks") if isinstance(group, dict) else None
    return isinstance(handlers, list) and bool(handlers) and all(is_ours(h) for h in handlers)


def mixes_ours(group: Any, is_ours: IsOurs) -> bool:
    """Whether ``group`` holds any handler of ours (with the user's, when not :func:`only_ours`)."""
    handlers = group.get("hooks") if isinstance(group, dict) else None
    return isinstance(handlers, list) and any(is_ours(h) for h in handlers)


def check_group_lists(path: Path, root: j5.Node, events: Iterable[str] | None = None) -> None:
    """Refuse, naming the file, an event's list (``events``; None: all) not of group shape.

    Each is a list of objects whose ``hooks``, when there, is a list: what
    the splicing below can edit without touching the user's values.
    """
    hooks = j5.find(root, ["hooks"])
    if hooks is None or hooks.kind != "object":
        return
    names = [k for k, _, _ in hooks.members] if events is None else list(events)
    for event in names:
        groups = j5.find(hooks, [event])
        if groups is None:
            continue
        if groups.kind != "array":
            raise InstallError(f"{path}: hooks.{event} is not a list; left untouched")
        for i, group in enumerate(groups.items):
            inner = j5.find(group, ["hooks"]) if group.kind == "object" else None
            if group.kind != "object" or (inner is not None and inner.kind != "array"):
                raise InstallError(
                    f"{path}: hooks.{event}[{i}] is not a hook group; left untouched"
                )


def event_lists(root: j5.Node, skip: Iterable[str] = ()) -> list[str]:
    """The members of ``hooks`` that are lists of groups (``skip``: settings, not events)."""
    hooks = j5.find(root, ["hooks"])
    if hooks is None or hooks.kind != "object":
        return []
    left_out = set(skip)
    return [k for k, _, v in hooks.members if k not in left_out and v.kind == "array"]


def merge_groups(
    text: str, groups: Mapping[str, Any], is_ours: IsOurs
) -> tuple[str, j5.Node, list[list[str]]]:
    """``text`` with ``groups[event]`` as our one group per event; the new root; what was created.

    A group of ours already up to date stays where it is; older ones of
    ours go, and the current one is appended to the event's list. An event
    without a list gets one (created, as is ``hooks`` when it was missing).
    """
    current = text
    root = j5.parse(current)
    created: list[list[str]] = []
    for event, wanted in groups.items():
        node = j5.find(root, ["hooks", event])
        if node is None:
            current, change = j5.set_member(current, ["hooks", event], [wanted])
            if change is not None and change[0] == "created":
                created.append(list(change[1]))
            root = j5.parse(current)
            continue
        ours = [j5.plain(g) for g in node.items if only_ours(j5.plain(g), is_ours)]
        if ours == [j5.as_parsed(wanted)]:
            continue
        for old in ours:
            current = j5.remove_item(current, ["hooks", event], old)
        current = j5.append_item(current, ["hooks", event], wanted)
        root = j5.parse(current)
    return current, root, created


def remove_groups(
    path: Path, text: str, events: Iterable[str], is_ours: IsOurs
) -> tuple[str, list[list[str]], list[str]]:
    """``text`` without our groups in ``events``; the lists they were taken from; notes.

    A group mixing ours with the user's stays, and a note naming the file
    and event says so.
    """
    root = j5.parse(text)
    current = text
    emptied: list[list[str]] = []
    notes: list[str] = []
    for event in events:
        node = j5.find(root, ["hooks", event])
        if node is None:
            continue
        for group in [j5.plain(g) for g in node.items]:
            if only_ours(group, is_ours):
                current = j5.remove_item(current, ["hooks", event], group)
                emptied.append(["hooks", event])
            elif mixes_ours(group, is_ours):
                notes.append(f"{path}: hooks.{event} has a group mixing ours with yours; kept")
    return current, emptied, notes
