"""Study `tfrc-crosscheck`: satcc's TFRC against ns-2.35's on the same scenarios.

satcc's `profile = "ns2"` (transport/tfrc/ns2_sender.rs, ns2_receiver.rs)
is the reading of ns-2.35's Agent/TFRC and Agent/TFRCSink the tfrc-dama
study runs by default; this study runs it beside ns-2 itself (Debian's
`ns2`) on scenarios built twice from one description
(python/satcc/studies/ns2_tfrc.py, `TfrcCase`), and shows RFC 5348's
profile beside both. Each case is an ensemble of independent copies that
differ by a few tens of microseconds of path delay (ns2_tfrc's text says
why: on a fixed path ns-2's own result turns on the last bit of tied event
times); the judged figure is the ratio of the two ensemble means.

Cases (docs/tfrc-crosscheck.md gives every parameter and each tolerance's
reason):

- start-up over a GEO path (2 Mb/s, 275 ms each way, 16 copies): a
  constant-rate media flow into a finite transmit buffer, as in the
  tfrc-dama paper's Table II: 256 kb/s video of 1316-byte packets with a
  16-packet buffer, 64 kb/s videophone of 512 bytes and 16 kb/s VoIP of
  160 bytes (TFRC-SP) with 2-packet buffers, 20 s of media. Judged: the
  packets sent by 2, 5, 10 and 20 s, and the fraction of the media lost to
  transmit-buffer overflow (both simulators are deterministic here);
- sharing a 2 Mb/s drop-tail bottleneck with a NewReno bulk transfer (the
  dumbbell of crates/core/tests/data/ns2_tfrc_tcp.tcl; queues of 25, 50 and
  100 packets, 32 copies, 120 s): judged, TFRC's throughput and the ratio of
  TFRC's to TCP's; TCP's shown;
- a greedy flow on a 10 Mb/s, 100 ms path with the same losses in both
  simulators: every 20th, 100th, 1000th packet (ns-2's
  ErrorModel/Periodic; 4 copies, 300 s), and in full mode random losses at
  1 % and 5 % drawn once and fed to both (16 copies, 300 s). Judged:
  throughput; shown beside it, RFC 5348's TCP-friendly equation at the
  loss event rate satcc's receiver measured and the path's RTT.

Without ns-2 (`ns` not on PATH) the ns-2 columns are absent and nothing is
judged.
"""

from __future__ import annotations

import json
import math
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from satcc.analysis.tcp import tfrc_equation
from satcc.studies import ns2_tfrc
from satcc.studies.ns2 import find_ns
from satcc.studies.ns2_tfrc import TfrcCase
from satcc.studies.spec import Reference, RunSpec, Study, shown
from satcc.studies.tcp_crosscheck.model import tcp_entry

NS2_SOURCE = "ns-2.35 (Debian ns2), Agent/TFRC and Agent/TFRCSink, the same scenario"
EQUATION_SOURCE = "RFC 5348 §3.1 (t_RTO = 4R, b = 1)"
PROFILES = ("ns2", "rfc5348")
STOPS_S = (2.0, 5.0, 10.0, 20.0)
# Tolerances on satcc / ns-2 (docs/tfrc-crosscheck.md): the ramp (2 and 5 s)
# is where ns-2's own tie-breaking spreads the copies most (a standard
# error of 6 % of the mean at 5 s for video); the buffer losses are the
# difference of two large counts; TFRC alone on a fixed loss pattern agrees
# to the packet; against TCP, the TCP side itself differs by a few percent.
TOL_RAMP = 0.15
TOL_SENT = 0.05
TOL_BUFFER_LOSS = 0.25
TOL_SHARE = 0.10
TOL_RATIO = 1.25  # a factor
TOL_THROUGHPUT = 0.02

