"""[tfrc_arrivals.NAME]: TFRC media flows that arrive during the run and end when done.

A class of media flows: flows arrive as a Poisson process at `rate` per
second, each between two different hosts drawn at random from `hosts`, each
with an encoder running for a time drawn from `duration` (the aggregated
scenario of the tfrc-dama paper, section 4 and Table II). Every flow is a
TFRC flow of its own with the class's keys (those of [tfrc.NAME]); it is
released once what it sent has arrived. The class reports its flows
together (tfrc_arrivals.NAME.* in the summary): packets generated, lost to
transmit-buffer overflow, late, the E2ED of all packets and of each flow's
first `window`; its start-up profile (E2ED percentiles against the time
since the flow started, in bins of `step`) and the window's E2ED
distribution are series of the run.
"""

from __future__ import annotations

from itertools import permutations
from typing import TYPE_CHECKING, Annotated

from satcc.units import format_time, parse_time

from .description import Desc
from .errors import quote
from .routing import PathRequest
from .tables import Section, _Table
from .tfrc import TfrcTransport, check_transport, wire_size
from .values import (
    NonNegativeTime,
    PositiveInt,
    PositiveNumber,
    PositiveRate,
    PositiveTime,
    PositiveU32,
    Str,
    choice,
    list_of,
    optional,
    table,
)

if TYPE_CHECKING:
    from .validation import Checks


class FlowDuration(_Table):
    """How long each flow's encoder runs: a constant time, or exponential."""

    VARIANTS = {
        "constant": (("type", "duration"), ("duration",)),
        "exponential": (("type", "mean"), ("mean",)),
    }

    type: Annotated[choice(*VARIANTS), Desc("kind")]
    duration: optional(PositiveTime) = None
    mean: optional(PositiveTime) = None


# Bins of a class's start-up profile (each a histogram in the core).
MAX_BINS = 100_000


class ArrivalMedia(_Table):
    """[tfrc_arrivals.NAME.media]: each flow's encoder and transmit buffer."""

    rate: PositiveRate
    buffer: Annotated[PositiveU32, Desc("buffer_packets")] = 1000


class TfrcArrivals(TfrcTransport):
    """A class of TFRC media flows arriving during the run, [tfrc_arrivals.NAME]."""

    hosts: list_of(Str)
    # Flows per second, Poisson.
    rate: Annotated[PositiveNumber, Desc("rate_per_s")]
    duration: table(FlowDuration)
    media: table(ArrivalMedia)
    start: NonNegativeTime = 0
    # No flow arrives at or after `stop`, nor after `max_flows` have.
    stop: optional(NonNegativeTime) = None
    max_flows: optional(PositiveInt) = None
    # The start-up figures: each flow's first `window`, in bins of `step`.
    window: PositiveTime = parse_time("30 s")
    step: PositiveTime = parse_time("500 ms")
    # How long a flow that lost packets waits for the rest after its last.
    linger: PositiveTime = parse_time("30 s")


def check_tfrc_arrivals(checks: Checks, path: tuple, name: str, arrivals: TfrcArrivals) -> None:
    check_transport(checks, path, arrivals)
    if len(arrivals.hosts) < 2:
        checks.refuse(
            (*path, "hosts"), f"a flow needs two different hosts, got {len(arrivals.hosts)}"
        )
    seen = set()
    for index, host in enumerate(arrivals.hosts):
        if host in seen:
            checks.refuse((*path, "hosts", index), f"host {quote(host)} is listed twice")
        seen.add(host)
        checks.require((*path, "hosts", index), "nodes", host)
    if arrivals.stop is not None and arrivals.stop <= arrivals.start:
        checks.refuse(
            (*path, "stop"),
            f'stop must be after start ("{format_time(arrivals.start)}"), '
            f'got "{format_time(arrivals.stop)}"',
        )
    if arrivals.step > arrivals.window:
        checks.refuse(
            (*path, "step"),
            f'step must not exceed window ("{format_time(arrivals.window)}"), '
            f'got "{format_time(arrivals.step)}"',
        )
    elif arrivals.window // arrivals.step > MAX_BINS:
        checks.refuse(
            (*path, "step"),
            f"the start-up figures would have {arrivals.window // arrivals.step:,} bins "
            f"(window / step); at most {MAX_BINS:,}: a step of at least "
            f'"{format_time(-(-arrivals.window // MAX_BINS))}"',
        )


def tfrc_arrivals_paths(name: str, arrivals: TfrcArrivals, doc) -> list[PathRequest]:
    """Every ordered pair of hosts, data one way and reports the other."""
    what = f"flows of tfrc_arrivals {quote(name)}"
    requests = []
    for src, dst in permutations(dict.fromkeys(arrivals.hosts), 2):
        blame = ("tfrc_arrivals", name, "hosts")
        requests.append(PathRequest(src, dst, blame, f"data of {what}", wire_size(arrivals)))
        requests.append(PathRequest(dst, src, blame, f"reports of {what}", arrivals.feedback_size))
    return requests


SECTION = Section(
    key="tfrc_arrivals",
    table=TfrcArrivals,
    noun="class of media arrivals",
    plural_noun="classes of media arrivals",
    description_key="tfrc_arrivals",
    check=check_tfrc_arrivals,
    omit_when_empty=True,
    paths=tfrc_arrivals_paths,
)
