# Tests for scenario loading, validation into the normalised description, and
# unit strings. Each refusal test checks that the message names both the key
# path and the reason, since that is what a user needs to fix the file.

import copy
import json
import pickle
import tomllib

import pytest
from satcc.scenario import Scenario, ScenarioError, load, normalised_json
from satcc.units import (
    UnitError,
    format_limit,
    format_rate,
    format_size,
    format_time,
    parse_limit,
    parse_rate,
    parse_size,
    parse_time,
)
from scenario_helpers import changed
from scenario_helpers import refused as refusal

MS = 10**9
S = 10**12

# A GEO hop: a -> gw over the satellite (duplex), gw -> b on the ground, and a
# spare ground link gw -> c so routing has a choice.
BASE = {
    "run": {"name": "geo", "duration": "20 s", "seed": 7},
    "nodes": {"a": {}, "gw": {}, "b": {"type": "host"}, "c": {}},
    "links": {
        "sat": {
            "from": "a",
            "to": "gw",
            "rate": "2.048 Mbps",
            "delay": "270 ms",
            "duplex": True,
            "queue": {"type": "droptail", "limit": "64 KiB"},
        },
        "ground": {"from": "gw", "to": "b", "rate": "10 Mbps", "delay": "5 ms"},
        "spare": {"from": "gw", "to": "c", "rate": "10 Mbps"},
        "back": {"from": "c", "to": "gw", "rate": "10 Mbps"},
    },
    "sources": {
        "video": {"type": "cbr", "from": "a", "to": "rx", "rate": "1 Mbps"},
        "reply": {"type": "poisson", "from": "gw", "to": "home", "rate": "64 kbps"},
    },
    "sinks": {"rx": {"node": "b"}, "home": {"node": "a"}},
    "probes": {"q": {"link": "sat", "metric": "queue_packets"}},
}


def scenario(**changes) -> Scenario:
    """BASE with dotted-path changes applied, e.g. scenario(**{"links.sat.rate": "1 Mbps"})."""
    return changed(BASE, **changes)


def assert_refused(sc: Scenario, path: str, *fragments: str) -> ScenarioError:
    error = refusal(sc)
    assert error.path == path, str(error)
    for fragment in fragments:
        assert fragment in error.reason, str(error)
    assert str(error) == f"{error.source}: {path}: {error.reason}"
    return error


# ---------------------------------------------------------------------------
# Refusals, one per class of mistake.


def test_unknown_top_level_table():
    error = assert_refused(scenario(linkss={}), "linkss", 'unknown key "linkss"')
    assert 'did you mean "links"?' in error.reason
    assert (
        "allowed: arrivals, cell_sources, constellation, dvb_rcs, emulate, links, nodes, probes, "
        "run, sinks, "
        "sources, tcp, tfrc, tfrc_arrivals, traces, udp_rr" in error.reason
    )


def test_unknown_key_inside_a_link():
    assert_refused(
        scenario(**{"links.sat.ratee": "1 Mbps"}),
        "links.sat.ratee",
        'unknown key "ratee" (did you mean "rate"? allowed: ber, capacity, congestion, delay, '
        "duplex",
    )


def test_unknown_key_inside_a_queue_table():
    sc = scenario(**{"links.sat.queue": {"type": "droptail", "limt": "10 packets"}})
    assert_refused(sc, "links.sat.queue.limt", 'did you mean "limit"?', "allowed: limit, type")


def test_key_of_another_variant_is_refused():
    sc = scenario(**{"sources.video.on_time": "1 s"})
    assert_refused(sc, "sources.video.on_time", 'not used with type = "cbr"')


def test_wrong_type():
    assert_refused(scenario(**{"links.sat.duplex": "yes"}), "links.sat.duplex", 'got string "yes"')
    assert_refused(scenario(nodes=[]), "nodes", "expected a table, got a list")
    assert_refused(scenario(**{"links.sat.queue": "droptail"}), "links.sat.queue", "a table")


