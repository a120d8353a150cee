"""Study `aqm`: queue disciplines and ECN over GEO and LEO bottlenecks.

Four long-lived TCP connections (satcc's Linux-like stack, the `linux`
preset, with NewReno, CUBIC or BBR) share a 10 Mb/s bottleneck whose queue
is drop-tail (1000 packets, Linux's default `txqueuelen`), Adaptive RED,
CoDel, PIE, FQ-CoDel or DualPI2, each with its published defaults, with and
without ECN. Two paths: a GEO hop (270 ms one way at the bottleneck, base
RTTs 544-580 ms) and a LEO-like one (15 ms, 34-70 ms); the connections'
access links differ (2, 5, 10 and 20 ms one way), so their RTTs do too.

Each run reports the standing queueing delay at the bottleneck (mean and
99th percentile of the time from arrival to the start of transmission),
its utilisation, the fraction of arrivals dropped and marked, and Jain's
index over the connections' goodputs. All are over the whole run, start-up
included (a few seconds of slow start at GEO, against runs of minutes).

Judged, each against the mechanism's own stated goal or a closed form,
with tolerances fixed before the runs (docs/aqm.md gives the sources and
the reasoning):

- drop-tail at GEO with NewReno: the link stays busy (a buffer above the
  bandwidth-delay product, Villamizar and Song 1994), and the mean delay
  lies between the synchronised sawtooth's and a full buffer's;
- CoDel (and each FQ-CoDel flow queue) at LEO: the median sojourn within a
  factor 2 of its 5 ms target (RFC 8289 §4.4);
- PIE at LEO: the mean sojourn within a factor 2 of its 15 ms target
  (RFC 8033 §4);
- Adaptive RED at LEO: the average queue inside the target band the
  algorithm steers it to (Floyd, Gummadi and Shenker 2001, §4);
- with ECN, CoDel and FQ-CoDel mark instead of dropping: no AQM drop of an
  ECN-capable connection's packet (RFC 3168 §5, RFC 8289 §5.5);
- FQ-CoDel at LEO: Jain's index at least 0.95 between connections of
  different RTTs (RFC 8290 §1, flow isolation).

Everything else (GEO with the AQMs, whose 100 ms and 15 ms defaults are
tuned for terrestrial RTTs, BBR, which ignores ECN) is shown beside them.
"""

from __future__ import annotations

import math
from typing import Any

from satcc.studies.spec import Reference, RunSpec, Study, measured, shown

RATE_BPS = 10e6
PACKET_BYTES = 1500
FLOWS = 4
ACCESS_MS = (2, 5, 10, 20)
# The bottleneck's one-way delay: a GEO ground-satellite-ground hop, and a
# LEO path of a few hops (docs/leo.md: 25-80 ms RTTs).
PATHS = {"geo": 270.0, "leo": 15.0}
CONTROLLERS = ("newreno", "cubic", "bbr")
DROPTAIL_PACKETS = 1000
# Long enough for several of NewReno's sawtooth cycles at GEO (its window
# grows by one packet per 0.56 s round trip), so that the whole-run figures
# are the steady state's; quick mode differs only in its seeds.
DURATION_S = {"geo": 600.0, "leo": 120.0}
FULL_SEEDS = [1, 2, 3, 4, 5]
QUICK_SEEDS = [1]


def ared_settings(rate_bps: float, packet_bytes: int) -> dict[str, float]:
    """Adaptive RED's automatic parameters for a link (Floyd, Gummadi and
    Shenker 2001, §5; ns-2.35's red.cc): min_th = max(5, C * 5 ms / 2),
    max_th = 3 min_th, w_q = 1 - exp(-1 / C), C the link's rate in packets
    per second."""
    c = rate_bps / (8 * packet_bytes)
    min_th = max(5.0, c * 0.005 / 2)
    return {"min_th": min_th, "max_th": 3 * min_th, "w_q": -math.expm1(-1 / c)}


def queue_table(discipline: str, ecn: bool) -> dict[str, Any]:
    """The bottleneck's `queue` table: each discipline with its defaults."""
    if discipline == "droptail":
        return {"type": "droptail", "limit": f"{DROPTAIL_PACKETS} packets"}
    table: dict[str, Any] = {"type": discipline, "ecn": ecn}
    if discipline == "red":
        table |= ared_settings(RATE_BPS, PACKET_BYTES)
        table |= {"limit": f"{DROPTAIL_PACKETS} packets", "adaptive": True, "gentle": True}
    return table


DISCIPLINES = ("droptail", "red", "codel", "pie", "fq_codel", "dualpi2")


