# The study framework on synthetic metric values (no simulation): tolerance
# arithmetic, Student-t intervals, the comparison table, the written files,
# parallel execution and its interruption; plus the closed forms of the
# queueing-theory study, which must be right before any run is compared to them.

import dataclasses
import json
import math
import os
import time

import numpy as np
import pandas as pd
import pytest
from satcc import studies
from satcc.studies import compare, execution, framework, present, queueing_theory
from satcc.studies.errors import RunFailed
from satcc.studies.spec import Reference, RunSpec, Study

# ---------------------------------------------------------------------------
# A synthetic study: the "simulation" returns base + offset[seed].

OFFSETS = {1: -0.02, 2: 0.0, 3: 0.02}


def fake_worker(scenario, seed):
    # Module-level so that it pickles into worker processes.
    return {"x": scenario["base"] + OFFSETS[seed], "n": 10 * scenario["base"]}


def failing_worker(scenario, seed):
    if scenario["base"] == 2.0 and seed == 2:
        raise ValueError("no route to rx")
    return fake_worker(scenario, seed)


def slow_worker(scenario, seed):
    time.sleep(scenario["sleep"])
    return {"x": 0.0}


def reversing_worker(scenario, seed):
    # The later seeds finish first.
    time.sleep(0.1 * (4 - seed))
    return fake_worker(scenario, seed)


def fake_study(references, seeds=(1, 2, 3)):
    def runs(quick):
        return [
            RunSpec("low", {"level": 1}, {"base": 1.0}),
            RunSpec("high", {"level": 2}, {"base": 2.0}),
        ]

    def metrics(summary, spec):
        return {"x": summary["x"], "n_per_level": summary["n"] / spec.params["level"]}

    return Study(
        name="fake",
        title="synthetic",
        paper="none",
        description="test study",
        runs=runs,
        metrics=metrics,
        references=references,
        seeds=lambda quick: list(seeds[:1] if quick else seeds),
        quick_note="one seed only",
    )


# ---------------------------------------------------------------------------
# Tolerances


def test_relative_tolerance_scales_with_published_value():
    ref = Reference("r", "m", -200.0, "src", 0.05)
    assert ref.allowed == pytest.approx(10.0)
    assert ref.passes(-210.0) and ref.passes(-190.0)
    assert not ref.passes(-210.5)


def test_absolute_tolerance():
    ref = Reference("r", "m", 0.0, "src", 0.1, tolerance_kind="absolute")
    assert ref.allowed == 0.1
    assert ref.passes(0.1) and ref.passes(-0.05)
    assert not ref.passes(0.11)


def test_nan_measurement_fails():
    assert not Reference("r", "m", 1.0, "src", 0.5).passes(math.nan)


def test_reference_refuses_nonsense_tolerance():
    with pytest.raises(ValueError):
        Reference("r", "m", 1.0, "src", -0.1)
    with pytest.raises(ValueError):
        Reference("r", "m", 1.0, "src", 0.1, tolerance_kind="percent")


def test_factor_tolerance_is_symmetric_in_ratio():
    ref = Reference("r", "m", 6000.0, "src", 2.0, tolerance_kind="factor")
    assert ref.passes(3000.0) and ref.passes(12000.0) and ref.passes(6000.0)
    assert not ref.passes(2999.0) and not ref.passes(12001.0)
    with pytest.raises(ValueError):
        Reference("r", "m", 1.0, "src", 0.5, tolerance_kind="factor")


def test_rows_shown_but_not_judged(tmp_path):
    shown = [
        Reference("low", "x", 1.0, "src", 0.05),
        Reference("high", "x", math.nan, "withheld", 0.0, tolerance_kind="none"),
        Reference("high", "n_per_level", 10.0, "src", 0.0, tolerance_kind="none"),
    ]
    with pytest.raises(ValueError):
        Reference("r", "m", math.nan, "src", 0.1)
    table = framework.reproduce(
        fake_study(shown), jobs=1, out=tmp_path, progress=False, show=False, worker=fake_worker
    )
    assert table["passed"].tolist() == [True, None, None]
    assert math.isnan(table.loc[1, "error"]) and table.loc[2, "error"] == 0.0
    assert compare.verdict_line(table) == ("1/1 checks within tolerance; 2 rows shown, not judged")


