"""Study `proactive-atm`: proactive rate-based congestion control with
access policing over a satellite ATM link (the thesis's chapters 3-8).

The network of its Fig. 5: a user node with the sources, a 21 Mb/s 5 ms
fibre to ATM switch 1, the 6 Mb/s 270 ms satellite link to switch 2, a fibre
to the user node with the sinks; every link both ways, the switches' links
with the thesis's two-priority queues (512/256 and 1024/512 cells counting
the cell in service: 511/255 and 1023/511 waiting), the user node's with
1000/5000. Three traffic scenarios (section 7): voice and video, five voice
sources per video; data; and a mixture of five voice sources per video and
data source; each under the three cases of Table 1:

1. no policing, no notifications, nominal rates (slow start on);
2. peak-rate controllers and leaky buckets at the access (Table 2), the
   proactive detector at every switch link (type 0 and type 2
   notifications), adaptive rates;
3. as 2 with notifications on discards only.

Each (scenario, case, number of sources) runs 3 simulated minutes under 3
seeds. The metrics are section 7's: the cell loss ratio per traffic type at
the satellite link's queue (policers' drops apart), the share of cells
later than their VC's minimum by more than 20 ms, the offered load as a
share of 6 Mb/s (from the mean parameters for case 1, measured for cases 2
and 3, as the thesis does; both are shown), the mean file-transfer time and
the data throughput over 6 Mb/s. Every assumption is in
docs/proactive-atm.md.
"""

from __future__ import annotations

import math
from typing import Any

from satcc.studies.spec import Reference, RunSpec, measured

LINK_BPS = 6e6
CELL_BYTES, PAYLOAD_BYTES = 53, 48
DURATION_S = 180.0
# The thesis's three minutes in quick mode too: shorter runs see no file
# finish at the heaviest mixed points, where the control holds a data
# source to a fraction of its 500 kb/s.
QUICK_DURATION_S = 180.0
TYPES = ("voice", "video", "data")
# Table 2: peak-rate controller peaks and leaky-bucket drain rates.
PEAK = {"voice": 64e3, "video": 512e3, "data": 500e3}
DRAIN = {"voice": 36e3, "video": 391e3, "data": 556e3}
# The thesis gives the bucket depth as D = (R_arr - R_drain) x burst / cell
# and says it was increased: the formula with the peak as R_arr and the
# mean 0.5 s holding time as the burst, doubled, at least 64 cells.
DEPTH_FACTOR = 2.0
MEAN_BURST_S = 0.5
MIN_DEPTH = 64.0


def bucket_depth(kind: str, factor: float = DEPTH_FACTOR, basis: str | None = None) -> float:
    """D = (R_arr - R_drain) x burst / cell size, in cells of the rates'
    basis (section 3.1), times `factor`, at least MIN_DEPTH."""
    cell_bits = 8 * (CELL_BYTES if (basis or RATE_BASIS) == "cell" else PAYLOAD_BYTES)
    formula = max(0.0, (PEAK[kind] - DRAIN[kind]) * MEAN_BURST_S / cell_bits)
    return max(MIN_DEPTH, round(factor * formula))


# The sources' activity: which of voice and video pause between sessions
# (mean gap 15 s) and which run sessions back to back (gap 0). Sections
# 6.2.1.1-2 give both a 15 s gap; section 7's traffic mix and section 8's
# loads each contradict that, and no single reading meets every statement
# (docs/proactive-atm.md, "The sources' activity", has the statement-by-
# statement table). The default meets the most.
ACTIVITY = {
    "video-continuous": {"voice": "15 s", "video": "0 s"},
    "text": {"voice": "15 s", "video": "15 s"},
    "voice-continuous": {"voice": "0 s", "video": "15 s"},
    "continuous": {"voice": "0 s", "video": "0 s"},
}
DEFAULT_ACTIVITY = "video-continuous"
# Inside a session (section 6.2.1): voice talks at 64 kb/s half the time,
# video holds 512 and 192 kb/s half the time each.
SESSION_BPS = {"voice": 32e3, "video": 352e3}
SESSION_S = 15.0


def mean_nominal_bps(kind: str, activity: str = DEFAULT_ACTIVITY) -> float:
    """A voice or video source's long-run payload rate by its mean
    parameters: the in-session rate times the share of time in sessions."""
    gap = float(ACTIVITY[activity][kind].split()[0])
    return SESSION_BPS[kind] * SESSION_S / (SESSION_S + gap)


