# Batched runs (satcc.batches, docs/campaigns.md): a grid point validated
# once for all its seeds gives the descriptions (and so the run keys) a
# validation per seed gives; batches are sized from run times and cover every
# run once; a batch stored in one write holds what one write per run holds;
# a run failing in a batch, or a worker killed in the middle of one, loses no
# batch-mate; a batched sweep killed with SIGKILL resumes to exactly the
# results of an uninterrupted one.

import os
import signal
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from campaign_helpers import stored_runs, wait_stored
from satcc.batches import MAX_BATCH_RUNS, TARGET_BATCH_S, Batcher, shape
from satcc.executors import (
    WORKER_DIED,
    Batch,
    LocalExecutor,
    Outcome,
    Task,
    _Pending,
    execute,
    execute_batch,
)
from satcc.scenario import ScenarioError, load, normalised_json
from satcc.store import Campaign, RunPoint
from satcc.sweeps import SweepPoint, grid, plan, run_key

ROOT = Path(__file__).resolve().parents[1]
MM1 = ROOT / "examples" / "mm1.toml"
EXAMPLES = sorted((ROOT / "examples").glob("*.toml"))
SEEDS = [0, 1, 2, 17, 12345, 2**31, 2**63 - 1]


# ---------------------------------------------------------------------------
# One validation per grid point


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_reseeding_gives_what_validating_with_the_seed_gives(path):
    scenario = load(path)
    first = scenario.validate(seed=SEEDS[0])
    for seed in SEEDS[1:]:
        full = normalised_json(scenario.validate(seed=seed))
        assert normalised_json(scenario.reseeded(first, seed)) == full
    # Reseeding from another seed than the first, and back to the scenario's own.
    own = scenario.validate()
    assert scenario.reseeded(scenario.reseeded(own, 99), own["seed"]) == own


@pytest.mark.parametrize("bad", [-1, 2**63, 1.5, "7", True])
def test_a_bad_seed_is_refused_as_validation_refuses_it(bad):
    scenario = load(MM1)
    with pytest.raises(ScenarioError) as full:
        scenario.validate(seed=bad)
    with pytest.raises(ScenarioError) as reseeded:
        scenario.reseeded(scenario.validate(seed=1), bad)
    assert str(reseeded.value) == str(full.value)


def test_a_planned_grid_has_the_keys_of_one_validation_per_run():
    scenario = load(MM1).set("run.duration", "1 s")
    g = grid(
        set={
            "sources.arrivals.rate": ["2 Mbps", "6 Mbps"],
            "links.server.rate": ["5 Mbps", "10 Mbps"],
        },
        seeds="1..6",
    )
    planned = plan(scenario, g.points())
    assert len(planned) == 24
    for run, point in zip(planned, g.points(), strict=True):
        variant = scenario.copy()
        for k, v in point.params.items():
            variant.set(k, v)
        text = normalised_json(variant.validate(seed=point.seed))
        assert run.description == text and run.key == run_key(text)
        assert run.point.seed == point.seed and run.point.params == point.params


def test_a_bad_seed_in_a_grid_names_its_point():
    scenario = load(MM1)
    params = {"run.duration": "1 s"}
    points = [SweepPoint(params, 1), SweepPoint(params, -3)]
    with pytest.raises(ScenarioError, match=r"sweep point .*seed=-3.*run\.seed"):
        plan(scenario, points)


def test_a_study_plans_the_keys_of_one_validation_per_run():
    from satcc.scenario import Scenario
    from satcc.studies import get
    from satcc.studies.execution import plan_runs

    study = get("queueing-theory")
    specs, seeds = study.runs(True), list(study.seeds(True))
    planned = plan_runs(specs, seeds)
    expected = {}
    for i, spec in enumerate(specs):
        for seed in spec.seeds or seeds:
            text = normalised_json(Scenario.from_dict(spec.scenario).validate(seed=seed))
            expected[run_key(text)] = (i, seed, text)
    assert planned == expected and len(planned) > len(specs)


# ---------------------------------------------------------------------------
# Batch sizes


def _tasks(n: int) -> list[Task]:
    return [Task(f"k{i}", "{}") for i in range(n)]


def _took(batch: Batch, wall_s: float) -> list[Outcome]:
    return [Outcome(t.key, True, info={"wall_s": wall_s}) for t in batch.tasks]


