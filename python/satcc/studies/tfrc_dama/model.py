"""Study `tfrc-dama`: TFRC and TFRC-SP with Quick-Start over DVB-RCS DAMA
(Skyplex), the QSD method and its fluid model.

The network of the paper's sections 3.2 and 4: five Skyplex terminals
(one of them hosting the NCC) in a single-hop mesh through the satellite's
on-board processor, a host behind each. A terminal's uplink is its share of
the 6.336 Mb/s MF-TDMA return channel (`[dvb_rcs.NAME]`), with a 1000-packet
queue and T_p = 252 ms to the satellite and on to the other terminal; the
downlink to each terminal is the DVB-S carrier. Every terminal has a
Quick-Start agent when the strategy uses Quick-Start.

Section 3: one 256 kb/s flow of 1316-byte packets from the host behind t1
to the host behind t2, started at every slot of a super-frame (the paper's "1.8 ms
steps": 432 start phases on the large frame, 72 on the small), under seven
strategies: CRA (t1 and t2 each hold a fifth of the channel), CRA with QS,
DAMA, DAMA with QS, and QSD with T_q = 0, T_q,opt (eq. (6)) and T_q,max
(eq. (3)). Figs. 3-5 are the median and the min-max over phases of each
packet's E2ED against when it was generated; Fig. 6 is the largest E2ED
against the flow's rate; Fig. 7 is the fluid model's four curves.

Section 4: three classes of flows between random pairs of the five hosts
(Table II: VoIP over TFRC-SP, videophone and IPTV over TFRC), Poisson
arrivals and exponential durations, on the large frame, under five
strategies: no QS, QS, QSD with T_q = 0, T_q,opt and T_q,max. Fig. 8 is
the IPTV flows' start-up E2ED (median, 5th and 95th percentiles), Fig. 9
each class's E2ED distribution over its flows' first 30 s, and the table
the fraction of packets lost to transmit-buffer overflow, over whole flows
and over each flow's first 30 s.

TFRC runs as the paper's simulator ran it: ns-2.35's TFRC agents
(`profile = "ns2"`, checked against ns-2 itself by the tfrc-crosscheck
study), and every run again under RFC 5348 (`[rfc5348]` in the labels), so
that each table and claim shows what the choice of TFRC does. Every
assumption is listed in docs/tfrc-dama.md.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from satcc.scenario.dvb_rcs import frame_timing, preset_frame
from satcc.studies.spec import Reference, RunSpec, measured

TERMINALS = 5
TP_S = 0.252
# A DVB-S carrier of 27.5 Msymbol/s, QPSK, rate 3/4 (188/204 of it
# payload): the forward link every terminal listens to.
DOWNLINK_BPS = 38.01e6
LAN_BPS = 100e6
UPLINK_QUEUE = 1000
CHANNEL_BPS = 6.336e6
# "One-fifth of an HR frame" (section 3.3), held by the flow's two terminals.
CRA_BPS = CHANNEL_BPS / 5

MEDIA_BPS = 256e3
PACKET = 1316
QS_RATE_BPS = 320e3
# Enough for the start-up transient of the large frame (about 20 s) to end.
MEDIA_S = {"large": 30.0, "small": 15.0}
DRAIN_S = 15.0
FRAMES = ("large", "small")
# The paper's simulator's TFRC first, then RFC 5348's.
PROFILES = ("ns2", "rfc5348")
DEFAULT_PROFILE = "ns2"


@dataclass(frozen=True)
class Strategy:
    """How the flow's terminals get capacity and whether QS is asked."""

    name: str
    cra: bool = False
    qs: bool = False
    qsd: bool = False
    tq: str = "0 s"
    # The initial nofeedback timer: None leaves the profile's own (RFC
    # 5348's 2 s; ns-2's two packets at 300 B/s); section 3.5 argues for 3 s.
    initial_rto: str | None = None


