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

import pandas as pd
from rich.table import Table

from satcc import seed_bands
from satcc.console import table_console
from satcc.studies import plots
from satcc.studies.compare import per_point
from satcc.studies.proactive_atm import model as study
from satcc.studies.spec import RunSpec

FRACTION, NONNEGATIVE = seed_bands.FRACTION, seed_bands.NONNEGATIVE
# metric: (title, axis label with its unit, what the caption says it is,
# log axis, the bounds its band over seeds keeps to).
METRICS = {
    "realtime_loss": (
        "voice and video cell loss",
        "cell loss ratio, voice and video",
        "the share of voice and video cells lost at the satellite link's queue "
        "(the access policers' drops apart)",
        True,
        FRACTION,
    ),
    "data_loss": (
        "data cell loss",
        "cell loss ratio, data",
        "the share of data cells lost at the satellite link's queue "
        "(the access policers' drops apart)",
        True,
        FRACTION,
    ),
    "realtime_late": (
        "late voice and video cells",
        "share of voice and video cells > 20 ms late",
        "the share of voice and video cells later than their VC's minimum delay by more than 20 ms",
        False,
        FRACTION,
    ),
    "load": (
        "offered load from the mean parameters",
        "offered load / 6 Mb/s",
        "the offered load over the 6 Mb/s satellite link from the sources' mean "
        "parameters (case 1's reading)",
        False,
        NONNEGATIVE,
    ),
    "load_measured": (
        "offered load as measured",
        "offered load / 6 Mb/s, measured",
        "the offered load over the 6 Mb/s satellite link as the sources sent it",
        False,
        NONNEGATIVE,
    ),
    # Delay counted from the access policer's release: queueing only.
    "data_late": (
        "late data cells",
        "share of data cells > 20 ms late",
        "the share of data cells more than 20 ms late in the network (counted from "
        "the access policer's release: queueing only)",
        False,
        FRACTION,
    ),
    "data_access_hold_s": (
        "data cells' hold at the access",
        "data cells' mean hold at the access (s)",
        "the mean time a data cell is held at the access before it enters the network",
        False,
        NONNEGATIVE,
    ),
    "file_time_s": (
        "mean file-transfer time",
        "mean file-transfer time (s)",
        "the mean time to transfer one file, over the files finished",
        False,
        NONNEGATIVE,
    ),
    "data_throughput": (
        "data throughput",
        "data throughput / 6 Mb/s",
        "the data sources' throughput over the 6 Mb/s satellite link, which carries "
        "at most its rate",
        False,
        FRACTION,
    ),
}
BOUNDS = {metric: bounds for metric, (*_, bounds) in METRICS.items()}
SCENARIOS = {1: "voice and video", 2: "data", 3: "voice, video and data"}
CASES = (
    "the thesis's three cases (1: no policing, no notifications; 2: peak-rate "
    "controllers and leaky buckets at the access with the proactive detector's "
    "notifications; 3: as 2, notifications on discards only)"
)


def write(
    specs: list[RunSpec],
    summaries: dict[tuple[int, int], dict[str, Any]],
    out: Path,
    quick: bool,
) -> list[str]:
    out.mkdir(parents=True, exist_ok=True)
    pp = per_point(specs, summaries, study.metrics)
    pp = plots.with_seed_bands(pp, specs, summaries, study.metrics, BOUNDS)
    written = [plots.write_csv(pp, out / "points.csv")]
    sweep = pp[pp["part"] == "sweep"]
    duration = study.QUICK_DURATION_S if quick else study.DURATION_S
    for n in (1, 2, 3):
        for metric in METRICS:
            sel = sweep[sweep["scenario"] == n]
            if metric not in sel or sel[metric].isna().all():
                continue
            written += _figure(sel, n, metric, duration, out)
    loads = load_table(sweep)
    written.append(plots.write_csv(loads, out / "loads.csv"))
    files = file_time_table(sweep)
    written.append(plots.write_csv(files, out / "file_times.csv"))
    sens = sensitivity_table(pp)
    if not sens.empty:
        written.append(plots.write_csv(sens, out / "sensitivity.csv"))
    activity = activity_table(pp)
    written.append(plots.write_csv(activity, out / "activity.csv"))
    mixes = mix_table(pp)
    written.append(plots.write_csv(mixes, out / "mix.csv"))
    bases = basis_table(pp)
    if not bases.empty:
        written.append(plots.write_csv(bases, out / "rate_basis.csv"))
    _print(loads, files, sens)
    _print_activity(activity, mixes, bases)
    return written


