"""[sources.NAME]: open-loop traffic (CBR, Poisson, ON-OFF, MPEG-2 VBR video) towards a sink.

Each source sends from a node to a sink, whose node routing must reach.
MPEG-2 video is the VBR source of the abr-lrd-vbr study: 53-byte ATM cells
at a rate drawn from fractional Gaussian noise per MPCR interval.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from pydantic import Field

from satcc.units import format_rate, format_time, parse_rate, parse_time

from .description import Desc
from .errors import quote
from .routing import PathRequest
from .tables import Section, _Table
from .values import (
    MAX_DATAGRAM,
    MAX_RATE_BPS,
    Hurst,
    NonNegativeRate,
    NonNegativeTime,
    PositiveRate,
    PositiveSize,
    PositiveTime,
    Str,
    ZeroOne,
    bytes_text,
    choice,
    optional,
)

if TYPE_CHECKING:
    from .validation import Checks

_SOURCE_KEYS = (
    "type",
    "from",
    "to",
    "rate",
    "packet_size",
    "size_distribution",
    "start",
    "stop",
    "priority",
    "clp",
)


class Source(_Table):
    VARIANTS = {
        "cbr": (_SOURCE_KEYS, ()),
        "poisson": (_SOURCE_KEYS, ()),
        "onoff": ((*_SOURCE_KEYS, "on_time", "off_time", "periods"), ("on_time", "off_time")),
        "mpeg2": (
            (
                *(k for k in _SOURCE_KEYS if k not in ("size_distribution", "packet_size")),
                "std",
                "hurst",
                "peak",
                "mpcr_min",
                "mpcr_max",
            ),
            ("std",),
        ),
    }

    type: Annotated[choice(*VARIANTS), Desc("kind")]
    from_: Annotated[Str, Desc("node")] = Field(alias="from")
    to: Annotated[Str, Desc("sink")]
    rate: PositiveRate
    # An MPEG-2 source sends ATM cells, of constant size.
    packet_size: Annotated[PositiveSize, Desc("packet_bytes", if_unused=53)] = 1000
    size_distribution: Annotated[
        choice("constant", "exponential"), Desc("size_dist", if_unused="constant")
    ] = "constant"
    start: NonNegativeTime = 0
    stop: optional(NonNegativeTime) = None
    priority: ZeroOne = 0
    clp: ZeroOne = 0
    # The ON-OFF keys are null for the other types.
    on_time: Annotated[optional(PositiveTime), Desc("on_ps", if_unused=None)] = None
    off_time: Annotated[optional(PositiveTime), Desc("off_ps", if_unused=None)] = None
    periods: Annotated[choice("exponential", "deterministic"), Desc(if_unused=None)] = "exponential"
    std: optional(NonNegativeRate) = None
    hurst: Hurst = 0.8
    peak: PositiveRate = parse_rate("15 Mbps")
    mpcr_min: PositiveTime = parse_time("20 ms")
    mpcr_max: PositiveTime = parse_time("100 ms")


def check_source(checks: Checks, path: tuple, name: str, source: Source) -> None:
    checks.require((*path, "from"), "nodes", source.from_)
    if source.type == "cbr" and source.size_distribution != "constant":
        checks.refuse(
            (*path, "size_distribution"),
            'a CBR source sends constant sizes: "exponential" is for poisson and onoff',
        )
    if source.rate > MAX_RATE_BPS:
        checks.refuse((*path, "rate"), f"rate above {format_rate(MAX_RATE_BPS)} is not supported")
    if source.packet_size > MAX_DATAGRAM:
        checks.refuse(
            (*path, "packet_size"),
            f"packet_size must fit an IP datagram ({bytes_text(MAX_DATAGRAM)}), "
            f"got {bytes_text(source.packet_size)}",
        )
    checks.require((*path, "to"), "sinks", source.to)
    if source.type == "mpeg2":
        _check_mpeg2(checks, path, source)
    _check_packet_count(checks, path, source)
    if source.stop is not None and source.stop <= source.start:
        checks.refuse(
            (*path, "stop"),
            f'stop must be after start ("{format_time(source.start)}"), '
            f'got "{format_time(source.stop)}"',
        )


# About a day of simulation at ten million events per second.
MAX_PACKETS = 1e12


def _packet_time_ps(source: Source) -> float:
    size = 53 if source.type == "mpeg2" else source.packet_size
    return size * 8 / source.rate * 1e12


def _check_packet_count(checks: Checks, path: tuple, source: Source) -> None:
    """Refuses a source that would need an absurd number of events."""
    end = checks.doc.run.duration if source.stop is None else source.stop
    packets = max(end - source.start, 0) / _packet_time_ps(source)
    if packets > MAX_PACKETS:
        checks.refuse(
            (*path, "rate"),
            f"{packets:.3g} packets in the run: at most {MAX_PACKETS:g} "
            "(a lower rate, larger packets or a shorter run)",
        )


def _check_mpeg2(checks: Checks, path: tuple, source: Source) -> None:
    if source.mpcr_min > source.mpcr_max:
        checks.refuse(
            (*path, "mpcr_min"),
            f'mpcr_min must not exceed mpcr_max ("{format_time(source.mpcr_max)}"), '
            f'got "{format_time(source.mpcr_min)}"',
        )
    if source.peak > MAX_RATE_BPS:
        # Drawn rates reach the peak: cells under a picosecond apart.
        checks.refuse((*path, "peak"), f"rate above {format_rate(MAX_RATE_BPS)} is not supported")
    elif source.rate > source.peak:
        checks.refuse(
            (*path, "rate"),
            f'the mean rate exceeds the peak ("{format_rate(source.peak)}") above which '
            f"rates are skipped",
        )


def source_paths(name: str, source: Source, doc) -> list[PathRequest]:
    sink = source.to
    # With exponential sizes the mean: a queue below it drops most packets.
    size = 53 if source.type == "mpeg2" else source.packet_size
    return [
        PathRequest(
            source.from_,
            doc.sinks[sink].node,
            ("sources", name, "to"),
            f"sink {quote(sink)}",
            size,
            source.priority,
        )
    ]


SECTION = Section(
    key="sources",
    table=Source,
    noun="source",
    description_key="sources",
    check=check_source,
    paths=source_paths,
    probe_target="source",
)
