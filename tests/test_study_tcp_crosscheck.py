"""The tcp-crosscheck study: the ns-2 script and its parsing (pure
functions), the satcc scenario built from the same case, and a quick
reproduction. The parts that run ns-2 skip, saying so, where `ns` is not
installed (scripts/ensure-ns2.sh installs it for `make test`)."""

from __future__ import annotations

import dataclasses
import math
import re
import subprocess

import pandas as pd
import pytest
import satcc
from rich.console import Console
from satcc import studies
from satcc.studies import compare, loss_pattern, ns2, tcp_crosscheck
from satcc.studies.ns2 import Case, Flow
from satcc.studies.spec import Study
from satcc.studies.tcp_crosscheck import claims, model, response
from satcc.studies.tcp_crosscheck import table as terminal_table

NO_NS2 = "ns-2 (`ns`, Debian package ns2) is not installed: bash scripts/ensure-ns2.sh"
needs_ns2 = pytest.mark.skipif(ns2.find_ns() is None, reason=NO_NS2)


def test_registered():
    assert studies.get("tcp-crosscheck") is tcp_crosscheck.STUDY


def _lines(script: str) -> list[str]:
    return [line.strip() for line in script.splitlines()]


def test_tcl_script_sets_every_matched_parameter():
    case = Case(
        variant="sack",
        loss=1e-3,
        queue_limit=30,
        window_packets=64,
        initial_window=2,
        delayed_ack=True,
        limited_transmit=False,
        min_rto_s=0.2,
        tick_s=0.001,
        duration_s=100.0,
        warmup_s=20.0,
        flows=(Flow(0.001), Flow(0.05, 1.5)),
    )
    lines = _lines(ns2.tcl_script(case, 7))
    for expected in (
        "$ns duplex-link $r1 $r2 2000000 0.274s DropTail",
        "$ns queue-limit $r1 $r2 30",
        "Agent/TCP set packetSize_ 1460",
        "Agent/TCP set window_ 64",
        "Agent/TCP set windowInit_ 2",
        "Agent/TCP set singledup_ 0",
        "Agent/TCP set minrto_ 0.2",
        "Agent/TCP set tcpTick_ 0.001",
        "Agent/TCP set rtxcur_init_ 3",
        "Agent/TCP set maxburst_ 0",
        "Agent/TCPSink set packetSize_ 40",
        "Agent/TCPSink/Sack1/DelAck set interval_ 0.1",
        "set tcp(1) [new Agent/TCP/Sack1]",
        "set sink(1) [new Agent/TCPSink/Sack1/DelAck]",
        "$ns duplex-link $s(1) $r1 100000000 0.05s DropTail",
        '$ns at 1.5 "$ftp(1) start"',
        "$em set rate_ 0.001",
        "$ns link-lossmodel $em $r1 $r2",
        "for {set i 0} {$i < 7} {incr i} { $lossrng next-substream }",
        '$ns at 20 "snap"',
        '$ns at 100 "finish"',
    ):
        assert expected in lines, expected


def test_tcl_script_variants_sinks_and_no_loss():
    for variant, agent in (("reno", "Reno"), ("newreno", "Newreno")):
        lines = _lines(ns2.tcl_script(Case(variant=variant, delayed_ack=False), 1))
        assert f"set tcp(0) [new Agent/TCP/{agent}]" in lines
        assert "set sink(0) [new Agent/TCPSink]" in lines
        assert "Agent/TCP set singledup_ 1" in lines
        assert not any("ErrorModel" in line for line in lines)
    with pytest.raises(ValueError, match="replication"):
        ns2.tcl_script(Case(), 0)


def test_tcl_script_runs_cubic_in_the_linux_sender():
    case = Case(variant="sack", congestion_control="cubic", cubic_beta=717, min_rto_s=1.0)
    lines = _lines(ns2.tcl_script(case, 1))
    for expected in (
        "set tcp(0) [new Agent/TCP/Linux]",
        "$tcp(0) select_ca cubic",
        "$tcp(0) set_ca_param cubic beta 717",
        "set sink(0) [new Agent/TCPSink/Sack1/DelAck]",
        # Agent/TCP/Linux's own defaults (minrto_ 0.2, maxrto_ 120,
        # delay_growth_ false) are overridden with the matched values.
        "Agent/TCP/Linux set minrto_ 1",
        "Agent/TCP/Linux set maxrto_ 60",
        "Agent/TCP/Linux set rtxcur_init_ 3",
        "Agent/TCP/Linux set delay_growth_ true",
        "Agent/TCP/Linux set timestamps_ true",
        "Agent/TCP/Linux set ts_option_size_ 0",
    ):
        assert expected in lines, expected
    # The ACK-per-packet SACK sink without delayed ACKs.
    plain = _lines(ns2.tcl_script(dataclasses.replace(case, delayed_ack=False), 1))
    assert "set sink(0) [new Agent/TCPSink/Sack1]" in plain
    # Reno-family cases keep their agents and never select a module.
    reno = ns2.tcl_script(Case(variant="sack"), 1)
    assert "Agent/TCP/Linux" not in reno and "select_ca" not in reno


