"""Runs tasks on a Dask distributed cluster (or a LocalCluster started here).

Same interface as `satcc.executors.LocalExecutor`: `run(tasks)` yields an
`Outcome` per task in completion order, `run_batches(batches)` a list per
batch, `close()` releases what was started. Every task is the module-level
`satcc.executors.execute_batch`, submitted under a key derived from the run
keys (`batch_key`), so distinct runs are never deduplicated and the same
runs submitted twice (by two sweeps) are computed once.

Lost workers: Dask reschedules a task whose worker died on another worker,
and marks it failed with `KilledWorker` once `allowed-failures` workers died
running it. For a LocalCluster started here that limit is `retries`; a
remote scheduler uses its own setting (start it with
`DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES=N` to match `--retries N`;
Dask's default is 3). A batch of several runs that exhausted its retries is
split and its runs submitted again one by one, each with the same
allowance; a single run that exhausted its retries becomes a failed
`Outcome`; the iteration goes on.

A running task cannot be cancelled: every task carries its own wall-clock
budget (`Task.max_wall_s`), enforced inside `execute`.
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections import deque
from collections.abc import Iterable, Iterator
from typing import Any

from .executors import Batch, Outcome, Task, default_jobs, execute_batch

KEY_PREFIX = "satcc-run-"
BATCH_PREFIX = "satcc-batch-"

# Settings for a cluster started here (the scheduler runs in this process and
# the nanny hands this configuration to the worker processes). The Rust core
# releases the GIL while simulating, but a run that held it would otherwise
# get its worker declared dead after 5 minutes of silence.
CLUSTER_CONFIG: dict[str, Any] = {
    "distributed.scheduler.worker-ttl": "1 hour",
    "distributed.admin.tick.limit": "1 minute",
    "distributed.worker.daemon": True,
}
# Client-side settings that apply to any cluster.
CLIENT_CONFIG: dict[str, Any] = {
    "distributed.admin.tick.limit": "1 minute",
}
NOISY_LOGGERS = ("distributed", "distributed.scheduler", "distributed.worker", "distributed.nanny")
# How many tasks per worker thread are submitted ahead (bounds scheduler
# memory for huge sweeps while keeping every worker busy).
IN_FLIGHT_PER_THREAD = 4
# How often the number of worker threads is re-read (workers come and go).
THREADS_REFRESH_S = 5.0


def dask_key(task: Task) -> str:
    return f"{KEY_PREFIX}{task.key}"


def batch_key(batch: Batch) -> str:
    """A batch of one run goes under that run's key; a longer one under a
    digest of its runs' keys (the same runs submitted twice, by two sweeps,
    are computed once)."""
    if len(batch.tasks) == 1:
        return dask_key(batch.tasks[0])
    digest = hashlib.sha256("\n".join(t.key for t in batch.tasks).encode()).hexdigest()[:20]
    return f"{BATCH_PREFIX}{digest}"


def _workers_lost(exc: BaseException) -> bool:
    from distributed.scheduler import KilledWorker

    return isinstance(exc, KilledWorker)


def _quiet_logs() -> None:
    """Hide Dask's INFO chatter (connections, workers starting); warnings stay."""
    for name in NOISY_LOGGERS:
        logger = logging.getLogger(name)
        if logger.getEffectiveLevel() < logging.WARNING:
            logger.setLevel(logging.WARNING)


def _failure(task: Task, exc: BaseException) -> Outcome:
    from distributed.scheduler import KilledWorker

    if isinstance(exc, KilledWorker):
        error = (
            f"worker lost: every worker that ran this run died "
            f"({exc.allowed_failures + 1} attempts; KilledWorker: {exc})"
        )
    elif type(exc).__name__ in ("CancelledError", "FutureCancelledError"):
        error = f"run cancelled by the Dask scheduler ({type(exc).__name__}: {exc})"
    else:
        error = f"{type(exc).__name__}: {exc}"
    return Outcome(task.key, False, error=error, info={"executor": "dask"})


