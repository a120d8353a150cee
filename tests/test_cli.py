# The `satcc` command's contract with scripts: exit statuses (0 ok, 1 failure,
# 2 bad input, 130 interrupted), `error: ...` on stderr naming the key path,
# --set applied before validation, nothing written on failure; and the
# queueing-theory study reproduced end to end in quick mode.

import json
import subprocess
import sys
import textwrap

import pandas as pd
import pytest
import satcc
from satcc.cli import parse_assignment, run_cli

GOOD = """
[run]
name = "tiny"
duration = "2 s"

[nodes.a]
[nodes.b]

[links.ab]
from = "a"
to = "b"
rate = "1 Mbps"
delay = "10 ms"

[sources.s1]
type = "cbr"
from = "a"
to = "rx"
rate = "500 kbps"

[sinks.rx]
node = "b"
"""


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


def call(capsys, *args):
    status = run_cli(list(args))
    out, err = capsys.readouterr()
    return status, out, err


def test_version(capsys):
    status, out, _ = call(capsys, "--version")
    assert status == 0
    assert out.strip() == f"satcc {satcc.__version__}"


def test_help_has_examples(capsys):
    status, out, _ = call(capsys, "run", "--help")
    assert status == 0
    assert "Examples:" in out and "--set" in out and "Without --out nothing is written" in out


def test_validate_ok(capsys, good):
    status, out, err = call(capsys, "validate", str(good))
    assert status == 0, err
    assert out.strip() == f"{good}: ok (2 nodes, 1 link, 1 source)"


def test_validate_bad_file_names_key_path(capsys, bare_rate):
    status, out, err = call(capsys, "validate", str(bare_rate))
    assert status == 2
    assert out == ""
    assert err.startswith("error: ")
    assert "links.ab.rate" in err


def test_run_bad_file_exits_2_and_writes_nothing(capsys, bare_rate, tmp_path):
    status, _, err = call(capsys, "run", str(bare_rate), "--out", str(tmp_path / "out"))
    assert status == 2
    assert "links.ab.rate" in err
    assert not (tmp_path / "out").exists()


def test_missing_file(capsys, tmp_path):
    status, _, err = call(capsys, "run", str(tmp_path / "nope.toml"))
    assert status == 2
    assert err.startswith("error: ") and "no such file" in err


def test_set_is_applied_before_validation(capsys, bare_rate):
    status, out, err = call(capsys, "validate", str(bare_rate), "--set", "links.ab.rate=2 Mbps")
    assert status == 0, err
    assert "ok" in out


def test_bad_set_value_names_key_path(capsys, good):
    status, _, err = call(capsys, "validate", str(good), "--set", "links.ab.rate=fast")
    assert status == 2
    assert "links.ab.rate" in err


def test_set_without_equals_is_bad_input(capsys, good):
    status, _, err = call(capsys, "run", str(good), "--set", "links.ab.rate")
    assert status == 2
    assert "expected KEY=VALUE" in err


@pytest.mark.parametrize(
    "text, key, value",
    [
        ("links.sat.rate=4 Mbps", "links.sat.rate", "4 Mbps"),
        ("links.sat.rate = 4 Mbps ", "links.sat.rate", "4 Mbps"),
        ("run.seed=3", "run.seed", 3),
        ("links.x.loss=0.01", "links.x.loss", 0.01),
        ("links.x.duplex=true", "links.x.duplex", True),
        ('run.name="a=b"', "run.name", "a=b"),
        ("q={type='droptail', limit='5 packets'}", "q", {"type": "droptail", "limit": "5 packets"}),
    ],
)
def test_parse_assignment(text, key, value):
    assert parse_assignment(text) == (key, value)


def test_unknown_study(capsys):
    status, _, err = call(capsys, "reproduce", "no-such-study")
    assert status == 2
    assert err.startswith("error: ")
    assert "no-such-study" in err and "queueing-theory" in err


def test_reproduce_needs_a_study(capsys):
    status, _, err = call(capsys, "reproduce")
    assert status == 2
    assert "missing STUDY" in err


def test_reproduce_list(capsys):
    status, out, _ = call(capsys, "reproduce", "--list")
    assert status == 0
    assert "queueing-theory" in out