GEO = {"rate_bps": 2e6, "delay_s": 0.275, "copies": 16, "duration_s": 40.0, "media_stop_s": 20.0}
LOSSY = {
    "rate_bps": 10e6,
    "delay_s": 0.1,
    "packet_size": 1000,
    "media_rate_bps": None,
    "media_stop_s": None,
    "duration_s": 300.0,
}


@dataclass(frozen=True)
class Point:
    """A case: its label, its kind (`startup`, `share` or `loss`), the
    ensemble, and whether quick mode runs it."""

    label: str
    kind: str
    case: TfrcCase
    quick: bool = True


def points() -> list[Point]:
    out = [
        Point("start-up video 256 kb/s", "startup", TfrcCase(**GEO)),
        Point(
            "start-up videophone 64 kb/s",
            "startup",
            TfrcCase(**GEO, packet_size=512, media_rate_bps=64e3, buffer_packets=2),
        ),
        Point(
            "start-up VoIP 16 kb/s TFRC-SP",
            "startup",
            TfrcCase(
                **GEO, packet_size=160, media_rate_bps=16e3, buffer_packets=2, small_packets=True
            ),
        ),
    ]
    for queue in (25, 50, 100):
        case = TfrcCase(
            topology="dumbbell",
            copies=32,
            delay_step_s=0.37e-3,
            packet_size=1500,
            media_rate_bps=None,
            media_stop_s=None,
            queue_limit=queue,
            duration_s=120.0,
        )
        out.append(Point(f"against NewReno, drop-tail {queue}", "share", case))
    for every in (20, 100, 1000):
        case = TfrcCase(**LOSSY, copies=4, loss_every=every)
        out.append(Point(f"every {every}th packet lost", "loss", case))
    for p in (0.01, 0.05):
        case = TfrcCase(**LOSSY, copies=16, loss_pattern=p)
        out.append(Point(f"random loss {p:g}, same pattern", "loss", case, quick=False))
    return out


POINTS = points()
BY_LABEL = {p.label: p for p in POINTS}


def _label(point: Point, profile: str, stop: float | None = None) -> str:
    label = point.label if stop is None else f"{point.label}, by {stop:g} s"
    return label if profile == "ns2" else f"{label} [{profile}]"


# ---------------------------------------------------------------------------
# The satcc scenario of a case


def _flow(case: TfrcCase, profile: str, src: str, dst: str) -> dict:
    # Under the RFC profiles packet_size is the size on the wire, which is
    # ns-2's packetSize_ plus its headers; the media rate counts the same
    # bytes, so it is scaled to keep the packets per second.
    size, media_rate = case.packet_size, case.media_rate_bps
    flow: dict[str, Any] = {
        "from": src,
        "to": dst,
        "profile": profile,
        "feedback_size": f"{ns2_tfrc.FEEDBACK_BYTES} B",
        "small_packets": case.small_packets,
    }
    if profile != "ns2":
        size = case.wire_bytes
        flow["header_size"] = f"{ns2_tfrc.HEADER_BYTES} B"
        if media_rate is not None:
            media_rate *= case.wire_bytes / case.packet_size
    flow["packet_size"] = f"{size} B"
    if media_rate is None:
        # A greedy sender: media far above any rate it reaches, a buffer
        # that never fills.
        flow["media"] = {"rate": "100 Mbps", "buffer": 10_000_000}
    else:
        flow["media"] = {"rate": f"{media_rate:.9g} bps", "buffer": case.buffer_packets}
        if case.media_stop_s is not None:
            flow["media"]["duration"] = f"{case.media_stop_s:.9g} s"
    return flow


