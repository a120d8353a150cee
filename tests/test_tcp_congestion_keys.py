"""[tcp.NAME] keys of the congestion controller (congestion_control, hystart),
congestion window validation (cwnd_validation), and the presets ("linux",
"rfc") that fill keys a table does not give."""

import numpy as np
import satcc
from test_scenario_tcp import MS, assert_refused, scenario, tcp_entry
from test_tcp_validation import path, probe, series


def test_cubic_and_hystart_reach_the_description():
    entry = tcp_entry(
        scenario(**{"tcp.bulk.congestion_control": "cubic", "tcp.bulk.hystart": True})
    )
    assert entry["congestion_control"] == "cubic" and entry["hystart"] is True
    # Reno and no HyStart++ are the defaults, left out of the description.
    assert "congestion_control" not in tcp_entry(scenario())


def test_unknown_congestion_control_is_refused():
    assert_refused(
        scenario(**{"tcp.bulk.congestion_control": "vegas"}), "tcp.bulk.congestion_control"
    )


def test_linux_preset_fills_what_the_table_does_not_give():
    entry = tcp_entry(scenario(**{"tcp.bulk.preset": "linux", "tcp.bulk.min_rto": "300 ms"}))
    assert entry["congestion_control"] == "cubic" and entry["hystart"] is True
    assert entry["variant"] == "sack"
    assert entry["initial_window_segments"] == 10
    assert entry["delayed_ack_ps"] == 40 * MS
    assert entry["receive_buffer_bytes"] == 6 * 2**20
    assert entry["min_rto_ps"] == 300 * MS  # given in the table: kept


def test_rfc_preset():
    entry = tcp_entry(scenario(**{"tcp.bulk.preset": "rfc"}))
    assert entry["variant"] == "sack" and "congestion_control" not in entry
    assert entry["initial_window_segments"] == 3
    assert entry["min_rto_ps"] == 1000 * MS


def test_unknown_preset_is_refused():
    assert_refused(scenario(**{"tcp.bulk.preset": "windows"}), "tcp.bulk.preset", "linux", "rfc")


def test_cwnd_validation_reaches_the_description():
    entry = tcp_entry(scenario(**{"tcp.bulk.cwnd_validation": "rfc7661"}))
    assert entry["cwnd_validation"] == "rfc7661"
    assert "cwnd_validation" not in tcp_entry(scenario())  # "off", the default
    assert tcp_entry(scenario(**{"tcp.bulk.preset": "linux"}))["cwnd_validation"] == "rfc2861"
    assert "cwnd_validation" not in tcp_entry(scenario(**{"tcp.bulk.preset": "rfc"}))


def test_unknown_cwnd_validation_is_refused():
    assert_refused(
        scenario(**{"tcp.bulk.cwnd_validation": "rfc9999"}),
        "tcp.bulk.cwnd_validation",
        "off",
        "rfc2861",
        "rfc7661",
    )


def test_cwnd_validation_shapes_an_application_limited_window():
    """A client with an initial window of 100 segments (146 kB) sends 60 kB
    requests, one per round trip and a bit, over a lossless 10 Mb/s, 100 ms
    RTT path: it never fills its window. Without validation cwnd stays;
    RFC 2861 moves it half way to the window used (60 kB) after each round
    trip spent application-limited. RFC 7661 grows it during the first
    request, while pipeACK is still undefined (the validated phase, RFC 7661
    §4.1), then keeps it: pipeACK, 60 kB, is below cwnd/2, the
    non-validated phase, and the run is well within its five minutes."""

    def cwnd(mode: str):
        r = satcc.run(
            path(
                "10 Mbps",
                "50 ms",
                {
                    "cwnd_validation": mode,
                    "initial_window": 100,
                    "send_buffer": "1 MB",
                    "receive_buffer": "1 MB",
                    "app": {
                        "type": "request_response",
                        "request": "60 kB",
                        "response": "100 B",
                        "count": 40,
                    },
                },
                duration="30 s",
                interval="10 ms",
                probes={"cwnd": probe("cwnd_bytes")},
            )
        )
        s = r.summary
        assert s["tcp.t.transactions"] == 40
        return series(r, "cwnd")[1]

    def largest_fall(w):
        return float(np.max(np.maximum.accumulate(w) - w))

    off, rfc2861, rfc7661 = cwnd("off"), cwnd("rfc2861"), cwnd("rfc7661")
    assert off[-1] == 100 * 1460
    assert off[-1] < rfc7661[-1] <= off[-1] + 60_000  # at most the first request
    assert largest_fall(off) == 0 and largest_fall(rfc7661) == 0
    assert 60_000 <= rfc2861[-1] < 62_000
