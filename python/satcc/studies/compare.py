"""Judging a study's runs: each run's metrics, their mean over the seeds
with a Student-t confidence interval, and the comparison table that lays
each published value beside the measured one with its verdict.

Seeds are independent replications, so the t interval on their means is
the honest one. A check passes when the mean is within the Reference's
tolerance (Reference.passes); the interval is shown, not used in the
verdict. A check whose mean is NaN (a metric no run could measure) is not
judged: passed is None, never a failure on a number that does not exist.
Nothing here runs a simulation or prints."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np
import pandas as pd

from satcc import fmt
from satcc.seed_bands import confidence_half_width
from satcc.studies.spec import Reference, RunSpec, Study

TABLE_COLUMNS = [
    "study",
    "label",
    "params",
    "metric",
    "published",
    "source",
    "kind",
    "measured",
    "ci_half_width",
    "n_seeds",
    "tolerance",
    "tolerance_kind",
    "allowed",
    "error",
    "passed",
    "notes",
]


def measure(
    study: Study, specs: list[RunSpec], summaries: dict[tuple[int, int], dict[str, Any]]
) -> pd.DataFrame:
    """Per-run metric values: one row per (label, seed, metric)."""
    rows = []
    for (index, seed), summary in sorted(summaries.items()):
        spec = specs[index]
        for metric, value in study.metrics(summary, spec).items():
            rows.append(
                {"label": spec.label, "seed": seed, "metric": metric, "value": float(value)}
            )
    return pd.DataFrame(rows, columns=["label", "seed", "metric", "value"])


def per_point(
    specs: list[RunSpec],
    summaries: dict[tuple[int, int], dict[str, Any]],
    metrics: Callable[[dict[str, Any], RunSpec], dict[str, float]],
    params: Callable[[dict[str, Any]], dict[str, Any]] = dict,
) -> pd.DataFrame:
    """One row per run spec for a study's figures: its label, its params (as
    `params` flattens them), each metric's mean over the seeds and its CI
    half-width (`METRIC_ci`), and the number of seeds."""
    rows = []
    for i, spec in enumerate(specs):
        values: dict[str, list[float]] = {}
        for (j, _seed), summary in sorted(summaries.items()):
            if j == i:
                for k, v in metrics(summary, spec).items():
                    values.setdefault(k, []).append(v)
        row: dict[str, Any] = {"label": spec.label, **params(spec.params)}
        for k, vs in values.items():
            row[k] = float(np.mean(vs))
            row[f"{k}_ci"] = confidence_half_width(vs)
            row["n_seeds"] = len(vs)
        rows.append(row)
    return pd.DataFrame(rows)


def aggregate(per_run: pd.DataFrame) -> pd.DataFrame:
    """Mean, CI half-width and number of seeds per (label, metric)."""
    rows = []
    for (label, metric), group in per_run.groupby(["label", "metric"], sort=False):
        values = group["value"].to_numpy()
        rows.append(
            {
                "label": label,
                "metric": metric,
                "mean": float(np.mean(values)) if len(values) else math.nan,
                "ci_half_width": confidence_half_width(values),
                "n": len(values),
            }
        )
    return pd.DataFrame(rows, columns=["label", "metric", "mean", "ci_half_width", "n"])


def compare(
    study: Study, specs: list[RunSpec], aggregated: pd.DataFrame, quick: bool = False
) -> pd.DataFrame:
    """The comparison table: one row per Reference of the mode, in the
    study's order."""
    params_by_label = {spec.label: spec.params for spec in specs}
    measured = {(r.label, r.metric): r for r in aggregated.itertuples(index=False)}
    rows = []
    for ref in study.references_for(quick):
        if ref.label not in params_by_label:
            raise ValueError(
                f"study {study.name}: reference {ref.metric} names no run {ref.label!r}"
            )
        agg = measured.get((ref.label, ref.metric))
        if agg is None:
            raise ValueError(
                f"study {study.name}: run {ref.label!r} produced no metric {ref.metric!r}"
            )
        rows.append(_comparison_row(study.name, params_by_label[ref.label], ref, agg))
    return pd.DataFrame(rows, columns=TABLE_COLUMNS)


def _comparison_row(study: str, params: dict[str, Any], ref: Reference, agg: Any) -> dict:
    finite = math.isfinite(ref.value) and ref.value != 0
    error = (agg.mean - ref.value) / abs(ref.value) if finite else math.nan
    return {
        "study": study,
        "label": ref.label,
        "params": json.dumps(params, sort_keys=True),
        "metric": ref.metric,
        "published": ref.value,
        "source": ref.source,
        "kind": ref.kind,
        "measured": agg.mean,
        "ci_half_width": agg.ci_half_width,
        "n_seeds": int(agg.n),
        "tolerance": ref.tolerance,
        "tolerance_kind": ref.tolerance_kind,
        "allowed": ref.allowed,
        "error": error,
        "passed": ref.passes(agg.mean) if measured_at_all(agg.mean, agg.n) else None,
        "notes": ref.notes,
    }


def measured_at_all(mean: float, n: int) -> bool:
    """Whether a check has a number to judge: a NaN mean (a metric a run
    could not measure) or no seeds would otherwise compare false and read
    as a failure, a verdict on nothing. Such a check is not judged."""
    return n > 0 and not math.isnan(mean)


def not_measured(table: pd.DataFrame) -> pd.Series:
    """The rows of checks that have a tolerance but no verdict: nothing was
    measured to judge them by."""
    return (table["tolerance_kind"] != "none") & table["passed"].isna()


def verdict_markup(row: Any) -> str:
    """A table row's verdict in rich markup (fmt.verdict)."""
    return fmt.verdict_markup(row.passed, check=row.tolerance_kind != "none")


def verdict_line(table: pd.DataFrame) -> str:
    """The outcome in one line: checks within tolerance out of those judged,
    the checks not judged for want of a measurement, and the rows shown
    without a verdict. A study that judged nothing says so first (and why,
    when its rows say), so that it never reads as a pass."""
    unjudged = not_measured(table)
    missing = int(unjudged.sum())
    judged = table[(table["tolerance_kind"] != "none") & ~unjudged]
    shown = len(table) - len(judged) - missing
    unmeasured = f"{missing} checks not measured; " if missing else ""
    if len(judged) == 0:
        reason = not_judged_reason(table["notes"])
        return f"nothing judged{': ' + reason if reason else ''}; {unmeasured}{shown} rows shown"
    line = f"{int(judged['passed'].astype(bool).sum())}/{len(judged)} checks within tolerance"
    line += f"; {missing} checks not measured" if missing else ""
    return line + (f"; {shown} rows shown, not judged" if shown else "")


def not_judged_reason(notes: Iterable[Any]) -> str:
    """Why a study judged nothing, as its rows tell it: a study that cannot
    judge a check (ns-2 absent, no emulation) ends that check's note with
    the reason, after a "; " ("satcc / ns-2 goodput; ns-2 absent"). That
    last part when every note with one ends the same way, else ""."""
    ends = {
        str(n).rsplit(";", 1)[1].strip()
        for n in notes
        if isinstance(n, str) and ";" in n and n.rsplit(";", 1)[1].strip()
    }
    return ends.pop() if len(ends) == 1 else ""
