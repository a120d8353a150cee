"""Argument checks shared by the closed-form helpers: a clear ValueError
naming the argument, rather than a NaN or a ZeroDivisionError later."""

from __future__ import annotations

import math

import numpy as np


def positive(name: str, value: float) -> float:
    value = float(value)
    if not (math.isfinite(value) and value > 0):
        raise ValueError(f"{name} must be a positive finite number, got {value!r}")
    return value


def non_negative(name: str, value: float) -> float:
    value = float(value)
    if not (math.isfinite(value) and value >= 0):
        raise ValueError(f"{name} must be a non-negative finite number, got {value!r}")
    return value


def integer(name: str, value: int, minimum: int) -> int:
    """A Python or numpy integer (not a bool) of at least `minimum`."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def probability(name: str, value: float) -> float:
    value = float(value)
    if not (math.isfinite(value) and 0 <= value <= 1):
        raise ValueError(f"{name} must be a probability in [0, 1], got {value!r}")
    return value
