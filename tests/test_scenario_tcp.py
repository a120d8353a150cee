# Tests for [tcp.NAME] connections in the scenario format: their refusals
# (each naming the key path and the reason), their defaults, their normalised
# form, routing in both directions, tcp probes and the tcp stop_when.

import tomllib

import pytest
from satcc.scenario import Scenario, ScenarioError, load, normalised_json

MS = 10**9
S = 10**12

# A client behind a GEO hop talking to a server on the ground: c -> gw over
# the satellite (duplex), gw -> srv on the ground (duplex).
BASE = {
    "run": {"name": "geo_tcp", "duration": "60 s"},
    "nodes": {"c": {"type": "host"}, "gw": {}, "srv": {"type": "host"}},
    "links": {
        "sat": {"from": "c", "to": "gw", "rate": "2 Mbps", "delay": "270 ms", "duplex": True},
        "ground": {"from": "gw", "to": "srv", "rate": "10 Mbps", "delay": "5 ms", "duplex": True},
    },
    "tcp": {"bulk": {"from": "c", "to": "srv"}},
}

# The normalised entry of BASE's connection: every default filled in.
DEFAULT_ENTRY = {
    "name": "bulk",
    "src_node": "c",
    "dst_node": "srv",
    "variant": "newreno",
    "mss_bytes": 1460,
    "header_bytes": 40,
    "initial_window_segments": 3,
    "abc_limit_segments": 2,
    "initial_ssthresh_bytes": None,
    "min_rto_ps": 1 * S,
    "initial_rto_ps": 1 * S,
    "max_rto_ps": 60 * S,
    "granularity_ps": 1 * MS,
    "delayed_ack": True,
    "delayed_ack_ps": 200 * MS,
    "limited_transmit": True,
    "window_scaling": True,
    "send_buffer_bytes": 65536,
    "receive_buffer_bytes": 65536,
    "handshake": True,
    "start_ps": 0,
    "priority": 0,
    "clp": 0,
    "app": {"kind": "bulk", "bytes": None},
}


def scenario(**changes) -> Scenario:
    """BASE with dotted-path changes applied, e.g. scenario(**{"tcp.bulk.mss": "536 B"})."""
    sc = Scenario.from_dict(BASE)
    for path, value in changes.items():
        sc.set(path, value)
    return sc


def tcp_entry(sc: Scenario, name: str = "bulk") -> dict:
    return next(entry for entry in sc.validate()["tcp"] if entry["name"] == name)


def assert_refused(sc: Scenario, path: str, *fragments: str) -> ScenarioError:
    with pytest.raises(ScenarioError) as caught:
        sc.validate()
    error = caught.value
    assert error.path == path, str(error)
    for fragment in fragments:
        assert fragment in error.reason, str(error)
    assert str(error) == f"{error.source}: {path}: {error.reason}"
    return error


# ---------------------------------------------------------------------------
# Refusals.


@pytest.mark.parametrize("mss", ["0 B", "-1 B"])
def test_mss_must_be_positive(mss):
    assert_refused(
        scenario(**{"tcp.bulk.mss": mss}), "tcp.bulk.mss", f'mss must be positive, got "{mss}"'
    )


def test_header_must_not_be_negative_but_may_be_zero():
    assert_refused(
        scenario(**{"tcp.bulk.header": "-1 B"}), "tcp.bulk.header", "must not be negative"
    )
    assert tcp_entry(scenario(**{"tcp.bulk.header": "0 B"}))["header_bytes"] == 0


@pytest.mark.parametrize("key", ["send_buffer", "receive_buffer"])
def test_buffer_smaller_than_one_segment(key):
    assert_refused(
        scenario(**{f"tcp.bulk.{key}": "1000 B"}),
        f"tcp.bulk.{key}",
        f"{key} (1000 B) is smaller than one segment (mss = 1460 B)",
    )
    # Exactly one segment is enough.
    assert tcp_entry(scenario(**{f"tcp.bulk.{key}": "1460 B"}))[f"{key}_bytes"] == 1460


