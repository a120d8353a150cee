"""Paths that move: each pair's route recomputed at every step over a
duration, as Hypatia's dynamic state does (100 ms steps over 200 s in
Kassing et al., IMC 2020, and its paper/ns3_experiments), with each step's RTT (twice the
one-way propagation delay of its path), its hops, the number of path
changes and the time without any path."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from sgp4.api import SatrecArray

from satcc.leo import ground, isls, propagate, routing, shells

GSL_RULES = ("range", "elevation")


@dataclass(frozen=True)
class Series:
    """One pair over time. rtt_s is nan while unreachable; hops are
    Hypatia's node ids (satellites 0..N-1, station g is N+g of the
    stations the series was computed with)."""

    t_s: np.ndarray
    rtt_s: np.ndarray
    hops: list[tuple[int, ...]]

    @property
    def path_changes(self) -> int:
        """Steps whose path differs from the previous step's (a loss or
        return of reachability counts too)."""
        return sum(a != b for a, b in zip(self.hops, self.hops[1:], strict=False))

    def unreachable_s(self, step_s: float) -> float:
        return float(np.count_nonzero(np.isnan(self.rtt_s))) * step_s


def times(duration_s: float, step_s: float) -> np.ndarray:
    """0, step, ... up to but excluding the duration (Hypatia's range)."""
    if not (duration_s > 0 and math.isfinite(duration_s)):
        raise ValueError(f"duration must be a positive number of seconds, not {duration_s}")
    if not (step_s > 0 and math.isfinite(step_s)):
        raise ValueError(f"step must be a positive number of seconds, not {step_s}")
    return np.arange(math.ceil(duration_s / step_s - 1e-9)) * step_s


def reachable(
    shell: shells.Shell, stations: list[ground.Station], sat_pos: np.ndarray, gsl_m: np.ndarray,
    rule: str,
) -> np.ndarray:  # fmt: skip
    """Which (station, satellite) links exist: within Hypatia's range for
    the shell ("range"), or at or above its minimum elevation ("elevation")."""
    if rule == "range":
        return gsl_m <= shell.max_gsl_range_m()
    if rule == "elevation":
        return ground.visible(stations, sat_pos, shell.min_elevation_deg)
    raise ValueError(f"unknown GSL rule {rule!r}; one of {', '.join(GSL_RULES)}")


def series(
    shell: shells.Shell,
    stations: list[ground.Station],
    pairs: list[tuple[int, int]],
    duration_s: float = 200.0,
    step_s: float = 0.1,
    gsl_rule: str = "range",
    chunk: int = 200,
) -> dict[tuple[int, int], Series]:
    """Each pair's path at every step (pairs index `stations`). Only the
    listed stations take part: stations do not relay, so others would not
    change any path."""
    t = times(duration_s, step_s)
    sats = SatrecArray(shells.satrecs(shell))
    links = isls.plus_grid(shell)
    gs_pos = ground.positions(stations)
    rtt = {p: np.full(len(t), np.nan) for p in pairs}
    hops: dict[tuple[int, int], list[tuple[int, ...]]] = {p: [] for p in pairs}
    for start in range(0, len(t), chunk):
        pos = propagate.positions(sats, t[start : start + chunk])
        for k in range(pos.shape[1]):
            sat_pos = pos[:, k, :]
            d = routing.gsl_lengths(sat_pos, gs_pos)
            ok = reachable(shell, stations, sat_pos, d, gsl_rule)
            snap = routing.snapshot(sat_pos, links, np.where(ok, d, np.inf))
            for p, r in zip(pairs, routing.routes(snap, pairs), strict=True):
                hops[p].append(r.hops)
                if r.reachable:
                    rtt[p][start + k] = 2 * r.delay_s
    return {p: Series(t, rtt[p], hops[p]) for p in pairs}
