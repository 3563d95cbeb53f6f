"""``signet-sdk install openclaw`` / ``uninstall``: our plugin in OpenClaw's state directory.

OpenClaw discovers plugins in ``<state dir>/extensions`` (the state
directory is ``$OPENCLAW_STATE_DIR``, else ``~/.openclaw``) and reads its
config from ``$OPENCLAW_CONFIG_PATH``, else ``<state dir>/openclaw.json``.
The installer writes one folder, ``extensions/signet-sdk``:

* ``index.mjs``, ``openclaw.plugin.json``, ``package.json``: the plugin
  (package data); the first line of ``index.mjs`` carries the managed marker
  ``SIGNET_SDK_MANAGED_OPENCLAW_PLUGIN``; the manifest gains
  ``contracts.tools``, the memory tools the plugin registers;
* ``transport.mjs``: the core's shared shim transport;
* ``signet-sdk.json``: the ``signet-sdk`` command the transport runs;
* ``signet-openclaw.json``: which hooks to forward and what of each, from
  the translator's own table, with each hook's deadline in milliseconds, and
  the memory tools to register (from the SDK's tool set);
* ``signet-install.json``: what the installer changed in the config, so
  that ``uninstall`` undoes exactly that.

and edits the config as text (JSON5: comments and layout stay as they are):

* ``plugins.entries.signet-sdk.enabled = true`` and
  ``…hooks.allowConversationAccess = true`` (OpenClaw withholds the prompt
  and turn hooks from a plugin it did not bundle without it);
* ``plugins.slots.memory = "signet-sdk"`` only when the config names no
  memory plugin, or with ``--memory-slot`` (the plugin is a memory plugin,
  and OpenClaw loads only the one its memory slot names);
* our id appended to ``plugins.allow`` when the user keeps an allowlist.

A second run changes nothing. ``--dry-run`` prints the changes and writes
nothing. ``uninstall`` reverses each recorded change whose value is still
ours (an untouched config gets its original bytes back) and removes our
folder; a folder without our marker is never touched.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from signet_sdk.installing import cli
from signet_sdk.installing import json5edit as j5
from signet_sdk.installing.command import hook_timeouts, sdk_command
from signet_sdk.installing.files import (
    InstallError,
    marked,
    read_text,
    remove_file,
    replace_text,
    text_diff,
)

from ._config import EMPTY, PLUGIN_ID, edit_config, undo_config
from ._tools import plugin_manifest, shim_tools

__all__ = ["DIRECTORY", "MARKER", "PLUGIN_ID", "config_path", "main", "plugin_files", "state_dir"]


DIRECTORY = "signet-sdk"
MARKER = "SIGNET_SDK_MANAGED_OPENCLAW_PLUGIN"
RECORD = "signet-install.json"
_MARGIN_MS = 1000
_PLUGIN_FILES = ("index.mjs", "openclaw.plugin.json", "package.json")


def _home(env: Mapping[str, str]) -> str:
    return env.get("HOME", "").strip() or os.path.expanduser("~")


def _expand(path: str, env: Mapping[str, str]) -> str:
    if path == "~" or path.startswith("~/"):
        path = _home(env) + path[1:]
    return os.path.abspath(path)


def state_dir(env: Mapping[str, str]) -> Path:
    """OpenClaw's state directory: ``$OPENCLAW_STATE_DIR``, else ``~/.openclaw``."""
    explicit = env.get("OPENCLAW_STATE_DIR", "").strip()
    return Path(_expand(explicit, env) if explicit else os.path.join(_home(env), ".openclaw"))


def config_path(env: Mapping[str, str], state: Path | None = None) -> Path:
    """OpenClaw's config: ``$OPENCLAW_CONFIG_PATH``, else ``<state dir>/openclaw.json``."""
    explicit = env.get("OPENCLAW_CONFIG_PATH", "").strip()
    if explicit:
        return Path(_expand(explicit, env))
    return (state or state_dir(env)) / "openclaw.json"


