"""The figures and tables of the tfrc-dama study: Figs. 3-9 of the paper as
PNG and SVG with their data as CSV (for the default TFRC profile, ns-2's), the fluid
model beside the packet simulation, the T_q values, and for each profile the
transmit-buffer-loss table and the claims table (`claims`)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from rich.table import Table

from satcc.analysis.tfrc_fluid import FluidTiming, simulate, tq_opt_numeric
from satcc.console import table_console
from satcc.executors import map_in_processes
from satcc.studies import plots
from satcc.studies.present import write_atomic
from satcc.studies.spec import RunSpec
from satcc.studies.tfrc_dama import claims
from satcc.studies.tfrc_dama import model as study
from satcc.studies.tfrc_dama.data import Results, gather

FIG3 = ("CRA", "CRA+QS", "DAMA", "DAMA+QS")
FIG5 = ("DAMA", "DAMA+QS", "QSD Tq=0", "QSD Tq=opt", "QSD Tq=max", "QSD Tq=max RTO=3s")
FLUID_CASES = {
    "CRA": {"cra_bps": study.CRA_BPS},
    "DAMA": {},
    "DAMA+QS": {"qs": True},
    "QSD Tq=0": {"qsd": True},
    "QSD Tq=opt": {"qsd": True, "tq": "opt"},
}
# The fluid is compared with the packets after the first second (the issue's
# criterion), on the median over start phases.
FLUID_FROM_S = 1.0
FLUID_TOLERANCE = 0.10


def write(
    specs: list[RunSpec],
    summaries: dict[tuple[int, int], dict[str, Any]],
    series: dict[tuple[int, int], dict[str, Any]],
    out: Path,
    quick: bool,
    jobs: int = 1,
) -> list[str]:
    out.mkdir(parents=True, exist_ok=True)
    results = {p: gather(specs, summaries, series, p) for p in study.PROFILES}
    r = results[study.DEFAULT_PROFILE]
    written: list[str] = []
    for frame in study.FRAMES:
        written += _fig_phases(r, out, frame, FIG3, f"fig3_{frame}", "Fig. 3")
    written += _fig4(r, out)
    written += _fig_phases(r, out, "large", FIG5, "fig5_large", "Fig. 5")
    written += _fig6(r, out)
    fluids = {}
    curves = fluid_curves(results, jobs)
    for profile, res in results.items():
        fluids[profile] = fluid_comparison(res, curves[profile]).assign(profile=profile)
    fluid = pd.concat(fluids.values(), ignore_index=True)
    write_atomic(out / "fluid_vs_packets.csv", fluid.to_csv(index=False, lineterminator="\n"))
    written.append("fluid_vs_packets.csv")
    written += _fig_fluid_vs_packets(r, curves[study.DEFAULT_PROFILE], out)
    written += _fig7(out)
    tq = tq_table(quick, jobs)
    write_atomic(out / "tq.csv", tq.to_csv(index=False, lineterminator="\n"))
    written.append("tq.csv")
    written += _fig8(r, out)
    written += _fig9(r, out)
    loss = buffer_loss_table(results)
    write_atomic(out / "tx_buffer_loss.csv", loss.to_csv(index=False, lineterminator="\n"))
    written.append("tx_buffer_loss.csv")
    judged = pd.concat(
        [
            claims.claims_table(res, fluids[profile], quick).assign(profile=profile)
            for profile, res in results.items()
        ],
        ignore_index=True,
    )
    write_atomic(out / "claims.csv", judged.to_csv(index=False, lineterminator="\n"))
    written.append("claims.csv")
    _print(tq, fluid, loss, judged)
    # The figures were drawn into `out` by name; keep the list in order.
    return [w for w in written if w]


# --------------------------------------------------------------- drawing

STRATEGIES = (
    "CRA: constant rate assignment, a fifth of the channel to each terminal; DAMA: "
    "capacity on demand; +QS: with Quick-Start; QSD: the QSD method, its request held "
    "T_q (0, eq. (6)'s optimum, eq. (3)'s maximum)"
)
SIMULATED = "satcc's packet simulation, TFRC as ns-2.35 runs it (the ns2 profile)"


def _save(fig: Any, path: Path, what: str, condition: str, caption: str) -> list[str]:
    """Title, legend and save; panels draw the same series, so the first
    panel's legend serves them all."""
    plots.title(fig, what, condition)
    plots.legend(fig.axes[0])
    return plots.save_figure(fig, path, caption)


