"""Satellite positions in the Earth-fixed frame (ITRS, metres) at given
times, vectorised over satellites and times.

SGP4 (sgp4's SatrecArray) gives positions in TEME, the frame of its mean
elements; a rotation about the pole by the Greenwich mean sidereal time
(IAU 1982, Vallado et al., "Revisiting Spacetrack Report #3", AIAA
2006-6753, Appendix C) takes them to the Earth-fixed frame, as skyfield's
TEME_to_ITRF does. Polar motion is left out (tens of metres) and UT1 is
taken as UTC (under a second of Earth rotation: < 0.5 km at the shell)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from sgp4.api import Satrec, SatrecArray

from satcc.leo.shells import EPOCH_JD

_SECONDS_PER_DAY = 86400.0


def gmst_rad(jd_whole: np.ndarray, jd_fraction: np.ndarray) -> np.ndarray:
    """Greenwich mean sidereal angle, IAU 1982 (the angle SGP4's TEME is
    defined against)."""
    t = (jd_whole - 2451545.0 + jd_fraction) / 36525.0
    g = 67310.54841 + (8640184.812866 + (0.093104 + (-6.2e-6) * t) * t) * t
    turns = (jd_whole % 1.0) + jd_fraction + (g / _SECONDS_PER_DAY % 1.0)
    return (turns % 1.0) * 2 * math.pi


def split_jd(t_s: np.ndarray, epoch_jd: float) -> tuple[np.ndarray, np.ndarray]:
    """Times in seconds after epoch_jd as (whole, fraction) Julian dates,
    the split SGP4 takes to keep sub-millisecond precision."""
    days = np.asarray(t_s, dtype=float) / _SECONDS_PER_DAY
    whole = np.floor(epoch_jd) + np.floor(days)
    return whole, (epoch_jd - np.floor(epoch_jd)) + (days - np.floor(days))


def teme_to_itrs(r_teme: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """Rotate (..., T, 3) TEME vectors by -theta (T,) about z."""
    c, s = np.cos(theta), np.sin(theta)
    x, y, z = r_teme[..., 0], r_teme[..., 1], r_teme[..., 2]
    return np.stack((c * x + s * y, -s * x + c * y, z), axis=-1)


def positions(
    sats: Sequence[Satrec] | SatrecArray, t_s: np.ndarray, epoch_jd: float = EPOCH_JD
) -> np.ndarray:
    """Earth-fixed positions in metres, shape (satellites, times, 3), at
    t_s seconds after epoch_jd (default: the generated shells' epoch)."""
    array = sats if isinstance(sats, SatrecArray) else SatrecArray(list(sats))
    whole, fraction = split_jd(np.atleast_1d(t_s), epoch_jd)
    err, r, _v = array.sgp4(whole, fraction)
    if np.any(err):
        bad = np.argwhere(err)[0]
        raise ValueError(
            f"SGP4 error {err[tuple(bad)]} for satellite {bad[0]} at time index {bad[1]}"
        )
    return teme_to_itrs(r, gmst_rad(whole, fraction)) * 1e3
