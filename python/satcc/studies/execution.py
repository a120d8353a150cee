"""Running a study's runs: every (RunSpec x seed), each summary handed back
to the parent process, where the study's metric functions live.

`execute_in_campaign` is how a reproduction runs: through a campaign store
(docs/campaigns.md), so an interrupted one resumes, and on the executors of
satcc.executors, where a sweep's runs go. `execute` runs a study with a
stand-in `worker` instead of the simulator (tests: workers that sleep,
fail or return made-up summaries), in this process or on a pool of its own.

That pool is started by `executors.process_pool` and stopped by
`executors.abandon_pool`, as a sweep's is, but it is not a
`LocalExecutor`: that one runs only `executors.execute` on a scenario
description, turns every failure into an `Outcome` and retries a run whose
worker died, while a stand-in worker is any function of (scenario dict,
seed) and its first failure must stop the study with a RunFailed that
carries the worker's own exception. Its workers ignore Ctrl-C
(`executors.ignore_sigint`): the parent alone answers it, by abandoning the
pool."""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, wait
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
)

from satcc import _core, fmt
from satcc.batches import outcome_groups
from satcc.build import build_id
from satcc.executors import (
    WORKERS_DIED_HINT,
    Task,
    abandon_pool,
    default_jobs,
    ignore_sigint,
    map_in_processes,
    process_pool,
    worker_died,
)
from satcc.runner import run as run_scenario
from satcc.scenario import Scenario, normalised_json
from satcc.signals import raise_if_terminated
from satcc.store import Campaign, RunPoint
from satcc.studies.errors import RunFailed
from satcc.studies.spec import RunSpec
from satcc.sweeps import make_executor, run_key


def run_one(scenario: dict[str, Any], seed: int) -> dict[str, Any]:
    """Worker: run one scenario with one seed and return its summary.

    Module-level and plain-data in, plain-data out, so that it pickles to a
    worker process; the metrics are extracted in the parent, where the study
    object lives.
    """
    return dict(run_scenario(scenario, seed=seed, progress=False).summary)


@dataclass(frozen=True)
class _Task:
    index: int  # position of the RunSpec in the study's run list
    seed: int


def execute(
    specs: list[RunSpec],
    seeds: list[int],
    *,
    jobs: int | None = None,
    progress: bool = False,
    title: str = "runs",
    worker: Callable[[dict[str, Any], int], dict[str, Any]] = run_one,
) -> dict[tuple[int, int], dict[str, Any]]:
    """Run every (spec, seed); returns {(spec index, seed): summary}.

    jobs=1 runs in this process (no pool: easier to debug and profile).
    `worker` must be a module-level function for jobs > 1. The first run
    that fails stops everything and raises RunFailed.
    """
    tasks = [_Task(i, seed) for i, spec in enumerate(specs) for seed in spec.seeds or seeds]
    jobs = max(1, min(jobs or default_jobs(), len(tasks)))
    with _ProgressBar(progress, title, len(tasks)) as advance:
        if jobs == 1:
            return _execute_inline(specs, tasks, worker, advance)
        return _execute_pool(specs, tasks, jobs, worker, advance)


