"""satcc's house style for figures (satcc.figure_style), the spread over
seeds that figures draw (satcc.seed_bands), the studies' figure helpers
(satcc.studies.plots) and the campaign report's bands."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from PIL import Image
from satcc import figure_style, seed_bands
from satcc.report import campaign_data, campaign_figures
from satcc.seed_bands import confidence_half_width
from satcc.studies import plots
from satcc.studies.spec import RunSpec
from satcc.summary_tables import Column


def _drawn(title: str = "Delay against load", condition: str = "two seeds"):
    fig, ax = plots.figure("offered load (Mb/s)", "delay (s)")
    ax.plot([1, 2, 3], [0.1, 0.4, 0.2], label="a line")
    ax.errorbar([1, 2, 3], [0.2, 0.3, 0.5], yerr=[0.05, 0.1, 0.02], label="with bars")
    plots.title(fig, title, condition)
    plots.legend(ax)
    return fig


# --------------------------------------------------------------- house style


def test_a_saved_figure_is_a_png_at_200_dpi_and_an_svg_with_its_title_and_caption(tmp_path):
    caption = "Delay against load, τ/Δ = 0.5. Bars: min-max over 2 seeds."
    names = plots.save_figure(_drawn(), tmp_path / "delay.png", caption)
    assert names == ["delay.png", "delay.svg"]
    with Image.open(tmp_path / "delay.png") as png:
        # pHYs holds whole pixels per metre: 200 dpi is 7874 px/m, 199.9996 dpi.
        assert round(png.info["dpi"][0]) >= 200 and round(png.info["dpi"][1]) >= 200
        assert png.text["Description"] == caption
        assert png.text["Title"] == "Delay against load: two seeds"
        assert "Software" not in png.text
        assert png.size == (1400, 880)
    svg = (tmp_path / "delay.svg").read_text(encoding="utf-8")
    assert svg.startswith("<?xml") and "</svg>" in svg
    assert "<dc:date>" not in svg and "Matplotlib" not in svg
    assert "<title>Delay against load: two seeds</title>" in svg
    # Written beside and renamed: no temporary file is left.
    assert sorted(p.name for p in tmp_path.iterdir()) == names


def test_the_same_figure_saved_twice_gives_the_same_bytes(tmp_path):
    caption = "The same data twice."
    first = plots.save_figure(_drawn(), tmp_path / "a.png", caption)
    second = plots.save_figure(_drawn(), tmp_path / "b.png", caption)
    for x, y in zip(first, second, strict=True):
        assert (tmp_path / x).read_bytes() == (tmp_path / y).read_bytes(), x
    # And the bytes do follow the data.
    fig = _drawn()
    fig.axes[0].plot([1, 2], [0.3, 0.3])
    plots.save_figure(fig, tmp_path / "c.png", caption)
    assert (tmp_path / "c.png").read_bytes() != (tmp_path / "a.png").read_bytes()
    assert (tmp_path / "c.svg").read_bytes() != (tmp_path / "a.svg").read_bytes()


def test_a_figure_without_title_or_caption_is_refused_by_its_path(tmp_path):
    fig, ax = plots.figure("x", "y")
    ax.plot([0, 1], [0, 1])
    with pytest.raises(ValueError, match=r"untitled\.png: the figure has no title"):
        plots.save_figure(fig, tmp_path / "untitled.png", "A caption.")
    plots.title(fig, "A line")
    with pytest.raises(ValueError, match=r"bare\.png: a saved figure needs a caption"):
        plots.save_figure(fig, tmp_path / "bare.png", "  ")
    with pytest.raises(ValueError, match=r"\.png name"):
        plots.save_figure(fig, tmp_path / "line.jpg", "A caption.")
    assert not list(tmp_path.iterdir())


def test_the_title_rule_is_one_sentence_case_what_and_condition():
    assert figure_style.title_text("effcap's efficiency against M", "n fixed") == (
        "Effcap's efficiency against M: n fixed"
    )
    assert figure_style.title_text("E2ED of one flow") == "E2ED of one flow"
    with pytest.raises(ValueError, match="colon"):
        figure_style.title_text("Fig. 3: E2ED", "large frame")
    with pytest.raises(ValueError, match="what"):
        figure_style.title_text(" ", "large frame")


def test_titles_are_left_aligned_and_one_size_on_one_panel_or_several():
    fig = _drawn()
    (ax,) = fig.axes
    assert ax.get_title(loc="left") == "Delay against load: two seeds"
    assert ax.title.get_fontsize() == figure_style.TITLE_SIZE
    assert ax._left_title.get_fontsize() == figure_style.TITLE_SIZE
    fig, axes = plots.figure("time (s)", "E2ED (s)", nrows=2)
    plots.panel_title(axes[0], "large frame")
    text = plots.title(fig, "fluid model against packets", "E2ED")
    assert text == fig.get_suptitle() == fig.get_label() == "Fluid model against packets: E2ED"
    assert fig._suptitle.get_fontsize() == figure_style.TITLE_SIZE
    assert fig._suptitle.get_horizontalalignment() == "left"
    # Labels on the outer edge only.
    assert axes[0].get_xlabel() == "" and axes[1].get_xlabel() == "time (s)"


def test_the_house_look_is_set_on_the_axes_not_taken_from_global_rcparams():
    import matplotlib

    before = dict(matplotlib.rcParams)
    fig, ax = plots.figure("x (s)", "y (s)")
    after = dict(matplotlib.rcParams)
    assert before == after, "making a figure changed the global rcParams"
    (line,) = ax.plot([0, 1], [0, 1])
    assert line.get_color() == figure_style.COLOURS[0]
    assert not ax.spines["top"].get_visible() and not ax.spines["right"].get_visible()
    assert ax.xaxis.label.get_fontsize() == figure_style.LABEL_SIZE
    assert fig.get_dpi() == figure_style.DPI
    # Beyond the eight colours the cycle comes round dashed.
    lines = [ax.plot([0, 1], [i, i])[0] for i in range(8)]
    assert lines[-1].get_color() == figure_style.COLOURS[0]
    assert lines[-1].get_linestyle() == "--"


def test_report_figures_share_the_house_style():
    from satcc.report.markup import new_figure, style_axes

    fig = new_figure(5.6, 3.4)
    ax = fig.add_subplot()
    style_axes(ax)
    (line,) = ax.plot([0, 1], [0, 1])
    assert line.get_color() == figure_style.COLOURS[0]
    assert ax.xaxis.label.get_fontsize() == figure_style.LABEL_SIZE
    assert tuple(fig.get_size_inches()) == (5.6, 3.4)


# --------------------------------------------------------------- seed bands


def test_few_seeds_give_their_min_max_which_a_fraction_never_leaves():
    # Two seeds near 1: the t interval (12.7 standard errors) would reach 1.3.
    values = [0.82, 0.97]
    assert np.mean(values) + confidence_half_width(values) > 1.2
    b = seed_bands.band(values, seed_bands.FRACTION)
    assert (b.low, b.mean, b.high, b.n) == (0.82, pytest.approx(0.895), 0.97, 2)


@pytest.mark.parametrize("seed", range(20))
def test_a_bounded_band_never_leaves_its_bounds(seed):
    rng = np.random.default_rng(seed)
    for n in (2, 3, 5, 8):
        values = np.clip(rng.normal(rng.uniform(0, 1), 0.4, size=n), 0.0, 1.0)
        b = seed_bands.band(values, seed_bands.FRACTION)
        assert 0.0 <= b.low <= b.mean <= b.high <= 1.0, (n, values, b)


def test_many_seeds_give_the_t_interval_cut_at_the_bound():
    values = [0.99, 0.97, 0.98, 0.80, 0.99]
    half = confidence_half_width(values)
    mean = float(np.mean(values))
    assert mean + half > 1.0  # the interval would cross 1
    b = seed_bands.band(values, seed_bands.FRACTION)
    assert b.low == pytest.approx(mean - half)
    assert b.high == 1.0
    # Where it crosses no bound it is the t interval itself.
    middle = [0.4, 0.5, 0.45, 0.55, 0.5]
    wide = seed_bands.band(middle, seed_bands.FRACTION)
    assert wide.high - wide.mean == pytest.approx(confidence_half_width(middle))


def test_one_seed_has_no_band_and_no_seed_has_no_mean():
    assert seed_bands.band([0.3, math.nan]) == seed_bands.Band(0.3, 0.3, 0.3, 1)
    empty = seed_bands.band([math.nan])
    assert empty.n == 0 and math.isnan(empty.mean) and not empty.drawn


def test_bad_bounds_are_refused():
    with pytest.raises(ValueError, match="need low < high"):
        seed_bands.band([1.0, 2.0], (1.0, 0.0))


def test_the_caption_says_what_the_bars_are():
    bounds = seed_bands.FRACTION
    assert seed_bands.describe([2, 2], bounds) == "bars: min-max over 2 seeds"
    t_text = "bars: 95 % Student-t CI over 5 seeds, cut at 0 and 1"
    assert seed_bands.describe([5], bounds) == t_text
    assert seed_bands.describe([5], seed_bands.NONNEGATIVE).endswith("cut at 0")
    assert seed_bands.describe([1, 1], bounds).startswith("one seed per point")
    mixed = seed_bands.describe([2, 3, 5], bounds)
    assert "min-max over the seeds where a point has fewer than 5 (2-3)" in mixed
    assert plots.band_caption([3], bounds) == "Bars: min-max over 3 seeds."


# --------------------------------------------------------------- study helpers


def _spec(i: int) -> RunSpec:
    return RunSpec(label=f"p{i}", scenario={}, params={"x": i})


def test_study_points_get_their_bands_and_a_single_seed_draws_no_bar_glyph(tmp_path):
    specs = [_spec(0), _spec(1)]
    summaries = {(0, 1): {"e": 0.9}, (0, 2): {"e": 0.99}, (1, 1): {"e": 0.5}}

    def metrics(summary, spec):
        return {"e": summary["e"]}

    pp = pd.DataFrame({"label": ["p0", "p1"], "x": [0, 1], "e": [0.945, 0.5]})
    pp = plots.with_seed_bands(pp, specs, summaries, metrics, {"e": seed_bands.FRACTION})
    assert pp[["e_low", "e_high", "e_n"]].values.tolist() == [[0.9, 0.99, 2], [0.5, 0.5, 1]]
    fig, ax = plots.figure("x", "efficiency")
    assert plots.banded(ax, pp, "x", "e", "two seeds") == [2, 1]
    assert plots.banded(ax, pp[pp["e_n"] == 1], "x", "e", "one seed", capsize=3) == [1]
    handles, labels = ax.get_legend_handles_labels()
    kinds = {label: type(h).__name__ for h, label in zip(handles, labels, strict=True)}
    # A line with a spread is an error-bar container; a line without is a plain line.
    assert kinds == {"two seeds": "ErrorbarContainer", "one seed": "Line2D"}
    with pytest.raises(ValueError, match="3 rows for 2 run specs"):
        plots.with_seed_bands(pd.concat([pp, pp.iloc[:1]]), specs, summaries, metrics, {})


# --------------------------------------------------------------- campaign report


def test_the_campaign_band_for_few_seeds_is_their_range_never_below_zero():
    delays = pd.Series([0.010, 0.900])  # the t interval: 0.455 ± 5.65 s
    mean, ci, n = campaign_data.seed_mean_ci(delays)
    assert n == 2 and mean - ci < 0  # what the table's ± says, beside its n
    b = campaign_data.seed_band(delays, campaign_data.column_bounds(Column("d", "d", "time")))
    assert (b.low, b.high) == (0.010, 0.900)
    many = pd.Series([0.0, 0.0, 0.0, 0.0, 0.5])
    b = campaign_data.seed_band(many, campaign_data.column_bounds(Column("d", "d", "time")))
    assert b.low == 0.0 and b.high > b.mean
    loss = campaign_data.column_bounds(Column("loss", "loss_rate", "percent"))
    assert loss == (0.0, 1.0)


def test_campaign_lines_carry_bands_within_bounds_and_say_so():
    groups = {
        ("1",): pd.DataFrame({"c": [0.01, 0.9]}),
        ("2",): pd.DataFrame({"c": [0.0, 0.0, 0.0, 0.0, 0.5]}),
        ("3",): pd.DataFrame({"c": [0.2]}),
    }
    points = [("1",), ("2",), ("3",)]
    position = {"1": 1.0, "2": 2.0, "3": 3.0}
    line = campaign_figures._line(points, groups, "c", (), position, 1.0, seed_bands.NONNEGATIVE)
    assert line.counts == [2, 5, 1]
    assert (line.low >= 0).all() and (line.low <= line.mean).all()
    assert (line.high >= line.mean).all()
    assert line.low[0] == 0.01 and line.high[0] == 0.9
    assert line.low[2] == line.high[2] == 0.2
