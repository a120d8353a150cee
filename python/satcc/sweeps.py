"""Sweeps: expand a grid of scenario variants, run what the store lacks.

    import satcc
    c = satcc.sweep("examples/mm1.toml",
                    set={"sources.arrivals.rate": ["4 Mbps", "8 Mbps"]},
                    seeds=range(1, 6), campaign="campaigns/mm1")
    c.summary()

Every point of the grid (the Cartesian product of the `set` lists, times the
`zip` lists taken together, times the seeds) is validated before anything
runs, so a bad value costs nothing. Each run has a key (`run_key`) hashing its
normalised description and the satcc version; runs whose key the campaign
already holds with status ok are skipped, so re-running a sweep, or resuming
one that was killed, computes only what is missing.

Runs go to the workers in batches (satcc.batches: short runs together, a
run of a quarter of a second or more alone). Flush policy: every batch's
outcomes are appended to the store as soon as the executor yields them (one
set of Parquet parts per batch, written atomically), before the next batch
is awaited; a `kill -9` therefore loses only the batches in flight.
At the end of a sweep that wrote more than COMPACT_AFTER parts the parts are
compacted into one.
"""

from __future__ import annotations

import builtins
import datetime
import hashlib
import itertools
import json
import math
import os
import signal
import sys
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .batches import outcome_groups
from .campaign_checks import check_scenario, check_version
from .executors import (
    DEFAULT_MAX_WALL_S,
    WORKERS_DIED_HINT,
    Outcome,
    Task,
    default_jobs,
    refuse_while_importing,
    worker_died,
)
from .scenario import Scenario, ScenarioError, normalised_json
from .seed_watch import SeedWatch
from .signals import Terminated, deferred_interrupts, sigterm_as_interrupt
from .store import Campaign, CampaignBusy, RunPoint
from .sweep_values import (
    MAX_RUNS,
    SweepError,
    at_most_runs,
    bounded_list,
    parse_list_option,
    parse_seeds,
    parse_values,
    seed_sequence,
    sequence_length,
)

__all__ = [
    "SweepCounts",
    "SweepError",
    "SweepFailed",
    "SweepInterrupted",
    "SweepPoint",
    "expand",
    "grid",
    "parse_seeds",
    "parse_values",
    "run_key",
    "sweep",
]

# Compact the store at the end of a sweep when it holds more run parts than this.
COMPACT_AFTER = 1


@dataclass
class SweepCounts:
    """What one sweep invocation did."""

    total: int
    done_now: int = 0
    skipped: int = 0
    failed: int = 0
    campaign: str = ""
    interrupted: bool = False
    errors: list[tuple[str, str]] = field(default_factory=list)  # (key, error) of failures
    # Warnings printed on stderr during the sweep (satcc.seed_watch).
    warnings: list[str] = field(default_factory=list)

    def line(self) -> str:
        text = (
            f"{self.total} runs: {self.done_now} done now, {self.skipped} skipped "
            f"(already in the store), {self.failed} failed -> {self.campaign}"
        )
        if self.interrupted:
            left = self.total - self.done_now - self.skipped - self.failed
            text += f" (interrupted, {left} not run)"
        return text


class SweepFailed(RuntimeError):
    """Every run a sweep started failed: a script that reads the campaign
    afterwards would otherwise see an empty table as if all were well. The
    failures are stored in the campaign (`counts` says what was done, with
    the errors); a sweep in which some runs succeeded returns normally."""

    def __init__(self, counts: SweepCounts):
        self.counts = counts
        first = counts.errors[0][1] if counts.errors else "failed"
        text = f"all {counts.failed} runs of the sweep failed (first error: {first})"
        if all(worker_died(error) for _, error in counts.errors):
            text += "; " + WORKERS_DIED_HINT
        super().__init__(text)


class SweepInterrupted(KeyboardInterrupt):
    """Ctrl-C or SIGTERM during a sweep; `counts` says what was stored before
    it, `signum` which signal it was (SIGINT for Ctrl-C, SIGTERM)."""

    def __init__(self, counts: SweepCounts, signum: int = signal.SIGINT):
        super().__init__(counts.line())
        self.counts = counts
        self.signum = signum


