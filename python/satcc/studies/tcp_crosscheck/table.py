"""tcp-crosscheck's table as the terminal shows it: one line per case (and
per flow of the multi-flow cases), satcc beside ns-2 with the ratio's
confidence interval, then the retransmissions, timeouts and models."""

from __future__ import annotations

import json
import math
from typing import Any


def _ratio_ci(ours: Any, theirs: Any, paired: Any, shared: bool) -> float:
    """Half-width of the CI of mean(satcc) / mean(ns-2). With shared losses
    the runs of a seed are a pair, and the ratio's spread is that of the
    seeds' own ratios (`paired`, satcc / ns-2 seed by seed); otherwise
    first-order (delta method) from the two independent means' CIs."""
    if shared:
        return paired.ci_half_width
    r = ours.measured / theirs.measured
    a = ours.ci_half_width / ours.measured if math.isfinite(ours.ci_half_width) else 0.0
    b = theirs.ci_half_width / theirs.measured if math.isfinite(theirs.ci_half_width) else 0.0
    if not (math.isfinite(ours.ci_half_width) or math.isfinite(theirs.ci_half_width)):
        return math.nan
    return abs(r) * math.hypot(a, b)


def layout(table: Any) -> list[Any]:
    from rich import box
    from rich.table import Table

    from satcc import fmt
    from satcc.studies.compare import verdict_markup

    present = bool((table["tolerance_kind"] != "none").any())
    title = "tcp-crosscheck: satcc against ns-2.35, goodput in Mb/s (payload)"
    if not present:
        title += " - ns-2 ABSENT (apt-get install ns2): ns-2 columns empty, models only"
    out = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, padding=(0, 1))
    for head in ("case", "flow"):
        out.add_column(head, no_wrap=True)
    for head in (
        "satcc",
        "ns-2",
        "satcc/ns-2",
        "",
        "retx satcc",
        "retx ns-2",
        "TO satcc",
        "TO ns-2",
        "loss",
        "Padhye",
        "Mathis",
        "CUBIC",
        "Hybla",
    ):
        out.add_column(head, justify="right", no_wrap=True)
    for label in dict.fromkeys(table["label"]):
        rows = {r.metric: r for r in table[table["label"] == label].itertuples()}
        shared = bool(json.loads(rows["goodput_ratio"].params).get("shared_losses"))
        flows = sorted(
            int(m.removeprefix("goodput_ratio_flow"))
            for m in rows
            if m.startswith("goodput_ratio_flow")
        )
        for flow in [None, *flows]:
            suffix = "" if flow is None else f"_flow{flow}"
            ours, theirs = rows[f"satcc_goodput_mbps{suffix}"], rows[f"ns2_goodput_mbps{suffix}"]
            ratio = rows[f"goodput_ratio{suffix}"]
            ratio_text = fmt.MISSING
            if math.isfinite(theirs.measured) and theirs.measured > 0:
                paired = rows[f"paired_ratio{suffix}"]
                ratio_text = fmt.mean_ci(ratio.measured, _ratio_ci(ours, theirs, paired, shared))
            cells = [
                fmt.mean_ci(ours.measured, ours.ci_half_width),
                fmt.mean_ci(theirs.measured, theirs.ci_half_width),
                ratio_text,
                verdict_markup(ratio),
            ]
            if flow is None:
                cells += [
                    fmt.mean_ci(rows[m].measured, rows[m].ci_half_width)
                    for m in ("satcc_retransmissions", "ns2_retransmissions")
                ]
                cells += [
                    fmt.mean_ci(rows[m].measured, rows[m].ci_half_width)
                    for m in ("satcc_timeouts", "ns2_timeouts")
                ]
                models = (
                    "loss_realised",
                    "padhye_mbps",
                    "mathis_mbps",
                    "cubic_model_mbps",
                    "hybla_model_mbps",
                )
                cells += [fmt.number(rows[m].measured) for m in models]
            else:
                cells += [""] * 9
            out.add_row(label if flow is None else "", "all" if flow is None else str(flow), *cells)
    return [out]