def test_tcl_script_runs_hybla_in_the_linux_sender():
    case = Case(variant="sack", congestion_control="hybla", hybla_rtt0_ms=25, delayed_ack=False)
    lines = _lines(ns2.tcl_script(case, 1))
    for expected in (
        "set tcp(0) [new Agent/TCP/Linux]",
        "$tcp(0) select_ca hybla",
        # Per sender (ns-2's LinuxParamManager keeps it local to the agent).
        "$tcp(0) set_ca_param hybla rtt0 25",
        "set sink(0) [new Agent/TCPSink/Sack1]",
        # The Linux sender's settings, as CUBIC's.
        "Agent/TCP/Linux set minrto_ 1",
        "Agent/TCP/Linux set maxrto_ 60",
        "Agent/TCP/Linux set rtxcur_init_ 3",
        "Agent/TCP/Linux set delay_growth_ true",
        "Agent/TCP/Linux set timestamps_ true",
        "Agent/TCP/Linux set ts_option_size_ 0",
        "Agent/TCP set tcpTick_ 0.001",
    ):
        assert expected in lines, expected
    assert not any("cubic" in line for line in lines)
    other = _lines(ns2.tcl_script(dataclasses.replace(case, hybla_rtt0_ms=50), 1))
    assert "$tcp(0) set_ca_param hybla rtt0 50" in other


def test_parse_output_counts_payload_over_the_measured_window():
    case = Case(mss=1460, duration_s=110.0, warmup_s=10.0, flows=(Flow(0.0), Flow(0.0)))
    # bytes_ counts whole packets (1500 B on the wire) and the 40-byte SYN.
    text = (
        "some ns-2 chatter\n"
        "flow 0 warm bytes=40 ndatapack=11 nrexmitpack=1 nrexmit=1\n"
        "flow 0 end bytes=1500040 ndatapack=1011 nrexmitpack=4 nrexmit=2\n"
        "flow 1 warm bytes=150040 ndatapack=101 nrexmitpack=0 nrexmit=0\n"
        "flow 1 end bytes=300040 ndatapack=201 nrexmitpack=0 nrexmit=0\n"
    )
    out = ns2.parse_output(text, case)
    assert out["flow.0.goodput_bps"] == pytest.approx(1000 * 1460 * 8 / 100.0)
    assert out["flow.1.goodput_bps"] == pytest.approx(100 * 1460 * 8 / 100.0)
    assert out["flow.0.segments_sent"] == 1000
    assert out["flow.0.retransmissions"] == 3
    assert out["flow.0.timeouts"] == 1
    with pytest.raises(ValueError, match=r"flow\(s\) \[1\]"):
        ns2.parse_output("\n".join(text.splitlines()[:4]), case)


def test_case_rejects_what_ns2_cannot_express():
    with pytest.raises(ValueError):
        Case(variant="cubic")
    with pytest.raises(ValueError):
        Case(queue_limit=1)
    with pytest.raises(ValueError):
        Case(warmup_s=400.0, duration_s=300.0)
    # CUBIC runs in ns-2's Linux sender: SACK recovery, a 1 ms tick.
    with pytest.raises(ValueError, match="SACK"):
        Case(variant="newreno", congestion_control="cubic")
    with pytest.raises(ValueError, match="tick"):
        Case(variant="sack", congestion_control="cubic", tick_s=0.01)
    with pytest.raises(ValueError, match="BBR"):
        Case(variant="sack", congestion_control="bbr")
    with pytest.raises(ValueError):
        Case(variant="sack", congestion_control="cubic", cubic_beta=1024)
    # Hybla too: the Linux sender, so SACK and the 1 ms tick; rtt0 is an
    # int module parameter in ms.
    with pytest.raises(ValueError, match="Hybla.*SACK"):
        Case(variant="reno", congestion_control="hybla")
    with pytest.raises(ValueError, match="tick"):
        Case(variant="sack", congestion_control="hybla", tick_s=0.01)
    for rtt0 in (0, 2.5):
        with pytest.raises(ValueError, match="hybla_rtt0_ms"):
            Case(variant="sack", congestion_control="hybla", hybla_rtt0_ms=rtt0)
    with pytest.raises(ValueError, match="one of"):
        Case(variant="sack", congestion_control="vegas")


