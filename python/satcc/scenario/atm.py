"""ATM sub-tables: ERICA+ at a switch port, ABR and UBR virtual circuits under a connection.

ATM has no top-level table of its own: it is switched on per link
([links.NAME.erica]) and per connection or exchange ([tcp.NAME.abr],
[tcp.NAME.ubr], [udp_rr.NAME.ubr]). Defaults are TM 4.0's and the
abr-lrd-vbr study's (docs/scenario.md lists them with their sources).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from satcc.units import format_rate, parse_rate, parse_time

from .description import UNLESS_DEFAULT, Desc
from .errors import quote
from .routing import PathRequest, walk
from .tables import _Table
from .values import (
    MAX_RATE_BPS,
    AboveOne,
    Bool,
    Fraction,
    NonNegativeNumber,
    NonNegativeRate,
    NonNegativeTime,
    PositiveInt,
    PositiveRate,
    PositiveTime,
    PositiveU32,
    Str,
    UpToOne,
    choice,
    optional,
)

if TYPE_CHECKING:
    from .validation import Checks

# RFC 2684 multiplexing: an LLC/SNAP header before each packet, or none; or
# LAN emulation's 802.3 data frame (LANE v1.0: LE header and MAC header).
Encapsulation = choice("llc_snap", "vc_mux", "lane")


class Erica(_Table):
    """ERICA+ at a switch output port, [links.NAME.erica] (REFERENCE section 1).

    Defaults are the abr-lrd-vbr study's: 500 cells or 5 ms, T0 = 500 us,
    a = 1.15, b = 1.05, QDLF = 0.5, and no averaging across intervals.
    The averaging keys follow Kalyanaraman's dissertation (section 6.10-6.11
    and the switch pseudo-code of its appendix): z_alpha averages the load
    factor ("method 1"), rate_alpha the input and capacity it is made of
    ("method 2"), active_decay the number of active VCs; ccr_alpha averages
    each VC's CCR. The keys added after the first release are left out of
    the description at their defaults, so existing run keys do not change."""

    interval_cells: PositiveInt = 500
    interval: PositiveTime = parse_time("5 ms")
    t0: NonNegativeTime = parse_time("500 us")
    a: AboveOne = 1.15
    b: AboveOne = 1.05
    qdlf: Fraction = 0.5
    delta: NonNegativeNumber = 0.1
    z_alpha: UpToOne = 1.0
    rate_alpha: Annotated[UpToOne, UNLESS_DEFAULT] = 1.0
    active_decay: Annotated[Fraction, UNLESS_DEFAULT] = 0.0
    ccr: choice("rm_field", "measured") = "rm_field"
    ccr_alpha: Annotated[UpToOne, UNLESS_DEFAULT] = 1.0
    bidirectional_counting: Bool = False


class Abr(_Table):
    """ABR VCs under a TCP connection, [tcp.NAME.abr] (TM 4.0 section 5.10).

    Rates are cell line rates (53 bytes per cell); the other defaults are
    TM 4.0's, with TBE at its maximum so the CRM back-off of source rule 6
    never throttles a long-delay path."""

    pcr: PositiveRate = parse_rate("149.76 Mbps")
    mcr: NonNegativeRate = 0.0
    icr: Annotated[optional(PositiveRate), Desc(compute=lambda abr: abr.initial_rate)] = None
    rif: Fraction = 1 / 16
    rdf: Fraction = 1 / 16
    nrm: PositiveU32 = 32
    mrm: PositiveU32 = 2
    trm: PositiveTime = parse_time("100 ms")
    cdf: Fraction = 1 / 16
    tbe: PositiveInt = 2**24 - 1
    crm: optional(PositiveInt) = None
    adtf: PositiveTime = parse_time("500 ms")
    tcr: PositiveRate = parse_rate("4240 bps")
    encapsulation: Encapsulation = "llc_snap"

    @property
    def initial_rate(self) -> float:
        """ICR, by default PCR/10 (at least MCR): TM 4.0 leaves it to negotiation."""
        return self.icr if self.icr is not None else max(self.pcr / 10, self.mcr)


class Ubr(_Table):
    """UBR VCs under a connection, [tcp.NAME.ubr]: classical IP over ATM
    (AAL5, RFC 1577) with no rate control; the links pace the cells.

    A host may sit on a LAN behind an ATM edge device (a LAN emulation
    bridge): `from_edge` / `to_edge` name that node, where the VCs then end;
    the packets cross the LAN as packets."""

    encapsulation: Encapsulation = "llc_snap"
    from_edge: Annotated[optional(Str), UNLESS_DEFAULT] = None
    to_edge: Annotated[optional(Str), UNLESS_DEFAULT] = None

    def ends(self, entry) -> tuple[str, str]:
        """The VCs' end systems: each host, or the edge device it sits behind."""
        return (self.from_edge or entry.from_, self.to_edge or entry.to)