# What the thesis's rates count (docs/proactive-atm.md, "Rates count whole
# cells"): the cell stream's bits, so a load from its rates is the wire's.
RATE_BASIS = "cell"
RATE_BASES = ("cell", "payload")


def wire_per_nominal(basis: str = RATE_BASIS) -> float:
    """Bits on the wire per bit of a source's nominal rate."""
    return 1.0 if basis == "cell" else CELL_BYTES / PAYLOAD_BYTES


# Sources per step of the load axis (section 7): five voice per video in
# scenario 1, five voice per video and data source in scenario 3.
GROUP = {1: 6, 2: 1, 3: 7}

# Sources swept: each scenario from well below the link to about 1.5 of it
# by the mean parameters (payload), one group apart around the crossing.
# Scenario 1 covers the thesis's 72-120; scenario 2 its 15-29.
SWEEP = {
    1: (48, 60, 72, 78, 84, 90, 96, 102, 108, 120, 126),
    2: (15, 19, 23, 25, 27, 29, 33),
    3: (28, 35, 42, 49, 56, 63, 70, 77, 84, 91),
}
QUICK_SWEEP = {1: (72, 96, 120), 2: (15, 25, 29), 3: (42, 63, 84)}
CASES = (1, 2, 3)


def mix(scenario: int, sources: int) -> dict[str, int]:
    """How many sources of each type a point has. Refuses a count that is
    not a whole number of the scenario's groups: rounding it would label
    the point with sources it does not have."""
    if scenario not in GROUP:
        raise ValueError(f"scenario {scenario}: the thesis has scenarios 1, 2 and 3")
    group = GROUP[scenario]
    if sources <= 0 or sources % group:
        raise ValueError(
            f"scenario {scenario} adds sources {group} at a time "
            f"(section 7): {sources} is not a positive multiple of {group}"
        )
    if scenario == 2:
        return {"voice": 0, "video": 0, "data": sources}
    unit = sources // group
    return {"voice": 5 * unit, "video": unit, "data": unit if scenario == 3 else 0}


def _queue(user: bool) -> dict[str, Any]:
    if user:
        return {
            "type": "priority",
            "high": {"limit": "999 packets"},
            "low": {"limit": "4999 packets"},
        }
    return {
        "type": "priority",
        "high": {"limit": "511 packets", "clp_threshold": "255 packets"},
        "low": {"limit": "1023 packets", "clp_threshold": "511 packets"},
    }


def _link(src: str, dst: str, rate: str, delay: str, case: int, user: bool) -> dict[str, Any]:
    link: dict[str, Any] = {
        "from": src,
        "to": dst,
        "rate": rate,
        "delay": delay,
        "queue": _queue(user),
    }
    if case in (2, 3) and not user:
        link["congestion"] = {} if case == 2 else {"input_rate": False}
    return link


def scenario(
    n: int,
    case: int,
    counts: dict[str, int],
    seconds: float,
    depth_factor: float = DEPTH_FACTOR,
    detector: dict[str, Any] | None = None,
    activity: str = DEFAULT_ACTIVITY,
    basis: str = RATE_BASIS,
) -> dict[str, Any]:
    links = {
        "up": _link("user1", "sw1", "21 Mbps", "5 ms", case, user=True),
        "up_rev": _link("sw1", "user1", "21 Mbps", "5 ms", case, user=False),
        "sat": _link("sw1", "sw2", "6 Mbps", "270 ms", case, user=False),
        "sat_rev": _link("sw2", "sw1", "6 Mbps", "270 ms", case, user=False),
        "down": _link("sw2", "user2", "21 Mbps", "5 ms", case, user=False),
        "down_rev": _link("user2", "sw2", "21 Mbps", "5 ms", case, user=True),
    }
    if detector:
        for link in links.values():
            if "congestion" in link:
                link["congestion"].update(detector)
    groups: dict[str, Any] = {}
    for kind in TYPES:
        if counts[kind] == 0:
            continue
        group: dict[str, Any] = {
            "type": kind,
            "from": "user1",
            "to": "user2",
            "count": counts[kind],
            "rate_control": case in (2, 3),
            "rate_basis": basis,
        }
        if kind != "data":
            group["gap"] = ACTIVITY[activity][kind]
        if case in (2, 3):
            group["contract"] = {
                "at": "sat",
                "peak_rate": f"{PEAK[kind]} bps",
                "drain_rate": f"{DRAIN[kind]} bps",
                "bucket_depth": bucket_depth(kind, depth_factor, basis),
            }
        groups[kind] = group
    total = sum(counts.values())
    name = f"proactive-atm s{n} case{case} {total} sources d{depth_factor:g}"
    if detector:
        name += " " + " ".join(f"{k}={v}" for k, v in sorted(detector.items()))
    if activity != DEFAULT_ACTIVITY:
        name += f" activity={activity}"
    if basis != RATE_BASIS:
        name += f" rates={basis}"
    return {
        "run": {"name": _slug(name), "duration": f"{seconds} s"},
        "nodes": {
            "user1": {"type": "host"},
            "sw1": {},
            "sw2": {},
            "user2": {"type": "host"},
        },
        "links": links,
        "cell_sources": groups,
    }


