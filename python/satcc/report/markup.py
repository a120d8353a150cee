"""The HTML and figure pieces every section shares: escaping, anchors, fact
lists, badges, and matplotlib figures embedded as PNG data URIs."""

from __future__ import annotations

import base64
import html
import io
import re
from collections.abc import Iterable
from typing import Any


def esc(value: Any) -> str:
    return html.escape(str(value), quote=True)


def anchor_id(prefix: str, name: str) -> str:
    return prefix + "-" + (re.sub(r"[^A-Za-z0-9_-]+", "-", name).strip("-") or "x")


def status_badge(ok: bool, error: bool = False) -> str:
    if error:
        return '<span class="badge fail">ERROR</span>'
    return '<span class="badge pass">PASS</span>' if ok else '<span class="badge fail">FAIL</span>'


def fact_list(facts: Iterable[tuple[str, str]]) -> str:
    items = "".join(f"<div><dt>{esc(k)}</dt><dd>{esc(v)}</dd></div>" for k, v in facts)
    return f'<dl class="facts">{items}</dl>'


def figure_html(fig: Any, alt: str, caption: str = "") -> str:
    """A matplotlib Figure as an <img> with a data: URI (PNG), in a <figure>."""
    buffer = io.BytesIO()
    dpi = 144
    # metadata Software=None: no matplotlib version in the PNG, so the same
    # figure gives the same bytes.
    fig.savefig(buffer, format="png", dpi=dpi, metadata={"Software": None})
    width_in, height_in = fig.get_size_inches()
    data = base64.b64encode(buffer.getvalue()).decode("ascii")
    # Shown at 96 px per inch, drawn at 144 dpi: sharp on high-density screens.
    width, height = round(width_in * 96), round(height_in * 96)
    cap = f"<figcaption>{esc(caption)}</figcaption>" if caption else ""
    return (
        f'<figure><img src="data:image/png;base64,{data}" alt="{esc(alt)}" '
        f'width="{width}" height="{height}">{cap}</figure>'
    )


def new_figure(width: float, height: float) -> Any:
    # The object API with an Agg canvas: no pyplot, no global backend state,
    # safe in a headless process and in threads.
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def style_axes(ax: Any) -> None:
    ax.grid(True, color="#e3e6ea", linewidth=0.8)
    ax.set_axisbelow(True)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    ax.tick_params(labelsize=8.5)
