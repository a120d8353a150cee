"""Study `leo-hypatia`: TCP over moving LEO paths, as Hypatia runs it.

Hypatia (Kassing, Bhattacherjee, Águas, Saethre and Singla, "Exploring the
'Internet from space' with Hypatia", IMC 2020) runs one long TCP flow for
200 s between city pairs over Kuiper's first shell (K1: 34 x 34 satellites
at 630 km, 51.9°, +Grid ISLs, 30° minimum elevation), routes recomputed
every 100 ms, every ISL and GSL at 10 Mbit/s with a 100-packet drop-tail
queue, ns-3.31's TcpNewReno (MSS 1380 B, initial window 10, SACK and
timestamps; its repository's paper/ns3_experiments/a_b). Its figures
(3-5) show, for Rio de Janeiro - Saint Petersburg, Manila - Dalian and
Istanbul - Nairobi, the computed RTT against the RTT TCP measures, and
NewReno's window against "BDP + Q".

satcc runs the same pairs: the link between the two cities takes the
path's delay at every step ([constellation], docs/leo.md), at 10 Mb/s with
a 100-packet drop-tail queue at the first hop (all hops run at one rate,
so that is the only place one flow queues). NewReno is Hypatia's; CUBIC and
BBR (v1) are shown beside it, and the same pairs over Starlink's first
shell (S1) as a second shell.

Judged: the paths against Hypatia's own reference data where its
repository stores it (Manila - Dalian's RTTs and path changes; every path
into Saint Petersburg unreachable from 155.4 s to 165.2 s), and NewReno
against closed forms: a 100-packet buffer, above the paths' 23-64 packet
bandwidth-delay products, keeps the link busy while a path exists, and one
flow's sawtooth fills it to a known mean. The paper's text states no
numbers of its own for these runs that this study could reach; its figures
are drawn here again from satcc's runs (leo_hypatia_*.png).
"""

from __future__ import annotations

import functools
import math
from pathlib import Path
from typing import Any

import numpy as np

from satcc.studies.spec import Reference, RunSpec, Study, measured, shown

DURATION_S = 200.0
STEP_S = 0.1
RATE_BPS = 10e6
QUEUE_PACKETS = 100
MSS = 1380
# IPv4 20, TCP 20 and the timestamp option 12 (ns-3 sends them).
HEADER = 52
PACKET = MSS + HEADER
# Hypatia's a_b pairs (its paper/ns3_experiments/a_b/run_list.py), cities
# by name as satcc.leo.ground.CITIES (Hypatia's order).
PAIRS = (
    ("Rio de Janeiro", "Saint Petersburg"),
    ("Manila", "Dalian"),
    ("Istanbul", "Nairobi"),
)
SHELLS = ("kuiper-k1", "starlink-s1")
CONTROLLERS = ("newreno", "cubic", "bbr")
# Nothing in these runs draws a random number (drop-tail queues, no
# losses but the queue's, TCP without randomness): every seed would give
# the same result, so one is run.
SEEDS = [1]
SERIES = ("srtt", "cwnd", "path_delay")

HYPATIA_DATA = (
    "Hypatia's repository, satgenpy/tests/data_to_match/kuiper_630 "
    "(networkx_rtt_1173_to_1241.txt, networkx_path_1173_to_1241.txt): Kuiper K1 at "
    "100 ms over 200 s"
)
HYPATIA_UNREACHABLE = (
    "Hypatia's repository, satgenpy/tests/data_to_match/kuiper_630: every stored path "
    "into Saint Petersburg (from Manila, to Dalian) is unreachable from 155.4 s to 165.2 s "
    "(98 steps); its figures for Rio de Janeiro - Saint Petersburg shade that interval"
)
VILLAMIZAR = (
    "Villamizar and Song, ACM CCR 24(5), 1994: a drop-tail buffer of at least the "
    "bandwidth-delay product keeps Reno's link busy; here while a path exists"
)
SAWTOOTH = (
    "One Reno flow over a drop-tail buffer Q above the BDP: the window halves from "
    "BDP + Q, leaving (BDP + Q)/2 - BDP queued, and the queue refills linearly to Q"
)


SHORT = {"Rio de Janeiro": "Rio", "Saint Petersburg": "StPetersburg"}


def label(shell: str, pair: tuple[str, str], cc: str) -> str:
    a, b = (SHORT.get(city, city) for city in pair)
    return f"{shell} {a}-{b} {cc}"


