"""The section of one study result: its facts, the checks table (published
beside measured, with the verdict), a forest plot of measured / published,
every figure the study wrote (listed in <study>.json under "files") with
its caption, and the stand-in section of a study that raised."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from markupsafe import Markup

from satcc import figure_style, fmt

from .markup import (
    anchor_id,
    fact_list,
    figure_html,
    markdown_html,
    new_figure,
    png_figure_html,
    read_png,
    render,
    style_axes,
)
from .sources import ReportError, study_json

PASS, FAIL, ERROR, NOT_JUDGED = "PASS", "FAIL", "ERROR", "NOT JUDGED"
# The CSS class of each status (badges, overview rows).
STATUS_CLASS = {PASS: "pass", FAIL: "fail", ERROR: "fail", NOT_JUDGED: "unjudged"}


@dataclass(frozen=True)
class StudyOutcome:
    """What the summary table of a multi-study report shows for one study.

    A study that judged nothing (every row shown beside the paper, e.g.
    because the simulator it is checked against is not installed) is
    neither a pass nor a failure: NOT JUDGED, with the reason its rows give.
    """

    name: str
    title: str
    passed: int
    total: int
    anchor: str
    error: str | None = None
    reason: str = ""

    @property
    def judged(self) -> bool:
        """False only for a study that completed without judging a check."""
        return self.error is not None or self.total > 0

    @property
    def ok(self) -> bool:
        """Every check judged and within tolerance (at least one judged)."""
        return self.error is None and self.total > 0 and self.passed == self.total

    @property
    def status(self) -> str:
        if self.error is not None:
            return ERROR
        if not self.judged:
            return NOT_JUDGED
        return PASS if self.ok else FAIL

    @property
    def css(self) -> str:
        return STATUS_CLASS[self.status]


def load_study(result_dir: str | os.PathLike[str]) -> dict[str, Any]:
    """The study document (<study>.json) of a result folder."""
    return read_study(result_dir)[0]


def read_study(result_dir: str | os.PathLike[str]) -> tuple[dict[str, Any], Path]:
    """The study document of a result folder (or of the .json itself) and
    the folder that holds it, where the files it lists are."""
    path = study_json(result_dir)
    if path is None:
        raise ReportError(f"{result_dir}: no study result (<study>.json) found")
    return json.loads(path.read_text(encoding="utf-8")), path.parent


def study_section(result_dir: str | os.PathLike[str]) -> Markup:
    """The HTML fragment for one study result folder."""
    return render_study(*read_study(result_dir))


def render_study(document: dict[str, Any], folder: Path | None = None) -> Markup:
    """The section of a study document; the files it lists are looked for
    in `folder` (None: the document is not in a folder, they are not shown)."""
    outcome = study_outcome(document)
    checks = document.get("checks", [])
    registered = _registered_study(outcome.name)
    description = document.get("description") or getattr(registered, "description", "")
    quick_note = document.get("quick_note") or getattr(registered, "quick_note", "")
    sources = list(dict.fromkeys(str(c.get("source", "")) for c in checks))
    return render(
        "study.html.j2",
        outcome=outcome,
        paper=document.get("paper") or "",
        description=markdown_html(description) if description else "",
        facts=fact_list(_facts(document, outcome)),
        quick_note=quick_note if document.get("quick") else "",
        rows=[_check_row(c, sources) for c in checks],
        forest=_study_figure(outcome.name, checks),
        files=_files(folder, document.get("files")) if folder is not None else None,
        sources=sources,
    )


def _facts(document: dict[str, Any], outcome: StudyOutcome) -> list[tuple[str, str]]:
    seeds = document.get("seeds") or []
    judged = f"{outcome.passed} / {outcome.total}" if outcome.judged else "none judged"
    return [
        ("checks within tolerance", judged),
        ("seeds", ", ".join(str(s) for s in seeds) or fmt.MISSING),
        ("mode", "quick (demo)" if document.get("quick") else "full"),
        ("satcc", document.get("satcc_version", fmt.MISSING)),
        ("build", document.get("satcc_build", fmt.MISSING)),
    ]


def study_outcome(document: dict[str, Any]) -> StudyOutcome:
    from satcc.studies.compare import not_judged_reason

    checks = document.get("checks", [])
    judged = [c for c in checks if _judged(c)]
    return StudyOutcome(
        name=document["study"],
        title=document.get("title", ""),
        passed=sum(1 for c in judged if c.get("passed")),
        total=len(judged),
        anchor=anchor_id("study", document["study"]),
        reason="" if judged else not_judged_reason(c.get("notes") for c in checks),
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


def _verdict(check: dict[str, Any]) -> str:
    """PASS, FAIL, "shown" or, for a check no run measured (passed None:
    satcc.studies.compare.measured_at_all), "not measured": not a pass, and
    its study is no PASS either (study_outcome)."""
    return fmt.verdict(check.get("passed") if _judged(check) else None, check=_judged(check))


def _check_row(check: dict[str, Any], sources: list[str]) -> dict[str, Any]:
    """One row of the checks table, as the template shows it."""
    verdict = _verdict(check)
    return {
        # The page styles what has no verdict alike.
        "css": "shown" if verdict == fmt.NOT_MEASURED else verdict.lower(),
        "params": check.get("params") or "",
        "label": check.get("label", ""),
        "metric": check.get("metric", ""),
        "published": fmt.number(check.get("published")),
        "measured": fmt.number(check.get("measured")),
        "ci": fmt.number(check.get("ci_half_width"), 2),
        "error": fmt.signed_percent(check.get("error")),
        "tolerance": fmt.tolerance(check.get("tolerance"), check.get("tolerance_kind", "")),
        "allowed": fmt.number(check.get("allowed"), 3),
        "kind": check.get("kind", ""),
        "verdict": verdict,
        "source": sources.index(str(check.get("source", ""))) + 1,
        "notes": check.get("notes") or "",
    }


@dataclass(frozen=True)
class StudyFiles:
    """The files a study's document lists, as its section shows them."""

    figures: list[Markup]  # the PNGs, embedded, in the order written
    others: list[str]  # CSV and the rest, by name
    missing: list[str]  # listed, not in the folder
    unreadable: list[str]  # "name: why", for a listed PNG that cannot be shown


