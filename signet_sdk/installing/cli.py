"""The command line every harness installer shares: ``signet-sdk {install|uninstall} <harness>``.

Each harness decides what to merge where; how the command is spelled, how
usage errors exit, how a refusal is reported and how a planned file change
is shown or applied is the same for all of them, so a user who learnt one
installer knows the others, and a fix to that flow lands in every one.

* :func:`parser` builds the argument parser: the verb, the installer's own
  :class:`Option` s (declared as data, in ``--help`` order), ``--dry-run``
  and ``--python``.
* :func:`parse` turns argparse's ``SystemExit`` into the exit code, so
  ``main`` returns rather than exits (doctor calls it in-process).
* :func:`refusing` runs the installer's work and turns a refusal into
  exit 1 with ``No file was changed.``: every refusal is raised before the
  first write. :func:`run` is parse and refusing in one, and
  :func:`command` makes an installer's whole ``main`` from its options and
  its work, for an installer whose ``main`` has nothing else to do.
* :func:`remove_folder` takes an installed folder away, marker file first.
* :func:`apply` walks planned :class:`Change` s: unchanged, shown as a
  diff under ``--dry-run``, or written by the installer's own writer.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from .files import InstallError, text_diff, write_or_remove

__all__ = [
    "DIFFS",
    "HOOK_PYTHON",
    "NO_MCP",
    "VERBS",
    "Change",
    "Main",
    "Option",
    "apply",
    "command",
    "parse",
    "parser",
    "refusing",
    "remove_folder",
    "run",
]

VERBS = ("install", "uninstall")
_DRY_RUN = "print the changes, write nothing"
_PYTHON = "interpreter whose signet-sdk command the plugin runs"


@dataclass(frozen=True)
class Option:
    """An installer's own option: ``FLAG METAVAR`` when ``metavar`` is set, else a switch."""

    flag: str
    help: str
    metavar: str | None = None


#: ``--no-mcp``: an installer that also registers the memory tools' MCP server leaves it out.
NO_MCP = Option("--no-mcp", "do not register the memory tools' MCP server")
#: The ``dry_run`` help of an installer that edits several files.
DIFFS = "print the diffs, write nothing"
#: The ``python`` help of an installer that registers a hook command.
HOOK_PYTHON = "interpreter whose hook command to register"

#: Options in ``--help`` order; a tuple of them is a group that excludes one another.
Options = Sequence["Option | tuple[Option, ...]"]


def _add(cli: argparse.ArgumentParser, options: Options) -> None:
    for item in options:
        group = cli.add_mutually_exclusive_group() if isinstance(item, tuple) else cli
        for option in item if isinstance(item, tuple) else (item,):
            if option.metavar is None:
                group.add_argument(option.flag, action="store_true", help=option.help)
            else:
                group.add_argument(option.flag, metavar=option.metavar, help=option.help)


def parser(
    harness: str,
    description: str,
    before: Options = (),
    after: Options = (),
    *,
    dry_run: str = _DRY_RUN,
    python: str | None = _PYTHON,
) -> argparse.ArgumentParser:
    """The parser of ``signet-sdk {install|uninstall} <harness>``.

    The verb, ``before``, ``--dry-run``, ``--python EXE`` (left out when
    ``python`` is None), then ``after``; ``dry_run`` and ``python`` are
    their help texts.
    """
    out = argparse.ArgumentParser(
        prog=f"signet-sdk {{install|uninstall}} {harness}", description=description
    )
    out.add_argument("verb", choices=VERBS)
    _add(out, before)
    out.add_argument("--dry-run", action="store_true", help=dry_run)
    if python is not None:
        out.add_argument("--python", metavar="EXE", help=python)
    _add(out, after)
    return out


def parse(cli: argparse.ArgumentParser, argv: Sequence[str] | None) -> argparse.Namespace | int:
    """The options (``argv`` None: the process's), or the exit code of a usage error."""
    try:
        return cli.parse_args(list(sys.argv[1:] if argv is None else argv))
    except SystemExit as exc:
        return int(exc.code or 0)


def refusing(
    harness: str,
    verb: str,
    work: Callable[[], int],
    refused: tuple[type[Exception], ...] = (InstallError,),
) -> int:
    """``work()``; a refusal (or an OS error) is reported on stderr as exit 1.

    A refusal is raised before anything is written, so it says so; an
    :class:`OSError` may come halfway and says only what failed.
    """
    try:
        return work()
    except refused as exc:
        sys.stderr.write(f"signet-sdk {verb} {harness}: {exc}\nNo file was changed.\n")
        return 1
    except OSError as exc:
        sys.stderr.write(f"signet-sdk {verb} {harness}: {exc}\n")
        return 1