def test_missing_required_key():
    sc = scenario()
    del sc.data["sources"]["video"]["from"]
    assert_refused(sc, "sources.video.from", "missing required key")
    onoff = scenario(**{"sources.video.type": "onoff", "sources.video.off_time": "1 s"})
    assert_refused(onoff, "sources.video.on_time", 'missing required key for type = "onoff"')


def test_missing_run_table():
    sc = scenario()
    del sc.data["run"]
    assert_refused(sc, "run", "missing required table [run]")


@pytest.mark.parametrize("rate", ["-2 Mbps", "0 bps"])
def test_rate_must_be_positive(rate):
    assert_refused(
        scenario(**{"links.ground.rate": rate}),
        "links.ground.rate",
        f'rate must be positive, got "{rate}"',
    )


def test_delay_must_not_be_negative():
    assert_refused(
        scenario(**{"links.sat.delay": "-1 ms"}),
        "links.sat.delay",
        'delay must not be negative, got "-1 ms"',
    )


@pytest.mark.parametrize("key", ["ber", "loss"])
def test_probability_outside_0_1(key):
    assert_refused(
        scenario(**{f"links.sat.{key}": 1.5}), f"links.sat.{key}", "between 0 and 1, got 1.5"
    )


def test_link_to_nonexistent_node():
    assert_refused(
        scenario(**{"links.ground.to": "gw2"}),
        "links.ground.to",
        'no node named "gw2" (nodes: a, b, c, gw)',
    )


def test_link_to_itself():
    assert_refused(scenario(**{"links.ground.to": "gw"}), "links.ground.to", "two different")


def test_route_through_nonexistent_link():
    assert_refused(
        scenario(**{"nodes.gw.routes": {"b": "nope"}}),
        "nodes.gw.routes.b",
        'no link named "nope" (links: back, ground, sat, sat_rev, spare)',
    )


def test_route_through_link_leaving_another_node():
    sc = scenario(**{"nodes.a.routes": {"b": "ground"}})
    assert_refused(sc, "nodes.a.routes.b", 'link "ground" leaves node "gw", not "a"')


def test_source_to_nonexistent_sink():
    assert_refused(
        scenario(**{"sources.video.to": "rx2"}),
        "sources.video.to",
        'no sink named "rx2" (sinks: home, rx)',
    )


def test_probe_metric_must_suit_its_target():
    assert_refused(
        scenario(**{"probes.q.metric": "delay_mean_s"}),
        "probes.q.metric",
        'metric "delay_mean_s" is not available for a link probe',
    )


def test_route_that_loops():
    # gw sends b-bound traffic to c, whose fewest-hop route goes back to gw.
    sc = scenario(**{"nodes.gw.routes": {"b": "spare"}})
    assert_refused(
        sc,
        "nodes.gw.routes.b",
        'route from "gw" towards "b" via link "spare" loops back to "gw"',
    )


def test_route_that_dead_ends():
    sc = scenario(**{"nodes.d": {}, "links.dead": {"from": "gw", "to": "d", "rate": "1 Mbps"}})
    sc.set("nodes.gw.routes", {"b": "dead"})
    assert_refused(sc, "nodes.gw.routes.b", 'via link "dead" leads to "d"', "no path onward")


def test_destination_unreachable():
    sc = scenario(**{"sinks.rx.node": "c", "sources.video.from": "b"})
    assert_refused(sc, "sources.video.to", 'no path from node "b" to node "c" (sink "rx")')


def test_duplex_reverse_name_collision():
    sc = scenario(**{"links.sat_rev": {"from": "gw", "to": "a", "rate": "1 Mbps"}})
    assert_refused(sc, "links.sat.duplex", '"sat_rev", which is already a link')


