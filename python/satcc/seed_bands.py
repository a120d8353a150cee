"""The spread over seeds that a figure draws around a mean, and the words
its caption uses for it.

With few seeds a Student-t interval says little but that the spread is
wide: with 2 seeds it is 12.7 standard errors either side, and it crosses
bounds that the quantity cannot (an efficiency above 1, a delay below 0).
So a figure shows the seeds' own range (min-max) below `MIN_SEEDS_FOR_T`
seeds, and the 95 % Student-t interval from there on, cut at the
quantity's physical bounds. Tables keep the t half-width
(`confidence_half_width`, which the studies' verdict tables use too) and
say n beside it; only the drawing changes.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from scipy import stats

MIN_SEEDS_FOR_T = 5
CONFIDENCE = 0.95

Bounds = tuple[float, float]
UNBOUNDED: Bounds = (-math.inf, math.inf)
NONNEGATIVE: Bounds = (0.0, math.inf)  # delays, rates, counts, loads
FRACTION: Bounds = (0.0, 1.0)  # efficiencies, loss ratios, shares


@dataclass(frozen=True)
class Band:
    mean: float
    low: float
    high: float
    n: int  # seeds with a finite value

    @property
    def drawn(self) -> bool:
        """Whether there is a spread to draw (two seeds or more)."""
        return self.n >= 2


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


def band(values: Iterable[float], bounds: Bounds = UNBOUNDED) -> Band:
    """The mean of the finite `values` and the band a figure draws around
    it: min-max below MIN_SEEDS_FOR_T values, else the t interval cut at
    `bounds`; low = high = mean with one value, all NaN with none."""
    lo_bound, hi_bound = _checked(bounds)
    x = np.asarray(list(values), dtype=float)
    x = x[np.isfinite(x)]
    n = len(x)
    if n == 0:
        return Band(math.nan, math.nan, math.nan, 0)
    mean = float(x.mean())
    if n == 1:
        return Band(mean, mean, mean, 1)
    if n < MIN_SEEDS_FOR_T:
        # The seeds themselves: inside the bounds whenever they are.
        return Band(mean, float(x.min()), float(x.max()), n)
    half = confidence_half_width(x)
    # Only the interval's own reach is cut: a mean outside the bounds is
    # the data's to show, and the band still holds it.
    low = max(mean - half, min(lo_bound, mean))
    high = min(mean + half, max(hi_bound, mean))
    return Band(mean, low, high, n)


def describe(counts: Iterable[int], bounds: Bounds = UNBOUNDED, what: str = "bars") -> str:
    """The caption's words for the bands of a figure whose points had
    `counts` seeds each, e.g. "bars: min-max over 2 seeds"."""
    lo_bound, hi_bound = _checked(bounds)
    ns = sorted({n for n in counts if n >= 2})
    if not ns:
        return "one seed per point: no spread over seeds to show"
    few = [n for n in ns if n < MIN_SEEDS_FOR_T]
    many = [n for n in ns if n >= MIN_SEEDS_FOR_T]
    if not many:
        return f"{what}: min-max over {_count_text(few)} seeds"
    cut = _cut_text(lo_bound, hi_bound)
    t_text = f"{CONFIDENCE * 100:g} % Student-t CI over {_count_text(many)} seeds" + (
        f", cut at {cut}" if cut else ""
    )
    if not few:
        return f"{what}: {t_text}"
    return (
        f"{what}: min-max over the seeds where a point has fewer than {MIN_SEEDS_FOR_T} "
        f"({_count_text(few)}), else {t_text}"
    )


def _count_text(ns: list[int]) -> str:
    return f"{ns[0]}" if ns[0] == ns[-1] else f"{ns[0]}-{ns[-1]}"


def _cut_text(lo: float, hi: float) -> str:
    ends = [f"{b:g}" for b in (lo, hi) if math.isfinite(b)]
    return " and ".join(ends)


def _checked(bounds: Bounds) -> Bounds:
    lo, hi = (float(b) for b in bounds)
    if math.isnan(lo) or math.isnan(hi) or lo >= hi:
        raise ValueError(f"seed band bounds {bounds!r}: need low < high")
    return lo, hi