def test_batches_cover_every_run_once_in_order_and_follow_the_run_times():
    tasks = _tasks(20_000)
    batcher = Batcher(tasks, jobs=2)
    sizes, given = [], []
    for batch in batcher.batches():
        sizes.append(len(batch.tasks))
        given.extend(batch.tasks)
        # Short runs first, then a stretch of runs as long as a whole batch.
        wall = 0.001 if len(given) < 10_000 else TARGET_BATCH_S * 2
        batcher.seen(_took(batch, wall))
    assert given == tasks
    assert sizes[0] == 1  # nothing known yet
    assert max(sizes) == round(TARGET_BATCH_S / 0.001) <= MAX_BATCH_RUNS
    # Once the runs are long, at once one per batch.
    first_long = next(i for i, n in enumerate(sizes) if sum(sizes[:i]) >= 10_000)
    assert set(sizes[first_long + 1 :]) == {1}


def test_a_group_not_yet_seen_goes_alone_and_never_joins_a_batch():
    # Three groups: short runs, long runs, short runs. The long group's
    # runs must never ride in a batch sized from the short group's.
    tasks = _tasks(3000)
    groups = ["a"] * 1000 + ["long"] * 10 + ["b"] * 1990
    walls = {"a": 0.001, "long": 5.0, "b": 0.002}
    batcher = Batcher(tasks, jobs=2, group=lambda task: groups[int(task.key[1:])])
    batches = []
    for batch in batcher.batches():
        batches.append([groups[int(t.key[1:])] for t in batch.tasks])
        batcher.seen(
            Outcome(t.key, True, info={"wall_s": walls[groups[int(t.key[1:])]]})
            for t in batch.tasks
        )
    assert [g for b in batches for g in b] == groups
    assert all(b == ["long"] for b in batches if "long" in b)
    assert all(len(set(b)) == 1 for b in batches)  # each group's first run alone
    assert max(len(b) for b in batches if b[0] == "b") == round(TARGET_BATCH_S / 0.002)


def test_runs_of_one_kind_are_one_group():
    mm1 = load(MM1)
    base = shape(normalised_json(mm1.validate(seed=1)))
    other_seed_and_rate = mm1.copy().set("sources.arrivals.rate", "3 Mbps")
    assert shape(normalised_json(other_seed_and_rate.validate(seed=7))) == base
    a_little_longer = mm1.copy().set("run.duration", "601 s")
    assert shape(normalised_json(a_little_longer.validate(seed=1))) == base
    twice_as_long = mm1.copy().set("run.duration", "1200 s")
    assert shape(normalised_json(twice_as_long.validate(seed=1))) != base
    other_sizes = mm1.copy().set("sources.arrivals.size_distribution", "constant")
    assert shape(normalised_json(other_sizes.validate(seed=1))) != base


def test_the_last_batches_leave_every_worker_a_share():
    batcher = Batcher(_tasks(100), jobs=2)
    batcher.run_s[shape("{}")] = 1e-6  # runs far shorter than a batch: only the share limits
    assert batcher.size(0) == 25 and batcher.size(97) == 1
    batcher.seen([Outcome("k1", False, info={})])  # no wall time: no change
    assert batcher.run_s == {shape("{}"): 1e-6}


def test_a_falling_estimate_falls_gradually():
    batcher = Batcher(_tasks(10), jobs=1)
    list(zip(range(2), batcher.batches(), strict=False))  # hand out two
    batcher.seen([Outcome("k0", True, info={"wall_s": 0.1})])
    batcher.seen([Outcome("k1", True, info={"wall_s": 0.001})])
    assert 0.001 < batcher.run_s[shape("{}")] < 0.1


# ---------------------------------------------------------------------------
# The store: one write per batch holds what one write per run holds


def _mm1_tasks(seeds, duration: str = "1 s") -> list[Task]:
    scenario = load(MM1).set("run.duration", duration).set("run.sample_interval", "0.1 s")
    texts = [normalised_json(scenario.validate(seed=s)) for s in seeds]
    return [Task(run_key(t), t, max_wall_s=60.0) for t in texts]


def _tables(campaign: Campaign) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    # Everything but the times the runs took and were stored.
    summary = campaign.summary().drop(columns=["wall_s", "finished"])
    summary = summary.sort_values("key").reset_index(drop=True)
    series = campaign.sql("select * from series order by key, series, time_s")
    runs = campaign.sql("select key, status, seed, params, error from runs order by key")
    return summary, series, runs