def test_value_checks_across_keys():
    both = scenario(**{"links.ground.capacity": {"type": "constant", "rate": "1 Mbps"}})
    assert_refused(both, "links.ground.rate", "either rate or capacity")
    stop = scenario(**{"sources.video.start": "2 s", "sources.video.stop": "1 s"})
    assert_refused(stop, "sources.video.stop", 'stop must be after start ("2 s")')
    band = {"limit": "10 packets", "clp_threshold": "2 kB"}
    queue = {"type": "priority", "high": band, "low": {"limit": "10 packets"}}
    assert_refused(
        scenario(**{"links.sat.queue": queue}), "links.sat.queue.high.clp_threshold", "packets"
    )
    markov = {"type": "markov", "rates": ["0 bps", "0 bps"], "mean_holding": ["1 s", "1 s"]}
    sc = scenario(**{"links.spare.capacity": markov})
    del sc.data["links"]["spare"]["rate"]
    assert_refused(sc, "links.spare.capacity.rates", "cannot both be zero")


def test_a_discrete_time_markov_chain_takes_a_step():
    markov = {
        "type": "markov",
        "rates": ["800 kbps", "400 kbps"],
        "mean_holding": ["90 ms", "90 ms"],
        "step": "30 ms",
    }
    sc = scenario(**{"links.spare.capacity": markov})
    del sc.data["links"]["spare"]["rate"]
    spare = next(link for link in sc.validate()["links"] if link["name"] == "spare")
    assert spare["capacity"]["step_ps"] == 30 * 10**9
    del markov["step"]
    sc = scenario(**{"links.spare.capacity": markov})
    del sc.data["links"]["spare"]["rate"]
    spare = next(link for link in sc.validate()["links"] if link["name"] == "spare")
    assert "step_ps" not in spare["capacity"]  # continuous time, as before
    markov.update(step="30 ms", mean_holding=["20 ms", "90 ms"])
    sc = scenario(**{"links.spare.capacity": markov})
    del sc.data["links"]["spare"]["rate"]
    assert_refused(sc, "links.spare.capacity.mean_holding.0", "shorter than the step")


def test_trace_times_must_increase():
    trace = {"type": "trace", "times": ["0 s", "5 s", "5 s"], "rates": ["1 Mbps"] * 3}
    sc = scenario(**{"links.spare.capacity": trace})
    del sc.data["links"]["spare"]["rate"]
    assert_refused(sc, "links.spare.capacity.times.2", "strictly increase")


def test_all_errors_are_kept_and_the_first_is_reported():
    sc = scenario(**{"sinks.rx.node": "zz", "probes.q.link": "nope"})
    error = refusal(sc)
    assert error.path == "sinks.rx.node"
    assert [path for path, _ in error.errors] == ["sinks.rx.node", "probes.q.link"]
    assert pickle.loads(pickle.dumps(error)).errors == error.errors


def test_malformed_toml(tmp_path):
    path = tmp_path / "broken.toml"
    path.write_text('[run]\nduration = "20 s"\nseed 7\n')
    with pytest.raises(ScenarioError) as caught:
        load(path)
    error = caught.value
    assert error.path == "" and error.source == str(path)
    assert "malformed TOML" in error.reason and "line 3" in error.reason
    assert str(error) == f"{path}: {error.reason}"


def test_missing_file(tmp_path):
    with pytest.raises(ScenarioError, match="cannot read the file"):
        load(tmp_path / "absent.toml")


@pytest.mark.parametrize(
    ("value", "fragment"),
    [
        ("64 KB", '"KB" is ambiguous: write kB for 1000 bytes or KiB for 1024'),
        ("64 kib", 'did you mean "KiB"?'),
        ("64 cells", "reserved for the ATM layer"),
    ],
)
def test_ambiguous_or_unknown_units(value, fragment):
    sc = scenario(**{"links.sat.queue.limit": value})
    assert_refused(sc, "links.sat.queue.limit", fragment)


def test_unknown_rate_unit():
    assert_refused(
        scenario(**{"sources.video.rate": "1 Mbs"}),
        "sources.video.rate",
        'unknown rate unit "Mbs" (use bps, kbps, Mbps, Gbps)',
    )


def test_bare_number_for_a_rate():
    assert_refused(
        scenario(**{"links.sat.rate": 2048000}),
        "links.sat.rate",
        'expected a string with a unit, got integer 2048000: write "2.048 Mbps"',
    )
    assert_refused(scenario(**{"links.sat.rate": "2048000"}), "links.sat.rate", "needs a unit")