def test_unknown_variant_lists_the_allowed_ones():
    assert_refused(
        scenario(**{"tcp.bulk.variant": "cubic"}),
        "tcp.bulk.variant",
        'expected one of "tahoe", "reno", "newreno", "sack", got string "cubic"',
    )
    assert_refused(
        scenario(**{"tcp.bulk.variant": "NewReno"}),
        "tcp.bulk.variant",
        'did you mean "newreno"?',
    )


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (0, "integer 0"),
        (-2, "integer -2"),
        ("rfc3390", 'string "rfc3390"'),
        ("4", 'string "4"'),
        (2.0, "float 2.0"),
        (True, "boolean true"),
    ],
)
def test_initial_window_must_be_a_positive_count_or_rfc5681(value, shown):
    assert_refused(
        scenario(**{"tcp.bulk.initial_window": value}),
        "tcp.bulk.initial_window",
        f'initial_window must be a positive number of segments or "rfc5681", got {shown}',
    )


def test_initial_window_typo_gets_a_suggestion():
    assert_refused(
        scenario(**{"tcp.bulk.initial_window": "rfc5861"}),
        "tcp.bulk.initial_window",
        'did you mean "rfc5681"?',
    )


def test_initial_ssthresh_is_a_size_or_unlimited():
    assert_refused(
        scenario(**{"tcp.bulk.initial_ssthresh": "unlimted"}),
        "tcp.bulk.initial_ssthresh",
        'initial_ssthresh is a size or "unlimited": cannot read "unlimted"',
    )
    assert_refused(
        scenario(**{"tcp.bulk.initial_ssthresh": "0 B"}),
        "tcp.bulk.initial_ssthresh",
        'initial_ssthresh must be positive, got "0 B"',
    )
    assert_refused(
        scenario(**{"tcp.bulk.initial_ssthresh": 65535}),
        "tcp.bulk.initial_ssthresh",
        "expected a string with a unit, got integer 65535",
    )


def test_max_rto_below_min_rto():
    assert_refused(
        scenario(**{"tcp.bulk.max_rto": "500 ms"}),
        "tcp.bulk.max_rto",
        'max_rto must not be less than min_rto ("1 s"), got "500 ms"',
    )
    sc = scenario(**{"tcp.bulk.min_rto": "200 ms", "tcp.bulk.max_rto": "200 ms"})
    assert tcp_entry(sc)["max_rto_ps"] == 200 * MS  # equal is fine


@pytest.mark.parametrize("key", ["min_rto", "initial_rto", "max_rto", "clock_granularity"])
def test_timers_must_be_positive(key):
    assert_refused(
        scenario(**{f"tcp.bulk.{key}": "0 s"}), f"tcp.bulk.{key}", f"{key} must be positive"
    )


def test_delayed_ack_timeout_above_500_ms():
    assert_refused(
        scenario(**{"tcp.bulk.delayed_ack_timeout": "501 ms"}),
        "tcp.bulk.delayed_ack_timeout",
        "RFC 5681 says an ACK must not be delayed more than 500 ms",
        'got "501 ms"',
    )
    sc = scenario(**{"tcp.bulk.delayed_ack_timeout": "500 ms"})
    assert tcp_entry(sc)["delayed_ack_ps"] == 500 * MS


def test_connection_to_its_own_node():
    assert_refused(
        scenario(**{"tcp.bulk.to": "c"}),
        "tcp.bulk.to",
        'a connection joins two different nodes, got "c" twice',
    )


@pytest.mark.parametrize("key", ["from", "to"])
def test_connection_to_unknown_node(key):
    assert_refused(
        scenario(**{f"tcp.bulk.{key}": "mars"}),
        f"tcp.bulk.{key}",
        'no node named "mars" (nodes: c, gw, srv)',
    )


def test_missing_endpoint():
    sc = scenario()
    del sc.data["tcp"]["bulk"]["to"]
    assert_refused(sc, "tcp.bulk.to", "missing required key")


def test_unknown_key_gets_a_suggestion():
    error = assert_refused(
        scenario(**{"tcp.bulk.recieve_buffer": "1 MB"}),
        "tcp.bulk.recieve_buffer",
        'unknown key "recieve_buffer" (did you mean "receive_buffer"?',
    )
    allowed = (
        "allowed: abc, abc_limit, abr, adv_win_scale, app, clock_granularity, clp, "
        "congestion_control,"
    )
    assert allowed in error.reason


def test_unknown_top_level_table_suggests_tcp():
    assert_refused(
        scenario(tpc={}),
        "tpc",
        'did you mean "tcp"?',
        "sources, tcp, tfrc, tfrc_arrivals, traces, udp_rr)",
    )


