"""What a run could need in memory, estimated before it runs.

A run that outgrows memory ends in an abort, after minutes of work and with
nothing to show. Two large consumers are known in advance: the PDUs a link
can have on the wire and propagating (rate x delay over the smallest PDU, a
53-byte cell), and the probes' samples. When their sum exceeds the budget
the scenario is refused with the figure, at the key of the largest
consumer. Models that hold state per instance or per packet add their own
figures (a section's `memory`). Queues are not counted: their limits are often set "large
enough" far above what the traffic fills, and what they hold depends on
the traffic.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .validation import Checks

# For the whole run; a machine of the kind satcc is built for has 24 GiB.
MEMORY_BUDGET = 16 * 2**30
# One PDU held in a delay line, with its container's overhead.
PDU_BYTES = 104
# The smallest PDU a link carries: an ATM cell (TCP/IP ACKs are 40 bytes
# and rarer than cells: this bounds ordinary traffic).
SMALLEST_PDU = 53
LINK_REMEDY = "a shorter delay or a lower rate"
# A probe sample: its time and its value.
SAMPLE_BYTES = 16


def _gib(n: float) -> str:
    return f"{n / 2**30:,.1f} GiB"


def _link_bytes(link) -> float:
    in_flight = max(link.rates(), default=0.0) * link.delay * 1e-12 / 8 / SMALLEST_PDU
    return in_flight * PDU_BYTES


def check_memory(checks: Checks) -> None:
    """Refuses a scenario whose estimated memory exceeds the budget."""
    doc = checks.doc
    # (bytes, key path, what, what the user can change)
    consumers: list[tuple[float, tuple, str, str]] = []
    for name, link in checks.entries("links").items():
        # A duplex link's reverse NAME_rev is declared as NAME.
        declared = name if name in doc.links else name.removesuffix("_rev")
        consumers.append(
            (_link_bytes(link), ("links", declared, "delay"), f"link {name!r}", LINK_REMEDY)
        )
    samples = doc.run.duration // doc.run.sample_interval
    if doc.probes:
        probe_bytes = len(doc.probes) * samples * SAMPLE_BYTES
        what = f"{len(doc.probes)} probes of {samples:,} samples"
        consumers.append(
            (
                probe_bytes,
                ("run", "sample_interval"),
                what,
                "fewer probes or a longer sample_interval",
            )
        )
    for section in checks.sections.values():
        if section.memory is not None:
            for name, entry in checks.entries(section.key).items():
                consumers.extend(section.memory(checks, name, entry))
    total = sum(c[0] for c in consumers)
    if total <= MEMORY_BUDGET:
        return
    largest, path, what, remedy = max(consumers, key=lambda c: c[0])
    checks.refuse(
        path,
        f"the run could need about {_gib(total)} of memory, {_gib(largest)} of it for {what} "
        f"(at most {_gib(MEMORY_BUDGET)}): {remedy}",
    )