def test_a_batch_stored_at_once_reads_back_as_runs_stored_one_by_one(tmp_path):
    tasks = _mm1_tasks(range(1, 7))
    bad = Task("bad", '{"name": "x"}')
    outcomes = execute_batch(Batch((*tasks[:3], bad, *tasks[3:])))
    assert [o.ok for o in outcomes] == [True] * 3 + [False] + [True] * 3
    points = {o.key: RunPoint({"run": "x"}, i) for i, o in enumerate(outcomes)}
    meta = {"satcc_version": "v", "scenario": "s", "parameters": ["run"]}
    batched = Campaign.open(tmp_path / "batched", create_with=meta)
    batched.append(outcomes, points)
    one_by_one = Campaign.open(tmp_path / "single", create_with=meta)
    for outcome in outcomes:
        one_by_one.append([outcome], points)
    assert len(batched.parts("runs")) == 1 and len(one_by_one.parts("runs")) == 7
    for got, expected in zip(_tables(batched), _tables(one_by_one), strict=True):
        pd.testing.assert_frame_equal(got, expected)
    one_by_one.compact()
    for got, expected in zip(_tables(batched), _tables(one_by_one), strict=True):
        pd.testing.assert_frame_equal(got, expected)


# ---------------------------------------------------------------------------
# Failures inside a batch


def _same_results(got: list[Outcome], expected: list[Outcome]) -> None:
    by_key = {o.key: o for o in got}
    assert len(by_key) == len(got) == len(expected)
    for o in expected:
        assert by_key[o.key].ok and by_key[o.key].summary == o.summary
        assert by_key[o.key].series == o.series


def test_a_failing_run_loses_no_batch_mate():
    tasks = _mm1_tasks(range(1, 4))
    over_budget = Task("slow", _mm1_tasks([9], duration="100000 s")[0].description, max_events=1)
    bad = Task("bad", '{"name": "x"}')
    outcomes = execute_batch(Batch((tasks[0], bad, tasks[1], over_budget, tasks[2])))
    expected_keys = [tasks[0].key, "bad", tasks[1].key, "slow", tasks[2].key]
    assert [o.key for o in outcomes] == expected_keys
    assert not outcomes[1].ok and not outcomes[3].ok
    assert "event budget" in outcomes[3].error
    _same_results([outcomes[0], outcomes[2], outcomes[4]], [execute(t) for t in tasks])


def test_a_broken_batch_is_retried_run_by_run_with_a_count_per_run():
    ex = LocalExecutor(jobs=2, retries=1)
    tasks = _tasks(3)
    pending = _Pending([])
    attempts = {"k1": 1}  # k1 already lost its worker once
    failed = ex._retry(Batch(tuple(tasks)), attempts, pending)
    assert [o.key for o in failed] == ["k1"] and failed[0].error.startswith(WORKER_DIED)
    retried = [pending.take(), pending.take(), pending.take()]
    assert retried == [Batch((tasks[0],)), Batch((tasks[2],)), None]
    assert attempts == {"k0": 1, "k1": 2, "k2": 1}


def test_a_worker_killed_mid_batch_loses_no_run():
    # Batches of ~0.5-1 s; once the first comes back, the worker that
    # returned it is killed while it runs its next batch.
    tasks = _mm1_tasks(range(1, 25), duration="500 s")
    batches = [Batch(tuple(tasks[i : i + 4])) for i in range(0, len(tasks), 4)]
    ex = LocalExecutor(jobs=2, retries=2)
    got: list[Outcome] = []
    killed = None
    try:
        for outcomes in ex.run_batches(batches):
            got.extend(outcomes)
            if killed is None:
                killed = outcomes[0].info["pid"]
                os.kill(killed, signal.SIGKILL)
    finally:
        ex.close()
    assert killed is not None
    assert all(o.ok for o in got), [o.error for o in got if not o.ok]
    _same_results(got, [execute(t) for t in tasks])
    # The pool was rebuilt: runs came back from more than the first two workers.
    assert len({o.info["pid"] for o in got}) > 2


# ---------------------------------------------------------------------------
# kill -9 of a batched sweep, then resume


def _sweep_cmd(campaign: Path) -> list[str]:
    return [
        sys.executable,
        "-c",
        "from satcc.cli import main; main()",
        "sweep",
        str(MM1),
        "--set",
        'run.duration="10 s"',
        "--set",
        "sources.arrivals.rate=6 Mbps,8 Mbps",
        "--seeds",
        "1..500",
        "--campaign",
        str(campaign),
        "--jobs",
        "2",
        "--quiet",
    ]


