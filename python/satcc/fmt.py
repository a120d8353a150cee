"""How satcc writes numbers for people: terminal tables and HTML reports alike.

One module so that the same figure reads the same wherever it appears: one
marker for a value that is not there, one sign for a factor tolerance, one
set of unit steps for rates and times. Every function takes a missing value
(None or NaN) and returns MISSING for it, so callers need no check of their own.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

MISSING = "n/a"
FACTOR_SIGN = "×"

# (divisor, symbol), largest first; the last one also serves below it.
RATE_UNITS = ((1e9, "Gbps"), (1e6, "Mbps"), (1e3, "kbps"), (1.0, "bps"))
TIME_UNITS = ((1.0, "s"), (1e-3, "ms"), (1e-6, "µs"), (1e-9, "ns"))
SIZE_UNITS = ((1e9, "GB"), (1e6, "MB"), (1e3, "kB"), (1.0, "B"))


def is_missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def pick_unit(units: Sequence[tuple[float, str]], top: float) -> tuple[float, str]:
    """The largest unit of `units` that `top` (a magnitude) reaches."""
    top = 0.0 if is_missing(top) else abs(top)
    return next(((f, u) for f, u in units if top >= f), units[-1])


def number(value: Any, digits: int = 4) -> str:
    return MISSING if is_missing(value) else f"{float(value):.{digits}g}"


def count(value: Any) -> str:
    return MISSING if is_missing(value) else f"{int(value):,}"


def percent(fraction: Any) -> str:
    return MISSING if is_missing(fraction) else f"{100 * fraction:.2f}%"


def signed_percent(fraction: Any) -> str:
    """A relative error: the sign is the point, so it is always written."""
    return MISSING if is_missing(fraction) else f"{fraction * 100:+.2f}%"


def rate(bps: Any) -> str:
    if is_missing(bps):
        return MISSING
    factor, unit = pick_unit(RATE_UNITS, bps)
    return f"{bps / factor:.4g} {unit}"


def seconds(s: Any) -> str:
    if is_missing(s):
        return MISSING
    if s == 0:
        return "0 s"
    factor, unit = pick_unit(TIME_UNITS, s)
    return f"{s / factor:.4g} {unit}"


def with_unit(text: str, unit: str) -> str:
    """`text` followed by `unit`, unless there was no value to qualify."""
    return text if text == MISSING or not unit else f"{text} {unit}"


# A summary column's kind names how one value is written alone (FORMATS) and
# which unit a whole column of them shares (scale); see satcc.summary_tables.
FORMATS: dict[str, Callable[[Any], str]] = {
    "count": count,
    "number": number,
    "percent": percent,
    "rate": rate,
    "time": seconds,
}


def scale(kind: str, top: float) -> tuple[float, str]:
    """(divisor, unit) for values of `kind` whose largest magnitude is `top`:
    a column or an axis shares it, so its numbers compare at a glance."""
    magnitude = 0.0 if is_missing(top) else abs(top)
    if kind == "rate":
        return pick_unit(RATE_UNITS, magnitude)
    if kind == "time":
        return pick_unit(TIME_UNITS, magnitude) if magnitude else (1.0, "s")
    if kind == "percent":
        return 0.01, "%"
    if kind in ("count", "number"):
        return 1.0, ""
    raise ValueError(f"unknown kind {kind!r} (kinds: {', '.join(FORMATS)})")


def mean_ci(mean: Any, ci: Any, divisor: float = 1.0) -> str:
    """A mean over seeds and the half-width of its confidence interval, both
    divided by `divisor`; no ± when there is no interval (one seed)."""
    if is_missing(mean):
        return MISSING
    text = f"{mean / divisor:.4g}"
    if not is_missing(ci):
        text += f" ± {ci / divisor:.2g}"
    return text


def tolerance(value: Any, kind: str) -> str:
    """A check's tolerance as its kind reads it (see studies.spec.Reference)."""
    if is_missing(value) or kind == "none":
        return MISSING
    if kind == "factor":
        return f"{FACTOR_SIGN}{value:g}"
    if kind == "relative":
        return f"{value * 100:g}%"
    return f"±{value:g}"


NOT_MEASURED = "not measured"


def verdict(passed: Any, check: bool = False) -> str:
    """PASS or FAIL for a judged check. Without a verdict (passed None, or
    NaN once it went through a table): "not measured" for a `check` (a row
    with a tolerance, that no run gave a number to judge), "shown" for a row
    shown beside the paper without a tolerance."""
    if is_missing(passed):
        return NOT_MEASURED if check else "shown"
    return "PASS" if passed else "FAIL"


VERDICT_STYLES = {"PASS": "green", "FAIL": "bold red", "shown": "dim", NOT_MEASURED: "dim"}


def verdict_markup(passed: Any, check: bool = False) -> str:
    """The verdict in rich console markup."""
    word = verdict(passed, check)
    return f"[{VERDICT_STYLES[word]}]{word}[/]"
