# [cell_sources.NAME] and [links.NAME.congestion]: the proactive-atm
# thesis's sources and detector from the scenario file to the core and back.
# The description carries the thesis's defaults and units; refusals name the
# key; a run on the thesis's network accounts for every cell.
import copy
import json

import pytest
import satcc
from satcc import _core
from satcc.scenario import Scenario
from scenario_helpers import changed, refused


def _link(src, dst, rate, delay, detect=False):
    link = {"from": src, "to": dst, "rate": rate, "delay": delay}
    if detect:
        link["congestion"] = {}
    return link


BASE = {
    "run": {"name": "thesis", "duration": "20 s", "seed": 1},
    "nodes": {"user1": {}, "sw1": {}, "sw2": {}, "user2": {}},
    "links": {
        "up": _link("user1", "sw1", "21 Mbps", "5 ms"),
        "up_rev": _link("sw1", "user1", "21 Mbps", "5 ms", True),
        "sat": _link("sw1", "sw2", "6 Mbps", "270 ms", True),
        "sat_rev": _link("sw2", "sw1", "6 Mbps", "270 ms", True),
        "down": _link("sw2", "user2", "21 Mbps", "5 ms", True),
        "down_rev": _link("user2", "sw2", "21 Mbps", "5 ms"),
    },
    "cell_sources": {
        "voice": {
            "type": "voice",
            "from": "user1",
            "to": "user2",
            "count": 10,
            "contract": {"at": "sat", "peak_rate": "64 kbps", "drain_rate": "36 kbps"},
        },
        "data": {"type": "data", "from": "user1", "to": "user2", "count": 2},
    },
}


def scenario(**changes) -> Scenario:
    return changed(BASE, **changes)


def test_the_description_carries_the_theses_sources_in_core_units():
    d = scenario().validate()
    voice, data = sorted(d["cell_sources"], key=lambda g: g["name"], reverse=True)
    assert voice["priority"] == 0 and data["priority"] == 1
    assert voice["traffic"]["rates_bps"] == [64e3, 0.0]
    assert voice["traffic"]["session_ps"] == 15 * 10**12
    # T_rt: the routed path's propagation there and back, 2 x 280 ms.
    assert voice["policy"]["rtt_ps"] == 560 * 10**9
    assert (voice["policy"]["floor"], voice["policy"]["ceiling"]) == (0.5, 1.0)
    assert (data["policy"]["floor"], data["policy"]["ceiling"]) == (0.0, None)
    # Rates of the cells' payload: 64 kb/s is 166.7 cells of 48 bytes a second.
    prc = voice["contract"]["peak_rate"]
    assert prc["peak_cells_per_s"] == pytest.approx(64e3 / 384)
    assert prc["overflow"] == "drop" and prc["queue_cells"] == 512
    assert voice["contract"]["leaky_bucket"]["drain_cells_per_s"] == pytest.approx(36e3 / 384)
    assert voice["police_at"] == "sat"
    assert data["traffic"] == {
        "kind": "files",
        "file_bytes": 1_000_000,
        "nominal_bps": 500e3,
        "interval_ps": 16 * 10**12,
    }
    (sat,) = [link for link in d["links"] if link["name"] == "sat"]
    assert sat["congestion"]["interval_ps"] == 50 * 10**9
    assert sat["congestion"]["threshold"] == 0.9


def test_rates_that_count_whole_cells_send_fewer_cells():
    d = changed(
        BASE,
        **{"cell_sources.voice.rate_basis": "cell", "cell_sources.data.rate_basis": "cell"},
    ).validate()
    voice, data = sorted(d["cell_sources"], key=lambda g: g["name"], reverse=True)
    # 64 kb/s of 53-byte cells: 150.9 cells a second, whatever unit the core
    # counts them in, and the contract polices the same cells.
    assert voice["traffic"]["rates_bps"][0] / 384 == pytest.approx(64e3 / 424)
    assert voice["contract"]["peak_rate"]["peak_cells_per_s"] == pytest.approx(64e3 / 424)
    assert voice["contract"]["leaky_bucket"]["drain_cells_per_s"] == pytest.approx(36e3 / 424)
    # A 1 Mbyte file is 18 868 cells of 53 bytes, not 20 834 of 48.
    assert data["traffic"]["file_bytes"] // 48 == 18_868
    assert data["traffic"]["nominal_bps"] / 384 == pytest.approx(500e3 / 424)