def _files(folder: Path, names: Any) -> StudyFiles:
    """The files listed in the document, sorted into what the section
    embeds, names, and notes as missing or unreadable."""
    files = StudyFiles([], [], [], [])
    if names is None:  # written before studies recorded their files
        return files
    if not isinstance(names, list):
        files.unreadable.append(f'the study document\'s "files" is not a list: {names!r:.80}')
        return files
    root = folder.resolve()
    for name in dict.fromkeys(str(n) for n in names):
        path = (folder / name).resolve()
        if not path.is_relative_to(root):
            files.unreadable.append(f"{name}: outside the result folder")
        elif not path.is_file():
            files.missing.append(name)
        elif path.suffix.lower() != ".png":
            files.others.append(name)
        else:
            try:
                png = read_png(path)
            except (OSError, ValueError) as e:
                files.unreadable.append(f"{name}: {e}")
                continue
            files.figures.append(png_figure_html(png, _title_from_name(path.stem)))
    return files


def _title_from_name(stem: str) -> str:
    """A figure's title when its PNG carries none: its file name in words
    ("loss_vs_rtt-geo" -> "Loss vs rtt geo")."""
    words = " ".join(stem.replace("_", " ").replace("-", " ").split())
    return words[:1].upper() + words[1:]


def _study_figure(name: str, checks: list[dict[str, Any]]) -> Markup | str:
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
        color = {"PASS": "#1a7f37", "FAIL": "#c62828"}.get(_verdict(c), "#78909c")
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
    ax.set_xlabel("measured / published", fontsize=9)
    style_axes(ax)
    ax.grid(False, axis="y")
    figure_style.set_title(fig, "Measured / published per check", name)
    skipped = len(checks) - n
    caption = (
        "Each row is one check: the dot is the measured mean divided by the published value "
        "(green: pass, red: fail, grey: shown without a verdict), the bar its 95% confidence "
        "interval, the shaded band the tolerance, the dashed line the published value."
    )
    if skipped:
        caption += f" {skipped} row(s) without a nonzero published value are in the table only."
    return figure_html(fig, f"{name}: measured / published per check", caption)


def study_error_section(name: str, title: str, anchor: str, error: str, detail: str) -> Markup:
    return render(
        "study_error.html.j2", name=name, title=title, anchor=anchor, error=error, detail=detail
    )
