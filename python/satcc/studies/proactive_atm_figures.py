"""The figures and tables of the proactive-atm study: for each traffic
scenario one figure per metric with the thesis's three cases against the
number of sources (cell loss ratio, late cells, offered load, and for data
the mean file-transfer time and the throughput), the load arithmetic beside
the thesis's stated loads, and the sensitivity of each case to the bucket
depth and to the detector's open choices."""

from __future__ import annotations

import itertools
import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from rich.table import Table

from satcc.console import table_console
from satcc.studies import plots
from satcc.studies import proactive_atm as study
from satcc.studies.framework import RunSpec, per_point

METRICS = {
    "realtime_loss": ("cell loss ratio, voice and video", True),
    "data_loss": ("cell loss ratio, data", True),
    "realtime_late": ("cells > 20 ms over their VC's minimum, voice and video", False),
    "load": ("offered load / 6 Mb/s (case 1: mean parameters)", False),
    "load_measured": ("offered load / 6 Mb/s, measured", False),
    "file_time_s": ("mean file-transfer time (s)", False),
    "data_throughput": ("data throughput / 6 Mb/s", False),
}


def write(
    specs: list[RunSpec],
    summaries: dict[tuple[int, int], dict[str, Any]],
    out: Path,
    quick: bool,
) -> list[str]:
    out.mkdir(parents=True, exist_ok=True)
    pp = per_point(specs, summaries, study.metrics)
    written = [plots.write_csv(pp, out / "points.csv")]
    sweep = pp[pp["part"] == "sweep"]
    for n in (1, 2, 3):
        for metric, (title, log) in METRICS.items():
            sel = sweep[sweep["scenario"] == n]
            if metric not in sel or sel[metric].isna().all():
                continue
            written.append(_figure(sel, n, metric, title, log, out))
    loads = load_table(sweep)
    written.append(plots.write_csv(loads, out / "loads.csv"))
    files = file_time_table(sweep)
    written.append(plots.write_csv(files, out / "file_times.csv"))
    sens = sensitivity_table(pp)
    if not sens.empty:
        written.append(plots.write_csv(sens, out / "sensitivity.csv"))
    _print(loads, files, sens)
    return written


def _figure(sel: pd.DataFrame, n: int, metric: str, title: str, log: bool, out: Path) -> str:
    fig, ax = plots.figure("number of sources", title)
    for case in study.CASES:
        c = sel[sel["case"] == case].sort_values("sources")
        if c.empty:
            continue
        # Every metric here is a count or a ratio: a 3-seed interval reaching
        # below zero says only that the spread is wide, so the bar stops at 0.
        ci = c[f"{metric}_ci"].fillna(0.0)
        ax.errorbar(
            c["sources"],
            c[metric],
            yerr=[np.minimum(ci, c[metric]), ci],
            marker="o",
            capsize=3,
            label=f"case {case}",
        )
    if log:
        ax.set_yscale("symlog", linthresh=1e-5)
        ax.set_ylim(bottom=0.0)
    ax.set_title(f"scenario {n}: {title}", fontsize=9)
    ax.legend(fontsize=8)
    return plots.save_png(fig, out / f"s{n}_{metric}.png")


# The thesis's loads in words, per scenario and case: (sources, load).
STATED_LOADS = [
    (1, 1, 96, 1.0, "96 sources: 'exceeds the link capacity' (Fig. 11)"),
    (1, 1, 120, 1.2, "about 1.2 where the loss reaches 13 % (Fig. 14)"),
    (1, 2, 120, 0.75, "'between 70 and 80%' (Fig. 12)"),
    (2, 1, 25, 1.0, "25 sources: 'exceeds the link capacity' (Fig. 20)"),
    (2, 2, 29, 0.75, "'around 75%' (Fig. 21)"),
    (2, 3, 29, 0.9, "'over 10% higher than in Case 2', 90 % at 29 (Figs. 22, 30)"),
]


def load_table(sweep: pd.DataFrame) -> pd.DataFrame:
    """The thesis's stated loads beside the mean-parameter arithmetic and
    the measured load at the same number of sources."""
    rows = []
    for n, case, sources, stated, where in STATED_LOADS:
        sel = sweep[
            (sweep["scenario"] == n) & (sweep["case"] == case) & (sweep["sources"] == sources)
        ]
        counts = study.mix(n, sources)
        rows.append(
            {
                "scenario": n,
                "case": case,
                "sources": sources,
                "mix": "/".join(f"{counts[k]} {k}" for k in study.TYPES if counts[k]),
                "stated": stated,
                "where": where,
                "mean_parameters": study.mean_load(counts, study.DATA_BUSY),
                "measured": float(sel["load_measured"].iloc[0]) if len(sel) else math.nan,
            }
        )
    return pd.DataFrame(rows)


# The thesis's file times with the loads it gives for them (section 8.2).
STATED_FILE_TIMES = [(2, 2, 29, 35.0, 0.75), (2, 3, 29, 25.0, 0.9)]


