# HTML reports: one self-contained page for study results and campaigns.
#
# A report is a single .html file a researcher can mail or attach to a paper
# review: CSS inline, figures embedded as base64 PNG, no script and no
# reference to anything outside the file. Sources are detected by what the
# folder holds: a study result folder (results/<study>/<study>.json, written
# by satcc.studies.framework) or a campaign folder (campaign.json plus the
# Parquet parts described in docs/campaigns.md). Campaign folders are read
# straight from their Parquet parts, de-duplicated by run key as the spec
# asks of every reader.

from __future__ import annotations

import base64
import html
import io
import json
import math
import os
import platform
import re
import traceback
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

DEFAULT_TITLE = "satcc report"

# ---------------------------------------------------------------------------
# Detecting what a folder is


class ReportError(ValueError):
    """A source that cannot be reported on (missing, or neither kind of folder)."""


def study_json(path: str | os.PathLike[str]) -> Path | None:
    """The study result JSON of `path` (a folder or the .json itself), or None.

    The framework writes <out>/<study>.json; the folder is usually named
    after the study but `--out` may name it anything, so any JSON in the
    folder whose "study" field matches its file name counts.
    """
    path = Path(path)
    if path.is_file():
        return path if path.suffix == ".json" and _is_study_document(path) else None
    if not path.is_dir():
        return None
    preferred = path / f"{path.name}.json"
    candidates = [preferred] + sorted(p for p in path.glob("*.json") if p != preferred)
    for candidate in candidates:
        if candidate.is_file() and _is_study_document(candidate):
            return candidate
    return None


def _is_study_document(path: Path) -> bool:
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return (
        isinstance(document, dict)
        and document.get("study") == path.stem
        and isinstance(document.get("checks"), list)
    )


def is_campaign(path: str | os.PathLike[str]) -> bool:
    return (Path(path) / "campaign.json").is_file()


def source_kind(path: str | os.PathLike[str]) -> str:
    """ "study" or "campaign"; ReportError when it is neither."""
    if is_campaign(path):
        return "campaign"
    if study_json(path) is not None:
        return "study"
    if not Path(path).exists():
        raise ReportError(f"{path}: no such file or folder")
    raise ReportError(
        f"{path}: neither a study result folder (with <study>.json from `satcc reproduce`) "
        "nor a campaign folder (with campaign.json)"
    )


# ---------------------------------------------------------------------------
# Small HTML helpers


