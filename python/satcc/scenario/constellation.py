"""[constellation.NAME]: a LEO shell and its ground stations, whose moving
paths give links their delay over time (docs/leo.md).

A link takes its propagation delay from a constellation with
`path = { constellation = NAME, from = STATION, to = STATION }`: the one-way
delay of the shortest path between the two stations over the shell's +Grid
inter-satellite links, recomputed every `step` (Hypatia's 100 ms; Kassing
et al., IMC 2020), and no delay while no path exists (PDUs sent then are
dropped). The section itself is not part of the normalised description: the
links it feeds carry their delay schedule there.
"""

from __future__ import annotations

import functools
import math
from typing import TYPE_CHECKING

from pydantic import Field

from satcc.units import format_time, parse_time

from .tables import Section, _Table
from .values import NonNegativeNumber, PositiveTime, Str, choice, optional, typed
from .values import _number_in as number_in

if TYPE_CHECKING:
    from .validation import Checks

# Routing steps per run at most: the schedule is part of the description.
MAX_STEPS = 200_000

Latitude = typed(float, number_in(-90, 90, False, False, "a latitude in degrees, -90 to 90"))
Longitude = typed(float, number_in(-180, 180, False, False, "a longitude in degrees, -180 to 180"))


# satcc.leo.shells.PRESETS, named here so that reading a scenario does not
# import numpy (tests/test_constellation.py keeps the two the same).
SHELLS = ("starlink-s1", "kuiper-k1", "telesat-t1")


class Station(_Table):
    """[constellation.NAME.stations.S]: a ground station, one of Hypatia's
    100 cities by `city`, or at `lat`, `lon` (degrees) and `altitude` (m)."""

    city: optional(Str) = None
    lat: optional(Latitude) = None
    lon: optional(Longitude) = None
    altitude: NonNegativeNumber = 0.0


class Constellation(_Table):
    """A LEO shell and its ground stations, [constellation.NAME]."""

    shell: choice(*SHELLS)
    step: PositiveTime = parse_time("100 ms")
    # Hypatia's ground-link rule (its flat-Earth range, "range") or the
    # true elevation angle ("elevation"); docs/leo.md.
    gsl_rule: choice("range", "elevation") = "range"
    stations: dict[str, Station]


class LinkPath(_Table):
    """[links.NAME.path]: the link's delay is this constellation path's."""

    constellation: Str
    from_: Str = Field(alias="from")
    to: Str


def check_constellation(checks: Checks, path: tuple, name: str, c: Constellation) -> None:
    from satcc.leo import ground

    if not c.stations:
        checks.refuse((*path, "stations"), "a constellation needs at least two stations")
    for station_name, s in c.stations.items():
        where = (*path, "stations", station_name)
        located = s.lat is not None or s.lon is not None
        if s.city is not None and located:
            checks.refuse(where, "give either city or lat and lon, not both")
        elif s.city is not None:
            try:
                ground.city(s.city)
            except ValueError as exc:
                checks.refuse((*where, "city"), str(exc))
        elif s.lat is None or s.lon is None:
            checks.refuse(where, "give a city, or both lat and lon")
    steps = checks.doc.run.duration // c.step
    if steps > MAX_STEPS:
        checks.refuse(
            (*path, "step"),
            f'"{format_time(c.step)}" over the run makes {steps:,} routing steps: '
            f"at most {MAX_STEPS:,} (a longer step, or a shorter run)",
        )


def check_link_path(checks: Checks, path: tuple, link) -> None:
    """A link's `path`: its constellation and both stations exist, and the
    link gives no `delay` of its own."""
    p = link.path
    if p is None:
        return
    if "delay" in link.model_fields_set:
        checks.refuse((*path, "delay"), "give either delay or path, not both")
    if not checks.require((*path, "path", "constellation"), "constellation", p.constellation):
        return
    stations = checks.entries("constellation")[p.constellation].stations
    for key, station in (("from", p.from_), ("to", p.to)):
        if station not in stations:
            known = ", ".join(sorted(stations)) or "none"
            checks.refuse(
                (*path, "path", key),
                f'no station named "{station}" in constellation "{p.constellation}" '
                f"(its stations: {known})",
            )
    if p.from_ == p.to:
        checks.refuse((*path, "path", "to"), "a path joins two different stations")


def _station(s: Station):
    from satcc.leo import ground

    if s.city is not None:
        return ground.city(s.city)
    return ground.Station("", s.lat, s.lon, s.altitude)


def _pair(names: list[str], p: LinkPath) -> tuple[int, int]:
    """The stations of a path as a pair of indices, the smaller first: the
    delay is the same both ways."""
    a, b = names.index(p.from_), names.index(p.to)
    return (a, b) if a < b else (b, a)


@functools.lru_cache(maxsize=32)
def path_series(
    shell: str, stations: tuple, pairs: tuple, steps: int, step_ps: int, rule: str
) -> dict:
    """The pairs' paths (paths.series), kept for the process: a study or a
    sweep validates the same constellation once per run and seed, and each
    computation takes seconds."""
    from satcc.leo import paths, shells

    return paths.series(
        shells.preset(shell),
        list(stations),
        list(pairs),
        duration_s=steps * step_ps / 1e12,
        step_s=step_ps / 1e12,
        gsl_rule=rule,
    )


def delay_schedules(checks: Checks) -> dict[str, dict]:
    """Each link with a `path`: its delay schedule for the run, as the
    core's `links[].delay_schedule` ({times_ps, delays_ps}, null while
    unreachable). One routing pass per constellation serves all its links."""
    links = {n: link for n, link in checks.entries("links").items() if link.path is not None}
    if not links:
        return {}
    duration_ps = checks.doc.run.duration
    out: dict[str, dict] = {}
    for cname, c in sorted(checks.entries("constellation").items()):
        names = sorted(c.stations)
        mine = {n: link for n, link in links.items() if link.path.constellation == cname}
        if not mine:
            continue
        pairs = sorted(
            {
                tuple(sorted((names.index(k.path.from_), names.index(k.path.to))))
                for k in mine.values()
            }
        )
        steps = -(-duration_ps // c.step)
        stations = tuple(_station(c.stations[n]) for n in names)
        series = path_series(c.shell, stations, tuple(pairs), steps, c.step, c.gsl_rule)
        for n, link in mine.items():
            rtt = series[_pair(names, link.path)].rtt_s[:steps]
            out[n] = {
                "times_ps": [i * c.step for i in range(len(rtt))],
                "delays_ps": [None if math.isnan(r) else round(r / 2 * 1e12) for r in rtt],
            }
    return out


SECTION = Section(
    key="constellation",
    table=Constellation,
    noun="constellation",
    description_key=None,
    check=check_constellation,
    omit_when_empty=True,
)
