# A run's flows for a researcher: Jain's fairness index in the summary
# (checked against values worked out by hand: equal shares give 1, one flow
# taking everything 1/n, k equal flows and the rest starving k/n).

from pathlib import Path

import pytest
import satcc
from satcc.executors import Task, execute
from satcc.scenario import Scenario, normalised_json

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def parallel_paths(n: int, lossy: set[int] = frozenset(), duration: str = "3 s") -> dict:
    """n identical disjoint paths h<i> -> d<i>, 2 Mb/s, 20 ms; the links of
    the paths in `lossy` lose every PDU. Callers add flows."""
    nodes = {f"{end}{i}": {"type": "host"} for i in range(n) for end in "hd"}
    links = {
        f"p{i}": {
            "from": f"h{i}",
            "to": f"d{i}",
            "rate": "2 Mbps",
            "delay": "20 ms",
            "duplex": True,
            **({"loss": 1.0} if i in lossy else {}),
        }
        for i in range(n)
    }
    return {
        "run": {"name": "paths", "duration": duration, "seed": 1},
        "nodes": nodes,
        "links": links,
    }


def with_sources(n: int, lossy: set[int] = frozenset()) -> dict:
    data = parallel_paths(n, lossy)
    data["sinks"] = {f"rx{i}": {"node": f"d{i}"} for i in range(n)}
    data["sources"] = {
        f"s{i}": {"type": "cbr", "from": f"h{i}", "to": f"rx{i}", "rate": "1 Mbps"}
        for i in range(n)
    }
    return data


def with_tcp(n: int, lossy: set[int] = frozenset()) -> dict:
    data = parallel_paths(n, lossy)
    data["tcp"] = {
        f"t{i}": {"from": f"h{i}", "to": f"d{i}", "app": {"type": "bulk"}} for i in range(n)
    }
    return data


def jain(x: list[float]) -> float:
    return sum(x) ** 2 / (len(x) * sum(v * v for v in x))


# ---------------------------------------------------------------------------
# Jain's fairness index


def test_equal_shares_give_one():
    s = satcc.run(with_sources(3)).summary
    throughputs = [s[f"flows.s{i}.throughput_bps"] for i in range(3)]
    assert throughputs[0] > 0 and len(set(throughputs)) == 1
    assert s["flows.jain_throughput"] == pytest.approx(1.0, abs=1e-15)
    t = satcc.run(with_tcp(2)).summary
    assert t["tcp.t0.goodput_bps"] == t["tcp.t1.goodput_bps"] > 0
    assert t["tcp.jain_goodput"] == pytest.approx(1.0, abs=1e-15)


def test_one_flow_taking_everything_gives_one_over_n():
    s = satcc.run(with_sources(4, lossy={1, 2, 3})).summary
    assert [s[f"flows.s{i}.throughput_bps"] > 0 for i in range(4)] == [True, False, False, False]
    assert s["flows.jain_throughput"] == pytest.approx(1 / 4, abs=1e-15)


def test_k_equal_flows_and_the_rest_starving_give_k_over_n():
    t = satcc.run(with_tcp(3, lossy={2})).summary
    assert t["tcp.t2.goodput_bps"] == 0 and t["tcp.t0.goodput_bps"] > 0
    assert t["tcp.jain_goodput"] == pytest.approx(2 / 3, abs=1e-15)


def test_the_index_is_over_the_flows_own_goodputs_in_a_contended_run():
    sc = satcc.load(EXAMPLES / "dumbbell_geo.toml").set("run.duration", "20 s")
    s = satcc.run(sc, seed=2).summary
    goodputs = [s[f"tcp.flow{i:02d}.goodput_bps"] for i in range(16)]
    assert 0.5 < jain(goodputs) < 1.0  # unequal shares: a test that can tell
    assert s["tcp.jain_goodput"] == pytest.approx(jain(goodputs), rel=1e-12)


def test_no_index_for_a_single_flow_and_null_when_nothing_was_received():
    s = satcc.run(with_sources(1)).summary
    assert not [k for k in s if "jain" in k]
    both_lost = satcc.run(with_sources(2, lossy={0, 1})).summary
    assert both_lost["flows.jain_throughput"] is None


def test_a_flow_that_has_not_started_is_left_out():
    data = with_sources(3, lossy={2})
    data["sources"]["s2"]["start"] = "10 s"  # after the end of the run
    s = satcc.run(data).summary
    assert s["flows.s2.throughput_bps"] is None
    assert s["flows.jain_throughput"] == pytest.approx(1.0, abs=1e-15)


def test_sweep_workers_get_the_index_too():
    desc = Scenario.from_dict(with_tcp(3, lossy={2})).validate()
    outcome = execute(Task("k", normalised_json(desc)))
    assert outcome.ok
    assert outcome.summary["tcp.jain_goodput"] == pytest.approx(2 / 3, abs=1e-15)


def test_tfrc_flows_get_the_index():
    data = parallel_paths(2, lossy={1})
    data["tfrc"] = {
        f"m{i}": {
            "from": f"h{i}",
            "to": f"d{i}",
            "packet_size": "1000 B",
            "media": {"rate": "500 kbps"},
        }
        for i in range(2)
    }
    r = satcc.run(data)
    s = r.summary
    assert s["tfrc.m1.goodput_bps"] == 0 < s["tfrc.m0.goodput_bps"]
    assert r.summary["tfrc.jain_goodput"] == pytest.approx(1 / 2, abs=1e-15)
