"""[sinks.NAME]: where sources' packets are received and their flows measured.

A sink sits at a node; every source names the sink it sends to, and the
sink records throughput, delay, jitter and loss per flow.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .tables import Section, _Table
from .values import Str

if TYPE_CHECKING:
    from .validation import Checks


class Sink(_Table):
    node: Str


def check_sink(checks: Checks, path: tuple, name: str, sink: Sink) -> None:
    checks.require((*path, "node"), "nodes", sink.node)


SECTION = Section(
    key="sinks",
    table=Sink,
    noun="sink",
    description_key="sinks",
    check=check_sink,
    probe_target="sink",
)
