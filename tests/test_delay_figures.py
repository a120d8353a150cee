"""Delay figures that must hold whatever the rounding: min <= mean <= max and
a mean jitter that is never negative (issue 37, S1). A sum of picosecond
delays in f64 passed 2^53 within seconds of a GEO run, and the mean of a
constant delay came out below its minimum, its mean jitter negative."""

from __future__ import annotations

from pathlib import Path

import pytest
import satcc

ROOT = Path(__file__).resolve().parents[1]

CONSTANT_DELAY = {
    "run": {"duration": "5 s"},
    "nodes": {"h": {}, "S1": {}, "S2": {}},
    "links": {
        "a": {"from": "h", "to": "S1", "rate": "149.76 Mbps", "delay": "5 us"},
        "geo": {"from": "S1", "to": "S2", "rate": "149.76 Mbps", "delay": "275 ms"},
    },
    "sources": {
        "s": {"type": "cbr", "from": "h", "to": "rx", "rate": "8.892 Mbps", "packet_size": "53 B"}
    },
    "sinks": {"rx": {"node": "S2"}},
}


def test_a_constant_delay_is_its_own_mean_with_no_jitter():
    s = satcc.run(satcc.Scenario.from_dict(CONSTANT_DELAY)).summary
    delay = 275e-3 + 5e-6 + 2 * 53 * 8 / 149.76e6  # two hops' propagation and transmission
    assert s["flows.s.delay_min_s"] == pytest.approx(delay, abs=1e-12)
    assert s["flows.s.delay_mean_s"] == s["flows.s.delay_min_s"] == s["flows.s.delay_max_s"]
    assert s["flows.s.jitter_mean_s"] == 0.0 and s["flows.s.jitter_p99_s"] == 0.0
    assert s["flows.s.received_packets"] > 90_000  # enough for the f64 sum to pass 2^53


def _ordered_figures(summary: dict) -> list[tuple]:
    """Every (key, min, mean, max) of the summary, and every jitter."""
    out = []
    for key, mean in summary.items():
        if key.endswith("_mean_s") and key.replace("_mean_s", "_min_s") in summary:
            lo = summary[key.replace("_mean_s", "_min_s")]
            hi = summary[key.replace("_mean_s", "_max_s")]
            out.append((key, lo, mean, hi))
    return out


def test_every_mean_lies_between_min_and_max_in_a_cell_storm():
    # 26 figures out of order before, at 30 s of this example.
    sc = satcc.load(ROOT / "examples" / "b1_cell_storm.toml")
    sc.set("run.duration", "30 s")
    summary = satcc.run(sc).summary
    figures = _ordered_figures(summary)
    assert len(figures) >= 16
    wrong = [f for f in figures if not f[1] <= f[2] <= f[3]]
    assert not wrong
    jitters = {k: v for k, v in summary.items() if k.endswith("jitter_mean_s")}
    assert jitters and all(v >= 0 for v in jitters.values()), jitters
