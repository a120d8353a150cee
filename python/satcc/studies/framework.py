"""The study framework: reproduce published numbers and say how close we get.

A study is code plus data. The code builds the scenarios (one RunSpec per
parameter point) and turns a run's summary into metrics; the data are the
published values (References), each with the exact place it comes from and a
tolerance decided before looking at the simulator's output. reproduce() runs
every (RunSpec x seed) on local processes, averages over seeds with a
Student-t 95% confidence interval, and lays the published and measured
values side by side with a PASS/FAIL verdict per check. Nothing here knows
about any particular study."""

from __future__ import annotations

import json
import math
import os
import secrets
import signal
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass
from multiprocessing import get_context
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pandas as pd
from rich import box
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
)
from rich.table import Table
from scipy import stats

from satcc import fmt
from satcc.build import build_id
from satcc.console import table_console
from satcc.executors import (
    WORKERS_DIED_HINT,
    abandon_pool,
    default_jobs,
    refuse_while_importing,
    worker_died,
)
from satcc.signals import raise_if_terminated
from satcc.studies.emulated_mode import Emulated, require_emulation
from satcc.studies.errors import RunFailed

CONFIDENCE = 0.95

TABLE_COLUMNS = [
    "study",
    "label",
    "params",
    "metric",
    "published",
    "source",
    "kind",
    "measured",
    "ci_half_width",
    "n_seeds",
    "tolerance",
    "tolerance_kind",
    "allowed",
    "error",
    "passed",
    "notes",
]


@dataclass(frozen=True)
class RunSpec:
    """One parameter point of a study: a scenario (as a dict) to run under every
    seed of the study, or under its own `seeds` when a point needs more or
    fewer replications than the rest (a cheap judged point in quick mode)."""

    label: str
    params: dict[str, Any]
    scenario: dict[str, Any]
    seeds: tuple[int, ...] | None = None


@dataclass(frozen=True)
class Reference:
    """A published value that one metric of one RunSpec must match.

    `source` is where the number comes from, precise enough to find it
    (book/paper, table/figure/equation, row). `kind` says what sort of number
    it is ("closed-form", "table", "figure" read off a plot, ...), because a
    value read off a figure deserves a looser tolerance than an equation.

    Tolerance kinds: "relative" (a fraction of the published value),
    "absolute" (in the metric's unit), "factor" (measured within
    [value / f, value * f]), and "none": a row shown beside the published
    value (NaN when none was published) but not judged, for numbers the
    study reports without a claim to reproduce them.
    """

    label: str
    metric: str
    value: float
    source: str
    tolerance: float
    tolerance_kind: Literal["relative", "absolute", "factor", "none"] = "relative"
    kind: str = "closed-form"
    notes: str = ""

    def __post_init__(self) -> None:
        kinds = ("relative", "absolute", "factor", "none")
        if self.tolerance_kind not in kinds:
            raise ValueError(
                f"tolerance_kind must be one of {', '.join(kinds)}, not {self.tolerance_kind!r}"
            )
        if not self.tolerance >= 0:
            raise ValueError(f"tolerance must be >= 0, not {self.tolerance!r}")
        if self.tolerance_kind == "factor" and not self.tolerance >= 1:
            raise ValueError(f"a factor tolerance must be >= 1, not {self.tolerance!r}")
        if self.judged and not math.isfinite(self.value):
            raise ValueError("a judged reference needs a published value")

    @property
    def judged(self) -> bool:
        return self.tolerance_kind != "none"

    @property
    def allowed(self) -> float:
        """The largest |measured - published| that still passes (above the
        value, for a factor); NaN for a row that is not judged."""
        if self.tolerance_kind == "relative":
            return self.tolerance * abs(self.value)
        if self.tolerance_kind == "factor":
            return (self.tolerance - 1) * abs(self.value)
        if self.tolerance_kind == "none":
            return math.nan
        return self.tolerance

    def passes(self, measured: float) -> bool | None:
        """None for a row that is not judged."""
        # NaN compares false, so a metric that could not be measured fails.
        if self.tolerance_kind == "none":
            return None
        if self.tolerance_kind == "factor":
            low, high = sorted((self.value / self.tolerance, self.value * self.tolerance))
            return bool(low <= measured <= high)
        return bool(abs(measured - self.value) <= self.allowed)