def tcp_ecn(discipline: str, cc: str, ecn: bool) -> bool | str:
    """The connections' `ecn`: through DualPI2, ECN means L4S senders (the
    Prague-like scalable response, ECT(1), into the L queue), except BBR,
    which has no scalable response and stays a classic ECN sender that
    ignores the echo."""
    if ecn and discipline == "dualpi2" and cc != "bbr":
        return "l4s"
    return ecn


def label(path: str, cc: str, discipline: str, ecn: bool) -> str:
    return f"{path} {cc} {discipline}" + (" ecn" if ecn else "")


def scenario(path: str, cc: str, discipline: str, ecn: bool, duration_s: float) -> dict:
    """The dumbbell: senders s_i -> r1 -> (bottleneck) -> r2 -> d_i."""
    delay = f"{PATHS[path]:g} ms"
    rate = f"{RATE_BPS:g} bps"
    nodes: dict[str, dict] = {"r1": {}, "r2": {}}
    links: dict[str, dict] = {
        "bn": {"from": "r1", "to": "r2", "rate": rate, "delay": delay},
        "bn_back": {"from": "r2", "to": "r1", "rate": rate, "delay": delay},
    }
    links["bn"]["queue"] = queue_table(discipline, ecn)
    tcp: dict[str, dict] = {}
    for i, access_ms in enumerate(ACCESS_MS):
        nodes[f"s{i}"] = {"type": "host"}
        nodes[f"d{i}"] = {"type": "host"}
        access = {"rate": "1 Gbps", "delay": f"{access_ms} ms", "duplex": True}
        links[f"in{i}"] = {"from": f"s{i}", "to": "r1", **access}
        links[f"out{i}"] = {"from": "r2", "to": f"d{i}", "rate": "1 Gbps", "duplex": True}
        tcp[f"c{i}"] = {
            "from": f"s{i}",
            "to": f"d{i}",
            "preset": "linux",
            "congestion_control": "reno" if cc == "newreno" else cc,
            "ecn": tcp_ecn(discipline, cc, ecn),
            "app": {"type": "bulk"},
            "start": f"{0.5 * i:g} s",
        }
    return {
        "run": {
            "name": "aqm-" + label(path, cc, discipline, ecn).replace(" ", "-"),
            "duration": f"{duration_s:g} s",
        },
        "nodes": nodes,
        "links": links,
        "tcp": tcp,
    }


def cases() -> list[tuple[str, str, str, bool]]:
    return [
        (path, cc, discipline, ecn)
        for path in PATHS
        for cc in CONTROLLERS
        for discipline in DISCIPLINES
        for ecn in ((False,) if discipline == "droptail" else (False, True))
    ]


def runs(quick: bool) -> list[RunSpec]:
    specs = []
    for path, cc, discipline, ecn in cases():
        duration = DURATION_S[path]
        specs.append(
            RunSpec(
                label=label(path, cc, discipline, ecn),
                params={"path": path, "cc": cc, "queue": discipline, "ecn": ecn},
                scenario=scenario(path, cc, discipline, ecn, duration),
            )
        )
    return specs


def seeds(quick: bool) -> list[int]:
    return list(QUICK_SEEDS if quick else FULL_SEEDS)


def metrics(summary: dict[str, Any], spec: RunSpec) -> dict[str, float]:
    """The bottleneck's figures over the whole run (times in ms)."""

    # Counters an absent key leaves at 0; a delay or an average it leaves
    # unmeasured (NaN), never 0 ms, which a delay target would judge.
    def link(key: str, default: float = 0.0) -> float:
        return measured(summary.get(f"links.bn.{key}", default))

    arrivals = link("arrivals")
    # A drop-tail queue drops nothing early; an AQM whose summary lacks its
    # drop counts measured none, and 0 would pass "no AQM drop" unmeasured.
    absent = 0.0 if spec.params["queue"] == "droptail" else math.nan
    aqm_drops = link("drops_early", absent) + link("drops_dequeue", absent)
    out = {
        "delay_mean_ms": 1e3 * link("wait_mean_s", math.nan),
        "delay_p50_ms": 1e3 * link("wait_p50_s", math.nan),
        "delay_p99_ms": 1e3 * link("wait_p99_s", math.nan),
        "utilisation": link("utilisation", math.nan),
        "drop_fraction": (link("drops") + aqm_drops) / arrivals if arrivals else math.nan,
        "aqm_drops": aqm_drops,
        "mark_fraction": link("marks") / arrivals if arrivals else math.nan,
        "jain": float(summary.get("fairness.jain_tcp_goodput") or math.nan),
    }
    if "links.bn.sojourn_standing_s" in summary:
        out["standing_ms"] = 1e3 * link("sojourn_standing_s", math.nan)
    if "links.bn.sojourn_p50_s" in summary:
        # Over the PDUs transmitted: those an AQM drops at dequeue waited too
        # but never started, and `wait_` leaves them out as well.
        out["delay_mean_ms"] = 1e3 * link("sojourn_mean_s", math.nan)
        out["delay_p50_ms"] = 1e3 * link("sojourn_p50_s", math.nan)
        out["delay_p99_ms"] = 1e3 * link("sojourn_p99_s", math.nan)
    if "links.bn.red_avg_mean" in summary:
        out["red_avg_packets"] = link("red_avg_mean", math.nan)
    if "links.bn.l_sojourn_p99_s" in summary:
        # DualPI2: each queue's own delay, L (L4S) and C (classic).
        out["l_delay_p99_ms"] = 1e3 * link("l_sojourn_p99_s", math.nan)
        out["c_delay_mean_ms"] = 1e3 * link("c_sojourn_mean_s", math.nan)
    return out


