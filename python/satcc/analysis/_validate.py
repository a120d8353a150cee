"""Argument checks shared by the closed-form helpers: a clear ValueError
naming the argument, rather than a NaN or a ZeroDivisionError later."""

from __future__ import annotations

import math


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