# The CPCS-SDU length of an AAL5 frame is 16 bits (ITU-T I.363.5); the
# LLC/SNAP header of RFC 1577 takes 8 of them.
MAX_AAL5_SDU = 65_535
ENCAPSULATION_BYTES = {"llc_snap": 8, "vc_mux": 0, "lane": 16}
CELL_BYTES = 53


def max_aal5_packet(vcs: Abr | Ubr) -> int:
    """The largest IP packet one AAL5 frame can carry with this encapsulation."""
    return MAX_AAL5_SDU - ENCAPSULATION_BYTES[vcs.encapsulation]


def check_abr(checks: Checks, path: tuple, abr: Abr) -> None:
    icr = abr.initial_rate
    if abr.pcr > MAX_RATE_BPS:
        checks.refuse((*path, "pcr"), f"rate above {format_rate(MAX_RATE_BPS)} is not supported")
    if abr.tcr > abr.pcr:
        # TCR paces out-of-rate RM cells below it; above ~1e15 cells/s their
        # spacing would round to 0 ps.
        checks.refuse(
            (*path, "tcr"),
            f'tcr must not exceed pcr ("{format_rate(abr.pcr)}"), got "{format_rate(abr.tcr)}"',
        )
    if abr.mcr > abr.pcr:
        checks.refuse(
            (*path, "mcr"),
            f'mcr must not exceed pcr ("{format_rate(abr.pcr)}"), got "{format_rate(abr.mcr)}"',
        )
    elif not abr.mcr <= icr <= abr.pcr:
        checks.refuse(
            (*path, "icr"),
            f'icr must be between mcr ("{format_rate(abr.mcr)}") and pcr '
            f'("{format_rate(abr.pcr)}"), got "{format_rate(icr)}"',
        )
    if abr.nrm < 2:
        checks.refuse((*path, "nrm"), f"nrm must be at least 2 cells, got {abr.nrm}")


# ---------------------------------------------------------------------------
# UBR VCs ending at edge devices.


def check_ubr(checks: Checks, path: tuple, entry, ubr: Ubr) -> None:
    """The edge devices are nodes, and the VCs join two different ones."""
    known = True
    for key in ("from_edge", "to_edge"):
        edge = getattr(ubr, key)
        if edge is not None:
            known = checks.require((*path, key), "nodes", edge) and known
    start, end = ubr.ends(entry)
    if known and (ubr.from_edge or ubr.to_edge) and start == end:
        key = "to_edge" if ubr.to_edge is not None else "from_edge"
        checks.refuse((*path, key), f"the VCs would start and end at the same node ({quote(end)})")


def ubr_paths(
    section: str, name: str, entry, purposes: tuple[str, str], packets: tuple[int, int]
) -> list[PathRequest]:
    """The paths of an exchange over UBR VCs, each way: the packets from the
    host to its edge device, the cells between the VCs' ends, the packets
    from the far edge device to its host. Without edge devices, cells from
    host to host. `packets` are the largest packets each way."""
    ubr = entry.ubr
    hosts = (entry.from_, entry.to)
    ends = ubr.ends(entry)
    edge_keys = ("from_edge", "to_edge")
    requests = []
    for k in (0, 1):
        src, dst = hosts[k], hosts[1 - k]
        first, last = ends[k], ends[1 - k]
        purpose, size = purposes[k], packets[k]
        host_key = (section, name, "to" if k == 0 else "from")
        priority = getattr(entry, "priority", 0)
        if first != src:
            # The host sends towards the far host; the packets leave the
            # network at its edge device (checked by check_edge_routes).
            where = (section, name, "ubr", edge_keys[k])
            requests.append(PathRequest(src, dst, host_key, purpose, 0, priority))
            requests.append(PathRequest(src, first, where, purpose, size, priority))
        blame = (section, name, "ubr", edge_keys[1 - k]) if last != dst else host_key
        requests.append(PathRequest(first, last, blame, purpose, CELL_BYTES, priority))
        if last != dst:
            where = (section, name, "ubr", edge_keys[1 - k])
            requests.append(PathRequest(last, dst, where, purpose, size, priority))
    return requests


def check_edge_routes(checks: Checks, routes: dict, ends: dict) -> None:
    """A host behind an edge device must reach it on its way to the far
    host: its packets enter the VC there, and would otherwise cross the
    network as bare packets."""
    for section in ("tcp", "udp_rr"):
        for name, entry in sorted(checks.entries(section).items()):
            ubr = getattr(entry, "ubr", None)
            if ubr is None:
                continue
            hosts = (entry.from_, entry.to)
            for k, key in ((0, "from_edge"), (1, "to_edge")):
                edge = getattr(ubr, key)
                if edge is None or edge == hosts[k]:
                    continue
                request = PathRequest(hosts[k], hosts[1 - k], (), "")
                passed = [ends[link][1] for link in walk(routes, ends, request)]
                if edge not in passed:
                    checks.refuse(
                        (section, name, "ubr", key),
                        f"the route from {quote(hosts[k])} towards {quote(hosts[1 - k])} "
                        f"does not pass its edge device {quote(edge)}",
                    )
