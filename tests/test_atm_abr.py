# TCP over ATM ABR end to end through satcc.run: AAL5 cell arithmetic,
# ERICA+ rate allocation (single VC, equal shares, max-min with a second
# bottleneck), strict VBR priority with MPEG-2 video, the MPEG-2 rate
# process, determinism, refusals of bad [abr] / [erica] / mpeg2 tables and the
# abr-lrd-vbr study's scenario builder. Every expected value is derived here
# (cell formulas, ERICA+ targets, max-min shares, truncated-normal means,
# standard errors), never read back from an earlier run.

import copy
import math

import numpy as np
import pytest
import satcc
from satcc.scenario import Scenario, ScenarioError
from scipy.stats import truncnorm

OC3 = "149.76 Mbps"
OC3_BPS = 149.76e6
CELL_BYTES = 53
CELL_BITS = CELL_BYTES * 8
CELL_PAYLOAD = 48
AAL5_TRAILER = 8
ENCAP_HEADER = {"llc_snap": 8, "vc_mux": 0}  # RFC 2684 LLC/SNAP, or none
TCP_IP_HEADER = 40
# ERICA+ defaults of the study (REFERENCE section 1): T0, averaging interval.
T0_S = 500e-6
INTERVAL_S = 5e-3
ERICA_A = 1.15
# Switch ports whose queues never overflow in these runs.
BIG = {
    "type": "priority",
    "high": {"limit": "1000000 packets"},
    "low": {"limit": "1000000 packets"},
}


def cells(ip_bytes: int, encapsulation: str = "llc_snap") -> int:
    """AAL5 cells for an IP packet: header + trailer, padded to 48-byte payloads."""
    return math.ceil((ip_bytes + ENCAP_HEADER[encapsulation] + AAL5_TRAILER) / CELL_PAYLOAD)


def max_efficiency(mss: int) -> float:
    """TCP payload per ABR line bit: MSS over the segment's cells, 31 of 32 cells data."""
    return mss / (cells(mss + TCP_IP_HEADER) * CELL_BYTES) * 31 / 32


def jain(x) -> float:
    x = np.asarray(x, dtype=float)
    return x.sum() ** 2 / (len(x) * (x**2).sum())


def steady_mean(res: satcc.Result, name: str, from_s: float) -> float:
    """Mean of a probe series over its samples at or after from_s."""
    frame = res.series(name)
    return float(frame.loc[frame["time_s"] >= from_s, "value"].mean())


def star(
    n: int,
    *,
    bottleneck: str = OC3,
    access: str = OC3,
    delay: str = "0.1 ms",
    duration: str = "3 s",
    mss: int = 512,
    abr: dict | None = None,
    erica: dict | None = None,
    buffer: str = "1 MiB",
) -> dict:
    """n TCP/ABR bulk transfers a0..a{n-1} -> b through one switch sw.

    Host i reaches sw over its own duplex access link; sw -> b is the ERICA+
    bottleneck (duplex, ERICA+ and a two-priority port both ways). All links
    have the same one-way delay, so every connection has the same RTT
    (4 x delay) and feedback delay from the bottleneck (2 x delay).
    """
    erica = {} if erica is None else erica
    nodes = {"sw": {}, "b": {"type": "host"}}
    links = {
        "sw_b": {
            "from": "sw",
            "to": "b",
            "rate": bottleneck,
            "delay": delay,
            "duplex": True,
            "queue": BIG,
            "erica": dict(erica),
        }
    }
    tcp, probes = {}, {}
    for i in range(n):
        host = f"a{i}"
        nodes[host] = {"type": "host"}
        links[f"{host}_sw"] = {
            "from": host,
            "to": "sw",
            "rate": access,
            "delay": delay,
            "duplex": True,
            "queue": BIG,
        }
        tcp[f"t{i}"] = {
            "from": host,
            "to": "b",
            "mss": f"{mss} B",
            "send_buffer": buffer,
            "receive_buffer": buffer,
            "abr": dict((abr or {}).get(i, {})),
        }
        probes[f"goodput{i}"] = {"tcp": f"t{i}", "metric": "goodput_bps"}
        probes[f"acr{i}"] = {"tcp": f"t{i}", "metric": "acr_bps"}
    probes["abr_queue"] = {"link": "sw_b", "metric": "queue_low_packets"}
    probes["abr_capacity"] = {"link": "sw_b", "metric": "erica_abr_capacity_bps"}
    probes["fair_share"] = {"link": "sw_b", "metric": "erica_fair_share_bps"}
    return {
        "run": {"name": "abr", "duration": duration, "sample_interval": "10 ms"},
        "nodes": nodes,
        "links": links,
        "tcp": tcp,
        "probes": probes,
    }


