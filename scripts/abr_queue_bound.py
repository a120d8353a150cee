"""What bounds the maximum ABR queue of abr-lrd-vbr on the short-feedback satellite path.

Runs the study's "N Source + VBR" configuration (python/satcc/studies/
abr_lrd_vbr.py) on `sat-short` (feedback delay 10 ms, RTT 550 ms) with the
study's settings or one variant of ERICA+'s queue control or the ABR source
parameters, and prints the tables of docs/abr-lrd-vbr.md ("What explains
the remaining difference"):

    .venv/bin/python scripts/abr_queue_bound.py when        # (a) when the maximum occurs
    .venv/bin/python scripts/abr_queue_bound.py variants    # (b, c) queue control, ICR, ADTF
    .venv/bin/python scripts/abr_queue_bound.py seeds       # (e) spread over seeds 1-6
    .venv/bin/python scripts/abr_queue_bound.py rows        # (b) the larger T0, QDLF on every row
    .venv/bin/python scripts/abr_queue_bound.py when --table   # print a table only

Each run's numbers go to results/abr-queue-bound/runs.jsonl as it ends, so
an interrupted sweep resumes where it stopped. Runs go one at a time: they
share the machine. Per run, from probes sampled every millisecond:

- the maximum ABR queue at the bottleneck (the study's metric) and the time
  of the largest sample;
- the largest sample in three windows: before 1 s (the ABR start-up: the
  first segments leave at ICR before any feedback), 1-5 s (TCP's slow start
  over the 550 ms round trip) and from 5 s on (steady state);
- at the time of the maximum: the sum of the 15 congestion windows, in
  cells (what TCP may have outstanding), and the sum of the 15 ACRs;
- the mean ABR capacity (link rate minus the measured VBR rate).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "results" / "abr-queue-bound" / "runs.jsonl"

CONFIG = "sat-short"
DURATION_S = 170.0  # the study's
SHORT_S = 20.0  # start-up and slow start, with 15 s of steady state after them
SAMPLE = "1 ms"
WINDOWS = ((0.0, 1.0), (1.0, 5.0), (5.0, math.inf))

# Label -> (keys of [links.NAME.erica] at every ERICA+ port, keys of tcp.NAME.abr).
VARIANTS = {
    "study (T0 = 500 us, QDLF = 0.5, ICR = PCR/10, ADTF = 500 ms)": ({}, {}),
    "T0 = 1.5 ms": ({"t0": "1.5 ms"}, {}),
    "T0 = 5 ms": ({"t0": "5 ms"}, {}),
    "QDLF = 0.25": ({"qdlf": 0.25}, {}),
    "QDLF = 0.8": ({"qdlf": 0.8}, {}),
    "ICR = PCR/100": ({}, {"icr": "1.4976 Mbps"}),
    "ICR = PCR": ({}, {"icr": "149.76 Mbps"}),
    "ADTF = 1 s (longer than the RTT)": ({}, {"adtf": "1 s"}),
}
DEFAULT = next(iter(VARIANTS))

# Experiment -> the (mss, row, variant, seed) runs it needs.
# Experiment -> the (mss, row, variant, seed, duration) runs it needs. The
# variants run 20 s: the study's maximum falls in the first 5 s (see "when").
EXPERIMENTS = {
    "when": [
        (mss, row, DEFAULT, s, DURATION_S)
        for mss in (9140, 512)
        for row in (1, 2, 3)
        for s in (1, 2, 3)
    ],
    "variants": [(9140, 1, v, s, SHORT_S) for v in VARIANTS for s in (1, 2, 3)],
    "seeds": [(9140, row, DEFAULT, s, DURATION_S) for row in (1, 2, 3) for s in range(1, 7)],
    # The queue-control variants that let the later rounds overshoot, on every row.
    "rows": [
        (9140, row, v, s, SHORT_S)
        for v in (DEFAULT, "T0 = 5 ms", "QDLF = 0.8")
        for row in (1, 2, 3)
        for s in (1, 2, 3)
    ],
}


def _scenario(mss: int, row: int, variant: str, duration_s: float) -> dict:
    from satcc.studies import abr_lrd_vbr as study

    erica, abr = VARIANTS[variant]
    sc = study.scenario(CONFIG, mss, study.VIDEO[row], duration_s)
    for link in sc["links"].values():
        if "erica" in link:
            link["erica"] = dict(erica)
    sc["run"]["sample_interval"] = SAMPLE
    for i in range(1, study.N_TCP + 1):
        sc["tcp"][f"t{i:02d}"]["abr"].update(abr)
        sc["probes"][f"acr{i:02d}"] = {"tcp": f"t{i:02d}", "metric": "acr_bps"}
        sc["probes"][f"cwnd{i:02d}"] = {"tcp": f"t{i:02d}", "metric": "cwnd_bytes"}
    return sc


def one_run(mss: int, row: int, variant: str, seed: int, duration_s: float) -> dict:
    import numpy as np
    import satcc
    from satcc.studies import abr_lrd_vbr as study
    from satcc.studies.spec import RunSpec

    t0 = time.perf_counter()
    sc = _scenario(mss, row, variant, duration_s)
    res = satcc.run(sc, seed=seed)
    spec = RunSpec(label="", params={"config": CONFIG, "mss": mss}, scenario=sc)
    m = study.metrics(res.summary, spec)
    queue = res.series("abr_queue")
    times, q = queue["time_s"].to_numpy(), queue["value"].to_numpy()
    k = int(np.argmax(q))
    n = study.N_TCP
    cwnd = sum(res.series(f"cwnd{i:02d}")["value"].to_numpy() for i in range(1, n + 1))
    acr = sum(res.series(f"acr{i:02d}")["value"].to_numpy() for i in range(1, n + 1))
    row_out = {
        "mss": mss,
        "row": row,
        "variant": variant,
        "seed": seed,
        "duration_s": duration_s,
        "max_queue_cells": m["max_queue_cells"],
        "t_max_s": float(times[k]),
        "cwnd_sum_cells_at_max": float(cwnd[k]) / mss * study.cells_per_segment(mss),
        "acr_sum_mbps_at_max": float(acr[k]) / 1e6,
        "abr_capacity_mbps": m["abr_capacity_mbps"],
        "efficiency_pct": m["efficiency_pct"],
        "cells_lost": m["cells_lost"],
        "wall_s": time.perf_counter() - t0,
    }
    for lo, hi in WINDOWS:
        inside = (times >= lo) & (times < hi)
        row_out[f"max_{lo:g}_{hi:g}"] = float(q[inside].max()) if inside.any() else math.nan
    return row_out


def _key(mss: int, row: int, variant: str, seed: int, duration_s: float) -> tuple:
    return (mss, row, variant, seed, float(duration_s))


def _done() -> dict:
    if not OUT.exists():
        return {}
    rows = [json.loads(line) for line in OUT.read_text().splitlines() if line.strip()]
    return {
        _key(r["mss"], r["row"], r["variant"], r["seed"], r.get("duration_s", DURATION_S)): r
        for r in rows
    }


def _mean_ci(values: list[float]) -> str:
    from scipy import stats

    n = len(values)
    mean = sum(values) / n
    if n < 2:
        return f"{mean:,.0f}".replace(",", " ")
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    half = stats.t.ppf(0.975, df=n - 1) * sd / math.sqrt(n)
    return f"{mean:,.0f} (±{half:,.0f})".replace(",", " ")


def _windows(r: dict) -> list[str]:
    return [f"{r[f'max_{lo:g}_{hi:g}']:.0f}" for lo, hi in WINDOWS]


def table_when(done: dict) -> str:
    lines = [
        "| MSS | video | seed | max queue | at t (s) | max, t < 1 s | max, 1-5 s "
        "| max, t ≥ 5 s | Σcwnd at the max, cells | ΣACR at the max, Mb/s |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for k in EXPERIMENTS["when"]:
        mss, row, _, seed, _ = k
        r = done.get(_key(*k))
        if r is None:
            continue
        lines.append(
            f"| {mss} | {row} | {seed} | {r['max_queue_cells']:.0f} | {r['t_max_s']:.2f} | "
            + " | ".join(_windows(r))
            + f" | {r['cwnd_sum_cells_at_max']:.0f} | {r['acr_sum_mbps_at_max']:.0f} |"
        )
    return "\n".join(lines)


def table_variants(done: dict) -> str:
    lines = [
        "| variant | max queue | max, t < 1 s | max, 1-5 s "
        f"| max, 5-{SHORT_S:g} s | time of the max (s) | efficiency % |",
        "|---|---|---|---|---|---|---|",
    ]
    for variant in VARIANTS:
        rows = [
            done[_key(*k)] for k in EXPERIMENTS["variants"] if k[2] == variant and _key(*k) in done
        ]
        if not rows:
            continue
        cells = [variant, _mean_ci([r["max_queue_cells"] for r in rows])]
        cells += [_mean_ci([r[f"max_{lo:g}_{hi:g}"] for r in rows]) for lo, hi in WINDOWS]
        cells.append(", ".join(f"{r['t_max_s']:.2f}" for r in rows))
        cells.append(f"{sum(r['efficiency_pct'] for r in rows) / len(rows):.1f}")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def table_seeds(done: dict) -> str:
    lines = [
        "| video | seeds | max queue: mean (±95 % CI) | min-max over seeds "
        "| steady state (t ≥ 5 s): mean (±CI) | min-max |",
        "|---|---|---|---|---|---|",
    ]
    for row in (1, 2, 3):
        rows = [done[_key(*k)] for k in EXPERIMENTS["seeds"] if k[1] == row and _key(*k) in done]
        if not rows:
            continue
        whole = [r["max_queue_cells"] for r in rows]
        late = [r["max_5_inf"] for r in rows]
        lines.append(
            f"| {row} | {len(rows)} | {_mean_ci(whole)} | {min(whole):.0f}-{max(whole):.0f} | "
            f"{_mean_ci(late)} | {min(late):.0f}-{max(late):.0f} |"
        )
    return "\n".join(lines)


def table_rows(done: dict) -> str:
    lines = [
        "| variant | video 5/5: max queue | video 7.5/7 | video 10/5 |",
        "|---|---|---|---|",
    ]
    for variant in dict.fromkeys(k[2] for k in EXPERIMENTS["rows"]):
        cells = [variant]
        for row in (1, 2, 3):
            keys = [k for k in EXPERIMENTS["rows"] if k[2] == variant and k[1] == row]
            rows = [done[_key(*k)] for k in keys if _key(*k) in done]
            cells.append(_mean_ci([r["max_queue_cells"] for r in rows]) if rows else "")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


TABLES = {
    "when": table_when,
    "variants": table_variants,
    "seeds": table_seeds,
    "rows": table_rows,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("experiment", choices=sorted(EXPERIMENTS))
    parser.add_argument("--table", action="store_true", help="print the table only")
    args = parser.parse_args()
    if not args.table:
        done = _done()
        todo = [k for k in EXPERIMENTS[args.experiment] if _key(*k) not in done]
        OUT.parent.mkdir(parents=True, exist_ok=True)
        with OUT.open("a") as out:
            for n, k in enumerate(todo, 1):
                row = one_run(*k)
                out.write(json.dumps(row) + "\n")
                out.flush()
                print(
                    f"[{n}/{len(todo)}] MSS {k[0]} row {k[1]} | {k[2]} | seed {k[3]}: "
                    f"max Q {row['max_queue_cells']:.0f} at {row['t_max_s']:.2f} s, "
                    f"lost {row['cells_lost']:.0f} ({row['wall_s']:.0f} s)",
                    file=sys.stderr,
                    flush=True,
                )
    print(TABLES[args.experiment](_done()))


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    main()
