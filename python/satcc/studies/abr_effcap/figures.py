"""The curves and the claims table of the abr-effcap study: each figure
group as CSV and PNG with the paper's axes (efficiency against τ/Δ, Δ or
M), the section 3 analysis beside the simulation in Figs. 8-9, and the
paper's claims checked one by one on the measured numbers."""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from rich.table import Table

from satcc.analysis.effcap import efficiency_bounds
from satcc.console import table_console
from satcc.studies import plots
from satcc.studies.abr_effcap import model as study
from satcc.studies.present import write_atomic
from satcc.studies.spec import RunSpec

LOW_FRACTION = study.LOW_BPS / (study.HIGH_BPS + study.LOW_BPS) * 2


def _figure(xlabel: str):
    return plots.figure(xlabel, "efficiency (TCP throughput / mean capacity)")


def _save(fig, ax, path: Path) -> str:
    ax.legend(fontsize=8)
    return plots.save_png(fig, path)


def _curve(ax, frame: pd.DataFrame, x: str, label: str, y: str = "efficiency") -> None:
    frame = frame.sort_values(x)
    if frame.empty:
        return
    ax.errorbar(frame[x], frame[y], yerr=frame[f"{y}_ci"], marker="o", capsize=3, label=label)


def _select(pp: pd.DataFrame, **where: Any) -> pd.DataFrame:
    mask = np.ones(len(pp), dtype=bool)
    for k, v in where.items():
        mask &= (pp[k] == v).to_numpy()
    return pp[mask]


def write(
    specs: list[RunSpec], summaries: dict[tuple[int, int], dict[str, Any]], out: Path, quick: bool
) -> list[str]:
    out.mkdir(parents=True, exist_ok=True)
    pp = study.per_point(specs, summaries)
    written = ["points.csv"]
    write_atomic(out / "points.csv", pp.to_csv(index=False, lineterminator="\n"))
    written += _figs_8_to_14(pp, out)
    if not quick:
        written += _figs_16_to_19(pp, out)
        written += _figs_20_to_23(pp, out)
    claims = claims_table(pp, quick)
    write_atomic(out / "claims.csv", claims.to_csv(index=False, lineterminator="\n"))
    written.append("claims.csv")
    print_claims(claims)
    return written


def _analysis(psis: np.ndarray, buffer: int, scheme: str) -> tuple[np.ndarray, np.ndarray]:
    rows = [efficiency_bounds(psi, 40, buffer, scheme) for psi in psis]
    return np.array([r.conservative for r in rows]), np.array([r.optimistic for r in rows])


def _figs_8_to_14(pp: pd.DataFrame, out: Path) -> list[str]:
    written = []
    a = _select(pp, group="a", delta_ms="200")
    psis = np.array(sorted(p for p in a["psi"].unique() if p >= 1))
    for name, scheme, analysis in (("fig8", "instcap", "instcap"), ("fig9", "alone", "tcp_alone")):
        fig, ax = _figure("mean time per state / round-trip delay (τ/Δ)")
        ax.set_xscale("log")
        for buffer in (10, 12):
            _curve(
                ax, _select(a, scheme=scheme, buffer=buffer), "psi", f"simulation, {buffer} packets"
            )
            if len(psis):
                cons, opt = _analysis(psis, buffer, analysis)
                ax.plot(psis, cons, "--", label=f"conservative analysis, {buffer} packets")
                ax.plot(psis, opt, ":", label=f"optimistic analysis, {buffer} packets")
        written.append(_save(fig, ax, out / f"{name}_{scheme}_analysis.png"))
    fig, ax = _figure("τ/Δ")
    ax.set_xscale("log")
    for buffer in (8, 12):
        for scheme in ("alone", "instcap"):
            _curve(
                ax, _select(a, scheme=scheme, buffer=buffer), "psi", f"{scheme}, {buffer} packets"
            )
    written.append(_save(fig, ax, out / "fig10_alone_vs_instcap.png"))
    c = _select(pp, group="c", delta_ms="200")
    for buffer in (8, 10, 12):
        if _select(c, buffer=buffer).empty:
            continue
        fig, ax = _figure("τ/Δ")
        ax.set_xscale("log")
        _curve(ax, _select(a, scheme="instcap", buffer=buffer), "psi", "instcap")
        _curve(ax, _select(c, buffer=buffer), "psi", "effcap (M = Δ/T, N = 8Δ/T)")
        ax.axhline(LOW_FRACTION, color="grey", lw=0.8, label="low-rate fraction")
        written.append(_save(fig, ax, out / f"fig11_14_instcap_vs_effcap_{buffer}.png"))
    return written