def test_wrong_types():
    assert_refused(
        scenario(**{"tcp.bulk.delayed_ack": "yes"}), "tcp.bulk.delayed_ack", 'got string "yes"'
    )
    assert_refused(scenario(**{"tcp.bulk.priority": 2}), "tcp.bulk.priority", "0 or 1")
    assert_refused(scenario(**{"tcp.bulk.clp": -1}), "tcp.bulk.clp", "0 or 1")
    assert_refused(scenario(**{"tcp.bulk.app": "bulk"}), "tcp.bulk.app", "expected a table")
    assert_refused(scenario(**{"tcp.bulk.start": "-1 s"}), "tcp.bulk.start", "not be negative")
    assert_refused(scenario(**{"tcp.bulk.mss": 1460}), "tcp.bulk.mss", 'write e.g. "1460 B"')


def test_invalid_connection_name():
    sc = scenario(**{"tcp.a b": {"from": "c", "to": "srv"}})
    assert_refused(sc, 'tcp."a b"', 'invalid name "a b"')


def test_receive_buffer_beyond_window_scaling():
    largest = 65535 << 14
    assert_refused(
        scenario(**{"tcp.bulk.receive_buffer": f"{largest + 1} B"}),
        "tcp.bulk.receive_buffer",
        "receive_buffer exceeds what window scaling can advertise (65535 << 14 bytes)",
    )
    sc = scenario(**{"tcp.bulk.receive_buffer": f"{largest} B"})
    assert tcp_entry(sc)["receive_buffer_bytes"] == largest


def test_large_receive_buffer_without_window_scaling_is_kept():
    # The core caps the advertised window at 65535 B; the buffer itself stays.
    sc = scenario(**{"tcp.bulk.window_scaling": False, "tcp.bulk.receive_buffer": "2 GiB"})
    entry = tcp_entry(sc)
    assert entry["window_scaling"] is False and entry["receive_buffer_bytes"] == 2**31


@pytest.mark.parametrize(
    ("app", "path", "fragment"),
    [
        ({"size": "1 MB"}, "tcp.bulk.app.type", "missing required key"),
        ({"type": "stream"}, "tcp.bulk.app.type", '"bulk", "request_response"'),
        ({"type": "bulk", "size": "0 B"}, "tcp.bulk.app.size", "size must be positive"),
        ({"type": "bulk", "count": 3}, "tcp.bulk.app.count", 'not used with type = "bulk"'),
        (
            {"type": "request_response", "request": "1 B"},
            "tcp.bulk.app.response",
            'missing required key for type = "request_response"',
        ),
        (
            {"type": "request_response", "request": "0 B", "response": "1 B"},
            "tcp.bulk.app.request",
            'request must be positive, got "0 B"',
        ),
        (
            {"type": "request_response", "request": "1 B", "response": "1 B", "count": 0},
            "tcp.bulk.app.count",
            "count must be positive, got 0",
        ),
        (
            {"type": "request_response", "request": "1 B", "response": "1 B", "size": "1 B"},
            "tcp.bulk.app.size",
            'not used with type = "request_response"',
        ),
    ],
)
def test_app_refusals(app, path, fragment):
    assert_refused(scenario(**{"tcp.bulk.app": app}), path, fragment)


def test_data_direction_without_a_route():
    # Only the reverse of the satellite hop: c cannot send towards srv.
    sc = scenario(**{"links.sat.duplex": False, "links.sat.from": "gw", "links.sat.to": "c"})
    assert_refused(sc, "tcp.bulk.to", 'no path from node "c" to node "srv" (data of tcp "bulk")')


def test_ack_direction_without_a_route():
    # One-way ground link: the data gets through, the ACKs cannot come back.
    sc = scenario(**{"links.ground.duplex": False})
    assert_refused(sc, "tcp.bulk.from", 'no path from node "srv" to node "c" (ACKs of tcp "bulk")')


def test_explicit_route_breaking_the_ack_path_is_blamed():
    # gw sends c-bound traffic (the ACKs) back towards srv: a loop.
    sc = scenario(**{"nodes.gw.routes": {"c": "ground"}})
    assert_refused(
        sc,
        "nodes.gw.routes.c",
        'route from "gw" towards "c" via link "ground" loops back to "gw"',
    )


