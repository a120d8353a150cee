"""PIE (RFC 8033): the `pie` queue table, its defaults and checks, the
delay it holds under long-lived TCP flows at 50 ms and GEO round trips,
ECN marking below `mark_ecnth` and determinism (docs/queues.md, "PIE").
There is no PIE in ns-2.35 nor in this kernel: the expectations are the
RFC's stated behaviour."""

from __future__ import annotations

import pytest
import satcc
import test_queues
from satcc.scenario import Scenario, ScenarioError


def dumbbell(
    queue: dict, flows: int, delay="23 ms", duration="60 s", cc="reno", buffer=None
) -> dict:
    """`flows` bulk TCP flows over a 10 Mb/s bottleneck `bn`; round trip
    2 (2 ms + `delay`) when empty; socket buffers `buffer` if given (a GEO
    path needs more than the default 64 KiB to fill the link)."""
    sc = test_queues.dumbbell(queue, flows, delay=delay, duration=duration)
    for tcp in sc["tcp"].values():
        if cc != "reno":
            tcp["congestion_control"] = cc
        if buffer is not None:
            tcp["send_buffer"] = tcp["receive_buffer"] = buffer
    return sc


PIE = {"type": "pie"}


@pytest.mark.parametrize(
    "queue,where,fragment",
    [
        ({**PIE, "target": "0 ms"}, "target", "positive"),
        ({**PIE, "tupdate": "0 ms"}, "tupdate", "positive"),
        ({**PIE, "alpha": -0.1}, "alpha", "zero or more"),
        ({**PIE, "beta": -1}, "beta", "zero or more"),
        ({**PIE, "limit": "0 packets"}, "limit", ""),
        ({**PIE, "mark_ecnth": 1.5}, "mark_ecnth", "between 0 and 1"),
        ({**PIE, "max_burst": "-1 ms"}, "max_burst", ""),
        ({**PIE, "min_th": 5}, "min_th", ""),
        ({"type": "codel", "tupdate": "15 ms"}, "tupdate", ""),
        ({"type": "red", "min_th": 5, "max_th": 15, "derandomize": False}, "derandomize", ""),
    ],
)
def test_bad_pie_tables_are_refused_naming_the_key(queue, where, fragment):
    with pytest.raises(ScenarioError) as caught:
        Scenario.from_dict(dumbbell(queue, 1)).validate()
    text = str(caught.value)
    assert f"links.bn.queue.{where}" in text and fragment in text, text


def _described(queue: dict) -> dict:
    d = Scenario.from_dict(dumbbell(queue, 1)).validate()
    return next(link for link in d["links"] if link["name"] == "bn")["queue"]


def test_the_description_carries_the_rfc_defaults():
    assert _described(PIE) == {
        "kind": "pie",
        "limit": {"packets": 1000},
        "target_ps": 15_000_000_000,
        "tupdate_ps": 15_000_000_000,
        "alpha": 0.125,
        "beta": 1.25,
        "max_burst_ps": 150_000_000_000,
        "ecn": False,
        "mark_ecnth": 0.1,
        "derandomize": True,
    }
    # A target given explicitly is kept, even CoDel's default value.
    q = _described({**PIE, "target": "5 ms", "alpha": 0, "tupdate": "30 ms"})
    assert (q["target_ps"], q["alpha"], q["tupdate_ps"]) == (5_000_000_000, 0.0, 30_000_000_000)
    # CoDel's defaults are untouched by PIE's.
    assert _described({"type": "codel"})["target_ps"] == 5_000_000_000


def _pie_vs_droptail(delay: str, duration: str, cc: str, buffer=None) -> tuple[dict, dict]:
    def run(queue):
        sc = dumbbell(queue, 4, delay=delay, duration=duration, cc=cc, buffer=buffer)
        return satcc.run(sc).summary

    return run(PIE), run({"type": "droptail", "limit": "1000 packets"})


@pytest.mark.parametrize("cc", ["reno", "cubic"])
def test_pie_holds_its_target_at_50_ms(cc):
    # 4 flows, 10 Mb/s, 50 ms round trip: the mean sojourn stays near the
    # 15 ms target (band 8-30 ms) at full utilisation, where drop-tail's
    # 1000 packets fill.
    pie, droptail = _pie_vs_droptail("23 ms", "60 s", cc)
    mean = pie["links.bn.sojourn_mean_s"]
    assert 0.008 <= mean <= 0.030, mean
    assert pie["links.bn.utilisation"] > 0.9
    assert pie["links.bn.drops_early"] > 0
    assert 0 < pie["links.bn.pie_prob_mean"] < 0.1
    assert droptail["links.bn.wait_mean_s"] > 5 * mean
    assert pie["run.pdus_unaccounted"] == 0


def test_pie_holds_its_target_at_geo_round_trips():
    # 600 ms round trip: PIE's delay is set by its target, not the path.
    pie, droptail = _pie_vs_droptail("298 ms", "200 s", "cubic", buffer="2 MiB")
    mean = pie["links.bn.sojourn_mean_s"]
    assert 0.008 <= mean <= 0.030, mean
    assert droptail["links.bn.wait_mean_s"] > 3 * mean
    assert pie["run.pdus_unaccounted"] == 0


def test_the_delay_follows_target_and_needs_the_controller():
    # 50 ms, Reno: the mean sojourn moves with target; with alpha = beta = 0
    # p never leaves 0 and the queue behaves as drop-tail (no early drop).
    def mean(**queue):
        s = satcc.run(dumbbell({**PIE, **queue}, 4)).summary
        return s["links.bn.sojourn_mean_s"], s["links.bn.drops_early"]

    low, high = mean(target="5 ms")[0], mean(target="30 ms")[0]
    assert low < 0.010 and 0.020 <= high <= 0.045, (low, high)
    assert mean(alpha=0, beta=0)[1] == 0


def _ecn_run(**queue) -> dict:
    sc = dumbbell({**PIE, "ecn": True, **queue}, 4, duration="30 s")
    for t in sc["tcp"].values():
        t["ecn"] = True
    return satcc.run(sc).summary


def test_with_ecn_pie_marks_below_mark_ecnth_and_drops_above():
    # Every flow is ECN-capable. Below 10 % PIE marks; the few early drops
    # are arrivals while p peaked above 10 % (with mark_ecnth = 1 there
    # are none); with mark_ecnth = 0 it only drops.
    s = _ecn_run()
    assert s["links.bn.marks"] > 50, s["links.bn.marks"]
    assert s["links.bn.drops_early"] < s["links.bn.marks"] / 4
    assert 0.008 <= s["links.bn.sojourn_mean_s"] <= 0.030
    assert s["links.bn.utilisation"] > 0.9
    assert s["tcp.f0.ecn_reductions"] > 0
    always = _ecn_run(mark_ecnth=1.0)
    assert always["links.bn.marks"] > 50 and always["links.bn.drops_early"] == 0
    never = _ecn_run(mark_ecnth=0.0)
    assert never["links.bn.marks"] == 0 and never["links.bn.drops_early"] > 50
    for run in (s, always, never):
        assert run["run.pdus_unaccounted"] == 0


def test_same_seed_same_summary():
    sc = dumbbell(PIE, 4, duration="20 s")
    assert satcc.run(sc).summary == satcc.run(sc).summary
