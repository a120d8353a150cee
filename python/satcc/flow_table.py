"""A run's flows as a table: one row per flow, one column per figure its
summary has for it (`Result.flows()`).

The summary is flat (`tcp.flow00.goodput_bps`); a researcher comparing
flows wants them side by side, as a pandas DataFrame to sort, plot and
aggregate. The columns are the summary's own figure names, so that every
column is documented in docs/scenario.md under its key, and the unit its
suffix names is spelled out in `DataFrame.attrs["units"]`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["FLOW_KINDS", "flow_frame", "unit_of"]

# Summary prefixes whose entries are single flows, with what one is. Links,
# sinks, classes of arrivals and groups of cell sources are not: they carry
# or report many flows together.
FLOW_KINDS = {
    "flows": "datagram flow",
    "tcp": "TCP connection",
    "tfrc": "TFRC media flow",
    "udp_rr": "UDP request/response exchange",
    "emulate": "emulated host",
}

# A figure's unit from the suffix of its name (docs/scenario.md: times in
# seconds, rates in bit/s, sizes in bytes).
_UNIT_SUFFIXES = (
    ("_bps", "bit/s"),
    ("_per_s", "1/s"),
    ("_s2", "s^2"),
    ("_s", "s"),
    ("_bytes", "B"),
    ("_packets", "packets"),
)


def unit_of(column: str) -> str | None:
    """The unit a figure's name ends with ("goodput_bps" -> "bit/s"); None
    for counts, ratios and text."""
    for suffix, unit in _UNIT_SUFFIXES:
        if column.endswith(suffix):
            return unit
    return None


def flow_frame(summary: dict[str, Any], kind: str | None = None) -> pd.DataFrame:
    """One row per flow of the summary, one column per figure.

    Without `kind` the index is (kind, name), kind being the summary prefix
    (`tcp`, `tfrc`, `flows`, `udp_rr`, `emulate`), and a figure one kind
    lacks is missing (NaN, <NA>) in its rows; with `kind` the index is the
    flow name and the columns are that kind's figures. Numbers are float64,
    or Int64 where every value is a whole count; null figures are missing.
    `attrs["units"]` maps each column with a unit to it.
    """
    import pandas as pd

    if kind is not None and kind not in FLOW_KINDS:
        raise ValueError(f"unknown flow kind {kind!r}: use one of {', '.join(FLOW_KINDS)}")
    kinds = [kind] if kind is not None else list(FLOW_KINDS)
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    for key, value in summary.items():
        parts = key.split(".", 2)
        if len(parts) == 3 and parts[0] in kinds:
            rows.setdefault((parts[0], parts[1]), {})[parts[2]] = value
    order = sorted(rows, key=lambda r: (kinds.index(r[0]), r[1]))
    columns = sorted({figure for row in rows.values() for figure in row})
    data = {c: _column([rows[r].get(c) for r in order]) for c in columns}
    if kind is None:
        index = pd.MultiIndex.from_tuples(order, names=["kind", "name"])
    else:
        index = pd.Index([name for _, name in order], name="name")
    frame = pd.DataFrame(data, index=index, columns=columns)
    frame.attrs["units"] = {c: u for c in columns if (u := unit_of(c)) is not None}
    return frame


def _column(values: list[Any]) -> Any:
    """Figures of one column as a typed array: Int64 for whole counts,
    float64 for other numbers, text otherwise (a TFRC flow's `qs_state`)."""
    import pandas as pd

    present = [v for v in values if v is not None]
    if all(isinstance(v, int) and not isinstance(v, bool) for v in present) and present:
        return pd.array(values, dtype="Int64")
    if all(isinstance(v, int | float) and not isinstance(v, bool) for v in present):
        return pd.array([float("nan") if v is None else float(v) for v in values], dtype="float64")
    return pd.array(values, dtype="object")
