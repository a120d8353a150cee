"""RED against ns-2.35's Queue/RED on the same dumbbell (docs/queues.md).

The case is a tcp-crosscheck case (ns2.Case: its senders, sinks, access
links and TCP settings, mapped to satcc by tcp_crosscheck.model) whose
bottleneck r1 -> r2 is a RED queue instead of drop-tail. Both simulators
report over the measured window (warm-up to end): the time-average of RED's
average queue (sampled every 10 ms), drops per second at the bottleneck
and its utilisation. ns-2's RED is set to packet mode (`bytes_` and
`queue_in_bytes_` false; ns-2.35's defaults are byte mode), `wait_`,
gentle and `mean_pktsize_` 500 as satcc's defaults.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from satcc.studies import ns2
from satcc.studies.ns2 import Case
from satcc.studies.tcp_crosscheck import model

SAMPLE_S = 0.01


@dataclass(frozen=True)
class Red:
    """RED's parameters, as satcc's `queue` keys."""

    limit: int = 100
    min_th: float = 15.0
    max_th: float = 45.0
    w_q: float = 0.002
    max_p: float = 0.1
    gentle: bool = True
    # ECN: RED marks ECN-capable packets (ns-2's `setbit_`) and every
    # sender is ECN-capable (ns-2's `Agent/TCP ecn_`, satcc's `ecn`).
    ecn: bool = False


def tcl_script(case: Case, red: Red, seed: int) -> str:
    """ns2.tcl_script with a RED bottleneck r1 -> r2 (DropTail r2 -> r1)
    and the RED figures printed at the end."""
    script = ns2.tcl_script(case, seed)
    rate, delay = f"{case.rate_bps:.9g}", f"{case.delay_s:.9g}s"
    duplex = f"$ns duplex-link $r1 $r2 {rate} {delay} DropTail"
    if duplex not in script:
        raise ValueError("unexpected bottleneck line in ns2.tcl_script")
    settings = [
        "Queue/RED set bytes_ false",
        "Queue/RED set queue_in_bytes_ false",
        f"Queue/RED set thresh_ {red.min_th:g}",
        f"Queue/RED set maxthresh_ {red.max_th:g}",
        f"Queue/RED set q_weight_ {red.w_q:g}",
        f"Queue/RED set linterm_ {1 / red.max_p:g}",
        f"Queue/RED set gentle_ {'true' if red.gentle else 'false'}",
        f"Queue/RED set setbit_ {'true' if red.ecn else 'false'}",
        "Queue/RED set wait_ true",
        "Queue/RED set mean_pktsize_ 500",
        f"$ns simplex-link $r1 $r2 {rate} {delay} RED",
        f"$ns simplex-link $r2 $r1 {rate} {delay} DropTail",
    ]
    if red.ecn:
        settings.append("Agent/TCP set ecn_ 1")
    script = script.replace(duplex, "\n".join(settings))
    script = script.replace(
        f"$ns queue-limit $r1 $r2 {case.queue_limit}", f"$ns queue-limit $r1 $r2 {red.limit}"
    )
    end = case.duration_s - 1e-6
    procs = [
        "set redq [[$ns link $r1 $r2] queue]",
        "set qmon [$ns monitor-queue $r1 $r2 [open /dev/null w]]",
        "set avesum 0.0; set nsamp 0",
        "proc redsample {} {",
        "  global ns redq avesum nsamp",
        "  set avesum [expr {$avesum + [$redq set ave_]}]; incr nsamp",
        f'  $ns at [expr {{[$ns now] + {SAMPLE_S}}}] "redsample"',
        "}",
        "proc redsnap {} {",
        "  global qmon d0 b0",
        "  set d0 [$qmon set pdrops_]; set b0 [$qmon set bdepartures_]",
        "}",
        "proc redend {} {",
        "  global qmon d0 b0 avesum nsamp",
        "  set d [expr {[$qmon set pdrops_] - $d0}]",
        "  set b [expr {[$qmon set bdepartures_] - $b0}]",
        '  puts "red ave=[expr {$avesum / $nsamp}] drops=$d bytes=$b"',
        "}",
        f'$ns at {case.warmup_s:.9g} "redsnap; redsample"',
        f'$ns at {end:.9g} "redend"',
    ]
    return script.replace("$ns run\n", "\n".join(procs) + "\n$ns run\n")


_RED_LINE = re.compile(r"^red ave=(\S+) drops=(\S+) bytes=(\S+)$", re.M)


def parse(text: str, case: Case) -> dict[str, float]:
    """ns-2's figures: avg queue (packets), drops/s, utilisation."""
    m = _RED_LINE.search(text)
    if not m:
        raise ValueError(f"ns-2 printed no RED figures: {text[-500:]!r}")
    ave, drops, sent = (float(x) for x in m.groups())
    return {
        "avg_queue": ave,
        "drops_per_s": drops / case.measured_s,
        "utilisation": sent * 8 / (case.rate_bps * case.measured_s),
    }


def scenario(case: Case, red: Red) -> dict:
    """The satcc scenario of the case with the RED bottleneck and the
    probes the comparison reads."""
    s = model.scenario(case, name="red-crosscheck")
    s["links"]["bn"]["queue"] = {
        "type": "red",
        "limit": f"{red.limit} packets",
        "min_th": red.min_th,
        "max_th": red.max_th,
        "w_q": red.w_q,
        "max_p": red.max_p,
        "gentle": red.gentle,
        "ecn": red.ecn,
    }
    for tcp in s["tcp"].values():
        tcp["ecn"] = red.ecn
    s["run"]["sample_interval"] = f"{SAMPLE_S} s"
    s["probes"] = {
        "avg": {"link": "bn", "metric": "red_avg"},
        "drops": {"link": "bn", "metric": "drops"},
        "tput": {"link": "bn", "metric": "throughput_bps"},
    }
    return s


def satcc_figures(result, case: Case) -> dict[str, float]:
    """satcc's figures over the measured window, from the probes."""

    def after(name: str) -> list[float]:
        frame = result.series(name)
        return frame["value"][frame["time_s"] > case.warmup_s].tolist()

    avg = after("avg")
    drops = after("drops")
    tput = after("tput")
    return {
        "avg_queue": sum(avg) / len(avg),
        "drops_per_s": (drops[-1] - drops[0]) / case.measured_s,
        "utilisation": sum(tput) / len(tput) / case.rate_bps,
    }
