"""Interrupts and wall budgets are prompt, however slow or long a run is;
building a run releases the GIL; sources whose parameters once made a run
crawl or a build search for minutes now cost what their traffic costs."""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import satcc
from satcc import _core
from satcc.bench import b1_scenario
from satcc.scenario import Scenario, normalised_json

SATCC = str(Path(sys.executable).parent / "satcc")


def two_hosts(duration: str, **source) -> dict:
    return {
        "run": {"duration": duration},
        "nodes": {"a": {"type": "host"}, "b": {"type": "host"}},
        "links": {"ab": {"from": "a", "to": "b", "rate": "100 Mbps"}},
        "sources": {"s": {"from": "a", "to": "rx", **source}},
        "sinks": {"rx": {"node": "b"}},
    }


def test_on_off_periods_far_shorter_than_a_packet_keep_their_mean_rate():
    # 1 ps ON and OFF, 1000-byte packets at a 1 Mb/s peak (8 ms each): a
    # packet spans 8e9 ON periods. It used to take 8e9 loop turns per
    # packet (SIGINT answered after 15 s); now each packet is O(1).
    data = two_hosts(
        "100 s",
        type="onoff",
        rate="1 Mbps",
        packet_size="1000 B",
        on_time="1 ps",
        off_time="1 ps",
    )
    t0 = time.perf_counter()
    s = satcc.run(data).summary
    assert time.perf_counter() - t0 < 20
    assert s["flows.s.throughput_bps"] == pytest.approx(0.5e6, rel=0.01)


def test_an_mpeg2_source_at_a_vanishing_rate_builds_at_once():
    # Mean and deviation of 1e-6 b/s: a cell every few hundred thousand
    # years. The source once searched that far ahead while being built.
    data = two_hosts("10 s", type="mpeg2", rate="0.000001 bps", std="0.000001 bps")
    t0 = time.perf_counter()
    s = satcc.run(data).summary
    assert time.perf_counter() - t0 < 20
    # The first cell leaves at the start (a full cell of credit), no other.
    assert s["flows.s.sent_packets"] == 1


def test_an_absurd_number_of_packets_is_refused_before_running():
    data = two_hosts("1e6 s", type="cbr", rate="100 Gbps", packet_size="1 B")
    with pytest.raises(satcc.ScenarioError) as e:
        Scenario.from_dict(data).validate()
    assert e.value.path == "sources.s.rate"
    assert "packets in the run" in e.value.reason


def test_a_wall_budget_stops_a_long_run_promptly():
    t0 = time.perf_counter()
    with pytest.raises(TimeoutError):
        satcc.run(b1_scenario(100_000.0), max_wall_s=0.5)
    assert time.perf_counter() - t0 < 5


def test_sigint_stops_satcc_run_promptly(tmp_path: Path):
    scenario = tmp_path / "long.toml"
    scenario.write_text(Scenario.from_dict(b1_scenario(100_000.0)).to_toml())

    def default_sigint() -> None:
        # A background job inherits SIGINT ignored; a terminal gives the default.
        signal.signal(signal.SIGINT, signal.SIG_DFL)

    p = subprocess.Popen(
        [SATCC, "run", str(scenario), "--quiet"],
        preexec_fn=default_sigint,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    time.sleep(3)
    t0 = time.monotonic()
    p.send_signal(signal.SIGINT)
    try:
        code = p.wait(timeout=30)
    finally:
        p.kill()
    assert code == 130
    assert time.monotonic() - t0 < 5


def test_building_releases_the_gil():
    # A long fGn draw (an MPEG-2 source over a long run) while another
    # thread counts: the counter must move during the build.
    data = two_hosts("100000 s", type="mpeg2", rate="5 Mbps", std="5 Mbps")
    text = normalised_json(Scenario.from_dict(data).validate())
    counted = []
    done = threading.Event()

    def count() -> None:
        n = 0
        while not done.is_set():
            n += 1
        counted.append(n)

    t = threading.Thread(target=count)
    t.start()
    try:
        t0 = time.perf_counter()
        _core.Simulation(text)
        build_s = time.perf_counter() - t0
    finally:
        done.set()
        t.join()
    assert build_s > 0.05, "the build should take a moment for this to mean anything"
    assert counted[0] > 1000
