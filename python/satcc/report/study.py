"""The section of one study result: its facts, the checks table (published
beside measured, with the verdict), a forest plot of measured / published,
and the stand-in section of a study that raised."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any

import numpy as np

from satcc import fmt

from .markup import anchor_id, esc, fact_list, figure_html, new_figure, status_badge, style_axes
from .sources import ReportError, study_json


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


def study_section(result_dir: str | os.PathLike[str]) -> str:
    """The HTML fragment for one study result folder."""
    return render_study(load_study(result_dir))


def render_study(document: dict[str, Any]) -> str:
    outcome = study_outcome(document)
    checks = document.get("checks", [])
    registered = _registered_study(outcome.name)
    description = document.get("description") or getattr(registered, "description", "")
    quick_note = document.get("quick_note") or getattr(registered, "quick_note", "")
    status = status_badge(outcome.ok)
    parts = [
        f'<section class="study" id="{esc(outcome.anchor)}">',
        f"<h2>{esc(outcome.name)}: {esc(outcome.title)} {status}</h2>",
    ]
    if document.get("paper"):
        parts.append(f'<p class="paper">{esc(document["paper"])}</p>')
    if description:
        parts.append(f'<p class="description">{esc(description)}</p>')
    parts.append(fact_list(_facts(document, outcome)))
    if document.get("quick") and quick_note:
        parts.append(f'<p class="note">Quick mode: {esc(quick_note)}</p>')
    sources = list(dict.fromkeys(str(c.get("source", "")) for c in checks))
    parts.append(_checks_table(checks, sources))
    parts.append(
        '<p class="caption">Measured: mean over seeds, ± half-width of the 95% Student-t '
        f"confidence interval ({fmt.MISSING} with one seed). "
        "Error: (measured − published) / |published|. A check passes when "
        "|measured − published| ≤ allowed, fixed in the study before running it.</p>"
    )
    figure = _study_figure(outcome.name, checks)
    if figure:
        parts.append(figure)
    parts.append('<h3>Sources</h3><ol class="sources">')
    parts.extend(f"<li>{esc(source)}</li>" for source in sources)
    parts.append("</ol></section>")
    return "\n".join(parts)


def _facts(document: dict[str, Any], outcome: StudyOutcome) -> list[tuple[str, str]]:
    seeds = document.get("seeds") or []
    return [
        ("checks within tolerance", f"{outcome.passed} / {outcome.total}"),
        ("seeds", ", ".join(str(s) for s in seeds) or fmt.MISSING),
        ("mode", "quick (demo)" if document.get("quick") else "full"),
        ("satcc", document.get("satcc_version", fmt.MISSING)),
        ("build", document.get("satcc_build", fmt.MISSING)),
    ]


def study_outcome(document: dict[str, Any]) -> StudyOutcome:
    checks = [c for c in document.get("checks", []) if _judged(c)]
    return StudyOutcome(
        name=document["study"],
        title=document.get("title", ""),
        passed=sum(1 for c in checks if c.get("passed")),
        total=len(checks),
        anchor=anchor_id("study", document["study"]),
    )


def _judged(check: dict[str, Any]) -> bool:
    """Rows of tolerance kind "none" are shown beside the paper, not judged."""
    return check.get("tolerance_kind") != "none"


def _registered_study(name: str) -> Any:
    try:
        from satcc.studies import STUDIES

        return STUDIES.get(name)
    except Exception:  # a report must not fail because a study module does
        return None


def _checks_table(checks: list[dict[str, Any]], sources: list[str]) -> str:
    head = (
        "<tr><th>run</th><th>metric</th><th class=num>published</th><th class=num>measured</th>"
        "<th class=num>±95% CI</th><th class=num>error</th><th class=num>tolerance</th>"
        "<th class=num>allowed</th><th>kind</th><th>verdict</th><th>src</th><th>notes</th></tr>"
    )
    rows = []
    for c in checks:
        passed = bool(c.get("passed"))
        verdict = fmt.verdict(passed if _judged(c) else None)
        css = verdict.lower()
        params = c.get("params") or ""
        rows.append(
            f'<tr class="{css}">'
            f'<td title="{esc(params)}">{esc(c.get("label", ""))}</td>'
            f"<td><code>{esc(c.get('metric', ''))}</code></td>"
            f"<td class=num>{fmt.number(c.get('published'))}</td>"
            f"<td class=num>{fmt.number(c.get('measured'))}</td>"
            f"<td class=num>{fmt.number(c.get('ci_half_width'), 2)}</td>"
            f"<td class=num>{fmt.signed_percent(c.get('error'))}</td>"
            f"<td class=num>{fmt.tolerance(c.get('tolerance'), c.get('tolerance_kind', ''))}</td>"
            f"<td class=num>{fmt.number(c.get('allowed'), 3)}</td>"
            f"<td>{esc(c.get('kind', ''))}</td>"
            f'<td class="verdict">{verdict}</td>'
            f"<td>[{sources.index(str(c.get('source', ''))) + 1}]</td>"
            f'<td class="notes">{esc(c.get("notes") or "")}</td></tr>'
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
        if not fmt.is_missing(c.get("published"))
        and c["published"] != 0
        and not fmt.is_missing(c.get("measured"))
    ]
    if not rows:
        return ""
    n = len(rows)
    fig = new_figure(8.0, 1.0 + 0.27 * n)
    ax = fig.add_subplot()
    y = np.arange(n)[::-1]
    for yi, c in zip(y, rows, strict=True):
        published = abs(float(c["published"]))
        if c.get("tolerance_kind") == "factor":
            low, high = 1 / float(c["tolerance"]), float(c["tolerance"])
        else:
            band = float(c["allowed"]) / published if not fmt.is_missing(c.get("allowed")) else 0.0
            low, high = 1 - band, 1 + band
        ax.barh(yi, high - low, left=low, height=0.6, color="#dfe7f1", edgecolor="none")
        ratio = float(c["measured"]) / float(c["published"])
        ci = c.get("ci_half_width")
        xerr = None if fmt.is_missing(ci) else abs(float(ci) / published)
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
    style_axes(ax)
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
    return figure_html(fig, f"{name}: measured / published per check", caption)


def study_error_section(name: str, title: str, anchor: str, error: str, detail: str) -> str:
    return (
        f'<section class="study" id="{esc(anchor)}">'
        f"<h2>{esc(name)}: {esc(title)} {status_badge(False, error=True)}</h2>"
        f'<p class="error">The study did not complete: {esc(error)}</p>'
        f"<details><summary>traceback</summary><pre>{esc(detail)}</pre></details></section>"
    )