@dataclass(frozen=True)
class Study:
    """A reproducible comparison between the simulator and published results.

    runs(quick) gives the parameter points, seeds(quick) the seeds each is run
    with, metrics(summary, spec) the numbers extracted from one run's summary,
    and references the published values they are checked against (matched by
    RunSpec label and metric name). quick mode is for demos and smoke tests:
    shorter runs and fewer seeds; `quick_note` says what that costs.
    """

    name: str
    title: str
    paper: str
    description: str
    runs: Callable[[bool], list[RunSpec]]
    metrics: Callable[[dict[str, Any], RunSpec], dict[str, float]]
    references: list[Reference]
    seeds: Callable[[bool], list[int]]
    quick_note: str = ""
    # A study whose rows form the paper's own tables may lay them out that
    # way instead of one line per check; it gets the comparison table.
    layout: Callable[[pd.DataFrame], list[Table]] | None = None
    # Results beyond the checks (curves as CSV, plots as PNG), written into
    # the output folder from every run's summary; returns the file names.
    artifacts: (
        Callable[[list[RunSpec], dict[tuple[int, int], dict[str, Any]], Path, bool], list[str]]
        | None
    ) = None
    # Labels of runs that only full mode makes: quick mode leaves them out,
    # and their references with them.
    full_only: frozenset[str] = frozenset()
    # Real tools over the same models in real time (`satcc reproduce STUDY
    # --emulate`, docs/emulate.md): run after the simulated study, given its
    # runs and summaries; writes its files into the output folder and
    # returns what to print and the names of the files written.
    emulation: (
        Callable[[list[RunSpec], dict[tuple[int, int], dict[str, Any]], Path, bool], Emulated]
        | None
    ) = None
    # Names of the series (probes, end-of-run series) the artifacts draw:
    # read back from the campaign store and handed to `artifacts` as a fifth
    # argument, {(run index, seed): {name: (x, values)}}.
    series: tuple[str, ...] = ()

    def references_for(self, quick: bool) -> list[Reference]:
        """The references a run in this mode is compared with."""
        if not quick:
            return self.references
        return [ref for ref in self.references if ref.label not in self.full_only]


# ---------------------------------------------------------------------------
# Running


def run_one(scenario: dict[str, Any], seed: int) -> dict[str, Any]:
    """Worker: run one scenario with one seed and return its summary.

    Module-level and plain-data in, plain-data out, so that it pickles to a
    worker process; the metrics are extracted in the parent, where the study
    object lives.
    """
    from satcc.runner import run

    return dict(run(scenario, seed=seed, progress=False).summary)


def _ignore_sigint() -> None:
    # Ctrl-C reaches the whole process group. Only the parent should react
    # (it cancels the pool and terminates the workers); workers dying on their
    # own would each print a traceback and break the pool half-way.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


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


