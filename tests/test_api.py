# The Python API (satcc.load, satcc.run, Result, Scenario edits for sweeps)
# and the models behind it, checked against arithmetic done here: delays as
# serialisation + propagation, packet counts of a saturated queue, loss rates
# of the error model, duty cycles and holding-time ratios. Every expected
# value is computed in the test from the scenario's parameters, never read
# back from the simulator.

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import satcc
from satcc.scenario import Scenario, ScenarioError

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
PS = 1e-12


def tx_s(nbytes: int, rate_bps: float) -> float:
    """Serialisation time of nbytes at rate_bps, in seconds."""
    return nbytes * 8 / rate_bps


def flow(summary: dict, name: str) -> dict:
    """The flows.NAME.* figures of a summary, keyed by the figure name."""
    prefix = f"flows.{name}."
    return {k[len(prefix) :]: v for k, v in summary.items() if k.startswith(prefix)}


def line(duration: str = "10 s", rate: str = "2 Mbps", delay: str = "10 ms", **link) -> dict:
    """One link a -> b with a sink at b; callers add sources."""
    return {
        "run": {"name": "line", "duration": duration, "seed": 1},
        "nodes": {"a": {}, "b": {}},
        "links": {"ab": {"from": "a", "to": "b", "rate": rate, "delay": delay, **link}},
        "sources": {},
        "sinks": {"rx": {"node": "b"}},
    }


def cbr(rate: str, size: str = "1000 B", frm: str = "a", to: str = "rx", **extra) -> dict:
    return {"type": "cbr", "from": frm, "to": to, "rate": rate, "packet_size": size, **extra}


# ---------------------------------------------------------------------------
# load, run, Result


@pytest.fixture(scope="module")
def geo_result():
    return satcc.run(satcc.load(EXAMPLES / "geo_cbr.toml").set("run.duration", "10 s"), seed=2)


def test_load_returns_an_editable_scenario():
    sc = satcc.load(EXAMPLES / "geo_cbr.toml")
    assert isinstance(sc, Scenario)
    assert sc.name == "geo_cbr"
    assert sc.get("links.sat.rate") == "2.048 Mbps"
    assert sc.validate()["links"][1]["capacity"] == {"kind": "constant", "rate_bps": 2.048e6}


def test_result_has_flat_summary_and_named_series(geo_result):
    res = geo_result
    assert isinstance(res, satcc.Result)
    assert res.seed == 2 and res.summary["run.seed"] == 2
    # Flat: every value is a plain number or string, no nested tables.
    assert all(isinstance(v, int | float | str) or v is None for v in res.summary.values())
    assert res.summary["run.end_time_s"] == 10.0
    assert sorted(res.series_names) == ["sat_queue", "sat_throughput", "video_delay"]
    frame = res.series("sat_queue")
    assert list(frame.columns) == ["time_s", "value"]
    # 10 s sampled every 100 ms: samples at 0.1, 0.2, ..., 10.0 s.
    assert np.allclose(frame["time_s"], np.arange(1, 101) * 0.1, rtol=0, atol=1e-12)
    # The returned frame is a copy: editing it leaves the result alone.
    frame["value"] = -1.0
    assert (res.series("sat_queue")["value"] >= 0).all()


def test_unknown_series_name_raises_key_error_naming_the_known_ones(geo_result):
    with pytest.raises(KeyError) as caught:
        geo_result.series("sat_qeue")
    message = str(caught.value)
    assert "sat_qeue" in message
    for name in ("sat_queue", "sat_throughput", "video_delay"):
        assert name in message


