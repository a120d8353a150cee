"""The pieces every section shares: the Jinja2 templates the page is made
of (package data in templates/, autoescaped, so a value from a result file
can never become markup), anchors, Markdown descriptions, and figures
embedded as PNG data URIs: drawn here with matplotlib, or read as a study
wrote them."""

from __future__ import annotations

import base64
import html
import io
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from markupsafe import Markup

# Figures are drawn at this resolution and shown at 96 CSS px per inch:
# sharp on high-density screens and in print.
FIGURE_DPI = 200
CSS_PX_PER_INCH = 96


@cache
def _environment() -> Any:
    import jinja2

    from satcc import fmt

    environment = jinja2.Environment(
        loader=jinja2.PackageLoader("satcc.report", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    # The one marker for a value that is not there, as in the terminal tables.
    environment.globals["missing"] = fmt.MISSING
    return environment


def render(template: str, **context: Any) -> Markup:
    """templates/<template> with `context`; strings are escaped unless they
    are Markup (HTML made by another template or by figure_html)."""
    return Markup(_environment().get_template(template).render(**context))


def esc(value: Any) -> str:
    return html.escape(str(value), quote=True)


def anchor_id(prefix: str, name: str) -> str:
    return prefix + "-" + (re.sub(r"[^A-Za-z0-9_-]+", "-", name).strip("-") or "x")


def fact_list(facts: Any) -> Markup:
    """A <dl> of (name, value) pairs, as the page header and the sections show them."""
    return render("facts.html.j2", facts=list(facts))


@cache
def _markdown() -> Any:
    from markdown_it import MarkdownIt

    # CommonMark without raw HTML (shown as text, so a description cannot
    # inject markup), and without images and links: the page loads and
    # points to nothing outside itself.
    return MarkdownIt("commonmark", {"html": False}).disable(["image", "link", "autolink"])


def markdown_html(text: str) -> Markup:
    """A study description (a docstring in Markdown) as HTML."""
    return Markup(_markdown().render(text))


def figure_html(fig: Any, alt: str, caption: str = "") -> Markup:
    """A matplotlib Figure as an <img> with a data: URI (PNG), in a <figure>."""
    buffer = io.BytesIO()
    # metadata Software=None: no matplotlib version in the PNG, so the same
    # figure gives the same bytes.
    fig.savefig(buffer, format="png", dpi=FIGURE_DPI, metadata={"Software": None})
    width_in, height_in = fig.get_size_inches()
    return render(
        "figure.html.j2",
        src=_data_uri(buffer.getvalue()),
        alt=alt,
        width=round(width_in * CSS_PX_PER_INCH),
        height=round(height_in * CSS_PX_PER_INCH),
        title="",
        caption=caption,
        file="",
    )


@dataclass(frozen=True)
class PngFile:
    """A PNG a study wrote, as the report embeds it: its bytes untouched,
    the size to show it at, and the Title and Description its text chunks
    carry ("" when absent)."""

    name: str
    data: bytes
    width: int
    height: int
    title: str
    description: str


def read_png(path: Path) -> PngFile:
    """OSError or ValueError (saying why, not naming the file) when `path`
    is not a readable PNG."""
    from PIL import Image, UnidentifiedImageError

    data = path.read_bytes()
    try:
        with Image.open(io.BytesIO(data)) as image:
            if image.format != "PNG":
                raise ValueError(f"a {image.format} image, not a PNG")
            text = dict(image.text)  # reads the chunks after the image data too
            size = image.size
            dpi = image.info.get("dpi")
    except UnidentifiedImageError as e:
        raise ValueError("not an image") from e
    # Shown at its drawn size in inches when the PNG says its resolution.
    scale = CSS_PX_PER_INCH / float(dpi[0]) if dpi and float(dpi[0]) > 0 else 1.0
    return PngFile(
        name=path.name,
        data=data,
        width=round(size[0] * scale),
        height=round(size[1] * scale),
        title=str(text.get("Title", "")).strip(),
        description=str(text.get("Description", "")).strip(),
    )


def png_figure_html(png: PngFile, fallback_title: str) -> Markup:
    """A study's PNG in a <figure>, captioned with its Title and
    Description, or with `fallback_title` when it carries neither."""
    title = png.title or ("" if png.description else fallback_title)
    return render(
        "figure.html.j2",
        src=_data_uri(png.data),
        alt=png.title or png.description or fallback_title,
        width=png.width,
        height=png.height,
        title=title,
        caption=png.description,
        file=png.name,
    )


def _data_uri(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def new_figure(width: float, height: float) -> Any:
    # satcc's house style (satcc.figure_style): the object API on an Agg
    # canvas, no pyplot and no global backend state.
    from satcc import figure_style

    return figure_style.blank_figure(width, height)


def style_axes(ax: Any) -> None:
    from satcc import figure_style

    figure_style.style_axes(ax)