def run(
    cli: argparse.ArgumentParser,
    argv: Sequence[str] | None,
    work: Callable[[argparse.Namespace, dict[str, str]], int],
    refused: tuple[type[Exception], ...] = (InstallError,),
) -> int:
    """Parse ``argv`` with ``cli`` (from :func:`parser`), then ``work(options, environment)``.

    ``work`` gets a copy of the process environment, read once, so the
    whole install sees the same variables; its refusals are reported as in
    :func:`refusing`.
    """
    opts = parse(cli, argv)
    if isinstance(opts, int):
        return opts
    env = dict(os.environ)
    harness = cli.prog.rsplit(" ", 1)[-1]
    return refusing(harness, opts.verb, lambda: work(opts, env), refused)


class Main(Protocol):
    """An installer's ``main``: ``argv`` None reads the process's arguments."""

    def __call__(self, argv: Sequence[str] | None = None) -> int: ...


def command(
    harness: str,
    description: str,
    work: Callable[[argparse.Namespace, dict[str, str]], int],
    before: Options = (),
    after: Options = (),
    *,
    dry_run: str = _DRY_RUN,
    python: str | None = _PYTHON,
    refused: tuple[type[Exception], ...] = (InstallError,),
) -> Main:
    """An installer's ``main``: its :func:`parser`, then :func:`run` with ``work``."""

    def main(argv: Sequence[str] | None = None) -> int:
        """``main(["install" | "uninstall", *options])``; 0 ok, 1 when refused, 2 on usage."""
        cli = parser(harness, description, before, after, dry_run=dry_run, python=python)
        return run(cli, argv, work, refused)

    return main


@dataclass(frozen=True)
class Change:
    """One file's planned text: ``before`` and ``after`` are None where it is absent."""

    path: Path
    before: str | None
    after: str | None
    #: What the file holds of ours, for the installer's report line.
    what: str = ""


def apply(
    harness: str,
    verb: str,
    changes: Sequence[Change],
    dry_run: bool,
    write: Callable[[Change], str],
) -> bool | None:
    """Show or write each change; whether anything was written, None when a write failed.

    An unchanged file is said to be up to date; ``--dry-run`` prints the
    diff (both sides named by the path, as the file stands on disk);
    otherwise ``write`` writes it and returns the line to print. A write
    that fails stops the run with ``cannot write`` on stderr, and the files
    this run already wrote are put back as they were: a harness is never
    left half installed (hooks without their memory tools, say).
    """
    wrote = False
    done: list[Change] = []
    for change in changes:
        path = change.path
        if change.after == change.before:
            sys.stdout.write(f"{path}: already up to date, nothing changed\n")
            continue
        if dry_run:
            sys.stdout.write(text_diff(path, change.before, change.after, verb, named=True))
            continue
        try:
            line = write(change)
        except OSError as exc:
            sys.stderr.write(f"signet-sdk {verb} {harness}: cannot write {path}: {exc}\n")
            _put_back(done, f"signet-sdk {verb} {harness}")
            return None
        wrote = True
        done.append(change)
        sys.stdout.write(line)
    return wrote


def _put_back(done: Sequence[Change], prog: str) -> None:
    """Give the files of ``done`` their ``before`` again, last first; say what could not be."""
    for change in reversed(done):
        try:
            write_or_remove(change.path, change.before)
        except OSError as exc:
            sys.stderr.write(f"{prog}: could not put {change.path} back as it was: {exc}\n")
        else:
            sys.stderr.write(f"{prog}: {change.path} put back as it was\n")


def remove_folder(folder: Path, names: Sequence[str], marker_file: str) -> None:
    """Unlink ``names`` in ``folder`` (``marker_file`` first), then the folder if that empties it.

    Without the marker file whatever is left is never loaded as ours, so
    an interrupted uninstall leaves nothing half-active. A folder that also
    holds the user's files is kept, and said so.
    """
    for name in sorted(names, key=lambda n: n != marker_file):
        (folder / name).unlink(missing_ok=True)
    try:
        folder.rmdir()
    except OSError:
        left = sorted(p.name for p in folder.iterdir())
        sys.stdout.write(f"kept {folder}: it also holds {', '.join(left)}\n")
