# Tests for the shape of the scenario package: the registry every stage
# iterates, the description generated from the table models' fields (and its
# special cases: keys written only when set, type-dependent defaults,
# computed values), probe targets taken from the core, and the recipe for
# adding a section.

from typing import Annotated

import pytest
from satcc import _core
from satcc.analysis.netpipe import netpipe_block_sizes
from satcc.scenario import Scenario, ScenarioError
from satcc.scenario.description import NOT_DESCRIBED, UNLESS_DEFAULT, Desc, describe_table
from satcc.scenario.probes import Probe
from satcc.scenario.sections import SECTIONS
from satcc.scenario.tables import Section, _Table
from satcc.scenario.validation import document_model, validate
from satcc.scenario.values import (
    NonNegativeTime,
    PositiveInt,
    PositiveRate,
    PositiveSize,
    Str,
    choice,
    optional,
    optional_table,
)

MS = 10**9

BASE = {
    "run": {"duration": "10 s"},
    "nodes": {"a": {}, "b": {}},
    "links": {"ab": {"from": "a", "to": "b", "rate": "2 Mbps", "duplex": True}},
    "sinks": {"rx": {"node": "b"}},
}


def described(**tables) -> dict:
    """The description of BASE with whole top-level tables added or replaced."""
    return Scenario.from_dict({**BASE, **tables}).validate()


def tcp_entry(**keys) -> dict:
    return described(tcp={"t": {"from": "a", "to": "b", **keys}})["tcp"][0]


def source_entry(**keys) -> dict:
    source = {"from": "a", "to": "rx", "rate": "1 Mbps", **keys}
    return described(sources={"s": source})["sources"][0]


# ---------------------------------------------------------------------------
# The registry.


def test_sections_are_in_the_order_errors_are_found_in():
    assert [s.key for s in SECTIONS] == [
        "run",
        "nodes",
        "links",
        "constellation",
        "dvb_rcs",
        "sources",
        "sinks",
        "tcp",
        "udp_rr",
        "tfrc",
        "arrivals",
        "tfrc_arrivals",
        "cell_sources",
        "emulate",
        "probes",
        "traces",
    ]
    assert [s.key for s in SECTIONS if not s.named] == ["run"]


def test_the_document_model_has_one_key_per_section():
    assert document_model(SECTIONS).table_keys() == [s.key for s in SECTIONS]


def test_every_core_probe_target_is_answered_by_exactly_one_section():
    targets = [target for target, _ in _core.probe_metrics()]
    for target in targets:
        answering = [s.key for s in SECTIONS if s.probe_target == target]
        assert len(answering) == 1, (target, answering)
    assert Probe.table_keys() == [*targets, "metric"]


def test_a_probe_without_target_lists_the_core_targets():
    probes = {"p": {"metric": "drops"}}
    with pytest.raises(ScenarioError) as caught:
        described(probes=probes)
    assert caught.value.path == "probes.p"
    assert caught.value.reason == (
        "needs exactly one target key: link, sink, source, tcp, tfrc or emulate"
    )


def test_a_probe_finds_its_target_through_the_answering_section():
    probes = {"p": {"link": "ab_rev", "metric": "drops"}, "q": {"sink": "rx", "metric": "drops"}}
    with pytest.raises(ScenarioError) as caught:
        described(probes=probes)
    assert caught.value.path == "probes.q.metric"
    desc = described(probes={"p": probes["p"]})
    assert desc["probes"] == [{"name": "p", "target": "link", "of": "ab_rev", "metric": "drops"}]


# ---------------------------------------------------------------------------
# Generating an entry from a model's fields.


class Inner(_Table):
    level: PositiveInt = 1


class Plain(_Table):
    delay: NonNegativeTime = 0
    size: PositiveSize = 10
    rate: PositiveRate = 1e6
    count: PositiveInt = 3
    renamed: Annotated[NonNegativeTime, Desc("wait_ps")] = 5
    doubled: Annotated[PositiveInt, Desc(convert=lambda n: 2 * n)] = 4
    total: Annotated[PositiveInt, Desc(compute=lambda t: t.count + t.doubled)] = 1
    flag: Annotated[Str, UNLESS_DEFAULT] = "usual"
    carried_elsewhere: Annotated[PositiveInt, NOT_DESCRIBED] = 9
    inner: optional_table(Inner) = None
    extra: Annotated[optional_table(Inner), UNLESS_DEFAULT] = None


def test_keys_take_their_unit_suffix_and_desc_says_where_they_differ():
    entry = describe_table(Plain())
    assert entry == {
        "delay_ps": 0,
        "size_bytes": 10,
        "rate_bps": 1e6,
        "count": 3,
        "wait_ps": 5,
        "doubled": 8,
        "total": 7,
        "inner": None,
    }
    changed = Plain(flag="rare", inner={}, extra={"level": 2})
    assert describe_table(changed)["flag"] == "rare"
    assert describe_table(changed)["inner"] == {"level": 1}
    assert describe_table(changed)["extra"] == {"level": 2}


