# long module: the Hermes installer: plugin file, config.yaml line edit, original kept
"""``signet-sdk install hermes-agent`` / ``uninstall``: our provider where Hermes looks for it.

Hermes 0.19 loads one external memory provider, named by ``memory.provider``
in ``$HERMES_HOME/config.yaml`` (``HERMES_HOME`` defaults to ``~/.hermes``),
from its bundled ``plugins/memory/<name>/`` or from
``$HERMES_HOME/plugins/<name>/__init__.py`` (hermes-agent
plugins/memory/__init__.py, ``find_provider_dir``). The installer:

* writes ``$HERMES_HOME/plugins/signet/__init__.py``, a few lines that
  import this package and call its ``register(ctx)``; its first line holds
  the marker ``SIGNET_SDK_MANAGED_HERMES_PROVIDER``, and nothing without it
  is ours;
* sets ``memory.provider: signet`` in ``config.yaml`` with the smallest text
  edit (comments and every other line kept byte for byte), after copying the
  old file to ``config.yaml.bak-<UTC time>``. A different provider already
  selected is refused (Hermes runs one) unless ``--force``; a flow-style
  ``memory: {...}`` mapping is refused rather than rewritten;
* keeps what ``config.yaml`` was before that edit (its exact text, or that
  there was no file) in ``config.yaml.signet-sdk-orig`` (0600), the
  record of :mod:`signet_sdk.installing.originals`. It is written afresh by
  every install that edits the file, since that install is the one whose
  line uninstall must undo, and removed by uninstall.

A second run finds nothing to change and writes nothing. ``--dry-run``
prints the diff and writes nothing. ``uninstall`` removes our plugin file
(and its folder when that leaves it empty) and undoes the ``config.yaml``
edit, with a backup; anything not ours is left alone:

* the ``provider`` line install replaced (``--force``, or an empty
  ``provider: ""``) comes back byte for byte, comment included, in place of
  ours, while ours is still exactly the line install wrote; a line edited
  since is no longer ours to swap back, and goes as below;
* otherwise our ``provider: signet`` line goes, and the ``memory:`` line
  with it when that was all it held and the original had no ``memory:``
  line;
* when the rest of the file is what it was (up to a final newline, or
  blank against no file), the original bytes come back: a file that was
  only ``"\n"`` stays, one that did not exist is removed.

An install from before the record (no ``.signet-sdk-orig``) uninstalls as
it always did: our line goes, and a file left blank is removed.

The plugin file imports ``signet_adapter_hermes``: install this package into
the Python environment Hermes runs in.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from signet_sdk.installing import cli
from signet_sdk.installing.files import (
    InstallError,
    backup,
    marked,
    read_text,
    remove_file,
    replace_text,
    text_diff,
)
from signet_sdk.installing.originals import kept, original_path, original_record, restored

__all__ = [
    "MARKER",
    "PLUGIN_TEXT",
    "InstallError",
    "hermes_home",
    "main",
    "with_provider",
    "without_provider",
]

#: The first line of our plugin file holds this; nothing else is ours.
MARKER = "SIGNET_SDK_MANAGED_HERMES_PROVIDER"
#: The provider name (``memory.provider``) and plugin folder name.
NAME = "signet"

#: The plugin file. Hermes's loader looks for ``MemoryProvider`` or
#: ``register_memory_provider`` in it before importing it, and calls ``register``.
PLUGIN_TEXT = f'''# {MARKER}: written by `signet-sdk install hermes-agent`; removed by `uninstall`.
"""Signet memory for Hermes: the signet-sdk MemoryProvider (package signet_adapter_hermes)."""

from agent.memory_provider import MemoryProvider


def register(ctx):
    """Hermes's plugin entry: calls ctx.register_memory_provider with Signet's provider."""
    from signet_adapter_hermes.provider import register as register_signet

    register_signet(ctx, MemoryProvider)
'''

_MEMORY = re.compile(r"^memory:[ \t]*(?:#.*)?$")
_MEMORY_FLOW = re.compile(r"^memory:[ \t]*[^\s#]")
_PROVIDER = re.compile(r"^(?P<indent>[ \t]+)provider:(?P<value>[^#\n]*?)(?P<tail>[ \t]*(?:#.*)?)$")


def hermes_home(env: Mapping[str, str]) -> Path:
    """``$HERMES_HOME``, else ``~/.hermes`` (hermes_constants.get_hermes_home)."""
    raw = env.get("HERMES_HOME", "").strip()
    if raw:
        return Path(raw).expanduser().absolute()
    return Path(env.get("HOME") or Path.home()) / ".hermes"


def _unquote(value: str) -> str:
    v = value.strip()
    if len(v) >= 2 and v[0] == v[-1] and v[0] in "'\"":
        return v[1:-1]
    return v


def _memory_block(lines: list[str]) -> tuple[int, int] | None:
    """The ``memory:`` line's index and the end of its indented block, or None."""
    for i, raw in enumerate(lines):
        line = raw.rstrip("\r\n")
        if _MEMORY_FLOW.match(line):
            raise InstallError("memory: is written as a flow mapping; set provider by hand")
        if _MEMORY.match(line):
            end = i + 1
            while end < len(lines):
                text = lines[end]
                if text.strip() and not text.lstrip().startswith("#") and not text[0].isspace():
                    break
                end += 1
            return i, end
    return None


