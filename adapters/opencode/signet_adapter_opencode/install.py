"""``signet-sdk install opencode`` / ``uninstall``: our plugin and MCP server in OpenCode's config.

OpenCode loads every ``plugins/*.js`` of its config directory
(``$XDG_CONFIG_HOME/opencode``, else ``~/.config/opencode``) and, with
``--project DIR``, of ``DIR/.opencode``. The installer writes there:

* ``plugins/signet-sdk.js``: the shim (package data), whose first line is
  the managed marker ``SIGNET_SDK_MANAGED_OPENCODE_PLUGIN``; files in
  ``plugins/`` are loaded without a config entry;
* ``plugins/signet-sdk/``: the core's shared transport (``transport.mjs``),
  the ``signet-sdk`` command it runs (``signet-sdk.json``, this
  environment's, as an absolute path) and ``signet-opencode.json``: which
  hooks and events to forward and what of each, from the translator's own
  table, with each event's deadline in milliseconds (the adapter's deadline,
  from ``SIGNET_*_TIMEOUT`` at install time, plus a margin);

and (unless ``--no-mcp``) merges ``mcp.signet`` (``signet-sdk mcp`` as a
local MCP server, the memory tools) into the config file: the first of ``opencode.jsonc``,
``opencode.json`` that exists (user: in the config directory; project: in
``DIR``), else a new ``opencode.json``. The file is edited as text (JSONC
comments, trailing commas and layout survive), a backup of the previous
bytes is kept beside it as ``<name>.signet-sdk.bak``, and what was changed
is recorded in ``plugins/signet-sdk/install.json`` so that uninstall puts
back exactly what was there (a ``signet`` MCP entry of someone else's
included; install says when it replaced one, since until uninstall that
server is not run). A config file that does not parse is reported and left untouched.

Rules: files are ours only when the shim carries the marker; anything else
in their place is refused (exit 1). A second run finds nothing to change and
writes nothing. ``--dry-run`` prints the diff and writes nothing.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from signet_sdk.installing import cli
from signet_sdk.installing import json5edit as j5
from signet_sdk.installing.command import sdk_command
from signet_sdk.installing.files import (
    InstallError,
    marked,
    parse_config,
    read_text,
    text_diff,
    write_or_remove,
)

__all__ = ["MARKER", "config_dir", "main", "mcp_entry", "plugin_files", "sdk_command", "shim_spec"]

#: The first line of our plugin file contains this; nothing else is ours.
MARKER = "SIGNET_SDK_MANAGED_OPENCODE_PLUGIN"
PLUGIN_FILE = "signet-sdk.js"
SUPPORT_DIR = "signet-sdk"
RECORD = "install.json"
#: The MCP server name in the config's ``mcp`` object.
MCP_NAME = "signet"
#: Milliseconds the shim waits beyond the adapter's own deadline for an event.
_MARGIN_MS = 1000
#: The plugin Signet's own connector installs; both capturing means doubled memories.
_SIGNET_CONNECTOR_FILE = "signet.mjs"
_CONFIG_NAMES = ("opencode.jsonc", "opencode.json")


def config_dir(project: str | None, env: Mapping[str, str]) -> Path:
    """Where OpenCode looks for plugins: the project's ``.opencode``, else the user's."""
    if project:
        return Path(project).expanduser().absolute() / ".opencode"
    base = (env.get("XDG_CONFIG_HOME") or "").strip()
    root = Path(base) if base and os.path.isabs(base) else Path(env.get("HOME") or "~") / ".config"
    return root.expanduser() / "opencode"


def config_file(project: str | None, env: Mapping[str, str]) -> Path:
    """The config file to merge into: the first that exists, else a new ``opencode.json``."""
    folder = Path(project).expanduser().absolute() if project else config_dir(None, env)
    for name in _CONFIG_NAMES:
        if (folder / name).exists():
            return folder / name
    return folder / "opencode.json"


def shim_spec(env: Mapping[str, str]) -> dict[str, Any]:
    """``signet-opencode.json``: the forwarded events, what of each, and each one's deadline."""
    from signet_sdk.installing.command import hook_timeouts

    from . import PLUGIN
    from ._translate import SHIM_EVENTS

    timeouts = hook_timeouts(env)
    events: dict[str, Any] = {}
    for name, spec in PLUGIN.events.items():
        seconds = timeouts.for_class(spec.timeout_class) or 10.0
        rule = SHIM_EVENTS.get(name, {"hook": "held", "lane": "writes"})
        events[name] = {**rule, "timeoutMs": math.ceil(seconds * 1000) + _MARGIN_MS}
    return {"managedBy": "signet-sdk install opencode", "harness": PLUGIN.name, "events": events}


def mcp_entry(python: str | None = None) -> dict[str, Any]:
    """OpenCode's local MCP server entry running ``signet-sdk mcp``, labelled as OpenCode."""
    return {
        "type": "local",
        "command": [*sdk_command(python), "mcp"],
        "environment": {"SIGNET_HARNESS": "opencode"},
        "enabled": True,
    }