def test_all_errors_are_kept_in_section_order():
    sc = scenario(**{"tcp.bulk.mss": "100 kB", "probes.w": {"tcp": "nope", "metric": "cwnd"}})
    sc.set("sinks.rx", {"node": "mars"})
    with pytest.raises(ScenarioError) as caught:
        sc.validate()
    assert [path for path, _ in caught.value.errors] == [
        "sinks.rx.node",
        "tcp.bulk.mss",
        "tcp.bulk.send_buffer",
        "tcp.bulk.receive_buffer",
        "probes.w.tcp",
    ]


# ---------------------------------------------------------------------------
# Probes.


@pytest.mark.parametrize(
    "metric",
    [
        "cwnd_bytes",
        "ssthresh_bytes",
        "flight_bytes",
        "srtt_s",
        "rto_s",
        "rwnd_bytes",
        "goodput_bps",
        "delivered_bytes",
        "retransmissions",
    ],
)
def test_tcp_probe_metrics(metric):
    desc = scenario(**{"probes.p": {"tcp": "bulk", "metric": metric}}).validate()
    assert desc["probes"] == [{"name": "p", "target": "tcp", "of": "bulk", "metric": metric}]


def test_tcp_probe_refusals():
    assert_refused(
        scenario(**{"probes.p": {"tcp": "bulk", "metric": "queue_packets"}}),
        "probes.p.metric",
        'metric "queue_packets" is not available for a tcp probe (allowed: acr_bps, cwnd_bytes,',
    )
    assert_refused(
        scenario(**{"probes.p": {"tcp": "blk", "metric": "cwnd_bytes"}}),
        "probes.p.tcp",
        'no tcp connection named "blk" (tcp connections: bulk)',
    )
    assert_refused(
        scenario(**{"probes.p": {"tcp": "bulk", "link": "sat", "metric": "cwnd_bytes"}}),
        "probes.p.tcp",
        "a probe has exactly one target, got link and tcp",
    )
    assert_refused(
        scenario(**{"probes.p": {"metric": "cwnd_bytes"}}),
        "probes.p",
        "needs exactly one target key: link, sink, source, tcp, tfrc or emulate",
    )
    no_tcp = scenario(**{"probes.p": {"tcp": "bulk", "metric": "cwnd_bytes"}})
    del no_tcp.data["tcp"]
    assert_refused(no_tcp, "probes.p.tcp", "there are no tcp connections")


# ---------------------------------------------------------------------------
# stop_when.

FINITE = {"type": "bulk", "size": "10 MB"}


def test_stop_when_tcp_completed():
    sc = scenario(**{"tcp.bulk.app": FINITE, "run.stop_when": {"tcp": "bulk", "completed": True}})
    assert sc.validate()["stop_when"] == {"tcp": "bulk", "completed": True}
    rr = {"type": "request_response", "request": "1 B", "response": "1 B", "count": 100}
    sc.set("tcp.bulk.app", rr)
    assert sc.validate()["stop_when"] == {"tcp": "bulk", "completed": True}


def test_stop_when_sink_form_is_unchanged():
    sc = scenario(**{"sinks.rx": {"node": "srv"}})
    sc.set("run.stop_when", {"sink": "rx", "received_packets": 5})
    assert sc.validate()["stop_when"] == {"sink": "rx", "received_packets": 5}


@pytest.mark.parametrize(
    ("app", "what"),
    [
        ({"type": "bulk"}, "sends unlimited data"),
        ({"type": "request_response", "request": "1 B", "response": "1 B"}, "has no count"),
    ],
)
def test_stop_when_completed_refused_for_unlimited_app(app, what):
    sc = scenario(**{"tcp.bulk.app": app, "run.stop_when": {"tcp": "bulk", "completed": True}})
    assert_refused(sc, "run.stop_when.completed", 'tcp connection "bulk" never completes', what)


