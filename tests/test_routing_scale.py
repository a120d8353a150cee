"""Routing stays exact and scales: the next hops resolve_routes picks are
pinned on small topologies (recorded before routing was made near-linear),
and validating a star of many hosts, each sending to another, takes memory
roughly proportional to the hosts, not to their square."""

from __future__ import annotations

import tracemalloc

import pytest
from satcc.scenario import Scenario
from satcc.scenario.routing import PathRequest, RouteError, resolve_routes


def _topology(nodes: str, links: dict[str, str], duplex: str = "") -> dict:
    """`links`: name -> "FROM TO"; the names in `duplex` also get NAME_rev."""
    ends = {name: tuple(pair.split()) for name, pair in links.items()}
    for name in duplex.split():
        src, dst = ends[name]
        ends[f"{name}_rev"] = (dst, src)
    return {"nodes": nodes.split(), "ends": ends}


def _requests(pairs: str) -> list[PathRequest]:
    """ "a>b c>d": a path from a to b, then one from c to d."""
    found = []
    for pair in pairs.split():
        start, dest = pair.split(">")
        found.append(PathRequest(start, dest, ("sources", f"{start}_{dest}", "to"), "a sink"))
    return found


LINE = _topology("a b c d", {"ab": "a b", "bc": "b c", "cd": "c d"}, duplex="ab bc cd")
STAR = _topology(
    "hub h0 h1 h2 h3",
    # h0 also has a second link each way: "a0" sorts before "l0_rev".
    {
        "l0": "h0 hub",
        "l1": "h1 hub",
        "l2": "h2 hub",
        "l3": "h3 hub",
        "k0": "h0 hub",
        "a0": "hub h0",
    },
    duplex="l0 l1 l2 l3",
)
# Equal-cost paths s -> t through x or y: the link named first wins, not the node.
DIAMOND = _topology(
    "s x y t",
    {
        "m1": "s y",
        "m2": "s x",
        "n1": "x t",
        "n2": "y t",
        "r1": "t x",
        "r2": "t y",
        "r3": "x s",
        "r4": "y s",
    },
)
# Ties two hops deep: s -> a|b -> c|d -> t.
WIDE = _topology(
    "s a b c d t",
    {"sb": "s b", "sa": "s a", "ac": "a c", "bd": "b d", "bc": "b c", "ct": "c t", "dt": "d t"},
    duplex="sb sa ac bd bc ct dt",
)
RING = _topology(
    "a b c d e",
    {"ab": "a b", "bc": "b c", "cd": "c d", "de": "d e", "ea": "e a"},
    duplex="ab bc cd de ea",
)
# Hosts behind two routers, one host (m) on both.
TWO_LEVEL = _topology(
    "core r1 r2 a1 a2 b1 b2 m",
    {
        "c1": "r1 core",
        "c2": "r2 core",
        "a1": "a1 r1",
        "a2": "a2 r1",
        "b1": "b1 r2",
        "b2": "b2 r2",
        "m1": "m r1",
        "m2": "m r2",
    },
    duplex="c1 c2 a1 a2 b1 b2 m1 m2",
)
# One-way links: p -> q -> r -> s -> p, and a spur hub <-> x -> y -> z -> hub.
ONE_WAY = _topology(
    "p q r s hub x y z lone",
    {"pq": "p q", "qr": "q r", "rs": "r s", "sp": "s p", "hx": "hub x", "xy": "x y"}
    | {"yz": "y z", "zh": "z hub"},
    duplex="hx",
)

