"""The figures and tables of the tfrc-dama study: Figs. 3-9 of the paper as
PNG with their data as CSV (for the default TFRC profile, ns-2's), the fluid
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
    fluids, curves = {}, {}
    for profile, res in results.items():
        curves[profile] = fluid_curves(res)
        fluids[profile] = fluid_comparison(res, curves[profile]).assign(profile=profile)
    fluid = pd.concat(fluids.values(), ignore_index=True)
    write_atomic(out / "fluid_vs_packets.csv", fluid.to_csv(index=False, lineterminator="\n"))
    fig = _fig_fluid_vs_packets(r, curves[study.DEFAULT_PROFILE], out)
    written += ["fluid_vs_packets.csv", fig]
    written.append(_fig7(out))
    tq = tq_table(quick)
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


def _figure(xlabel: str, ylabel: str):
    return plots.figure(xlabel, ylabel)


def _save(fig, path: Path) -> str:
    for ax in fig.axes:
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=8)
    return plots.save_png(fig, path)


def _fig_phases(
    r: Results, out: Path, frame: str, names: tuple[str, ...], stem: str, title: str
) -> list[str]:
    """Median E2ED over start phases against generation time, with the
    min-max band (the paper's vertical bars)."""
    rows = []
    fig, ax = _figure("time since the flow started (s)", "E2ED (s)")
    for name in names:
        sweep = r.single.get((frame, name))
        if sweep is None or sweep.e2ed.size == 0:
            continue
        med, lo, hi = sweep.median(), sweep.e2ed.min(axis=0), sweep.e2ed.max(axis=0)
        (line,) = ax.plot(sweep.t, med, label=f"{name} (median of {len(sweep.e2ed)} phases)")
        ax.fill_between(sweep.t, lo, hi, color=line.get_color(), alpha=0.15)
        rows += [
            {"strategy": name, "t_s": t, "median_s": m, "min_s": a, "max_s": b}
            for t, m, a, b in zip(sweep.t, med, lo, hi, strict=True)
        ]
    ax.set_title(f"{title}: one 256 kb/s flow, {frame} frame")
    write_atomic(out / f"{stem}.csv", pd.DataFrame(rows).to_csv(index=False, lineterminator="\n"))
    return [f"{stem}.csv", _save(fig, out / f"{stem}.png")]


def _fig4(r: Results, out: Path) -> list[str]:
    sweep = r.single.get(("large", "DAMA+QS"))
    if sweep is None or sweep.e2ed.size == 0:
        return []
    fig, ax = _figure("time since the flow started (s)", "delay (s)")
    rows = {"t_s": sweep.t}
    for what, data in (("E2ED", sweep.e2ed), ("OWD", sweep.owd)):
        med = np.median(data, axis=0)
        (line,) = ax.plot(sweep.t, med, label=f"{what}, median over phases")
        ax.fill_between(
            sweep.t, data.min(axis=0), data.max(axis=0), color=line.get_color(), alpha=0.15
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
    ax.set_title("Fig. 4: one 256 kb/s flow with DAMA and QS, large frame")
    write_atomic(
        out / "fig4_large.csv", pd.DataFrame(rows).to_csv(index=False, lineterminator="\n")
    )
    return ["fig4_large.csv", _save(fig, out / "fig4_large.png")]


def _fig6(r: Results, out: Path) -> list[str]:
    written = []
    for frame in study.FRAMES:
        fig, ax = _figure("flow rate (kb/s)", "largest E2ED (s)")
        rows = []
        for name in study.FIG6:
            per_rate = r.by_rate.get((frame, name), {})
            rates = sorted(per_rate)
            if not rates:
                continue
            worst = [float(np.max(per_rate[k])) for k in rates]
            median = [float(np.median(per_rate[k])) for k in rates]
            (line,) = ax.plot(rates, worst, marker="o", label=f"{name}, worst phase")
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
        ax.set_title(
            f"Fig. 6: largest E2ED against flow rate, {frame} frame (dashed: median phase)"
        )
        stem = f"fig6_{frame}"
        write_atomic(
            out / f"{stem}.csv", pd.DataFrame(rows).to_csv(index=False, lineterminator="\n")
        )
        written += [f"{stem}.csv", _save(fig, out / f"{stem}.png")]
    return written


def _fig7(out: Path) -> str:
    """The fluid model's four cumulative curves, large frame, T_q = 400 ms."""
    res = simulate(FluidTiming.large(), qsd=True, tq=0.4, duration=20.0)
    fig, ax = _figure("time (s)", "cumulative data (kB)")
    for curve, label in (
        (res.generated, "generator"),
        (res.tfrc_out, "TFRC transmit buffer output"),
        (res.uplink_out, "uplink queue output"),
        (res.received, "receiver"),
    ):
        ax.plot(res.t, curve / 1e3, label=label)
    ax.set_title("Fig. 7: fluid model, large frame, QSD with T_q = 400 ms")
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
    return _save(fig, out / "fig7_fluid.png")


def _fig8(r: Results, out: Path) -> list[str]:
    fig, ax = _figure("time since the flow started (s)", "E2ED (s)")
    rows = []
    for name in study.AGGREGATE:
        agg = r.aggregate.get(name)
        prof = agg.startup.get("iptv", {}) if agg else {}
        if "p50" not in prof:
            continue
        x, med = prof["p50"]
        (line,) = ax.plot(x, med, label=name)
        ax.fill_between(x, prof["p5"][1], prof["p95"][1], color=line.get_color(), alpha=0.12)
        rows += [
            {"strategy": name, "t_s": t, "p5_s": a, "p50_s": m, "p95_s": b}
            for t, a, m, b in zip(x, prof["p5"][1], med, prof["p95"][1], strict=True)
        ]
    ax.set_title("Fig. 8: IPTV start-up E2ED, aggregated scenario (band: 5th-95th percentile)")
    write_atomic(out / "fig8_iptv.csv", pd.DataFrame(rows).to_csv(index=False, lineterminator="\n"))
    return ["fig8_iptv.csv", _save(fig, out / "fig8_iptv.png")]


def _fig9(r: Results, out: Path) -> list[str]:
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(13.0, 4.2), dpi=110)
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
        ax.grid(True, which="both", alpha=0.3)
        ax.set_xlabel("E2ED (s)")
        ax.set_title(f"{c.name} ({c.rate_bps / 1e3:g} kb/s), first 30 s of each flow", fontsize=9)
    axes[0].set_ylabel("fraction of packets with a larger E2ED")
    fig.suptitle("Fig. 9: E2ED distribution per class, aggregated scenario")
    write_atomic(out / "fig9.csv", pd.DataFrame(rows).to_csv(index=False, lineterminator="\n"))
    return ["fig9.csv", _save(fig, out / "fig9.png")]


# --------------------------------------------------------------- the fluid model


def _fluid_kwargs(name: str, timing: FluidTiming) -> dict[str, Any]:
    kw = dict(FLUID_CASES[name])
    if kw.get("tq") == "opt":
        kw["tq"] = timing.tq_opt
    return kw


def fluid_curve(
    frame: str,
    name: str,
    phases_s: list[float],
    feedback: str,
    t: np.ndarray,
    initial_rate: str = "rfc3448",
) -> np.ndarray:
    """The fluid model's E2ED against generation time, averaged over start
    phases (each phase its own fluid run)."""
    timing = FluidTiming.skyplex(frame)
    duration = float(t[-1]) + 10.0
    curves = []
    for phase in phases_s:
        kw = _fluid_kwargs(name, timing)
        res = simulate(
            timing,
            phase=phase,
            duration=duration,
            feedback=feedback,
            initial_rate=initial_rate,
            **kw,
        )
        curves.append(np.interp(t, res.t, res.e2ed()))
    return np.nanmean(curves, axis=0)


# At most this many start phases per fluid curve (spread over the sweep's).
FLUID_PHASES = 24


def fluid_curves(r: Results) -> dict[tuple[str, str, str], np.ndarray]:
    """(frame, strategy, feedback) -> the fluid's mean E2ED over the sweep's
    start phases, on the packets' time axis. The fluid starts as RFC 5348
    does for that profile's runs, else as RFC 3448 (one packet a second
    before the first report; the model has no rule of ns-2's)."""
    initial_rate = "rfc5348" if r.profile == "rfc5348" else "rfc3448"
    out = {}
    for frame in study.FRAMES:
        slot = study.timing(frame)["slot_s"]
        for name in FLUID_CASES:
            sweep = r.single.get((frame, name))
            if sweep is None or sweep.e2ed.size == 0:
                continue
            step = max(1, len(sweep.phases) // FLUID_PHASES)
            phases = [p * slot for p in sweep.phases[::step]]
            for feedback in ("paper", "rfc5348"):
                out[(frame, name, feedback)] = fluid_curve(
                    frame, name, phases, feedback, sweep.t, initial_rate
                )
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


def _fig_fluid_vs_packets(r: Results, curves: dict, out: Path) -> str:
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 1, figsize=(8.0, 7.5), dpi=110)
    for ax, frame in zip(axes, study.FRAMES, strict=True):
        for name in ("DAMA", "DAMA+QS", "QSD Tq=opt"):
            sweep = r.single.get((frame, name))
            if sweep is None or sweep.e2ed.size == 0:
                continue
            (line,) = ax.plot(sweep.t, sweep.median(), label=f"{name}: packets (median)")
            for feedback, style in (("paper", ":"), ("rfc5348", "--")):
                ax.plot(
                    sweep.t,
                    curves[(frame, name, feedback)],
                    linestyle=style,
                    color=line.get_color(),
                    label=f"{name}: fluid, {feedback} reports",
                )
        ax.set_title(f"fluid model against the packet simulation, {frame} frame", fontsize=9)
        ax.set_xlabel("time since the flow started (s)")
        ax.set_ylabel("E2ED (s)")
        ax.grid(True, alpha=0.3)
    return _save(fig, out / "fluid_vs_packets.png")


def tq_table(quick: bool) -> pd.DataFrame:
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
        for feedback in ("paper", "rfc5348"):
            step = 0.05 if quick else 0.01
            tq = tq_opt_numeric(timing, step=step, duration=25.0, feedback=feedback)
            row[f"tq_opt_fluid_{feedback}_ms"] = tq * 1e3
        rows.append(row)
    frame = pd.DataFrame(rows)
    frame["fig9_tq_max_quoted_ms"] = [1230.0, math.nan]
    return frame


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
