"""satcc's house style for figures, the studies' and the reports' alike.

One look (size, fonts, grid, spines, a colour-blind-safe colour cycle), one
title rule and one way of saving, so that figures from different studies
read the same and a figure saved twice from the same data is the same file.

- Figures use matplotlib's object API on an Agg canvas: no pyplot, no
  backend chosen for the process, nothing left open after saving. The house
  rcParams apply only while a figure is made and saved (`rc_context`), and
  everything a later call would read from the global rcParams (titles,
  legends, label sizes, the colour cycle) is set on the axes explicitly.
- Titles: sentence case "What: condition", left-aligned, one size
  (`set_title`); a panel of a multi-panel figure gets a smaller heading
  (`panel_title`). A figure's title is also its label, which saving reads.
- Saving (`save`): a PNG at `DPI` and an SVG beside it, each written beside
  its final name and renamed (a reader sees the old file or the new, never
  part of one), without software versions or dates, with the title and the
  caption in the PNG's text chunks (`Title`, `Description`) for whatever
  embeds the figure.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

DPI = 200
SIZE = (7.0, 4.4)  # inches: a single-panel study figure
TITLE_SIZE = 11.0
PANEL_TITLE_SIZE = 9.5
LABEL_SIZE = 9.5
TICK_SIZE = 8.5
LEGEND_SIZE = 8.0
GRID_COLOUR = "#dde1e6"
# Okabe and Ito's eight colours, told apart with any common colour-vision
# deficiency; yellow (#F0E442) comes last, being faint on white.
COLOURS = (
    "#0072B2",  # blue
    "#D55E00",  # vermillion
    "#009E73",  # bluish green
    "#CC79A7",  # reddish purple
    "#E69F00",  # orange
    "#56B4E9",  # sky blue
    "#000000",  # black
    "#F0E442",  # yellow
)
# Beyond eight series the colours come round again dashed.
LINESTYLES = ("-", "--")
# A fixed salt for the SVG's element ids: without it they are random.
SVG_SALT = "satcc"

RC = {
    "font.family": "DejaVu Sans",
    "font.size": LABEL_SIZE,
    "axes.titlesize": TITLE_SIZE,
    "axes.labelsize": LABEL_SIZE,
    "xtick.labelsize": TICK_SIZE,
    "ytick.labelsize": TICK_SIZE,
    "legend.fontsize": LEGEND_SIZE,
    "lines.linewidth": 1.5,
    "lines.markersize": 4.5,
    "errorbar.capsize": 2.5,
    "svg.fonttype": "path",  # glyphs as paths: the same drawing without the font
    "svg.hashsalt": SVG_SALT,
}


@contextmanager
def house_rc() -> Iterator[None]:
    """The house rcParams for the duration of one figure's making or saving."""
    import matplotlib

    with matplotlib.rc_context(RC):
        yield


def colour_cycle() -> Any:
    from cycler import cycler

    return cycler(linestyle=list(LINESTYLES)) * cycler(color=list(COLOURS))


def new_figure(
    size: tuple[float, float] = SIZE, nrows: int = 1, ncols: int = 1, **subplots: Any
) -> tuple[Any, Any]:
    """(figure, axes) in the house style: `axes` is one Axes for a single
    panel, else the array matplotlib's `subplots` gives."""
    fig = blank_figure(*size)
    with house_rc():
        axes = fig.subplots(nrows, ncols, **subplots)
    for ax in getattr(axes, "flat", [axes]):
        style_axes(ax)
    return fig, axes


def blank_figure(width: float, height: float) -> Any:
    """A figure with no axes yet, on its own Agg canvas, laid out by
    matplotlib's constrained layout (titles, labels and legends are given
    room without a tight_layout pass)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    with house_rc():
        fig = Figure(figsize=(width, height), dpi=DPI, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def style_axes(ax: Any) -> None:
    """The house look on one Axes: light grid behind the data, no top or
    right spine, the house colour cycle and font sizes."""
    ax.set_prop_cycle(colour_cycle())
    ax.grid(True, which="major", color=GRID_COLOUR, linewidth=0.8)
    ax.set_axisbelow(True)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    ax.tick_params(labelsize=TICK_SIZE)
    ax.xaxis.label.set_size(LABEL_SIZE)
    ax.yaxis.label.set_size(LABEL_SIZE)


def title_text(what: str, condition: str = "") -> str:
    """The house title: sentence case, "What: condition"."""
    what = what.strip()
    if not what:
        raise ValueError("a figure title needs its 'what'")
    if ":" in what:
        raise ValueError(f"figure title {what!r}: the colon separates what from the condition")
    text = what[0].upper() + what[1:]
    return f"{text}: {condition.strip()}" if condition.strip() else text


def set_title(fig: Any, what: str, condition: str = "") -> str:
    """Title `fig` by the house rule: over its only Axes, left-aligned, or
    over the whole figure when it has several panels. Returns the text,
    which is also the figure's label (`save` embeds it)."""
    text = title_text(what, condition)
    axes = fig.get_axes()
    if len(axes) == 1:
        axes[0].set_title(text, loc="left", fontsize=TITLE_SIZE, wrap=True)
    else:
        fig.suptitle(text, x=0.01, ha="left", fontsize=TITLE_SIZE, wrap=True)
    fig.set_label(text)
    return text


def panel_title(ax: Any, text: str) -> None:
    """The heading of one panel of a multi-panel figure."""
    ax.set_title(text, loc="left", fontsize=PANEL_TITLE_SIZE)


def plain_log_ticks(axis: Any) -> None:
    """Tick labels of a log axis as plain numbers (0.5, 5, 50), not powers."""
    from matplotlib.ticker import FuncFormatter

    axis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))


def legend(ax: Any, **kwargs: Any) -> Any:
    """A legend in the house size, or None when nothing on `ax` is labelled."""
    if not ax.get_legend_handles_labels()[0]:
        return None
    kwargs.setdefault("fontsize", LEGEND_SIZE)
    kwargs.setdefault("frameon", False)
    return ax.legend(**kwargs)


def save(fig: Any, png: Path, caption: str) -> list[str]:
    """Write `fig` as `png` and as the SVG beside it (same stem), then let
    the figure go. The title is the one `set_title` gave; `caption` says
    what is shown. Returns the names written, PNG first."""
    title = fig.get_label()
    if not title:
        raise ValueError(f"{png}: the figure has no title (set it with figure_style.set_title)")
    if not caption.strip():
        raise ValueError(f"{png}: a saved figure needs a caption saying what it shows")
    if png.suffix != ".png":
        raise ValueError(f"{png}: a figure is saved under a .png name (the SVG goes beside it)")
    svg = png.with_suffix(".svg")
    png_meta = {"Software": None, "Title": title, "Description": caption.strip()}
    svg_meta = {"Date": None, "Creator": None, "Title": title, "Description": caption.strip()}
    with house_rc():
        _replace(png, lambda tmp: fig.savefig(tmp, format="png", dpi=DPI, metadata=png_meta))
        _replace(svg, lambda tmp: fig.savefig(tmp, format="svg", metadata=svg_meta))
    fig.clear()
    return [png.name, svg.name]


def _replace(path: Path, write: Callable[[Path], None]) -> None:
    """Run `write` on a temporary name beside `path`, then rename it over
    `path`: readers see the old file or the new one, never a part."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}-{secrets.token_hex(4)}")
    try:
        write(tmp)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
