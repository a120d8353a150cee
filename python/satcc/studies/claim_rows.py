"""A row of a study's claims table: the paper's statement in words, where
the paper makes it, what satcc measured, the criterion decided before
looking, and whether the claim holds. A claim resting on a number no run
measured (NaN: a run, a series or a key missing) is not judged: NaN
compares false, and would read as "does not hold"."""

from __future__ import annotations

import math
from collections.abc import Iterable

CLAIM_COLUMNS = ["claim", "source", "measured", "criterion", "holds"]


def judged(holds: bool, *rests_on: float) -> bool | None:
    """`holds`, or None when a number it rests on was not measured."""
    return None if any(math.isnan(v) for v in rests_on) else bool(holds)


def claim_row(
    claim: str,
    source: str,
    measured: str,
    criterion: str,
    holds: bool | None,
    rests_on: Iterable[float] = (),
) -> dict:
    """A claim's row; `rests_on`: the numbers its judgment compared."""
    if holds is not None:
        holds = judged(holds, *rests_on)
    return dict(zip(CLAIM_COLUMNS, (claim, source, measured, criterion, holds), strict=True))