def test_satcc_scenario_matches_the_case():
    case = Case(loss=1e-2, queue_limit=30, window_packets=64, delayed_ack=False, min_rto_s=0.2)
    desc = satcc.Scenario.from_dict(model.scenario(case)).validate()
    links = {link["name"]: link for link in desc["links"]}
    # ns-2's queue-limit 30 is 29 waiting and one in transmission.
    assert links["bn"]["queue"]["limit"] == {"packets": 29}
    assert links["bn"]["loss"] == 0.01 and links["bn_back"]["loss"] == 0
    assert links["bn"]["capacity"]["rate_bps"] == 2e6
    (tcp,) = desc["tcp"]
    # The window limits the sender, as ns-2's window_; the receive buffer
    # never does (ns-2's sinks hold any out-of-order data).
    assert tcp["send_buffer_bytes"] == 64 * 1460
    assert tcp["receive_buffer_bytes"] == 2 * 64 * 1460
    assert tcp["initial_ssthresh_bytes"] == 64 * 1460
    assert tcp["abc_limit_segments"] == 1
    assert tcp["initial_window_segments"] == 2
    assert tcp["delayed_ack"] is False and tcp["limited_transmit"] is True
    assert tcp["delayed_ack_ps"] == 100_000_000_000
    one_way = (links["in0"]["delay_ps"] + links["bn"]["delay_ps"]) * 1e-12
    assert case.rtt_s() == pytest.approx(2 * one_way, abs=0.01)


def test_a_loss_pattern_is_bernoulli_over_packet_numbers_from_one():
    lost = loss_pattern.bernoulli(0.01, 200_000, (3, 0))
    assert lost == loss_pattern.bernoulli(0.01, 200_000, (3, 0))
    assert lost != loss_pattern.bernoulli(0.01, 200_000, (3, 1))
    assert 1 <= lost[0] and lost[-1] <= 200_000 and list(lost) == sorted(set(lost))
    assert len(lost) == pytest.approx(2000, abs=4 * math.sqrt(2000))
    assert loss_pattern.bernoulli(0.0, 1000, (1,)) == ()
    with pytest.raises(ValueError):
        loss_pattern.bernoulli(1.0, 10, (1,))
    # ns-2's ErrorModel/List counts from 0 and refuses repeats.
    assert loss_pattern.ns2_droplist((7, 1, 3)) == "{0 2 6}"
    with pytest.raises(ValueError, match="once"):
        loss_pattern.ns2_droplist((3, 3))


def test_shared_losses_are_drawn_per_seed_and_flow_over_the_reachable_packets():
    one = Case(rate_bps=10e6, loss=1e-2, shared_losses=True, duration_s=60.0, warmup_s=10.0)
    (lost,) = one.loss_lists(1)
    # 10 Mb/s for 60 s in 1500-byte packets, and the SYNs.
    assert one.reachable_packets() == 50_000 + ns2.SYN_MARGIN
    assert lost[-1] <= one.reachable_packets()
    assert len(lost) == pytest.approx(500, abs=4 * math.sqrt(500))
    assert one.loss_lists(2) != one.loss_lists(1)
    assert Case(loss=1e-2).loss_lists(1) == ((),)
    several = dataclasses.replace(one, flows=(Flow(0.001), Flow(0.05)))
    first, second = several.loss_lists(1)
    assert first != second
    # Each flow's own access link, at 100 Mb/s.
    assert several.reachable_packets() == 500_000 + ns2.SYN_MARGIN