def _slug(text: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "._-" else "-" if ch == "=" else "_" for ch in text)


def label(n: int, case: int, sources: int) -> str:
    return f"s{n} case{case} {sources} sources"


# Sensitivity: the bucket depth, and the detector's open choices, at the
# highest load of each mixed scenario, where the detector is busiest.
SENSITIVITY_POINTS = ((1, 126), (3, 91))
# Each other reading of the sources' activity, uncontrolled, where the mix
# is judged: its measured mix and load beside the arithmetic.
ACTIVITY_POINTS = ((1, 120), (3, 84))
# The other reading of what the rates count, where the thesis states a loss
# beside a load and its file times: (scenario, case, sources).
BASIS_POINTS = ((1, 1, 102), (2, 1, 29), (2, 2, 29), (2, 3, 29))
SENSITIVITY_CASES = (2, 3)  # case 1 has neither a bucket nor rate control
DEPTH_FACTORS = (1.0, 4.0)
DETECTOR_CHOICES = (
    {"previous": "raw"},
    {"class_rates": "current"},
    {"count_discarded": False},
)


def runs(quick: bool) -> list[RunSpec]:
    seconds = QUICK_DURATION_S if quick else DURATION_S
    sweep = QUICK_SWEEP if quick else SWEEP
    out = []
    for n in (1, 2, 3):
        for case in CASES:
            for sources in sweep[n]:
                counts = mix(n, sources)
                p = {"scenario": n, "case": case, "sources": sources, "part": "sweep"}
                out.append(RunSpec(label(n, case, sources), p, scenario(n, case, counts, seconds)))
    if quick:
        return out
    for n, sources in SENSITIVITY_POINTS:
        counts = mix(n, sources)
        for case in SENSITIVITY_CASES:
            for factor in DEPTH_FACTORS:
                p = {"scenario": n, "case": case, "sources": sources, "part": "depth"}
                spec = scenario(n, case, counts, seconds, depth_factor=factor)
                out.append(RunSpec(f"{label(n, case, sources)} depth x{factor:g}", p, spec))
            if case == 3:
                continue  # the choices shape the input-rate test, which case 3 leaves out
            for choice in DETECTOR_CHOICES:
                ((key, value),) = choice.items()
                p = {"scenario": n, "case": case, "sources": sources, "part": "detector"}
                spec = scenario(n, case, counts, seconds, detector=choice)
                out.append(RunSpec(f"{label(n, case, sources)} {key}={value}", p, spec))
    for n, sources in ACTIVITY_POINTS:
        for activity in ACTIVITY:
            if activity == DEFAULT_ACTIVITY:
                continue  # the sweep's own run at this point
            p = {"scenario": n, "case": 1, "sources": sources, "part": "activity"}
            p["activity"] = activity
            spec = scenario(n, 1, mix(n, sources), seconds, activity=activity)
            out.append(RunSpec(f"{label(n, 1, sources)} activity={activity}", p, spec))
    for n, case, sources in BASIS_POINTS:
        for basis in RATE_BASES:
            if basis == RATE_BASIS:
                continue
            p = {"scenario": n, "case": case, "sources": sources, "part": "rate_basis"}
            p["rate_basis"] = basis
            spec = scenario(n, case, mix(n, sources), seconds, basis=basis)
            out.append(RunSpec(f"{label(n, case, sources)} rates={basis}", p, spec))
    return out


def seeds(quick: bool) -> list[int]:
    return [1] if quick else [1, 2, 3]


