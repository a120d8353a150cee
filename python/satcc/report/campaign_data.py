"""A campaign folder read for reporting: its Parquet parts de-duplicated by run
key, as docs/campaigns.md asks of every reader, and its runs grouped by
parameter point, the points in the order of their values."""

from __future__ import annotations

import fcntl
import json
import math
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

from satcc import fmt, seed_bands, summary_tables
from satcc.fslocks import flocked
from satcc.store import READERS_FILE
from satcc.summary_tables import Column, Group

from .sources import ReportError

# The value shown for a parameter a run did not sweep (a key added to the
# campaign by a later sweep): the base description's value applies.
UNSET = "(base)"
_PART = re.compile(r"^part-(\d+)\.parquet$")


@dataclass
class CampaignData:
    meta: dict[str, Any]
    parameters: list[str]
    runs: pd.DataFrame  # one row per key: its ok row when there is one, else its last failure
    summary: pd.DataFrame  # ok runs joined with their summary columns


def load_campaign(campaign_dir: str | os.PathLike[str]) -> CampaignData:
    folder = Path(campaign_dir)
    try:
        meta = json.loads((folder / "campaign.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise ReportError(f"{folder}: cannot read campaign.json: {e}") from e
    runs = _read_parts(folder / "runs")
    if len(runs):
        runs = runs.assign(_ok=runs["status"].eq("ok"))
        # A key may appear twice (re-run after a failure, or a crash during
        # compaction): its ok row wins, the latest one of equals.
        runs = runs.sort_values("_ok", kind="stable").drop_duplicates("key", keep="last")
        runs = runs.drop(columns="_ok").sort_index().reset_index(drop=True)
    # The swept keys: campaign.json's, then any that a later sweep added.
    parameters = list(meta.get("parameters") or [])
    for column in runs.columns:
        if column.startswith("param.") and column[len("param.") :] not in parameters:
            parameters.append(column[len("param.") :])
    for p in parameters:
        if f"param.{p}" in runs:
            column = runs[f"param.{p}"]
            runs[f"param.{p}"] = column.astype(object).where(column.notna(), UNSET).astype(str)
    summary = _read_parts(folder / "summary")
    if len(summary) and len(runs):
        summary = summary.drop_duplicates("key", keep="last")
        ok = runs[runs["status"] == "ok"]
        keep = ["key", "seed"] + [f"param.{p}" for p in parameters if f"param.{p}" in ok]
        summary = ok[keep].merge(summary, on="key", how="inner", suffixes=("", ".summary"))
    else:
        summary = pd.DataFrame()
    return CampaignData(meta=meta, parameters=parameters, runs=runs, summary=summary)


# A sweep may compact the campaign while a report reads it. Reads hold the
# shared lock on the campaign's `.readers` that compaction takes exclusively
# to delete parts (as the store's readers do); where there is no lock to hold
# a part can vanish between listing and reading, and as the merged part,
# written before the old ones are deleted, holds the same rows, a read whose
# listing changed meanwhile is done again.
READ_ATTEMPTS = 5


def _read_parts(folder: Path) -> pd.DataFrame:
    """Every Parquet part of one table, in part order; temporary files skipped."""
    for attempt in range(READ_ATTEMPTS):
        listing = _parts(folder)
        try:
            with flocked(folder.parent / READERS_FILE, fcntl.LOCK_SH):
                return _read(_parts(folder))
        except (OSError, pa.ArrowException):
            if attempt + 1 == READ_ATTEMPTS or _parts(folder) == listing:
                raise
    raise AssertionError("unreachable")


def _parts(folder: Path) -> list[Path]:
    if not folder.is_dir():
        return []
    parts = [(m, p) for p in folder.iterdir() if (m := _PART.match(p.name))]
    return [p for m, p in sorted(parts, key=lambda mp: int(mp[0].group(1)))]


def _read(files: list[Path]) -> pd.DataFrame:
    frames = [pd.read_parquet(p) for p in files]
    frames = [f for f in frames if len(f.columns)]
    if not frames:
        return pd.DataFrame()
    return pd.concat(frames, ignore_index=True, sort=False)


def unquote(value: Any) -> str:
    text = "" if value is None else str(value)
    if len(text) >= 2 and text[0] == text[-1] == '"':
        return text[1:-1]
    return text


def numeric_axis(values: Sequence[str]) -> tuple[dict[str, float], str] | None:
    """Map parameter values (strings) to numbers, with an axis unit, when they all
    parse the same way: plain numbers, rates, times or sizes; else None."""
    from satcc import units

    texts = {v: unquote(v) for v in values if v != UNSET}
    parsers: list[tuple[Callable[[str], float], Sequence[tuple[float, str]]]] = [
        (float, ((1.0, ""),)),
        (units.parse_rate, fmt.RATE_UNITS),
        (lambda t: units.parse_time(t) / 1e12, fmt.TIME_UNITS),
        (units.parse_size, fmt.SIZE_UNITS),
    ]
    for parse, scales in parsers:
        try:
            numbers = {v: float(parse(t)) for v, t in texts.items()}
        except (ValueError, TypeError, ArithmeticError):
            continue
        if not all(math.isfinite(x) for x in numbers.values()):
            continue
        top = max((abs(x) for x in numbers.values()), default=0.0)
        factor, unit = fmt.pick_unit(scales, top)
        scaled = {v: x / factor for v, x in numbers.items()}
        scaled.update((v, math.nan) for v in values if v == UNSET)
        return scaled, unit
    return None


def _point_sort_key(parameters: list[str], frame: pd.DataFrame) -> Callable[[tuple], tuple]:
    axes = {}
    for p in parameters:
        axis = numeric_axis(list(frame[f"param.{p}"].dropna().unique()))
        axes[p] = axis[0] if axis else None

    def key(point: tuple) -> tuple:
        out = []
        for p, value in zip(parameters, point, strict=True):
            numbers = axes[p]
            if value == UNSET:
                out.append((2, 0.0, ""))
            elif numbers:
                out.append((0, numbers[value], ""))
            else:
                out.append((1, 0.0, str(value)))
        return tuple(out)

    return key


def aggregate_points(data: CampaignData) -> tuple[list[tuple], dict[tuple, pd.DataFrame]]:
    """Parameter points in sorted order and the ok runs of each."""
    summary = data.summary
    params = [f"param.{p}" for p in data.parameters if f"param.{p}" in summary]
    if not params:
        return [()], {(): summary}
    groups = {
        (k if isinstance(k, tuple) else (k,)): g
        for k, g in summary.groupby(params, sort=False, dropna=False)
    }
    present = [p for p in data.parameters if f"param.{p}" in summary]
    points = sorted(groups, key=_point_sort_key(present, summary))
    return points, groups


def seed_mean_ci(values: pd.Series) -> tuple[float, float, int]:
    """(mean, Student-t CI half-width, n) over the finite seeds: the tables'
    numbers, shown with their n."""
    x = _finite(values)
    if not len(x):
        return math.nan, math.nan, 0
    return float(x.mean()), seed_bands.confidence_half_width(x), len(x)


# What the report columns can be (satcc.summary_tables): counts, rates,
# times, shares (kind "percent", held as fractions) and numbers of the same
# sort (a mean queue, transactions per second). None goes below 0, and no
# share above 1: a band over seeds is kept inside.
KIND_BOUNDS: dict[str, seed_bands.Bounds] = {
    "count": seed_bands.NONNEGATIVE,
    "rate": seed_bands.NONNEGATIVE,
    "time": seed_bands.NONNEGATIVE,
    "number": seed_bands.NONNEGATIVE,
    "percent": seed_bands.FRACTION,
}


def column_bounds(column: Column) -> seed_bands.Bounds:
    try:
        return KIND_BOUNDS[column.kind]
    except KeyError:
        raise ValueError(
            f"report column {column.header!r}: no physical bounds known for kind {column.kind!r}"
        ) from None


def seed_band(values: pd.Series, bounds: seed_bands.Bounds) -> seed_bands.Band:
    """The band a figure draws over the finite seeds (satcc.seed_bands):
    min-max for few seeds, else the t interval cut at `bounds`."""
    return seed_bands.band(_finite(values), bounds)


def _finite(values: pd.Series) -> np.ndarray:
    x = pd.to_numeric(values, errors="coerce").to_numpy(dtype=float)
    return x[np.isfinite(x)]


def report_columns(summary: pd.DataFrame) -> dict[Group, dict[Column, dict[str, str]]]:
    """The report columns of satcc.summary_tables present in `summary`, by group:
    {group: {column: {entity name: summary column}}}, in declaration order."""
    found: dict[Group, dict[Column, dict[str, str]]] = {}
    for group in summary_tables.GROUPS:
        for column in group.report_columns():
            pattern = re.compile(rf"^{re.escape(group.prefix)}\.([^.]+)\.{re.escape(column.key)}$")
            for name in summary.columns:
                m = pattern.match(name)
                if m and pd.api.types.is_numeric_dtype(summary[name]):
                    found.setdefault(group, {}).setdefault(column, {})[m.group(1)] = name
    return found


def column_scale(summary: pd.DataFrame, column: Column, names: list[str]) -> tuple[float, str]:
    """(divisor, unit) shared by the summary columns `names`, all of `column`:
    one unit per table column and per figure axis."""
    top = np.nanmax(np.abs(summary[names].to_numpy(dtype=float)))
    divisor, unit = fmt.scale(column.kind, float(top) if np.isfinite(top) else 0.0)
    return divisor, unit or column.unit
