"""What counts as a seed: a Python or numpy integer, never a float or a bool.

Seeds often come out of numpy (np.arange(10), rng.integers(...)), so a numpy
integer is as good as an int. A float is refused even when it is integral:
seed=3.7 silently truncated to 3 would run another experiment than the one
asked for, and refusing 3.0 with it keeps the rule independent of the value.
Every place that takes a seed (satcc.run and Scenario.validate, satcc.traffic)
asks this module, so the rule is the same everywhere.
"""

from __future__ import annotations

import operator
import sys

__all__ = ["as_seed"]


def as_seed(value: object) -> int | None:
    """The Python int that `value` stands for, or None when it is not an integer.

    Range checks are the caller's: the run seed is a signed 64-bit integer in
    the core, a traffic generator's a u64.
    """
    if isinstance(value, bool) or _is_numpy_bool(value):
        return None
    try:
        # __index__ is what integer types (Python's, numpy's) provide and
        # floats do not; int() would truncate a float instead.
        return operator.index(value)
    except TypeError:
        return None


def _is_numpy_bool(value: object) -> bool:
    # A numpy bool exists only once numpy is imported: asking sys.modules
    # spares the runs that never use numpy its import (30 ms of start-up).
    np = sys.modules.get("numpy")
    return np is not None and isinstance(value, np.bool_)