def mean_load(
    counts: dict[str, int],
    data_busy: float,
    activity: str = DEFAULT_ACTIVITY,
    basis: str = RATE_BASIS,
) -> float:
    """The offered load on the wire from the sources' mean parameters, over
    the link rate: the thesis's case-1 load (section 8.1). `data_busy` is
    the share of time a data source is sending."""
    nominal = sum(counts[k] * mean_nominal_bps(k, activity) for k in ("voice", "video"))
    nominal += counts["data"] * 500e3 * data_busy
    return nominal * wire_per_nominal(basis) / LINK_BPS


def _share(kinds: tuple[str, ...], scenario: int, activity: str) -> float:
    counts = mix(scenario, GROUP[scenario])
    rate = {k: mean_nominal_bps(k, activity) for k in ("voice", "video")}
    rate["data"] = 500e3 * DATA_BUSY
    total = sum(counts[k] * rate[k] for k in TYPES)
    return sum(counts[k] * rate[k] for k in kinds) / total


def _s1_load(sources: int, activity: str, basis: str) -> float:
    return mean_load(mix(1, sources), DATA_BUSY, activity, basis)


THESIS_S1 = tuple(range(72, 121, 6))


def _near(target: float, activity: str, basis: str) -> tuple[float, bool]:
    """The thesis's S1 count whose load is nearest `target`, and whether it
    is within 0.05 of it."""
    best = min((_s1_load(n, activity, basis) for n in THESIS_S1), key=lambda x: abs(x - target))
    return best, abs(best - target) <= 0.05


def activity_statements(activity: str, basis: str = RATE_BASIS) -> list[tuple[str, float, bool]]:
    """Each statement of sections 7-8 that the sources' activity decides:
    (the statement, the value the reading's mean parameters give, whether
    the statement holds). Loads by the mean parameters, as section 8.1
    computes case 1's, on the wire for rates of the given basis."""
    voice = _share(("voice",), 1, activity)
    realtime = _share(("voice", "video"), 3, activity)
    at_90, at_96 = _s1_load(90, activity, basis), _s1_load(96, activity, basis)
    near_12, holds_12 = _near(1.2, activity, basis)
    near_11, holds_11 = _near(1.1, activity, basis)
    at_72, at_120 = _s1_load(72, activity, basis), _s1_load(120, activity, basis)
    return [
        ("s7: scenario 1 voice 15-20 %", voice, 0.15 <= voice <= 0.20),
        ("s7: scenario 3 voice and video 60-70 %", realtime, 0.60 <= realtime <= 0.70),
        ("s7: scenario 3 data around 30 % (25-35)", 1 - realtime, 0.25 <= 1 - realtime <= 0.35),
        ("8.1: the link exceeded from 96 sources (load at 96)", at_96, at_90 < 1.0 <= at_96),
        ("8.1: a load of about 1.2 within 72-120 sources", near_12, holds_12),
        ("8.1: a load of 1.1 within 72-120 sources", near_11, holds_11),
        ("8.1: case 2 at 70-80 % from 72 sources (uncontrolled load at 72)", at_72, at_72 >= 0.7),
        ("7: at higher loads the input rate above 90 % (load at 120)", at_120, at_120 > 0.9),
    ]


# A data source sends a 16 s file (plus slow start) and then waits for its
# start timer: by the restart rule the next start comes on average one
# exponential mean (16 s) after the file ends, so it is busy
# E[T] / (E[T] + 16 s) of the time with E[T] the file's duration at
# nominal after slow start (about 16.8 s): 0.512.
DATA_BUSY = 16.8 / (16.8 + 16.0)
FILE_BITS = 8e6  # 1 Mbyte, in the rates' own bits
IDLE_MEAN_S = 16.0


def renewal_file_time(data_sources: int, data_bps: float) -> float:
    """The mean file time a long run must show if `data_sources` sources
    alternate files of FILE_BITS with idle periods of mean IDLE_MEAN_S
    (renewal-reward: each source's rate is FILE_BITS / (E[T] + idle))
    while together sending `data_bps`, counted as the rates count. The
    thesis's stated loads and file times can be checked against it, and so
    can satcc's."""
    if data_bps <= 0:
        return math.nan
    return data_sources * FILE_BITS / data_bps - IDLE_MEAN_S


def nominal_bps(wire_load: float, basis: str = RATE_BASIS) -> float:
    """Bits/s as the rates count them, of a load on the wire."""
    return wire_load * LINK_BPS / wire_per_nominal(basis)