def test_a_run_that_only_prints_its_summary_imports_neither_pandas_nor_numpy():
    # They cost a `satcc run` 0.3 s and 90 MB; the series are built as
    # DataFrames only when asked for.
    code = (
        "import sys\n"
        "from satcc.cli import main\n"
        "sys.argv = ['satcc', 'run', '-q', sys.argv[1]]\n"
        "try:\n"
        "    main()\n"
        "except SystemExit as e:\n"
        "    assert e.code in (0, None), e.code\n"
        "print(sorted(m for m in ('pandas', 'numpy', 'pyarrow') if m in sys.modules))\n"
    )
    example = Path(__file__).parents[1] / "examples" / "geo_cbr.toml"
    out = subprocess.run(
        [sys.executable, "-c", code, str(example)], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "[]"


def test_run_accepts_a_path_a_scenario_and_a_dict(tmp_path):
    sc = satcc.load(EXAMPLES / "geo_cbr.toml").set("run.duration", "2 s")
    path = tmp_path / "geo_cbr.toml"
    path.write_text(sc.to_toml(), encoding="utf-8")
    from_path = satcc.run(path, seed=5)
    from_str_path = satcc.run(str(path), seed=5)
    from_scenario = satcc.run(sc, seed=5)
    from_dict = satcc.run(sc.data, seed=5)
    expected = json.dumps(from_scenario.summary, sort_keys=True)
    for res in (from_path, from_str_path, from_dict):
        assert json.dumps(res.summary, sort_keys=True) == expected
    assert from_scenario.summary["run.end_time_s"] == 2.0


# ---------------------------------------------------------------------------
# Building and editing scenarios for sweeps


def test_from_dict_set_copy_and_a_rate_sweep():
    base = line(duration="2 s", rate="2 Mbps", delay="0 s")
    base["sources"]["s"] = cbr("100 kbps", "1000 B")
    sc = Scenario.from_dict(base)
    # from_dict copies: editing the scenario leaves the caller's dict alone.
    sc.set("run.seed", 9)
    assert base["run"]["seed"] == 1

    faster = sc.copy().set("links.ab.rate", "4 Mbps")
    assert sc.get("links.ab.rate") == "2 Mbps"  # the original is unchanged
    assert faster.get("links.ab.rate") == "4 Mbps"

    slow = flow(satcc.run(sc).summary, "s")
    fast = flow(satcc.run(faster).summary, "s")
    # One packet at a time, no propagation: the delay is the serialisation time.
    assert slow["delay_min_s"] == pytest.approx(tx_s(1000, 2e6), abs=1e-12)
    assert fast["delay_min_s"] == pytest.approx(tx_s(1000, 4e6), abs=1e-12)
    assert fast["delay_max_s"] == pytest.approx(slow["delay_max_s"] / 2, abs=1e-12)


# ---------------------------------------------------------------------------
# Determinism and per-component random streams


def stochastic(duration: str = "20 s") -> dict:
    """Poisson traffic with exponential sizes over a link with bit errors."""
    sc = line(duration=duration, rate="2 Mbps", delay="5 ms", ber=1e-5)
    sc["sources"]["p"] = {
        "type": "poisson",
        "from": "a",
        "to": "rx",
        "rate": "1.5 Mbps",
        "packet_size": "800 B",
        "size_distribution": "exponential",
    }
    sc["probes"] = {
        "q": {"link": "ab", "metric": "queue_packets"},
        "d": {"sink": "rx", "metric": "delay_mean_s"},
    }
    return sc


def test_same_seed_gives_identical_summary_and_series():
    a = satcc.run(stochastic(), seed=11)
    b = satcc.run(stochastic(), seed=11)
    # The scenario really is random: errors happened and the queue varied.
    assert a.summary["links.ab.errors"] > 0
    assert a.series("q")["value"].nunique() > 2
    assert json.dumps(a.summary, sort_keys=True) == json.dumps(b.summary, sort_keys=True)
    assert a.series_names == b.series_names
    for name in a.series_names:
        fa, fb = a.series(name), b.series(name)
        # Bitwise equal, NaNs (intervals without deliveries) included.
        assert fa["time_s"].to_numpy().tobytes() == fb["time_s"].to_numpy().tobytes()
        assert fa["value"].to_numpy().tobytes() == fb["value"].to_numpy().tobytes()


def test_same_seed_gives_byte_identical_result_folders(tmp_path):
    one = satcc.run(stochastic("5 s"), seed=4).to_dir(tmp_path / "one")
    two = satcc.run(stochastic("5 s"), seed=4).to_dir(tmp_path / "two")
    files = sorted(p.relative_to(one) for p in one.rglob("*") if p.is_file())
    assert Path("summary.json") in files
    assert {Path("series/q.parquet"), Path("series/d.parquet")} <= set(files)
    assert files == sorted(p.relative_to(two) for p in two.rglob("*") if p.is_file())
    for rel in files:
        if rel == Path("run.json"):  # wall time and event rate may differ
            continue
        assert (one / rel).read_bytes() == (two / rel).read_bytes(), rel


def test_different_seeds_give_different_summaries():
    a = satcc.run(stochastic("5 s"), seed=1).summary
    b = satcc.run(stochastic("5 s"), seed=2).summary
    assert a["run.seed"] == 1 and b["run.seed"] == 2
    assert a["flows.p.sent_packets"] != b["flows.p.sent_packets"]
    assert a["flows.p.delay_mean_s"] != b["flows.p.delay_mean_s"]


@pytest.mark.parametrize("seed", [np.int64(2), np.uint32(2), np.int8(2)])
def test_a_numpy_integer_seed_runs_as_the_python_int(seed):
    # Seeds often come from numpy (np.arange, rng.integers).
    res = satcc.run(stochastic("2 s"), seed=seed)
    assert type(res.seed) is int and res.seed == 2
    assert res.summary == satcc.run(stochastic("2 s"), seed=2).summary
    assert json.loads(json.dumps(res.description))["seed"] == 2


@pytest.mark.parametrize("value", [np.int64(7), np.uint16(7), np.int8(7)])
def test_a_numpy_integer_in_a_scenario_is_the_python_int(value):
    # Counts and seeds built with numpy in a notebook; before: "expected an integer".
    sc = satcc.Scenario.from_dict(stochastic("2 s"))
    sc.set("run.seed", value).set("run.max_events", np.int64(7 * 10**6))
    d = sc.validate()
    assert type(d["seed"]) is int and d["seed"] == 7 and type(d["max_events"]) is int
    assert satcc.run(sc).summary == satcc.run(stochastic("2 s"), seed=7).summary


@pytest.mark.parametrize("value", [np.True_, np.float64(7.0)])
def test_a_numpy_bool_or_float_is_still_not_an_integer(value):
    with pytest.raises(ScenarioError, match="expected an integer"):
        satcc.Scenario.from_dict(stochastic("2 s")).set("run.max_events", value).validate()


def test_sweep_seeds_from_numpy(tmp_path):
    c = satcc.sweep(stochastic("2 s"), seeds=np.arange(1, 3), campaign=tmp_path / "c", jobs=1)
    assert sorted(c.runs()["seed"]) == [1, 2]
    c = satcc.sweep(stochastic("2 s"), seeds=np.int64(3), campaign=tmp_path / "c", jobs=1)
    assert sorted(c.runs()["seed"]) == [1, 2, 3]


@pytest.mark.parametrize("seed", [2.0, np.float64(2.0), np.float32(2.0), True, np.True_, "2"])
def test_a_seed_that_is_not_an_integer_is_refused_numpy_or_not(seed):
    with pytest.raises(ScenarioError, match="seed override must be an integer"):
        satcc.run(stochastic("2 s"), seed=seed)


@pytest.mark.parametrize("seed", [-1, np.int64(-1), 2**63, np.uint64(2**63)])
def test_a_seed_out_of_range_is_refused_numpy_or_not(seed):
    with pytest.raises(ScenarioError, match="from 0 to 2\\^63-1"):
        satcc.run(stochastic("2 s"), seed=seed)


def test_an_unrelated_component_does_not_change_another_flows_draws():
    alone = stochastic()
    crowded = stochastic()
    # A second stochastic flow on a disjoint path: its own nodes, link
    # (also with errors), and sink. Named to sort before the first flow, so
    # every index shifts too.
    crowded["nodes"].update({"c": {}, "d": {}})
    crowded["links"]["aa_cd"] = {"from": "c", "to": "d", "rate": "1 Mbps", "ber": 1e-4}
    crowded["sinks"]["aa_rx"] = {"node": "d"}
    crowded["sources"]["aa_other"] = {
        "type": "poisson",
        "from": "c",
        "to": "aa_rx",
        "rate": "500 kbps",
        "size_distribution": "exponential",
    }
    a = satcc.run(alone, seed=3).summary
    b = satcc.run(crowded, seed=3).summary
    assert b["flows.aa_other.received_packets"] > 0 and b["links.aa_cd.errors"] > 0
    mine = [k for k in a if k.startswith(("flows.p.", "links.ab.", "sinks.rx."))]
    assert a["links.ab.errors"] > 0
    assert {k: a[k] for k in mine} == {k: b[k] for k in mine}
    assert satcc.run(alone, seed=4).summary["links.ab.errors"] != a["links.ab.errors"]


# ---------------------------------------------------------------------------
# Delay, queueing and conservation


def test_delay_is_the_sum_of_serialisation_and_propagation_without_queueing():
    sc = {
        "run": {"duration": "5 s"},
        "nodes": {"a": {}, "b": {}, "c": {}},
        "links": {
            "ab": {"from": "a", "to": "b", "rate": "10 Mbps", "delay": "1 ms"},
            "bc": {"from": "b", "to": "c", "rate": "2.048 Mbps", "delay": "270 ms"},
        },
        # 1500 B every 60 ms: each packet is alone on every link.
        "sources": {"s": cbr("200 kbps", "1500 B")},
        "sinks": {"rx": {"node": "c"}},
    }
    expected = tx_s(1500, 10e6) + 1e-3 + tx_s(1500, 2.048e6) + 0.270
    f = flow(satcc.run(sc).summary, "s")
    assert f["received_packets"] > 70
    assert f["delay_min_s"] == pytest.approx(expected, abs=1e-9)
    assert f["delay_max_s"] == pytest.approx(expected, abs=1e-9)
    assert f["jitter_mean_s"] == pytest.approx(0.0, abs=1e-9)


def test_saturated_queue_counts_drops_and_conserves_packets():
    # Source at 1.9 Mb/s into a 1 Mb/s bottleneck with room for Q = 10
    # waiting packets, behind a fast access link. The source stops at 2 s and
    # the run lasts until everything has drained, so nothing is in flight.
    q, rate, size = 10, 1e6, 1000
    sc = {
        "run": {"duration": "4 s"},
        "nodes": {"h": {}, "a": {}, "b": {}},
        "links": {
            "access": {"from": "h", "to": "a", "rate": "100 Mbps", "delay": "1 ms"},
            "neck": {
                "from": "a",
                "to": "b",
                "rate": "1 Mbps",
                "delay": "20 ms",
                "queue": {"type": "droptail", "limit": f"{q} packets"},
            },
        },
        "sources": {"s": cbr("1.9 Mbps", f"{size} B", frm="h", stop="2 s")},
        "sinks": {"rx": {"node": "b"}},
    }
    s = satcc.run(sc).summary
    f = flow(s, "s")

    # Closed form. Emission k is at round(k * gap) ps, for times < 2 s.
    gap_ps = size * 8 / 1.9e6 * 1e12
    sent = math.ceil(2e12 / gap_ps)
    last_emission_ps = round((sent - 1) * gap_ps)
    access_ps = round(tx_s(size, 100e6) * 1e12) + 1_000_000_000
    service_ps = round(tx_s(size, rate) * 1e12)
    # The bottleneck is busy from the first arrival on; after each arrival
    # the queue is full (at most one departure between two arrivals), so the
    # packets that get through are those whose service began by the last
    # arrival plus the Q waiting behind it.
    last_arrival_ps = last_emission_ps + access_ps
    assert (last_arrival_ps - access_ps) % service_ps != 0  # no tie to break
    crossed = (last_arrival_ps - access_ps) // service_ps + 1 + q

    assert f["sent_packets"] == sent
    assert f["in_flight_packets"] == 0
    assert f["received_packets"] == crossed
    assert f["dropped_packets"] == sent - crossed
    assert s["links.neck.drops"] == f["dropped_packets"] > 0
    assert f["lost_packets"] == f["dropped_packets"] and f["errored_packets"] == 0
    assert f["sent_packets"] == f["received_packets"] + f["lost_packets"] + f["in_flight_packets"]
    assert s["links.access.tx_packets"] == s["links.neck.arrivals"] == sent
    assert s["links.neck.tx_packets"] == f["received_packets"]
    assert s["links.neck.tx_bytes"] == f["received_bytes"] == crossed * size
    assert s["links.neck.queue_max_packets"] == q
    # Queueing adds delay: a packet admitted to a full queue waits for up
    # to Q services and a residual one, at least Q services minus one gap.
    base_s = (access_ps + service_ps) * PS + 20e-3
    assert f["delay_min_s"] == pytest.approx(base_s, abs=1e-9)
    service_s, gap_s = service_ps * PS, gap_ps * PS
    assert base_s + q * service_s - gap_s <= f["delay_max_s"] <= base_s + (q + 1) * service_s


def test_conservation_with_packets_still_in_flight():
    # Stopped mid-stream: some packets are queued or propagating at the end.
    queue = {"type": "droptail", "limit": "20 packets"}
    sc = line(duration="3 s", rate="1 Mbps", delay="250 ms", queue=queue, loss=0.05)
    sc["sources"]["s"] = cbr("1.5 Mbps")
    s = satcc.run(sc).summary
    f = flow(s, "s")
    assert f["in_flight_packets"] > 0 and f["dropped_packets"] > 0 and f["errored_packets"] > 0
    assert f["sent_packets"] == f["received_packets"] + f["lost_packets"] + f["in_flight_packets"]
    assert f["lost_packets"] == f["dropped_packets"] + f["errored_packets"]
    assert s["links.ab.drops"] == f["dropped_packets"]
    assert s["links.ab.errors"] == f["errored_packets"]
    assert s["links.ab.arrivals"] == f["sent_packets"]
    # Every packet transmitted without error is received or still propagating.
    assert s["links.ab.tx_packets"] >= f["received_packets"]
    # In flight: at most the queue, the one in service, and what the
    # 250 ms line holds (one packet per 8 ms service time).
    assert f["in_flight_packets"] <= 20 + 1 + math.ceil(0.250 / tx_s(1000, 1e6))


# ---------------------------------------------------------------------------
# Throughput and utilisation


@pytest.fixture(scope="module")
def loads():
    sc = {
        "run": {"duration": "20 s"},
        "nodes": {"a": {}, "b": {}, "c": {}, "d": {}},
        "links": {
            "under": {"from": "a", "to": "b", "rate": "2 Mbps", "delay": "10 ms"},
            "over": {"from": "c", "to": "d", "rate": "1 Mbps", "delay": "10 ms"},
        },
        "sources": {
            "light": cbr("600 kbps", "500 B"),
            "heavy": cbr("2 Mbps", "1000 B", frm="c", to="rx2"),
        },
        "sinks": {"rx": {"node": "b"}, "rx2": {"node": "d"}},
    }
    return satcc.run(sc).summary


def test_flow_below_capacity_gets_its_rate(loads):
    assert loads["flows.light.throughput_bps"] == pytest.approx(600e3, rel=0.01)
    assert loads["flows.light.lost_packets"] == 0


def test_flow_above_capacity_gets_the_link_rate(loads):
    # No headers in this layer: the payload share of the link is 1.
    assert loads["flows.heavy.throughput_bps"] == pytest.approx(1e6 * 1.0, rel=0.01)
    assert loads["links.over.utilisation"] == pytest.approx(1.0, rel=0.01)
    assert loads["flows.heavy.dropped_packets"] > 0


def test_utilisation_is_offered_load_over_capacity(loads):
    assert loads["links.under.utilisation"] == pytest.approx(600e3 / 2e6, rel=0.01)
    assert loads["links.under.throughput_bps"] == pytest.approx(600e3, rel=0.01)


@pytest.mark.parametrize("duration", ["3.9 ms", "0.1 s", "20.001 s"])
def test_utilisation_never_exceeds_one_when_the_run_ends_mid_transmission(duration):
    # A saturated 1 Mb/s link stopped part-way through an 8 ms transmission.
    sc = line(duration=duration, rate="1 Mbps", delay="0 s")
    sc["sources"]["s"] = cbr("2 Mbps", "1000 B")
    s = satcc.run(sc).summary
    assert s["links.ab.utilisation"] == pytest.approx(1.0, rel=1e-9)
    assert s["links.ab.throughput_bps"] == pytest.approx(1e6, rel=1e-9)


def test_throughput_probe_shorter_than_a_packet_stays_at_link_rate():
    # 1 ms samples of a saturated link whose packets take 8 ms each: the
    # probe counts the bits on the wire, not whole packets at their end.
    sc = line(duration="1 s", rate="1 Mbps", delay="0 s")
    sc["run"]["sample_interval"] = "1 ms"
    sc["sources"]["s"] = cbr("2 Mbps", "1000 B")
    sc["probes"] = {"tp": {"link": "ab", "metric": "throughput_bps"}}
    values = satcc.run(sc).series("tp")["value"]
    assert values.max() == pytest.approx(1e6, rel=1e-6)
    assert values.min() == pytest.approx(1e6, rel=1e-6)


# ---------------------------------------------------------------------------
# Error model


def loss_run(ber: float, loss: float) -> dict:
    # 6250 packets/s of 1000 B for 4 s, stopped early so all have settled.
    sc = line(duration="5 s", rate="100 Mbps", delay="1 ms", ber=ber, loss=loss)
    sc["sources"]["s"] = cbr("50 Mbps", "1000 B", stop="4 s")
    return flow(satcc.run(sc).summary, "s")


@pytest.mark.parametrize(
    "ber, loss, p",
    [(1e-5, 0.0, 1 - (1 - 1e-5) ** 8000), (0.0, 0.1, 0.1)],
    ids=["ber", "loss"],
)
def test_measured_loss_rate_matches_the_error_model(ber, loss, p):
    f = loss_run(ber, loss)
    n = f["sent_packets"]
    assert n == 25_000 and f["in_flight_packets"] == 0 and f["dropped_packets"] == 0
    se = math.sqrt(p * (1 - p) / n)  # binomial standard error
    assert abs(f["lost_packets"] / n - p) < 3 * se
    assert f["loss_rate"] == f["lost_packets"] / n
    assert f["errored_packets"] == f["lost_packets"]


# ---------------------------------------------------------------------------
# Stop conditions


def stop_scenario() -> dict:
    sc = line(duration="10 s", rate="10 Mbps", delay="5 ms")
    sc["sources"]["s"] = cbr("1 Mbps")
    return sc


def test_stop_when_stops_at_exactly_n_received():
    sc = stop_scenario()
    sc["run"]["stop_when"] = {"sink": "rx", "received_packets": 137}
    s = satcc.run(sc).summary
    assert s["run.stop_reason"] == "stop_when"
    assert s["sinks.rx.received_packets"] == 137 == s["flows.s.received_packets"]
    # The 137th packet (emitted at 136 * 8 ms) arrives after 0.8 ms + 5 ms.
    assert s["run.end_time_s"] == pytest.approx(136 * 8e-3 + 0.8e-3 + 5e-3, abs=1e-12)


def test_max_events_stops_after_exactly_that_many_events():
    sc = stop_scenario()
    sc["run"]["max_events"] = 1000
    res = satcc.run(sc)
    assert res.summary["run.stop_reason"] == "max_events"
    assert res.summary["run.events"] == 1000 == res.info["events"]
    assert res.summary["run.end_time_s"] < 10.0


def test_duration_stops_at_the_duration():
    s = satcc.run(stop_scenario()).summary
    assert s["run.stop_reason"] == "duration"
    assert s["run.end_time_s"] == 10.0
    # Emissions at 0, 8 ms, ... < 10 s.
    assert s["flows.s.sent_packets"] == 1250


# ---------------------------------------------------------------------------
# Two-priority queue and CLP selective discard


def test_high_priority_flow_keeps_its_no_load_delay():
    low_size, high_size, rate, prop = 1500, 200, 1e6, 0.05
    sc = line(duration="20 s", rate="1 Mbps", delay="50 ms")
    sc["links"]["ab"]["queue"] = {
        "type": "priority",
        "high": {"limit": "100 packets"},
        "low": {"limit": "20 packets"},
    }
    sc["sources"]["bulk"] = cbr("1.5 Mbps", f"{low_size} B", priority=1)
    sc["sources"]["voice"] = cbr("64 kbps", f"{high_size} B", priority=0)
    s = satcc.run(sc).summary
    voice, bulk = flow(s, "voice"), flow(s, "bulk")
    no_load = tx_s(high_size, rate) + prop
    # Non-preemptive: at most one low-priority packet's serialisation ahead.
    assert voice["delay_min_s"] >= no_load - 1e-9
    assert voice["delay_max_s"] <= no_load + tx_s(low_size, rate) + 1e-9
    assert voice["dropped_packets"] == 0
    assert voice["throughput_bps"] == pytest.approx(64e3, rel=0.01)
    # The low-priority flow takes the queueing and the drops and gets what is left.
    assert bulk["dropped_packets"] > 0
    assert bulk["delay_max_s"] > tx_s(low_size, rate) + prop + 15 * tx_s(low_size, rate)
    assert bulk["throughput_bps"] == pytest.approx(1e6 - 64e3, rel=0.02)


def clp_scenario(clp0_rate: str) -> dict:
    sc = line(duration="20 s", rate="1 Mbps", delay="10 ms")
    sc["links"]["ab"]["queue"] = {
        "type": "priority",
        "high": {"limit": "10 packets"},
        "low": {"limit": "20 packets", "clp_threshold": "5 packets"},
    }
    sc["sources"]["marked"] = cbr("600 kbps", priority=1, clp=1)
    sc["sources"]["plain"] = cbr(clp0_rate, priority=1, clp=0)
    return sc


def test_clp1_packets_are_discarded_at_the_threshold():
    # Together 1.2 Mb/s on 1 Mb/s, but the CLP=0 flow alone fits: the queue
    # never passes the threshold by much, and only CLP=1 packets are lost.
    s = satcc.run(clp_scenario("600 kbps")).summary
    marked, plain = flow(s, "marked"), flow(s, "plain")
    assert s["links.ab.drops_clp"] == marked["dropped_packets"] > 0
    assert s["links.ab.drops"] == 0 and plain["lost_packets"] == 0
    assert s["links.ab.queue_max_packets"] <= 6
    assert plain["throughput_bps"] == pytest.approx(600e3, rel=0.01)
    assert marked["throughput_bps"] == pytest.approx(1e6 - 600e3, rel=0.03)


def test_clp0_packets_are_admitted_up_to_the_limit():
    # The CLP=0 flow alone overloads the link: the queue fills to its limit
    # of 20, beyond the CLP threshold of 5.
    s = satcc.run(clp_scenario("1.5 Mbps")).summary
    marked, plain = flow(s, "marked"), flow(s, "plain")
    assert s["links.ab.queue_max_packets"] == 20
    assert s["links.ab.drops"] == plain["dropped_packets"] > 0
    assert s["links.ab.drops_clp"] == marked["dropped_packets"] > 0
    # A CLP=0 packet admitted behind 19 others waits about 20 services.
    assert plain["delay_max_s"] >= 0.010 + 20 * tx_s(1000, 1e6) - 1e-9


# ---------------------------------------------------------------------------
# ON-OFF sources


def onoff(periods: str, duration: str) -> dict:
    # 125 B at 1 Mb/s: one packet per ms, so a 100 ms ON period holds
    # exactly 100 packets. The sink is at the source's node: no link.
    return {
        "run": {"duration": duration},
        "nodes": {"a": {}},
        "sources": {
            "s": {
                "type": "onoff",
                "from": "a",
                "to": "rx",
                "rate": "1 Mbps",
                "packet_size": "125 B",
                "on_time": "100 ms",
                "off_time": "300 ms",
                "periods": periods,
            }
        },
        "sinks": {"rx": {"node": "a"}},
    }


def test_onoff_deterministic_mean_rate_is_peak_times_duty_cycle():
    f = flow(satcc.run(onoff("deterministic", "40 s")).summary, "s")
    assert f["throughput_bps"] == pytest.approx(1e6 * 0.1 / (0.1 + 0.3), rel=0.01)
    assert f["sent_packets"] == 100 * 100  # 100 whole cycles of 100 packets


def test_onoff_exponential_mean_rate_over_a_long_run():
    # 2000 s = 5000 cycles: the standard error of the ON fraction is about
    # 1.5 % here, so 5 % is more than three of them.
    f = flow(satcc.run(onoff("exponential", "2000 s"), seed=1).summary, "s")
    assert f["throughput_bps"] == pytest.approx(1e6 * 0.1 / (0.1 + 0.3), rel=0.05)


# ---------------------------------------------------------------------------
# Markov capacity and probes


def test_markov_capacity_fractions_match_holding_times():
    sc = {
        "run": {"duration": "2000 s", "sample_interval": "10 ms"},
        "nodes": {"a": {}, "b": {}},
        "links": {
            "ab": {
                "from": "a",
                "to": "b",
                "capacity": {
                    "type": "markov",
                    "rates": ["2 Mbps", "500 kbps"],
                    "mean_holding": ["200 ms", "100 ms"],
                },
            }
        },
        "probes": {"cap": {"link": "ab", "metric": "capacity_bps"}},
    }
    res = satcc.run(sc)
    assert res.info["wall_s"] < 2.0
    values = res.series("cap")["value"].to_numpy()
    assert len(values) == 200_000
    assert set(np.unique(values)) == {2e6, 5e5}
    # About 6700 cycles: the ON-fraction standard error is about 0.6 %.
    assert np.mean(values == 2e6) == pytest.approx(0.2 / (0.2 + 0.1), rel=0.05)


def test_probe_series_length_and_cbr_throughput():
    sc = line(duration="10 s", rate="2 Mbps", delay="3 ms")
    sc["run"]["sample_interval"] = "100 ms"
    # 800 kb/s of 1000 B: a packet every 10 ms, ten per sample interval.
    # Starting at 1 ms keeps emissions and arrivals off the sampling instants.
    sc["sources"]["s"] = cbr("800 kbps", start="1 ms")
    sc["probes"] = {
        "rx_tput": {"sink": "rx", "metric": "throughput_bps"},
        "link_tput": {"link": "ab", "metric": "throughput_bps"},
        "sent": {"source": "s", "metric": "sent_packets"},
    }
    res = satcc.run(sc)
    for name in ("rx_tput", "link_tput", "sent"):
        frame = res.series(name)
        assert len(frame) == round(10 / 0.1)
        assert np.allclose(frame["time_s"], np.arange(1, 101) * 0.1, rtol=0, atol=1e-12)
    # Every interval holds ten emissions, ten transmissions, ten arrivals.
    for name in ("rx_tput", "link_tput"):
        assert np.allclose(res.series(name)["value"], 800e3, rtol=1e-9), name
    # Cumulative sent count: emissions at 1 ms, 11 ms, ... up to t.
    sent = res.series("sent")
    assert np.array_equal(sent["value"], np.floor((sent["time_s"] - 0.001) / 0.01) + 1)


def test_submodules_are_reachable_after_a_plain_import():
    import subprocess
    import sys

    code = (
        "import satcc; "
        "print(satcc.traffic.fgn(8, 0.7).size, callable(satcc.analysis.hurst_whittle))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["8", "True"]
