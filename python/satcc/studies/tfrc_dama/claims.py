"""The tfrc-dama paper's statements in words, each checked on the measured
numbers: a row per claim with where the paper makes it, what satcc
measured, the criterion decided before looking, and whether it holds."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pandas as pd

from satcc.studies.claim_rows import CLAIM_COLUMNS, claim_row
from satcc.studies.tfrc_dama import model as study
from satcc.studies.tfrc_dama.data import PhaseSweep, Results


def claims_table(r: Results, fluid: pd.DataFrame, quick: bool) -> pd.DataFrame:
    rows = [claim(r) for claim in SINGLE_FLOW]
    rows.append(claim_fluid_close(fluid))
    rows += [claim(r) for claim in AGGREGATED]
    frame = pd.DataFrame(rows, columns=CLAIM_COLUMNS)
    if quick:
        frame["measured"] = frame["measured"].astype(str) + " (quick mode)"
    return frame


def _sweep(r: Results, frame: str, name: str) -> PhaseSweep | None:
    s = r.single.get((frame, name))
    return s if s is not None and s.e2ed.size else None


def _peaks(r: Results, frame: str, *names: str) -> list[float]:
    out = []
    for name in names:
        s = _sweep(r, frame, name)
        out.append(s.peak_median() if s else math.nan)
    return out


def _fmt(values: list[float], names: tuple[str, ...]) -> str:
    return ", ".join(f"{n} {v:.2f} s" for n, v in zip(names, values, strict=True))


def _missing(claim: str, source: str, criterion: str) -> dict:
    return claim_row(claim, source, "not measured", criterion, None)


# ------------------------------------------------------------ single flow


def claim_cra_acceptable(r: Results) -> dict:
    claim = "CRA gives acceptable start-up delays; DAMA makes them much larger"
    source = "section 3.3, Fig. 3"
    criterion = "peak of the median E2ED: DAMA above CRA on both frames, by more than 20 %"
    parts, holds, values = [], [], []
    for frame in study.FRAMES:
        cra, dama = _peaks(r, frame, "CRA", "DAMA")
        parts.append(f"{frame}: CRA {cra:.2f} s, DAMA {dama:.2f} s")
        holds.append(dama > 1.2 * cra)
        values += [cra, dama]
    return claim_row(claim, source, "; ".join(parts), criterion, all(holds), values)


def claim_qs_improves(r: Results) -> dict:
    claim = "QS improves the E2ED of a flow starting behind a DAMA terminal"
    source = "section 3.3, Fig. 3"
    criterion = "peak of the median E2ED with QS below that without, on both frames"
    parts, holds, values = [], [], []
    for frame in study.FRAMES:
        dama, qs = _peaks(r, frame, "DAMA", "DAMA+QS")
        parts.append(f"{frame}: {_fmt([dama, qs], ('DAMA', 'DAMA+QS'))}")
        holds.append(qs < dama)
        values += [dama, qs]
    return claim_row(claim, source, "; ".join(parts), criterion, all(holds), values)


def claim_qs_not_enough_large(r: Results) -> dict:
    claim = "with QS the cost of DAMA remains non-negligible for the large allocation delay"
    source = "section 3.3"
    criterion = "large frame: peak median E2ED with DAMA+QS at least 1 s above CRA+QS"
    cra_qs, dama_qs = _peaks(r, "large", "CRA+QS", "DAMA+QS")
    measured = _fmt([cra_qs, dama_qs], ("CRA+QS", "DAMA+QS"))
    return claim_row(claim, source, measured, criterion, dama_qs - cra_qs >= 1.0, [cra_qs, dama_qs])


def _timeline(r: Results, claim: str, source: str, key: str, published: float) -> dict:
    """A moment of Fig. 4's timeline (large frame, DAMA and QS): the median
    over phases within 25 % of the paper's value."""
    criterion = f"median over phases within 25 % of {published} s"
    s = _sweep(r, "large", "DAMA+QS")
    if s is None:
        return _missing(claim, source, criterion)
    at = s.per_run(key)
    med = float(np.nanmedian(at))
    measured = f"median {med:.2f} s (phases {np.nanmin(at):.2f}-{np.nanmax(at):.2f} s)"
    return claim_row(claim, source, measured, criterion, abs(med - published) <= 0.25 * published)


def claim_qs_response_one_rtt(r: Results) -> dict:
    claim = "the QS-Response comes with the first report, after one RTT (0.8 s)"
    return _timeline(r, claim, "section 3.3 (b), Fig. 4", "first_report_s", 0.8)


def claim_second_report(r: Results) -> dict:
    # The report the paper calls the second is the one that throttles the
    # QS rate to the received rate: under RFC 5348 the report ending the QS
    # phase, under ns-2 the next one (its slow start keeps the initial rate
    # at the second report it gets).
    claim = "the report that throttles TFRC to the received rate comes after three RTT (2.3 s)"
    return _timeline(r, claim, "section 3.3 (c), Fig. 4", "qs_cut_s", 2.3)


