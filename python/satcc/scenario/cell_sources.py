"""[cell_sources.NAME]: voice, video or data cell sources under the proactive-atm thesis's control.

`count` identical sources, each its own VC from `from` to `to`, sending
53-byte cells: voice talks at 64 kb/s half the time inside sessions, video
alternates between 512 and 192 kb/s inside sessions, data sends 1 Mbyte
files at 0.5 Mb/s (the thesis, section 6.2.1). Rates are those of the
cells' payload (48 bytes a cell), as the thesis counts them: a 64 kb/s
voice source sends 166.7 cells/s. Each source starts every session (or
file) at half its nominal rate and slows down when a switch's congestion
detector ([links.NAME.congestion]) tells it to (`rate_control`); a
`contract` puts its VC under a peak-rate controller and a leaky bucket at
the input of the link `at` (the network access). Every cell's delay is
recorded, and the share of cells later than their VC's minimum by more
than `jitter_bound` is counted exactly.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

from pydantic import Field

from satcc.units import format_rate, parse_time

from .description import NOT_DESCRIBED, Desc
from .errors import quote
from .routing import PathRequest, walk
from .tables import Section, _Table
from .values import (
    MAX_RATE_BPS,
    Bool,
    Fraction,
    NonNegativeRate,
    NonNegativeTime,
    NonNegativeU32,
    PositiveNumber,
    PositiveRate,
    PositiveSize,
    PositiveTime,
    PositiveU32,
    Str,
    ZeroOne,
    choice,
    list_of,
    optional,
    optional_table,
    table,
)

if TYPE_CHECKING:
    from .validation import Checks

# Bits of payload in a cell: the thesis's rates count these.
PAYLOAD_BITS = 48 * 8
CELL_BYTES = 53
KINDS = ("voice", "video", "data")
# Section 6.2.1's sources.
SESSION_DEFAULTS = {
    "voice": {"rates": [64e3, 0.0]},
    "video": {"rates": [512e3, 192e3]},
}


class Policy(_Table):
    """[cell_sources.NAME.policy]: the rate control of section 5.3 and the
    slow start of section 6.2.1.4, as fractions of the nominal rate."""

    slow_start_initial: Fraction = 0.5
    slow_start_step: Fraction = 0.1
    increase_step: Fraction = 0.02
    rate_cut: Fraction = 0.2
    discard_cut: Fraction = 0.5
    # Defaults: 0.5 and 1 for voice and video, 0 and none for data.
    floor: optional(Fraction) = None
    ceiling: optional(PositiveNumber) = None


class Contract(_Table):
    """[cell_sources.NAME.contract]: the VC's policing at the access link
    `at` (section 3): a peak-rate controller when `peak_rate` is given, a
    leaky bucket when `drain_rate` is."""

    at: Str
    peak_rate: optional(PositiveRate) = None
    prc_queue: Annotated[PositiveU32, NOT_DESCRIBED] = 512
    # What a full controller does: voice and video drop the arrival, data
    # sends the head on marked CLP = 1 (the default by type).
    prc_overflow: Annotated[optional(choice("drop", "mark_head")), NOT_DESCRIBED] = None
    drain_rate: optional(PositiveRate) = None
    bucket_depth: Annotated[PositiveNumber, NOT_DESCRIBED] = 200.0
    bucket_queue: Annotated[NonNegativeU32, NOT_DESCRIBED] = 0
    non_conforming: Annotated[choice("mark", "drop"), NOT_DESCRIBED] = "mark"
    stepped_tokens: Annotated[Bool, NOT_DESCRIBED] = True


class CellSources(_Table):
    """A group of cell sources, [cell_sources.NAME]."""

    type: choice(*KINDS)
    from_: Annotated[Str, Desc("src_node")] = Field(alias="from")
    to: Annotated[Str, Desc("dst_node")]
    count: PositiveU32 = 1
    # 0 (real time) for voice and video, 1 for data, unless given.
    priority: Annotated[optional(ZeroOne), NOT_DESCRIBED] = None
    # Adapt the rate to congestion notifications (the thesis's cases 2-3).
    rate_control: Annotated[Bool, NOT_DESCRIBED] = True
    # T_rt: the round-trip propagation delay of the routed path if left out.
    rtt: Annotated[optional(PositiveTime), NOT_DESCRIBED] = None
    jitter_bound: PositiveTime = parse_time("20 ms")
    # Voice and video: the two rates inside a session, their mean holding
    # times, and the mean session and gap.
    rates: Annotated[optional(list_of(NonNegativeRate)), NOT_DESCRIBED] = None
    holding: Annotated[optional(list_of(PositiveTime)), NOT_DESCRIBED] = None
    session: Annotated[PositiveTime, NOT_DESCRIBED] = parse_time("15 s")
    # Zero: sessions back to back, the source always in one.
    gap: Annotated[NonNegativeTime, NOT_DESCRIBED] = parse_time("15 s")
    # What the rates, the file size and the contract's rates count: the
    # cells' 48-byte payload, or whole 53-byte cells (a 64 kb/s voice source
    # then sends 150.9 cells/s, not 166.7).
    rate_basis: Annotated[choice("payload", "cell"), NOT_DESCRIBED] = "payload"
    # Data: the file, its nominal rate, the mean time between starts.
    file_size: Annotated[PositiveSize, NOT_DESCRIBED] = 1_000_000
    nominal_rate: Annotated[PositiveRate, NOT_DESCRIBED] = 500e3
    interval: Annotated[PositiveTime, NOT_DESCRIBED] = parse_time("16 s")
    policy: Annotated[table(Policy), NOT_DESCRIBED] = Field(default_factory=Policy)
    contract: Annotated[optional_table(Contract), NOT_DESCRIBED] = None


_SESSION_KEYS = ("rates", "holding", "session", "gap")
_FILE_KEYS = ("file_size", "nominal_rate", "interval")


def check_cell_sources(checks: Checks, path: tuple, name: str, group: CellSources) -> None:
    checks.require_ends(path, group, "a group of cell sources")
    data = group.type == "data"
    for key in _SESSION_KEYS if data else _FILE_KEYS:
        if key in group.model_fields_set:
            checks.refuse((*path, key), f'is not used by type = "{group.type}"')
    if group.rates is not None and len(group.rates) != 2:
        checks.refuse(
            (*path, "rates"), f"expected the two rates of a session, got {len(group.rates)}"
        )
    if group.rates is not None and not any(group.rates):
        checks.refuse((*path, "rates"), "a session needs a positive rate")
    rates = [("rates", r) for r in group.rates or ()] + [("nominal_rate", group.nominal_rate)]
    if group.contract is not None:
        rates += [
            (f"contract.{k}", getattr(group.contract, k)) for k in ("peak_rate", "drain_rate")
        ]
    for key, rate in rates:
        if rate is not None and rate > MAX_RATE_BPS:
            # Cells a few picoseconds apart: the clock's tick.
            checks.refuse(
                (*path, *key.split(".")), f"rate above {format_rate(MAX_RATE_BPS)} is not supported"
            )
    if group.holding is not None and len(group.holding) != 2:
        checks.refuse(
            (*path, "holding"), f"expected a mean time for each rate, got {len(group.holding)}"
        )
    floor, ceiling = _bounds(group)
    if ceiling is not None and ceiling < floor:
        checks.refuse((*path, "policy", "ceiling"), f"must be at least the floor ({floor:g})")
    c = group.contract
    if c is not None:
        if checks.require((*path, "contract", "at"), "links", c.at):
            link = checks.entries("links")[c.at]
            if link.erica is not None or link.explicit_rate is not None:
                checks.refuse(
                    (*path, "contract", "at"),
                    f"link {quote(c.at)} runs erica or explicit_rate: policing needs its port",
                )
        if c.peak_rate is None and c.drain_rate is None:
            checks.refuse(
                (*path, "contract"),
                "a contract needs a peak_rate (controller), a drain_rate (leaky bucket) or both",
            )
        if c.bucket_depth < 1:
            checks.refuse((*path, "contract", "bucket_depth"), "at least one cell")


def _bounds(group: CellSources) -> tuple[float, float | None]:
    real_time = group.type != "data"
    floor = group.policy.floor if group.policy.floor is not None else (0.5 if real_time else 0.0)
    ceiling = group.policy.ceiling
    if ceiling is None and real_time:
        ceiling = 1.0
    return floor, ceiling


def cell_sources_paths(name: str, group: CellSources, doc) -> list[PathRequest]:
    what = f"cell_sources {quote(name)}"
    return [
        PathRequest(group.from_, group.to, ("cell_sources", name, "to"), f"cells of {what}", 53),
        PathRequest(
            group.to, group.from_, ("cell_sources", name, "from"), f"notifications to {what}", 53
        ),
    ]


def check_contract_on_path(
    checks: Checks, path: tuple, name: str, group: CellSources, routes: dict, ends: dict
) -> None:
    """A contract polices the group's cells where they pass: at a link off
    their path it would police nothing while the summary counted the VCs
    as policed."""
    c = group.contract
    if c is None:
        return
    cells = cell_sources_paths(name, group, None)[0]
    crossed = list(walk(routes, ends, cells))
    if c.at not in crossed:
        checks.refuse(
            (*path, "contract", "at"),
            f"link {quote(c.at)} is not on the path of the cells of cell_sources "
            f"{quote(name)} ({group.from_} to {group.to} over {', '.join(crossed)}): "
            "a contract there would police nothing",
        )


# Measured: 130 MB for 100 000 sources (RSS over a run of 1 ms), rounded up.
SOURCE_BYTES = 1400
# Each received cell's delay, end to end and from the access policer,
# kept for the exact jitter counts.
DELAY_BYTES = 16


def cell_sources_memory(checks: Checks, name: str, group: CellSources) -> list:
    """The sources themselves, and a delay per cell received: no more cells
    than the group's peak (voice, video) or the fastest link can carry."""
    fastest = max(
        (max(link.rates(), default=0.0) for link in checks.entries("links").values()), default=0.0
    )
    peak = group.count * max(group.rates) if group.rates else fastest
    cells = min(peak, fastest) * checks.doc.run.duration * 1e-12 / (CELL_BYTES * 8)
    what = f"cell_sources {quote(name)} ({group.count:,} sources, up to {cells:,.0f} cells)"
    need = group.count * SOURCE_BYTES + cells * DELAY_BYTES
    return [(need, ("cell_sources", name, "count"), what, "fewer sources or a shorter run")]


