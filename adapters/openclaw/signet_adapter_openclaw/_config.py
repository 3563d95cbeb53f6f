"""The config half of the installer: our entries in ``openclaw.json``, and back out.

Edits are text splices (see :mod:`signet_sdk.installing.json5edit`), so the user's comments and
layout survive; each change is recorded so that uninstall reverses exactly
what install did, and only while the value there is still ours.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from signet_sdk.installing import json5edit as j5

__all__ = ["EMPTY", "PLUGIN_ID", "edit_config", "undo_config"]

#: The plugin id OpenClaw knows us by (``openclaw.plugin.json``).
PLUGIN_ID = "signet-sdk"
#: What a missing config starts from.
EMPTY = "{}\n"


def edit_config(text: str, memory_slot: bool) -> tuple[str, list[list[Any]], list[str]]:
    """The config with our entries, the changes made (for uninstall) and notes for the user."""
    entry = ["plugins", "entries", PLUGIN_ID]
    changes: list[list[Any]] = []
    notes: list[str] = []
    wanted = [([*entry, "enabled"], True), ([*entry, "hooks", "allowConversationAccess"], True)]
    for path, value in wanted:
        text, change = j5.set_member(text, path, value)
        if change is not None:
            changes.append([*change, path, value])
    root = j5.parse(text)
    slot = j5.find(root, ["plugins", "slots", "memory"])
    current = None if slot is None else j5.plain(slot)
    if current != PLUGIN_ID and (slot is None or memory_slot):
        path = ["plugins", "slots", "memory"]
        text, change = j5.set_member(text, path, PLUGIN_ID)
        if change is not None:
            changes.append([*change, path, PLUGIN_ID])
    elif current != PLUGIN_ID:
        notes.append(
            f"plugins.slots.memory names {current!r}: OpenClaw loads only that memory plugin, "
            "so the Signet plugin stays inactive; run again with --memory-slot to hand it the slot"
        )
    allow = j5.find(j5.parse(text), ["plugins", "allow"])
    if allow is not None and allow.kind == "array" and PLUGIN_ID not in j5.plain(allow):
        text = j5.append_item(text, ["plugins", "allow"], PLUGIN_ID)
        changes.append(["appended", ["plugins", "allow"], PLUGIN_ID])
    root = j5.parse(text)
    plugins = j5.find(root, ["plugins"])
    if plugins is not None and j5.plain(j5.find(root, ["plugins", "enabled"]) or plugins) is False:
        notes.append("plugins.enabled is false: OpenClaw loads no plugin at all")
    deny = j5.find(root, ["plugins", "deny"])
    if deny is not None and deny.kind == "array" and PLUGIN_ID in j5.plain(deny):
        notes.append(f"plugins.deny lists {PLUGIN_ID!r}: OpenClaw will not load it")
    return text, changes, notes


def undo_config(text: str, changes: Sequence[Sequence[Any]]) -> tuple[str, list[str]]:
    """Reverse each recorded change whose value is still ours; notes name the ones left."""
    notes = []
    for change in reversed(changes):
        kind = change[0]
        if kind == "appended":
            text = j5.remove_item(text, list(change[1]), change[2])
            continue
        root = j5.parse(text)
        leaf, value = list(change[-2]), change[-1]
        node = j5.find(root, leaf)
        if node is None or j5.plain(node) != value:
            notes.append(f"{'.'.join(leaf)} was changed since install; left as it is")
            continue
        if kind == "replaced":
            text = j5.replace_value(text, list(change[1]), change[2])
            continue
        created = list(change[1])
        inserted: Any = value
        for key in reversed(leaf[len(created) :]):
            inserted = {key: inserted}
        here = j5.find(root, created)
        if here is not None and j5.plain(here) == inserted:
            text = j5.remove_member(text, created)
        else:
            text = j5.remove_member(text, leaf)
            # Objects we created that are empty now go too; the user's members stay.
            for depth in range(len(leaf) - 1, len(created) - 1, -1):
                node = j5.find(j5.parse(text), leaf[:depth])
                if node is not None and node.kind == "object" and not node.members:
                    text = j5.remove_member(text, leaf[:depth])
    return text, notes