def _child_indent(lines: list[str], start: int, end: int) -> str:
    for line in lines[start + 1 : end]:
        if line.strip() and not line.lstrip().startswith("#"):
            return line[: len(line) - len(line.lstrip())]
    return "  "


def _provider_line(lines: list[str], start: int, end: int) -> tuple[int, re.Match[str]] | None:
    indent = _child_indent(lines, start, end)
    for i in range(start + 1, end):
        found = _PROVIDER.match(lines[i].rstrip("\r\n"))
        if found and found["indent"] == indent:
            return i, found
    return None


def _ours_for(match: re.Match[str]) -> str:
    """The line install puts in place of the ``provider`` line ``match`` (no line end)."""
    return f"{match['indent']}provider: {NAME}{match['tail']}"


def _before_install(original: str | None) -> tuple[bool, str | None]:
    """From ``config.yaml``'s text before install: whether it had a ``memory:`` line, and
    the ``provider`` line install replaced (no line end; None when it added its own)."""
    if not original:
        return False, None
    lines = original.splitlines(keepends=True)
    try:
        block = _memory_block(lines)
    except InstallError:
        return False, None
    if block is None:
        return False, None
    found = _provider_line(lines, *block)
    if found is None or _unquote(found[1]["value"]) == NAME:
        return True, None
    return True, lines[found[0]].rstrip("\r\n")


def with_provider(text: str | None, *, force: bool = False) -> str:
    """``config.yaml`` text with ``memory.provider: signet``; the rest kept as it was."""
    if not text:
        return f"memory:\n  provider: {NAME}\n"
    lines = text.splitlines(keepends=True)
    block = _memory_block(lines)
    if block is None:
        sep = "" if text.endswith("\n") else "\n"
        return f"{text}{sep}memory:\n  provider: {NAME}\n"
    start, end = block
    found = _provider_line(lines, start, end)
    if found is None:
        indent = _child_indent(lines, start, end)
        lines.insert(start + 1, f"{indent}provider: {NAME}\n")
        return "".join(lines)
    i, match = found
    current = _unquote(match["value"])
    if current == NAME:
        return text
    if current and not force:
        raise InstallError(
            f"memory.provider is {current!r}; Hermes runs one external memory provider, "
            "so it was left as it is (pass --force to replace it with signet)"
        )
    newline = lines[i][len(lines[i].rstrip("\r\n")) :]
    lines[i] = f"{_ours_for(match)}{newline}"
    return "".join(lines)


