"""``signet-sdk install codex`` / ``uninstall``: trusted hooks in Codex's config.

Codex reads command hooks from ``hooks.json`` next to its config layer
(``$CODEX_HOME``, default ``~/.codex``; ``--project DIR`` uses
``DIR/.codex``) and runs a non-managed hook only when the user
``config.toml`` records its trust hash. The installer therefore edits two
files and nothing else in them:

* ``hooks.json``: one matcher group ``{"hooks":[{"type":"command",
  "command":"<signet-sdk> hook codex <Event>","timeout":<s>}]}`` per event,
  appended after the user's groups (our handler is recognised by its
  command, so a reinstall from another environment updates it in place).
  The file's top level accepts only ``hooks`` and ``description`` in Codex,
  so no marker key is written.
* ``config.toml`` (edited with tomlkit, so comments, order and formatting
  stay): ``[features] hooks = true`` when not already set, and one
  ``[hooks.state."<hooks.json>:<event>:<group>:<handler>"]`` table with
  ``trusted_hash`` per handler of ours (see :mod:`._trust`).

Timeouts are in seconds: the hook's own deadline plus 2 s, and 3 s for
SessionEnd (Codex clamps SessionEnd hooks to 3 s). A second run changes
nothing. Before the first change, each file's original bytes (or its
absence) are kept beside it as ``<file>.signet-sdk-orig``; ``uninstall``
removes what we added and, when the rest is what it was, puts those exact
bytes back (or removes a file we created). ``--dry-run`` prints the diffs.
A file that cannot be parsed is reported with its path (exit 1), untouched.
With ``--project`` the trust hashes still go to the user ``config.toml``
(where Codex keeps hook state), and Codex loads the project's ``.codex``
only for a project the user trusted; the installer never trusts a project.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from signet_sdk.installing import cli
from signet_sdk.installing.command import event_deadlines, runs_sdk, sdk_shell_command
from signet_sdk.installing.files import InstallError, parse_json, read_text
from signet_sdk.installing.hook_groups import (
    check_hook_groups,
    merge_hook_groups,
    unmerge_hook_groups,
)
from signet_sdk.installing.originals import kept, original_record, restored, write_keeping

from ._paths import codex_home
from ._toml import ConfigError, check_toml, merge_config, toml_data, unmerge_config
from ._trust import state_key, trusted_hash

__all__ = ["ConfigError", "hook_command", "hook_timeouts", "main", "merge_hooks"]

_MARGIN = 2
#: Codex clamps SessionEnd hooks to 3 s; registering exactly that keeps the hash stable.
_SESSION_END_TIMEOUT = 3
_HOOK_ARGS = ("hook", "codex")


def hook_timeouts(env: Mapping[str, str] | None = None) -> dict[str, int]:
    """Codex's ``timeout`` (seconds) per registered event."""
    from . import PLUGIN

    deadlines = event_deadlines(PLUGIN.events, env)
    return {
        name: _SESSION_END_TIMEOUT if name == "SessionEnd" else math.ceil(seconds) + _MARGIN
        for name, seconds in deadlines.items()
        if name != "SubagentStop"  # sends nothing; not registered
    }


def hook_command(python: str | None = None) -> str:
    """The command Codex runs: an absolute ``signet-sdk`` (or ``python -m signet_sdk``)."""
    return sdk_shell_command(_HOOK_ARGS, python)


def is_ours(handler: Any) -> bool:
    """Whether a handler entry is one this installer wrote (from any environment)."""
    return runs_sdk(handler, _HOOK_ARGS)


def merge_hooks(data: dict[str, Any], command: str, timeouts: Mapping[str, int]) -> dict[str, Any]:
    """``data`` with exactly one handler of ours per event; everything else as it was."""
    wanted = {
        event: {"type": "command", "command": f"{command} {event}", "timeout": seconds}
        for event, seconds in timeouts.items()
    }
    return merge_hook_groups(data, wanted, is_ours)


def our_trust(source: str, data: Mapping[str, Any]) -> dict[str, str]:
    """``hooks.state`` key -> trusted hash for every handler of ours in ``data``."""
    out: dict[str, str] = {}
    for event, groups in (data.get("hooks") or {}).items():
        for g, group in enumerate(groups):
            matcher = group.get("matcher") if isinstance(group.get("matcher"), str) else None
            for h, handler in enumerate(group.get("hooks", [])):
                if is_ours(handler):
                    out[state_key(source, event, g, h)] = trusted_hash(event, handler, matcher)
    return out


def _load_hooks(path: Path, text: str | None) -> dict[str, Any]:
    return check_hook_groups(parse_json(path, text, ConfigError), path, ConfigError)