def test_a_batched_sweep_killed_with_sigkill_resumes_to_the_uninterrupted_results(tmp_path):
    killed = tmp_path / "killed"
    proc = subprocess.Popen(
        _sweep_cmd(killed), stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True
    )
    try:
        wait_stored(proc, killed, 50, bound_s=120, poll_s=0.01)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        proc.stdout.close()
        proc.stderr.close()
    before = stored_runs(killed)
    assert 50 <= before < 1000
    resumed = subprocess.run(_sweep_cmd(killed), capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    assert f"1000 runs: {1000 - before} done now, {before} skipped" in resumed.stdout
    whole = tmp_path / "whole"
    done = subprocess.run(_sweep_cmd(whole), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    a, b = Campaign.open(killed), Campaign.open(whole)
    assert len(a.runs()) == 1000 and a.runs()["key"].is_unique
    assert set(a.runs()["status"]) == {"ok"}
    for got, expected in zip(_tables(a), _tables(b), strict=True):
        pd.testing.assert_frame_equal(got, expected)


def test_planning_a_study_leaves_its_scenarios_as_they_were():
    # plan_runs validates the study's own dicts, not copies of them.
    import copy

    from satcc.studies import get
    from satcc.studies.execution import plan_runs

    for name in ("tfrc-dama", "proactive-atm", "abr-lrd-vbr"):
        study = get(name)
        specs = study.runs(True)
        before = copy.deepcopy([spec.scenario for spec in specs])
        plan_runs(specs, list(study.seeds(True)))
        assert [spec.scenario for spec in specs] == before, name


def test_a_study_refuses_a_run_its_store_refused(tmp_path, monkeypatch):
    # A worker of another build (here: the parent pretends to be one) has its
    # runs stored as failures; the study must not go on with their numbers.
    import satcc.store
    from satcc.studies import get
    from satcc.studies.errors import RunFailed
    from satcc.studies.execution import execute_in_campaign

    study = get("queueing-theory")
    specs = study.runs(True)[:1]
    monkeypatch.setattr(satcc.store, "_build", lambda: "0000000000000000")
    with pytest.raises(RunFailed, match="install the same satcc on every worker"):
        execute_in_campaign(specs, [1], tmp_path / "c", jobs=1)


# ---------------------------------------------------------------------------
# A study's own computation in worker processes (map_in_processes)


def _square_or_fail(x: int) -> int:
    # Module level: it pickles into the workers by name.
    if x < 0:
        raise ValueError(f"negative: {x}")
    return x * x


def test_map_in_processes_keeps_the_order_and_raises_a_call_s_failure():
    from satcc.executors import map_in_processes

    calls = [(x,) for x in range(40)]
    expected = [x * x for x in range(40)]
    assert map_in_processes(_square_or_fail, calls, jobs=2) == expected
    assert map_in_processes(_square_or_fail, calls, jobs=1) == expected
    with pytest.raises(ValueError, match="negative: -3"):
        map_in_processes(_square_or_fail, [(1,), (-3,), (2,)], jobs=2)


def test_tfrc_dama_fluid_curves_are_the_same_on_one_or_two_processes():
    import numpy as np
    from satcc.studies.tfrc_dama import figures
    from satcc.studies.tfrc_dama import model as study_model
    from satcc.studies.tfrc_dama.data import PhaseSweep, Results

    t = np.linspace(0.0, 8.0, 81)
    sweep = PhaseSweep(t, np.ones((3, t.size)), np.ones((3, t.size)), [{}] * 3, [0, 5, 11])
    r = Results({("small", "DAMA"): sweep, ("small", "QSD Tq=0"): sweep}, {}, {}, {})
    one = figures.fluid_curves({"ns2": r}, jobs=1)
    two = figures.fluid_curves({"ns2": r}, jobs=2)
    assert one.keys() == two.keys() and sorted(one["ns2"]) == sorted(two["ns2"])
    assert len(one["ns2"]) == 4  # two strategies, two feedback rules
    slot = study_model.timing("small")["slot_s"]
    for key, curve in one["ns2"].items():
        assert curve.tobytes() == two["ns2"][key].tobytes(), key
        # The mean over the sweep's phases of one fluid run each.
        runs = [
            figures.fluid_e2ed("small", key[1], p * slot, key[2], t, "rfc3448") for p in (0, 5, 11)
        ]
        assert curve.tobytes() == np.nanmean(runs, axis=0).tobytes()


def test_a_study_planned_on_two_processes_plans_the_same_runs_in_the_same_order(monkeypatch):
    from satcc.studies import execution, get

    study = get("tfrc-dama")
    specs, seeds = study.runs(True), list(study.seeds(True))
    monkeypatch.setattr(execution, "PARALLEL_PLANNING_SPECS", 10)
    alone = execution.plan_runs(specs, seeds)
    together = execution.plan_runs(specs, seeds, jobs=2)
    assert list(together.items()) == list(alone.items()) and len(alone) > 100
