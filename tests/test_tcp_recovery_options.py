"""[tcp.NAME] keys `abc` (RFC 3465 §2.1 byte counting in congestion
avoidance) and `prr` (RFC 6937 Proportional Rate Reduction): what reaches
the description, and whole runs against the closed forms.

The rules themselves are checked in the core (congestion/reno.rs, prr.rs
against RFC 6937's worked examples, socket/tests.rs for a recovery)."""

import numpy as np
import satcc
from test_scenario_tcp import scenario, tcp_entry

MSS = 1460
RTT_S = 0.100


def test_abc_and_prr_reach_the_description_only_when_on():
    entry = tcp_entry(scenario(**{"tcp.bulk.abc": True, "tcp.bulk.prr": True}))
    assert entry["abc"] is True and entry["prr"] is True
    plain = tcp_entry(scenario())
    assert "abc" not in plain and "prr" not in plain
    # The rfc preset leaves them off; the linux preset turns both on.
    entry = tcp_entry(scenario(**{"tcp.bulk.preset": "rfc"}))
    assert "abc" not in entry and "prr" not in entry
    entry = tcp_entry(scenario(**{"tcp.bulk.preset": "linux"}))
    assert entry["abc"] is True and entry["prr"] is True


def avoidance(**tcp) -> dict:
    """Congestion avoidance from the start (IW = ssthresh = 10 segments)
    over a lossless 100 Mb/s path, 100 ms RTT, with windows far above what
    20 s of growth reaches (the bandwidth-delay product is 856 segments),
    delayed ACKs on: cwnd as the sender's trace records it."""
    return {
        "run": {"duration": "20 s"},
        "nodes": {"a": {}, "b": {}},
        "links": {
            "fwd": {"from": "a", "to": "b", "rate": "100 Mb/s", "delay": "50 ms"},
            "rev": {"from": "b", "to": "a", "rate": "100 Mb/s", "delay": "50 ms"},
        },
        "tcp": {
            "t": {
                "from": "a",
                "to": "b",
                "initial_window": 10,
                "initial_ssthresh": f"{10 * MSS} B",
                "send_buffer": "16 MiB",
                "receive_buffer": "16 MiB",
                **tcp,
            }
        },
        "traces": {"cw": {"tcp": "t", "events": ["cwnd"]}},
    }


def growth_per_rtt(**tcp) -> float:
    """cwnd's slope in segments per round trip, fitted over 2-20 s."""
    res = satcc.run(avoidance(**tcp))
    trace = res.trace("cw")
    assert (trace["state"] == "congestion_avoidance").iloc[1:].all()
    late = trace[trace["time_s"] >= 2.0]
    slope = np.polyfit(late["time_s"], late["cwnd_bytes"] / MSS, 1)[0]
    assert res.summary["tcp.t.retransmissions"] == 0
    return slope * RTT_S


def test_byte_counting_grows_one_segment_per_rtt_with_delayed_acks():
    # RFC 3465 §2.1: one SMSS per window acknowledged, however many ACKs.
    with_abc = growth_per_rtt(abc=True)
    assert abs(with_abc - 1.0) < 0.03, with_abc
    # RFC 5681 eq. (3), SMSS²/cwnd per ACK, one ACK per two segments.
    without = growth_per_rtt()
    assert abs(without - 0.5) < 0.03, without
    # Without delayed ACKs both rules give about one segment per RTT: byte
    # counting exactly, the per-ACK rule a few per cent less, SMSS²/cwnd
    # being rounded down to whole bytes (14 B instead of 14.6 at 100
    # segments).
    assert abs(growth_per_rtt(delayed_ack=False, abc=True) - 1.0) < 0.03
    per_ack = growth_per_rtt(delayed_ack=False)
    assert 0.9 < per_ack < 0.98, per_ack
