"""Where runs execute: one small interface, several executors.

A `Task` is plain data (a key, the canonical description JSON, a wall-clock
and event budget), so it crosses process and network boundaries as it is.
`execute(task)` runs it in whatever process receives it and returns an
`Outcome` — never raises for a failed run, so one bad run cannot take a
sweep down. Executors yield outcomes as runs finish, in completion order.

- `LocalExecutor`: local processes (the default; embedded, nothing to start).
- `satcc.dask_executor.DaskExecutor`: a Dask distributed cluster, or a
  LocalCluster it starts itself.
"""

from __future__ import annotations

import concurrent.futures as cf
import multiprocessing
import os
import time
import traceback
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

# A run longer than this without finishing is stopped and reported failed:
# a running task cannot be cancelled from outside (Dask, process pools), so
# every run carries its own budget.
DEFAULT_MAX_WALL_S = 3600.0
CHUNK_EVENTS = 2_000_000


@dataclass(frozen=True)
class Task:
    """One run: `description` is the canonical JSON of the validated scenario
    (its seed included); `key` identifies the run in a result store."""

    key: str
    description: str
    max_wall_s: float = DEFAULT_MAX_WALL_S
    max_events: int | None = None


@dataclass
class Outcome:
    key: str
    ok: bool
    summary: dict[str, Any] | None = None
    # name -> (times_s, values) as lists of floats
    series: dict[str, tuple[list[float], list[float]]] = field(default_factory=dict)
    info: dict[str, Any] = field(default_factory=dict)
    error: str | None = None


def execute(task: Task) -> Outcome:
    """Runs one task in this process. Releases the GIL while simulating."""
    import json

    import numpy as np

    from . import _core

    t0 = time.perf_counter()
    try:
        sim = _core.Simulation(task.description)
        while not sim.advance(CHUNK_EVENTS):
            elapsed = time.perf_counter() - t0
            if elapsed > task.max_wall_s:
                raise TimeoutError(
                    f"wall-clock budget of {task.max_wall_s:g} s exceeded "
                    f"at simulated {sim.now_ps * 1e-12:.3f} s"
                )
            if task.max_events is not None and sim.events >= task.max_events:
                raise RuntimeError(f"event budget of {task.max_events} exceeded")
        summary = json.loads(sim.summary_json())
        series = {
            name: (
                np.frombuffer(times, dtype="<f8").tolist(),
                np.frombuffer(values, dtype="<f8").tolist(),
            )
            for name, times, values in sim.series()
        }
        wall = time.perf_counter() - t0
        info = {
            "satcc_version": _core.version(),
            "wall_s": wall,
            "events": sim.events,
            "host": os.uname().nodename,
            "pid": os.getpid(),
        }
        return Outcome(task.key, True, summary, series, info)
    except Exception as e:  # a failed run is data, not a crash of the sweep
        return Outcome(
            task.key,
            False,
            error=f"{type(e).__name__}: {e}",
            info={"wall_s": time.perf_counter() - t0, "traceback": traceback.format_exc()},
        )


class Executor(Protocol):
    """Runs tasks and yields their outcomes as they finish."""

    def run(self, tasks: Iterable[Task]) -> Iterator[Outcome]: ...

    def close(self) -> None: ...

    def terminate(self) -> None:
        """Stops at once, abandoning the runs in flight (Ctrl-C)."""
        ...


def default_jobs() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


class LocalExecutor:
    """Local worker processes. A worker that dies (killed, out of memory)
    breaks the pool: the pool is rebuilt and the runs that were in flight are
    retried, up to `retries` times each."""

    def __init__(self, jobs: int | None = None, retries: int = 2):
        self.jobs = jobs or default_jobs()
        self.retries = retries
        self._pool: cf.ProcessPoolExecutor | None = None

    def _new_pool(self) -> cf.ProcessPoolExecutor:
        # forkserver: workers do not inherit the parent's threads or locks.
        ctx = multiprocessing.get_context("forkserver")
        return cf.ProcessPoolExecutor(max_workers=self.jobs, mp_context=ctx)

    def run(self, tasks: Iterable[Task]) -> Iterator[Outcome]:
        pending = list(tasks)
        attempts: dict[str, int] = {}
        if self.jobs == 1:
            for task in pending:
                yield execute(task)
            return
        while pending:
            self._pool = self._pool or self._new_pool()
            futures = {self._pool.submit(execute, t): t for t in pending}
            pending = []
            broken = False
            for fut in cf.as_completed(futures):
                task = futures[fut]
                try:
                    yield fut.result()
                except cf.process.BrokenProcessPool:
                    broken = True
                    attempts[task.key] = attempts.get(task.key, 0) + 1
                    if attempts[task.key] > self.retries:
                        yield Outcome(
                            task.key, False, error="worker process died (no retries left)"
                        )
                    else:
                        pending.append(task)
            if broken:
                self._pool.shutdown(wait=False, cancel_futures=True)
                self._pool = None

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    def terminate(self) -> None:
        """Ends the worker processes now (Ctrl-C): close() would wait for the
        runs in flight, up to their wall-clock budget. concurrent.futures has
        no public way to stop a running worker, hence the pool's process
        table."""
        if self._pool is None:
            return
        for process in list(getattr(self._pool, "_processes", {}).values()):
            process.terminate()
        self._pool.shutdown(wait=False, cancel_futures=True)
        self._pool = None
