"""The study framework: reproduce published numbers and say how close we get.

reproduce() runs every (RunSpec x seed) of a study, averages over seeds
with a Student-t 95% confidence interval, and lays the published and
measured values side by side with a PASS/FAIL verdict per check. Nothing
here knows about any particular study. The steps live beside it:

- studies/spec.py: what a study is (RunSpec, Reference, Study);
- studies/execution.py: running its runs, through a campaign store;
- studies/compare.py: metrics per run, means and confidence intervals over
  the seeds, the verdicts;
- studies/present.py: the table printed, the CSV and JSON files written."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
from rich.console import Console

from satcc.build import build_id
from satcc.console import table_console
from satcc.executors import default_jobs, refuse_while_importing
from satcc.studies.compare import aggregate, compare, measure
from satcc.studies.emulated_mode import require_emulation
from satcc.studies.execution import (
    campaign_series,
    execute,
    execute_in_campaign,
    plan_runs,
    run_one,
)
from satcc.studies.present import print_comparison, write_tables
from satcc.studies.spec import Study


def remove_other_campaigns(out_dir: Path, keep: Path) -> list[str]:
    """Removes the study campaigns in `out_dir` other than `keep`: those of
    other builds (or of versions before builds were recorded), whose runs no
    key of this build matches. Returns their names."""
    if not out_dir.is_dir():
        return []
    removed = []
    for folder in sorted(out_dir.glob("campaign-*")):
        if folder != keep and folder.is_dir() and (folder / "campaign.json").is_file():
            shutil.rmtree(folder)
            removed.append(folder.name)
    return removed


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
    <study>.csv and <study>.json come last; the JSON lists, under "files",
    the names of the files the artifacts and the emulation wrote, in the
    order written.
    """
    refuse_while_importing(f"satcc.reproduce({study.name!r})")
    if emulate:
        require_emulation(study)
    specs = study.runs(quick)
    seeds = list(study.seeds(quick))
    out_dir = Path(out) if out is not None else Path("results") / study.name
    campaign = out_dir / f"campaign-{build_id()}"
    planned = None
    # The parent's own work (planning, artifacts) on processes of this
    # machine: -j, but no more than its CPUs (-j may count a cluster's).
    local_jobs = min(jobs or default_jobs(), default_jobs())
    if worker is run_one:
        removed = remove_other_campaigns(out_dir, campaign)
        if removed and show:
            note = f"{study.name}: removed {len(removed)} campaign(s) of other builds"
            (console or table_console()).print(f"{note}: {', '.join(removed)}", highlight=False)
        planned = plan_runs(specs, seeds, local_jobs)
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
    written = []
    extra = {"jobs": local_jobs} if study.artifacts_take_jobs else {}
    if study.artifacts and study.series:
        series = campaign_series(planned, campaign, study.series) if planned else {}
        written = list(study.artifacts(specs, summaries, out_dir, quick, series, **extra))
    elif study.artifacts:
        written = list(study.artifacts(specs, summaries, out_dir, quick, **extra))
    if show:
        console = console or table_console()
        print_comparison(study, table, console, quick=quick)
    if emulate:
        emulated = study.emulation(specs, summaries, out_dir, quick)
        written += emulated.files
        if show:
            for part in emulated.tables:
                console.print(part)
    # Last, so that <study>.json lists every file the study wrote (the
    # report embeds its figures from that list) and exists only for a
    # reproduction that finished.
    write_tables(study, table, per_run, out_dir, quick=quick, seeds=seeds, files=written)
    if show and written:
        console.print(f"also wrote {', '.join(written)}", highlight=False)
    return table
