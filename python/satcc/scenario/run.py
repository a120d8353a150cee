"""[run]: how long the simulation runs, its seed, the probes' sampling period, when to stop.

The only required table. Its keys are the top level of the normalised
description; the name and seed there are resolved by validation (the
default name comes from the file, and a seed given to validate() wins).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, ClassVar

from satcc.units import parse_time

from .description import NOT_DESCRIBED, UNLESS_DEFAULT, describe_table
from .errors import quote, refusal
from .tables import Section, _Table
from .values import (
    Bool,
    NonNegativeInt,
    PositiveInt,
    PositiveTime,
    RunName,
    Str,
    optional,
    optional_table,
)

if TYPE_CHECKING:
    from .validation import Checks, Resolved

# Beyond this many samples per probe the series run out of memory.
MAX_SAMPLES = 10_000_000


class StopWhen(_Table):
    """Either { sink, received_packets } or { tcp, completed }."""

    FORMS: ClassVar[dict[str, tuple[str, str]]] = {
        "sink": ("sink", "received_packets"),
        "tcp": ("tcp", "completed"),
    }

    # The description holds the two keys of the form given.
    sink: Annotated[optional(Str), UNLESS_DEFAULT] = None
    received_packets: Annotated[optional(PositiveInt), UNLESS_DEFAULT] = None
    tcp: Annotated[optional(Str), UNLESS_DEFAULT] = None
    completed: Annotated[optional(Bool), UNLESS_DEFAULT] = None

    @classmethod
    def check_table(cls, data: object) -> object:
        data = super().check_table(data)
        if "sink" in data and "tcp" in data:
            raise refusal(
                "a condition names either a sink (with received_packets) or a tcp "
                "connection (with completed), not both",
                "tcp",
            )
        # The naming key decides the form; a lone "completed" still means tcp.
        if "tcp" in data or ("sink" not in data and "completed" in data):
            form = "tcp"
        else:
            form = "sink"
        allowed = cls.FORMS[form]
        for key in data:
            if key not in allowed:
                other = next(name for name, keys in cls.FORMS.items() if key in keys)
                raise refusal(
                    f'"{key}" belongs to a {other} condition; a {form} condition takes '
                    f"{' and '.join(allowed)}",
                    key,
                )
        for key in allowed:
            if key not in data:
                raise refusal("missing required key", key)
        return data


class Run(_Table):
    # The description's name and seed are resolved by validation: the name
    # defaults to the file's stem, and a seed given to validate() wins.
    name: Annotated[optional(RunName), NOT_DESCRIBED] = None
    duration: PositiveTime
    seed: Annotated[NonNegativeInt, NOT_DESCRIBED] = 1
    sample_interval: PositiveTime = parse_time("100 ms")
    max_events: optional(PositiveInt) = None
    stop_when: optional_table(StopWhen) = None


def check_run(checks: Checks, path: tuple, name: str, run: Run) -> None:
    if checks.doc.probes and run.duration // run.sample_interval > MAX_SAMPLES:
        checks.refuse(
            (*path, "sample_interval"),
            f"{run.duration // run.sample_interval:,} samples per probe: at most "
            f"{MAX_SAMPLES:,} (a longer sample_interval, or a shorter duration)",
        )
    if run.stop_when is not None:
        _check_stop_when(checks, (*path, "stop_when"), run.stop_when)


def _check_stop_when(checks: Checks, path: tuple, stop_when: StopWhen) -> None:
    if stop_when.sink is not None:
        checks.require((*path, "sink"), "sinks", stop_when.sink)
        return
    known = checks.require((*path, "tcp"), "tcp", stop_when.tcp)
    if not stop_when.completed:
        checks.refuse(
            (*path, "completed"),
            "completed = false is no condition: write completed = true, or leave stop_when out",
        )
    elif known and checks.doc.tcp[stop_when.tcp].app.unlimited:
        app = checks.doc.tcp[stop_when.tcp].app
        what = "sends unlimited data (no size)" if app.type == "bulk" else "has no count"
        checks.refuse(
            (*path, "completed"),
            f"tcp connection {quote(stop_when.tcp)} never completes: "
            f'its app (type = "{app.type}") {what}',
        )


def describe_run(name: str, run: Run, resolved: Resolved) -> dict:
    return {"name": resolved.name, "seed": resolved.seed, **describe_table(run)}


SECTION = Section(
    key="run",
    table=Run,
    noun="run",
    description_key=None,
    check=check_run,
    describe=describe_run,
    named=False,
)
