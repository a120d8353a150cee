"""Study `abr-effcap`: TCP over end-to-end explicit-rate control on a
Markov-modulated bottleneck, instcap against effcap feedback.

The system of the paper's Figs. 3-4: a TCP sender (timeout-only recovery,
500-byte packets, 32 KB window) whose packets wait in an unbounded
segmentation buffer at its host, served at the rate the bottleneck feeds
back every 30 ms (`[tcp.NAME.rate_control]`, `[links.NAME.explicit_rate]`);
the same path without rate control ("TCP alone"). The bottleneck's capacity
is the testbed's discrete-time two-state chain: it may change only every
30 ms, 100 KB/s high and 50 KB/s low, a mean τ in each state. Under rate
control packets are timed as AAL5 cells (the cell tax); TCP alone carries
none. All delay is lumped into Δ: the sender is next to the bottleneck, the
data take Δ/2 from it to the receiver and the ACKs Δ/2 back, and the
feedback takes Δ from the bottleneck to the sender, so the loop delay is Δ.

Efficiency is the TCP throughput, TCP/IP headers counted (the paper's
section 5.1), over the mean capacity 75 KB/s, for one 10 MB transfer per
seed. Figure groups: (a) analysis against simulation, instcap (Fig. 8) and
TCP alone (Fig. 9); (b) TCP alone against instcap, buffers 8 and 12
(Fig. 10); (c) instcap against effcap, buffers 8/10/12 (Figs. 11-14); (d)
τ at fixed Δ, Δ at fixed τ, and effcap's M (Figs. 15-19); (e) two sessions
of Δ 240 and 360 ms against TCP alone (Figs. 20-23). The paper's claims are
checked one by one in a claims table. Every assumption is listed in
docs/abr-effcap.md.
"""

from __future__ import annotations

import math
import re
from typing import Any

import pandas as pd

from satcc.studies import compare
from satcc.studies.spec import Reference, RunSpec

HIGH_BPS = 800_000.0  # 100 KB/s
LOW_BPS = 400_000.0  # 50 KB/s
MEAN_BYTES_PER_S = (HIGH_BPS + LOW_BPS) / 2 / 8
INTERVAL_S = 0.030
PACKET = 500  # TCP/IP packet, headers included
HEADER = 40
MSS = PACKET - HEADER
WINDOW = 32 * 1024
TRANSFER = 10_000_000
QUICK_TRANSFER = 2_000_000
DELTA_S = 0.200
ACCESS_BPS = 100e6
PSIS = (0.15, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 25.0, 50.0)
QUICK_PSIS = (0.5, 5.0, 50.0)
# Below 1 s of mean sojourn a transfer of 10 MB sees thousands of changes;
# above 50 Δ it sees a few dozen.
SLOW, FAST = 50.0, 0.5


def effcap_blocks(delta_s: float, rtts: int = 8) -> tuple[int, int]:
    """Section 6's choice: M = one round trip of 30 ms samples (rounded
    up), N = `rtts` round trips of blocks."""
    m = math.ceil(delta_s / INTERVAL_S - 1e-9)
    return m, rtts * m


# The TCP hosts the hypotheses compare (docs/abr-effcap.md, "What explains
# the remaining difference"), as overrides of `_bulk_tcp`. The default is
# the Linux TCP of the paper's testbed as its source gives it. "rfc6298":
# the study's timers before, the first RTO of RFC 6298 (1 s). "4.4bsd": a
# BSD-derived stack (tcp_timer.h: 500 ms slow timer, PR_SLOWHZ = 2,
# TCPTV_MIN 1 s, TCPTV_REXMTMAX 64 s; tcp_subr.c: first RTO
# (TCPTV_SRTTDFLT << 2) >> 1 = 12 ticks, 6 s; 200 ms fast timer for delayed
# ACKs). "-reno": with fast retransmit and fast recovery, which Linux 2.0
# and 4.3BSD-Reno had and the paper's section 2 assumes away.
TCP_HOSTS: dict[str, dict[str, str]] = {
    "linux-2.0": {},
    "rfc6298": {"initial_rto": "1 s", "max_rto": "60 s"},
    "linux-2.0-reno": {"variant": "reno"},
    "4.4bsd": {
        "min_rto": "1 s",
        "clock_granularity": "500 ms",
        "initial_rto": "6 s",
        "max_rto": "64 s",
        "delayed_ack_timeout": "200 ms",
    },
}
TCP_HOSTS["4.4bsd-reno"] = {**TCP_HOSTS["4.4bsd"], "variant": "reno"}
# The wire bytes of one packet under rate control (11 cells): the unit in
# which the explicit-rate port measures capacity, so δ per packet over it
# is δ per byte.
WIRE_PACKET = 11 * 53


