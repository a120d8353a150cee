"""[constellation.NAME] and links on its moving paths (docs/leo.md): the
delay schedule a link takes from a constellation, its refusals, and runs
across route changes and outages that lose nothing unaccounted."""

from __future__ import annotations

import math

import numpy as np
import pytest
import satcc
from satcc.scenario import Scenario, ScenarioError


def scenario(a="Manila", b="Dalian", duration="200 s", **link) -> dict:
    return {
        "run": {"name": "leo", "duration": duration},
        "nodes": {"a": {"type": "host"}, "b": {"type": "host"}},
        "constellation": {
            "kuiper": {
                "shell": "kuiper-k1",
                "stations": {"x": {"city": a}, "y": {"city": b}},
            }
        },
        "links": {
            "sat": {
                "from": "a",
                "to": "b",
                "rate": "10 Mbps",
                "duplex": True,
                "path": {"constellation": "kuiper", "from": "x", "to": "y"},
                "queue": {"type": "droptail", "limit": "100 packets"},
                **link,
            }
        },
        "tcp": {"t": {"from": "a", "to": "b", "preset": "linux", "app": {"type": "bulk"}}},
    }


def schedule_rtt_ms(desc: dict, name: str = "sat") -> np.ndarray:
    link = next(entry for entry in desc["links"] if entry["name"] == name)
    delays = link["delay_schedule"]["delays_ps"]
    return np.array([math.nan if d is None else 2 * d / 1e9 for d in delays])


def test_the_schedule_is_hypatias_manila_dalian_path_both_ways():
    # Hypatia's reference data for Kuiper K1 (docs/leo.md): RTT min, mean
    # and max 25.230, 40.144 and 48.165 ms over 200 s at 100 ms steps.
    desc = Scenario.from_dict(scenario()).validate()
    rtt = schedule_rtt_ms(desc)
    assert len(rtt) == 2000
    assert rtt.min() == pytest.approx(25.230, abs=1e-3)
    assert rtt.mean() == pytest.approx(40.144, abs=1e-3)
    assert rtt.max() == pytest.approx(48.165, abs=1e-3)
    forward = next(entry for entry in desc["links"] if entry["name"] == "sat")
    assert forward["delay_ps"] == forward["delay_schedule"]["delays_ps"][0]
    assert forward["delay_schedule"]["times_ps"][:3] == [0, 100_000_000_000, 200_000_000_000]
    np.testing.assert_array_equal(rtt, schedule_rtt_ms(desc, "sat_rev"))
    assert "path" not in forward and "constellation" not in desc


@pytest.mark.parametrize(
    "change,where,fragment",
    [
        ({"delay": "10 ms"}, "links.sat.delay", "either delay or path"),
        (
            {"path": {"constellation": "starlink", "from": "x", "to": "y"}},
            "links.sat.path.constellation",
            "no constellation",
        ),
        (
            {"path": {"constellation": "kuiper", "from": "x", "to": "z"}},
            "links.sat.path.to",
            'no station named "z"',
        ),
        (
            {"path": {"constellation": "kuiper", "from": "x", "to": "x"}},
            "links.sat.path.to",
            "two different",
        ),
    ],
)
def test_bad_paths_are_refused_naming_the_key(change, where, fragment):
    with pytest.raises(ScenarioError) as caught:
        Scenario.from_dict(scenario(**change)).validate()
    assert where in str(caught.value) and fragment in str(caught.value), str(caught.value)


@pytest.mark.parametrize(
    "station,where,fragment",
    [
        ({"city": "Atlantis"}, "stations.y.city", "unknown city"),
        ({"lat": 95, "lon": 0}, "stations.y.lat", "latitude"),
        ({"lat": 10}, "stations.y", "both lat and lon"),
        ({"city": "Dalian", "lat": 1, "lon": 2}, "stations.y", "not both"),
    ],
)
def test_bad_stations_are_refused_naming_the_key(station, where, fragment):
    s = scenario()
    s["constellation"]["kuiper"]["stations"]["y"] = station
    with pytest.raises(ScenarioError) as caught:
        Scenario.from_dict(s).validate()
    text = str(caught.value)
    assert f"constellation.kuiper.{where}" in text and fragment in text, text


def test_the_section_offers_every_preset_shell():
    from satcc.leo import shells
    from satcc.scenario import constellation

    assert constellation.SHELLS == tuple(shells.PRESETS)


def test_an_unknown_shell_and_a_wrong_key_are_refused():
    s = scenario()
    s["constellation"]["kuiper"]["shell"] = "kuiper-k9"
    with pytest.raises(ScenarioError, match="constellation.kuiper.shell"):
        Scenario.from_dict(s).validate()
    s = scenario()
    s["constellation"]["kuiper"]["altitude"] = "630 km"
    with pytest.raises(ScenarioError, match="constellation.kuiper.altitude"):
        Scenario.from_dict(s).validate()


def test_a_station_at_a_latitude_and_longitude_is_the_city_there():
    s = scenario()
    s["constellation"]["kuiper"]["stations"]["y"] = {"lat": 38.91389, "lon": 121.60222}
    by_coordinates = schedule_rtt_ms(Scenario.from_dict(s).validate())
    by_city = schedule_rtt_ms(Scenario.from_dict(scenario()).validate())
    np.testing.assert_allclose(by_coordinates, by_city, rtol=1e-3)


def test_tcp_across_route_changes_and_an_outage_loses_nothing_unaccounted():
    # St Petersburg-Dalian on Kuiper K1 has no path for about 10 of its
    # 200 s (Hypatia's data: 9.8 s) and changes path 7 times.
    s = satcc.run(scenario("Saint Petersburg", "Dalian")).summary
    assert s["run.pdus_unaccounted"] == 0
    assert s["links.sat.drops_unreachable"] > 0
    assert s["links.sat_rev.drops_unreachable"] > 0
    assert s["tcp.t.goodput_bps"] > 5e6
    # A link with a fixed delay has no such key.
    plain = scenario()
    del plain["links"]["sat"]["path"]
    plain["constellation"] = {}
    assert "links.sat.drops_unreachable" not in satcc.run(plain).summary