# ---------------------------------------------------------------------------
# The grid


@dataclass(frozen=True)
class SweepPoint:
    """One run of the grid before validation: swept values and a seed (None:
    the scenario's own)."""

    params: dict[str, Any]
    seed: int | None

    def label(self) -> str:
        parts = [f"{k}={_shown(v)}" for k, v in self.params.items()]
        if self.seed is not None:
            parts.append(f"seed={self.seed}")
        return ", ".join(parts) or "(no swept keys)"


def _shown(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _as_lists(
    spec: Mapping[str, Any] | Sequence[str] | None, option: str
) -> list[tuple[str, list[Any]]]:
    """{key: values} (a list, a range, or a 'V1,V2' string) or ['KEY=V1,V2', ...]."""
    if spec is None:
        return []
    out: list[tuple[str, list[Any]]] = []
    if isinstance(spec, Mapping):
        for key, values in spec.items():
            if isinstance(values, str):
                try:
                    values = parse_values(values)
                except SweepError as e:
                    raise SweepError(f"bad {option} {key}: {e}") from None
            elif isinstance(values, Iterable) and not isinstance(values, dict):
                values = bounded_list(values, f"values of {key}")
            else:
                values = [values]
            out.append((str(key), values))
    else:
        if isinstance(spec, str):
            spec = [spec]
        out = [parse_list_option(text, option) for text in spec]
    for key, values in out:
        if not values:
            raise SweepError(f"{option} {key}: no values")
    return out


@dataclass(frozen=True)
class Grid:
    """A sweep's grid before any point is built: its size is known at once,
    its points are produced one at a time."""

    keys: list[str]
    grid: list[tuple[str, list[Any]]]
    zip_rows: list[dict[str, Any]]
    seeds: Sequence[int | None]

    @property
    def size(self) -> int:
        return (
            math.prod(len(v) for _, v in self.grid)
            * len(self.zip_rows)
            * sequence_length(self.seeds)
        )

    def factors(self) -> str:
        """'3 values of a × 100,000,000 seeds': how the size comes about."""
        parts = [f"{len(v):,} values of {k}" for k, v in self.grid]
        if self.zip_rows != [{}]:
            parts.append(f"{len(self.zip_rows):,} --zip points")
        if self.seeds != [None]:
            parts.append(f"{sequence_length(self.seeds):,} seeds")
        return " × ".join(parts) or "1 point"

    def points(self) -> Iterator[SweepPoint]:
        for combo in itertools.product(*(values for _, values in self.grid)):
            base = {k: v for (k, _), v in builtins.zip(self.grid, combo, strict=True)}
            for row in self.zip_rows:
                params = {**base, **row}
                for seed in self.seeds:
                    yield SweepPoint(params, seed)


def grid(
    set: Mapping[str, Any] | Sequence[str] | None = None,  # noqa: A002 - the API's name
    zip: Mapping[str, Any] | Sequence[str] | None = None,  # noqa: A002
    seeds: str | int | Iterable[int] | None = None,
) -> Grid:
    """The grid of a sweep request; a SweepError when it is malformed or
    holds more than MAX_RUNS points (before any point is built)."""
    factors = _as_lists(set, "--set")
    zipped = _as_lists(zip, "--zip")
    keys = [k for k, _ in factors] + [k for k, _ in zipped]
    seen: dict[str, None] = {}
    for k in keys:
        if k in seen:
            raise SweepError(f"{k} is swept twice (in --set or --zip)")
        seen[k] = None
    if zipped:
        lengths = {len(v) for _, v in zipped}
        if len(lengths) > 1:
            shown = ", ".join(f"{k} has {len(v)}" for k, v in zipped)
            raise SweepError(f"--zip lists must have the same length: {shown}")
        zip_rows = [dict(row) for row in _transpose(zipped)]
    else:
        zip_rows = [{}]
    result = Grid(keys, factors, zip_rows, seed_sequence(seeds) or [None])
    if result.size > MAX_RUNS:
        raise SweepError(f"{result.size:,} runs requested ({result.factors()}); {at_most_runs()}")
    return result


def expand(
    set: Mapping[str, Any] | Sequence[str] | None = None,  # noqa: A002 - the API's name
    zip: Mapping[str, Any] | Sequence[str] | None = None,  # noqa: A002
    seeds: str | int | Iterable[int] | None = None,
) -> tuple[list[str], list[SweepPoint]]:
    """The swept keys (in order) and the points: the Cartesian product of the
    `set` lists, times the `zip` lists taken together, times the seeds."""
    g = grid(set, zip, seeds)
    return g.keys, list(g.points())


def _transpose(zipped: list[tuple[str, list[Any]]]) -> Iterator[list[tuple[str, Any]]]:
    n = len(zipped[0][1])
    for i in range(n):
        yield [(k, v[i]) for k, v in zipped]


# ---------------------------------------------------------------------------
# Run keys


def run_key(description: dict | str) -> str:
    """sha256(normalised_json(description) + "\\n" + build identity)[:20],
    hex; `description` is the validated, normalised description with its
    seed. The build identity (satcc.build) changes with any change to the
    code, so a stored run is reused only by the build that computed it."""
    from .build import build_id

    text = description if isinstance(description, str) else normalised_json(description)
    return hashlib.sha256((text + "\n" + build_id()).encode("utf-8")).hexdigest()[:20]


@dataclass(frozen=True)
class PlannedRun:
    key: str
    description: str  # normalised JSON
    point: RunPoint


def plan(scenario: Scenario, points: Iterable[SweepPoint]) -> list[PlannedRun]:
    """Validate every point (before anything runs) and give each its key; a
    bad value raises ScenarioError naming the point and the key path.
    Points that turn out identical are kept once. The seeds of one grid
    point (which share its params object, `Grid.points`) are validated once:
    the others' descriptions differ only by their seed (`Scenario.reseeded`)."""
    runs: dict[str, PlannedRun] = {}
    last: tuple[dict[str, Any], dict] | None = None  # the previous point's params, description
    for point in points:
        if last is not None and last[0] is point.params and point.seed is not None:
            desc = _reseeded(scenario, last[1], point)
        else:
            desc = _validated_description(scenario, point)
            last = (point.params, desc)
        text = normalised_json(desc)
        key = run_key(text)
        if key not in runs:
            runs[key] = PlannedRun(key, text, RunPoint(dict(point.params), int(desc["seed"])))
    return list(runs.values())


def _validated(scenario: Scenario, point: SweepPoint) -> tuple[str, int]:
    """The normalised description of one point, and its seed."""
    desc = _validated_description(scenario, point)
    return normalised_json(desc), int(desc["seed"])


def _validated_description(scenario: Scenario, point: SweepPoint) -> dict:
    variant = scenario.copy()
    try:
        for k, v in point.params.items():
            # A grid key into an entry the scenario lacks is a typo, not a new entry.
            variant.set(k, v, new_entries=False)
        return variant.validate(seed=point.seed)
    except ScenarioError as e:
        raise _at_point(point, e) from None


def _reseeded(scenario: Scenario, desc: dict, point: SweepPoint) -> dict:
    try:
        return scenario.reseeded(desc, point.seed)
    except ScenarioError as e:
        raise _at_point(point, e) from None


def _at_point(point: SweepPoint, e: ScenarioError) -> ScenarioError:
    return ScenarioError(f"sweep point {point.label()}", e.path, e.reason, errors=e.errors)


# ---------------------------------------------------------------------------
# The memory of a sweep's bookkeeping

# What a planned run costs besides its description: its key, point and task
# objects and the dictionary entries that find them (measured with
# tracemalloc on examples/*.toml: 0.8-1.7 kB; rounded up).
RUN_OVERHEAD_BYTES = 2_000


def bookkeeping_bytes(runs: int, description_bytes: int) -> int:
    """The memory a sweep holds until its runs are stored: every planned
    run's description and the objects around it."""
    return runs * (description_bytes + RUN_OVERHEAD_BYTES)


def available_memory() -> int | None:
    """Bytes this process may still allocate: the kernel's MemAvailable,
    lowered to what a cgroup (container, batch job) leaves; None if unknown."""
    figures = [b for b in (_mem_available(), _cgroup_room()) if b is not None]
    return min(figures) if figures else None


def _mem_available() -> int | None:
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def _cgroup_room() -> int | None:
    try:
        limit = Path("/sys/fs/cgroup/memory.max").read_text().strip()
        used = Path("/sys/fs/cgroup/memory.current").read_text().strip()
        return max(0, int(limit) - int(used)) if limit != "max" else None
    except (OSError, ValueError):
        return None


def check_memory(scenario: Scenario, g: Grid) -> int:
    """Estimate the bookkeeping of the sweep `g` from its first point and
    refuse it when it would take more than half the memory available (the
    runs need the rest); returns the estimate in bytes."""
    text, _ = _validated(scenario, next(g.points()))
    need = bookkeeping_bytes(g.size, len(text.encode("utf-8")))
    available = available_memory()
    if available is not None and need > available // 2:
        raise SweepError(
            f"this sweep's bookkeeping needs about {_bytes(need)} ({g.size:,} runs × "
            f"{_bytes(need // g.size)}: each planned run's description is kept until it is "
            f"stored), more than half of the {_bytes(available)} of memory available: "
            "split the grid or the seeds over several sweeps into the same campaign"
        )
    return need


def _bytes(n: int) -> str:
    for unit, size in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n} B"


