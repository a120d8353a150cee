"""B2 side by side: satcc and ns-2.35 on the same machine, in one run.

    python benches/b2_vs_ns2.py [--repeats 3] [--shared ../shared]

Runs every B2 variant with ns-2 (Debian's `ns2` package running the shared
bench/ns2-b2.tcl) and with satcc (`satcc bench`'s own subprocess runner), the
two alternating so machine noise hits both alike, and prints the median
whole-process wall time of each, their ratio, goodput, drops and peak
memory, and satcc's events per data packet and nanoseconds per event (of
the run alone, start-up excluded). ns-3 is
not run here: its figures in the shared BENCHMARKS.md were measured on this
machine kind and are quoted beside ours.
"""

from __future__ import annotations

import argparse
import re
import shutil
import statistics
import subprocess
import time
from pathlib import Path

from satcc.bench import _measure_in_subprocess

VARIANTS = {
    # name: (N, rate as ns-2 writes it, simulated seconds)
    "B2a": (16, "10Mb", 1000),
    "B2b": (64, "10Mb", 1000),
    "B2c": (16, "155Mb", 200),
    "B2d": (256, "155Mb", 100),
}
NS3 = {"B2a": 14.1, "B2b": 25.4, "B2c": 50.8, "B2d": 84.4}


def run_ns2(script: Path, n: int, rate: str, seconds: int) -> dict:
    """One ns-2 run: its wall time, goodput, drops and peak memory.

    Peak memory is read from the child's own `VmHWM` while it runs (a
    high-water mark, so any read after the peak is exact); `ru_maxrss` of
    the child would carry this Python process's peak over the exec.
    """
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        ["ns", str(script), str(n), rate, "250ms", str(seconds)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    peak_kib = 0
    while proc.poll() is None:
        peak_kib = max(peak_kib, _vm_hwm_kib(proc.pid))
        time.sleep(0.005)
    wall = time.perf_counter() - t0
    out = proc.stdout.read()
    if proc.returncode != 0:
        raise SystemExit(f"ns-2 failed (exit {proc.returncode})")
    m = re.search(r"goodput_Mbps=([\d.]+) drops=(\d+)", out)
    return {
        "wall_s": wall,
        "goodput_mbps": float(m.group(1)),
        "drops": int(m.group(2)),
        "peak_rss_mb": peak_kib / 1024,
    }


def _vm_hwm_kib(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as f:
            return next((int(line.split()[1]) for line in f if line.startswith("VmHWM:")), 0)
    except OSError:  # it has just exited
        return 0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--shared", type=Path, default=Path(__file__).parents[2] / "shared")
    args = ap.parse_args()
    script = args.shared / "bench" / "ns2-b2.tcl"
    have_ns2 = shutil.which("ns") is not None and script.exists()
    if not have_ns2:
        print("ns-2 not found (apt-get install -y ns2): measuring satcc only")
    print(
        "| variant | satcc wall (s) | ns-2 wall (s) | ns-2 / satcc | ns-3 / satcc "
        "| satcc goodput | ns-2 goodput | satcc drops | ns-2 drops | satcc peak RSS "
        "| ns-2 peak RSS | satcc events per data packet | satcc ns per event |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name, (n, rate, seconds) in VARIANTS.items():
        ours, theirs = [], []
        for _ in range(args.repeats):
            ours.append(_measure_in_subprocess(name, float(seconds)))
            if have_ns2:
                theirs.append(run_ns2(script, n, rate, seconds))
        wall = statistics.median(r["process_wall_s"] for r in ours)
        last = ours[-1]
        row = [name, f"{wall:.2f}"]
        if theirs:
            ns2_wall = statistics.median(r["wall_s"] for r in theirs)
            row += [f"{ns2_wall:.2f}", f"{ns2_wall / wall:.1f}x"]
        else:
            row += ["-", "-"]
        row += [f"{NS3[name] / wall:.0f}x", f"{last['goodput_mbps']:.2f}"]
        row += [f"{theirs[-1]['goodput_mbps']:.2f}" if theirs else "-"]
        row += [f"{last['bottleneck_drops']}", f"{theirs[-1]['drops']}" if theirs else "-"]
        row += [f"{last['peak_rss_mb']:.0f} MB"]
        row += [f"{theirs[-1]['peak_rss_mb']:.0f} MB" if theirs else "-"]
        # Every data packet crosses the bottleneck once; its ACKs, the access
        # links and the wake-ups are the rest of the events.
        row += [f"{last['events'] / last['bottleneck_tx_packets']:.2f}"]
        run_wall = statistics.median(r["wall_s"] for r in ours)
        row += [f"{run_wall * 1e9 / last['events']:.0f}"]
        print("| " + " | ".join(row) + " |", flush=True)


if __name__ == "__main__":
    main()
