"""Cutting a sweep's or a study's runs into batches (satcc.executors.Batch).

A run of a small scenario simulates in well under a millisecond, and a run
handed to a worker on its own costs more than that around it: the hand-off,
the reply, one write of the store's three tables. So runs go in batches,
sized as they are handed out, from the run times seen so far:

- runs are in groups by the shape of their description (`shape`: the
  description with its numbers blanked out, and its duration within a
  factor of two): the seeds of
  a grid point, or a study's runs of one scenario with other rates or start
  times, are one group; another topology, other sources or another duration
  are another. Each group's run time is estimated from its own runs, and a
  batch never takes a run of a group not yet estimated, except as the
  first of a batch of one: the first runs of every group go alone, so runs
  of a long kind are never sent in a batch sized from a short kind's;
- a batch aims at TARGET_BATCH_S of estimated work; a run that long or
  longer goes alone, so that parallelism and each run's wall-clock budget
  work as they do without batches;
- no batch takes more than its share of what is left (SHARES_PER_JOB per
  worker), so the last batches still keep every worker busy;
- a group's estimate rises at once with a batch of longer runs but falls
  only gradually.

Batching changes no result: every run is its own description, run by
itself in a worker whatever its batch-mates, stored under the same key.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence

from .executors import Batch, Outcome, Task

# Work per batch aimed at: long enough that the ~1 ms of hand-off, reply and
# store write per batch is small beside it, short enough that a batch in
# flight is little to lose to a kill -9 and Ctrl-C stops promptly.
TARGET_BATCH_S = 0.25
MAX_BATCH_RUNS = 1000
SHARES_PER_JOB = 2
# Weight of the latest batch in a falling estimate.
FALL_WEIGHT = 0.25


# A number in JSON text (and the digits of a name: a coarser group is harmless).
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")


def shape(description: str) -> str:
    """The group of a run: its description's text with every number blanked
    out, after its duration to within a factor of two (runs of one kind and
    about one length take about as long as each other, whatever their seed,
    rates or start times)."""
    try:
        duration = json.loads(description).get("duration_ps")
    except (ValueError, AttributeError):
        duration = None
    octave = math.floor(math.log2(duration)) if isinstance(duration, int) and duration > 0 else None
    return f"{octave}|{_NUMBER.sub('#', description)}"


class Batcher:
    """Hands `tasks` out in batches (`batches()`, drawn lazily by the
    executor) sized from the outcomes reported back (`seen`), per group
    (`group`, by default `shape` of the description)."""

    def __init__(
        self, tasks: Sequence[Task], jobs: int, group: Callable[[Task], Hashable] | None = None
    ):
        self._tasks = tasks
        self._group = group or (lambda task: shape(task.description))
        self._groups: list[Hashable] = []  # of the tasks given or looked at so far
        self._group_of: dict[str, Hashable] = {}  # of the runs handed out, until seen
        self._canonical: dict[Hashable, Hashable] = {}
        self._jobs = max(1, jobs)
        self._given = 0
        self.run_s: dict[Hashable, float] = {}  # the estimated wall time of a group's run

    def _group_at(self, i: int) -> Hashable:
        while len(self._groups) <= i:
            task = self._tasks[len(self._groups)]
            # One object per group, not one per run: a shape is as long as
            # its description, and a sweep may hold a million runs.
            group = self._group(task)
            group = self._canonical.setdefault(group, group)
            self._groups.append(group)
            self._group_of[task.key] = group
        return self._groups[i]

    def batches(self) -> Iterator[Batch]:
        while self._given < len(self._tasks):
            size = self.size(self._given)
            yield Batch(tuple(self._tasks[self._given : self._given + size]))
            self._given += size

    def size(self, start: int) -> int:
        """How many runs from `start` the next batch takes."""
        left = len(self._tasks) - start
        limit = min(MAX_BATCH_RUNS, math.ceil(left / (SHARES_PER_JOB * self._jobs)))
        work, n = 0.0, 0
        while n < limit and work < TARGET_BATCH_S * (1 - 1e-9):
            estimate = self.run_s.get(self._group_at(start + n))
            if estimate is None:
                return max(n, 1)  # an unknown group's run goes alone
            if n and work + estimate > TARGET_BATCH_S * (1 + 1e-9):
                break
            work += estimate
            n += 1
        return max(n, 1)

    def seen(self, outcomes: Iterable[Outcome]) -> None:
        walls: dict[Hashable, list[float]] = {}
        for o in outcomes:
            wall = (o.info or {}).get("wall_s")
            group = self._group_of.pop(o.key, None)
            if isinstance(wall, int | float) and group is not None:
                walls.setdefault(group, []).append(float(wall))
        for group, values in walls.items():
            mean = sum(values) / len(values)
            old = self.run_s.get(group)
            self.run_s[group] = (
                mean if old is None or mean > old else old + FALL_WEIGHT * (mean - old)
            )


def executor_jobs(executor: object, default: int) -> int:
    """How many runs `executor` runs at once, as far as it says (`jobs`)."""
    jobs = getattr(executor, "jobs", None)
    return jobs if isinstance(jobs, int) and jobs > 0 else default


def outcome_groups(executor: object, tasks: Sequence[Task], jobs: int) -> Iterator[list[Outcome]]:
    """The outcomes of `tasks` on `executor`, a list per batch (`Batcher`),
    or one per run for an executor that takes no batches (one with `run`
    only)."""
    run_batches = getattr(executor, "run_batches", None)
    if run_batches is None:
        for outcome in executor.run(tasks):  # type: ignore[attr-defined]
            yield [outcome]
        return
    batcher = Batcher(tasks, executor_jobs(executor, jobs))
    for outcomes in run_batches(batcher.batches()):
        batcher.seen(outcomes)
        yield outcomes