def _figure(sel: pd.DataFrame, n: int, metric: str, duration_s: float, out: Path) -> list[str]:
    what, label, words, log, bounds = METRICS[metric]
    fig, ax = plots.figure("number of sources", label)
    counts: list[int] = []
    for case in study.CASES:
        c = sel[sel["case"] == case]
        counts += plots.banded(ax, c, "sources", metric, f"case {case}", capsize=3)
    scale = ""
    if log:
        # Losses span decades and are often 0: logarithmic above 1e-5,
        # linear below it, so a zero stays on the axis.
        ax.set_yscale("symlog", linthresh=1e-5)
        ax.set_ylim(bottom=0.0)
        scale = " The y axis is logarithmic above 1e-5 and linear below, so 0 is shown."
    plots.title(fig, what, f"scenario {n} ({SCENARIOS[n]} sources)")
    plots.legend(ax)
    caption = (
        f"{words[0].upper() + words[1:]}, against the number of sources in scenario {n} "
        f"({SCENARIOS[n]} sources), under {CASES}. satcc's simulation of {duration_s:g} s "
        f"per run, mean over seeds.{scale} {plots.band_caption(counts, bounds)}"
    )
    return plots.save_figure(fig, out / f"s{n}_{metric}.png", caption)


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
                "mean_parameters_payload_rates": study.mean_load(
                    counts, study.DATA_BUSY, basis="payload"
                ),
                "measured": float(sel["load_measured"].iloc[0]) if len(sel) else math.nan,
            }
        )
    return pd.DataFrame(rows)


# The thesis's file times with the loads it gives for them (section 8.2).
STATED_FILE_TIMES = [(2, 2, 29, 35.0, 0.75), (2, 3, 29, 25.0, 0.9)]


def file_time_table(sweep: pd.DataFrame) -> pd.DataFrame:
    """The thesis's file times and satcc's, each beside what the renewal
    identity (study.renewal_file_time) makes of the load that goes with it:
    the thesis's stated load with rates that count whole cells and with
    rates that count payload, and satcc's measured load."""
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
                "renewal_at_stated_cell_rates_s": study.renewal_file_time(
                    data, study.nominal_bps(stated_load, "cell")
                ),
                "renewal_at_stated_payload_rates_s": study.renewal_file_time(
                    data, study.nominal_bps(stated_load, "payload")
                ),
                "files_finished": measured("files_finished"),
                "measured_time_s": measured("file_time_s"),
                "measured_load": measured("load_measured"),
                "renewal_at_measured_s": measured("file_time_renewal_s"),
            }
        )
    return pd.DataFrame(rows)


def file_time_text(mean_s: float, files: float, seconds: float | None = None) -> str:
    """A mean file time as read: with no file finished there is no mean,
    and saying so beats a NaN."""
    if not files or math.isnan(mean_s):
        within = f" in {seconds:g} s" if seconds else ""
        return f"none finished{within}"
    return f"{mean_s:.1f} s"


def activity_table(pp: pd.DataFrame) -> pd.DataFrame:
    """Each reading of the sources' activity against each statement it
    decides (study.activity_statements), on both load bases."""
    rows = []
    for activity in study.ACTIVITY:
        for basis in study.RATE_BASES:
            for statement, value, holds in study.activity_statements(activity, basis):
                rows.append(
                    {
                        "activity": activity,
                        "default": activity == study.DEFAULT_ACTIVITY,
                        "rate_basis": basis,
                        "statement": statement,
                        "value": value,
                        "holds": holds,
                    }
                )
    return pd.DataFrame(rows)


def mix_table(pp: pd.DataFrame) -> pd.DataFrame:
    """The measured mix and load of case 1 where the mix is judged, under
    each reading of the activity, beside its mean parameters."""
    rows = []
    for n, sources in study.ACTIVITY_POINTS:
        for activity in study.ACTIVITY:
            if activity == study.DEFAULT_ACTIVITY:
                lab = study.label(n, 1, sources)
            else:
                lab = f"{study.label(n, 1, sources)} activity={activity}"
            sel = pp[pp["label"] == lab]
            if sel.empty:
                continue
            r = sel.iloc[0]
            rows.append(
                {
                    "scenario": n,
                    "sources": sources,
                    "activity": activity,
                    "voice_share": r.get("voice_share", math.nan),
                    "video_share": r.get("video_share", math.nan),
                    "data_share": r.get("data_share", math.nan),
                    "load_mean_params": r["load_mean_params"],
                    "load_measured": r["load_measured"],
                    "realtime_loss": r.get("realtime_loss", math.nan),
                }
            )
    return pd.DataFrame(rows)


# What the thesis states at the points the rate basis is run at.
BASIS_STATED = {
    (1, 1, 102): ("realtime_loss", 0.13, "'around 1.2 ... as high as 13%'"),
    (2, 1, 29): ("data_loss", 0.2, "'close to 20% at loads equal to 1.25'"),
    (2, 2, 29): ("file_time_s", 35.0, "'approximately 35 seconds'"),
    (2, 3, 29): ("file_time_s", 25.0, "'around 25 seconds'"),
}


def least_loss(load: float) -> float:
    """The least loss a load allows on a link busy all the time: 1 - 1/load
    when overloaded, none otherwise (a link that carried nothing included)."""
    return 1.0 - 1.0 / load if load > 1.0 else 0.0