def with_video(sc: dict, n_video: int, mean: str, std: str, delay: str = "0.1 ms") -> dict:
    """Adds n_video MPEG-2 sources (priority 0) at host vsrc -> sw -> sink at b."""
    sc = copy.deepcopy(sc)
    sc["nodes"]["vsrc"] = {"type": "host"}
    sc["links"]["vsrc_sw"] = {"from": "vsrc", "to": "sw", "rate": OC3, "delay": delay}
    sc["sinks"] = {"vbr": {"node": "b"}}
    sc["sources"] = {
        f"video{k}": {
            "type": "mpeg2",
            "from": "vsrc",
            "to": "vbr",
            "rate": mean,
            "std": std,
            "hurst": 0.8,
            "priority": 0,
        }
        for k in range(n_video)
    }
    return sc


def no_losses(s: dict) -> None:
    for key, value in s.items():
        if key.endswith((".drops", ".cells_dropped", ".packets_lost", ".segments_dropped")):
            assert value == 0, key
        if key.endswith((".timeouts", ".lost_packets")):
            assert value == 0, key


# ---------------------------------------------------------------------------
# 1. AAL5 and RM-cell arithmetic, counted cell by cell over a whole transfer.


@pytest.mark.parametrize(
    ("mss", "encapsulation", "delayed_ack", "nrm"),
    [
        (512, "llc_snap", True, 32),  # the paper's 12-cell segment
        (512, "vc_mux", False, 32),  # 552 + 8 = 560 B: still 12 cells; ACKs 1 cell
        (1460, "llc_snap", True, 8),  # 1500 B IP: 32 cells; FRM every 7 data cells
        (9140, "llc_snap", True, 32),  # 9180 B IP: 192 cells
    ],
)
def test_cells_per_packet_and_frm_per_nrm_over_a_whole_transfer(
    mss, encapsulation, delayed_ack, nrm
):
    n_segments = 50
    sc = star(1, duration="0.5 s", mss=mss, access="622.08 Mbps", delay="1 ms")
    sc["tcp"]["t0"].update(
        {
            "send_buffer": f"{32 * mss} B",  # whole segments only
            "receive_buffer": f"{32 * mss} B",
            "delayed_ack": delayed_ack,
            "app": {"type": "bulk", "size": f"{n_segments * mss} B"},
            "abr": {"encapsulation": encapsulation, "nrm": nrm},
        }
    )
    s = satcc.run(sc, seed=1).summary
    t = "tcp.t0"
    no_losses(s)
    # Done well before Trm (100 ms), so only the Nrm rule places FRMs, and
    # long before the end of the run, so every cell has arrived.
    assert s[f"{t}.completion_time_s"] < 0.1
    assert s[f"{t}.delivered_bytes"] == n_segments * mss
    assert s[f"{t}.segments_sent"] == n_segments and s[f"{t}.retransmissions"] == 0

    # Forward VC: the SYN (header only) and the data segments.
    fwd = f"{t}.vc_forward"
    data_fwd = cells(TCP_IP_HEADER, encapsulation) + n_segments * cells(
        mss + TCP_IP_HEADER, encapsulation
    )
    # Its source also sends, in rate, the reverse VC's turned-around BRMs
    # (TM 4.0 source rule 3b): one per FRM of the reverse VC.
    rev = f"{t}.vc_reverse"
    assert s[f"{fwd}.brms_turned_around"] == s[f"{rev}.frm_cells"]
    assert (
        s[f"{fwd}.cells_sent"] - s[f"{fwd}.frm_cells"] - s[f"{fwd}.brms_turned_around"] == data_fwd
    )
    # An FRM first, then one after every Nrm - 1 in-rate cells, data and
    # turned-around BRMs alike (TM 4.0 rule 3a).
    in_rate_fwd = data_fwd + s[f"{fwd}.brms_turned_around"]
    assert s[f"{fwd}.frm_cells"] == math.ceil(in_rate_fwd / (nrm - 1))
    assert s[f"{fwd}.brm_cells"] == s[f"{fwd}.frm_cells"]

    # Reverse VC: the SYN-ACK and the pure ACKs, header-only packets.
    data_rev = cells(TCP_IP_HEADER, encapsulation) * (1 + s[f"{t}.acks_sent"])
    assert s[f"{rev}.brms_turned_around"] == s[f"{fwd}.frm_cells"]
    assert (
        s[f"{rev}.cells_sent"] - s[f"{rev}.frm_cells"] - s[f"{rev}.brms_turned_around"] == data_rev
    )
    in_rate_rev = data_rev + s[f"{rev}.brms_turned_around"]
    assert s[f"{rev}.frm_cells"] == math.ceil(in_rate_rev / (nrm - 1))
    if not delayed_ack:
        assert s[f"{t}.acks_sent"] == n_segments

    # The bottleneck carried what the forward VC's source sent: its data
    # and FRMs and the reverse VC's BRMs, all 53-byte cells.
    assert s["links.sw_b.tx_packets"] == s[f"{fwd}.cells_sent"]
    assert s["links.sw_b.tx_bytes"] == CELL_BYTES * s["links.sw_b.tx_packets"]