def test_terminal_table_writes_tolerances_as_the_report_does(tmp_path):
    # satcc.fmt: a factor reads "×2" (it read "x2" here), a row not judged
    # has "n/a" for its tolerance (it read "-").
    from rich.console import Console

    study = fake_study(
        [
            Reference("low", "x", 1.0, "src", 2.0, tolerance_kind="factor"),
            Reference("high", "x", math.nan, "withheld", 0.0, tolerance_kind="none"),
        ]
    )
    table = framework.reproduce(
        study, jobs=1, out=tmp_path, progress=False, show=False, worker=fake_worker
    )
    console = Console(record=True, width=200)
    present.print_comparison(study, table, console)
    rows = {
        words[0]: words
        for words in map(str.split, console.export_text().splitlines())
        if words and words[0] in ("low", "high")
    }
    assert rows["low"][5:] == ["+0.00%", "×2", "PASS", "[1]"]
    assert rows["high"][2] == "n/a" and rows["high"][5:] == ["n/a", "n/a", "shown", "[2]"]


# ---------------------------------------------------------------------------
# Aggregation


def test_confidence_half_width_matches_student_t():
    # mean 2, sample sd 1, n 3: t(0.975, 2) = 4.302652729911275
    assert compare.confidence_half_width([1.0, 2.0, 3.0]) == pytest.approx(
        4.302652729911275 / math.sqrt(3)
    )


def test_confidence_half_width_needs_two_values():
    assert math.isnan(compare.confidence_half_width([5.0]))
    assert math.isnan(compare.confidence_half_width([]))


def test_aggregate_per_label_and_metric():
    per_run = pd.DataFrame(
        {
            "label": ["a", "a", "a", "b"],
            "seed": [1, 2, 3, 1],
            "metric": ["x", "x", "x", "x"],
            "value": [1.0, 2.0, 6.0, 4.0],
        }
    )
    agg = compare.aggregate(per_run).set_index("label")
    assert agg.loc["a", "mean"] == pytest.approx(3.0)
    assert agg.loc["a", "n"] == 3
    sd = np.std([1.0, 2.0, 6.0], ddof=1)
    assert agg.loc["a", "ci_half_width"] == pytest.approx(4.302652729911275 * sd / math.sqrt(3))
    assert agg.loc["b", "n"] == 1 and math.isnan(agg.loc["b", "ci_half_width"])


# ---------------------------------------------------------------------------
# The comparison table, end to end on the synthetic study


REFERENCES = [
    # low: measured mean 1.0 exactly; high: 2.0.
    Reference("low", "x", 1.01, "Book, eq. 1", 0.02),  # 1% off, passes
    Reference("high", "x", 2.2, "Book, eq. 2", 0.05),  # 9.1% off, fails
    Reference("high", "n_per_level", 10.0, "Paper, table 3", 0.5, tolerance_kind="absolute"),
]


def test_reproduce_builds_table_and_files(tmp_path):
    study = fake_study(REFERENCES)
    table = framework.reproduce(
        study, jobs=1, out=tmp_path, progress=False, show=False, worker=fake_worker
    )
    assert list(table.columns) == compare.TABLE_COLUMNS
    assert list(table["passed"]) == [True, False, True]
    assert list(table["n_seeds"]) == [3, 3, 3]
    assert table["measured"].tolist() == pytest.approx([1.0, 2.0, 10.0])
    assert table["error"].tolist() == pytest.approx([1.0 / 1.01 - 1, 2.0 / 2.2 - 1, 0.0])
    assert table.loc[0, "allowed"] == pytest.approx(0.0202)
    assert json.loads(table.loc[0, "params"]) == {"level": 1}
    # offsets -0.02, 0, 0.02: sd 0.02, n 3
    assert table.loc[0, "ci_half_width"] == pytest.approx(4.302652729911275 * 0.02 / math.sqrt(3))

    csv = pd.read_csv(tmp_path / "fake.csv")
    assert list(csv["passed"]) == [True, False, True]
    document = json.loads((tmp_path / "fake.json").read_text())
    assert document["summary"] == "2/3 checks within tolerance"
    assert len(document["runs"]) == 2 * 3 * 2  # labels x seeds x metrics
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def unmeasured_worker(scenario, seed):
    # The "high" run cannot measure x (a series it needs is missing).
    summary = fake_worker(scenario, seed)
    return {**summary, "x": math.nan} if scenario["base"] == 2.0 else summary


