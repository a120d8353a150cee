"""The `leo-hypatia` study (docs/leo-hypatia.md): its runs as Hypatia's
a_b experiments set them up, its paths against Hypatia's reference data,
and NewReno over a moving path against the closed forms it is judged by."""

from __future__ import annotations

import math

import pytest
import satcc
from satcc.scenario import Scenario
from satcc.studies import compare
from satcc.studies import leo_hypatia as study
from study_table_helpers import assert_nothing_judged


def test_the_runs_are_hypatias_setup():
    specs = study.runs(quick=True)
    assert len(specs) == len(study.SHELLS) * len(study.PAIRS) * len(study.CONTROLLERS)
    spec = next(s for s in specs if s.label == "kuiper-k1 Manila-Dalian newreno")
    d = Scenario.from_dict(spec.scenario).validate()
    link = next(entry for entry in d["links"] if entry["name"] == "sat")
    assert link["capacity"]["rate_bps"] == 10e6
    assert link["queue"] == {"kind": "droptail", "limit": {"packets": 100}}
    assert len(link["delay_schedule"]["times_ps"]) == 2000
    (tcp,) = d["tcp"]
    assert tcp["mss_bytes"] == 1380 and tcp["initial_window_segments"] == 10
    # Reno's window growth is the default, left out of the description.
    assert tcp["variant"] == "sack" and "congestion_control" not in tcp
    assert tcp["send_buffer_bytes"] == tcp["receive_buffer_bytes"] == 32 * 2**20
    # Every judged check names a run and a metric the study has.
    assert {r.label for r in study.STUDY.references} <= {s.label for s in specs}


def test_paths_match_hypatias_reference_data():
    md = study.path("kuiper-k1", "Manila", "Dalian")
    assert md["path_rtt_min_ms"] == pytest.approx(25.230, abs=0.02)
    assert md["path_rtt_mean_ms"] == pytest.approx(40.144, abs=0.02)
    assert md["path_rtt_max_ms"] == pytest.approx(48.165, abs=0.02)
    assert md["path_changes"] == 5 and md["unreachable_s"] == 0
    assert math.isnan(md["unreachable_from_s"])
    rio = study.path("kuiper-k1", "Rio de Janeiro", "Saint Petersburg")
    assert rio["unreachable_from_s"] == pytest.approx(155.4, abs=0.15)
    assert rio["unreachable_to_s"] == pytest.approx(165.2, abs=0.15)


def test_the_sawtooth_mean_queue():
    # BDP 35 packets, Q 100: the halving leaves 32.5 queued, the queue
    # refills to 100, mean 66.25; with no room above the BDP it is Q/2.
    assert study.sawtooth_queue_packets(35.0) == pytest.approx(66.25)
    assert study.sawtooth_queue_packets(100.0) == pytest.approx(50.0)


def test_newreno_over_manila_dalian_keeps_the_link_busy_on_its_sawtooth():
    spec = next(s for s in study.runs(True) if s.label == "kuiper-k1 Manila-Dalian newreno")
    summary = satcc.run(spec.scenario).summary
    m = study.metrics(summary, spec)
    assert m["utilisation_reachable"] > 0.95
    assert m["queue_vs_sawtooth"] == pytest.approx(1.0, rel=0.25)
    assert summary["run.pdus_unaccounted"] == 0


def test_no_check_is_judged_on_numbers_that_were_not_measured():
    # The grid of runs (the first table): its "checks" column.
    assert_nothing_judged(study.STUDY, parts=1)


def test_a_run_that_measured_nothing_is_not_judged_and_does_not_stop_the_study():
    # Null figures (no packet waited) raised a TypeError in float(None).
    keys = ["tcp.t.goodput_bps", "links.sat.utilisation", "links.sat.wait_mean_s"]
    keys += ["tcp.t.retransmissions", "tcp.t.timeouts", "links.sat.drops_unreachable"]
    summary = dict.fromkeys(keys + ["tcp.t.cwnd_max_bytes"])
    specs = study.STUDY.runs(True)
    per_run = compare.measure(study.STUDY, specs, {(i, 1): summary for i in range(len(specs))})
    table = compare.compare(study.STUDY, specs, compare.aggregate(per_run), quick=True)
    measured = table[table["metric"].isin(["utilisation_reachable", "queue_vs_sawtooth"])]
    assert len(measured) and measured["passed"].isna().all()