# ---------------------------------------------------------------------------
# 2-4. ERICA+ allocations.


@pytest.mark.parametrize("mss", [512, 9140])
def test_one_connection_reaches_the_maximum_tcp_over_abr_efficiency(mss):
    # Why one VC gets the whole link: ERICA+ aims at a target capacity
    # f(q) x C, where the queue-control factor f is b = 1.05 at an empty ABR
    # queue, 1 at the target queue Q0 = T0 x C, and falls (never below QDLF)
    # above it. With one active VC the fair share is the whole target, so
    # while the queue is below Q0 the explicit rate is above C and the VC
    # runs at its PCR (= C); the queue then sits near Q0, where f = 1: the
    # link never idles and never overflows. (Plain ERICA with a utilisation
    # target of 0.9-0.95 would hold the VC below the link rate.) The access
    # link is faster (OC-12), so the bottleneck is the ERICA+ port.
    sc = star(
        1,
        access="622.08 Mbps",
        delay="1 ms",
        duration="2 s",
        mss=mss,
        buffer=f"{400 * mss} B",
    )
    res = satcc.run(sc, seed=1)
    s = res.summary
    no_losses(s)
    efficiency = steady_mean(res, "goodput0", 1.0) / OC3_BPS
    # 0.7799 for MSS 512, 0.8701 for 9140. The reverse VC's BRMs share the
    # bottleneck (about 0.3 % of it), hence the tolerance.
    assert efficiency == pytest.approx(max_efficiency(mss), rel=0.01)
    # Never above it, but for the segment that may straddle the start of
    # the averaging second.
    assert efficiency <= max_efficiency(mss) + mss * 8 / OC3_BPS
    # The ABR queue stays near the ERICA+ target, far below anything harmful.
    q0 = T0_S * OC3_BPS / CELL_BITS  # 176.6 cells
    assert s["links.sw_b.queue_max_low_packets"] <= 1.25 * q0


def test_single_vc_acr_settles_at_the_erica_abr_capacity():
    # PCR (OC-3) above the 100 Mb/s bottleneck: the explicit rate, not the
    # PCR, must hold the source at the ABR capacity of the port.
    delay_s = 2.5e-3
    sc = star(1, bottleneck="100 Mbps", delay="2.5 ms", duration="2 s")
    res = satcc.run(sc, seed=1)
    s = res.summary
    no_losses(s)
    capacity = 100e6
    assert steady_mean(res, "abr_capacity", 0.0) == pytest.approx(capacity)
    acr = steady_mean(res, "acr0", 1.0)
    assert acr == pytest.approx(capacity, rel=0.02)
    # ERICA+ may grant up to b x C while the queue is below Q0, but a rate
    # above C would grow the queue without bound: the average sits at C.
    assert acr <= capacity * 1.001
    assert steady_mean(res, "fair_share", 1.0) == pytest.approx(acr, rel=0.02)
    # Goodput follows: ACR times the cell efficiency.
    assert steady_mean(res, "goodput0", 1.0) == pytest.approx(acr * max_efficiency(512), rel=0.01)
    # Bounded queue: a small fraction of the bandwidth-delay product, and in
    # steady state close to the target Q0 = T0 x C.
    cell_rate = capacity / CELL_BITS
    bdp_cells = cell_rate * 4 * delay_s
    q0 = T0_S * cell_rate
    assert s["links.sw_b.queue_max_low_packets"] <= bdp_cells / 4
    assert steady_mean(res, "abr_queue", 1.0) == pytest.approx(q0, rel=0.25)


