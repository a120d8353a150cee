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
from pathlib import Path
from typing import Any

from satcc.studies.framework import Reference, RunSpec, Study

LINK_BPS = 6e6
CELL_BYTES, PAYLOAD_BYTES = 53, 48
DURATION_S = 180.0
QUICK_DURATION_S = 60.0
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


def bucket_depth(kind: str, factor: float = DEPTH_FACTOR) -> float:
    formula = max(0.0, (PEAK[kind] - DRAIN[kind]) * MEAN_BURST_S / (PAYLOAD_BYTES * 8))
    return max(MIN_DEPTH, round(factor * formula))


# Mean payload rate of a source (section 6.2.1): voice 64 kb/s half of half
# the time, video (512 + 192)/2 half the time; data from the file model.
MEAN_PAYLOAD_BPS = {"voice": 16e3, "video": 176e3}

# Sources swept (section 8 and beyond overload). Scenario 1: five voice per
# video; scenario 3: five voice per video and data source.
SWEEP = {
    1: (72, 96, 120, 138, 156, 180),
    2: (15, 19, 23, 25, 27, 29, 33),
    3: (42, 56, 70, 84, 98),
}
QUICK_SWEEP = {1: (72, 120, 156), 2: (15, 25, 29), 3: (42, 70, 98)}
CASES = (1, 2, 3)


def mix(scenario: int, sources: int) -> dict[str, int]:
    """How many sources of each type a point has."""
    if scenario == 1:
        video = sources // 6
        return {"voice": 5 * video, "video": video, "data": 0}
    if scenario == 2:
        return {"voice": 0, "video": 0, "data": sources}
    unit = sources // 7
    return {"voice": 5 * unit, "video": unit, "data": unit}


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
        }
        if case in (2, 3):
            group["contract"] = {
                "at": "sat",
                "peak_rate": f"{PEAK[kind]} bps",
                "drain_rate": f"{DRAIN[kind]} bps",
                "bucket_depth": bucket_depth(kind, depth_factor),
            }
        groups[kind] = group
    total = sum(counts.values())
    name = f"proactive-atm s{n} case{case} {total} sources d{depth_factor:g}"
    if detector:
        name += " " + " ".join(f"{k}={v}" for k, v in sorted(detector.items()))
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
SENSITIVITY_POINTS = ((1, 180), (3, 98))
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
    return out


def seeds(quick: bool) -> list[int]:
    return [1] if quick else [1, 2, 3]


def mean_load(counts: dict[str, int], data_busy: float) -> float:
    """The offered load from the sources' mean parameters, on the wire (53
    bytes per 48 of payload), over the link rate: the thesis's case-1 load.
    `data_busy` is the share of time a data source is sending."""
    payload = sum(counts[k] * MEAN_PAYLOAD_BPS[k] for k in ("voice", "video"))
    payload += counts["data"] * 500e3 * data_busy
    return payload * CELL_BYTES / PAYLOAD_BYTES / LINK_BPS


# A data source sends a 16 s file (plus slow start) and then waits for its
# start timer: by the restart rule the next start comes on average one
# exponential mean (16 s) after the file ends, so it is busy
# E[T] / (E[T] + 16 s) of the time with E[T] the file's duration at
# nominal after slow start (about 16.8 s): 0.512.
DATA_BUSY = 16.8 / (16.8 + 16.0)
FILE_BITS = 8e6  # 1 Mbyte; the thesis's 35 s <-> 0.23 Mb/s fixes 10^6 bytes
IDLE_MEAN_S = 16.0


def renewal_file_time(data_sources: int, data_payload_bps: float) -> float:
    """The mean file time a long run must show if `data_sources` sources
    alternate files of FILE_BITS with idle periods of mean IDLE_MEAN_S
    (renewal-reward: each source's payload rate is FILE_BITS / (E[T] + idle))
    while together offering `data_payload_bps`. The thesis's stated loads and
    file times can be checked against it, and so can satcc's."""
    if data_payload_bps <= 0:
        return math.nan
    return data_sources * FILE_BITS / data_payload_bps - IDLE_MEAN_S


def payload_bps(load: float) -> float:
    """Payload bits per second of a load counted on the wire (53-byte cells)."""
    return load * LINK_BPS * PAYLOAD_BYTES / CELL_BYTES


