"""Scaling of a CPU-bound sweep over executors and worker counts.

16 runs of examples/mm1.toml (seeds 1..16), each lasting about a second of
wall-clock time, run with LocalExecutor(jobs=1), LocalExecutor(jobs=2), then
DaskExecutor with a LocalCluster of 1 and 2 workers. Prints a Markdown table
of wall times, runs/s and speed-up against the one-process local run. The
Dask times exclude starting the cluster (reported separately) and include a
warm-up run per worker so every worker process has imported satcc.

    .venv/bin/python benches/scaling.py [--runs 16] [--duration "9000 s"]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import time
from pathlib import Path

from satcc.dask_executor import DaskExecutor
from satcc.executors import LocalExecutor, Task
from satcc.scenario import load, normalised_json

MM1 = Path(__file__).resolve().parents[1] / "examples" / "mm1.toml"


def make_tasks(duration: str, seeds) -> list[Task]:
    scenario = load(MM1).set("run.duration", duration)
    tasks = []
    for seed in seeds:
        text = normalised_json(scenario.validate(seed=seed))
        tasks.append(Task(hashlib.sha256(text.encode()).hexdigest(), text))
    return tasks


def timed(executor, tasks: list[Task], repeat: int = 1) -> float:
    """Best wall time of `repeat` sweeps (the machine may be shared)."""
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        outcomes = list(executor.run(tasks))
        best = min(best, time.perf_counter() - t0)
        failed = [o for o in outcomes if not o.ok]
        if len(outcomes) != len(tasks) or failed:
            raise SystemExit(f"{len(failed)} failed runs: {failed[:1]}")
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=16)
    parser.add_argument("--duration", default="9000 s", help="simulated time per run")
    parser.add_argument("--repeat", type=int, default=1, help="keep the best of N sweeps")
    args = parser.parse_args()

    tasks = make_tasks(args.duration, range(1, args.runs + 1))
    # Distinct seeds for the warm-up so no result is reused.
    warmup = make_tasks("10 s", range(1001, 1003))
    rows: list[tuple[str, int, float, str]] = []

    for jobs in (1, 2):
        ex = LocalExecutor(jobs=jobs)
        try:
            timed(ex, warmup[:jobs])
            rows.append(("local", jobs, timed(ex, tasks, args.repeat), ""))
        finally:
            ex.close()

    for workers in (1, 2):
        t0 = time.perf_counter()
        ex = DaskExecutor(n_workers=workers)
        start = time.perf_counter() - t0
        try:
            timed(ex, warmup[:workers])
            rows.append(
                (
                    "dask LocalCluster",
                    workers,
                    timed(ex, tasks, args.repeat),
                    f"start {start:.2f} s",
                )
            )
        finally:
            ex.close()

    base = rows[0][2]
    load1, _, _ = os.getloadavg()
    print(
        f"\n{args.runs} runs of mm1.toml, run.duration = {args.duration}, "
        f"best of {args.repeat}, {os.cpu_count()} CPUs, load average {load1:.2f} at the end\n"
    )
    print("| executor | workers | wall (s) | runs/s | speed-up | note |")
    print("|---|---:|---:|---:|---:|---|")
    for name, n, wall, note in rows:
        print(
            f"| {name} | {n} | {wall:.2f} | {args.runs / wall:.2f} | {base / wall:.2f}x | {note} |"
        )


if __name__ == "__main__":
    main()