def test_equal_rtt_connections_share_the_bottleneck_fairly():
    # Five connections, equal RTT, short feedback delay (LAN-like, 0.2 ms,
    # well below the averaging interval): ERICA+ converges to C/5 each. With
    # a feedback delay longer than the interval (5 ms and up) the rates
    # oscillate and the link is not fully used, so the shares there are
    # below C/N although still equal.
    n = 5
    res = satcc.run(star(n, duration="3 s"), seed=1)
    no_losses(res.summary)
    goodput = [steady_mean(res, f"goodput{i}", 1.0) for i in range(n)]
    assert jain(goodput) >= 0.99
    for g in goodput:
        assert g == pytest.approx(OC3_BPS / n * max_efficiency(512), rel=0.02)
    assert res.summary["links.sw_b.erica.n_active"] == n


def _capped_by_pcr() -> tuple[dict, float]:
    sc = star(4, bottleneck="100 Mbps", duration="3 s", abr={0: {"pcr": "10 Mbps"}})
    return sc, 10e6


def _capped_by_second_bottleneck() -> tuple[dict, float]:
    # a0 reaches sw through switch sw0 and a 20 Mb/s link with its own
    # ERICA+ port: its bottleneck is there, not at sw_b.
    sc = star(4, bottleneck="100 Mbps", duration="3 s")
    sc["nodes"]["sw0"] = {}
    sc["links"]["a0_sw"]["to"] = "sw0"
    sc["links"]["sw0_sw"] = {
        "from": "sw0",
        "to": "sw",
        "rate": "20 Mbps",
        "delay": "0.1 ms",
        "duplex": True,
        "queue": BIG,
        "erica": {},
    }
    return sc, 20e6


@pytest.mark.parametrize("build", [_capped_by_pcr, _capped_by_second_bottleneck])
def test_max_min_share_when_one_vc_is_limited_elsewhere(build):
    # Same LAN-like delays as above; the bottleneck sw_b is 100 Mb/s.
    sc, limited_bps = build()
    res = satcc.run(sc, seed=1)
    no_losses(res.summary)
    eta = max_efficiency(512)
    goodput = [steady_mean(res, f"goodput{i}", 1.0) for i in range(4)]
    # Max-min: the limited VC gets its limit, the three others split the rest.
    assert goodput[0] == pytest.approx(limited_bps * eta, rel=0.02)
    rest = (100e6 - limited_bps) / 3
    for g in goodput[1:]:
        assert g == pytest.approx(rest * eta, rel=0.02)


# ---------------------------------------------------------------------------
# 5. VBR (MPEG-2) with strict priority over ABR.