def _bulk_tcp(src: str, dst: str, transfer: int | None) -> dict[str, Any]:
    app = {"type": "bulk"} if transfer is None else {"type": "bulk", "size": f"{transfer} B"}
    return {
        "from": src,
        "to": dst,
        # Timeout-only recovery as the paper's TCP ran (no fast retransmit).
        "variant": "tahoe",
        "mss": f"{MSS} B",
        "header": f"{HEADER} B",
        "send_buffer": f"{WINDOW} B",
        "receive_buffer": f"{WINDOW} B",
        # The testbed's Linux TCP (sections 1 and 5: "actual Linux TCP
        # code"), as Linux 2.0 sets its timers: RTO floor HZ/5 (200 ms) and
        # ceiling 120 s (tcp_input.c), first RTO TCP_TIMEOUT_INIT = 3*HZ
        # (include/net/tcp.h, "RFC 1122 initial timeout value"), 10 ms
        # jiffies (HZ = 100 on x86).
        "min_rto": "200 ms",
        "clock_granularity": "10 ms",
        "initial_rto": "3 s",
        "max_rto": "120 s",
        "app": app,
    }


def scenario(p: dict[str, Any], transfer: int) -> dict[str, Any]:
    """The system for one parameter point `p`: scheme ("alone", "instcap",
    "effcap"), buffer (packets), psi (τ/Δ of the larger Δ), deltas (one Δ in
    seconds per session), and for effcap each session's (M, N). Hypotheses
    (absent: the default): host_buffer (the host's segmentation buffer in
    packets), delta_per_packet (effcap's δ, eq. (25), per packet), tcp_host
    (a key of TCP_HOSTS)."""
    deltas = p["deltas"]
    tau = p["psi"] * max(deltas)
    rate_controlled = p["scheme"] != "alone"
    # The bottleneck's delay is the shortest session's Δ/2; each session's
    # ACK link makes up the rest of its round trip.
    forward = min(deltas) / 2
    capacity: dict[str, Any] = {
        "type": "markov",
        "rates": [f"{HIGH_BPS} bps", f"{LOW_BPS} bps"],
        "mean_holding": [f"{tau} s", f"{tau} s"],
        "step": f"{INTERVAL_S} s",
    }
    if "constant_bps" in p:
        # The τ → ∞ limit: one state for the whole transfer.
        capacity = {"type": "constant", "rate": f"{p['constant_bps']} bps"}
    bottleneck = {
        "from": "b",
        "to": "d",
        "delay": f"{forward} s",
        "queue": {"limit": f"{p['buffer']} packets"},
        "capacity": capacity,
    }
    nodes: dict[str, Any] = {"b": {"type": "router"}, "d": {"type": "host"}}
    links: dict[str, Any] = {"bottleneck": bottleneck}
    tcp: dict[str, Any] = {}
    if rate_controlled:
        bottleneck["framing"] = "aal5"
        bottleneck["explicit_rate"] = {"scheme": p["scheme"], "interval": f"{INTERVAL_S} s"}
        if "delta_per_packet" in p:
            bottleneck["explicit_rate"]["delta"] = p["delta_per_packet"] / WIRE_PACKET
    for i, delta in enumerate(deltas, start=1):
        s = f"s{i}"
        nodes[s] = {"type": "host"}
        links[f"access{i}"] = {"from": s, "to": "b", "rate": f"{ACCESS_BPS} bps"}
        links[f"ack{i}"] = {
            "from": "d",
            "to": s,
            "rate": f"{ACCESS_BPS} bps",
            "delay": f"{delta - forward} s",
        }
        # Two sessions send without end, over a fixed time, so that each
        # shares the link with the other for the whole measurement.
        t = _bulk_tcp(s, "d", transfer if len(deltas) == 1 else None)
        t.update(TCP_HOSTS[p.get("tcp_host", "linux-2.0")])
        if rate_controlled:
            links[f"fb{i}"] = {
                "from": "b",
                "to": s,
                "rate": f"{ACCESS_BPS} bps",
                "delay": f"{delta} s",
            }
            block, blocks = p.get("blocks", [(1, 1)] * len(deltas))[i - 1]
            t["rate_control"] = {
                "link": "bottleneck",
                "initial_rate": f"{HIGH_BPS / len(deltas)} bps",
                "block": block,
                "blocks": blocks,
            }
            if "host_buffer" in p:
                t["rate_control"]["buffer"] = p["host_buffer"]
        tcp[f"t{i}"] = t
    # One session: long enough for its transfer at the low rate, twice
    # over, stopping when it completes. Two: the time of the transfer at the
    # mean capacity, twice.
    if len(deltas) == 1:
        duration = 2 * transfer * 8 / LOW_BPS
        stop = {"tcp": "t1", "completed": True}
    else:
        duration = 2 * transfer / MEAN_BYTES_PER_S
        stop = None
    # Named after the point, so that two groups' identical points (Fig. 15's
    # τ sweep is Figs. 11-14's) stay two runs of their own.
    run: dict[str, Any] = {"name": _slug(p), "duration": f"{duration} s"}
    if stop:
        run["stop_when"] = stop
    return {"run": run, "nodes": nodes, "links": links, "tcp": tcp}


