"""The same TCP scenario in ns-2.35: a Tcl script, the `ns` run, its numbers.

A `Case` describes one dumbbell scenario in the terms both simulators share
(rates, delays, a drop-tail bottleneck, per-packet loss on the data
direction, the TCP parameters). `tcl_script` writes the ns-2 script for one
seed, `run` executes it with Debian's `ns2` package (`ns`), and `parse_output`
reads back what the script prints. tcp_crosscheck/model.py builds the satcc
scenario from the same `Case`; docs/tcp-crosscheck.md says how each
parameter of one simulator is matched in the other.

Random loss comes in two forms. By default each simulator draws its own
(ns-2: an `ErrorModel` with `rate_ p` on its own RNG substream; satcc: the
link's `loss`), and runs compare only as distributions over many seeds.
With `shared_losses` the losses of each seed are drawn once
(`Case.loss_lists`, python/satcc/studies/loss_pattern.py) and both
simulators lose exactly those packets: satcc through its link's
`loss_list`, ns-2 through an `ErrorModel/List` on the same link direction.

What the script measures, per flow:

- `bytes`: the sink's `bytes_`. ns-2's TCPSink adds the size of every
  packet it delivers in order, header included (the SYN, sequence number 0,
  is a bare 40-byte header, delivered long before the warm-up ends), so the
  payload delivered in the window is the difference divided by
  (packetSize_ + 40) and multiplied by packetSize_.
- `ndatapack`, `nrexmitpack`, `nrexmit`: the sender's counters (tcp.h): data
  packets sent (retransmissions included), packets sent again, and
  retransmission-timer expiries that cut the window (`TcpAgent::timeout`
  counts `nrexmit_` only when data is outstanding).

Each is printed at the end of the warm-up (`flow I warm ...`) and at the end
of the run (`flow I end ...`); `parse_output` takes the differences.

A CUBIC case (`congestion_control = "cubic"`) runs ns-2's Linux sender,
Agent/TCP/Linux with `select_ca cubic` (Linux 2.6.22's tcp_cubic, CUBIC 2.1);
a Hybla case (`"hybla"`) the same sender with `select_ca hybla` (2.6.22's
tcp_hybla). Their counters are the same TcpAgent ones.
"""

from __future__ import annotations

import math
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from satcc.studies import loss_pattern

NS_COMMAND = "ns"
HEADER_BYTES = 40  # ns-2's tcpip_base_hdr_size_, satcc's default `header`
ACCESS_RATE_BPS = 100e6
ACCESS_QUEUE_PACKETS = 100_000

VARIANT_AGENTS = {
    # satcc variant: (ns-2 sender, ns-2 sink with an ACK per packet, with delayed ACKs)
    "reno": ("Agent/TCP/Reno", "Agent/TCPSink", "Agent/TCPSink/DelAck"),
    "newreno": ("Agent/TCP/Newreno", "Agent/TCPSink", "Agent/TCPSink/DelAck"),
    "sack": ("Agent/TCP/Sack1", "Agent/TCPSink/Sack1", "Agent/TCPSink/Sack1/DelAck"),
}
CONGESTION_CONTROLS = ("reno", "cubic", "hybla")
# CUBIC and Hybla run in ns-2.35's Linux sender (Agent/TCP/Linux, "TCP-Linux"
# by D. X. Wei and P. Cao, 2006), which hosts Linux 2.6.22.6's
# congestion-control modules unchanged (tcp/linux/src/tcp_cubic.c: CUBIC 2.1;
# tcp_hybla.c) and recovers losses with its own SACK scoreboard
# (tcp/scoreboard1.cc), so they pair with the SACK sinks and satcc's `sack`
# variant.
LINUX_CONTROLS = ("cubic", "hybla")
LINUX_AGENT = "Agent/TCP/Linux"
LINUX_TICK_S = 0.001  # its jiffy (JIFFY_RATIO 1000, tcp/linux/ns-linux-util.h)
# tcp_cubic.c 2.1's `beta` module parameter, scaled by 1024: 819 (0.8) is its
# default; later Linux versions use 717 (0.7, RFC 9438's beta_cubic).
LINUX_CUBIC_BETA_DEFAULT = 819
# tcp_hybla.c's `rtt0` module parameter, Hybla's reference RTT in ms (an
# integer; jiffies of 1 ms in ns-2): 25 in 2.6.22 as today, satcc's default
# `hybla_rtt0`.
LINUX_HYBLA_RTT0_MS = 25
# hybla_init sets snd_cwnd_clamp to 65535 packets, over the window_ that the
# Linux sender loaded into it; nothing loads window_ again (load_to_linux
# runs at reset and select_ca only), so under Hybla window_ is the initial
# ssthresh alone and cwnd, hence the flight, may reach 65535 packets.
HYBLA_CWND_CLAMP = 65_535


