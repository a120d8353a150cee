"""ATM sub-tables: ERICA+ at a switch port, ABR and UBR virtual circuits under a connection.

ATM has no top-level table of its own: it is switched on per link
([links.NAME.erica]) and per connection or exchange ([tcp.NAME.abr],
[tcp.NAME.ubr], [udp_rr.NAME.ubr]). Defaults are TM 4.0's and the
abr-lrd-vbr study's (docs/scenario.md lists them with their sources).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from satcc.units import format_rate, parse_rate, parse_time

from .description import Desc
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
    UpToOne,
    choice,
    optional,
)

if TYPE_CHECKING:
    from .validation import Checks

# RFC 2684 multiplexing: an LLC/SNAP header before each packet, or none.
Encapsulation = choice("llc_snap", "vc_mux")


class Erica(_Table):
    """ERICA+ at a switch output port, [links.NAME.erica] (REFERENCE section 1).

    Defaults are the abr-lrd-vbr study's: 500 cells or 5 ms, T0 = 500 us,
    a = 1.15, b = 1.05, QDLF = 0.5."""

    interval_cells: PositiveInt = 500
    interval: PositiveTime = parse_time("5 ms")
    t0: NonNegativeTime = parse_time("500 us")
    a: AboveOne = 1.15
    b: AboveOne = 1.05
    qdlf: Fraction = 0.5
    delta: NonNegativeNumber = 0.1
    z_alpha: UpToOne = 1.0
    ccr: choice("rm_field", "measured") = "rm_field"
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
    nrm: PositiveInt = 32
    mrm: PositiveInt = 2
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
    (AAL5, RFC 1577) with no rate control; the links pace the cells."""

    encapsulation: Encapsulation = "llc_snap"


# The CPCS-SDU length of an AAL5 frame is 16 bits (ITU-T I.363.5); the
# LLC/SNAP header of RFC 1577 takes 8 of them.
MAX_AAL5_SDU = 65_535
ENCAPSULATION_BYTES = {"llc_snap": 8, "vc_mux": 0}
# The core counts Nrm and Mrm in 32 bits.
MAX_U32 = 2**32 - 1


def max_aal5_packet(vcs: Abr | Ubr) -> int:
    """The largest IP packet one AAL5 frame can carry with this encapsulation."""
    return MAX_AAL5_SDU - ENCAPSULATION_BYTES[vcs.encapsulation]


def check_abr(checks: Checks, path: tuple, abr: Abr) -> None:
    icr = abr.initial_rate
    if abr.pcr > MAX_RATE_BPS:
        checks.refuse((*path, "pcr"), f"rate above {format_rate(MAX_RATE_BPS)} is not supported")
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
    for key in ("nrm", "mrm"):
        if getattr(abr, key) > MAX_U32:
            checks.refuse(
                (*path, key), f"{key} must be at most {MAX_U32:,}, got {getattr(abr, key):,}"
            )