def test_unknown_option_is_bad_input(capsys, good):
    status, _, err = call(capsys, "run", str(good), "--frobnicate")
    assert status == 2
    assert err.startswith("error: ") and "--frobnicate" in err


def test_internal_failure_exits_1(capsys, good, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("engine exploded")

    monkeypatch.setattr(satcc.runner, "run", broken)
    status, _, err = call(capsys, "run", str(good))
    assert status == 1
    assert "internal error" in err and "engine exploded" in err


def test_interrupt_exits_130_and_writes_nothing(capsys, good, monkeypatch, tmp_path):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(satcc.runner, "run", interrupted)
    status, _, _ = call(capsys, "run", str(good), "--out", str(tmp_path / "out"))
    assert status == 130
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tiny.toml"]


def test_run_prints_tables_and_writes_result(capsys, good, tmp_path):
    status, out, err = call(capsys, "run", str(good), "--seed", "4", "--out", str(tmp_path / "o"))
    assert status == 0, err
    assert "tiny: seed 4" in out
    assert "flows" in out and "s1" in out and "links" in out and "ab" in out
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert summary["flows.s1.sent_packets"] > 0
    assert json.loads((tmp_path / "o" / "run.json").read_text())["seed"] == 4


def test_run_quiet_prints_nothing(capsys, good):
    status, out, err = call(capsys, "run", str(good), "--quiet")
    assert status == 0
    assert out == "" and err == ""


def test_console_script_exit_status(good):
    # The installed entry point, as a shell would run it.
    proc = subprocess.run(
        [sys.executable, "-c", "from satcc.cli import main; main()", "validate", str(good)],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    proc = subprocess.run(
        [sys.executable, "-c", "from satcc.cli import main; main()", "reproduce", "nope"],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 2
    assert proc.stderr.startswith("error: ")


def test_reproduce_queueing_theory_quick_passes_rho_half(tmp_path, capsys):
    status = run_cli(["reproduce", "queueing-theory", "--quick", "--quiet", "--out", str(tmp_path)])
    out, err = capsys.readouterr()
    assert status in (0, 1), err
    assert "checks within tolerance" in out
    table = pd.read_csv(tmp_path / "queueing-theory.csv")
    assert len(table) == 18
    half = table[table["params"].map(lambda p: json.loads(p)["rho"] == 0.5)]
    assert len(half) == 6
    failing = half[~half["passed"]]
    assert failing.empty, textwrap.indent(failing.to_string(), "  ")
    assert (status == 0) == bool(table["passed"].all())


def test_out_folder_of_the_users_own_is_refused_before_running(capsys, good, tmp_path):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep me")
    code, _, err = call(capsys, "run", str(good), "--out", str(mine))
    assert code == 2
    assert "not a satcc result folder" in err
    assert (mine / "notes.txt").read_text() == "keep me"


def test_report_of_a_missing_or_foreign_folder_is_bad_input(capsys, tmp_path):
    out = str(tmp_path / "r.html")
    code, _, err = call(capsys, "report", str(tmp_path / "nope"), "--out", out)
    assert code == 2 and "no such file or folder" in err
    (tmp_path / "plain").mkdir()
    out = str(tmp_path / "r.html")
    code, _, err = call(capsys, "report", str(tmp_path / "plain"), "--out", out)
    assert code == 2
    assert not (tmp_path / "r.html").exists()


def test_allow_fail_turns_only_failed_checks_into_success(monkeypatch, capsys, tmp_path):
    from satcc import studies

    table = pd.DataFrame(
        {
            "passed": [True, False, None],
            "tolerance_kind": ["relative", "factor", "none"],
        }
    )
    monkeypatch.setattr(studies, "reproduce", lambda *a, **k: table)
    args = ["reproduce", "queueing-theory", "--quick", "--quiet", "--out", str(tmp_path)]
    assert run_cli(args) == 1
    assert run_cli([*args, "--allow-fail"]) == 0
    monkeypatch.setattr(studies, "reproduce", lambda *a, **k: table.iloc[[0, 2]])
    assert run_cli(args) == 0, "a row shown but not judged is not a failure"
    capsys.readouterr()
