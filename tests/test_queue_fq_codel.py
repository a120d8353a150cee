"""FQ-CoDel (RFC 8290, docs/queues.md): the `fq_codel` queue table, flow
isolation of a sparse flow from bulk TCP flows, fairness between RTTs,
each flow queue's CoDel at its target, overflow from the fattest queue
with conservation, and one flow queue being exactly CoDel."""

from __future__ import annotations

import pytest
import satcc
from satcc.scenario import Scenario, ScenarioError
from test_queues import dumbbell

BIG = "8 MiB"


def bulk(queue: dict, flows: int, cc: str, delay="25 ms", duration="30 s") -> dict:
    """`flows` bulk TCP flows through the dumbbell, with buffers large
    enough that their windows, not their sockets, fill the queue."""
    sc = dumbbell(queue, flows, delay=delay, duration=duration)
    for t in sc["tcp"].values():
        t["send_buffer"] = t["receive_buffer"] = BIG
        if cc != "reno":
            t["congestion_control"] = cc
    return sc


def with_sparse_flow(sc: dict) -> dict:
    """Adds a 64 kb/s CBR flow of 200 B packets (a voice call) through
    the bottleneck, from 1 s."""
    sc["nodes"]["vs"] = {"type": "host"}
    sc["nodes"]["vd"] = {"type": "host"}
    links = sc["links"]
    links["vin"] = {"from": "vs", "to": "r1", "rate": "100 Mbps", "delay": "2 ms", "duplex": True}
    links["vout"] = {"from": "r2", "to": "vd", "rate": "100 Mbps", "delay": "0 ms", "duplex": True}
    sc["sources"] = {
        "voip": {
            "type": "cbr",
            "from": "vs",
            "to": "rx",
            "rate": "64 kbps",
            "packet_size": "200 B",
            "start": "1 s",
        }
    }
    sc["sinks"] = {"rx": {"node": "vd"}}
    return sc


@pytest.mark.parametrize(
    "queue,where,fragment",
    [
        ({"type": "fq_codel", "flows": 0}, "flows", ""),
        ({"type": "fq_codel", "quantum": "0 B"}, "quantum", ""),
        ({"type": "fq_codel", "target": "0 ms"}, "target", "positive"),
        ({"type": "fq_codel", "interval": "-1 ms"}, "interval", ""),
        ({"type": "fq_codel", "limit": "0 packets"}, "limit", ""),
        ({"type": "fq_codel", "min_th": 5}, "min_th", ""),
        ({"type": "fq_codel", "ce_threshold": "0 ms"}, "ce_threshold", ""),
        ({"type": "codel", "ce_threshold": "1 ms"}, "ce_threshold", ""),
        ({"type": "codel", "quantum": "1514 B"}, "quantum", ""),
        ({"type": "droptail", "flows": 16}, "flows", ""),
    ],
)
def test_bad_fq_codel_tables_are_refused_naming_the_key(queue, where, fragment):
    with pytest.raises(ScenarioError) as caught:
        Scenario.from_dict(dumbbell(queue, 1)).validate()
    text = str(caught.value)
    assert f"links.bn.queue.{where}" in text and fragment in text, text


def test_the_description_carries_rfc_8290_defaults():
    d = Scenario.from_dict(dumbbell({"type": "fq_codel"}, 1)).validate()
    q = next(link for link in d["links"] if link["name"] == "bn")["queue"]
    assert q == {
        "kind": "fq_codel",
        "limit": {"packets": 10240},
        "flows": 1024,
        "quantum_bytes": 1514,
        "target_ps": 5_000_000_000,
        "interval_ps": 100_000_000_000,
        "ecn": False,
        "ce_threshold_ps": None,
    }
    d = Scenario.from_dict(dumbbell({"type": "fq_codel", "quantum": "300 B"}, 1)).validate()
    q = next(link for link in d["links"] if link["name"] == "bn")["queue"]
    assert q["quantum_bytes"] == 300


@pytest.mark.parametrize("cc", ["reno", "cubic"])
def test_a_sparse_flow_is_isolated_from_bulk_flows(cc):
    # 4 bulk flows and a 64 kb/s voice flow over 10 Mb/s, 50 ms RTT: under
    # FQ-CoDel the voice packets wait about a millisecond (new-flow
    # priority), under a 1000-packet drop-tail hundreds of ms.
    def voice(queue):
        s = satcc.run(with_sparse_flow(bulk(queue, 4, cc))).summary
        assert s["run.pdus_unaccounted"] == 0
        base = s["flows.voip.delay_min_s"]
        return s["flows.voip.delay_p50_s"] - base, s["flows.voip.delay_p99_s"] - base

    fq50, fq99 = voice({"type": "fq_codel"})
    dt50, dt99 = voice({"type": "droptail", "limit": "1000 packets"})
    assert fq50 < 0.002 and fq99 < 0.006, (fq50, fq99)
    assert dt50 > 0.3 and dt99 > 1.0, (dt50, dt99)


