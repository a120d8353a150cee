"""Active queue management: the `red` and `codel` queue tables, their
summary keys, RED's analytic operating point and CoDel holding its target
under long-lived TCP flows (docs/queues.md). RED against ns-2.35 is in
test_red_crosscheck.py."""

from __future__ import annotations

import math

import pytest
import satcc
from satcc.scenario import Scenario, ScenarioError
from satcc.studies import red_crosscheck
from satcc.studies.ns2 import Case, Flow


def dumbbell(queue: dict, flows: int, rate="10 Mbps", delay="20 ms", duration="60 s") -> dict:
    nodes: dict[str, dict] = {"r1": {}, "r2": {}}
    links = {
        "bn": {"from": "r1", "to": "r2", "rate": rate, "delay": delay, "queue": queue},
        "bn_back": {"from": "r2", "to": "r1", "rate": rate, "delay": delay},
    }
    tcp = {}
    for i in range(flows):
        nodes[f"s{i}"] = {"type": "host"}
        nodes[f"d{i}"] = {"type": "host"}
        links[f"in{i}"] = {"from": f"s{i}", "to": "r1", "rate": "100 Mbps", "delay": "2 ms"}
        links[f"in{i}"]["duplex"] = True
        links[f"out{i}"] = {"from": "r2", "to": f"d{i}", "rate": "100 Mbps", "delay": "0 ms"}
        links[f"out{i}"]["duplex"] = True
        start = f"{0.1 * i:.1f} s"
        tcp[f"f{i}"] = {"from": f"s{i}", "to": f"d{i}", "app": {"type": "bulk"}, "start": start}
    return {
        "run": {"name": "aqm", "duration": duration},
        "nodes": nodes,
        "links": links,
        "tcp": tcp,
    }


RED = {"type": "red", "limit": "100 packets", "min_th": 15, "max_th": 45}


@pytest.mark.parametrize(
    "queue,where,fragment",
    [
        ({**RED, "min_th": 45}, "min_th", "below max_th"),
        ({**RED, "max_th": 150}, "max_th", "exceeds limit"),
        ({**RED, "w_q": 0}, "w_q", "(0, 1]"),
        ({**RED, "max_p": 1.5}, "max_p", "(0, 1]"),
        ({"type": "red", "min_th": 5}, "max_th", "required"),
        ({"type": "codel", "target": "0 ms"}, "target", "positive"),
        ({"type": "codel", "min_th": 5}, "min_th", ""),
        ({"type": "droptail", "ecn": True}, "ecn", ""),
    ],
)
def test_bad_queue_tables_are_refused_naming_the_key(queue, where, fragment):
    with pytest.raises(ScenarioError) as caught:
        Scenario.from_dict(dumbbell(queue, 1)).validate()
    text = str(caught.value)
    assert f"links.bn.queue.{where}" in text and fragment in text, text


def test_the_description_carries_each_discipline_with_its_defaults():
    d = Scenario.from_dict(dumbbell(RED, 1)).validate()
    q = next(link for link in d["links"] if link["name"] == "bn")["queue"]
    assert q == {
        "kind": "red",
        "limit": {"packets": 100},
        "min_th": 15.0,
        "max_th": 45.0,
        "w_q": 0.002,
        "max_p": 0.1,
        "gentle": True,
        "adaptive": False,
        "ecn": False,
        "mean_packet_bytes": 500,
    }
    d = Scenario.from_dict(dumbbell({"type": "codel"}, 1)).validate()
    q = next(link for link in d["links"] if link["name"] == "bn")["queue"]
    assert q == {
        "kind": "codel",
        "limit": {"packets": 1000},
        "target_ps": 5_000_000_000,
        "interval_ps": 100_000_000_000,
        "ecn": False,
    }


