"""TCP Hybla (congestion_control = "hybla", Caini and Firrincieli 2004, as
Linux's tcp_hybla.c computes it) end to end: its key, its identity with Reno
at RTT = RTT0, and the paper's headline property, a sending rate that ramps
in seconds as a Reno connection's over RTT0 whatever the RTT. The per-ACK
arithmetic is tested in crates/core/src/transport/tcp/congestion/hybla.rs."""

import numpy as np
import pytest
import satcc
from satcc.studies import ns2
from test_scenario_tcp import MS, assert_refused, scenario, tcp_entry
from test_tcp_validation import path, probe, series


def test_hybla_and_its_rtt0_reach_the_description():
    entry = tcp_entry(
        scenario(**{"tcp.bulk.congestion_control": "hybla", "tcp.bulk.hybla_rtt0": "50 ms"})
    )
    assert entry["congestion_control"] == "hybla" and entry["hybla_rtt0_ps"] == 50 * MS
    # Without the key the core takes Linux's 25 ms; nothing is written.
    assert "hybla_rtt0_ps" not in tcp_entry(scenario(**{"tcp.bulk.congestion_control": "hybla"}))


def test_hybla_rtt0_is_refused_with_another_controller():
    assert_refused(
        scenario(**{"tcp.bulk.hybla_rtt0": "25 ms"}), "tcp.bulk.hybla_rtt0", '"hybla" only'
    )
    assert_refused(
        scenario(**{"tcp.bulk.congestion_control": "cubic", "tcp.bulk.hybla_rtt0": "25 ms"}),
        "tcp.bulk.hybla_rtt0",
        'congestion_control = "cubic"',
    )


def test_hybla_rtt0_must_be_positive():
    assert_refused(
        scenario(**{"tcp.bulk.congestion_control": "hybla", "tcp.bulk.hybla_rtt0": "0 s"}),
        "tcp.bulk.hybla_rtt0",
    )


def test_the_ns2_crosscheck_runs_hybla_in_the_linux_sender():
    # tcp-crosscheck pairs satcc's Hybla with ns-2.35's Linux sender running
    # 2.6.22's tcp_hybla, which recovers with SACK (tests/test_study_tcp_crosscheck.py).
    with pytest.raises(ValueError, match="SACK"):
        ns2.Case(congestion_control="hybla")
    assert ns2.Case(variant="sack", congestion_control="hybla").linux_sender


def _cwnd_run(rate: str, one_way: str, tcp: dict, duration: str, interval: str, **kw):
    sc = path(
        rate,
        one_way,
        tcp,
        duration=duration,
        interval=interval,
        **kw,
        probes={"cwnd": probe("cwnd_bytes")},
    )
    # Room for Hybla's slow start, which reaches ssthresh in one round trip.
    sc["links"]["fwd"]["queue"] = {"type": "droptail", "limit": "100000 packets"}
    r = satcc.run(sc)
    return series(r, "cwnd")[1], r.summary


def test_at_rtt0_hybla_is_reno_for_a_whole_run():
    """rho = max(1, RTT/RTT0): over a 25 ms path (26.2 ms with a segment's
    serialisation at 10 Mb/s, under the 28.1 ms where rho's eighths reach 9)
    both the 2^rho - 1 of slow start and the rho^2/cwnd of congestion
    avoidance are Reno's, so with the same random losses every cwnd sample of
    a 30 s run is Reno's. RTT0 = 10 ms on the same path (rho = 2.5) parts
    from it."""

    def cwnd(tcp: dict):
        w, s = _cwnd_run("10 Mbps", "12.5 ms", tcp, "30 s", "10 ms", loss=0.002)
        return w, s

    reno, rs = cwnd({})
    hybla, hs = cwnd({"congestion_control": "hybla"})
    print({k: rs[f"tcp.t.{k}"] for k in ("retransmissions", "fast_retransmits", "timeouts")})
    assert rs["tcp.t.retransmissions"] > 10 and rs["tcp.t.fast_retransmits"] > 5
    np.testing.assert_array_equal(hybla, reno)
    assert hs["tcp.t.delivered_bytes"] == rs["tcp.t.delivered_bytes"]
    faster, _ = cwnd({"congestion_control": "hybla", "hybla_rtt0": "10 ms"})
    assert not np.array_equal(faster, reno)


def test_over_geo_hybla_ramps_its_rate_as_reno_over_rtt0():
    """The paper's W^H(t) = rho W^R(t): in congestion avoidance cwnd grows by
    rho^2 segments per RTT = rho RTT0, rho segments per RTT0, so cwnd/RTT
    grows in time as Reno's over RTT0. Reno over 25 ms takes cwnd from 400
    to 800 segments (one per RTT: 400 x 25 ms = 10 s); Hybla over 600 ms
    (rho = 24) takes it from 24 x 400 to 24 x 800, the same sending rates,
    in the same time, where Reno over 600 ms takes 24 times as long for the
    same cwnd (and 576 times for the same rate). 9000-byte segments keep
    Reno's SMSS^2/cwnd bytes per ACK above 11 bytes, so its truncation to a
    byte costs it under 3 %; without delayed ACKs each segment is an ACK."""
    mss = 9000

    def seconds_to_double(one_way: str, tcp: dict, start: int, duration: str, interval: str):
        cwnd0 = {"initial_window": start, "initial_ssthresh": f"{start * mss} B"}
        base = {"mss": f"{mss} B", "delayed_ack": False}
        base |= {"send_buffer": "512 MiB", "receive_buffer": "512 MiB"}
        w, s = _cwnd_run("10 Gbps", one_way, base | cwnd0 | tcp, duration, interval)
        assert s["links.fwd.drops"] == 0
        dt = float(interval.split()[0]) / 1000
        reach = [np.argmax(w >= k * start * mss) for k in (2, 4)]
        assert all(w[i] >= k * start * mss for i, k in zip(reach, (2, 4), strict=True))
        return (reach[1] - reach[0]) * dt

    reno_rtt0 = seconds_to_double("12.5 ms", {}, 200, "20 s", "20 ms")
    hybla_geo = seconds_to_double(
        "300 ms", {"congestion_control": "hybla"}, 24 * 200, "20 s", "20 ms"
    )
    reno_geo = seconds_to_double("300 ms", {}, 200, "420 s", "100 ms")
    print(
        f"400 -> 800 segments: Reno 25 ms {reno_rtt0:.2f} s, Reno 600 ms {reno_geo:.1f} s; "
        f"24x that under Hybla 600 ms {hybla_geo:.2f} s"
    )
    assert reno_rtt0 == pytest.approx(10.0, rel=0.05)
    assert hybla_geo == pytest.approx(reno_rtt0, rel=0.10)
    assert reno_geo == pytest.approx(24 * reno_rtt0, rel=0.10)
