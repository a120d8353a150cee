# The shipped examples: every one validates, the small ones run, and their
# headline figures agree with what the comments in the files promise,
# computed here from the scenario parameters.

from pathlib import Path

import numpy as np
import pytest
import satcc
import satcc.bench
from satcc.scenario import Scenario, normalised_json

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
ALL = sorted(EXAMPLES.glob("*.toml"))


def test_the_examples_are_there():
    assert {p.name for p in ALL} >= {
        "b1_cell_storm.toml",
        "geo_cbr.toml",
        "markov_link.toml",
        "mm1.toml",
    }


@pytest.mark.parametrize("path", ALL, ids=[p.stem for p in ALL])
def test_every_example_validates(path):
    desc = satcc.load(path).validate()
    assert desc["name"] == path.stem
    # Something sends: sources to sinks, connections, or flow arrivals.
    assert (desc["sources"] and desc["sinks"]) or desc["tcp"] or desc.get("arrivals")


# ---------------------------------------------------------------------------
# geo_cbr: CBR video over a GEO hop with a Poisson background


@pytest.fixture(scope="module")
def geo():
    return satcc.run(EXAMPLES / "geo_cbr.toml")


def test_geo_cbr_minimum_delay_is_serialisation_plus_propagation(geo):
    expected = 1500 * 8 / 10e6 + 1e-3 + 1500 * 8 / 2.048e6 + 0.270
    assert geo.summary["flows.video.delay_min_s"] == pytest.approx(expected, abs=1e-9)


def test_geo_cbr_background_adds_queueing(geo):
    s = geo.summary
    assert s["run.stop_reason"] == "duration" and s["run.end_time_s"] == 30.0
    assert s["flows.background.received_packets"] > 0
    assert s["flows.video.delay_mean_s"] > s["flows.video.delay_min_s"] + 1e-4
    assert s["links.sat.queue_max_bytes"] > 0
    # 1.5 Mb/s of video for 30 s, less what the 64 KiB queue dropped.
    sent = s["flows.video.sent_packets"]
    assert sent == 30 * 1_500_000 // (1500 * 8)
    assert s["flows.video.throughput_bps"] == pytest.approx(1.5e6, rel=0.02)
    assert sorted(geo.series_names) == ["sat_queue", "sat_throughput", "video_delay"]
    assert len(geo.series("sat_queue")) == 300


# ---------------------------------------------------------------------------
# markov_link: a bottleneck switching between 2 Mb/s and 0.5 Mb/s


def test_markov_link_loses_packets_in_bad_periods():
    res = satcc.run(EXAMPLES / "markov_link.toml")
    s = res.summary
    assert s["flows.flow.lost_packets"] > 0
    assert s["links.bottleneck.drops"] == s["flows.flow.dropped_packets"] > 0
    capacity = res.series("capacity")["value"].to_numpy()
    assert len(capacity) == round(120 / 0.05)
    assert set(np.unique(capacity)) == {2e6, 0.5e6}
    # It does switch, and more than once (mean holding 2 s and 1 s over 120 s).
    assert np.count_nonzero(np.diff(capacity)) > 10
    # The 1.5 Mb/s flow cannot get more than the mean capacity, about
    # (2 * 2 + 0.5 * 1) / 3 = 1.5 Mb/s; its goodput is below its rate.
    assert s["flows.flow.throughput_bps"] < 1.5e6


# ---------------------------------------------------------------------------
# mm1: the M/M/1 queue


def test_mm1_mean_wait_matches_theory():
    res = satcc.run(satcc.load(EXAMPLES / "mm1.toml").set("run.duration", "60 s"))
    mu = 10e6 / (1000 * 8)  # 1250 packets/s
    lam = 8e6 / (1000 * 8)  # 1000 packets/s
    rho = lam / mu
    wq = rho / (mu - lam)  # 3.2 ms
    # 60 s is only about 60 000 packets, and successive waits at rho = 0.8
    # are strongly correlated: the mean wait over 60 s has a relative
    # standard deviation of about 5 % (the asymptotic variance of the M/M/1
    # mean, 2 rho (1 + rho) / (mu (1 - rho)^4), over 60 s). 15 % is three
    # of them; the full 600 s run would allow a tighter bound.
    assert res.summary["links.server.wait_mean_s"] == pytest.approx(wq, rel=0.15)
    assert res.summary["links.server.utilisation"] == pytest.approx(rho, rel=0.05)


# ---------------------------------------------------------------------------
# b1_cell_storm: the benchmark network


def test_b1_example_is_exactly_the_bench_scenario():
    from_file = satcc.load(EXAMPLES / "b1_cell_storm.toml").validate()
    from_bench = Scenario.from_dict(satcc.bench.b1_scenario()).validate()
    assert normalised_json(from_file) == normalised_json(from_bench)


def test_b1_short_run_has_no_drops():
    sc = satcc.load(EXAMPLES / "b1_cell_storm.toml").set("run.duration", "0.5 s")
    s = satcc.run(sc).summary
    assert s["run.stop_reason"] == "duration"
    drops = {k: v for k, v in s.items() if k.endswith((".drops", ".drops_clp", "dropped_packets"))}
    assert len(drops) == 19 * 2 + 16  # every link and every flow is reported
    assert not any(drops.values()), {k: v for k, v in drops.items() if v}
    # Cells really flowed across the GEO hop: 16 sources at 8.892 Mb/s of
    # 53-byte cells, the first arriving after about 280 ms.
    sent = sum(s[f"flows.cbr{i:02}.sent_packets"] for i in range(16))
    assert sent == 16 * int(np.ceil(0.5 * 8.892e6 / (53 * 8)))
    assert s["sinks.rx.received_packets"] > 0
