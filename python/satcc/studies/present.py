"""Showing and writing a study's comparison: the table printed to fit 80
columns (sources as numbered notes below it) and the files a reproduction
leaves, <out>/<study>.csv and <out>/<study>.json, each written atomically
so that a reader never sees half a file. The files are deterministic for
deterministic runs: no timestamps, no wall times."""

from __future__ import annotations

import json
import os
import secrets
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from rich import box
from rich.console import Console
from rich.table import Table

import satcc
from satcc import fmt
from satcc.build import build_id
from satcc.studies.compare import verdict_line, verdict_markup
from satcc.studies.spec import Study


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
            verdict_markup(row),
            f"[{sources.index(row.source) + 1}]",
        )
    console.print(out)
    for number, source in enumerate(sources, start=1):
        console.print(f"[{number}] {source}", markup=False, highlight=False)
    if quick and study.quick_note:
        console.print(f"quick mode: {study.quick_note}", highlight=False)
    console.print(verdict_line(table), style="bold", highlight=False)


def judged_checks(study_name: str, table: pd.DataFrame) -> Table:
    """The judged rows of a comparison, each with its source in full: the
    list a study whose `layout` shows its runs as a grid adds below it."""
    out = Table(title=f"{study_name}: the judged checks", title_justify="left", box=box.SIMPLE_HEAD)
    for head in ("run", "metric", "published", "measured", "tol", "", "source"):
        out.add_column(head, no_wrap=head in ("run", "metric"))
    for row in table[table["tolerance_kind"] != "none"].itertuples():
        out.add_row(
            row.label,
            row.metric,
            fmt.number(row.published),
            fmt.number(row.measured),
            fmt.tolerance(row.tolerance, row.tolerance_kind),
            verdict_markup(row),
            row.source,
        )
    return out


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
    files: Sequence[str] = (),
) -> None:
    """<out>/<study>.csv (the comparison), <out>/<study>.json (the same plus
    per-run values, the study's metadata and `files`: the names of the other
    files the study wrote into <out>, in the order written, which the HTML
    report embeds or lists). Both deterministic for deterministic runs: no
    timestamps, no wall times."""
    write_atomic(out / f"{study.name}.csv", table.to_csv(index=False, lineterminator="\n"))
    document = {
        "study": study.name,
        "title": study.title,
        "paper": study.paper,
        "description": study.description,
        "quick_note": study.quick_note,
        "files": [str(name) for name in files],
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
