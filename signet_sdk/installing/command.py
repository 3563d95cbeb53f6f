"""The ``signet-sdk`` command an installer writes into a harness's files."""

from __future__ import annotations

import math
import os
import re
import shlex
import sys
from pathlib import Path
from typing import Any

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Mapping, Sequence

    from signet_sdk.runtime.plugin import EventSpec
    from signet_sdk.wire.config import Timeouts

__all__ = [
    "event_deadlines",
    "hook_timeouts",
    "millisecond_timeouts",
    "program_words",
    "put_ours",
    "runs_sdk",
    "sdk_command",
    "sdk_shell_command",
]

_PROGRAM = "signet-sdk"


def sdk_command(python: str | None = None) -> list[str]:
    """The ``signet-sdk`` command of ``python``'s environment, as absolute words.

    No PATH lookup: the harness runs it from its own environment, where the
    user's PATH may differ. The console script beside the interpreter when
    there is one, else ``<python> -m signet_sdk``.
    """
    exe = os.path.abspath(python or sys.executable)
    script = Path(exe).parent / _PROGRAM
    if script.is_file() and os.access(script, os.X_OK):
        return [str(script)]
    return [exe, "-m", "signet_sdk"]


def sdk_shell_command(args: Sequence[str], python: str | None = None) -> str:
    """:func:`sdk_command` followed by ``args``, as one shell command line (words quoted)."""
    return " ".join([*(shlex.quote(w) for w in sdk_command(python)), *args])


def runs_sdk(
    handler: Any,
    args: Sequence[str],
    legacy: Callable[[list[str]], bool] | None = None,
) -> bool:
    """Whether a hook entry's ``command`` is ``signet-sdk <args...>`` from any environment.

    An installer owns the entries whose command starts with the
    ``signet-sdk`` script, or ``<interpreter> -m signet_sdk``, followed by
    ``args`` and at most one more word (the event), as it writes them: an
    install from another environment or version is then updated in place
    rather than duplicated. A command that merely mentions ours is the
    user's and is never touched: a wrapper (``env ...``, ``timeout 30 ...``),
    a second command after ``;`` or ``&&``, or an ``echo`` of our words.
    ``legacy`` recognises, from the command's words, what older versions
    registered.
    """
    if not isinstance(handler, dict) or not isinstance(handler.get("command"), str):
        return False
    try:
        words = shlex.split(handler["command"])
    except ValueError:
        return False
    if legacy is not None and legacy(words):
        return True
    start = program_words(words, _PROGRAM, "signet_sdk")
    if start is None:
        return False
    rest = words[start:]
    wanted = list(args)
    if rest[: len(wanted)] != wanted or len(rest) > len(wanted) + 1:
        return False
    return len(rest) == len(wanted) or _EVENT_WORD.fullmatch(rest[-1]) is not None


#: The one word an installer writes after the arguments: an event's name.
_EVENT_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_.-]*")


def program_words(words: Sequence[str], program: str, module: str) -> int | None:
    """Where a command's arguments start when it runs ``program`` or ``-m module``, else None.

    The program is the command's first word (its file name, from any
    folder), or the interpreter's ``-m module`` its second and third.
    """
    if words and os.path.basename(words[0]) == program:
        return 1
    if len(words) >= 3 and words[1] == "-m" and words[2] == module:
        return 3
    return None


def put_ours(
    handlers: Sequence[Any], wanted: Any, placed: bool, ours: Callable[[Any], bool]
) -> tuple[list[Any], bool]:
    """``handlers`` with our entry updated in place; and whether ``wanted`` is placed now.

    The first of ours becomes ``wanted`` (unless ``placed`` says an earlier
    list took it), where it stood, so the user's order of hooks holds; any
    further ones, duplicates of an older install, are dropped.
    """
    kept = []
    for handler in handlers:
        if not ours(handler):
            kept.append(handler)
        elif not placed:
            kept.append(wanted)
            placed = True
    return kept, placed


def hook_timeouts(env: Mapping[str, str] | None = None) -> Timeouts:
    """The deadlines the hooks will run with under ``env`` (its variables, else the defaults).

    An installer registers each hook with the harness's own timeout a
    margin above these, so the harness never kills a hook still inside its
    deadline.
    """
    from signet_sdk.wire.config import resolve_config

    # Only the deadline variables: a daemon address or token that cannot be
    # read is the hooks' problem at run time, not a reason to refuse an install.
    deadlines = {k: v for k, v in (env or {}).items() if k.endswith("_TIMEOUT")}
    return resolve_config(env=deadlines).timeouts


#: A hook's deadline when its timeout class has none configured (seconds).
_DEFAULT_DEADLINE = 10.0


def event_deadlines(
    events: Mapping[str, EventSpec], env: Mapping[str, str] | None = None
) -> dict[str, float]:
    """Each event's hook deadline in seconds under ``env``, in the plugin's order.

    What an installer turns into the harness's own timeout per event (its
    unit, its margin, its limits), so every installer reads the deadlines
    the same way and a hook is never registered shorter than it may run.
    """
    timeouts = hook_timeouts(env)
    return {
        name: timeouts.for_class(spec.timeout_class) or _DEFAULT_DEADLINE
        for name, spec in events.items()
    }


def millisecond_timeouts(
    events: Mapping[str, EventSpec],
    env: Mapping[str, str] | None,
    *,
    margin_ms: int,
    short: Mapping[str, int],
    floor_ms: int = 0,
    unregistered: Collection[str] = (),
) -> dict[str, int]:
    """A harness's ``timeout`` in milliseconds per event we register.

    The hook's deadline (:func:`event_deadlines`) plus ``margin_ms``, and at
    least ``floor_ms``; an event in ``short`` gets its fixed value instead
    (a hook that only hands its work to the outbox). ``unregistered``
    events are left out.
    """
    return {
        name: short[name] if name in short else max(math.ceil(s * 1000) + margin_ms, floor_ms)
        for name, s in event_deadlines(events, env).items()
        if name not in unregistered
    }
