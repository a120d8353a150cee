"""Markov-renewal analysis of TCP over end-to-end ABR (the abr-effcap paper, section 3).

The abr-effcap paper (`../shared/papers/tcp-end-to-end-abr_effcap.txt`
beside the repository: "TCP over end-to-end ABR: a study of TCP performance
with end-to-end rate control and stochastic available capacity") analyses
one TCP connection (timeout recovery only, no fast retransmit) over a
bottleneck whose capacity is a two-state Markov chain, in section 3:

- section 3.1, Fig. 4: a closed queueing network. A segmentation buffer at
  the source (infinite) served at the rate fed back from the bottleneck one
  round trip earlier (INSTCAP feedback), the bottleneck buffer (B_max
  packets, deterministic service at the Markov-modulated rate) and one delay
  element holding every propagation delay, Delta. Time is counted in packet
  times at the high rate; the low rate takes 2 units per packet.
- section 3.2, Fig. 5: the process is observed at t_k = k Delta. The state
  X_k = (A_k, B_k, D_k, S_k, R_k) holds the segmentation buffer, the
  bottleneck buffer, the packets in the delay element (ACKs on their way
  back), the source's service time (the bottleneck's one round trip ago)
  and the bottleneck's. The window is W_k = A_k + B_k + D_k; in an interval
  the D_k ACKs raise it by N_k ~ Binomial(D_k, 1/W_k). A loss in
  (t_k, t_{k+1}) is followed by a timeout two intervals later, slow start
  from one packet to half the window, ceil(log2(w/2)) round trips, and a new
  cycle: {X_k} is a Markov renewal process.
- section 3.3: throughput by the Markov renewal-reward theorem,
  gamma = E_pi[V] / E_pi[U], with an optimistic and a conservative reward
  for a cycle with a loss.
- section 3.4: TCP alone, the same model without the segmentation buffer
  (the host's link infinitely fast, the ACKs clock the packets out).

The model as implemented (service times S, R in {1/high, 1/low}; one
interval is (t_k, t_{k+1}]; "reconstructed" marks what the flattened text
lost and docs/abr-effcap-analysis.md argues for):

    capacity chain   p01 = p10 = Delta/tau = 1/psi per round trip, psi >= 1
                     (reconstructed from "the analysis applies only for psi >= 1")
    no loss          n = min(A + D + N, Delta/S)            [ABR, back to back]
                     n = D + N over D S time units          [TCP alone, ACK clock]
                     A' = A + D + N - n, D' = min(B + n, Delta/R), B' = B + n - D',
                     (S', R') = (R, R_next); reward D, length Delta
    loss (eq. (11))  B + max(0, n - mu T_arr) > B_max, mu = 1/R, T_arr the arrival
                     span: for ABR n > 2 (B_max - B) with the source at twice the
                     link rate (reconstructed as the peak content, from the reward
                     argument's "2 (B_max - B) packets enter the link buffer")
    loss cycle       window w = W + N; timeout in (t_{k+2}, t_{k+3}); slow start to
                     m = w/2 in j = ceil(log2 m) round trips; length (3 + j) Delta;
                     channel at the next start from P^(2+j) then P (eq. (14));
                     queues D' = min(m, Delta/S'), the rest in the segmentation
                     buffer (ABR) or bottleneck buffer (TCP alone) (reconstructed)
    rewards          V_cons = D + B + 2 (B_max - B) + (2^j - 1)
                     V_opt  = V_cons + (A + B + D)   (packets after the lost one)
    throughput       gamma = E_pi[V] / E_pi[U] (Markov renewal-reward theorem)

Assumptions (section 3.2): capacity changes only at the epochs t_k; the
source's rate jumps to the fed-back rate; no loss in slow start (for TCP
alone only true if B_max/Delta > 1/3); packets do not straddle epochs and
arrive back to back; the timeout comes two intervals after the first loss;
no ACK loss; the window-increase probability is frozen at 1/W_k over an
interval; whole packets are dropped.

Efficiency is throughput over the mean bottleneck capacity, with TCP/IP
headers in the throughput and no ATM overhead (section 5.1).

The chain tools (stationary distributions, P^n) are satcc.analysis.markov;
section 4.1's effcap estimator is satcc.analysis.effcap_estimator.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal, NamedTuple

import numpy as np
from scipy.sparse import coo_matrix
from scipy.stats import binom

from satcc.analysis._validate import integer, positive, probability
from satcc.analysis.markov import (
    n_step_matrix,
    sparse_stationary_distribution,
    stationary_distribution,
    transition_matrix,
    two_state_matrix,
)

__all__ = [
    "BottleneckInterval",
    "CycleOutcome",
    "EfficiencyBounds",
    "MarkovRenewalResult",
    "bottleneck_interval",
    "cycle_outcome",
    "efficiency_bounds",
    "interval_switch_probability",
    "markov_renewal_analysis",
    "rtt_step_matrix",
    "rtt_switch_probability",
    "slow_start_packets",
    "slow_start_rounds",
    "window_increment_pmf",
]

Scheme = Literal["instcap", "tcp_alone"]
SCHEMES = ("instcap", "tcp_alone")
HIGH, LOW = 0, 1  # indices of the modulating chain's states (section 3.1: state 0 is faster)
_EPS = 1e-9  # slack for comparisons of fluid buffer contents against B_max


# ------------------------------------------- the capacity chain per round trip


def rtt_switch_probability(tau_over_delta: float) -> float:
    """Switching probability per round trip of the analysis' embedded chain: Delta/tau.

    Section 3.2 assumption (i): the modulating chain is embedded at the
    epochs t_k = k Delta, so its sojourn in a state is geometric in round
    trips, with mean 1/p round trips; a mean sojourn tau = psi Delta gives
    p = 1/psi. This needs psi >= 1, which is why "the analysis applies only
    for psi >= 1" (section 5.1). (The flattened text has lost the formula;
    p = 1/psi is the reconstruction consistent with that remark.)
    """
    psi = positive("tau_over_delta", tau_over_delta)
    if psi < 1:
        raise ValueError(
            "the analysis of section 3 applies only for tau/Delta >= 1 (section 5.1): "
            f"got tau/Delta = {psi!r}; capacity changes within a round trip are not modelled"
        )
    return 1.0 / psi


def interval_switch_probability(tau: float, interval: float) -> float:
    """Switching probability per measurement interval of the testbed's chain: interval/tau.

    The testbed's chain moves only at multiples of the 30 ms measurement
    interval T (section 5.1), so a mean sojourn tau (same units as interval)
    means a geometric number of intervals with mean tau/T: p = T/tau, tau >= T.
    """
    tau = positive("tau", tau)
    interval = positive("interval", interval)
    if tau < interval:
        raise ValueError(
            f"a chain that moves once per interval ({interval!r}) cannot have a mean "
            f"sojourn tau = {tau!r} shorter than the interval"
        )
    return interval / tau


def rtt_step_matrix(tau: float, delta: float, interval: float) -> np.ndarray:
    """The testbed chain seen at round-trip epochs: P_T^(Delta/T), phase-averaged.

    P_T is the symmetric chain with switching probability T/tau per interval
    T. When Delta is k whole intervals this is P_T^k. Otherwise a round trip
    starting at a uniformly random phase of the interval grid contains
    floor(Delta/T) or ceil(Delta/T) switching instants, with probabilities
    1 - f and f (f the fractional part of Delta/T), so the matrix is
    (1 - f) P_T^floor + f P_T^ceil. This is the testbed's chain; the
    analysis uses `rtt_switch_probability` instead.
    """
    delta = positive("delta", delta)
    P = two_state_matrix(interval_switch_probability(tau, interval))
    steps = delta / interval
    lo = math.floor(steps + 1e-12)
    frac = steps - lo
    if frac < 1e-12:
        return n_step_matrix(P, lo)
    return (1 - frac) * n_step_matrix(P, lo) + frac * n_step_matrix(P, lo + 1)


# --------------------------------------------------- window and buffer pieces


def window_increment_pmf(acks: int, window: int, max_window: int) -> np.ndarray:
    """Distribution of N_k, the window increase in one round trip (section 3.2).

    Congestion avoidance raises the window by one with probability 1/W per
    ACK; the paper freezes W at its value W_k at t_k, so the D_k ACKs of an
    interval give N ~ Binomial(D_k, 1/W_k), truncated at the receiver's
    maximum window (mass above max_window - W_k is put on the cap).
    Returns pmf[n] = P(N = n), n = 0 .. min(acks, max_window - window).
    """
    acks = integer("acks", acks, 0)
    window = integer("window", window, 1)
    max_window = integer("max_window", max_window, window)
    room = min(acks, max_window - window)
    pmf = binom.pmf(np.arange(room + 1), acks, 1.0 / window)
    pmf[room] += max(0.0, 1.0 - pmf.sum())
    return pmf


class BottleneckInterval(NamedTuple):
    """One round trip at the bottleneck buffer (fluid within the interval)."""

    departures: int  # packets served in the interval: D_{k+1}
    backlog: int  # packets left in the buffer at t_{k+1}: B_{k+1} (no loss)
    peak: float  # largest content reached during the interval
    admitted_before_loss: int | None  # arrivals accepted before the first drop, None: no loss


def bottleneck_interval(
    backlog: int,
    arrivals: int,
    arrival_time: float,
    service_rate: float,
    delta: float,
    buffer_packets: int,
) -> BottleneckInterval:
    """The bottleneck buffer over one interval of length Delta (section 3.2, eq. (11)).

    `arrivals` packets come in evenly over [0, arrival_time] (back to back at
    the source's rate for TCP over ABR, at the ACK clock for TCP alone) to a
    buffer holding `backlog` and served at `service_rate` packets per unit
    time. The content grows by 1 - service_rate * arrival_time / arrivals per
    arrival while arrivals outpace the server, so the peak is
    backlog + max(0, arrivals - service_rate * arrival_time); a loss happens
    when it exceeds B_max. Over-rate arrivals fill the buffer after
    (B_max - backlog) / growth of them: 2 (B_max - B) for a source at twice the
    link rate, as in the paper's reward argument (section 3.3). Departures are
    min(backlog + arrivals, service_rate * Delta).
    """
    backlog = integer("backlog", backlog, 0)
    arrivals = integer("arrivals", arrivals, 0)
    buffer_packets = integer("buffer_packets", buffer_packets, 1)
    if backlog > buffer_packets:
        raise ValueError(f"backlog {backlog} exceeds the buffer of {buffer_packets} packets")
    service_rate = positive("service_rate", service_rate)
    delta = positive("delta", delta)
    arrival_time = float(arrival_time)
    if not (math.isfinite(arrival_time) and 0 <= arrival_time <= delta * (1 + 1e-12)):
        raise ValueError(f"arrival_time must lie in [0, delta], got {arrival_time!r}")
    capacity = service_rate * delta
    departures = int(math.floor(min(backlog + arrivals, capacity) + _EPS))
    growth = arrivals - service_rate * arrival_time
    peak = backlog + max(0.0, growth)
    if peak <= buffer_packets + _EPS:
        return BottleneckInterval(departures, backlog + arrivals - departures, peak, None)
    per_arrival = growth / arrivals
    admitted = int(math.floor((buffer_packets - backlog) / per_arrival + _EPS))
    return BottleneckInterval(departures, buffer_packets, peak, min(admitted, arrivals - 1))


def slow_start_rounds(threshold: int) -> int:
    """Round trips of slow start from one packet to `threshold`: ceil(log2 threshold).

    Section 3.2: after a timeout at window 2m the threshold is m, reached in
    ceil(log2 m) cycles of length Delta (no loss in slow start, assumption (iii)).
    """
    threshold = integer("threshold", threshold, 1)
    return (threshold - 1).bit_length()


def slow_start_packets(threshold: int) -> int:
    """Packets acknowledged during the slow start to `threshold`: 2^j - 1, j = ceil(log2 m).

    Round i of slow start sends 2^(i-1) packets; their ACKs come back within
    the phase. The m packets of the last window are still in flight when the
    next cycle starts and count in that cycle's reward (section 3.3).
    """
    return 2 ** slow_start_rounds(threshold) - 1


# ------------------------------------------------------------ the renewal chain


class EfficiencyBounds(NamedTuple):
    """Efficiency (throughput over mean capacity) with the two rewards of section 3.3."""

    conservative: float
    optimistic: float


@dataclass(frozen=True)
class MarkovRenewalResult:
    """Solution of the Markov renewal model of section 3 for one parameter set.

    Throughputs are in packets per time unit (one unit: a packet time at the
    high rate); efficiencies divide them by the mean capacity.
    """

    throughput_conservative: float
    throughput_optimistic: float
    mean_capacity: float
    mean_cycle_length: float  # E_pi[U], time units
    loss_cycle_probability: float  # stationary probability that a cycle has a loss
    states: int  # states reachable in the embedded chain

    @property
    def timeouts_per_unit_time(self) -> float:
        """Losses (each ending in one timeout) per time unit: P(loss cycle) / E_pi[U]."""
        return self.loss_cycle_probability / self.mean_cycle_length

    @property
    def efficiency(self) -> EfficiencyBounds:
        return EfficiencyBounds(
            self.throughput_conservative / self.mean_capacity,
            self.throughput_optimistic / self.mean_capacity,
        )


@dataclass(frozen=True)
class _Model:
    scheme: str
    delta: int
    buffer: int
    wmax: int
    rate: tuple[float, float]  # packets per unit time, (high, low)
    capacity: tuple[int, int]  # packets per interval Delta
    P: np.ndarray  # modulating chain over one round trip


def _model(
    scheme: str,
    delta_units: int,
    buffer_packets: int,
    high: float,
    low: float,
    max_window_packets: int,
    P: np.ndarray,
) -> _Model:
    if scheme not in SCHEMES:
        raise ValueError(f"scheme must be one of {SCHEMES}, got {scheme!r}")
    delta = integer("delta_units", delta_units, 1)
    buffer = integer("buffer_packets", buffer_packets, 1)
    wmax = integer("max_window_packets", max_window_packets, 2)
    high = positive("high", high)
    low = positive("low", low)
    if low > high:
        raise ValueError(f"the low rate ({low!r}) must not exceed the high rate ({high!r})")
    capacity = []
    for name, rate in (("high", high), ("low", low)):
        c = rate * delta
        if abs(c - round(c)) > 1e-9 or round(c) < 1:
            raise ValueError(
                f"{name} * delta_units must be a whole number of packets per round trip, "
                f"got {name} = {rate!r}, delta_units = {delta}"
            )
        capacity.append(round(c))
    P = transition_matrix(P)
    if P.shape != (2, 2):
        raise ValueError(f"the modulating chain must have two states, got shape {P.shape}")
    return _Model(scheme, delta, buffer, wmax, (high, low), (capacity[0], capacity[1]), P)


def _restart_state(model: _Model, threshold: int, rate: int) -> tuple[int, int, int]:
    """Queues (A, B, D) when the slow start after a timeout reaches `threshold`.

    The window m is in flight up to one round trip's worth at the rate of the
    last interval; the rest waits in the segmentation buffer (TCP over ABR)
    or in the bottleneck buffer (TCP alone, at most B_max: assumption (iii)
    rules out loss in slow start).
    """
    d = min(threshold, model.capacity[rate])
    rest = threshold - d
    if model.scheme == "instcap":
        return rest, 0, d
    return 0, min(rest, model.buffer), d


def _transitions(model: _Model, state: tuple[int, int, int, int, int]):
    """Outgoing transitions, conservative and optimistic rewards and mean length of a cycle.

    Returns (list of (next_state, probability), V_conservative, V_optimistic,
    U, P(loss in the first interval)).
    """
    a, b, d, s, r = state
    w = a + b + d
    delta = model.delta
    P = model.P
    out: dict[tuple[int, int, int, int, int], float] = {}
    v_cons = v_opt = u = p_loss = 0.0
    pmf = _pmf(d, w, model.wmax)
    for n_inc, p_n in enumerate(pmf):
        if p_n == 0.0:
            continue
        if model.scheme == "instcap":
            # The source sends back to back at the rate fed back one round trip ago.
            sent = min(a + d + n_inc, model.capacity[s])
            arrival_time = sent / model.rate[s]
        else:
            # No segmentation buffer (section 3.4): the D ACKs come back spaced as
            # their packets left the bottleneck (rate 1/S_k) and each releases its
            # packets at once, so D + N packets arrive over D S_k time units.
            sent = d + n_inc
            arrival_time = d / model.rate[s]
        link = bottleneck_interval(b, sent, arrival_time, model.rate[r], delta, model.buffer)
        if link.admitted_before_loss is None:
            nxt_a = a + d + n_inc - sent
            for r2 in (HIGH, LOW):
                if P[r, r2] > 0:
                    key = (nxt_a, link.backlog, link.departures, r, r2)
                    out[key] = out.get(key, 0.0) + p_n * P[r, r2]
            v_cons += p_n * d
            v_opt += p_n * d
            u += p_n * delta
            continue
        # A loss in (t_k, t_{k+1}): timeout two intervals later, slow start to w/2.
        p_loss += p_n
        w_loss = w + n_inc
        threshold = max(w_loss // 2, 2)
        rounds = slow_start_rounds(threshold)
        length = 3 + rounds
        before = d + b + link.admitted_before_loss
        # Section 3.3: the window grows by one, so W_k = A + B + D packets follow the
        # lost one before the window is exhausted; only the optimistic reward counts them.
        after = a + b + d
        ss = slow_start_packets(threshold)
        v_cons += p_n * (before + ss)
        v_opt += p_n * (before + after + ss)
        u += p_n * length * delta
        reach = _n_step(P, length - 1)
        for s2 in (HIGH, LOW):
            for r2 in (HIGH, LOW):
                prob = reach[r, s2] * P[s2, r2]
                if prob > 0:
                    key = (*_restart_state(model, threshold, s2), s2, r2)
                    out[key] = out.get(key, 0.0) + p_n * prob
    return list(out.items()), v_cons, v_opt, u, p_loss


@lru_cache(maxsize=4096)
def _pmf_cached(d: int, w: int, wmax: int) -> tuple[float, ...]:
    return tuple(window_increment_pmf(d, w, wmax))


def _pmf(d: int, w: int, wmax: int) -> tuple[float, ...]:
    return _pmf_cached(d, w, max(wmax, w))


def _n_step(P: np.ndarray, n: int) -> np.ndarray:
    p01, p10 = float(P[0, 1]), float(P[1, 0])
    return _n_step_cached(p01, p10, n)


@lru_cache(maxsize=1024)
def _n_step_cached(p01: float, p10: float, n: int) -> np.ndarray:
    return n_step_matrix(two_state_matrix(p01, p10), n)


def _start_state(model: _Model, rate: int) -> tuple[int, int, int, int, int]:
    """A cycle start just after slow start to a window of 2; transient if never revisited."""
    nxt = rate if model.P[rate, rate] > 0 else 1 - rate
    return (*_restart_state(model, 2, rate), rate, nxt)


def _solve(model: _Model, start: tuple[int, int, int, int, int]) -> MarkovRenewalResult:
    index: dict[tuple[int, int, int, int, int], int] = {start: 0}
    order = [start]
    rows: list[int] = []
    cols: list[int] = []
    vals: list[float] = []
    v_cons: list[float] = []
    v_opt: list[float] = []
    u: list[float] = []
    lossy: list[float] = []
    i = 0
    while i < len(order):
        state = order[i]
        edges, vc, vo, uu, pl = _transitions(model, state)
        v_cons.append(vc)
        v_opt.append(vo)
        u.append(uu)
        lossy.append(pl)
        for nxt, p in edges:
            j = index.get(nxt)
            if j is None:
                j = len(order)
                index[nxt] = j
                order.append(nxt)
            rows.append(i)
            cols.append(j)
            vals.append(p)
        i += 1
    n = len(order)
    T = coo_matrix((vals, (rows, cols)), shape=(n, n)).tocsr()
    pi = sparse_stationary_distribution(T)
    pi_P = stationary_distribution(model.P) if model.P[0, 1] + model.P[1, 0] > 0 else None
    if pi_P is None:
        # A chain that never switches: the capacity is that of the start state.
        mean_capacity = model.rate[start[3]]
    else:
        mean_capacity = float(pi_P @ np.array(model.rate))
    eu = float(pi @ np.array(u))
    return MarkovRenewalResult(
        throughput_conservative=float(pi @ np.array(v_cons)) / eu,
        throughput_optimistic=float(pi @ np.array(v_opt)) / eu,
        mean_capacity=mean_capacity,
        mean_cycle_length=eu,
        loss_cycle_probability=float(pi @ np.array(lossy)),
        states=n,
    )


class CycleOutcome(NamedTuple):
    """One cycle of the embedded Markov renewal process from a given X_k."""

    next_states: dict[tuple[int, int, int, int, int], float]  # X at the next cycle start
    reward_conservative: float  # E[V_cons | X_k]
    reward_optimistic: float  # E[V_opt | X_k]
    mean_length: float  # E[U | X_k], time units
    loss_probability: float  # P(loss in (t_k, t_{k+1}) | X_k), eqs. (7)-(8)


def cycle_outcome(
    state: Sequence[int],
    P: np.ndarray | Sequence[Sequence[float]],
    delta_units: int = 40,
    buffer_packets: int = 10,
    scheme: Scheme = "instcap",
    high: float = 1.0,
    low: float = 0.5,
    max_window_packets: int = 64,
) -> CycleOutcome:
    """The cycle that starts in X_k = state = (A, B, D, S, R) (sections 3.2, 3.3).

    S and R are 0 (high) or 1 (low): the source's state (the bottleneck's
    one round trip earlier) and the bottleneck's. Gives the distribution of
    the next cycle's start, the expected conservative and optimistic rewards
    (packets), the expected length and the probability of a loss in the
    first interval. P is the capacity chain over one round trip.
    """
    model = _model(scheme, delta_units, buffer_packets, high, low, max_window_packets, P)
    if len(state) != 5:
        raise ValueError(f"state must be (A, B, D, S, R), got {state!r}")
    a, b, d = (integer(n, v, 0) for n, v in zip("ABD", state[:3], strict=True))
    s, r = (integer(n, v, 0) for n, v in zip("SR", state[3:], strict=True))
    if s > 1 or r > 1:
        raise ValueError(f"S and R must be 0 (high) or 1 (low), got {s!r}, {r!r}")
    if scheme == "tcp_alone" and a != 0:
        raise ValueError("TCP alone has no segmentation buffer: A must be 0")
    if b > model.buffer:
        raise ValueError(f"B = {b} exceeds the buffer of {model.buffer} packets")
    if not 1 <= a + b + d <= model.wmax:
        raise ValueError(f"the window A + B + D = {a + b + d} must lie in [1, {model.wmax}]")
    if d > model.capacity[s]:
        raise ValueError(
            f"D = {d} packets cannot have left the bottleneck in one round trip "
            f"at rate {model.rate[s]!r} (at most {model.capacity[s]})"
        )
    edges, v_cons, v_opt, u, p_loss = _transitions(model, (a, b, d, s, r))
    return CycleOutcome(dict(edges), v_cons, v_opt, u, p_loss)


def markov_renewal_analysis(
    P: np.ndarray | Sequence[Sequence[float]],
    delta_units: int = 40,
    buffer_packets: int = 10,
    scheme: Scheme = "instcap",
    high: float = 1.0,
    low: float = 0.5,
    max_window_packets: int = 64,
    start_rate: int | None = None,
) -> MarkovRenewalResult:
    """Solve the Markov renewal model of section 3 for a modulating chain P over one round trip.

    P is the 2x2 transition matrix of the capacity chain embedded at the
    epochs t_k = k Delta (state 0: `high`, state 1: `low`, in packets per time
    unit, one unit being a packet time at the high rate). `scheme` is
    "instcap" (TCP over end-to-end ABR with instantaneous-capacity feedback,
    sections 3.1-3.3) or "tcp_alone" (section 3.4). The chain is explored
    from a cycle start at `start_rate` (0: high, the default; 1: low); the
    identity matrix with a start rate models a constant-capacity path. The
    stationary distribution must be unique on the states reached from there.
    """
    model = _model(scheme, delta_units, buffer_packets, high, low, max_window_packets, P)
    rate = HIGH if start_rate is None else integer("start_rate", start_rate, 0)
    if rate > 1:
        raise ValueError(f"start_rate must be 0 (high) or 1 (low), got {start_rate!r}")
    return _solve(model, _start_state(model, rate))


def efficiency_bounds(
    tau_over_delta: float,
    delta_units: int = 40,
    buffer_packets: int = 10,
    scheme: Scheme = "instcap",
    high: float = 1.0,
    low: float = 0.5,
    max_window_packets: int = 64,
    switch_probability: float | None = None,
) -> EfficiencyBounds:
    """Efficiency (conservative, optimistic) of section 3's analysis (Figs. 8 and 9).

    The symmetric capacity chain stays a mean tau = tau_over_delta * Delta in
    each state and moves only at round-trip epochs, so it switches with
    probability 1/psi per round trip (`rtt_switch_probability`, psi >= 1).
    `switch_probability` replaces that mapping (e.g. the testbed chain's
    `rtt_step_matrix(...)[0, 1]`); tau_over_delta is then ignored. Defaults
    are the paper's: Delta = 40 units (200 ms at 5 ms per 500-byte packet at
    100 KB/s), low rate half the high rate, 32 KB maximum window = 64 packets.
    Efficiency is throughput over the mean capacity (section 5.1).
    """
    if switch_probability is None:
        p = rtt_switch_probability(tau_over_delta)
    else:
        p = probability("switch_probability", switch_probability)
        if p == 0:
            raise ValueError("switch_probability must be positive for a two-state path")
    result = markov_renewal_analysis(
        two_state_matrix(p),
        delta_units=delta_units,
        buffer_packets=buffer_packets,
        scheme=scheme,
        high=high,
        low=low,
        max_window_packets=max_window_packets,
    )
    return result.efficiency
