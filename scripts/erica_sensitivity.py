"""Sensitivity of ERICA+ to its averaging options on the abr-lrd-vbr paths.

Runs the study's "N Source + VBR" configuration (python/satcc/studies/
abr_lrd_vbr.py, MSS 512 B, video 5/5 Mb/s) on the WAN and the two satellite
placements with each averaging variant of [links.NAME.erica] applied at
every ERICA+ port, for several seeds, and prints the table of
docs/abr-lrd-vbr.md ("Averaging variants: sensitivity"):

    .venv/bin/python scripts/erica_sensitivity.py            # everything
    .venv/bin/python scripts/erica_sensitivity.py --jobs 2 --seeds 1,2,3
    .venv/bin/python scripts/erica_sensitivity.py --table    # table only

Each run's numbers go to results/erica-sensitivity/runs.jsonl as it ends, so
an interrupted sweep resumes where it stopped. Per run:

- efficiency (%), the study's metric over the whole run;
- the maximum ABR queue at the bottleneck, cells and feedback delays;
- oscillation, over the second half of the run, from the sum of the 15
  forward VCs' allowed cell rates (ΣACR, sampled every millisecond):
  its coefficient of variation (std / mean; beside that of the ABR capacity
  the video leaves, link rate minus the VBR rate at the bottleneck, which
  an ideal controller would track), and the trough of its autocorrelation
  over lags up to five feedback delays, with the lag where it falls: a
  regular oscillation of period P shows as a deep trough (towards -1) at
  P/2, an irregular one as a shallow trough;
- the share of the samples in which the bottleneck's ABR queue is empty
  (the ABR capacity goes unused at such moments).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "results" / "erica-sensitivity" / "runs.jsonl"

MSS = 512
ROW = 1  # video 5 / 5 Mb/s
DURATION_S = {"wan": 10.0, "sat-short": 170.0, "sat-long": 170.0}
SAMPLE = "1 ms"

# Label -> keys of [links.NAME.erica] (at every ERICA+ port).
VARIANTS = {
    "default (no averaging)": {},
    "z_alpha = 0.5": {"z_alpha": 0.5},
    "z_alpha = 0.25": {"z_alpha": 0.25},
    "rate_alpha = 0.5": {"rate_alpha": 0.5},
    "rate_alpha = 0.25": {"rate_alpha": 0.25},
    "active_decay = 0.9": {"active_decay": 0.9},
    "rate_alpha = 0.25, active_decay = 0.9": {"rate_alpha": 0.25, "active_decay": 0.9},
    "ccr_alpha = 0.25": {"ccr_alpha": 0.25},
    'ccr = "measured"': {"ccr": "measured"},
    'ccr = "measured", ccr_alpha = 0.5': {"ccr": "measured", "ccr_alpha": 0.5},
    'ccr = "measured", z_alpha = 0.5': {"ccr": "measured", "z_alpha": 0.5},
    "interval x2 (1000 cells, 10 ms)": {"interval_cells": 1000, "interval": "10 ms"},
    "interval x4 (2000 cells, 20 ms)": {"interval_cells": 2000, "interval": "20 ms"},
    # Intervals towards the 550 ms feedback delay of sat-long (run there only).
    "interval x20 (10 000 cells, 100 ms)": {"interval_cells": 10_000, "interval": "100 ms"},
    "interval x110 (55 000 cells, 550 ms)": {"interval_cells": 55_000, "interval": "550 ms"},
}
CONFIGS = ("sat-long", "sat-short", "wan")
# Variants run on some configurations only.
ONLY_ON = {
    "interval x20 (10 000 cells, 100 ms)": ("sat-long",),
    "interval x110 (55 000 cells, 550 ms)": ("sat-long",),
}


def _scenario(config: str, erica: dict) -> dict:
    from satcc.studies import abr_lrd_vbr as study

    sc = study.scenario(config, MSS, study.VIDEO[ROW], DURATION_S[config])
    for link in sc["links"].values():
        if "erica" in link:
            link["erica"] = dict(erica)
    sc["run"]["sample_interval"] = SAMPLE
    for i in range(1, study.N_TCP + 1):
        sc["probes"][f"acr{i:02d}"] = {"tcp": f"t{i:02d}", "metric": "acr_bps"}
    return sc


def _cv(values) -> float:
    import numpy as np

    values = np.asarray(values, dtype=float)
    values = values[np.isfinite(values)]
    mean = values.mean()
    return float(values.std() / mean) if mean > 0 else math.nan


def _acf_trough(values, dt_s: float, max_lag_s: float) -> tuple[float, float]:
    """The deepest point of the autocorrelation over lags (0, max_lag_s], and
    its lag (s)."""
    import numpy as np

    x = np.asarray(values, dtype=float)
    x = x - x.mean()
    n = len(x)
    spectrum = np.fft.rfft(x, 2 * n)
    acf = np.fft.irfft(spectrum * np.conj(spectrum))[:n]
    acf /= acf[0]
    lags = max(2, min(n - 1, round(max_lag_s / dt_s)))
    k = 1 + int(np.argmin(acf[1 : lags + 1]))
    return float(acf[k]), k * dt_s


def one_run(config: str, variant: str, seed: int) -> dict:
    import numpy as np
    import satcc
    from satcc.studies import abr_lrd_vbr as study
    from satcc.studies.spec import RunSpec

    t0 = time.perf_counter()
    sc = _scenario(config, VARIANTS[variant])
    res = satcc.run(sc, seed=seed)
    spec = RunSpec(label="", params={"config": config, "mss": MSS}, scenario=sc)
    m = study.metrics(res.summary, spec)
    half = DURATION_S[config] / 2
    acr = sum(res.series(f"acr{i:02d}")["value"].to_numpy() for i in range(1, study.N_TCP + 1))
    times = res.series("acr01")["time_s"].to_numpy()
    vbr = res.series("vbr_rate")
    queue = res.series("abr_queue")
    late = times > half
    capacity = study.LINK_BPS - vbr["value"].to_numpy()
    q_late = queue["value"].to_numpy()[queue["time_s"].to_numpy() > half]
    # A feedback loop oscillates with a period of a few loop delays: look for
    # the trough within five feedback delays.
    window = 5 * study.feedback_delay_s(config)
    trough, trough_lag = _acf_trough(acr[late], float(times[1] - times[0]), window)
    return {
        "config": config,
        "variant": variant,
        "seed": seed,
        "duration_s": DURATION_S[config],
        "efficiency_pct": m["efficiency_pct"],
        "max_queue_cells": m["max_queue_cells"],
        "max_queue_feedback_delays": m["max_queue_feedback_delays"],
        "cells_lost": m["cells_lost"],
        "cv_acr_sum": _cv(acr[late]),
        "cv_abr_capacity": _cv(capacity[vbr["time_s"].to_numpy() > half]),
        "acf_trough": trough,
        "acf_trough_lag_s": trough_lag,
        "queue_empty_pct": 100 * float(np.mean(q_late == 0)),
        "cv_queue": _cv(q_late),
        "mean_queue_cells": float(np.mean(q_late)),
        "wall_s": time.perf_counter() - t0,
    }


def _done() -> dict:
    if not OUT.exists():
        return {}
    rows = [json.loads(line) for line in OUT.read_text().splitlines() if line.strip()]
    return {(r["config"], r["variant"], r["seed"]): r for r in rows}


def _mean_ci(values: list[float]) -> tuple[float, float]:
    from scipy import stats

    n = len(values)
    mean = sum(values) / n
    if n < 2:
        return mean, math.nan
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    return mean, stats.t.ppf(0.975, df=n - 1) * sd / math.sqrt(n)


def table(seeds: list[int]) -> str:
    done = _done()
    lines = []
    for config in CONFIGS:
        lines.append(f"\n**{config}, MSS {MSS}, video 5/5 Mb/s, {DURATION_S[config]:g} s.**\n")
        lines.append(
            "| variant | efficiency % | max queue, cells | × feedback delay "
            "| CV of ΣACR | ACF trough of ΣACR, at lag | ABR queue empty, % of time |"
        )
        lines.append("|---|---|---|---|---|---|---|")
        capacity = []
        for variant in VARIANTS:
            rows = [done[(config, variant, s)] for s in seeds if (config, variant, s) in done]
            if not rows:
                continue
            capacity += [r["cv_abr_capacity"] for r in rows]
            keys = VARIANTS[variant]
            cells = [f"`{variant}`" if keys and "interval" not in keys else variant]
            for key, fmt in (
                ("efficiency_pct", "{:.1f} (±{:.1f})"),
                ("max_queue_cells", "{:,.0f} (±{:,.0f})"),
                ("max_queue_feedback_delays", "{:.2f} (±{:.2f})"),
                ("cv_acr_sum", "{:.2f} (±{:.2f})"),
                ("acf_trough", "{:.2f} (±{:.2f})"),
                ("queue_empty_pct", "{:.0f} (±{:.0f})"),
            ):
                cells.append(fmt.format(*_mean_ci([r[key] for r in rows])).replace(",", " "))
                if key == "acf_trough":
                    lags = [r["acf_trough_lag_s"] for r in rows]
                    lags = [lag for lag in lags if math.isfinite(lag)]
                    if lags:
                        cells[-1] += f" at {sum(lags) / len(lags) * 1e3:.0f} ms"
            if len(rows) < len(seeds):
                cells[0] += f" ({len(rows)} seeds)"
            lines.append("| " + " | ".join(cells) + " |")
        if capacity:
            lines.append(
                f"\nCV of the ABR capacity over the same samples: "
                f"{sum(capacity) / len(capacity):.3f}."
            )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="1,2,3")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--configs", default=",".join(CONFIGS))
    parser.add_argument("--variants", default="", help="comma-free substring filter")
    parser.add_argument("--table", action="store_true", help="print the table only")
    args = parser.parse_args()
    seeds = [int(s) for s in args.seeds.split(",")]
    if not args.table:
        done = _done()
        todo = [
            (c, v, s)
            for c in args.configs.split(",")
            for v in VARIANTS
            if args.variants in v and c in ONLY_ON.get(v, CONFIGS)
            for s in seeds
            if (c, v, s) not in done
        ]
        # Long runs first so the pool ends together.
        todo.sort(key=lambda k: -DURATION_S[k[0]])
        OUT.parent.mkdir(parents=True, exist_ok=True)
        with ProcessPoolExecutor(args.jobs) as pool, OUT.open("a") as out:
            futures = {pool.submit(one_run, *k): k for k in todo}
            for n, fut in enumerate(futures, 1):
                row = fut.result()
                out.write(json.dumps(row) + "\n")
                out.flush()
                print(
                    f"[{n}/{len(todo)}] {row['config']} | {row['variant']} | seed {row['seed']}: "
                    f"eff {row['efficiency_pct']:.1f} %, max Q {row['max_queue_cells']:.0f}, "
                    f"CV ΣACR {row['cv_acr_sum']:.3f} ({row['wall_s']:.0f} s)",
                    file=sys.stderr,
                    flush=True,
                )
    print(table(seeds))


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    main()