def _path(case: TfrcCase, k: int, profile: str, lost: tuple[int, ...], out: dict) -> None:
    big = {"limit": f"{ns2_tfrc.QUEUE_PACKETS} packets"}
    out["nodes"].update({f"s{k}": {"type": "host"}, f"r{k}": {"type": "host"}})
    hop = {"rate": f"{case.rate_bps:.9g} bps", "delay": f"{case.delay_of(k):.12g} s", "queue": big}
    data = {"from": f"s{k}", "to": f"r{k}", **hop}
    if case.loss:
        data["loss"] = case.loss
    if case.loss_every:
        data["loss_every"] = case.loss_every
    if lost:
        data["loss_list"] = list(lost)
    out["links"][f"data{k}"] = data
    out["links"][f"back{k}"] = {"from": f"r{k}", "to": f"s{k}", **hop}
    out["tfrc"][f"v{k}"] = _flow(case, profile, f"s{k}", f"r{k}")


def _dumbbell(case: TfrcCase, k: int, profile: str, out: dict) -> None:
    out["nodes"].update({f"{v}{k}": {"type": "host"} for v in "abxy"})
    out["nodes"].update({f"p{k}": {}, f"q{k}": {}})
    # ns-2's duplex-link default queue-limit is 50: one in transmission and
    # 49 waiting.
    access = {"rate": "100 Mbps", "duplex": True, "queue": {"limit": "49 packets"}}
    a_delay = f"{case.delay_of(k):.12g} s"
    other = f"{ns2_tfrc.DUMBBELL_ACCESS_S} s"
    links = out["links"]
    links[f"a{k}"] = {"from": f"a{k}", "to": f"p{k}", "delay": a_delay, **access}
    links[f"b{k}"] = {"from": f"b{k}", "to": f"p{k}", "delay": other, **access}
    links[f"x{k}"] = {"from": f"q{k}", "to": f"x{k}", "delay": other, **access}
    links[f"y{k}"] = {"from": f"q{k}", "to": f"y{k}", "delay": other, **access}
    links[f"bn{k}"] = {
        "from": f"p{k}",
        "to": f"q{k}",
        "rate": f"{ns2_tfrc.DUMBBELL_RATE_BPS:.9g} bps",
        "delay": f"{ns2_tfrc.DUMBBELL_DELAY_S} s",
        "duplex": True,
        "queue": {"limit": f"{case.queue_limit - 1} packets"},
    }
    out["tfrc"][f"v{k}"] = _flow(case, profile, f"a{k}", f"x{k}")
    out.setdefault("tcp", {})[f"t{k}"] = tcp_entry(ns2_tfrc.DUMBBELL_TCP, f"b{k}", f"y{k}")


def scenario(case: TfrcCase, profile: str, stop_s: float | None = None) -> dict:
    """The satcc scenario of `case` under `profile`, stopped at `stop_s`
    (default: the case's duration)."""
    out: dict[str, Any] = {
        "run": {"name": "tfrc-crosscheck", "duration": f"{stop_s or case.duration_s:.9g} s"},
        "nodes": {},
        "links": {},
        "tfrc": {},
    }
    lost = case.loss_lists()
    for k in range(case.copies):
        if case.topology == "dumbbell":
            _dumbbell(case, k, profile, out)
        else:
            _path(case, k, profile, lost[k], out)
    if case.media_rate_bps is not None and stop_s is None:
        # Each copy's sending rate, second by second, for the figure.
        out["run"]["sample_interval"] = "1 s"
        out["probes"] = {
            f"sent{k}": {"tfrc": f"v{k}", "metric": "send_bps"} for k in range(case.copies)
        }
    return out


def runs(quick: bool) -> list[RunSpec]:
    specs = []
    for point in POINTS:
        if quick and not point.quick:
            continue
        for profile in PROFILES:
            params = {"case": point.label, "profile": profile, "copies": point.case.copies}
            stops = (*STOPS_S, None) if point.kind == "startup" else (None,)
            for stop in stops:
                sc = scenario(point.case, profile, stop)
                label = _label(point, profile, stop)
                specs.append(RunSpec(label, {**params, "stop_s": stop}, sc, seeds=(1,)))
    return specs


def seeds(quick: bool) -> list[int]:
    return [1]


# ---------------------------------------------------------------------------
# ns-2's side, once per case and process

_lock = threading.Lock()
_ns2: dict[str, dict] = {}