def remove_other_campaigns(out_dir: Path, keep: Path) -> list[str]:
    """Removes the study campaigns in `out_dir` other than `keep`: those of
    other builds (or of versions before builds were recorded), whose runs no
    key of this build matches. Returns their names."""
    import shutil

    if not out_dir.is_dir():
        return []
    removed = []
    for folder in sorted(out_dir.glob("campaign-*")):
        if folder != keep and folder.is_dir() and (folder / "campaign.json").is_file():
            shutil.rmtree(folder)
            removed.append(folder.name)
    return removed


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
    and each finished run is stored at once, so an interrupted reproduction
    resumes where it stopped. Run keys carry the build identity
    (satcc.build), so a run is reused only by the build that computed it;
    the campaign folder is the build's (`reproduce` removes those of other
    builds). The runs
    execute where a sweep's would (`executor`: "local" processes, "dask" at
    `scheduler`, or "dask-local", a cluster started here)."""
    from satcc import _core
    from satcc.build import build_id
    from satcc.executors import Task
    from satcc.store import Campaign, RunPoint
    from satcc.sweeps import make_executor

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
            for outcome in runner.run(Task(k, planned[k][2]) for k in pending):
                store.append([outcome], points)
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


def plan_runs(specs: list[RunSpec], seeds: list[int]) -> dict[str, tuple[int, int, str]]:
    """Every (spec, seed) of a study by run key: (spec index, seed, normalised
    description)."""
    from satcc.scenario import Scenario, normalised_json
    from satcc.sweeps import run_key

    planned: dict[str, tuple[int, int, str]] = {}
    for i, spec in enumerate(specs):
        for seed in spec.seeds or seeds:
            try:
                description = normalised_json(Scenario.from_dict(spec.scenario).validate(seed=seed))
            except Exception as e:  # the study's own scenario: a bug, not user input
                raise _run_failed(spec, _Task(i, seed), e) from e
            planned[run_key(description)] = (i, seed, description)
    return planned


def campaign_series(
    planned: dict[str, tuple[int, int, str]],
    campaign: str | os.PathLike[str],
    names: tuple[str, ...],
) -> dict[tuple[int, int], dict[str, tuple[np.ndarray, np.ndarray]]]:
    """The series `names` of a study's planned runs (`plan_runs`), from its
    campaign store: {(spec index, seed): {name: (x, values)}}, for the runs
    that have them."""
    from satcc.store import Campaign

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
    # forkserver, not fork: the parent may hold threads (rich's refresher,
    # pyarrow's pools) and forking a threaded process can deadlock the child.
    executor = ProcessPoolExecutor(
        max_workers=jobs, mp_context=get_context("forkserver"), initializer=_ignore_sigint
    )
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


# ---------------------------------------------------------------------------
# Measuring and aggregating


def measure(
    study: Study, specs: list[RunSpec], summaries: dict[tuple[int, int], dict[str, Any]]
) -> pd.DataFrame:
    """Per-run metric values: one row per (label, seed, metric)."""
    rows = []
    for (index, seed), summary in sorted(summaries.items()):
        spec = specs[index]
        for metric, value in study.metrics(summary, spec).items():
            rows.append(
                {"label": spec.label, "seed": seed, "metric": metric, "value": float(value)}
            )
    return pd.DataFrame(rows, columns=["label", "seed", "metric", "value"])


def confidence_half_width(values: Iterable[float], confidence: float = CONFIDENCE) -> float:
    """Half-width of the Student-t confidence interval of the mean of `values`.

    Seeds are independent replications, so the t interval on their means is
    the honest one; with a single seed there is no spread to estimate and the
    answer is NaN (shown as fmt.MISSING).
    """
    x = np.asarray(list(values), dtype=float)
    n = len(x)
    if n < 2:
        return math.nan
    t = stats.t.ppf(0.5 + confidence / 2, df=n - 1)
    return float(t * x.std(ddof=1) / math.sqrt(n))


def per_point(
    specs: list[RunSpec],
    summaries: dict[tuple[int, int], dict[str, Any]],
    metrics: Callable[[dict[str, Any], RunSpec], dict[str, float]],
    params: Callable[[dict[str, Any]], dict[str, Any]] = dict,
) -> pd.DataFrame:
    """One row per run spec for a study's figures: its label, its params (as
    `params` flattens them), each metric's mean over the seeds and its CI
    half-width (`METRIC_ci`), and the number of seeds."""
    rows = []
    for i, spec in enumerate(specs):
        values: dict[str, list[float]] = {}
        for (j, _seed), summary in sorted(summaries.items()):
            if j == i:
                for k, v in metrics(summary, spec).items():
                    values.setdefault(k, []).append(v)
        row: dict[str, Any] = {"label": spec.label, **params(spec.params)}
        for k, vs in values.items():
            row[k] = float(np.mean(vs))
            row[f"{k}_ci"] = confidence_half_width(vs)
            row["n_seeds"] = len(vs)
        rows.append(row)
    return pd.DataFrame(rows)


def aggregate(per_run: pd.DataFrame) -> pd.DataFrame:
    """Mean, CI half-width and number of seeds per (label, metric)."""
    rows = []
    for (label, metric), group in per_run.groupby(["label", "metric"], sort=False):
        values = group["value"].to_numpy()
        rows.append(
            {
                "label": label,
                "metric": metric,
                "mean": float(np.mean(values)) if len(values) else math.nan,
                "ci_half_width": confidence_half_width(values),
                "n": len(values),
            }
        )
    return pd.DataFrame(rows, columns=["label", "metric", "mean", "ci_half_width", "n"])


def compare(
    study: Study, specs: list[RunSpec], aggregated: pd.DataFrame, quick: bool = False
) -> pd.DataFrame:
    """The comparison table: one row per Reference of the mode, in the
    study's order."""
    params_by_label = {spec.label: spec.params for spec in specs}
    measured = {(r.label, r.metric): r for r in aggregated.itertuples(index=False)}
    rows = []
    for ref in study.references_for(quick):
        if ref.label not in params_by_label:
            raise ValueError(
                f"study {study.name}: reference {ref.metric} names no run {ref.label!r}"
            )
        agg = measured.get((ref.label, ref.metric))
        if agg is None:
            raise ValueError(
                f"study {study.name}: run {ref.label!r} produced no metric {ref.metric!r}"
            )
        rows.append(_comparison_row(study.name, params_by_label[ref.label], ref, agg))
    return pd.DataFrame(rows, columns=TABLE_COLUMNS)