def basis_table(pp: pd.DataFrame) -> pd.DataFrame:
    """Each point of study.BASIS_POINTS under both readings of what the
    rates count: the loss or file time the thesis states there, the
    measured load and, for an overloaded link, the least loss the load
    allows (1 - 1/load: a link busy all the time carries at most its
    rate)."""
    rows = []
    for (n, case, sources), (metric, stated, words) in BASIS_STATED.items():
        for basis in study.RATE_BASES:
            lab = study.label(n, case, sources)
            if basis != study.RATE_BASIS:
                lab += f" rates={basis}"
            sel = pp[pp["label"] == lab]
            if sel.empty:
                continue
            r = sel.iloc[0]
            load = float(r["load_measured"])
            rows.append(
                {
                    "scenario": n,
                    "case": case,
                    "sources": sources,
                    "rate_basis": basis,
                    "metric": metric,
                    "stated": stated,
                    "thesis": words,
                    "measured": float(r[metric]),
                    "ci": float(r.get(f"{metric}_ci", math.nan)),
                    "load_measured": load,
                    "least_loss_at_load": least_loss(load),
                }
            )
    return pd.DataFrame(rows)


def _print_activity(activity: pd.DataFrame, mixes: pd.DataFrame, bases: pd.DataFrame) -> None:
    console = table_console()
    t = Table(title="proactive-atm: the statements each reading of the sources' activity meets")
    t.add_column("statement")
    readings = list(study.ACTIVITY)
    for a in readings:
        t.add_column(a + (" (default)" if a == study.DEFAULT_ACTIVITY else ""))
    ours = activity[activity["rate_basis"] == study.RATE_BASIS]
    for statement in ours["statement"].unique():
        cells = []
        for a in readings:
            r = ours[(ours["statement"] == statement) & (ours["activity"] == a)].iloc[0]
            cells.append(f"{r['value']:.3f} {'yes' if r['holds'] else 'no'}")
        t.add_row(statement, *cells)
    for basis in study.RATE_BASES:
        sel = activity[activity["rate_basis"] == basis]
        met = [str(int(sel[sel["activity"] == a]["holds"].sum())) for a in readings]
        t.add_row(f"statements met (rates count {basis} bits)", *met)
    console.print(t)
    if mixes.empty:
        return
    t = Table(
        "scenario",
        "sources",
        "activity",
        "voice",
        "video",
        "data",
        "load",
        title="proactive-atm: measured mix, case 1, by reading of the activity",
    )
    for r in mixes.itertuples(index=False):
        t.add_row(
            str(r.scenario),
            str(r.sources),
            r.activity,
            _pct(r.voice_share),
            _pct(r.video_share),
            _pct(r.data_share),
            f"{r.load_measured:.3f}",
        )
    console.print(t)
    if bases.empty:
        return
    t = Table(
        "run",
        "rates count",
        "metric",
        "thesis",
        "measured",
        "load",
        "least loss",
        title="proactive-atm: rates counting whole cells or payload, where the thesis says",
    )
    for r in bases.itertuples(index=False):
        t.add_row(
            study.label(r.scenario, r.case, r.sources),
            r.rate_basis,
            r.metric,
            f"{r.stated:g}",
            f"{r.measured:.3g}",
            f"{r.load_measured:.3f}",
            f"{r.least_loss_at_load:.3f}" if r.load_measured > 1 else "-",
        )
    console.print(t)


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
    columns = ("scenario", "case", "sources", "mix", "stated", "mean params")
    t = Table(
        *columns,
        "(payload rates)",
        "measured",
        title="proactive-atm: the thesis's loads beside the arithmetic of its parameters",
    )
    for r in loads.itertuples(index=False):
        t.add_row(
            str(r.scenario),
            str(r.case),
            str(r.sources),
            r.mix,
            f"{r.stated:g}",
            f"{r.mean_parameters:.2f}",
            f"{r.mean_parameters_payload_rates:.2f}",
            "-" if math.isnan(r.measured) else f"{r.measured:.2f}",
        )
    console.print(t)
    columns = ("case", "sources", "stated", "load", "renewal (cell rates)", "(payload rates)")
    t = Table(
        *columns,
        "measured",
        "load",
        "renewal",
        title="proactive-atm: file times against the renewal identity of their loads",
    )
    for r in files.itertuples(index=False):
        t.add_row(
            str(r.case),
            str(r.sources),
            f"{r.stated_time_s:.1f} s",
            f"{r.stated_load:g}",
            f"{r.renewal_at_stated_cell_rates_s:.1f} s",
            f"{r.renewal_at_stated_payload_rates_s:.1f} s",
            file_time_text(r.measured_time_s, r.files_finished),
            f"{r.measured_load:.3f}",
            f"{r.renewal_at_measured_s:.1f} s",
        )
    console.print(t)
    if sens.empty:
        return
    columns = ("scenario", "case", "variant", "RT loss", "RT late", "data loss", "load")
    t = Table(
        *columns,
        "CLP=1 marked",
        title="proactive-atm: sensitivity to the bucket depth and the detector's choices",
    )
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