def tcp_table(cc: str) -> dict[str, Any]:
    """NewReno as Hypatia's ns-3.31 runs it; CUBIC and BBR, which ns-3.31
    does not have, as Linux runs them (the `linux` preset, HyStart on)."""
    common: dict[str, Any] = {
        "from": "a",
        "to": "b",
        "mss": f"{MSS} B",
        "header": f"{HEADER} B",
        # 32 MiB each way, as Hypatia's basic-sim sets them: never the limit.
        "send_buffer": "32 MiB",
        "receive_buffer": "32 MiB",
        "app": {"type": "bulk"},
    }
    if cc != "newreno":
        return {**common, "preset": "linux", "congestion_control": cc, "hystart": cc == "cubic"}
    # ns-3.31's TcpNewReno with SACK, initial window 10 and its default
    # recovery (TcpPrrRecovery); its 1 s minimum and initial RTO and 200 ms
    # delayed ACKs are satcc's defaults too.
    return {**common, "variant": "sack", "initial_window": 10, "prr": True}


def scenario(shell: str, pair: tuple[str, str], cc: str) -> dict:
    """Two hosts at the pair's cities joined by the constellation's path."""
    tcp = tcp_table(cc)
    return {
        "run": {
            "name": "leo-hypatia",
            "duration": f"{DURATION_S:g} s",
            "sample_interval": f"{STEP_S * 1e3:g} ms",
        },
        "nodes": {"a": {"type": "host"}, "b": {"type": "host"}},
        "constellation": {
            "c": {
                "shell": shell,
                "step": f"{STEP_S * 1e3:g} ms",
                "stations": {"a": {"city": pair[0]}, "b": {"city": pair[1]}},
            }
        },
        "links": {
            "sat": {
                "from": "a",
                "to": "b",
                "rate": f"{RATE_BPS:g} bps",
                "duplex": True,
                "path": {"constellation": "c", "from": "a", "to": "b"},
                "queue": {"type": "droptail", "limit": f"{QUEUE_PACKETS} packets"},
            }
        },
        "tcp": {"t": tcp},
        "probes": {
            "srtt": {"tcp": "t", "metric": "srtt_s"},
            "cwnd": {"tcp": "t", "metric": "cwnd_bytes"},
            "path_delay": {"link": "sat", "metric": "delay_s"},
        },
    }


def cases() -> list[tuple[str, tuple[str, str], str]]:
    return [(shell, pair, cc) for shell in SHELLS for pair in PAIRS for cc in CONTROLLERS]


def runs(quick: bool) -> list[RunSpec]:
    return [
        RunSpec(
            label=label(shell, pair, cc),
            params={"shell": shell, "from": pair[0], "to": pair[1], "cc": cc},
            scenario=scenario(shell, pair, cc),
        )
        for shell, pair, cc in cases()
    ]


def seeds(quick: bool) -> list[int]:
    return list(SEEDS)


@functools.lru_cache(maxsize=16)
def path(shell: str, a: str, b: str) -> dict[str, float]:
    """The pair's path over the run: RTT min, mean and max (ms), path
    changes, seconds unreachable, and the first and last unreachable
    instants (NaN if always reachable)."""
    from satcc.leo import ground
    from satcc.scenario.constellation import path_series

    # The series the runs' validation computed (and cached) for their link.
    stations = (ground.city(a), ground.city(b))
    steps, step_ps = round(DURATION_S / STEP_S), round(STEP_S * 1e12)
    s = path_series(shell, stations, ((0, 1),), steps, step_ps, "range")[(0, 1)]
    rtt = s.rtt_s * 1e3
    gone = np.flatnonzero(np.isnan(rtt))
    return {
        "path_rtt_min_ms": float(np.nanmin(rtt)),
        "path_rtt_mean_ms": float(np.nanmean(rtt)),
        "path_rtt_max_ms": float(np.nanmax(rtt)),
        "path_changes": float(s.path_changes),
        "unreachable_s": s.unreachable_s(STEP_S),
        "unreachable_from_s": float(s.t_s[gone[0]]) if len(gone) else math.nan,
        "unreachable_to_s": float(s.t_s[gone[-1]] + STEP_S) if len(gone) else math.nan,
    }


def sawtooth_queue_packets(bdp: float) -> float:
    """One flow's mean queue over its sawtooth (SAWTOOTH)."""
    low = max(0.0, (bdp + QUEUE_PACKETS) / 2 - bdp)
    return (low + QUEUE_PACKETS) / 2


