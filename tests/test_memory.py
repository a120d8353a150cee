"""Bounded memory: what a run could need is estimated before it runs and a
scenario beyond the budget is refused with the figure; large networks keep
routes in memory proportional to the routes, not to the square of nodes."""

from __future__ import annotations

import pytest
import satcc
from satcc.scenario import Scenario, ScenarioError
from satcc.scenario.memory import MEMORY_BUDGET


def path(delay: str, duration: str = "10 s", probes: int = 0, interval: str = "100 ms") -> dict:
    return {
        "run": {"duration": duration, "sample_interval": interval},
        "nodes": {"a": {"type": "host"}, "b": {"type": "host"}},
        "links": {"ab": {"from": "a", "to": "b", "rate": "1 Mbps", "delay": delay}},
        "sources": {"s": {"type": "cbr", "from": "a", "to": "rx", "rate": "1 Mbps"}},
        "sinks": {"rx": {"node": "b"}},
        "probes": {f"p{i}": {"link": "ab", "metric": "queue_packets"} for i in range(probes)},
    }


def refusal(data: dict) -> ScenarioError:
    with pytest.raises(ScenarioError) as e:
        Scenario.from_dict(data).validate()
    return e.value


def test_a_link_that_could_hold_terabytes_is_refused_at_its_delay():
    # 9.2e6 s at 1 Mb/s: once about 10^12 bytes propagating (the run aborted).
    e = refusal(path("9.2e6 s"))
    assert e.path == "links.ab.delay"
    assert "GiB of memory" in e.reason and "at most 16.0 GiB" in e.reason


def test_many_long_probes_are_refused_at_the_sample_interval():
    # 200 probes of 10 M samples: 32 GB of series (the run aborted).
    e = refusal(path("1 ms", duration="1e6 s", probes=200))
    assert e.path == "run.sample_interval"
    assert "200 probes of 10,000,000 samples" in e.reason


def test_an_interplanetary_delay_at_a_modest_rate_is_fine():
    # Mars at 20 minutes, 1 Mb/s: 150 MB on the wire at most.
    Scenario.from_dict(path("20 min", duration="1 s")).validate()
    assert MEMORY_BUDGET == 16 * 2**30


def test_a_five_thousand_host_star_runs_in_linear_memory():
    # Dense routing tables would take 5000^2 entries; the core keeps only the
    # routes each node has once a network is large.
    n = 5000
    nodes = {"hub": {}} | {f"h{i}": {"type": "host"} for i in range(n)}
    links = {
        f"l{i}": {"from": f"h{i}", "to": "hub", "rate": "10 Mbps", "delay": "1 ms", "duplex": True}
        for i in range(n)
    }
    data = {
        "run": {"duration": "1 s"},
        "nodes": nodes,
        "links": links,
        "sources": {"s": {"type": "cbr", "from": "h0", "to": "rx", "rate": "1 Mbps"}},
        "sinks": {"rx": {"node": f"h{n - 1}"}},
    }
    s = satcc.run(data).summary
    # 1000-byte packets at 1 Mb/s for 1 s, 2 hops of 1 ms + 0.8 ms each.
    assert s["flows.s.received_packets"] == 125
    assert s["run.pdus_unaccounted"] == 0
