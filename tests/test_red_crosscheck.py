"""RED against ns-2.35's Queue/RED on the same dumbbells (10 SACK flows,
10 Mb/s bottleneck, RED 15/45 of 100 packets, w_q 0.002, max_p 0.1,
gentle): the time-average of the average queue, drops per second and
utilisation over the measured window agree within the stated tolerances
(docs/queues.md gives the numbers). The parts that run ns-2 skip, saying
so, where `ns` is not installed (scripts/ensure-ns2.sh installs it)."""

from __future__ import annotations

import math

import pytest
import satcc
from satcc.studies import ns2, red_crosscheck
from satcc.studies.ns2 import Case, Flow

NO_NS2 = "ns-2 (`ns`, Debian package ns2) is not installed: bash scripts/ensure-ns2.sh"
needs_ns2 = pytest.mark.skipif(ns2.find_ns() is None, reason=NO_NS2)


def case(delay_s: float, duration_s: float, warmup_s: float) -> Case:
    return Case(
        variant="sack",
        rate_bps=10e6,
        delay_s=delay_s,
        queue_limit=100,
        min_rto_s=0.2,
        duration_s=duration_s,
        warmup_s=warmup_s,
        flows=tuple(Flow(0.001 * (i + 1), 0.1 * i) for i in range(10)),
    )


def test_with_ecn_red_sets_the_bit_and_every_sender_is_ecn_capable():
    c = case(0.02, 100.0, 20.0)
    script = red_crosscheck.tcl_script(c, red_crosscheck.Red(ecn=True), 1)
    lines = [line.strip() for line in script.split("\n")]
    assert "Queue/RED set setbit_ true" in lines and "Agent/TCP set ecn_ 1" in lines
    # A class default reaches only the agents created after it.
    assert script.index("Agent/TCP set ecn_ 1") < script.index("new Agent/TCP")
    s = red_crosscheck.scenario(c, red_crosscheck.Red(ecn=True))
    assert s["links"]["bn"]["queue"]["ecn"] and all(t["ecn"] for t in s["tcp"].values())


def test_the_script_sets_red_in_packet_mode_on_the_bottleneck_only():
    c = case(0.02, 100.0, 20.0)
    lines = [
        line.strip() for line in red_crosscheck.tcl_script(c, red_crosscheck.Red(), 1).split("\n")
    ]
    for expected in (
        "Queue/RED set bytes_ false",
        "Queue/RED set queue_in_bytes_ false",
        "Queue/RED set thresh_ 15",
        "Queue/RED set maxthresh_ 45",
        "Queue/RED set q_weight_ 0.002",
        "Queue/RED set linterm_ 10",
        "Queue/RED set gentle_ true",
        "$ns simplex-link $r1 $r2 10000000 0.02s RED",
        "$ns simplex-link $r2 $r1 10000000 0.02s DropTail",
        "$ns queue-limit $r1 $r2 100",
    ):
        assert expected in lines, expected
    assert not any(line.startswith("$ns duplex-link $r1 $r2") for line in lines)


# (one-way bottleneck delay, duration, warm-up), tolerances (relative) of
# the average queue, drops per second, utilisation. GEO drops are few
# (about 100 in the window), so their count carries ~10 % Poisson noise.
# With ECN (RED's `setbit_`, every sender ECN-capable) the early drops
# become marks: both simulators drop nothing in the window (absolute).
CASES = {
    "terrestrial 20 ms": ((0.02, 100.0, 20.0), False, (0.10, 0.10, 0.02)),
    "GEO 250 ms": ((0.25, 300.0, 60.0), False, (0.10, 0.25, 0.02)),
    "terrestrial 20 ms, ECN": ((0.02, 100.0, 20.0), True, (0.10, 0.0, 0.02)),
}


@needs_ns2
@pytest.mark.parametrize("label", list(CASES))
def test_red_agrees_with_ns2(label):
    (delay, duration, warmup), ecn, tolerances = CASES[label]
    c = case(delay, duration, warmup)
    red = red_crosscheck.Red(ecn=ecn)
    theirs = red_crosscheck.parse(ns2.run_script(red_crosscheck.tcl_script(c, red, 1)), c)
    result = satcc.run(red_crosscheck.scenario(c, red))
    ours = red_crosscheck.satcc_figures(result, c)
    for key, tol in zip(("avg_queue", "drops_per_s", "utilisation"), tolerances, strict=True):
        assert math.isclose(ours[key], theirs[key], rel_tol=tol), (key, ours, theirs)
    assert (result.summary["links.bn.marks"] > 0) == ecn
