"""The values a scenario key may hold: unit strings, counts, probabilities, choices.

Each type is a pydantic annotation whose validator refuses with a ValueError
whose text is the reason shown to the user, so pydantic's own wording never
reaches them. The limits below are the core's: values it cannot represent
are refused here rather than misbehaving in the simulator.
"""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Callable
from typing import Annotated, Any, NamedTuple, get_args

from pydantic import BeforeValidator, ValidationInfo

from satcc.seeds import as_seed
from satcc.units import (
    UnitError,
    describe_value,
    parse_limit,
    parse_rate,
    parse_size,
    parse_time,
)

from .errors import quote

# The core counts picoseconds, bytes and events in signed 64-bit integers.
INT_LIMIT = 2**63
# Beyond this the picosecond clock runs out of resolution (a byte at 1 Tb/s
# takes 8 ps).
MAX_RATE_BPS = 1e12
# The simulator keeps PDU sizes in 32 bits; the IPv4 limit is far below.
MAX_DATAGRAM = 65_535
# Counts the core keeps in 32 bits.
MAX_U32 = 2**32 - 1

_RUN_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")


class Unit(NamedTuple):
    """The unit a quantity is stored in, named by the suffix of its description key."""

    suffix: str


BITS_PER_SECOND = Unit("_bps")
PICOSECONDS = Unit("_ps")
BYTES = Unit("_bytes")


def _field(info: ValidationInfo) -> str:
    return info.field_name or "value"


def _shown(raw: object) -> str:
    return quote(raw) if isinstance(raw, str) else describe_value(raw).split(" ", 1)[-1]


def _check_sign(value: float, raw: object, info: ValidationInfo, positive: bool) -> None:
    if positive and not value > 0:
        raise ValueError(f"{_field(info)} must be positive, got {_shown(raw)}")
    if not positive and value < 0:
        raise ValueError(f"{_field(info)} must not be negative, got {_shown(raw)}")


def _check_range(value: int) -> None:
    if not -INT_LIMIT < value < INT_LIMIT:
        raise ValueError(
            f"{value} is out of range: the simulator stores it in a signed 64-bit integer"
        )


def _quantity(parse: Callable[[object], Any], positive: bool) -> Callable:
    """Validator for a unit string; the sign check keeps the text as the user wrote it."""

    def validate(raw: object, info: ValidationInfo):
        parsed = parse(raw)
        amount = parsed[1] if isinstance(parsed, tuple) else parsed
        _check_sign(amount, raw, info, positive)
        if isinstance(amount, int):
            _check_range(amount)
        return parsed

    return validate


def _string(value: object) -> str:
    if not isinstance(value, str):
        raise ValueError(f"expected a string, got {describe_value(value)}")
    return value


def _boolean(value: object) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"expected true or false, got {describe_value(value)}")
    return value


def _integer(minimum: int, maximum: int = INT_LIMIT - 1) -> Callable:
    """Validator for an integer key. `maximum` is the largest value of the
    core's type for it (MAX_U32 for a u32 field): the one place that type
    is stated on this side, cross-checked against the core for every key by
    tests/test_integer_keys.py."""

    # Only 0 (non-negative) and 1 (positive) are needed as minimums.
    def validate(raw: object, info: ValidationInfo) -> int:
        # Python's and numpy's integers alike (np.arange, rng.integers), as a
        # Python int: the description is JSON. Not bools, not floats.
        value = as_seed(raw)
        if value is None:
            raise ValueError(f"expected an integer, got {describe_value(raw)}")
        _check_sign(value, value, info, positive=minimum > 0)
        _check_range(value)
        if value > maximum:
            raise ValueError(
                f"{_field(info)} must be at most {maximum:,} (the simulator keeps it in "
                f"{maximum.bit_length()} bits), got {value:,}"
            )
        return value

    validate.maximum = maximum  # type: ignore[attr-defined]
    return validate


def _zero_or_one(value: object, info: ValidationInfo) -> int:
    if isinstance(value, bool) or value not in (0, 1) or not isinstance(value, int):
        raise ValueError(f"{_field(info)} must be 0 or 1, got {describe_value(value)}")
    return value


def _probability(value: object, info: ValidationInfo) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"expected a number, got {describe_value(value)}")
    if not (math.isfinite(value) and 0 <= value <= 1):
        raise ValueError(
            f"{_field(info)} is a probability and must be between 0 and 1, got {value!r}"
        )
    return float(value)


def _number_in(low: float, high: float, low_open: bool, high_open: bool, what: str) -> Callable:
    """A plain number within a range, for dimensionless model factors."""

    def validate(value: object, info: ValidationInfo) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError(f"expected a number, got {describe_value(value)}")
        above = value > low if low_open else value >= low
        below = value < high if high_open else value <= high
        if not (math.isfinite(value) and above and below):
            raise ValueError(f"{_field(info)} must be {what}, got {value!r}")
        return float(value)

    return validate


