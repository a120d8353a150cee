# satcc.summary_tables: one declaration of the summary tables, read by
# `satcc run` and by the campaign report. A udp_rr exchange reaches both, the
# declared keys are the ones the core writes, and a new group is one entry.

from __future__ import annotations

import re
from pathlib import Path

import pytest
from satcc import report, runner, scenario, summary_tables
from satcc.cli import run_cli
from satcc.summary_tables import GROUPS, Column, Group

# Client and server one 2 Mbps, 20 ms link apart; nothing else on that link,
# so every transaction takes 2 x 20 ms plus the serialisation of a 128 B
# request and a 1028 B response (28 B of UDP/IP headers each): 44.624 ms.
# A CBR source on a link of its own feeds a sink, for the group added below.
RR = """
[run]
name = "rr"
duration = "5 s"

[nodes.a]
[nodes.b]
[nodes.c]
[nodes.d]

[links.ab]
from = "a"
to = "b"
rate = "2 Mbps"
delay = "20 ms"
duplex = true

[links.cd]
from = "c"
to = "d"
rate = "1 Mbps"
delay = "5 ms"

[udp_rr.ping]
from = "a"
to = "b"
request = "100 B"
response = "1000 B"
count = 20

[sources.cbr]
type = "cbr"
from = "c"
to = "rx"
rate = "100 kbps"

[sinks.rx]
node = "d"
"""

# Not a built-in group: what adding one takes.
SINKS = Group(
    "sinks",
    "Sinks",
    "sink",
    (
        Column("received", "received_packets", "count", in_report=True),
        Column("throughput", "throughput_bps", "rate", in_report=True),
    ),
)


@pytest.fixture(scope="module")
def rr_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("rr") / "rr.toml"
    path.write_text(RR)
    return path


@pytest.fixture(scope="module")
def rr_campaign(rr_file: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("campaigns") / "rr"
    status = run_cli(
        [
            "sweep",
            str(rr_file),
            "--set",
            "links.ab.delay=20 ms,50 ms",
            "--seeds",
            "1..2",
            "--campaign",
            str(folder),
            "-j",
            "1",
            "-q",
        ]
    )
    assert status == 0
    return folder


def _table_rows(out: str, title: str) -> dict[str, list[str]]:
    """The rows of the terminal table titled `title`: {first cell: words}."""
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip() == title)
    rows = {}
    for line in lines[start + 3 :]:  # title, header, rule
        words = line.split()
        if len(words) < 2:
            break
        rows[words[0]] = words
    return rows


def test_satcc_run_prints_the_udp_rr_table(rr_file: Path, capsys: pytest.CaptureFixture) -> None:
    assert run_cli(["run", str(rr_file)]) == 0
    out = capsys.readouterr().out
    header = "exchange transactions lost transactions/s time mean time var".split()
    assert header in [line.split() for line in out.splitlines()]
    # 20 transactions of 44.624 ms each, back to back: 22.41 per second.
    assert _table_rows(out, "udp_rr") == {
        "ping": ["ping", "20", "0", "22.41", "44.62", "ms", "0", "s²"]
    }


def _summary_rows(section: str, prefix: str) -> list[list[str]]:
    table = re.search(rf'<table class="summary {prefix}">(.*?)</table>', section, re.S)
    assert table, f"no {prefix} table"
    return [
        re.findall(r"<t[dh][^>]*>(?:<code>)?(.*?)(?:</code>)?</t[dh]>", row)
        for row in re.findall(r"<tr[^>]*>(.*?)</tr>", table.group(1), re.S)
    ]


def test_campaign_report_has_the_udp_rr_table_and_figures(rr_campaign: Path) -> None:
    section = report.campaign_section(rr_campaign)
    assert "<h3>UDP request/response exchanges</h3>" in section
    # Both seeds give the same times (nothing random on the path): CI 0.
    assert _summary_rows(section, "udp_rr") == [
        ["links.ab.delay", "exchange", "n", "lost", "transactions/s", "time mean (ms)"],
        ["20 ms", "ping", "2", "0 ± 0", "22.41 ± 0", "44.62 ± 0"],
        ["50 ms", "ping", "2", "0 ± 0", "9.558 ± 0", "104.6 ± 0"],
    ]
    for header in ("lost", "transactions/s", "time mean"):
        assert f'alt="udp_rr {header} vs links.ab.delay"' in section