class DaskExecutor:
    """Runs tasks on a Dask cluster.

    `address` ("tcp://host:port" or a scheduler file path accepted by
    `distributed.Client`): connect to a running scheduler. None: start a
    `LocalCluster` on 127.0.0.1 with `n_workers` single-threaded worker
    processes (default: one per core), closed again by `close()`.
    `retries`: how often a run whose worker died is retried.
    `max_in_flight`: submitted-but-unfinished tasks at most (default: four
    per worker thread, at least 8).
    """

    def __init__(
        self,
        address: str | None = None,
        n_workers: int | None = None,
        retries: int = 2,
        *,
        max_in_flight: int | None = None,
        quiet: bool = True,
    ):
        import dask
        from distributed import Client, LocalCluster

        if retries < 0:
            raise ValueError(f"retries must be >= 0, not {retries}")
        self.address = address
        self.retries = retries
        self.max_in_flight = max_in_flight
        if quiet:
            _quiet_logs()
        self.cluster: LocalCluster | None = None
        with dask.config.set(CLIENT_CONFIG):
            if address is None:
                config = dict(CLUSTER_CONFIG)
                config["distributed.scheduler.allowed-failures"] = retries
                with dask.config.set(config):
                    self.cluster = LocalCluster(
                        n_workers=n_workers or default_jobs(),
                        threads_per_worker=1,
                        processes=True,
                        host="127.0.0.1",
                        dashboard_address=None,
                        silence_logs=logging.WARNING if quiet else logging.INFO,
                    )
                try:
                    self.client = Client(self.cluster)
                except BaseException:
                    self.cluster.close()
                    raise
            else:
                self.client = Client(address)
        self._threads = 0
        self._cancels = 0  # how many sweeps were interrupted with runs pending
        self._threads_read = -float("inf")

    # -- helpers ---------------------------------------------------------

    @property
    def jobs(self) -> int:
        """The worker threads of the cluster (re-read every THREADS_REFRESH_S)."""
        now = time.monotonic()
        if now - self._threads_read > THREADS_REFRESH_S:
            try:
                self._threads = sum(self.client.nthreads().values())
            except Exception:  # keep the last value; the scheduler may be busy
                pass
            self._threads_read = now
        return self._threads

    def _limit(self) -> int:
        if self.max_in_flight is not None:
            return max(1, self.max_in_flight)
        return max(8, IN_FLIGHT_PER_THREAD * self.jobs)

    def _submit(self, batch: Batch, key: str) -> Any:
        if self._cancels:
            # Runs of an interrupted sweep were cancelled: their futures are
            # released asynchronously, and a future of the same key submitted
            # meanwhile would be released (cancelled) with them. Fresh keys.
            key = f"{key}-{self._cancels}"
        return self.client.submit(execute_batch, batch, key=key, retries=self.retries)

    # -- the Executor interface -------------------------------------------

    def run(self, tasks: Iterable[Task]) -> Iterator[Outcome]:
        for outcomes in self.run_batches(Batch((task,)) for task in tasks):
            yield from outcomes

    def run_batches(self, batches: Iterable[Batch]) -> Iterator[list[Outcome]]:
        """The outcomes of each batch, in completion order. A batch of
        several runs whose every worker died is split: its runs go again one
        by one (a run that kills its worker then takes no batch-mate down)."""
        from distributed import as_completed

        source = iter(batches)
        alone: deque[Batch] = deque()  # the runs of a lost batch, one by one
        exhausted = False
        # Dask key -> [batch, how many identical batches wait for this result]
        in_flight: dict[str, list[Any]] = {}
        futures: dict[str, Any] = {}
        owner: dict[str, str] = {}  # Dask key of a future -> its batch's key in in_flight
        ready: deque[list[Outcome]] = deque()
        completed = as_completed()

        def refill() -> None:
            nonlocal exhausted
            limit = self._limit()
            while len(in_flight) < limit:
                if alone:
                    batch = alone.popleft()
                elif exhausted:
                    return
                else:
                    try:
                        batch = next(source)
                    except StopIteration:
                        exhausted = True
                        return
                key = batch_key(batch)
                if key in in_flight:  # the same runs twice: compute them once
                    in_flight[key][1] += 1
                    continue
                try:
                    fut = self._submit(batch, key)
                except Exception as e:  # e.g. the batch cannot be serialised
                    ready.append([_failure(task, e) for task in batch.tasks])
                    continue
                in_flight[key] = [batch, 1]
                futures[key] = fut
                owner[fut.key] = key
                completed.add(fut)

        try:
            refill()
            while ready or in_flight or alone:
                while ready:
                    yield ready.popleft()
                if not in_flight:
                    refill()
                    continue
                fut = next(completed)
                key = owner.pop(fut.key)
                batch, copies = in_flight.pop(key)
                futures.pop(key, None)
                outcomes: list[Outcome] | None
                try:
                    outcomes = fut.result()
                except Exception as e:  # lost workers, cancellation: data, not a crash
                    if len(batch.tasks) > 1 and _workers_lost(e):
                        alone.extend(Batch((task,)) for task in batch.tasks)
                        outcomes = None
                    else:
                        outcomes = [_failure(task, e) for task in batch.tasks]
                fut.release()  # the scheduler may forget it (and not recompute it)
                del fut
                refill()  # keep workers busy before handing the outcomes over
                if outcomes is not None:
                    for i in range(copies):
                        yield outcomes if i == 0 else _copy(outcomes)
        finally:
            # Consumer stopped early (break, Ctrl-C): drop what is pending.
            # Running tasks finish on their own (each has a wall budget).
            if futures:
                self._cancels += 1
                try:
                    self.client.cancel(list(futures.values()))
                except Exception:
                    pass
            completed.clear()

    def close(self) -> None:
        client, self.client = getattr(self, "client", None), None
        cluster, self.cluster = self.cluster, None
        try:
            if client is not None:
                client.close()
        finally:
            if cluster is not None:
                cluster.close()

    def terminate(self) -> None:
        """Ctrl-C: pending runs were cancelled when the caller stopped
        reading; a LocalCluster's workers are stopped with it, a remote
        cluster's running tasks end on their own wall-clock budget."""
        self.close()

    def __enter__(self) -> DaskExecutor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _copy(outcomes: list[Outcome]) -> list[Outcome]:
    import copy

    return copy.deepcopy(outcomes)
