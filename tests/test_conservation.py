"""No silent wrong results: every run accounts for every PDU.

The summary's run.pdus_* keys say what became of the PDUs that entered the
network (delivered, dropped, errored, still in flight) and run.pdus_unaccounted
counts those that vanished, together with packets an attachment (an ATM VC)
took and can neither pass on, lose countably, nor hold. It must be zero.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import satcc
from guard_cases import run_cases
from satcc import _core
from satcc.scenario import Scenario, ScenarioError, normalised_json

CASES = [(key, scenario, seed) for key, scenario, seed in run_cases()]


@pytest.mark.parametrize("key,scenario,seed", CASES, ids=[key for key, _, _ in CASES])
def test_every_pdu_is_accounted_for(key, scenario, seed):
    s = satcc.run(scenario, seed=seed).summary
    assert s["run.pdus_sent"] > 0
    assert s["run.pdus_unaccounted"] == 0
    assert s["run.pdus_sent"] == sum(
        s[f"run.pdus_{k}"] for k in ("delivered", "dropped", "errored", "in_flight")
    )
    for name in {k.split(".")[1] for k in s if k.startswith("flows.")}:
        f = {k.split(".", 2)[2]: v for k, v in s.items() if k.startswith(f"flows.{name}.")}
        assert f["sent_packets"] == (
            f["received_packets"]
            + f["dropped_packets"]
            + f["errored_packets"]
            + f["in_flight_packets"]
        ), name


def ubr_tcp(mss: str, encapsulation: str = "llc_snap") -> dict:
    return {
        "run": {"duration": "2 s"},
        "nodes": {"a": {"type": "host"}, "b": {"type": "host"}},
        # A 64 KB packet is 1366 cells, all queued at once on the host's link.
        "links": {
            "ab": {
                "from": "a",
                "to": "b",
                "rate": "100 Mbps",
                "duplex": True,
                "queue": {"limit": "5000 packets"},
            }
        },
        "tcp": {
            "t": {
                "from": "a",
                "to": "b",
                "mss": mss,
                "send_buffer": "1 MiB",
                "receive_buffer": "1 MiB",
                "ubr": {"encapsulation": encapsulation},
            }
        },
    }


def test_a_segment_too_large_for_one_aal5_frame_is_refused():
    # 65488 + 40 = 65528 B of IP: with the 8 B of LLC/SNAP the frame's
    # 16-bit length would wrap and every frame be lost.
    with pytest.raises(ScenarioError) as e:
        Scenario.from_dict(ubr_tcp("65488 B")).validate()
    assert e.value.path == "tcp.t.mss"
    assert "one AAL5 frame" in e.value.reason and "65527 B" in e.value.reason
    # The largest that fits, and the same with VC multiplexing, run and deliver.
    for mss, encap in (("65487 B", "llc_snap"), ("65495 B", "vc_mux")):
        s = satcc.run(ubr_tcp(mss, encap)).summary
        assert s["tcp.t.delivered_bytes"] > 0 and s["run.pdus_unaccounted"] == 0


def test_the_core_refuses_an_oversized_segment_that_skipped_validation():
    desc = Scenario.from_dict(ubr_tcp("65487 B")).validate()
    desc["tcp"][0]["mss_bytes"] = 65488
    with pytest.raises(ValueError, match="AAL5"):
        _core.Simulation(normalised_json(desc))


def test_a_udp_datagram_too_large_for_one_aal5_frame_is_refused():
    data = json.loads(json.dumps(ubr_tcp("1000 B")))
    del data["tcp"]
    data["udp_rr"] = {"u": {"from": "a", "to": "b", "request": "65500 B", "ubr": {}}}
    with pytest.raises(ScenarioError) as e:
        Scenario.from_dict(data).validate()
    assert e.value.path == "udp_rr.u.request"
    assert "AAL5" in e.value.reason


def test_abr_counts_beyond_32_bits_are_refused():
    data = ubr_tcp("1000 B")
    data["tcp"]["t"].pop("ubr")
    data["tcp"]["t"]["abr"] = {"nrm": 2**32}
    with pytest.raises(ScenarioError) as e:
        Scenario.from_dict(data).validate()
    assert e.value.path == "tcp.t.abr.nrm"


def test_the_guard_scenarios_exist():
    assert len(list((Path(__file__).parent / "data" / "guard").glob("*.toml"))) >= 2


def byte_queue(limit: str, **extra) -> dict:
    return {
        "run": {"duration": "1 s"},
        "nodes": {"a": {"type": "host"}, "b": {"type": "host"}},
        "links": {
            "ab": {"from": "a", "to": "b", "rate": "1 Mbps", "queue": {"limit": limit}},
            "ba": {"from": "b", "to": "a", "rate": "1 Mbps", "queue": {"limit": "600 B"}},
        },
        **extra,
    }


def test_a_byte_limit_below_the_packets_it_carries_is_refused():
    # Before, every packet was dropped, even on an idle link, without a word.
    cbr = {
        "sources": {
            "s": {
                "type": "cbr",
                "from": "a",
                "to": "rx",
                "packet_size": "1500 B",
                "rate": "100 kbps",
            }
        },
        "sinks": {"rx": {"node": "b"}},
    }
    with pytest.raises(ScenarioError) as e:
        Scenario.from_dict(byte_queue("1000 B", **cbr)).validate()
    assert e.value.path == "links.ab.queue.limit"
    assert "1500 B PDUs of sink" in e.value.reason
    s = satcc.run(byte_queue("1500 B", **cbr)).summary
    assert (
        s["flows.s.received_packets"] == s["flows.s.sent_packets"] - s["flows.s.in_flight_packets"]
    )


def test_tcp_acks_fit_where_segments_would_not():
    # The reverse link's 600 B hold 40 B ACKs of a bulk transfer, not the
    # full segments a request/response server sends back.
    tcp = {"tcp": {"t": {"from": "a", "to": "b", "mss": "536 B"}}}
    assert satcc.run(byte_queue("10 kB", **tcp)).summary["tcp.t.delivered_bytes"] > 0
    tcp["tcp"]["t"]["mss"] = "1460 B"
    tcp["tcp"]["t"]["app"] = {"type": "request_response", "request": "1 kB", "response": "10 kB"}
    with pytest.raises(ScenarioError) as e:
        Scenario.from_dict(byte_queue("10 kB", **tcp)).validate()
    assert e.value.path == "links.ba.queue.limit"
    assert "data" not in e.value.reason and 'ACKs of tcp "t"' in e.value.reason