CASES = {
    "line": (LINE, {}, "a>d d>a b>d c>a a>b"),
    "star": (STAR, {}, "h0>h1 h1>h2 h2>h3 h3>h0 h0>hub hub>h2 hub>h0 h2>h0"),
    "diamond": (DIAMOND, {}, "s>t t>s x>y y>x"),
    "wide": (WIDE, {}, "s>t t>s a>d d>a"),
    "two_level": (
        TWO_LEVEL,
        {},
        " ".join(
            f"{i}>{j}" for i in "a1 a2 b1 b2 m".split() for j in "a1 a2 b1 b2 m".split() if i != j
        ),
    ),
    "one_way": (ONE_WAY, {}, "p>s s>r q>p hub>z z>y x>hub y>x"),
    # Explicit routes win over fewest hops, then fewest hops take over.
    "explicit_diamond": (DIAMOND, {"s": {"t": "m2"}, "t": {"s": "r2"}}, "s>t t>s x>t"),
    "explicit_detour": (RING, {"a": {"c": "ea_rev"}}, "a>c b>c e>c"),
    "explicit_on_the_way": (LINE, {"b": {"d": "bc"}, "c": {"a": "bc_rev"}}, "a>d d>a"),
    "explicit_star": (STAR, {"hub": {"h1": "l1_rev"}, "h2": {"h1": "l2"}}, "h0>h1 h2>h1"),
    # Refusals: no path at all, an explicit route into a dead end, a loop.
    "no_path": (ONE_WAY, {}, "p>q lone>p"),
    "no_path_into_a_one_way_ring": (ONE_WAY, {}, "hub>p"),
    "no_path_after_explicit_routes": (
        ONE_WAY,
        {"x": {"hub": "xy"}, "z": {"hub": "zh"}},
        "x>hub y>p",
    ),
    "dead_end_on_a_one_way_spur": (
        ONE_WAY | {"nodes": [*ONE_WAY["nodes"], "w"], "ends": ONE_WAY["ends"] | {"xw": ("x", "w")}},
        {"x": {"z": "xw"}},
        "hub>y hub>z",
    ),
    "explicit_dead_end": (
        RING | {"nodes": [*RING["nodes"], "spur"], "ends": RING["ends"] | {"out": ("a", "spur")}},
        {"a": {"c": "out"}},
        "a>c",
    ),
    "loop": (LINE, {"b": {"d": "ab_rev"}}, "a>d"),
    "loop_at_the_hub": (STAR, {"hub": {"h1": "l2_rev"}}, "h0>h1"),
}


def resolved(case: str):
    topology, routes, pairs = CASES[case]
    explicit = {node: dict(routes.get(node, {})) for node in topology["nodes"]}
    try:
        found = resolve_routes(explicit, topology["ends"], _requests(pairs))
    except RouteError as e:
        return ("refused", e.path, e.reason)
    # In the order the routes were recorded: the order paths needed them.
    return [(node, list(table.items())) for node, table in found.items()]


