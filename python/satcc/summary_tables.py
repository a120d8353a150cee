"""The summary tables: which groups of a run's summary are shown as tables,
one row per flow, connection, link or exchange, and with which columns.

`satcc run` prints every column of every group present; the campaign report
(satcc.report) shows the columns marked `in_report`, as the mean over seeds
at each parameter point, and draws each against the first swept parameter.
Both read this list and nothing else, so a summary group reaches the
terminal and the report by one more entry in GROUPS.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from satcc import fmt


@dataclass(frozen=True)
class Column:
    header: str
    key: str  # the summary key after "PREFIX.NAME."
    kind: str  # a satcc.fmt kind: how one value is written, and how a column shares a unit
    unit: str = ""  # of a count or a number; rates, times and percentages carry their own
    in_report: bool = False  # kept to a few per group: the report has a figure for each

    def __post_init__(self) -> None:
        if self.kind not in fmt.FORMATS:
            raise ValueError(f"column {self.header!r}: unknown kind {self.kind!r}")

    def cell(self, value: Any) -> str:
        return fmt.with_unit(fmt.FORMATS[self.kind](value), self.unit)


@dataclass(frozen=True)
class Group:
    prefix: str  # of the summary keys: PREFIX.NAME.KEY
    title: str  # the report's heading
    entity: str  # what one row is
    columns: tuple[Column, ...]
    # Rows only for the entities that have this key (e.g. links with an AQM).
    only_with: str = ""

    def entities(self, summary: dict[str, Any]) -> dict[str, dict[str, Any]]:
        """{"flows.s1.loss_rate": x} -> {"s1": {"loss_rate": x}}, sorted by name
        (names contain no dots)."""
        found: dict[str, dict[str, Any]] = {}
        for key, value in summary.items():
            parts = key.split(".", 2)
            if len(parts) == 3 and parts[0] == self.prefix:
                found.setdefault(parts[1], {})[parts[2]] = value
        if self.only_with:
            found = {name: keys for name, keys in found.items() if self.only_with in keys}
        return dict(sorted(found.items()))

    def report_columns(self) -> tuple[Column, ...]:
        return tuple(c for c in self.columns if c.in_report)


# The fairness indices the core adds to a summary when a run has two or more
# flows of a kind (crates/core/src/scenario/fairness.rs): for each, the group
# of flows it is over and what it is computed from. They live under their own
# prefix: a two-part key under a group's prefix would read as a flow's name.
FAIRNESS = {
    "fairness.jain_tcp_goodput": ("tcp", "TCP connections, goodput"),
    "fairness.jain_tfrc_goodput": ("tfrc", "TFRC flows, goodput"),
    "fairness.jain_flows_throughput": ("flows", "datagram flows, throughput"),
}

GROUPS: tuple[Group, ...] = (
    Group(
        "flows",
        "Flows",
        "flow",
        (
            Column("sent", "sent_packets", "count"),
            Column("received", "received_packets", "count"),
            Column("loss", "loss_rate", "percent", in_report=True),
            Column("throughput", "throughput_bps", "rate", in_report=True),
            Column("delay mean", "delay_mean_s", "time", in_report=True),
            Column("delay p99", "delay_p99_s", "time", in_report=True),
            Column("jitter mean", "jitter_mean_s", "time"),
        ),
    ),
    Group(
        "tcp",
        "TCP connections",
        "connection",
        (
            Column("goodput", "goodput_bps", "rate", in_report=True),
            Column("delivered", "delivered_bytes", "count", "B"),
            Column("rtx", "retransmissions", "count", in_report=True),
            Column("fast rtx", "fast_retransmits", "count"),
            Column("timeouts", "timeouts", "count"),
            Column("srtt", "srtt_s", "time", in_report=True),
            Column("done", "completion_time_s", "time"),
        ),
    ),
    Group(
        "tfrc",
        "TFRC media flows",
        "flow",
        (
            Column("generated", "generated", "count"),
            Column("tx overflow", "tx_buffer_overflow", "count", in_report=True),
            Column("received", "packets_received", "count"),
            Column("late", "late", "count"),
            Column("E2ED p50", "e2ed_p50_s", "time", in_report=True),
            Column("E2ED max", "e2ed_max_s", "time", in_report=True),
            Column("OWD p50", "owd_p50_s", "time"),
            Column("rate", "rate_bps", "rate"),
            Column("QS approved", "qs_approved_bps", "rate"),
        ),
    ),
    Group(
        "links",
        "Links",
        "link",
        (
            Column("utilisation", "utilisation", "percent", in_report=True),
            Column("sent", "tx_packets", "count"),
            Column("drops", "drops", "count", in_report=True),
            Column("errors", "errors", "count"),
            Column("queue mean", "queue_mean_packets", "number", "pkt", in_report=True),
            Column("queue max", "queue_max_packets", "count", "pkt"),
            Column("wait mean", "wait_mean_s", "time", in_report=True),
            Column("wait p99", "wait_p99_s", "time"),
        ),
    ),
    Group(
        "links",
        "Active queues (AQM)",
        "link",
        (
            Column("marks", "marks", "count", in_report=True),
            Column("overflow", "drops_overflow", "count"),
            Column("early", "drops_early", "count", in_report=True),
            Column("dequeue", "drops_dequeue", "count", in_report=True),
            Column("sojourn p50", "sojourn_p50_s", "time", in_report=True),
            Column("sojourn p95", "sojourn_p95_s", "time"),
            Column("sojourn p99", "sojourn_p99_s", "time"),
        ),
        only_with="drops_early",
    ),
    Group(
        "udp_rr",
        "UDP request/response exchanges",
        "exchange",
        (
            Column("transactions", "transactions", "count"),
            Column("lost", "lost", "count", in_report=True),
            Column("transactions/s", "transactions_per_s", "number", in_report=True),
            Column("time mean", "transaction_time_mean_s", "time", in_report=True),
            Column("time var", "transaction_time_var_s2", "number", "s²"),
        ),
    ),
    Group(
        "emulate",
        "Emulated hosts (what each sent)",
        "host",
        (
            Column("sent", "sent_packets", "count"),
            Column("delivered", "delivered_packets", "count"),
            Column("dropped", "dropped", "count", in_report=True),
            Column("errored", "errored", "count"),
            Column("throughput", "delivered_bps", "rate", in_report=True),
            Column("delay mean", "delay_mean_s", "time", in_report=True),
            Column("delay p99", "delay_p99_s", "time"),
            Column("received", "received_packets", "count"),
        ),
    ),
    Group(
        "arrivals",
        "Classes of flow arrivals",
        "class",
        (
            Column("started", "flows_started", "count"),
            Column("done", "flows_completed", "count", in_report=True),
            Column("at most", "flows_active_max", "count"),
            Column("time mean", "completion_time_mean_s", "time", in_report=True),
            Column("time p95", "completion_time_p95_s", "time", in_report=True),
            Column("goodput mean", "flow_goodput_mean_bps", "rate", in_report=True),
            Column("rtx", "retransmissions", "count"),
        ),
    ),
    Group(
        "cell_sources",
        "Groups of cell sources",
        "group",
        (
            Column("sources", "sources", "count"),
            Column("sent", "cells_sent", "count"),
            Column("queue loss", "queue_loss_ratio", "percent", in_report=True),
            Column("access loss", "access_loss_ratio", "percent"),
            Column("late", "late_fraction", "percent", in_report=True),
            Column("offered", "offered_bps", "rate", in_report=True),
            Column("file time", "file_time_mean_s", "time"),
            Column("notices", "rate_notices", "count"),
        ),
    ),
    Group(
        "tfrc_arrivals",
        "Classes of media arrivals",
        "class",
        (
            Column("started", "flows_started", "count"),
            Column("ended", "flows_ended", "count"),
            Column("at most", "flows_active_max", "count"),
            Column("generated", "generated", "count"),
            Column("tx overflow", "tx_buffer_loss", "percent", in_report=True),
            Column("late", "late_fraction", "percent", in_report=True),
            Column("E2ED p50", "e2ed_p50_s", "time", in_report=True),
            Column("E2ED p99", "e2ed_p99_s", "time", in_report=True),
            Column("E2ED max", "e2ed_max_s", "time"),
        ),
    ),
)