# ---------------------------------------------------------------------------
# Executors


def check_executor(executor: Any, scheduler: str | None) -> None:
    """Refuses an executor and scheduler that do not go together, before
    anything is opened or written."""
    if not isinstance(executor, str):
        return
    if executor == "local" and scheduler:
        raise SweepError("--scheduler needs --executor dask")
    if executor == "dask" and not scheduler:
        raise SweepError(
            "--executor dask needs --scheduler tcp://HOST:PORT "
            "(or --executor dask-local for a cluster on this machine)"
        )
    if executor == "dask-local" and scheduler:
        raise SweepError("--executor dask-local starts its own cluster: drop --scheduler")
    if executor not in ("local", "dask", "dask-local"):
        raise SweepError(f"unknown executor {executor!r} (executors: local, dask, dask-local)")


def make_executor(executor: Any, jobs: int | None, scheduler: str | None, retries: int) -> Any:
    check_executor(executor, scheduler)
    if not isinstance(executor, str):
        return executor  # anything with run(tasks) and close()
    if executor == "local":
        from .executors import LocalExecutor

        return LocalExecutor(jobs, retries)
    if executor in ("dask", "dask-local"):
        try:
            from .dask_executor import DaskExecutor
        except ImportError as e:
            raise SweepError(f"the dask executor is not available: {e}") from e
        if executor == "dask":
            return DaskExecutor(address=scheduler, retries=retries)
        return DaskExecutor(address=None, n_workers=jobs, retries=retries)
    raise SweepError(f"unknown executor {executor!r} (executors: local, dask, dask-local)")