def _comparison_row(study: str, params: dict[str, Any], ref: Reference, agg: Any) -> dict:
    finite = math.isfinite(ref.value) and ref.value != 0
    error = (agg.mean - ref.value) / abs(ref.value) if finite else math.nan
    return {
        "study": study,
        "label": ref.label,
        "params": json.dumps(params, sort_keys=True),
        "metric": ref.metric,
        "published": ref.value,
        "source": ref.source,
        "kind": ref.kind,
        "measured": agg.mean,
        "ci_half_width": agg.ci_half_width,
        "n_seeds": int(agg.n),
        "tolerance": ref.tolerance,
        "tolerance_kind": ref.tolerance_kind,
        "allowed": ref.allowed,
        "error": error,
        "passed": ref.passes(agg.mean),
        "notes": ref.notes,
    }


# ---------------------------------------------------------------------------
# Showing and writing


def verdict_line(table: pd.DataFrame) -> str:
    judged = table[table["tolerance_kind"] != "none"]
    line = f"{int(judged['passed'].astype(bool).sum())}/{len(judged)} checks within tolerance"
    shown = len(table) - len(judged)
    return line + (f"; {shown} rows shown, not judged" if shown else "")


def _seeds_phrase(table: pd.DataFrame) -> str:
    counts = sorted(set(table["n_seeds"]))
    seeds = "/".join(str(n) for n in counts)
    return f"mean of {seeds} seed{'s' if counts != [1] else ''}, 95% Student-t CI"


def print_comparison(
    study: Study, table: pd.DataFrame, console: Console, *, quick: bool = False
) -> None:
    """Published and measured side by side, sources as numbered notes below.

    Laid out to fit 80 columns: sources are long, so the table carries only
    their number. Off a terminal, satcc.console prints it in full whatever
    its width.
    """
    if study.layout is not None:
        for part in study.layout(table):
            console.print(part)
        console.print(_seeds_phrase(table), highlight=False)
        if quick and study.quick_note:
            console.print(f"quick mode: {study.quick_note}", highlight=False)
        console.print(verdict_line(table), style="bold", highlight=False)
        return
    sources = list(dict.fromkeys(table["source"]))
    out = Table(
        title=f"{study.name}: {study.title}",
        caption=_seeds_phrase(table),
        title_justify="left",
        caption_justify="left",
        box=box.SIMPLE_HEAD,
        padding=0,
        show_edge=False,
    )
    for name in ("run", "metric", "published", "measured", "±CI", "error", "tol", "", "src"):
        left = name in ("run", "metric", "")
        out.add_column(name, justify="left" if left else "right", no_wrap=left)
    for row in table.itertuples(index=False):
        out.add_row(
            row.label,
            row.metric,
            fmt.number(row.published),
            fmt.number(row.measured),
            fmt.number(row.ci_half_width, 2),
            fmt.signed_percent(row.error),
            fmt.tolerance(row.tolerance, row.tolerance_kind),
            fmt.verdict_markup(row.passed),
            f"[{sources.index(row.source) + 1}]",
        )
    console.print(out)
    for number, source in enumerate(sources, start=1):
        console.print(f"[{number}] {source}", markup=False, highlight=False)
    if quick and study.quick_note:
        console.print(f"quick mode: {study.quick_note}", highlight=False)
    console.print(verdict_line(table), style="bold", highlight=False)