def _fig_phases(
    r: Results, out: Path, frame: str, names: tuple[str, ...], stem: str, title: str
) -> list[str]:
    """Median E2ED over start phases against generation time, with the
    min-max band (the paper's vertical bars)."""
    rows = []
    fig, ax = plots.figure("time the packet was generated, since the flow started (s)", "E2ED (s)")
    phases = set()
    for name in names:
        sweep = r.single.get((frame, name))
        if sweep is None or sweep.e2ed.size == 0:
            continue
        med, lo, hi = sweep.median(), sweep.e2ed.min(axis=0), sweep.e2ed.max(axis=0)
        phases.add(len(sweep.e2ed))
        (line,) = ax.plot(sweep.t, med, label=name)
        ax.fill_between(sweep.t, lo, hi, color=line.get_color(), alpha=0.15, linewidth=0)
        rows += [
            {"strategy": name, "t_s": t, "median_s": m, "min_s": a, "max_s": b}
            for t, m, a, b in zip(sweep.t, med, lo, hi, strict=True)
        ]
    write_atomic(out / f"{stem}.csv", pd.DataFrame(rows).to_csv(index=False, lineterminator="\n"))
    caption = (
        f"As the paper's {title}: the end-to-end delay (E2ED, generation to delivery) of "
        f"one 256 kb/s flow of 1316-byte packets against when each packet was generated, "
        f"on the {frame} frame, per strategy ({STRATEGIES}). Lines: the median over the "
        f"flow's {_phases_text(phases)} start phases (one per slot of the super-frame) of "
        f"{SIMULATED}; shaded: min-max over those phases (the paper's vertical bars)."
    )
    return [f"{stem}.csv"] + _save(
        fig, out / f"{stem}.png", "E2ED of one 256 kb/s flow", f"{frame} frame", caption
    )


def _phases_text(phases: set[int]) -> str:
    return "/".join(str(n) for n in sorted(phases)) or "no"


def _fig4(r: Results, out: Path) -> list[str]:
    sweep = r.single.get(("large", "DAMA+QS"))
    if sweep is None or sweep.e2ed.size == 0:
        return []
    fig, ax = plots.figure("time the packet was generated, since the flow started (s)", "delay (s)")
    rows = {"t_s": sweep.t}
    for what, data in (("E2ED", sweep.e2ed), ("OWD", sweep.owd)):
        med = np.median(data, axis=0)
        (line,) = ax.plot(sweep.t, med, label=what)
        ax.fill_between(
            sweep.t,
            data.min(axis=0),
            data.max(axis=0),
            color=line.get_color(),
            alpha=0.15,
            linewidth=0,
        )
        rows[f"{what.lower()}_median_s"] = med
        rows[f"{what.lower()}_min_s"] = data.min(axis=0)
        rows[f"{what.lower()}_max_s"] = data.max(axis=0)
    for key, label in (
        ("first_report_s", "QS-Response (a-b)"),
        ("qs_validated_s", "second report (c)"),
    ):
        at = float(np.nanmedian(sweep.per_run(key)))
        if math.isfinite(at):
            ax.axvline(at, color="grey", linestyle=":")
            ax.annotate(label, (at, ax.get_ylim()[1] * 0.95), fontsize=7, rotation=90, va="top")
    write_atomic(
        out / "fig4_large.csv", pd.DataFrame(rows).to_csv(index=False, lineterminator="\n")
    )
    caption = (
        "As the paper's Fig. 4: the end-to-end delay (E2ED, generation to delivery) and the "
        "one-way delay (OWD, from when the packet left the TFRC sender) of one 256 kb/s flow "
        "with DAMA and Quick-Start on the large frame. Lines: the median over "
        f"{len(sweep.e2ed)} start phases of {SIMULATED}; shaded: min-max over the phases; "
        "dotted verticals: the median times of the QS-Response and of the second feedback "
        "report (the paper's a-b and c)."
    )
    return ["fig4_large.csv"] + _save(
        fig,
        out / "fig4_large.png",
        "Delays of one 256 kb/s flow with DAMA and QS",
        "large frame",
        caption,
    )