# ---------------------------------------------------------------------------
# References

VILLAMIZAR = (
    "Villamizar and Song, 'High performance TCP in ANSNET', ACM CCR 24(5), 1994: "
    "a drop-tail buffer of at least the bandwidth-delay product keeps Reno's link busy"
)
SAWTOOTH = (
    "Reno's sawtooth over a drop-tail buffer B above the BDP: the queue falls to "
    "(BDP + B)/2 - BDP after a synchronised halving and stays near B when one of N "
    "flows halves; the mean lies between their means (docs/aqm.md)"
)
CODEL = (
    "RFC 8289 §2, §4.4: CoDel holds the standing queue delay (the least sojourn "
    "over each interval) at or below its 5 ms target"
)
PIE = "RFC 8033 §4: PIE steers the queueing latency to its 15 ms target"
ARED = (
    "Floyd, Gummadi and Shenker, 'Adaptive RED', 2001, §4: max_p adapts to keep the "
    "average queue within min_th + [0.4, 0.6] (max_th - min_th)"
)
ECN_MARKS = (
    "RFC 3168 §5 and RFC 8289 §5.5: an ECN-capable packet is marked CE where a "
    "non-ECT one would be dropped"
)
FQ = "RFC 8290 §1: FQ-CoDel isolates flows and shares the link fairly between them"
FQ_CODEL = "RFC 8290 §4.2: each flow queue runs CoDel, which holds its standing delay at 5 ms"
DUALPI2 = (
    "RFC 9332 App. A.1: DualPI2's PI2 controller holds the classic queue's delay at its "
    "15 ms target"
)


def bdp_packets(path: str) -> float:
    """The bandwidth-delay product in packets at the connections' mean
    base RTT."""
    rtt = sum(2 * (PATHS[path] + a) for a in ACCESS_MS) / len(ACCESS_MS) / 1e3
    return RATE_BPS * rtt / (8 * PACKET_BYTES)


def sawtooth_delay_band_ms(path: str) -> tuple[float, float]:
    """The synchronised sawtooth's mean queueing delay and the full
    buffer's: the window at loss is BDP + B; halving all of them leaves
    (BDP + B)/2 - BDP queued, and the queue refills linearly to B."""
    per_packet_ms = 8 * PACKET_BYTES / RATE_BPS * 1e3
    low = max(0.0, (bdp_packets(path) + DROPTAIL_PACKETS) / 2 - bdp_packets(path))
    return (low + DROPTAIL_PACKETS) / 2 * per_packet_ms, DROPTAIL_PACKETS * per_packet_ms