class Typed(_Table):
    VARIANTS = {
        "one": (("type", "common", "only_one", "null_elsewhere", "per_type"), ()),
        "two": (("type", "common", "per_type"), ()),
    }

    type: Annotated[choice("one", "two"), Desc("kind")]
    common: PositiveInt = 1
    only_one: PositiveInt = 2
    null_elsewhere: Annotated[optional(PositiveInt), Desc(if_unused=None)] = None
    per_type: Annotated[
        optional(PositiveInt),
        Desc(types=("one",), default=10, omit_default=True),
        Desc(types=("two",), default=20),
    ] = None


def test_a_typed_table_writes_the_keys_its_type_uses():
    assert describe_table(Typed(type="one")) == {
        "kind": "one",
        "common": 1,
        "only_one": 2,
        "null_elsewhere": None,
    }
    assert describe_table(Typed(type="one", per_type=11))["per_type"] == 11
    assert describe_table(Typed(type="one", per_type=10)).get("per_type", "absent") == "absent"
    assert describe_table(Typed(type="two")) == {
        "kind": "two",
        "common": 1,
        "null_elsewhere": None,
        "per_type": 20,
    }


# ---------------------------------------------------------------------------
# The special cases of the real format, as the core reads them.


def test_restart_after_idle_is_written_only_when_false():
    assert "restart_after_idle" not in tcp_entry()
    assert "restart_after_idle" not in tcp_entry(restart_after_idle=True)
    assert tcp_entry(restart_after_idle=False)["restart_after_idle"] is False


def test_optional_model_tables_are_written_only_when_given():
    plain = tcp_entry()
    assert "abr" not in plain and "ubr" not in plain
    assert tcp_entry(ubr={})["ubr"] == {"encapsulation": "llc_snap"}
    assert "erica" not in described()["links"][0]
    erica = described(links={"ab": {**BASE["links"]["ab"], "erica": {}}})["links"]
    assert [link["erica"]["interval_ps"] for link in erica] == [5 * MS, 5 * MS]


def test_renamed_and_converted_tcp_keys():
    entry = tcp_entry(clock_granularity="10 ms", delayed_ack_timeout="100 ms", mss="2000 B")
    assert entry["granularity_ps"] == 10 * MS
    assert entry["delayed_ack_ps"] == 100 * MS
    assert entry["src_node"] == "a" and entry["dst_node"] == "b"
    assert entry["initial_window_segments"] == 3  # RFC 5681: 2190 B >= mss > 1095 B
    assert entry["initial_ssthresh_bytes"] is None
    assert tcp_entry(initial_ssthresh="20 kB")["initial_ssthresh_bytes"] == 20_000


def test_abr_icr_defaults_to_a_tenth_of_pcr_but_not_below_mcr():
    assert tcp_entry(abr={"pcr": "10 Mbps"})["abr"]["icr_bps"] == 1e6
    assert tcp_entry(abr={"pcr": "10 Mbps", "mcr": "3 Mbps"})["abr"]["icr_bps"] == 3e6
    assert tcp_entry(abr={"pcr": "10 Mbps", "icr": "2 Mbps"})["abr"]["icr_bps"] == 2e6


def test_app_warmup_defaults_differ_by_type():
    request_response = {"type": "request_response", "request": "1 B", "response": "1 B"}
    assert "warmup" not in tcp_entry(app=request_response)["app"]
    assert "warmup" not in tcp_entry(app={**request_response, "warmup": 0})["app"]
    assert tcp_entry(app={**request_response, "warmup": 3})["app"]["warmup"] == 3
    assert tcp_entry(app={"type": "netpipe"})["app"]["warmup"] == 1
    assert tcp_entry(app={"type": "netpipe", "warmup": 0})["app"]["warmup"] == 0
    assert tcp_entry(app={"type": "bulk", "size": "1 kB"})["app"] == {"kind": "bulk", "bytes": 1000}


def test_netpipe_writes_its_block_sizes_not_the_schedule_keys():
    app = {"type": "netpipe", "min_block": "10 B", "max_block": "20 B", "perturbation": 0}
    entry = tcp_entry(app=app)["app"]
    assert entry["sizes_bytes"] == netpipe_block_sizes(20, 0, 10)
    assert not {"min_block", "max_block", "perturbation"} & set(entry)
    # -l 10: inc = 5, doubled before the third base; each base alone (p = 0).
    assert entry["bases_bytes"] == [10, 15, 20]
    assert entry["increments_bytes"] == [5, 5, 10]
    # Explicit sizes have no schedule: each is its own base, increment 1.
    explicit = tcp_entry(app={"type": "netpipe", "sizes": ["1 B", "5 B"]})["app"]
    assert "bases_bytes" not in explicit and "increments_bytes" not in explicit


