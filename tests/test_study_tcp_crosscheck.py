"""The tcp-crosscheck study: the ns-2 script and its parsing (pure
functions), the satcc scenario built from the same case, and a quick
reproduction. The parts that run ns-2 skip, saying so, where `ns` is not
installed (scripts/ensure-ns2.sh installs it for `make test`)."""

from __future__ import annotations

import dataclasses
import math

import pytest
import satcc
from satcc import studies
from satcc.studies import ns2
from satcc.studies import tcp_crosscheck as study
from satcc.studies.framework import Study
from satcc.studies.ns2 import Case, Flow

NO_NS2 = "ns-2 (`ns`, Debian package ns2) is not installed: bash scripts/ensure-ns2.sh"
needs_ns2 = pytest.mark.skipif(ns2.find_ns() is None, reason=NO_NS2)


def test_registered():
    assert studies.get("tcp-crosscheck") is study.STUDY


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


def test_satcc_scenario_matches_the_case():
    case = Case(loss=1e-2, queue_limit=30, window_packets=64, delayed_ack=False, min_rto_s=0.2)
    desc = satcc.Scenario.from_dict(study.scenario(case)).validate()
    links = {link["name"]: link for link in desc["links"]}
    # ns-2's queue-limit 30 is 29 waiting and one in transmission.
    assert links["bn"]["queue"]["limit"] == {"packets": 29}
    assert links["bn"]["loss"] == 0.01 and links["bn_back"]["loss"] == 0
    assert links["bn"]["capacity"]["rate_bps"] == 2e6
    (tcp,) = desc["tcp"]
    assert tcp["send_buffer_bytes"] == tcp["receive_buffer_bytes"] == 64 * 1460
    assert tcp["initial_ssthresh_bytes"] == 64 * 1460
    assert tcp["abc_limit_segments"] == 1
    assert tcp["initial_window_segments"] == 2
    assert tcp["delayed_ack"] is False and tcp["limited_transmit"] is True
    assert tcp["delayed_ack_ps"] == 100_000_000_000
    one_way = (links["in0"]["delay_ps"] + links["bn"]["delay_ps"]) * 1e-12
    assert case.rtt_s() == pytest.approx(2 * one_way, abs=0.01)


def test_every_reference_names_a_run_in_both_modes():
    for quick in (True, False):
        labels = {spec.label for spec in study.runs(quick)}
        assert {ref.label for ref in study.STUDY.references} == labels
    random = [s for s in study.runs(False) if s.params["loss"] > 0]
    assert random and all(len(s.seeds) >= 20 for s in random)


def test_models_apply_where_they_should():
    window = study.BY_LABEL["GEO window-limited W=32"].case
    padhye, mathis = study._models(window)
    assert padhye == pytest.approx(32 * 1460 * 8 / window.rtt_s() / 1e6)
    assert math.isnan(mathis)
    assert all(math.isnan(x) for x in study._models(study.BY_LABEL["GEO buffer-limited sack"].case))
    lossy = study.BY_LABEL["loss 1e-3 newreno delack LT minRTO 1s"].case
    assert all(math.isfinite(x) for x in study._models(lossy))


@needs_ns2
def test_ns2_runs_are_deterministic_and_seeds_differ():
    case = Case(rate_bps=10e6, loss=1e-2, queue_limit=1000, duration_s=60.0, warmup_s=10.0)
    first, again, other = ns2.run(case, 1), ns2.run(case, 1), ns2.run(case, 2)
    assert first == again
    assert first != other
    assert first["flow.0.retransmissions"] > 0


@needs_ns2
def test_window_limited_flow_agrees_with_ns2():
    case = Case(window_packets=16, duration_s=60.0, warmup_s=10.0)
    theirs = ns2.run(case, 1)["flow.0.goodput_bps"]
    full = satcc.run(study.scenario(case), seed=1).summary["tcp.f0.delivered_bytes"]
    warm = satcc.run(study.scenario(case, duration_s=10.0), seed=1).summary
    ours = (full - warm["tcp.f0.delivered_bytes"]) * 8 / case.measured_s
    assert ours == pytest.approx(theirs, rel=0.05)
    assert ours == pytest.approx(16 * 1460 * 8 / case.rtt_s(), rel=0.05)


def _small_study(judge: bool) -> Study:
    keep = ("GEO window-limited W=32", "loss 1e-2 newreno delack LT minRTO 1s")

    def runs(quick: bool):
        return [s for s in study.runs(quick) if s.label in keep]

    refs = [r for r in study.references(judge) if r.label in keep]
    return dataclasses.replace(study.STUDY, runs=runs, references=refs)


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
    (part,) = study.layout(table)
    assert "ABSENT" in str(part.title)


@needs_ns2
def test_quick_reproduction_compares_every_case(tmp_path):
    table = studies.reproduce(study.STUDY, quick=True, out=tmp_path, progress=False, show=False)
    assert (tmp_path / "tcp-crosscheck.csv").exists()
    assert (tmp_path / "tcp-crosscheck.json").exists()
    judged = table[table["tolerance_kind"] != "none"]
    assert len(judged) == len(study.POINTS) + 2 * 4  # the 4-flow cases judge each flow too
    assert judged["measured"].notna().all()
    ns2_goodput = table[table["metric"] == "ns2_goodput_mbps"]
    assert (ns2_goodput["measured"] > 0).all()
    window = judged[judged["label"] == "GEO window-limited W=32"]
    assert bool(window["passed"].iloc[0])
