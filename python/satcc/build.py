"""Which build of satcc computed a result.

The package version (0.1.0) does not change when a model does, so it cannot
tell a stored run made by today's code from one made before an edit. The
build identity is a digest of the compiled core (the extension module's
bytes) and of every Python source of the package: any change to either,
an edit followed by `make dev` or a new install, gives another identity.
Run keys carry it (satcc.sweeps.run_key), so a store reuses a run only in
the build that computed it; every run records it (`satcc_build`), and a
campaign says when it holds runs of several builds.

Computing it reads about 15 MB (some 25 ms), once per process and only
where a key or a record needs it.
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

__all__ = ["build_id"]

# Characters of the hex digest kept: 64 bits, ample to tell builds apart.
ID_LENGTH = 16


@functools.cache
def build_id() -> str:
    """This build's identity, 16 hex digits."""
    from . import _core

    digest = hashlib.sha256()
    _feed(digest, "core", Path(_core.__file__))
    package = Path(__file__).resolve().parent
    for path in sorted(package.rglob("*.py")):
        if "__pycache__" not in path.parts:
            _feed(digest, path.relative_to(package).as_posix(), path)
    return digest.hexdigest()[:ID_LENGTH]


def _feed(digest, name: str, path: Path) -> None:
    digest.update(name.encode("utf-8") + b"\0")
    digest.update(path.read_bytes())
    digest.update(b"\0")
