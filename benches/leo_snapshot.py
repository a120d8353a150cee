"""One LEO routing snapshot: Starlink S1 (1584 satellites, +Grid) with
Hypatia's 100 cities as ground stations, each part timed.

A snapshot is what every 100 ms step of a path series computes: SGP4
positions of the shell at that instant, the ground-satellite link lengths
and Hypatia's range rule, the graph, and Dijkstra from all 100 stations
to every station (9900 pair delays). The SGP4 records are built once,
outside the timing, as a series builds them once. Prints the median and
the 90th percentile over the snapshots, in milliseconds.

    PYTHONPATH=python python benches/leo_snapshot.py [--snapshots 200]
"""

from __future__ import annotations

import argparse
import platform
import time

import numpy as np
from satcc.leo import ground, isls, paths, propagate, routing, shells
from sgp4.api import SatrecArray


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--snapshots", type=int, default=200)
    parser.add_argument("--shell", default="starlink-s1")
    args = parser.parse_args()

    shell = shells.preset(args.shell)
    sats = SatrecArray(shells.satrecs(shell))
    links = isls.plus_grid(shell)
    stations = list(ground.CITIES.values())
    gs_pos = ground.positions(stations)
    sources = list(range(len(stations)))
    phases: dict[str, list[float]] = {
        k: [] for k in ("positions", "gsl", "graph", "dijkstra", "total")
    }
    reachable_pairs = []
    for k in range(args.snapshots):
        t = np.array([k * 0.1])
        t0 = time.perf_counter()
        sat_pos = propagate.positions(sats, t)[:, 0]
        t1 = time.perf_counter()
        d = routing.gsl_lengths(sat_pos, gs_pos)
        gsl = np.where(paths.reachable(shell, stations, sat_pos, d, "range"), d, np.inf)
        t2 = time.perf_counter()
        snap = routing.snapshot(sat_pos, links, gsl)
        t3 = time.perf_counter()
        delays = routing.delays(snap, sources)
        t4 = time.perf_counter()
        for name, v in zip(phases, (t1 - t0, t2 - t1, t3 - t2, t4 - t3, t4 - t0), strict=True):
            v_ms = v * 1e3
            phases[name].append(v_ms)
        reachable_pairs.append(int(np.isfinite(delays).sum()))

    print(
        f"{shell.name}: {shell.size} satellites, {len(links)} ISLs, {len(stations)} stations, "
        f"{args.snapshots} snapshots; Python {platform.python_version()}, {platform.machine()}"
    )
    print(f"reachable station pairs per snapshot: median {int(np.median(reachable_pairs))} of 9900")
    print("| phase | median ms | p90 ms |")
    print("|---|---:|---:|")
    for name, v in phases.items():
        print(f"| {name} | {np.median(v):.2f} | {np.percentile(v, 90):.2f} |")


if __name__ == "__main__":
    main()