def test_a_check_whose_metric_was_not_measured_is_not_judged(tmp_path):
    # NaN compares false: "high"'s x read FAIL with "n/a" as the measurement,
    # a verdict on a number no run produced. It is now not judged, and the
    # summary line says so rather than counting it among the failures.
    from rich.console import Console

    console = Console(record=True, width=200)
    table = framework.reproduce(
        fake_study(REFERENCES),
        jobs=1,
        out=tmp_path,
        progress=False,
        console=console,
        worker=unmeasured_worker,
    )
    assert math.isnan(table.loc[1, "measured"])
    assert table["passed"].tolist() == [True, None, True]
    line = "2/2 checks within tolerance; 1 checks not measured"
    assert compare.verdict_line(table) == line
    assert "not measured" in console.export_text()
    assert "FAIL" not in console.export_text()
    document = json.loads((tmp_path / "fake.json").read_text())
    assert document["checks"][1]["passed"] is None and document["summary"] == line
    nothing = table.assign(measured=math.nan, passed=None)
    assert compare.verdict_line(nothing) == "nothing judged; 3 checks not measured; 0 rows shown"


def test_one_seed_gives_nan_interval_shown_as_na(tmp_path):
    from rich.console import Console

    study = fake_study(REFERENCES)
    console = Console(record=True, width=200)
    table = framework.reproduce(
        study, quick=True, jobs=1, out=tmp_path, progress=False, console=console, worker=fake_worker
    )
    assert table["ci_half_width"].isna().all()
    text = console.export_text()
    assert "n/a" in text
    assert "PASS" in text and "FAIL" in text
    assert "quick mode: one seed only" in text
    assert text.rstrip().endswith("checks within tolerance")
    document = json.loads((tmp_path / "fake.json").read_text())
    assert document["checks"][0]["ci_half_width"] is None


def test_parallel_and_serial_execution_agree(tmp_path):
    study = fake_study(REFERENCES)
    serial = framework.reproduce(
        study, jobs=1, out=tmp_path / "s", progress=False, show=False, worker=fake_worker
    )
    parallel = framework.reproduce(
        study, jobs=2, out=tmp_path / "p", progress=False, show=False, worker=fake_worker
    )
    pd.testing.assert_frame_equal(serial, parallel)
    assert (tmp_path / "s" / "fake.csv").read_bytes() == (tmp_path / "p" / "fake.csv").read_bytes()


def test_artifacts_see_the_runs_in_order_whatever_order_they_finish_in(tmp_path):
    # Artifacts average over seeds; a float sum in finishing order would make
    # the same study write different last bits from one run to the next.
    seen = []

    def artifacts(specs, summaries, out, quick):
        seen.append(list(summaries))
        return []

    study = dataclasses.replace(fake_study(REFERENCES), artifacts=artifacts)
    framework.reproduce(
        study, jobs=3, out=tmp_path, progress=False, show=False, worker=reversing_worker
    )
    assert seen == [[(i, seed) for i in (0, 1) for seed in (1, 2, 3)]]


def test_reference_to_unknown_run_is_a_study_bug(tmp_path):
    study = fake_study([Reference("medium", "x", 1.0, "src", 0.1)])
    with pytest.raises(ValueError, match="medium"):
        framework.reproduce(
            study, jobs=1, out=tmp_path, progress=False, show=False, worker=fake_worker
        )
    assert list(tmp_path.iterdir()) == []