@pytest.mark.parametrize(
    ("stop_when", "path", "fragment"),
    [
        ({"tcp": "blk", "completed": True}, "run.stop_when.tcp", 'no tcp connection named "blk"'),
        ({"tcp": "bulk", "completed": False}, "run.stop_when.completed", "completed = true"),
        ({"tcp": "bulk", "completed": 1}, "run.stop_when.completed", "true or false"),
        ({"tcp": "bulk"}, "run.stop_when.completed", "missing required key"),
        ({"completed": True}, "run.stop_when.tcp", "missing required key"),
        (
            {"tcp": "bulk", "completed": True, "received_packets": 3},
            "run.stop_when.received_packets",
            '"received_packets" belongs to a sink condition; a tcp condition takes tcp and '
            "completed",
        ),
        (
            {"sink": "rx", "completed": True},
            "run.stop_when.completed",
            '"completed" belongs to a tcp condition',
        ),
        (
            {"sink": "rx", "tcp": "bulk"},
            "run.stop_when.tcp",
            "either a sink (with received_packets) or a tcp connection (with completed)",
        ),
        ({"sink": "rx"}, "run.stop_when.received_packets", "missing required key"),
        ({"tcp": "bulk", "complete": True}, "run.stop_when.complete", 'did you mean "completed"'),
    ],
)
def test_stop_when_refusals(stop_when, path, fragment):
    sc = scenario(**{"tcp.bulk.app": FINITE, "sinks.rx": {"node": "srv"}})
    sc.set("run.stop_when", stop_when)
    assert_refused(sc, path, fragment)


# ---------------------------------------------------------------------------
# Defaults and the normalised form.


def test_defaults_are_filled_in():
    desc = scenario().validate()
    assert desc["tcp"] == [DEFAULT_ENTRY]
    assert desc["sources"] == [] and desc["sinks"] == [] and desc["probes"] == []


def test_no_connections_gives_an_empty_list():
    sc = scenario()
    del sc.data["tcp"]
    assert sc.validate()["tcp"] == []


@pytest.mark.parametrize(
    ("mss", "segments"),
    [
        ("536 B", 4),
        ("1095 B", 4),
        ("1096 B", 3),
        ("1460 B", 3),
        ("2190 B", 3),
        ("2191 B", 2),
        ("8960 B", 2),
    ],
)
def test_rfc5681_initial_window(mss, segments):
    sc = scenario(**{"tcp.bulk.mss": mss, "tcp.bulk.send_buffer": "64 KiB"})
    assert tcp_entry(sc)["initial_window_segments"] == segments
    sc.set("tcp.bulk.initial_window", "rfc5681")
    assert tcp_entry(sc)["initial_window_segments"] == segments
    sc.set("tcp.bulk.initial_window", 10)
    assert tcp_entry(sc)["initial_window_segments"] == 10


FULL_TOML = """
[run]
name = "full_tcp"
duration = "100 s"
stop_when = { tcp = "web", completed = true }

[nodes.c]
type = "host"
[nodes.gw]
[nodes.srv]
type = "host"

[links.sat]
from = "c"
to = "gw"
rate = "2 Mbps"
delay = "270 ms"
duplex = true

[links.ground]
from = "gw"
to = "srv"
rate = "10 Mbps"
delay = "5 ms"
duplex = true

[tcp.web]
from = "c"
to = "srv"
variant = "sack"
mss = "536 B"
header = "52 B"
initial_window = 10
initial_ssthresh = "32 KiB"
min_rto = "200 ms"
initial_rto = "3 s"
max_rto = "120 s"
clock_granularity = "10 ms"
delayed_ack = false
delayed_ack_timeout = "100 ms"
window_scaling = false
send_buffer = "128 KiB"
receive_buffer = "1 MB"
handshake = false
start = "1.5 s"
priority = 1
clp = 1
app = { type = "request_response", request = "200 B", response = "10 kB", count = 50 }

[tcp.bulk]
from = "srv"
to = "c"
variant = "tahoe"
app = { type = "bulk", size = "10 MB" }

[probes.cwnd]
tcp = "web"
metric = "cwnd_bytes"

[probes.goodput]
tcp = "bulk"
metric = "goodput_bps"
"""