def _choice(*options: str) -> Callable:
    def validate(value: object) -> str:
        if isinstance(value, str) and value in options:
            return value
        allowed = ", ".join(quote(option) for option in options)
        close = difflib.get_close_matches(value, options, n=1) if isinstance(value, str) else []
        hint = f' (did you mean "{close[0]}"?)' if close else ""
        raise ValueError(f"expected one of {allowed}, got {describe_value(value)}{hint}")

    return validate


def _initial_window(value: object, info: ValidationInfo) -> int | str:
    if value == "rfc5681" or (
        isinstance(value, int) and not isinstance(value, bool) and 0 < value < INT_LIMIT
    ):
        return value
    close = difflib.get_close_matches(value, ["rfc5681"], n=1) if isinstance(value, str) else []
    hint = ' (did you mean "rfc5681"?)' if close else ""
    raise ValueError(
        f'{_field(info)} must be a positive number of segments or "rfc5681", '
        f"got {describe_value(value)}{hint}"
    )


def _size_or_unlimited(value: object, info: ValidationInfo) -> int | str:
    if value == "unlimited":
        return value
    try:
        size = parse_size(value)
    except UnitError as exc:
        raise ValueError(f'{_field(info)} is a size or "unlimited": {exc}') from None
    _check_sign(size, value, info, positive=True)
    _check_range(size)
    return size


def _run_name(value: object) -> str:
    name = _string(value)
    if not _RUN_NAME.fullmatch(name):
        raise ValueError(
            f"{quote(name)} cannot name output folders: use letters, digits, "
            '"_", "-" and "." (not first)'
        )
    return name


def _list(value: object) -> list:
    if not isinstance(value, list | tuple):
        raise ValueError(f"expected a list, got {describe_value(value)}")
    return list(value)


def _table(value: object) -> object:
    # Tables are checked by their model; only None needs catching here, because
    # pydantic would take it as "absent" for optional tables.
    if value is None:
        raise ValueError("expected a table, got None")
    return value


def typed(inner: Any, validate: Callable, unit: Unit | None = None) -> Any:
    if unit is None:
        return Annotated[inner, BeforeValidator(validate)]
    return Annotated[inner, BeforeValidator(validate), unit]


def optional(annotated: Any) -> Any:
    """Same validator, but the key may be absent. None itself is still refused."""
    inner, *metadata = get_args(annotated)
    return Annotated[inner | None, *metadata]


def choice(*options: str) -> Any:
    """One of a few strings; a near miss gets a did-you-mean."""
    return typed(str, _choice(*options))


def list_of(item: Any) -> Any:
    return typed(list[item], _list)


def table(model: type) -> Any:
    """A sub-table that is always there (its model gives the defaults)."""
    return typed(model, _table)


def optional_table(model: type) -> Any:
    """A sub-table that may be left out."""
    return typed(model | None, _table)


Str = typed(str, _string)
Bool = typed(bool, _boolean)
PositiveInt = typed(int, _integer(1))
NonNegativeInt = typed(int, _integer(0))
PositiveU32 = typed(int, _integer(1, MAX_U32))
NonNegativeU32 = typed(int, _integer(0, MAX_U32))
ZeroOne = typed(int, _zero_or_one)
Probability = typed(float, _probability)
RunName = typed(str, _run_name)
Fraction = typed(float, _number_in(0, 1, False, False, "between 0 and 1"))
AboveOne = typed(float, _number_in(1, math.inf, True, True, "greater than 1"))
PositiveNumber = typed(float, _number_in(0, math.inf, True, True, "positive"))
NonNegativeNumber = typed(float, _number_in(0, math.inf, False, True, "zero or more"))
UpToOne = typed(float, _number_in(0, 1, True, False, "in (0, 1]"))
# Paxson's method (and long-range dependence) needs 1/2 <= H < 1.
Hurst = typed(float, _number_in(0.5, 1, False, True, "at least 0.5 and below 1"))
PositiveRate = typed(float, _quantity(parse_rate, positive=True), BITS_PER_SECOND)
NonNegativeRate = typed(float, _quantity(parse_rate, positive=False), BITS_PER_SECOND)
PositiveTime = typed(int, _quantity(parse_time, positive=True), PICOSECONDS)
NonNegativeTime = typed(int, _quantity(parse_time, positive=False), PICOSECONDS)
PositiveSize = typed(int, _quantity(parse_size, positive=True), BYTES)
NonNegativeSize = typed(int, _quantity(parse_size, positive=False), BYTES)
PositiveLimit = typed(tuple[str, int], _quantity(parse_limit, positive=True))
NonNegativeLimit = typed(tuple[str, int], _quantity(parse_limit, positive=False))
InitialWindow = typed(int | str, _initial_window)
SizeOrUnlimited = typed(int | str, _size_or_unlimited, BYTES)


def bytes_text(size: int) -> str:
    """A size in messages: "1460 B"."""
    return f"{size} B"
