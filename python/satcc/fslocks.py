"""Who owns a file: advisory locks between processes, and telling a writer's
temporary file or folder that its writer left behind from one still in use.

Locks are flock(2) locks: the kernel releases them when their process ends,
however it ends (kill -9 included), so a lock never outlives its holder and
nothing needs cleaning up after a crash. They hold between processes of one
machine, across containers sharing a volume, and on NFS (Linux maps flock to
NFS byte-range locks).

A writer's temporary name carries its process id, and the writer holds a
lock on it while it writes. A temporary entry is *stale* (its writer is gone)
only when both say so: no running process has that id here, and nobody holds
its lock. The id alone could be another machine's or another container's;
the lock alone would not tell a live writer of an older satcc, which did not
lock, from a dead one.
"""

from __future__ import annotations

import datetime
import fcntl
import os
import socket
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

__all__ = [
    "LockFile",
    "create_held",
    "flocked",
    "hold",
    "is_locked",
    "pid_running",
    "release",
    "stale",
]


def hold(path: Path) -> int:
    """Lock `path` (a file or folder this process has just created) for as long
    as this process lives or until release(); returns the descriptor."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BaseException:
        os.close(fd)
        raise
    return fd


def create_held(path: Path) -> int:
    """Create the new, empty file `path` and hold it as hold() does; returns
    the descriptor (writing to the path by name keeps the lock: same file)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o666)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BaseException:
        os.close(fd)
        raise
    return fd


@contextmanager
def flocked(path: Path, mode: int, create: bool = True) -> Iterator[None]:
    """Hold an flock in `mode` (fcntl.LOCK_SH or LOCK_EX, waiting for it) on
    `path`, created if missing and `create`. Where it can be neither opened
    nor created (a read-only copy, where no writer can be at work either) or
    is missing and not to be created, nothing is held."""
    flags = os.O_RDONLY | os.O_NOFOLLOW
    fd = None
    for how in ((flags | os.O_CREAT,) if create else ()) + (flags,):
        try:
            fd = os.open(path, how, 0o666)
            break
        except OSError:
            continue
    try:
        if fd is not None:
            fcntl.flock(fd, mode)
        yield
    finally:
        release(fd)


def release(fd: int | None) -> None:
    if fd is not None:
        os.close(fd)


def is_locked(path: Path) -> bool:
    """True when another open file holds a lock on `path`, or when it cannot
    be told (then the entry is left alone)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError:  # BlockingIOError: held
        return True
    finally:
        os.close(fd)
    return False


def pid_running(pid: int) -> bool:
    """Whether process `pid` runs on this machine (a zombie has ended: it is
    only waiting for its parent to read its exit status)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # another user's process: running
    return not _zombie(pid)


def _zombie(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2 :].startswith("Z")


def stale(path: Path, pid: int) -> bool:
    """True when the temporary `path`, written by process `pid`, was left
    behind: that process is gone and nobody holds its lock."""
    return pid != os.getpid() and not pid_running(pid) and not is_locked(path)


class LockFile:
    """An exclusive lock on a file that also says who holds it (process id,
    host, since when, command line), for those who find it taken."""

    def __init__(self, path: Path):
        self.path = path
        self._fd: int | None = None

    def acquire(self, wait: bool, on_busy: Callable[[str], None] | None = None) -> bool:
        """Take the lock. When another process holds it: with `wait`, call
        on_busy(holder) and block until it is free; else return False."""
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o666)
        try:
            if not _try_lock(fd):
                if not wait:
                    os.close(fd)
                    return False
                if on_busy is not None:
                    on_busy(self.holder())
                fcntl.flock(fd, fcntl.LOCK_EX)
            _say_who(fd)
        except BaseException:
            os.close(fd)
            raise
        self._fd = fd
        return True

    def release(self) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            os.ftruncate(fd, 0)
            os.close(fd)

    def holder(self) -> str:
        """Who holds the lock, as its holder wrote it ("unknown" if unsaid)."""
        try:
            text = self.path.read_text(encoding="utf-8", errors="replace").strip()
        except OSError:
            text = ""
        return text or "holder unknown"


def _try_lock(fd: int) -> bool:
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _say_who(fd: int) -> None:
    since = datetime.datetime.now().astimezone().isoformat(timespec="seconds")
    command = " ".join(sys.argv)[:300]
    text = f"pid {os.getpid()} on {socket.gethostname()} since {since}: {command}\n"
    os.ftruncate(fd, 0)
    os.pwrite(fd, text.encode("utf-8", errors="replace"), 0)
