"""Closed-form TCP throughput: Mathis et al. (1997), Padhye et al. (1998), windows.

All throughputs are in bytes per second of payload (segments per second times
the segment size), so they compare directly with the simulator's goodput
(`tcp.NAME.goodput_bps` / 8). The functions take and return plain floats; map
them over arrays for curves.

References:

- M. Mathis, J. Semke, J. Mahdavi, T. Ott, "The Macroscopic Behavior of the
  TCP Congestion Avoidance Algorithm", ACM SIGCOMM Computer Communication
  Review 27(3), July 1997.
- J. Padhye, V. Firoiu, D. Towsley, J. Kurose, "Modeling TCP Throughput: A
  Simple Model and its Empirical Validation", ACM SIGCOMM 1998 (eq. (31)/(32)
  for the full model, eq. (33) for the approximation).

The formulas are restated in `../shared/REFERENCE.md` section 7.
"""

from __future__ import annotations

import math

from satcc.analysis._validate import positive

__all__ = [
    "MATHIS_C_ACK_EVERY_SEGMENT",
    "MATHIS_C_DELAYED_ACK",
    "bdp_bytes",
    "mathis_throughput",
    "padhye_approx",
    "padhye_throughput",
    "padhye_window",
    "tfrc_equation",
    "window_limited_throughput",
]

# Mathis et al. 1997: C = sqrt(3/2) with an ACK for every segment, sqrt(3/4)
# with delayed ACKs (one ACK every second segment).
MATHIS_C_ACK_EVERY_SEGMENT = math.sqrt(3 / 2)
MATHIS_C_DELAYED_ACK = math.sqrt(3 / 4)


def _loss(p: float, below_one: bool) -> float:
    p = float(p)
    upper_ok = p < 1 if below_one else p <= 1
    if not (math.isfinite(p) and p >= 0 and upper_ok):
        bound = "0 <= p < 1" if below_one else "0 <= p <= 1"
        raise ValueError(f"the loss probability must satisfy {bound}, got {p!r}")
    return p


def _acks(b: float) -> float:
    b = float(b)
    if not (math.isfinite(b) and b >= 1):
        raise ValueError(f"b (segments acknowledged per ACK) must be at least 1, got {b!r}")
    return b


def _wmax(wmax_segments: float | None) -> float | None:
    if wmax_segments is None:
        return None
    wmax = float(wmax_segments)
    if not (math.isfinite(wmax) and wmax >= 1):
        raise ValueError(f"wmax_segments must be at least 1 segment, got {wmax_segments!r}")
    return wmax


def mathis_throughput(
    mss_bytes: float, rtt_s: float, p: float, c: float = MATHIS_C_ACK_EVERY_SEGMENT
) -> float:
    """Mathis et al. (1997): throughput = (MSS / RTT) * C / sqrt(p), in bytes/s.

    The "macroscopic" square-root law of congestion avoidance with periodic
    losses at rate p (losses per segment). C = sqrt(3/2) for an ACK per
    segment (the default), sqrt(3/4) with delayed ACKs. No timeouts and no
    window limit: it overestimates at high p and is infinite at p = 0.
    """
    mss = positive("mss_bytes", mss_bytes)
    rtt = positive("rtt_s", rtt_s)
    p = _loss(p, below_one=False)
    c = positive("c", c)
    if p == 0:
        return math.inf
    return mss / rtt * c / math.sqrt(p)


def padhye_window(p: float, b: float = 2) -> float:
    """W(p) of Padhye et al. (1998): the mean unconstrained window, in segments.

    W(p) = (2+b)/(3b) + sqrt( 8(1-p)/(3bp) + ((2+b)/(3b))^2 ), with b the number
    of segments acknowledged by one ACK.
    """
    p = _loss(p, below_one=True)
    b = _acks(b)
    if p == 0:
        return math.inf
    a = (2 + b) / (3 * b)
    return a + math.sqrt(8 * (1 - p) / (3 * b * p) + a * a)


def _survive(p: float, n: float) -> float:
    """(1-p)^n, accurate for small p."""
    return math.exp(n * math.log1p(-p))


def _lost(p: float, n: float) -> float:
    """1 - (1-p)^n without cancellation for small p."""
    return -math.expm1(n * math.log1p(-p))


def _q_hat(p: float, w: float) -> float:
    """Q^(w) of Padhye et al.: probability that a loss in a window of w is a timeout.

    Q^(w) = min(1, (1-(1-p)^3)(1 + (1-p)^3 (1-(1-p)^(w-3))) / (1-(1-p)^w)).
    """
    return min(1.0, _lost(p, 3) * (1 + _survive(p, 3) * _lost(p, w - 3)) / _lost(p, w))


def _f(p: float) -> float:
    """f(p) = 1 + p + 2p^2 + 4p^3 + 8p^4 + 16p^5 + 32p^6 (timeout backoff sequence)."""
    return 1 + p + 2 * p**2 + 4 * p**3 + 8 * p**4 + 16 * p**5 + 32 * p**6