def execute_in_campaign(
    specs: list[RunSpec],
    seeds: list[int],
    campaign: str | os.PathLike[str],
    *,
    study: str = "study",
    jobs: int | None = None,
    progress: bool = False,
    planned: dict[str, tuple[int, int, str]] | None = None,
    executor: str = "local",
    scheduler: str | None = None,
) -> dict[tuple[int, int], dict[str, Any]]:
    """Like `execute`, but every run goes through a campaign store
    (docs/campaigns.md): runs already there are read back, not recomputed,
    and each batch of finished runs is stored at once (satcc.batches), so an
    interrupted reproduction resumes where it stopped. Run keys carry the build identity
    (satcc.build), so a run is reused only by the build that computed it;
    the campaign folder is the build's (`reproduce` removes those of other
    builds). The runs
    execute where a sweep's would (`executor`: "local" processes, "dask" at
    `scheduler`, or "dask-local", a cluster started here)."""
    planned = planned if planned is not None else plan_runs(specs, seeds)
    store = Campaign.open(
        campaign,
        create_with={
            "satcc_version": _core.version(),
            "satcc_build": build_id(),
            "created": pd.Timestamp.now(tz="UTC").isoformat(),
            "scenario": study,
            "base_description": None,
            "parameters": ["run"],
        },
    )
    done = store.done_keys() & planned.keys()
    results = {}
    if done:
        stored = store.summary().set_index("key")
        summary_columns = [c for c in stored.columns if "." in c and not c.startswith("param.")]
        for key in done:
            row = stored.loc[key, summary_columns]
            i, seed, _ = planned[key]
            results[(i, seed)] = {c: _plain(v) for c, v in row.items() if not _missing(v)}
    pending = [k for k in planned if k not in done]
    points = {k: RunPoint({"run": specs[planned[k][0]].label}, planned[k][1]) for k in pending}
    workers = max(1, min(jobs or default_jobs(), len(pending) or 1))
    runner = make_executor(executor, workers, scheduler, retries=2)
    try:
        with _ProgressBar(progress, study, len(planned)) as advance:
            for _ in done:
                advance()
            tasks = [Task(k, planned[k][2]) for k in pending]
            for outcomes in outcome_groups(runner, tasks, workers):
                # Judged as stored: a run of another build is a failure.
                outcomes = store.append(outcomes, points)
                for outcome in outcomes:
                    i, seed, _ = planned[outcome.key]
                    if not outcome.ok:
                        hint = f"; {WORKERS_DIED_HINT}" if worker_died(outcome.error) else ""
                        raise RunFailed(
                            f"run {specs[i].label!r} with seed {seed} failed: {outcome.error}{hint}"
                        )
                    results[(i, seed)] = outcome.summary
                    advance()
    except BaseException:
        runner.terminate()
        raise
    runner.close()
    if pending:
        # One part per run until now: merged, a study's thousands of runs
        # read back in one file instead of thousands.
        store.compact()
    return results


