"""Where runs execute: one small interface, several executors.

A `Task` is plain data (a key, the canonical description JSON, a wall-clock
and event budget), so it crosses process and network boundaries as it is.
`execute(task)` runs it in whatever process receives it and returns an
`Outcome` — never raises for a failed run, so one bad run cannot take a
sweep down. Executors yield outcomes as runs finish, in completion order.
A `Batch` is several tasks for one worker call (`execute_batch`): what a
sweep or a study hands over when its runs are short, so that the hand-off,
the reply and the store's write are paid once per batch, not once per run;
`run_batches` yields each batch's outcomes together.

- `LocalExecutor`: local processes (the default; embedded, nothing to start).
- `satcc.dask_executor.DaskExecutor`: a Dask distributed cluster, or a
  LocalCluster it starts itself.

Local worker processes are started by `process_pool` and stopped at once
by `abandon_pool`, for a sweep's `LocalExecutor` as for a study run with a
stand-in worker (satcc.studies.execution).
"""

from __future__ import annotations

import concurrent.futures as cf
import ctypes
import multiprocessing
import os
import select
import signal
import sys
import threading
import time
import traceback
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

from .core_errors import is_core_panic, panic_text
from .signals import raise_if_terminated

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


@dataclass(frozen=True)
class Batch:
    """Several runs for one call to a worker (`execute_batch`): one
    hand-off, one reply and one store write for all of them instead of one
    each (satcc.batches sizes them). Every run keeps its own budget and
    outcome."""

    tasks: tuple[Task, ...]


@dataclass
class Outcome:
    key: str
    ok: bool
    summary: dict[str, Any] | None = None
    # name -> (times_s, values) as lists of floats
    series: dict[str, tuple[list[float], list[float]]] = field(default_factory=dict)
    info: dict[str, Any] = field(default_factory=dict)
    error: str | None = None


class StartedWhileImporting(RuntimeError):
    """A sweep or reproduction started by a script that a new worker process
    is importing (its main script, re-imported by multiprocessing)."""


def refuse_while_importing(what: str) -> None:
    """Raise StartedWhileImporting when called during a worker's import of
    the main script.

    Worker processes (forkserver, spawn, Dask's) import the parent's main
    script to find its functions. A script that calls satcc.sweep at top
    level, not under `if __name__ == "__main__":`, would start a new sweep
    in every worker: it waits for the parent's campaign lock while the
    parent waits for its workers, and nothing ever ends. Failing at once in
    the worker breaks the parent's pool, which then reports why.
    """
    if getattr(multiprocessing.current_process(), "_inheriting", False):
        raise StartedWhileImporting(
            f"{what} was started while a worker process was importing the main script: "
            'put the code that starts it under `if __name__ == "__main__":` '
            "(worker processes import the main script; see docs/campaigns.md)"
        )


WORKER_DIED = "worker process died"
WORKERS_DIED_HINT = (
    "a worker that dies before returning a run is most often one that could not "
    "import the main script: a script that starts satcc runs outside "
    '`if __name__ == "__main__":`, or one read from standard input; guard the call, '
    "save the script to a file, or run with one job. Otherwise look for a crash or an "
    "out-of-memory kill (the workers' own messages are on stderr)"
)


def worker_died(error: str | None) -> bool:
    return (error or "").startswith(WORKER_DIED)


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
        from .build import build_id

        info = {
            "satcc_version": _core.version(),
            "satcc_build": build_id(),
            "wall_s": wall,
            "events": sim.events,
            "host": os.uname().nodename,
            "pid": os.getpid(),
        }
        return Outcome(task.key, True, summary, series, info)
    except BaseException as e:  # a failed run is data, not a crash of the sweep
        if not isinstance(e, Exception) and not is_core_panic(e):
            raise  # Ctrl-C, exit: not the run's
        error = panic_text(e) if is_core_panic(e) else f"{type(e).__name__}: {e}"
        return Outcome(
            task.key,
            False,
            error=error,
            info={"wall_s": time.perf_counter() - t0, "traceback": traceback.format_exc()},
        )


def execute_batch(batch: Batch) -> list[Outcome]:
    """Runs a batch's tasks one after the other in this process: one run
    failing or over its budget is its own failed Outcome, its batch-mates
    run on."""
    return [execute(task) for task in batch.tasks]


class Executor(Protocol):
    """Runs tasks and yields their outcomes as they finish."""

    def run(self, tasks: Iterable[Task]) -> Iterator[Outcome]: ...

    def close(self) -> None: ...

    def terminate(self) -> None:
        """Stops at once, abandoning the runs in flight (Ctrl-C)."""
        ...