@dataclass(frozen=True)
class Flow:
    """One bulk TCP flow: its sender's access-link delay (one way) and when
    its application starts."""

    access_delay_s: float
    start_s: float = 0.0


@dataclass(frozen=True)
class Case:
    """A dumbbell: every flow's sender -> r1 over its own access link, the
    bottleneck r1 -> r2, r2 -> that flow's receiver over a zero-delay access
    link; the same links carry the ACKs back. Loss (`loss`, per packet) hits
    data packets only, after transmission: drawn by each simulator, on the
    bottleneck's data direction; with `shared_losses`, drawn once per seed
    and flow (`loss_lists`) on the link that carries that flow's data and
    nothing else (`loss_links_per_flow`)."""

    variant: str = "newreno"
    # "cubic", "hybla": ns-2's Linux sender with select_ca cubic / hybla
    congestion_control: str = "reno"
    cubic_beta: int = LINUX_CUBIC_BETA_DEFAULT  # ns-2's tcp_cubic `beta` (/1024)
    # ns-2's tcp_hybla `rtt0` (ms) and satcc's `hybla_rtt0`
    hybla_rtt0_ms: int = LINUX_HYBLA_RTT0_MS
    rate_bps: float = 2e6
    delay_s: float = 0.274
    queue_limit: int = 100  # ns-2's queue-limit: one packet in transmission + limit-1 waiting
    loss: float = 0.0
    # The losses drawn once per seed and given to both simulators as lists
    # (`loss_lists`); False: each simulator draws its own at rate `loss`.
    shared_losses: bool = False
    mss: int = 1460
    window_packets: int = 1000
    # satcc's receive buffer, in packets; None: twice the window, which
    # out-of-order data never shrinks below the window (ns-2's sinks hold
    # any amount of it).
    receive_buffer_packets: int | None = None
    initial_window: int = 2
    delayed_ack: bool = True
    delack_interval_s: float = 0.1
    limited_transmit: bool = True
    min_rto_s: float = 1.0
    initial_rto_s: float = 3.0
    max_rto_s: float = 60.0
    tick_s: float = 0.001
    duration_s: float = 300.0
    warmup_s: float = 50.0
    flows: tuple[Flow, ...] = field(default_factory=lambda: (Flow(0.001),))

    def __post_init__(self) -> None:
        if self.variant not in VARIANT_AGENTS:
            raise ValueError(f"variant must be one of {', '.join(VARIANT_AGENTS)}")
        if self.congestion_control in ("bbr", "bbr3"):
            # ns-2.35's Linux sender hosts 2.6.22's modules: BBR came in 4.9.
            raise ValueError("ns-2.35 has no BBR (Linux 4.9, 2016): compare it with Linux instead")
        if self.congestion_control not in CONGESTION_CONTROLS:
            raise ValueError(f"congestion_control must be one of {', '.join(CONGESTION_CONTROLS)}")
        name = {"cubic": "CUBIC", "hybla": "Hybla"}.get(self.congestion_control)
        if self.linux_sender and self.variant != "sack":
            raise ValueError(f"{name} runs in ns-2's Linux sender, which recovers with SACK")
        if not 0 < self.cubic_beta < 1024:
            raise ValueError("cubic_beta is scaled by 1024: 0 < beta < 1024")
        if not (isinstance(self.hybla_rtt0_ms, int) and self.hybla_rtt0_ms > 0):
            # tcp_hybla's rtt0 is an int module parameter, in ms.
            raise ValueError("hybla_rtt0_ms is a whole number of milliseconds > 0")
        if self.linux_sender and self.tick_s != LINUX_TICK_S:
            # select_ca sets the Linux sender's tcpTick_ to one jiffy.
            raise ValueError(f"ns-2's Linux sender runs on a {LINUX_TICK_S} s clock tick")
        if self.queue_limit < 2:
            raise ValueError("queue_limit must be at least 2 (one waiting packet)")
        if not 0 <= self.loss < 1:
            raise ValueError("loss must be in [0, 1)")
        if not 0 < self.warmup_s < self.duration_s:
            raise ValueError("the warm-up must end before the run does")
        if not self.flows:
            raise ValueError("a case needs at least one flow")

    @property
    def linux_sender(self) -> bool:
        """Whether ns-2 runs the case in its Linux sender (CUBIC, Hybla)."""
        return self.congestion_control in LINUX_CONTROLS

    @property
    def packet_bytes(self) -> int:
        """A data packet on the wire: ns-2's packetSize_ plus its 40-byte header."""
        return self.mss + HEADER_BYTES

    def rtt_s(self, flow: int = 0) -> float:
        """Round-trip propagation delay plus one data packet's and one ACK's
        serialisation at every hop: the RTT of an empty path."""
        one_way = self.flows[flow].access_delay_s + self.delay_s
        data = self.packet_bytes * 8 * (1 / ACCESS_RATE_BPS * 2 + 1 / self.rate_bps)
        ack = HEADER_BYTES * 8 * (1 / ACCESS_RATE_BPS * 2 + 1 / self.rate_bps)
        return 2 * one_way + data + ack

    def syn_rtt_s(self, flow: int = 0) -> float:
        """The SYN's RTT: the round-trip propagation delay plus a 40-byte
        PDU's serialisation at every hop, both ways (the SYN and its ACK).
        It is the first and, data packets being longer, the lowest RTT
        either simulator measures."""
        one_way = self.flows[flow].access_delay_s + self.delay_s
        bits = HEADER_BYTES * 8 * (1 / ACCESS_RATE_BPS * 2 + 1 / self.rate_bps)
        return 2 * one_way + 2 * bits

    def hybla_rho8(self, flow: int = 0) -> int:
        """Hybla's rho in eighths as ns-2's tcp_hybla sets it from the SYN's
        RTT at hybla_init and keeps it (no later SRTT is lower):
        floor(8 SRTT / RTT0), at least 8 (rho_3ls; its SRTT is in 1/8 of the
        1 ms tick). satcc's controller takes its first SRTT at the first
        data ACK instead, which over the study's GEO paths falls in the
        same eighth (docs/tcp-crosscheck.md, "rho in both")."""
        return max(math.floor(8 * self.syn_rtt_s(flow) * 1000 / self.hybla_rtt0_ms), 8)

    @property
    def send_limit_packets(self) -> int:
        """The most packets ns-2's sender keeps outstanding: window_, or
        under Hybla its cwnd clamp (HYBLA_CWND_CLAMP); satcc's send buffer."""
        return HYBLA_CWND_CLAMP if self.congestion_control == "hybla" else self.window_packets

    def bdp_packets(self, flow: int = 0) -> float:
        return self.rate_bps * self.rtt_s(flow) / 8 / self.packet_bytes

    @property
    def measured_s(self) -> float:
        return self.duration_s - self.warmup_s

    @property
    def loss_links_per_flow(self) -> bool:
        """Whether shared losses sit on each flow's access link (sender ->
        r1), which carries its data alone, rather than on the bottleneck,
        which does so only when there is one flow."""
        return len(self.flows) > 1

    def loss_lists(self, seed: int) -> tuple[tuple[int, ...], ...]:
        """With `shared_losses`, per flow: the numbers (from 1) of the
        packets its data link loses in the run with `seed`, Bernoulli(`loss`)
        over every packet number the run can reach (`reachable_packets`),
        drawn from PCG64 seeded with (seed, flow). Without: no lists."""
        if not (self.shared_losses and self.loss > 0):
            return tuple(() for _ in self.flows)
        return _loss_lists(self, seed)

    def reachable_packets(self) -> int:
        """A bound on the PDUs a flow's lossy link can start in the run:
        its rate over the whole run in full-size packets, plus the SYN and
        its retransmissions (40-byte PDUs; a few at most)."""
        rate = ACCESS_RATE_BPS if self.loss_links_per_flow else self.rate_bps
        return math.ceil(rate * self.duration_s / (self.packet_bytes * 8)) + SYN_MARGIN