def test_vbr_has_priority_and_abr_queues_stay_bounded():
    n_video, access_delay_s, video_delay_s = 3, 2.5e-3, 0.1e-3
    sc = star(3, delay="2.5 ms", duration="3 s")
    sc = with_video(sc, n_video, "10 Mbps", "5 Mbps", delay="0.1 ms")
    s = satcc.run(sc, seed=1).summary
    no_losses(s)  # with large buffers nothing is lost, VBR or ABR
    videos = [f"flows.video{k}" for k in range(n_video)]
    sent = sum(s[f"{v}.sent_bytes"] for v in videos)
    received = sum(s[f"{v}.received_bytes"] for v in videos)
    in_flight = sum(s[f"{v}.in_flight_packets"] for v in videos) * CELL_BYTES
    assert received == s["sinks.vbr.received_bytes"] > 0
    assert sent == received + in_flight
    # The port sent every VBR cell that reached it: what left it high-priority
    # is what the sink got, plus what was still propagating at the end.
    tx_high = s["links.sw_b.tx_bytes_high"]
    assert received <= tx_high <= received + in_flight
    assert s["links.sw_b.throughput_high_bps"] == pytest.approx(
        s["sinks.vbr.throughput_bps"], rel=2e-3
    )
    # Strict priority: a VBR cell waits at most for the other videos' cells
    # at the first hop and for the ABR cell in transmission at the port.
    cell_s = CELL_BITS / OC3_BPS
    propagation = video_delay_s + access_delay_s
    bound = propagation + 2 * cell_s + (n_video - 1) * cell_s + cell_s
    for v in videos:
        assert propagation + 2 * cell_s <= s[f"{v}.delay_max_s"] <= bound + 1e-12, v
    # ABR: the queue is bounded by what the link drains during one feedback
    # delay plus one averaging interval (the time ERICA+ needs to react).
    feedback_s = 2 * access_delay_s
    cell_rate = OC3_BPS / CELL_BITS
    assert s["links.sw_b.queue_max_low_packets"] <= cell_rate * (feedback_s + INTERVAL_S)
    # ABR fills most of what VBR leaves (loose: see the report on ERICA+
    # oscillations with a feedback delay longer than the averaging interval).
    vbr = s["links.sw_b.throughput_high_bps"]
    assert s["links.sw_b.throughput_low_bps"] >= 0.9 * (OC3_BPS - vbr)


# ---------------------------------------------------------------------------
# 6. The MPEG-2 rate process.


def video_only(duration: str, std: str, hurst: float, mean: str = "5 Mbps", **extra) -> dict:
    # Source and sink on one node: no link, one event per cell.
    return {
        "run": {"name": "video", "duration": duration},
        "nodes": {"a": {}},
        "sinks": {"rx": {"node": "a"}},
        "sources": {
            "v": {
                "type": "mpeg2",
                "from": "a",
                "to": "rx",
                "rate": mean,
                "std": std,
                "hurst": hurst,
                **extra,
            }
        },
    }


def test_mpeg2_with_zero_std_is_a_constant_cell_rate():
    # One cell at start, then one every 424 bits / rate: rate x span / 424
    # cells, to within the first one.
    for extra, span_s in (({}, 10.0), ({"start": "1 s", "stop": "3 s"}, 2.0)):
        s = satcc.run(video_only("10 s", "0 bps", 0.8, **extra), seed=1).summary
        expected = 5e6 * span_s / CELL_BITS
        assert expected <= s["flows.v.sent_packets"] <= expected + 1
        assert s["flows.v.sent_bytes"] == CELL_BYTES * s["flows.v.sent_packets"]


# Inter-MPCR intervals are uniform in [20, 100] ms.
T_MEAN, T_SECOND_MOMENT = 0.060, 0.060**2 + 0.080**2 / 12


def _standard_error(sigma_bps: float, hurst: float, duration_s: float, runs: int) -> float:
    """Standard error of the time-weighted mean rate of an fGn rate sequence.

    n intervals of random length: the variance of the mean of n fGn values is
    sigma^2 n^(2H - 2), inflated by E[T^2] / E[T]^2 for the length weights.
    The core standardises each fGn block (of about 3n values here) to mean 0,
    which can only shrink the error: the bound is conservative."""
    n = duration_s / T_MEAN
    inflation = math.sqrt(T_SECOND_MOMENT) / T_MEAN
    return sigma_bps * inflation * n ** (hurst - 1) / math.sqrt(runs)


