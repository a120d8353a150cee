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

Flush policy: every outcome is appended to the store as soon as the executor
yields it (one set of Parquet parts per run, written atomically), before the
next outcome is awaited; a `kill -9` therefore loses only the runs in flight.
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
import re
import time
import tomllib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .executors import DEFAULT_MAX_WALL_S, Outcome, Task
from .scenario import Scenario, ScenarioError, normalised_json
from .store import Campaign, CampaignError, RunPoint

__all__ = [
    "SweepCounts",
    "SweepError",
    "SweepInterrupted",
    "SweepPoint",
    "expand",
    "parse_seeds",
    "parse_values",
    "run_key",
    "sweep",
]

# Compact the store at the end of a sweep when it holds more run parts than this.
COMPACT_AFTER = 1


class SweepError(ValueError):
    """A malformed sweep request (value list, seeds, zip lengths, executor)."""


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

    def line(self) -> str:
        text = (
            f"{self.total} runs: {self.done_now} done now, {self.skipped} skipped "
            f"(already in the store), {self.failed} failed -> {self.campaign}"
        )
        if self.interrupted:
            left = self.total - self.done_now - self.skipped - self.failed
            text += f" (interrupted, {left} not run)"
        return text


class SweepInterrupted(KeyboardInterrupt):
    """Ctrl-C during a sweep; `counts` says what was stored before it."""

    def __init__(self, counts: SweepCounts):
        super().__init__(counts.line())
        self.counts = counts


# ---------------------------------------------------------------------------
# Value lists


_RANGE = re.compile(r"^range\s*\((?P<args>[^()]*)\)\s*(?P<unit>.*?)\s*$")
_OPEN = {"[": "]", "{": "}", "(": ")"}


def split_top_level(text: str) -> list[str]:
    """Split on commas outside brackets, braces, parentheses and quotes:
    '1, [2, 3], {a = 1, b = 2}, "x, y"' -> four items."""
    items: list[str] = []
    depth: list[str] = []
    quote: str | None = None
    start = 0
    i = 0
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\" and quote == '"':
                i += 2
                continue
            if ch == quote:
                quote = None
        elif ch in "\"'":
            quote = ch
        elif ch in _OPEN:
            depth.append(_OPEN[ch])
        elif depth and ch == depth[-1]:
            depth.pop()
        elif ch == "," and not depth:
            items.append(text[start:i])
            start = i + 1
        i += 1
    items.append(text[start:])
    return [item.strip() for item in items]


def parse_value(raw: str) -> Any:
    """One value: TOML when it parses as TOML (3, 0.5, true, "x", [..], {..}),
    else the plain text ("4 Mbps")."""
    try:
        return tomllib.loads(f"value = {raw}")["value"]
    except tomllib.TOMLDecodeError:
        return raw.strip()


def _number(text: str, what: str) -> int | float:
    value = parse_value(text.strip())
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise SweepError(f"range(): {what} must be a number, got {text.strip()!r}")
    return value


def _round12(x: float) -> float:
    return float(f"{x:.12g}")


def expand_range(args: str, unit: str = "") -> list[Any]:
    """range(START, STOP[, STEP]) as Python's range, floats allowed
    (START + i*STEP rounded to 12 significant digits); with a unit, the
    values are strings "N UNIT"."""
    parts = [p for p in args.split(",")]
    if len(parts) not in (2, 3) or not all(p.strip() for p in parts):
        raise SweepError(f"range({args}): expected range(START, STOP) or range(START, STOP, STEP)")
    start = _number(parts[0], "START")
    stop = _number(parts[1], "STOP")
    step = _number(parts[2], "STEP") if len(parts) == 3 else 1
    if step == 0:
        raise SweepError(f"range({args}): STEP must not be zero")
    values: list[int | float]
    if all(isinstance(v, int) for v in (start, stop, step)):
        values = list(range(start, stop, step))
    else:
        values = []
        i = 0
        while True:
            x = _round12(start + i * step)
            if (step > 0 and x >= stop) or (step < 0 and x <= stop):
                break
            values.append(x)
            i += 1
            if i > 1_000_000:
                raise SweepError(f"range({args}): more than a million values")
    if len(values) > 1_000_000:
        raise SweepError(f"range({args}): more than a million values")
    if not unit:
        return list(values)
    return [f"{_show_number(v)} {unit}" for v in values]


def _show_number(v: int | float) -> str:
    return str(v) if isinstance(v, int) else f"{v:.12g}"


