"""Private files on the hook and library paths: the state directory and durable writes.

Also where a harness keeps its own files (:func:`harness_home`) and which
folders its transcripts may be read from (:func:`transcript_roots_with`):
every adapter's ``_paths`` declares its folders with these, so the rules
for ``HOME`` and ``SIGNET_TRANSCRIPT_ROOTS`` are the same for all of them.

Entries that must survive a killed process are written to a temporary
name, fsynced, renamed into place and the directory fsynced. Directories
are created 0700 and files 0600.

Standard library only (``os`` and ``stat``, both loaded at interpreter start):
the hook path imports this.
"""

from __future__ import annotations

import os
import stat

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = [
    "fsync_dir",
    "harness_home",
    "outbox_dir",
    "private_dir",
    "state_dir",
    "transcript_roots_with",
    "user_home",
    "write_durably",
    "write_new_file",
]

#: Where users list further folders a harness's transcripts may be read from.
TRANSCRIPT_ROOTS_ENV = "SIGNET_TRANSCRIPT_ROOTS"


def user_home(env: Mapping[str, str]) -> str:
    """``HOME`` from ``env`` when set, else the account's home directory.

    ``env`` first, so that a hook run with a harness's environment (and a
    test with its own) finds the folders that environment names.
    """
    return env.get("HOME", "").strip() or os.path.expanduser("~")


def harness_home(env: Mapping[str, str], variable: str | None, folder: str) -> str:
    """A harness's own folder: ``$variable`` when set, else ``folder`` in :func:`user_home`.

    The convention most harnesses follow (``CODEX_HOME`` or ``~/.codex``);
    ``variable`` None for one whose folder cannot be moved. The variable's
    value is taken as it is (not expanded), as the harness itself takes it.
    """
    configured = env.get(variable, "").strip() if variable else ""
    return configured or os.path.join(user_home(env), folder)


def transcript_roots_with(env: Mapping[str, str], *folders: str) -> list[str]:
    """``folders``, then each absolute directory listed in ``SIGNET_TRANSCRIPT_ROOTS``.

    The list an adapter's ``transcript_roots(env)`` returns: the harness's
    own transcript folders, plus what the user allows on top
    (``os.pathsep`` separated; a relative entry is ignored, since it would
    depend on the hook's working directory).
    """
    extra = (p.strip() for p in env.get(TRANSCRIPT_ROOTS_ENV, "").split(os.pathsep))
    return [*folders, *(p for p in extra if p and os.path.isabs(p))]


def state_dir(env: Mapping[str, str] | None = None) -> str:
    """``${XDG_STATE_HOME:-~/.local/state}/signet-sdk``: logs and the outbox live here."""
    env = os.environ if env is None else env
    base = env.get("XDG_STATE_HOME", "").strip()
    if base and os.path.isabs(base):
        return os.path.join(base, "signet-sdk")
    return os.path.join(user_home(env), ".local", "state", "signet-sdk")


def _make_private_dirs(path: str) -> None:
    """``os.makedirs`` with 0700 for every directory it creates, not only the last
    (``makedirs`` gives the parents it creates the umask's default, often 0755)."""
    if os.path.lexists(path):
        return  # whatever is there is checked by the caller
    parent = os.path.dirname(path)
    if parent and parent != path:
        _make_private_dirs(parent)
    # try/except rather than contextlib.suppress: contextlib stays off the hook path.
    try:  # noqa: SIM105
        os.mkdir(path, 0o700)
    except FileExistsError:  # created meanwhile, or something else is there: checked after
        pass


def private_dir(path: str | os.PathLike[str]) -> str:
    """Create ``path`` (0700) if needed; refuse a symlink or a directory owned by another user."""
    path = os.fspath(path)
    _make_private_dirs(path)
    st = os.lstat(path)
    _refuse_foreign(path, st)
    if stat.S_IMODE(st.st_mode) & 0o077:
        os.chmod(path, 0o700)
    return path


def _refuse_foreign(path: str, st: os.stat_result) -> None:
    """Raise :class:`OSError` unless ``st`` (of ``path``, not followed) is a directory of ours."""
    if not stat.S_ISDIR(st.st_mode):
        raise OSError(f"{path} is not a directory (a symlink or a file is in the way)")
    if hasattr(os, "geteuid") and st.st_uid != os.geteuid():
        raise OSError(f"{path} belongs to another user")


def _checked_dir(path: str) -> str:
    """:func:`private_dir`'s checks on what is at ``path``, creating and changing nothing.

    Nothing there passes (the first write creates it); a folder that is there
    must also be readable, since its readers take an unreadable one for empty.
    """
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return path
    _refuse_foreign(path, st)
    os.listdir(path)
    return path


def outbox_dir(
    env: Mapping[str, str] | None = None, *, create: bool = True, check_only: bool = False
) -> str:
    """The outbox folder, ``<state dir>/outbox``: the one place that names and checks it.

    With ``create`` (what every writer asks for) the state directory and the
    outbox are made if missing and checked: both ours, 0700, neither a link
    nor a file in the way; anything else raises :class:`OSError` naming the
    path, before a byte is written under it. ``check_only`` applies the same
    checks to what is there and raises the same errors, but creates nothing
    and changes no mode (a folder not there yet passes): for a command that
    reports on the outbox or acts on what it holds (``signet-sdk outbox``).
    ``create=False`` only names the folder (for a reader, or an
    :class:`~signet_sdk.hooks.outbox.Outbox` that checks when it first
    writes): a state directory that cannot be written must not stop a hook,
    a server or a report from starting.
    """
    if check_only:
        return _checked_dir(os.path.join(_checked_dir(state_dir(env)), "outbox"))
    if not create:
        return os.path.join(state_dir(env), "outbox")
    return private_dir(os.path.join(private_dir(state_dir(env)), "outbox"))


def fsync_dir(path: str | os.PathLike[str]) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:  # pragma: no cover - platforms without directory fds
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover
        pass
    finally:
        os.close(fd)


def write_durably(path: str | os.PathLike[str], data: bytes, *, fsync: bool = True) -> None:
    """Write ``data`` to ``path`` so that a reader sees all of it or no file at all.

    ``fsync=False`` keeps the all-or-nothing rename but not the flush to disk:
    for state a hook can rebuild, where a prompt should not wait on the disk.
    """
    path = os.fspath(path)
    folder, name = os.path.split(path)
    tmp = os.path.join(folder, f".tmp-{name}-{os.getpid()}-{os.urandom(3).hex()}")
    write_new_file(tmp, data, fsync=fsync)
    try:
        os.replace(tmp, path)
    except BaseException:
        _discard(tmp)
        raise


def write_new_file(path: str, data: bytes, *, fsync: bool = False) -> None:
    """Write ``data`` as a new 0600 file at ``path``: all of it, or no file left behind.

    ``O_EXCL | O_NOFOLLOW`` means a file or symlink planted under the name
    makes this fail instead of writing through it. A write that fails (a
    full disk, a folder turned read-only) removes what it began.
    """
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(path, flags, 0o600)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            if fsync:
                os.fsync(fd)
        finally:
            os.close(fd)
    except BaseException:
        _discard(path)
        raise


def _discard(path: str) -> None:
    """Remove ``path`` if it is there (no contextlib on the hook path)."""
    try:  # noqa: SIM105
        os.unlink(path)
    except OSError:
        pass


# -- transcripts ----------------------------------------------------------