def ns2_figures(point: Point) -> dict | None:
    """ns-2's figures for `point` (ns2_tfrc.run), or None without ns-2."""
    ns = find_ns()
    if ns is None:
        return None
    key = json.dumps([point.label, repr(point.case), ns])
    with _lock:
        if key not in _ns2:
            _ns2[key] = ns2_tfrc.run(point.case, 1, ns)
        return _ns2[key]


def _ns2_metrics(point: Point, stop: float | None) -> dict[str, list[float]]:
    """Per copy, ns-2's values of the metrics `metrics` gives satcc's."""
    r = ns2_figures(point)
    case = point.case
    if r is None:
        return {}
    out: dict[str, list[float]] = {}
    if point.kind == "startup" and stop is not None:
        out["sent"] = [r["sent_by"][k].get(round(stop, 9), math.nan) for k in range(case.copies)]
        return out
    ends = r["end"]
    if point.kind == "startup":
        out["buffer_loss"] = [_ratio(e["gen"] - e["sent"], e["gen"]) for e in ends]
        out["sent"] = [e["sent"] for e in ends]
        return out
    out["throughput_mbps"] = [e["bytes"] * 8 / case.duration_s / 1e6 for e in ends]
    if point.kind == "share":
        tcp = [e["bytes"] * 8 / case.duration_s / 1e6 for e in r["tcp_end"]]
        out["tcp_mbps"] = tcp
        out["tfrc_over_tcp"] = [a / b for a, b in zip(out["throughput_mbps"], tcp, strict=True)]
    return out


# ---------------------------------------------------------------------------
# Metrics


def _per_copy(summary: dict[str, Any], spec: RunSpec) -> dict[str, list[float]]:
    point = BY_LABEL[spec.params["case"]]
    case = point.case
    n = case.copies
    f = [lambda key, k=k: float(summary[f"tfrc.v{k}.{key}"]) for k in range(n)]
    out: dict[str, list[float]] = {}
    if point.kind == "startup":
        out["sent"] = [g("packets_sent") for g in f]
        if spec.params["stop_s"] is None:
            out["buffer_loss"] = [g("tx_buffer_overflow") / g("generated") for g in f]
        return out
    # Bytes received on the wire over the whole run (the start-up is a few
    # seconds of 120 or 300, alike in both simulators).
    out["throughput_mbps"] = [g("goodput_bps") / 1e6 for g in f]
    if point.kind == "share":
        tcp_wire = (ns2_tfrc.DUMBBELL_TCP.mss + 40) / ns2_tfrc.DUMBBELL_TCP.mss
        tcp = [float(summary[f"tcp.t{k}.goodput_bps"]) * tcp_wire / 1e6 for k in range(n)]
        out["tcp_mbps"] = tcp
        out["tfrc_over_tcp"] = [a / b for a, b in zip(out["throughput_mbps"], tcp, strict=True)]
    if point.kind == "loss":
        out["p"] = [g("p") for g in f]
        rtt = 2 * case.delay_s + (case.wire_bytes + ns2_tfrc.FEEDBACK_BYTES) * 8 / case.rate_bps
        out["equation_mbps"] = [
            tfrc_equation(case.wire_bytes, rtt, g("p")) * 8 / 1e6 if g("p") > 0 else math.nan
            for g in f
        ]
    return out


def _mean(values: list[float]) -> float:
    vals = [v for v in values if math.isfinite(v)]
    return float(np.mean(vals)) if vals else math.nan


def _se(values: list[float]) -> float:
    vals = [v for v in values if math.isfinite(v)]
    return float(np.std(vals, ddof=1) / math.sqrt(len(vals))) if len(vals) > 1 else math.nan


def _ratio(a: float, b: float) -> float:
    """a / b, NaN (not judged) where b is 0: satcc against an ns-2 figure of
    0 (no loss, say) has no ratio, and the division would stop the study."""
    return a / b if b != 0 else math.nan


