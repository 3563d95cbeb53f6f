"""``signet-sdk doctor``: is memory going to work here, and if not, what to do.

It checks, in order, and prints one line per finding with what to do about
each problem:

* the daemon: reachable at the configured URL, its version (and which
  versions the SDK is tested against), whether it says it is degraded, and
  whether the token (if any) is accepted on a route that needs one;
* each installed harness with an installer: ``install --dry-run`` changing
  nothing means the hooks or plugin are there with today's command path and
  timeouts; a change means they are missing or stale;
* the outbox: writes still pending, dead letters;
* the state directory: ours, 0700, files 0600, no links; writable, its disk
  not full, and the outbox a folder (else hooks send writes without one);
* the circuit breaker: open or closed.

A warning (``WARN``) is worth knowing but needs no fix for memory to work:
a daemon newer than the newest tested release, or one that answers
``degraded`` (it still serves). Exit code 0 when nothing needs doing (warnings
included), 1 otherwise.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
from typing import Any

__all__ = ["Finding", "diagnose", "register"]


class Finding:
    """One line of the report: ``ok`` false means ``fix`` says what to do.

    ``warning`` marks a finding that is ``ok`` (nothing blocks memory) yet
    worth reading; ``fix`` may then say what would clear it.
    """

    def __init__(
        self, area: str, ok: bool, message: str, fix: str = "", *, warning: bool = False
    ) -> None:
        self.area, self.ok, self.message, self.fix = area, ok, message, fix
        self.warning = warning and ok

    def as_dict(self) -> dict[str, Any]:
        return {
            "area": self.area,
            "ok": self.ok,
            "warning": self.warning,
            "message": self.message,
            "fix": self.fix,
        }

    @property
    def mark(self) -> str:
        return "FIX " if not self.ok else "WARN" if self.warning else "ok  "


def _daemon(env: dict[str, str]) -> list[Finding]:
    from signet_sdk.wire.config import resolve_config
    from signet_sdk.wire.errors import (
        APIConnectionError,
        APIStatusError,
        AuthenticationError,
        ConfigError,
        PermissionDeniedError,
    )
    from signet_sdk.wire.lean import LeanClient

    try:
        config = resolve_config(harness="doctor", max_retries=0, env=env)
    except ConfigError as exc:
        return [Finding("daemon", False, f"configuration: {exc}", f"fix {exc.field}")]
    client = LeanClient(config)
    where = config.base_url
    try:
        health = client.call("health", timeout=5.0)
    except AuthenticationError:
        if config.token:
            return [
                Finding(
                    "daemon",
                    False,
                    f"{where} refuses the token given, even for /health (team mode)",
                    "set SIGNET_API_KEY (or SIGNET_TOKEN) to a key this daemon issued",
                )
            ]
        return [
            Finding(
                "daemon",
                False,
                f"{where} wants a token even for /health (team mode)",
                "set SIGNET_API_KEY (or SIGNET_TOKEN) to a key the daemon issued",
            )
        ]
    except APIConnectionError as exc:
        return [
            Finding(
                "daemon",
                False,
                f"not reachable at {where}: {exc}",
                "start the daemon ('signet daemon start', or 'signet-sdk dev-daemon' to try "
                "things out), or point SIGNET_DAEMON_URL at it; hooks fail open meanwhile and "
                "writes wait in the outbox",
            )
        ]
    except APIStatusError as exc:
        return [Finding("daemon", False, f"{where}/health answered {exc.status_code}", "")]
    version = str(health.get("version", "?")) if isinstance(health, dict) else "?"
    found = [
        Finding("daemon", True, f"reachable at {where}, Signet {version}"),
        _version_finding(version),
        *_degraded(health),
    ]
    try:
        client.call("list_sessions", timeout=5.0)
        found.append(Finding("auth", True, "token accepted" if config.token else "no token needed"))
    except (AuthenticationError, PermissionDeniedError) as exc:
        fix = (
            "set SIGNET_API_KEY (or SIGNET_TOKEN) to a valid key"
            if not config.token
            else "the key is refused"
        )
        found.append(Finding("auth", False, f"/api/sessions: {exc}", fix))
    except APIStatusError as exc:
        found.append(Finding("auth", False, f"/api/sessions answered {exc.status_code}", ""))
    except APIConnectionError as exc:
        found.append(Finding("auth", False, f"/api/sessions: {exc}", "check the daemon's log"))
    return found


def _version_finding(version: str) -> Finding:
    """Whether the SDK supports ``version``; a release newer than any tested one is a warning."""
    from signet_sdk.wire.versions import (
        NEWEST_TESTED,
        OLDEST_SUPPORTED,
        TESTED_VERSIONS,
        older_than,
        support_of,
    )

    supported, why = support_of(version)
    if supported and older_than(NEWEST_TESTED, version):
        tested = ", ".join(TESTED_VERSIONS)
        return Finding(
            "daemon",
            True,
            f"Signet {version}: newer than {NEWEST_TESTED}, the newest tested (tested: {tested}); "
            "used on the strength of those runs and of replays of newer daemons' answers "
            f"taken from upstream's source, not proven against {version} itself",
            warning=True,
        )
    return Finding(
        "daemon",
        supported,
        f"Signet {version}: {why}",
        "" if supported else f"update Signet to {OLDEST_SUPPORTED} or newer",
    )


def _degraded(health: object) -> list[Finding]:
    """A daemon that answers ``degraded`` still serves: a warning with its reasons, not a fix."""
    if not isinstance(health, dict) or health.get("status") != "degraded":
        return []
    from pydantic import ValidationError

    from signet_sdk.models import HealthStatus

    try:
        reasons = HealthStatus.model_validate(health).degraded_reasons
    except ValidationError:
        reasons = ["its /health answer could not be read"]
    return [
        Finding(
            "daemon",
            True,
            f"the daemon says it is degraded ({'; '.join(reasons)}); it still serves, "
            "but what depends on the failing part may be missing",
            "see the daemon's log, and 'workspace' and 'databaseIntegrity' in its /health",
            warning=True,
        )
    ]


def _quiet(installer: Any, argv: list[str]) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        try:
            code = int(installer(argv) or 0)
        except SystemExit as exc:
            code = int(exc.code or 0)
        except Exception as exc:
            return 1, f"{type(exc).__name__}: {exc}"
    return code, out.getvalue()


def _unchanged(text: str) -> bool:
    lines = [line for line in text.splitlines() if line.strip()]
    return bool(lines) and all("nothing changed" in line for line in lines)


def _unreadable_timeout(env: dict[str, str]) -> str | None:
    """The ``SIGNET_*_TIMEOUT`` variable an install cannot read, or None."""
    from signet_sdk.wire.config import resolve_config
    from signet_sdk.wire.errors import ConfigError

    try:
        resolve_config(env={k: v for k, v in env.items() if k.endswith("_TIMEOUT")})
    except ConfigError as exc:
        return exc.field
    return None


def _harnesses(env: dict[str, str]) -> list[Finding]:
    from signet_sdk.runtime.registry import broken_plugins, installed_plugins

    found = [
        Finding(
            "harness",
            False,
            f"{b.name}: broken plugin: {b.reason}",
            f"reinstall or uninstall the package behind {b.target}",
        )
        for b in broken_plugins()
    ]
    unread = _unreadable_timeout(env)
    if unread is not None:
        # Each install writes the hook timeouts, so each check would fail on the
        # variable and blame the harness's file; the daemon line names it once.
        message = f"installs not checked: they write the hook timeouts, and {unread} cannot be read"
        return [*found, Finding("harness", True, message)]
    for plugin in installed_plugins():
        installer = plugin.load_installer() if plugin.installer else None
        if installer is None:
            continue
        name = plugin.name
        code, text = _quiet(installer, ["install", "--dry-run"])
        if code == 0 and _unchanged(text):
            found.append(Finding("harness", True, f"{name}: installed and up to date"))
            continue
        code_u, text_u = _quiet(installer, ["uninstall", "--dry-run"])
        if code_u == 0 and _unchanged(text_u):
            found.append(Finding("harness", True, f"{name}: not installed (optional)"))
        elif code != 0:
            first = text.strip().splitlines()[:1]
            found.append(
                Finding(
                    "harness",
                    False,
                    f"{name}: its configuration cannot be read: {' '.join(first)}",
                    f"fix the file it names, then 'signet-sdk install {name}'",
                )
            )
        else:
            found.append(
                Finding(
                    "harness",
                    False,
                    f"{name}: installed, but not as this SDK would install it now (command path, "
                    "timeouts or events changed)",
                    f"signet-sdk install {name}  (see the change first with --dry-run)",
                )
            )
    return found


def _outbox() -> list[Finding]:
    from signet_sdk.cli.outbox import outbox_report

    report = outbox_report()
    pending, dead = report["pending"], report["dead"]
    found = []
    if pending:
        oldest = max(e["ageSeconds"] for e in pending)
        found.append(
            Finding(
                "outbox",
                False,
                f"{len(pending)} writes not yet taken by the daemon (oldest {oldest:.0f}s)",
                "once the daemon is up: signet-sdk outbox flush",
            )
        )
    else:
        found.append(Finding("outbox", True, "no pending writes"))
    if dead:
        reasons = sorted({d["reason"].split(":")[0] for d in dead})
        found.append(
            Finding(
                "outbox",
                False,
                f"{len(dead)} dead letters ({', '.join(reasons)})",
                "see 'signet-sdk outbox status'; then 'outbox flush --dead' or 'outbox purge'",
            )
        )
    return found


def _breaker(env: dict[str, str]) -> list[Finding]:
    from signet_sdk.hooks.breaker import breaker_for
    from signet_sdk.wire.config import resolve_config
    from signet_sdk.wire.errors import ConfigError

    try:
        daemon_url = resolve_config(harness="doctor", env=env).base_url
    except ConfigError:
        return []  # the daemon check above already says what is wrong with the settings
    breaker = breaker_for(env, daemon_url)
    if breaker is None:
        raw = env.get("SIGNET_BREAKER_FAILURES", "").strip()
        if raw.lstrip("-").isdigit() and int(raw) <= 0:
            return [Finding("breaker", True, "circuit breaker off (SIGNET_BREAKER_FAILURES=0)")]
        # Its state lives in the state directory: a finding above says what is wrong there.
        message = "circuit breaker unavailable: the state directory cannot hold it"
        return [Finding("breaker", True, message)]
    left = breaker.open_for()
    if left > 0:
        return [
            Finding(
                "breaker",
                False,
                f"open: hooks skip the daemon for {left:.0f}s more",
                f"once the daemon is up it closes by itself; or remove {breaker.path}",
            )
        ]
    return [Finding("breaker", True, "closed")]


def diagnose(env: dict[str, str] | None = None) -> list[Finding]:
    """Every check, in order."""
    from signet_sdk.cli.doctor_state import state_findings

    environ = dict(os.environ if env is None else env)
    return [
        *_daemon(environ),
        *_harnesses(environ),
        *_outbox(),
        *state_findings(),
        *_breaker(environ),
    ]


def _doctor(ns: argparse.Namespace) -> int:
    findings = diagnose()
    if ns.json:
        sys.stdout.write(json.dumps([f.as_dict() for f in findings], indent=2) + "\n")
    else:
        for f in findings:
            sys.stdout.write(f"{f.mark} {f.area:8} {f.message}\n")
            if f.fix:
                sys.stdout.write(f"               -> {f.fix}\n")
    return 0 if all(f.ok for f in findings) else 1


def register(sub: Any) -> None:
    p = sub.add_parser(
        "doctor",
        help="check the daemon, installed harnesses, the outbox and the state directory",
        description="Check the daemon (reachable, version, auth), each installed harness, "
        "the outbox and the state directory, and say what to do about each problem.",
    )
    p.add_argument("--json", action="store_true", help="print the findings as JSON")
    p.set_defaults(handler=_doctor)