def _fig6(r: Results, out: Path) -> list[str]:
    written = []
    for frame in study.FRAMES:
        fig, ax = plots.figure("flow rate (kb/s)", "largest E2ED (s)")
        rows = []
        phases = set()
        for name in study.FIG6:
            per_rate = r.by_rate.get((frame, name), {})
            rates = sorted(per_rate)
            if not rates:
                continue
            worst = [float(np.max(per_rate[k])) for k in rates]
            median = [float(np.median(per_rate[k])) for k in rates]
            phases.update(len(per_rate[k]) for k in rates)
            (line,) = ax.plot(rates, worst, marker="o", label=name)
            ax.plot(rates, median, marker=".", linestyle="--", color=line.get_color(), alpha=0.7)
            rows += [
                {
                    "strategy": name,
                    "rate_kbps": k,
                    "max_s": w,
                    "median_s": m,
                    "phases": len(per_rate[k]),
                }
                for k, w, m in zip(rates, worst, median, strict=True)
            ]
        ax.plot([], [], color="grey", linestyle="--", marker=".", label="dashed: median phase")
        stem = f"fig6_{frame}"
        write_atomic(
            out / f"{stem}.csv", pd.DataFrame(rows).to_csv(index=False, lineterminator="\n")
        )
        caption = (
            "As the paper's Fig. 6: the largest end-to-end delay (E2ED) of one flow's packets "
            f"against the flow's rate on the {frame} frame, per strategy ({STRATEGIES}). "
            f"{SIMULATED[0].upper() + SIMULATED[1:]}: solid with circles, the worst of "
            f"{_phases_text(phases)} start phases; dashed, the median phase."
        )
        written += [f"{stem}.csv"] + _save(
            fig,
            out / f"{stem}.png",
            "Largest E2ED against the flow rate",
            f"{frame} frame",
            caption,
        )
    return written


def _fig7(out: Path) -> list[str]:
    """The fluid model's four cumulative curves, large frame, T_q = 400 ms."""
    res = simulate(FluidTiming.large(), qsd=True, tq=0.4, duration=20.0)
    fig, ax = plots.figure("time (s)", "cumulative data (kB)")
    for curve, label in (
        (res.generated, "generator"),
        (res.tfrc_out, "TFRC transmit buffer output"),
        (res.uplink_out, "uplink queue output"),
        (res.received, "receiver"),
    ):
        ax.plot(res.t, curve / 1e3, label=label)
    frame = pd.DataFrame(
        {
            "t_s": res.t[::10],
            "generated_bytes": res.generated[::10],
            "tfrc_out_bytes": res.tfrc_out[::10],
            "uplink_out_bytes": res.uplink_out[::10],
            "received_bytes": res.received[::10],
        }
    )
    write_atomic(out / "fig7_fluid.csv", frame.to_csv(index=False, lineterminator="\n"))
    caption = (
        "As the paper's Fig. 7: the fluid model's (satcc.analysis.tfrc_fluid) cumulative data "
        "generated, leaving the TFRC transmit buffer, leaving the uplink queue and received, "
        "for one 256 kb/s flow on the large frame under QSD with T_q = 400 ms. One "
        "deterministic run: no spread to show."
    )
    return _save(
        fig,
        out / "fig7_fluid.png",
        "Fluid model's cumulative data",
        "large frame, QSD, T_q = 400 ms",
        caption,
    )


def _fig8(r: Results, out: Path) -> list[str]:
    fig, ax = plots.figure("time since the flow started (s)", "E2ED (s)")
    rows = []
    for name in study.AGGREGATE:
        agg = r.aggregate.get(name)
        prof = agg.startup.get("iptv", {}) if agg else {}
        if "p50" not in prof:
            continue
        x, med = prof["p50"]
        (line,) = ax.plot(x, med, label=name)
        ax.fill_between(
            x, prof["p5"][1], prof["p95"][1], color=line.get_color(), alpha=0.12, linewidth=0
        )
        rows += [
            {"strategy": name, "t_s": t, "p5_s": a, "p50_s": m, "p95_s": b}
            for t, a, m, b in zip(x, prof["p5"][1], med, prof["p95"][1], strict=True)
        ]
    write_atomic(out / "fig8_iptv.csv", pd.DataFrame(rows).to_csv(index=False, lineterminator="\n"))
    caption = (
        "As the paper's Fig. 8: the end-to-end delay (E2ED) of the IPTV flows' packets "
        "against the time since their flow started, in the aggregated scenario (VoIP, "
        "videophone and IPTV flows arriving at random between five terminals, large "
        f"frame), per strategy; {SIMULATED}. Lines: each seed's median over its IPTV "
        "packets, averaged over the seeds; shaded: the 5th and 95th percentiles, likewise."
    )
    return ["fig8_iptv.csv"] + _save(
        fig, out / "fig8_iptv.png", "IPTV start-up E2ED", "aggregated scenario", caption
    )