def metrics(summary: dict[str, Any], spec: RunSpec) -> dict[str, float]:
    p = spec.params
    counts = mix(p["scenario"], p["sources"])
    m: dict[str, float] = {
        "unaccounted": float(summary["run.pdus_unaccounted"]),
        "load_mean_params": mean_load(counts, DATA_BUSY),
    }
    offered = 0.0
    sent_rt = lost_rt = late_rt = 0.0
    for kind in TYPES:
        if counts[kind] == 0:
            continue
        k = f"cell_sources.{kind}."
        sent = summary[k + "cells_sent"]
        m[f"{kind}_loss"] = summary[k + "queue_loss_ratio"]
        m[f"{kind}_access_loss"] = summary[k + "access_loss_ratio"]
        m[f"{kind}_late"] = summary[k + "late_fraction"]
        offered += summary[k + "offered_bps"]
        if kind != "data":
            sent_rt += sent
            lost_rt += summary[k + "cells_dropped_in_queues"]
            late_rt += summary[k + "late_cells"]
    if sent_rt:
        m["realtime_loss"] = lost_rt / sent_rt
        m["realtime_late"] = late_rt / sent_rt
    m["load_measured"] = offered / LINK_BPS
    m["load"] = m["load_mean_params"] if p["case"] == 1 else m["load_measured"]
    if counts["data"]:
        k = "cell_sources.data."
        m["file_time_s"] = _num(summary.get(k + "file_time_mean_s"))
        data_payload = summary[k + "offered_bps"] * PAYLOAD_BYTES / CELL_BYTES
        m["file_time_renewal_s"] = renewal_file_time(counts["data"], data_payload)
        m["data_throughput"] = summary[k + "received_payload_bps"] / LINK_BPS
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


def _num(v: Any) -> float:
    return math.nan if v is None else float(v)


SRC = "proactive-atm thesis, section 8."


def references() -> list[Reference]:
    refs = [
        Reference(
            label(1, 1, 156),
            "realtime_loss",
            0.13,
            SRC + "1, Fig. 14: 'at a loading of around 1.2 ... as high as 13%'",
            0.5,
            kind="text",
            notes="156 sources load the link 1.22 by the mean parameters; the thesis's own "
            "load axis puts 1.2 near 120 sources (row below)",
        ),
        Reference(
            label(1, 1, 120),
            "realtime_loss",
            0.13,
            SRC + "1, Fig. 14: 13 % at the thesis's load 1.2 (its 120 sources)",
            0.0,
            "none",
            kind="text",
            notes="shown, not judged: the thesis's load figures do not follow from its "
            "source parameters (docs/proactive-atm.md)",
        ),
        Reference(
            label(1, 1, 138),
            "realtime_late",
            0.8,
            SRC + "1, Fig. 15: 'at a load of 1.1 ... above 60%'",
            0.2,
            "absolute",
            kind="text",
            notes="judged as at least 0.6 (0.8 +/- 0.2); 138 sources load the link 1.08",
        ),
        Reference(
            label(2, 1, 29),
            "data_loss",
            0.2,
            SRC + "2, Fig. 23: 'close to 20% at loads equal to 1.25'",
            0.5,
            kind="text",
            notes="29 data sources offer about 1.3 of the link",
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
            label(1, 3, 156),
            "realtime_loss",
            1e-4,
            SRC + "1, Fig. 18: case 3's cell loss 'on the order of 10^-4'",
            10.0,
            "factor",
            kind="text",
        )
    )
    refs.append(
        Reference(
            label(1, 3, 156),
            "realtime_late",
            0.06,
            SRC + "1, Fig. 19: case 3's late cells 'as high as 6%'",
            2.0,
            "factor",
            kind="text",
        )
    )
    return refs


def artifacts(
    specs: list[RunSpec],
    summaries: dict[tuple[int, int], dict[str, Any]],
    out: Path,
    quick: bool,
) -> list[str]:
    from satcc.studies import proactive_atm_figures

    return proactive_atm_figures.write(specs, summaries, out, quick)


def _labels(sweep: dict[int, tuple[int, ...]]) -> set[str]:
    return {label(n, c, s) for n in sweep for c in CASES for s in sweep[n]}


STUDY = Study(
    name="proactive-atm",
    title="Proactive rate-based congestion control with policing over a satellite ATM link",
    paper="Proactive rate-based congestion control and policing in satellite ATM networks (thesis)",
    description=__doc__ or "",
    runs=runs,
    metrics=metrics,
    references=references(),
    seeds=seeds,
    quick_note=(
        "one seed, 60 s runs, three source counts per scenario, no sensitivity runs; "
        "quick runs see few sessions and may miss a tolerance"
    ),
    artifacts=artifacts,
    full_only=frozenset(_labels(SWEEP) - _labels(QUICK_SWEEP)),
)