# Recorded with the per-destination BFS router that preceded issue 37 H2.
EXPECTED: dict = {
    "dead_end_on_a_one_way_spur": (
        "refused",
        ("nodes", "x", "routes", "z"),
        'route from "x" towards "z" via link "xw" leads to "w", which has no path onward',
    ),
    "diamond": [
        ("s", [("t", "m1")]),
        ("x", [("s", "r3"), ("y", "n1")]),
        ("y", [("t", "n2"), ("x", "n2")]),
        ("t", [("s", "r1"), ("y", "r2"), ("x", "r1")]),
    ],
    "explicit_dead_end": (
        "refused",
        ("nodes", "a", "routes", "c"),
        'route from "a" towards "c" via link "out" leads to "spur", which has no path onward',
    ),
    "explicit_detour": [
        ("a", [("c", "ea_rev")]),
        ("b", [("c", "bc")]),
        ("c", []),
        ("d", [("c", "cd_rev")]),
        ("e", [("c", "de_rev")]),
    ],
    "explicit_diamond": [
        ("s", [("t", "m2")]),
        ("x", [("t", "n1")]),
        ("y", [("s", "r4")]),
        ("t", [("s", "r2")]),
    ],
    "explicit_on_the_way": [
        ("a", [("d", "ab")]),
        ("b", [("d", "bc"), ("a", "ab_rev")]),
        ("c", [("d", "cd"), ("a", "bc_rev")]),
        ("d", [("a", "cd_rev")]),
    ],
    "explicit_star": [
        ("hub", [("h1", "l1_rev")]),
        ("h0", [("h1", "k0")]),
        ("h1", []),
        ("h2", [("h1", "l2")]),
        ("h3", []),
    ],
    "line": [
        ("a", [("d", "ab"), ("b", "ab")]),
        ("b", [("d", "bc"), ("a", "ab_rev")]),
        ("c", [("d", "cd"), ("a", "bc_rev")]),
        ("d", [("a", "cd_rev")]),
    ],
    "loop": (
        "refused",
        ("nodes", "b", "routes", "d"),
        'route from "b" towards "d" via link "ab_rev" loops back to "b"',
    ),
    "loop_at_the_hub": (
        "refused",
        ("nodes", "hub", "routes", "h1"),
        'route from "hub" towards "h1" via link "l2_rev" loops back to "hub"',
    ),
    "no_path": (
        "refused",
        ("sources", "lone_p", "to"),
        'no path from node "lone" to node "p" (a sink)',
    ),
    "no_path_after_explicit_routes": (
        "refused",
        ("sources", "y_p", "to"),
        'no path from node "y" to node "p" (a sink)',
    ),
    "no_path_into_a_one_way_ring": (
        "refused",
        ("sources", "hub_p", "to"),
        'no path from node "hub" to node "p" (a sink)',
    ),
    "one_way": [
        ("p", [("s", "pq"), ("r", "pq")]),
        ("q", [("s", "qr"), ("r", "qr"), ("p", "qr")]),
        ("r", [("s", "rs"), ("p", "rs")]),
        ("s", [("r", "sp"), ("p", "sp")]),
        ("hub", [("z", "hx"), ("y", "hx"), ("x", "hx")]),
        ("x", [("z", "xy"), ("y", "xy"), ("hub", "hx_rev")]),
        ("y", [("z", "yz"), ("x", "yz")]),
        ("z", [("y", "zh"), ("x", "zh")]),
        ("lone", []),
    ],
    "star": [
        ("hub", [("h1", "l1_rev"), ("h2", "l2_rev"), ("h3", "l3_rev"), ("h0", "a0")]),
        ("h0", [("h1", "k0"), ("hub", "k0")]),
        ("h1", [("h2", "l1")]),
        ("h2", [("h3", "l2"), ("h0", "l2")]),
        ("h3", [("h0", "l3")]),
    ],
    "two_level": [
        ("core", [("b1", "c2_rev"), ("b2", "c2_rev"), ("a1", "c1_rev"), ("a2", "c1_rev")]),
        ("r1", [("a2", "a2_rev"), ("b1", "c1"), ("b2", "c1"), ("m", "m1_rev"), ("a1", "a1_rev")]),
        ("r2", [("b1", "b1_rev"), ("b2", "b2_rev"), ("a1", "c2"), ("a2", "c2"), ("m", "m2_rev")]),
        ("a1", [("a2", "a1"), ("b1", "a1"), ("b2", "a1"), ("m", "a1")]),
        ("a2", [("a1", "a2"), ("b1", "a2"), ("b2", "a2"), ("m", "a2")]),
        ("b1", [("a1", "b1"), ("a2", "b1"), ("b2", "b1"), ("m", "b1")]),
        ("b2", [("a1", "b2"), ("a2", "b2"), ("b1", "b2"), ("m", "b2")]),
        ("m", [("a1", "m1"), ("a2", "m1"), ("b1", "m2"), ("b2", "m2")]),
    ],
    "wide": [
        ("s", [("t", "sa")]),
        ("a", [("t", "ac"), ("s", "sa_rev"), ("d", "ac")]),
        ("b", [("d", "bd"), ("a", "bc")]),
        ("c", [("t", "ct"), ("s", "ac_rev"), ("d", "bc_rev"), ("a", "ac_rev")]),
        ("d", [("a", "bd_rev")]),
        ("t", [("s", "ct_rev")]),
    ],
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_routes_are_the_ones_recorded_before_routing_scaled(case):
    assert resolved(case) == EXPECTED[case]


def _star(n: int) -> Scenario:
    """n hosts on one hub; host i sends to a sink on host i+1 (the last to h0)."""
    link = {"to": "hub", "rate": "10 Mbps", "delay": "1 ms", "duplex": True}
    return Scenario.from_dict(
        {
            "run": {"duration": "10 ms"},
            "nodes": {"hub": {}} | {f"h{i}": {"type": "host"} for i in range(n)},
            "links": {f"l{i}": {"from": f"h{i}", **link} for i in range(n)},
            "sinks": {f"k{i}": {"node": f"h{(i + 1) % n}"} for i in range(n)},
            "sources": {
                f"s{i}": {"type": "cbr", "from": f"h{i}", "to": f"k{i}", "rate": "100 kbps"}
                for i in range(n)
            },
        }
    )


def _validate_measured(n: int) -> tuple[dict, int]:
    """The description of an n-host star and the peak bytes validation allocated."""
    scenario = _star(n)
    tracemalloc.start()
    try:
        desc = scenario.validate()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return desc, peak


def test_a_twenty_thousand_host_star_validates_in_memory_linear_in_hosts():
    # Before: a fewest-hop map of every node per destination, 20000^2
    # entries (over 8 GB; 4000 hosts took 470 MB).
    small_n, large_n = 5_000, 20_000
    _, small_peak = _validate_measured(small_n)
    desc, large_peak = _validate_measured(large_n)
    routes = {node["name"]: node["routes"] for node in desc["nodes"]}
    assert len(routes["hub"]) == large_n
    assert routes["hub"]["h7"] == "l7_rev"
    assert routes["h7"] == {"h8": "l7"}
    assert routes[f"h{large_n - 1}"] == {"h0": f"l{large_n - 1}"}
    assert len(desc["sources"]) == large_n
    # Four times the hosts: about four times the memory; a quadratic
    # algorithm would take about sixteen.
    assert large_peak / small_peak < 8, (small_peak, large_peak)
