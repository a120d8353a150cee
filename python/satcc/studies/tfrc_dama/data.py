"""The tfrc-dama study's runs gathered for its figures and claims: per
frame and strategy, every start phase's packet delays aligned packet by
packet; per flow rate, the largest delays; per aggregated strategy, the
class figures averaged over seeds and the start-up profiles and delay
distributions."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from satcc.studies.spec import RunSpec, measured
from satcc.studies.tfrc_dama import model as study


@dataclass
class PhaseSweep:
    """One frame and strategy over its start phases: `e2ed` and `owd` are
    (phases x packets), packet k generated `t[k]` seconds after the start."""

    t: np.ndarray
    e2ed: np.ndarray
    owd: np.ndarray
    summaries: list[dict[str, Any]]
    # Start phases, in slots after the super-frame boundary, one per row.
    phases: list[int] = field(default_factory=list)

    def per_run(self, key: str) -> np.ndarray:
        return np.array([measured(s.get(f"tfrc.v.{key}")) for s in self.summaries])

    def median(self) -> np.ndarray:
        return np.median(self.e2ed, axis=0)

    def peak_median(self) -> float:
        """The peak of the median curve (Figs. 3 and 5)."""
        return float(np.max(self.median()))

    def peaks(self) -> np.ndarray:
        """Each phase's largest E2ED."""
        return np.max(self.e2ed, axis=1)

    def settle_time(self, below_s: float) -> float:
        """When the median E2ED last rises above `below_s`: the start-up's end."""
        above = np.nonzero(self.median() > below_s)[0]
        return float(self.t[above[-1]]) if above.size else 0.0


@dataclass
class Aggregate:
    """One aggregated strategy, its seeds averaged."""

    metrics: dict[str, float]
    startup: dict[str, dict[str, tuple[np.ndarray, np.ndarray]]] = field(default_factory=dict)
    cdf: dict[str, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)


@dataclass
class Results:
    single: dict[tuple[str, str], PhaseSweep]
    # (frame, strategy) -> {rate_kbps: per-phase largest E2ED}
    by_rate: dict[tuple[str, str], dict[int, np.ndarray]]
    by_rate_first_report: dict[tuple[str, str], dict[int, np.ndarray]]
    aggregate: dict[str, Aggregate]
    # The TFRC profile the runs were made under.
    profile: str = study.DEFAULT_PROFILE


def gather(
    specs: list[RunSpec],
    summaries: dict[tuple[int, int], dict[str, Any]],
    series: dict[tuple[int, int], dict[str, Any]],
    profile: str = study.DEFAULT_PROFILE,
) -> Results:
    """The runs of one TFRC profile, gathered."""
    traces: dict[tuple[str, str], list] = {}
    by_rate: dict[tuple[str, str], dict[int, list[float]]] = {}
    first: dict[tuple[str, str], dict[int, list[float]]] = {}
    agg_runs: dict[str, list[tuple[dict[str, Any], dict[str, Any]]]] = {}
    for (i, seed), summary in sorted(summaries.items()):
        p = specs[i].params
        if p.get("profile", study.DEFAULT_PROFILE) != profile:
            continue
        if p["part"] == "single":
            start = _start(p["frame"], p["phase"])
            traces.setdefault((p["frame"], p["strategy"]), []).append(
                (p["phase"], start, summary, series.get((i, seed), {}))
            )
        elif p["part"] == "rate":
            key = (p["frame"], p["strategy"])
            by_rate.setdefault(key, {}).setdefault(p["rate_kbps"], []).append(
                summary["tfrc.v.e2ed_max_s"]
            )
            first.setdefault(key, {}).setdefault(p["rate_kbps"], []).append(
                measured(summary.get("tfrc.v.first_report_s"))
            )
        else:
            agg_runs.setdefault(p["strategy"], []).append((summary, series.get((i, seed), {})))
    return Results(
        single={k: _sweep(v) for k, v in traces.items()},
        by_rate={k: {r: np.array(v) for r, v in d.items()} for k, d in by_rate.items()},
        by_rate_first_report={k: {r: np.array(v) for r, v in d.items()} for k, d in first.items()},
        aggregate={k: _aggregate(specs, v) for k, v in agg_runs.items()},
        profile=profile,
    )


def _start(frame: str, phase: int) -> float:
    t = study.timing(frame)
    return t["superframe_s"] + phase * t["slot_s"]


def _sweep(runs: list) -> PhaseSweep:
    runs = sorted(
        (r for r in runs if "tfrc.v.e2ed" in r[3]),
        key=lambda r: r[0],
    )
    if not runs:
        empty = np.empty((0, 0))
        return PhaseSweep(np.empty(0), empty, empty, [])
    rows_e, rows_o, t = [], [], np.empty(0)
    for _, start, _, ser in runs:
        x, e = ser["tfrc.v.e2ed"]
        rows_e.append(np.asarray(e))
        rows_o.append(np.asarray(ser["tfrc.v.owd"][1]))
        t = np.asarray(x) - start
    n = min(len(r) for r in rows_e)
    return PhaseSweep(
        t[:n],
        np.array([r[:n] for r in rows_e]),
        np.array([r[:n] for r in rows_o]),
        [r[2] for r in runs],
        [r[0] for r in runs],
    )


def _aggregate(specs: list[RunSpec], runs: list) -> Aggregate:
    spec = next(s for s in specs if s.params["part"] == "aggregate")
    per_seed = [study.metrics(summary, spec) for summary, _ in runs]
    keys = per_seed[0].keys()
    mean = {k: float(np.nanmean([m[k] for m in per_seed])) for k in keys}
    agg = Aggregate(mean)
    for c in study.CLASSES:
        prefix = f"tfrc_arrivals.{c.name}."
        profile = {}
        for q in ("p5", "p50", "p95"):
            curves = [ser[prefix + f"startup_e2ed_{q}"] for _, ser in runs if ser]
            if curves:
                x = np.asarray(curves[0][0])
                profile[q] = (x, _mean_over_seeds([np.asarray(v) for _, v in curves]))
        agg.startup[c.name] = profile
        cdfs = [ser[prefix + "window_e2ed_cdf"] for _, ser in runs if ser]
        if cdfs:
            agg.cdf[c.name] = _mean_cdf(cdfs)
    return agg


def _mean_over_seeds(rows: list[np.ndarray]) -> np.ndarray:
    """Per bin, the mean of the seeds that have packets there (NaN if none)."""
    stacked = np.array(rows)
    have = ~np.isnan(stacked)
    total = np.where(have, stacked, 0.0).sum(axis=0)
    count = have.sum(axis=0)
    return np.divide(total, count, out=np.full(total.shape, np.nan), where=count > 0)


def _mean_cdf(cdfs: list) -> tuple[np.ndarray, np.ndarray]:
    """The seeds' distributions averaged on a common grid of delays."""
    grid = np.unique(np.concatenate([np.asarray(x) for x, _ in cdfs]))
    ys = [np.interp(grid, np.asarray(x), np.asarray(y), left=0.0, right=1.0) for x, y in cdfs]
    return grid, np.mean(ys, axis=0)
