"""Static routing: every path the traffic needs, as per-node next hops.

Sections ask for paths (a source to its sink's node, both directions of a
TCP connection or a UDP exchange); the router follows each one hop by hop
and records the next hop each node uses. A path that cannot be completed is
refused at the key to blame: the explicit route that misled it, or the
requester's own key when no explicit route was taken.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from typing import NamedTuple

from .errors import quote


class PathRequest(NamedTuple):
    start: str
    dest: str
    # The key refused when no path exists and no explicit route is to blame.
    blame: tuple
    # Ends the no-path message, e.g. 'sink "rx"' or 'ACKs of tcp "t"'.
    purpose: str
    # The size of the (largest regular) PDUs on the path, and their queue
    # priority: a queue whose byte limit is below it would drop them all.
    pdu_bytes: int = 0
    priority: int = 0


def both_ways(
    section: str, name: str, entry, forward: str, back: str, sizes: tuple[int, int] = (0, 0)
) -> list[PathRequest]:
    """The two paths of an exchange between its `from` and `to` nodes:
    `forward` says what goes from -> to (data, requests), `back` what returns;
    `sizes` are the PDUs each way."""
    priority = getattr(entry, "priority", 0)
    return [
        PathRequest(entry.from_, entry.to, (section, name, "to"), forward, sizes[0], priority),
        PathRequest(entry.to, entry.from_, (section, name, "from"), back, sizes[1], priority),
    ]


def walk(routes: dict[str, dict[str, str]], ends: dict[str, tuple[str, str]], request):
    """The links a routed path takes, in order."""
    node = request.start
    while node != request.dest:
        link = routes[node][request.dest]
        yield link
        node = ends[link][1]


class RouteError(Exception):
    def __init__(self, path: tuple, reason: str):
        super().__init__(path, reason)
        self.path = path
        self.reason = reason


class Router:
    """Destination-based static routing, as a node's routing table would do it.

    A node's next hop towards D is its explicit route if it has one, else the
    first link (in name order) that leaves it on a fewest-hop path to D. Using
    one next hop per (node, destination) keeps all sources towards D consistent.
    """

    def __init__(self, explicit: dict[str, dict[str, str]], ends: dict[str, tuple[str, str]]):
        """`explicit`: each node's routes (destination -> link); `ends`: link -> (from, to)."""
        self.explicit = explicit
        self.leaving: dict[str, list[tuple[str, str]]] = {node: [] for node in explicit}
        self.arriving: dict[str, list[str]] = {node: [] for node in explicit}
        # The first link (in name order) from a node to each node it links to.
        self.first_link: dict[str, dict[str, str]] = {node: {} for node in explicit}
        for link, (src, dst) in sorted(ends.items()):
            self.leaving[src].append((link, dst))
            self.arriving[dst].append(src)
            self.first_link[src].setdefault(dst, link)
        self.ends = ends
        self.entry = _single_entries(self.arriving)
        # Hop counts, only towards the nodes where ways in start: the hosts
        # of a star all share the hub's, one map of N rather than N of N.
        self.distances: dict[str, dict[str, int]] = {}
        # Per destination: a path asks at every hop.
        self.ways_in: dict[str, tuple[dict[str, str], str]] = {}
        self.used: dict[str, dict[str, str]] = {node: {} for node in explicit}

    def distance_to(self, dest: str) -> dict[str, int]:
        """Hop count from every node that can reach dest (BFS over reversed links)."""
        if dest not in self.distances:
            distance, queue = {dest: 0}, deque([dest])
            while queue:
                node = queue.popleft()
                for previous in self.arriving[node]:
                    if previous not in distance:
                        distance[previous] = distance[node] + 1
                        queue.append(previous)
            self.distances[dest] = distance
        return self.distances[dest]

    def way_in(self, dest: str) -> tuple[dict[str, str], str]:
        """The only way into dest, cm -> ... -> c1 -> c0 = dest, where each ci
        is the only node linking into c(i-1): as ci -> c(i-1), and cm (dest
        itself when several nodes link into it).

        Every path from outside the way ends with all of it, so its fewest
        hops are those to cm plus m, through the same next hops as towards
        cm; from ci, c(i-1) is the only node one hop closer to dest."""
        if dest not in self.ways_in:
            towards, node = {}, dest
            # It stops where it would close on itself: a one-way ring, which
            # nothing outside gets into.
            while (entry := self.entry.get(node)) not in (None, dest) and entry not in towards:
                towards[entry] = node
                node = entry
            self.ways_in[dest] = (towards, node)
        return self.ways_in[dest]

    def fewest_hops(self, node: str, dest: str) -> str | None:
        towards, start = self.way_in(dest)
        if node in towards:
            return self.first_link[node][towards[node]]
        distance = self.distance_to(start)
        if node not in distance:
            return None
        for link, next_node in self.leaving[node]:
            if distance.get(next_node) == distance[node] - 1:
                return link
        return None

    def route(self, request: PathRequest) -> None:
        """Follow start -> dest, recording every next hop taken."""
        start, dest = request.start, request.dest
        hops: list[tuple[str, str, bool]] = []  # (node, link, explicit)
        visited: dict[str, int] = {}
        node = start
        while node != dest:
            visited[node] = len(hops)
            explicit = self.explicit[node].get(dest)
            link = explicit or self.fewest_hops(node, dest)
            if link is None:
                self.dead_end(hops, request, node)
            hops.append((node, link, explicit is not None))
            node = self.ends[link][1]
            if node in visited:
                self.loop(hops[visited[node] :], dest)
        for hop_node, link, _ in hops:
            self.used[hop_node][dest] = link

    def dead_end(self, hops: list[tuple[str, str, bool]], request: PathRequest, node: str) -> None:
        taken = [hop for hop in hops if hop[2]]
        if not taken:
            raise RouteError(
                request.blame,
                f"no path from node {quote(request.start)} to node {quote(request.dest)} "
                f"({request.purpose})",
            )
        culprit, link, _ = taken[-1]
        raise RouteError(
            ("nodes", culprit, "routes", request.dest),
            f"route from {quote(culprit)} towards {quote(request.dest)} via link {quote(link)} "
            f"leads to {quote(node)}, which has no path onward",
        )

    def loop(self, cycle: list[tuple[str, str, bool]], dest: str) -> None:
        # Fewest-hop next hops alone never loop, so the cycle has an explicit hop.
        culprit, link, _ = next(hop for hop in cycle if hop[2])
        raise RouteError(
            ("nodes", culprit, "routes", dest),
            f"route from {quote(culprit)} towards {quote(dest)} via link {quote(link)} "
            f"loops back to {quote(culprit)}",
        )


def _single_entries(arriving: dict[str, list[str]]) -> dict[str, str]:
    """node -> the one other node with links into it, for the nodes that have
    only one (a host on its access link). A link from a node to itself is no
    way in: no fewest-hop path takes it."""
    entries = {}
    for node, previous in arriving.items():
        others = set(previous) - {node}
        if len(others) == 1:
            entries[node] = others.pop()
    return entries


def resolve_routes(
    explicit: dict[str, dict[str, str]],
    ends: dict[str, tuple[str, str]],
    requests: Iterable[PathRequest],
) -> dict[str, dict[str, str]]:
    """Each node's next hop per destination, for the destinations some path needs."""
    router = Router(explicit, ends)
    for request in requests:
        router.route(request)
    return router.used