def metrics(summary: dict[str, Any], spec: RunSpec) -> dict[str, float]:
    """Ensemble means (and standard errors, `_se`) of satcc's figures and, for
    the ns2 profile, ns-2's and the ratio of the two."""
    point = BY_LABEL[spec.params["case"]]
    ours = _per_copy(summary, spec)
    out: dict[str, float] = {}
    for name, values in ours.items():
        out[f"satcc_{name}"] = _mean(values)
        out[f"satcc_{name}_se"] = _se(values)
    if point.kind == "loss":
        throughput, equation = out["satcc_throughput_mbps"], out["satcc_equation_mbps"]
        out["satcc_over_equation"] = _ratio(throughput, equation)
    if spec.params["profile"] != "ns2":
        return out
    theirs = _ns2_metrics(point, spec.params["stop_s"])
    for name in ours:
        if name in theirs:
            out[f"ns2_{name}"] = _mean(theirs[name])
            out[f"ns2_{name}_se"] = _se(theirs[name])
            out[f"{name}_ratio"] = _ratio(out[f"satcc_{name}"], out[f"ns2_{name}"])
    for name in ("sent", "buffer_loss", "throughput_mbps", "tcp_mbps", "tfrc_over_tcp"):
        out.setdefault(f"ns2_{name}", math.nan)
        out.setdefault(f"{name}_ratio", math.nan)
    return out


# ---------------------------------------------------------------------------
# References


def _judged(label: str, metric: str, tol: float, kind: str, judge: bool, note: str) -> Reference:
    ref_value = 1.0 if judge else math.nan
    return Reference(
        label,
        metric,
        ref_value,
        NS2_SOURCE,
        tol if judge else 0.0,
        kind if judge else "none",
        kind="simulator",
        notes=note + ("" if judge else "; ns-2 absent"),
    )


def _shown(label: str, metric: str, source: str = NS2_SOURCE) -> Reference:
    return shown(label, metric, source)


def references(judge: bool) -> list[Reference]:
    refs = []
    for point in POINTS:
        if point.kind == "startup":
            for stop in (*STOPS_S, None):
                label = _label(point, "ns2", stop)
                if stop is None:
                    refs.append(
                        _judged(
                            label,
                            "buffer_loss_ratio",
                            TOL_BUFFER_LOSS,
                            "relative",
                            judge,
                            "satcc / ns-2, media lost to transmit-buffer overflow",
                        )
                    )
                    names = ("satcc_buffer_loss", "ns2_buffer_loss")
                else:
                    tol = TOL_RAMP if stop < 10 else TOL_SENT
                    refs.append(
                        _judged(
                            label,
                            "sent_ratio",
                            tol,
                            "relative",
                            judge,
                            f"satcc / ns-2, packets sent by {stop:g} s",
                        )
                    )
                    names = ("satcc_sent", "ns2_sent")
                refs += [_shown(label, m) for m in names]
                refs += [_shown(_label(point, "rfc5348", stop), names[0])]
            continue
        label = _label(point, "ns2")
        refs.append(
            _judged(
                label,
                "throughput_mbps_ratio",
                TOL_SHARE if point.kind == "share" else TOL_THROUGHPUT,
                "relative",
                judge,
                "satcc / ns-2, TFRC's throughput (Mb/s on the wire)",
            )
        )
        refs += [_shown(label, m) for m in ("satcc_throughput_mbps", "ns2_throughput_mbps")]
        refs.append(_shown(_label(point, "rfc5348"), "satcc_throughput_mbps"))
        if point.kind == "share":
            refs.append(
                _judged(
                    label,
                    "tfrc_over_tcp_ratio",
                    TOL_RATIO,
                    "factor",
                    judge,
                    "satcc / ns-2, TFRC's throughput over TCP's",
                )
            )
            refs += [
                _shown(label, m)
                for m in (
                    "satcc_tfrc_over_tcp",
                    "ns2_tfrc_over_tcp",
                    "satcc_tcp_mbps",
                    "ns2_tcp_mbps",
                )
            ]
            refs.append(_shown(_label(point, "rfc5348"), "satcc_tfrc_over_tcp"))
        else:
            refs += [
                _shown(label, "satcc_p"),
                _shown(label, "satcc_equation_mbps", EQUATION_SOURCE),
                _shown(label, "satcc_over_equation", EQUATION_SOURCE),
                _shown(_label(point, "rfc5348"), "satcc_over_equation", EQUATION_SOURCE),
            ]
    return refs