def test_quick_mode_leaves_out_full_only_runs_and_their_references(tmp_path):
    base = fake_study(REFERENCES)

    def runs(quick):
        return [s for s in base.runs(quick) if not (quick and s.label == "high")]

    study = dataclasses.replace(base, runs=runs, full_only=frozenset({"high"}))
    assert study.references_for(False) == REFERENCES
    assert {r.label for r in study.references_for(True)} == {"low"}
    run = dict(jobs=1, progress=False, show=False, worker=fake_worker)
    quick = framework.reproduce(study, quick=True, out=tmp_path / "q", **run)
    assert set(quick["label"]) == {"low"}
    full = framework.reproduce(study, out=tmp_path / "f", **run)
    assert len(full) == len(REFERENCES)


@pytest.mark.parametrize("jobs", [1, 2])
def test_failed_run_is_named_and_nothing_is_written(tmp_path, jobs):
    study = fake_study(REFERENCES)
    with pytest.raises(RunFailed, match="run 'high' with seed 2 failed: no route"):
        framework.reproduce(
            study, jobs=jobs, out=tmp_path, progress=False, show=False, worker=failing_worker
        )
    assert list(tmp_path.iterdir()) == []


def test_interrupt_stops_running_workers_promptly():
    specs = [RunSpec("quick", {}, {"sleep": 0.0})] + [
        RunSpec(f"slow{i}", {}, {"sleep": 60.0}) for i in range(3)
    ]
    tasks = [execution._Task(i, 1) for i in range(len(specs))]

    def advance():
        raise KeyboardInterrupt  # Ctrl-C as soon as the first run finishes

    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        execution._execute_pool(specs, tasks, 2, slow_worker, advance)
    assert time.monotonic() - started < 30


def test_write_atomic_failure_keeps_old_file(tmp_path, monkeypatch):
    path = tmp_path / "t.csv"
    path.write_text("old\n")

    def failing_replace(src, dst):
        raise OSError("simulated")

    monkeypatch.setattr(present.os, "replace", failing_replace)
    with pytest.raises(OSError):
        present.write_atomic(path, "new\n")
    assert path.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["t.csv"]


# ---------------------------------------------------------------------------
# Registry


def test_registry_knows_queueing_theory():
    assert studies.get("queueing-theory") is queueing_theory.STUDY


def test_unknown_study_lists_known_ones():
    with pytest.raises(KeyError) as info:
        studies.get("no-such-study")
    message = str(info.value)
    assert "no-such-study" in message and "queueing-theory" in message
    assert not message.startswith("'")


# ---------------------------------------------------------------------------
# Queueing-theory closed forms


@pytest.mark.parametrize("mean", [1.2, 3.0, 50.0, 1000.0])
def test_rounded_exponential_moments_match_brute_force(mean):
    k = np.arange(1, int(mean * 80) + 2, dtype=float)
    # P(S = 1) = P(X < 1.5); P(S = k) = P(k - 0.5 <= X < k + 0.5) for k >= 2
    lower = np.where(k == 1, 0.0, k - 0.5)
    pmf = np.exp(-lower / mean) - np.exp(-(k + 0.5) / mean)
    first, second = queueing_theory.rounded_exponential_moments(mean)
    assert first == pytest.approx(float(np.sum(k * pmf)), rel=1e-12)
    assert second == pytest.approx(float(np.sum(k * k * pmf)), rel=1e-12)


def test_md1_reference_is_the_textbook_value():
    for rho in queueing_theory.LOADS:
        assert queueing_theory.reference_wq("M/D/1", rho) == pytest.approx(
            queueing_theory.textbook_wq("M/D/1", rho), rel=1e-12
        )


def test_mm1_reference_is_close_to_but_not_the_textbook_value():
    # mu = 10 Mbps / 8000 bit = 1250 /s; at rho = 0.8 the textbook Wq is 3.2 ms.
    assert queueing_theory.textbook_wq("M/M/1", 0.8) == pytest.approx(3.2e-3, rel=1e-12)
    exact = queueing_theory.reference_wq("M/M/1", 0.8)
    assert exact != queueing_theory.textbook_wq("M/M/1", 0.8)
    assert exact == pytest.approx(3.2e-3, rel=1e-5)
    assert queueing_theory.reference_lq("M/M/1", 0.8) == pytest.approx(3.2, rel=1e-5)