def _json(data: Any) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def plugin_files(env: Mapping[str, str], python: str | None = None) -> dict[str, str]:
    """Path under ``plugins/`` -> text of every file the installer writes there."""
    from importlib.resources import files

    from . import PLUGIN

    shim_dir = PLUGIN.shim_dir()
    assert shim_dir is not None
    shim = Path(shim_dir, PLUGIN_FILE).read_text(encoding="utf-8")
    transport = (files("signet_sdk") / "shims" / "transport.mjs").read_text(encoding="utf-8")
    command = {"managedBy": "signet-sdk install opencode", "command": sdk_command(python)}
    return {
        f"{SUPPORT_DIR}/transport.mjs": transport,
        f"{SUPPORT_DIR}/signet-sdk.json": _json(command),
        f"{SUPPORT_DIR}/signet-opencode.json": _json(shim_spec(env)),
        PLUGIN_FILE: shim,
    }


# -- files -------------------------------------------------------------------


def _is_ours(path: Path) -> bool:
    return marked(path, MARKER)


# -- the config file --------------------------------------------------------


def _parse(path: Path, text: str) -> j5.Node:
    return parse_config(path, text, "JSONC", ["mcp"])


def merge_config(path: Path, text: str | None, entry: Any) -> tuple[str, dict[str, Any] | None]:
    """The config with ``mcp.signet`` set, and the record of what changed (None: nothing)."""
    current = "{}\n" if text is None else text
    _parse(path, current)
    updated, change = j5.set_member(current, ["mcp", MCP_NAME], entry)
    if change is None:
        return current, None
    record: dict[str, Any] = {"file": str(path), "existed": text is not None, "change": change}
    return updated, record


def unmerge_config(path: Path, text: str, record: Mapping[str, Any]) -> tuple[str, str | None]:
    """The config with our change reversed while the entry is still ours; and a note if not."""
    root = _parse(path, text)
    node = j5.find(root, ["mcp", MCP_NAME])
    ours = record.get("entry")
    if node is None:
        return text, None
    if j5.plain(node) != ours:
        return text, f"{path}: mcp.{MCP_NAME} was changed since install; left as it is"
    change = list(record.get("change") or [])
    if change and change[0] == "replaced":
        return j5.replace_value(text, ["mcp", MCP_NAME], str(change[2])), None
    if change and change[0] == "created" and list(change[1]) == ["mcp"]:
        mcp = j5.find(root, ["mcp"])
        if mcp is not None and [k for k, _, _ in mcp.members] == [MCP_NAME]:
            return j5.remove_member(text, ["mcp"]), None
    return j5.remove_member(text, ["mcp", MCP_NAME]), None


# -- install / uninstall --------------------------------------------------


def _check_place(plugins: Path, names: Sequence[str]) -> None:
    shim = plugins / PLUGIN_FILE
    if shim.exists() or shim.is_symlink():
        if not _is_ours(shim):
            raise InstallError(f"{shim}: exists without our marker ({MARKER}); left untouched")
        return
    taken = [n for n in names if (plugins / n).exists() or (plugins / n).is_symlink()]
    if taken:
        raise InstallError(
            f"{plugins}: holds {', '.join(taken)} but no plugin of ours; left untouched"
        )


def _install(plugins: Path, files: Mapping[str, str], cfg: Path, entry: Any, dry_run: bool) -> int:
    _check_place(plugins, list(files))
    cfg_text = read_text(cfg)
    record_path = plugins / SUPPORT_DIR / RECORD
    old_record_text = read_text(record_path)
    if entry is None:  # --no-mcp: the config file is not touched
        new_cfg, change = cfg_text, None
    else:
        new_cfg, change = merge_config(cfg, cfg_text, entry)
    out = dict(files)
    # A value of someone else's goes (our older entry aside): said, since uninstall restores it.
    replaced = change is not None and change["change"][0] == "replaced"
    if change is not None and old_record_text is not None:
        # Our own older entry replaced (a new interpreter path): uninstall still
        # restores what was there before the first install.
        try:
            old = json.loads(old_record_text)
        except ValueError:
            old = None
        first = change["change"]
        ours = isinstance(old, dict) and first[0] == "replaced"
        if ours and isinstance(old, dict) and j5.plain(j5.parse(first[2])) == old.get("entry"):
            change["change"], change["existed"] = old.get("change"), old.get("existed")
            replaced = False
    if change is not None:
        change["entry"] = entry
        out[f"{SUPPORT_DIR}/{RECORD}"] = _json(change)
    elif old_record_text is not None:
        out[f"{SUPPORT_DIR}/{RECORD}"] = old_record_text
    changes = [(n, read_text(plugins / n), t) for n, t in out.items()]
    changes = [c for c in changes if c[1] != c[2]]
    cfg_changed = new_cfg != cfg_text
    if not changes and not cfg_changed:
        sys.stdout.write(f"{plugins}: already up to date, nothing changed\n")
        return 0
    if dry_run:
        for name, current, text in changes:
            sys.stdout.write(text_diff(plugins / name, current, text, "install"))
        if cfg_changed:
            sys.stdout.write(text_diff(cfg, cfg_text, new_cfg, "install"))
        return 0
    writes: list[cli.Change] = []
    if cfg_changed and new_cfg is not None:
        if cfg_text is not None:
            bak = cfg.with_name(cfg.name + ".signet-sdk.bak")
            if (kept := read_text(bak)) != cfg_text:
                writes.append(cli.Change(bak, kept, cfg_text))
        writes.append(cli.Change(cfg, cfg_text, new_cfg))
    # The plugin file last: OpenCode loads it only once everything it needs is there.
    for name, current, text in sorted(changes, key=lambda c: c[0] == PLUGIN_FILE):
        writes.append(cli.Change(plugins / name, current, text))
    if not _write_all("install", writes):
        return 1
    sys.stdout.write(f"Signet OpenCode plugin installed into {plugins}\n")
    if cfg_changed:
        sys.stdout.write(f"{cfg}: mcp.{MCP_NAME} runs the memory tools (signet-sdk mcp)\n")
    if replaced and cfg_changed:
        sys.stdout.write(
            f"{cfg}: replaced your own mcp.{MCP_NAME}; signet-sdk uninstall opencode puts it back\n"
        )
    sys.stdout.write("OpenCode loads plugins at start-up: restart running sessions.\n")
    if (plugins / _SIGNET_CONNECTOR_FILE).exists():
        sys.stdout.write(
            f"note: {plugins / _SIGNET_CONNECTOR_FILE} (Signet's own OpenCode plugin) is "
            "installed too; with both, every session is captured twice\n"
        )
    return 0