def _slug(p: dict[str, Any]) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", "abr-effcap_" + _label(p)).strip("_")


def _point(group: str, scheme: str, buffer: int, psi: float, **more: Any) -> dict[str, Any]:
    p = {"group": group, "scheme": scheme, "buffer": buffer, "psi": psi, "deltas": [DELTA_S]}
    p.update(more)
    if scheme == "effcap" and "blocks" not in p:
        p["blocks"] = [effcap_blocks(d) for d in p["deltas"]]
    return p


def _label(p: dict[str, Any]) -> str:
    deltas = "/".join(f"{d * 1e3:g}" for d in p["deltas"])
    text = f"{p['group']} {p['scheme']} B={p['buffer']} psi={p['psi']:g} delta={deltas}ms"
    if "constant_bps" in p:
        text += f" constant={p['constant_bps'] / 1e3:g}kbps"
    if p["scheme"] == "effcap":
        text += " MN=" + ",".join(f"{m}x{n}" for m, n in p["blocks"])
    for key in HYPOTHESES:
        if key in p:
            text += f" {key}={p[key]}"
    return text


# The options a hypothesis sets, in the order a label names them.
HYPOTHESES = ("host_buffer", "delta_per_packet", "tcp_host")


def points(quick: bool) -> list[dict[str, Any]]:
    psis = QUICK_PSIS if quick else PSIS
    pts: list[dict[str, Any]] = []
    # (a) Figs. 8-9 and (b) Fig. 10: buffers 8, 10, 12, instcap and alone.
    for buffer in (10, 12) if quick else (8, 10, 12):
        for scheme in ("instcap", "alone"):
            pts += [_point("a", scheme, buffer, psi) for psi in psis]
    # The τ/Δ → ∞ limit of section 5.1: each state's rate held constant.
    for rate in (HIGH_BPS, LOW_BPS):
        pts.append(_point("limit", "instcap", 12, math.inf, constant_bps=rate))
    # (c) Figs. 11-14: effcap beside them.
    for buffer in (10,) if quick else (8, 10, 12):
        pts += [_point("c", "effcap", buffer, psi) for psi in psis]
    if quick:
        return pts
    # (d) Fig. 15: τ swept at Δ = 200 ms is (a)/(c). Figs. 16-17: Δ from 50
    # to 500 ms at τ = 1000 and 100 ms.
    for tau in (1.0, 0.1):
        for delta in (0.05, 0.1, 0.2, 0.3, 0.5):
            for scheme in ("instcap", "effcap"):
                pts.append(_point("d-delta", scheme, 10, tau / delta, deltas=[delta], tau_s=tau))
    # Figs. 18-19: M = 1..10 intervals, n fixed (Fig. 18) or n = 12Δ/T.
    for delta in (0.05, 0.1, 0.2):
        for m in (1, 2, 4, 7, 10):
            for n_rule in ("fixed", "12delta"):
                n = 56 if n_rule == "fixed" else math.ceil(12 * delta / INTERVAL_S)
                # τ/Δ of 0.5 (at least one 30 ms step of sojourn) and 5.
                for psi in (max(0.5, INTERVAL_S / delta), 5.0):
                    pts.append(
                        _point(
                            f"d-M-{n_rule}",
                            "effcap",
                            10,
                            psi,
                            deltas=[delta],
                            blocks=[(m, n)],
                        )
                    )
    # (e) Figs. 20-23: two sessions, Δ 240 and 360 ms, buffer 18 packets:
    # effcap per session (case 1: M, N from each Δ) or from the mean Δ
    # (case 2), each fed half; and TCP alone.
    two = [0.24, 0.36]
    for psi in psis:
        pts.append(_point("e", "effcap", 18, psi, deltas=two, case=1))
        mean_blocks = effcap_blocks(sum(two) / 2)
        pts.append(_point("e", "effcap", 18, psi, deltas=two, blocks=[mean_blocks] * 2, case=2))
        pts.append(_point("e", "alone", 18, psi, deltas=two))
    return pts


