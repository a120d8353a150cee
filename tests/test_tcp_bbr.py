"""congestion_control = "bbr": the key, its refusals, and a whole run
through the Python API (the model's own tests are in the Rust core)."""

import pytest
import satcc
from satcc.studies.ns2 import Case
from test_scenario_tcp import assert_refused, scenario, tcp_entry
from test_tcp_validation import path


def test_bbr_reaches_the_description():
    entry = tcp_entry(scenario(**{"tcp.bulk.congestion_control": "bbr"}))
    assert entry["congestion_control"] == "bbr"


def test_hystart_given_with_bbr_is_refused_but_the_presets_is_left():
    sc = scenario(**{"tcp.bulk.congestion_control": "bbr", "tcp.bulk.hystart": True})
    assert_refused(sc, "tcp.bulk.hystart", "Startup")
    entry = tcp_entry(
        scenario(**{"tcp.bulk.preset": "linux", "tcp.bulk.congestion_control": "bbr"})
    )
    assert entry["congestion_control"] == "bbr"


def test_ns2_has_no_bbr():
    with pytest.raises(ValueError, match="no BBR"):
        Case(variant="sack", congestion_control="bbr")


def run(cc: str):
    tcp = {
        "variant": "sack",
        "congestion_control": cc,
        "initial_window": 10,
        "send_buffer": "64 MiB",
        "receive_buffer": "64 MiB",
    }
    sc = path("10 Mbps", "300 ms", tcp, duration="60 s")
    sc["links"]["fwd"]["queue"] = {"type": "droptail", "limit": "2000 packets"}
    return satcc.run(sc).summary


def test_bbr_over_geo_keeps_the_queue_short_where_cubic_fills_it():
    """10 Mb/s, 600 ms RTT, 2000 packets of buffer (4 BDPs): BBR paces at
    the bottleneck rate and keeps less than a BDP (500 packets) queued on
    average; CUBIC grows until the buffer overflows."""
    bbr, cubic = run("bbr"), run("cubic")
    assert bbr["links.fwd.drops"] == 0
    assert bbr["links.fwd.queue_mean_packets"] < 500
    assert bbr["tcp.t.goodput_bps"] > 0.8 * 10e6 * 1460 / 1500
    assert cubic["links.fwd.queue_max_packets"] >= 1990
    assert cubic["links.fwd.drops"] > 0
