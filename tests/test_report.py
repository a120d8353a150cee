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
from satcc.studies import RunSpec, get

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
