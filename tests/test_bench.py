# `satcc bench`: the figures' structure, never their values (speed is
# measured and recorded in BENCHMARKS.md, not asserted). B3 runs for 0.2
# simulated seconds here.

import json

import pytest
from satcc import bench
from satcc.cli import run_cli
from satcc.studies import abr_lrd_vbr

FIGURES = {
    "scenario": str,
    "simulated_s": float,
    "wall_s": float,
    "process_wall_s": float,
    "events": int,
    "transmissions": int,
    "transmissions_per_s": float,
    "events_per_s": float,
    "sim_s_per_wall_s": float,
    "drops": int,
    "peak_rss_mb": float,
}


def test_b3_is_the_studys_heaviest_run():
    builder, full_s = bench.SCENARIOS["B3"]
    assert full_s == 170.0
    assert builder(170.0) == abr_lrd_vbr.scenario("sat-long", 512, (5e6, 5e6), 170.0)
    assert "B3" in bench.DEFAULT


def test_b3_json_figures(capsys):
    assert run_cli(["bench", "--json", "--duration", "0.2 s", "B3"]) == 0
    [row] = json.loads(capsys.readouterr().out)
    for key, kind in FIGURES.items():
        assert isinstance(row[key], kind), key
    assert row["scenario"] == "B3"
    assert row["simulated_s"] == pytest.approx(0.2)
    assert row["events"] > 0 and row["transmissions"] > 0
    # The rates are the counts over the run's own wall time.
    wall = row["wall_s"]
    assert row["transmissions_per_s"] * wall == pytest.approx(row["transmissions"])
    assert row["events_per_s"] * wall == pytest.approx(row["events"])
    assert row["sim_s_per_wall_s"] * wall == pytest.approx(0.2)
    assert "goodput_mbps" in row  # None while no TCP byte has arrived yet
    assert row["peak_rss_mb"] > 0


def test_b3_table(capsys):
    assert run_cli(["bench", "--duration", "0.2 s", "B3"]) == 0
    out = capsys.readouterr().out
    assert "B3, abr-lrd-vbr sat-long" in out
    for header in ("transmissions/s", "events/s", "sim s / wall s", "peak RSS"):
        assert header in out
    assert ">= 1 simulated second per wall second" in out
    assert "B1, cell storm" not in out and "B2, TCP dumbbell" not in out


def test_peak_memory_is_the_benchmark_process_own():
    # Linux carries ru_maxrss over an exec, so a child measured that way
    # would report this process's peak; 256 MB here must not show there.
    ballast = b"x" * (256 * 2**20)
    row = bench._measure_in_subprocess("B3", 0.2)
    assert len(ballast) and row["peak_rss_mb"] < 200


def _fake_probe(tmp_path, output="events 1 tx 1 delivered 1 wall 1s  ev/s 2.00M  tx/s 20.00M"):
    # Stands in for the bare-loop probe: prints its line, remembers its argument.
    script = tmp_path / "probe"
    script.write_text(f'#!/bin/sh\necho "$1" > {tmp_path}/arg\necho "{output}"\n')
    script.chmod(0o755)
    return script


def test_b1_runs_the_probe_after_it_and_gives_the_ratio(tmp_path, capsys):
    probe = _fake_probe(tmp_path)
    assert run_cli(["bench", "--json", "--duration", "0.5 s", "--probe", str(probe), "B1"]) == 0
    [row] = json.loads(capsys.readouterr().out)
    assert row["probe_tx_per_s"] == 20e6
    assert row["ratio_to_probe"] == pytest.approx(row["transmissions_per_s"] / 20e6)
    # The probe simulates whole seconds, at least one.
    assert (tmp_path / "arg").read_text().strip() == "1"
    assert run_cli(["bench", "--duration", "0.5 s", "--probe", str(probe), "B1"]) == 0
    assert "satcc / probe = " in capsys.readouterr().out


def test_without_a_probe_b1_says_how_to_get_one(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)  # no ../shared here
    assert run_cli(["bench", "--duration", "0.5 s", "B1"]) == 0
    assert "--probe ../shared/bench/b1-bare-loop" in capsys.readouterr().out


@pytest.mark.parametrize(
    "make, why",
    [
        (lambda p: p / "nothing", "neither the probe's sources nor an executable"),
        (lambda p: p, "no Cargo.toml there"),
        (lambda p: _fake_probe(p, output="garbage"), "printed no tx/s"),
    ],
)
def test_a_wrong_probe_is_bad_input(tmp_path, capsys, make, why):
    assert run_cli(["bench", "--duration", "0.5 s", "--probe", str(make(tmp_path)), "B1"]) == 2
    assert why in capsys.readouterr().err