def test_aqm_keys_only_on_aqm_links_and_conservation_holds():
    s = satcc.run(dumbbell(RED, 4, duration="20 s")).summary
    assert s["links.bn.drops_early"] > 0
    assert s["links.bn.drops_overflow"] == s["links.bn.drops"]
    assert "links.bn_back.drops_early" not in s and "links.bn_back.marks" not in s
    assert s["links.bn.sojourn_p50_s"] <= s["links.bn.sojourn_p95_s"] <= s["links.bn.sojourn_p99_s"]
    assert s["run.pdus_unaccounted"] == 0
    # Every early drop is a loss of some flow.
    lost = sum(v for k, v in s.items() if k.startswith("run.pdus_dropped"))
    assert lost >= s["links.bn.drops_early"]


def _codel_vs_droptail(cc: str) -> tuple[dict, dict]:
    def run(queue):
        sc = dumbbell(queue, 4, delay="25 ms", duration="60 s")
        for t in sc["tcp"].values():
            if cc != "reno":
                t["congestion_control"] = cc
        return satcc.run(sc).summary

    return run({"type": "codel"}), run({"type": "droptail", "limit": "1000 packets"})


@pytest.mark.parametrize("cc", ["reno", "cubic"])
def test_codel_holds_its_target_under_long_lived_flows(cc):
    # 4 flows, 10 Mb/s, 50 ms RTT: CoDel keeps the median sojourn near its
    # 5 ms target at full utilisation, where drop-tail's 1000 packets fill.
    codel, droptail = _codel_vs_droptail(cc)
    p50 = codel["links.bn.sojourn_p50_s"]
    assert 0.003 <= p50 <= 0.015, p50
    assert codel["links.bn.utilisation"] > 0.9
    assert codel["links.bn.drops_dequeue"] > 0 and codel["links.bn.drops_overflow"] == 0
    assert droptail["links.bn.wait_p50_s"] > 5 * p50
    # Dequeue drops are booked in the flows: conservation holds.
    assert codel["run.pdus_unaccounted"] == 0
    assert codel["run.pdus_dropped"] >= codel["links.bn.drops_dequeue"]


def red_operating_point(case: Case, red: red_crosscheck.Red) -> float:
    """The average queue (packets) where N long-lived flows' loss rate,
    from Mathis et al.'s rate = MSS / RTT * sqrt(3 / (2 b p)) at the fair
    share (b = 2 with delayed ACKs), meets RED's: p_b = max_p (avg -
    min_th) / (max_th - min_th), of which the count rule (`wait`) drops
    one arrival in 1.5 / p_b on average. RTT: the empty path's plus the
    average queue's delay. Solved by bisection."""
    n = len(case.flows)
    pkt_s = case.rate_bps / (case.packet_bytes * 8)
    b = 2 if case.delayed_ack else 1

    def excess(avg: float) -> float:
        rtt = sum(case.rtt_s(i) for i in range(n)) / n + avg / pkt_s
        window = rtt * pkt_s / n  # packets per RTT at the fair share
        p_tcp = 3 / (2 * b * window**2)
        p_red = red.max_p * (avg - red.min_th) / (red.max_th - red.min_th) / 1.5
        return p_red - p_tcp

    lo, hi = red.min_th, red.max_th
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if excess(mid) > 0 else (mid, hi)
    return (lo + hi) / 2


def test_red_average_queue_near_its_analytic_operating_point():
    case = Case(
        variant="sack",
        rate_bps=10e6,
        delay_s=0.02,
        queue_limit=100,
        min_rto_s=0.2,
        duration_s=100.0,
        warmup_s=20.0,
        flows=tuple(Flow(0.001 * (i + 1), 0.1 * i) for i in range(10)),
    )
    red = red_crosscheck.Red()
    want = red_operating_point(case, red)
    got = red_crosscheck.satcc_figures(satcc.run(red_crosscheck.scenario(case, red)), case)
    assert math.isclose(got["avg_queue"], want, rel_tol=0.2), (got, want)
