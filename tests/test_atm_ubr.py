"""TCP over UBR VCs (classical IP over ATM) on a short path: hosts on
25 Mb/s ATM access links and one E1 (2.048 Mb/s) satellite segment,
checked against timings and throughputs computed here by hand. (The
netpipe-satellite study builds the paper's whole path: test_study_netpipe.)"""

from __future__ import annotations

import math

import pytest
import satcc
from satcc.scenario import ScenarioError

CELL_BITS = 53 * 8
E1 = 2.048e6
ACCESS = 25e6
ACCESS_DELAY = 1e-6


def cells(ip_bytes: int) -> int:
    # RFC 1577: 8-byte LLC/SNAP header, 8-byte AAL5 trailer, 48-byte payloads.
    return math.ceil((ip_bytes + 16) / 48)


def path_scenario(
    rtt_s: float, size: int, count: int, buffer: int = 8192, ber: float = 0.0
) -> dict:
    one_way = rtt_s / 2 - 2 * ACCESS_DELAY
    return {
        "run": {
            "name": "ubr-testbed",
            "duration": "3000 s",
            "stop_when": {"tcp": "np", "completed": True},
        },
        "nodes": {"a": {"type": "host"}, "b": {"type": "host"}, "sw1": {}, "sw2": {}},
        "links": {
            "a_sw1": {
                "from": "a",
                "to": "sw1",
                "rate": f"{ACCESS} bps",
                "delay": f"{ACCESS_DELAY} s",
                "duplex": True,
            },
            "sat": {
                "from": "sw1",
                "to": "sw2",
                "rate": f"{E1} bps",
                "delay": f"{one_way} s",
                "duplex": True,
                "ber": ber,
                "queue": {"limit": "100000 packets"},
            },
            "sw2_b": {
                "from": "sw2",
                "to": "b",
                "rate": f"{ACCESS} bps",
                "delay": f"{ACCESS_DELAY} s",
                "duplex": True,
            },
        },
        "tcp": {
            "np": {
                "from": "a",
                "to": "b",
                "ubr": {},
                "send_buffer": f"{buffer} B",
                "receive_buffer": f"{buffer} B",
                "app": {
                    "type": "request_response",
                    "request": f"{size} B",
                    "response": f"{size} B",
                    "count": count,
                },
            }
        },
    }


@pytest.mark.parametrize("rtt_s", [0.001, 0.4])
def test_one_byte_ping_pong_is_the_rtt_plus_cell_pipelined_serialisation(rtt_s):
    # A 1-byte segment is a 41-byte IP packet: 2 cells. The cells cross the
    # switches one by one, so one way takes the first cell's time on the
    # access link, both cells on the E1 (the slowest hop), the last cell on
    # the far access link, and the propagation delays.
    n = cells(41)
    assert n == 2
    one_way = CELL_BITS / ACCESS + n * CELL_BITS / E1 + CELL_BITS / ACCESS + rtt_s / 2
    count = 50
    s = satcc.run(path_scenario(rtt_s, 1, count), seed=1).summary
    assert s["tcp.np.transactions"] == count
    # The first exchange also waits for the handshake (one RTT); the others
    # are pure ping-pongs.
    mean = s["tcp.np.transaction_time_mean_s"]
    steady = (mean * count - (rtt_s + 2 * one_way + CELL_BITS / E1)) / (count - 1)
    assert steady == pytest.approx(2 * one_way, rel=0.01)


@pytest.mark.parametrize("rtt_s", [0.1, 0.4, 0.6])
@pytest.mark.parametrize("buffer", [8192, 32768])
def test_window_limited_throughput_is_buffer_over_rtt(rtt_s, buffer):
    # A bulk transfer whose socket buffers (both ends) hold less than the
    # path's bandwidth-delay product: each round trip carries one buffer.
    # The round trip of a full segment and its ACK adds to the propagation
    # the E1 time of the segment's cells and of the ACK's.
    mss = 1460
    sc = path_scenario(rtt_s, 1, 1, buffer=buffer)
    sc["run"] = {"name": "bulk", "duration": f"{60 * rtt_s} s", "sample_interval": f"{rtt_s} s"}
    sc["tcp"]["np"].update({"app": {"type": "bulk"}, "delayed_ack": False})
    sc["probes"] = {"g": {"tcp": "np", "metric": "goodput_bps"}}
    series = satcc.run(sc, seed=1).series("g")
    steady = series[series["time_s"] > 30 * rtt_s]["value"].mean()
    rtt = rtt_s + (cells(mss + 40) + cells(40)) * CELL_BITS / E1
    wire_efficiency = mss / (cells(mss + 40) * 53)
    expected = min(buffer * 8 / rtt, E1 * wire_efficiency)
    assert steady == pytest.approx(expected, rel=0.03)