def plan_runs(
    specs: list[RunSpec], seeds: list[int], jobs: int = 1
) -> dict[str, tuple[int, int, str]]:
    """Every (spec, seed) of a study by run key: (spec index, seed, normalised
    description). A spec is validated once; its other seeds' descriptions
    differ only by the seed (`Scenario.reseeded`). A study of thousands of
    specs (tfrc-dama's 11 316) is validated on `jobs` processes, in chunks
    whose results keep the specs' order."""
    if jobs <= 1 or len(specs) < PARALLEL_PLANNING_SPECS:
        return dict(_plan_chunk(specs, 0, seeds))
    size = -(-len(specs) // (4 * jobs))  # a few chunks per process, for balance
    chunks = [(specs[k : k + size], k, seeds) for k in range(0, len(specs), size)]
    planned: dict[str, tuple[int, int, str]] = {}
    for part in map_in_processes(_plan_chunk, chunks, jobs):
        planned.update(part)
    return planned


# Below this many specs, starting worker processes costs more than it saves.
PARALLEL_PLANNING_SPECS = 1000


def _plan_chunk(
    specs: list[RunSpec], offset: int, seeds: list[int]
) -> list[tuple[str, tuple[int, int, str]]]:
    """plan_runs for `specs`, the study's specs from index `offset` on."""
    planned = []
    for i, spec in enumerate(specs, start=offset):
        # The study's own dict, not a copy: validation only reads it.
        scenario = Scenario(spec.scenario)
        validated: dict | None = None  # one validation per spec: seeds only reseed it
        for seed in spec.seeds or seeds:
            try:
                if validated is None:
                    validated = scenario.validate(seed=seed)
                    desc = validated
                else:
                    desc = scenario.reseeded(validated, seed)
            except Exception as e:  # the study's own scenario: a bug, not user input
                raise _run_failed(spec, _Task(i, seed), e) from e
            description = normalised_json(desc)
            planned.append((run_key(description), (i, seed, description)))
    return planned


def campaign_series(
    planned: dict[str, tuple[int, int, str]],
    campaign: str | os.PathLike[str],
    names: tuple[str, ...],
) -> dict[tuple[int, int], dict[str, tuple[np.ndarray, np.ndarray]]]:
    """The series `names` of a study's planned runs (`plan_runs`), from its
    campaign store: {(spec index, seed): {name: (x, values)}}, for the runs
    that have them."""
    by_key = {key: (i, seed) for key, (i, seed, _) in planned.items()}
    store = Campaign.open(campaign)
    wanted = ", ".join("'" + n.replace("'", "''") + "'" for n in names)
    frame = store.sql(
        f"select key, series, time_s, value from series where series in ({wanted}) "
        "order by key, series, time_s"
    )
    out: dict[tuple[int, int], dict[str, tuple[np.ndarray, np.ndarray]]] = {}
    for (key, name), part in frame.groupby(["key", "series"], sort=False):
        if key in by_key:
            out.setdefault(by_key[key], {})[name] = (
                part["time_s"].to_numpy(),
                part["value"].to_numpy(),
            )
    return out


def _missing(value: Any) -> bool:
    # A key another run has and this one lacks reads back as None, NaN, or
    # pd.NA in a column of nullable integers (a block size only some runs
    # reach).
    return value is pd.NA or fmt.is_missing(value)


def _plain(value: Any) -> Any:
    # Parquet gives numpy scalars back; the metric functions expect numbers.
    return value.item() if hasattr(value, "item") else value


def _run_failed(spec: RunSpec, task: _Task, error: Exception) -> RunFailed:
    return RunFailed(f"run {spec.label!r} with seed {task.seed} failed: {error}")


def _execute_inline(
    specs: list[RunSpec], tasks: list[_Task], worker: Callable, advance: Callable[[], None]
) -> dict[tuple[int, int], dict[str, Any]]:
    results = {}
    for task in tasks:
        spec = specs[task.index]
        try:
            results[(task.index, task.seed)] = worker(spec.scenario, task.seed)
        except Exception as e:
            raise _run_failed(spec, task, e) from e
        advance()
    return results


def _execute_pool(
    specs: list[RunSpec],
    tasks: list[_Task],
    jobs: int,
    worker: Callable,
    advance: Callable[[], None],
) -> dict[tuple[int, int], dict[str, Any]]:
    executor = process_pool(jobs, ignore_sigint)
    results: dict[tuple[int, int], dict[str, Any]] = {}
    try:
        pending: dict[Future, _Task] = {
            executor.submit(worker, specs[t.index].scenario, t.seed): t for t in tasks
        }
        while pending:
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            raise_if_terminated()
            for future in done:
                task = pending.pop(future)
                try:
                    results[(task.index, task.seed)] = future.result()
                except Exception as e:
                    raise _run_failed(specs[task.index], task, e) from e
                advance()
    except BaseException:
        abandon_pool(executor)
        raise
    executor.shutdown(wait=True)
    return results


class _ProgressBar:
    """Context manager yielding an `advance()` callable; a no-op when off."""

    def __init__(self, enabled: bool, title: str, total: int) -> None:
        self._progress = None
        if enabled:
            self._progress = Progress(
                TextColumn("[bold]{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("runs"),
                TimeElapsedColumn(),
                console=Console(stderr=True),
                transient=True,
            )
            self._task = self._progress.add_task(title, total=total)

    def __enter__(self) -> Callable[[], None]:
        if self._progress is None:
            return lambda: None
        self._progress.start()
        return lambda: self._progress.advance(self._task)

    def __exit__(self, *exc: object) -> None:
        if self._progress is not None:
            self._progress.stop()