def _uninstall(plugins: Path, names: Sequence[str], cfg: Path, dry_run: bool) -> int:
    shim = plugins / PLUGIN_FILE
    if not _is_ours(shim):
        sys.stdout.write(f"{plugins}: no plugin of ours there, nothing changed\n")
        return 0
    record_text = read_text(plugins / SUPPORT_DIR / RECORD)
    record: dict[str, Any] = {}
    if record_text:
        try:
            record = json.loads(record_text)
        except ValueError:
            record = {}
    target = Path(record["file"]) if isinstance(record.get("file"), str) else cfg
    cfg_text = read_text(target)
    new_cfg, note = (cfg_text, None)
    if cfg_text is not None and record:
        new_cfg, note = unmerge_config(target, cfg_text, record)
        if new_cfg == "{}\n" and record.get("existed") is False:
            new_cfg = None  # we created the file for our entry alone
    present = [*names, f"{SUPPORT_DIR}/{RECORD}"]
    present = [n for n in present if (plugins / n).is_file() and not (plugins / n).is_symlink()]
    if dry_run:
        for name in present:
            sys.stdout.write(
                text_diff(plugins / name, read_text(plugins / name), None, "uninstall")
            )
        if new_cfg != cfg_text:
            sys.stdout.write(text_diff(target, cfg_text, new_cfg, "uninstall"))
        return 0
    # The plugin file first: without it, whatever is left is never loaded.
    writes = [
        cli.Change(plugins / name, read_text(plugins / name), None)
        for name in sorted(present, key=lambda n: n != PLUGIN_FILE)
    ]
    if new_cfg != cfg_text:
        writes.append(cli.Change(target, cfg_text, new_cfg))
    if not _write_all("uninstall", writes):
        return 1
    with contextlib.suppress(OSError):  # it holds files of someone else's
        (plugins / SUPPORT_DIR).rmdir()
    if note:
        sys.stdout.write(f"note: {note}\n")
    sys.stdout.write(f"Signet OpenCode plugin removed from {plugins}\n")
    return 0


def _write_all(verb: str, writes: Sequence[cli.Change]) -> bool:
    """Write ``writes`` in order; on a failure, put back what was written and say so.

    A config written without the plugin, or a plugin (and the record of the
    user's own ``mcp.signet``) removed while the config still names ours,
    would leave the user half installed with the way back gone.
    """

    def write(change: cli.Change) -> str:
        write_or_remove(change.path, change.after)
        return ""

    return cli.apply("opencode", verb, writes, False, write) is not None


def _run(opts: argparse.Namespace, env: dict[str, str]) -> int:
    plugins = config_dir(opts.project, env) / "plugins"
    cfg = config_file(opts.project, env)
    files = plugin_files(env, opts.python)
    if opts.verb == "install":
        entry = None if opts.no_mcp else mcp_entry(opts.python)
        return _install(plugins, files, cfg, entry, opts.dry_run)
    return _uninstall(plugins, list(files), cfg, opts.dry_run)


#: ``main(["install" | "uninstall", *options])``; 0 on success, 1 when refused, 2 on usage.
main = cli.command(
    "opencode",
    "Write Signet's OpenCode plugin and MCP server entry into OpenCode's "
    "config directory (or a project's .opencode), or remove them.",
    _run,
    [cli.Option("--project", "install for one project (DIR/.opencode/plugins)", "DIR")],
    [
        cli.Option(
            "--no-mcp",
            "do not register the memory tools' MCP server (mcp.signet) in the config",
        )
    ],
)


if __name__ == "__main__":
    sys.exit(main())
