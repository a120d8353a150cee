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
    # satcc's house style (satcc.figure_style): the object API on an Agg
    # canvas, no pyplot and no global backend state.
    from satcc import figure_style

    return figure_style.blank_figure(width, height)


def style_axes(ax: Any) -> None:
    from satcc import figure_style

    figure_style.style_axes(ax)