def ns2_present() -> bool:
    return find_ns() is not None


# ---------------------------------------------------------------------------
# The table and the start-up figure


def layout(table: Any) -> list[Any]:
    from rich import box
    from rich.table import Table

    from satcc import fmt
    from satcc.studies.compare import verdict_markup

    present = bool((table["tolerance_kind"] != "none").any())
    title = "tfrc-crosscheck: satcc's TFRC (profile ns2) against ns-2.35, ensemble means"
    if not present:
        title += " - ns-2 ABSENT (apt-get install ns2): satcc only, nothing judged"
    out = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, padding=(0, 1))
    out.add_column("case", no_wrap=True)
    out.add_column("figure", no_wrap=True)
    for head in ("satcc ns2", "ns-2", "satcc/ns-2", "", "satcc rfc5348"):
        out.add_column(head, justify="right", no_wrap=True)
    rows = {(r.label, r.metric): r for r in table.itertuples()}

    def value(label: str, metric: str) -> str:
        r = rows.get((label, metric))
        return fmt.number(r.measured) if r is not None else fmt.MISSING

    for point in POINTS:
        if not any(lbl == _label(point, "ns2") or lbl.startswith(point.label) for lbl, _ in rows):
            continue
        if point.kind == "startup":
            figures = [
                (f"sent by {s:g} s", _label(point, "ns2", s), "sent", _label(point, "rfc5348", s))
                for s in STOPS_S
            ]
            figures.append(
                (
                    "buffer loss",
                    _label(point, "ns2"),
                    "buffer_loss",
                    _label(point, "rfc5348"),
                )
            )
        else:
            figures = [
                (
                    "throughput Mb/s",
                    _label(point, "ns2"),
                    "throughput_mbps",
                    _label(point, "rfc5348"),
                )
            ]
            if point.kind == "share":
                figures.append(
                    ("TFRC/TCP", _label(point, "ns2"), "tfrc_over_tcp", _label(point, "rfc5348"))
                )
        for i, (what, label, name, rfc_label) in enumerate(figures):
            judged = rows.get((label, f"{name}_ratio"))
            out.add_row(
                point.label if i == 0 else "",
                what,
                value(label, f"satcc_{name}"),
                value(label, f"ns2_{name}"),
                value(label, f"{name}_ratio"),
                verdict_markup(judged) if judged is not None else "",
                value(rfc_label, f"satcc_{name}"),
            )
        if point.kind == "loss":
            out.add_row(
                "",
                "over RFC 5348 eq.",
                value(_label(point, "ns2"), "satcc_over_equation"),
                "",
                "",
                "",
                value(_label(point, "rfc5348"), "satcc_over_equation"),
            )
    return [out]


def _per_second(series: dict[str, tuple[Any, Any]], copies: int, wire: int) -> Any:
    """Mean packets sent in each second over the copies, from their
    `send_bps` probes."""
    rates = [np.asarray(series[f"sent{k}"][1]) for k in range(copies) if f"sent{k}" in series]
    if not rates:
        return None
    return np.mean(rates, axis=0) / 8 / wire


