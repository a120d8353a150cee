"""The same TFRC scenario in ns-2.35: a Tcl script, the `ns` run, its numbers.

A `TfrcCase` describes an ensemble of independent copies of one scenario in
the terms both simulators share; copy k differs from copy 0 only by k times
a small step of path delay. A single TFRC flow on a fixed path is
deterministic, but where its report timer and its send timer fall due at
the same instant (which its rates, n packets per RTT, make common) which one
runs first decides what follows, in ns-2 by the last bit of two sums of
doubles: a path 10 ns longer changes ns-2's packets sent in the first 20 s
by a few percent. The copies turn that into a spread both simulators are
compared over (docs/tfrc-crosscheck.md).

Two topologies:

- `path`: copy k is a host s_k sending to r_k over one duplex link of
  `rate_bps` and `delay_s + k * delay_step_s` each way, TFRC data one way
  and reports back; on the data direction, after the transmitter, `loss`
  (per packet, each simulator its own draws) or the same losses in both:
  `loss_every` (every n-th packet, ns-2's ErrorModel/Periodic), `loss_list`
  or `loss_pattern` (packets by number, ns-2's ErrorModel/List);
- `dumbbell`: copy k is the dumbbell of crates/core/tests/data/
  ns2_tfrc_tcp.tcl, a greedy TFRC flow and a NewReno bulk transfer sharing a
  2 Mb/s drop-tail bottleneck, the TFRC sender's access delay 1 ms +
  k * delay_step_s.

The TFRC agents run with ns-default.tcl's defaults; a media flow is fed by a
Tcl loop that hands the agent one packet every `packet_size * 8 /
media_rate_bps` seconds through `Application send` (so that `maxqueue_`,
the transmit buffer, applies, as it does to ns-2's traffic generators) and
counts them. What the script prints, per copy k:

- `flow K t T sent N` every `sample_s` seconds: data packets sent by then
  (`ndatapack_`);
- `flow K warm bytes B` at the end of the warm-up and `flow K end sent N gen
  G bytes B` at the end: packets sent, generated (media flows) and the
  bytes the TFRC sink received (its `bytes_`, headers included); in a
  dumbbell also `tcp K warm|end bytes B` (the TCP sink's `bytes_`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from satcc.studies import loss_pattern, ns2

# ns-default.tcl: Agent/TFRC headersize_ (useHeaders_ true), TFRCSink
# packetSize_.
HEADER_BYTES = 32
FEEDBACK_BYTES = 40
ACCESS_RATE_BPS = 100e6
QUEUE_PACKETS = 10_000
# The dumbbell of crates/core/tests/data/ns2_tfrc_tcp.tcl.
DUMBBELL_RATE_BPS = 2e6
DUMBBELL_DELAY_S = 0.018
DUMBBELL_ACCESS_S = 0.001
# Its TCP: NewReno with delayed ACKs and a 44-packet window, every other
# parameter as tcp-crosscheck matches them between the two simulators.
# Its receive buffer is one window, as tfrc-crosscheck's results were
# measured (tcp-crosscheck uses twice the window: docs/tcp-crosscheck.md).
DUMBBELL_TCP = ns2.Case(variant="newreno", window_packets=44, receive_buffer_packets=44)


@dataclass(frozen=True)
class TfrcCase:
    """An ensemble of `copies` of one TFRC scenario (see the module's text)."""

    topology: str = "path"  # or "dumbbell"
    copies: int = 16
    delay_step_s: float = 37e-6
    rate_bps: float = 2e6
    delay_s: float = 0.275
    packet_size: int = 1316  # ns-2's packetSize_; the wire adds HEADER_BYTES
    small_packets: bool = False  # TFRC-SP: ns-2's voip_ mode
    media_rate_bps: float | None = 256e3  # None: a greedy sender
    buffer_packets: int = 16
    media_stop_s: float | None = 20.0
    loss: float = 0.0
    loss_every: int | None = None
    # The numbers (from 1) of the data packets to lose, the same in every copy.
    loss_list: tuple[int, ...] = ()
    # Random losses fed to both simulators alike: copy k loses each of its
    # first `pattern_packets` data packets with this probability, drawn
    # from numpy's PCG64 seeded with (pattern_seed, k) (`loss_lists`).
    loss_pattern: float = 0.0
    pattern_seed: int = 1
    pattern_packets: int = 40_000
    queue_limit: int = 1000  # the dumbbell's bottleneck: ns-2's queue-limit
    duration_s: float = 40.0
    warmup_s: float = 0.0
    sample_s: float = 1.0

    def __post_init__(self) -> None:
        if self.topology not in ("path", "dumbbell"):
            raise ValueError("topology is path or dumbbell")
        if self.copies < 1:
            raise ValueError("an ensemble needs at least one copy")
        if self.media_rate_bps is None and self.media_stop_s is not None:
            raise ValueError("a greedy sender has no media to stop")
        if not 0 <= self.loss < 1:
            raise ValueError("loss must be in [0, 1)")
        if sum(map(bool, (self.loss, self.loss_every, self.loss_list, self.loss_pattern))) > 1:
            raise ValueError("give one of loss, loss_every, loss_list and loss_pattern")
        if not 0 <= self.loss_pattern < 1:
            raise ValueError("loss_pattern must be in [0, 1)")
        if not 0 <= self.warmup_s < self.duration_s:
            raise ValueError("the warm-up must end before the run does")

    @property
    def wire_bytes(self) -> int:
        return self.packet_size + HEADER_BYTES

    def delay_of(self, k: int) -> float:
        """Copy k's varied delay: the path's one way, or the dumbbell TFRC
        sender's access link."""
        base = self.delay_s if self.topology == "path" else DUMBBELL_ACCESS_S
        return base + k * self.delay_step_s

    def loss_lists(self) -> list[tuple[int, ...]]:
        """Per copy, the numbers (from 1) of the data packets it loses."""
        if self.loss_pattern:
            return [
                loss_pattern.bernoulli(
                    self.loss_pattern, self.pattern_packets, (self.pattern_seed, k)
                )
                for k in range(self.copies)
            ]
        return [self.loss_list] * self.copies

    @property
    def media_interval_s(self) -> float:
        assert self.media_rate_bps is not None
        return self.packet_size * 8 / self.media_rate_bps


def _t(x: float) -> str:
    return f"{x:.12g}"


def _tfrc_agent(case: TfrcCase, k: int) -> list[str]:
    lines = [
        f"set tf({k}) [new Agent/TFRC]",
        f"$tf({k}) set packetSize_ {case.packet_size}",
        f"set tfs({k}) [new Agent/TFRCSink]",
    ]
    if case.small_packets:
        lines.append(f"$tf({k}) set voip_ 1")
    if case.media_rate_bps is not None:
        lines += [
            f"$tf({k}) set SndrType_ 1",
            f"$tf({k}) set maxqueue_ {case.buffer_packets}",
        ]
    return lines


def _media(case: TfrcCase, k: int) -> list[str]:
    if case.media_rate_bps is None:
        return [f'$ns at 0.0 "$tf({k}) start"']
    stop = case.media_stop_s if case.media_stop_s is not None else case.duration_s
    return [
        f"set app({k}) [new Application]; $app({k}) attach-agent $tf({k}); set gen({k}) 0",
        # The i-th packet at i * interval, computed from i (no sum drifts).
        f"proc media{k} {{i}} {{",
        f"  global ns app gen; incr gen({k}); $app({k}) send {case.packet_size}",
        f"  set t [expr ($i + 1) * {_t(case.media_interval_s)}]",
        f'  if {{$t < {_t(stop)}}} {{ $ns at $t "media{k} [expr $i + 1]" }}',
        "}",
        f'$ns at 0.0 "media{k} 0"',
    ]


def _error_model(case: TfrcCase, k: int, kind: str, *settings: str) -> list[str]:
    """An ns-2 ErrorModel/`kind` in packet units on copy k's data direction."""
    return [
        f"set em({k}) [new ErrorModel/{kind}]",
        f"$em({k}) unit pkt",
        *(f"$em({k}) {setting}" for setting in settings),
        f"$em({k}) drop-target [new Agent/Null]",
        f"$ns link-lossmodel $em({k}) $s({k}) $r({k})",
    ]


def _path(case: TfrcCase, k: int, seed: int, lost: tuple[int, ...]) -> list[str]:
    lines = [
        f"set s({k}) [$ns node]; set r({k}) [$ns node]",
        f"$ns duplex-link $s({k}) $r({k}) {_t(case.rate_bps)} {_t(case.delay_of(k))}s DropTail",
        f"$ns queue-limit $s({k}) $r({k}) {QUEUE_PACKETS}",
        f"$ns queue-limit $r({k}) $s({k}) {QUEUE_PACKETS}",
    ]
    if case.loss > 0:
        lines += [
            f"set lossrng({k}) [new RNG]",
            # Replication `seed`, copy k: its own substream.
            f"for {{set i 0}} {{$i < {seed * case.copies + k}}} {{incr i}}"
            f" {{ $lossrng({k}) next-substream }}",
            f"set lossvar({k}) [new RandomVariable/Uniform]",
            f"$lossvar({k}) use-rng $lossrng({k})",
            f"set em({k}) [new ErrorModel]",
            f"$em({k}) unit pkt",
            f"$em({k}) set rate_ {case.loss!r}",
            f"$em({k}) ranvar $lossvar({k})",
            f"$em({k}) drop-target [new Agent/Null]",
            f"$ns link-lossmodel $em({k}) $s({k}) $r({k})",
        ]
    elif case.loss_every:
        # The first loss at the period's end, as satcc's loss_every.
        lines += _error_model(
            case, k, "Periodic", f"set period_ {case.loss_every}", f"set offset_ {case.loss_every}"
        )
    elif lost:
        # ErrorModel/List counts packets from 0.
        lines += _error_model(case, k, "List", f"droplist {loss_pattern.ns2_droplist(lost)}")
    lines += _tfrc_agent(case, k)
    lines += [
        f"$ns attach-agent $s({k}) $tf({k}); $ns attach-agent $r({k}) $tfs({k})",
        f"$ns connect $tf({k}) $tfs({k})",
    ]
    return lines + _media(case, k)


def _dumbbell(case: TfrcCase, k: int) -> list[str]:
    n = f"({k})"
    lines = [
        f"foreach v {{a b r1 r2 x y}} {{ set ${{v}}{n} [$ns node] }}",
        f"$ns duplex-link $a{n} $r1{n} 100Mb {_t(case.delay_of(k))}s DropTail",
        f"$ns duplex-link $b{n} $r1{n} 100Mb {_t(DUMBBELL_ACCESS_S)}s DropTail",
        f"$ns duplex-link $r1{n} $r2{n} {_t(DUMBBELL_RATE_BPS)} {_t(DUMBBELL_DELAY_S)}s DropTail",
        f"$ns queue-limit $r1{n} $r2{n} {case.queue_limit}",
        f"$ns duplex-link $r2{n} $x{n} 100Mb {_t(DUMBBELL_ACCESS_S)}s DropTail",
        f"$ns duplex-link $r2{n} $y{n} 100Mb {_t(DUMBBELL_ACCESS_S)}s DropTail",
        f"set tcp{n} [new Agent/TCP/Newreno]",
        f"set tcps{n} [new Agent/TCPSink/DelAck]",
        f"$ns attach-agent $b{n} $tcp{n}; $ns attach-agent $y{n} $tcps{n}",
        f"$ns connect $tcp{n} $tcps{n}",
        f"set ftp{n} [new Application/FTP]; $ftp{n} attach-agent $tcp{n}",
        f'$ns at 0.0 "$ftp{n} start"',
    ]
    lines += _tfrc_agent(case, k)
    lines += [
        f"$ns attach-agent $a{n} $tf{n}; $ns attach-agent $x{n} $tfs{n}",
        f"$ns connect $tf{n} $tfs{n}",
    ]
    return lines + _media(case, k)


def tcl_script(case: TfrcCase, seed: int = 1) -> str:
    """The ns-2 script of `case`; `seed` (>= 1) picks the random losses'
    substreams."""
    if seed < 1:
        raise ValueError(f"seeds are replication numbers >= 1, got {seed}")
    lines = [
        "# Generated by satcc (python/satcc/studies/ns2_tfrc.py); see docs/tfrc-crosscheck.md.",
        "set ns [new Simulator]",
        *ns2.tcp_settings(DUMBBELL_TCP),
        *ns2.sink_settings(DUMBBELL_TCP),
    ]
    lost = case.loss_lists()
    for k in range(case.copies):
        if case.topology == "dumbbell":
            lines += _dumbbell(case, k)
        else:
            lines += _path(case, k, seed, lost[k])
    dumbbell = case.topology == "dumbbell"
    media = case.media_rate_bps is not None
    lines += [
        "proc sample {} {",
        "  global ns tf",
        f"  for {{set k 0}} {{$k < {case.copies}}} {{incr k}} {{",
        '    puts "flow $k t [$ns now] sent [$tf($k) set ndatapack_]"',
        "  }",
        f'  $ns at [expr [$ns now] + {_t(case.sample_s)}] "sample"',
        "}",
        f'$ns at {_t(case.sample_s)} "sample"',
        "proc tally {when} {",
        "  global ns tf tfs gen tcp tcps",
        f"  for {{set k 0}} {{$k < {case.copies}}} {{incr k}} {{",
        '    set line "flow $k $when sent [$tf($k) set ndatapack_] bytes [$tfs($k) set bytes_]"',
        *(['    append line " gen $gen($k)"'] if media else []),
        "    puts $line",
        *(
            [
                '    puts "tcp $k $when bytes [$tcps($k) set bytes_]'
                " sent [$tcp($k) set ndatapack_] retx [$tcp($k) set nrexmitpack_]"
                ' timeouts [$tcp($k) set nrexmit_]"'
            ]
            if dumbbell
            else []
        ),
        "  }",
        "}",
        f'$ns at {_t(case.warmup_s)} "tally warm"',
        f'$ns at {_t(case.duration_s)} "tally end; exit 0"',
        "$ns run",
    ]
    return "\n".join(lines) + "\n"


_LINE = re.compile(r"^(flow|tcp) (\d+) (\S+) (.*)$")


def parse_output(text: str, case: TfrcCase) -> dict[str, Any]:
    """Per copy k: `sent_by[k]` ({time: packets sent}), and `warm[k]`,
    `end[k]` ({counter: value}); in a dumbbell `tcp_warm[k]`, `tcp_end[k]`.
    Raises ValueError when a copy's end figures are missing."""
    out: dict[str, Any] = {
        key: [{} for _ in range(case.copies)]
        for key in ("sent_by", "warm", "end", "tcp_warm", "tcp_end")
    }
    for line in text.splitlines():
        m = _LINE.match(line.strip())
        if not m:
            continue
        who, k, what, rest = m.group(1), int(m.group(2)), m.group(3), m.group(4).split()
        if k >= case.copies:
            continue
        if who == "flow" and what == "t":
            out["sent_by"][k][round(float(rest[0]), 9)] = float(rest[2])
            continue
        values = dict(zip(rest[::2], rest[1::2], strict=False))
        if who == "flow" and what in ("warm", "end"):
            out[what][k] = {key: float(v) for key, v in values.items()}
        elif who == "tcp" and what in ("warm", "end"):
            out[f"tcp_{what}"][k] = {key: float(v) for key, v in values.items()}
    missing = [k for k in range(case.copies) if not out["end"][k]]
    if missing:
        raise ValueError(f"ns-2 printed no end figures for copies {missing}: {text[-500:]!r}")
    return out


def run(case: TfrcCase, seed: int = 1, ns: str | None = None, timeout_s: float = 600.0) -> dict:
    """Run `case` in ns-2 and return `parse_output`'s figures."""
    return parse_output(ns2.run_script(tcl_script(case, seed), ns, timeout_s), case)