@pytest.mark.parametrize(("hurst", "runs"), [(0.5, 1), (0.8, 16)])
@pytest.mark.parametrize("std_bps", [1e6, 5e6])
def test_mpeg2_mean_rate_is_the_truncated_normal_mean(std_bps, hurst, runs):
    # Rates outside [0, peak = 15 Mb/s] are skipped, so the mean is that of
    # the normal truncated to [0, 15] Mb/s: 5 Mb/s for std 1 Mb/s (the bounds
    # are 5 and 10 sigma away), 6.148 Mb/s for std 5 Mb/s (skipping the
    # negative values raises the mean). H = 0.5 is a white rate sequence
    # (tight test); the paper's H = 0.8 converges as n^(H - 1), so it is
    # averaged over independent seeds.
    mean_bps, peak_bps, duration_s = 5e6, 15e6, 200.0
    lo, hi = (0 - mean_bps) / std_bps, (peak_bps - mean_bps) / std_bps
    expected = truncnorm.mean(lo, hi, loc=mean_bps, scale=std_bps)
    sigma = truncnorm.std(lo, hi, loc=mean_bps, scale=std_bps)
    measured = np.mean(
        [
            satcc.run(
                video_only(f"{duration_s:g} s", f"{std_bps:g} bps", hurst), seed=seed
            ).summary["flows.v.sent_bytes"]
            * 8
            / duration_s
            for seed in range(1, runs + 1)
        ]
    )
    se = _standard_error(sigma, hurst, duration_s, runs)
    assert abs(measured - expected) <= 4 * se
    if std_bps == 5e6:
        assert expected == pytest.approx(6.148e6, abs=1e3)
        assert measured > mean_bps + 4 * se


# ---------------------------------------------------------------------------
# 7. Determinism.


def test_same_seed_same_summary_and_another_seed_other_video():
    sc = with_video(star(2, duration="0.5 s"), 2, "10 Mbps", "5 Mbps")
    a, b = satcc.run(sc, seed=7), satcc.run(sc, seed=7)
    assert a.summary == b.summary
    for name in a.series_names:
        assert a.series(name).equals(b.series(name)), name
    c = satcc.run(sc, seed=8)
    assert c.summary["sinks.vbr.received_bytes"] != a.summary["sinks.vbr.received_bytes"]
    assert (
        c.summary["links.sw_b.throughput_high_bps"] != a.summary["links.sw_b.throughput_high_bps"]
    )


# ---------------------------------------------------------------------------
# 8. Refusals.

BASE = {
    "run": {"name": "abr", "duration": "1 s"},
    "nodes": {"a": {"type": "host"}, "sw": {}, "b": {"type": "host"}},
    "links": {
        "a_sw": {"from": "a", "to": "sw", "rate": OC3, "duplex": True},
        "sw_b": {"from": "sw", "to": "b", "rate": OC3, "duplex": True, "erica": {}},
    },
    "sinks": {"rx": {"node": "b"}},
    "sources": {"v": {"type": "mpeg2", "from": "a", "to": "rx", "rate": "5 Mbps", "std": "1 Mbps"}},
    "tcp": {"t": {"from": "a", "to": "b", "abr": {}}},
}


def edited(change) -> Scenario:
    data = copy.deepcopy(BASE)
    change(data)
    return Scenario.from_dict(data)


def _markov_capacity(d):
    del d["links"]["sw_b"]["rate"]
    d["links"]["sw_b"]["capacity"] = {
        "type": "markov",
        "rates": [OC3, "50 Mbps"],
        "mean_holding": ["1 s", "1 s"],
    }


def _abr(**keys):
    return lambda d: d["tcp"]["t"]["abr"].update(keys)


def _video(**keys):
    return lambda d: d["sources"]["v"].update(keys)


def test_base_scenario_is_valid():
    desc = edited(lambda d: None).validate()
    (tcp,) = desc["tcp"]
    # abr = {} is TM 4.0 with PCR = OC-3 and ICR = PCR / 10.
    assert tcp["abr"]["pcr_bps"] == OC3_BPS
    assert tcp["abr"]["icr_bps"] == pytest.approx(OC3_BPS / 10)
    assert tcp["abr"]["nrm"] == 32
    sw_b = next(link for link in desc["links"] if link["name"] == "sw_b")
    assert sw_b["erica"]["interval_cells"] == 500
    assert (sw_b["erica"]["a"], sw_b["erica"]["b"], sw_b["erica"]["qdlf"]) == (1.15, 1.05, 0.5)


AVERAGING_KEYS = ("rate_alpha", "active_decay", "ccr_alpha")


