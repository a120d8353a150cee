"""[udp_rr.NAME]: netperf-style UDP request/response exchanges between two nodes.

The client sends a request datagram, the server answers at once, the next
request follows the answer. UDP recovers nothing, so a lost datagram is
given up after `timeout`. Like TCP, an exchange needs a path each way.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from pydantic import Field

from satcc.units import parse_time

from .atm import Ubr, check_ubr, max_aal5_packet, ubr_paths
from .description import UNLESS_DEFAULT, Desc
from .errors import quote
from .routing import PathRequest, both_ways
from .tables import Section, _Table
from .values import (
    MAX_DATAGRAM,
    NonNegativeInt,
    NonNegativeTime,
    PositiveInt,
    PositiveSize,
    PositiveTime,
    Str,
    bytes_text,
    optional,
    optional_table,
)

if TYPE_CHECKING:
    from .validation import Checks

# The 28 bytes of the UDP and IPv4 headers.
UDP_IP_BYTES = 28
MAX_PAYLOAD = MAX_DATAGRAM - UDP_IP_BYTES


class UdpRr(_Table):
    """A netperf-style UDP request/response exchange, [udp_rr.NAME]."""

    from_: Annotated[Str, Desc("src_node")] = Field(alias="from")
    to: Annotated[Str, Desc("dst_node")]
    request: PositiveSize = 1
    response: PositiveSize = 1
    count: optional(PositiveInt) = None
    warmup: NonNegativeInt = 0
    # A lost datagram is given up after this and the next request sent.
    timeout: PositiveTime = parse_time("2 s")
    start: NonNegativeTime = 0
    ubr: Annotated[optional_table(Ubr), UNLESS_DEFAULT] = None


def check_udp_rr(checks: Checks, path: tuple, name: str, udp: UdpRr) -> None:
    checks.require_ends(path, udp, "an exchange")
    if udp.ubr is not None:
        check_ubr(checks, (*path, "ubr"), udp, udp.ubr)
    # Over ATM a datagram must also fit one AAL5 frame with its encapsulation.
    largest = MAX_PAYLOAD if udp.ubr is None else max_aal5_packet(udp.ubr) - UDP_IP_BYTES
    for key in ("request", "response"):
        if getattr(udp, key) > largest:
            where = "one UDP datagram" if udp.ubr is None else "one AAL5 frame over ubr"
            checks.refuse(
                (*path, key),
                f"{key} must fit {where} ({bytes_text(largest)} of payload), "
                f"got {bytes_text(getattr(udp, key))}",
            )


def udp_rr_paths(name: str, udp: UdpRr, doc) -> list[PathRequest]:
    what = f"udp_rr {quote(name)}"
    purposes = (f"requests of {what}", f"responses of {what}")
    packets = (udp.request + UDP_IP_BYTES, udp.response + UDP_IP_BYTES)
    if udp.ubr is not None:
        return ubr_paths("udp_rr", name, udp, purposes, packets)
    return both_ways("udp_rr", name, udp, *purposes, packets)


SECTION = Section(
    key="udp_rr",
    table=UdpRr,
    noun="udp_rr exchange",
    description_key="udp_rr",
    check=check_udp_rr,
    omit_when_empty=True,
    paths=udp_rr_paths,
)
