"""The standard streams of a command whose reader may leave (`satcc results |
head`): stdout's reader gone stops the command as SIGPIPE would stop a Unix
tool; stderr's only loses notes. See GuardedStream."""

from __future__ import annotations

from typing import Any

__all__ = ["GuardedStream", "ReaderGone"]


class ReaderGone(BaseException):
    """stdout was closed by its reader: stop, as a Unix tool stopped by SIGPIPE.

    A BaseException, like KeyboardInterrupt, so that no `except Exception`
    on the way up reports it as a failure.
    """


class GuardedStream:
    """sys.stdout or sys.stderr while a command runs, telling the reader leaving from failures.

    click turns an EPIPE raised anywhere in a command into a silent exit 1,
    and rich into SystemExit(1) after pointing stdout at /dev/null, whichever
    stream broke; neither can tell a closed pipe from a real failure. Here only
    the standard streams' own writes are judged: on stdout, the reader of the
    results has gone, so the command stops (ReaderGone); on stderr, only
    notes and messages are lost, so the command goes on and its exit status
    stays what it would have been.
    """

    def __init__(self, stream: Any, stop: bool):
        self._stream = stream
        self._stop = stop
        self.gone = False

    def write(self, text: str) -> int:
        if not self.gone:
            try:
                return self._stream.write(text)
            except BrokenPipeError:
                self._reader_left()
        return len(text)

    def flush(self) -> None:
        if not self.gone:
            try:
                self._stream.flush()
            except BrokenPipeError:
                self._reader_left()

    def _reader_left(self) -> None:
        self.gone = True
        if self._stop:
            raise ReaderGone

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)
