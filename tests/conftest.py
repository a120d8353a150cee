"""Fixtures shared by several test files: the CLI's small scenario files,
and for the report a real study result and synthetic ones built from it
(with figures, with nothing judged)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import GOOD
from satcc.studies import get, reproduce


@pytest.fixture(scope="module")
def study_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real study result: queueing-theory in quick mode (a few seconds)."""
    out = tmp_path_factory.mktemp("results") / "queueing-theory"
    reproduce(get("queueing-theory"), quick=True, jobs=2, out=out, progress=False, show=False)
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


@pytest.fixture
def good(tmp_path):
    path = tmp_path / "tiny.toml"
    path.write_text(GOOD)
    return path


@pytest.fixture
def bare_rate(tmp_path):
    # A bare number where a rate with a unit is required.
    path = tmp_path / "bad.toml"
    path.write_text(GOOD.replace('rate = "1 Mbps"', "rate = 1000000"))
    return path
