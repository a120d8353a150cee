"""A campaign's figures: each report column of satcc.summary_tables against the
first swept parameter, one line per entity and combination of the other
parameters, in satcc's house style. The mean over seeds is drawn with the
seeds' spread as satcc.seed_bands draws it: min-max for few seeds, else the
Student-t interval cut at the column's physical bounds (nothing below 0, no
share above 1)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from satcc import figure_style, fmt, seed_bands
from satcc.summary_tables import Column, Group

from .campaign_data import (
    CampaignData,
    column_bounds,
    column_scale,
    numeric_axis,
    seed_band,
    unquote,
)
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
    bounds = column_bounds(column)
    fig = new_figure(5.6, 3.4)
    ax = fig.add_subplot()
    style_axes(ax)  # before drawing: the lines take the house colours
    series, truncated, counts = 0, False, []
    rest_values = list(dict.fromkeys(point[1:] for point in points))
    for entity, name in names.items():
        for rest in rest_values:
            if series >= MAX_SERIES:
                truncated = True
                break
            line = _line(points, groups, name, rest, x_axis.position, divisor, bounds)
            if line is None:
                continue
            label = entity
            if rest:
                label += " · " + ", ".join(
                    f"{p}={unquote(v)}" for p, v in zip(params[1:], rest, strict=True)
                )
            _draw(ax, line, label)
            counts += line.counts
            series += 1
    if not series:
        return ""
    what = f"{group.entity} {column.header} against {x_axis.parameter}"
    _label_axes(ax, x_axis, column.header, y_unit)
    figure_style.set_title(fig, what, "mean over seeds")
    if series > 1:
        figure_style.legend(ax, fontsize=7.5)
    band = seed_bands.describe(counts, bounds)
    caption = f"{what[0].upper() + what[1:]}: mean over seeds; {band}."
    if truncated:
        caption += f" Only the first {MAX_SERIES} series are drawn."
    alt = f"{group.prefix} {column.header} vs {x_axis.parameter}"
    return figure_html(fig, alt, caption)


@dataclass(frozen=True)
class _Line:
    x: np.ndarray
    mean: np.ndarray
    low: np.ndarray
    high: np.ndarray
    counts: list[int]  # seeds per point


def _line(
    points: list[tuple],
    groups: dict[tuple, pd.DataFrame],
    name: str,
    rest: tuple,
    position: dict[str, float],
    divisor: float,
    bounds: seed_bands.Bounds,
) -> _Line | None:
    """Summary column `name` over the points whose other parameters are
    `rest`, in x order: the mean over seeds and its band, divided by
    `divisor`; None when it has no point."""
    x, bands = [], []
    for point in points:
        if point[1:] != rest:
            continue
        band = seed_band(groups[point][name], bounds)
        if fmt.is_missing(band.mean) or fmt.is_missing(position[point[0]]):
            continue
        x.append(position[point[0]])
        bands.append(band)
    if not x:
        return None
    order = np.argsort(x, kind="stable")
    ordered = [bands[i] for i in order]
    return _Line(
        np.asarray(x)[order],
        np.array([b.mean for b in ordered]) / divisor,
        np.array([b.low for b in ordered]) / divisor,
        np.array([b.high for b in ordered]) / divisor,
        [b.n for b in ordered],
    )


def _draw(ax: Any, line: _Line, label: str) -> None:
    """The line with its bands as error bars; without bars (and without a
    bar glyph in the legend) when no point has two seeds."""
    style = {"marker": "o", "markersize": 3.5, "linewidth": 1.4, "label": label}
    if not any(n >= 2 for n in line.counts):
        ax.plot(line.x, line.mean, **style)
        return
    err = np.vstack([line.mean - line.low, line.high - line.mean])
    ax.errorbar(line.x, line.mean, yerr=err, capsize=2.5, **style)


def _label_axes(ax: Any, x_axis: _XAxis, name: str, y_unit: str) -> None:
    if not x_axis.numeric:
        ax.set_xticks(list(x_axis.position.values()), [unquote(v) for v in x_axis.position])
    ax.set_xlabel(x_axis.label)
    ax.set_ylabel(f"{name} ({y_unit})" if y_unit else name)