def claim_e2ed_5_to_9(r: Results) -> dict:
    claim = "with QS on the large frame the E2ED varies between 5 and 9 s after a few seconds"
    source = "section 3.3, Fig. 4"
    criterion = "the phases' largest E2EDs lie within 5-9 s, give or take 1 s"
    s = _sweep(r, "large", "DAMA+QS")
    if s is None:
        return _missing(claim, source, criterion)
    peaks = s.peaks()
    lo, hi = float(peaks.min()), float(peaks.max())
    measured = f"largest E2ED over phases {lo:.2f}-{hi:.2f} s (median {np.median(peaks):.2f} s)"
    return claim_row(claim, source, measured, criterion, lo >= 4.0 and hi <= 10.0)


def claim_small_frame_better(r: Results) -> dict:
    claim = "E2ED and its variability are much reduced on the small frame"
    source = "section 3.3"
    criterion = "DAMA+QS: peak median E2ED and the spread of peaks over phases both halved"
    large, small = _sweep(r, "large", "DAMA+QS"), _sweep(r, "small", "DAMA+QS")
    if large is None or small is None:
        return _missing(claim, source, criterion)
    spread = [float(np.ptp(s.peaks())) for s in (large, small)]
    peak = [large.peak_median(), small.peak_median()]
    measured = (
        f"peak median large {peak[0]:.2f} s, small {peak[1]:.2f} s; "
        f"spread large {spread[0]:.2f} s, small {spread[1]:.2f} s"
    )
    return claim_row(
        claim, source, measured, criterion, peak[1] <= peak[0] / 2 and spread[1] <= spread[0] / 2
    )


def claim_fig5_order(r: Results, tq_max: str = "QSD Tq=max", rto: str = "the profile's") -> dict:
    claim = (
        "worst without QS, then QS; QSD with T_q = 0 like QS; T_q,max lowest; "
        f"T_q,opt almost as low ({rto} initial RTO with T_q,max)"
    )
    source = "sections 3.4-3.5, Fig. 5"
    criterion = (
        "large frame, peaks of the median E2ED: DAMA > QS; |QSD 0 - QS| <= 20 % of QS; "
        "T_q,max below QS; T_q,opt within 20 % of T_q,max"
    )
    names = ("DAMA", "DAMA+QS", "QSD Tq=0", "QSD Tq=opt", tq_max)
    peaks = _peaks(r, "large", *names)
    dama, qs, q0, qopt, qmax = peaks
    holds = dama > qs and abs(q0 - qs) <= 0.2 * qs and qmax < qs and abs(qopt - qmax) <= 0.2 * qmax
    return claim_row(claim, source, _fmt(peaks, names), criterion, holds, peaks)


def claim_fig5_order_rto3(r: Results) -> dict:
    return claim_fig5_order(r, "QSD Tq=max RTO=3s", "a 3 s")


def claim_fig6_flat(r: Results) -> dict:
    claim = "the largest delay grows with the flow rate for every strategy but QSD"
    source = "section 3.5, Fig. 6"
    criterion = (
        "worst-phase E2ED from the lowest to the highest rate: grows for DAMA and QS, "
        "varies by less than 25 % for QSD with T_q,max (initial RTO 3 s)"
    )
    parts, holds = [], []
    for frame in study.FRAMES:
        for name in ("DAMA", "DAMA+QS", "QSD Tq=max RTO=3s", "QSD Tq=opt"):
            per_rate = r.by_rate.get((frame, name), {})
            if len(per_rate) < 2:
                return _missing(claim, source, criterion)
            rates = sorted(per_rate)
            worst = [float(np.max(per_rate[k])) for k in rates]
            parts.append(f"{frame} {name}: {worst[0]:.2f} -> {worst[-1]:.2f} s")
            if name == "QSD Tq=max RTO=3s":
                holds.append(np.ptp(worst) < 0.25 * np.mean(worst))
            elif not name.startswith("QSD"):
                holds.append(worst[-1] > worst[0])
    return claim_row(claim, source, "; ".join(parts), criterion, all(holds))