def padhye_throughput(
    mss_bytes: float,
    rtt_s: float,
    p: float,
    rto_s: float,
    b: float = 2,
    wmax_segments: float | None = None,
) -> float:
    """The full model of Padhye et al. (1998), eq. (31)/(32), in bytes/s.

    With W = W(p) (see `padhye_window`), Q = Q^(W) and T0 = rto_s, the rate in
    segments per second is

        [ (1-p)/p + W + Q/(1-p) ] / [ RTT (bW/2 + 1) + Q T0 f(p)/(1-p) ]

    when W(p) < Wmax; otherwise (the receiver window limits the sender) W is
    replaced by Wmax, also inside Q^, and the RTT term by
    RTT (b Wmax/8 + (1-p)/(p Wmax) + 2). The result is multiplied by
    mss_bytes. `b` is the number of segments acknowledged per ACK (2 with
    delayed ACKs), `wmax_segments` the receiver window in segments (None: no
    limit). At p = 0 the rate is Wmax/RTT (infinite without Wmax), the limit
    of the formula as p -> 0. Valid for 0 <= p < 1.
    """
    mss = positive("mss_bytes", mss_bytes)
    rtt = positive("rtt_s", rtt_s)
    p = _loss(p, below_one=True)
    t0 = positive("rto_s", rto_s)
    b = _acks(b)
    wmax = _wmax(wmax_segments)
    if p == 0:
        return math.inf if wmax is None else mss * wmax / rtt
    w = padhye_window(p, b)
    limited = wmax is not None and w >= wmax
    if limited:
        w = wmax
        rounds = rtt * (b * wmax / 8 + (1 - p) / (p * wmax) + 2)
    else:
        rounds = rtt * (b * w / 2 + 1)
    q = _q_hat(p, w)
    segments = (1 - p) / p + w + q / (1 - p)
    seconds = rounds + q * t0 * _f(p) / (1 - p)
    return mss * segments / seconds


def padhye_approx(
    mss_bytes: float,
    rtt_s: float,
    p: float,
    rto_s: float,
    b: float = 2,
    wmax_segments: float | None = None,
) -> float:
    """The approximate model of Padhye et al. (1998), eq. (33), in bytes/s.

        min( Wmax/RTT, 1 / ( RTT sqrt(2bp/3) + T0 min(1, 3 sqrt(3bp/8)) p (1 + 32p^2) ) )

    segments per second, times mss_bytes (the Wmax/RTT term is left out when
    wmax_segments is None). Close to `padhye_throughput` at small p.
    """
    mss = positive("mss_bytes", mss_bytes)
    rtt = positive("rtt_s", rtt_s)
    p = _loss(p, below_one=False)
    t0 = positive("rto_s", rto_s)
    b = _acks(b)
    wmax = _wmax(wmax_segments)
    cap = math.inf if wmax is None else wmax / rtt
    if p == 0:
        return mss * cap
    loss_rate = 1 / (
        rtt * math.sqrt(2 * b * p / 3)
        + t0 * min(1.0, 3 * math.sqrt(3 * b * p / 8)) * p * (1 + 32 * p**2)
    )
    return mss * min(cap, loss_rate)


def tfrc_equation(
    s_bytes: float, rtt_s: float, p: float, b: float = 1, t_rto_s: float | None = None
) -> float:
    """RFC 5348 §3.1, TFRC's TCP-friendly rate in bytes/s of `s_bytes`
    packets at loss event rate `p` (0 < p <= 1):

        X = s / (R·√(2bp/3) + t_RTO·3·√(3bp/8)·p·(1 + 32p²)),

    with t_RTO = 4R unless given (the RFC's recommendation), and b = 1 (the
    RFC's default; Padhye's eq. (33) is this with min(1, 3√(3bp/8))).
    """
    s = positive("s_bytes", s_bytes)
    rtt = positive("rtt_s", rtt_s)
    p = _loss(p, below_one=False)
    if p == 0:
        raise ValueError("p must be positive: without loss the equation sets no rate")
    t_rto = 4 * rtt if t_rto_s is None else positive("t_rto_s", t_rto_s)
    b = positive("b", b)
    denominator = rtt * math.sqrt(2 * b * p / 3) + t_rto * (
        3 * math.sqrt(3 * b * p / 8) * p * (1 + 32 * p**2)
    )
    return s / denominator


def window_limited_throughput(window_bytes: float, rtt_s: float) -> float:
    """At most one window per round trip: window_bytes / rtt_s, in bytes/s."""
    return positive("window_bytes", window_bytes) / positive("rtt_s", rtt_s)


def bdp_bytes(rate_bps: float, rtt_s: float) -> float:
    """Bandwidth-delay product in bytes: rate_bps * rtt_s / 8.

    The window a single connection needs to keep a path of this rate and
    round-trip time busy (add the bottleneck buffer for the largest window
    the path holds without loss).
    """
    return positive("rate_bps", rate_bps) * positive("rtt_s", rtt_s) / 8