def metrics(summary: dict[str, Any], spec: RunSpec) -> dict[str, float]:
    p = spec.params
    geo = path(p["shell"], p["from"], p["to"])
    tx_s = PACKET * 8 / RATE_BPS
    busy_share = 1 - geo["unreachable_s"] / DURATION_S
    bdp = RATE_BPS * geo["path_rtt_mean_ms"] / 1e3 / (8 * PACKET)

    def value(key: str) -> float:
        return measured(summary[key])

    return {
        **geo,
        "goodput_mbps": value("tcp.t.goodput_bps") / 1e6,
        # The link's busy share while a path exists.
        "utilisation_reachable": value("links.sat.utilisation") / busy_share,
        "queue_delay_mean_ms": 1e3 * value("links.sat.wait_mean_s"),
        "sawtooth_queue_delay_ms": 1e3 * sawtooth_queue_packets(bdp) * tx_s,
        "queue_vs_sawtooth": value("links.sat.wait_mean_s") / (sawtooth_queue_packets(bdp) * tx_s),
        "retransmissions": value("tcp.t.retransmissions"),
        "timeouts": value("tcp.t.timeouts"),
        "drops_unreachable": value("links.sat.drops_unreachable"),
        "cwnd_max_packets": value("tcp.t.cwnd_max_bytes") / MSS,
    }


# ---------------------------------------------------------------------------
# References

SHOWN = (
    "sawtooth_queue_delay_ms",
    "path_rtt_min_ms",
    "path_rtt_mean_ms",
    "path_rtt_max_ms",
    "path_changes",
    "unreachable_s",
    "goodput_mbps",
    "utilisation_reachable",
    "queue_delay_mean_ms",
    "retransmissions",
    "timeouts",
    "drops_unreachable",
)


def references() -> list[Reference]:
    refs = []
    md = label("kuiper-k1", ("Manila", "Dalian"), "newreno")
    for metric, value in (
        ("path_rtt_min_ms", 25.230),
        ("path_rtt_mean_ms", 40.144),
        ("path_rtt_max_ms", 48.165),
    ):
        refs.append(Reference(md, metric, value, HYPATIA_DATA, 0.02, "absolute", "data"))
    refs.append(Reference(md, "path_changes", 5, HYPATIA_DATA, 0, "absolute", "data"))
    refs.append(Reference(md, "unreachable_s", 0.0, HYPATIA_DATA, 0, "absolute", "data"))
    rio = label("kuiper-k1", ("Rio de Janeiro", "Saint Petersburg"), "newreno")
    for metric, value in (("unreachable_from_s", 155.4), ("unreachable_to_s", 165.2)):
        refs.append(Reference(rio, metric, value, HYPATIA_UNREACHABLE, 0.15, "absolute", "data"))
    # Judged on the pairs that keep a path throughout: after an outage the
    # timer's back-off leaves the link idle for a while, which no closed
    # form here accounts for (Rio de Janeiro - Saint Petersburg is shown).
    for shell in SHELLS:
        for pair in PAIRS[1:]:
            run = label(shell, pair, "newreno")
            refs.append(Reference(run, "utilisation_reachable", 1.0, VILLAMIZAR, 0.05, "absolute"))
            refs.append(
                Reference(
                    run,
                    "queue_vs_sawtooth",
                    1.0,
                    SAWTOOTH,
                    0.25,
                    notes="the path's BDP changes by up to a third over the run, and path "
                    "changes reorder segments: 25 %",
                )
            )
    judged = {(r.label, r.metric) for r in refs}
    for shell, pair, cc in cases():
        run = label(shell, pair, cc)
        refs += [shown(run, m) for m in SHOWN if (run, m) not in judged]
    return refs


# ---------------------------------------------------------------------------
# The table and the figures


def layout(table: Any) -> list[Any]:
    """One line per shell, pair and TCP: the path, then what TCP made of it;
    then the judged checks."""
    from rich import box
    from rich.table import Table

    from satcc import fmt
    from satcc.studies.compare import verdict_markup
    from satcc.studies.present import judged_checks

    out = Table(
        title="leo-hypatia: one TCP flow for 200 s over a moving LEO path (10 Mb/s, 100 packets)",
        title_justify="left",
        box=box.SIMPLE_HEAD,
        padding=(0, 1),
    )
    heads = ["shell", "pair", "TCP", "RTT min/mean/max ms", "changes", "unreach s"]
    heads += ["Mb/s", "util", "queue ms", "sawtooth ms", "retx", "RTOs", "checks"]
    for head in heads:
        out.add_column(head, no_wrap=True, justify="left" if head in heads[:3] else "right")
    for shell, pair, cc in cases():
        run = label(shell, pair, cc)
        rows = {r.metric: r for r in table[table["label"] == run].itertuples()}

        def cell(metric: str, digits: int = 4, rows=rows) -> str:
            row = rows.get(metric)
            return fmt.MISSING if row is None else fmt.number(row.measured, digits)

        rtt = "/".join(
            cell(m, 4) for m in ("path_rtt_min_ms", "path_rtt_mean_ms", "path_rtt_max_ms")
        )
        verdicts = [verdict_markup(r) for r in rows.values() if r.tolerance_kind != "none"]
        out.add_row(
            shell,
            f"{pair[0]} - {pair[1]}",
            cc,
            rtt,
            cell("path_changes"),
            cell("unreachable_s", 3),
            cell("goodput_mbps"),
            cell("utilisation_reachable", 3),
            cell("queue_delay_mean_ms"),
            cell("sawtooth_queue_delay_ms"),
            cell("retransmissions"),
            cell("timeouts"),
            " ".join(verdicts),
        )
    return [out, judged_checks("leo-hypatia", table)]


