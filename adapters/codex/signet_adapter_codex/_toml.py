"""config.toml edits for the installer, with tomlkit so comments, order and style stay.

Install turns on ``[features] hooks`` (marked by a trailing comment, so
uninstall removes only a line we added) and keeps exactly our
``[hooks.state."…"]`` trust entries; uninstall removes those entries (only
while their hash is still ours) and the tables that only they filled.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import tomlkit
from tomlkit.exceptions import TOMLKitError

__all__ = ["ConfigError", "check_toml", "merge_config", "toml_data", "unmerge_config"]

_FEATURE_NOTE = "# signet-sdk install codex"


class ConfigError(Exception):
    """A file cannot be merged safely; the message names the file and the problem."""


def _state_table(doc: Any, create: bool) -> Any:
    """``[hooks.state]``, made (as super-tables) when ``create``; else None when absent."""
    table = doc
    for key in ("hooks", "state"):
        inner = table.get(key)
        if inner is None:
            if not create:
                return None
            inner = tomlkit.table(is_super_table=True)
            table[key] = inner
        table = inner
    return table


def merge_config(text: str, source: str, old: Mapping[str, str], new: Mapping[str, str]) -> str:
    """config.toml text with the hooks feature on and our trust entries exactly ``new``."""
    doc = tomlkit.parse(text)
    features = doc.get("features")
    if features is None:
        features = tomlkit.table()
        doc["features"] = features
    if "hooks" not in features:
        item = tomlkit.item(True)
        item.comment(_FEATURE_NOTE)
        features["hooks"] = item
    state = _state_table(doc, create=bool(new))
    if state is not None:
        for key in list(state):
            if key in old and key not in new and state[key].get("trusted_hash") == old[key]:
                del state[key]
        for key, value in new.items():
            entry = state.get(key)
            if entry is None:
                entry = tomlkit.table()
                state[key] = entry
            if entry.get("trusted_hash") != value:
                entry["trusted_hash"] = value
    return tomlkit.dumps(doc)


def _noted(item: Any) -> bool:
    """Whether a ``features.hooks`` value carries the comment we add with it."""
    trivia = getattr(item, "trivia", None)
    return trivia is not None and (trivia.comment or "").lstrip("# ").strip() == _FEATURE_NOTE[2:]


def unmerge_config(text: str, old: Mapping[str, str]) -> str:
    """config.toml text without our trust entries and without the feature line we added."""
    doc = tomlkit.parse(text)
    state = _state_table(doc, create=False)
    if state is not None:
        for key in list(state):
            if key in old and state[key].get("trusted_hash") == old[key]:
                del state[key]
        hooks: Any = doc.item("hooks")
        if not state:
            del hooks["state"]
        if not hooks:
            del doc["hooks"]
    features: Any = doc.get("features")
    if features is not None and "hooks" in features and _noted(features.item("hooks")):
        del features["hooks"]
        if not features:
            del doc["features"]
    text = tomlkit.dumps(doc)
    # tomlkit leaves the blank line it put before our first appended table.
    return text.rstrip("\n") + "\n" if text.endswith("\n\n") else text


def check_toml(path: Path, text: str) -> None:
    try:
        data = tomlkit.parse(text).unwrap()
    except TOMLKitError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None
    hooks = data.get("hooks", {})
    for name, value in (("features", data.get("features", {})), ("hooks", hooks)):
        if not isinstance(value, dict):
            raise ConfigError(f"{path}: '{name}' must be a table")
    if not isinstance(hooks.get("state", {}), dict):
        raise ConfigError(f"{path}: 'hooks.state' must be a table")


def toml_data(text: str | None) -> Any:
    return tomlkit.parse(text or "").unwrap()
