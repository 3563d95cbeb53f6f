"""Reading installed entry points without ``importlib.metadata``.

``importlib.metadata`` costs a hook process tens of milliseconds (it imports
``email``, ``zipfile``, ``csv``, ``pathlib`` and builds every distribution).
A hook needs one entry point of one group, so this reads the
``entry_points.txt`` beside each ``*.dist-info`` on ``sys.path`` directly,
in ``sys.path`` order; the first distribution of a name wins, as with
``importlib.metadata``. Standard library only.
"""

from __future__ import annotations

import os
import sys

from signet_sdk.wire.record import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

__all__ = ["InstalledEntryPoint", "entry_points"]


class InstalledEntryPoint(Record):
    """One ``name = value`` line of a group, with the distribution it came from."""

    name: str
    value: str
    group: str
    distribution: str
    version: str


def _normalise(name: str) -> str:
    return name.lower().replace("-", "_").replace(".", "_")


def _parse(text: str, group: str) -> Iterator[tuple[str, str]]:
    current = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        if line[0] == "[" and line[-1] == "]":
            current = line[1:-1].strip()
            continue
        if current == group and "=" in line:
            name, _, value = line.partition("=")
            yield name.strip(), value.strip()


def entry_points(group: str, path: Sequence[str] | None = None) -> list[InstalledEntryPoint]:
    """Every entry point of ``group`` installed on ``path`` (default ``sys.path``)."""
    seen: set[str] = set()
    found: list[InstalledEntryPoint] = []
    for folder in sys.path if path is None else path:
        try:
            names = os.listdir(folder or ".")
        except OSError:
            continue
        for entry in sorted(names):
            if not entry.endswith(".dist-info"):
                continue
            stem = entry[: -len(".dist-info")]
            dist, _, version = stem.partition("-")
            key = _normalise(dist)
            if key in seen:
                continue
            seen.add(key)
            try:
                with open(os.path.join(folder or ".", entry, "entry_points.txt"), "rb") as fh:
                    text = fh.read().decode("utf-8", "replace")
            except OSError:
                continue
            for name, value in _parse(text, group):
                found.append(InstalledEntryPoint(name, value, group, dist, version))
    return found