def references() -> list[Reference]:
    refs: list[Reference] = []
    for cc in ("newreno",):
        run = label("geo", cc, "droptail", False)
        refs.append(Reference(run, "utilisation", 1.0, VILLAMIZAR, 0.05, "absolute"))
        low, high = sawtooth_delay_band_ms("geo")
        refs.append(
            Reference(
                run,
                "delay_mean_ms",
                (low + high) / 2,
                SAWTOOTH,
                (high - low) / 2,
                "absolute",
                notes=f"between {low:.0f} ms (synchronised halving) and {high:.0f} ms (full)",
            )
        )
    for cc in ("newreno", "cubic"):
        for ecn in (False, True):
            refs.append(
                Reference(
                    label("leo", cc, "codel", ecn),
                    "standing_ms",
                    2.5,
                    CODEL,
                    2.5,
                    "absolute",
                    notes="the claim is at most 5 ms: 2.5 +- 2.5",
                )
            )
        refs.append(
            Reference(label("leo", cc, "codel", True), "aqm_drops", 0.0, ECN_MARKS, 0.0, "absolute")
        )
        for ecn in (False, True):
            refs.append(
                Reference(label("leo", cc, "pie", ecn), "delay_mean_ms", 15.0, PIE, 2.0, "factor")
            )
        for ecn in (False, True):
            run = label("leo", cc, "fq_codel", ecn)
            refs.append(Reference(run, "jain", 1.0, FQ, 0.05, "absolute"))
            refs.append(
                Reference(
                    run,
                    "standing_ms",
                    2.5,
                    FQ_CODEL,
                    2.5,
                    "absolute",
                    notes="the claim is at most 5 ms: 2.5 +- 2.5",
                )
            )
        refs.append(
            Reference(
                label("leo", cc, "fq_codel", True), "aqm_drops", 0.0, ECN_MARKS, 0.0, "absolute"
            )
        )
        refs.append(
            Reference(
                label("leo", cc, "dualpi2", False), "delay_mean_ms", 15.0, DUALPI2, 2.0, "factor"
            )
        )
        red = ared_settings(RATE_BPS, PACKET_BYTES)
        band = red["max_th"] - red["min_th"]
        refs.append(
            Reference(
                label("leo", cc, "red", False),
                "red_avg_packets",
                red["min_th"] + 0.5 * band,
                ARED,
                0.1 * band,
                "absolute",
            )
        )
    return refs


SHOWN = (
    "delay_mean_ms",
    "delay_p50_ms",
    "standing_ms",
    "delay_p99_ms",
    "utilisation",
    "drop_fraction",
    "mark_fraction",
    "jain",
)


def all_references() -> list[Reference]:
    """The judged checks, then every run's headline figures, shown."""
    refs = references()
    judged = {(r.label, r.metric) for r in refs}
    for case in cases():
        run = label(*case)
        # Only AQM links measure the standing delay, only DualPI2 its L queue.
        names = [m for m in SHOWN if case[2] != "droptail" or m != "standing_ms"]
        names = [m for m in names if case[2] == "dualpi2" or m != "l_delay_p99_ms"]
        refs += [shown(run, m) for m in names if (run, m) not in judged]
    return refs


# ---------------------------------------------------------------------------
# The tables


def layout(table: Any) -> list[Any]:
    """Per path, one line per queue, ECN setting and controller with its
    headline figures; then the judged checks."""
    from rich import box
    from rich.table import Table

    from satcc import fmt
    from satcc.studies.compare import verdict_markup
    from satcc.studies.present import judged_checks

    parts = []
    for path in PATHS:
        out = Table(
            title=f"aqm, {path.upper()} bottleneck (10 Mb/s, 4 connections): the whole run",
            title_justify="left",
            box=box.SIMPLE_HEAD,
            padding=(0, 1),
        )
        for head in ("queue", "ECN", "TCP"):
            out.add_column(head, no_wrap=True)
        for head in (
            "delay ms",
            "stand ms",
            "p99 ms",
            "util",
            "drop %",
            "mark %",
            "Jain",
            "checks",
        ):
            out.add_column(head, justify="right", no_wrap=True)
        for case in cases():
            if case[0] != path:
                continue
            rows = {r.metric: r for r in table[table["label"] == label(*case)].itertuples()}

            def cell(metric: str, scale: float = 1.0, digits: int = 3, rows=rows) -> str:
                row = rows.get(metric)
                return fmt.MISSING if row is None else fmt.number(row.measured * scale, digits)

            verdicts = [verdict_markup(r) for r in rows.values() if r.tolerance_kind != "none"]
            _, cc, discipline, ecn = case
            out.add_row(
                discipline,
                "on" if ecn else "",
                cc,
                cell("delay_mean_ms"),
                cell("standing_ms"),
                cell("delay_p99_ms"),
                cell("utilisation"),
                cell("drop_fraction", 100),
                cell("mark_fraction", 100),
                cell("jain"),
                " ".join(verdicts),
            )
        parts.append(out)
    parts.append(judged_checks("aqm", table))
    return parts


STUDY = Study(
    name="aqm",
    title="Queue disciplines and ECN over GEO and LEO bottlenecks",
    paper=(
        "RFC 8289 (CoDel), RFC 8033 (PIE), RFC 8290 (FQ-CoDel), RFC 9332 (DualPI2), "
        "RFC 3168 (ECN); Floyd, Gummadi and Shenker, Adaptive RED (2001)"
    ),
    description=__doc__.split("\n\n", 1)[1].strip(),
    runs=runs,
    metrics=metrics,
    references=all_references(),
    layout=layout,
    seeds=seeds,
    quick_note=(
        "1 seed instead of 5: no confidence interval, and a check near its "
        "tolerance may fall either side."
    ),
)
