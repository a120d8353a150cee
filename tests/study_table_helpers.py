"""Shared by the study tests: a study's comparison table when no run
measured anything, and the text its layout prints for it."""

from __future__ import annotations

import math

import pandas as pd
from rich.console import Console
from satcc.studies import compare


def unmeasured_table(study, quick: bool = False) -> pd.DataFrame:
    """The comparison table when no run measured anything: every mean NaN."""
    refs = study.references_for(quick)
    agg = pd.DataFrame(
        [
            {"label": r.label, "metric": r.metric, "mean": math.nan, "ci_half_width": math.nan}
            for r in refs
        ]
    ).assign(n=1)
    return compare.compare(study, study.runs(quick), agg, quick)


def layout_text(study, table: pd.DataFrame, parts: int | None = None) -> str:
    """What the study's layout prints for `table` (its first `parts` tables)."""
    console = Console(record=True, width=250)
    for part in study.layout(table)[:parts]:
        console.print(part)
    return console.export_text()


def assert_nothing_judged(study, parts: int | None = None) -> None:
    """With nothing measured, no check has a verdict and the layout prints
    "not measured" where PASS or FAIL would be (NaN compares false: every
    check read FAIL with n/a as its measurement)."""
    table = unmeasured_table(study)
    judged = table[table["tolerance_kind"] != "none"]
    assert len(judged) and judged["passed"].isna().all()
    text = layout_text(study, table, parts)
    assert "PASS" not in text and "FAIL" not in text and "not measured" in text