# ---------------------------------------------------------------------------
# The normalised description.


def test_full_scenario_normalises():
    desc = scenario().validate()
    assert desc["name"] == "geo" and desc["seed"] == 7
    assert desc["duration_ps"] == 20 * S
    assert [link["name"] for link in desc["links"]] == ["back", "ground", "sat", "sat_rev", "spare"]
    sat, sat_rev = desc["links"][2], desc["links"][3]
    assert sat == {
        "name": "sat",
        "from": "a",
        "to": "gw",
        "delay_ps": 270 * MS,
        "ber": 0.0,
        "loss": 0.0,
        "queue": {"kind": "droptail", "limit": {"bytes": 65536}},
        "capacity": {"kind": "constant", "rate_bps": 2048000.0},
    }
    assert sat_rev == {**sat, "name": "sat_rev", "from": "gw", "to": "a"}
    routes = {node["name"]: node["routes"] for node in desc["nodes"]}
    assert routes == {"a": {"b": "sat"}, "b": {}, "c": {}, "gw": {"a": "sat_rev", "b": "ground"}}
    assert desc["sinks"] == [{"name": "home", "node": "a"}, {"name": "rx", "node": "b"}]
    assert desc["probes"] == [
        {"name": "q", "target": "link", "of": "sat", "metric": "queue_packets"}
    ]


def test_explicit_route_is_followed_and_kept():
    # Detour b-bound traffic at gw via c, which then reaches b directly over cb.
    sc = scenario(**{"links.cb": {"from": "c", "to": "b", "rate": "1 Mbps"}})
    sc.set("nodes.gw.routes", {"b": "spare", "c": "spare"})
    routes = {node["name"]: node["routes"] for node in sc.validate()["nodes"]}
    assert routes["gw"] == {"a": "sat_rev", "b": "spare"}  # unused "c" entry dropped
    assert routes["c"] == {"b": "cb"}


def test_defaults_are_filled_in():
    minimal = {
        "run": {"duration": "1 s"},
        "nodes": {"a": {}, "b": {}},
        "links": {"ab": {"from": "a", "to": "b", "rate": "1 Mbps"}},
        "sources": {"s": {"type": "onoff", "from": "a", "to": "rx", "rate": "1 Mbps"}},
        "sinks": {"rx": {"node": "b"}},
    }
    minimal["sources"]["s"] |= {"on_time": "1 s", "off_time": "2 s"}
    desc = Scenario.from_dict(minimal).validate()
    assert desc["name"] == "scenario" and desc["seed"] == 1
    assert desc["sample_interval_ps"] == 100 * MS
    assert desc["max_events"] is None and desc["stop_when"] is None
    assert desc["nodes"][0] == {"name": "a", "kind": "router", "routes": {"b": "ab"}}
    link = desc["links"][0]
    assert link["delay_ps"] == 0 and link["ber"] == 0.0 and link["loss"] == 0.0
    assert link["queue"] == {"kind": "droptail", "limit": {"packets": 1000}}
    assert desc["sources"][0] == {
        "name": "s",
        "kind": "onoff",
        "node": "a",
        "sink": "rx",
        "rate_bps": 1e6,
        "packet_bytes": 1000,
        "size_dist": "constant",
        "start_ps": 0,
        "stop_ps": None,
        "priority": 0,
        "clp": 0,
        "on_ps": 1 * S,
        "off_ps": 2 * S,
        "periods": "exponential",
    }
    assert desc["probes"] == []


def test_priority_queue_and_capacity_processes():
    queue = {
        "type": "priority",
        "high": {"limit": "10 packets"},
        "low": {"limit": "64 KiB", "clp_threshold": "32 KiB"},
    }
    trace = {"type": "trace", "times": ["0 s", "5 s"], "rates": ["2 Mbps", "0 bps"]}
    trace |= {"repeat": True, "period": "10 s"}
    sc = scenario(**{"links.spare.queue": queue, "links.spare.capacity": trace})
    del sc.data["links"]["spare"]["rate"]
    spare = next(link for link in sc.validate()["links"] if link["name"] == "spare")
    assert spare["queue"] == {
        "kind": "priority",
        "high": {"limit": {"packets": 10}, "clp_threshold": {"packets": 10}},
        "low": {"limit": {"bytes": 65536}, "clp_threshold": {"bytes": 32768}},
    }
    assert spare["capacity"] == {
        "kind": "trace",
        "times_ps": [0, 5 * S],
        "rates_bps": [2e6, 0.0],
        "period_ps": 10 * S,
    }