def metrics(summary: dict[str, Any], spec: RunSpec) -> dict[str, float]:
    p = spec.params
    counts = mix(p["scenario"], p["sources"])
    activity = p.get("activity", DEFAULT_ACTIVITY)
    basis = p.get("rate_basis", RATE_BASIS)
    m: dict[str, float] = {
        "unaccounted": float(summary["run.pdus_unaccounted"]),
        "load_mean_params": mean_load(counts, DATA_BUSY, activity, basis),
    }
    offered: dict[str, float] = {}
    sent_rt = lost_rt = late_rt = late_rt_net = 0.0
    for kind in TYPES:
        if counts[kind] == 0:
            continue
        k = f"cell_sources.{kind}."
        sent = summary[k + "cells_sent"]
        # A type that sent no cell has null ratios: not measured (NaN).
        m[f"{kind}_loss"] = measured(summary[k + "queue_loss_ratio"])
        m[f"{kind}_access_loss"] = measured(summary[k + "access_loss_ratio"])
        offered[kind] = summary[k + "offered_bps"]
        if kind != "data":
            m[f"{kind}_late"] = measured(summary[k + "late_fraction"])
            sent_rt += sent
            lost_rt += summary[k + "cells_dropped_in_queues"]
            late_rt += summary[k + "late_cells"]
            late_rt_net += summary[k + "late_in_network_cells"]
    realtime = counts["voice"] or counts["video"]
    if realtime:
        # Section 7.1's measure: delay from the cell's generation. With no
        # real-time cell sent there is none to measure: NaN, not judged.
        m["realtime_loss"] = lost_rt / sent_rt if sent_rt else math.nan
        m["realtime_late"] = late_rt / sent_rt if sent_rt else math.nan
        m["realtime_late_in_network"] = late_rt_net / sent_rt if sent_rt else math.nan
    # Section 7's mix: each type's share of what the sources sent.
    total = sum(offered.values())
    for kind, bps in offered.items():
        m[f"{kind}_share"] = bps / total if total else math.nan
    if counts["data"] and realtime:
        m["realtime_share"] = 1.0 - m["data_share"]
    m["load_measured"] = total / LINK_BPS
    m["load"] = m["load_mean_params"] if p["case"] == 1 else m["load_measured"]
    if counts["data"]:
        k = "cell_sources.data."
        m["files_finished"] = float(summary[k + "files_completed"])
        m["file_time_s"] = measured(summary.get(k + "file_time_mean_s"))
        data_bps = nominal_bps(summary[k + "offered_bps"] / LINK_BPS, basis)
        m["file_time_renewal_s"] = renewal_file_time(counts["data"], data_bps)
        m["data_throughput"] = summary[k + "received_payload_bps"] / LINK_BPS
        # A data source may send above its nominal 500 kb/s (no ceiling,
        # section 6.2.1.3) and its peak-rate controller then holds cells:
        # lateness from the network (queues) apart from that hold.
        m["data_late"] = measured(summary[k + "late_in_network_fraction"])
        m["data_late_from_creation"] = measured(summary[k + "late_fraction"])
        m["data_access_hold_s"] = measured(summary.get(k + "access_hold_mean_s"))
    # Cells the UPC marked CLP = 1 (none in case 1, which has no UPC): what
    # the bucket depth trades against the real-time cells' delay.
    marked = sum(
        summary.get(f"links.sat.upc.{stage}_marked", 0) for stage in ("peak_rate", "bucket")
    )
    sent_all = sum(summary[f"cell_sources.{k}.cells_sent"] for k in TYPES if counts[k])
    m["marked_share"] = marked / sent_all if sent_all else math.nan
    m["sat_drops"] = float(summary["links.sat.drops"])
    m["other_drops"] = float(
        sum(
            summary[f"links.{name}.drops"]
            for name in ("up", "up_rev", "sat_rev", "down", "down_rev")
        )
    )
    return m


SRC = "proactive-atm thesis, section 8."
MIX = "proactive-atm thesis, section 7: "

# Where each load the thesis states falls on its axis (payload bits by the
# mean parameters of the default activity): the sweep's count nearest it.
LOAD_1_2_S1 = 102  # 1.224
LOAD_1_1_S1 = 90  # 1.080
THESIS_TOP_S1 = 120  # the thesis sweeps 72-120 sources