# ---------------------------------------------------------------------------
# The sweep


def _campaign_meta(scenario: Scenario, parameters: list[str]) -> dict[str, Any]:
    from . import _core

    try:
        base = scenario.validate()
        base.pop("seed", None)
        base_description: Any = json.loads(normalised_json(base))
    except ScenarioError:
        # The base may be incomplete on purpose (every point sets the rest).
        base_description = None
    from .build import build_id

    return {
        "satcc_version": _core.version(),
        "satcc_build": build_id(),
        "created": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "scenario": scenario.name,
        "base_description": base_description,
        "parameters": parameters,
    }


def sweep(
    scenario: Scenario | dict | str | os.PathLike[str],
    set: Mapping[str, Any] | Sequence[str] | None = None,  # noqa: A002 - the API's name
    zip: Mapping[str, Any] | Sequence[str] | None = None,  # noqa: A002
    seeds: str | int | Iterable[int] | None = None,
    campaign: str | os.PathLike[str] | None = None,
    executor: Any = "local",
    jobs: int | None = None,
    scheduler: str | None = None,
    max_wall_s: float = DEFAULT_MAX_WALL_S,
    retries: int = 2,
    allow_version_mix: bool = False,
    progress: bool = False,
    allow_other_scenario: bool = False,
    wait: bool = True,
) -> Campaign:
    """Run every point of the grid the campaign does not hold yet.

    `set`: {key: [values]} (each a Cartesian factor); `zip`: {key: [values]}
    varying together; `seeds`: "1..10", "1,2,7", 5 or an iterable (default:
    the scenario's seed). Returns the Campaign; its `last_sweep` holds the
    counts (SweepCounts). Raises ScenarioError for a bad point (nothing run,
    nothing written), SweepError for a malformed or too big request,
    CampaignError for a campaign of another satcc version (unless
    allow_version_mix) or of another scenario (unless allow_other_scenario),
    and SweepInterrupted (a KeyboardInterrupt) on Ctrl-C or SIGTERM, after
    storing every finished run.

    One sweep at a time writes into a campaign: when another holds it, this
    one says so on stderr and waits for it (then runs only what is still
    missing), or with wait=False raises CampaignBusy.
    """
    from .runner import as_scenario

    refuse_while_importing("satcc.sweep")
    base = as_scenario(scenario)
    _check_options(max_wall_s, retries, jobs)
    check_executor(executor, scheduler)
    g = grid(set, zip, seeds)
    check_memory(base, g)
    planned = plan(base, g.points())
    folder = Path(campaign) if campaign is not None else Path("campaigns") / base.name
    meta = _campaign_meta(base, g.keys)
    store = Campaign.open(folder, create_with=meta)
    check_version(store, allow_version_mix)
    if not allow_other_scenario:
        check_scenario(store, meta)
    counts = SweepCounts(total=len(planned), campaign=str(folder))
    store.last_sweep = counts
    runner = _Runner(executor, jobs, scheduler, retries, float(max_wall_s), progress)
    try:
        with sigterm_as_interrupt(), _lock(store, wait):
            runner.run_missing(store, planned, counts)
            if len(store.parts("runs")) > COMPACT_AFTER:
                store.compact()
    except KeyboardInterrupt as e:
        counts.interrupted = True
        raise SweepInterrupted(counts, _signal_of(e)) from None
    if counts.failed and not counts.done_now:
        raise SweepFailed(counts)
    return store