def test_queueing_study_has_a_reference_for_every_run_and_metric():
    study = queueing_theory.STUDY
    labels = {spec.label for spec in study.runs(False)}
    assert labels == {spec.label for spec in study.runs(True)}
    checked = {(r.label, r.metric) for r in study.references}
    assert checked == {(lab, m) for lab in labels for m in ("Wq_s", "Lq_packets", "little_ratio")}


def test_queueing_metrics_from_a_summary():
    spec = queueing_theory.runs(True)[0]
    summary = {
        "links.ab.wait_mean_s": 0.002,
        "links.ab.queue_mean_packets": 2.1,
        "links.ab.arrivals": 1000,
        "run.end_time_s": 1.0,
    }
    m = queueing_theory.metrics(summary, spec)
    assert m == {"Wq_s": 0.002, "Lq_packets": 2.1, "little_ratio": pytest.approx(1.05)}


def test_a_reproduction_resumes_from_its_campaign(tmp_path):
    # Runs go through a campaign store: a second reproduction reuses them,
    # and one that lost runs (as if interrupted) computes only those.
    import pandas as pd
    import pyarrow.parquet as pq
    from satcc.build import build_id
    from satcc.studies import get
    from satcc.studies.framework import reproduce

    study = get("queueing-theory")
    first = reproduce(study, quick=True, out=tmp_path, progress=False, show=False)
    campaign = tmp_path / f"campaign-{build_id()}"
    # The runs are stored, then merged into one part per table.
    (part,) = sorted((campaign / "runs").glob("part-*.parquet"))
    runs = pq.read_table(part)
    n_runs = len(study.runs(True)) * len(study.seeds(True))
    assert runs.num_rows == n_runs
    kept = runs.take(list(range(1, n_runs, 2)))  # lose every other run
    pq.write_table(kept, part)
    before = dict(zip(kept["key"].to_pylist(), kept["finished"].to_pylist(), strict=True))
    again = reproduce(study, quick=True, out=tmp_path, progress=False, show=False)
    (part,) = sorted((campaign / "runs").glob("part-*.parquet"))
    after = pq.read_table(part)
    assert after.num_rows == n_runs
    finished = dict(zip(after["key"].to_pylist(), after["finished"].to_pylist(), strict=True))
    # Only the lost half was recomputed: the kept runs are the same rows.
    assert all(finished[key] == stamp for key, stamp in before.items())
    pd.testing.assert_frame_equal(first, again)


def test_a_reproduction_after_a_code_change_recomputes_every_run(tmp_path):
    # The stored runs of another build are never reused: its campaign is
    # removed, with a note, and every run computed again. The change is a
    # real one: a copy of the package with one source edited.
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    from satcc import build
    from satcc.store import Campaign

    def reproduce_with(package_root: Path | None) -> str:
        env = {**os.environ, "PYTHONPATH": str(package_root)} if package_root else None
        code = (
            "import sys; from satcc.cli import main; "
            "sys.argv = ['satcc', 'reproduce', 'queueing-theory', '--quick', "
            "'--out', sys.argv[1]]; main()"
        )
        done = subprocess.run(
            [sys.executable, "-c", code, str(tmp_path / "out")],
            capture_output=True,
            text=True,
            env=env,
        )
        assert done.returncode == 0, done.stderr[-2000:]
        return done.stdout

    reproduce_with(None)
    old = tmp_path / "out" / f"campaign-{build.build_id()}"
    assert old.is_dir()
    copy = tmp_path / "edited" / "satcc"
    shutil.copytree(Path(build.__file__).parent, copy, ignore=shutil.ignore_patterns("__pycache__"))
    (copy / "units.py").write_text((copy / "units.py").read_text() + "\n# an edit\n")
    out = reproduce_with(copy.parent)
    assert not old.exists()
    assert f"removed 1 campaign(s) of other builds: {old.name}" in out
    (new,) = (tmp_path / "out").glob("campaign-*")
    builds = Campaign.open(new).builds()
    assert list(builds) == [new.name.removeprefix("campaign-")] != [build.build_id()]


