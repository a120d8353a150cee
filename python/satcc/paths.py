"""Why a path given on the command line cannot be used, in words.

`Path.exists()` is False for a symbolic link loop, a link to nothing and a
path through a folder we may not enter alike; "no such file" then sends the
user looking for a file that is there.
"""

from __future__ import annotations

import errno
import os


def unreachable(path: str | os.PathLike[str], noun: str = "file") -> str | None:
    """None when `path` exists (following links); else why not, as a
    phrase: "no such file", "a symbolic link loop", ..."""
    try:
        os.stat(path)
        return None
    except OSError as e:
        code = e.errno
    if code == errno.ELOOP:
        return "a symbolic link loop (each link leads back to another)"
    if code == errno.ENOENT and os.path.islink(path):
        return f"a symbolic link to {os.readlink(path)!r}, which does not exist"
    if code == errno.ENOENT:
        return f"no such {noun}"
    if code == errno.ENOTDIR:
        return "a part of the path is a file, not a folder"
    if code == errno.EACCES:
        return "permission denied on a folder of the path"
    if code == errno.ENAMETOOLONG:
        return "the name is too long for the file system"
    return os.strerror(code or 0)
