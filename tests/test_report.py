# The HTML report: detection of sources, study and campaign sections, a
# self-contained page, and a real rendering in headless Chromium.

from __future__ import annotations

import dataclasses
import json
import re
import shutil
import subprocess
import tempfile
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import satcc.studies
from satcc import report
from satcc.studies import Reference, RunSpec, Study, framework, get, reproduce
from satcc.studies.compare import not_judged_reason, verdict_line
from satcc.studies.emulated_mode import Emulated

CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
]

# ---------------------------------------------------------------------------
# Fixtures


@pytest.fixture(scope="module")
def study_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real study result: queueing-theory in quick mode (a few seconds)."""
    out = tmp_path_factory.mktemp("results") / "queueing-theory"
    reproduce(get("queueing-theory"), quick=True, jobs=2, out=out, progress=False, show=False)
    return out


@pytest.fixture(scope="module")
def failing_study_dir(study_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A second study (synthetic, in the framework's JSON format) with a failed
    check and markup in its strings, which must come out escaped."""
    document = json.loads((study_dir / "queueing-theory.json").read_text())
    document["study"] = "fake-study"
    document["title"] = "A <script>alert(1)</script> & co"
    document["checks"] = [dict(c, study="fake-study") for c in document["checks"][:3]]
    document["checks"][1].update(measured=0.9, error=0.8, passed=False)
    document["checks"][2]["label"] = "<b>rho</b>"
    document["checks"][2]["published"] = 0.0
    out = tmp_path_factory.mktemp("fake") / "fake-study"
    out.mkdir()
    (out / "fake-study.json").write_text(json.dumps(document))
    return out


DESCRIPTION = """A study *described* in Markdown, with `code` and a list:

- first point
- second point, **strong**

<script>alert(1)</script> ![remote](https://example.org/x.png) [a link](https://example.org)
"""

# The colour of the figure drawn for the browser check: used nowhere else on
# the page, so its pixels in a screenshot are the embedded PNG's.
MAGENTA = "#ff00ff"


def _png(path: Path, metadata: dict[str, str], colour: str = "#1f77b4") -> None:
    """A small figure as a study's artifacts write one: a PNG at 110 dpi,
    with `metadata` in its text chunks (Title, Description) or none."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(4.0, 2.5))
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    ax.axvspan(0.1, 0.9, color=colour)
    fig.savefig(path, format="png", dpi=110, metadata={"Software": None, **metadata})


@pytest.fixture(scope="module")
def figures_study_dir(study_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A study result (synthetic, in the framework's JSON format) whose
    artifacts wrote figures with and without their caption, a CSV, and whose
    list names a file that is gone, one that is not a PNG and one outside."""
    out = tmp_path_factory.mktemp("figures") / "figures-study"
    out.mkdir()
    document = json.loads((study_dir / "queueing-theory.json").read_text())
    document["study"] = "figures-study"
    document["description"] = DESCRIPTION
    document["checks"] = [dict(c, study="figures-study") for c in document["checks"][:3]]
    _png(
        out / "goodput.png",
        {
            "Title": "Goodput against loss",
            "Description": "Mean goodput over seeds <b>not bold</b>; the line is the model.",
        },
        MAGENTA,
    )
    _png(out / "queue_delay-geo.png", {})
    (out / "goodput.csv").write_text("loss,goodput\n0.001,1.5\n")
    (out / "broken.png").write_bytes(b"not a png")
    document["files"] = [
        "goodput.png",
        "goodput.csv",
        "queue_delay-geo.png",
        "gone.png",
        "broken.png",
        "../queueing-theory/queueing-theory.json",
    ]
    (out / "figures-study.json").write_text(json.dumps(document))
    return out


