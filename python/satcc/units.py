"""Unit strings for scenario quantities: "2.048 Mbps", "270 ms", "64 KiB", "100 packets".

Every dimensioned quantity in a scenario carries its unit, so that a bare
2048000 can never be misread as bits, bytes or kilobits. Parsing uses decimal
arithmetic, so "270 ms" is exactly 270e9 ps and the format_* helpers round-trip
through the parsers without drift.
"""

from __future__ import annotations

import datetime
import json
import math
import re
from collections.abc import Callable
from decimal import ROUND_HALF_EVEN, Decimal, localcontext

__all__ = [
    "UnitError",
    "describe_value",
    "format_limit",
    "format_rate",
    "format_size",
    "format_time",
    "parse_limit",
    "parse_rate",
    "parse_size",
    "parse_time",
]


class UnitError(ValueError):
    """A quantity that cannot be read; the message says how to write it."""


RATE_UNITS = {
    "bps": 1,
    "b/s": 1,
    "kbps": 10**3,
    "Kbps": 10**3,
    "kb/s": 10**3,
    "Kb/s": 10**3,
    "Mbps": 10**6,
    "Mb/s": 10**6,
    "Gbps": 10**9,
    "Gb/s": 10**9,
}
# Both the micro sign (U+00B5) and the Greek mu (U+03BC) are accepted: they look
# identical and keyboards produce either.
TIME_UNITS = {
    "ps": 1,
    "ns": 10**3,
    "us": 10**6,
    "\u00b5s": 10**6,
    "\u03bcs": 10**6,
    "ms": 10**9,
    "s": 10**12,
    "min": 60 * 10**12,
}
SIZE_UNITS = {
    "B": 1,
    "byte": 1,
    "bytes": 1,
    "kB": 10**3,
    "MB": 10**6,
    "GB": 10**9,
    "KiB": 2**10,
    "MiB": 2**20,
    "GiB": 2**30,
}
PACKET_UNITS = ("packets", "packet", "pkts", "pkt")

_RATE_NAMES = ("bps", "kbps", "Mbps", "Gbps")
_TIME_NAMES = ("ps", "ns", "us", "ms", "s", "min")
_SIZE_NAMES = ("B", "kB", "MB", "GB", "KiB", "MiB", "GiB")

_TIME_ALIASES = {
    "sec": "s",
    "secs": "s",
    "second": "s",
    "seconds": "s",
    "msec": "ms",
    "usec": "us",
    "nsec": "ns",
    "psec": "ps",
    "mins": "min",
    "minute": "min",
    "minutes": "min",
    "m": "min",
}

_QUANTITY = re.compile(r"\s*([+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)\s*(\S.*?)?\s*")
# Exponents beyond this are typos, and would make exact integer conversion slow.
_MAX_EXPONENT = 60
# Enough digits that every product and quotient below is exact.
_PRECISION = 200


def describe_value(value: object) -> str:
    """Name a value and its TOML type for error messages: 'integer 5', 'string "x"'."""
    if value is None:
        return "None"
    if isinstance(value, bool):
        return f"boolean {'true' if value else 'false'}"
    if isinstance(value, int):
        return f"integer {value}"
    if isinstance(value, float):
        return f"float {value!r}"
    if isinstance(value, str):
        return f"string {_quote(value)}"
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list | tuple):
        return "a list"
    if isinstance(value, datetime.datetime | datetime.date | datetime.time):
        return f"date/time {value.isoformat()}"
    return f"{type(value).__name__} {value!r}"