def test_erica_averaging_keys_are_described_only_when_set():
    def erica(change) -> dict:
        desc = edited(change).validate()
        return next(link for link in desc["links"] if link["name"] == "sw_b")["erica"]

    # At their defaults the keys added with the averaging variants are left
    # out, so the description (and the run keys) of older scenarios stay put.
    assert not set(AVERAGING_KEYS) & set(erica(lambda d: None))
    keys = {"rate_alpha": 0.5, "active_decay": 0.9, "ccr_alpha": 0.25}
    got = erica(lambda d: d["links"]["sw_b"]["erica"].update(keys))
    assert {key: got[key] for key in AVERAGING_KEYS} == keys


def test_erica_averaging_variants_run():
    for keys in (
        {"z_alpha": 0.5, "active_decay": 0.9, "ccr_alpha": 0.5},
        {"rate_alpha": 0.25, "ccr": "measured", "ccr_alpha": 0.5},
    ):
        scenario = edited(lambda d, keys=keys: d["links"]["sw_b"]["erica"].update(keys))
        scenario.set("run.duration", "200 ms")
        summary = satcc.run(scenario, seed=1).summary
        assert summary["links.sw_b.erica.intervals"] > 0
        assert summary["tcp.t.goodput_bps"] > 0


@pytest.mark.parametrize(
    ("change", "path", "fragments"),
    [
        (_markov_capacity, "links.sw_b.erica", ["ERICA+ needs a constant-rate link"]),
        (_abr(mcr="200 Mbps"), "tcp.t.abr.mcr", ["mcr must not exceed pcr", '"200 Mbps"']),
        (
            _abr(mcr="20 Mbps", icr="10 Mbps"),
            "tcp.t.abr.icr",
            ['icr must be between mcr ("20 Mbps")', '"10 Mbps"'],
        ),
        (_abr(icr="200 Mbps"), "tcp.t.abr.icr", ["icr must be between", '"200 Mbps"']),
        (_abr(nrm=1), "tcp.t.abr.nrm", ["nrm must be at least 2"]),
        (_abr(nrn=32), "tcp.t.abr.nrn", ['unknown key "nrn"', 'did you mean "nrm"?']),
        (_abr(encapsulation="vcmux"), "tcp.t.abr.encapsulation", ['did you mean "vc_mux"?']),
        (
            lambda d: d["links"]["sw_b"]["erica"].update(intervl="5 ms"),
            "links.sw_b.erica.intervl",
            ['did you mean "interval"?'],
        ),
        (
            lambda d: d["links"]["sw_b"]["erica"].update(b=1.0),
            "links.sw_b.erica.b",
            ["greater than 1"],
        ),
        (
            lambda d: d["links"]["sw_b"]["erica"].update(z_alpha=0.5, rate_alpha=0.5),
            "links.sw_b.erica.rate_alpha",
            ["alternative averagings", "got 0.5 and 0.5"],
        ),
        (
            lambda d: d["links"]["sw_b"]["erica"].update(active_decay=1.5),
            "links.sw_b.erica.active_decay",
            ["between 0 and 1"],
        ),
        (
            lambda d: d["links"]["sw_b"]["erica"].update(ccr_alpha=0),
            "links.sw_b.erica.ccr_alpha",
            ["in (0, 1]"],
        ),
        (
            _video(mpcr_min="200 ms"),
            "sources.v.mpcr_min",
            ["mpcr_min must not exceed mpcr_max", '"200 ms"'],
        ),
        (lambda d: d["sources"]["v"].pop("std"), "sources.v.std", ["missing required key"]),
        (_video(hurst=1.0), "sources.v.hurst", ["at least 0.5 and below 1"]),
        (_video(hurst=0.3), "sources.v.hurst", ["at least 0.5 and below 1"]),
        (_video(rate="20 Mbps"), "sources.v.rate", ["exceeds the peak"]),
        (_video(packet_size="53 B"), "sources.v.packet_size", ["not used with"]),
        # Before: accepted, and cells under a picosecond apart piled up on
        # one instant (peak), or out-of-rate RM cells 0 ps apart (tcr).
        (_video(peak="100000 Gbps"), "sources.v.peak", ["above 1000 Gbps"]),
        (_abr(tcr="1000000 Gbps"), "tcp.t.abr.tcr", ["tcr must not exceed pcr"]),
    ],
)
def test_bad_atm_settings_are_refused(change, path, fragments):
    with pytest.raises(ScenarioError) as caught:
        edited(change).validate()
    error = caught.value
    assert error.path == path, str(error)
    for fragment in fragments:
        assert fragment in error.reason, str(error)