def _without_empty(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` without empty event lists, then without ``hooks`` if that left it empty.

    What the hooks mean to Codex, for telling whether the rest is as it was:
    our removal takes away the list (and ``hooks``) it emptied, so a user's
    own ``"hooks": {}`` or ``"Stop": []`` must not count as a change, or
    uninstall would never give their bytes back.
    """
    hooks = data.get("hooks")
    if not isinstance(hooks, dict):
        return data
    kept = {event: groups for event, groups in hooks.items() if groups != []}
    out = {k: v for k, v in data.items() if k != "hooks"}
    if kept:
        out["hooks"] = kept
    return out


def _original(path: Path) -> Any:
    """What the original kept at the first install means (``{}``: there was no file);
    None when none was kept or it is no longer TOML: then nothing can be told from it."""
    was_kept, text = kept(path)
    return toml_data(text) if was_kept else None


def _plan(
    verb: str, home: Path, hooks_dir: Path, command: str, env: Mapping[str, str]
) -> tuple[list[Any], list[str]]:
    """The two files' planned changes, and a note per key of the user's found in an
    entry of ours that goes (moved, or kept where it is), to say when written."""
    hooks_path, config_path = hooks_dir / "hooks.json", home / "config.toml"
    source = str(hooks_path)
    hooks_text, config_text = read_text(hooks_path), read_text(config_path)
    data = _load_hooks(hooks_path, hooks_text)
    check_toml(config_path, config_text or "")
    old_trust = our_trust(source, data)
    if verb == "install":
        merged = merge_hooks(data, command, hook_timeouts(env))
        new_hooks = json.dumps(merged, indent=2, ensure_ascii=False) + "\n"
        if hooks_text is not None and _load_hooks(hooks_path, hooks_text) == merged:
            new_hooks = hooks_text
        new_config, notes = merge_config(
            config_path,
            config_text or "",
            source,
            old_trust,
            our_trust(source, merged),
            _original(config_path),
        )
        return [
            (hooks_path, hooks_text, new_hooks),
            (config_path, config_text, new_config),
        ], notes
    left = unmerge_hook_groups(data, is_ours)
    out_hooks: str | None = json.dumps(left, indent=2, ensure_ascii=False) + "\n"
    if left == data:
        out_hooks = hooks_text
    elif hooks_text is not None:
        out_hooks = restored(
            hooks_path, out_hooks or "", lambda t: _without_empty(_load_hooks(hooks_path, t))
        )
    out_config: str | None
    out_config, notes = unmerge_config(
        config_path, config_text or "", old_trust, _original(config_path)
    )
    if config_text is None and not out_config:
        out_config = None
    elif out_config != config_text:
        out_config = restored(config_path, out_config or "", toml_data)
    return [(hooks_path, hooks_text, out_hooks), (config_path, config_text, out_config)], notes


def _run(opts: argparse.Namespace, env: dict[str, str]) -> int:
    home = Path(codex_home(env)).expanduser().absolute()
    hooks_dir = Path(opts.project).expanduser().absolute() / ".codex" if opts.project else home
    plan, notes = _plan(opts.verb, home, hooks_dir, hook_command(opts.python), env)

    def write(change: cli.Change) -> str:
        # Codex's folders stay on uninstall: its own files live in them too.
        write_keeping(change, opts.verb, original_record(change.path, change.before, folders=False))
        if change.path.name == "config.toml":
            # A key of the user's was in a table of ours: say where it went once it has.
            sys.stderr.write("".join(f"signet-sdk {opts.verb} codex: {n}\n" for n in notes))
        return f"{change.path}: {'written' if change.after is not None else 'removed'}\n"

    wrote = cli.apply("codex", opts.verb, [cli.Change(*c) for c in plan], opts.dry_run, write)
    if wrote is None:
        return 1
    if wrote and opts.verb == "install":
        sys.stdout.write("Codex reads hooks when a session starts: restart running sessions.\n")
        if opts.project:
            sys.stdout.write(
                "Codex loads a project's .codex only once you trust the project "
                "(its trust prompt, or codex exec --trust).\n"
            )
    return 0


#: ``main(["install" | "uninstall", *options])``; 0 ok, 1 a file we cannot change, 2 usage.
main = cli.command(
    "codex",
    "Register Signet's Codex hooks in hooks.json and trust them in config.toml, or remove them.",
    _run,
    [cli.Option("--project", "use DIR/.codex/hooks.json", "DIR")],
    dry_run=cli.DIFFS,
    python=cli.HOOK_PYTHON,
    refused=(ConfigError, InstallError),
)


if __name__ == "__main__":
    sys.exit(main())
