"""Cutting a sweep's or a study's runs into batches (satcc.executors.Batch).

A run of a small scenario simulates in well under a millisecond, and a run
handed to a worker on its own costs more than that around it: the hand-off,
the reply, one write of the store's three tables. So runs go in batches,
sized as they are handed out, from the run times seen so far:

- a batch aims at TARGET_BATCH_S of work; a run that long or longer goes
  alone, so that parallelism and each run's wall-clock budget work as they
  do without batches;
- no batch takes more than its share of what is left (SHARES_PER_JOB per
  worker), so the last batches still keep every worker busy;
- the first runs go alone (nothing is known yet), and the estimate rises at
  once with a batch of longer runs but falls only gradually, so a sweep
  whose runs grow longer (a swept duration) does not send its long runs in
  batches sized for its short ones for long.

Batching changes no result: every run is its own description, run by
itself in a worker whatever its batch-mates, stored under the same key.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence

from .executors import Batch, Outcome, Task

# Work per batch aimed at: long enough that the ~1 ms of hand-off, reply and
# store write per batch is small beside it, short enough that a batch in
# flight is little to lose to a kill -9 and Ctrl-C stops promptly.
TARGET_BATCH_S = 0.25
MAX_BATCH_RUNS = 1000
SHARES_PER_JOB = 2
# Weight of the latest batch in a falling estimate.
FALL_WEIGHT = 0.25


class Batcher:
    """Hands `tasks` out in batches (`batches()`, drawn lazily by the
    executor) sized from the outcomes reported back (`seen`)."""

    def __init__(self, tasks: Sequence[Task], jobs: int):
        self._tasks = tasks
        self._jobs = max(1, jobs)
        self._given = 0
        self.run_s: float | None = None  # the estimated wall time of one run

    def batches(self) -> Iterator[Batch]:
        while self._given < len(self._tasks):
            size = self.size(len(self._tasks) - self._given)
            yield Batch(tuple(self._tasks[self._given : self._given + size]))
            self._given += size

    def size(self, left: int) -> int:
        if self.run_s is None:
            return 1
        by_time = int(TARGET_BATCH_S / max(self.run_s, 1e-9))
        share = math.ceil(left / (SHARES_PER_JOB * self._jobs))
        return max(1, min(by_time, share, MAX_BATCH_RUNS))

    def seen(self, outcomes: Iterable[Outcome]) -> None:
        walls = [w for o in outcomes if isinstance(w := (o.info or {}).get("wall_s"), int | float)]
        if not walls:
            return
        mean = sum(walls) / len(walls)
        if self.run_s is None or mean > self.run_s:
            self.run_s = mean
        else:
            self.run_s += FALL_WEIGHT * (mean - self.run_s)


def executor_jobs(executor: object, default: int) -> int:
    """How many runs `executor` runs at once, as far as it says (`jobs`)."""
    jobs = getattr(executor, "jobs", None)
    return jobs if isinstance(jobs, int) and jobs > 0 else default


def outcome_groups(executor: object, tasks: Sequence[Task], jobs: int) -> Iterator[list[Outcome]]:
    """The outcomes of `tasks` on `executor`, a list per batch, or one per
    run for an executor that takes no batches (one with `run` only)."""
    run_batches = getattr(executor, "run_batches", None)
    if run_batches is None:
        for outcome in executor.run(tasks):  # type: ignore[attr-defined]
            yield [outcome]
        return
    batcher = Batcher(tasks, executor_jobs(executor, jobs))
    for outcomes in run_batches(batcher.batches()):
        batcher.seen(outcomes)
        yield outcomes
