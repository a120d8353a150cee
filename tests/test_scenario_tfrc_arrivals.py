# [tfrc_arrivals.NAME]: a class of TFRC media flows arriving during the run,
# from the scenario file to the core and back. Refusals name the key; a run
# accounts for every packet its flows generated and hands over the start-up
# profile and the window's E2ED distribution as series.

import numpy as np
import pytest
import satcc
from satcc.scenario import Scenario
from scenario_helpers import changed, refused

BASE = {
    "run": {"name": "media-arrivals", "duration": "200 s", "seed": 2},
    "nodes": {"hub": {}, "a": {}, "b": {}, "c": {}},
    "links": {
        name: {"from": name, "to": "hub", "rate": "10 Mbps", "delay": "50 ms", "duplex": True}
        for name in ("a", "b", "c")
    },
    "tfrc_arrivals": {
        "voip": {
            "hosts": ["a", "b", "c"],
            "rate": 0.5,
            "duration": {"type": "exponential", "mean": "20 s"},
            "media": {"rate": "16 kbps", "buffer": 2},
            "packet_size": "160 B",
            "small_packets": True,
            "tolerable_delay": "100 ms",
            "max_flows": 40,
            "step": "1 s",
        }
    },
}


def scenario(**changes) -> Scenario:
    return changed(BASE, **changes)


def test_description_carries_the_class_in_core_units():
    (entry,) = scenario().validate()["tfrc_arrivals"]
    assert entry["hosts"] == ["a", "b", "c"]
    assert entry["rate_per_s"] == 0.5
    assert entry["duration"] == {"kind": "exponential", "mean_ps": 20 * 10**12}
    assert entry["media"] == {"rate_bps": 16_000.0, "buffer_packets": 2}
    assert entry["small_packets"] is True
    assert entry["window_ps"] == 30 * 10**12 and entry["step_ps"] == 10**12
    assert entry["tolerable_delay_ps"] == 10**11


@pytest.mark.parametrize(
    ("path", "value", "key", "fragment"),
    [
        ("tfrc_arrivals.voip.hosts", ["a"], "tfrc_arrivals.voip.hosts", "two different"),
        ("tfrc_arrivals.voip.hosts", ["a", "a"], "tfrc_arrivals.voip.hosts.1", "twice"),
        ("tfrc_arrivals.voip.hosts", ["a", "z"], "tfrc_arrivals.voip.hosts.1", '"z"'),
        ("tfrc_arrivals.voip.rate", 0, "tfrc_arrivals.voip.rate", "positive"),
        (
            "tfrc_arrivals.voip.duration",
            {"type": "pareto"},
            "tfrc_arrivals.voip.duration.type",
            None,
        ),
        ("tfrc_arrivals.voip.step", "40 s", "tfrc_arrivals.voip.step", "window"),
        # Petabytes of histograms (window / step bins), and an encoder whose
        # packet interval is below a picosecond (a run that never ends).
        ("tfrc_arrivals.voip.step", "1 ps", "tfrc_arrivals.voip.step", "at most 100,000"),
        ("tfrc_arrivals.voip.media.rate", "1e8 Gbps", "tfrc_arrivals.voip.media.rate", "1000"),
        ("tfrc_arrivals.voip.media.buffer", 2**32, "tfrc_arrivals.voip.media.buffer", "at most"),
        ("tfrc_arrivals.voip.stop", "0 s", "tfrc_arrivals.voip.stop", "after start"),
        ("tfrc_arrivals.voip.media.duration", "1 s", None, "unknown key"),
        ("tfrc_arrivals.voip.header_size", "160 B", None, "smaller than packet_size"),
    ],
)
def test_refusals_name_the_key(path, value, key, fragment):
    error = refused(scenario(**{path: value}))
    if key is not None:
        assert error.path == key, str(error)
    if fragment is not None:
        assert fragment in str(error), str(error)


def test_a_host_with_no_path_to_the_others_is_refused():
    sc = scenario()
    sc.set("nodes.island", {})
    sc.set("tfrc_arrivals.voip.hosts", ["a", "island"])
    error = refused(sc)
    assert error.path.startswith("tfrc_arrivals.voip.hosts"), str(error)


def test_every_packet_is_counted_and_the_profile_is_a_series():
    result = satcc.run(scenario())
    s = result.summary
    key = "tfrc_arrivals.voip."
    assert s["run.pdus_unaccounted"] == 0
    assert s[key + "flows_started"] == 40
    assert s[key + "flows_ended"] == 40
    # What was generated was either lost to the two-packet buffer while
    # TFRC-SP started up, or sent and received.
    assert s[key + "generated"] == s[key + "tx_buffer_overflow"] + s[key + "packets_sent"]
    assert s[key + "packets_sent"] == s[key + "packets_received"]
    assert 0 < s[key + "tx_buffer_loss"] < 0.5
    p95 = result.series(key + "startup_e2ed_p95")
    assert len(p95) == 30
    assert p95["time_s"].iloc[0] == pytest.approx(0.5)
    cdf = result.series(key + "window_e2ed_cdf")
    assert np.all(np.diff(cdf["value"]) > 0)
    assert cdf["value"].iloc[-1] == pytest.approx(1.0)
    # On the idle mesh the median is the path: 100 ms of propagation and
    # two 128 us serialisations.
    assert s[key + "e2ed_p50_s"] == pytest.approx(0.100256, abs=0.001)
