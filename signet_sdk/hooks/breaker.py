"""A circuit breaker shared by every hook process, kept in one small file.

Each hook is a fresh process, so a daemon that is down would otherwise cost
every prompt its whole deadline (a refused connection is quick, but a daemon
that accepts and never answers is not). After ``failures`` consecutive
failed calls (unreachable, timed out, dropped, 5xx) the hooks skip the
network for ``cooldown`` seconds: reads fail open at once and writes wait in
the outbox. The first call after the cool-down goes through; its success
closes the breaker, its failure opens it again. Each opening is logged once.

Each daemon has its own breaker: one that is down does not make hooks skip
another (a second profile on another port, a test daemon beside the real
one). The state is ``<state dir>/breaker-<host>-<port>``: ``<consecutive
failures> <open until, epoch seconds>``, replaced atomically, 0600, opened
without following links. Two hooks failing at the same moment may count one
failure between them; that only delays the opening by a call.

A daemon that sheds load (503 with ``Retry-After``, or a newer daemon's
"too many in flight") or rate-limits (429) answered at once: it is there and
busy, so that answer is backpressure for the outbox, not a failure here.

Settings: ``SIGNET_BREAKER_FAILURES`` (default 3; ``0`` turns the breaker
off) and ``SIGNET_BREAKER_COOLDOWN`` (seconds, default 30).

Standard library only: the hook path imports this.
"""

from __future__ import annotations

import os
import time

from signet_sdk.wire.errors import APIConnectionError, APIStatusError, ServiceUnavailableError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

__all__ = ["COOLDOWN", "FAILURES", "Breaker", "breaker_for", "breaker_name", "counts_as_failure"]

FAILURES = 3
COOLDOWN = 30.0


def counts_as_failure(exc: BaseException) -> bool:
    """Failures that say the daemon is not there or not well.

    Not a bad request (4xx), not a worker the daemon lacks (a permanent 503),
    and not a busy daemon turning a call away (a 503 that names a wait or says
    it is overloaded): each of those answered, and at once.
    """
    if isinstance(exc, ServiceUnavailableError):
        busy = exc.retry_after is not None or exc.overloaded
        return not (busy or exc.permanent)
    if isinstance(exc, APIStatusError):
        return exc.status_code >= 500
    return isinstance(exc, APIConnectionError)


def breaker_name(daemon_url: str) -> str:
    """The file name of the breaker for the daemon at ``daemon_url``: ``breaker-<host>-<port>``.

    Only letters, digits, dots and dashes, whatever the URL holds.
    """
    rest = daemon_url.partition("://")[2] or daemon_url
    where = rest.split("/", 1)[0].rsplit("@", 1)[-1].lower()
    if where and ":" not in where.rsplit("]", 1)[-1]:
        where += ":443" if daemon_url.lower().startswith("https") else ":80"
    safe = "".join(c if c.isascii() and (c.isalnum() or c in ".-") else "-" for c in where)
    return f"breaker-{safe.strip('-') or 'daemon'}"


class Breaker:
    """The on-disk breaker at ``path``."""

    def __init__(
        self,
        path: str,
        failures: int = FAILURES,
        cooldown: float = COOLDOWN,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.path = path
        self.failures = failures
        self.cooldown = cooldown
        self.clock = clock

    def _read(self) -> tuple[int, float]:
        try:
            fd = os.open(self.path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        except OSError:
            return 0, 0.0
        try:
            count, _, until = os.read(fd, 64).decode("ascii", "replace").partition(" ")
            return int(count), float(until)
        except ValueError:
            return 0, 0.0
        finally:
            os.close(fd)

    def _write(self, count: int, until: float) -> None:
        folder = os.path.dirname(self.path)
        tmp = os.path.join(folder, f".tmp-breaker-{os.getpid()}-{os.urandom(3).hex()}")
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
        try:
            fd = os.open(tmp, flags, 0o600)
            try:
                os.write(fd, f"{count} {until:.3f}".encode("ascii"))
            finally:
                os.close(fd)
            os.replace(tmp, self.path)
        except OSError:
            try:  # noqa: SIM105 (no contextlib on the hook path)
                os.unlink(tmp)
            except OSError:
                pass

    def open_for(self) -> float:
        """Seconds the breaker stays open (skip the network), 0 when calls may go."""
        _, until = self._read()
        return max(until - self.clock(), 0.0)

    def succeeded(self) -> None:
        """A call went through: close the breaker (written only if it was not closed)."""
        count, until = self._read()
        if count or until:
            self._write(0, 0.0)

    def failed(self, log: Callable[[str], None]) -> None:
        """A call failed; open the breaker when that makes ``failures`` in a row."""
        count, until = self._read()
        count += 1
        now = self.clock()
        if count >= self.failures and until <= now:
            until = now + self.cooldown
            log(
                f"daemon unreachable ({count} failures in a row): hooks skip it for "
                f"{self.cooldown:g}s (SIGNET_BREAKER_FAILURES=0 turns this off)"
            )
        self._write(count, until)


def breaker_for(env: Mapping[str, str], daemon_url: str) -> Breaker | None:
    """The breaker of the daemon at ``daemon_url``, shared by every hook and
    configured by ``env``, or None when it is off or unusable."""
    from signet_sdk.hooks.process import seconds_setting

    try:
        failures = int(env.get("SIGNET_BREAKER_FAILURES", "").strip() or FAILURES)
    except ValueError:
        failures = FAILURES
    cooldown = seconds_setting(env.get("SIGNET_BREAKER_COOLDOWN", ""), COOLDOWN)
    if failures <= 0:
        return None
    from signet_sdk.runtime.files import private_dir, state_dir

    try:
        folder = private_dir(state_dir(env))
    except OSError:
        return None
    path = os.path.join(folder, breaker_name(daemon_url))
    return Breaker(path, failures, cooldown)