def write_atomic(path: Path, text: str) -> None:
    """Write a file so that readers see the old content or the new, never a part."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}-{secrets.token_hex(4)}")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def write_tables(
    study: Study,
    table: pd.DataFrame,
    per_run: pd.DataFrame,
    out: Path,
    *,
    quick: bool,
    seeds: list[int],
) -> None:
    """<out>/<study>.csv (the comparison), <out>/<study>.json (the same plus
    per-run values and the study's metadata). Both deterministic for
    deterministic runs: no timestamps, no wall times."""
    import satcc

    write_atomic(out / f"{study.name}.csv", table.to_csv(index=False, lineterminator="\n"))
    document = {
        "study": study.name,
        "title": study.title,
        "paper": study.paper,
        "quick": quick,
        "seeds": seeds,
        "satcc_version": satcc.__version__,
        "satcc_build": build_id(),
        "summary": verdict_line(table),
        "checks": _records(table),
        "runs": _records(per_run),
    }
    text = json.dumps(document, indent=2, sort_keys=True, allow_nan=False, default=str) + "\n"
    write_atomic(out / f"{study.name}.json", text)


def _records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    # JSON has no NaN; null is what a reader expects for "not available".
    records = frame.astype(object).where(frame.notna(), None).to_dict(orient="records")
    return [
        {k: (v.item() if isinstance(v, np.generic) else v) for k, v in r.items()} for r in records
    ]


def reproduce(
    study: Study,
    quick: bool = False,
    jobs: int | None = None,
    out: str | os.PathLike[str] | None = None,
    progress: bool = True,
    *,
    console: Console | None = None,
    show: bool = True,
    worker: Callable[[dict[str, Any], int], dict[str, Any]] = run_one,
    emulate: bool = False,
    executor: str = "local",
    scheduler: str | None = None,
) -> pd.DataFrame:
    """Run `study`, compare with its references, print and write the table.

    Returns the comparison table (columns TABLE_COLUMNS). `out` defaults to
    results/<study>/. The runs go through a campaign store in
    <out>/campaign-<build>/ (satcc.build), so an interrupted reproduction
    resumes and a repeated one reuses its runs, in the same build only: the
    campaigns of other builds in <out> are removed, their runs having been
    computed by other code. The tables are written once every run has
    finished. A custom `worker` (tests) runs without a store.
    With `emulate`, the study's emulation then runs real tools over the
    same models (needs root and /dev/net/tun; checked before anything runs).
    """
    refuse_while_importing(f"satcc.reproduce({study.name!r})")
    if emulate:
        require_emulation(study)
    specs = study.runs(quick)
    seeds = list(study.seeds(quick))
    out_dir = Path(out) if out is not None else Path("results") / study.name
    campaign = out_dir / f"campaign-{build_id()}"
    planned = None
    if worker is run_one:
        removed = remove_other_campaigns(out_dir, campaign)
        if removed and show:
            note = f"{study.name}: removed {len(removed)} campaign(s) of other builds"
            (console or table_console()).print(f"{note}: {', '.join(removed)}", highlight=False)
        planned = plan_runs(specs, seeds)
        summaries = execute_in_campaign(
            specs,
            seeds,
            campaign,
            study=study.name,
            jobs=jobs,
            progress=progress,
            planned=planned,
            executor=executor,
            scheduler=scheduler,
        )
    else:
        summaries = execute(
            specs, seeds, jobs=jobs, progress=progress, title=study.name, worker=worker
        )
    # Runs finish in any order; the artifacts average over seeds, and a
    # float sum depends on its order, so hand them on in (run, seed) order.
    summaries = dict(sorted(summaries.items()))
    per_run = measure(study, specs, summaries)
    table = compare(study, specs, aggregate(per_run), quick=quick)
    write_tables(study, table, per_run, out_dir, quick=quick, seeds=seeds)
    written = []
    if study.artifacts and study.series:
        series = campaign_series(planned, campaign, study.series) if planned else {}
        written = study.artifacts(specs, summaries, out_dir, quick, series)
    elif study.artifacts:
        written = study.artifacts(specs, summaries, out_dir, quick)
    if show:
        console = console or table_console()
        print_comparison(study, table, console, quick=quick)
    if emulate:
        emulated = study.emulation(specs, summaries, out_dir, quick)
        written += emulated.files
        if show:
            for part in emulated.tables:
                console.print(part)
    if show and written:
        console.print(f"also wrote {', '.join(written)}", highlight=False)
    return table
