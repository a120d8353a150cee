"""What a study is: its parameter points (RunSpec), the published values it
is judged against (Reference) and the study itself (Study).

A study is code plus data. The code builds the scenarios (one RunSpec per
parameter point) and turns a run's summary into metrics; the data are the
published values, each with the exact place it comes from and a tolerance
decided before looking at the simulator's output. These are plain frozen
dataclasses: a study's model module needs them alone, and nothing of how
runs execute (studies/execution.py), are judged (studies/compare.py) or
shown (studies/present.py)."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import pandas as pd
from rich.table import Table

from satcc.studies.emulated_mode import Emulated


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
        # NaN compares false here; the comparison table does not ask about a
        # metric that could not be measured (compare.measured_at_all).
        if self.tolerance_kind == "none":
            return None
        if self.tolerance_kind == "factor":
            low, high = sorted((self.value / self.tolerance, self.value * self.tolerance))
            return bool(low <= measured <= high)
        return bool(abs(measured - self.value) <= self.allowed)


def shown(label: str, metric: str, source: str = "satcc (no published value)") -> Reference:
    """A row shown beside the judged ones (its measured value, NaN as the
    published one), for a number no source gives a value to judge by."""
    return Reference(label, metric, math.nan, source, 0.0, "none", kind="shown")


def measured(value: Any) -> float:
    """A value of a run's summary as a metric: a number, or NaN (not
    measured, so not judged) for the null a run reports where it had
    nothing to measure (a mean wait without arrivals, a loss ratio without
    cells)."""
    return math.nan if value is None else float(value)


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
    # Artifacts that compute much of their own (tfrc-dama's fluid model) take
    # `jobs=`, the reproduction's -j, as a last keyword.
    artifacts_take_jobs: bool = False

    def references_for(self, quick: bool) -> list[Reference]:
        """The references a run in this mode is compared with."""
        if not quick:
            return self.references
        return [ref for ref in self.references if ref.label not in self.full_only]
