"""What a sweep or a study costs beyond its runs, per run.

Runs whole commands, as a user would, each in its own process:

- sweep: `satcc sweep examples/mm1.toml --set 'run.duration="1 s"'
  --seeds 1..N -j JOBS` into a fresh campaign (default N = 10 000);
- study: `satcc reproduce STUDY -j JOBS --quiet --allow-fail` into a fresh
  output folder (with --study; --quick for its quick mode).

Overhead per run = (wall − Σ run wall / JOBS) / runs: the command's whole
wall time (start-up, validation, hand-off, storing, compaction, the study's
tables) less the time the workers spent inside the runs (each run's wall_s
as its worker measured it, read back from the campaign), spread over the
runs. "CPU" is the user + system time of the command's own process (the
parent: planning, hand-off, storing, compaction, the study's tables), less
sensitive than wall time to what else loads the machine; the workers are
not in it (they are children of multiprocessing's forkserver, which the
command does not wait for). With `--tree DIR` given several times, each DIR is a copy of the
package (`python/` of a checkout, its `_core.abi3.so` beside it) and the
trees take turns, `--repeat` rounds, so a before and an after share the
machine's load. Prints a Markdown table (medians) and every measurement.

    python benches/sweep_overhead.py --tree /tmp/before/python --tree python --repeat 3
    python benches/sweep_overhead.py --tree python --study tfrc-dama
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MM1 = ROOT / "examples" / "mm1.toml"
CLI = "from satcc.cli import main; main()"


def sweep_cmd(folder: Path, runs: int, jobs: int) -> list[str]:
    return [
        *("sweep", str(MM1), "--set", 'run.duration="1 s"', "--seeds", f"1..{runs}"),
        *("--campaign", str(folder / "c"), "--jobs", str(jobs), "--quiet"),
    ]


def study_cmd(folder: Path, study: str, jobs: int, quick: bool) -> list[str]:
    quick_flag = ["--quick"] if quick else []
    return ["reproduce", study, *quick_flag, "-j", str(jobs), "--out", str(folder), "--quiet"]


def run_walls(tree: Path, folder: Path) -> list[float]:
    """wall_s of every run the campaign under `folder` holds, read with `tree`."""
    code = (
        "import sys; from satcc.store import Campaign\n"
        "for c in sorted(__import__('pathlib').Path(sys.argv[1]).rglob('campaign.json')):\n"
        "    for w in Campaign.open(c.parent).runs()['wall_s']: print(repr(float(w)))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(folder)],
        env=env_for(tree),
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return [float(line) for line in out.split()]


def env_for(tree: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(tree)}


def measure(tree: Path, args: argparse.Namespace) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="satcc-overhead-") as tmp:
        folder = Path(tmp)
        if args.study:
            cmd = study_cmd(folder / "out", args.study, args.jobs, args.quick)
        else:
            cmd = sweep_cmd(folder, args.runs, args.jobs)
        cpu0 = _children_cpu()
        t0 = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-c", CLI, *cmd], env=env_for(tree), capture_output=True, text=True
        )
        wall = time.perf_counter() - t0
        cpu = _children_cpu() - cpu0
        if done.returncode not in (0, 1) or (not args.study and done.returncode):
            raise SystemExit(f"{' '.join(cmd)} failed ({done.returncode}):\n{done.stderr}")
        walls = run_walls(tree, folder)
    runs = len(walls)
    busy = sum(walls) / args.jobs
    return {
        "runs": runs,
        "wall_s": wall,
        "run_s": sum(walls),
        "overhead_ms": 1e3 * (wall - busy) / runs,
        "cpu_s": cpu,
    }


def _children_cpu() -> float:
    """User + system CPU time of the ended child processes (and of those
    they waited for: not the workers, see the module's docstring)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", action="append", type=Path, help="package folder (repeatable)")
    parser.add_argument("--runs", type=int, default=10_000, help="sweep runs (seeds)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--study", help="a study to reproduce instead of the sweep")
    parser.add_argument("--quick", action="store_true", help="the study's quick mode")
    parser.add_argument("--repeat", type=int, default=1, help="rounds, the trees alternating")
    args = parser.parse_args()
    trees = [t.resolve() for t in (args.tree or [ROOT / "python"])]

    results: dict[Path, list[dict[str, float]]] = {t: [] for t in trees}
    for round_ in range(args.repeat):
        for tree in trees if round_ % 2 == 0 else trees[::-1]:
            m = measure(tree, args)
            results[tree].append(m)
            print(
                f"{tree}: {m['runs']} runs, wall {m['wall_s']:.2f} s, "
                f"runs {m['run_s']:.2f} s, overhead {m['overhead_ms']:.3f} ms/run, "
                f"parent CPU {m['cpu_s']:.2f} s",
                flush=True,
            )
    what = f"{args.study}{' --quick' if args.quick else ''}" if args.study else "sweep"
    print(
        "\n| tree | case | runs | wall (s) | Σ run wall (s) | overhead per run (ms) "
        "| parent CPU (s) |"
    )
    print("|---|---|---:|---:|---:|---:|---:|")
    for tree, ms in results.items():
        med = {k: statistics.median(m[k] for m in ms) for k in ms[0]}
        print(
            f"| {tree} | {what} | {int(med['runs'])} | {med['wall_s']:.2f} | "
            f"{med['run_s']:.2f} | {med['overhead_ms']:.3f} | {med['cpu_s']:.1f} |"
        )


if __name__ == "__main__":
    main()