@pytest.fixture(scope="module")
def unjudged_study_dir(study_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A study result whose reference tool was absent: every row shown, none
    judged, the would-be checks saying why in their notes."""
    document = json.loads((study_dir / "queueing-theory.json").read_text())
    document["study"] = "unjudged-study"
    checks = []
    for i, c in enumerate(document["checks"][:4]):
        note = "satcc / ns-2 goodput; ns-2 absent" if i % 2 == 0 else ""
        checks.append(
            dict(c, study="unjudged-study", tolerance_kind="none", passed=None, notes=note)
        )
    document["checks"] = checks
    out = tmp_path_factory.mktemp("unjudged") / "unjudged-study"
    out.mkdir()
    (out / "unjudged-study.json").write_text(json.dumps(document))
    return out


RATES = ["2 Mbps", "4 Mbps", "8 Mbps"]
SEEDS = [1, 2, 3, 4]


def _run_row(key: str, status: str, seed: int, rate: str, error: str | None = None) -> dict:
    return {
        "key": key,
        "status": status,
        "seed": seed,
        "params": json.dumps({"sources.arrivals.rate": rate}),
        "param.sources.arrivals.rate": rate,
        "wall_s": 0.5,
        "events": 1000,
        "error": error,
        "satcc_version": "0.1.0",
        "finished": "2026-05-09T10:00:00+00:00",
    }


def _summary_row(key: str, rate: str, seed: int) -> dict:
    mbps = float(rate.split()[0])
    rho = mbps / 10
    wobble = 1 + 0.01 * (seed - 2.5)
    return {
        "key": key,
        "flows.arrivals.throughput_bps": mbps * 1e6 * wobble,
        "flows.arrivals.delay_mean_s": rho / (1 - rho) * 1e-3 * wobble,
        "flows.arrivals.loss_rate": 0.0,
        "links.server.utilisation": rho * wobble,
        "links.server.queue_mean_packets": rho**2 / (1 - rho) * wobble,
        "tcp.c1.goodput_bps": 0.9 * mbps * 1e6 * wobble,
        "run.events": 1000,
    }


@pytest.fixture(scope="module")
def campaign_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A campaign folder per docs/campaigns.md: 3 rates x 4 seeds, with the
    store's untidy cases: a run that failed then succeeded, a run recorded
    twice (crash during compaction), a run that still fails, a temporary part."""
    folder = tmp_path_factory.mktemp("campaigns") / "mm1"
    (folder / "runs").mkdir(parents=True)
    (folder / "summary").mkdir()
    (folder / "campaign.json").write_text(
        json.dumps(
            {
                "satcc_version": "0.1.0",
                "created": "2026-05-09T09:59:00+00:00",
                "scenario": "mm1",
                "base_description": {"name": "mm1", "duration": "600 s"},
                "parameters": ["sources.arrivals.rate"],
            }
        )
    )
    runs, summary = [], []
    for rate in RATES:
        for seed in SEEDS:
            key = f"{rate[0]}{seed}".ljust(20, "0")
            if rate == "8 Mbps" and seed == 4:
                runs.append(_run_row(key, "failed", seed, rate, "run exceeded --max-wall 1 h"))
                continue
            runs.append(_run_row(key, "ok", seed, rate))
            summary.append(_summary_row(key, rate, seed))
    # part 1: the first half, with the 4 Mbps seed-1 run failed; part 2: the
    # rest, the re-run of that run (ok), and part 1's last row again.
    retried = next(r for r in runs if r["key"].startswith("41"))
    first = [dict(r, status="failed", error="worker died") if r is retried else r for r in runs[:6]]
    second = runs[6:] + [retried, runs[5]]
    pd.DataFrame(first).to_parquet(folder / "runs" / "part-000001.parquet")
    pd.DataFrame(second).to_parquet(folder / "runs" / "part-000002.parquet")
    pd.DataFrame(summary[:4]).to_parquet(folder / "summary" / "part-000001.parquet")
    pd.DataFrame(summary[3:]).to_parquet(folder / "summary" / "part-000002.parquet")
    (folder / "runs" / ".part-000003.parquet").write_bytes(b"half-written")
    return folder


# ---------------------------------------------------------------------------
# Detection and loading


def test_sources_are_detected_by_content(
    study_dir: Path, campaign_dir: Path, tmp_path: Path
) -> None:
    assert report.source_kind(study_dir) == "study"
    assert report.source_kind(study_dir / "queueing-theory.json") == "study"
    assert report.source_kind(campaign_dir) == "campaign"
    renamed = tmp_path / "qt-elsewhere"  # `satcc reproduce --out` may name it anything
    shutil.copytree(study_dir, renamed)
    assert report.source_kind(renamed) == "study"
    with pytest.raises(report.ReportError, match="neither a study"):
        report.source_kind(tmp_path)
    with pytest.raises(report.ReportError, match="no such"):
        report.source_kind(tmp_path / "missing")


def test_campaign_runs_are_deduplicated_by_key(campaign_dir: Path) -> None:
    data = report.load_campaign(campaign_dir)
    assert data.parameters == ["sources.arrivals.rate"]
    assert data.runs["key"].is_unique
    assert (data.runs["status"] == "ok").sum() == 11
    failed = data.runs[data.runs["status"] == "failed"]
    assert list(failed["error"]) == ["run exceeded --max-wall 1 h"]
    assert len(data.summary) == 11 and data.summary["key"].is_unique


# ---------------------------------------------------------------------------
# Sections


def test_study_section(study_dir: Path) -> None:
    section = report.study_section(study_dir)
    document = json.loads((study_dir / "queueing-theory.json").read_text())
    n = len(document["checks"])
    assert 'id="study-queueing-theory"' in section
    assert document["title"] in section
    assert section.count('<tr class="pass">') == n
    assert f"{n} / {n}" in section
    assert "Pollaczek-Khinchine" in section  # the sources
    assert "quick (demo)" in section
    assert section.count('<img src="data:image/png;base64,') == 1


def test_failed_checks_and_markup(failing_study_dir: Path) -> None:
    section = report.study_section(failing_study_dir)
    assert section.count('<tr class="fail">') == 1
    assert section.count('<tr class="pass">') == 2
    assert '<span class="badge fail">FAIL</span>' in section
    assert "<script" not in section and "&lt;script&gt;" in section
    assert "&lt;b&gt;rho&lt;/b&gt;" in section
    assert "1 row(s) without a nonzero published value are in the table only" in section


def _figures(section: str) -> list[tuple[str, str, str, str]]:
    """(data URI, width, height, caption) of each <figure> with a data: PNG."""
    return re.findall(
        r'<figure><img src="(data:image/png;base64,[^"]+)" alt="[^"]*" '
        r'width="(\d+)" height="(\d+)">(?:<figcaption>(.*?)</figcaption>)?</figure>',
        section,
        flags=re.S,
    )


def test_study_section_embeds_every_figure_the_study_wrote(figures_study_dir: Path) -> None:
    import base64

    section = report.study_section(figures_study_dir)
    figures = _figures(section)
    assert len(figures) == 3  # the forest plot, then the study's two PNGs in their order
    (uri, width, height, caption), (plain_uri, _, _, plain) = figures[1:]
    # Embedded as written (not re-rendered), shown at the size it was drawn:
    # 4 x 2.5 in at 110 dpi is 440 x 275 px, 384 x 240 CSS px.
    assert (
        base64.b64decode(uri.split(",", 1)[1]) == (figures_study_dir / "goodput.png").read_bytes()
    )
    assert (width, height) == ("384", "240")
    # The caption is the PNG's Title and Description, escaped like any text.
    assert "<strong>Goodput against loss</strong>" in caption
    assert "Mean goodput over seeds &lt;b&gt;not bold&lt;/b&gt;; the line is the model." in caption
    assert '<code class="file">goodput.png</code>' in caption
    # Without metadata: a caption made from the file name.
    assert plain.startswith("<strong>Queue delay geo</strong>")
    assert '<code class="file">queue_delay-geo.png</code>' in plain
    assert (
        base64.b64decode(plain_uri.split(",", 1)[1])
        == (figures_study_dir / "queue_delay-geo.png").read_bytes()
    )
    # The other files by name; what is missing or unreadable said, not fatal.
    assert 'Also in the result folder: <code class="file">goodput.csv</code>.' in section
    assert 'not in the result folder: <code class="file">gone.png</code>.' in section
    assert "Not shown: broken.png: not an image." in section
    assert "Not shown: ../queueing-theory/queueing-theory.json: outside the result folder." in (
        section
    )


def test_a_files_entry_that_is_not_a_list_is_said_not_fatal(
    figures_study_dir: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "figures-study"
    shutil.copytree(figures_study_dir, folder)
    document = json.loads((folder / "figures-study.json").read_text())
    (folder / "figures-study.json").write_text(json.dumps(dict(document, files="goodput.png")))
    section = report.study_section(folder)
    assert "Not shown: the study document&#39;s &#34;files&#34; is not a list" in section
    assert len(_figures(section)) == 1  # the forest plot only


def test_drawn_figures_are_200_dpi_shown_at_96_px_per_inch(study_dir: Path) -> None:
    import base64
    import io

    from PIL import Image

    ((uri, width, height, _),) = _figures(report.study_section(study_dir))
    with Image.open(io.BytesIO(base64.b64decode(uri.split(",", 1)[1]))) as forest:
        size, dpi = forest.size, forest.info["dpi"]
    assert round(dpi[0]) == 200
    assert abs(size[0] - int(width) * 200 / 96) <= 1 and abs(size[1] - int(height) * 200 / 96) <= 1


def test_a_study_without_files_has_no_figures_heading(study_dir: Path) -> None:
    document = json.loads((study_dir / "queueing-theory.json").read_text())
    assert document["files"] == []
    assert "Figures and files" not in report.study_section(study_dir)


def test_description_is_markdown_without_markup_or_references(figures_study_dir: Path) -> None:
    section = report.study_section(figures_study_dir)
    description = section[section.index('<div class="description">') :]
    description = description[: description.index("</div>")]
    assert "<em>described</em>" in description and "<code>code</code>" in description
    assert "<li>second point, <strong>strong</strong></li>" in description
    assert "<script" not in section and "&lt;script&gt;alert(1)&lt;/script&gt;" in description
    # Images and links stay text: the page loads and points to nothing outside.
    assert "<img" not in description and "<a " not in description
    assert "[a link](https://example.org)" in description


def test_unjudged_study_is_neither_pass_nor_fail(unjudged_study_dir: Path) -> None:
    section = report.study_section(unjudged_study_dir)
    assert '<span class="badge unjudged">NOT JUDGED</span>' in section
    assert "PASS" not in section and "FAIL" not in section
    assert "Nothing judged (ns-2 absent)" in section
    assert "<dt>checks within tolerance</dt><dd>none judged</dd>" in section
    outcome = report.study_outcome(report.load_study(unjudged_study_dir))
    assert (outcome.status, outcome.ok, outcome.reason) == ("NOT JUDGED", False, "ns-2 absent")


def test_campaign_section(campaign_dir: Path) -> None:
    section = report.campaign_section(campaign_dir)
    assert "Campaign: mm1" in section
    facts = dict(re.findall(r"<dt>(.*?)</dt><dd>(.*?)</dd>", section))
    assert facts["runs ok"] == "11" and facts["runs failed"] == "1"
    assert facts["seeds"] == "1..4 (4)"
    assert facts["swept parameters"] == "sources.arrivals.rate"
    for table in ("summary flows", "summary links", "summary tcp", "failures"):
        assert f'class="{table}"' in section
    # The 4 Mbps point: mean and 95% t-interval over 4 seeds, in Mbps.
    x = np.array([4 * (1 + 0.01 * (s - 2.5)) for s in SEEDS])
    half = 3.182446305284263 * x.std(ddof=1) / 2
    assert f"{x.mean():.4g} ± {half:.2g}" in section
    # 8 Mbps has only 3 seeds left; rows are sorted by rate as a number.
    flows = section[section.index('class="summary flows"') :]
    rows = re.findall(r"<tr[^>]*><td>(\d) Mbps</td><td>arrivals</td><td class=num>(\d)</td>", flows)
    assert rows == [("2", "4"), ("4", "4"), ("8", "3")]
    # A figure per main metric present: 4 flow/link ones + tcp goodput.
    assert section.count('<img src="data:image/png;base64,') == 6


def test_parameter_added_by_a_later_sweep(campaign_dir: Path, tmp_path: Path) -> None:
    folder = tmp_path / "mm1"
    shutil.copytree(campaign_dir, folder)
    row = _run_row("z1".ljust(20, "0"), "ok", 1, "4 Mbps")
    row["param.links.server.buffer"] = "50"
    pd.DataFrame([row]).to_parquet(folder / "runs" / "part-000010.parquet")
    summary = _summary_row(row["key"], "4 Mbps", 1)
    pd.DataFrame([summary]).to_parquet(folder / "summary" / "part-000010.parquet")
    data = report.load_campaign(folder)
    assert data.parameters == ["sources.arrivals.rate", "links.server.buffer"]
    assert set(data.summary["param.links.server.buffer"]) == {"50", report.UNSET}
    section = report.campaign_section(folder)
    assert "<td>4 Mbps</td><td>50</td><td>arrivals</td><td class=num>1</td>" in section
    assert section.count('<img src="data:image/png;base64,') == 6


def test_empty_campaign(tmp_path: Path) -> None:
    (tmp_path / "campaign.json").write_text(json.dumps({"scenario": "x", "parameters": []}))
    section = report.campaign_section(tmp_path)
    assert "No successful run" in section


# ---------------------------------------------------------------------------
# The page


class _Checker(HTMLParser):
    """Tags balanced (void elements excepted), and every URL a data: or #anchor."""

    VOID = {"meta", "img", "br", "hr", "link", "input", "col", "wbr", "source"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.errors: list[str] = []
        self.images = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name in ("src", "href") and not (value or "").startswith(("data:", "#")):
                self.errors.append(f"<{tag} {name}={value!r}> points outside the page")
        if tag == "img":
            self.images += 1
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes <{self.stack[-1] if self.stack else None}>")
        else:
            self.stack.pop()


@pytest.fixture(scope="module")
def page(
    study_dir: Path,
    failing_study_dir: Path,
    figures_study_dir: Path,
    unjudged_study_dir: Path,
    campaign_dir: Path,
    tmp_path_factory: pytest.TempPathFactory,
) -> Path:
    out = tmp_path_factory.mktemp("report") / "report.html"
    sources = [study_dir, failing_study_dir, figures_study_dir, unjudged_study_dir, campaign_dir]
    written = report.write_report(sources, out, title="Weekly check")
    assert written == out
    return out


def test_page_is_self_contained_and_well_formed(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    assert text.startswith('<!DOCTYPE html>\n<html lang="en">')
    assert '<meta charset="utf-8">' in text and "<title>Weekly check</title>" in text
    # A URL may be text (a description quoting one); as an attribute the
    # checker below refuses anything but data: and #anchors.
    for forbidden in ('src="/', "<script", "<link", "@import", "url("):
        assert forbidden not in text, forbidden
    checker = _Checker()
    checker.feed(text)
    checker.close()
    assert checker.errors == [] and checker.stack == []
    # A forest plot per study, the two figures of figures-study, six campaign figures.
    assert checker.images == 4 + 2 + 6
    # The summary of several studies, linking to their sections; the one
    # that judged nothing is counted apart, not as within tolerance.
    assert 'class="overview"' in text
    assert '<a href="#study-queueing-theory">' in text and '<a href="#study-fake-study">' in text
    assert "2 of 4 studies fully within tolerance; 1 not judged;" in text
    assert (
        '<tr class="unjudged"><td><a href="#study-unjudged-study">unjudged-study</a></td>' in text
    )
    assert '<td class="status">NOT JUDGED <span class="reason">(ns-2 absent)</span></td>' in text
    # Header: version, date, machine.
    from satcc._core import version

    assert f"<dt>satcc</dt><dd>{version()}</dd>" in text
    assert "<dt>generated</dt>" in text and "<dt>machine</dt>" in text
    # Atomic write: nothing but the page in the folder.
    assert [p.name for p in page.parent.iterdir()] == ["report.html"]


def test_single_study_has_no_overview(study_dir: Path, tmp_path: Path) -> None:
    text = report.write_report([study_dir], tmp_path / "r.html").read_text()
    assert 'class="overview"' not in text and 'class="checks"' in text


def test_write_report_refuses_unknown_sources(tmp_path: Path) -> None:
    with pytest.raises(report.ReportError):
        report.write_report([tmp_path], tmp_path / "r.html")
    with pytest.raises(report.ReportError):
        report.write_report([], tmp_path / "r.html")
    assert not (tmp_path / "r.html").exists()


# ---------------------------------------------------------------------------
# The study document and the verdict line


def _document_worker(scenario: dict, seed: int) -> dict:
    # Module-level so that it pickles into worker processes.
    return {"x": scenario["x"] + 0.01 * seed}


def _document_study(references: list[Reference], artifacts=None, emulation=None) -> Study:
    return Study(
        name="doc",
        title="the study document",
        paper="none",
        description="What the study *does*.",
        runs=lambda quick: [RunSpec("one", {}, {"x": 1.0})],
        metrics=lambda summary, spec: {"x": summary["x"]},
        references=references,
        seeds=lambda quick: [1, 2],
        quick_note="two seeds",
        artifacts=artifacts,
        emulation=emulation,
    )


def test_study_document_lists_the_files_the_study_wrote(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def artifacts(specs, summaries, out, quick):
        for name in ("b.png", "a.csv"):
            (out / name).write_text(name)
        return ["b.png", "a.csv"]

    def emulation(specs, summaries, out, quick):
        (out / "emulated.csv").write_text("real tools")
        return Emulated(tables=[], files=["emulated.csv"])

    monkeypatch.setattr(framework, "require_emulation", lambda study: None)
    study = _document_study([Reference("one", "x", 1.0, "src", 0.1)], artifacts, emulation)
    reproduce(
        study,
        jobs=1,
        out=tmp_path,
        progress=False,
        show=False,
        worker=_document_worker,
        emulate=True,
    )
    document = json.loads((tmp_path / "doc.json").read_text())
    assert document["files"] == ["b.png", "a.csv", "emulated.csv"]  # in the order written
    assert document["description"] == "What the study *does*."
    assert document["quick_note"] == "two seeds"
    assert document["summary"] == "1/1 checks within tolerance"


def test_verdict_line_never_reads_as_a_pass_when_nothing_was_judged(tmp_path: Path) -> None:
    absent = [
        Reference("one", "x", float("nan"), "src", 0.0, "none", notes="satcc / ns-2; ns-2 absent"),
        Reference("one", "x", float("nan"), "src", 0.0, "none"),
    ]
    table = reproduce(
        _document_study(absent),
        jobs=1,
        out=tmp_path,
        progress=False,
        show=False,
        worker=_document_worker,
    )
    assert verdict_line(table) == "nothing judged: ns-2 absent; 2 rows shown"
    assert verdict_line(table.assign(notes="")) == "nothing judged; 2 rows shown"
    assert json.loads((tmp_path / "doc.json").read_text())["summary"] == verdict_line(table)


def test_not_judged_reason_is_the_end_every_note_shares() -> None:
    assert not_judged_reason(["a / b; ns-2 absent", "c; ns-2 absent", "", None]) == "ns-2 absent"
    assert not_judged_reason(["a; ns-2 absent", "b; not emulated"]) == ""
    assert not_judged_reason(["a note without a reason", ""]) == ""
    assert not_judged_reason([]) == ""


# ---------------------------------------------------------------------------
# reproduce all


def test_reproduce_all(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Cut-down copies of queueing-theory (one parameter point) keep this quick.
    qt = get("queueing-theory")
    one = qt.runs(True)[:1]
    refs = [r for r in qt.references if r.label == one[0].label]
    small = dataclasses.replace(qt, name="qt-small", runs=lambda quick: one, references=refs)
    off = dataclasses.replace(
        small,
        name="qt-off",
        references=[dataclasses.replace(refs[0], value=refs[0].value * 2), *refs[1:]],
    )
    broken = dataclasses.replace(
        small,
        name="qt-broken",
        runs=lambda quick: [RunSpec(one[0].label, {}, {"no such": "scenario"})],
    )

    monkeypatch.setattr(satcc.studies, "STUDIES", {"qt-small": small})
    assert report.reproduce_all(True, tmp_path, jobs=1, progress=False, show=False) == 0
    text = (tmp_path / "report.html").read_text()
    assert "(quick mode)" in text and 'id="study-qt-small"' in text
    assert 'class="overview"' not in text

    # Nothing judged is not a failure (exit 0) but not a pass either.
    unjudged = dataclasses.replace(
        small,
        name="qt-unjudged",
        references=[
            dataclasses.replace(r, tolerance_kind="none", tolerance=0.0, notes="x; tool absent")
            for r in refs
        ],
    )
    monkeypatch.setattr(satcc.studies, "STUDIES", {"qt-small": small, "qt-unjudged": unjudged})
    assert report.reproduce_all(True, tmp_path, jobs=1, progress=False, show=False) == 0
    text = (tmp_path / "report.html").read_text()
    assert "1 of 2 studies fully within tolerance; 1 not judged;" in text
    assert '<span class="badge unjudged">NOT JUDGED</span>' in text

    monkeypatch.setattr(
        satcc.studies, "STUDIES", {"qt-small": small, "qt-off": off, "qt-broken": broken}
    )
    assert report.reproduce_all(True, tmp_path, jobs=1, progress=False, show=False) == 1
    text = (tmp_path / "report.html").read_text()
    assert (tmp_path / "qt-off" / "qt-off.json").is_file()
    assert not (tmp_path / "qt-broken").exists()
    assert "1 of 3 studies fully within tolerance" in text
    assert "not judged" not in text
    assert f"{len(refs) - 1} / {len(refs)}" in text
    assert "ERROR" in text and "did not complete" in text and "RunFailed" in text
    # A study that raised has no check count: the one missing marker (it was "—").
    assert '<td class=num>n/a</td><td class="status">ERROR</td>' in text


# ---------------------------------------------------------------------------
# Rendering in a real browser


def _chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        pytest.fail(
            "chromium is not installed: run scripts/ensure-chromium.sh (as root) first; "
            "the report tests render the page in headless Chromium",
            pytrace=False,
        )
    return found


def _run_chromium(args: list[str]) -> subprocess.CompletedProcess[str]:
    with tempfile.TemporaryDirectory(prefix="satcc-chromium-") as profile:
        return subprocess.run(
            [_chromium(), *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *args],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )


def test_page_renders_in_chromium(page: Path, tmp_path: Path) -> None:
    url = page.resolve().as_uri()
    result = _run_chromium(["--enable-logging=stderr", "--v=0", "--dump-dom", url])
    assert result.returncode == 0, result.stderr[-2000:]
    console = [line for line in result.stderr.splitlines() if ":CONSOLE" in line]
    assert console == [], console
    dom = result.stdout
    for table in ('class="overview"', 'class="checks"', 'class="summary flows"', "failures"):
        assert table in dom, table
    assert dom.count('<img src="data:image/png;base64,') == 12

    shot = tmp_path / "shot.png"
    result = _run_chromium([f"--screenshot={shot}", "--window-size=1280,2000", url])
    assert result.returncode == 0 and shot.is_file(), result.stderr[-2000:]
    from PIL import Image

    with Image.open(shot) as image:
        assert image.size == (1280, 2000)
        pixels = np.asarray(image.convert("L"))
    assert pixels.std() > 10  # not one colour
    assert (pixels < 200).mean() > 0.02  # text, tables and figures, not a blank page


def test_a_study_figure_is_drawn_in_chromium(figures_study_dir: Path, tmp_path: Path) -> None:
    # The PNG a study wrote, decoded and drawn by the browser: its magenta
    # band (a colour nothing else on the page uses) is in the screenshot, at
    # about the size the PNG was drawn (4 x 2.5 in, shown at 96 px per inch).
    page = report.write_report([figures_study_dir], tmp_path / "figures.html")
    shot = tmp_path / "shot.png"
    result = _run_chromium([f"--screenshot={shot}", "--window-size=1280,2400", page.as_uri()])
    assert result.returncode == 0 and shot.is_file(), result.stderr[-2000:]
    from PIL import Image

    with Image.open(shot) as image:
        rgb = np.asarray(image.convert("RGB")).astype(int)
    magenta = (rgb[..., 0] > 200) & (rgb[..., 1] < 60) & (rgb[..., 2] > 200)
    rows, cols = np.nonzero(magenta)
    assert magenta.sum() > 10_000, "the study's figure is not drawn"
    # The band fills about 70 % of the figure's width: some 270 CSS px of
    # the 384 the figure is shown at (310 if it were shown at its 440 pixels).
    assert 250 < cols.max() - cols.min() < 290