def _quote(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def _split(text: object, kind: str, example: str, bare_hint: Callable[[str], str]):
    """Split "2.048 Mbps" into (Decimal("2.048"), "Mbps"), refusing bare numbers."""
    if not isinstance(text, str):
        reason = f"expected a string with a unit, got {describe_value(text)}"
        if isinstance(text, int | float) and not isinstance(text, bool) and math.isfinite(text):
            # repr(float(...)): numpy's float64 is a float whose repr is
            # "np.float64(5.0)", which no hint can quote as a number.
            number = repr(float(text)) if isinstance(text, float) else repr(text)
            reason += f": {bare_hint(number)}"
        raise UnitError(reason)
    match = _QUANTITY.fullmatch(text)
    if match is None:
        raise UnitError(
            f"cannot read {_quote(text)} as a {kind}: write a number and a unit, e.g. {example}"
        )
    number = Decimal(match[1])
    if abs(number.adjusted()) > _MAX_EXPONENT:
        raise UnitError(f"{_quote(text)} is out of range")
    if match[2] is None:
        raise UnitError(f"needs a unit: {bare_hint(match[1])}")
    return number, match[2]


def _unknown(unit: str, kind: str, table: dict, names: tuple[str, ...], extra: str = "") -> str:
    same_letters = [name for name in table if name.lower() == unit.lower()]
    hint = f'did you mean "{same_letters[0]}"? ' if same_letters else ""
    return f'unknown {kind} unit "{unit}" ({hint}use {extra}{", ".join(names)})'


def _rate_hint(number: str) -> str:
    value = Decimal(number)
    if abs(value) >= 1000:
        return f'write "{format_rate(float(value))}" if you mean {number} bit/s'
    return f'write e.g. "{number} Mbps" (units: {", ".join(_RATE_NAMES)})'


def _bytes_per_second(number: Decimal, unit: str) -> str | None:
    for suffix in ("Bps", "B/s"):
        if unit.endswith(suffix):
            prefix = unit[: -len(suffix)]
            bits_unit = {"": "bps", "k": "kbps", "K": "kbps", "M": "Mbps", "G": "Gbps"}.get(prefix)
            reason = f'"{unit}" is bytes per second; rates are in bits per second'
            if bits_unit is None:
                return reason
            bits = _plain(number * 8)
            return f'{reason}: write "{bits} {bits_unit}" for {_plain(number)} {unit}'
    return None


def parse_rate(text: str) -> float:
    """Parse a rate such as "2.048 Mbps" into bits per second (decimal SI prefixes)."""
    number, unit = _split(text, "rate", '"2 Mbps"', _rate_hint)
    if unit not in RATE_UNITS:
        refusal = _bytes_per_second(number, unit)
        raise UnitError(refusal or _unknown(unit, "rate", RATE_UNITS, _RATE_NAMES))
    with localcontext(prec=_PRECISION):
        bps = float(number * RATE_UNITS[unit])
    if not math.isfinite(bps):
        raise UnitError(f"{_quote(text)} is out of range")
    return bps


def parse_time(text: str) -> int:
    """Parse a time such as "270 ms" into integer picoseconds, rounded to nearest."""
    number, unit = _split(text, "time", '"270 ms"', lambda n: f'write e.g. "{n} s" or "{n} ms"')
    if unit not in TIME_UNITS:
        if unit in _TIME_ALIASES:
            raise UnitError(f'unknown time unit "{unit}" (write "{_TIME_ALIASES[unit]}")')
        raise UnitError(_unknown(unit, "time", TIME_UNITS, _TIME_NAMES))
    with localcontext(prec=_PRECISION):
        return int((number * TIME_UNITS[unit]).to_integral_value(ROUND_HALF_EVEN))


def _size_refusal(unit: str) -> str | None:
    if unit == "KB":
        return '"KB" is ambiguous: write kB for 1000 bytes or KiB for 1024'
    if unit in ("b", "bit", "bits") or (len(unit) == 2 and unit[0] in "kKMG" and unit[1] == "b"):
        return f'"{unit}" counts bits; sizes are in bytes (use {", ".join(_SIZE_NAMES)})'
    return None


def _size_bytes(text: str, number: Decimal, unit: str) -> int:
    with localcontext(prec=_PRECISION):
        value = number * SIZE_UNITS[unit]
        if value != value.to_integral_value():
            raise UnitError(f"{_quote(text)} is not a whole number of bytes")
        return int(value)


def parse_size(text: str) -> int:
    """Parse a size such as "64 KiB" or "1.5 kB" into a whole number of bytes."""
    number, unit = _split(
        text,
        "size",
        '"1500 B"',
        lambda n: f'write e.g. "{n} B" (units: {", ".join(_SIZE_NAMES)})',
    )
    if unit not in SIZE_UNITS:
        raise UnitError(_size_refusal(unit) or _unknown(unit, "size", SIZE_UNITS, _SIZE_NAMES))
    return _size_bytes(text, number, unit)


def parse_limit(text: str) -> tuple[str, int]:
    """Parse a queue limit: ("packets", n) for "100 packets", ("bytes", n) for a size."""
    number, unit = _split(
        text,
        "queue limit",
        '"100 packets" or "64 KiB"',
        lambda n: f'write e.g. "{n} packets" or "{n} B"',
    )
    if unit in PACKET_UNITS:
        if number != number.to_integral_value():
            raise UnitError(f"{_quote(text)} is not a whole number of packets")
        return "packets", int(number)
    if unit in SIZE_UNITS:
        return "bytes", _size_bytes(text, number, unit)
    if unit in ("cell", "cells"):
        raise UnitError(
            'cells are reserved for the ATM layer: write a packet count ("100 packets") or a size'
        )
    table = dict.fromkeys(PACKET_UNITS) | SIZE_UNITS
    refusal = _size_refusal(unit) or _unknown(
        unit, "queue limit", table, _SIZE_NAMES, extra="packets, or a size: "
    )
    raise UnitError(refusal)


def _plain(value: Decimal) -> str:
    """Write a Decimal without exponent or trailing zeros: 2.048, 270, 0.5."""
    if value == 0:
        return "0"
    with localcontext(prec=_PRECISION):
        return format(value.normalize(), "f")


def _scaled(value: Decimal, units: tuple[tuple[str, int], ...]) -> str:
    """Write value in the largest unit it reaches at least once; units are largest first."""
    for name, size in units[:-1]:
        if abs(value) >= size:
            with localcontext(prec=_PRECISION):
                return f"{_plain(value / size)} {name}"
    return f"{_plain(value)} {units[-1][0]}"


def format_rate(bps: float) -> str:
    """Write bits per second as e.g. "2.048 Mbps"; parse_rate gives back the same float."""
    bps = float(bps)
    if not math.isfinite(bps):
        raise ValueError(f"cannot write a non-finite rate {bps!r}")
    # repr is the shortest decimal that reads back as the same float.
    units = (("Gbps", 10**9), ("Mbps", 10**6), ("kbps", 10**3), ("bps", 1))
    return _scaled(Decimal(repr(bps)), units)


def format_time(ps: int) -> str:
    """Write integer picoseconds as e.g. "270 ms"; parse_time gives back the same int."""
    if isinstance(ps, float) and ps.is_integer():
        ps = int(ps)
    if not isinstance(ps, int):
        raise ValueError(f"a time in picoseconds must be an integer, got {ps!r}")
    if ps == 0:
        return "0 s"
    units = (("s", 10**12), ("ms", 10**9), ("us", 10**6), ("ns", 10**3), ("ps", 1))
    return _scaled(Decimal(ps), units)


def format_size(size: int) -> str:
    """Write bytes in the shortest exact form: "64 KiB", "1 kB", "1500 B"."""
    if not isinstance(size, int):
        raise ValueError(f"a size in bytes must be an integer, got {size!r}")
    candidates = [f"{size} B"]
    for name in ("kB", "KiB", "MB", "MiB", "GB", "GiB"):
        unit = SIZE_UNITS[name]
        if abs(size) >= unit:
            with localcontext(prec=_PRECISION):
                candidates.append(f"{_plain(Decimal(size) / unit)} {name}")
    # min keeps the first of equally short forms, so "1500 B" beats "1.5 kB".
    return min(candidates, key=len)


def format_limit(limit: tuple[str, int]) -> str:
    """Write a parsed queue limit back: ("packets", 100) -> "100 packets"."""
    kind, count = limit
    if kind == "packets":
        return f"{count} packets"
    if kind == "bytes":
        return format_size(count)
    raise ValueError(f'a queue limit is counted in "packets" or "bytes", not {kind!r}')
