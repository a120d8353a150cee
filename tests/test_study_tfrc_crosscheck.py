"""The tfrc-crosscheck study: the ns-2 script and its parsing, the satcc
scenario built from the same case, deterministic loss patterns fed to both
simulators, and a quick reproduction. The parts that run ns-2 skip, saying
so, where `ns` is not installed (scripts/ensure-ns2.sh installs it)."""

from __future__ import annotations

import dataclasses
import math

import pytest
import satcc
from satcc import studies
from satcc.studies import ns2, ns2_tfrc
from satcc.studies import tfrc_crosscheck as study
from satcc.studies.execution import run_one
from satcc.studies.ns2_tfrc import TfrcCase
from study_table_helpers import assert_nothing_judged

NO_NS2 = "ns-2 (`ns`, Debian package ns2) is not installed: bash scripts/ensure-ns2.sh"
needs_ns2 = pytest.mark.skipif(ns2.find_ns() is None, reason=NO_NS2)


def _lines(script: str) -> list[str]:
    return [line.strip() for line in script.splitlines()]


def test_registered():
    assert studies.get("tfrc-crosscheck") is study.STUDY


def test_tcl_script_feeds_the_media_through_the_transmit_buffer():
    case = TfrcCase(
        copies=2,
        packet_size=160,
        media_rate_bps=16e3,
        buffer_packets=2,
        small_packets=True,
        delay_step_s=1e-3,
    )
    lines = _lines(ns2_tfrc.tcl_script(case))
    for expected in (
        "$ns duplex-link $s(0) $r(0) 2000000 0.275s DropTail",
        "$ns duplex-link $s(1) $r(1) 2000000 0.276s DropTail",
        "$tf(1) set packetSize_ 160",
        "$tf(1) set voip_ 1",
        "$tf(1) set SndrType_ 1",
        "$tf(1) set maxqueue_ 2",
        '$ns at 40 "tally end; exit 0"',
    ):
        assert expected in lines, expected
    # One packet every 160 * 8 / 16000 = 80 ms, the i-th at i times that.
    assert "set t [expr ($i + 1) * 0.08]" in lines


def test_tcl_script_loss_patterns():
    periodic = _lines(ns2_tfrc.tcl_script(TfrcCase(copies=1, loss_every=100)))
    assert "set em(0) [new ErrorModel/Periodic]" in periodic
    assert "$em(0) set period_ 100" in periodic and "$em(0) set offset_ 100" in periodic
    listed = _lines(ns2_tfrc.tcl_script(TfrcCase(copies=1, loss_list=(3, 1, 10))))
    # ErrorModel/List counts from 0, satcc's loss_list from 1.
    assert "$em(0) droplist {0 2 9}" in listed
    greedy = TfrcCase(copies=1, media_rate_bps=None, media_stop_s=None)
    assert '$ns at 0.0 "$tf(0) start"' in _lines(ns2_tfrc.tcl_script(greedy))


def test_random_patterns_are_drawn_once_per_copy_and_fed_to_both():
    case = TfrcCase(
        copies=3, loss_pattern=0.05, pattern_packets=2000, media_rate_bps=None, media_stop_s=None
    )
    lists = case.loss_lists()
    assert lists == case.loss_lists(), "the same draws every time"
    assert len({tuple(x) for x in lists}) == 3, "each copy its own"
    assert all(60 < len(x) < 140 for x in lists)
    sc = study.scenario(case, "ns2")
    assert sc["links"]["data1"]["loss_list"] == list(lists[1])
    script = ns2_tfrc.tcl_script(case)
    assert "$em(1) droplist {" + " ".join(str(i - 1) for i in lists[1]) + "}" in script


def test_case_rejects_what_it_cannot_express():
    with pytest.raises(ValueError):
        TfrcCase(loss=0.01, loss_every=10)
    with pytest.raises(ValueError):
        TfrcCase(media_rate_bps=None)  # a greedy sender has no media to stop
    with pytest.raises(ValueError):
        TfrcCase(topology="ring")


def test_parse_output_reads_every_copy():
    case = TfrcCase(copies=2, topology="dumbbell", media_rate_bps=None, media_stop_s=None)
    text = "\n".join(
        [
            "flow 0 t 1 sent 4",
            "flow 1 t 1 sent 5",
            "flow 0 warm sent 0 bytes 0",
            "tcp 0 warm bytes 0 sent 0 retx 0 timeouts 0",
            "flow 1 warm sent 0 bytes 0",
            "tcp 1 warm bytes 0 sent 0 retx 0 timeouts 0",
            "flow 0 end sent 100 bytes 1532",
            "tcp 0 end bytes 3000 sent 2 retx 1 timeouts 0",
            "flow 1 end sent 90 bytes 3064",
            "tcp 1 end bytes 1500 sent 1 retx 0 timeouts 0",
        ]
    )
    r = ns2_tfrc.parse_output(text, case)
    assert r["sent_by"][1] == {1.0: 5.0}
    assert r["end"][1] == {"sent": 90.0, "bytes": 3064.0}
    assert r["tcp_end"][0]["retx"] == 1.0
    with pytest.raises(ValueError, match="copies"):
        ns2_tfrc.parse_output("flow 0 end sent 1 bytes 2", case)