STRATEGIES = {
    s.name: s
    for s in (
        Strategy("CRA", cra=True),
        Strategy("CRA+QS", cra=True, qs=True),
        Strategy("DAMA"),
        Strategy("DAMA+QS", qs=True),
        Strategy("QSD Tq=0", qs=True, qsd=True, tq="0 s"),
        Strategy("QSD Tq=opt", qs=True, qsd=True, tq="opt"),
        Strategy("QSD Tq=max", qs=True, qsd=True, tq="max"),
        Strategy("QSD Tq=max RTO=3s", qs=True, qsd=True, tq="max", initial_rto="3 s"),
    )
}
SINGLE = tuple(STRATEGIES)
FIG6 = ("DAMA", "DAMA+QS", "QSD Tq=opt", "QSD Tq=max", "QSD Tq=max RTO=3s")
FIG6_RATES_KBPS = (64, 128, 192, 256, 384, 512)
QUICK_FIG6_RATES_KBPS = (128, 256, 512)
AGGREGATE = ("DAMA", "DAMA+QS", "QSD Tq=0", "QSD Tq=opt", "QSD Tq=max", "QSD Tq=max RTO=3s")


@dataclass(frozen=True)
class MediaClass:
    """A row of Table II."""

    name: str
    rate_bps: float
    tolerable_s: float
    packet: int
    buffer: int
    duration_s: float
    interval_s: float
    share: float
    small_packets: bool

    @property
    def arrivals_per_s(self) -> float:
        return 1 / self.interval_s

    @property
    def load_bps(self) -> float:
        """Mean offered load: arrivals x mean duration x rate (Little)."""
        return self.arrivals_per_s * self.duration_s * self.rate_bps


CLASSES = (
    MediaClass("voip", 16e3, 0.1, 160, 2, 60.0, 1.0, 0.50, True),
    MediaClass("video", 64e3, 0.1, 512, 2, 180.0, 40.0, 0.15, False),
    MediaClass("iptv", 256e3, 5.0, 1316, 128, 300.0, 120.0, 0.35, False),
)
# The paper: 100 000 VoIP, 2500 videophone and 833 IPTV flows, so 100 000 s
# of arrivals; in full mode four seeds of 25 000 s each.
AGGREGATE_S = 25_000.0
AGGREGATE_SEEDS = (1, 2, 3, 4)
QUICK_AGGREGATE_S = 3_000.0
PAPER_LOAD_BPS = 2e6


# ns-2.35's Agent/TFRC starts at InitRate_ = 300 B/s (ns-default.tcl).
NS2_INIT_RATE_BPS = 300 * 8


def initial_timer_s(profile: str, strategy: Strategy, packet_bytes: int = PACKET) -> float:
    """The nofeedback timer a flow starts with: the strategy's, else the
    profile's (RFC 5348: 2 s; ns-2: two packets at its initial rate)."""
    from satcc.units import parse_time

    if strategy.initial_rto is not None:
        return parse_time(strategy.initial_rto) / 1e12
    if profile == "ns2":
        return 2 * packet_bytes * 8 / NS2_INIT_RATE_BPS
    return 2.0


def qs_request_bps(rate_bps: float) -> float:
    """The smallest rate of RFC 4782's table (40 kb/s x 2^N, N >= 1) that
    carries the media: 320 kb/s for 256 kb/s, as the paper asks."""
    n = max(1, math.ceil(math.log2(rate_bps / 40e3) - 1e-9))
    return 40e3 * 2**n


def timing(frame: str) -> dict[str, float]:
    return frame_timing(preset_frame(f"skyplex-{frame}"))


def phases(frame: str, quick: bool) -> list[int]:
    """Start phases in slots of the super-frame: every one, or a few."""
    slots = round(timing(frame)["superframe_s"] / timing(frame)["slot_s"])
    step = slots // (6 if frame == "large" else 4) if quick else 1
    return list(range(0, slots, step))


