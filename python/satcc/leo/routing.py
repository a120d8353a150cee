"""One routing snapshot, as Hypatia computes it every interval (Kassing et
al., IMC 2020; satgenpy's algorithm_free_one_only_over_isls):
a graph of inter-satellite and ground-satellite links weighted by their
length, shortest paths between ground stations by Dijkstra, and ground
stations that never relay: a ground-satellite link is only a path's first
or last hop.

Nodes are numbered as in Hypatia: satellites 0..N-1, then station g is
N+g. Delays are propagation at c in vacuum; no queueing or processing."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import dijkstra

C_M_PER_S = 299_792_458.0


@dataclass(frozen=True)
class Snapshot:
    """The graph at one instant. `gsl_m` is (stations, satellites), the
    link length or inf where the station cannot reach the satellite."""

    n_sats: int
    graph: csr_matrix
    gsl_m: np.ndarray


@dataclass(frozen=True)
class Route:
    """A path between two stations: its one-way delay and Hypatia's node
    ids from source station to destination station (empty when none)."""

    delay_s: float
    hops: tuple[int, ...]

    @property
    def reachable(self) -> bool:
        return bool(self.hops)


def gsl_lengths(
    sat_pos: np.ndarray, gs_pos: np.ndarray, reachable: np.ndarray | None = None
) -> np.ndarray:
    """(stations, satellites) distances, inf where `reachable` is False.
    |g - s|^2 = |g|^2 + |s|^2 - 2 g.s: one matrix product, no (G, N, 3)
    temporary; rounding costs micrometres at these sizes."""
    sq = (gs_pos**2).sum(1)[:, None] + (sat_pos**2).sum(1)[None, :] - 2 * gs_pos @ sat_pos.T
    d = np.sqrt(np.maximum(sq, 0.0))
    return d if reachable is None else np.where(reachable, d, np.inf)


def snapshot(sat_pos: np.ndarray, isls: np.ndarray, gsl_m: np.ndarray) -> Snapshot:
    """The graph: ISLs both ways; each station twice, as a source with
    links out to its satellites (node N+g) and as a sink with links in
    from them (node N+G+g), neither with links the other way, so no
    shortest path can pass through a station."""
    n, g = len(sat_pos), len(gsl_m)
    a, b = isls[:, 0], isls[:, 1]
    isl_m = np.linalg.norm(sat_pos[a] - sat_pos[b], axis=-1)
    gs, sat = np.nonzero(np.isfinite(gsl_m))
    rows = np.concatenate((a, b, n + gs, sat))
    cols = np.concatenate((b, a, sat, n + g + gs))
    up = gsl_m[gs, sat]
    data = np.concatenate((isl_m, isl_m, up, up))
    size = n + 2 * g
    return Snapshot(n, csr_matrix((data, (rows, cols)), shape=(size, size)), gsl_m)


def routes(snap: Snapshot, pairs: list[tuple[int, int]]) -> list[Route]:
    """Shortest routes for (source station, destination station) pairs,
    with one Dijkstra per distinct source."""
    n, g = snap.n_sats, len(snap.gsl_m)
    sources = sorted({s for s, _ in pairs})
    dist, pred = dijkstra(
        snap.graph, directed=True, indices=[n + s for s in sources], return_predecessors=True
    )
    row = {s: i for i, s in enumerate(sources)}
    out = []
    for s, d in pairs:
        i = row[s]
        total = dist[i, n + g + d]
        if s == d or not np.isfinite(total):
            out.append(Route(float("inf"), ()))
            continue
        hops = [n + g + d]
        while hops[-1] != n + s:
            hops.append(int(pred[i, hops[-1]]))
        hops[0] = n + d  # Hypatia's id for the destination station
        out.append(Route(float(total) / C_M_PER_S, tuple(reversed(hops))))
    return out


def delays(snap: Snapshot, sources: list[int]) -> np.ndarray:
    """One-way delays (sources, stations) in seconds, inf when
    unreachable: the all-destinations form of `routes`, without hops."""
    n, g = snap.n_sats, len(snap.gsl_m)
    dist = dijkstra(snap.graph, directed=True, indices=[n + s for s in sources])
    out = dist[:, n + g :] / C_M_PER_S
    out[np.arange(len(sources)), sources] = np.inf
    return out
