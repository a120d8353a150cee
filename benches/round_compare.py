"""Two builds of satcc side by side, alternating, in one run.

    python benches/round_compare.py --before OLD/python --after NEW/python \
        [--repeats 3] [--only B1,B2,B3,startup] [--json out.json]

Each of --before and --after is a directory holding a `satcc` package with
its compiled `_core` (a checkout's `python/` after `make dev`, or a copy of
it). Every measurement runs in its own process with that directory first on
PYTHONPATH, and the two builds alternate (which goes first alternates too),
so the machine's noise hits both alike. The scenarios are built once, here,
from satcc.bench, and handed to both builds as JSON: both run exactly the
same description.

Measured:
- B1 (30 simulated s): link transmissions/s, and the shared bare-loop probe
  run right after each B1 run; the ratio is taken run by run.
- B2a-d: the run alone (no process start-up: validation, the Rust run and
  the summary, as satcc.bench.measure times it) and the whole process, with
  ns-2.35 running the shared Tcl in the same loop.
- B3 (170 simulated s): simulated seconds per wall second.
- Python start-up: a process that imports satcc's scenario layer and core
  and exits, the floor under every whole-process figure.

Medians over the repeats are printed as a Markdown table; --json writes
every sample.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from satcc.bench import PROBE_SOURCES, SCENARIOS, find_probe, run_in_subprocess, run_probe

sys.path.insert(0, str(Path(__file__).resolve().parent))
from b2_vs_ns2 import VARIANTS, run_ns2  # noqa: E402

B2 = ("B2a", "B2b", "B2c", "B2d")


def _env(tree: str) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = tree
    return env


def run_bench(tree: str, name: str, seconds: float, scenario: dict) -> dict:
    """One benchmark in a fresh interpreter on `tree`: satcc.bench's figures
    plus the whole process's wall time."""
    return run_in_subprocess(name, seconds, scenario, env=_env(tree))


def startup(tree: str) -> float:
    """Wall time of a process that imports what every run imports."""
    t0 = time.perf_counter()
    subprocess.run(
        [sys.executable, "-c", "import satcc.scenario, satcc._core, satcc.bench"],
        env=_env(tree),
        check=True,
    )
    return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", required=True)
    parser.add_argument("--after", required=True)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--only", default="B1,B2,B3,startup")
    parser.add_argument("--shared", default=str(Path(__file__).resolve().parents[2] / "shared"))
    parser.add_argument("--json", dest="json_out")
    args = parser.parse_args()
    wanted = set(args.only.split(","))
    builds = {"before": args.before, "after": args.after}
    probe = find_probe(str(PROBE_SOURCES)) if "B1" in wanted else None
    tcl = Path(args.shared) / "bench" / "ns2-b2.tcl"
    samples: dict[str, list] = {}

    def record(key: str, value) -> None:
        samples.setdefault(key, []).append(value)

    for r in range(args.repeats):
        order = ["before", "after"] if r % 2 == 0 else ["after", "before"]
        if "startup" in wanted:
            for b in order:
                record(f"startup/{b}", startup(builds[b]))
        if "B1" in wanted:
            make, seconds = SCENARIOS["B1"]
            for b in order:
                row = run_bench(builds[b], "B1", seconds, make(seconds))
                p = run_probe(probe, seconds)
                row["probe_tx_per_s"] = p["probe_tx_per_s"]
                row["ratio"] = row["transmissions_per_s"] / p["probe_tx_per_s"]
                record(f"B1/{b}", row)
        if "B2" in wanted:
            for name in B2:
                make, seconds = SCENARIOS[name]
                n, rate, ns2_seconds = VARIANTS[name]
                record(f"{name}/ns2", run_ns2(tcl, n, rate, ns2_seconds))
                for b in order:
                    record(f"{name}/{b}", run_bench(builds[b], name, seconds, make(seconds)))
        if "B3" in wanted:
            make, seconds = SCENARIOS["B3"]
            for b in order:
                record(f"B3/{b}", run_bench(builds[b], "B3", seconds, make(seconds)))
        print(f"repeat {r + 1} of {args.repeats} done", file=sys.stderr)

    if args.json_out:
        Path(args.json_out).write_text(json.dumps(samples, indent=1))
    print_table(samples)


def _med(rows: list, key: str) -> float:
    return statistics.median(row[key] for row in rows)


def print_table(s: dict[str, list]) -> None:
    print("| measure | before | after | after / before |")
    print("|---|---:|---:|---:|")

    def line(label: str, before: float, after: float, unit: str = "") -> None:
        print(f"| {label} | {before:.4g}{unit} | {after:.4g}{unit} | {after / before:.3f} |")

    if "startup/before" in s:
        line(
            "Python start-up (s)",
            statistics.median(s["startup/before"]),
            statistics.median(s["startup/after"]),
        )
    if "B1/before" in s:
        b, a = s["B1/before"], s["B1/after"]
        line(
            "B1 link transmissions/s (M)",
            _med(b, "transmissions_per_s") / 1e6,
            _med(a, "transmissions_per_s") / 1e6,
        )
        line(
            "B1 probe beside it (M tx/s)",
            _med(b, "probe_tx_per_s") / 1e6,
            _med(a, "probe_tx_per_s") / 1e6,
        )
        line("B1 satcc / probe, run by run (median)", _med(b, "ratio"), _med(a, "ratio"))
        each_b = ", ".join(f"{x['ratio']:.2f}" for x in b)
        each_a = ", ".join(f"{x['ratio']:.2f}" for x in a)
        print(f"| B1 ratios, each run | {each_b} | {each_a} | |")
    for name in B2:
        if f"{name}/before" not in s:
            continue
        b, a = s[f"{name}/before"], s[f"{name}/after"]
        ns2 = statistics.median(x["wall_s"] for x in s[f"{name}/ns2"])
        line(f"{name} run alone (s)", _med(b, "wall_s"), _med(a, "wall_s"))
        line(f"{name} whole process (s)", _med(b, "process_wall_s"), _med(a, "process_wall_s"))
        print(f"| {name} ns-2.35 whole process (s) | {ns2:.3g} | | |")
        print(
            f"| {name} ns-2 whole / satcc run alone | {ns2 / _med(b, 'wall_s'):.2f}x "
            f"| {ns2 / _med(a, 'wall_s'):.2f}x | |"
        )
        print(
            f"| {name} ns-2 whole / satcc whole | {ns2 / _med(b, 'process_wall_s'):.2f}x "
            f"| {ns2 / _med(a, 'process_wall_s'):.2f}x | |"
        )
    if "B3/before" in s:
        b, a = s["B3/before"], s["B3/after"]
        line("B3 simulated s / wall s", _med(b, "sim_s_per_wall_s"), _med(a, "sim_s_per_wall_s"))
        line("B3 run alone (s)", _med(b, "wall_s"), _med(a, "wall_s"))
        line("B3 peak RSS (MB)", _med(b, "peak_rss_mb"), _med(a, "peak_rss_mb"))


if __name__ == "__main__":
    main()