def _fig9(r: Results, out: Path) -> list[str]:
    fig, axes = plots.figure(
        "E2ED (s)", "share of packets with a larger E2ED", size=(13.0, 4.4), ncols=3, sharey=True
    )
    rows = []
    for ax, c in zip(axes, study.CLASSES, strict=True):
        for name in study.AGGREGATE:
            agg = r.aggregate.get(name)
            if agg is None or c.name not in agg.cdf:
                continue
            x, y = agg.cdf[c.name]
            ax.step(x, 1 - y, where="post", label=name)
            rows += [
                {"class": c.name, "strategy": name, "e2ed_s": a, "cdf": b}
                for a, b in zip(x, y, strict=True)
            ]
        ax.set_yscale("log")
        ax.set_ylim(1e-5, 1.5)
        plots.panel_title(ax, f"{c.name} ({c.rate_bps / 1e3:g} kb/s)")
    write_atomic(out / "fig9.csv", pd.DataFrame(rows).to_csv(index=False, lineterminator="\n"))
    caption = (
        "As the paper's Fig. 9: for each class of the aggregated scenario, the share of its "
        "packets whose end-to-end delay (E2ED) exceeds the value on the x axis (the "
        "complementary distribution), over each flow's first 30 s, per strategy; "
        f"{SIMULATED}, the seeds' distributions averaged."
    )
    return ["fig9.csv"] + _save(
        fig,
        out / "fig9.png",
        "E2ED distribution per class",
        "aggregated scenario, first 30 s of each flow",
        caption,
    )


# --------------------------------------------------------------- the fluid model


def _fluid_kwargs(name: str, timing: FluidTiming) -> dict[str, Any]:
    kw = dict(FLUID_CASES[name])
    if kw.get("tq") == "opt":
        kw["tq"] = timing.tq_opt
    return kw


def fluid_e2ed(
    frame: str, name: str, phase: float, feedback: str, t: np.ndarray, initial_rate: str
) -> np.ndarray:
    """One start phase's fluid run: its E2ED on the packets' time axis `t`."""
    timing = FluidTiming.skyplex(frame)
    res = simulate(
        timing,
        phase=phase,
        duration=float(t[-1]) + 10.0,
        feedback=feedback,
        initial_rate=initial_rate,
        **_fluid_kwargs(name, timing),
    )
    return np.interp(t, res.t, res.e2ed())


# At most this many start phases per fluid curve (spread over the sweep's).
FLUID_PHASES = 24


