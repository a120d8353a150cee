"""What the commands share: exit statuses, the bad-input error, notes and
errors on stderr, and loading a scenario with its --set assignments."""

from __future__ import annotations

import signal
import sys
import tomllib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click

EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_BAD_INPUT = 2
EXIT_INTERRUPTED = 130
# 128 + SIGTERM, as a shell reports a process SIGTERM ended.
EXIT_TERMINATED = 143
EXIT_READER_GONE = 128 + signal.SIGPIPE

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


class BadInput(click.ClickException):
    """The user's input is wrong (exit status 2), as opposed to satcc failing."""

    exit_code = EXIT_BAD_INPUT


@contextmanager
def input_errors() -> Iterator[None]:
    """Turn scenario errors into BadInput; any other exception stays internal."""
    from satcc.scenario import ScenarioError

    try:
        yield
    except ScenarioError as e:
        raise BadInput(str(e)) from e


def progress_wanted(quiet: bool) -> bool:
    # A progress bar on a pipe or in a CI log is noise.
    return not quiet and sys.stderr.isatty()


def note(message: str, quiet: bool) -> None:
    if not quiet:
        click.echo(message, err=True)


def print_error(message: str) -> None:
    click.echo(f"{click.style('error', fg='red', bold=True)}: {message}", err=True)


def plural(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


# ---------------------------------------------------------------------------
# Scenario loading and --set


def parse_assignment(text: str) -> tuple[str, Any]:
    """KEY=VALUE -> (key, value); VALUE is a TOML value when it parses as one
    (3, 0.5, true, "x", [..], {..}), otherwise the plain string ("4 Mbps")."""
    key, sep, raw = text.partition("=")
    key = key.strip()
    if not sep or not key:
        raise BadInput(
            f"bad --set {text!r}: expected KEY=VALUE, e.g. --set 'links.sat.rate=4 Mbps'"
        )
    try:
        value = tomllib.loads(f"value = {raw}")["value"]
    except tomllib.TOMLDecodeError:
        value = raw.strip()
    except RecursionError:
        raise BadInput(
            f"bad --set {key}: the value is nested too deeply (arrays or inline tables)"
        ) from None
    return key, value


def load_scenario(file: Path, assignments: tuple[str, ...]) -> Any:
    """Load a scenario file and apply --set assignments (not yet validated)."""
    from satcc import scenario as scenario_module
    from satcc.paths import unreachable

    why = unreachable(file)
    if why is not None:
        raise BadInput(f"{file}: {why}")
    if not file.is_file():
        raise BadInput(f"{file}: not a file")
    with input_errors():
        scenario = scenario_module.load(file)
        for text in assignments:
            key, value = parse_assignment(text)
            refuse_unknown_table(scenario, key, "--set")
            scenario.set(key, value)
    return scenario


def refuse_unknown_table(scenario: Any, key: str, option: str, whole: bool = True) -> None:
    """`option`'s KEY must go through tables the scenario has: without this,
    --set 'links.nosuch.rate=...' would create the link and the file would be
    blamed for the keys it lacks (Scenario.unknown_table). `whole`: the
    option can set a new entry whole (run's --set; a sweep's takes lists)."""
    unknown = scenario.unknown_table(key)
    if unknown is not None:
        raise BadInput(f"bad {option} {key}: {unknown.message(option, whole=whole)}")


SET_HELP = (
    "Override one scenario value before validation, e.g. --set 'links.sat.rate=4 Mbps'. "
    "VALUE is read as TOML when it is valid TOML (3, 0.5, true, [..], {..}), else as text. "
    "KEY goes through entries the scenario has; a new one is set whole, e.g. "
    "--set 'nodes.relay={}'. Repeatable."
)
