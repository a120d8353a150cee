"""What tcp-crosscheck judges and shows: the goodput ratio satcc / ns-2
against 1 where ns-2 is installed, and beside it the goodputs, the
retransmissions and timeouts of both, the realised loss rate and the
models; the rows known to leave 1 carry their measured mechanism."""

from __future__ import annotations

import math

from satcc.studies.spec import Reference
from satcc.studies.tcp_crosscheck.model import POINTS

# The ratio satcc / ns-2 of the mean goodputs passes within 5 % of 1.
TOLERANCE = 0.05
NS2_SOURCE = "ns-2.35 (Debian ns2), the same scenario and seeds"
MODEL_SOURCE = "Padhye et al. 1998 eq. (31)/(32); Mathis et al. 1997"
CUBIC_MODEL_SOURCE = "RFC 9438 §5.1 (response function) and §4.3 (Reno-friendly floor)"
HYBLA_MODEL_SOURCE = (
    "Caini and Firrincieli 2004 (rho^2 segments per RTT) in Mathis et al. 1997's derivation"
)
LOSS_SOURCE = "satcc's lossy links: PDUs lost / PDUs started in the measured window"

SHOWN = (
    "satcc_goodput_mbps",
    "ns2_goodput_mbps",
    "paired_ratio",
    "loss_realised",
    "satcc_retransmissions",
    "ns2_retransmissions",
    "satcc_timeouts",
    "ns2_timeouts",
    "padhye_mbps",
    "mathis_mbps",
    "cubic_model_mbps",
    "hybla_model_mbps",
)


def _source(metric: str) -> str:
    if metric.startswith("cubic"):
        return CUBIC_MODEL_SOURCE
    if metric.startswith("hybla"):
        return HYBLA_MODEL_SOURCE
    if metric == "loss_realised":
        return LOSS_SOURCE
    return MODEL_SOURCE if metric.startswith(("padhye", "mathis")) else NS2_SOURCE


# Where the ratio is known to leave 1, and why (docs/tcp-crosscheck.md,
# "Exceptions"): the mechanism, measured, in the row's notes.
_EXIT = (
    "NewReno's exit from recovery: satcc cwnd = min(ssthresh, FlightSize + MSS) "
    "(RFC 6582), ns-2 keeps cwnd = ssthresh; with ns-2's exit_recovery_fix_ 1 the "
    "ratio is 0.99 (6 quick seeds)"
)
_START = (
    "quick mode only: the timeout that ends the slow-start overshoot sets satcc's "
    "ssthresh to FlightSize/2 (7.5 packets), ns-2's to window()/2 (35), and satcc's "
    "climb back lasts into the quick window; full mode's 100-600 s agrees"
)
ROW_NOTES = {
    "GEO buffer-limited reno": _START,
    "GEO buffer-limited newreno": _START,
    "loss 1e-2 newreno delack LT minRTO 1s": _EXIT,
    "loss 1e-2 newreno delack LT minRTO 0.2s": _EXIT,
    "loss 1e-2 newreno delack noLT minRTO 1s": _EXIT,
    "loss 1e-2 newreno ack-every LT minRTO 1s": _EXIT,
    "loss 3e-3 cubic delack RTT 41 ms": "tcp_cubic 2.1's Reno-friendly estimate is not "
    "RFC 9438's (alpha 8/23 per window of ACKs against 0.529 per window of segments)",
    "GEO buffer-limited hybla": "rho^2/2 = 242 packets per RTT against a 123-packet pipe: "
    "each cycle loses about 100 packets at once, and retransmissions are lost too; satcc's "
    "RFC 6675 recovery repairs those by its timer only (103 timeouts), ns-2's Linux sender "
    "by SACK (none); with satcc's recovery = rack-tlp: no timeout, 1.16",
    "loss 1e-3 hybla delack": "spurious timeouts in satcc (30.7 per run, ns-2 none): the "
    "window fills the 1000-packet queue and the fast retransmission waits behind it longer "
    "than satcc's RTO, restarted at the fast retransmit, while ns-2's Linux sender restarts "
    "its timer on every ACK; with a 3 s minimum RTO in both, 0.985",
}
_PER_FLOW_NOTE = "per-flow shares of a drop-tail queue move with sub-millisecond phase effects"


def references(judge: bool) -> list[Reference]:
    refs = []
    for point in POINTS:
        n = len(point.case.flows)
        ratios = ["goodput_ratio"] + ([f"goodput_ratio_flow{i}" for i in range(n)] if n > 1 else [])
        for metric in ratios:
            refs.append(
                Reference(
                    point.label,
                    metric,
                    1.0 if judge else math.nan,
                    NS2_SOURCE,
                    TOLERANCE if judge else 0.0,
                    "relative" if judge else "none",
                    kind="simulator",
                    notes="; ".join(
                        ["satcc mean goodput / ns-2 mean goodput"]
                        + ([ROW_NOTES[point.label]] if point.label in ROW_NOTES else [])
                        + ([_PER_FLOW_NOTE] if metric != "goodput_ratio" else [])
                        + ([] if judge else ["ns-2 absent"])
                    ),
                )
            )
        shown = list(SHOWN)
        if n > 1:
            shown += [
                f"{s}_flow{i}"
                for i in range(n)
                for s in ("satcc_goodput_mbps", "ns2_goodput_mbps", "paired_ratio")
            ]
        for metric in shown:
            refs.append(
                Reference(
                    point.label,
                    metric,
                    math.nan,
                    _source(metric),
                    0.0,
                    "none",
                    kind="shown",
                )
            )
    return refs