def _round_trip_ps(group: CellSources, resolved: Any) -> int:
    """The propagation delay of the routed path there and back."""
    ends = {n: (link.from_, link.to) for n, link in resolved.links.items()}
    total = 0
    for request in cell_sources_paths("", group, None):
        for link in walk(resolved.routes, ends, request):
            total += resolved.links[link].delay
    return total


def _cells_per_s(bps: float, basis: str) -> float:
    return bps / (PAYLOAD_BITS if basis == "payload" else CELL_BYTES * 8)


def _as_payload(bps: float, basis: str) -> float:
    """A rate in the core's unit, payload bits/s: a rate that counts whole
    cells sends the same cells as 48/53 of it counted in payload."""
    return bps if basis == "payload" else bps * PAYLOAD_BITS / (CELL_BYTES * 8)


def describe_cell_sources(name: str, group: CellSources, resolved: Any = None) -> dict:
    data = group.type == "data"
    basis = group.rate_basis
    if data:
        # The core cuts a file into 48-byte payloads: counted in whole cells
        # it has as many of them as 53-byte cells fill the file.
        size = group.file_size
        if basis == "cell":
            size = -(-size // CELL_BYTES) * (PAYLOAD_BITS // 8)
        traffic = {
            "kind": "files",
            "file_bytes": size,
            "nominal_bps": _as_payload(group.nominal_rate, basis),
            "interval_ps": group.interval,
        }
    else:
        rates = group.rates if group.rates is not None else SESSION_DEFAULTS[group.type]["rates"]
        holding = group.holding if group.holding is not None else [parse_time("500 ms")] * 2
        traffic = {
            "kind": "sessions",
            "rates_bps": [_as_payload(r, basis) for r in rates],
            "holding_ps": list(holding),
            "session_ps": group.session,
            "gap_ps": group.gap,
        }
    p = group.policy
    floor, ceiling = _bounds(group)
    rtt = group.rtt if group.rtt is not None else _round_trip_ps(group, resolved)
    entry: dict[str, Any] = {
        "name": name,
        "src_node": group.from_,
        "dst_node": group.to,
        "count": group.count,
        "priority": int(group.priority) if group.priority is not None else int(data),
        "traffic": traffic,
        "policy": {
            "rtt_ps": rtt,
            "adaptive": group.rate_control,
            "slow_start_initial": p.slow_start_initial,
            "slow_start_step": p.slow_start_step,
            "increase_step": p.increase_step,
            "rate_cut": p.rate_cut,
            "discard_cut": p.discard_cut,
            "floor": floor,
            "ceiling": ceiling,
        },
        "jitter_bound_ps": group.jitter_bound,
    }
    c = group.contract
    if c is not None:
        contract: dict[str, Any] = {}
        if c.peak_rate is not None:
            overflow = c.prc_overflow or ("mark_head" if data else "drop")
            contract["peak_rate"] = {
                "peak_cells_per_s": _cells_per_s(c.peak_rate, basis),
                "queue_cells": c.prc_queue,
                "overflow": overflow,
            }
        if c.drain_rate is not None:
            contract["leaky_bucket"] = {
                "drain_cells_per_s": _cells_per_s(c.drain_rate, basis),
                "depth_cells": c.bucket_depth,
                "queue_cells": c.bucket_queue,
                "non_conforming": c.non_conforming,
                "stepped": c.stepped_tokens,
            }
        entry["contract"] = contract
        entry["police_at"] = c.at
    return entry


SECTION = Section(
    key="cell_sources",
    table=CellSources,
    noun="group of cell sources",
    plural_noun="groups of cell sources",
    description_key="cell_sources",
    check=check_cell_sources,
    describe=describe_cell_sources,
    omit_when_empty=True,
    paths=cell_sources_paths,
    check_routed=check_contract_on_path,
    memory=cell_sources_memory,
)
