"""Harness transcripts, sent the way every daemon accepts them.

The contract's portable rule: a file the daemon reads must be a regular
file under ``/tmp/signet`` (realpath) of at most 400 000 bytes. So a
harness's transcript is read only inside the roots its adapter declares
(never through a symlink), then staged there (0600, in a 0700 directory
we own, created with ``O_EXCL | O_NOFOLLOW``) just before sending and
removed after; a larger one is sent inline as its most recent lines, cut
so the whole request stays under the daemon's 10 MiB body limit.

Standard library only: the hook path imports this.
"""

from __future__ import annotations

import os
import stat
import time

from signet_sdk.runtime.files import private_dir, write_new_file
from signet_sdk.wire.jsonfast import dumps
from signet_sdk.wire.record import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence
    from typing import Any

__all__ = [
    "REQUEST_MAX_BYTES",
    "STAGED_MAX_BYTES",
    "STAGING_ROOT",
    "TranscriptRefused",
    "TranscriptSnapshot",
    "attach_transcript",
    "fit_inline_transcript",
    "read_exact",
    "snapshot_transcript",
    "stage_file",
    "sweep_staged",
    "take_transcript",
]

STAGING_ROOT = "/tmp/signet"
#: The largest transcript file the Rust daemon and the docs accept.
STAGED_MAX_BYTES = 400_000
#: The daemon's request body limit; an inline transcript keeps the request below it.
REQUEST_MAX_BYTES = 10 * 1024 * 1024
#: Room left under the limit for headers and rounding.
_REQUEST_MARGIN = 64 * 1024
#: The most of a transcript's tail ever snapshotted for inline sending.
INLINE_TAIL_BYTES = 8 * 1024 * 1024
#: Prefix of the files this module stages, so a sweep removes only its own.
_STAGE_PREFIX = "sdk-"


class TranscriptRefused(Exception):
    """A transcript path that will not be read; the message says why."""


class TranscriptSnapshot(Record):
    """The bytes taken from a transcript, and whether older lines were left out."""

    data: bytes
    source_bytes: int
    truncated: bool


def _within(path: str, roots: Sequence[str | os.PathLike[str]]) -> bool:
    for root in roots:
        real_root = os.path.realpath(root)
        if path == real_root or path.startswith(real_root.rstrip(os.sep) + os.sep):
            return True
    return False


