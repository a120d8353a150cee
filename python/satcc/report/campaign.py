"""The section of one campaign: its facts, swept values and failed runs, then
one table per summary group (satcc.summary_tables) with the mean and
confidence interval of each report column at every parameter point, and the
figures."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import pandas as pd
from markupsafe import Markup

from satcc import fmt, summary_tables
from satcc.summary_tables import Column, Group

from .campaign_data import (
    CampaignData,
    aggregate_points,
    column_scale,
    load_campaign,
    numeric_axis,
    report_columns,
    seed_mean_ci,
    unquote,
)
from .campaign_figures import campaign_figures
from .markup import anchor_id, fact_list, render


def campaign_section(campaign_dir: str | os.PathLike[str]) -> Markup:
    """The HTML fragment for one campaign folder."""
    folder = Path(campaign_dir)
    data = load_campaign(folder)
    name = str(data.meta.get("scenario") or folder.name)
    return render(
        "campaign.html.j2",
        anchor=anchor_id("campaign", folder.name),
        name=name,
        folder=str(folder.resolve()),
        **_what_ran(data, name),
        results=_results(data),
    )


def _what_ran(data: CampaignData, name: str) -> dict[str, object]:
    """Facts, a note on mixed versions or builds, swept values, failed runs
    and the base description."""
    runs = data.runs
    failed = runs[runs["status"] != "ok"] if len(runs) else runs
    versions = sorted(set(runs["satcc_version"].dropna().astype(str))) if len(runs) else []
    builds = _builds(runs)
    mixed = ""
    if len(versions) > 1:
        mixed = (
            "This campaign mixes results of several satcc versions (written with "
            "--allow-version-mix)."
        )
    elif len(builds) > 1:
        mixed = (
            "This campaign mixes results of several builds of satcc, computed by different "
            "code (written with --allow-version-mix): group or filter on satcc_build."
        )
    base = data.meta.get("base_description")
    return {
        "facts": fact_list(_facts(data, name, versions, len(failed), builds)),
        "mixed": mixed,
        "parameters": _parameter_values(data) if data.parameters and len(runs) else [],
        "failures": _failures(failed) if len(failed) else None,
        "base": (
            json.dumps(base, indent=2, sort_keys=True, default=str) if base is not None else None
        ),
    }


def _builds(runs: pd.DataFrame) -> dict[str, int]:
    """Runs per build identity (satcc.build); "unknown" before it was recorded."""
    if not len(runs):
        return {}
    column = runs["satcc_build"] if "satcc_build" in runs else None
    names = column.fillna("unknown").astype(str) if column is not None else ["unknown"] * len(runs)
    counts: dict[str, int] = {}
    for n in names:
        counts[n] = counts.get(n, 0) + 1
    return counts


def _facts(
    data: CampaignData, name: str, versions: list[str], n_failed: int, builds: dict[str, int]
) -> list[tuple[str, str]]:
    runs, meta = data.runs, data.meta
    n_ok = int((runs["status"] == "ok").sum()) if len(runs) else 0
    seeds = sorted(set(runs["seed"].dropna().astype(int))) if len(runs) else []
    wall = float(runs["wall_s"].sum()) if "wall_s" in runs and len(runs) else math.nan
    return [
        ("scenario", name),
        ("satcc (campaign)", str(meta.get("satcc_version", fmt.MISSING))),
        ("satcc (runs)", ", ".join(versions) or fmt.MISSING),
        ("builds (runs)", ", ".join(f"{b} ({n})" for b, n in builds.items()) or fmt.MISSING),
        ("created", str(meta.get("created", fmt.MISSING))),
        ("swept parameters", ", ".join(data.parameters) or "none"),
        ("seeds", _seed_ranges(seeds)),
        ("runs ok", str(n_ok)),
        ("runs failed", str(n_failed)),
        ("total run time", fmt.seconds(wall)),
    ]


def _results(data: CampaignData) -> dict[str, object]:
    """A table per summary group present and the figures, or a note saying
    why there are none."""
    if not len(data.summary):
        return {"note": "No successful run with a summary yet."}
    found = report_columns(data.summary)
    if not found:
        prefixes = ", ".join(g.prefix for g in summary_tables.GROUPS)
        return {
            "note": f"None of the main summary figures ({prefixes}) is in this campaign's summary."
        }
    points, groups = aggregate_points(data)
    tables = [
        _campaign_table(data, group, columns, points, groups) for group, columns in found.items()
    ]
    return {"note": "", "tables": tables, "figures": campaign_figures(data, found, points, groups)}


def _seed_ranges(seeds: list[int]) -> str:
    if not seeds:
        return fmt.MISSING
    ranges, start, prev = [], seeds[0], seeds[0]
    for s in seeds[1:] + [None]:
        if s is not None and s == prev + 1:
            prev = s
            continue
        ranges.append(str(start) if start == prev else f"{start}..{prev}")
        if s is not None:
            start = prev = s
    return ", ".join(ranges) + f" ({len(seeds)})"


def _parameter_values(data: CampaignData) -> list[dict[str, object]]:
    """Each swept parameter with its values, sorted as numbers when they are."""
    rows = []
    for p in data.parameters:
        column = f"param.{p}"
        if column not in data.runs:
            continue
        values = list(data.runs[column].dropna().astype(str).unique())
        axis = numeric_axis(values)
        if axis:
            values.sort(key=lambda v: (math.isnan(axis[0][v]), axis[0][v]))
        rows.append({"name": p, "shown": ", ".join(values), "count": len(values)})
    return rows


def _failures(failed: pd.DataFrame, limit: int = 20) -> dict[str, object]:
    """The first `limit` failed runs (error text cut at 500 characters) and
    how many more there are."""
    rows = []
    for r in failed.head(limit).itertuples(index=False):
        r = r._asdict()
        rows.append(
            {
                "key": r.get("key", ""),
                "params": r.get("params", ""),
                "seed": r.get("seed", ""),
                "error": str(r.get("error") or "")[:500],
            }
        )
    return {"rows": rows, "more": max(0, len(failed) - limit)}


def _campaign_table(
    data: CampaignData,
    group: Group,
    columns: dict[Column, dict[str, str]],
    points: list[tuple],
    groups: dict[tuple, pd.DataFrame],
) -> dict[str, object]:
    """One row per parameter point and entity; a cell per report column."""
    params = [p for p in data.parameters if f"param.{p}" in data.summary]
    entities = list(dict.fromkeys(entity for names in columns.values() for entity in names))
    scales = {
        c: column_scale(data.summary, c, list(names.values())) for c, names in columns.items()
    }
    rows = []
    for point in points:
        for i, entity in enumerate(entities):
            cells = [(columns[c].get(entity), scales[c][0]) for c in columns]
            n, means = _mean_cells(groups[point], cells)
            rows.append(
                {
                    "first": i == 0,
                    "point": [unquote(v) for v in point],
                    "entity": entity,
                    "n": n,
                    "means": means,
                }
            )
    return {
        "group": group,
        "params": params,
        "headers": [
            column.header + (f" ({scales[column][1]})" if scales[column][1] else "")
            for column in columns
        ],
        "rows": rows,
    }


def _mean_cells(runs: pd.DataFrame, cells: list[tuple[str | None, float]]) -> tuple[int, list[str]]:
    """The n of a row (the most seeds of any figure) and one mean ± CI per
    (summary column, divisor); an entity without that figure gets MISSING."""
    texts, n_max = [], 0
    for name, divisor in cells:
        if name is None:
            texts.append(fmt.MISSING)
            continue
        mean, ci, n = seed_mean_ci(runs[name])
        n_max = max(n_max, n)
        texts.append(fmt.mean_ci(mean, ci, divisor))
    return n_max, texts