def artifacts(
    specs: list[RunSpec],
    summaries: dict[tuple[int, int], dict[str, Any]],
    out_dir: Path,
    quick: bool,
    series: dict[tuple[int, int], dict[str, tuple[Any, Any]]],
) -> list[str]:
    """startup.csv: per start-up case, second by second over the first 20 s,
    the mean packets sent per second by satcc (ns2 and rfc5348 profiles) and
    by ns-2; startup.png: the same, one panel per case."""
    import pandas as pd

    from satcc.studies import plots

    rows = []
    for i, spec in enumerate(specs):
        point = BY_LABEL[spec.params["case"]]
        if point.kind != "startup" or spec.params["stop_s"] is not None:
            continue
        case = point.case
        profile = spec.params["profile"]
        ours = _per_second(series.get((i, 1), {}), case.copies, case.wire_bytes)
        if ours is None:
            continue
        theirs = None
        figures = ns2_figures(point) if profile == "ns2" else None
        if figures is not None:
            by = [figures["sent_by"][k] for k in range(case.copies)]
            cumulative = [[b.get(float(t), math.nan) for b in by] for t in range(0, 41)]
            cumulative[0] = [0.0] * case.copies
            theirs = np.diff(np.mean(cumulative, axis=1))
        for t in range(int(case.media_stop_s or 20)):
            row = {"case": point.label, "second": t + 1, "profile": profile}
            row["satcc_packets_per_s"] = float(ours[t]) if t < len(ours) else math.nan
            row["ns2_packets_per_s"] = float(theirs[t]) if theirs is not None else math.nan
            rows.append(row)
    if not rows:
        return []
    frame = pd.DataFrame(rows)
    written = [plots.write_csv(frame, out_dir / "startup.csv")]
    cases = list(dict.fromkeys(frame["case"]))
    fig, axes = plots.figure(
        "second since the flow started",
        "packets sent per second",
        size=(7.0, 1.0 + 2.4 * len(cases)),
        nrows=len(cases),
        squeeze=False,
    )
    for ax, case_label in zip(axes[:, 0], cases, strict=True):
        part = frame[frame["case"] == case_label]
        ns2_rows = part[part["profile"] == "ns2"]
        rfc_rows = part[part["profile"] == "rfc5348"]
        ax.step(
            ns2_rows.second, ns2_rows.ns2_packets_per_s, where="mid", color="k", label="ns-2.35"
        )
        ax.plot(
            ns2_rows.second, ns2_rows.satcc_packets_per_s, "o-", ms=3, label="satcc, ns2 profile"
        )
        ax.plot(rfc_rows.second, rfc_rows.satcc_packets_per_s, ":", label="satcc, rfc5348 profile")
        plots.panel_title(ax, case_label)
        plots.legend(ax, fontsize=7)
    plots.title(fig, "TFRC start-up, satcc against ns-2.35", "packets sent in each second")
    caption = (
        "Each start-up case's packets sent in each of the flow's first seconds, the mean over "
        "its parallel copies: ns-2.35 run on the same case (black steps; absent where ns-2 is "
        "not installed) against satcc's TFRC with the ns2 profile (circles) and the RFC 5348 "
        "profile (dotted). One deterministic run each: no spread to show."
    )
    written += plots.save_figure(fig, out_dir / "startup.png", caption)
    return written


STUDY = Study(
    name="tfrc-crosscheck",
    title="satcc's TFRC (ns-2 profile) against ns-2.35 on the same scenarios",
    paper=(
        "ns-2.35 (the ns-2 network simulator, Agent/TFRC and Agent/TFRCSink with "
        "ns-default.tcl's defaults); RFC 5348"
    ),
    description=__doc__ or "",
    runs=runs,
    metrics=metrics,
    references=references(judge=ns2_present()),
    seeds=seeds,
    quick_note="leaves out the random-loss cases (the fixed loss patterns stay)",
    layout=layout,
    artifacts=artifacts,
    series=tuple(
        f"sent{k}" for k in range(max(p.case.copies for p in POINTS if p.kind == "startup"))
    ),
    full_only=frozenset(_label(p, profile) for p in POINTS if not p.quick for profile in PROFILES),
)