def file_time_table(sweep: pd.DataFrame) -> pd.DataFrame:
    """The thesis's file times and satcc's, each beside what the renewal
    identity (study.renewal_file_time) makes of the load that goes with it:
    the thesis's stated load read as wire bits (as satcc counts it) and as
    payload bits, and satcc's measured load."""
    rows = []
    for n, case, sources, stated_time, stated_load in STATED_FILE_TIMES:
        sel = sweep[
            (sweep["scenario"] == n) & (sweep["case"] == case) & (sweep["sources"] == sources)
        ]
        data = study.mix(n, sources)["data"]

        def measured(col: str, sel: pd.DataFrame = sel) -> float:
            return float(sel[col].iloc[0]) if len(sel) else math.nan

        rows.append(
            {
                "scenario": n,
                "case": case,
                "sources": sources,
                "stated_time_s": stated_time,
                "stated_load": stated_load,
                "renewal_at_stated_wire_s": study.renewal_file_time(
                    data, study.payload_bps(stated_load)
                ),
                "renewal_at_stated_payload_s": study.renewal_file_time(
                    data, stated_load * study.LINK_BPS
                ),
                "measured_time_s": measured("file_time_s"),
                "measured_load": measured("load_measured"),
                "renewal_at_measured_s": measured("file_time_renewal_s"),
            }
        )
    return pd.DataFrame(rows)


def sensitivity_table(pp: pd.DataFrame) -> pd.DataFrame:
    """Cases 2 and 3 at the highest load of scenarios 1 and 3: the bucket
    depth (x1 the formula, x2 the study's, x4) and, in case 2, the
    detector's open choices, against the study's settings. Empty in quick
    mode, which runs no variant."""
    rows: list[dict[str, Any]] = []
    if (pp["part"] == "sweep").all():
        return pd.DataFrame(rows)
    for (n, sources), case in itertools.product(study.SENSITIVITY_POINTS, study.SENSITIVITY_CASES):
        base = pp[(pp["label"] == study.label(n, case, sources))]
        variants = pp[
            (pp["scenario"] == n)
            & (pp["sources"] == sources)
            & (pp["part"] != "sweep")
            & (pp["case"] == case)
        ]
        for _, r in pd.concat([base, variants]).iterrows():
            what = (
                "study's settings" if r["part"] == "sweep" else r["label"].split("sources ", 1)[1]
            )
            row = {"scenario": n, "case": case, "sources": sources, "variant": what}
            for m in (
                "realtime_loss",
                "realtime_late",
                "data_loss",
                "load_measured",
                "file_time_s",
                "marked_share",
            ):
                row[m] = r.get(m, math.nan)
            for kind in study.TYPES:
                row[f"{kind}_access_loss"] = r.get(f"{kind}_access_loss", math.nan)
            rows.append(row)
    return pd.DataFrame(rows)


def _print(loads: pd.DataFrame, files: pd.DataFrame, sens: pd.DataFrame) -> None:
    console = table_console()
    t = Table(title="proactive-atm: the thesis's loads beside the arithmetic of its parameters")
    for col in ("scenario", "case", "sources", "mix", "stated", "mean params", "measured"):
        t.add_column(col)
    for r in loads.itertuples(index=False):
        t.add_row(
            str(r.scenario),
            str(r.case),
            str(r.sources),
            r.mix,
            f"{r.stated:g}",
            f"{r.mean_parameters:.2f}",
            "-" if math.isnan(r.measured) else f"{r.measured:.2f}",
        )
    console.print(t)
    t = Table(title="proactive-atm: file times against the renewal identity of their loads")
    columns = ("case", "sources", "stated", "load", "renewal (wire)", "renewal (payload)")
    for col in (*columns, "measured", "load", "renewal"):
        t.add_column(col)
    for r in files.itertuples(index=False):
        t.add_row(
            str(r.case),
            str(r.sources),
            f"{r.stated_time_s:.1f} s",
            f"{r.stated_load:g}",
            f"{r.renewal_at_stated_wire_s:.1f} s",
            f"{r.renewal_at_stated_payload_s:.1f} s",
            f"{r.measured_time_s:.1f} s",
            f"{r.measured_load:.3f}",
            f"{r.renewal_at_measured_s:.1f} s",
        )
    console.print(t)
    if sens.empty:
        return
    t = Table(title="proactive-atm: sensitivity to the bucket depth and the detector's choices")
    columns = ("scenario", "case", "variant", "RT loss", "RT late", "data loss", "load")
    for col in (*columns, "CLP=1 marked"):
        t.add_column(col)
    for r in sens.itertuples(index=False):
        t.add_row(
            str(r.scenario),
            str(r.case),
            r.variant,
            _pct(r.realtime_loss),
            _pct(r.realtime_late),
            _pct(r.data_loss),
            f"{r.load_measured:.3f}",
            _pct(r.marked_share),
        )
    console.print(t)


def _pct(x: float) -> str:
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{100 * x:.3f} %"