def test_full_example_normalises(tmp_path):
    path = tmp_path / "full_tcp.toml"
    path.write_text(FULL_TOML)
    desc = load(path).validate()
    assert desc["stop_when"] == {"tcp": "web", "completed": True}
    assert [entry["name"] for entry in desc["tcp"]] == ["bulk", "web"]
    bulk, web = desc["tcp"]
    assert web == {
        "name": "web",
        "src_node": "c",
        "dst_node": "srv",
        "variant": "sack",
        "mss_bytes": 536,
        "header_bytes": 52,
        "initial_window_segments": 10,
        "abc_limit_segments": 2,
        "initial_ssthresh_bytes": 32768,
        "min_rto_ps": 200 * MS,
        "initial_rto_ps": 3 * S,
        "max_rto_ps": 120 * S,
        "granularity_ps": 10 * MS,
        "delayed_ack": False,
        "delayed_ack_ps": 100 * MS,
        "limited_transmit": True,
        "window_scaling": False,
        "send_buffer_bytes": 131072,
        "receive_buffer_bytes": 1_000_000,
        "handshake": False,
        "start_ps": 1500 * MS,
        "priority": 1,
        "clp": 1,
        "app": {
            "kind": "request_response",
            "request_bytes": 200,
            "response_bytes": 10_000,
            "count": 50,
        },
    }
    assert bulk == {
        **DEFAULT_ENTRY,
        "src_node": "srv",
        "dst_node": "c",
        "variant": "tahoe",
        "app": {"kind": "bulk", "bytes": 10_000_000},
    }
    assert desc["probes"] == [
        {"name": "cwnd", "target": "tcp", "of": "web", "metric": "cwnd_bytes"},
        {"name": "goodput", "target": "tcp", "of": "bulk", "metric": "goodput_bps"},
    ]
    # The canonical text sorts keys and the round trip through TOML is exact.
    text = normalised_json(desc)
    assert '"tcp":[{"abc_limit_segments":2,"app":{"bytes":10000000,"kind":"bulk"}' in text
    sc = load(path)
    assert tomllib.loads(sc.to_toml()) == sc.data


def test_tcp_list_is_sorted_by_code_point():
    sc = scenario(**{"tcp.B": {"from": "srv", "to": "c"}, "tcp.a": {"from": "c", "to": "gw"}})
    assert [entry["name"] for entry in sc.validate()["tcp"]] == ["B", "a", "bulk"]


# ---------------------------------------------------------------------------
# Routes in both directions.


def routes_of(desc: dict) -> dict:
    return {node["name"]: node["routes"] for node in desc["nodes"]}


def test_routes_are_filled_in_both_directions():
    assert routes_of(scenario().validate()) == {
        "c": {"srv": "sat"},
        "gw": {"srv": "ground", "c": "sat_rev"},
        "srv": {"c": "ground_rev"},
    }


def test_asymmetric_paths_data_over_satellite_acks_over_terrestrial():
    # The classic satellite set-up: a one-way satellite forward link and a
    # terrestrial return link; the data and the ACKs take different paths.
    data = {
        "run": {"duration": "10 s"},
        "nodes": {"hub": {}, "gw": {}, "user": {}},
        "links": {
            "forward": {"from": "hub", "to": "user", "rate": "40 Mbps", "delay": "270 ms"},
            "modem": {"from": "user", "to": "gw", "rate": "64 kbps", "delay": "20 ms"},
            "net": {"from": "gw", "to": "hub", "rate": "10 Mbps", "delay": "10 ms"},
        },
        "tcp": {"download": {"from": "hub", "to": "user"}},
    }
    assert routes_of(Scenario.from_dict(data).validate()) == {
        "gw": {"hub": "net"},
        "hub": {"user": "forward"},
        "user": {"hub": "modem"},
    }


def test_tcp_and_source_routes_share_the_table():
    sc = scenario(**{"sinks.rx": {"node": "gw"}})
    sc.set("sources.cbr", {"type": "cbr", "from": "srv", "to": "rx", "rate": "1 Mbps"})
    routes = routes_of(sc.validate())
    assert routes["srv"] == {"c": "ground_rev", "gw": "ground_rev"}
    assert routes["gw"] == {"srv": "ground", "c": "sat_rev"}


def test_explicit_route_is_used_by_the_ack_path():
    # A second, terrestrial way back from gw to c; the ACKs are sent over it.
    sc = scenario(**{"links.terr": {"from": "gw", "to": "c", "rate": "64 kbps"}})
    sc.set("nodes.gw.routes", {"c": "terr"})
    assert routes_of(sc.validate())["gw"] == {"srv": "ground", "c": "terr"}


def test_segment_must_fit_an_ip_datagram():
    sc = scenario(**{"tcp.bulk.mss": "65500 B", "tcp.bulk.send_buffer": "1 MB"})
    sc.set("tcp.bulk.receive_buffer", "1 MB")
    with pytest.raises(ScenarioError) as caught:
        sc.validate()
    assert caught.value.path == "tcp.bulk.mss"
    assert "must fit an IP datagram (65535 B)" in caught.value.reason


def test_abc_limit_is_carried_to_the_description():
    sc = scenario(**{"tcp.bulk.abc_limit": 1})
    assert tcp_entry(sc)["abc_limit_segments"] == 1
