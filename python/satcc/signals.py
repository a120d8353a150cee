"""SIGTERM as Ctrl-C, for the commands that must stop cleanly on either.

A batch scheduler's time limit, `kill` or a service manager sends SIGTERM;
Python's default is to die at once, leaving worker processes and their
semaphores behind ("leaked semaphore") and no message. Inside
`sigterm_as_interrupt()` SIGTERM raises `Terminated`, a KeyboardInterrupt,
so the same clean-up runs as for Ctrl-C; the command line then exits 143
(128 + SIGTERM) saying "terminated".
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


class Terminated(KeyboardInterrupt):
    """SIGTERM while sigterm_as_interrupt() holds."""


@contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """While it holds (a sweep, a reproduction), SIGTERM stops the work as
    Ctrl-C does: the runs in flight are abandoned, their workers ended,
    every finished run is kept. A second SIGTERM meanwhile ends the process
    at once (the store stays consistent; the workers end with it). Only the
    main thread may set signal handlers: elsewhere SIGTERM is left as it is."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def terminated(signum: int, frame: Any) -> None:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        raise Terminated()

    previous = signal.signal(signal.SIGTERM, terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous if previous is not None else signal.SIG_DFL)
