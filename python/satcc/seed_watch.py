"""Seeds that change nothing: a sweep's check that its seeds matter.

A scenario with no random draws (CBR sources over error-free links) gives
the same result for every seed, and a sweep over seeds then repeats one
run. Whether a scenario draws random numbers is not something the core
reports, and a rule read from the description (which sources, links and
models are stochastic) would go wrong as models are added; so the watch
goes by what cannot be wrong: the first point of which two seeds finish in
this sweep is compared, summary (less run.seed) and every series.
Identical runs are reported at once, while the rest runs (the sweep is not
refused: a few seeds more are cheap, and a scenario may be meant to be
checked for this); different ones end the watch. A resumed sweep that
computes no two seeds of one point has nothing to compare and says
nothing.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from .executors import Outcome

__all__ = ["SeedWatch"]


class SeedWatch:
    """Watches a sweep's outcomes; `see` returns the warning, once, when
    two seeds of one point gave the same run."""

    def __init__(self, seeds: int):
        # With one seed to run there is nothing to compare.
        self.decided = seeds < 2
        # swept values (JSON) -> (seed, digest of the run) of the first seed seen
        self.first: dict[str, tuple[int | None, str]] = {}

    def see(self, outcome: Outcome, seed: int | None, params: dict[str, Any]) -> str | None:
        if self.decided or not outcome.ok:
            return None
        values = json.dumps(params, sort_keys=True, default=str)
        digest = _result_digest(outcome)
        if values not in self.first:
            self.first[values] = (seed, digest)
            return None
        earlier_seed, earlier = self.first[values]
        if earlier_seed == seed:
            return None
        self.decided = True
        self.first.clear()
        if digest != earlier:
            return None
        low, high = sorted((earlier_seed, seed))
        at = ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in params.items())
        return (
            f"seeds {low} and {high} gave identical runs"
            + (f" at {at}" if params else "")
            + ": this scenario draws no random numbers that change its results, "
            "so every seed gives the same result (one seed is enough)"
        )


def _result_digest(outcome: Outcome) -> str:
    """A digest of what a run computed, the seed it was given left out."""
    summary = {k: v for k, v in (outcome.summary or {}).items() if k != "run.seed"}
    digest = hashlib.sha256(json.dumps(summary, sort_keys=True).encode())
    digest.update(json.dumps(outcome.series, sort_keys=True).encode())
    return digest.hexdigest()