def test_seed_argument_overrides_run_seed():
    assert scenario().validate(seed=3)["seed"] == 3
    with pytest.raises(ScenarioError, match="run.seed"):
        scenario().validate(seed=-1)


def test_validate_is_deterministic_and_ignores_insertion_order():
    reordered = {key: BASE[key] for key in reversed(list(BASE))}
    reordered["links"] = {key: BASE["links"][key] for key in reversed(list(BASE["links"]))}
    first = normalised_json(scenario().validate())
    assert normalised_json(scenario().validate()) == first
    assert normalised_json(Scenario.from_dict(reordered).validate()) == first
    assert json.loads(first)["links"][0]["name"] == "back"
    assert " " not in first


def test_toml_file_name_is_the_default_name(tmp_path):
    path = tmp_path / "geo_cbr.toml"
    data = copy.deepcopy(BASE)
    del data["run"]["name"]
    path.write_text(Scenario.from_dict(data).to_toml())
    loaded = load(path)
    assert loaded.name == "geo_cbr" and loaded.source == str(path)
    assert loaded.validate()["name"] == "geo_cbr"


# ---------------------------------------------------------------------------
# Editing and writing scenarios.


def test_set_and_get_nested_paths():
    sc = scenario()
    assert sc.set("links.sat.rate", "4 Mbps") is sc
    assert sc.get("links.sat.rate") == "4 Mbps"
    sc.set("links.sat.capacity.rates", ["1 Mbps", "2 Mbps"])
    assert sc.data["links"]["sat"]["capacity"] == {"rates": ["1 Mbps", "2 Mbps"]}
    assert sc.get("links.sat.capacity.rates.1") == "2 Mbps"
    assert sc.get("links.nope.rate", None) is None
    with pytest.raises(KeyError):
        sc.get("links.nope")
    with pytest.raises(ScenarioError, match="not a table"):
        sc.set("links.sat.rate.x", 1)


def test_from_dict_and_copy_do_not_share_data():
    data = copy.deepcopy(BASE)
    sc = Scenario.from_dict(data)
    sc.set("links.sat.rate", "4 Mbps")
    other = sc.copy().set("links.sat.rate", "8 Mbps")
    assert data["links"]["sat"]["rate"] == "2.048 Mbps"
    assert sc.get("links.sat.rate") == "4 Mbps" and other.get("links.sat.rate") == "8 Mbps"


def test_to_toml_round_trip():
    sc = scenario(**{"links.sat.capacity": {"type": "markov", "rates": ["2 Mbps", "0 bps"]}})
    sc.set('nodes.a.routes."odd key"', 'quote " and \\ and \n')
    sc.set("run.stop_when", {"sink": "rx", "received_packets": 10})
    sc.set("empty", {})
    sc.set("links.sat.ber", 1e-7)
    assert tomllib.loads(sc.to_toml()) == sc.data


# ---------------------------------------------------------------------------
# Units.


@pytest.mark.parametrize(
    ("parse", "text", "expected"),
    [
        (parse_rate, "2.048 Mbps", 2048000.0),
        (parse_rate, "2.048Mbps", 2048000.0),
        (parse_rate, "64 kbps", 64000.0),
        (parse_rate, "64 Kbps", 64000.0),
        (parse_rate, "1 Gb/s", 1e9),
        (parse_rate, "1e6 bps", 1e6),
        (parse_time, "270 ms", 270_000_000_000),
        (parse_time, "1 us", 1_000_000),
        (parse_time, "1 µs", 1_000_000),
        (parse_time, "2 min", 120 * S),
        (parse_time, "0.5 ps", 0),
        (parse_time, "1.5 ps", 2),
        (parse_size, "64 KiB", 65536),
        (parse_size, "1.5 kB", 1500),
        (parse_size, "1000 bytes", 1000),
        (parse_limit, "100 packets", ("packets", 100)),
        (parse_limit, "1 pkt", ("packets", 1)),
        (parse_limit, "64 KiB", ("bytes", 65536)),
    ],
)
def test_unit_parsing(parse, text, expected):
    assert parse(text) == expected