def test_ber_collapses_throughput_at_1e4_and_not_at_1e8():
    # A cell with any bit error is lost and its AAL5 frame with it.
    def goodput(ber: float) -> float:
        s = satcc.run(path_scenario(0.4, 64 * 1024, 3, buffer=65536, ber=ber), seed=1).summary
        return s["tcp.np.delivered_bytes"] * 8 / s["run.end_time_s"]

    clean = goodput(0.0)
    assert goodput(1e-8) == pytest.approx(clean, rel=0.05)
    s = satcc.run(path_scenario(0.4, 64 * 1024, 3, buffer=65536, ber=1e-4), seed=1).summary
    # At 1e-4 a 32-cell frame survives with probability (1 - 1e-4)^(32*424)
    # = 26 %: nearly every window loses segments and waits for timeouts.
    assert s["tcp.np.segments_dropped"] > 0
    assert goodput(1e-4) < 0.05 * clean


def test_abr_and_ubr_together_are_refused():
    sc = satcc.Scenario.from_dict(path_scenario(0.4, 1, 1))
    sc.set("tcp.np.abr", {})
    with pytest.raises(ScenarioError) as caught:
        sc.validate()
    assert caught.value.path == "tcp.np.ubr"


def test_netpipe_sweeps_block_sizes_and_stops_like_netpipe():
    # NetPIPE over the 400 ms path with the default 8 KB socket: small
    # blocks take half the RTT plus their cells' E1 time; the sweep stops
    # after the first block whose transfer takes more than NetPIPE's 1 s.
    sc = path_scenario(0.4, 1, 1)
    sc["run"]["duration"] = "1000 s"
    sc["tcp"]["np"]["app"] = {"type": "netpipe", "max_block": "64 KiB"}
    s = satcc.run(sc, seed=1).summary
    blocks = sorted(
        (s[k], s[k.replace(".bytes", ".transfer_time_s")])
        for k in s
        if k.startswith("tcp.np.netpipe.block_") and k.endswith(".bytes")
    )
    assert blocks[0][0] == 1
    one_way = 2 * CELL_BITS / ACCESS + cells(41) * CELL_BITS / E1 + 0.2
    assert blocks[0][1] == pytest.approx(one_way, rel=0.01)
    times = [t for _, t in blocks]
    assert all(t <= 1.0 for t in times[:-1]) and times[-1] > 1.0
    assert s["tcp.np.netpipe.blocks"] == len(blocks) < 87


def test_udp_request_response_over_ubr_times_one_round_trip_and_counts_losses():
    # netperf UDP_RR: 1-byte request and response, each a 29-byte datagram,
    # one cell (29 + 16 <= 48). One transaction is the RTT plus one cell on
    # each of the three hops, both ways.
    sc = path_scenario(0.4, 1, 1)
    del sc["tcp"]
    sc["run"] = {"name": "udp", "duration": "100 s"}
    sc["udp_rr"] = {"rr": {"from": "a", "to": "b", "count": 40, "warmup": 1, "ubr": {}}}
    s = satcc.run(sc, seed=1).summary
    expected = 0.4 + 2 * (CELL_BITS / E1 + 2 * CELL_BITS / ACCESS)
    assert s["udp_rr.rr.transactions"] == 40 and s["udp_rr.rr.lost"] == 0
    assert s["udp_rr.rr.transaction_time_mean_s"] == pytest.approx(expected, rel=1e-3)
    # With bit errors a datagram's only cell is lost with probability
    # 1 - (1 - BER)^424, and UDP does not recover it.
    sc["links"]["sat"]["ber"] = 1e-4
    sc["udp_rr"]["rr"]["count"] = 2000
    sc["run"]["duration"] = "2000 s"
    s = satcc.run(sc, seed=1).summary
    p_cell = 1 - (1 - 1e-4) ** CELL_BITS
    p_transaction = 1 - (1 - p_cell) ** 2
    lost = s["udp_rr.rr.lost"] / 2000
    assert lost == pytest.approx(p_transaction, abs=4 * math.sqrt(p_transaction / 2000))
