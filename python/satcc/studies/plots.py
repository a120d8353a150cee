"""What every study's figures share: satcc's house style (satcc.figure_style:
size, fonts, grid, colours, the title rule, a PNG and an SVG written
atomically and byte for byte the same for the same data, each with its title
and caption), the spread over seeds drawn the same way everywhere
(satcc.seed_bands), and CSV written atomically."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from satcc import figure_style, seed_bands
from satcc.studies.present import write_atomic
from satcc.studies.spec import RunSpec


def figure(
    xlabel: str = "",
    ylabel: str = "",
    size: tuple[float, float] = figure_style.SIZE,
    nrows: int = 1,
    ncols: int = 1,
    **subplots: Any,
) -> tuple[Any, Any]:
    """(fig, ax) in the house style with the axis labels given (on every
    panel's outer edge when there are several)."""
    fig, axes = figure_style.new_figure(size, nrows, ncols, **subplots)
    for ax in getattr(axes, "flat", [axes]):
        if xlabel and (nrows == 1 or ax.get_subplotspec().is_last_row()):
            ax.set_xlabel(xlabel)
        if ylabel and (ncols == 1 or ax.get_subplotspec().is_first_col()):
            ax.set_ylabel(ylabel)
    return fig, axes


title = figure_style.set_title
panel_title = figure_style.panel_title
legend = figure_style.legend


def save_figure(fig: Any, path: Path, caption: str) -> list[str]:
    """Writes `fig` as `path` (PNG) and the SVG beside it, with its title
    and `caption` embedded; returns both names, PNG first."""
    return figure_style.save(fig, path, caption)


def write_csv(frame: pd.DataFrame, path: Path) -> str:
    write_atomic(path, frame.to_csv(index=False, lineterminator="\n"))
    return path.name


def seed_bands_frame(
    specs: list[RunSpec],
    summaries: dict[tuple[int, int], dict[str, Any]],
    metrics: Callable[[dict[str, Any], RunSpec], dict[str, float]],
    bounds: Mapping[str, seed_bands.Bounds],
) -> pd.DataFrame:
    """One row per run spec, in order (as compare.per_point's): for each
    metric in `bounds`, the band a figure draws (`METRIC_low`,
    `METRIC_high`) and the seeds it rests on (`METRIC_n`)."""
    values: list[dict[str, list[float]]] = [{} for _ in specs]
    for (i, _seed), summary in sorted(summaries.items()):
        for k, v in metrics(summary, specs[i]).items():
            if k in bounds:
                values[i].setdefault(k, []).append(v)
    rows = []
    for per_metric in values:
        row: dict[str, Any] = {}
        for k, bound in bounds.items():
            b = seed_bands.band(per_metric.get(k, []), bound)
            row.update({f"{k}_low": b.low, f"{k}_high": b.high, f"{k}_n": b.n})
        rows.append(row)
    columns = [f"{k}_{part}" for k in bounds for part in ("low", "high", "n")]
    return pd.DataFrame(rows, columns=columns)


def with_seed_bands(
    pp: pd.DataFrame,
    specs: list[RunSpec],
    summaries: dict[tuple[int, int], dict[str, Any]],
    metrics: Callable[[dict[str, Any], RunSpec], dict[str, float]],
    bounds: Mapping[str, seed_bands.Bounds],
) -> pd.DataFrame:
    """compare.per_point's frame `pp` with the seed-band columns beside."""
    if len(pp) != len(specs):
        raise ValueError(f"per-point frame has {len(pp)} rows for {len(specs)} run specs")
    bands = seed_bands_frame(specs, summaries, metrics, bounds)
    return pd.concat([pp.reset_index(drop=True), bands], axis=1)


# Styles that only error bars have: dropped when a line is drawn without.
ERRORBAR_ONLY = ("capsize", "capthick", "ecolor", "elinewidth", "errorevery", "barsabove")


def banded(
    ax: Any,
    frame: pd.DataFrame,
    x: str,
    y: str,
    label: str,
    **style: Any,
) -> list[int]:
    """Draw `frame[y]` against `frame[x]` (sorted by x) with its seed band
    (`y_low`, `y_high` from with_seed_bands) as error bars, and return the
    seed counts of the points drawn (for the caption's seed_bands.describe).
    Where no point has a spread the line is drawn without bars, so the
    legend shows no bar glyph for bars that are not there."""
    frame = frame.sort_values(x)
    frame = frame[np.isfinite(frame[y].to_numpy(dtype=float))]
    if frame.empty:
        return []
    xs, ys = frame[x].to_numpy(), frame[y].to_numpy(dtype=float)
    lows = frame[f"{y}_low"].to_numpy(dtype=float)
    highs = frame[f"{y}_high"].to_numpy(dtype=float)
    counts = [int(n) for n in frame[f"{y}_n"]]
    style.setdefault("marker", "o")
    if any(n >= 2 for n in counts):
        err = np.vstack([np.nan_to_num(ys - lows), np.nan_to_num(highs - ys)])
        ax.errorbar(xs, ys, yerr=err, label=label, **style)
    else:
        for key in ERRORBAR_ONLY:
            style.pop(key, None)
        ax.plot(xs, ys, label=label, **style)
    return counts


def band_caption(counts: Sequence[int], bounds: seed_bands.Bounds) -> str:
    """The caption's sentence for the bars of the points drawn."""
    text = seed_bands.describe(counts, bounds)
    return text[0].upper() + text[1:] + "."