class BatchExecutor(Executor, Protocol):
    """An executor that also takes batches (both of satcc's do): one list of
    outcomes per batch, the batch's runs that finished, in completion order
    of the batches. A caller given an executor without `run_batches` hands it
    single tasks (`run`)."""

    def run_batches(self, batches: Iterable[Batch]) -> Iterator[list[Outcome]]: ...


def default_jobs() -> int:
    """The CPUs this process may use, which in a container or under taskset
    can be fewer than os.cpu_count()."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


class LocalExecutor:
    """Local worker processes. A worker that dies (killed, out of memory)
    breaks the pool: the pool is rebuilt and the runs that were in flight are
    retried, up to `retries` times each (counted per run: a batch that was
    in flight is retried as single runs, so that a run that kills its worker
    takes no batch-mate down with it). At most AHEAD_PER_JOB tasks or
    batches per worker are submitted at a time, so the executor's memory
    does not grow with the size of the sweep. Workers end with the process
    that started them, however it ends (see _worker_init)."""

    def __init__(self, jobs: int | None = None, retries: int = 2):
        self.jobs = jobs or default_jobs()
        self.retries = retries
        self._pool: cf.ProcessPoolExecutor | None = None

    def _new_pool(self) -> cf.ProcessPoolExecutor:
        return process_pool(self.jobs, _worker_init, (os.getpid(),))

    def run(self, tasks: Iterable[Task]) -> Iterator[Outcome]:
        for outcomes in self.run_batches(Batch((task,)) for task in tasks):
            yield from outcomes

    def run_batches(self, batches: Iterable[Batch]) -> Iterator[list[Outcome]]:
        if self.jobs == 1:
            for batch in batches:
                yield execute_batch(batch)
            return
        pending = _Pending(batches)
        attempts: dict[str, int] = {}
        while pending:
            yield from self._run_on_one_pool(pending, attempts)

    def _run_on_one_pool(
        self, pending: _Pending, attempts: dict[str, int]
    ) -> Iterator[list[Outcome]]:
        """Run pending batches until they are all done or the pool breaks."""
        pool = self._pool = self._pool or self._new_pool()
        in_flight: dict[cf.Future, Batch] = {}
        broken = False
        while True:
            broken = broken or not self._fill(pool, in_flight, pending)
            if not in_flight:
                break
            done, _ = cf.wait(in_flight, return_when=cf.FIRST_COMPLETED)
            raise_if_terminated()
            for fut in done:
                batch = in_flight.pop(fut)
                try:
                    yield fut.result()
                except cf.process.BrokenProcessPool:
                    broken = True
                    failed = self._retry(batch, attempts, pending)
                    if failed:
                        yield failed
        if broken:
            # As abandoning one: its manager thread is waited for, or the
            # interpreter's exit may find it closing its wake-up pipe and
            # print "OSError: Bad file descriptor" after the sweep's message.
            abandon_pool(pool)
            self._pool = None

    def _fill(
        self, pool: cf.ProcessPoolExecutor, in_flight: dict[cf.Future, Batch], pending: _Pending
    ) -> bool:
        """Submit pending batches up to the limit; False if the pool is broken."""
        while len(in_flight) < AHEAD_PER_JOB * self.jobs:
            batch = pending.take()
            if batch is None:
                return True
            try:
                in_flight[pool.submit(execute_batch, batch)] = batch
            except cf.process.BrokenProcessPool:
                pending.put_back(batch)
                return False
        return True

    def _retry(self, batch: Batch, attempts: dict[str, int], pending: _Pending) -> list[Outcome]:
        """The runs of a batch whose worker died: each retried alone, or
        failed once out of retries (those are returned)."""
        failed = []
        for task in batch.tasks:
            attempts[task.key] = attempts.get(task.key, 0) + 1
            if attempts[task.key] > self.retries:
                failed.append(Outcome(task.key, False, error=f"{WORKER_DIED} (no retries left)"))
            else:
                pending.put_back(Batch((task,)))
        return failed

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
        abandon_pool(self._pool)
        self._pool = None


def process_pool(
    jobs: int, initializer: Callable[..., None], initargs: tuple[Any, ...] = ()
) -> cf.ProcessPoolExecutor:
    """`jobs` local worker processes: the one way satcc starts them, for a
    sweep's runs (`LocalExecutor`) as for a study run with a stand-in worker
    (satcc.studies.execution). forkserver, not fork: the parent may hold
    threads (rich's refresher, pyarrow's pools), and forking a threaded
    process can deadlock the child; workers inherit none of its threads or
    locks. `initializer(*initargs)` runs first in every worker:
    `_worker_init` (end with the sweep) or `ignore_sigint`."""
    ctx = multiprocessing.get_context("forkserver")
    return cf.ProcessPoolExecutor(
        max_workers=jobs,
        mp_context=ctx,
        initializer=initializer,
        initargs=initargs,
    )


def ignore_sigint() -> None:
    """Worker initializer for a pool whose parent alone answers Ctrl-C, by
    abandoning the pool (`abandon_pool`). Ctrl-C reaches the whole process
    group; workers dying on their own would each print a traceback and
    break the pool half-way."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def abandon_pool(pool: cf.ProcessPoolExecutor) -> None:
    """Stops a pool now: queued tasks are cancelled, running ones killed,
    and the pool's manager thread is waited for. Without that wait the
    interpreter's exit could find the thread closing its wake-up pipe and
    print "OSError: Bad file descriptor" after the command's own message
    (one SIGTERMed reproduction in about seven on a loaded machine; CPython
    3.12 locks that pipe)."""
    processes = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        if process.is_alive():
            process.terminate()
    for process in processes:
        process.join(timeout=5)
    manager = getattr(pool, "_executor_manager_thread", None)
    if manager is not None:
        manager.join(timeout=5)