def _check_options(max_wall_s: float, retries: int, jobs: int | None) -> None:
    if max_wall_s is None or not max_wall_s > 0:
        raise SweepError(f"the wall-clock budget must be positive, got {max_wall_s!r}")
    if retries < 0:
        raise SweepError(f"retries must not be negative, got {retries}")
    if jobs is not None and jobs < 1:
        raise SweepError(f"jobs must be at least 1, got {jobs}")


@dataclass
class _Runner:
    """Runs what a campaign lacks and stores each batch's outcomes as they come."""

    executor: Any
    jobs: int | None
    scheduler: str | None
    retries: int
    max_wall_s: float
    progress: bool

    def run_missing(self, store: Campaign, planned: list[PlannedRun], counts: SweepCounts) -> None:
        # Read under the campaign's lock: a sweep that waited for another
        # sees what that one stored.
        done = store.done_keys()
        todo = [p for p in planned if p.key not in done]
        counts.skipped = len(planned) - len(todo)
        if not todo:
            return
        by_key = {p.key: p.point for p in todo}
        tasks = [Task(p.key, p.description, max_wall_s=self.max_wall_s) for p in todo]
        bar = _Bar(len(planned), counts.skipped) if self.progress else None
        watch = SeedWatch(len({p.point.seed for p in todo}))
        runner = make_executor(self.executor, self.jobs, self.scheduler, self.retries)
        try:
            if bar:
                bar.start()
            for outcomes in outcome_groups(runner, tasks, self.jobs or default_jobs()):
                # A duplicate report of a run already stored is dropped.
                fresh = [(o, by_key.pop(o.key)) for o in outcomes if o.key in by_key]
                if not fresh:
                    continue
                with deferred_interrupts():
                    # Counted as stored: a run of another build is a failure.
                    stored = store.append([o for o, _ in fresh], [point for _, point in fresh])
                    fresh = list(zip(stored, [point for _, point in fresh], strict=True))
                    for outcome, _ in fresh:
                        _count(counts, outcome)
                for outcome, point in fresh:
                    warning = watch.see(outcome, point.seed, point.params)
                    if warning:
                        counts.warnings.append(warning)
                        _warn(warning, bar)
                if bar:
                    bar.update(counts)
        except KeyboardInterrupt:
            _stop_workers(runner)
            raise
        finally:
            if bar:
                bar.stop()
            runner.close()


