"""The closed-form averages tcp-crosscheck shows beside each random-loss
row: Padhye et al. (1998) and Mathis et al. (1997) for the Reno family,
CUBIC's response function (RFC 9438 §5.1) with its Reno-friendly floor,
and Hybla's AIMD average; each as a window, then as goodput for a case."""

from __future__ import annotations

import math

from satcc.analysis.tcp import (
    MATHIS_C_ACK_EVERY_SEGMENT,
    MATHIS_C_DELAYED_ACK,
    mathis_throughput,
    padhye_throughput,
)
from satcc.studies.ns2 import Case


def cubic_window(rtt_s: float, p: float, c: float = 0.4, beta: float = 0.7) -> float:
    """CUBIC's average congestion window (segments) at loss rate `p` (losses
    per packet) and round-trip time `rtt_s`: the larger of

    - the response function of RFC 9438 §5.1,
      AVG_W_cubic = (C (3 + β) / (4 (1 − β)))^(1/4) · RTT^(3/4) / p^(3/4)
      (RTT in seconds; 1.054 · RTT^(3/4) / p^(3/4) with C = 0.4, β = 0.7), and
    - the Reno-friendly floor, the average window of AIMD(α_cubic, β) (RFC
      9438 §4.3, eq. 3, after Floyd, Handley and Padhye 2000):
      sqrt(α (1 + β) / (2 (1 − β) p)) with α = α_cubic = 3 (1 − β)/(1 + β),
      which is Reno's sqrt(3 / (2p)).

    Both are analyses of deterministic losses, one every 1/p packets, with
    no timeouts; W_est counts segments acknowledged, so neither depends on
    delayed ACKs."""
    if not (rtt_s > 0 and 0 < p < 1 and c > 0 and 0 < beta < 1):
        raise ValueError("need rtt_s > 0, 0 < p < 1, c > 0 and 0 < beta < 1")
    cubic = (c * (3 + beta) / (4 * (1 - beta))) ** 0.25 * rtt_s**0.75 / p**0.75
    alpha = 3 * (1 - beta) / (1 + beta)
    reno_friendly = math.sqrt(alpha * (1 + beta) / (2 * (1 - beta) * p))
    return max(cubic, reno_friendly)


def hybla_window(rho: float, p: float, delayed_ack: bool = True) -> float:
    """Hybla's average congestion window (segments) at loss rate `p` (losses
    per packet): AIMD that adds rho^2 segments per RTT (Caini and
    Firrincieli 2004: W^H = rho W^R in congestion avoidance), rho^2 / 2 with
    an ACK every second segment (both simulators grow per ACK), and halves
    at each loss. With one loss every 1/p packets the window saws between
    W/2 and W over W/(2a) RTTs of 3W/4 segments each, so 3W^2/(8a) = 1/p
    and the average 3W/4 = sqrt(3a/(2p)): with a = rho^2 / b (b segments per
    ACK), rho sqrt(3/(2bp)) = rho C / sqrt(p), Mathis et al.'s C (sqrt(3/4)
    with delayed ACKs, sqrt(3/2) without); rho = 1 is Mathis's Reno. As
    Mathis's law: no timeouts, deterministic losses, and neither the link
    nor the window binding."""
    if not (rho >= 1 and 0 < p < 1):
        raise ValueError("need rho >= 1 and 0 < p < 1")
    c = MATHIS_C_DELAYED_ACK if delayed_ack else MATHIS_C_ACK_EVERY_SEGMENT
    return rho * c / math.sqrt(p)


def cubic_model(case: Case, p: float | None = None) -> float:
    """`cubic_window` at loss rate `p` (default: the case's) as goodput
    (Mb/s of payload) for flow 0 of a single-flow CUBIC case with random
    loss, over the path's empty RTT; NaN elsewhere, and where no packet was
    lost."""
    p = case.loss if p is None else p
    if len(case.flows) != 1 or case.congestion_control != "cubic" or case.loss == 0 or p == 0:
        return math.nan
    rtt = case.rtt_s()
    return cubic_window(rtt, p) * case.mss * 8 / rtt / 1e6


def hybla_model(case: Case, p: float | None = None) -> float:
    """`hybla_window` at loss rate `p` (default: the case's) as goodput (Mb/s
    of payload) for flow 0 of a single-flow Hybla case with random loss,
    with the rho that rtt0 and the SYN's RTT give (ns2.Case.hybla_rho8; both
    simulators take rho from the SYN's SRTT) and the path's empty RTT; NaN
    elsewhere, and where no packet was lost."""
    p = case.loss if p is None else p
    if len(case.flows) != 1 or case.congestion_control != "hybla" or case.loss == 0 or p == 0:
        return math.nan
    rtt = case.rtt_s()
    w = hybla_window(case.hybla_rho8() / 8, p, case.delayed_ack)
    return w * case.mss * 8 / rtt / 1e6


def reno_models(case: Case, p: float | None = None) -> tuple[float, float]:
    """Padhye and Mathis at loss rate `p` (default: the case's) for flow 0
    of a single-flow Reno-family case, in Mb/s of payload; NaN where they do
    not apply (drop-tail losses, several flows, CUBIC, Hybla)."""
    p = case.loss if p is None else p
    if len(case.flows) != 1 or case.congestion_control != "reno":
        return math.nan, math.nan
    if case.loss == 0 and case.window_packets >= case.bdp_packets():
        return math.nan, math.nan  # drop-tail losses: neither model's loss process
    rtt = case.rtt_s()
    b = 2 if case.delayed_ack else 1
    t0 = max(case.min_rto_s, rtt)
    padhye = padhye_throughput(case.mss, rtt, p, t0, b, case.window_packets)
    mathis = math.nan
    if p > 0:
        c = MATHIS_C_DELAYED_ACK if case.delayed_ack else MATHIS_C_ACK_EVERY_SEGMENT
        mathis = mathis_throughput(case.mss, rtt, p, c)
    return padhye * 8 / 1e6, mathis * 8 / 1e6