def claim_timeout_risk(r: Results) -> dict:
    claim = "a T_q well below T_q,max avoids the nofeedback timer expiring before the first report"
    source = "section 3.5"
    criterion = (
        "share of start phases whose first report came after the initial nofeedback timer "
        "(RFC 5348: 2 s; ns-2: 8.8 s; the RTO=3s strategy: 3 s): 0 at T_q,opt"
    )
    parts, shares = [], {}
    for frame in study.FRAMES:
        for name in ("QSD Tq=opt", "QSD Tq=max", "QSD Tq=max RTO=3s"):
            s = _sweep(r, frame, name)
            if s is None:
                return _missing(claim, source, criterion)
            timer = study.initial_timer_s(r.profile, study.STRATEGIES[name])
            late = float(np.mean(s.per_run("first_report_s") > timer))
            shares[(frame, name)] = late
            parts.append(f"{frame} {name}: {100 * late:.0f} %")
    holds = all(v == 0 for (f, n), v in shares.items() if n == "QSD Tq=opt")
    return claim_row(claim, source, "; ".join(parts), criterion, holds)


def claim_fluid_close(fluid: pd.DataFrame) -> dict:
    claim = "the fluid model's results are very close to the packet simulator's"
    source = "section 3.5"
    criterion = "mean |fluid - packets| / packets after 1 s at most 10 %, per frame and strategy"
    if fluid.empty:
        return _missing(claim, source, criterion)
    parts = []
    for feedback in ("paper", "rfc5348"):
        sel = fluid[fluid["feedback"] == feedback]
        ok = int(sel["within_10pct"].sum())
        parts.append(
            f"{feedback} reports: {ok}/{len(sel)} within 10 % "
            f"(mean differences {100 * sel['mean_rel_diff'].min():.0f}-"
            f"{100 * sel['mean_rel_diff'].max():.0f} %)"
        )
    holds = bool(fluid[fluid["feedback"] == "rfc5348"]["within_10pct"].all())
    return claim_row(claim, source, "; ".join(parts), criterion, holds)


def claim_no_uplink_overflow_single(r: Results) -> dict:
    claim = "a single flow never overflows the 1000-packet uplink queue"
    source = "section 4 (no uplink overflow)"
    criterion = "no drop at any uplink in any single-flow run"
    summaries = [s for sweep in r.single.values() for s in sweep.summaries]
    if not summaries:
        return _missing(claim, source, criterion)
    drops = 0
    for s in summaries:
        drops += sum(s[f"links.up{i}.drops"] for i in range(1, study.TERMINALS + 1))
    return claim_row(claim, source, f"{drops} drops", criterion, drops == 0)


SINGLE_FLOW: list[Callable[[Results], dict]] = [
    claim_cra_acceptable,
    claim_qs_improves,
    claim_qs_not_enough_large,
    claim_qs_response_one_rtt,
    claim_second_report,
    claim_e2ed_5_to_9,
    claim_small_frame_better,
    claim_fig5_order,
    claim_fig5_order_rto3,
    claim_fig6_flat,
    claim_timeout_risk,
    claim_no_uplink_overflow_single,
]


# ------------------------------------------------------------ aggregated


def _agg(r: Results, name: str, key: str) -> float:
    a = r.aggregate.get(name)
    return a.metrics.get(key, math.nan) if a else math.nan


def claim_load(r: Results) -> dict:
    claim = "the total load is about 2 Mb/s, a third of the channel; shares 50/15/35 %"
    source = "section 4, Table II"
    criterion = "offered load within 15 % of 2 Mb/s; each class's share within 5 points"
    load = _agg(r, "DAMA", "load_bps")
    shares = [_agg(r, "DAMA", f"{c.name}_share") for c in study.CLASSES]
    measured = f"{load / 1e6:.2f} Mb/s; shares " + "/".join(f"{100 * s:.1f}" for s in shares)
    holds = abs(load - study.PAPER_LOAD_BPS) <= 0.15 * study.PAPER_LOAD_BPS and all(
        abs(s - c.share) <= 0.05 for s, c in zip(shares, study.CLASSES, strict=True)
    )
    return claim_row(claim, source, measured, criterion, holds, [load, *shares])


def _iptv_p95(r: Results, name: str) -> float:
    return _agg(r, name, "iptv_window_e2ed_p95_s")


def claim_qs_helps_iptv(r: Results) -> dict:
    claim = "QS brings considerable advantages to the IPTV flows' start-up E2ED"
    source = "section 4, Fig. 8"
    criterion = "95th percentile of IPTV E2ED in the first 30 s: QS at least 20 % below no QS"
    none, qs = _iptv_p95(r, "DAMA"), _iptv_p95(r, "DAMA+QS")
    measured = f"no QS {none:.2f} s, QS {qs:.2f} s"
    return claim_row(claim, source, measured, criterion, qs <= 0.8 * none, [none, qs])