def _figs_16_to_19(pp: pd.DataFrame, out: Path) -> list[str]:
    written = []
    d = _select(pp, group="d-delta").copy()
    d["delta_s"] = d["delta_ms"].astype(float) / 1e3
    d["tau_s"] = d["psi"] * d["delta_s"]
    for tau, name in ((1.0, "fig16"), (0.1, "fig17")):
        fig, ax = _figure("round-trip delay Δ (s)")
        for scheme in ("instcap", "effcap"):
            sel = d[np.isclose(d["tau_s"], tau) & (d["scheme"] == scheme)]
            _curve(ax, sel, "delta_s", f"{scheme}, τ = {tau * 1e3:g} ms")
        written.append(_save(fig, ax, out / f"{name}_delta_tau{tau * 1e3:g}ms.png"))
    for rule, name in (("fixed", "fig18"), ("12delta", "fig19")):
        m = _select(pp, group=f"d-M-{rule}").copy()
        m["M"] = m["blocks"].str.split("x").str[0].astype(int)
        fig, ax = _figure("M (measurement intervals per block)")
        for delta in sorted(m["delta_ms"].unique(), key=float):
            for psi in sorted(m["psi"].unique()):
                sel = m[(m["delta_ms"] == delta) & (m["psi"] == psi)]
                _curve(ax, sel, "M", f"Δ = {delta} ms, τ/Δ = {psi:g}")
        written.append(_save(fig, ax, out / f"{name}_M_n_{rule}.png"))
    return written


def _figs_20_to_23(pp: pd.DataFrame, out: Path) -> list[str]:
    written = []
    e = _select(pp, group="e")
    for case, name in ((1.0, "fig20_22"), (2.0, "fig21_23")):
        fig, ax = _figure("τ / larger Δ")
        ax.set_xscale("log")
        sel = e[(e["scheme"] == "effcap") & (e["case"] == case)]
        _curve(ax, sel, "psi", "effcap, session 1 (240 ms)", "efficiency_1")
        _curve(ax, sel, "psi", "effcap, session 2 (360 ms)", "efficiency_2")
        alone = e[e["scheme"] == "alone"]
        _curve(ax, alone, "psi", "TCP alone, session 1", "efficiency_1")
        _curve(ax, alone, "psi", "TCP alone, session 2", "efficiency_2")
        written.append(_save(fig, ax, out / f"{name}_two_sessions_case{case:g}.png"))
    return written


# ---------------------------------------------------------------------------
# Claims


def _eff(pp: pd.DataFrame, **where: Any) -> tuple[float, float]:
    sel = _select(pp, **where)
    if sel.empty:
        return math.nan, math.nan
    return float(sel["efficiency"].iloc[0]), float(sel["efficiency_ci"].iloc[0])


def claims_table(pp: pd.DataFrame, quick: bool) -> pd.DataFrame:
    rows = [c(pp) for c in CLAIMS]
    frame = pd.DataFrame(rows, columns=["claim", "source", "measured", "criterion", "holds"])
    if quick:
        frame["measured"] = frame["measured"].where(frame["holds"].notna(), "not run in quick mode")
    return frame


def _row(claim: str, source: str, measured: str, criterion: str, holds: bool | None) -> dict:
    return {
        "claim": claim,
        "source": source,
        "measured": measured,
        "criterion": criterion,
        "holds": holds,
    }


def _ratio_text(r: float, a: float, b: float) -> str:
    return f"{r:.3f} ({a:.3f} / {b:.3f})"