def references() -> list[Reference]:
    refs = [
        Reference(
            label(1, 1, THESIS_TOP_S1),
            "voice_share",
            0.175,
            MIX + "'video traffic is 80-85 % and voice 15-20 % of the total unconstrained traffic'",
            0.025,
            "absolute",
            kind="text",
            notes="scenario 1, case 1; the share of what the sources sent",
        ),
        Reference(
            label(3, 1, 84),
            "realtime_share",
            0.65,
            MIX + "'the total of voice and video traffic is 60-70 %'",
            0.05,
            "absolute",
            kind="text",
            notes="scenario 3, case 1",
        ),
        Reference(
            label(3, 1, 84),
            "data_share",
            0.30,
            MIX + "'the data is around 30 % of the total unconstrained traffic'",
            0.05,
            "absolute",
            kind="text",
            notes="scenario 3, case 1; judged as 25-35 %",
        ),
        Reference(
            label(1, 1, LOAD_1_2_S1),
            "realtime_loss",
            0.13,
            SRC + "1, Fig. 14: 'at a loading of around 1.2 ... as high as 13%'",
            0.5,
            kind="text",
            notes=f"{LOAD_1_2_S1} sources load the link 1.22 by the mean parameters",
        ),
        Reference(
            label(1, 1, THESIS_TOP_S1),
            "realtime_loss",
            0.13,
            SRC + "1, Fig. 14: 13 % at the top of the thesis's 72-120 sources",
            0.0,
            "none",
            kind="text",
            notes="shown, not judged: the thesis's source counts and loads disagree "
            "under every reading of its sources (docs/proactive-atm.md)",
        ),
        Reference(
            label(1, 1, LOAD_1_1_S1),
            "realtime_late",
            0.8,
            SRC + "1, Fig. 15: 'at a load of 1.1 ... above 60%'",
            0.2,
            "absolute",
            kind="text",
            notes=f"judged as at least 0.6 (0.8 +/- 0.2); {LOAD_1_1_S1} sources load the link 1.08",
        ),
        Reference(
            label(2, 1, 29),
            "data_loss",
            0.2,
            SRC + "2, Fig. 23: 'close to 20% at loads equal to 1.25'",
            0.5,
            kind="text",
            notes="29 data sources offer about 1.2 of the link in payload bits",
        ),
        Reference(
            label(2, 1, 25),
            "file_time_s",
            16.0,
            SRC + "2, Fig. 24: 'approximately 16 seconds', 'slightly above' with slow start",
            0.1,
            kind="text",
        ),
        Reference(
            label(2, 2, 29),
            "file_time_s",
            35.0,
            SRC + "2, Fig. 27: 'approximately 35 seconds' at 29 sources",
            0.25,
            kind="text",
        ),
        Reference(
            label(2, 3, 29),
            "file_time_s",
            25.0,
            SRC + "2, Fig. 30: 'around 25 seconds' at 29 sources",
            0.25,
            kind="text",
        ),
        Reference(
            label(2, 2, 29),
            "load_measured",
            0.75,
            SRC + "2, Fig. 21: case 2's load 'fairly constant around 75%'",
            0.1,
            "absolute",
            kind="text",
        ),
        Reference(
            label(2, 3, 29),
            "data_loss",
            1e-4,
            SRC + "2, Fig. 29: case 3's cell loss 'on the order of 10^-4'",
            10.0,
            "factor",
            kind="text",
        ),
    ]
    for sources in (72, 96, 120):
        for metric, what in (
            ("realtime_loss", "zero cells discarded"),
            ("realtime_late", "no cell past 20 ms"),
        ):
            refs.append(
                Reference(
                    label(1, 2, sources),
                    metric,
                    0.0,
                    SRC + f"1, Figs. 16-17: case 2, {what} for 72-120 sources",
                    0.0,
                    "absolute",
                    kind="text",
                )
            )
    for sources in (72, 120):
        refs.append(
            Reference(
                label(1, 2, sources),
                "load_measured",
                0.75,
                SRC + "1, Fig. 12: case 2's load 'fairly constant between 70 and 80%'",
                0.05,
                "absolute",
                kind="text",
            )
        )
    refs.append(
        Reference(
            label(1, 3, THESIS_TOP_S1),
            "realtime_loss",
            1e-4,
            SRC + "1, Fig. 18: case 3's cell loss 'on the order of 10^-4'",
            10.0,
            "factor",
            kind="text",
            notes="at the top of the thesis's 72-120 sources",
        )
    )
    refs.append(
        Reference(
            label(1, 3, THESIS_TOP_S1),
            "realtime_late",
            0.06,
            SRC + "1, Fig. 19: case 3's late cells 'as high as 6%'",
            2.0,
            "factor",
            kind="text",
            notes="the most over the thesis's 72-120 sources",
        )
    )
    return refs
