"""A LAN host behind an ATM edge device: UBR VCs that end at the edge
(`ubr.to_edge` / `ubr.from_edge`), LAN emulation encapsulation and Ethernet
framing on the LAN links, checked against timings computed here."""

from __future__ import annotations

import pytest
import satcc
from satcc.scenario import ScenarioError

CELL_BITS = 53 * 8
ATM_BPS = 2e6
LAN_BPS = 10e6


def lan_scenario(**ubr) -> dict:
    """a —ATM (2 Mb/s, 100 ms)— edge —Ethernet (10 Mb/s)— b; a 1-byte
    UDP exchange a -> b over LANE UBR VCs."""
    return {
        "run": {"name": "lan-edge", "duration": "10 s"},
        "nodes": {"a": {"type": "host"}, "edge": {}, "b": {"type": "host"}},
        "links": {
            "atm": {
                "from": "a",
                "to": "edge",
                "rate": f"{ATM_BPS} bps",
                "delay": "100 ms",
                "duplex": True,
            },
            "lan": {
                "from": "edge",
                "to": "b",
                "rate": f"{LAN_BPS} bps",
                "duplex": True,
                "framing": "ethernet",
            },
        },
        "udp_rr": {
            "rr": {
                "from": "a",
                "to": "b",
                "count": 5,
                "ubr": {"encapsulation": "lane", **ubr},
            }
        },
    }


def test_the_lan_carries_frames_and_the_atm_link_cells():
    s = satcc.run(lan_scenario(to_edge="edge"), seed=1).summary
    assert s["udp_rr.rr.transactions"] == 5 and s["run.pdus_unaccounted"] == 0
    # A 29-byte datagram: 2 cells under LANE (29 + 16 + 8 = 53 B), and one
    # Ethernet frame padded to 64 bytes plus preamble and gap (84 B).
    assert s["links.atm.tx_packets"] == s["links.atm_rev.tx_packets"] == 10
    assert s["links.lan.tx_bytes"] == s["links.lan_rev.tx_bytes"] == 5 * 84
    # Each way: both cells and 100 ms, then the frame once the edge device
    # has reassembled the datagram (the return frame comes before the cells).
    expected = 2 * (0.1 + 2 * CELL_BITS / ATM_BPS + 84 * 8 / LAN_BPS)
    assert s["udp_rr.rr.transaction_time_mean_s"] == pytest.approx(expected, rel=1e-9)


def test_the_edge_is_in_the_description_only_when_given():
    plain = satcc.Scenario.from_dict(lan_scenario()).validate()
    assert plain["udp_rr"][0]["ubr"] == {"encapsulation": "lane"}
    links = {link["name"]: link for link in plain["links"]}
    assert links["lan"]["framing"] == "ethernet" and "framing" not in links["atm"]
    edged = satcc.Scenario.from_dict(lan_scenario(to_edge="edge")).validate()
    assert edged["udp_rr"][0]["ubr"] == {"encapsulation": "lane", "to_edge": "edge"}
    # The cells go to the edge, so every node on the way has a route to it.
    routes = {node["name"]: node["routes"] for node in edged["nodes"]}
    assert routes["a"]["edge"] == "atm" and routes["b"]["a"] == "lan_rev"


@pytest.mark.parametrize(
    ("ubr", "path", "reason"),
    [
        ({"to_edge": "nowhere"}, "udp_rr.rr.ubr.to_edge", 'no node named "nowhere"'),
        ({"to_edge": "a"}, "udp_rr.rr.ubr.to_edge", "start and end at the same node"),
        ({"from_edge": "edge", "to_edge": "edge"}, "udp_rr.rr.ubr.to_edge", "same node"),
    ],
)
def test_edges_are_nodes_and_the_vcs_join_two(ubr, path, reason):
    with pytest.raises(ScenarioError) as caught:
        satcc.Scenario.from_dict(lan_scenario(**ubr)).validate()
    assert caught.value.path == path and reason in str(caught.value)


def test_a_host_whose_route_misses_its_edge_is_refused():
    # b reaches a directly, not through the edge device it is said to sit
    # behind: its packets would never enter the VC.
    sc = lan_scenario(to_edge="edge")
    sc["links"]["shortcut"] = {"from": "b", "to": "a", "rate": "10 Mbps"}
    with pytest.raises(ScenarioError) as caught:
        satcc.Scenario.from_dict(sc).validate()
    assert caught.value.path == "udp_rr.rr.ubr.to_edge"
    assert "does not pass its edge device" in str(caught.value)
