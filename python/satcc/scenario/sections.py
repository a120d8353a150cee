"""The registry: every top-level section of the scenario format, in order.

Everything that spans sections iterates this list: the document model, the
cross-reference checks, the routing requests and the normalised description.
The order is the order errors are found in (docs/scenario.md, Errors).
Adding a section is one module with its SECTION, and one line here.
"""

from __future__ import annotations

from . import (
    arrivals,
    cell_sources,
    constellation,
    dvb_rcs,
    emulate,
    links,
    nodes,
    probes,
    run,
    sinks,
    sources,
    tcp,
    tfrc,
    tfrc_arrivals,
    traces,
    udp_rr,
)
from .tables import Section

SECTIONS: tuple[Section, ...] = (
    run.SECTION,
    nodes.SECTION,
    links.SECTION,
    constellation.SECTION,
    dvb_rcs.SECTION,
    sources.SECTION,
    sinks.SECTION,
    tcp.SECTION,
    udp_rr.SECTION,
    tfrc.SECTION,
    arrivals.SECTION,
    tfrc_arrivals.SECTION,
    cell_sources.SECTION,
    emulate.SECTION,
    probes.SECTION,
    traces.SECTION,
)
