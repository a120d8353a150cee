"""[traces.NAME]: a packet capture of a link, or an event-driven trace of a TCP sender.

`pcap = "LINK"` records every PDU the link puts on the wire, written after
the run as a pcap file with synthesised IPv4/TCP/UDP headers;
`tcp = "CONNECTION"` records the connection's sender (cwnd, ssthresh,
state, srtt, rto) at every change of what `events` names. Both are bounded
(max_packets and max_bytes, max_records): a trace that reaches its bound
stops recording and the run says so. docs/traces.md has the details.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from .description import NOT_DESCRIBED
from .errors import quote
from .tables import Section, _Table
from .values import Bool, PositiveInt, PositiveSize, Str, choice, list_of, optional

if TYPE_CHECKING:
    from .validation import Checks, Resolved

EVENTS = ("cwnd", "rtt")
# The keys each kind of trace takes besides its target key.
KIND_KEYS = {
    "pcap": ("payload", "max_packets", "max_bytes"),
    "tcp": ("events", "max_records"),
}
# The section a kind's target key names.
TARGET_SECTION = {"pcap": "links", "tcp": "tcp"}
# What one record costs in memory during the run: a PDU and its time for a
# capture, a row of values for a TCP trace.
RECORD_BYTES = {"pcap": 112, "tcp": 56}
# Smallest pcap file with one packet: its 24-byte header, a 16-byte record
# header and a 20-byte IPv4 header.
MIN_PCAP_BYTES = 60


class Trace(_Table):
    """One trace, [traces.NAME]: a pcap of a link or a trace of a TCP sender."""

    pcap: Annotated[optional(Str), NOT_DESCRIBED] = None
    tcp: Annotated[optional(Str), NOT_DESCRIBED] = None
    payload: Annotated[Bool, NOT_DESCRIBED] = False
    max_packets: Annotated[PositiveInt, NOT_DESCRIBED] = 1_000_000
    max_bytes: Annotated[PositiveSize, NOT_DESCRIBED] = 100_000_000
    events: Annotated[list_of(choice(*EVENTS)), NOT_DESCRIBED] = list(EVENTS)
    max_records: Annotated[PositiveInt, NOT_DESCRIBED] = 1_000_000


def trace_kind(trace: Trace) -> str | None:
    kinds = [kind for kind in KIND_KEYS if getattr(trace, kind) is not None]
    return kinds[0] if len(kinds) == 1 else None


def check_trace(checks: Checks, path: tuple, name: str, trace: Trace) -> None:
    kinds = [kind for kind in KIND_KEYS if getattr(trace, kind) is not None]
    if not kinds:
        checks.refuse(path, 'needs pcap = "LINK" or tcp = "CONNECTION"')
        return
    if len(kinds) > 1:
        checks.refuse((*path, "tcp"), "a trace is a pcap or a tcp trace, not both")
        return
    kind = kinds[0]
    for other, keys in KIND_KEYS.items():
        for key in keys:
            if other != kind and key in trace.model_fields_set:
                checks.refuse((*path, key), f"{key} is for a {other} trace, not a {kind} one")
    target = getattr(trace, kind)
    if not checks.require((*path, kind), TARGET_SECTION[kind], target):
        return
    if kind == "tcp" and not trace.events:
        checks.refuse((*path, "events"), f"name at least one of {', '.join(EVENTS)}")
    if kind == "pcap" and trace.max_bytes < MIN_PCAP_BYTES:
        checks.refuse(
            (*path, "max_bytes"),
            f"must hold at least one packet ({MIN_PCAP_BYTES} bytes), got {trace.max_bytes}",
        )
    # One trace per link or connection: each writes its own file.
    earlier = [
        other
        for other, entry in sorted(checks.doc.traces.items())
        if other < name and trace_kind(entry) == kind and getattr(entry, kind) == target
    ]
    if earlier:
        checks.refuse(
            (*path, kind),
            f"{quote(target)} is already traced by trace {quote(earlier[0])}",
        )


def describe_trace(name: str, trace: Trace, resolved: Resolved) -> dict:
    if trace_kind(trace) == "pcap":
        return {
            "name": name,
            "kind": "pcap",
            "link": trace.pcap,
            "payload": trace.payload,
            "max_packets": trace.max_packets,
            "max_bytes": trace.max_bytes,
        }
    return {
        "name": name,
        "kind": "tcp",
        "connection": trace.tcp,
        "events": [event for event in EVENTS if event in trace.events],
        "max_records": trace.max_records,
    }


def trace_memory(checks: Checks, name: str, trace: Trace) -> list[tuple[float, tuple, str, str]]:
    kind = trace_kind(trace)
    if kind is None:
        return []
    key = "max_packets" if kind == "pcap" else "max_records"
    records = getattr(trace, key)
    return [
        (
            records * RECORD_BYTES[kind],
            ("traces", name, key),
            f"trace {quote(name)} ({records:,} records)",
            f"a lower {key}",
        )
    ]


SECTION = Section(
    key="traces",
    table=Trace,
    noun="trace",
    description_key="traces",
    check=check_trace,
    describe=describe_trace,
    omit_when_empty=True,
    memory=trace_memory,
)
