"""How well `satcc emulate` keeps the model's time: the release-time error.

    python benches/emulator_timing.py [--rates "2 Mbps,10 Mbps,50 Mbps"] [--seconds 20]
                                      [--spin-us 0,20] [--repeats 3]

For each rate and spin setting, one iperf3 TCP (CUBIC) transfer runs for
`--seconds` through an emulated path of that rate (25 ms each way, a
drop-tail buffer of 100 packets), and the emulator reports how late it wrote
each packet compared with the instant the model delivered it: median, 99th
percentile and maximum over every packet: the median over the runs of
each run's median, every run's p99, and the largest maximum. Also printed: the
goodput iperf3 measured against what the link leaves for data, and the
CPU time of the whole process tree per second of run (the spin costs CPU).
Needs root, /dev/net/tun and iperf3. Figures go to BENCHMARKS.md with the
machine and the date.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics

from satcc.emulate import emulate


def path(rate: str) -> dict:
    return {
        "run": {"name": "emulator_timing", "duration": "600 s"},
        "nodes": {"a": {"type": "host"}, "b": {"type": "host"}},
        "links": {
            "ab": {
                "from": "a",
                "to": "b",
                "rate": rate,
                "delay": "25 ms",
                "duplex": True,
                "queue": {"type": "droptail", "limit": "100 packets"},
            }
        },
        "emulate": {
            "client": {"node": "a"},
            "server": {"node": "b", "background": True, "command": "iperf3 -s -1"},
        },
    }


def rate_bps(rate: str) -> float:
    value, unit = rate.split()
    return float(value) * {"kbps": 1e3, "Mbps": 1e6, "Gbps": 1e9}[unit]


def cpu_seconds() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def one(rate: str, seconds: float, spin_us: float) -> dict:
    cpu0 = cpu_seconds()
    r = emulate(
        path(rate),
        commands={"client": f"sleep 0.5 && iperf3 -c 10.77.0.2 -t {seconds:g} -C cubic -J"},
        spin_us=spin_us,
    )
    cpu = cpu_seconds() - cpu0
    s = r.summary
    report = json.loads(r.output("client"))
    goodput = report["end"]["sum_received"]["bits_per_second"]
    return {
        "median_us": s["emulator.release_error_median_us"],
        "p99_us": s["emulator.release_error_p99_us"],
        "max_us": s["emulator.release_error_max_us"],
        "packets": s["emulator.release_error_packets"],
        "goodput_share": goodput / (rate_bps(rate) * 1448 / 1500),
        "cpu_per_s": cpu / r.info["wall_s"],
        "unaccounted": s["run.pdus_unaccounted"],
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rates", default="2 Mbps,10 Mbps,50 Mbps")
    ap.add_argument("--seconds", type=float, default=20)
    ap.add_argument("--spin-us", default="0,20")
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    print(
        f"{'rate':>9} {'spin':>5} {'median µs':>10} {'p99 µs (runs)':>24} {'max µs':>8} "
        f"{'packets':>8} {'goodput':>8} {'cpu/s':>6}"
    )
    for rate in args.rates.split(","):
        for spin in (float(x) for x in args.spin_us.split(",")):
            runs = [one(rate.strip(), args.seconds, spin) for _ in range(args.repeats)]
            assert all(r["unaccounted"] == 0 for r in runs)
            med = {key: statistics.median(r[key] for r in runs) for key in runs[0]}
            p99s = " / ".join(f"{r['p99_us']:.0f}" for r in runs)
            print(
                f"{rate.strip():>9} {spin:>5g} {med['median_us']:>10.1f} "
                f"{p99s:>24} "
                f"{max(r['max_us'] for r in runs):>8.0f} {med['packets']:>8.0f} "
                f"{med['goodput_share']:>8.3f} {med['cpu_per_s']:>6.2f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
