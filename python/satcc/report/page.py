"""The page around the sections: header, the overview of several studies, the
inline CSS, and the entry points that write it (`satcc report`, and
`satcc reproduce all`, which runs every study first)."""

from __future__ import annotations

import os
import platform
import traceback
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from markupsafe import Markup

from .campaign import campaign_section
from .markup import anchor_id, fact_list, render
from .sources import ReportError, source_kind
from .study import (
    NOT_JUDGED,
    StudyOutcome,
    read_study,
    render_study,
    study_error_section,
    study_outcome,
)

if TYPE_CHECKING:
    from satcc.studies.spec import Study

DEFAULT_TITLE = "satcc report"


CSS = """
:root { --fg:#1f2328; --muted:#59636e; --line:#d1d9e0; --bg:#ffffff; --head:#f6f8fa;
  --pass:#1a7f37; --pass-bg:#e8f5ec; --fail:#c62828; --fail-bg:#fdecea; --accent:#0b5cad;
  --unjudged:#8a5a00; --unjudged-bg:#fdf3e1; }
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
.description { max-width: 900px; }
.description p, .description ul, .description ol { margin: 6px 0; }
.description ul, .description ol { padding-left: 22px; }
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
.badge.unjudged { color: var(--unjudged); background: var(--unjudged-bg);
  border: 1px solid var(--unjudged); }
table.overview td.status { font-weight: bold; }
table.overview tr.pass td.status { color: var(--pass); }
table.overview tr.fail td.status { color: var(--fail); }
table.overview tr.unjudged td.status { color: var(--unjudged); }
table.overview .reason { font-weight: normal; color: var(--muted); }
a { color: var(--accent); }
figure { margin: 14px 0; }
figure img { max-width: 100%; height: auto; display: block; }
.figures { display: flex; flex-wrap: wrap; gap: 8px 24px; }
.figures figure { flex: 0 1 540px; }
figcaption strong { color: var(--fg); }
code.file { font-size: 11.5px; color: var(--muted); }
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
    html: Markup
    outcome: StudyOutcome | None = None


def _item_for(source: Path) -> _Item:
    kind = source_kind(source)
    if kind == "campaign":
        return _Item("campaign", campaign_section(source))
    return _study_item(source)


def _study_item(result_dir: Path) -> _Item:
    document, folder = read_study(result_dir)
    return _Item("study", render_study(document, folder), study_outcome(document))


def _overview(outcomes: list[StudyOutcome]) -> dict[str, object]:
    """The summary of several studies: the counts and one row per study.
    Studies that judged nothing are counted apart: neither within
    tolerance nor failed."""
    return {
        "n_ok": sum(o.ok for o in outcomes),
        "n_unjudged": sum(o.status == NOT_JUDGED for o in outcomes),
        "n_studies": len(outcomes),
        "passed": sum(o.passed for o in outcomes),
        "total": sum(o.total for o in outcomes),
        "outcomes": outcomes,
    }


def render_page(items: Sequence[_Item], title: str = DEFAULT_TITLE) -> str:
    outcomes = [i.outcome for i in items if i.outcome is not None]
    now = datetime.now().astimezone()
    facts = [
        ("satcc", _satcc_version()),
        ("generated", now.strftime("%Y-%m-%d %H:%M:%S %Z").strip()),
        ("machine", _machine()),
    ]
    return str(
        render(
            "page.html.j2",
            title=title,
            css=Markup(CSS),
            facts=fact_list(facts),
            overview=_overview(outcomes) if len(outcomes) > 1 else None,
            items=[item.html for item in items],
        )
    )


def write_report(
    sources: Sequence[str | os.PathLike[str]],
    out: str | os.PathLike[str],
    title: str = DEFAULT_TITLE,
) -> Path:
    """Write one self-contained HTML page for `sources` (study result folders
    and campaign folders, detected by content) to `out`, atomically."""
    from satcc.studies.present import write_atomic

    if not sources:
        raise ReportError("nothing to report: no study result or campaign folder given")
    items = [_item_for(Path(source)) for source in sources]
    out = Path(out)
    write_atomic(out, render_page(items, title))
    return out


def _error_item(name: str, study: Study, message: str, detail: str) -> _Item:
    """The stand-in of a study that raised: none of its checks count as passed."""
    anchor = anchor_id("study", name)
    outcome = StudyOutcome(name, study.title, 0, len(study.references), anchor, message)
    return _Item(
        "study-error", study_error_section(name, study.title, anchor, message, detail), outcome
    )


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

    A study that judged nothing (its reference tool absent: ns-2, the
    emulator) failed no check, so it does not make the result 1, as
    `satcc reproduce STUDY` exits 0 for it; it is not a pass either: the
    report shows it NOT JUDGED and counts it apart, and its verdict line
    says "nothing judged". Exit 0 thus means "no check failed"; the
    report says how many studies were judged at all.
    """
    from satcc.console import table_console
    from satcc.studies import STUDIES, reproduce
    from satcc.studies.present import write_atomic

    out_dir = Path(out_dir)
    console = table_console(stderr=True)
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
            items.append(_error_item(name, study, message, traceback.format_exc()))
            continue
        judged = table[table["tolerance_kind"] != "none"]
        all_passed = all_passed and bool(judged["passed"].astype(bool).all())
        items.append(_study_item(study_dir))
    title = "satcc: reproduced studies" + (" (quick mode)" if quick else "")
    write_atomic(out_dir / "report.html", render_page(items, title))
    return 0 if not errored and (all_passed or allow_fail) else 1