def runs(quick: bool) -> list[RunSpec]:
    transfer = QUICK_TRANSFER if quick else TRANSFER
    out = []
    for p in points(quick):
        label = _label(p) + (f" case {p['case']}" if "case" in p else "")
        out.append(RunSpec(label, p, scenario(p, transfer)))
    return out


def seeds(quick: bool) -> list[int]:
    return [1, 2] if quick else [1, 2, 3, 4, 5]


def efficiency(
    summary: dict[str, Any], name: str, transfer: int | None, capacity: float = MEAN_BYTES_PER_S
) -> float:
    """Throughput with TCP/IP headers over the mean capacity (bytes/s): of
    a sized transfer until it completed (NaN if it did not), or of an
    endless one over the whole run."""
    if transfer is None:
        # A run that reported no delivered bytes measured none: NaN, where
        # 0 would judge an efficiency nothing measured.
        delivered = summary.get(f"tcp.{name}.delivered_bytes")
        if delivered is None:
            return math.nan
        return delivered * PACKET / MSS / summary["run.end_time_s"] / capacity
    done = summary.get(f"tcp.{name}.completion_time_s")
    if done is None or not done > 0:
        return math.nan
    return transfer * PACKET / MSS / done / capacity


def metrics(summary: dict[str, Any], spec: RunSpec) -> dict[str, float]:
    p = spec.params
    transfer = _transfer(spec)
    m: dict[str, float] = {}
    capacity = p.get("constant_bps", HIGH_BPS / 2 + LOW_BPS / 2) / 8
    for i in range(1, len(p["deltas"]) + 1):
        key = "efficiency" if len(p["deltas"]) == 1 else f"efficiency_{i}"
        m[key] = efficiency(summary, f"t{i}", transfer, capacity)
        m[f"timeouts_{i}"] = float(summary.get(f"tcp.t{i}.timeouts", math.nan))
    if len(p["deltas"]) > 1:
        m["efficiency"] = m["efficiency_1"] + m["efficiency_2"]
    if "constant_bps" in p:
        m["efficiency_paper_tax"] = paper_tax_efficiency(m["efficiency"])
    m["bottleneck_drops"] = float(summary.get("links.bottleneck.drops", math.nan))
    return m


def _transfer(spec: RunSpec) -> int | None:
    size = spec.scenario["tcp"]["t1"]["app"].get("size")
    return None if size is None else int(size.split()[0])


# The paper's cell tax: 5 header bytes in every 53 (section 5.1), nothing
# more. Under rate control satcc's 500-byte packets also carry LLC/SNAP,
# the AAL5 trailer and padding: 583 bytes on the wire, not 552.
PAPER_TAX = 53 / 48


def paper_tax_efficiency(efficiency: float) -> float:
    """The efficiency of a saturated, loss-free loop recounted as if each
    packet cost only the paper's 53/48 on the wire: the wire time per
    packet, hence the packet rate, scales by 583 / (500 × 53/48)."""
    return efficiency * WIRE_PACKET / (PACKET * PAPER_TAX)


def references() -> list[Reference]:
    return [
        Reference(
            _label(_point("limit", "instcap", 12, math.inf, constant_bps=rate)),
            "efficiency_paper_tax",
            0.90,
            "abr-effcap paper, section 5.1: even as τ/Δ grows without bound TCP over "
            "ABR tops out near 90 % efficiency (5 bytes of every 53 are ATM headers)",
            0.05,
            kind="text",
            notes=f"the limit: the {state} rate held. The paper's 90 % is 48/53 = 0.906, "
            "a cell's payload share; satcc's packets also carry LLC/SNAP, the AAL5 "
            "trailer and padding (11 cells, 583 bytes: ceiling 500/583 = 0.858), so its "
            "efficiency is judged recounted at the paper's 53/48 per byte "
            "(× 583/552)",
        )
        for rate, state in ((HIGH_BPS, "high"), (LOW_BPS, "low"))
    ]


def per_point(
    specs: list[RunSpec], summaries: dict[tuple[int, int], dict[str, Any]]
) -> pd.DataFrame:
    """Mean and CI of each metric at each point, one row per point."""
    return compare.per_point(specs, summaries, metrics, _flat)


def _flat(p: dict[str, Any]) -> dict[str, Any]:
    flat = {k: v for k, v in p.items() if k not in ("deltas", "blocks")}
    flat["delta_ms"] = "/".join(f"{d * 1e3:g}" for d in p["deltas"])
    flat["blocks"] = ";".join(f"{m}x{n}" for m, n in p.get("blocks", []))
    return flat