def claim_abr_beats_alone(pp: pd.DataFrame) -> dict:
    parts, holds = [], []
    for buffer in (10, 12):
        abr, _ = _eff(pp, group="a", scheme="instcap", buffer=buffer, psi=study.SLOW)
        alone, _ = _eff(pp, group="a", scheme="alone", buffer=buffer, psi=study.SLOW)
        r = abr / alone
        parts.append(f"B={buffer}: {_ratio_text(r, abr, alone)}")
        holds.append(None if math.isnan(r) else 1.15 <= r <= 1.35)
    return _row(
        "ABR (instcap) improves on TCP alone by 20-30 % for slow variation",
        "sections 5.1 and 8",
        "; ".join(parts) + f" at τ/Δ = {study.SLOW:g}",
        "instcap / alone within 1.15-1.35 (the paper's 'about 20 %' and '25-30 %')",
        None if None in holds else all(holds),
    )


def claim_dip(pp: pd.DataFrame) -> dict:
    parts, holds = [], []
    for group, scheme in (("a", "instcap"), ("c", "effcap"), ("a", "alone")):
        sel = _select(pp, group=group, scheme=scheme, buffer=10, delta_ms="200")
        if sel.empty:
            continue
        # The dip: the lowest efficiency between the fastest variation and
        # the slow end, compared with the ends.
        low = sel.loc[sel["efficiency"].idxmin()]
        parts.append(f"{scheme}: lowest {low['efficiency']:.3f} at τ/Δ = {low['psi']:g}")
        holds.append(0.5 <= low["psi"] <= 2.0)
    return _row(
        "all schemes dip for τ/Δ between 0.5 and 2",
        "sections 5-6, Figs. 8-15",
        "; ".join(parts),
        "each scheme's lowest efficiency at 0.5 ≤ τ/Δ ≤ 2 (buffer 10)",
        all(holds) if holds else None,
    )


def claim_effcap_vs_instcap(pp: pd.DataFrame) -> dict:
    psis = sorted(_select(pp, group="c", buffer=10)["psi"].unique())
    if not psis:
        return _row("effcap vs instcap", "section 6", "", "", None)
    # "Small" is judged at τ/Δ = 0.5: below it the testbed chain switches
    # at nearly every 30 ms step (at 0.15, every step: a fixed alternation).
    small, large = study.FAST, psis[-1]
    e_s, _ = _eff(pp, group="c", buffer=10, psi=small)
    i_s, _ = _eff(pp, group="a", scheme="instcap", buffer=10, psi=small)
    e_l, _ = _eff(pp, group="c", buffer=10, psi=large)
    i_l, _ = _eff(pp, group="a", scheme="instcap", buffer=10, psi=large)
    r_s, r_l = e_s / i_s, e_l / i_l
    return _row(
        "effcap is 10-20 % above instcap for small τ/Δ and a few percent below for large",
        "section 6, Figs. 11-14",
        f"τ/Δ = {small:g}: {_ratio_text(r_s, e_s, i_s)}; τ/Δ = {large:g}: "
        f"{_ratio_text(r_l, e_l, i_l)} (buffer 10)",
        "effcap / instcap within 1.05-1.25 at the smallest τ/Δ and 0.90-1.00 at the largest",
        bool(1.05 <= r_s <= 1.25 and 0.90 <= r_l <= 1.0),
    )


def claim_low_fraction(pp: pd.DataFrame) -> dict:
    eff = _select(pp, group="c", buffer=10)["efficiency"]
    inst = _select(pp, group="a", scheme="instcap", buffer=10)["efficiency"]
    if eff.empty or inst.empty:
        return _row("effcap above the low-rate fraction", "section 6", "", "", None)
    return _row(
        "effcap stays above the low-rate fraction where instcap falls below it",
        "section 6, Fig. 12; conclusions",
        f"lowest effcap {eff.min():.3f}, lowest instcap {inst.min():.3f}, "
        f"low-rate fraction {LOW_FRACTION:.3f} ({LOW_FRACTION * 500 / 583:.3f} after the "
        "cell tax) (buffer 10)",
        "min effcap ≥ low fraction > min instcap",
        bool(eff.min() >= LOW_FRACTION > inst.min()),
    )