def shim_spec(env: Mapping[str, str]) -> dict[str, Any]:
    """``signet-openclaw.json``: the forwarded hooks, what of each, and each one's deadline."""
    from . import PLUGIN
    from ._translate import SHIM_EVENTS, SHIM_PERSIST, SHIM_SCOPE, SHIM_SHUTDOWN

    timeouts = hook_timeouts(env)
    events: dict[str, Any] = {}
    for name, rule in SHIM_EVENTS.items():
        seconds = timeouts.for_class(PLUGIN.events[name].timeout_class) or 10.0
        events[name] = {**rule, "timeoutMs": math.ceil(seconds * 1000) + _MARGIN_MS}
    return {
        "managedBy": "signet-sdk install openclaw",
        "harness": PLUGIN.name,
        "scope": list(SHIM_SCOPE),
        "events": events,
        "shutdown": dict(SHIM_SHUTDOWN),
        "persist": list(SHIM_PERSIST),
        "tools": shim_tools(env),
    }


def _json(data: Any) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def plugin_files(env: Mapping[str, str], python: str | None = None) -> dict[str, str]:
    """File name -> text of the plugin folder (without the install record)."""
    from importlib.resources import files

    from . import PLUGIN

    folder = PLUGIN.shim_dir()
    assert folder is not None
    out = {name: Path(folder, name).read_text(encoding="utf-8") for name in _PLUGIN_FILES}
    out["transport.mjs"] = (files("signet_sdk") / "shims" / "transport.mjs").read_text(
        encoding="utf-8"
    )
    command = {"managedBy": "signet-sdk install openclaw", "command": sdk_command(python)}
    out["signet-sdk.json"] = _json(command)
    spec = shim_spec(env)
    out["openclaw.plugin.json"] = plugin_manifest(out["openclaw.plugin.json"], spec["tools"])
    out["signet-openclaw.json"] = _json(spec)
    return out


def is_ours(folder: Path) -> bool:
    """Whether ``folder`` holds our plugin: its ``index.mjs`` starts with the marker."""
    return marked(folder / "index.mjs", MARKER)


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


# -- install / uninstall ------------------------------------------------------


class _Plan:
    def __init__(self, env: Mapping[str, str], opts: argparse.Namespace) -> None:
        self.state = Path(_expand(opts.state_dir, env)) if opts.state_dir else state_dir(env)
        self.config = (
            Path(_expand(opts.config, env)) if opts.config else config_path(env, self.state)
        )
        self.folder = self.state / "extensions" / DIRECTORY


def _check_place(folder: Path) -> None:
    if folder.is_symlink() or (folder.exists() and not folder.is_dir()):
        raise InstallError(f"{folder}: exists and is not a directory we manage; left untouched")
    if folder.exists() and any(folder.iterdir()) and not is_ours(folder):
        raise InstallError(
            f"{folder}: holds files without our marker ({MARKER}) in index.mjs; "
            "not ours, left untouched"
        )


def _load_record(folder: Path) -> dict[str, Any]:
    raw = read_text(folder / RECORD)
    if raw is None:
        return {}
    try:
        record = json.loads(raw)
    except ValueError as exc:
        raise InstallError(f"{folder / RECORD}: not JSON: {exc}") from None
    return record if isinstance(record, dict) else {}