def without_provider(text: str | None, original: str | None = None) -> str | None:
    """``config.yaml`` text without our ``provider: signet`` line; None when the file goes.

    ``original`` is the file's text before install (None: no record, or no
    file). The ``provider`` line install replaced in it comes back in place
    of ours while ours is exactly what install made of it; a ``memory:``
    line it had stays.
    """
    if text is None:
        return None
    lines = text.splitlines(keepends=True)
    try:
        block = _memory_block(lines)
    except InstallError:
        return text
    if block is None:
        return text
    start, end = block
    found = _provider_line(lines, start, end)
    if found is None or _unquote(found[1]["value"]) != NAME:
        return text
    i = found[0]
    had_memory, replaced = _before_install(original)
    ours = lines[i].rstrip("\r\n")
    if replaced is not None:
        was = _PROVIDER.match(replaced)
        if was is not None and ours == _ours_for(was):
            lines[i] = replaced + lines[i][len(ours) :]
            return "".join(lines)
    del lines[i]
    rest = [ln for ln in lines[start + 1 : end - 1] if ln.strip() and ln.lstrip()[0] != "#"]
    if not rest and not had_memory:
        del lines[start]  # the memory: line held only our provider
    out = "".join(lines)
    return out if out.strip() else None


def _is_ours(path: Path) -> bool:
    return marked(path, MARKER)


def _normal(text: str | None) -> str:
    """What ``config.yaml`` text means to uninstall's comparison with the original: a
    blank file is no file, and a missing final newline (install adds one) is there."""
    if text is None or not text.strip():
        return ""
    return text if text.endswith("\n") else text + "\n"


def _plan_install(home: Path, force: bool) -> list[tuple[Path, str | None, str | None]]:
    plugin = home / "plugins" / NAME / "__init__.py"
    folder = plugin.parent
    if folder.is_symlink() or (folder.exists() and not folder.is_dir()):
        raise InstallError(f"{folder}: exists and is not a directory we manage; left untouched")
    current = read_text(plugin)
    if current is not None and not _is_ours(plugin):
        raise InstallError(
            f"{plugin}: exists without our marker ({MARKER}); not ours, left untouched"
        )
    config = home / "config.yaml"
    old = read_text(config)
    try:
        new = with_provider(old, force=force)
    except InstallError as exc:
        raise InstallError(f"{config}: {exc}") from None
    record = original_path(config)
    if old != new and record.is_dir() and not record.is_symlink():
        raise InstallError(
            f"{record}: a folder where the record of config.yaml's original goes; "
            "move it away and run again"
        )
    changes: list[tuple[Path, str | None, str | None]] = []
    if current != PLUGIN_TEXT:
        changes.append((plugin, current, PLUGIN_TEXT))
    if old != new:
        changes.append((config, old, new))
    return changes


def _plan_uninstall(home: Path) -> list[tuple[Path, str | None, str | None]]:
    changes: list[tuple[Path, str | None, str | None]] = []
    plugin = home / "plugins" / NAME / "__init__.py"
    if _is_ours(plugin):
        changes.append((plugin, read_text(plugin), None))
    config = home / "config.yaml"
    old = read_text(config)
    was_kept, original = kept(config)
    new = without_provider(old, original)
    if old != new and was_kept:
        new = restored(config, new, _normal)
    elif new is None and old is not None:
        # No record says install made this file: it already named our provider
        # (set by hand, or by an install whose record is gone). Our line goes;
        # the user's file stays, empty.
        new = ""
    if old != new:
        changes.append((config, old, new))
    return changes


def _keep_original(config: Path, text: str | None) -> None:
    """Record ``text`` (None: no file) as ``config``'s original, replacing an older record.

    Only an install that edits ``config.yaml`` calls this, and it edits the
    file only when ``memory.provider`` is not ``signet``: any record already
    there is from an install whose line has since been changed by hand, and
    no longer says what this install replaces.
    """
    record = original_path(config)
    record.unlink(missing_ok=True)
    replace_text(record, original_record(config, text, folders=False), 0o600)