def artifacts(
    specs: list[RunSpec],
    summaries: dict[tuple[int, int], dict[str, Any]],
    out_dir: Path,
    quick: bool,
    series: dict[tuple[int, int], dict[str, tuple[Any, Any]]],
) -> list[str]:
    """Hypatia's Figs. 3 and 4 again, per shell: for each pair, the path's
    RTT and the RTT NewReno measures (its smoothed RTT), and NewReno's
    window against BDP + Q, from seed 1's runs."""
    from satcc.studies import plots

    written: list[str] = []
    for shell in SHELLS:
        fig, axes = plots.figure(
            "time (s)", "", size=(9.0, 7.0), nrows=len(PAIRS), ncols=2, squeeze=False
        )
        drawn = False
        for row, pair in enumerate(PAIRS):
            index = next(
                (i for i, s in enumerate(specs) if s.label == label(shell, pair, "newreno")), None
            )
            got = series.get((index, 1), {}) if index is not None else {}
            if not all(name in got for name in SERIES):
                continue
            drawn = True
            t, delay = (np.asarray(v, float) for v in got["path_delay"])
            _, srtt = (np.asarray(v, float) for v in got["srtt"])
            _, cwnd = (np.asarray(v, float) for v in got["cwnd"])
            rtt_ax, cwnd_ax = axes[row, 0], axes[row, 1]
            rtt_ax.plot(t, srtt * 1e3, lw=0.8, label="NewReno's smoothed RTT")
            rtt_ax.plot(t, 2 * delay * 1e3, "k", lw=0.8, label="the path's RTT")
            rtt_ax.set_ylabel("RTT (ms)")
            bdp_q = 2 * delay * RATE_BPS / (8 * PACKET) + QUEUE_PACKETS
            cwnd_ax.plot(t, cwnd / MSS, lw=0.8, label="NewReno's window")
            cwnd_ax.plot(t, bdp_q, "k", lw=0.8, label="BDP + Q")
            cwnd_ax.set_ylabel("packets")
            for ax in (rtt_ax, cwnd_ax):
                plots.panel_title(ax, f"{pair[0]} - {pair[1]}")
                plots.legend(ax, fontsize=7)
        if not drawn:
            continue
        plots.title(fig, f"TCP over {shell}, as Hypatia's Figs. 3 and 4", "seed 1")
        caption = (
            f"One NewReno flow for 200 s over each pair's moving path on {shell}, 10 Mb/s with a "
            "100-packet drop-tail queue at the first hop. Left: the path's RTT (black) and the "
            "smoothed RTT NewReno measures, the queue's delay included. Right: NewReno's window "
            "in packets against the path's bandwidth-delay product plus the queue (black), the "
            "window at which the queue overflows. Gaps: no path."
        )
        written += plots.save_figure(fig, out_dir / f"leo_hypatia_{shell}.png", caption)
    return written


STUDY = Study(
    name="leo-hypatia",
    title="TCP over moving LEO paths, as Hypatia runs it (IMC 2020)",
    paper=(
        "Kassing, Bhattacherjee, Águas, Saethre and Singla, 'Exploring the \"Internet from "
        "space\" with Hypatia', ACM IMC 2020, and its repository's reference data"
    ),
    description=(__doc__ or "").split("\n\n", 1)[1].strip(),
    runs=runs,
    metrics=metrics,
    references=references(),
    seeds=seeds,
    quick_note="NewReno only (Hypatia's TCP, every judged check); CUBIC and BBR in full mode",
    full_only=frozenset(label(shell, pair, cc) for shell, pair, cc in cases() if cc != "newreno"),
    layout=layout,
    artifacts=artifacts,
    series=SERIES,
)
