"""SIGTERM as Ctrl-C, for the commands that must stop cleanly on either.

A batch scheduler's time limit, `kill` or a service manager sends SIGTERM;
Python's default is to die at once, leaving worker processes and their
semaphores behind ("leaked semaphore") and no message. Inside
`sigterm_as_interrupt()` SIGTERM raises `Terminated`, a KeyboardInterrupt,
so the same clean-up runs as for Ctrl-C; the command line then exits 143
(128 + SIGTERM) saying "terminated".

A signal handler raises wherever the main thread happens to be, and that
may be a destructor (pyarrow's writers close in `__del__`), where Python
swallows the exception with an "Exception ignored in" traceback. So the
signal is also remembered: the loops that wait for runs call
`raise_if_terminated()`, and the context raises on leaving if the body
never saw it; a swallowed `Terminated` prints nothing.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


class Terminated(KeyboardInterrupt):
    """SIGTERM while sigterm_as_interrupt() holds."""


_received = threading.Event()


def raise_if_terminated() -> None:
    """Raises Terminated if a SIGTERM came whose exception was swallowed."""
    if _received.is_set():
        raise Terminated()


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
        _received.set()
        raise Terminated()

    unraisable = sys.unraisablehook

    def quiet(u: Any) -> None:
        if not isinstance(u.exc_value, Terminated):
            unraisable(u)

    _received.clear()
    previous = signal.signal(signal.SIGTERM, terminated)
    sys.unraisablehook = quiet
    try:
        yield
        raise_if_terminated()
    finally:
        sys.unraisablehook = unraisable
        signal.signal(signal.SIGTERM, previous if previous is not None else signal.SIG_DFL)
        _received.clear()


@contextmanager
def deferred_interrupts() -> Iterator[None]:
    """Holds Ctrl-C and SIGTERM over a step that must happen whole (store a
    finished run and count it): a signal that comes meanwhile is delivered
    again, to the handler it would have met, once the step is done. Without
    it an interrupt could land between the two and the sweep's report would
    count one run fewer than the store holds. Main thread only."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held: list[int] = []

    def hold(signum: int, frame: Any) -> None:
        held.append(signum)

    previous = {sig: signal.signal(sig, hold) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        for sig in dict.fromkeys(held):
            os.kill(os.getpid(), sig)
