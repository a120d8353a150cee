"""congestion_control = "bbr3": the key and its refusals, as "bbr" has them
(the model's own tests are in the Rust core: congestion/bbr3/tests.rs and
crates/core/tests/bbr3.rs)."""

import pytest
from satcc.studies.ns2 import Case
from test_scenario_tcp import assert_refused, scenario, tcp_entry


def test_bbr3_reaches_the_description():
    entry = tcp_entry(scenario(**{"tcp.bulk.congestion_control": "bbr3"}))
    assert entry["congestion_control"] == "bbr3"


def test_hystart_given_with_bbr3_is_refused_but_the_presets_is_left():
    sc = scenario(**{"tcp.bulk.congestion_control": "bbr3", "tcp.bulk.hystart": True})
    assert_refused(sc, "tcp.bulk.hystart", '"bbr3" leaves Startup')
    entry = tcp_entry(
        scenario(**{"tcp.bulk.preset": "linux", "tcp.bulk.congestion_control": "bbr3"})
    )
    assert entry["congestion_control"] == "bbr3"


def test_ns2_has_no_bbr3():
    with pytest.raises(ValueError, match="no BBR"):
        Case(variant="sack", congestion_control="bbr3")