def fluid_curves(
    results: dict[str, Results], jobs: int = 1
) -> dict[str, dict[tuple[str, str, str], np.ndarray]]:
    """Per profile, (frame, strategy, feedback) -> the fluid's mean E2ED over
    the sweep's start phases (each phase its own fluid run, on up to `jobs`
    processes), on the packets' time axis. The fluid starts as RFC 5348 does
    for that profile's runs, else as RFC 3448 (one packet a second before
    the first report; the model has no rule of ns-2's)."""
    curves: list[tuple[str, tuple[str, str, str]]] = []
    calls: list[tuple] = []
    for profile, r in results.items():
        initial_rate = "rfc5348" if r.profile == "rfc5348" else "rfc3448"
        for frame in study.FRAMES:
            slot = study.timing(frame)["slot_s"]
            for name in FLUID_CASES:
                sweep = r.single.get((frame, name))
                if sweep is None or sweep.e2ed.size == 0:
                    continue
                step = max(1, len(sweep.phases) // FLUID_PHASES)
                phases = [p * slot for p in sweep.phases[::step]]
                for feedback in ("paper", "rfc5348"):
                    curves.append((profile, (frame, name, feedback)))
                    calls.append(
                        [(frame, name, p, feedback, sweep.t, initial_rate) for p in phases]
                    )
    # One pool for every phase of every curve: 1141 fluid runs in full mode.
    flat = map_in_processes(fluid_e2ed, [c for per_curve in calls for c in per_curve], jobs)
    out: dict[str, dict[tuple[str, str, str], np.ndarray]] = {p: {} for p in results}
    start = 0
    for (profile, key), per_curve in zip(curves, calls, strict=True):
        out[profile][key] = np.nanmean(flat[start : start + len(per_curve)], axis=0)
        start += len(per_curve)
    return out


def fluid_comparison(r: Results, curves: dict) -> pd.DataFrame:
    """Fluid (the paper's report schedule, and the RFC receiver's) against
    the packet simulation's median over phases: mean and 90th-percentile
    relative difference after the first second, and the peaks."""
    rows = []
    for (frame, name, feedback), fl in curves.items():
        sweep = r.single[(frame, name)]
        med = sweep.median()
        after = sweep.t > FLUID_FROM_S
        rel = np.abs(fl[after] - med[after]) / med[after]
        rows.append(
            {
                "frame": frame,
                "strategy": name,
                "feedback": feedback,
                "packet_peak_s": float(med.max()),
                "fluid_peak_s": float(np.nanmax(fl)),
                "mean_rel_diff": float(np.nanmean(rel)),
                "p90_rel_diff": float(np.nanpercentile(rel, 90)),
                "within_10pct": bool(np.nanmean(rel) <= FLUID_TOLERANCE),
            }
        )
    return pd.DataFrame(rows)


def _fig_fluid_vs_packets(r: Results, curves: dict, out: Path) -> list[str]:
    fig, axes = plots.figure(
        "time the packet was generated, since the flow started (s)",
        "E2ED (s)",
        size=(8.0, 7.5),
        nrows=2,
    )
    phases = set()
    for ax, frame in zip(axes, study.FRAMES, strict=True):
        for name in ("DAMA", "DAMA+QS", "QSD Tq=opt"):
            sweep = r.single.get((frame, name))
            if sweep is None or sweep.e2ed.size == 0:
                continue
            phases.add(len(sweep.e2ed))
            (line,) = ax.plot(sweep.t, sweep.median(), label=f"{name}: packets (median)")
            for feedback, style in (("paper", ":"), ("rfc5348", "--")):
                ax.plot(
                    sweep.t,
                    curves[(frame, name, feedback)],
                    linestyle=style,
                    color=line.get_color(),
                    label=f"{name}: fluid, {feedback} reports",
                )
        plots.panel_title(ax, f"{frame} frame")
    caption = (
        "The fluid model (satcc.analysis.tfrc_fluid; dotted: feedback reports on the "
        "paper's schedule, dashed: on RFC 5348's receiver's) against the packet simulation "
        f"(solid: the median over {_phases_text(phases)} start phases of {SIMULATED}): the "
        "end-to-end delay of one 256 kb/s flow against when each packet was generated. "
        f"The fluid curves are the mean over up to {FLUID_PHASES} of the same start phases."
    )
    return _save(
        fig,
        out / "fluid_vs_packets.png",
        "Fluid model against the packet simulation",
        "E2ED of one 256 kb/s flow",
        caption,
    )


def tq_table(quick: bool, jobs: int = 1) -> pd.DataFrame:
    """T_q,opt and T_q,max: eq. (6)/(3) from the model's timing, the values
    the paper quotes, and T_q,opt found on the fluid model (the smallest T_q
    on a 10 ms grid, 50 ms in quick mode, with no second hump)."""
    quoted_opt = {"large": 520.0, "small": 55.0}
    quoted_max = {"large": 1273.0, "small": 339.0}
    rows = []
    for frame in study.FRAMES:
        timing = FluidTiming.skyplex(frame)
        row = {
            "frame": frame,
            "tq_opt_eq6_ms": timing.tq_opt * 1e3,
            "tq_opt_quoted_ms": quoted_opt[frame],
            "tq_max_eq3_ms": timing.tq_max * 1e3,
            "tq_max_table1_ms": quoted_max[frame],
        }
        rows.append(row)
    # The numeric search, one frame and feedback rule per process.
    step = 0.05 if quick else 0.01
    cases = [(row["frame"], feedback) for row in rows for feedback in ("paper", "rfc5348")]
    found = map_in_processes(_tq_opt_fluid, [(f, fb, step) for f, fb in cases], jobs)
    for (frame_name, feedback), tq in zip(cases, found, strict=True):
        row = next(r for r in rows if r["frame"] == frame_name)
        row[f"tq_opt_fluid_{feedback}_ms"] = tq * 1e3
    frame = pd.DataFrame(rows)
    frame["fig9_tq_max_quoted_ms"] = [1230.0, math.nan]
    return frame


def _tq_opt_fluid(frame: str, feedback: str, step: float) -> float:
    return tq_opt_numeric(FluidTiming.skyplex(frame), step=step, duration=25.0, feedback=feedback)


# --------------------------------------------------------------- the aggregated scenario


def buffer_loss_table(results: dict[str, Results]) -> pd.DataFrame:
    """Table III's quantity: the fraction of packets lost to transmit-buffer
    overflow, per profile, strategy and class, over whole flows (`CLASS`)
    and over each flow's first 30 s (`CLASS_30s`, Fig. 9's window; the
    paper's values are withheld)."""
    rows = []
    for profile, r in results.items():
        for name in study.AGGREGATE:
            agg = r.aggregate.get(name)
            if agg is None:
                continue
            row: dict[str, Any] = {"profile": profile, "strategy": name}
            for c in study.CLASSES:
                row[c.name] = agg.metrics[f"{c.name}_tx_buffer_loss"]
                row[f"{c.name}_30s"] = agg.metrics[f"{c.name}_window_tx_buffer_loss"]
            rows.append(row)
    return pd.DataFrame(rows)


# --------------------------------------------------------------- terminal


def _tq_text(ms: float) -> str:
    return f"{ms:.0f}" if math.isfinite(ms) else "none up to T_q,max"


def _print(tq: pd.DataFrame, fluid: pd.DataFrame, loss: pd.DataFrame, claims: pd.DataFrame) -> None:
    console = table_console()
    t = Table(title="tfrc-dama: T_q (ms), from the model's timing and from the fluid model")
    for col in (
        "frame",
        "eq. (6)",
        "quoted",
        "fluid, paper reports",
        "fluid, RFC reports",
        "eq. (3)",
        "Table I",
    ):
        t.add_column(col, justify="left" if col == "frame" else "right")
    for row in tq.itertuples(index=False):
        t.add_row(
            row.frame,
            f"{row.tq_opt_eq6_ms:.1f}",
            f"{row.tq_opt_quoted_ms:g}",
            _tq_text(row.tq_opt_fluid_paper_ms),
            _tq_text(row.tq_opt_fluid_rfc5348_ms),
            f"{row.tq_max_eq3_ms:.1f}",
            f"{row.tq_max_table1_ms:g}",
        )
    console.print(t)
    t = Table(title="tfrc-dama: fluid model against packets (median over phases, after 1 s)")
    for col in (
        "frame",
        "strategy",
        "reports",
        "peak pkt",
        "peak fluid",
        "mean |diff|",
        "within 10 %",
    ):
        t.add_column(col)
    for row in fluid[fluid["profile"] == study.DEFAULT_PROFILE].itertuples(index=False):
        t.add_row(
            row.frame,
            row.strategy,
            row.feedback,
            f"{row.packet_peak_s:.2f} s",
            f"{row.fluid_peak_s:.2f} s",
            f"{100 * row.mean_rel_diff:.0f} %",
            "yes" if row.within_10pct else "no",
        )
    console.print(t)
    for profile in study.PROFILES:
        rows = loss[loss["profile"] == profile].to_dict(orient="records")
        if not rows:
            continue
        t = Table(
            title=f"tfrc-dama, TFRC {profile}: packets lost to transmit-buffer overflow "
            "(Table III's quantity), whole flows / each flow's first 30 s"
        )
        t.add_column("strategy")
        for c in study.CLASSES:
            t.add_column(f"{c.name} ({c.buffer} pkt)", justify="right")
        for row in rows:
            t.add_row(
                row["strategy"],
                *(
                    f"{100 * row[c.name]:.3f} / {100 * row[c.name + '_30s']:.3f} %"
                    for c in study.CLASSES
                ),
            )
        console.print(t)
    for profile in study.PROFILES:
        part = claims[claims["profile"] == profile]
        t = Table(
            title=f"tfrc-dama, TFRC {profile}: the paper's claims, checked on the measured numbers"
        )
        for col in ("claim", "measured", "criterion", "holds"):
            t.add_column(col, overflow="fold")
        for _, row in part.iterrows():
            holds = {True: "HOLDS", False: "DOES NOT HOLD"}.get(row["holds"], "-")
            t.add_row(row["claim"], str(row["measured"]), row["criterion"], holds)
        console.print(t)
