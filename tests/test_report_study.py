"""A study's section of the report: the figures and files the study wrote
(captions from the PNG), its Markdown description, a study that judged
nothing, and the study document that lists what the study wrote."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from satcc import report
from satcc.studies import Reference, RunSpec, Study, framework, reproduce
from satcc.studies.compare import not_judged_reason, verdict_line
from satcc.studies.emulated_mode import Emulated


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


def test_drawn_figures_are_200_dpi_shown_at_96_px_per_inch(study_dir: Path) -> None:
    import base64
    import io

    from PIL import Image

    ((uri, width, height, _),) = _figures(report.study_section(study_dir))
    with Image.open(io.BytesIO(base64.b64decode(uri.split(",", 1)[1]))) as forest:
        size, dpi = forest.size, forest.info["dpi"]
    assert round(dpi[0]) == 200
    assert abs(size[0] - int(width) * 200 / 96) <= 1 and abs(size[1] - int(height) * 200 / 96) <= 1


def test_a_check_no_run_measured_reads_not_measured_and_the_study_is_no_pass(
    study_dir: Path, tmp_path: Path
) -> None:
    # One check kept its tolerance but has no measurement (passed None, as
    # compare gives a NaN mean): neither PASS nor FAIL on its row, and the
    # study, with a check it could not judge, is not a PASS.
    document = json.loads((study_dir / "queueing-theory.json").read_text())
    document["study"] = "half-measured"
    first = document["checks"][0]
    assert first["tolerance_kind"] != "none" and first["passed"] is True
    document["checks"] = [
        dict(first, study="half-measured"),
        dict(first, study="half-measured", label="lost", measured=None, passed=None),
    ]
    out = tmp_path / "half-measured"
    out.mkdir()
    (out / "half-measured.json").write_text(json.dumps(document))
    section = report.study_section(out)
    rows = re.findall(r'<tr class="(\w+)">.*?<td class="verdict">([^<]*)</td>', section, re.S)
    assert rows == [("pass", "PASS"), ("shown", "not measured")], rows
    outcome = report.study_outcome(report.load_study(out))
    assert (outcome.passed, outcome.total, outcome.ok, outcome.status) == (1, 2, False, "FAIL")
