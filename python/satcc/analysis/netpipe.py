"""Closed forms of the netpipe-satellite paper and NetPIPE's measurement rules.

Models TCP/IP over AAL5 over ATM on a long-delay (satellite) path as measured
by the NetPIPE ping-pong benchmark, in the setting of

- S. Yousef, C. Strange, "Experimental Investigation of the Effects of Delay
  and Error Rate on Throughput and Performance of ATM Satellite Links Serving
  LAN Islands" (`../shared/papers/netpipe-atm-satellite.txt`), section 2 (the
  buffer requirement BB, the throughput/window formula and its worked example)
  and section 3 (the line y = 0.0125 x at RTT = 600 ms);
- NetPIPE (Snell, Mikler, Gustafson, "NetPIPE: A Network Protocol Independent
  Performance Evaluator", 1996, http://bitspjoule.org/netpipe/paper/node2.html;
  source code netpipe.c/netpipe.h of NetPIPE 2.x and 3.7.x): the block-size
  schedule, the repetition count, half-round-trip transfer times and NetPIPE's
  "Mbps" of 2**20 bit/s;
- RFC 1577 / RFC 2684 (LLC/SNAP encapsulation of routed IP over AAL5: an
  8-byte header AA-AA-03 00-00-00 08-00) and ITU-T I.363.5 (the 8-byte AAL5
  CPCS-PDU trailer, padding to a multiple of 48 bytes of cell payload);
  every cell is 53 bytes on the wire (5-byte header).

Units are in the names: ``_bytes``, ``_bps`` (bit/s), ``_s`` (seconds),
``_cells``. Sizes of the paper's "k bytes" are kept as the caller's choice
(``kb`` arguments), and so is the size of a "Mbit" (``mbit``): 1e6 for line
rates, ``NETPIPE_MBIT`` (2**20 bits) for throughputs printed by NetPIPE.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from satcc.analysis._validate import non_negative, positive
from satcc.analysis.tcp import window_limited_throughput

__all__ = [
    "AAL5_TRAILER_BYTES",
    "ATM_CELL_BYTES",
    "ATM_CELL_PAYLOAD_BYTES",
    "LLC_SNAP_BYTES",
    "NETPIPE_MBIT",
    "NETPIPE_PERTURBATION_BYTES",
    "NETPIPE_RUNTM_S",
    "NETPIPE_STOPTM_S",
    "NETPIPE_TRIALS",
    "NetpipeTest",
    "TransferTimeStats",
    "aal5_cells",
    "atm_efficiency",
    "buffer_requirement_cells",
    "fit_slope_through_origin",
    "netpipe_block_sizes",
    "netpipe_repetitions",
    "netpipe_schedule",
    "paper_throughput_fraction",
    "predicted_slope_mbps_per_kb",
    "tcp_segments",
    "transfer_time_stats",
    "window_limited_goodput_bps",
    "window_limited_throughput_bps",
    "wire_bytes_atm",
]

ATM_CELL_BYTES = 53
ATM_CELL_PAYLOAD_BYTES = 48
LLC_SNAP_BYTES = 8  # RFC 1577 / RFC 2684 routed IPv4: LLC AA-AA-03, OUI 00-00-00, PID 08-00
AAL5_TRAILER_BYTES = 8  # ITU-T I.363.5: CPCS-UU, CPI, Length (2), CRC-32 (4)
AAL5_MAX_SDU_BYTES = 65535  # the 16-bit Length field of the AAL5 trailer

# NetPIPE's "Mbps" is bits / (t * 1024 * 1024) (netpipe.c, both 2.x and 3.x).
NETPIPE_MBIT = 2**20
# Default perturbation p (netpipe.h: PERT 3 in 2.x, DEFPERT 3 in 3.x).
NETPIPE_PERTURBATION_BYTES = 3
# Target duration of one trial's ping-pongs (netpipe.h RUNTM: 0.25 s in 2.x and
# in 3.x built with FINAL, 0.10 s in 3.x otherwise; the 1996 paper says 0.5 s).
NETPIPE_RUNTM_S = 0.25
# NetPIPE stops growing the block once a one-way transfer takes STOPTM = 1 s.
NETPIPE_STOPTM_S = 1.0
# Trials per block size, each of nrepeat ping-pongs, of which NetPIPE reports
# the fastest (netpipe.h TRIALS: 7 in 2.x and in 3.x built with FINAL, 3 in
# 3.x otherwise); also its least nrepeat.
NETPIPE_TRIALS = 7


def _count(name: str, value: int, minimum: int) -> int:
    if isinstance(value, bool) or int(value) != value or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def aal5_cells(ip_bytes: int, llc_snap: bool = True) -> int:
    """ATM cells carrying one IP datagram of ip_bytes over AAL5.

    ceil((ip_bytes + 8 [LLC/SNAP, RFC 1577/2684, if llc_snap] + 8 [AAL5
    trailer, I.363.5]) / 48). With llc_snap=False the datagram is VC-multiplexed
    (RFC 2684 "null" encapsulation, no header). Examples: a 512-byte segment
    with 40 bytes of TCP/IP headers (552 B) takes 12 cells, a 1500-byte
    datagram 32 cells.
    """
    ip = _count("ip_bytes", ip_bytes, 1)
    sdu = ip + (LLC_SNAP_BYTES if llc_snap else 0)
    if sdu > AAL5_MAX_SDU_BYTES:
        raise ValueError(f"an AAL5 CPCS-SDU holds at most 65535 bytes, got {sdu}")
    return math.ceil((sdu + AAL5_TRAILER_BYTES) / ATM_CELL_PAYLOAD_BYTES)


def wire_bytes_atm(ip_bytes: int, llc_snap: bool = True) -> int:
    """Bytes on the ATM wire for one IP datagram: aal5_cells(...) * 53 (the "cell tax")."""
    return aal5_cells(ip_bytes, llc_snap) * ATM_CELL_BYTES


def tcp_segments(block_bytes: int, mss: int) -> int:
    """TCP segments for a block of block_bytes with maximum segment size mss: ceil(block/mss).

    A block of 0 bytes needs no segment.
    """
    block = _count("block_bytes", block_bytes, 0)
    return math.ceil(block / _count("mss", mss, 1))


def atm_efficiency(mss: int, header_bytes: int = 40, llc_snap: bool = True) -> float:
    """TCP payload bytes per byte on the ATM wire for full-size segments (dimensionless).

    mss / wire_bytes_atm(mss + header_bytes): 1460 B -> 1460/1696 = 0.861,
    9140 B (RFC 1577's 9180-byte MTU) -> 9140/10176 = 0.898, 512 B -> 512/636
    = 0.805. header_bytes = 40 is IPv4 + TCP without options.
    """
    mss = _count("mss", mss, 1)
    header = _count("header_bytes", header_bytes, 0)
    return mss / wire_bytes_atm(mss + header, llc_snap)


def window_limited_throughput_bps(window_bytes: float, rtt_s: float) -> float:
    """At most one window per round trip: window_bytes * 8 / rtt_s, payload bit/s.

    `satcc.analysis.tcp.window_limited_throughput`, in bit/s.
    """
    return window_limited_throughput(window_bytes, rtt_s) * 8


def window_limited_goodput_bps(
    window_bytes: float,
    rtt_s: float,
    link_bps: float,
    mss: int,
    header_bytes: int = 40,
    llc_snap: bool = True,
) -> float:
    """Lossless steady-state goodput, payload bit/s: min(window*8/RTT, link_bps * efficiency).

    The window limit of `window_limited_throughput_bps` against the largest
    payload rate a link of link_bps (the ATM cell rate, 53-byte cells) carries
    in full-size segments, `atm_efficiency(mss, header_bytes, llc_snap)`. The
    cell tax and TCP/IP headers only matter once the link is the bottleneck:
    below that, a window of payload still crosses once per round trip.
    rtt_s is the round trip seen by the window (propagation plus queueing
    plus the serialisation of a segment and its ACK).
    """
    window = window_limited_throughput_bps(window_bytes, rtt_s)
    link = positive("link_bps", link_bps) * atm_efficiency(mss, header_bytes, llc_snap)
    return min(window, link)


def paper_throughput_fraction(window_bytes: float, rate_bps: float, rtt_s: float) -> float:
    """The paper's "Throughput = Window size / (Transmission rate x RTT)": a fraction of the line.

    window_bytes * 8 / (rate_bps * rtt_s): the window over the bandwidth-delay
    product, dimensionless. The paper's worked example (section 2): at 2.048
    Mb/s and RTT 0.5 s a window of 1.024 Mbit = 128 000 bytes gives 1 (100 %),
    the default 8192-byte NetPIPE socket 8192/128000 = 8.192/128 = 0.064. It is
    the paper's formula as printed, so it exceeds 1 for a window above the
    bandwidth-delay product (a real sender saturates at 1, less the cell tax:
    see `window_limited_goodput_bps`) and ignores all overheads.
    """
    window_bits = positive("window_bytes", window_bytes) * 8
    return window_bits / (positive("rate_bps", rate_bps) * positive("rtt_s", rtt_s))


def buffer_requirement_cells(
    trans_speed_bps: float, link_speed_bps: float, burst_bytes: float
) -> float:
    """The paper's BB = (Trans speed - Link speed) * (Burst size / (53 * Trans speed)), in cells.

    A fluid model of a burst arriving at trans_speed_bps into a queue drained
    at link_speed_bps. The burst of burst_bytes is burst_bytes/53 cells when
    burst_bytes counts wire bytes (cells x 53). It arrives in
    burst_bytes*8/trans_speed seconds, while the link drains
    link_speed*burst_bytes*8/trans_speed bits, so the backlog when the burst
    ends is burst_bytes*8*(1 - link/trans) bits, that is

        (trans - link) / trans * burst_bytes / 53   cells,

    the paper's formula. It is dimensionally consistent with "53" in bytes per
    cell and the two speeds in the same unit (only their ratio enters); the
    result is in cells when the burst is in bytes. For a burst of IP payload
    rather than wire bytes, convert first (`wire_bytes_atm`). The result is a
    real number (round up for whole cells), and 0 when trans_speed <= link_speed
    (no queue builds up).
    """
    trans = positive("trans_speed_bps", trans_speed_bps)
    link = positive("link_speed_bps", link_speed_bps)
    burst = non_negative("burst_bytes", burst_bytes)
    if trans <= link:
        return 0.0
    return (trans - link) * (burst / (ATM_CELL_BYTES * trans))


def netpipe_block_sizes(
    max_bytes: int, perturbation: int = NETPIPE_PERTURBATION_BYTES, start: int = 1
) -> list[int]:
    """NetPIPE's block sizes from start up to max_bytes, sorted and unique.

    The rule of the main loop of NetPIPE 3.7.x netpipe.c (the same as NetPIPE
    2.x for start = 1; 2.x fixes p at PERT = 3): a base size n begins at
    `start` with increment inc = start // 2 (1 when start = 1) and a counter
    q = 1 (0 when start = 1). Each pass, if q > 2 and q is odd the increment
    doubles; the sizes n - p, n, n + p are tested when p > 0 and inc > p + 1,
    otherwise n alone; then n += inc and q += 1. The loop runs while
    n <= max_bytes. So the increment doubles every second step and the bases
    grow geometrically (two bases per octave):
    1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, ..., and with p = 3
    1, 2, 3, 4, 6, 8, 12, 13, 16, 19, 21, 24, 27, 29, 32, 35, 45, 48, 51, ...

    Differences from NetPIPE itself: NetPIPE tests in loop order and may test
    n + p > max_bytes (its bound is on the base n) and repeated sizes (when
    p < inc <= 2p); here sizes above max_bytes are dropped and the list is
    sorted and unique. NetPIPE also stops once a one-way transfer takes
    NETPIPE_STOPTM_S = 1 s (or after NSAMP - 3 = 7997 sizes), which depends on
    the measurements and is not applied here. With an 8192-byte window a block
    of k windows takes about (k - 1) RTT + RTT/2 plus its serialisation one
    way, so on an E1 the 1 s cut-off falls just after the 24 KB bases at RTT
    400 ms and the 48 KB bases at 200 ms: the likely origin of the paper's
    "maximum block sizes" (24 KB measured, 16 KB usable at GEO, 49 KB at MEO).

    Sources: netpipe.c of NetPIPE 3.7.x, main loop (GitHub yihan1998/netpipe,
    src/netpipe.c, commit 04e0ea25575f25775a2689a44d35e3706af1fcf8, a fork
    keeping the 3.7 loop; constants in hpcraink/NetPIPE-3.7.2 src/netpipe.h:
    DEFPERT 3, STOPTM 1.0); the NetPIPE paper (Snell et al. 1996, section
    "NetPIPE Design": sizes c - p, c, c + p with p = 3, growing until the
    transfer time exceeds 1 s).
    """
    return sorted({t.bytes for t in netpipe_schedule(max_bytes, perturbation, start)})


class NetpipeTest(NamedTuple):
    """One block size of NetPIPE's schedule (see `netpipe_schedule`)."""

    bytes: int
    base: int  # the base size c of its group c - p, c, c + p
    increment: int  # NetPIPE's `inc` while the group is tested


def netpipe_schedule(
    max_bytes: int, perturbation: int = NETPIPE_PERTURBATION_BYTES, start: int = 1
) -> list[NetpipeTest]:
    """NetPIPE's block sizes in the order its main loop tests them, each with
    its base size and the increment then in force (the loop of
    `netpipe_block_sizes`; sizes outside 1..max_bytes are left out).

    NetPIPE checks its stop time once a base's group is done, and its
    repetition rule (`netpipe_repetitions`) scales the previous time by
    b / (b - inc + 1) with this increment. For p = 3 the order is ascending
    and every size appears once, so it is `netpipe_block_sizes`; a p with
    p < inc <= 2p for some increment makes groups overlap.
    """
    start = _count("start", start, 1)
    max_bytes = _count("max_bytes", max_bytes, 1)
    p = _count("perturbation", perturbation, 0)
    if start > max_bytes:
        raise ValueError(f"start ({start}) must not exceed max_bytes ({max_bytes})")
    inc = start // 2 if start > 1 else 1
    q = 1 if start > 1 else 0
    n = start
    tests = []
    while n <= max_bytes:
        if q > 2 and q % 2 == 1:
            inc *= 2
        offsets = (-p, 0, p) if p > 0 and inc > p + 1 else (0,)
        tests += [NetpipeTest(n + d, n, inc) for d in offsets if 1 <= n + d <= max_bytes]
        n += inc
        q += 1
    return tests


def netpipe_repetitions(
    block_bytes: int,
    rate_bps: float,
    latency_s: float = 0.0,
    target_s: float = NETPIPE_RUNTM_S,
    min_reps: int = 3,
    max_reps: int = 1000,
) -> int:
    """Ping-pong repetitions per trial for a block: satcc's rule, after NetPIPE's.

    reps = clamp(ceil(target_s / t_est), min_reps, max_reps), with the
    estimated one-way transfer time t_est = latency_s + block_bytes*8/rate_bps
    (latency_s is the one-way latency, half the round trip). As in NetPIPE a
    trial then lasts about 2 * target_s (reps round trips of 2 t_est).

    NetPIPE's own rule (netpipe.c, 2.x and 3.7.x) scales the previous
    measurement instead of an estimate: with the previous block size b, its
    measured one-way time tlast and the current increment inc,
    nrepeat = max(int(RUNTM * (b - inc + 1) / (b * tlast)), TRIALS), where
    RUNTM = 0.25 s (2.x; 0.10 s in 3.x unless built FINAL) and TRIALS = 7
    (2.x; 3 in 3.x), and has no upper bound. This function rounds up, uses
    an analytic t_est and caps at max_reps; satcc's NetPIPE application
    offers NetPIPE's rule itself (`repetition_rule = "netpipe"`, with the
    increments of `netpipe_schedule`).
    """
    block = _count("block_bytes", block_bytes, 0)
    rate = positive("rate_bps", rate_bps)
    latency = non_negative("latency_s", latency_s)
    target = positive("target_s", target_s)
    lo = _count("min_reps", min_reps, 1)
    hi = _count("max_reps", max_reps, lo)
    estimate = latency + block * 8 / rate
    if estimate <= 0:
        return hi
    return max(lo, min(hi, math.ceil(target / estimate)))


class TransferTimeStats(NamedTuple):
    """Block transfer time statistics (see `transfer_time_stats`)."""

    mean_s: float
    variance_s2: float
    cdv_percent: float


def transfer_time_stats(round_trip_times_s: Iterable[float], ddof: int = 0) -> TransferTimeStats:
    """Mean, variance and %CDV of block transfer times from ping-pong round trips.

    NetPIPE's transfer time is half a ping-pong round trip, so each sample is
    halved. Returns the mean (s), the variance (s^2; ddof = 0 by default, the
    population variance t2/N - (t1/N)^2 that NetPIPE 2.x prints for its
    TRIALS trials) and the percentage coefficient of delay variation
    %CDV = 100 * std / mean, the paper's "% CDV" (it does not change under the
    halving). Note that NetPIPE reports the minimum of its trials as "the"
    transfer time, not the mean, and the variance of its TRIALS trial
    means, not of single round trips (satcc's `report = "min_trial"`).
    """
    halves = [non_negative("round trip time", t) / 2 for t in round_trip_times_s]
    d = _count("ddof", ddof, 0)
    if len(halves) <= d:
        raise ValueError(f"need more than {d} round-trip times, got {len(halves)}")
    mean = math.fsum(halves) / len(halves)
    variance = math.fsum((t - mean) ** 2 for t in halves) / (len(halves) - d)
    if mean <= 0:
        raise ValueError("the mean transfer time must be positive to give a %CDV")
    return TransferTimeStats(mean, variance, 100 * math.sqrt(variance) / mean)


def fit_slope_through_origin(x: Sequence[float], y: Sequence[float]) -> float:
    """Least-squares slope a of y = a x: sum(x y) / sum(x^2).

    Used for the paper's line y = 0.0125 x (section 3, RTT = 600 ms) with y
    the throughput in Mb/s and x the socket buffer in kbytes. Window/RTT
    predicts the slope `predicted_slope_mbps_per_kb`: at RTT 0.6 s one
    kilobyte (1024 B) of window carries 1024*8/0.6 = 13 653 bit/s, a slope of
    0.01365 Mb/s per KB with 1 Mb = 1e6 bit; the paper's 0.0125 is 0.9155 of
    that (an effective round trip of 0.655 s). Part of the gap is NetPIPE's
    unit: its "Mbps" is 2**20 bit/s, for which the prediction is 0.01302 and
    the ratio 0.960 (an effective round trip of 0.625 s, 25 ms above 600 ms).
    0.9155 is also near the ATM/TCP/IP efficiencies (`atm_efficiency`: 0.861
    for 1460-byte, 0.898 for 9140-byte segments), but the cell tax does not
    lower a window-limited throughput, so that closeness is no explanation.
    """
    xs = [float(v) for v in x]
    ys = [float(v) for v in y]
    if len(xs) != len(ys) or not xs:
        raise ValueError(f"x and y must be non-empty and of equal length ({len(xs)}, {len(ys)})")
    if not all(math.isfinite(v) for v in xs + ys):
        raise ValueError("x and y must be finite")
    sxx = math.fsum(v * v for v in xs)
    if sxx == 0:
        raise ValueError("x must not be all zero")
    return math.fsum(a * b for a, b in zip(xs, ys, strict=True)) / sxx


def predicted_slope_mbps_per_kb(rtt_s: float, kb: float = 1024, mbit: float = 1e6) -> float:
    """Window/RTT slope of throughput (Mb/s) against window (KB): kb * 8 / rtt_s / mbit.

    kb is the bytes in the x-axis "k byte" (1024 or 1000), mbit the bits in
    the y-axis "Mb" (1e6, or NETPIPE_MBIT = 2**20 for NetPIPE's Mbps). At RTT
    0.6 s: 0.013653 (1024, 1e6), 0.013333 (1000, 1e6), 0.013021 (1024, 2**20).
    """
    kb = positive("kb", kb)
    return kb * 8 / positive("rtt_s", rtt_s) / positive("mbit", mbit)
