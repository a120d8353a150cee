"""[arrivals.NAME]: TCP transfers that arrive during the run and end when done.

A class of flows between two nodes: transfers arrive as a Poisson process at
`rate` per second, each of a size drawn from `size`, each a TCP connection
of its own (the same parameters as [tcp.NAME]) that starts when it arrives
and is released once its bytes are delivered and acknowledged. The class
reports its flows' figures together (arrivals.NAME.* in the summary):
flows started and completed, completion times, goodput per flow.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from pydantic import Field

from satcc.units import format_time

from .description import NOT_DESCRIBED, Desc
from .errors import quote
from .routing import PathRequest, both_ways
from .tables import Section, _Table
from .tcp import App, Tcp, check_tcp, segment_sizes
from .values import (
    AboveOne,
    NonNegativeTime,
    PositiveInt,
    PositiveNumber,
    PositiveSize,
    choice,
    optional,
    table,
)

if TYPE_CHECKING:
    from .validation import Checks


class FlowSize(_Table):
    """How many bytes each flow carries: a constant size, or a distribution."""

    VARIANTS = {
        "constant": (("type", "size"), ("size",)),
        "exponential": (("type", "mean"), ("mean",)),
        "pareto": (("type", "mean", "shape"), ("mean", "shape")),
    }

    type: Annotated[choice(*VARIANTS), Desc("kind")]
    size: Annotated[optional(PositiveSize), Desc("bytes")] = None
    mean: optional(PositiveSize) = None
    # A Pareto shape at or below 1 has no finite mean.
    shape: optional(AboveOne) = None


class Arrivals(Tcp):
    """A class of TCP flows arriving during the run, [arrivals.NAME]."""

    # Flows per second, Poisson.
    rate: Annotated[PositiveNumber, Desc("rate_per_s")]
    size: table(FlowSize)
    # No flow arrives at or after `stop`, nor after `max_flows` have.
    stop: optional(NonNegativeTime) = None
    max_flows: optional(PositiveInt) = None
    # Every flow is one bulk transfer of its size, over plain IP.
    app: Annotated[table(App), NOT_DESCRIBED] = Field(default_factory=lambda: App(type="bulk"))

    @classmethod
    def table_keys(cls) -> list[str]:
        # Every flow is a bulk transfer over plain IP: no application table,
        # no ATM VCs, and no rate control (the core's arrivals have no shaper).
        dropped = ("app", "abr", "ubr", "rate_control")
        return [key for key in super().table_keys() if key not in dropped]


def check_arrivals(checks: Checks, path: tuple, name: str, arrivals: Arrivals) -> None:
    check_tcp(checks, path, name, arrivals)
    if arrivals.stop is not None and arrivals.stop <= arrivals.start:
        checks.refuse(
            (*path, "stop"),
            f'stop must be after start ("{format_time(arrivals.start)}"), '
            f'got "{format_time(arrivals.stop)}"',
        )


def arrivals_paths(name: str, arrivals: Arrivals, doc) -> list[PathRequest]:
    what = f"flows of arrivals {quote(name)}"
    sizes = segment_sizes(arrivals)
    return both_ways("arrivals", name, arrivals, f"data of {what}", f"ACKs of {what}", sizes)


SECTION = Section(
    key="arrivals",
    table=Arrivals,
    noun="class of flow arrivals",
    plural_noun="classes of flow arrivals",
    description_key="arrivals",
    check=check_arrivals,
    omit_when_empty=True,
    paths=arrivals_paths,
)