def _install(plan: _Plan, files: dict[str, str], memory_slot: bool, dry_run: bool) -> int:
    _check_place(plan.folder)
    record = _load_record(plan.folder) if is_ours(plan.folder) else {}
    original = read_text(plan.config)
    try:
        text, changes, notes = edit_config(original if original is not None else EMPTY, memory_slot)
    except j5.Json5Error as exc:
        raise InstallError(f"{plan.config}: not valid JSON5 ({exc}); not changed") from None
    if record.get("config") not in (None, str(plan.config)):
        changes = []  # recorded against another config file: keep that record
    new_record = {
        "managedBy": "signet-sdk install openclaw",
        "config": str(plan.config),
        "createdConfig": record.get("createdConfig", original is None),
        "changes": list(record.get("changes", [])) + changes,
    }
    files = {**files, RECORD: _json(new_record)}
    file_changes = [(n, t) for n, t in files.items() if read_text(plan.folder / n) != t]
    config_changed = original is None or text != original
    if not file_changes and not config_changed:
        sys.stdout.write(f"{plan.folder}: already up to date, nothing changed\n")
        for note in notes:
            sys.stdout.write(f"note: {note}\n")
        return 0
    if dry_run:
        for name, new in file_changes:
            sys.stdout.write(
                text_diff(plan.folder / name, read_text(plan.folder / name), new, "install")
            )
        if config_changed:
            sys.stdout.write(text_diff(plan.config, original, text, "install"))
        for note in notes:
            sys.stdout.write(f"note: {note}\n")
        return 0
    # index.mjs last: the marker appears only once the other files are in place.
    for name, new in sorted(file_changes, key=lambda c: c[0] == "index.mjs"):
        replace_text(plan.folder / name, new)
    if config_changed:
        replace_text(plan.config, text, 0o600)
    sys.stdout.write(f"Signet OpenClaw plugin installed into {plan.folder}\n")
    sys.stdout.write(f"enabled in {plan.config}; restart the OpenClaw gateway to load it\n")
    for note in notes:
        sys.stdout.write(f"note: {note}\n")
    return 0


def _uninstall(plan: _Plan, names: Sequence[str], dry_run: bool) -> int:
    if not plan.folder.is_dir() or plan.folder.is_symlink() or not is_ours(plan.folder):
        sys.stdout.write(f"{plan.folder}: no plugin of ours there, nothing changed\n")
        return 0
    record = _load_record(plan.folder)
    config = Path(record.get("config") or plan.config)
    original = read_text(config)
    text, notes = original, list[str]()
    if original is not None and record.get("changes"):
        try:
            text, notes = undo_config(original, record["changes"])
        except j5.Json5Error as exc:
            raise InstallError(f"{config}: not valid JSON5 ({exc}); not changed") from None
    remove_config = (
        bool(record.get("createdConfig")) and text is not None and not text.strip("{}\n ")
    )
    present = [n for n in [*names, RECORD] if (plan.folder / n).is_file()]
    if dry_run:
        for name in present:
            sys.stdout.write(
                text_diff(plan.folder / name, read_text(plan.folder / name), None, "uninstall")
            )
        if text != original or remove_config:
            sys.stdout.write(
                text_diff(config, original, None if remove_config else text, "uninstall")
            )
        return 0
    if remove_config:
        remove_file(config)
    elif text is not None and text != original:
        replace_text(config, text)
    cli.remove_folder(plan.folder, present, "index.mjs")
    for note in notes:
        sys.stdout.write(f"note: {note}\n")
    sys.stdout.write(f"Signet OpenClaw plugin removed from {plan.folder}\n")
    return 0


def _run(opts: argparse.Namespace, env: dict[str, str]) -> int:
    plan = _Plan(env, opts)
    files = plugin_files(env, opts.python)
    if opts.verb == "install":
        return _install(plan, files, opts.memory_slot, opts.dry_run)
    return _uninstall(plan, list(files), opts.dry_run)


#: ``main(["install" | "uninstall", *options])``; 0 on success, 1 when refused, 2 on usage.
main = cli.command(
    "openclaw",
    "Write Signet's OpenClaw plugin into OpenClaw's state directory "
    "(extensions/signet-sdk) and enable it in openclaw.json, or remove both.",
    _run,
    [
        cli.Option("--state-dir", "default: $OPENCLAW_STATE_DIR, else ~/.openclaw", "DIR"),
        cli.Option(
            "--config", "default: $OPENCLAW_CONFIG_PATH, else <state>/openclaw.json", "FILE"
        ),
        cli.Option(
            "--memory-slot",
            "make Signet the memory plugin even when the config names another one",
        ),
    ],
)


if __name__ == "__main__":
    sys.exit(main())
