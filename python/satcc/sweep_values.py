"""The value lists of a sweep request: `--set KEY=V1,V2,...` values (TOML or
text, `range(START, STOP[, STEP]) UNIT`), `--seeds` specifications, and the
bound on how many runs one sweep may plan."""

from __future__ import annotations

import itertools
import math
import re
import tomllib
from collections.abc import Iterable, Sequence
from typing import Any

from .seeds import as_seed

__all__ = [
    "MAX_RUNS",
    "SweepError",
    "at_most_runs",
    "bounded_list",
    "parse_list_option",
    "parse_seeds",
    "parse_values",
    "seed_sequence",
    "sequence_length",
]

# The most runs one sweep may plan. Planning validates every point and keeps
# each run's description until it is stored (see bookkeeping_bytes), and
# validation costs about a millisecond per point: a million runs is a
# quarter of an hour of planning and a gigabyte or more of memory, a sane
# ceiling for one invocation; bigger campaigns take several sweeps, which
# the store joins (the same figure bounds range()).
MAX_RUNS = 1_000_000


class SweepError(ValueError):
    """A malformed sweep request (value list, seeds, zip lengths, executor), or
    one too big: more than MAX_RUNS runs, or bookkeeping beyond the memory."""


_RANGE = re.compile(r"^range\s*\((?P<args>[^()]*)\)\s*(?P<unit>.*?)\s*$")
_OPEN = {"[": "]", "{": "}", "(": ")"}


def split_top_level(text: str) -> list[str]:
    """Split on commas outside brackets, braces, parentheses and quotes:
    '1, [2, 3], {a = 1, b = 2}, "x, y"' -> four items."""
    items: list[str] = []
    depth: list[str] = []
    quote: str | None = None
    start = 0
    i = 0
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\" and quote == '"':
                i += 2
                continue
            if ch == quote:
                quote = None
        elif ch in "\"'":
            quote = ch
        elif ch in _OPEN:
            depth.append(_OPEN[ch])
        elif depth and ch == depth[-1]:
            depth.pop()
        elif ch == "," and not depth:
            items.append(text[start:i])
            start = i + 1
        i += 1
    items.append(text[start:])
    return [item.strip() for item in items]


def parse_value(raw: str) -> Any:
    """One value: TOML when it parses as TOML (3, 0.5, true, "x", [..], {..}),
    else the plain text ("4 Mbps")."""
    try:
        return tomllib.loads(f"value = {raw}")["value"]
    except tomllib.TOMLDecodeError:
        return raw.strip()


def _number(text: str, what: str) -> int | float:
    value = parse_value(text.strip())
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise SweepError(f"range(): {what} must be a number, got {text.strip()!r}")
    return value


def _round12(x: float) -> float:
    return float(f"{x:.12g}")


def expand_range(args: str, unit: str = "") -> list[Any]:
    """range(START, STOP[, STEP]) as Python's range, floats allowed
    (START + i*STEP rounded to 12 significant digits); with a unit, the
    values are strings "N UNIT"."""
    parts = [p for p in args.split(",")]
    if len(parts) not in (2, 3) or not all(p.strip() for p in parts):
        raise SweepError(f"range({args}): expected range(START, STOP) or range(START, STOP, STEP)")
    start = _number(parts[0], "START")
    stop = _number(parts[1], "STOP")
    step = _number(parts[2], "STEP") if len(parts) == 3 else 1
    if step == 0:
        raise SweepError(f"range({args}): STEP must not be zero")
    values: list[int | float]
    if all(isinstance(v, int) for v in (start, stop, step)):
        integers = range(start, stop, step)
        if sequence_length(integers) > MAX_RUNS:
            raise SweepError(
                f"range({args}): {sequence_length(integers):,} values, more than {MAX_RUNS:,}"
            )
        values = list(integers)
    else:
        values = []
        i = 0
        while True:
            x = _round12(start + i * step)
            if (step > 0 and x >= stop) or (step < 0 and x <= stop):
                break
            values.append(x)
            i += 1
            if i > MAX_RUNS:
                raise SweepError(f"range({args}): more than {MAX_RUNS:,} values")
    if not unit:
        return list(values)
    return [f"{_show_number(v)} {unit}" for v in values]


def _show_number(v: int | float) -> str:
    return str(v) if isinstance(v, int) else f"{v:.12g}"