def test_shared_losses_sit_where_one_flows_data_alone_crosses(monkeypatch):
    lists = {1: ((5, 9),), 2: ((4,), (6, 8))}
    monkeypatch.setattr(ns2, "_loss_lists", lambda case, seed: lists[len(case.flows)])
    one = Case(loss=1e-2, shared_losses=True, duration_s=60.0, warmup_s=10.0)
    lines = _lines(ns2.tcl_script(one, 1))
    for expected in (
        "set em(0) [new ErrorModel/List]",
        "$em(0) droplist {4 8}",
        "$ns link-lossmodel $em(0) $r1 $r2",
    ):
        assert expected in lines, expected
    assert not any("rate_" in line for line in lines)
    desc = satcc.Scenario.from_dict(model.scenario(one, seed=1)).validate()
    links = {link["name"]: link for link in desc["links"]}
    assert links["bn"]["loss_list"] == [5, 9] and links["bn"]["loss"] == 0
    assert not links["bn_back"].get("loss_list")
    with pytest.raises(ValueError, match="seed"):
        model.scenario(one)
    two = dataclasses.replace(one, flows=(Flow(0.001), Flow(0.05)))
    lines = _lines(ns2.tcl_script(two, 1))
    assert "$ns link-lossmodel $em(1) $s(1) $r1" in lines
    assert "$em(1) droplist {5 7}" in lines
    desc = satcc.Scenario.from_dict(model.scenario(two, seed=1)).validate()
    links = {link["name"]: link for link in desc["links"]}
    assert links["in1"]["loss_list"] == [6, 8]
    # The ACKs' direction keeps its delay and loses nothing.
    assert links["in1_rev"]["delay_ps"] == links["in1"]["delay_ps"]
    assert not links["in1_rev"].get("loss_list") and not links["bn"].get("loss_list")


def test_a_case_with_shared_losses_has_a_run_per_seed_under_one_label():
    label = "loss 1e-3 newreno delack LT minRTO 1s"
    specs = [s for s in model.runs(True) if s.label == label]
    assert [s.seeds for s in specs] == [(1,), (2,), (3,)]
    assert all(s.params == specs[0].params for s in specs)
    assert specs[0].params["shared_losses"] and specs[0].params["seeds"] == [1, 2, 3]
    lists = [s.scenario["links"]["bn"]["loss_list"] for s in specs]
    assert lists[0] != lists[1] != lists[2]
    (window,) = [s for s in model.runs(True) if s.label == "GEO window-limited W=32"]
    assert window.seeds == (1,) and not window.params["shared_losses"]


def test_satcc_scenario_of_a_cubic_case():
    case = model.BY_LABEL["loss 1e-3 cubic delack"].case
    desc = satcc.Scenario.from_dict(model.scenario(case, seed=1)).validate()
    (tcp,) = desc["tcp"]
    assert tcp["variant"] == "sack"
    assert tcp["congestion_control"] == "cubic"
    assert not tcp.get("hystart", False)  # ns-2.35's CUBIC 2.1 has no HyStart
    assert tcp["delayed_ack"] is True and tcp["abc_limit_segments"] == 1
    # The Reno-family scenarios do not name a controller (the default, reno).
    reno = model.scenario(model.BY_LABEL["GEO buffer-limited sack"].case)
    assert "congestion_control" not in reno["tcp"]["f0"]