def claim_buffers(pp: pd.DataFrame) -> dict:
    gaps = {}
    for scheme in ("instcap", "alone"):
        b10, _ = _eff(pp, group="a", scheme=scheme, buffer=10, psi=study.SLOW)
        b12, _ = _eff(pp, group="a", scheme=scheme, buffer=12, psi=study.SLOW)
        gaps[scheme] = b12 - b10
    return _row(
        "buffers 10 and 12 give nearly equal efficiency under ABR but not for TCP alone",
        "section 5.1, Figs. 8-9",
        f"B=12 minus B=10 at τ/Δ = {study.SLOW:g}: instcap {gaps['instcap']:+.3f}, "
        f"alone {gaps['alone']:+.3f}",
        "|instcap gap| < 0.02 and alone gap > 2 × |instcap gap|",
        bool(abs(gaps["instcap"]) < 0.02 and gaps["alone"] > 2 * abs(gaps["instcap"])),
    )


def claim_larger_delta(pp: pd.DataFrame) -> dict:
    d = _select(pp, group="d-delta")
    if d.empty:
        return _row("larger Δ lowers efficiency", "section 6, Figs. 16-17", "", "", None)
    parts, holds = [], []
    for (scheme, tau), sel in d.groupby(["scheme", "tau_s"]):
        sel = sel.assign(delta=sel["delta_ms"].astype(float)).sort_values("delta")
        first, last = sel["efficiency"].iloc[0], sel["efficiency"].iloc[-1]
        parts.append(f"{scheme} τ={tau * 1e3:g} ms: {first:.3f} → {last:.3f}")
        holds.append(last < first)
    return _row(
        "larger Δ lowers efficiency",
        "section 6, Figs. 16-17",
        "; ".join(parts) + " (Δ 50 → 500 ms)",
        "efficiency at Δ = 500 ms below that at 50 ms, each scheme and τ",
        all(holds),
    )


def claim_n_effect(pp: pd.DataFrame) -> dict:
    parts = []
    for rule in ("fixed", "12delta"):
        m = _select(pp, group=f"d-M-{rule}")
        for (delta, psi), sel in m.groupby(["delta_ms", "psi"]):
            best = sel.loc[sel["efficiency"].idxmax()]
            parts.append(f"{rule} Δ={delta} τ/Δ={psi:g}: best M×N {best['blocks']}")
    return _row(
        "the effect of M and n depends on the τ/Δ region (reported, not judged)",
        "section 6, Figs. 18-19",
        "; ".join(parts),
        "shown",
        None,
    )


def claim_fairness(pp: pd.DataFrame) -> dict:
    e = _select(pp, group="e", psi=study.SLOW)
    if e.empty:
        return _row("effcap gives both sessions fair shares", "section 7", "", "", None)

    def ratio(sel: pd.DataFrame) -> float:
        return float(sel["efficiency_1"].iloc[0] / sel["efficiency_2"].iloc[0])

    r_e = ratio(e[(e["scheme"] == "effcap") & (e["case"] == 1.0)])
    r_a = ratio(e[e["scheme"] == "alone"])
    return _row(
        "effcap gives both sessions fair shares where TCP alone does not",
        "section 7, Figs. 20-23",
        f"throughput ratio 240 ms / 360 ms session at τ/Δ = {study.SLOW:g}: effcap {r_e:.3f}, "
        f"TCP alone {r_a:.3f}",
        "effcap ratio within 0.9-1.1 and TCP alone's further from 1",
        bool(0.9 <= r_e <= 1.1 and abs(r_a - 1) > abs(r_e - 1)),
    )


CLAIMS: list[Callable[[pd.DataFrame], dict]] = [
    claim_abr_beats_alone,
    claim_dip,
    claim_effcap_vs_instcap,
    claim_low_fraction,
    claim_buffers,
    claim_larger_delta,
    claim_n_effect,
    claim_fairness,
]


def print_claims(claims: pd.DataFrame) -> None:
    t = Table(title="abr-effcap: the paper's claims, checked on the measured numbers")
    for col in ("claim", "measured", "criterion", "holds"):
        t.add_column(col, overflow="fold")
    for _, r in claims.iterrows():
        holds = {True: "HOLDS", False: "DOES NOT HOLD"}.get(r["holds"], "-")
        t.add_row(r["claim"], str(r["measured"]), r["criterion"], holds)
    table_console().print(t)