def test_a_new_group_is_one_entry(
    rr_file: Path, rr_campaign: Path, capsys: pytest.CaptureFixture, monkeypatch
) -> None:
    assert run_cli(["run", str(rr_file)]) == 0
    before = capsys.readouterr().out
    assert "sinks" not in before
    assert 'class="summary sinks"' not in report.campaign_section(rr_campaign)

    monkeypatch.setattr(summary_tables, "GROUPS", (*GROUPS, SINKS))
    assert run_cli(["run", str(rr_file)]) == 0
    rows = _table_rows(capsys.readouterr().out, "sinks")
    assert rows["rx"][1] == "63"  # 1000 B every 80 ms, from 0 to 4.96 s
    section = report.campaign_section(rr_campaign)
    assert "<h3>Sinks</h3>" in section
    assert _summary_rows(section, "sinks")[0][-2:] == ["received", "throughput (kbps)"]
    assert 'alt="sinks throughput vs links.ab.delay"' in section


# Every model and every summary group of the core, in the guard scenarios.
GUARDS = sorted((Path(__file__).parent / "data" / "guard").glob("*.toml"))


def test_declared_keys_are_the_ones_the_core_writes() -> None:
    summary = {}
    for path in GUARDS:
        summary.update(runner.run(scenario.load(path), progress=False).summary)
    # Links with an active queue (no guard scenario has one).
    for queue in ({"type": "red", "min_th": 5, "max_th": 15}, {"type": "codel"}):
        aqm = {
            "run": {"name": "aqm", "duration": "1 s"},
            "nodes": {"a": {"type": "host"}, "b": {"type": "host"}},
            "links": {
                "ab": {"from": "a", "to": "b", "rate": "1 Mbps", "queue": queue, "duplex": True}
            },
            "tcp": {"f": {"from": "a", "to": "b", "app": {"type": "bulk"}}},
        }
        result = runner.run(scenario.Scenario.from_dict(aqm), progress=False)
        summary.update(
            {k.replace(".ab.", f".ab_{queue['type']}."): v for k, v in result.summary.items()}
        )
    for group in GROUPS:
        entities = group.entities(summary)
        assert entities, f"no {group.prefix} in the guard scenarios"
        for name, values in entities.items():
            missing = [c.key for c in group.columns if c.key not in values]
            assert not missing, f"{group.prefix}.{name} has no {missing}"


def test_groups_are_well_formed() -> None:
    prefixes = [(g.prefix, g.only_with) for g in GROUPS]
    assert len(set(prefixes)) == len(prefixes)
    assert ("udp_rr", "") in prefixes
    for group in GROUPS:
        headers = [c.header for c in group.columns]
        assert len(set(headers)) == len(headers), group.prefix
        assert group.report_columns(), f"{group.prefix} would never reach the report"


def test_column_kind_is_checked_and_cells_carry_the_unit() -> None:
    with pytest.raises(ValueError, match="unknown kind 'bytes'"):
        Column("size", "size_bytes", "bytes")
    queue = Column("queue mean", "queue_mean_packets", "number", "pkt")
    assert queue.cell(2.18234) == "2.182 pkt"
    assert queue.cell(None) == "n/a"
    assert Column("goodput", "goodput_bps", "rate").cell(1.5e6) == "1.5 Mbps"


def test_entities_groups_keys_by_name() -> None:
    summary = {
        "links.b.drops": 2,
        "links.a.drops": 1,
        "links.a.vc_forward.cells_sent": 7,
        "flows.a.loss_rate": 0.0,
        "run.events": 10,
    }
    links = next(g for g in GROUPS if g.prefix == "links")
    assert links.entities(summary) == {
        "a": {"drops": 1, "vc_forward.cells_sent": 7},
        "b": {"drops": 2},
    }
