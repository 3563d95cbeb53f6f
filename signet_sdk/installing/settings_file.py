"""Our hook groups and memory tools' server in one JSON settings file, spliced as text.

Gemini CLI and Qwen Code read both from one ``settings.json``: ``{"hooks":
{Event: [group, ...]}, "mcpServers": {...}}``, in a file the user edits and
may comment. Their installers differ in names, timeouts and the keys of
``hooks`` that are settings rather than events; what is added and taken
away, and by which rule, is the same for both and lives here:

* our groups per event (:mod:`.group_lists`), and our ``signet`` server by
  the SDK's rule (:mod:`.mcp`): a server of the user's with that name is
  refused, naming the file, never replaced;
* install reports the members it created, so uninstall takes away exactly
  those once our removal leaves them empty; without that record, an event
  list our removal emptied goes, then ``hooks`` and ``mcpServers`` if empty.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import json5edit as j5
from .files import parse_config, read_text
from .group_lists import IsOurs, check_group_lists, event_lists, merge_groups, remove_groups
from .mcp import MCP_NAME, add_server, remove_server
from .undo import RECORD, install_file, read_record, uninstall_file

__all__ = ["SettingsInstaller", "merge_settings", "parse_settings", "unmerge_settings"]

#: A member's path in the settings, from the top (``["hooks", "Stop"]``).
Member = list[str]


def parse_settings(path: Path, text: str, events: Iterable[str]) -> j5.Node:
    """The parsed settings, refused (naming the file) unless what we edit has the shapes we edit.

    ``hooks`` and ``mcpServers`` must be objects, and each of ``events``'
    lists a list of groups; other members of ``hooks`` (a harness's own
    settings, the user's events) are not ours to judge.
    """
    root = parse_config(path, text, "JSON", ["hooks", "mcpServers"])
    check_group_lists(path, root, events)
    return root


def merge_settings(
    path: Path,
    text: str | None,
    groups: Mapping[str, dict[str, Any]],
    is_ours: IsOurs,
    entry: dict[str, Any] | None,
) -> tuple[str, list[Member]]:
    """The settings with our groups (and server, when ``entry``) in; the members it created.

    No file, or a blank one, becomes ours written whole (2-space JSON, as
    both harnesses write theirs). Otherwise our groups already there and up
    to date stay put; an older one of ours is replaced at the end of its
    event's list.
    """
    if text is None or not text.strip():
        fresh: dict[str, Any] = {"hooks": {e: [g] for e, g in groups.items()}}
        if entry is not None:
            fresh["mcpServers"] = {MCP_NAME: entry}
        return json.dumps(fresh, indent=2) + "\n", [[key] for key in fresh]
    root = parse_settings(path, text, groups)
    current, _, created = merge_groups(text, groups, is_ours)
    if entry is not None:
        servers = j5.find(root, ["mcpServers"])
        if servers is None or j5.find(servers, [MCP_NAME]) is None:
            created.append(["mcpServers"] if servers is None else ["mcpServers", MCP_NAME])
        current = add_server(path, current, entry)
    return current, created


def unmerge_settings(
    path: Path,
    text: str,
    is_ours: IsOurs,
    created: list[Member] | None,
    *,
    settings_keys: Iterable[str] = (),
) -> tuple[str, list[str]]:
    """The settings without our groups and server; notes on what of ours was kept, and why.

    ``created`` lists what the install created (None: its record is gone).
    Each goes too once our removal leaves it empty, innermost first; so does
    an event list we emptied inside a ``hooks`` the install created. Without
    a record, an emptied event list goes, then ``hooks`` and ``mcpServers``
    when nothing else is left in them. ``settings_keys`` are members of
    ``hooks`` that configure the harness rather than name an event.

    A ``signet`` server that does not run ``signet-sdk`` is the user's: kept,
    with a note when the install had put ours there (or its record is gone).
    """
    events = event_lists(parse_settings(path, text, ()), skip=settings_keys)
    current, emptied, notes = remove_groups(path, text, events, is_ours)
    server = j5.find(j5.parse(current), ["mcpServers", MCP_NAME])
    server_removed = False
    if server is not None:
        without = remove_server(path, current, drop_empty=False)
        if without is None or without == current:
            if created is None or any(m[0] == "mcpServers" for m in created):
                notes.append(f"{path}: mcpServers.{MCP_NAME} does not run signet-sdk; kept")
        else:
            current, server_removed = without, True
    if created is None:
        # Only what our removal emptied: a user's own empty ``"hooks": {}`` stays.
        containers = [*emptied, *([["hooks"]] if emptied else [])]
        containers += [["mcpServers"]] if server_removed else []
    else:
        containers = [*created, *(emptied if ["hooks"] in created else [])]
    # Innermost first, so that an emptied event list can leave ``hooks`` empty in turn.
    for member in sorted({tuple(m) for m in containers}, key=len, reverse=True):
        node = j5.find(j5.parse(current), list(member))
        if node is not None and node.kind != "scalar" and not (node.items or node.members):
            current = j5.remove_member(current, list(member))
    return current, notes


#: Gives the settings text before uninstall's ``unmerge``, given the install's record.
Prepare = Callable[[str, Mapping[str, Any]], str]


@dataclass(frozen=True)
class SettingsInstaller:
    """Install and uninstall of our hooks and server in one harness's settings file.

    What the harness's installer declares: its name (``signet-sdk install
    <harness>`` marks the undo record), how it knows a handler of ours, the
    note to print after an install, and the keys of ``hooks`` that are
    settings. Everything else is the shared rule above and :mod:`.undo`.
    """

    harness: str
    is_ours: IsOurs
    restart_note: str
    settings_keys: frozenset[str] = frozenset()

    @property
    def managed_by(self) -> str:
        """The undo record's ``managedBy``: a record of another installer is not ours."""
        return f"signet-sdk install {self.harness}"

    def merge(
        self,
        path: Path,
        text: str | None,
        groups: Mapping[str, dict[str, Any]],
        entry: dict[str, Any] | None,
    ) -> tuple[str, list[Member]]:
        """:func:`merge_settings` with this harness's handlers."""
        return merge_settings(path, text, groups, self.is_ours, entry)

    def unmerge(
        self, path: Path, text: str, created: list[Member] | None = None
    ) -> tuple[str, list[str]]:
        """:func:`unmerge_settings` with this harness's handlers and settings keys."""
        return unmerge_settings(path, text, self.is_ours, created, settings_keys=self.settings_keys)

    def install(
        self,
        path: Path,
        groups: Mapping[str, dict[str, Any]],
        entry: dict[str, Any] | None,
        dry: bool,
    ) -> int:
        """Merge ours into ``path`` and keep the undo record beside it; the exit code."""
        text = read_text(path)
        new, created = self.merge(path, text, groups, entry)
        return install_file(
            path,
            text,
            new,
            created,
            managed_by=self.managed_by,
            restart_note=self.restart_note,
            dry=dry,
            without_ours=lambda found: self.unmerge(path, found)[0],
        )

    def uninstall(self, path: Path, dry: bool, prepare: Prepare | None = None) -> int:
        """Take ours out of ``path`` by its undo record (or, without one, by our marks).

        ``prepare`` sees the text first when there is a record (an older
        record's own undo steps).
        """
        record = read_record(path.with_name(RECORD), self.managed_by)
        created = record.get("created") if record is not None else None

        def unmerged(text: str) -> tuple[str, list[str]]:
            if record is None:
                return self.unmerge(path, text)
            if prepare is not None:
                text = prepare(text, record)
            listed = [list(m) for m in created] if isinstance(created, list) else None
            return self.unmerge(path, text, listed)

        return uninstall_file(self.harness, path, record, unmerged, dry)