def fig6_phases(frame: str, quick: bool) -> list[int]:
    slots = round(timing(frame)["superframe_s"] / timing(frame)["slot_s"])
    return list(range(0, slots, slots // (3 if quick else 36 if frame == "large" else 18)))


def network(frame: str, strategy: Strategy, cra_terminals: int = 2) -> dict[str, Any]:
    """The mesh: nodes, links and the return channel, as scenario tables."""
    nodes: dict[str, Any] = {"sat": {}}
    links: dict[str, Any] = {}
    terminals: dict[str, Any] = {}
    for i in range(1, TERMINALS + 1):
        t, h = f"t{i}", f"h{i}"
        nodes[t], nodes[h] = {}, {}
        links[f"lan{i}"] = {"from": h, "to": t, "rate": f"{LAN_BPS} bps", "duplex": True}
        links[f"up{i}"] = {
            "from": t,
            "to": "sat",
            "delay": f"{TP_S} s",
            "capacity": {"type": "dvb_rcs", "channel": "rl"},
            "queue": {"limit": f"{UPLINK_QUEUE} packets"},
        }
        links[f"down{i}"] = {"from": "sat", "to": t, "rate": f"{DOWNLINK_BPS} bps"}
        terminal: dict[str, Any] = {"uplink": f"up{i}"}
        if strategy.cra and i <= cra_terminals:
            terminal["cra"] = f"{CRA_BPS} bps"
        if strategy.qs:
            agent: dict[str, Any] = {}
            if strategy.qsd:
                agent = {"qsd": True, "tq": strategy.tq}
            terminal["quick_start"] = agent
        terminals[t] = terminal
    return {
        "nodes": nodes,
        "links": links,
        "dvb_rcs": {"rl": {"frame": {"preset": f"skyplex-{frame}"}, "terminals": terminals}},
    }


def single_flow(
    frame: str,
    strategy: Strategy,
    phase: int,
    rate_bps: float = MEDIA_BPS,
    trace: bool = True,
    profile: str = DEFAULT_PROFILE,
) -> dict[str, Any]:
    """One flow h1 -> h2 started `phase` slots after the first super-frame
    boundary (the network idle until then)."""
    t = timing(frame)
    start = t["superframe_s"] + phase * t["slot_s"]
    media_s = MEDIA_S[frame]
    flow: dict[str, Any] = {
        "from": "h1",
        "to": "h2",
        "start": f"{start!r} s",
        "packet_size": f"{PACKET} B",
        "profile": profile,
        # The study measures delay, not overflow: the buffer holds it all.
        "media": {"rate": f"{rate_bps} bps", "buffer": 100_000, "duration": f"{media_s} s"},
    }
    if trace:
        flow["trace"] = True
    if strategy.initial_rto is not None:
        flow["initial_rto"] = strategy.initial_rto
    if strategy.qs:
        flow["quick_start"] = f"{qs_request_bps(rate_bps)} bps"
    part = "fig3-5" if trace else "fig6"
    name = f"tfrc-dama {part} {frame} {strategy.name} {rate_bps / 1e3:g}kbps phase {phase}"
    name += "" if profile == DEFAULT_PROFILE else f" {profile}"
    return {
        "run": {"name": _slug(name), "duration": f"{start + media_s + DRAIN_S!r} s"},
        **network(frame, strategy),
        "tfrc": {"v": flow},
    }


def aggregated(
    strategy: Strategy, duration_s: float, profile: str = DEFAULT_PROFILE
) -> dict[str, Any]:
    """Section 4: the three classes of Table II between random host pairs,
    on the large frame."""
    hosts = [f"h{i}" for i in range(1, TERMINALS + 1)]
    classes: dict[str, Any] = {}
    for c in CLASSES:
        entry: dict[str, Any] = {
            "hosts": hosts,
            "rate": c.arrivals_per_s,
            "duration": {"type": "exponential", "mean": f"{c.duration_s} s"},
            "media": {"rate": f"{c.rate_bps} bps", "buffer": c.buffer},
            "packet_size": f"{c.packet} B",
            "small_packets": c.small_packets,
            "profile": profile,
            "tolerable_delay": f"{c.tolerable_s} s",
            "window": "30 s",
            "step": "500 ms",
        }
        if strategy.initial_rto is not None:
            entry["initial_rto"] = strategy.initial_rto
        if strategy.qs:
            entry["quick_start"] = f"{qs_request_bps(c.rate_bps)} bps"
        classes[c.name] = entry
    name = f"tfrc-dama aggregated {strategy.name} {duration_s:g}s"
    name += "" if profile == DEFAULT_PROFILE else f" {profile}"
    return {
        "run": {"name": _slug(name), "duration": f"{duration_s} s"},
        **network("large", strategy),
        "tfrc_arrivals": classes,
    }


def _slug(text: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "._-" else "_" for ch in text)


def labelled(label: str, profile: str) -> str:
    """A run's label: the default profile's plain, the variant's marked."""
    return label if profile == DEFAULT_PROFILE else f"{label} [{profile}]"


def runs(quick: bool) -> list[RunSpec]:
    out = []
    for profile in PROFILES:
        out += _runs(quick, profile)
    return out


def _runs(quick: bool, profile: str) -> list[RunSpec]:
    out = []
    for frame in FRAMES:
        for name in SINGLE:
            for phase in phases(frame, quick):
                p = {
                    "part": "single",
                    "frame": frame,
                    "strategy": name,
                    "phase": phase,
                    "profile": profile,
                }
                scenario = single_flow(frame, STRATEGIES[name], phase, profile=profile)
                label = labelled(f"{frame} {name} phase {phase}", profile)
                out.append(RunSpec(label, p, scenario))
    rates = QUICK_FIG6_RATES_KBPS if quick else FIG6_RATES_KBPS
    for frame in FRAMES:
        for name in FIG6:
            for kbps in rates:
                for phase in fig6_phases(frame, quick):
                    p = {
                        "part": "rate",
                        "frame": frame,
                        "strategy": name,
                        "rate_kbps": kbps,
                        "phase": phase,
                        "profile": profile,
                    }
                    scenario = single_flow(
                        frame, STRATEGIES[name], phase, kbps * 1e3, trace=False, profile=profile
                    )
                    label = labelled(f"fig6 {frame} {name} {kbps}kbps phase {phase}", profile)
                    out.append(RunSpec(label, p, scenario))
    duration = QUICK_AGGREGATE_S if quick else AGGREGATE_S
    seeds = (1,) if quick else AGGREGATE_SEEDS
    for name in AGGREGATE:
        p = {"part": "aggregate", "strategy": name, "duration_s": duration, "profile": profile}
        scenario = aggregated(STRATEGIES[name], duration, profile)
        out.append(RunSpec(labelled(f"aggregated {name}", profile), p, scenario, seeds=seeds))
    return out


def seeds(quick: bool) -> list[int]:
    # The single-flow runs are deterministic: their replications are the
    # start phases. The aggregated runs carry their own seeds.
    return [1]


def metrics(summary: dict[str, Any], spec: RunSpec) -> dict[str, float]:
    p = spec.params
    m: dict[str, float] = {
        "unaccounted": float(summary["run.pdus_unaccounted"]),
        "uplink_drops": float(sum(summary[f"links.up{i}.drops"] for i in range(1, 6))),
    }
    if p["part"] == "aggregate":
        return m | _aggregate_metrics(summary, p["duration_s"])
    f = "tfrc.v."
    m |= {
        "e2ed_max_s": float(summary[f + "e2ed_max_s"]),
        "e2ed_p50_s": float(summary[f + "e2ed_p50_s"]),
        "first_report_s": measured(summary.get(f + "first_report_s")),
        "qs_validated_s": measured(summary.get(f + "qs_validated_s")),
        "qs_cut_s": measured(summary.get(f + "qs_cut_s")),
        "nofeedback_expiries": float(summary[f + "nofeedback_expiries"]),
        "qs_approved_bps": float(summary[f + "qs_approved_bps"]),
        "packets_lost": float(summary[f + "generated"] - summary[f + "packets_received"]),
    }
    for key in ("superframe_ms", "allocation_delay_ms", "mean_rtt_ms", "tq_max_ms", "tq_opt_ms"):
        m[key] = float(summary[f"dvb_rcs.rl.{key}"])
    m["multiframe_ms"] = m["superframe_ms"] / 3
    m["tr_half_plus_ta_ms"] = m["superframe_ms"] / 2 + m["allocation_delay_ms"]
    return m


def _aggregate_metrics(summary: dict[str, Any], duration_s: float) -> dict[str, float]:
    m: dict[str, float] = {}
    total = 0.0
    loads = {}
    for c in CLASSES:
        k = f"tfrc_arrivals.{c.name}."
        generated_bits = summary[k + "generated"] * c.packet * 8
        loads[c.name] = generated_bits / summary["run.end_time_s"]
        total += loads[c.name]
        m[f"{c.name}_flows_per_1e5_s"] = summary[k + "flows_started"] / duration_s * 1e5
        for key in (
            "tx_buffer_loss",
            "window_tx_buffer_loss",
            "late_fraction",
            "e2ed_p50_s",
            "e2ed_p99_s",
            "window_e2ed_p95_s",
            "window_e2ed_p99_s",
            "nofeedback_expiries",
            "flows_qs_approved",
            "flows_started",
        ):
            m[f"{c.name}_{key}"] = measured(summary.get(k + key))
    m["load_bps"] = total
    for c in CLASSES:
        m[f"{c.name}_share"] = loads[c.name] / total if total else math.nan
    return m


def _table_one(frame: str) -> list[Reference]:
    label = f"{frame} DAMA phase 0"
    src = "tfrc-dama paper, Table I (" + frame + " frame)"
    values = {
        "large": (273, 820, 1641, 777, 1273),
        "small": (45.6, 137, 820, 550, 339),
    }[frame]
    refs = []
    for metric, value, what in zip(
        ("multiframe_ms", "superframe_ms", "allocation_delay_ms", "mean_rtt_ms", "tq_max_ms"),
        values,
        ("T_f", "T_b = T_r", "T_a", "RTT_m = T_f + 2 T_p", "T_q,max, eq. (3)"),
        strict=True,
    ):
        refs.append(
            Reference(
                label,
                metric,
                value,
                src,
                1.0,
                "absolute",
                kind="table",
                notes=f"{what}, derived by the core from the frame (Table I rounds to 1 ms)",
            )
        )
    quoted = {"large": 520, "small": 55}[frame]
    refs.append(
        Reference(
            label,
            "tq_opt_ms",
            quoted,
            "tfrc-dama paper, section 3.5: T_q,opt = 520 and 55 ms",
            3.0,
            "absolute",
            kind="text",
            notes="eq. (6) on Table I's own values gives 518 and 53 ms: the text rounds up",
        )
    )
    return refs


def references() -> list[Reference]:
    refs = _table_one("large") + _table_one("small")
    refs.append(
        Reference(
            "large DAMA phase 0",
            "tr_half_plus_ta_ms",
            2051,
            "tfrc-dama paper, section 3.4: T_r/2 + T_a, the mean request-to-allocation time",
            1.0,
            "absolute",
            kind="text",
        )
    )
    return refs


def series_names() -> tuple[str, ...]:
    names = ["tfrc.v.e2ed", "tfrc.v.owd"]
    for c in CLASSES:
        for what in ("startup_e2ed_p5", "startup_e2ed_p50", "startup_e2ed_p95", "window_e2ed_cdf"):
            names.append(f"tfrc_arrivals.{c.name}.{what}")
    return tuple(names)