def _apply(verb: str, changes: Sequence[tuple[Path, str | None, str | None]]) -> list[Path]:
    backups = []
    for path, old, new in changes:
        if path.name == "config.yaml" and verb == "install":
            _keep_original(path, old)
        if path.name == "config.yaml" and old is not None:
            backups.append(backup(path))
        if new is None:
            remove_file(path)
            if path.name == "__init__.py":
                cache = path.parent / "__pycache__"
                if cache.is_dir():
                    shutil.rmtree(cache, ignore_errors=True)
                with contextlib.suppress(OSError):
                    path.parent.rmdir()
        else:
            replace_text(path, new)
    return backups


def hermes_python(env: Mapping[str, str]) -> str | None:
    """The interpreter the ``hermes`` command on ``PATH`` runs with (its ``#!`` line), or None."""
    command = shutil.which("hermes", path=env.get("PATH"))
    if command is None:
        return None
    try:
        with open(command, "rb") as fh:
            first = fh.readline(4096).decode("utf-8", "replace").strip()
    except OSError:
        return None
    if not first.startswith("#!"):
        return None
    words = shlex.split(first[2:])
    if words and os.path.basename(words[0]) == "env":
        words = [w for w in words[1:] if not w.startswith("-")]
    if not words:
        return None
    return words[0] if os.path.isabs(words[0]) else shutil.which(words[0], path=env.get("PATH"))


def _check_importable(env: Mapping[str, str]) -> str:
    """A note when the Python Hermes runs with cannot import this package ("" when it can)."""
    python = hermes_python(env)
    if python is None:
        return (
            "note: no hermes command on PATH to check; install signetai-sdk[hermes] into "
            "the Python environment Hermes runs in\n"
        )
    try:
        probe = subprocess.run(
            [python, "-c", "import signet_adapter_hermes"],
            capture_output=True,
            timeout=30,
            env=dict(env),
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"note: could not run {python} to check the install: {exc}\n"
    if probe.returncode == 0:
        return ""
    return (
        f"warning: {python} (the Python hermes runs with) cannot import signet_adapter_hermes, "
        "so Hermes will not load the provider; run:\n"
        f"  {shlex.quote(python)} -m pip install 'signetai-sdk[hermes]'\n"
    )


def _run(opts: argparse.Namespace, env: dict[str, str]) -> int:
    home = Path(opts.hermes_home).expanduser().absolute() if opts.hermes_home else hermes_home(env)
    changes = _plan_install(home, opts.force) if opts.verb == "install" else _plan_uninstall(home)
    record = original_path(home / "config.yaml")
    # A record with nothing else of ours left: uninstall still takes it away.
    leftover = opts.verb == "uninstall" and not changes and record.exists()
    if not changes and not leftover:
        what = "already installed" if opts.verb == "install" else "nothing of ours there"
        sys.stdout.write(f"{home}: {what}, nothing changed\n")
        return 0
    if opts.dry_run:
        for path, old, new in changes:
            sys.stdout.write(text_diff(path, old, new))
        if leftover:
            sys.stdout.write(f"would remove {record}\n")
        return 0
    for copy in _apply(opts.verb, changes):
        sys.stdout.write(f"previous config.yaml saved as {copy}\n")
    if opts.verb == "uninstall":
        record.unlink(missing_ok=True)
    if leftover:
        sys.stdout.write(f"{home}: nothing of ours there but {record.name}; removed it\n")
        return 0
    if opts.verb == "install":
        sys.stdout.write(
            f"Signet memory provider installed into {home} (memory.provider: signet).\n"
        )
        sys.stdout.write(_check_importable(env))
    else:
        sys.stdout.write(f"Signet memory provider removed from {home}\n")
    return 0


#: ``main(["install" | "uninstall", *options])``; 0 on success, 1 when refused, 2 on usage.
main = cli.command(
    "hermes-agent",
    "Install Signet's memory provider for Hermes Agent "
    "($HERMES_HOME/plugins/signet, memory.provider: signet), or remove it.",
    _run,
    [cli.Option("--hermes-home", "Hermes's home (default: $HERMES_HOME, else ~/.hermes)", "DIR")],
    [cli.Option("--force", "replace another memory.provider already selected")],
    python=None,
)


if __name__ == "__main__":
    sys.exit(main())