def _e(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _anchor(prefix: str, name: str) -> str:
    return prefix + "-" + (re.sub(r"[^A-Za-z0-9_-]+", "-", name).strip("-") or "x")


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _g(value: Any, digits: int = 4) -> str:
    if _missing(value):
        return "n/a"
    return f"{float(value):.{digits}g}"


def _figure_html(fig: Any, alt: str, caption: str = "") -> str:
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
    cap = f"<figcaption>{_e(caption)}</figcaption>" if caption else ""
    return (
        f'<figure><img src="data:image/png;base64,{data}" alt="{_e(alt)}" '
        f'width="{width}" height="{height}">{cap}</figure>'
    )


def _new_figure(width: float, height: float) -> Any:
    # The object API with an Agg canvas: no pyplot, no global backend state,
    # safe in a headless process and in threads.
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def _style_axes(ax: Any) -> None:
    ax.grid(True, color="#e3e6ea", linewidth=0.8)
    ax.set_axisbelow(True)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    ax.tick_params(labelsize=8.5)


# ---------------------------------------------------------------------------
# Study sections


@dataclass(frozen=True)
class StudyOutcome:
    """What the summary table of a multi-study report shows for one study."""

    name: str
    title: str
    passed: int
    total: int
    anchor: str
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None and self.passed == self.total


def load_study(result_dir: str | os.PathLike[str]) -> dict[str, Any]:
    path = study_json(result_dir)
    if path is None:
        raise ReportError(f"{result_dir}: no study result (<study>.json) found")
    return json.loads(path.read_text(encoding="utf-8"))


def _judged(check: dict[str, Any]) -> bool:
    """Rows of tolerance kind "none" are shown beside the paper, not judged."""
    return check.get("tolerance_kind") != "none"


def _study_outcome(document: dict[str, Any]) -> StudyOutcome:
    checks = [c for c in document.get("checks", []) if _judged(c)]
    return StudyOutcome(
        name=document["study"],
        title=document.get("title", ""),
        passed=sum(1 for c in checks if c.get("passed")),
        total=len(checks),
        anchor=_anchor("study", document["study"]),
    )


def _registered_study(name: str) -> Any:
    try:
        from satcc.studies import STUDIES

        return STUDIES.get(name)
    except Exception:  # a report must not fail because a study module does
        return None


def _fmt_tolerance(tolerance: Any, kind: str) -> str:
    if _missing(tolerance) or kind == "none":
        return "n/a"
    if kind == "factor":
        return f"×{tolerance:g}"
    return f"{tolerance * 100:g}%" if kind == "relative" else f"±{tolerance:g}"


def _fmt_error(error: Any) -> str:
    return "n/a" if _missing(error) else f"{error * 100:+.2f}%"


def study_section(result_dir: str | os.PathLike[str]) -> str:
    """The HTML fragment for one study result folder."""
    return _study_section(load_study(result_dir))


def _study_section(document: dict[str, Any]) -> str:
    outcome = _study_outcome(document)
    checks = document.get("checks", [])
    registered = _registered_study(outcome.name)
    description = document.get("description") or getattr(registered, "description", "")
    quick_note = document.get("quick_note") or getattr(registered, "quick_note", "")
    seeds = document.get("seeds") or []
    status = _status_badge(outcome.ok)
    parts = [
        f'<section class="study" id="{_e(outcome.anchor)}">',
        f"<h2>{_e(outcome.name)}: {_e(outcome.title)} {status}</h2>",
    ]
    if document.get("paper"):
        parts.append(f'<p class="paper">{_e(document["paper"])}</p>')
    if description:
        parts.append(f'<p class="description">{_e(description)}</p>')
    facts = [
        ("checks within tolerance", f"{outcome.passed} / {outcome.total}"),
        ("seeds", ", ".join(str(s) for s in seeds) or "n/a"),
        ("mode", "quick (demo)" if document.get("quick") else "full"),
        ("satcc", document.get("satcc_version", "n/a")),
    ]
    parts.append(_facts(facts))
    if document.get("quick") and quick_note:
        parts.append(f'<p class="note">Quick mode: {_e(quick_note)}</p>')
    sources = list(dict.fromkeys(str(c.get("source", "")) for c in checks))
    parts.append(_checks_table(checks, sources))
    parts.append(
        '<p class="caption">Measured: mean over seeds, ± half-width of the 95% Student-t '
        "confidence interval (n/a with one seed). Error: (measured − published) / |published|. "
        "A check passes when |measured − published| ≤ allowed, fixed in the study before "
        "running it.</p>"
    )
    figure = _study_figure(outcome.name, checks)
    if figure:
        parts.append(figure)
    parts.append('<h3>Sources</h3><ol class="sources">')
    parts.extend(f"<li>{_e(source)}</li>" for source in sources)
    parts.append("</ol></section>")
    return "\n".join(parts)


def _status_badge(ok: bool, error: bool = False) -> str:
    if error:
        return '<span class="badge fail">ERROR</span>'
    return '<span class="badge pass">PASS</span>' if ok else '<span class="badge fail">FAIL</span>'


def _facts(facts: Iterable[tuple[str, str]]) -> str:
    items = "".join(f"<div><dt>{_e(k)}</dt><dd>{_e(v)}</dd></div>" for k, v in facts)
    return f'<dl class="facts">{items}</dl>'


def _checks_table(checks: list[dict[str, Any]], sources: list[str]) -> str:
    head = (
        "<tr><th>run</th><th>metric</th><th class=num>published</th><th class=num>measured</th>"
        "<th class=num>±95% CI</th><th class=num>error</th><th class=num>tolerance</th>"
        "<th class=num>allowed</th><th>kind</th><th>verdict</th><th>src</th><th>notes</th></tr>"
    )
    rows = []
    for c in checks:
        passed = bool(c.get("passed"))
        verdict = ("PASS" if passed else "FAIL") if _judged(c) else "shown"
        css = ("pass" if passed else "fail") if _judged(c) else "shown"
        params = c.get("params") or ""
        rows.append(
            f'<tr class="{css}">'
            f'<td title="{_e(params)}">{_e(c.get("label", ""))}</td>'
            f"<td><code>{_e(c.get('metric', ''))}</code></td>"
            f"<td class=num>{_g(c.get('published'))}</td>"
            f"<td class=num>{_g(c.get('measured'))}</td>"
            f"<td class=num>{_g(c.get('ci_half_width'), 2)}</td>"
            f"<td class=num>{_fmt_error(c.get('error'))}</td>"
            f"<td class=num>{_fmt_tolerance(c.get('tolerance'), c.get('tolerance_kind', ''))}</td>"
            f"<td class=num>{_g(c.get('allowed'), 3)}</td>"
            f"<td>{_e(c.get('kind', ''))}</td>"
            f'<td class="verdict">{verdict}</td>'
            f"<td>[{sources.index(str(c.get('source', ''))) + 1}]</td>"
            f'<td class="notes">{_e(c.get("notes") or "")}</td></tr>'
        )
    return (
        '<div class="scroll"><table class="checks"><thead>'
        + head
        + "</thead><tbody>"
        + "".join(rows)
        + "</tbody></table></div>"
    )


def _study_figure(name: str, checks: list[dict[str, Any]]) -> str:
    """A forest plot: measured / published per check, with the CI and the
    tolerance band; one row per check (values of different checks differ by
    orders of magnitude, so the ratio is what can share an axis)."""
    rows = [
        c
        for c in checks
        if not _missing(c.get("published"))
        and c["published"] != 0
        and not _missing(c.get("measured"))
    ]
    if not rows:
        return ""
    n = len(rows)
    fig = _new_figure(8.0, 1.0 + 0.27 * n)
    ax = fig.add_subplot()
    y = np.arange(n)[::-1]
    for yi, c in zip(y, rows, strict=True):
        published = abs(float(c["published"]))
        if c.get("tolerance_kind") == "factor":
            low, high = 1 / float(c["tolerance"]), float(c["tolerance"])
        else:
            band = float(c["allowed"]) / published if not _missing(c.get("allowed")) else 0.0
            low, high = 1 - band, 1 + band
        ax.barh(yi, high - low, left=low, height=0.6, color="#dfe7f1", edgecolor="none")
        ratio = float(c["measured"]) / float(c["published"])
        ci = c.get("ci_half_width")
        xerr = None if _missing(ci) else abs(float(ci) / published)
        color = ("#1a7f37" if c.get("passed") else "#c62828") if _judged(c) else "#78909c"
        ax.errorbar(
            ratio,
            yi,
            xerr=xerr,
            fmt="o",
            color=color,
            markersize=4.5,
            elinewidth=1.3,
            capsize=2.5,
        )
    ax.axvline(1.0, color="#37474f", linewidth=1.0, linestyle="--")
    ax.set_yticks(y, [f"{c['label']} · {c['metric']}" for c in rows], fontsize=8)
    ax.set_ylim(-0.7, n - 0.3)
    ax.set_xlabel("measured / published (dashed: published; shaded: tolerance)", fontsize=9)
    _style_axes(ax)
    ax.grid(False, axis="y")
    ax.set_title(f"{name}: measured vs published", fontsize=10, loc="left")
    skipped = len(checks) - n
    caption = (
        "Each row is one check: the dot is the measured mean divided by the published value "
        "(green: pass, red: fail), the bar its 95% confidence interval, the shaded band the "
        "tolerance."
    )
    if skipped:
        caption += f" {skipped} check(s) with a published value of 0 are in the table only."
    return _figure_html(fig, f"{name}: measured / published per check", caption)


def _study_error_section(name: str, title: str, anchor: str, error: str, detail: str) -> str:
    return (
        f'<section class="study" id="{_e(anchor)}">'
        f"<h2>{_e(name)}: {_e(title)} {_status_badge(False, error=True)}</h2>"
        f'<p class="error">The study did not complete: {_e(error)}</p>'
        f"<details><summary>traceback</summary><pre>{_e(detail)}</pre></details></section>"
    )


# ---------------------------------------------------------------------------
# Campaign sections

# The summary figures a campaign report shows, per entity kind; the others
# stay in the store (satcc results). (suffix, label, how to show it)
MAIN_METRICS: dict[str, list[tuple[str, str, str]]] = {
    "flows": [
        ("throughput_bps", "throughput", "rate"),
        ("delay_mean_s", "mean delay", "time"),
        ("delay_p99_s", "p99 delay", "time"),
        ("loss_rate", "loss", "percent"),
    ],
    "tcp": [
        ("goodput_bps", "goodput", "rate"),
        ("srtt_s", "smoothed RTT", "time"),
        ("retransmissions", "retransmissions", "number"),
    ],
    "links": [
        ("utilisation", "utilisation", "percent"),
        ("queue_mean_packets", "mean queue (packets)", "number"),
        ("wait_mean_s", "mean wait", "time"),
        ("drops", "drops", "number"),
    ],
}
GROUP_TITLES = {"flows": "Flows", "tcp": "TCP connections", "links": "Links"}
ENTITY_NAMES = {"flows": "flow", "tcp": "connection", "links": "link"}
MAX_SERIES = 12
_PART = re.compile(r"^part-(\d+)\.parquet$")
# The value shown for a parameter a run did not sweep (a key added to the
# campaign by a later sweep): the base description's value applies.
UNSET = "(base)"


def _read_parts(folder: Path) -> pd.DataFrame:
    """Every Parquet part of one table, in part order; temporary files skipped."""
    if not folder.is_dir():
        return pd.DataFrame()
    parts = [(m, p) for p in folder.iterdir() if (m := _PART.match(p.name))]
    files = [p for m, p in sorted(parts, key=lambda mp: int(mp[0].group(1)))]
    frames = [pd.read_parquet(p) for p in files]
    frames = [f for f in frames if len(f.columns)]
    if not frames:
        return pd.DataFrame()
    return pd.concat(frames, ignore_index=True, sort=False)


@dataclass
class CampaignData:
    meta: dict[str, Any]
    parameters: list[str]
    runs: pd.DataFrame  # one row per key: its ok row when there is one, else its last failure
    summary: pd.DataFrame  # ok runs joined with their summary columns


def load_campaign(campaign_dir: str | os.PathLike[str]) -> CampaignData:
    folder = Path(campaign_dir)
    try:
        meta = json.loads((folder / "campaign.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise ReportError(f"{folder}: cannot read campaign.json: {e}") from e
    runs = _read_parts(folder / "runs")
    if len(runs):
        runs = runs.assign(_ok=runs["status"].eq("ok"))
        # A key may appear twice (re-run after a failure, or a crash during
        # compaction): its ok row wins, the latest one of equals.
        runs = runs.sort_values("_ok", kind="stable").drop_duplicates("key", keep="last")
        runs = runs.drop(columns="_ok").sort_index().reset_index(drop=True)
    # The swept keys: campaign.json's, then any that a later sweep added.
    parameters = list(meta.get("parameters") or [])
    for column in runs.columns:
        if column.startswith("param.") and column[len("param.") :] not in parameters:
            parameters.append(column[len("param.") :])
    for p in parameters:
        if f"param.{p}" in runs:
            column = runs[f"param.{p}"]
            runs[f"param.{p}"] = column.astype(object).where(column.notna(), UNSET).astype(str)
    summary = _read_parts(folder / "summary")
    if len(summary) and len(runs):
        summary = summary.drop_duplicates("key", keep="last")
        ok = runs[runs["status"] == "ok"]
        keep = ["key", "seed"] + [f"param.{p}" for p in parameters if f"param.{p}" in ok]
        summary = ok[keep].merge(summary, on="key", how="inner", suffixes=("", ".summary"))
    else:
        summary = pd.DataFrame()
    return CampaignData(meta=meta, parameters=parameters, runs=runs, summary=summary)


def _main_columns(summary: pd.DataFrame) -> dict[str, list[tuple[str, str, str, str]]]:
    """{group: [(column, entity, suffix, label, kind)]} for the main metrics present."""
    found: dict[str, list] = {}
    for group, metrics in MAIN_METRICS.items():
        for suffix, label, kind in metrics:
            pattern = re.compile(rf"^{group}\.([^.]+)\.{re.escape(suffix)}$")
            for column in summary.columns:
                m = pattern.match(column)
                if m and pd.api.types.is_numeric_dtype(summary[column]):
                    found.setdefault(group, []).append((column, m.group(1), suffix, label, kind))
    return found


def _unquote(value: Any) -> str:
    text = "" if value is None else str(value)
    if len(text) >= 2 and text[0] == text[-1] == '"':
        return text[1:-1]
    return text


def _numeric_axis(values: Sequence[str]) -> tuple[dict[str, float], str] | None:
    """Map parameter values (strings) to numbers, with an axis unit, when they all
    parse the same way: plain numbers, rates, times or sizes; else None."""
    from satcc import units

    texts = {v: _unquote(v) for v in values if v != UNSET}
    parsers: list[tuple[Callable[[str], float], list[tuple[float, str]]]] = [
        (float, [(1.0, "")]),
        (
            units.parse_rate,
            [(1e9, "Gbps"), (1e6, "Mbps"), (1e3, "kbps"), (1.0, "bps")],
        ),
        (
            lambda t: units.parse_time(t) / 1e12,
            [(1.0, "s"), (1e-3, "ms"), (1e-6, "µs"), (1e-9, "ns")],
        ),
        (units.parse_size, [(1e9, "GB"), (1e6, "MB"), (1e3, "kB"), (1.0, "B")]),
    ]
    for parse, scales in parsers:
        try:
            numbers = {v: float(parse(t)) for v, t in texts.items()}
        except (ValueError, TypeError, ArithmeticError):
            continue
        if not all(math.isfinite(x) for x in numbers.values()):
            continue
        top = max((abs(x) for x in numbers.values()), default=0.0)
        factor, unit = next(((f, u) for f, u in scales if top >= f), scales[-1])
        scaled = {v: x / factor for v, x in numbers.items()}
        scaled.update((v, math.nan) for v in values if v == UNSET)
        return scaled, unit
    return None


def _point_sort_key(parameters: list[str], frame: pd.DataFrame) -> Callable[[tuple], tuple]:
    axes = {}
    for p in parameters:
        axis = _numeric_axis(list(frame[f"param.{p}"].dropna().unique()))
        axes[p] = axis[0] if axis else None

    def key(point: tuple) -> tuple:
        out = []
        for p, value in zip(parameters, point, strict=True):
            numbers = axes[p]
            if value == UNSET:
                out.append((2, 0.0, ""))
            elif numbers:
                out.append((0, numbers[value], ""))
            else:
                out.append((1, 0.0, str(value)))
        return tuple(out)

    return key


def _aggregate_points(data: CampaignData) -> tuple[list[tuple], dict[tuple, pd.DataFrame]]:
    """Parameter points in sorted order and the ok runs of each."""
    summary = data.summary
    params = [f"param.{p}" for p in data.parameters if f"param.{p}" in summary]
    if not params:
        return [()], {(): summary}
    groups = {
        (k if isinstance(k, tuple) else (k,)): g
        for k, g in summary.groupby(params, sort=False, dropna=False)
    }
    present = [p for p in data.parameters if f"param.{p}" in summary]
    points = sorted(groups, key=_point_sort_key(present, summary))
    return points, groups


def _mean_ci(values: pd.Series) -> tuple[float, float, int]:
    from satcc.studies.framework import confidence_half_width

    x = pd.to_numeric(values, errors="coerce").to_numpy(dtype=float)
    x = x[np.isfinite(x)]
    if not len(x):
        return math.nan, math.nan, 0
    return float(x.mean()), confidence_half_width(x), len(x)


def _scale(kind: str, top: float) -> tuple[float, str]:
    """(divisor, unit) to show values of one kind whose largest magnitude is `top`."""
    top = 0.0 if _missing(top) else abs(top)
    if kind == "rate":
        for factor, unit in ((1e9, "Gbps"), (1e6, "Mbps"), (1e3, "kbps")):
            if top >= factor:
                return factor, unit
        return 1.0, "bps"
    if kind == "time":
        for factor, unit in ((1.0, "s"), (1e-3, "ms"), (1e-6, "µs")):
            if top >= factor:
                return factor, unit
        return 1e-6, "µs" if top else "s"
    if kind == "percent":
        return 0.01, "%"
    return 1.0, ""


def _fmt_mean_ci(mean: float, ci: float, factor: float) -> str:
    if _missing(mean):
        return "n/a"
    text = f"{mean / factor:.4g}"
    if not _missing(ci):
        text += f" ± {ci / factor:.2g}"
    return text


def campaign_section(campaign_dir: str | os.PathLike[str]) -> str:
    """The HTML fragment for one campaign folder."""
    folder = Path(campaign_dir)
    data = load_campaign(folder)
    meta = data.meta
    name = str(meta.get("scenario") or folder.name)
    anchor = _anchor("campaign", folder.name)
    runs = data.runs
    n_ok = int((runs["status"] == "ok").sum()) if len(runs) else 0
    failed = runs[runs["status"] != "ok"] if len(runs) else runs
    parts = [
        f'<section class="campaign" id="{_e(anchor)}">',
        f"<h2>Campaign: {_e(name)}</h2>",
        f'<p class="paper">{_e(folder.resolve())}</p>',
    ]
    versions = sorted(set(runs["satcc_version"].dropna().astype(str))) if len(runs) else []
    seeds = sorted(set(runs["seed"].dropna().astype(int))) if len(runs) else []
    wall = float(runs["wall_s"].sum()) if "wall_s" in runs and len(runs) else math.nan
    facts = [
        ("scenario", name),
        ("satcc (campaign)", str(meta.get("satcc_version", "n/a"))),
        ("satcc (runs)", ", ".join(versions) or "n/a"),
        ("created", str(meta.get("created", "n/a"))),
        ("swept parameters", ", ".join(data.parameters) or "none"),
        ("seeds", _seed_ranges(seeds)),
        ("runs ok", str(n_ok)),
        ("runs failed", str(len(failed))),
        ("total run time", "n/a" if _missing(wall) else f"{wall:,.3g} s"),
    ]
    parts.append(_facts(facts))
    if len(versions) > 1:
        parts.append(
            '<p class="note">This campaign mixes results of several satcc versions '
            "(written with --allow-version-mix).</p>"
        )
    if data.parameters and len(runs):
        parts.append(_parameter_values(data))
    if len(failed):
        parts.append(_failures_table(data, failed))
    base = meta.get("base_description")
    if base is not None:
        parts.append(
            "<details><summary>base description (before the sweep's changes)</summary>"
            f"<pre>{_e(json.dumps(base, indent=2, sort_keys=True, default=str))}</pre></details>"
        )
    if not len(data.summary):
        parts.append('<p class="note">No successful run with a summary yet.</p></section>')
        return "\n".join(parts)
    main = _main_columns(data.summary)
    if not main:
        parts.append(
            '<p class="note">None of the main summary figures (flows, TCP, links) '
            "is in this campaign's summary.</p></section>"
        )
        return "\n".join(parts)
    points, groups = _aggregate_points(data)
    for group, columns in main.items():
        parts.append(f"<h3>{_e(GROUP_TITLES[group])}</h3>")
        parts.append(_campaign_table(data, group, columns, points, groups))
    parts.append(
        '<p class="caption">Each cell: mean over seeds ± half-width of the 95% Student-t '
        "confidence interval (no ± with one seed); n is the number of seeds.</p>"
    )
    figures = _campaign_figures(data, main, points, groups)
    if figures:
        parts.append('<h3>Figures</h3><div class="figures">' + "".join(figures) + "</div>")
    parts.append("</section>")
    return "\n".join(parts)


def _seed_ranges(seeds: list[int]) -> str:
    if not seeds:
        return "n/a"
    ranges, start, prev = [], seeds[0], seeds[0]
    for s in seeds[1:] + [None]:
        if s is not None and s == prev + 1:
            prev = s
            continue
        ranges.append(str(start) if start == prev else f"{start}..{prev}")
        if s is not None:
            start = prev = s
    return ", ".join(ranges) + f" ({len(seeds)})"


def _parameter_values(data: CampaignData) -> str:
    rows = []
    for p in data.parameters:
        column = f"param.{p}"
        if column not in data.runs:
            continue
        values = list(data.runs[column].dropna().astype(str).unique())
        axis = _numeric_axis(values)
        if axis:
            values.sort(key=lambda v: (math.isnan(axis[0][v]), axis[0][v]))
        rows.append(
            f"<tr><td><code>{_e(p)}</code></td><td>{_e(', '.join(values))}</td>"
            f"<td class=num>{len(values)}</td></tr>"
        )
    return (
        '<table class="params"><thead><tr><th>parameter</th><th>values</th>'
        "<th class=num>count</th></tr></thead><tbody>" + "".join(rows) + "</tbody></table>"
    )


def _failures_table(data: CampaignData, failed: pd.DataFrame, limit: int = 20) -> str:
    rows = []
    for r in failed.head(limit).itertuples(index=False):
        r = r._asdict()
        error = str(r.get("error") or "")
        rows.append(
            f"<tr><td><code>{_e(r.get('key', ''))}</code></td><td>{_e(r.get('params', ''))}</td>"
            f"<td class=num>{_e(r.get('seed', ''))}</td>"
            f'<td class="notes">{_e(error[:500])}</td></tr>'
        )
    more = (
        f'<p class="note">… and {len(failed) - limit} more failed runs.</p>'
        if len(failed) > limit
        else ""
    )
    return (
        '<h3>Failed runs</h3><div class="scroll"><table class="failures"><thead><tr>'
        "<th>key</th><th>parameters</th><th class=num>seed</th><th>error</th></tr></thead>"
        "<tbody>" + "".join(rows) + "</tbody></table></div>" + more
    )


def _campaign_table(
    data: CampaignData,
    group: str,
    columns: list[tuple[str, str, str, str, str]],
    points: list[tuple],
    groups: dict[tuple, pd.DataFrame],
) -> str:
    params = [p for p in data.parameters if f"param.{p}" in data.summary]
    entities = list(dict.fromkeys(entity for _, entity, *_ in columns))
    metrics = list(dict.fromkeys((suffix, label, kind) for _, _, suffix, label, kind in columns))
    by_key = {(entity, suffix): column for column, entity, suffix, _, _ in columns}
    scales = {}
    for suffix, _, kind in metrics:
        cols = [c for c, _, s, _, _ in columns if s == suffix]
        top = np.nanmax(np.abs(data.summary[cols].to_numpy(dtype=float))) if cols else 0.0
        scales[suffix] = _scale(kind, float(top) if np.isfinite(top) else 0.0)
    head = "".join(f"<th><code>{_e(p)}</code></th>" for p in params)
    head += f"<th>{ENTITY_NAMES[group]}</th><th class=num>n</th>"
    for suffix, label, _ in metrics:
        unit = scales[suffix][1]
        head += f"<th class=num>{_e(label)}{f' ({_e(unit)})' if unit else ''}</th>"
    rows = []
    for point in points:
        runs = groups[point]
        for i, entity in enumerate(entities):
            cells = []
            n_max = 0
            for suffix, _, _ in metrics:
                column = by_key.get((entity, suffix))
                if column is None:
                    cells.append("<td class=num>—</td>")
                    continue
                mean, ci, n = _mean_ci(runs[column])
                n_max = max(n_max, n)
                cells.append(f"<td class=num>{_fmt_mean_ci(mean, ci, scales[suffix][0])}</td>")
            first = ' class="point"' if i == 0 else ""
            param_cells = "".join(f"<td>{_e(_unquote(v))}</td>" for v in point)
            rows.append(
                f"<tr{first}>{param_cells}<td>{_e(entity)}</td>"
                f"<td class=num>{n_max}</td>{''.join(cells)}</tr>"
            )
    return (
        f'<div class="scroll"><table class="summary {group}"><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div>"
    )


def _campaign_figures(
    data: CampaignData,
    main: dict[str, list[tuple[str, str, str, str, str]]],
    points: list[tuple],
    groups: dict[tuple, pd.DataFrame],
) -> list[str]:
    """One figure per main metric against the first swept parameter; one line
    per entity and combination of the other parameters."""
    params = [p for p in data.parameters if f"param.{p}" in data.summary]
    if not params:
        return []
    first = params[0]
    xs = list(dict.fromkeys(point[0] for point in points))
    axis = _numeric_axis(xs)
    if axis:
        position, unit = axis
        x_label = f"{first} ({unit})" if unit else first
    else:
        position, unit = {v: float(i) for i, v in enumerate(xs)}, ""
        x_label = first
    figures = []
    for group, columns in main.items():
        metrics = list(
            dict.fromkeys((suffix, label, kind) for _, _, suffix, label, kind in columns)
        )
        for suffix, label, kind in metrics:
            cols = [(c, entity) for c, entity, s, _, _ in columns if s == suffix]
            top = np.nanmax(np.abs(data.summary[[c for c, _ in cols]].to_numpy(dtype=float)))
            factor, y_unit = _scale(kind, float(top) if np.isfinite(top) else 0.0)
            fig = _new_figure(5.6, 3.4)
            ax = fig.add_subplot()
            series = 0
            truncated = False
            rest_values = list(dict.fromkeys(point[1:] for point in points))
            for column, entity in cols:
                for rest in rest_values:
                    if series >= MAX_SERIES:
                        truncated = True
                        break
                    x, y, err = [], [], []
                    for point in points:
                        if point[1:] != rest:
                            continue
                        mean, ci, _ = _mean_ci(groups[point][column])
                        if _missing(mean) or _missing(position[point[0]]):
                            continue
                        x.append(position[point[0]])
                        y.append(mean / factor)
                        err.append(0.0 if _missing(ci) else ci / factor)
                    if not x:
                        continue
                    order = np.argsort(x, kind="stable")
                    name = entity
                    if rest:
                        name += " · " + ", ".join(
                            f"{p}={_unquote(v)}" for p, v in zip(params[1:], rest, strict=True)
                        )
                    ax.errorbar(
                        np.asarray(x)[order],
                        np.asarray(y)[order],
                        yerr=np.asarray(err)[order],
                        marker="o",
                        markersize=3.5,
                        linewidth=1.4,
                        capsize=2.5,
                        label=name,
                    )
                    series += 1
            if not series:
                continue
            if not axis:
                ax.set_xticks(list(position.values()), [_unquote(v) for v in position])
            ax.set_xlabel(x_label, fontsize=9)
            ax.set_ylabel(f"{label} ({y_unit})" if y_unit else label, fontsize=9)
            ax.set_title(f"{ENTITY_NAMES[group]} {label}", fontsize=10, loc="left")
            _style_axes(ax)
            if series > 1:
                ax.legend(fontsize=7.5, frameon=False)
            caption = f"{ENTITY_NAMES[group]} {label} vs {first}: mean over seeds, bars 95% CI."
            if truncated:
                caption += f" Only the first {MAX_SERIES} series are drawn."
            figures.append(_figure_html(fig, f"{group} {label} vs {first}", caption))
    return figures


# ---------------------------------------------------------------------------
# The page


CSS = """
:root { --fg:#1f2328; --muted:#59636e; --line:#d1d9e0; --bg:#ffffff; --head:#f6f8fa;
  --pass:#1a7f37; --pass-bg:#e8f5ec; --fail:#c62828; --fail-bg:#fdecea; --accent:#0b5cad; }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg);
  font: 14px/1.45 "DejaVu Sans", "Liberation Sans", Helvetica, Arial, sans-serif; }
main { max-width: 1180px; margin: 0 auto; padding: 28px 32px 48px; }
header { border-bottom: 2px solid var(--fg); margin-bottom: 20px; padding-bottom: 10px; }
h1 { font-size: 24px; margin: 0 0 8px; }
h2 { font-size: 19px; margin: 34px 0 6px; padding-top: 14px; border-top: 1px solid var(--line); }
header + section > h2 { border-top: none; padding-top: 0; margin-top: 22px; }
h3 { font-size: 15px; margin: 20px 0 6px; }
p { margin: 6px 0; }
code, pre { font-family: "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: 12px; }
pre { background: var(--head); padding: 10px; overflow-x: auto; border: 1px solid var(--line); }
.paper { color: var(--muted); font-style: italic; }
.description { max-width: 900px; white-space: pre-line; }
.note { color: #8a5a00; }
.error { color: var(--fail); font-weight: bold; }
.caption, figcaption { color: var(--muted); font-size: 12px; }
dl.facts { display: flex; flex-wrap: wrap; gap: 4px 22px; margin: 8px 0 12px; }
dl.facts div { display: flex; gap: 6px; }
dl.facts dt { color: var(--muted); }
dl.facts dd { margin: 0; font-weight: 600; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; margin: 8px 0; font-size: 12.5px; }
th, td { border-bottom: 1px solid var(--line); padding: 4px 9px; text-align: left;
  vertical-align: top; }
thead th { background: var(--head); border-bottom: 2px solid var(--line); white-space: nowrap; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.notes { color: var(--muted); font-size: 11.5px; max-width: 260px; }
tr.pass td.verdict { color: var(--pass); background: var(--pass-bg); font-weight: bold; }
tr.fail td.verdict { color: var(--fail); background: var(--fail-bg); font-weight: bold; }
tr.shown td.verdict { color: #607d8b; }
tr.fail td { background: #fff7f6; }
tr.point td { border-top: 2px solid var(--line); }
.badge { display: inline-block; font-size: 12px; font-weight: bold; padding: 1px 8px;
  border-radius: 10px; vertical-align: middle; margin-left: 6px; }
.badge.pass { color: var(--pass); background: var(--pass-bg); border: 1px solid var(--pass); }
.badge.fail { color: var(--fail); background: var(--fail-bg); border: 1px solid var(--fail); }
table.overview td.status { font-weight: bold; }
table.overview tr.pass td.status { color: var(--pass); }
table.overview tr.fail td.status { color: var(--fail); }
a { color: var(--accent); }
figure { margin: 14px 0; }
figure img { max-width: 100%; height: auto; display: block; }
.figures { display: flex; flex-wrap: wrap; gap: 8px 24px; }
.figures figure { flex: 0 1 540px; }
ol.sources { font-size: 12.5px; padding-left: 24px; }
footer { margin-top: 40px; color: var(--muted); font-size: 12px; border-top: 1px solid var(--line);
  padding-top: 8px; }
@media print { main { max-width: none; padding: 0; } section { break-inside: auto; }
  figure, tr { break-inside: avoid; } .scroll { overflow: visible; } }
"""


def _machine() -> str:
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return (
        f"{platform.node() or 'unknown host'} ({platform.system()} {platform.release()}, "
        f"{platform.machine()}, {cpus} CPUs, Python {platform.python_version()})"
    )


def _satcc_version() -> str:
    try:
        from satcc._core import version

        return str(version())
    except Exception:  # the report is still useful without it
        return "unknown"


@dataclass(frozen=True)
class _Item:
    kind: str  # "study" | "campaign" | "study-error"
    html: str
    outcome: StudyOutcome | None = None


def _item_for(source: Path) -> _Item:
    kind = source_kind(source)
    if kind == "campaign":
        return _Item("campaign", campaign_section(source))
    document = load_study(source)
    return _Item("study", _study_section(document), _study_outcome(document))


def _overview(outcomes: list[StudyOutcome]) -> str:
    rows = []
    for o in outcomes:
        status = "ERROR" if o.error else ("PASS" if o.ok else "FAIL")
        checks = "—" if o.error else f"{o.passed} / {o.total}"
        rows.append(
            f'<tr class="{"pass" if o.ok else "fail"}">'
            f'<td><a href="#{_e(o.anchor)}">{_e(o.name)}</a></td><td>{_e(o.title)}</td>'
            f'<td class=num>{checks}</td><td class="status">{status}</td></tr>'
        )
    passed = sum(o.passed for o in outcomes)
    total = sum(o.total for o in outcomes)
    n_ok = sum(o.ok for o in outcomes)
    return (
        "<h2>Summary</h2>"
        f"<p>{n_ok} of {len(outcomes)} studies fully within tolerance; "
        f"{passed} of {total} checks pass.</p>"
        '<table class="overview"><thead><tr><th>study</th><th>title</th>'
        "<th class=num>checks passed</th><th>status</th></tr></thead><tbody>"
        + "".join(rows)
        + "</tbody></table>"
    )


def render_page(items: Sequence[_Item], title: str = DEFAULT_TITLE) -> str:
    outcomes = [i.outcome for i in items if i.outcome is not None]
    now = datetime.now().astimezone()
    facts = [
        ("satcc", _satcc_version()),
        ("generated", now.strftime("%Y-%m-%d %H:%M:%S %Z").strip()),
        ("machine", _machine()),
    ]
    body = [
        "<header>",
        f"<h1>{_e(title)}</h1>",
        _facts(facts),
        "</header>",
    ]
    if len(outcomes) > 1:
        body.append(_overview(outcomes))
    body.extend(item.html for item in items)
    body.append(
        "<footer>Generated by <code>satcc report</code>. Self-contained: figures are embedded, "
        "nothing is loaded from the network.</footer>"
    )
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta name="generator" content="satcc">\n'
        f"<title>{_e(title)}</title>\n<style>{CSS}</style>\n</head>\n"
        "<body>\n<main>\n" + "\n".join(body) + "\n</main>\n</body>\n</html>\n"
    )


def write_report(
    sources: Sequence[str | os.PathLike[str]],
    out: str | os.PathLike[str],
    title: str = DEFAULT_TITLE,
) -> Path:
    """Write one self-contained HTML page for `sources` (study result folders
    and campaign folders, detected by content) to `out`, atomically."""
    from satcc.studies.framework import write_atomic

    if not sources:
        raise ReportError("nothing to report: no study result or campaign folder given")
    items = [_item_for(Path(source)) for source in sources]
    out = Path(out)
    write_atomic(out, render_page(items, title))
    return out


def reproduce_all(
    quick: bool,
    out_dir: str | os.PathLike[str] = Path("results"),
    jobs: int | None = None,
    *,
    progress: bool = True,
    show: bool = True,
    allow_fail: bool = False,
) -> int:
    """Run every registered study into out_dir/<study>/ and write
    out_dir/report.html. 0 when every check of every study passes (or, with
    `allow_fail`, when only checks failed), else 1.

    A study that raises (a run failed, a bug in the study) does not stop the
    others: it is shown as ERROR in the report, and the result is 1.
    """
    from rich.console import Console

    from satcc.studies import STUDIES, reproduce
    from satcc.studies.framework import write_atomic

    out_dir = Path(out_dir)
    console = Console(stderr=True)
    items: list[_Item] = []
    all_passed = True
    errored = False
    for name, study in sorted(STUDIES.items()):
        study_dir = out_dir / name
        try:
            table = reproduce(
                study, quick=quick, jobs=jobs, out=study_dir, progress=progress, show=show
            )
        except Exception as e:
            errored = True
            message = f"{type(e).__name__}: {e}"
            console.print(f"[bold red]error[/]: study {name}: {message}", highlight=False)
            anchor = _anchor("study", name)
            outcome = StudyOutcome(name, study.title, 0, len(study.references), anchor, message)
            detail = traceback.format_exc()
            html_ = _study_error_section(name, study.title, anchor, message, detail)
            items.append(_Item("study-error", html_, outcome))
            continue
        judged = table[table["tolerance_kind"] != "none"]
        all_passed = all_passed and bool(judged["passed"].astype(bool).all())
        document = load_study(study_dir)
        items.append(_Item("study", _study_section(document), _study_outcome(document)))
    title = "satcc: reproduced studies" + (" (quick mode)" if quick else "")
    write_atomic(out_dir / "report.html", render_page(items, title))
    return 0 if not errored and (all_passed or allow_fail) else 1


__all__ = [
    "MAIN_METRICS",
    "ReportError",
    "campaign_section",
    "is_campaign",
    "load_campaign",
    "reproduce_all",
    "source_kind",
    "study_json",
    "study_section",
    "write_report",
]
