"""Satellite shells: Walker-delta constellations from their parameters, as
SGP4 mean elements, and the first shells of Starlink, Kuiper and Telesat
that Hypatia (Kassing et al., "Exploring the 'Internet from space' with
Hypatia", IMC 2020; its paper/satellite_networks_state/main_*.py) studies.

Hypatia writes TLEs for its shells (epoch 2000-01-01 00:00 UTC, no drag,
eccentricity 1e-7, argument of perigee 0) and propagates them with SGP4;
so do we, so that a generated shell and a real TLE take the same path
through `propagate`."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from sgp4.api import WGS72, Satrec

# Hypatia's shells start at 2000-01-01 00:00 UTC: TLE epoch 00001.0.
EPOCH_JD = 2451544.5
# sgp4init counts its epoch in days from 1949-12-31 00:00 UTC.
_SGP4_EPOCH0_JD = 2433281.5
# Hypatia's radius for its range rules (WGS-72 equatorial radius).
HYPATIA_EARTH_RADIUS_M = 6378135.0
_MU_KM3_S2 = 398600.8  # WGS-72, as SGP4 uses


@dataclass(frozen=True)
class Shell:
    """One Walker-delta shell. `phasing` is either "hypatia" (every odd
    plane shifted by half a slot, Hypatia's generator) or an integer F of
    the Walker i:T/P/F notation (plane k shifted by k*F*360/T degrees)."""

    name: str
    altitude_km: float
    planes: int
    per_plane: int
    inclination_deg: float
    min_elevation_deg: float
    mean_motion_rev_per_day: float | None = None
    phasing: str | int = "hypatia"
    source: str = ""

    @property
    def size(self) -> int:
        return self.planes * self.per_plane

    def mean_motion(self) -> float:
        """Revolutions per day: the preset's stated value, else Kepler's
        for a circular orbit at the altitude."""
        if self.mean_motion_rev_per_day is not None:
            return self.mean_motion_rev_per_day
        a = 6378.135 + self.altitude_km
        return 86400.0 / (2 * math.pi * math.sqrt(a**3 / _MU_KM3_S2))

    def max_gsl_range_m(self) -> float:
        """Hypatia's GSL rule: a satellite is reachable when within
        sqrt(h^2 + (h / tan(elevation))^2) of the station (its flat-Earth
        cone; main_{kuiper_630,telesat_1015}.py). Starlink's preset states
        the cone radius (940.7 km) instead."""
        h = self.altitude_km * 1e3
        cone = _CONE_RADIUS_M.get(self.name, h / math.tan(math.radians(self.min_elevation_deg)))
        return math.hypot(h, cone)

    def max_isl_range_m(self) -> float:
        """Hypatia's ISL bound: the line between two satellites stays 80 km
        above the surface."""
        r = HYPATIA_EARTH_RADIUS_M + self.altitude_km * 1e3
        return 2 * math.sqrt(r**2 - (HYPATIA_EARTH_RADIUS_M + 80e3) ** 2)


_CONE_RADIUS_M = {"starlink-s1": 940.7e3}

PRESETS: dict[str, Shell] = {
    s.name: s
    for s in (
        Shell(
            "starlink-s1", 550, 72, 22, 53.0, 25.0, 15.19,
            source="Hypatia, IMC 2020: main_starlink_550.py",
        ),
        Shell(
            "kuiper-k1", 630, 34, 34, 51.9, 30.0, 14.80,
            source="Hypatia, IMC 2020: main_kuiper_630.py",
        ),
        Shell(
            "telesat-t1", 1015, 27, 13, 98.98, 10.0, 13.66,
            source="Hypatia, IMC 2020: main_telesat_1015.py",
        ),
    )
}  # fmt: skip


def preset(name: str) -> Shell:
    try:
        return PRESETS[name]
    except KeyError:
        raise ValueError(f"unknown shell {name!r}; presets: {', '.join(PRESETS)}") from None


def plane_and_slot(shell: Shell) -> tuple[np.ndarray, np.ndarray]:
    """Satellite i sits in plane i // per_plane, slot i % per_plane
    (Hypatia's numbering)."""
    i = np.arange(shell.size)
    return i // shell.per_plane, i % shell.per_plane


def elements(shell: Shell) -> tuple[np.ndarray, np.ndarray]:
    """Right ascension of the ascending node and mean anomaly (degrees) of
    every satellite: planes evenly spread over 360 degrees, slots evenly
    along each plane, the planes shifted by the phasing."""
    plane, slot = plane_and_slot(shell)
    raan = plane * 360.0 / shell.planes
    step = 360.0 / shell.per_plane
    if shell.phasing == "hypatia":
        shift = np.where(plane % 2 == 1, step / 2.0, 0.0)
    else:
        shift = plane * int(shell.phasing) * 360.0 / shell.size
    return raan, (shift + slot * step) % 360.0


def satrecs(shell: Shell) -> list[Satrec]:
    """SGP4 records for the shell's satellites, initialised from their
    mean elements as Hypatia's TLEs give them (WGS-72, improved mode)."""
    raan, mean_anomaly = elements(shell)
    no_kozai = shell.mean_motion() * 2 * math.pi / 1440.0  # rad/min
    out = []
    for i in range(shell.size):
        sat = Satrec()
        sat.sgp4init(
            WGS72, "i", i + 1, EPOCH_JD - _SGP4_EPOCH0_JD,
            0.0, 0.0, 0.0, 1e-7, 0.0,
            math.radians(shell.inclination_deg), math.radians(mean_anomaly[i]),
            no_kozai, math.radians(raan[i]),
        )  # fmt: skip
        out.append(sat)
    return out


def tle_lines(shell: Shell, i: int) -> tuple[str, str]:
    """Satellite i as a TLE (epoch 00001.0), for tools that read TLEs."""
    raan, mean_anomaly = elements(shell)
    line1 = f"1 {i + 1:05d}U 00000ABC 00001.00000000  .00000000  00000-0  00000+0 0    0"
    line2 = (
        f"2 {i + 1:05d} {shell.inclination_deg:8.4f} {raan[i]:8.4f} 0000001 "
        f"{0.0:8.4f} {mean_anomaly[i]:8.4f} {shell.mean_motion():11.8f}    0"
    )
    return line1 + _checksum(line1), line2 + _checksum(line2)


def _checksum(line: str) -> str:
    return str(sum(int(c) if c.isdigit() else c == "-" for c in line[:68]) % 10)


def from_tles(lines: list[str]) -> list[Satrec]:
    """SGP4 records from TLE text: two-line or three-line (name first) sets."""
    lines = [ln.rstrip() for ln in lines if ln.strip()]
    recs = []
    i = 0
    while i < len(lines):
        if lines[i].startswith("1 ") and i + 1 < len(lines) and lines[i + 1].startswith("2 "):
            recs.append(Satrec.twoline2rv(lines[i], lines[i + 1]))
            i += 2
        else:
            i += 1
    if not recs:
        raise ValueError("no TLE found (lines starting '1 ' then '2 ')")
    return recs
