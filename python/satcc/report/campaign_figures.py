"""A campaign's figures: each report column of satcc.summary_tables against the
first swept parameter, one line per entity and combination of the other
parameters."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from satcc import fmt
from satcc.summary_tables import Column, Group

from .campaign_data import CampaignData, column_scale, numeric_axis, seed_mean_ci, unquote
from .markup import figure_html, new_figure, style_axes

MAX_SERIES = 12


@dataclass(frozen=True)
class _XAxis:
    parameter: str
    label: str
    position: dict[str, float]  # parameter value -> x (NaN: not on the axis)
    numeric: bool  # False: the values are categories, one tick each


def campaign_figures(
    data: CampaignData,
    found: dict[Group, dict[Column, dict[str, str]]],
    points: list[tuple],
    groups: dict[tuple, pd.DataFrame],
) -> list[str]:
    """One figure per report column present (`found`, from report_columns)."""
    params = [p for p in data.parameters if f"param.{p}" in data.summary]
    if not params:
        return []
    x_axis = _x_axis(params[0], points)
    figures = []
    for group, columns in found.items():
        for column, names in columns.items():
            figure = _column_figure(data, params, x_axis, group, column, names, points, groups)
            if figure:
                figures.append(figure)
    return figures


def _x_axis(parameter: str, points: list[tuple]) -> _XAxis:
    values = list(dict.fromkeys(point[0] for point in points))
    axis = numeric_axis(values)
    if axis is None:
        position = {v: float(i) for i, v in enumerate(values)}
        return _XAxis(parameter, parameter, position, numeric=False)
    position, unit = axis
    return _XAxis(parameter, f"{parameter} ({unit})" if unit else parameter, position, True)


def _column_figure(
    data: CampaignData,
    params: list[str],
    x_axis: _XAxis,
    group: Group,
    column: Column,
    names: dict[str, str],
    points: list[tuple],
    groups: dict[tuple, pd.DataFrame],
) -> str:
    """The figure of one report column, or "" when no line has a point."""
    divisor, y_unit = column_scale(data.summary, column, list(names.values()))
    fig = new_figure(5.6, 3.4)
    ax = fig.add_subplot()
    series, truncated = 0, False
    rest_values = list(dict.fromkeys(point[1:] for point in points))
    for entity, name in names.items():
        for rest in rest_values:
            if series >= MAX_SERIES:
                truncated = True
                break
            line = _line(points, groups, name, rest, x_axis.position, divisor)
            if line is None:
                continue
            label = entity
            if rest:
                label += " · " + ", ".join(
                    f"{p}={unquote(v)}" for p, v in zip(params[1:], rest, strict=True)
                )
            x, y, err = line
            ax.errorbar(
                x, y, yerr=err, marker="o", markersize=3.5, linewidth=1.4, capsize=2.5, label=label
            )
            series += 1
    if not series:
        return ""
    _label_axes(ax, x_axis, column.header, y_unit, f"{group.entity} {column.header}")
    if series > 1:
        ax.legend(fontsize=7.5, frameon=False)
    caption = f"{group.entity} {column.header} vs {x_axis.parameter}: mean over seeds, bars 95% CI."
    if truncated:
        caption += f" Only the first {MAX_SERIES} series are drawn."
    alt = f"{group.prefix} {column.header} vs {x_axis.parameter}"
    return figure_html(fig, alt, caption)


def _line(
    points: list[tuple],
    groups: dict[tuple, pd.DataFrame],
    name: str,
    rest: tuple,
    position: dict[str, float],
    divisor: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """(x, mean, CI half-width) of summary column `name` over the points whose
    other parameters are `rest`, in x order; None when it has no point."""
    x, y, err = [], [], []
    for point in points:
        if point[1:] != rest:
            continue
        mean, ci, _ = seed_mean_ci(groups[point][name])
        if fmt.is_missing(mean) or fmt.is_missing(position[point[0]]):
            continue
        x.append(position[point[0]])
        y.append(mean / divisor)
        err.append(0.0 if fmt.is_missing(ci) else ci / divisor)
    if not x:
        return None
    order = np.argsort(x, kind="stable")
    return np.asarray(x)[order], np.asarray(y)[order], np.asarray(err)[order]


def _label_axes(ax: Any, x_axis: _XAxis, name: str, y_unit: str, title: str) -> None:
    if not x_axis.numeric:
        ax.set_xticks(list(x_axis.position.values()), [unquote(v) for v in x_axis.position])
    ax.set_xlabel(x_axis.label, fontsize=9)
    ax.set_ylabel(f"{name} ({y_unit})" if y_unit else name, fontsize=9)
    ax.set_title(title, fontsize=10, loc="left")
    style_axes(ax)
