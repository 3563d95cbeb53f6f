"""pi payload access and session transcripts, kept apart from the event mapping.

Payloads are parsed JSON, so objects are checked as dicts and arrays as
lists (collections.abc and typing stay off the hook path); a wrong type is
a :class:`~signet_sdk.PayloadError` naming the field.
"""

from __future__ import annotations

from signet_sdk.plugin import PayloadError, array, json_dumps, mapping, string, without_image_data

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any

# -- payload access ------------------------------------------------------


class _Session:
    """The ``session`` object of a payload, validated."""

    __slots__ = ("cwd", "entries", "file", "header", "id", "leaf", "on_disk", "persisted")

    def __init__(self, payload: Mapping[str, Any]) -> None:
        s = mapping(payload, "session")
        if s is None:
            raise PayloadError("session", "is required")
        sid = string(s, "id", "session.")
        if not sid or not sid.strip():
            raise PayloadError("session.id", "is required")
        self.id = sid
        self.file = string(s, "file", "session.") or None
        self.leaf = string(s, "leafId", "session.") or None
        self.header = mapping(s, "header", "session.")
        cwd = string(s, "cwd", "session.")
        if not cwd and self.header is not None:
            cwd = string(self.header, "cwd", "session.header.")
        self.cwd = cwd or None
        self.persisted = s.get("persisted") is not False
        self.on_disk = s.get("onDisk") is True
        self.entries = array(s, "entries", "session.")


# -- transcripts ------------------------------------------------------------


def _line(obj: Any, field: str) -> str:
    try:
        return json_dumps(obj)
    except RecursionError:  # deeper than JSON can be written here: name the field
        raise PayloadError(field, "is nested too deeply to record") from None


def _entries_jsonl(header: Mapping[str, Any] | None, entries: Sequence[Any]) -> str:
    """The lines pi would write to the session file: the header, then every entry."""
    lines = [] if header is None else [_line(header, "session.header")]
    for entry in entries:
        if not isinstance(entry, dict):
            continue
        if entry.get("type") == "message" and isinstance(entry.get("message"), dict):
            entry = {**entry, "message": without_image_data(entry["message"])}
        lines.append(_line(entry, "session.entries"))
    return "".join(line + "\n" for line in lines)


def _session_id_of_file(path: str | None) -> str | None:
    """The session id in a pi session file name (``<timestamp>_<id>.jsonl``)."""
    if not path:
        return None
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    if not name.endswith(".jsonl") or "_" not in name:
        return None
    sid = name[: -len(".jsonl")].rsplit("_", 1)[1]
    return sid if sid and all(c.isalnum() or c == "-" for c in sid) else None