def parse_values(text: str) -> list[Any]:
    """'V1,V2,...' -> values; items may be range(...) [UNIT]; commas inside
    TOML arrays, inline tables, strings and range() do not split."""
    values: list[Any] = []
    for item in split_top_level(text):
        if not item:
            raise SweepError(f"empty value in {text!r}")
        m = _RANGE.match(item)
        if m:
            values.extend(expand_range(m.group("args"), m.group("unit")))
        else:
            values.append(parse_value(item))
    return values


def parse_list_option(text: str, option: str = "--set") -> tuple[str, list[Any]]:
    """'KEY=V1,V2,...' -> (key, values)."""
    key, sep, raw = text.partition("=")
    key = key.strip()
    if not sep or not key:
        raise SweepError(
            f"bad {option} {text!r}: expected KEY=V1,V2,..., e.g. "
            f"{option} 'links.sat.rate=2 Mbps,4 Mbps'"
        )
    if not raw.strip():
        raise SweepError(f"bad {option} {text!r}: no values after '='")
    try:
        return key, parse_values(raw)
    except SweepError as e:
        raise SweepError(f"bad {option} {key}: {e}") from None


_SEED_RANGE = re.compile(r"^\s*(\d+)\s*\.\.\s*(\d+)\s*$")


def parse_seeds(spec: str | int | Iterable[int] | None) -> list[int] | None:
    """'1..10' (inclusive), '1,2,7', '5', an int or an iterable of ints;
    None means the scenario's own seed. More than MAX_RUNS seeds is a
    SweepError, raised before any list is built."""
    seeds = seed_sequence(spec)
    if seeds is None:
        return None
    if sequence_length(seeds) > MAX_RUNS:
        raise SweepError(f"{sequence_length(seeds):,} seeds requested; {at_most_runs()}")
    return list(seeds)


def seed_sequence(spec: str | int | Iterable[int] | None) -> Sequence[int] | None:
    """The seeds of `spec` without materialising a range: '1..100000000' is a
    range object, whose length costs nothing to know."""
    if spec is None:
        return None
    if isinstance(spec, bool):
        raise SweepError(f"bad seeds {spec!r}: expected integers")
    # Python's and numpy's integers alike (satcc.seeds.as_seed); not floats.
    if as_seed(spec) is not None:
        seeds: Sequence[int] = [as_seed(spec)]
    elif isinstance(spec, str):
        seeds = _seeds_from_text(spec)
    elif isinstance(spec, range):
        seeds = spec
    else:
        given = bounded_list(spec, "seeds")
        seeds = [as_seed(s) for s in given]
        for s, seed in zip(given, seeds, strict=True):
            if seed is None:
                raise SweepError(f"bad seeds: {s!r} is not an integer")
    if not seeds:
        raise SweepError("no seeds")
    for s in (seeds[0], seeds[-1]) if isinstance(seeds, range) else seeds:
        if not 0 <= s < 2**63:
            raise SweepError(f"bad seeds: {s} is not between 0 and 2^63-1")
    return seeds if isinstance(seeds, range) else list(dict.fromkeys(seeds))


def _seeds_from_text(spec: str) -> Sequence[int]:
    text = spec.strip()
    m = _SEED_RANGE.match(text)
    if m:
        lo, hi = int(m.group(1)), int(m.group(2))
        if hi < lo:
            raise SweepError(f"bad seeds {spec!r}: {hi} is below {lo}")
        return range(lo, hi + 1)
    seeds = []
    for item in text.split(","):
        item = item.strip()
        if not item.isdigit():
            raise SweepError(f"bad seeds {spec!r}: expected 1..10, 1,2,7 or a single number")
        seeds.append(int(item))
    return seeds


def sequence_length(values: Sequence[Any]) -> int:
    # len() of a range longer than 2**63 - 1 overflows; its arithmetic does not.
    if isinstance(values, range):
        return max(0, -((values.start - values.stop) // values.step))
    return len(values)


def bounded_list(values: Iterable[Any], what: str) -> list[Any]:
    """At most MAX_RUNS + 1 items of `values`: an endless or huge iterable is
    refused rather than exhausted."""
    items = list(itertools.islice(values, MAX_RUNS + 1))
    if len(items) > MAX_RUNS:
        raise SweepError(f"more than {MAX_RUNS:,} {what} requested; {at_most_runs()}")
    return items


def at_most_runs() -> str:
    return (
        f"at most {MAX_RUNS:,} runs per sweep: split the grid or the seeds over several "
        "sweeps into the same campaign (each one skips what is stored)"
    )