# ---------------------------------------------------------------------------
# The abr-lrd-vbr study's scenario builder.


def _path_delay_s(desc: dict, src: str, dst: str) -> float:
    """One-way propagation src -> dst along the validated routes."""
    nodes = {n["name"]: n for n in desc["nodes"]}
    links = {link["name"]: link for link in desc["links"]}
    total, node = 0, src
    while node != dst:
        link = links[nodes[node]["routes"][dst]]
        total += link["delay_ps"]
        node = link["to"]
    return total * 1e-12


def _one_hop_delay_s(desc: dict, frm: str, to: str) -> float:
    (link,) = [x for x in desc["links"] if x["from"] == frm and x["to"] == to]
    return link["delay_ps"] * 1e-12


@pytest.mark.parametrize(
    ("config", "rtt_s", "feedback_s"),
    [("wan", 0.030, 0.010), ("sat-short", 0.550, 0.010), ("sat-long", 0.550, 0.550)],
)
def test_study_configurations_have_the_documented_delays(config, rtt_s, feedback_s):
    from satcc.studies import abr_lrd_vbr

    sc = abr_lrd_vbr.scenario(config, 512, (5e6, 5e6), 0.5, n_tcp=3, n_video=2)
    desc = Scenario.from_dict(sc).validate()
    assert len(desc["tcp"]) == 3 and len(desc["sources"]) == 2
    for i in (1, 2, 3):
        src, dst = f"s{i:02d}", f"d{i:02d}"
        rtt = _path_delay_s(desc, src, dst) + _path_delay_s(desc, dst, src)
        assert rtt == pytest.approx(rtt_s, rel=1e-3)
        # Feedback delay: from the bottleneck switch sw1 to the source and back.
        feedback = _one_hop_delay_s(desc, "sw1", src) + _one_hop_delay_s(desc, src, "sw1")
        assert feedback == pytest.approx(feedback_s, rel=1e-3)


def test_study_scenario_runs():
    from satcc.studies import abr_lrd_vbr

    sc = abr_lrd_vbr.scenario("wan", 512, (5e6, 5e6), 0.5, n_tcp=3, n_video=2)
    res = satcc.run(sc, seed=1)
    s = res.summary
    no_losses(s)
    for i in (1, 2, 3):
        assert s[f"tcp.t{i:02d}.delivered_bytes"] > 0
    assert s["sinks.vbr.received_packets"] > 0
    assert s["links.sw1_sw2.erica.n_active"] == 3
    # The video goes first at the bottleneck; together the classes never
    # exceed the link.
    high, low = s["links.sw1_sw2.throughput_high_bps"], s["links.sw1_sw2.throughput_low_bps"]
    assert high > 0 and low > 0 and high + low <= OC3_BPS
    assert len(res.series("abr_queue")) == 50


# ---------------------------------------------------------------------------
# TM 4.0 source rule 3b: turned-around BRMs travel in the source's in-rate
# slots, not on top of them.


def test_abr_host_puts_no_more_than_pcr_on_its_access_link():
    # PCR = access rate = OC-3; the host's link has the default 1000-packet
    # queue. TM 4.0 sends turned-around BRMs in the source's in-rate slots,
    # so what the host emits never exceeds PCR and its link queue stays at
    # most a cell or two.
    sc = star(1, access=OC3, delay="1 ms", duration="2 s", buffer="4 MiB")
    sc["links"]["a0_sw"]["queue"] = {"type": "droptail", "limit": "1000 packets"}
    sc["tcp"]["t0"]["delayed_ack"] = False
    s = satcc.run(sc, seed=1).summary
    assert s["links.a0_sw.drops"] == 0
    assert s["links.a0_sw.queue_max_packets"] <= 2


def test_clp_one_is_refused_under_abr():
    sc = satcc.Scenario.from_dict(star(1))
    sc.set("tcp.t0.clp", 1)
    with pytest.raises(ScenarioError) as caught:
        sc.validate()
    assert caught.value.path == "tcp.t0.clp"
    assert "source rule 4" in caught.value.reason
