"""Fluid model of one TFRC media flow started behind a DAMA satellite terminal.

Source: R. Secchi, A. Sathiaseelan, F. Potorti, A. Gotta, G. Fairhurst,
"Using Quick-Start to enhance TCP-friendly rate control performance in
bidirectional satellite networks" (IJSCN 2009), section 3.5 (the "fluidic
model" of Fig. 7), with the DAMA scheme of section 3.1 (eqs. 1 and 2), the
Skyplex frame of section 2.2, the QS/QSD behaviour of sections 2.4, 3.3 and
3.4, eqs. (3)-(6) and Table I. TFRC follows RFC 3448's start-up (as the
paper's simulator did); Quick-Start follows RFC 4782.

One constant-rate media flow (rate r) starts at t = 0 on an otherwise idle
network. Four cumulative curves, in bytes, on a fixed time grid:

    A0  generator output                 r t
    A1  TFRC transmit-buffer output      slope X(t), never above A0
    A2  uplink (DAMA) queue output       slope = allocated rate, never above A1
    A3  receiver                         A3(t) = A2(t - d), d = RTT_m / 2

The E2ED of the byte generated at t is the horizontal distance from A0 to A3;
A0 -> A1 is the transmit-buffer delay and A1 -> A2 the uplink-queue delay.

Timing (Table I, from the frame constants of section 2.2) is the core's
(``satmac/frame.rs``, the same the packet simulator runs on): a slot is 1504
bytes (8 MPEG packets) at 6.336 Mb/s, a frame 6 slots, a multi-frame T_f 4
frames (small) or 24 frames (large), a super-frame T_b = T_r = 3 T_f; Tp =
252 ms; the allocation delay T_a follows from the request and TBTP timing
(6 T_b small, 2 T_b large); RTT_m = T_f + 2 Tp. The granularity is one slot
per multi-frame (264 kb/s small, 44 kb/s large). These give T_a = 1640.7 ms
and T_q,max = 1273.5 ms for the large frame (Table I rounds them to 1641 and
1273) and T_q,opt = 518.0 / 53.1 ms by eq. (6), against the "520 and 55 ms"
of the text.

Assumptions, where the paper leaves the model open:

- Rates are counted in slot bytes: no MPEG/encapsulation overhead and no
  packetisation ("the fluidic model does not consider the effect of
  packetization and framing"). A 256 kb/s flow therefore fits in 6 large-frame
  slots (264 kb/s) and in the single minimum slot of the small frame.
- A2 -> A3 is d = RTT_m / 2 = Tp + T_f / 2: the propagation delay plus the mean
  wait for the terminal's slot in the multi-frame. The text under Fig. 7 calls
  this distance "the propagation plus framing delay RTT_m", but RTT_m is a
  round trip (Table I) and eq. (4) subtracts RTT_m / 2 for exactly this hop,
  so the one-way half is used. Feedback reports take the same d back to the
  sender (they are small and never queue) and the terrestrial hops take 0.
- DAMA, RBDC only (eq. 1 with q = F = C = 0). At each super-frame boundary
  b_k = k T_b - phase the terminal requests the mean rate that entered the
  uplink queue (A1) over [b_k - T_r, b_k], rounded up to whole slots per
  multi-frame, at least one slot. The NCC keeps the last allocation N_B and
  applies eq. (2) with a = 1, b = 0.5 to decreases only: N_B <- floor(N_B +
  (N_L - N_B) / 2), never below the request N_L; an increase is granted in
  full. The allocation computed at b_k is used from b_k + T_a. Before the
  flow the terminal was idle, so every allocation in force until the first
  one computed after t = 0 is the minimum slot. The allocation is a fluid
  rate inside the multi-frame.
- Allocation requests are never normalised to the channel capacity (a single
  flow on an idle network cannot exceed it).
- TFRC, p = 0 throughout (no loss). Before the first report X = s per second
  (RFC 3448 section 4.2); in the fluid this is a rate of s bytes/s from t = 0.
  The RTT is fixed at RTT = RTT_m + T_q ("the RTT estimate is fixed at
  RTT_m + T_q", section 3.5): report n reaches the sender at n RTT, leaves
  the receiver at n RTT - d and carries X_recv = bytes received over the
  last RTT divided by RTT. On each report X = max(min(2 X, 2 X_recv), X_min)
  (RFC 3448 section 4.3, slow start; the reports are one RTT apart, so the
  once-per-RTT doubling test always passes). With the RTT fixed, data sent
  at the rate set by report n - 1 first reaches the receiver just as report n
  leaves it, so report n measures the rate of report n - 2 and, with queues
  empty, slow start doubles X only every other report. initial_rate selects X_min and
  the first report's rate: 'rfc3448' uses X_min = s/R and applies the same
  rule to the first report (starting from X = s bytes/s); 'rfc5348' sets
  X = W_init/R on the first report (W_init = min(4s, max(2s, 4380 B)), RFC
  5348 section 4.2 / RFC 4342) and uses W_init/R as X_min. The RFC 5348
  data-limited X_recv_set rules are not modelled. The nofeedback timer is not
  modelled: before the first report it could at most halve the one packet per
  second rate (when RTT > 2 s, only for T_q > 1.22 s in the large frame).
- The transmit buffer is unbounded. The sender sends at X while the buffer
  holds data and at min(X, r) when it is empty.
- Quick-Start. The QS-Request rides on the first packet (t = 0); the idle
  network approves the whole qs_rate. A QS agent that delays the request by
  T_q also delays that packet, hence the RTT of RTT_m + T_q; the fluid does
  not delay the data itself. The QS-Response comes with report 1 at RTT and
  the sender switches to the approved rate, ignoring that report's X_recv.
  Validation ends at the first report whose whole measurement interval starts
  after the first QS-rate byte could reach the receiver (RTT + d): report n
  measures [n RTT - d - RTT, n RTT - d], so this is the first n with
  (n - 2) RTT >= 2 d, i.e. n = 3, the report at 3 RTT. Report 2 measures a
  period that is mostly before the QS data and is ignored like report 1. This
  matches section 3.3 (c) ("after discarding the first feedback report, the
  TFRC sender receives the second feedback after three RTT") and t_en =
  3 RTT - RTT_m / 2 of section 3.5. From report 3 on the rule above applies
  with X = qs_rate as the previous rate.
- QSD (section 3.4). The terminal adds the approved QS rate to the first
  DAMA request made after it receives the QS-Request, i.e. at the first
  boundary strictly after t = 0, whatever T_q is: the request is "received
  during the T_r interval" and only its forwarding is delayed. This is what
  makes T_q useful: the mean time from request to allocation is T_r/2 + T_a
  (section 3.4), independent of T_q, while the QS-Response arrives after
  RTT_m + T_q (eq. 3).
- phase in [0, T_b) is the time from the last super-frame boundary before
  the flow to the start of the flow; phase = 0 makes the first QSD request
  wait a whole T_r, the worst case that eq. (5) assumes.
- feedback = "rfc5348" replaces the report schedule above by the packet
  simulator's (RFC 5348 sections 6 and 8.3, class _RfcReports): report 1
  when the first packet arrives; the rate it sets applies from the next
  nominal send time of the one-packet-per-second start (ceil(RTT) s in);
  the receiver's timer starts when the packet sent then, the first to carry
  an RTT estimate, arrives, and reports follow every RTT; X_recv covers the
  time since the last report (two RTTs or more for report 2, mostly before
  any QS data arrived, so the rate after the QS phase is far lower than
  with the paper's one-RTT window). The paper's timeline has the second
  report "after three RTT" either way; this is the schedule the packet
  simulation is compared with.
- Events (boundaries, allocations, reports) take effect at the first grid
  point at or after their time, so timings are exact to within dt.
- Optionally the uplink has a constant allocation (CRA, cra_bps) instead of
  DAMA; QSD then has no DAMA request to add to and is refused.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from satcc import _core
from satcc.analysis._validate import non_negative, positive

__all__ = [
    "FluidResult",
    "FluidTiming",
    "has_second_hump",
    "second_hump_height",
    "simulate",
    "tq_opt_numeric",
]

INITIAL_RATE_RULES = ("rfc3448", "rfc5348")
FEEDBACK_RULES = ("paper", "rfc5348")
# RFC 3390 / RFC 5348 section 4.2: W_init = min(4 s, max(2 s, 4380 bytes)).
_W_INIT_CAP_BYTES = 4380
# A relative slack so that a rate of exactly k slots does not round to k + 1.
_ROUNDING_SLACK = 1e-9
# Events at t_event take effect at the first grid point t_i >= t_event - slack.
_TIME_SLACK = 1e-9


@dataclass(frozen=True)
class FluidTiming:
    """The return link's timing (section 2.2, Table I), as the core derives it
    from a frame's geometry (``FrameConfig::timing``): the allocation delay
    T_a and everything after it are computed in one place, never written in.

    ``small()`` and ``large()`` are the paper's two Skyplex configurations;
    ``from_frame`` takes any frame in its description form (channel_bps,
    slot_bytes, slots_per_frame, frames_per_multiframe,
    multiframes_per_superframe, propagation_ps).
    """

    slot_s: float
    t_f: float
    t_b: float
    allocation_delay: float
    tp: float
    rtt_m: float
    tq_max: float
    tq_opt: float
    granularity_bps: float
    channel_bps: float

    @classmethod
    def from_frame(cls, frame: dict[str, Any]) -> FluidTiming:
        t = json.loads(_core.frame_timing(json.dumps(frame)))
        return cls(
            slot_s=t["slot_s"],
            t_f=t["multiframe_s"],
            t_b=t["superframe_s"],
            allocation_delay=t["allocation_delay_s"],
            tp=t["propagation_s"],
            rtt_m=t["mean_rtt_s"],
            tq_max=t["tq_max_s"],
            tq_opt=t["tq_opt_s"],
            granularity_bps=t["granularity_bps"],
            channel_bps=t["channel_bps"],
        )

    @classmethod
    def skyplex(cls, size: str) -> FluidTiming:
        return cls.from_frame(json.loads(_core.skyplex_frame(size)))

    @classmethod
    def small(cls) -> FluidTiming:
        """Small frame: 24 slots per multi-frame (T_a = 6 T_b follows)."""
        return cls.skyplex("small")

    @classmethod
    def large(cls) -> FluidTiming:
        """Large frame (the Skyplex Data system): 144 slots (T_a = 2 T_b)."""
        return cls.skyplex("large")

    @property
    def t_r(self) -> float:
        """RBDC measurement interval T_r (= T_b)."""
        return self.t_b

    @property
    def one_way_delay(self) -> float:
        """d = RTT_m / 2: uplink-queue output to receiver (and receiver to sender)."""
        return self.rtt_m / 2


@dataclass(frozen=True, eq=False)
class FluidResult:
    """Curves of one run: cumulative bytes, rates in bit/s, on the grid ``t``.

    ``sending_rate`` is TFRC's allowed rate X; A1 rises more slowly when the
    transmit buffer is empty. ``allocation_bps`` is the uplink service rate.
    """

    timing: FluidTiming
    rtt: float
    t: np.ndarray
    generated: np.ndarray
    tfrc_out: np.ndarray
    uplink_out: np.ndarray
    received: np.ndarray
    sending_rate: np.ndarray
    allocation_bps: np.ndarray
    feedback_times: np.ndarray = field(repr=False)
    feedback_x_recv_bps: np.ndarray = field(repr=False)

    @property
    def link_delay(self) -> float:
        return self.timing.one_way_delay

    def tx_buffer_delay(self) -> np.ndarray:
        """A0 -> A1 per generation time; NaN where the byte is still buffered."""
        return _crossing_times(self.t, self.tfrc_out, self.generated) - self.t

    def uplink_delay(self) -> np.ndarray:
        """A1 -> A2 for the byte generated at each t; NaN if not yet out."""
        return _crossing_times(self.t, self.uplink_out, self.generated) - _crossing_times(
            self.t, self.tfrc_out, self.generated
        )

    def e2ed(self) -> np.ndarray:
        """A0 -> A3 per generation time; NaN where not yet received."""
        arrival = _crossing_times(self.t, self.uplink_out, self.generated) + self.link_delay
        arrival[arrival > self.t[-1] + _TIME_SLACK] = np.nan
        return arrival - self.t

    def peak_e2ed(self, after: float = 0.0) -> tuple[float, float]:
        """(generation time, E2ED) of the largest E2ED among bytes generated
        at or after ``after``."""
        after = non_negative("after", after)
        delay = self.e2ed()
        delay[self.t < after - _TIME_SLACK] = np.nan
        if np.all(np.isnan(delay)):
            raise ValueError(f"no byte generated after {after!r} s was received")
        i = int(np.nanargmax(delay))
        return float(self.t[i]), float(delay[i])

    def max_e2ed(self, after: float = 0.0) -> float:
        return self.peak_e2ed(after)[1]

    @property
    def max_tx_buffer_bytes(self) -> float:
        return float(np.max(self.generated - self.tfrc_out))

    @property
    def max_uplink_queue_bytes(self) -> float:
        return float(np.max(self.tfrc_out - self.uplink_out))


def _crossing_times(t: np.ndarray, curve: np.ndarray, levels: np.ndarray) -> np.ndarray:
    """First time a non-decreasing piecewise-linear ``curve`` reaches each level."""
    j = np.searchsorted(curve, levels, side="left")
    out = np.full(levels.shape, np.nan)
    at_start = j == 0
    out[at_start] = t[0]
    inside = (j > 0) & (j < curve.size)
    jj = j[inside]
    lo, hi = curve[jj - 1], curve[jj]
    out[inside] = t[jj - 1] + (levels[inside] - lo) / (hi - lo) * (t[jj] - t[jj - 1])
    return out


def _value_at(curve: list[float], dt: float, time: float) -> float:
    """Linear interpolation of a grid curve (only points already computed)."""
    if time <= 0.0:
        return 0.0
    x = time / dt
    j = int(x)
    if j + 1 >= len(curve):
        return curve[-1]
    frac = x - j
    return curve[j] + frac * (curve[j + 1] - curve[j])


def _slots_for(rate_bps: float, granularity_bps: float) -> int:
    """RBDC request in whole slots per multi-frame, at least the minimum slot."""
    return max(1, math.ceil(rate_bps / granularity_bps * (1 - _ROUNDING_SLACK)))


def _nb_after_request(nb: int, nl: int) -> int:
    """Eq. (2) with a = 1, b = 0.5 for a decrease; an increase is granted at once."""
    if nl >= nb:
        return nl
    return max(nl, math.floor(nb + 0.5 * (nl - nb)))


def _qs_validation_report(rtt: float, d: float) -> int:
    """First report measuring only arrivals after the first QS byte could land.

    Report n measures [n RTT - d - RTT, n RTT - d]; the first QS-rate byte
    leaves at RTT and reaches the receiver no earlier than RTT + d.
    """
    n = 2
    while (n - 1) * rtt - d < rtt + d - _TIME_SLACK:
        n += 1
    return n


def _check_args(
    timing: FluidTiming,
    rate_bps: float,
    packet_bytes: float,
    qs: bool,
    qs_rate_bps: float,
    qsd: bool,
    tq: float,
    phase: float,
    duration: float,
    dt: float,
    initial_rate: str,
    cra_bps: float | None,
) -> None:
    if not isinstance(timing, FluidTiming):
        raise ValueError(f"timing must be a FluidTiming, got {type(timing).__name__}")
    positive("rate_bps", rate_bps)
    positive("packet_bytes", packet_bytes)
    positive("qs_rate_bps", qs_rate_bps)
    non_negative("tq", tq)
    non_negative("phase", phase)
    positive("duration", duration)
    positive("dt", dt)
    if phase >= timing.t_b:
        raise ValueError(f"phase must lie in [0, T_b = {timing.t_b!r}), got {phase!r}")
    if dt >= duration:
        raise ValueError(f"dt must be smaller than duration, got dt={dt!r}")
    if initial_rate not in INITIAL_RATE_RULES:
        raise ValueError(f"initial_rate must be one of {INITIAL_RATE_RULES}, got {initial_rate!r}")
    if tq > 0 and not (qs or qsd):
        raise ValueError("tq delays the QS-Request: it needs qs=True or qsd=True")
    if cra_bps is not None:
        positive("cra_bps", cra_bps)
        if qsd:
            raise ValueError("qsd adds to DAMA requests: it cannot be used with cra_bps")


def simulate(
    timing: FluidTiming,
    *,
    rate_bps: float = 256e3,
    packet_bytes: float = 1316,
    qs: bool = False,
    qs_rate_bps: float = 320e3,
    qsd: bool = False,
    tq: float = 0.0,
    phase: float = 0.0,
    duration: float = 20.0,
    dt: float = 1e-3,
    initial_rate: str = "rfc3448",
    cra_bps: float | None = None,
    feedback: str = "paper",
) -> FluidResult:
    """Run the fluid model. ``qsd=True`` implies Quick-Start; ``tq`` is the
    QS-Request delay at the terminal; ``cra_bps`` replaces DAMA by a constant
    allocation; ``feedback`` chooses when reports come and what they
    measure ("paper": every RTT, over the last RTT, as section 3.5 assumes;
    "rfc5348": as the packet simulator's receiver does). See the module
    docstring for every rule."""
    if feedback not in FEEDBACK_RULES:
        raise ValueError(f"feedback must be one of {FEEDBACK_RULES}, got {feedback!r}")
    _check_args(
        timing,
        rate_bps,
        packet_bytes,
        qs,
        qs_rate_bps,
        qsd,
        tq,
        phase,
        duration,
        dt,
        initial_rate,
        cra_bps,
    )
    qs = qs or qsd
    n_steps = int(round(duration / dt))
    t = np.arange(n_steps + 1) * dt
    media = rate_bps / 8
    s = float(packet_bytes)
    d = timing.one_way_delay
    rtt = timing.rtt_m + tq
    x_min = _tfrc_floor(initial_rate, s, rtt)
    validation_report = _qs_validation_report(rtt, d) if qs else 0

    gran = timing.granularity_bps
    t_b, t_r = timing.t_b, timing.t_r
    alloc_lag = timing.allocation_delay
    # Boundaries b_k = k T_b - phase; the first one at or after t = 0.
    k = 0 if phase == 0 else 1
    next_boundary = k * t_b - phase
    qsd_pending = qsd
    nb = 1
    pending_alloc: list[tuple[float, int]] = []
    capacity = (cra_bps if cra_bps is not None else gran) / 8

    x = s  # one packet per second until the first report
    next_report = 1
    rfc = _RfcReports(rtt, d, tq, s / x, qs) if feedback == "rfc5348" else None
    a0 = media * t
    # The loop reads and writes one grid point at a time: on Python floats
    # (the same doubles) rather than numpy scalars, which cost several times
    # more per access.
    t_at, a0_at = t.tolist(), a0.tolist()
    a1 = [0.0]
    a2 = [0.0]
    x_log = []
    c_log = []
    fb_times: list[float] = []
    fb_xrecv: list[float] = []

    for i in range(n_steps + 1):
        now = t_at[i] + _TIME_SLACK
        if cra_bps is None:
            while next_boundary <= now:
                rate = (
                    _value_at(a1, dt, next_boundary) - _value_at(a1, dt, next_boundary - t_r)
                ) / t_r
                if qsd_pending and next_boundary > 0:
                    rate += qs_rate_bps / 8
                    qsd_pending = False
                nb = _nb_after_request(nb, _slots_for(rate * 8, gran))
                pending_alloc.append((next_boundary + alloc_lag, nb))
                k += 1
                next_boundary = k * t_b - phase
            while pending_alloc and pending_alloc[0][0] <= now:
                capacity = pending_alloc.pop(0)[1] * gran / 8
        if rfc is not None:
            for arrival, x_recv, after_approval in rfc.arrivals(now, a1, a2, dt):
                fb_times.append(arrival)
                fb_xrecv.append(x_recv * 8)
                x = rfc.on_report(
                    now, x, x_recv, after_approval, qs_rate_bps / 8, initial_rate, x_min
                )
            x = rfc.rate(now, x)
        while rfc is None and next_report * rtt <= now:
            n = next_report
            sent_at = n * rtt - d
            # The receiver's A3(u) is A2(u - d).
            x_recv = (_value_at(a2, dt, sent_at - d) - _value_at(a2, dt, sent_at - d - rtt)) / rtt
            fb_times.append(n * rtt)
            fb_xrecv.append(x_recv * 8)
            x = _tfrc_on_report(
                x, x_recv, n, qs, validation_report, qs_rate_bps / 8, initial_rate, s, rtt, x_min
            )
            next_report += 1
        x_log.append(x * 8)
        c_log.append(capacity * 8)
        if i == n_steps:
            break
        out1 = min(a1[i] + x * dt, a0_at[i + 1])
        a1.append(out1)
        a2.append(min(a2[i] + capacity * dt, out1))

    a1_arr = np.asarray(a1)
    a2_arr = np.asarray(a2)
    received = np.interp(t - d, t, a2_arr, left=0.0)
    return FluidResult(
        timing=timing,
        rtt=rtt,
        t=t,
        generated=a0,
        tfrc_out=a1_arr,
        uplink_out=a2_arr,
        received=received,
        sending_rate=np.asarray(x_log),
        allocation_bps=np.asarray(c_log),
        feedback_times=np.asarray(fb_times),
        feedback_x_recv_bps=np.asarray(fb_xrecv),
    )


class _RfcReports:
    """The receiver's reports and the sender's answers as the packet
    simulator runs them (RFC 5348 sections 4.3, 6 and 8.3), in the fluid:

    - report 1 goes when the first packet arrives (d + T_q, the QS agent
      holding it), with X_recv = 0, and reaches the sender at RTT;
    - section 8.3 fixes each packet's successor at the rate of the moment it
      is sent, so the rate report 1 sets applies only from the next nominal
      send time of the one-packet-per-second start (``effective``);
    - the packet sent then is the first to carry an RTT estimate: the
      receiver's feedback timer starts when it arrives, and a report goes
      every RTT from then on;
    - X_recv is what arrived since the last report over the time since it;
    - the sender doubles at most once per RTT, limited by 2 X_recv;
    - with Quick-Start, report 1 carries the approval and the phase ends at
      the first report on data sent after the approval arrived.
    """

    def __init__(self, rtt: float, d: float, tq: float, first_gap: float, qs: bool):
        self.rtt, self.d, self.qs = rtt, d, qs
        self.effective = math.ceil(rtt / first_gap - _TIME_SLACK) * first_gap
        self.next_send: float | None = d + tq
        self.last_send: float | None = None
        self.timer_level: float | None = None
        self.approval_level: float | None = None
        self.on_way: list[tuple[float, float, bool]] = []
        self.reports = 0
        self.phase = False
        self.pending: float | None = None
        self.tld = -math.inf

    def arrivals(self, now: float, a1: list, a2: list, dt: float) -> Sequence:
        """The reports reaching the sender by ``now``: (arrival, X_recv,
        whether the receiver had data sent after the QS approval)."""
        if self.timer_level is None and now >= self.effective - _TIME_SLACK:
            self.timer_level = _value_at(a1, dt, self.effective)
        if self.next_send is None and self.timer_level is not None:
            if _value_at(a2, dt, now - self.d) > self.timer_level + 1e-9:
                self.next_send = now + self.rtt
        while self.next_send is not None and self.next_send + self.d <= now + _TIME_SLACK:
            self._send(self.next_send, a1, a2, dt)
        if not self.on_way or self.on_way[0][0] > now + _TIME_SLACK:
            return ()  # nearly every step: no report reaches the sender
        due = [r for r in self.on_way if r[0] <= now + _TIME_SLACK]
        self.on_way = self.on_way[len(due) :]
        return due

    def _send(self, at: float, a1: list, a2: list, dt: float) -> None:
        got = _value_at(a2, dt, at - self.d)
        if self.last_send is None:
            x_recv, self.next_send = 0.0, None
            if self.qs:
                self.approval_level = _value_at(a1, dt, at + self.d)
        else:
            x_recv = (got - _value_at(a2, dt, self.last_send - self.d)) / (at - self.last_send)
            self.next_send = at + self.rtt
        after_approval = self.approval_level is not None and got > self.approval_level + 1e-9
        self.last_send = at
        self.on_way.append((at + self.d, x_recv, after_approval))

    def on_report(
        self,
        now: float,
        x: float,
        x_recv: float,
        after_approval: bool,
        qs_rate: float,
        initial_rate: str,
        x_min: float,
    ) -> float:
        """The sender's rate after a report (bytes/s, p = 0)."""
        self.reports += 1
        if self.reports == 1:
            if self.qs:
                self.phase, self.pending = True, qs_rate
            elif initial_rate == "rfc5348":
                self.pending = x_min
            else:
                self.pending = max(min(2 * x, 2 * x_recv), x_min)
            self.tld = now
            return x
        if self.phase and not after_approval:
            return x
        if self.phase:
            self.phase, self.tld = False, -math.inf
        if now - self.tld >= self.rtt - _TIME_SLACK:
            self.tld = now
            return max(min(2 * x, 2 * x_recv), x_min)
        return x

    def rate(self, now: float, x: float) -> float:
        """Report 1's rate, from the nominal send time it applies at."""
        if self.pending is not None and now >= self.effective - _TIME_SLACK:
            x, self.pending = self.pending, None
        return x


def _tfrc_floor(initial_rate: str, s: float, rtt: float) -> float:
    if initial_rate == "rfc3448":
        return s / rtt
    return min(4 * s, max(2 * s, _W_INIT_CAP_BYTES)) / rtt


def _tfrc_on_report(
    x: float,
    x_recv: float,
    n: int,
    qs: bool,
    validation_report: int,
    qs_rate: float,
    initial_rate: str,
    s: float,
    rtt: float,
    x_min: float,
) -> float:
    """TFRC sender rate after report n (bytes/s), p = 0."""
    if qs and n == 1:
        return qs_rate
    if qs and n < validation_report:
        return x
    if n == 1 and initial_rate == "rfc5348":
        return x_min
    return max(min(2 * x, 2 * x_recv), x_min)


def second_hump_height(result: FluidResult, tol: float = 0.01) -> float:
    """How far (seconds) E2ED rises again after its first local maximum; 0 if
    it never does.

    The first local maximum is the running maximum at the first point where
    E2ED has fallen more than ``tol`` below it (so that grid jitter before the
    peak does not count as a peak); the height is the largest later rise above
    the running minimum since that point. Bytes not yet received are left out.
    """
    non_negative("tol", tol)
    delay = result.e2ed()
    delay = delay[~np.isnan(delay)]
    if delay.size == 0:
        return 0.0
    running_max = np.maximum.accumulate(delay)
    fell = np.nonzero(delay < running_max - tol)[0]
    if fell.size == 0:
        return 0.0
    tail = delay[fell[0] :]
    return float(np.max(tail - np.minimum.accumulate(tail)))


def has_second_hump(result: FluidResult, tol: float = 0.01) -> bool:
    """Whether E2ED rises again by more than ``tol`` seconds after its first
    local maximum (see ``second_hump_height``).

    The default 10 ms is ten grid steps at dt = 1 ms: above the jitter that
    event quantisation puts on E2ED, far below the humps of section 3.5
    (hundreds of ms in Fig. 5).
    """
    return second_hump_height(result, tol) > tol


def tq_opt_numeric(
    timing: FluidTiming,
    *,
    step: float = 0.005,
    tq_max: float | None = None,
    tol: float = 0.01,
    **kwargs: Any,
) -> float:
    """Smallest T_q on the grid 0, step, 2 step, ... <= tq_max (default
    eq. (3)) for which a QSD run shows no second hump: the paper's definition
    of T_q,opt (section 3.5). NaN if there is none. ``kwargs`` go to
    ``simulate`` (not qs, qsd or tq)."""
    positive("step", step)
    limit = timing.tq_max if tq_max is None else non_negative("tq_max", tq_max)
    for name in ("qs", "qsd", "tq"):
        if name in kwargs:
            raise ValueError(f"{name} is set by tq_opt_numeric, do not pass it")
    for j in range(int(math.floor(limit / step + 1e-9)) + 1):
        tq = j * step
        if not has_second_hump(simulate(timing, qsd=True, tq=tq, **kwargs), tol=tol):
            return tq
    return math.nan
