"""The `aqm` study (docs/aqm.md): its settings from their sources, the
scenarios it runs, and its judged checks holding in quick mode."""

from __future__ import annotations

import math

import pandas as pd
import pytest
from rich.console import Console
from satcc.scenario import Scenario
from satcc.studies import aqm, compare, get, reproduce


def test_adaptive_red_settings_follow_the_automatic_rule():
    # 10 Mb/s of 1500-byte packets: C = 833.3 packets/s, so C * 5 ms / 2 =
    # 2.08 < 5 and min_th = 5; at 100 Mb/s it is 20.8.
    slow = aqm.ared_settings(10e6, 1500)
    assert slow["min_th"] == 5 and slow["max_th"] == 15
    assert slow["w_q"] == pytest.approx(1 - math.exp(-1 / 833.333), rel=1e-6)
    fast = aqm.ared_settings(100e6, 1500)
    assert fast["min_th"] == pytest.approx(20.833, rel=1e-4)
    assert fast["max_th"] == pytest.approx(3 * fast["min_th"])


def test_the_sawtooth_band_at_geo():
    # Mean base RTT 2 * (270 + 9.25) ms = 558.5 ms: BDP 465.4 packets. The
    # synchronised halving leaves (465.4 + 1000) / 2 - 465.4 = 267.3 queued;
    # the queue refills to 1000: mean 633.6 packets, 760 ms; full: 1200 ms.
    assert aqm.bdp_packets("geo") == pytest.approx(465.42, rel=1e-4)
    low, high = aqm.sawtooth_delay_band_ms("geo")
    assert low == pytest.approx(760.3, rel=1e-3) and high == pytest.approx(1200.0)


def test_every_run_is_a_valid_scenario_with_the_asked_queue_and_ecn():
    specs = aqm.runs(quick=True)
    assert len(specs) == len(aqm.cases()) == len({s.label for s in specs})
    for spec in specs:
        d = Scenario.from_dict(spec.scenario).validate()
        queue = next(link for link in d["links"] if link["name"] == "bn")["queue"]
        assert queue["kind"] == spec.params["queue"]
        if spec.params["queue"] != "droptail":
            assert queue["ecn"] == spec.params["ecn"]
        senders = {c["ecn"] for c in spec.scenario["tcp"].values()}
        params = spec.params
        l4s = params["queue"] == "dualpi2" and params["ecn"] and params["cc"] != "bbr"
        assert senders == ({"l4s"} if l4s else {params["ecn"]})
    # Every judged check names a run and a metric the study has.
    labels = {s.label for s in specs}
    assert {r.label for r in aqm.STUDY.references} <= labels


def test_quick_mode_passes_its_judged_checks(tmp_path):
    reproduce(get("aqm"), quick=True, jobs=2, out=tmp_path, progress=False, show=False)
    table = pd.read_csv(tmp_path / "aqm.csv")
    judged = table[table["tolerance_kind"] != "none"]
    assert len(judged) >= 26
    failed = judged[judged["passed"] != True]  # noqa: E712 (a column of objects)
    assert failed.empty, failed[["label", "metric", "published", "measured"]]
    # Drop-tail's standing delay at GEO is the buffer's; CoDel's a few ms.
    rows = table.set_index(["label", "metric"])["measured"]
    assert rows[("geo cubic droptail", "delay_mean_ms")] > 500
    assert rows[("leo cubic codel", "delay_mean_ms")] < 30


# Keys an AQM's summary has even when they hold no measurement; the drop
# counts are left out, as a summary that lacks them would.
UNMEASURED = {
    f"links.bn.{k}": None
    for k in ("sojourn_standing_s", "sojourn_p50_s", "red_avg_mean", "l_sojourn_p99_s")
}


def test_no_check_is_judged_on_numbers_that_were_not_measured():
    # Absent drop counts read as 0 AQM drops, and "no AQM drop of an
    # ECN-capable packet" passed on nothing; now every check is not judged.
    study = get("aqm")
    specs = study.runs(True)
    summaries = {(i, 1): dict(UNMEASURED) for i in range(len(specs))}
    per_run = compare.measure(study, specs, summaries)
    table = compare.compare(study, specs, compare.aggregate(per_run), quick=True)
    judged = table[table["tolerance_kind"] != "none"]
    assert len(judged) >= 26
    assert judged["passed"].isna().all(), judged[judged["passed"].notna()][["label", "metric"]]
    console = Console(record=True, width=200)
    for part in aqm.layout(table):
        console.print(part)
    text = console.export_text()
    assert "PASS" not in text and "FAIL" not in text and "not measured" in text