def snapshot_transcript(
    path: str, roots: Sequence[str | os.PathLike[str]], *, tail_bytes: int = INLINE_TAIL_BYTES
) -> TranscriptSnapshot:
    """Read a harness transcript, refusing anything a hook should not read.

    The path must be absolute, resolve inside one of ``roots``, not be a
    symlink itself, and be a regular file. A file larger than
    ``STAGED_MAX_BYTES`` is read from the end only (``tail_bytes``), starting
    at a line boundary so that JSON lines stay whole.
    """
    if not os.path.isabs(path):
        raise TranscriptRefused(f"not an absolute path: {path!r}")
    if "\x00" in path:
        raise TranscriptRefused(f"a NUL byte in the path: {path!r}")
    real = os.path.realpath(path)
    if not roots or not _within(real, roots):
        raise TranscriptRefused(f"outside the allowed transcript roots: {path}")
    try:
        fd = os.open(
            path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
        )
    except FileNotFoundError:
        raise TranscriptRefused(f"no such file: {path}") from None
    except OSError as exc:
        raise TranscriptRefused(f"cannot open {path} (a symlink is refused): {exc}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise TranscriptRefused(f"not a regular file: {path}")
        size = st.st_size
        if size <= STAGED_MAX_BYTES:
            return TranscriptSnapshot(read_exact(fd, 0, size), size, False)
        start = max(0, size - tail_bytes)
        data = read_exact(fd, start, size - start)
        if start:
            cut = data.find(b"\n")
            data = data[cut + 1 :] if cut >= 0 else b""
        return TranscriptSnapshot(data, size, start > 0)
    finally:
        os.close(fd)


def read_exact(fd: int, offset: int, length: int) -> bytes:
    chunks: list[bytes] = []
    while length > 0:
        chunk = os.pread(fd, min(length, 1 << 20), offset)
        if not chunk:
            break
        chunks.append(chunk)
        offset += len(chunk)
        length -= len(chunk)
    return b"".join(chunks)


def stage_file(data: bytes, tag: str, root: str | os.PathLike[str] = STAGING_ROOT) -> str:
    """Write ``data`` as a new 0600 file under the staging root and return its path.

    A file or symlink planted under the chosen name makes this fail instead of
    writing through it (:func:`~signet_sdk.runtime.files.write_new_file`).
    """
    if len(data) > STAGED_MAX_BYTES:
        raise ValueError(f"{len(data)} bytes exceed the staging limit of {STAGED_MAX_BYTES}")
    folder = private_dir(root)
    safe_tag = "".join(c if c.isalnum() or c in "-_" else "_" for c in tag)[:80]
    path = os.path.join(folder, f"{_STAGE_PREFIX}{safe_tag}-{os.urandom(4).hex()}.jsonl")
    write_new_file(path, data)  # a full disk leaves no half transcript for the daemon to read
    return path


def sweep_staged(max_age: float = 3600.0, root: str | os.PathLike[str] = STAGING_ROOT) -> int:
    """Remove this module's staged files older than ``max_age`` seconds (left by killed senders)."""
    removed = 0
    try:
        names = os.listdir(root)
    except OSError:
        return 0
    now = time.time()
    uid = os.geteuid() if hasattr(os, "geteuid") else None
    for name in names:
        if not name.startswith(_STAGE_PREFIX):
            continue
        path = os.path.join(root, name)
        try:
            st = os.lstat(path)
            if (uid is None or st.st_uid == uid) and now - st.st_mtime > max_age:
                os.unlink(path)
                removed += 1
        except OSError:
            continue
    return removed


def fit_inline_transcript(body: Mapping[str, Any], data: bytes) -> tuple[str, int]:
    """The newest whole lines of ``data`` that keep ``body`` plus them under the body limit.

    Returns the text and the number of bytes left out at the front.
    """
    base = len(dumps(dict(body)).encode("utf-8"))
    budget = REQUEST_MAX_BYTES - _REQUEST_MARGIN - base - len(',"transcript":')
    dropped = 0
    while data:
        text = data.decode("utf-8", errors="replace")
        size = len(dumps(text).encode("utf-8"))
        if size <= budget:
            return text, dropped
        # Drop roughly the excess (escaping makes bytes and encoded size differ), then
        # move to the next line start so the transcript still parses line by line.
        excess = max(size - budget, len(data) // 16, 1)
        cut = data.find(b"\n", min(excess, len(data) - 1))
        cut = len(data) if cut < 0 else cut + 1
        dropped += cut
        data = data[cut:]
    return "", dropped


def take_transcript(
    body: Mapping[str, Any],
    roots: Sequence[str | os.PathLike[str]],
    log: Callable[[str], None],
) -> tuple[dict[str, Any], TranscriptSnapshot | None]:
    """Take ``transcriptPath`` out of ``body`` and read that file, if allowed.

    Returns the body without the path and the snapshot, or None (logged) when
    there is no path or the file may not or cannot be read: the call then goes
    without a transcript rather than not at all (a checkpoint too: the daemon
    then extracts the transcript it stored for the session, TS 0.109.15 and
    0.145.8 ``handleCheckpointExtract``; see docs/reliability.md).
    """
    rest = dict(body)
    path = rest.pop("transcriptPath", None)
    if not isinstance(path, str) or not path:
        return rest, None
    try:
        return rest, snapshot_transcript(path, roots)
    except (TranscriptRefused, OSError) as exc:
        log(f"transcript not sent: {exc}")
        return rest, None


def attach_transcript(
    body: dict[str, Any],
    snapshot: TranscriptSnapshot,
    tag: str,
    *,
    staging_root: str | os.PathLike[str] = STAGING_ROOT,
    log: Callable[[str], None] | None = None,
) -> str | None:
    """Put a transcript into ``body`` the way both daemons accept it.

    A whole transcript within the Rust daemon's cap goes as ``transcriptPath``
    to a fresh 0600 file under the staging root (the caller removes the
    returned path once the daemon answered); anything else goes inline as the
    newest whole lines that keep the request under the body limit.
    """
    say = log or (lambda line: None)
    data = snapshot.data
    if len(data) <= STAGED_MAX_BYTES and not snapshot.truncated:
        try:
            staged = stage_file(data, tag.replace(" ", "-"), staging_root)
        except OSError as exc:
            say(f"{tag}: cannot stage under {staging_root}: {exc}")
        else:
            body["transcriptPath"] = staged
            return staged
    text, dropped = fit_inline_transcript(body, data)
    left_out = dropped + snapshot.source_bytes - len(data)
    if left_out > 0:
        say(
            f"{tag}: transcript of {snapshot.source_bytes} bytes sent inline without "
            f"its oldest {left_out} bytes (request size limit)"
        )
    if text:
        body["transcript"] = text
    return None