# PDUs other than full-size data packets that a flow's data link can carry:
# its SYN and the SYN's retransmissions (3, 6, 12 ... s apart).
SYN_MARGIN = 16


@lru_cache(maxsize=256)
def _loss_lists(case: Case, seed: int) -> tuple[tuple[int, ...], ...]:
    # Cached: the satcc scenario, its warm-up and the ns-2 script of a seed
    # all need the same lists.
    packets = case.reachable_packets()
    return tuple(
        loss_pattern.bernoulli(case.loss, packets, (seed, i)) for i in range(len(case.flows))
    )


def _seconds(x: float) -> str:
    return f"{x:.9g}"


def _rate(bps: float) -> str:
    return f"{bps:.9g}"  # ns-2 reads a bare number as bit/s


def tcp_settings(case: Case) -> list[str]:
    """The Tcl that sets ns-2's TCP senders as `case` has them."""
    return [
        f"Agent/TCP set packetSize_ {case.mss}",
        f"Agent/TCP set window_ {case.window_packets}",
        f"Agent/TCP set windowInit_ {case.initial_window}",
        f"Agent/TCP set singledup_ {1 if case.limited_transmit else 0}",
        f"Agent/TCP set minrto_ {_seconds(case.min_rto_s)}",
        f"Agent/TCP set maxrto_ {_seconds(case.max_rto_s)}",
        f"Agent/TCP set rtxcur_init_ {_seconds(case.initial_rto_s)}",
        f"Agent/TCP set tcpTick_ {_seconds(case.tick_s)}",
        f"Agent/TCP set tcpip_base_hdr_size_ {HEADER_BYTES}",
        "Agent/TCP set maxburst_ 0",
        "Agent/TCP set overhead_ 0",
    ]


