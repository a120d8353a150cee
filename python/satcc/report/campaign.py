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
from .markup import anchor_id, esc, fact_list


def campaign_section(campaign_dir: str | os.PathLike[str]) -> str:
    """The HTML fragment for one campaign folder."""
    folder = Path(campaign_dir)
    data = load_campaign(folder)
    name = str(data.meta.get("scenario") or folder.name)
    parts = [
        f'<section class="campaign" id="{esc(anchor_id("campaign", folder.name))}">',
        f"<h2>Campaign: {esc(name)}</h2>",
        f'<p class="paper">{esc(folder.resolve())}</p>',
        *_what_ran(data, name),
        *_results(data),
        "</section>",
    ]
    return "\n".join(parts)


def _what_ran(data: CampaignData, name: str) -> list[str]:
    """Facts, swept values, failed runs and the base description."""
    runs = data.runs
    failed = runs[runs["status"] != "ok"] if len(runs) else runs
    versions = sorted(set(runs["satcc_version"].dropna().astype(str))) if len(runs) else []
    builds = _builds(runs)
    parts = [fact_list(_facts(data, name, versions, len(failed), builds))]
    if len(versions) > 1:
        parts.append(
            '<p class="note">This campaign mixes results of several satcc versions '
            "(written with --allow-version-mix).</p>"
        )
    elif len(builds) > 1:
        parts.append(
            '<p class="note">This campaign mixes results of several builds of satcc, '
            "computed by different code (written with --allow-version-mix): "
            "group or filter on satcc_build.</p>"
        )
    if data.parameters and len(runs):
        parts.append(_parameter_values(data))
    if len(failed):
        parts.append(_failures_table(data, failed))
    base = data.meta.get("base_description")
    if base is not None:
        parts.append(
            "<details><summary>base description (before the sweep's changes)</summary>"
            f"<pre>{esc(json.dumps(base, indent=2, sort_keys=True, default=str))}</pre></details>"
        )
    return parts


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


def _results(data: CampaignData) -> list[str]:
    """A table per summary group present and the figures, or a note saying
    why there are none."""
    if not len(data.summary):
        return ['<p class="note">No successful run with a summary yet.</p>']
    found = report_columns(data.summary)
    if not found:
        prefixes = ", ".join(g.prefix for g in summary_tables.GROUPS)
        return [
            f'<p class="note">None of the main summary figures ({prefixes}) '
            "is in this campaign's summary.</p>"
        ]
    points, groups = aggregate_points(data)
    parts = []
    for group, columns in found.items():
        parts.append(f"<h3>{esc(group.title)}</h3>")
        parts.append(_campaign_table(data, group, columns, points, groups))
    parts.append(
        '<p class="caption">Each cell: mean over seeds ± half-width of the 95% Student-t '
        "confidence interval (no ± with one seed); n is the number of seeds.</p>"
    )
    figures = campaign_figures(data, found, points, groups)
    if figures:
        parts.append('<h3>Figures</h3><div class="figures">' + "".join(figures) + "</div>")
    return parts


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


def _parameter_values(data: CampaignData) -> str:
    rows = []
    for p in data.parameters:
        column = f"param.{p}"
        if column not in data.runs:
            continue
        values = list(data.runs[column].dropna().astype(str).unique())
        axis = numeric_axis(values)
        if axis:
            values.sort(key=lambda v: (math.isnan(axis[0][v]), axis[0][v]))
        rows.append(
            f"<tr><td><code>{esc(p)}</code></td><td>{esc(', '.join(values))}</td>"
            f"<td class=num>{len(values)}</td></tr>"
        )
    return (
        '<table class="params"><thead><tr><th>parameter</th><th>values</th>'
        "<th class=num>count</th></tr></thead><tbody>" + "".join(rows) + "</tbody></table>"
    )


def _failures_table(data: CampaignData, failed: pd.DataFrame, limit: int = 20) -> str:
    rows = []
    for r in failed.head(limit).itertuples(index=False):
        r = r._asdict()
        error = str(r.get("error") or "")
        rows.append(
            f"<tr><td><code>{esc(r.get('key', ''))}</code></td><td>{esc(r.get('params', ''))}</td>"
            f"<td class=num>{esc(r.get('seed', ''))}</td>"
            f'<td class="notes">{esc(error[:500])}</td></tr>'
        )
    more = (
        f'<p class="note">… and {len(failed) - limit} more failed runs.</p>'
        if len(failed) > limit
        else ""
    )
    return (
        '<h3>Failed runs</h3><div class="scroll"><table class="failures"><thead><tr>'
        "<th>key</th><th>parameters</th><th class=num>seed</th><th>error</th></tr></thead>"
        "<tbody>" + "".join(rows) + "</tbody></table></div>" + more
    )


def _campaign_table(
    data: CampaignData,
    group: Group,
    columns: dict[Column, dict[str, str]],
    points: list[tuple],
    groups: dict[tuple, pd.DataFrame],
) -> str:
    """One row per parameter point and entity; a cell per report column."""
    params = [p for p in data.parameters if f"param.{p}" in data.summary]
    entities = list(dict.fromkeys(entity for names in columns.values() for entity in names))
    scales = {
        c: column_scale(data.summary, c, list(names.values())) for c, names in columns.items()
    }
    head = "".join(f"<th><code>{esc(p)}</code></th>" for p in params)
    head += f"<th>{esc(group.entity)}</th><th class=num>n</th>"
    head += "".join(_header(column, scales[column][1]) for column in columns)
    rows = []
    for point in points:
        for i, entity in enumerate(entities):
            cells = [(columns[c].get(entity), scales[c][0]) for c in columns]
            first = ' class="point"' if i == 0 else ""
            param_cells = "".join(f"<td>{esc(unquote(v))}</td>" for v in point)
            rows.append(
                f"<tr{first}>{param_cells}<td>{esc(entity)}</td>"
                + _mean_cells(groups[point], cells)
                + "</tr>"
            )
    return (
        f'<div class="scroll"><table class="summary {group.prefix}"><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div>"
    )


def _header(column: Column, unit: str) -> str:
    return f"<th class=num>{esc(column.header)}{f' ({esc(unit)})' if unit else ''}</th>"


def _mean_cells(runs: pd.DataFrame, cells: list[tuple[str | None, float]]) -> str:
    """The n cell (the most seeds of any figure) and one mean ± CI cell per
    (summary column, divisor); an entity without that figure gets MISSING."""
    texts, n_max = [], 0
    for name, divisor in cells:
        if name is None:
            texts.append(f"<td class=num>{fmt.MISSING}</td>")
            continue
        mean, ci, n = seed_mean_ci(runs[name])
        n_max = max(n_max, n)
        texts.append(f"<td class=num>{fmt.mean_ci(mean, ci, divisor)}</td>")
    return f"<td class=num>{n_max}</td>" + "".join(texts)
