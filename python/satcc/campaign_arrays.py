"""A campaign's results as arrays: the summary as an xarray DataArray over the
swept keys and the seed, and the natural order of swept values ("4 Mbps"
before "10 Mbps") that its coordinates and the campaign overview use."""

from __future__ import annotations

import json
import re
from typing import Any

import pandas as pd

from .param_text import written

__all__ = ["coordinate", "natural_order", "summary_array", "unit_scale"]


def summary_array(frame: pd.DataFrame, parameters: list[str], metric: str) -> Any:
    """`metric` of the summary `frame` with one dimension per swept key in
    `parameters` and one for the seed; missing runs are NaN."""
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
    for k in keys:
        column = [coordinate(v.get(k)) for v in values]
        index_columns[k] = column
        coords[k] = natural_order(set(column))
    index_columns["seed"] = frame["seed"].astype("int64").tolist()
    coords["seed"] = sorted(set(index_columns["seed"]))
    index = pd.MultiIndex.from_arrays([index_columns[d] for d in dims], names=dims)
    series = pd.Series(pd.to_numeric(frame[metric], errors="coerce").to_numpy(), index=index)
    series = series[~series.index.duplicated(keep="first")]
    full = pd.MultiIndex.from_product([coords[d] for d in dims], names=dims)
    data = series.reindex(full).to_numpy().reshape([len(coords[d]) for d in dims])
    return xr.DataArray(data, dims=dims, coords=coords, name=metric)


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