def claim_qsd_gain_smaller(r: Results) -> dict:
    claim = "QSD's gain over QS is smaller in the aggregated scenario than for the single flow"
    source = "section 4"
    criterion = (
        "relative reduction (QS - QSD T_q,opt) / QS: aggregated IPTV p95 below single-flow peak"
    )
    qs, qsd = _iptv_p95(r, "DAMA+QS"), _iptv_p95(r, "QSD Tq=opt")
    single_qs, single_qsd = _peaks(r, "large", "DAMA+QS", "QSD Tq=opt")
    agg_gain = (qs - qsd) / qs
    single_gain = (single_qs - single_qsd) / single_qs
    measured = f"aggregated {100 * agg_gain:.0f} %, single flow {100 * single_gain:.0f} %"
    rests_on = [qs, qsd, single_qs, single_qsd]
    return claim_row(claim, source, measured, criterion, agg_gain < single_gain, rests_on)


def claim_best_tq_aggregate(r: Results) -> dict:
    claim = "the aggregated scenario does better without delaying the QS-Request (T_q = 0)"
    source = "section 4, Fig. 8"
    criterion = "IPTV p95 E2ED in the first 30 s lowest with T_q = 0 among the QSD delays"
    names = ("QSD Tq=0", "QSD Tq=opt", "QSD Tq=max")
    values = [_iptv_p95(r, n) for n in names]
    if all(math.isnan(v) for v in values):
        return _missing(claim, source, criterion)
    best = names[int(np.nanargmin(values))]
    measured = _fmt(values, names) + f"; best {best}"
    return claim_row(claim, source, measured, criterion, best == "QSD Tq=0", values)


def claim_voip_insensitive(r: Results) -> dict:
    claim = "the strategy has little influence on VoIP delays"
    source = "section 4, Fig. 9(a)"
    criterion = "VoIP p95 E2ED in the first 30 s within 20 % of its mean across strategies"
    values = [_agg(r, n, "voip_window_e2ed_p95_s") for n in study.AGGREGATE]
    mean = float(np.mean(values))
    measured = _fmt(values, study.AGGREGATE)
    holds = all(abs(v - mean) <= 0.2 * mean for v in values)
    return claim_row(claim, source, measured, criterion, holds, values)


def claim_video_tails(r: Results) -> dict:
    claim = "videophone: alike for 99 % of packets, with tails for T_q = 0.52 and 1.23 s"
    source = "section 4, Fig. 9(b)"
    criterion = "p99 E2ED of the first 30 s larger with T_q,opt and T_q,max than with T_q = 0"
    names = ("QSD Tq=0", "QSD Tq=opt", "QSD Tq=max")
    values = [_agg(r, n, "video_window_e2ed_p99_s") for n in names]
    holds = values[1] > values[0] < values[2]
    return claim_row(claim, source, _fmt(values, names), criterion, holds, values)


def claim_iptv_order(r: Results) -> dict:
    claim = "IPTV: no QS is worst; T_q,opt has the sharpest descent, the best of the choices"
    source = "section 4, Fig. 9(c)"
    criterion = (
        "IPTV p99 E2ED of the first 30 s (the tail of Fig. 9(c)): no QS above QS and QSD "
        "T_q = 0; T_q,opt the lowest of all"
    )
    values = {n: _agg(r, n, "iptv_window_e2ed_p99_s") for n in study.AGGREGATE}
    best = min(values, key=lambda k: values[k])
    measured = _fmt(list(values.values()), study.AGGREGATE) + f"; lowest {best}"
    holds = values["DAMA"] > max(values["DAMA+QS"], values["QSD Tq=0"]) and best == "QSD Tq=opt"
    return claim_row(claim, source, measured, criterion, holds, values.values())


def claim_iptv_buffer_absorbs(r: Results) -> dict:
    claim = "with QS the IPTV transmit buffer (5 s) absorbs all delays"
    source = "section 4, Table III's text"
    criterion = "no IPTV packet lost to transmit-buffer overflow with any QS strategy"
    names = study.AGGREGATE[1:]
    losses = [_agg(r, n, "iptv_tx_buffer_loss") for n in names]
    measured = ", ".join(f"{n} {100 * v:.3f} %" for n, v in zip(names, losses, strict=True))
    return claim_row(claim, source, measured, criterion, all(v == 0 for v in losses), losses)


def claim_no_uplink_overflow(r: Results) -> dict:
    claim = "no packet is lost to overflow of the 1000-packet uplink queues"
    source = "section 4"
    criterion = "no drop at any uplink in any aggregated run"
    drops = {n: _agg(r, n, "uplink_drops") for n in study.AGGREGATE}
    measured = f"{sum(drops.values()):g} drops"
    holds = all(v == 0 for v in drops.values())
    return claim_row(claim, source, measured, criterion, holds, drops.values())


AGGREGATED: list[Callable[[Results], dict]] = [
    claim_load,
    claim_qs_helps_iptv,
    claim_qsd_gain_smaller,
    claim_best_tq_aggregate,
    claim_voip_insensitive,
    claim_video_tails,
    claim_iptv_order,
    claim_iptv_buffer_absorbs,
    claim_no_uplink_overflow,
]
