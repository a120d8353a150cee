"""[arrivals.NAME]: TCP flows that arrive as a Poisson process and end when
their bytes are delivered, validated, described and run end to end."""

from __future__ import annotations

import pytest
import satcc
from satcc.scenario import Scenario, ScenarioError


def web(**arrivals) -> dict:
    """100 Mb/s, 10 ms each way; 2000-byte transfers, 200 per second."""
    return {
        "run": {"duration": "20 s"},
        "nodes": {"c": {"type": "host"}, "s": {"type": "host"}},
        "links": {
            "l": {"from": "c", "to": "s", "rate": "100 Mbps", "delay": "10 ms", "duplex": True}
        },
        "arrivals": {
            "short": {
                "from": "c",
                "to": "s",
                "rate": 200,
                "size": {"type": "constant", "size": "2000 B"},
                **arrivals,
            }
        },
    }


def refusal(data: dict) -> tuple[str, str]:
    with pytest.raises(ScenarioError) as e:
        Scenario.from_dict(data).validate()
    return e.value.path, e.value.reason


def test_the_description_carries_the_tcp_parameters_and_the_size():
    d = Scenario.from_dict(web(variant="sack", stop="10 s")).validate()
    (a,) = d["arrivals"]
    assert a["size"] == {"kind": "constant", "bytes": 2000}
    assert (a["rate_per_s"], a["variant"], a["mss_bytes"]) == (200.0, "sack", 1460)
    assert (a["src_node"], a["dst_node"], a["stop_ps"]) == ("c", "s", 10 * 10**12)
    assert "app" not in a


def test_a_scenario_without_arrivals_describes_none():
    data = web()
    del data["arrivals"]
    assert "arrivals" not in Scenario.from_dict(data).validate()


@pytest.mark.parametrize(
    "change,path,reason",
    [
        ({"app": {"type": "bulk"}}, "arrivals.short.app", 'unknown key "app"'),
        ({"abr": {}}, "arrivals.short.abr", 'unknown key "abr"'),
        ({"rate": 0}, "arrivals.short.rate", "rate must be positive"),
        (
            {"size": {"type": "pareto", "mean": "10 kB", "shape": 1.0}},
            "arrivals.short.size.shape",
            "greater than 1",
        ),
        ({"size": {"type": "pareto", "mean": "10 kB"}}, "arrivals.short.size.shape", "missing"),
        ({"size": {"type": "lognormal"}}, "arrivals.short.size.type", 'expected one of "constant"'),
        ({"start": "5 s", "stop": "2 s"}, "arrivals.short.stop", "stop must be after start"),
        ({"to": "nowhere"}, "arrivals.short.to", 'no node named "nowhere"'),
    ],
)
def test_bad_classes_are_refused_by_key(change, path, reason):
    got_path, got_reason = refusal(web(**change))
    assert got_path == path
    assert reason in got_reason, got_reason


def test_short_transfers_take_the_handshake_and_one_flight():
    res = satcc.run(web(), seed=2)
    s = res.summary
    # SYN, SYN-ACK, then both segments within the initial window: all the
    # data is in 1.5 round trips plus the serialisation of a SYN, a SYN-ACK
    # and the two segments (1500 + 540 B) at 100 Mb/s.
    expect = 0.030 + (40 + 40 + 1500 + 540) * 8 / 100e6
    assert s["arrivals.short.completion_time_p50_s"] == pytest.approx(expect, rel=0.01)
    started, done = s["arrivals.short.flows_started"], s["arrivals.short.flows_completed"]
    # Poisson at 200/s over 20 s: 4000 expected, sd about 63.
    assert abs(started - 4000) < 5 * 63
    assert done + s["arrivals.short.flows_active"] == started
    assert s["arrivals.short.bytes_delivered"] == 2000 * done


def test_same_seed_same_summary_other_seed_other_arrivals():
    a, b, c = (satcc.run(web(), seed=seed).summary for seed in (1, 1, 2))
    assert a == b
    assert a["arrivals.short.flows_started"] != c["arrivals.short.flows_started"]
