"""The library's lock: an exclusive OS ``flock`` on ``.<library>.lock`` beside it.

The lock dies with its process, so a crash never leaves a stale lock. The lock
file is created with the library's own group and other write bits (in a
shared group folder, everyone who may write the library may take its lock);
when an existing lock file cannot be opened for writing (another user made it
without those bits), it is opened read-only: ``flock`` does not need write
access.
"""

from __future__ import annotations

import contextlib
import os
import stat
import time
from pathlib import Path
from collections.abc import Callable, Iterator

from ..errors import LockTimeout, WriteError

_POLL = 0.05  # seconds between tries while another process holds the lock
_QUIET = 0.2  # wait this long before telling the user we are waiting


def lock_path(path: Path) -> Path:
    real = Path(os.path.realpath(path))
    return real.with_name(f".{real.name}.lock")  # hidden; `pubcli init` git-ignores it


def lock_mode(path: Path) -> int:
    """0o644 plus the library's group and other write bits."""
    try:
        library_mode = stat.S_IMODE(Path(os.path.realpath(path)).stat().st_mode)
    except OSError:
        library_mode = 0
    return 0o644 | (library_mode & 0o066)


def open_lock_file(lp: Path, mode: int) -> int:
    """A descriptor on the lock file, creating it with ``mode`` (umask aside)."""
    try:
        fd = os.open(lp, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, mode)
    except FileExistsError:
        try:
            return os.open(lp, os.O_RDWR | os.O_CLOEXEC)
        except PermissionError:
            return os.open(lp, os.O_RDONLY | os.O_CLOEXEC)  # flock needs no write access
    with contextlib.suppress(OSError):
        os.fchmod(fd, mode)  # the umask may have taken the group's write bit away
    return fd


def _open_failure(lp: Path, exc: OSError) -> str:
    """Why the lock file could not be opened, as it is: missing and not creatable (the
    folder), or there but neither writable nor readable by this user."""
    why = exc.strerror or str(exc)
    if not os.path.lexists(lp):
        return f"cannot create the lock file {lp}: {why}; nothing was written"
    if os.path.isdir(lp):
        return f"the lock file {lp} is a directory; remove it; nothing was written"
    return (f"the lock file {lp} exists but cannot be opened ({why}): this user may not "
            "write or read it; its owner can make it group-writable, or remove it while no "
            "pubcli runs; nothing was written")


@contextlib.contextmanager
def locked(path: Path, *, timeout: float | None = None,
           on_wait: Callable[[str], None] | None = None) -> Iterator[None]:
    """Hold the library's exclusive lock. ``on_wait`` is told once if we have to wait."""
    import fcntl

    if timeout is None:
        timeout = float(os.environ.get("PUBCLI_LOCK_TIMEOUT", "60"))
    lp = lock_path(path)
    try:
        fd = open_lock_file(lp, lock_mode(path))
    except OSError as exc:
        raise WriteError(_open_failure(lp, exc), path=path) from None
    try:
        start = time.monotonic()
        told = False
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                waited = time.monotonic() - start
                if waited >= timeout:
                    raise LockTimeout(f"another process has held the lock {lp} for more than "
                                      f"{timeout:g} s; nothing was written", path=path) from None
                if on_wait and not told and waited >= _QUIET:
                    told = True
                    on_wait(f"waiting for another pubcli process to finish with {path} "
                            f"(lock {lp.name}, up to {timeout:g} s)")
                time.sleep(_POLL)
            except OSError as exc:
                raise WriteError(f"cannot lock {lp}: {exc.strerror or exc}", path=path) from None
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