def test_hybla_rho_is_set_from_the_syns_rtt_in_eighths():
    geo = model.BY_LABEL["GEO buffer-limited hybla"].case
    # 2 x 275 ms and a 40-byte PDU each way: 550.33 ms, 8 x 550.33 / 25 = 176.1.
    assert geo.syn_rtt_s() == pytest.approx(0.55033, abs=1e-5)
    assert geo.hybla_rho8() == 176  # rho = 22
    short = model.BY_LABEL["loss 3e-3 hybla delack RTT 41 ms"].case
    assert short.hybla_rho8() == 12  # 40.08 ms: 12.8 eighths, rho = 1.5
    for point in model.POINTS:
        case = point.case
        if case.congestion_control != "hybla":
            continue
        # ns-2: SRTT in 1/8 of its 1 ms tick from a sample rounded to the tick.
        srtt8 = 8 * round(case.syn_rtt_s() / ns2.LINUX_TICK_S)
        assert max(srtt8 // case.hybla_rtt0_ms, 8) == case.hybla_rho8(), point.label
        # hybla_init's initial window, in both.
        assert case.initial_window == case.hybla_rho8() // 8
    assert Case(delay_s=0.001, flows=(Flow(0.0),)).hybla_rho8() == 8  # at least 1


def test_satcc_scenario_of_a_hybla_case():
    case = model.BY_LABEL["loss 1e-3 hybla delack"].case
    desc = satcc.Scenario.from_dict(model.scenario(case, seed=1)).validate()
    (tcp,) = desc["tcp"]
    assert tcp["variant"] == "sack" and tcp["congestion_control"] == "hybla"
    assert tcp["hybla_rtt0_ps"] == 25 * 10**9
    assert not tcp.get("hystart", False)
    assert tcp["initial_window_segments"] == 22
    # ns-2's window_ (1000) is its initial ssthresh only: hybla_init sets
    # the cwnd clamp to 65535 packets, which is then the flight's limit.
    assert tcp["initial_ssthresh_bytes"] == 1000 * 1460
    assert tcp["send_buffer_bytes"] == ns2.HYBLA_CWND_CLAMP * 1460
    assert tcp["receive_buffer_bytes"] == 2 * ns2.HYBLA_CWND_CLAMP * 1460
    # tcp_hybla's ssthresh is tcp_reno_ssthresh: half of cwnd.
    assert tcp["ssthresh_from"] == "cwnd"
    cubic = model.scenario(model.BY_LABEL["loss 1e-3 cubic delack"].case, seed=1)
    assert "hybla_rtt0" not in cubic["tcp"]["f0"] and "ssthresh_from" not in cubic["tcp"]["f0"]
    assert cubic["tcp"]["f0"]["send_buffer"] == f"{1000 * 1460} B"


def test_quick_mode_runs_one_hybla_case():
    def hybla(quick):
        return [s for s in model.runs(quick) if s.params.get("congestion_control") == "hybla"]

    quick, full = hybla(True), hybla(False)
    assert [s.label for s in quick] == ["GEO buffer-limited hybla"]
    assert quick[0].params["loss"] == 0 and quick[0].params["duration_s"] <= 200
    assert sorted({s.params["loss"] for s in full}) == [0.0, 1e-3, 3e-3]
    assert all(s.params["hybla_rtt0_ms"] == 25 for s in full)
    assert {s.params["ns2_hybla_rho"] for s in full} == {22.0, 1.5}
    assert all("ns2_cubic_beta" not in s.params for s in full)


def test_hybla_window_is_mathis_times_rho():
    # rho = 1 is Mathis et al.'s Reno, with delayed ACKs and without.
    assert response.hybla_window(1.0, 1e-2) == pytest.approx(math.sqrt(3 / 4) / 0.1)
    assert response.hybla_window(1.0, 1e-2, delayed_ack=False) == pytest.approx(
        math.sqrt(1.5) / 0.1
    )
    # rho^2 per RTT (halved by delayed ACKs), halving at a loss: the average
    # of the sawtooth W/2..W with 1/p packets per cycle, 3 W^2 / (8 a) = 1/p.
    a, p = 22.0**2 / 2, 1e-3
    peak = math.sqrt(8 * a / (3 * p))
    assert response.hybla_window(22.0, p) == pytest.approx(0.75 * peak)
    assert response.hybla_window(22.0, p) == pytest.approx(602.5, abs=0.1)
    with pytest.raises(ValueError):
        response.hybla_window(0.5, 1e-3)
    lossy = model.BY_LABEL["loss 3e-3 hybla delack RTT 41 ms"].case
    rtt = lossy.rtt_s()
    expect = response.hybla_window(1.5, 3e-3) * 1460 * 8 / rtt / 1e6
    assert response.hybla_model(lossy) == pytest.approx(expect)
    assert all(math.isnan(x) for x in response.reno_models(lossy))
    assert math.isnan(response.cubic_model(lossy))
    assert math.isnan(response.hybla_model(model.BY_LABEL["GEO buffer-limited hybla"].case))
    reno = model.BY_LABEL["loss 1e-3 newreno delack LT minRTO 1s"].case
    assert math.isnan(response.hybla_model(reno))


def test_every_reference_names_a_run_in_both_modes():
    for quick in (True, False):
        labels = {spec.label for spec in model.runs(quick)}
        assert {ref.label for ref in tcp_crosscheck.STUDY.references_for(quick)} == labels
    random = [s for s in model.runs(False) if s.params["loss"] > 0]
    assert random and all(len(s.params["seeds"]) >= 20 for s in random)


def test_quick_mode_runs_one_cubic_case():
    quick = [s for s in model.runs(True) if s.params.get("congestion_control") == "cubic"]
    full = [s for s in model.runs(False) if s.params.get("congestion_control") == "cubic"]
    assert [s.label for s in quick] == ["GEO buffer-limited cubic"]
    assert quick[0].params["loss"] == 0 and quick[0].params["duration_s"] <= 200
    assert len({s.label for s in full}) == 4
    assert all(s.params["ns2_cubic_beta"] == 717 for s in full)
    assert sorted({s.params["loss"] for s in full}) == [0.0, 1e-4, 1e-3, 3e-3]


def test_models_apply_where_they_should():
    window = model.BY_LABEL["GEO window-limited W=32"].case
    padhye, mathis = response.reno_models(window)
    assert padhye == pytest.approx(32 * 1460 * 8 / window.rtt_s() / 1e6)
    assert math.isnan(mathis)
    assert all(
        math.isnan(x) for x in response.reno_models(model.BY_LABEL["GEO buffer-limited sack"].case)
    )
    lossy = model.BY_LABEL["loss 1e-3 newreno delack LT minRTO 1s"].case
    assert all(math.isfinite(x) for x in response.reno_models(lossy))
    assert math.isnan(response.cubic_model(lossy))
    # CUBIC rows: its own model, not Padhye's or Mathis's.
    cubic = model.BY_LABEL["loss 1e-3 cubic delack"].case
    assert all(math.isnan(x) for x in response.reno_models(cubic))
    rtt = cubic.rtt_s()
    expect = response.cubic_window(rtt, 1e-3) * 1460 * 8 / rtt / 1e6
    assert response.cubic_model(cubic) == pytest.approx(expect)
    assert math.isnan(response.cubic_model(model.BY_LABEL["GEO buffer-limited cubic"].case))


def test_cubic_window_is_rfc9438s_response_function_with_its_reno_floor():
    # (C (3 + b) / (4 (1 - b)))^(1/4) = (0.4 * 3.7 / 1.2)^(1/4) = 1.05383, and
    # 0.556^(3/4) = 0.643856, (1e-3)^(-3/4) = 177.828: 120.66 segments
    # (RFC 9438 §5.1 writes the constant as 1.054).
    assert response.cubic_window(0.556, 1e-3) == pytest.approx(120.66, abs=0.01)
    assert response.cubic_window(0.1, 1e-4) == pytest.approx(
        1.054 * 0.1**0.75 / 1e-4**0.75, rel=1e-3
    )
    # Short RTT: W_cubic (1.054 segments at 10 ms, p = 1 %) is below the
    # Reno-friendly AIMD(alpha_cubic, 0.7) average, Reno's sqrt(3 / (2p)).
    assert response.cubic_window(0.01, 1e-2) == pytest.approx(math.sqrt(150))
    # RFC 9438 §5.1, Table 1 (RTT 0.1 s, C = 0.4): 187 segments at 1e-4,
    # the Reno floor (38) at 1e-3.
    assert round(response.cubic_window(0.1, 1e-4)) == 187
    assert round(response.cubic_window(0.1, 1e-3)) == 39
    with pytest.raises(ValueError):
        response.cubic_window(0.1, 0.0)


@needs_ns2
def test_ns2_runs_are_deterministic_and_seeds_differ():
    case = Case(rate_bps=10e6, loss=1e-2, queue_limit=1000, duration_s=60.0, warmup_s=10.0)
    first, again, other = ns2.run(case, 1), ns2.run(case, 1), ns2.run(case, 2)
    assert first == again
    assert first != other
    assert first["flow.0.retransmissions"] > 0


@needs_ns2
def test_both_simulators_lose_the_listed_packets(monkeypatch):
    # A window-limited flow (no queue losses) over 10 Mb/s with two listed
    # losses: each simulator loses exactly those and repairs each with one
    # fast retransmission.
    monkeypatch.setattr(ns2, "_loss_lists", lambda case, seed: ((300, 900),))
    case = Case(
        rate_bps=10e6,
        window_packets=40,
        loss=1e-3,
        shared_losses=True,
        duration_s=40.0,
        warmup_s=1.0,
    )
    theirs = ns2.run(case, 1)
    full = satcc.run(model.scenario(case, seed=1), seed=1).summary
    assert full["links.bn.errors"] == 2
    assert full["tcp.f0.retransmissions"] == theirs["flow.0.retransmissions"] == 2
    assert full["tcp.f0.timeouts"] == theirs["flow.0.timeouts"] == 0


@needs_ns2
def test_window_limited_flow_agrees_with_ns2():
    case = Case(window_packets=16, duration_s=60.0, warmup_s=10.0)
    theirs = ns2.run(case, 1)["flow.0.goodput_bps"]
    full = satcc.run(model.scenario(case), seed=1).summary["tcp.f0.delivered_bytes"]
    warm = satcc.run(model.scenario(case, duration_s=10.0), seed=1).summary
    ours = (full - warm["tcp.f0.delivered_bytes"]) * 8 / case.measured_s
    assert ours == pytest.approx(theirs, rel=0.05)
    assert ours == pytest.approx(16 * 1460 * 8 / case.rtt_s(), rel=0.05)


@needs_ns2
def test_debian_ns2_has_the_linux_sender_with_cubic_2_1(tmp_path):
    # tcp_cubic.c from Linux 2.6.22.6: beta 819/1024 by default, C = 41/1024
    # per 100 ms (bic_scale), max_increment 16, no HyStart.
    script = tmp_path / "params.tcl"
    script.write_text(
        "set ns [new Simulator]\nset tcp [new Agent/TCP/Linux]\n"
        "$tcp select_ca cubic\n$tcp get_ca_param cubic\nexit 0\n"
    )
    out = subprocess.run(
        [ns2.find_ns(), str(script)], capture_output=True, text=True, timeout=60
    ).stdout
    params = dict(re.findall(r"^ (\w+) = (\d+)", out, flags=re.M))
    assert params["beta"] == "819"
    assert params["bic_scale"] == "41"
    assert params["fast_convergence"] == "1" and params["tcp_friendliness"] == "1"
    assert "hystart" not in params


@needs_ns2
def test_debian_ns2_has_tcp_hybla_with_rtt0(tmp_path):
    # tcp_hybla.c from Linux 2.6.22.6: one parameter, rtt0 = 25 (ms).
    script = tmp_path / "params.tcl"
    script.write_text(
        "set ns [new Simulator]\nset tcp [new Agent/TCP/Linux]\n"
        "$tcp select_ca hybla\n$tcp get_ca_param hybla\n"
        "$tcp set_ca_param hybla rtt0 50\n$tcp get_ca_param hybla rtt0\nexit 0\n"
    )
    out = subprocess.run(
        [ns2.find_ns(), str(script)], capture_output=True, text=True, timeout=60
    ).stdout
    assert dict(re.findall(r"^ (\w+) = (\d+)", out, flags=re.M)) == {"rtt0": "25"}
    # set_ca_param sets the agent's own value.
    assert "tcp_hybla.rtt0 = 50" in out


@needs_ns2
def test_ns2_hybla_is_not_held_to_window():
    # hybla_init replaces the Linux sender's cwnd clamp (window_) with 65535:
    # with window_ 50 (then only the initial ssthresh) and a queue that does
    # not overflow in the run, ns-2's Hybla fills the 10 Mb/s GEO hop, over
    # 4 times what 50 packets per RTT carry, and so does satcc's, whose send
    # buffer is that clamp.
    case = model.hybla_case(
        rate_bps=10e6,
        delay_s=0.274,
        queue_limit=5000,
        window_packets=50,
        duration_s=8.0,
        warmup_s=3.0,
    )
    window_rate = 50 * 1460 * 8 / case.rtt_s()
    theirs = ns2.run(case, 1)
    full = satcc.run(model.scenario(case), seed=1).summary
    warm = satcc.run(model.scenario(case, duration_s=3.0), seed=1).summary
    ours = (full["tcp.f0.delivered_bytes"] - warm["tcp.f0.delivered_bytes"]) * 8 / 5.0
    assert theirs["flow.0.goodput_bps"] > 4 * window_rate and ours > 4 * window_rate
    assert theirs["flow.0.retransmissions"] == 0 and full["tcp.f0.retransmissions"] == 0
    assert ours == pytest.approx(theirs["flow.0.goodput_bps"], rel=claims.TOLERANCE)


@needs_ns2
def test_buffer_limited_cubic_agrees_with_ns2():
    # The GEO buffer-limited CUBIC case, shortened: both fill the 2 Mb/s hop
    # between the drop-tail losses.
    case = dataclasses.replace(
        model.BY_LABEL["GEO buffer-limited cubic"].case, duration_s=200.0, warmup_s=50.0
    )
    theirs = ns2.run(case, 1)
    full = satcc.run(model.scenario(case), seed=1).summary
    warm = satcc.run(model.scenario(case, duration_s=50.0), seed=1).summary
    ours = (full["tcp.f0.delivered_bytes"] - warm["tcp.f0.delivered_bytes"]) * 8 / case.measured_s
    assert ours == pytest.approx(theirs["flow.0.goodput_bps"], rel=claims.TOLERANCE)
    # CUBIC's cycles lose packets in both (Reno's sawtooth loses far fewer).
    assert theirs["flow.0.retransmissions"] > 50
    assert full["tcp.f0.retransmissions"] - warm["tcp.f0.retransmissions"] > 50


def _small_study(judge: bool) -> Study:
    keep = ("GEO window-limited W=32", "loss 1e-2 newreno delack LT minRTO 1s")

    def runs(quick: bool):
        return [s for s in model.runs(quick) if s.label in keep]

    refs = [r for r in claims.references(judge) if r.label in keep]
    return dataclasses.replace(tcp_crosscheck.STUDY, runs=runs, references=refs)


def test_without_ns2_the_models_are_shown_and_nothing_is_judged(tmp_path, monkeypatch):
    monkeypatch.setattr(ns2, "find_ns", lambda: None)
    table = studies.reproduce(
        _small_study(judge=False), quick=True, out=tmp_path, progress=False, show=False
    )
    rows = {(r.label, r.metric): r for r in table.itertuples()}
    assert (table["tolerance_kind"] == "none").all()
    lossy = "loss 1e-2 newreno delack LT minRTO 1s"
    assert math.isnan(rows[(lossy, "ns2_goodput_mbps")].measured)
    assert rows[(lossy, "satcc_goodput_mbps")].measured > 0
    assert rows[(lossy, "padhye_mbps")].measured > 0
    (part,) = terminal_table.layout(table)
    assert "ABSENT" in str(part.title)


@needs_ns2
def test_quick_reproduction_compares_every_case(tmp_path):
    table = studies.reproduce(
        tcp_crosscheck.STUDY, quick=True, out=tmp_path, progress=False, show=False
    )
    assert (tmp_path / "tcp-crosscheck.csv").exists()
    assert (tmp_path / "tcp-crosscheck.json").exists()
    judged = table[table["tolerance_kind"] != "none"]
    quick_points = [p for p in model.POINTS if p.quick]
    assert len(judged) == len(quick_points) + 2 * 4  # the 4-flow cases judge each flow too
    assert judged["measured"].notna().all()
    ns2_goodput = table[table["metric"] == "ns2_goodput_mbps"]
    assert (ns2_goodput["measured"] > 0).all()
    window = judged[judged["label"] == "GEO window-limited W=32"]
    assert bool(window["passed"].iloc[0])
    # A case with shared losses: its three per-seed runs averaged as one,
    # and with the same losses in both, the ratio near 1.
    lossy = table[
        (table["label"] == "loss 1e-3 newreno delack LT minRTO 1s")
        & (table["metric"] == "goodput_ratio")
    ]
    assert int(lossy["n_seeds"].iloc[0]) == 3
    assert bool(lossy["passed"].iloc[0])
    realised = table[table["metric"] == "loss_realised"].set_index("label")["measured"]
    assert realised["loss 1e-3 newreno delack LT minRTO 1s"] == pytest.approx(1e-3, rel=0.5)


def test_no_check_is_judged_on_numbers_that_were_not_measured():
    # ns-2's side missing from every run: NaN ratios read FAIL with n/a as
    # the measurement. Now none is judged, and the table says "not measured".
    s = dataclasses.replace(tcp_crosscheck.STUDY, references=claims.references(judge=True))
    refs = s.references_for(False)
    nan = math.nan
    agg = pd.DataFrame(
        [{"label": r.label, "metric": r.metric, "mean": nan, "ci_half_width": nan} for r in refs]
    ).assign(n=1)
    table = compare.compare(s, s.runs(False), agg, False)
    judged = table[table["tolerance_kind"] != "none"]
    assert len(judged) and judged["passed"].isna().all()
    console = Console(record=True, width=250)
    for part in terminal_table.layout(table):
        console.print(part)
    text = console.export_text()
    assert "PASS" not in text and "FAIL" not in text and "not measured" in text