def parse_values(text: str) -> list[Any]:
    """'V1,V2,...' -> values; items may be range(...) [UNIT]; commas inside
    TOML arrays, inline tables, strings and range() do not split."""
    values: list[Any] = []
    for item in split_top_level(text):
        if not item:
            raise SweepError(f"empty value in {text!r}")
        m = _RANGE.match(item)
        if m:
            values.extend(expand_range(m.group("args"), m.group("unit")))
        else:
            values.append(parse_value(item))
    return values


def parse_list_option(text: str, option: str = "--set") -> tuple[str, list[Any]]:
    """'KEY=V1,V2,...' -> (key, values)."""
    key, sep, raw = text.partition("=")
    key = key.strip()
    if not sep or not key:
        raise SweepError(
            f"bad {option} {text!r}: expected KEY=V1,V2,..., e.g. "
            f"{option} 'links.sat.rate=2 Mbps,4 Mbps'"
        )
    if not raw.strip():
        raise SweepError(f"bad {option} {text!r}: no values after '='")
    try:
        return key, parse_values(raw)
    except SweepError as e:
        raise SweepError(f"bad {option} {key}: {e}") from None


_SEED_RANGE = re.compile(r"^\s*(\d+)\s*\.\.\s*(\d+)\s*$")


def parse_seeds(spec: str | int | Iterable[int] | None) -> list[int] | None:
    """'1..10' (inclusive), '1,2,7', '5', an int or an iterable of ints;
    None means the scenario's own seed."""
    if spec is None:
        return None
    if isinstance(spec, bool):
        raise SweepError(f"bad seeds {spec!r}: expected integers")
    if isinstance(spec, int):
        seeds = [spec]
    elif isinstance(spec, str):
        text = spec.strip()
        m = _SEED_RANGE.match(text)
        if m:
            lo, hi = int(m.group(1)), int(m.group(2))
            if hi < lo:
                raise SweepError(f"bad seeds {spec!r}: {hi} is below {lo}")
            seeds = list(range(lo, hi + 1))
        else:
            seeds = []
            for item in text.split(","):
                item = item.strip()
                if not item.isdigit():
                    raise SweepError(
                        f"bad seeds {spec!r}: expected 1..10, 1,2,7 or a single number"
                    )
                seeds.append(int(item))
    else:
        seeds = list(spec)
        for s in seeds:
            if isinstance(s, bool) or not isinstance(s, int):
                raise SweepError(f"bad seeds: {s!r} is not an integer")
    for s in seeds:
        if not 0 <= s < 2**63:
            raise SweepError(f"bad seeds: {s} is not between 0 and 2^63-1")
    if not seeds:
        raise SweepError("no seeds")
    return list(dict.fromkeys(seeds))


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
                values = list(values)
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


def expand(
    set: Mapping[str, Any] | Sequence[str] | None = None,  # noqa: A002 - the API's name
    zip: Mapping[str, Any] | Sequence[str] | None = None,  # noqa: A002
    seeds: str | int | Iterable[int] | None = None,
) -> tuple[list[str], list[SweepPoint]]:
    """The swept keys (in order) and the points: the Cartesian product of the
    `set` lists, times the `zip` lists taken together, times the seeds."""
    grid = _as_lists(set, "--set")
    zipped = _as_lists(zip, "--zip")
    keys = [k for k, _ in grid] + [k for k, _ in zipped]
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
    seed_list = parse_seeds(seeds) or [None]
    points = []
    for combo in itertools.product(*(values for _, values in grid)):
        base = {k: v for (k, _), v in builtins.zip(grid, combo, strict=True)}
        for row in zip_rows:
            params = {**base, **row}
            for seed in seed_list:
                points.append(SweepPoint(params, seed))
    return keys, points


def _transpose(zipped: list[tuple[str, list[Any]]]) -> Iterator[list[tuple[str, Any]]]:
    n = len(zipped[0][1])
    for i in range(n):
        yield [(k, v[i]) for k, v in zipped]


# ---------------------------------------------------------------------------
# Run keys


def run_key(description: dict | str) -> str:
    """sha256(normalised_json(description) + "\\n" + satcc version)[:20], hex;
    `description` is the validated, normalised description with its seed."""
    from . import _core

    text = description if isinstance(description, str) else normalised_json(description)
    return hashlib.sha256((text + "\n" + _core.version()).encode("utf-8")).hexdigest()[:20]


@dataclass(frozen=True)
class PlannedRun:
    key: str
    description: str  # normalised JSON
    point: RunPoint