def test_netpipe_reporting_keys_are_written_only_when_given():
    entry = tcp_entry(app={"type": "netpipe"})["app"]
    assert not {"trials", "report", "repetition_rule", "latency_repetitions"} & set(entry)
    netpipe2 = {
        "type": "netpipe",
        "trials": 7,
        "report": "min_trial",
        "repetition_rule": "netpipe",
        "latency_repetitions": 100,
    }
    entry = tcp_entry(app=netpipe2)["app"]
    assert (entry["trials"], entry["report"], entry["repetition_rule"]) == (
        7,
        "min_trial",
        "netpipe",
    )
    assert entry["latency_repetitions"] == 100


@pytest.mark.parametrize(
    ("app", "key", "reason"),
    [
        ({"report": "median"}, "report", 'expected one of "mean", "min_trial"'),
        ({"repetition_rule": "floor"}, "repetition_rule", 'expected one of "ceil", "netpipe"'),
        ({"trials": 0}, "trials", "trials must be positive"),
        ({"latency_repetitions": -1}, "latency_repetitions", "must not be negative"),
        ({"bases": [1]}, "bases", 'unknown key "bases"'),
    ],
)
def test_netpipe_refuses_bad_reporting_keys(app, key, reason):
    with pytest.raises(ScenarioError) as caught:
        tcp_entry(app={"type": "netpipe", **app})
    assert caught.value.path == f"tcp.t.app.{key}"
    assert reason in caught.value.reason


def test_only_netpipe_takes_the_reporting_keys():
    with pytest.raises(ScenarioError) as caught:
        tcp_entry(app={"type": "bulk", "report": "mean"})
    assert caught.value.reason.startswith('"report" is not used with type = "bulk"')


def test_source_keys_its_type_does_not_use():
    cbr = source_entry(type="cbr")
    assert (cbr["on_ps"], cbr["off_ps"], cbr["periods"]) == (None, None, None)
    assert "hurst" not in cbr and "std_bps" not in cbr
    onoff = source_entry(type="onoff", on_time="1 s", off_time="2 s")
    assert (onoff["on_ps"], onoff["periods"]) == (1000 * MS, "exponential")
    video = source_entry(type="mpeg2", std="1 Mbps")
    assert (video["packet_bytes"], video["size_dist"], video["std_bps"]) == (53, "constant", 1e6)
    assert (video["on_ps"], video["periods"], video["mpcr_max_ps"]) == (None, None, 100 * MS)


def test_udp_rr_is_left_out_while_there_are_no_exchanges():
    assert "udp_rr" not in described()
    exchange = {"from": "a", "to": "b"}
    [entry] = described(udp_rr={"x": exchange})["udp_rr"]
    assert entry["timeout_ps"] == 2000 * MS and "ubr" not in entry
    [entry] = described(udp_rr={"x": {**exchange, "ubr": {"encapsulation": "vc_mux"}}})["udp_rr"]
    assert entry["ubr"] == {"encapsulation": "vc_mux"}


# ---------------------------------------------------------------------------
# Adding a section: one module (here, the lines below) and one registry line.


class Beacon(_Table):
    node: Str
    period: NonNegativeTime = 0
    power: Annotated[PositiveInt, UNLESS_DEFAULT] = 1


def check_beacon(checks, path: tuple, name: str, beacon: Beacon) -> None:
    checks.require((*path, "node"), "nodes", beacon.node)


BEACONS = Section(
    key="beacons",
    table=Beacon,
    noun="beacon",
    description_key="beacons",
    check=check_beacon,
    omit_when_empty=True,
)
WITH_BEACONS = (*SECTIONS, BEACONS)


def validate_with_beacons(data: dict) -> dict:
    return validate(data, "<dict>", "scenario", None, WITH_BEACONS)


def test_a_new_section_is_validated_and_described_from_its_registry_line():
    assert "beacons" not in validate_with_beacons(BASE)
    desc = validate_with_beacons({**BASE, "beacons": {"bx": {"node": "a", "period": "1 s"}}})
    assert desc["beacons"] == [{"name": "bx", "node": "a", "period_ps": 1000 * MS}]


def test_a_new_section_gets_the_usual_refusals():
    with pytest.raises(ScenarioError) as caught:
        validate_with_beacons({**BASE, "beacons": {"bx": {"node": "a", "perod": "1 s"}}})
    assert caught.value.path == "beacons.bx.perod"
    assert 'did you mean "period"?' in caught.value.reason
    with pytest.raises(ScenarioError) as caught:
        validate_with_beacons({**BASE, "beacons": {"bx": {"node": "z"}}})
    assert (caught.value.path, caught.value.reason) == (
        "beacons.bx.node",
        'no node named "z" (nodes: a, b)',
    )
    with pytest.raises(ScenarioError) as caught:
        validate_with_beacons({**BASE, "beacon": {}})
    assert "beacons" in caught.value.reason
    with pytest.raises(ScenarioError) as caught:
        Scenario.from_dict({**BASE, "beacons": {}}).validate()
    assert caught.value.path == "beacons"