def sink_settings(case: Case) -> list[str]:
    """The Tcl that sets ns-2's TCP sinks as `case` has them."""
    return [
        f"Agent/TCPSink set packetSize_ {HEADER_BYTES}",
        f"Agent/TCPSink/DelAck set interval_ {_seconds(case.delack_interval_s)}",
        f"Agent/TCPSink/Sack1/DelAck set interval_ {_seconds(case.delack_interval_s)}",
    ]


def tcl_script(case: Case, seed: int) -> str:
    """The ns-2 script for one run of `case` with `seed` (an integer >= 1,
    the replication number: its random numbers come from substream `seed`
    of ns-2's generators)."""
    if seed < 1:
        raise ValueError(f"seeds are replication numbers >= 1, got {seed}")
    agent, sink_plain, sink_delack = VARIANT_AGENTS[case.variant]
    sink = sink_delack if case.delayed_ack else sink_plain
    linux = case.linux_sender
    if linux:
        agent = LINUX_AGENT
    lines = [
        "# Generated by satcc (python/satcc/studies/ns2.py); see docs/tcp-crosscheck.md.",
        "set ns [new Simulator]",
        # Replication `seed` uses substream `seed` of each generator (ns-2's
        # way to independent replications: substreams are 2^76 draws apart).
        # `$rng seed N` would start every word of MRG32k3a's state at N,
        # which makes consecutive seeds' streams correlated. defaultRNG
        # draws the random phase of each sender's clock (boot_time_).
        "global defaultRNG",
        f"for {{set i 0}} {{$i < {seed}}} {{incr i}} {{ $defaultRNG next-substream }}",
        "set r1 [$ns node]; set r2 [$ns node]",
        f"$ns duplex-link $r1 $r2 {_rate(case.rate_bps)} {_seconds(case.delay_s)}s DropTail",
        f"$ns queue-limit $r1 $r2 {case.queue_limit}",
        f"$ns queue-limit $r2 $r1 {ACCESS_QUEUE_PACKETS}",
    ]
    if case.loss > 0 and not case.shared_losses:
        lines += [
            "set lossrng [new RNG]",
            f"for {{set i 0}} {{$i < {seed}}} {{incr i}} {{ $lossrng next-substream }}",
            "set lossvar [new RandomVariable/Uniform]",
            "$lossvar use-rng $lossrng",
            "set em [new ErrorModel]",
            "$em unit pkt",
            f"$em set rate_ {case.loss!r}",
            "$em ranvar $lossvar",
            "$em drop-target [new Agent/Null]",
            # After the transmitter, as satcc's link errors: a lost packet
            # still took its time on the bottleneck.
            "$ns link-lossmodel $em $r1 $r2",
        ]
    lines += tcp_settings(case)
    if linux:
        lines += [
            # Agent/TCP/Linux has defaults of its own (ns-default.tcl): set
            # the matched ones on it too.
            f"{LINUX_AGENT} set minrto_ {_seconds(case.min_rto_s)}",
            f"{LINUX_AGENT} set maxrto_ {_seconds(case.max_rto_s)}",
            f"{LINUX_AGENT} set rtxcur_init_ {_seconds(case.initial_rto_s)}",
            # Its default (false) sends the SYN and the first data packet
            # together; true waits for the SYN's ACK, as satcc's handshake.
            f"{LINUX_AGENT} set delay_growth_ true",
            # tcp_cubic.c takes its minimum RTT (delay_min) from timestamp
            # echoes only; without them it aims at W(t) instead of
            # W(t + RTT). (tcp_hybla's rho comes from the SRTT, which the
            # echoes sample on every ACK; its lowest, the SYN's, is the
            # same either way.) The option's 10 bytes are left off the
            # wire, as satcc sends no options.
            f"{LINUX_AGENT} set timestamps_ true",
            f"{LINUX_AGENT} set ts_option_size_ 0",
        ]
    lines += sink_settings(case)
    for i, flow in enumerate(case.flows):
        lines += [
            f"set s({i}) [$ns node]; set d({i}) [$ns node]",
            f"$ns duplex-link $s({i}) $r1 {_rate(ACCESS_RATE_BPS)} "
            f"{_seconds(flow.access_delay_s)}s DropTail",
            f"$ns duplex-link $r2 $d({i}) {_rate(ACCESS_RATE_BPS)} 0s DropTail",
            f"$ns queue-limit $s({i}) $r1 {ACCESS_QUEUE_PACKETS}",
            f"$ns queue-limit $r1 $s({i}) {ACCESS_QUEUE_PACKETS}",
            f"$ns queue-limit $r2 $d({i}) {ACCESS_QUEUE_PACKETS}",
            f"$ns queue-limit $d({i}) $r2 {ACCESS_QUEUE_PACKETS}",
            f"set tcp({i}) [new {agent}]",
            *_select_ca(case, i),
            f"set sink({i}) [new {sink}]",
            f"$ns attach-agent $s({i}) $tcp({i}); $ns attach-agent $d({i}) $sink({i})",
            f"$ns connect $tcp({i}) $sink({i})",
            f"set ftp({i}) [new Application/FTP]; $ftp({i}) attach-agent $tcp({i})",
            f'$ns at {_seconds(flow.start_s)} "$ftp({i}) start"',
        ]
    lines += _shared_losses(case, seed)
    n = len(case.flows)
    lines += [
        "proc counters {i} {",
        "  global tcp sink",
        '  return "bytes=[$sink($i) set bytes_] ndatapack=[$tcp($i) set ndatapack_]'
        ' nrexmitpack=[$tcp($i) set nrexmitpack_] nrexmit=[$tcp($i) set nrexmit_]"',
        "}",
        "proc snap {} {",
        f"  global warm; for {{set i 0}} {{$i < {n}}} {{incr i}} {{ set warm($i) [counters $i] }}",
        "}",
        "proc finish {} {",
        "  global warm",
        f"  for {{set i 0}} {{$i < {n}}} {{incr i}} {{",
        '    puts "flow $i warm $warm($i)"',
        '    puts "flow $i end [counters $i]"',
        "  }",
        "  exit 0",
        "}",
        f'$ns at {_seconds(case.warmup_s)} "snap"',
        f'$ns at {_seconds(case.duration_s)} "finish"',
        "$ns run",
    ]
    return "\n".join(lines) + "\n"


