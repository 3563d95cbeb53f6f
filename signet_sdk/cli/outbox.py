"""``signet-sdk outbox status|flush|purge``: see and act on writes the daemon has not taken.

The outbox is the hook path's (``${XDG_STATE_HOME:-~/.local/state}/signet-sdk/outbox``).
``status`` lists pending entries and dead letters with their reasons;
``flush`` sends what is pending now (``--dead`` first puts dead letters
back); ``purge`` deletes dead letters (``--pending`` also pending entries,
which are then lost: it asks for ``--yes``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any

__all__ = ["outbox_report", "register"]


def _root() -> str:
    from signet_sdk.runtime.files import outbox_dir

    return outbox_dir(create=False)  # named only: a report must not create the folder


def _checked_root(verb: str) -> str | int:
    """The outbox folder, checked as its writers check it (creating nothing); else exit 1.

    Its readers treat an unreadable folder as an empty one (a hook must not
    fail over it), so without the check ``status`` would say "pending: 0"
    and ``purge`` "removed 0 entries" where a write would find that the
    outbox cannot be used. A folder not created yet is fine: the first
    write creates it.
    """
    from signet_sdk.runtime.files import outbox_dir

    try:
        return outbox_dir(check_only=True)
    except OSError as exc:  # a file or a link in the way, another user's, unreadable
        return _cannot_use(verb, str(exc))


def _cannot_use(verb: str, problem: str) -> int:
    sys.stderr.write(f"signet-sdk outbox {verb}: the outbox cannot be used: {problem}\n")
    sys.stderr.write("see 'signet-sdk doctor' for what to do\n")
    return 1


def _read(path: str) -> dict[str, Any]:
    try:
        with open(path, "rb") as fh:
            data = json.loads(fh.read())
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def _created(record: dict[str, Any], now: float) -> float:
    """When an entry was put; ``now`` when its record does not say as a number.

    A torn or foreign file is a pending entry all the same (a send buries it
    with its reason); the report lists it rather than failing over it.
    """
    created = record.get("created")
    if isinstance(created, (int, float)) and not isinstance(created, bool):
        return float(created)
    return now


def outbox_report(root: str | None = None) -> dict[str, Any]:
    """Pending entries and dead letters, as ``outbox status --json`` prints them."""
    from signet_sdk.hooks.outbox import Outbox

    outbox = Outbox(root or _root())
    now = time.time()
    pending = []
    for entry_id in outbox.pending():
        record = _read(os.path.join(outbox.root, f"{entry_id}.json"))
        doubt = outbox.in_doubt_for(entry_id)
        body = record.get("body")
        pending.append(
            {
                "id": entry_id,
                "action": record.get("action"),
                "harness": record.get("harness"),
                "sessionKey": body.get("sessionKey") if isinstance(body, dict) else None,
                "ageSeconds": round(now - _created(record, now), 1),
                "attempts": outbox.attempts(entry_id),
                "inDoubt": doubt is not None,
            }
        )
    dead = []
    try:
        names = sorted(os.listdir(outbox.dead))
    except OSError:
        names = []
    for name in names:
        if name.endswith(".reason"):
            entry_id = name[: -len(".reason")]
            try:
                with open(
                    os.path.join(outbox.dead, name), encoding="utf-8", errors="replace"
                ) as fh:
                    reason = fh.read().strip()
            except OSError as exc:
                reason = f"(its reason cannot be read: {exc})"
            record = _read(os.path.join(outbox.dead, f"{entry_id}.json"))
            dead.append({"id": entry_id, "action": record.get("action"), "reason": reason})
    return {"root": outbox.root, "pending": pending, "dead": dead}


def _status(ns: argparse.Namespace) -> int:
    root = _checked_root("status")
    if isinstance(root, int):
        return root
    report = outbox_report(root)
    if ns.json:
        sys.stdout.write(json.dumps(report, indent=2) + "\n")
        return 0
    out = sys.stdout.write
    out(f"outbox: {report['root']}\n")
    out(f"pending: {len(report['pending'])}\n")
    for e in report["pending"]:
        doubt = ", in doubt (resent once settled)" if e["inDoubt"] else ""
        out(
            f"  {e['id']}  {e['action']}  session {e['sessionKey'] or '-'}  "
            f"{e['ageSeconds']:.0f}s old, {e['attempts']} failed attempts{doubt}\n"
        )
    out(f"dead letters: {len(report['dead'])}\n")
    for d in report["dead"]:
        out(f"  {d['id']}  {d['action']}: {d['reason']}\n")
    if report["pending"]:
        out("to send them now: signet-sdk outbox flush\n")
    if report["dead"]:
        out(
            "dead letters are never resent on their own: fix the cause, then "
            "'signet-sdk outbox flush --dead', or drop them with 'signet-sdk outbox purge'\n"
        )
    return 0


def _revive(root: str) -> int:
    """Move dead letters back into the outbox, attempts reset; returns how many."""
    dead = os.path.join(root, "dead")
    try:
        names = os.listdir(dead)
    except OSError:
        return 0
    revived = 0
    for name in names:
        if name.endswith(".reason") or name.endswith(".attempts") or name.endswith(".sending"):
            os.unlink(os.path.join(dead, name))
            continue
        os.replace(os.path.join(dead, name), os.path.join(root, name))
        revived += name.endswith(".json")
    return revived


def _flush(ns: argparse.Namespace) -> int:
    from signet_sdk.hooks.outbox import Outbox
    from signet_sdk.hooks.sender import flush

    root = _checked_root("flush")  # before a dead letter is moved
    if isinstance(root, int):
        return root
    try:
        if ns.dead:
            sys.stdout.write(f"revived {_revive(root)} dead letters\n")
        counts = flush(ns.seconds)
    except OSError as exc:  # a state directory that cannot be written, or is not a folder
        return _cannot_use("flush", str(exc))
    left = Outbox(root).pending()
    summary = ", ".join(f"{n} {k}" for k, n in sorted(counts.items())) or "nothing to send"
    sys.stdout.write(f"{summary}; {len(left)} still pending\n")
    if counts.get("busy"):
        sys.stdout.write("another sender is at work on the outbox; it sends them\n")
    return 1 if left else 0


def _purge(ns: argparse.Namespace) -> int:
    from signet_sdk.hooks.outbox import Outbox

    if ns.pending and not ns.yes:
        sys.stderr.write(
            "signet-sdk outbox purge: --pending deletes writes the daemon never got; "
            "add --yes to confirm\n"
        )
        return 2
    root = _checked_root("purge")
    if isinstance(root, int):
        return root
    outbox = Outbox(root)
    removed = 0
    folders = [outbox.dead] + ([outbox.root] if ns.pending else [])
    try:
        for folder in folders:
            try:
                names = os.listdir(folder)
            except FileNotFoundError:
                continue
            for name in names:
                path = os.path.join(folder, name)
                if os.path.isfile(path) and not os.path.islink(path) and name != ".sender.lock":
                    os.unlink(path)
                    removed += name.endswith(".json")
    except OSError as exc:  # a dead-letter folder we may not read or change
        sys.stdout.write(f"removed {removed} entries\n")
        return _cannot_use("purge", str(exc))
    sys.stdout.write(f"removed {removed} entries\n")
    return 0


def _seconds(text: str) -> float:
    """``--seconds``: a finite number, 0 or more.

    ``float`` alone takes ``nan`` and ``inf``: with the daemon down, a
    deadline of either is never reached and the flush never ends.
    """
    try:
        seconds = float(text)
    except ValueError:
        seconds = float("nan")
    if not 0.0 <= seconds < float("inf"):
        raise argparse.ArgumentTypeError(f"must be a number of seconds, 0 or more, got {text!r}")
    return seconds


def register(sub: Any) -> None:
    p = sub.add_parser(
        "outbox",
        help="pending writes and dead letters: status, flush, purge",
        description=__doc__.split("\n\n")[1] if __doc__ else None,
    )
    verbs = p.add_subparsers(dest="verb", metavar="<verb>", required=True)
    s = verbs.add_parser("status", help="list pending entries and dead letters")
    s.add_argument("--json", action="store_true", help="print the report as JSON")
    s.set_defaults(handler=_status)
    r = verbs.add_parser("flush", help="send pending entries now")
    r.add_argument(
        "--seconds", type=_seconds, default=10.0, help="retry for this long (default 10)"
    )
    r.add_argument("--dead", action="store_true", help="put dead letters back first")
    r.set_defaults(handler=_flush)
    g = verbs.add_parser("purge", help="delete dead letters")
    g.add_argument("--pending", action="store_true", help="also delete pending entries")
    g.add_argument("--yes", action="store_true", help="confirm --pending")
    g.set_defaults(handler=_purge)