def _warn(text: str, bar: _Bar | None) -> None:
    """A warning on stderr, through the progress bar's console when one is
    drawn (so that the bar is redrawn below it)."""
    from rich.console import Console
    from rich.markup import escape

    console = bar.progress.console if bar else Console(stderr=True, highlight=False)
    console.print(f"[bold yellow]warning[/]: {escape(text)}", soft_wrap=True)


# ---------------------------------------------------------------------------
# One sweep at a time per campaign


@contextmanager
def _lock(store: Campaign, wait: bool) -> Iterator[None]:
    """The campaign's lock for the whole sweep: two sweeps at once would both
    run every missing point, and one's compaction would delete the parts the
    other is reading. Waiting is the default because the second sweep then
    runs only what the first did not (a script may start sweeps in parallel
    and still get every run once); wait=False (--no-wait) refuses at once,
    for callers that must not block."""
    try:
        with store.locked(wait=wait, on_busy=lambda who: _say_waiting(store.path, who)):
            yield
    except CampaignBusy as e:
        raise CampaignBusy(
            f"{e}; it is another sweep or a compaction: run this sweep again when it "
            "has finished, or let it wait (leave out --no-wait; wait=True)"
        ) from None


def _say_waiting(folder: Path, holder: str) -> None:
    print(
        f"satcc sweep: campaign {folder} is in use by another sweep ({holder}); "
        "waiting for it to finish, then running what it did not (Ctrl-C to stop; "
        "--no-wait refuses instead of waiting)",
        file=sys.stderr,
        flush=True,
    )


# ---------------------------------------------------------------------------
# SIGTERM is handled as Ctrl-C


def _signal_of(interrupt: KeyboardInterrupt) -> int:
    return signal.SIGTERM if isinstance(interrupt, Terminated) else signal.SIGINT


def _stop_workers(runner: Any) -> None:
    """On Ctrl-C, end the runs in flight now rather than let close() wait for
    them (and for the calls already queued to the workers), which can take up
    to the wall-clock budget. Their results would not be stored anyway."""
    terminate = getattr(runner, "terminate", None)
    if callable(terminate):
        terminate()


def _count(counts: SweepCounts, outcome: Outcome) -> None:
    if outcome.ok:
        counts.done_now += 1
    else:
        counts.failed += 1
        counts.errors.append((outcome.key, outcome.error or "failed"))


class _Bar:
    """runs done/total, failures, ETA and runs/s on stderr."""

    def __init__(self, total: int, skipped: int):
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeRemainingColumn,
        )

        self.progress = Progress(
            TextColumn("sweep"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("runs, {task.fields[failed]} failed"),
            TimeRemainingColumn(),
            TextColumn("{task.fields[rate]}"),
            console=Console(stderr=True),
            transient=False,
        )
        self.task = self.progress.add_task(
            "sweep", total=total, completed=skipped, failed=0, rate=""
        )
        self.skipped = skipped
        self.t0 = time.perf_counter()

    def start(self) -> None:
        self.t0 = time.perf_counter()
        self.progress.start()

    def update(self, counts: SweepCounts) -> None:
        ran = counts.done_now + counts.failed
        elapsed = time.perf_counter() - self.t0
        rate = f"{ran / elapsed:.3g} runs/s" if elapsed > 0 else ""
        self.progress.update(
            self.task, completed=self.skipped + ran, failed=counts.failed, rate=rate
        )

    def stop(self) -> None:
        self.progress.stop()
