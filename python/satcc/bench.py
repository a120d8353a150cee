"""`satcc bench`: the canonical performance scenarios, measured.

B1 (BENCHMARKS.md): a cell storm over a GEO hop — 16 CBR sources of 53-byte
ATM cells at 8.892 Mb/s on 149.76 Mb/s links through three switches, the
middle hop 275 ms long (about 92 000 cells in flight). B1-deep is the same
network with a 600 ms hop, so about 200 000 cells are in flight: it checks
that memory stays flat in simulated time when the delay lines are deep.

Each scenario runs in a fresh process so its peak memory is its own. Figures
reported: link transmissions per wall second (a cell crossing one link is one
transmission), events per second, simulated seconds per wall second, peak
resident memory, and resident memory at two simulated instants (flatness).
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time

OC3 = "149.76 Mbps"


def b1_scenario(duration_s: float = 30.0, geo_delay: str = "275 ms") -> dict:
    """The B1 network as a scenario dict (examples/b1_cell_storm.toml is the same)."""
    queue = {"type": "droptail", "limit": "100000 packets"}
    nodes: dict = {name: {} for name in ("S1", "S2", "S3", "sink")}
    links: dict = {}
    sources: dict = {}
    for i in range(16):
        host = f"h{i:02}"
        nodes[host] = {"type": "host"}
        links[f"access{i:02}"] = {
            "from": host,
            "to": "S1",
            "rate": OC3,
            "delay": "5 us",
            "queue": queue,
        }
        sources[f"cbr{i:02}"] = {
            "type": "cbr",
            "from": host,
            "to": "rx",
            "rate": "8.892 Mbps",
            "packet_size": "53 B",
        }
    for name, a, b, delay in (
        ("s1_s2", "S1", "S2", "5 ms"),
        ("geo", "S2", "S3", geo_delay),
        ("s3_sink", "S3", "sink", "5 us"),
    ):
        links[name] = {"from": a, "to": b, "rate": OC3, "delay": delay, "queue": queue}
    return {
        "run": {
            "name": "b1_cell_storm",
            "duration": f"{duration_s:g} s",
            "seed": 1,
            "sample_interval": "1 s",
        },
        "nodes": nodes,
        "links": links,
        "sources": sources,
        "sinks": {"rx": {"node": "sink"}},
        "probes": {"geo_queue": {"link": "s1_s2", "metric": "queue_packets"}},
    }


SCENARIOS = {
    "B1": lambda seconds: b1_scenario(seconds),
    "B1-deep": lambda seconds: b1_scenario(seconds, geo_delay="600 ms"),
}


def _rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        resident_pages = int(f.read().split()[1])
    return resident_pages * os.sysconf("SC_PAGE_SIZE")


def measure(name: str, seconds: float) -> dict:
    """Runs one benchmark scenario in this process and returns its figures."""
    from . import _core
    from .scenario import Scenario, normalised_json

    desc = Scenario.from_dict(SCENARIOS[name](seconds)).validate()
    sim = _core.Simulation(normalised_json(desc))
    # Resident memory at one third and at the end of the run: equal when
    # memory is flat in simulated time.
    checkpoint_ps = sim.end_ps // 3
    rss_early = None
    t0 = time.perf_counter()
    while not sim.advance(1_000_000):
        if rss_early is None and sim.now_ps >= checkpoint_ps:
            rss_early = _rss_bytes()
    wall = time.perf_counter() - t0
    rss_end = _rss_bytes()
    summary = json.loads(sim.summary_json())
    tx = sum(v for k, v in summary.items() if k.startswith("links.") and k.endswith(".tx_packets"))
    drops = sum(v for k, v in summary.items() if k.startswith("links.") and k.endswith(".drops"))
    in_flight = sum(
        v for k, v in summary.items() if k.startswith("flows.") and k.endswith(".in_flight_packets")
    )
    return {
        "scenario": name,
        "simulated_s": seconds,
        "wall_s": wall,
        "events": sim.events,
        "transmissions": tx,
        "transmissions_per_s": tx / wall,
        "events_per_s": sim.events / wall,
        "sim_s_per_wall_s": seconds / wall,
        "drops": drops,
        "cells_in_flight_at_end": in_flight,
        "rss_at_third_mb": (rss_early or rss_end) / 2**20,
        "rss_at_end_mb": rss_end / 2**20,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def _measure_in_subprocess(name: str, seconds: float) -> dict:
    out = subprocess.run(
        [sys.executable, "-m", "satcc.bench", name, str(seconds)],
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(out.stdout)


def main(quick: bool = False, as_json: bool = False) -> int:
    seconds = 3.0 if quick else 30.0
    rows = [_measure_in_subprocess(name, seconds) for name in SCENARIOS]
    if as_json:
        print(json.dumps(rows, indent=2))
        return 0
    _print(rows, quick)
    return 0


def _print(rows: list[dict], quick: bool) -> None:
    from rich.console import Console
    from rich.table import Table

    from . import _core

    table = Table(title=f"satcc {_core.version()} benchmarks" + (" (quick)" if quick else ""))
    for col in (
        "scenario",
        "sim s",
        "wall s",
        "transmissions/s",
        "events/s",
        "sim s / wall s",
        "cells in flight",
        "drops",
        "RSS at 1/3 → end",
        "peak RSS",
    ):
        table.add_column(col, justify="left" if col == "scenario" else "right")
    for r in rows:
        table.add_row(
            r["scenario"],
            f"{r['simulated_s']:g}",
            f"{r['wall_s']:.2f}",
            f"{r['transmissions_per_s'] / 1e6:.2f} M",
            f"{r['events_per_s'] / 1e6:.2f} M",
            f"{r['sim_s_per_wall_s']:.2f}",
            f"{r['cells_in_flight_at_end']:,}",
            f"{r['drops']:,}",
            f"{r['rss_at_third_mb']:.0f} → {r['rss_at_end_mb']:.0f} MB",
            f"{r['peak_rss_mb']:.0f} MB",
        )
    # A pipe gets the full table rather than one folded to 80 columns.
    console = Console() if sys.stdout.isatty() else Console(width=140)
    console.print(table)
    print(
        "Target (B1, one core, release build): >= 10 M link transmissions/s, "
        "memory flat in simulated time."
    )


if __name__ == "__main__":
    print(json.dumps(measure(sys.argv[1], float(sys.argv[2]))))