def test_satcc_scenario_of_each_profile():
    case = study.BY_LABEL["start-up VoIP 16 kb/s TFRC-SP"].case
    ns2 = study.scenario(case, "ns2")["tfrc"]["v3"]
    rfc = study.scenario(case, "rfc5348")["tfrc"]["v3"]
    # ns2: packetSize_ with the headers added on the wire; the RFC profile
    # has the wire size and the same packets per second.
    assert ns2["packet_size"] == "160 B" and ns2["profile"] == "ns2"
    assert rfc["packet_size"] == "192 B" and rfc["header_size"] == "32 B"
    assert float(rfc["media"]["rate"].split()[0]) == pytest.approx(16e3 * 192 / 160)
    assert ns2["small_packets"] and rfc["small_packets"]
    links = study.scenario(case, "ns2")["links"]
    assert links["data3"]["delay"] == f"{0.275 + 3 * 37e-6:.12g} s"
    bell = study.scenario(study.BY_LABEL["against NewReno, drop-tail 25"].case, "ns2")
    assert bell["links"]["bn0"]["queue"]["limit"] == "24 packets"
    assert bell["tcp"]["t0"]["variant"] == "newreno"


def test_every_reference_names_a_run_in_both_modes():
    for quick in (True, False):
        labels = {spec.label for spec in study.runs(quick)}
        refs = study.STUDY.references_for(quick)
        assert {ref.label for ref in refs} <= labels
        # Every case of the mode is judged (with ns-2 there).
        judged = {r.label.split(", by")[0] for r in study.references(True) if r.judged}
        ran = {lbl.split(", by")[0] for lbl in labels if not lbl.endswith("]")}
        assert judged & ran == {p.label for p in study.POINTS if p.quick or not quick}
    assert any("random loss" in s.label for s in study.runs(False))
    assert not any("random loss" in s.label for s in study.runs(True))


def test_the_same_pattern_gives_the_same_losses_in_satcc():
    case = TfrcCase(
        copies=1,
        media_rate_bps=None,
        media_stop_s=None,
        rate_bps=10e6,
        delay_s=0.05,
        packet_size=1000,
        loss_every=50,
        duration_s=30.0,
    )
    s = satcc.run(study.scenario(case, "ns2"), seed=1).summary
    sent, received = s["tfrc.v0.packets_sent"], s["tfrc.v0.packets_received"]
    assert s["run.pdus_unaccounted"] == 0
    # Every 50th lost; the rest arrived or are on the 50 ms hop at the end.
    assert s["links.data0.errors"] == sent // 50
    assert 0 <= sent - received - sent // 50 <= 5


def _small_study(judge: bool):
    keep = ("every 100th packet lost",)

    def runs(quick: bool):
        return [s for s in study.runs(quick) if s.params["case"] in keep]

    refs = [r for r in study.references(judge) if r.label.startswith(keep)]
    return dataclasses.replace(study.STUDY, runs=runs, references=refs)


def test_without_ns2_nothing_is_judged(tmp_path, monkeypatch):
    monkeypatch.setattr(study, "find_ns", lambda: None)
    table = studies.reproduce(
        _small_study(judge=False), quick=True, out=tmp_path, progress=False, show=False
    )
    assert (table["tolerance_kind"] == "none").all()
    rows = {(r.label, r.metric): r for r in table.itertuples()}
    assert math.isnan(rows[("every 100th packet lost", "ns2_throughput_mbps")].measured)
    assert rows[("every 100th packet lost", "satcc_throughput_mbps")].measured > 0
    (part,) = study.layout(table)
    assert "ABSENT" in str(part.title)


@needs_ns2
def test_quick_reproduction_judges_every_case(tmp_path):
    table = studies.reproduce(study.STUDY, quick=True, out=tmp_path, progress=False, show=False)
    judged = table[table["tolerance_kind"] != "none"]
    quick = [p for p in study.POINTS if p.quick]
    per_case = {"startup": len(study.STOPS_S) + 1, "share": 2, "loss": 1}
    assert len(judged) == sum(per_case[p.kind] for p in quick)
    assert judged["measured"].notna().all()
    assert judged["passed"].all(), judged[~judged["passed"]][["label", "metric", "measured"]]
    assert (tmp_path / "startup.csv").exists() and (tmp_path / "startup.png").exists()


def test_no_check_is_judged_on_numbers_that_were_not_measured():
    assert_nothing_judged(dataclasses.replace(study.STUDY, references=study.references(judge=True)))


def test_a_ratio_over_an_ns2_figure_of_zero_is_not_judged(monkeypatch):
    # ns-2 losing nothing from the transmit buffer has no ratio to satcc's
    # loss: not a ZeroDivisionError that stops the study.
    spec = next(
        s
        for s in study.STUDY.runs(True)
        if s.params["profile"] == "ns2"
        and s.params["stop_s"] is None
        and s.label.startswith("start-up")
    )
    point = study.BY_LABEL[spec.params["case"]]
    zeros = {"buffer_loss": [0.0] * point.case.copies, "sent": [10.0] * point.case.copies}
    monkeypatch.setattr(study, "_ns2_metrics", lambda point, stop: zeros)
    summary = run_one(spec.scenario, 1)
    m = study.metrics(summary, spec)
    assert m["ns2_buffer_loss"] == 0.0 and math.isnan(m["buffer_loss_ratio"])
    assert m["sent_ratio"] == pytest.approx(m["satcc_sent"] / 10.0)
