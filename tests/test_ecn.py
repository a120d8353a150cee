"""ECN (RFC 3168) from the scenario file to the core: the `ecn` keys of
[tcp.NAME] and [tfrc.NAME], their refusals, and that turning ECN on
changes nothing on a path that never marks. The behaviour under marks is
tested in the core (transport/tcp/socket/tests/ecn.rs, tcp/ecn/whole_run.rs,
tfrc/ecn_run.rs), with a marking port the scenario file cannot give."""

import satcc
import test_scenario_tfrc as tfrc
from scenario_helpers import refused
from test_scenario_tcp import assert_refused, scenario, tcp_entry
from test_tcp_validation import path


def test_tcp_ecn_reaches_the_description_only_when_on():
    assert tcp_entry(scenario(**{"tcp.bulk.ecn": True}))["ecn"] is True
    assert "ecn" not in tcp_entry(scenario())
    # A preset leaves it alone: off unless the table turns it on.
    assert "ecn" not in tcp_entry(scenario(**{"tcp.bulk.preset": "linux"}))


def test_tcp_ecn_must_be_a_bool():
    assert_refused(scenario(**{"tcp.bulk.ecn": 1}), "tcp.bulk.ecn")
    assert_refused(scenario(**{"tcp.bulk.ecn": "yes"}), "tcp.bulk.ecn")


def test_without_marks_or_losses_ecn_changes_nothing_but_adds_its_counters():
    # Lossless: no recovery, so no CWR either (a fast recovery queues one,
    # as Linux's tcp_enter_recovery does, and the receiver ACKs a CWR
    # segment at once, which moves the ACK clock).
    def run(ecn: bool) -> dict:
        sc = path("10 Mbps", "50 ms", {"ecn": ecn, "send_buffer": "256 KiB"}, duration="20 s")
        return satcc.run(sc, seed=5).summary

    off, on = run(False), run(True)
    assert on["tcp.t.ce_marks_received"] == 0 and on["tcp.t.ecn_reductions"] == 0
    assert "tcp.t.ce_marks_received" not in off
    for k, v in off.items():
        if k.startswith(("tcp.", "flows.", "links.")):
            assert on[k] == v, k
    assert off["tcp.t.delivered_bytes"] > 10**6


def test_tfrc_ecn_reaches_the_description_and_is_refused_under_ns2():
    (flow,) = tfrc.scenario(**{"tfrc.v.ecn": True}).validate()["tfrc"]
    assert flow["ecn"] is True
    (flow,) = tfrc.scenario().validate()["tfrc"]
    assert "ecn" not in flow
    error = refused(tfrc.scenario(**{"tfrc.v.ecn": True, "tfrc.v.profile": "ns2"}))
    assert error.path == "tfrc.v.ecn" and "RFC profiles" in str(error), str(error)


def test_tfrc_ecn_without_marks_reports_none():
    s = satcc.run(tfrc.scenario(**{"tfrc.v.ecn": True})).summary
    assert s["tfrc.v.packets_marked"] == 0 and s["tfrc.v.packets_received"] > 0


def test_ecn_beta_needs_ecn_and_a_window_controller():
    entry = tcp_entry(scenario(**{"tcp.bulk.ecn": True, "tcp.bulk.ecn_beta": 0.8}))
    assert entry["ecn_beta"] == 0.8
    assert "ecn_beta" not in tcp_entry(scenario(**{"tcp.bulk.ecn": True}))
    assert_refused(scenario(**{"tcp.bulk.ecn_beta": 0.8}), "tcp.bulk.ecn_beta", "ecn = true")
    for bad in (0, 1.5, -0.2):
        assert_refused(
            scenario(**{"tcp.bulk.ecn": True, "tcp.bulk.ecn_beta": bad}), "tcp.bulk.ecn_beta"
        )
    assert_refused(
        scenario(
            **{
                "tcp.bulk.ecn": True,
                "tcp.bulk.ecn_beta": 0.8,
                "tcp.bulk.congestion_control": "bbr",
            }
        ),
        "tcp.bulk.ecn_beta",
        "ignores ECE",
    )


_RED_DUMBBELL = """
[run]
name = "red_ecn"
duration = "30 s"
seed = 1

[nodes.a]
type = "host"
[nodes.b]
type = "host"
[nodes.r1]
[nodes.r2]

[links.acc]
from = "a"
to = "r1"
rate = "100 Mbps"
delay = "1 ms"
duplex = true

[links.bn]
from = "r1"
to = "r2"
rate = "10 Mbps"
delay = "20 ms"
duplex = true
queue = {{ type = "red", limit = "100 packets", min_th = 15, max_th = 45, ecn = true }}

[links.egr]
from = "r2"
to = "b"
rate = "100 Mbps"
delay = "1 ms"
duplex = true

[tcp.f1]
from = "a"
to = "b"
variant = "sack"
ecn = {ecn}
app = {{ type = "bulk" }}

[tcp.f2]
from = "a"
to = "b"
variant = "sack"
ecn = {ecn}
start = "1 s"
app = {{ type = "bulk" }}
"""


def test_red_marks_what_tcp_sends_ect_and_drops_what_it_does_not(tmp_path):
    # The two halves built apart meet here: a RED queue with ecn = true
    # marks ECT(0) segments instead of dropping them, and TCP answers each
    # marked window with one reduction and no retransmission; the same
    # queue drops the segments of a TCP without ECN.
    def run(ecn: bool) -> dict:
        f = tmp_path / f"red_{ecn}.toml"
        f.write_text(_RED_DUMBBELL.format(ecn=str(ecn).lower()))
        return satcc.run(f).summary

    on, off = run(True), run(False)
    assert on["links.bn.marks"] > 10
    assert on["links.bn.drops_early"] == 0 and on["links.bn.drops_overflow"] == 0
    assert on["tcp.f1.retransmissions"] == 0 and on["tcp.f2.retransmissions"] == 0
    assert on["tcp.f1.ecn_reductions"] + on["tcp.f2.ecn_reductions"] > 10
    assert off["links.bn.marks"] == 0
    assert off["links.bn.drops_early"] > 10
    assert off["tcp.f1.retransmissions"] + off["tcp.f2.retransmissions"] > 10
    for s in (on, off):
        assert s["links.bn.utilisation"] > 0.9