def plan(scenario: Scenario, points: list[SweepPoint]) -> list[PlannedRun]:
    """Validate every point (before anything runs) and give each its key; a
    bad value raises ScenarioError naming the point and the key path.
    Points that turn out identical are kept once."""
    runs: dict[str, PlannedRun] = {}
    for point in points:
        variant = scenario.copy()
        try:
            for k, v in point.params.items():
                variant.set(k, v)
            desc = variant.validate(seed=point.seed)
        except ScenarioError as e:
            raise ScenarioError(
                f"sweep point {point.label()}", e.path, e.reason, errors=e.errors
            ) from None
        text = normalised_json(desc)
        key = run_key(text)
        if key not in runs:
            runs[key] = PlannedRun(key, text, RunPoint(dict(point.params), int(desc["seed"])))
    return list(runs.values())


# ---------------------------------------------------------------------------
# Executors


def make_executor(executor: Any, jobs: int | None, scheduler: str | None, retries: int) -> Any:
    if not isinstance(executor, str):
        return executor  # anything with run(tasks) and close()
    if executor == "local":
        if scheduler:
            raise SweepError("--scheduler needs --executor dask")
        from .executors import LocalExecutor

        return LocalExecutor(jobs, retries)
    if executor in ("dask", "dask-local"):
        if executor == "dask" and not scheduler:
            raise SweepError(
                "--executor dask needs --scheduler tcp://HOST:PORT "
                "(or --executor dask-local for a cluster on this machine)"
            )
        if executor == "dask-local" and scheduler:
            raise SweepError("--executor dask-local starts its own cluster: drop --scheduler")
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
    return {
        "satcc_version": _core.version(),
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
) -> Campaign:
    """Run every point of the grid the campaign does not hold yet.

    `set`: {key: [values]} (each a Cartesian factor); `zip`: {key: [values]}
    varying together; `seeds`: "1..10", "1,2,7", 5 or an iterable (default:
    the scenario's seed). Returns the Campaign; its `last_sweep` holds the
    counts (SweepCounts). Raises ScenarioError for a bad point (nothing run,
    nothing written), SweepError for a malformed request, CampaignError for a
    campaign of another satcc version (unless allow_version_mix), and
    SweepInterrupted (a KeyboardInterrupt) on Ctrl-C, after storing every
    finished run.
    """
    from .runner import as_scenario

    base = as_scenario(scenario)
    if max_wall_s is None or not max_wall_s > 0:
        raise SweepError(f"the wall-clock budget must be positive, got {max_wall_s!r}")
    if retries < 0:
        raise SweepError(f"retries must not be negative, got {retries}")
    if jobs is not None and jobs < 1:
        raise SweepError(f"jobs must be at least 1, got {jobs}")
    parameters, points = expand(set, zip, seeds)
    planned = plan(base, points)
    folder = Path(campaign) if campaign is not None else Path("campaigns") / base.name
    store = Campaign.open(folder, create_with=_campaign_meta(base, parameters))
    _check_version(store, allow_version_mix)

    done = store.done_keys()
    todo = [p for p in planned if p.key not in done]
    counts = SweepCounts(total=len(planned), skipped=len(planned) - len(todo), campaign=str(folder))
    store.last_sweep = counts
    by_key = {p.key: p.point for p in todo}
    tasks = [Task(p.key, p.description, max_wall_s=float(max_wall_s)) for p in todo]

    bar = _Bar(len(planned), counts.skipped) if progress else None
    runner = None
    try:
        if tasks:
            runner = make_executor(executor, jobs, scheduler, retries)
            if bar:
                bar.start()
            for outcome in runner.run(tasks):
                point = by_key.pop(outcome.key, None)
                if point is None:
                    continue  # a duplicate report of a run already stored
                store.append([outcome], {outcome.key: point})
                _count(counts, outcome)
                if bar:
                    bar.update(counts)
    except KeyboardInterrupt:
        counts.interrupted = True
        if runner is not None:
            _stop_workers(runner)
        raise SweepInterrupted(counts) from None
    finally:
        if bar:
            bar.stop()
        if runner is not None:
            try:
                runner.close()
            except KeyboardInterrupt:
                counts.interrupted = True
    if len(store.parts("runs")) > COMPACT_AFTER:
        store.compact()
    return store


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


def _check_version(store: Campaign, allow_version_mix: bool) -> None:
    from . import _core

    theirs, ours = store.version, _core.version()
    if theirs != ours and not allow_version_mix:
        raise CampaignError(
            f"{store.path}: campaign written by satcc {theirs}, this is satcc {ours}; "
            "its runs would be recomputed and the tables would mix two versions: "
            "use another --campaign, or --allow-version-mix to do it deliberately"
        )


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