def test_a_zero_gap_runs_sessions_back_to_back():
    d = changed(BASE, **{"cell_sources.voice.gap": "0 s"}).validate()
    voice = next(g for g in d["cell_sources"] if g["name"] == "voice")
    assert voice["traffic"]["gap_ps"] == 0
    s = satcc.run(changed(BASE, **{"cell_sources.voice.gap": "0 s"})).summary
    # Ten voice sources always in a session: 10 x 32 kb/s of payload on
    # average, against about half that with 15 s gaps.
    offered = s["cell_sources.voice.offered_bps"] * 48 / 53
    assert 200e3 < offered < 400e3, offered


@pytest.mark.parametrize(
    ("path", "value", "key", "fragment"),
    [
        ("cell_sources.voice.type", "fax", "cell_sources.voice.type", "voice"),
        ("cell_sources.voice.count", 0, "cell_sources.voice.count", None),
        ("cell_sources.voice.to", "mars", "cell_sources.voice.to", '"mars"'),
        ("cell_sources.voice.file_size", "1 MB", "cell_sources.voice.file_size", "not used"),
        ("cell_sources.data.rates", ["1 kbps"], "cell_sources.data.rates", "not used"),
        ("cell_sources.voice.rates", ["1 kbps"], "cell_sources.voice.rates", "two rates"),
        ("cell_sources.voice.contract.at", "moon", "cell_sources.voice.contract.at", '"moon"'),
        ("cell_sources.voice.contract", {"at": "sat"}, "cell_sources.voice.contract", "peak_rate"),
        # Before: accepted; it policed nothing while the summary counted policed VCs.
        (
            "cell_sources.voice.contract.at",
            "down_rev",
            "cell_sources.voice.contract.at",
            "not on the path of the cells",
        ),
        ("cell_sources.voice.contract.at", "sat_rev", "cell_sources.voice.contract.at", "up, sat"),
        # Before: validated; the run would take some 130 GiB.
        ("cell_sources.voice.count", 10**8, "cell_sources.voice.count", "130.4 GiB"),
        ("cell_sources.voice.rates", ["2000 Gbps", "0 bps"], "cell_sources.voice.rates", "above"),
        ("cell_sources.data.nominal_rate", "2000 Gbps", "cell_sources.data.nominal_rate", "above"),
        (
            "cell_sources.voice.contract.peak_rate",
            "2000 Gbps",
            "cell_sources.voice.contract.peak_rate",
            "above 1000 Gbps",
        ),
        ("cell_sources.voice.policy.floor", 1.5, "cell_sources.voice.policy.floor", None),
        ("links.sat.congestion.previous", "old", "links.sat.congestion.previous", "filtered"),
        ("links.sat.congestion.threshold", 0, "links.sat.congestion.threshold", "positive"),
        ("cell_sources.voice.session", "0 s", "cell_sources.voice.session", None),
        ("cell_sources.voice.gap", "-1 s", "cell_sources.voice.gap", None),
        ("cell_sources.voice.rate_basis", "bytes", "cell_sources.voice.rate_basis", "payload"),
    ],
)
def test_refusals_name_the_key(path, value, key, fragment):
    error = refused(scenario(**{path: value}))
    assert error.path == key, str(error)
    if fragment is not None:
        assert fragment in str(error), str(error)


def test_the_core_refuses_a_contract_off_the_cells_path():
    # For descriptions that did not come through validation.
    d = scenario().validate()
    voice = next(g for g in d["cell_sources"] if g["name"] == "voice")
    voice["police_at"] = "down_rev"
    with pytest.raises(ValueError, match='police_at link "down_rev" is not on the path'):
        _core.Simulation(json.dumps(d))


def test_a_detector_needs_a_constant_rate():
    data = copy.deepcopy(BASE)
    del data["links"]["sat"]["rate"]
    data["links"]["sat"]["capacity"] = {"type": "trace", "times": ["0 s"], "rates": ["6 Mbps"]}
    error = refused(Scenario.from_dict(data))
    assert error.path == "links.sat.congestion", str(error)


def test_a_run_counts_every_cell_and_polices_the_contracted_vcs():
    s = satcc.run(scenario()).summary
    assert s["run.pdus_unaccounted"] == 0
    assert s["cell_sources.voice.sources"] == 10
    assert s["cell_sources.voice.cells_sent"] > 0
    assert s["links.sat.upc.vcs"] == 10
    # 50 ms intervals over 20 s: the last one ends as the run does.
    assert s["links.sat.congestion.intervals"] in (399, 400)
    # A light load: nothing lost, nothing late, no notification.
    assert s["cell_sources.voice.cells_dropped"] == 0
    assert s["cell_sources.voice.late_cells"] == 0
    assert s["links.sat.congestion.rate_notices"] == 0