def _select_ca(case: Case, i: int) -> list[str]:
    """Flow `i`'s Linux module and its parameter (set_ca_param sets it for
    that sender alone); nothing for the Reno family."""
    if case.congestion_control == "cubic":
        param = f"cubic beta {case.cubic_beta}"
    elif case.congestion_control == "hybla":
        param = f"hybla rtt0 {case.hybla_rtt0_ms}"
    else:
        return []
    return [
        f"$tcp({i}) select_ca {case.congestion_control}",
        f"$tcp({i}) set_ca_param {param}",
    ]


def _shared_losses(case: Case, seed: int) -> list[str]:
    """An ErrorModel/List per flow, on the link that carries its data alone
    (the bottleneck for one flow, its access link for several), losing the
    packets of `case.loss_lists(seed)`; none where a flow's list is empty
    (ns-2's ListErrorModel warns on every packet when its list is)."""
    lines = []
    for i, lost in enumerate(case.loss_lists(seed)):
        if not lost:
            continue
        src, dst = (f"$s({i})", "$r1") if case.loss_links_per_flow else ("$r1", "$r2")
        lines += [
            f"set em({i}) [new ErrorModel/List]",
            f"$em({i}) unit pkt",
            # Counts from 0: satcc's packet n is ns-2's n - 1 (loss_pattern.py).
            f"$em({i}) droplist {loss_pattern.ns2_droplist(lost)}",
            f"$em({i}) drop-target [new Agent/Null]",
            f"$ns link-lossmodel $em({i}) {src} {dst}",
        ]
    return lines