@pytest.mark.parametrize("cc,droptail_below", [("reno", 0.7), ("cubic", 0.9)])
def test_flows_of_20_and_200_ms_rtt_share_fairly(cc, droptail_below):
    # Two flows over 10 Mb/s, RTTs 20 and 200 ms: each flow queue gets its
    # quantum per round, so the long flow keeps its half; drop-tail lets
    # the short one take the most.
    def jain(queue):
        sc = bulk(queue, 2, cc, delay="5 ms", duration="120 s")
        sc["links"]["in0"]["delay"] = "5 ms"
        sc["links"]["in1"]["delay"] = "95 ms"
        s = satcc.run(sc).summary
        assert s["run.pdus_unaccounted"] == 0
        return s["fairness.jain_tcp_goodput"]

    fq, dt = jain({"type": "fq_codel"}), jain({"type": "droptail", "limit": "1000 packets"})
    assert fq > 0.95, fq
    assert dt < droptail_below, dt


@pytest.mark.parametrize("cc", ["reno", "cubic"])
def test_each_flow_queue_holds_its_codel_target(cc):
    # 4 flows at 50 ms RTT with their default sockets, as CoDel's own test.
    def run(queue):
        sc = dumbbell(queue, 4, delay="25 ms", duration="60 s")
        for t in sc["tcp"].values():
            if cc != "reno":
                t["congestion_control"] = cc
        return satcc.run(sc).summary

    s = run({"type": "fq_codel"})
    assert 0.0005 <= s["links.bn.sojourn_p50_s"] <= 0.005, s["links.bn.sojourn_p50_s"]
    assert s["links.bn.sojourn_p95_s"] < 0.030, s["links.bn.sojourn_p95_s"]
    assert s["links.bn.utilisation"] > 0.9
    assert s["links.bn.drops_dequeue"] > 0 and s["links.bn.drops_overflow"] == 0
    assert s["run.pdus_unaccounted"] == 0
    droptail = run({"type": "droptail", "limit": "1000 packets"})
    assert droptail["links.bn.wait_p50_s"] > 10 * s["links.bn.sojourn_p50_s"]


def test_overflow_drops_from_the_fattest_queues_and_is_conserved():
    # A 40-packet limit under 4 bulk flows with large windows: arrivals
    # push out the heads of the bulk flows' queues, never the voice flow's.
    sc = with_sparse_flow(bulk({"type": "fq_codel", "limit": "40 packets"}, 4, "cubic"))
    s = satcc.run(sc).summary
    assert s["links.bn.drops_overflow"] > 0
    assert s["links.bn.drops"] == s["links.bn.drops_overflow"]
    assert s["links.bn.queue_max_packets"] <= 40
    assert s["flows.voip.dropped_packets"] == 0
    assert s["run.pdus_unaccounted"] == 0
    tcp_drops = sum(s[f"tcp.f{i}.segments_dropped"] for i in range(4))
    assert tcp_drops == s["links.bn.drops_overflow"] + s["links.bn.drops_dequeue"]
    # Deterministic: the same run again gives the same summary.
    assert satcc.run(sc).summary == s


def test_one_flow_queue_is_codel():
    # With one bucket there is no scheduling left: FQ-CoDel is CoDel with
    # the same limit, to the last key.
    sc = with_sparse_flow(bulk({"type": "fq_codel", "flows": 1}, 4, "cubic"))
    fq = satcc.run(sc).summary
    sc["links"]["bn"]["queue"] = {"type": "codel", "limit": "10240 packets"}
    assert satcc.run(sc).summary == fq


def test_ecn_marks_instead_of_dropping():
    sc = bulk({"type": "fq_codel", "ecn": True}, 4, "reno")
    for t in sc["tcp"].values():
        t["ecn"] = True
    s = satcc.run(sc).summary
    assert s["links.bn.marks"] > 0
    assert s["links.bn.drops_dequeue"] < s["links.bn.marks"] / 10
    assert s["run.pdus_unaccounted"] == 0


def test_ce_threshold_marks_what_waited_longer():
    # Linux's ce_threshold at 5 ms, CoDel's ECN off: ECN-capable flows are
    # marked before CoDel would drop, and the queue stays shorter (at a
    # cost in utilisation for classic senders, docs/queues.md).
    def run(queue):
        sc = bulk(queue, 4, "reno")
        for t in sc["tcp"].values():
            t["ecn"] = True
        s = satcc.run(sc).summary
        assert s["run.pdus_unaccounted"] == 0
        return s

    marked = run({"type": "fq_codel", "ce_threshold": "5 ms"})
    plain = run({"type": "fq_codel"})
    assert marked["links.bn.marks"] > 0 and plain["links.bn.marks"] == 0
    assert marked["links.bn.drops_dequeue"] < plain["links.bn.drops_dequeue"]
    assert marked["links.bn.sojourn_p50_s"] < plain["links.bn.sojourn_p50_s"]