def test_a_key_only_other_runs_have_reads_back_as_absent():
    # The campaign store keeps summaries as columns: a block size only some
    # runs reach reads back as pd.NA in a column of nullable integers.
    assert execution._missing(pd.NA) and execution._missing(None)
    assert execution._missing(math.nan)
    assert not execution._missing(0) and not execution._missing("duration")


def test_off_a_terminal_the_comparison_is_printed_in_full(tmp_path, capsys):
    # As in `make run`'s log: rich would cut a long metric name to fit 80 columns.
    metric = "a_metric_whose_name_alone_takes_most_of_an_eighty_column_line"
    base = fake_study([Reference("low", metric, 1.0, "src", 2.0, tolerance_kind="factor")])
    study = dataclasses.replace(
        base, metrics=lambda summary, spec: {**base.metrics(summary, spec), metric: summary["x"]}
    )
    framework.reproduce(study, jobs=1, out=tmp_path, progress=False, worker=fake_worker)
    out = capsys.readouterr().out
    assert "…" not in out
    (row,) = [line.split() for line in out.splitlines() if line.startswith("low ")]
    assert row[1] == metric and row[-3:] == ["×2", "PASS", "[1]"]


def test_a_study_that_names_series_gets_them_from_its_campaign(tmp_path):
    # A probe's series goes through the campaign store like the summary and
    # comes back to the study's artifacts, keyed by (run index, seed).
    def scenario(rate: str) -> dict:
        return {
            "run": {
                "name": f"cbr-{rate.split()[0]}",
                "duration": "2 s",
                "sample_interval": "0.5 s",
            },
            "nodes": {"a": {}, "b": {}},
            "links": {"ab": {"from": "a", "to": "b", "rate": "10 Mbps"}},
            "sinks": {"rx": {"node": "b"}},
            "sources": {"s": {"type": "cbr", "from": "a", "to": "rx", "rate": rate}},
            "probes": {"q": {"link": "ab", "metric": "throughput_bps"}},
        }

    seen = {}

    def artifacts(specs, summaries, out, quick, series):
        seen.update(series)
        return []

    study = Study(
        name="with-series",
        title="series",
        paper="none",
        description="",
        runs=lambda quick: [
            RunSpec("one", {}, scenario("1 Mbps")),
            RunSpec("two", {}, scenario("2 Mbps")),
        ],
        metrics=lambda summary, spec: {"u": summary["links.ab.utilisation"]},
        references=[],
        seeds=lambda quick: [1],
        artifacts=artifacts,
        series=("q",),
    )
    framework.reproduce(study, quick=True, out=tmp_path, progress=False, show=False, jobs=1)
    assert set(seen) == {(0, 1), (1, 1)}
    for (i, _), found in seen.items():
        times, values = found["q"]
        assert list(times) == [0.5, 1.0, 1.5, 2.0]
        assert values[-1] == pytest.approx(1e6 * (i + 1), rel=0.05)


def test_queueing_metrics_of_a_run_with_no_arrival_are_not_judged():
    # No arrival: the mean wait is null, which raised a TypeError, and
    # Little's ratio divided by zero. Both are NaN now, and not judged.
    spec = queueing_theory.runs(True)[0]
    summary = {
        "links.ab.wait_mean_s": None,
        "links.ab.queue_mean_packets": 0.0,
        "links.ab.arrivals": 0,
        "run.end_time_s": 1.0,
    }
    m = queueing_theory.metrics(summary, spec)
    assert math.isnan(m["Wq_s"]) and math.isnan(m["little_ratio"]) and m["Lq_packets"] == 0
    study = queueing_theory.STUDY
    specs = study.runs(True)
    per_run = compare.measure(study, specs, {(i, 1): summary for i in range(len(specs))})
    table = compare.compare(study, specs, compare.aggregate(per_run), quick=True)
    unmeasured = table[table["metric"] != "Lq_packets"]
    assert unmeasured["passed"].isna().all()
