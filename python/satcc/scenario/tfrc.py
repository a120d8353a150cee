"""[tfrc.NAME]: a TFRC media flow (RFC 5348, or TFRC-SP of RFC 4828) between two nodes.

A constant-rate media encoder fills a finite transmit buffer (overflow is
counted); the TFRC sender paces the buffer out at its allowed rate; the
receiver reports once per RTT back to the sender; a de-jitter point at the
receiver measures each packet's end-to-end delay (from generation) and
one-way delay (from sending), and with `tolerable_delay` counts packets too
late to play. `quick_start` asks RFC 4782 Quick-Start for a rate with the
first packet (satellite terminals with a QS agent decide on it,
[dvb_rcs.NAME.terminals.T.quick_start]). Like TCP, a flow needs a path
each way.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from pydantic import Field

from satcc.units import format_rate, parse_time

from .description import UNLESS_DEFAULT, Desc
from .errors import quote
from .routing import PathRequest, both_ways
from .tables import Section, _Table
from .values import (
    MAX_DATAGRAM,
    MAX_RATE_BPS,
    Bool,
    NonNegativeSize,
    NonNegativeTime,
    PositiveRate,
    PositiveSize,
    PositiveTime,
    PositiveU32,
    Str,
    bytes_text,
    choice,
    optional,
    table,
)

if TYPE_CHECKING:
    from .validation import Checks

# RFC 4782's lowest rate (§4.1: 40 kb/s × 2^N, N = 1..15; N = 0 asks for
# nothing): a request below 80 kb/s would round down to no request at all.
QS_LOWEST_BPS = 80_000.0


class Media(_Table):
    """[tfrc.NAME.media]: the encoder and its transmit buffer."""

    rate: PositiveRate
    buffer: Annotated[PositiveU32, Desc("buffer_packets")] = 1000
    # Runs to the end of the run when left out.
    duration: Annotated[optional(PositiveTime), UNLESS_DEFAULT] = None


class TfrcTransport(_Table):
    """The keys of a TFRC sender and receiver, shared by [tfrc.NAME] and
    [tfrc_arrivals.NAME]."""

    RENAMED = {"revision": "profile"}

    # Packet size on the wire, headers included (profile "ns2": ns-2's
    # packetSize_, to which header_size is added on the wire).
    packet_size: Annotated[PositiveSize, Desc("packet_bytes")]
    # Left out: 40 B (RFC profiles), 32 B (ns-2's headersize_).
    header_size: Annotated[optional(NonNegativeSize), Desc("header_bytes", omit_default=True)] = (
        None
    )
    small_packets: Bool = False
    # Whose rules: RFC 5348's, RFC 3448's start-up (one packet per RTT
    # after the first report), or ns-2.35's TFRC agents ("ns2").
    profile: choice("rfc5348", "rfc3448", "ns2") = "rfc5348"
    # Left out: 2 s (RFC profiles); under ns2 two packets at its initial
    # 300 B/s.
    initial_rto: Annotated[optional(PositiveTime), UNLESS_DEFAULT] = None
    t_mbi: PositiveTime = parse_time("64 s")
    feedback_size: Annotated[PositiveSize, Desc("feedback_bytes")] = 40
    quick_start: Annotated[optional(PositiveRate), UNLESS_DEFAULT] = None
    # ECN: data packets ECT(0); a CE mark counts as a loss for p.
    ecn: Annotated[Bool, UNLESS_DEFAULT] = False
    tolerable_delay: Annotated[optional(PositiveTime), UNLESS_DEFAULT] = None


class Tfrc(TfrcTransport):
    """A TFRC media flow, [tfrc.NAME]."""

    from_: Annotated[Str, Desc("src_node")] = Field(alias="from")
    to: Annotated[Str, Desc("dst_node")]
    start: NonNegativeTime = 0
    media: table(Media)
    # Every packet's E2ED and OWD against its generation time, as series.
    trace: Annotated[Bool, UNLESS_DEFAULT] = False


def check_tfrc(checks: Checks, path: tuple, name: str, flow: Tfrc) -> None:
    checks.require_ends(path, flow, "a flow")
    check_transport(checks, path, flow)


def check_transport(checks: Checks, path: tuple, flow: TfrcTransport) -> None:
    header = flow.header_size if flow.header_size is not None else 40
    if flow.profile != "ns2" and header >= flow.packet_size:
        checks.refuse(
            (*path, "header_size"),
            f"must be smaller than packet_size ({flow.packet_size} B), got {header} B",
        )
    if wire_size(flow) > MAX_DATAGRAM:
        what = "packet_size" if flow.profile != "ns2" else "packet_size + header_size"
        checks.refuse(
            (*path, "packet_size"),
            f"{what} must fit an IP datagram ({bytes_text(MAX_DATAGRAM)}), "
            f"got {bytes_text(wire_size(flow))}",
        )
    if flow.quick_start is not None and flow.quick_start < QS_LOWEST_BPS:
        checks.refuse(
            (*path, "quick_start"),
            f"RFC 4782's lowest rate is 80 kb/s (40 kb/s × 2^1), got {flow.quick_start:g} b/s",
        )
    if flow.ecn and flow.profile == "ns2":
        checks.refuse((*path, "ecn"), 'ECN is modelled under the RFC profiles only, not "ns2"')
    check_media(checks, (*path, "media"), flow.media)


def check_media(checks: Checks, path: tuple, media) -> None:
    """The encoder's rate within the clock's reach (a packet interval of
    whole picoseconds)."""
    if media.rate > MAX_RATE_BPS:
        checks.refuse((*path, "rate"), f"rate above {format_rate(MAX_RATE_BPS)} is not supported")


def wire_size(flow: TfrcTransport) -> int:
    """A data packet's size on the wire (ns2 adds its headers)."""
    if flow.profile == "ns2":
        return flow.packet_size + (flow.header_size if flow.header_size is not None else 32)
    return flow.packet_size


def tfrc_paths(name: str, flow: Tfrc, doc) -> list[PathRequest]:
    what = f"tfrc {quote(name)}"
    sizes = (wire_size(flow), flow.feedback_size)
    return both_ways("tfrc", name, flow, f"data of {what}", f"reports of {what}", sizes)


SECTION = Section(
    key="tfrc",
    table=Tfrc,
    noun="tfrc flow",
    description_key="tfrc",
    check=check_tfrc,
    omit_when_empty=True,
    paths=tfrc_paths,
    probe_target="tfrc",
)
