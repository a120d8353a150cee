"""DaskExecutor against a real scheduler and workers (subprocesses on
127.0.0.1), a worker killed mid-sweep, and a LocalCluster it starts itself.

Every process a test starts is started in its own session and stopped by
process group in a `finally`, whatever the outcome of the test."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
import types
from pathlib import Path

import pytest

pytest.importorskip("distributed")
psutil = pytest.importorskip("psutil")

from satcc.dask_executor import DaskExecutor, dask_key  # noqa: E402
from satcc.executors import LocalExecutor, Outcome, Task  # noqa: E402
from satcc.scenario import load, normalised_json  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
MM1 = ROOT / "examples" / "mm1.toml"
BIN = Path(sys.executable).parent
START_TIMEOUT_S = 30.0


def make_tasks(duration: str, seeds) -> list[Task]:
    scenario = load(MM1).set("run.duration", duration)
    tasks = []
    for seed in seeds:
        text = normalised_json(scenario.validate(seed=seed))
        tasks.append(Task(hashlib.sha256(text.encode()).hexdigest(), text, max_wall_s=60.0))
    return tasks


def results(outcomes: list[Outcome]) -> dict[str, tuple[str, str]]:
    """key -> (summary JSON, series JSON): what must match byte for byte."""
    out = {}
    for o in outcomes:
        assert o.ok, (o.key, o.error)
        assert o.key not in out, f"{o.key} reported twice"
        out[o.key] = (
            json.dumps(o.summary, sort_keys=True),
            json.dumps({k: [list(t), list(v)] for k, (t, v) in o.series.items()}, sort_keys=True),
        )
    return out


def local_results(tasks: list[Task]) -> dict[str, tuple[str, str]]:
    ex = LocalExecutor(jobs=2)
    try:
        return results(list(ex.run(tasks)))
    finally:
        ex.close()


def _stop_group(proc: subprocess.Popen, sig: int = signal.SIGKILL) -> None:
    try:
        os.killpg(proc.pid, sig)
    except ProcessLookupError:
        pass
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:  # pragma: no cover - SIGKILL does not time out
        pass


class Cluster:
    """`dask scheduler` and `dask worker` processes, each its own process group."""

    def __init__(self, tmp: Path):
        self.tmp = tmp
        self.scheduler_file = tmp / "scheduler.json"
        self.procs: list[subprocess.Popen] = []
        self.workers: list[subprocess.Popen] = []

    def _spawn(self, name: str, args: list[str], env: dict | None = None) -> subprocess.Popen:
        log = open(self.tmp / f"{name}.log", "wb")  # noqa: SIM115 - closed with the process
        try:
            proc = subprocess.Popen(
                args,
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
                env={**os.environ, **(env or {})},
                cwd=self.tmp,
            )
        finally:
            log.close()
        self.procs.append(proc)
        return proc

    def start(self, n_workers: int, allowed_failures: int = 2) -> str:
        self._spawn(
            "scheduler",
            [
                str(BIN / "dask"),
                "scheduler",
                "--host",
                "127.0.0.1",
                "--port",
                "0",
                "--scheduler-file",
                str(self.scheduler_file),
                "--no-dashboard",
            ],
            env={"DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES": str(allowed_failures)},
        )
        deadline = time.monotonic() + START_TIMEOUT_S
        address = None
        while address is None:
            if time.monotonic() > deadline:
                raise TimeoutError("dask scheduler did not write its scheduler file")
            if self.procs[0].poll() is not None:
                raise RuntimeError((self.tmp / "scheduler.log").read_text())
            try:
                address = json.loads(self.scheduler_file.read_text())["address"]
            except (FileNotFoundError, json.JSONDecodeError, KeyError):
                time.sleep(0.05)
        for i in range(n_workers):
            self.workers.append(
                self._spawn(
                    f"worker{i}",
                    [
                        str(BIN / "dask"),
                        "worker",
                        "--host",
                        "127.0.0.1",
                        "--nthreads",
                        "1",
                        "--nworkers",
                        "1",
                        "--no-dashboard",
                        "--scheduler-file",
                        str(self.scheduler_file),
                    ],
                )
            )
        return address

    def stop(self) -> None:
        for proc in reversed(self.procs):
            _stop_group(proc)


@pytest.fixture
def cluster(tmp_path):
    c = Cluster(tmp_path)
    try:
        yield c
    finally:
        c.stop()


def connect(address: str, n_workers: int) -> DaskExecutor:
    ex = DaskExecutor(address)
    try:
        ex.client.wait_for_workers(n_workers, timeout=START_TIMEOUT_S)
    except BaseException:
        ex.close()
        raise
    return ex


def test_remote_cluster_matches_local_executor(cluster):
    tasks = make_tasks("1 s", range(1, 201))
    address = cluster.start(n_workers=2)
    ex = connect(address, 2)
    try:
        outcomes = list(ex.run(tasks))
    finally:
        ex.close()
    assert len(outcomes) == len(tasks)
    got = results(outcomes)
    assert set(got) == {t.key for t in tasks}
    # Both workers took part.
    assert len({o.info["pid"] for o in outcomes}) == 2
    assert got == local_results(tasks)


def test_batches_on_a_cluster_match_the_local_executor(cluster):
    from satcc.dask_executor import batch_key
    from satcc.executors import Batch

    tasks = make_tasks("1 s", range(1, 101))
    batches = [Batch(tuple(tasks[i : i + 10])) for i in range(0, len(tasks), 10)]
    assert len({batch_key(b) for b in batches}) == len(batches)
    assert batch_key(Batch((tasks[0],))) == dask_key(tasks[0])
    address = cluster.start(n_workers=2)
    ex = connect(address, 2)
    try:
        assert ex.jobs == 2
        groups = list(ex.run_batches(batches + batches[:1]))  # a repeated batch: twice
    finally:
        ex.close()
    assert sorted(len(g) for g in groups) == [10] * 11
    outcomes = [o for g in groups for o in g]
    assert results(_unique(outcomes)) == local_results(tasks)


def test_killed_worker_runs_are_retried(cluster):
    tasks = make_tasks("5000 s", range(1, 9))  # about 0.6 s each
    address = cluster.start(n_workers=2, allowed_failures=2)
    ex = connect(address, 2)
    outcomes: list[Outcome] = []
    lost: list[str] = []
    try:
        addr_by_pid = {pid: addr for addr, pid in ex.client.run(os.getpid).items()}
        assert len(addr_by_pid) == 2
        for outcome in ex.run(tasks):
            outcomes.append(outcome)
            if lost or not outcome.ok:
                continue
            # The worker that ran this has just started its next run: kill it.
            killed_pid = outcome.info["pid"]
            victim = next(p for p in cluster.workers if p.pid == os.getpgid(killed_pid))
            lost = list(ex.client.processing()[addr_by_pid[killed_pid]])
            _stop_group(victim)
            assert lost, "the killed worker was running nothing"
    finally:
        ex.close()
    assert lost
    assert all(o.ok for o in outcomes), [o.error for o in outcomes if not o.ok]
    got = results(outcomes)
    assert set(got) == {t.key for t in tasks}
    assert got == local_results(tasks)
    # What was running on the dead worker finished on the survivor.
    assert {dask_key(t) for t in tasks} >= set(lost)
    by_key = {o.key: o.info["pid"] for o in outcomes}
    for key in lost:
        assert by_key[key.removeprefix("satcc-run-")] != killed_pid


def _children() -> set[int]:
    """Child processes, without multiprocessing's own per-interpreter helpers
    (resource tracker, forkserver), which live as long as the interpreter."""
    out = set()
    for p in psutil.Process().children(recursive=True):
        try:
            cmd = " ".join(p.cmdline())
        except (psutil.NoSuchProcess, psutil.ZombieProcess):
            continue
        if "resource_tracker" in cmd or "forkserver" in cmd:
            continue
        out.add(p.pid)
    return out


def test_local_cluster_starts_and_stops():
    before = _children()
    tasks = make_tasks("1 s", range(1, 7))
    ex = DaskExecutor(n_workers=2)
    try:
        assert len(ex.client.nthreads()) == 2
        assert set(ex.client.nthreads().values()) == {1}
        started = _children() - before
        assert len(started) >= 2
        # A consumer that stops early: pending runs are dropped, the executor
        # stays usable.
        partial = ex.run(tasks)
        assert next(partial).ok
        partial.close()
        outcomes = list(ex.run(tasks + tasks[:2]))  # a repeated run is reported twice
    finally:
        ex.close()
    assert len(outcomes) == len(tasks) + 2
    assert results(_unique(outcomes)) == local_results(tasks)
    deadline = time.monotonic() + 10
    while _children() & started and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not (_children() & started), "LocalCluster left processes behind"


def _unique(outcomes: list[Outcome]) -> list[Outcome]:
    seen: dict[str, Outcome] = {}
    for o in outcomes:
        if o.key in seen:
            assert o.summary == seen[o.key].summary
        seen.setdefault(o.key, o)
    return list(seen.values())


def test_killed_worker_error_is_a_failed_outcome():
    from distributed.scheduler import KilledWorker
    from satcc.dask_executor import _failure

    task = make_tasks("1 s", [1])[0]
    worker = types.SimpleNamespace(address="tcp://127.0.0.1:9")
    out = _failure(task, KilledWorker(dask_key(task), worker, 2))
    assert not out.ok and out.key == task.key
    assert out.error.startswith("worker lost") and "3 attempts" in out.error


def test_a_study_reproduces_on_a_dask_cluster_as_on_local_processes(cluster, tmp_path):
    # `satcc reproduce STUDY --executor dask`: the same runs, the same table.
    from satcc.studies import get
    from satcc.studies.framework import reproduce

    study = get("queueing-theory")
    address = cluster.start(n_workers=2)
    on_dask = reproduce(
        study,
        quick=True,
        out=tmp_path / "dask",
        progress=False,
        show=False,
        executor="dask",
        scheduler=address,
    )
    local = reproduce(study, quick=True, out=tmp_path / "local", progress=False, show=False)
    assert on_dask.equals(local)