def test_micro_sign_and_greek_mu_agree():
    assert parse_time("1 us") == parse_time("1 \u00b5s") == parse_time("1 \u03bcs")


@pytest.mark.parametrize(
    ("parse", "text", "fragment"),
    [
        (parse_rate, "2 MBps", "bits per second"),
        (parse_rate, "2 mbps", 'did you mean "Mbps"?'),
        (parse_rate, 5, "expected a string with a unit, got integer 5"),
        (parse_time, "3 sec", 'write "s"'),
        (parse_time, "fast", 'cannot read "fast"'),
        (parse_size, "2 KB", "ambiguous"),
        (parse_size, "1.5 B", "not a whole number of bytes"),
        (parse_size, "8 Mb", "sizes are in bytes"),
        (parse_limit, "1.5 packets", "not a whole number of packets"),
        (parse_limit, "100", "needs a unit"),
    ],
)
def test_unit_refusals(parse, text, fragment):
    with pytest.raises(UnitError) as caught:
        parse(text)
    assert fragment in str(caught.value)
    assert isinstance(caught.value, ValueError)


@pytest.mark.parametrize("bps", [2048000.0, 64000.0, 0.1, 123456789.123, 1e-7, 3e12, 0.0])
def test_rate_format_round_trip(bps):
    assert parse_rate(format_rate(bps)) == bps


@pytest.mark.parametrize("ps", [0, 1, 999, 270_000_000_000, 20 * S, 123_456_789_012_345])
def test_time_format_round_trip(ps):
    assert parse_time(format_time(ps)) == ps


@pytest.mark.parametrize("size", [1, 1000, 1500, 65536, 1024000, 3 * 2**30, 123_456_789])
def test_size_format_round_trip(size):
    assert parse_size(format_size(size)) == size
    assert parse_limit(format_limit(("bytes", size))) == ("bytes", size)


def test_formats_are_readable():
    assert format_rate(2048000) == "2.048 Mbps"
    assert format_time(270_000_000_000) == "270 ms"
    assert format_size(65536) == "64 KiB"
    assert format_size(1000) == "1 kB"
    assert format_limit(("packets", 100)) == "100 packets"


def _small(**changes):
    d = {
        "run": {"duration": "1 s"},
        "nodes": {"a": {}, "b": {}},
        "links": {"ab": {"from": "a", "to": "b", "rate": "1 Mbps"}},
        "sources": {"s": {"type": "cbr", "from": "a", "to": "rx", "rate": "100 kbps"}},
        "sinks": {"rx": {"node": "b"}},
    }
    sc = Scenario.from_dict(d)
    for path, value in changes.items():
        sc.set(path, value)
    return sc


@pytest.mark.parametrize(
    "changes, path, fragment",
    [
        (
            {"sources.s.size_distribution": "exponential"},
            "sources.s.size_distribution",
            "a CBR source sends constant sizes",
        ),
        ({"links.ab.rate": "2000 Gbps"}, "links.ab.rate", "rate above 1000 Gbps"),
        ({"sources.s.rate": "5000 Gbps"}, "sources.s.rate", "rate above 1000 Gbps"),
        (
            {"run.sample_interval": "1 ns", "probes.q": {"link": "ab", "metric": "drops"}},
            "run.sample_interval",
            "samples per probe",
        ),
    ],
)
def test_values_the_engine_cannot_run_are_refused(changes, path, fragment):
    with pytest.raises(ScenarioError) as caught:
        _small(**changes).validate()
    assert caught.value.path == path
    assert fragment in caught.value.reason
