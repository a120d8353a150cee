"""The command line as a whole: runs the group with stdout and stderr
guarded against readers that leave, and maps every outcome to its exit
status (see the package's header)."""

from __future__ import annotations

import os
import sys
import traceback

import click

# Each command module joins the group as it is imported.
from satcc.cli import bench, emulate, leo, reproduce, results, run, sweep, validate  # noqa: F401
from satcc.cli.common import (
    EXIT_BAD_INPUT,
    EXIT_FAILURE,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_READER_GONE,
    EXIT_TERMINATED,
    print_error,
)
from satcc.cli.group import EpipeIsAFailure, cli
from satcc.core_errors import is_core_panic, panic_text
from satcc.pipes import GuardedStream, ReaderGone
from satcc.signals import Terminated


def _usage_error(e: click.UsageError) -> None:
    print_error(e.format_message())
    if e.ctx is not None:
        click.echo(f"\n{e.ctx.get_usage()}\n", err=True)
        click.echo(f"For more information, try '{e.ctx.command_path} --help'.", err=True)


# Set when a reader closed stdout or stderr during run_cli; main() then makes
# the interpreter's last flush of that stream harmless.
_closed_by_reader = False


def run_cli(argv: list[str] | None = None) -> int:
    """Run the command line and return the exit status (no sys.exit: testable)."""
    global _closed_by_reader
    stdout, stderr = sys.stdout, sys.stderr
    guarded_out, guarded_err = GuardedStream(stdout, stop=True), GuardedStream(stderr, stop=False)
    sys.stdout, sys.stderr = guarded_out, guarded_err
    try:
        status = _run_cli(argv)
        # Whatever is still buffered, so that a reader gone shows here and
        # not in the interpreter's last flush.
        guarded_out.flush()
        guarded_err.flush()
    except ReaderGone:
        status = EXIT_READER_GONE
    finally:
        _closed_by_reader = _closed_by_reader or guarded_out.gone or guarded_err.gone
        sys.stdout, sys.stderr = stdout, stderr
    return status


def _run_cli(argv: list[str] | None) -> int:
    try:
        status = cli.main(args=argv, prog_name="satcc", standalone_mode=False)
    except (click.Abort, KeyboardInterrupt) as e:
        # click turns a KeyboardInterrupt into Abort; SIGTERM is one too
        # (satcc.signals), and the shell's convention tells them apart.
        if isinstance(e, Terminated) or isinstance(e.__cause__, Terminated):
            print_error("terminated")
            return EXIT_TERMINATED
        print_error("interrupted")
        return EXIT_INTERRUPTED
    except click.exceptions.NoArgsIsHelpError as e:
        e.show()
        return EXIT_BAD_INPUT
    except click.UsageError as e:
        _usage_error(e)
        return EXIT_BAD_INPUT
    except click.ClickException as e:
        print_error(e.format_message())
        return e.exit_code
    except BaseException as e:
        if not isinstance(e, Exception) and not is_core_panic(e):
            raise
        if isinstance(e, EpipeIsAFailure):
            e = e.original
        text = panic_text(e) if is_core_panic(e) else f"{type(e).__name__}: {e}"
        print_error(f"internal error: {text}")
        if os.environ.get("SATCC_DEBUG"):
            traceback.print_exc()
        else:
            click.echo("(set SATCC_DEBUG=1 for the traceback)", err=True)
        return EXIT_FAILURE
    return status if isinstance(status, int) else EXIT_OK


def _reopen_closed_streams() -> None:
    """A standard stream closed by the caller (`satcc --version >&-`) is
    None in Python: writing to it raised AttributeError and every exit
    status became 1. It becomes /dev/null, on its own descriptor (the
    lowest free one is the closed one), so that output is dropped and the
    status stays the command's."""
    for name, mode in (("stdin", "r"), ("stdout", "w"), ("stderr", "w")):
        if getattr(sys, name) is None:
            setattr(sys, name, open(os.devnull, mode))  # noqa: SIM115 - lives as long as the process


def main() -> None:
    _reopen_closed_streams()
    status = run_cli()
    if _closed_by_reader:
        # The text that could not be written is still buffered; at exit
        # Python would flush it again, print "Exception ignored ...
        # BrokenPipeError" and exit 120. Let it go to /dev/null instead.
        devnull = os.open(os.devnull, os.O_WRONLY)
        for stream in (sys.stdout, sys.stderr):
            os.dup2(devnull, stream.fileno())
    sys.exit(status)