def map_in_processes(fn: Callable[..., Any], calls: list[tuple], jobs: int) -> list[Any]:
    """`fn(*args)` for every `args` of `calls`, results in the same order, on
    up to `jobs` local processes: for a study's own computation beside its
    runs (tfrc-dama's fluid model). Inline when `jobs` is 1 or there is a
    single call. `fn` must be importable by name (module level). A call that
    raises raises here; Ctrl-C or SIGTERM stops the workers at once."""
    if jobs <= 1 or len(calls) < 2:
        return [fn(*args) for args in calls]
    pool = process_pool(min(jobs, len(calls)), ignore_sigint)
    try:
        futures = [pool.submit(fn, *args) for args in calls]
        pending = set(futures)
        while pending:
            done, pending = cf.wait(pending, timeout=1.0, return_when=cf.FIRST_EXCEPTION)
            raise_if_terminated()
            for future in done:
                future.result()  # the first failure, at once
        results = [future.result() for future in futures]
    except BaseException:
        abandon_pool(pool)
        raise
    pool.shutdown(wait=True)
    return results


# Tasks or batches submitted ahead per worker: enough to keep every worker
# busy while the caller stores outcomes, few enough that a million-run sweep
# holds a handful of futures, not a million (and Ctrl-C has little to cancel).
AHEAD_PER_JOB = 2


class _Pending:
    """The batches still to submit: those to retry first, then the caller's."""

    def __init__(self, batches: Iterable[Batch]):
        self._retry: deque[Batch] = deque()
        self._source = iter(batches)
        self._next: Batch | None = None

    def take(self) -> Batch | None:
        if self._retry:
            return self._retry.popleft()
        if self._next is not None:
            batch, self._next = self._next, None
            return batch
        return next(self._source, None)

    def put_back(self, batch: Batch) -> None:
        self._retry.append(batch)

    def __bool__(self) -> bool:
        if self._retry or self._next is not None:
            return True
        self._next = next(self._source, None)
        return self._next is not None


# ---------------------------------------------------------------------------
# Workers end with the sweep

PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
# How often a worker without pidfd_open (not Linux) checks the sweep is there.
WATCH_POLL_S = 0.5


def _worker_init(sweep_pid: int) -> None:
    """Runs first in every worker. A worker must not outlive the sweep that
    started it: if the sweep is killed (SIGKILL, or SIGTERM before it could
    stop its workers), the workers would run their task to the end, then
    wait forever for the next one, keeping the caller's pipes open."""
    _die_with_parent()
    threading.Thread(
        target=_exit_when_gone, args=(sweep_pid,), name="satcc-watch-sweep", daemon=True
    ).start()


def _die_with_parent() -> None:
    """SIGKILL this process when its parent (the forkserver) ends. Not enough
    alone: the forkserver outlives the sweep for as long as any worker lives,
    since each worker holds the pipe whose closing tells it to stop."""
    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        pass


def _exit_when_gone(pid: int) -> None:
    """Wait for process `pid` to end, then end this process at once."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        os._exit(1)
    except (AttributeError, OSError):
        fd = None
    if fd is not None:
        select.select([fd], [], [])  # a pidfd is readable once its process has ended
    else:
        while _running(pid):
            time.sleep(WATCH_POLL_S)
    os._exit(1)


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