_FLOW_LINE = re.compile(r"^flow (\d+) (warm|end) (.*)$")
COUNTERS = ("bytes", "ndatapack", "nrexmitpack", "nrexmit")


def parse_output(text: str, case: Case) -> dict[str, float]:
    """The per-flow figures the script printed, each over the measured
    window (from the end of the warm-up to the end of the run):
    `flow.<i>.goodput_bps` (payload delivered in order, bit/s),
    `flow.<i>.segments_sent` (data packets sent, retransmissions included),
    `flow.<i>.retransmissions` and `flow.<i>.timeouts`. Raises ValueError
    when a flow's figures are missing."""
    seen: dict[tuple[int, str], dict[str, float]] = {}
    for line in text.splitlines():
        m = _FLOW_LINE.match(line.strip())
        if m:
            values = dict(kv.split("=", 1) for kv in m.group(3).split())
            seen[(int(m.group(1)), m.group(2))] = {k: float(values[k]) for k in COUNTERS}
    missing = [
        i for i in range(len(case.flows)) if (i, "warm") not in seen or (i, "end") not in seen
    ]
    if missing:
        raise ValueError(f"ns-2 printed no figures for flow(s) {missing}: {text[-500:]!r}")
    out: dict[str, float] = {}
    for i in range(len(case.flows)):
        warm, end = seen[(i, "warm")], seen[(i, "end")]
        delta = {k: end[k] - warm[k] for k in COUNTERS}
        payload = delta["bytes"] / case.packet_bytes * case.mss
        out[f"flow.{i}.goodput_bps"] = payload * 8 / case.measured_s
        out[f"flow.{i}.segments_sent"] = delta["ndatapack"]
        out[f"flow.{i}.retransmissions"] = delta["nrexmitpack"]
        out[f"flow.{i}.timeouts"] = delta["nrexmit"]
    return out


def find_ns() -> str | None:
    """The path of ns-2's `ns`, or None when it is not installed."""
    return shutil.which(NS_COMMAND)


def run_script(script: str, ns: str | None = None, timeout_s: float = 600.0) -> str:
    """Run the Tcl `script` in ns-2 (in a scratch folder) and return what
    it printed; raises if ns-2 is missing or fails."""
    ns = ns or find_ns()
    if ns is None:
        raise FileNotFoundError("ns-2 (`ns`) is not installed: apt-get install ns2")
    with tempfile.TemporaryDirectory(prefix="satcc-ns2-") as tmp:
        path = os.path.join(tmp, "case.tcl")
        with open(path, "w", encoding="utf-8") as f:
            f.write(script)
        done = subprocess.run(
            [ns, path], capture_output=True, text=True, timeout=timeout_s, cwd=tmp
        )
    if done.returncode != 0:
        raise RuntimeError(f"ns exited with {done.returncode}: {done.stderr[-500:]}")
    return done.stdout


def run(case: Case, seed: int, ns: str | None = None, timeout_s: float = 600.0) -> dict[str, Any]:
    """Run `case` with `seed` in ns-2 and return `parse_output`'s figures."""
    return parse_output(run_script(tcl_script(case, seed), ns, timeout_s), case)


def mean_or_nan(values: list[float]) -> float:
    return sum(values) / len(values) if values else math.nan
