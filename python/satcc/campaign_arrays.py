"""A campaign's results as arrays: the summary as an xarray DataArray over the
swept keys and the seed, and the natural order of swept values ("4 Mbps"
before "10 Mbps") that its coordinates and the campaign overview use.

A swept quantity becomes a numeric coordinate in base units (bit/s, s,
bytes, packets), so that arrays can be plotted, interpolated and fitted
over it; the values as the sweep wrote them stay beside it."""

from __future__ import annotations

import json
import re
from typing import Any

import pandas as pd

from .param_text import written
from .units import UnitError, parse_limit, parse_rate, parse_size, parse_time

__all__ = ["coordinate", "natural_order", "quantities", "summary_array", "unit_scale"]

# The suffix of the non-index coordinate that keeps a quantity's values as
# swept ("2 Mbps" beside 2e6 bit/s).
LABEL_SUFFIX = "_label"


def summary_array(frame: pd.DataFrame, parameters: list[str], metric: str) -> Any:
    """`metric` of the summary `frame` with one dimension per swept key in
    `parameters` and one for the seed; missing runs are NaN.

    A key whose every value is a quantity of one kind ("2 Mbps", "250 ms",
    "64 KiB", "100 packets") has numbers in base units as its coordinate,
    ascending, with `attrs["units"]` and the values as swept in the
    non-index coordinate `KEY_label`; any other key keeps its values, in
    natural order."""
    import numpy as np
    import xarray as xr

    if metric not in frame.columns and len(frame):
        close = [c for c in frame.columns if metric in c][:5]
        hint = f" (did you mean {', '.join(close)}?)" if close else ""
        raise KeyError(f"no summary figure named {metric!r}{hint}")
    keys = parameters
    dims = [*keys, "seed"]
    if not len(frame):
        return xr.DataArray(
            np.empty((0,) * len(dims)), dims=dims, coords={d: [] for d in dims}, name=metric
        )
    values = [json.loads(p) for p in frame["params"]]
    coords: dict[str, list[Any]] = {}
    index_columns = {}
    numeric: dict[str, tuple[list[Any], str]] = {}
    for k in keys:
        column = [coordinate(v.get(k)) for v in values]
        index_columns[k] = column
        coords[k] = natural_order(set(column))
        found = quantities(coords[k])
        if found is not None:
            numbers, unit = found
            order = sorted(range(len(numbers)), key=numbers.__getitem__)
            coords[k] = [coords[k][i] for i in order]
            numeric[k] = ([numbers[i] for i in order], unit)
    index_columns["seed"] = frame["seed"].astype("int64").tolist()
    coords["seed"] = sorted(set(index_columns["seed"]))
    index = pd.MultiIndex.from_arrays([index_columns[d] for d in dims], names=dims)
    series = pd.Series(pd.to_numeric(frame[metric], errors="coerce").to_numpy(), index=index)
    series = series[~series.index.duplicated(keep="first")]
    full = pd.MultiIndex.from_product([coords[d] for d in dims], names=dims)
    data = series.reindex(full).to_numpy().reshape([len(coords[d]) for d in dims])
    array = xr.DataArray(data, dims=dims, coords=coords, name=metric)
    for k, (numbers, unit) in numeric.items():
        array = array.assign_coords(
            {k: (k, numbers, {"units": unit}), k + LABEL_SUFFIX: (k, coords[k])}
        )
    return array


def _seconds(text: str) -> float:
    return parse_time(text) / 1e12


def _packets(text: str) -> int:
    kind, n = parse_limit(text)
    if kind != "packets":
        raise UnitError(f"{text!r} is not a packet count")
    return n


# What a swept quantity can be, and the unit of its coordinate.
_KINDS = (("bit/s", parse_rate), ("s", _seconds), ("B", parse_size), ("packets", _packets))


def quantities(values: list[Any]) -> tuple[list[Any], str] | None:
    """`values` as numbers in base units and that unit, when every one is a
    quantity of the same kind (rate, time, size or packet count) and no two
    are the same quantity ("1 Mbps" and "1000 kbps" would make one
    coordinate twice); None otherwise."""
    if not values or not all(isinstance(v, str) for v in values):
        return None
    for unit, parse in _KINDS:
        try:
            numbers = [parse(v) for v in values]
        except UnitError:
            continue
        return (numbers, unit) if len(set(numbers)) == len(numbers) else None
    return None


def coordinate(value: Any) -> Any:
    # Coordinates must be hashable scalars: lists and tables become their text.
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return written(value)


_LEADING_NUMBER = re.compile(r"^\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*(.*)$")


def natural_order(values: set[Any]) -> list[Any]:
    """Coordinates in a natural order: numbers by value, "4 Mbps" before
    "10 Mbps" (by unit, then number), anything else as text."""

    def sort_key(v: Any) -> tuple:
        if isinstance(v, bool) or v is None:
            return (2, str(v), 0.0, "")
        if isinstance(v, int | float):
            return (0, "", float(v), "")
        m = _LEADING_NUMBER.match(str(v))
        if m:
            scale = unit_scale(m.group(2))
            return (1, "" if scale else m.group(2), float(m.group(1)) * (scale or 1.0), str(v))
        return (2, str(v), 0.0, "")

    return sorted(values, key=sort_key)


def unit_scale(unit: str) -> float | None:
    """Rates, times and sizes compare by their value in base units."""
    from satcc import units

    for parse in (units.parse_rate, units.parse_time, units.parse_size):
        try:
            return float(parse(f"1 {unit}"))
        except Exception:
            continue
    return None
