# Sweeps (docs/campaigns.md): value lists and range(), seeds, grid expansion,
# run keys, validation of every point before anything runs, skipping what the
# store holds, resuming after kill -9, the version guard, and the CLI.

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import satcc
from campaign_helpers import stored_runs, wait_stored
from satcc import _core
from satcc.cli import run_cli
from satcc.scenario import ScenarioError
from satcc.store import Campaign, CampaignError
from satcc.sweep_values import split_top_level
from satcc.sweeps import (
    SweepError,
    expand,
    parse_seeds,
    parse_values,
    run_key,
)
from satcc.sweeps import sweep as run_sweep

ROOT = Path(__file__).resolve().parents[1]
MM1 = ROOT / "examples" / "mm1.toml"
RATE = "sources.arrivals.rate"
FINAL = re.compile(
    r"^(\d+) runs: (\d+) done now, (\d+) skipped \(already in the store\), (\d+) failed -> (.+)$",
    re.M,
)


def tiny(tmp_path: Path, duration: str = "2 s", sample: str = "1 s") -> Path:
    text = MM1.read_text().replace('duration = "600 s"', f'duration = "{duration}"')
    text = text.replace('sample_interval = "1 s"', f'sample_interval = "{sample}"')
    path = tmp_path / "mm1.toml"
    path.write_text(text)
    return path


def final_line(text: str) -> tuple[int, int, int, int]:
    m = FINAL.search(text)
    assert m, text
    return tuple(int(m.group(i)) for i in range(1, 5))


# ---------------------------------------------------------------------------
# Value lists, ranges, seeds, the grid


def test_values_toml_or_text():
    assert parse_values("3,0.5,true") == [3, 0.5, True]
    assert parse_values("2 Mbps, 4 Mbps") == ["2 Mbps", "4 Mbps"]
    assert parse_values('"a, b",c') == ["a, b", "c"]


def test_commas_inside_arrays_and_tables_do_not_split():
    text = '[1, 2], {type = "droptail", limit = "10 packets"}, x'
    assert split_top_level(text) == ["[1, 2]", '{type = "droptail", limit = "10 packets"}', "x"]
    assert parse_values(text) == [[1, 2], {"type": "droptail", "limit": "10 packets"}, "x"]


def test_range_integers_floats_and_units():
    assert parse_values("range(1, 5)") == [1, 2, 3, 4]
    assert parse_values("range(0, 10, 3)") == [0, 3, 6, 9]
    assert parse_values("range(5, 1, -2)") == [5, 3]
    assert parse_values("range(0.5, 1, 0.1)") == [0.5, 0.6, 0.7, 0.8, 0.9]
    assert parse_values("range(0, 0.3, 0.1)") == [0.0, 0.1, 0.2]
    assert parse_values("range(1, 5) Mbps") == ["1 Mbps", "2 Mbps", "3 Mbps", "4 Mbps"]
    assert parse_values("range(0.5, 1, 0.25) s") == ["0.5 s", "0.75 s"]
    assert parse_values("1 Mbps, range(2, 4) Mbps") == ["1 Mbps", "2 Mbps", "3 Mbps"]


@pytest.mark.parametrize("bad", ["range(1)", "range(1, 2, 0)", "range(a, 3)", "1,,2"])
def test_bad_value_lists(bad):
    with pytest.raises(SweepError):
        parse_values(bad)


def test_seeds():
    assert parse_seeds("1..4") == [1, 2, 3, 4]
    assert parse_seeds("1,2,7") == [1, 2, 7]
    assert parse_seeds("5") == [5]
    assert parse_seeds(3) == [3]
    assert parse_seeds(range(1, 4)) == [1, 2, 3]
    assert parse_seeds(None) is None
    for bad in ["4..1", "a", "1,-2", "", [1.5]]:
        with pytest.raises(SweepError):
            parse_seeds(bad)


def test_grid_sizes():
    keys, points = expand(set=["a=1,2,3", "b=x,y"], seeds="1..4")
    assert keys == ["a", "b"]
    assert len(points) == 3 * 2 * 4
    keys, points = expand(set={"a": [1, 2]}, zip={"b": [1, 2, 3], "c": ["p", "q", "r"]})
    assert keys == ["a", "b", "c"]
    assert len(points) == 2 * 3
    assert {(p.params["b"], p.params["c"]) for p in points} == {(1, "p"), (2, "q"), (3, "r")}
    assert all(p.seed is None for p in points)
    _, points = expand()
    assert len(points) == 1 and points[0].params == {}


def test_zip_lengths_must_match():
    with pytest.raises(SweepError, match="same length"):
        expand(zip=["a=1,2", "b=1,2,3"])


def test_a_key_swept_twice_is_refused():
    with pytest.raises(SweepError, match="twice"):
        expand(set=["a=1,2"], zip=["a=3,4"])


# ---------------------------------------------------------------------------
# Run keys


def test_run_keys_stable_and_distinct():
    sc = satcc.load(MM1)
    desc = sc.validate(seed=1)
    key = run_key(desc)
    assert re.fullmatch(r"[0-9a-f]{20}", key)
    assert run_key(dict(reversed(list(desc.items())))) == key  # dict order is irrelevant
    assert run_key(satcc.load(MM1).validate(seed=1)) == key  # stable across loads
    assert run_key(sc.validate(seed=2)) != key
    other = sc.copy().set(RATE, "7 Mbps").validate(seed=1)
    assert run_key(other) != key
    # Only the normalised meaning counts: 8 Mbps written as 8000 kbps is the same run.
    same = sc.copy().set(RATE, "8000 kbps").validate(seed=1)
    assert run_key(same) == key


def test_run_key_includes_the_build(monkeypatch):
    # Any change to the code is another build: its keys match no stored run.
    from satcc import build

    desc = satcc.load(MM1).validate(seed=1)
    key = run_key(desc)
    monkeypatch.setattr(build, "build_id", lambda: "0123456789abcdef")
    assert run_key(desc) != key


def test_the_build_is_a_digest_of_the_core_and_the_python_sources(tmp_path, monkeypatch):
    from satcc import build

    ours = build.build_id()
    assert len(ours) == 16 and int(ours, 16) >= 0
    # A copy of the package with one Python source edited is another build.
    import shutil

    package = Path(build.__file__).parent
    copy = tmp_path / "satcc"
    shutil.copytree(package, copy, ignore=shutil.ignore_patterns("__pycache__"))
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]); import satcc.build as b; "
        "print(b.build_id(), b.__file__)"
    )
    run = lambda: subprocess.run(  # noqa: E731
        [sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, check=True
    ).stdout.split()
    same, where = run()
    assert where.startswith(str(tmp_path)) and same == ours
    (copy / "units.py").write_text((copy / "units.py").read_text() + "\n# an edit\n")
    assert run()[0] != ours


def test_run_key_is_stable_in_another_process():
    code = (
        "import satcc; from satcc.sweeps import run_key;"
        f"print(run_key(satcc.load({str(MM1)!r}).validate(seed=4)))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert out == run_key(satcc.load(MM1).validate(seed=4))


# ---------------------------------------------------------------------------
# Sweeps through the Python API


def test_bad_point_refused_before_anything_runs(tmp_path):
    campaign = tmp_path / "c"
    with pytest.raises(ScenarioError) as e:
        run_sweep(tiny(tmp_path), set={RATE: ["2 Mbps", "-1 Mbps"]}, campaign=campaign)
    message = str(e.value)
    assert message.startswith(f'sweep point {RATE}="-1 Mbps": {RATE}:'), message
    assert "positive" in message
    assert e.value.path == RATE
    assert not campaign.exists()


def test_sweep_writes_the_store_and_a_second_run_skips_everything(tmp_path):
    scenario = tiny(tmp_path)
    campaign = tmp_path / "c"
    args = {"set": {RATE: ["2 Mbps", "4 Mbps"]}, "seeds": "1..3", "campaign": campaign}
    c = run_sweep(scenario, **args, jobs=1)
    assert (c.last_sweep.total, c.last_sweep.done_now, c.last_sweep.skipped) == (6, 6, 0)
    runs = c.runs()
    assert len(runs) == 6 and runs["key"].is_unique and set(runs["status"]) == {"ok"}
    assert sorted(runs["seed"].unique()) == [1, 2, 3]
    assert set(runs[f"param.{RATE}"]) == {"2 Mbps", "4 Mbps"}

    again = run_sweep(scenario, **args, jobs=2)
    counts = again.last_sweep
    assert (counts.total, counts.done_now, counts.skipped, counts.failed) == (6, 0, 6, 0)
    assert counts.line() == (
        f"6 runs: 0 done now, 6 skipped (already in the store), 0 failed -> {campaign}"
    )
    runs = Campaign.open(campaign).runs()
    assert len(runs) == 6 and runs["key"].is_unique

    # Growing the grid runs only the new points.
    more = run_sweep(
        scenario,
        set={RATE: ["2 Mbps", "4 Mbps", "6 Mbps"]},
        seeds="1..3",
        campaign=campaign,
        jobs=1,
    )
    assert (more.last_sweep.done_now, more.last_sweep.skipped) == (3, 6)
    assert len(more.runs()) == 9


def test_parallel_sweep_with_the_local_executor(tmp_path):
    c = run_sweep(tiny(tmp_path), seeds="1..4", campaign=tmp_path / "c", jobs=2)
    assert c.last_sweep.done_now == 4
    assert len(c.summary()) == 4


def test_version_mismatch_refused_unless_allowed(tmp_path):
    scenario = tiny(tmp_path)
    campaign = tmp_path / "c"
    run_sweep(scenario, seeds="1", campaign=campaign, jobs=1)
    meta = campaign / "campaign.json"
    meta.write_text(meta.read_text().replace(_core.version(), "0.0.0-old"))
    with pytest.raises(CampaignError, match="0.0.0-old"):
        run_sweep(scenario, seeds="1..2", campaign=campaign, jobs=1)
    assert len(Campaign.open(campaign).runs()) == 1  # nothing was run
    c = run_sweep(scenario, seeds="1..2", campaign=campaign, jobs=1, allow_version_mix=True)
    # The version is in the key, but the old run was this version's, so it is skipped.
    assert (c.last_sweep.done_now, c.last_sweep.skipped) == (1, 1)


def test_a_campaign_of_another_build_is_refused_and_its_runs_never_reused(tmp_path, monkeypatch):
    # A stored run outlives a code change only if satcc cannot tell: the
    # campaign records its build, and every run its own.
    from satcc import build

    scenario = tiny(tmp_path)
    campaign = tmp_path / "c"
    run_sweep(scenario, seeds="1..2", campaign=campaign, jobs=1)
    old = build.build_id()
    assert Campaign.open(campaign).build == old
    assert Campaign.open(campaign).builds() == {old: 2}
    # The code changes (an edit and `make dev`): another build.
    monkeypatch.setattr(build, "build_id", lambda: "feedfacefeedface")
    with pytest.raises(CampaignError, match=f"build {old}.*feedfacefeedface"):
        run_sweep(scenario, seeds="1..2", campaign=campaign, jobs=1)
    assert len(Campaign.open(campaign).runs()) == 2  # nothing was run
    # Kept deliberately: both seeds run again, and the tables say by whom.
    c = run_sweep(scenario, seeds="1..2", campaign=campaign, jobs=1, allow_version_mix=True)
    assert (c.last_sweep.done_now, c.last_sweep.skipped) == (2, 0)
    assert c.builds() == {old: 2, "feedfacefeedface": 2}
    assert set(c.runs()["satcc_build"]) == {old, "feedfacefeedface"}


def test_an_outcome_of_another_build_is_stored_as_a_failure(tmp_path):
    # A worker running other code (a cluster not reinstalled) must not fill
    # this build's keys with its results.
    from satcc.executors import Outcome
    from satcc.store import RunPoint

    c = Campaign.open(tmp_path / "c", create_with={"satcc_version": _core.version()})
    good = Outcome("k1", True, {"run.events": 1}, info={"satcc_build": build_id_now()})
    stale = Outcome("k2", True, {"run.events": 1}, info={"satcc_build": "0000000000000000"})
    stored = c.append([good, stale], [RunPoint({}, 1), RunPoint({}, 2)])
    # What the caller goes on with is what was stored.
    assert [o.ok for o in stored] == [True, False] and stored[1].summary is None
    runs = c.runs().set_index("key")
    assert runs.loc["k1", "status"] == "ok"
    assert runs.loc["k2", "status"] == "failed"
    assert "0000000000000000" in runs.loc["k2", "error"]
    assert list(c.summary()["key"]) == ["k1"]


def build_id_now() -> str:
    from satcc.build import build_id

    return build_id()


class _FlakyExecutor:
    """Fails the runs of seed 2 (a failed run is recorded and retried next time)."""

    def __init__(self, fail):
        self.fail = fail
        self.closed = False

    def run(self, tasks):
        import json

        from satcc.executors import Outcome, execute

        for task in tasks:
            if json.loads(task.description)["seed"] in self.fail:
                yield Outcome(task.key, False, error="RuntimeError: boom")
            else:
                yield execute(task)

    def close(self):
        self.closed = True


def test_failed_runs_are_recorded_and_rerun(tmp_path):
    scenario = tiny(tmp_path)
    campaign = tmp_path / "c"
    flaky = _FlakyExecutor({2})
    c = run_sweep(scenario, seeds="1..3", campaign=campaign, executor=flaky)
    assert flaky.closed
    assert (c.last_sweep.done_now, c.last_sweep.failed) == (2, 1)
    runs = c.runs()
    failed = runs[runs["status"] == "failed"]
    assert list(failed["seed"]) == [2] and failed["error"].iloc[0] == "RuntimeError: boom"
    assert len(c.summary()) == 2

    c = run_sweep(scenario, seeds="1..3", campaign=campaign, executor=_FlakyExecutor(set()))
    assert (c.last_sweep.done_now, c.last_sweep.skipped, c.last_sweep.failed) == (1, 2, 0)
    runs = c.runs()
    assert len(runs) == 3 and set(runs["status"]) == {"ok"}  # ok preferred over failed


class _OtherBuildExecutor(_FlakyExecutor):
    """Runs every task, but the runs of the seeds in `fail` come from a
    worker that runs other code."""

    def run(self, tasks):
        import dataclasses
        import json

        from satcc.executors import execute

        for task in tasks:
            outcome = execute(task)
            if json.loads(task.description)["seed"] in self.fail:
                info = {**outcome.info, "satcc_build": "0000000000000000"}
                outcome = dataclasses.replace(outcome, info=info)
            yield outcome


def test_a_run_of_another_build_is_counted_as_the_failure_it_is_stored_as(tmp_path):
    other = _OtherBuildExecutor({2})
    c = run_sweep(tiny(tmp_path), seeds="1..3", campaign=tmp_path / "c", executor=other)
    assert (c.last_sweep.done_now, c.last_sweep.failed) == (2, 1)
    assert "install the same satcc" in c.last_sweep.errors[0][1]
    assert len(c.summary()) == 2


def test_a_sweep_whose_every_run_failed_raises(tmp_path):
    # A script reading the campaign afterwards would see an empty table as
    # if all were well; the failures are still stored.
    from satcc.sweeps import SweepFailed

    campaign = tmp_path / "c"
    with pytest.raises(SweepFailed, match="all 2 runs of the sweep failed") as e:
        run_sweep(tiny(tmp_path), seeds="1..2", campaign=campaign, executor=_FlakyExecutor({1, 2}))
    assert (e.value.counts.done_now, e.value.counts.failed) == (0, 2)
    assert "import the main script" not in str(e.value)  # no hint for an ordinary failure
    assert set(Campaign.open(campaign).runs()["status"]) == {"failed"}


def test_cli_sweep_whose_every_run_failed_exits_1(tmp_path, capsys):
    scenario = tiny(tmp_path, duration="6000 s", sample="100 s")  # well over 1 ms of work
    code = run_cli(
        [
            "sweep",
            str(scenario),
            "--seeds",
            "1..2",
            "--max-wall",
            "1 ms",
            "--campaign",
            str(tmp_path / "c"),
            "--jobs",
            "1",
        ]
    )
    out = capsys.readouterr()
    assert code == 1, out
    assert final_line(out.out) == (2, 0, 0, 2)
    assert "wall-clock" in out.err


PLAIN_SCRIPT = """
import satcc
c = satcc.sweep({scenario!r}, seeds="1..2", campaign={campaign!r}, jobs=2)
print("rows", len(c.summary()))
"""


@pytest.mark.parametrize("how", ["file", "stdin"])
def test_a_sweep_in_an_unguarded_script_fails_fast(tmp_path, how):
    # Workers import the main script. Unguarded, each started its own sweep
    # and waited for the parent's campaign lock, forever; from standard input
    # every worker died and the sweep returned an empty table as if fine.
    text = PLAIN_SCRIPT.format(scenario=str(tiny(tmp_path)), campaign=str(tmp_path / "c"))
    script = tmp_path / "plain.py"
    script.write_text(text)
    args = [sys.executable, str(script)] if how == "file" else [sys.executable, "-"]
    done = subprocess.run(
        args,
        input=None if how == "file" else text,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=300,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("satcc.sweeps.SweepFailed: all 2 runs of the sweep failed"), last
    assert '`if __name__ == "__main__":`' in last
    assert "rows" not in done.stdout
    if how == "file":
        assert "StartedWhileImporting" in done.stderr  # the worker says why at once


def test_the_same_script_guarded_runs(tmp_path):
    body = PLAIN_SCRIPT.format(scenario=str(tiny(tmp_path)), campaign=str(tmp_path / "c"))
    lines = body.strip().splitlines()
    script = tmp_path / "guarded.py"
    script.write_text(
        lines[0]
        + '\nif __name__ == "__main__":\n'
        + "\n".join("    " + line for line in lines[1:])
        + "\n"
    )
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, cwd=tmp_path, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert "rows 2" in done.stdout


def test_refuses_while_a_worker_imports_the_main_script(monkeypatch):
    import multiprocessing

    from satcc.executors import StartedWhileImporting, refuse_while_importing

    refuse_while_importing("satcc.sweep")  # an ordinary process: nothing to say
    monkeypatch.setattr(multiprocessing.current_process(), "_inheriting", True, raising=False)
    with pytest.raises(StartedWhileImporting, match="satcc.sweep was started while a worker"):
        refuse_while_importing("satcc.sweep")


def test_interrupt_keeps_what_was_stored(tmp_path):
    from satcc.executors import execute
    from satcc.sweeps import SweepInterrupted

    class Interrupting:
        def run(self, tasks):
            for i, task in enumerate(tasks):
                if i == 2:
                    raise KeyboardInterrupt
                yield execute(task)

        def close(self):
            pass

    campaign = tmp_path / "c"
    with pytest.raises(SweepInterrupted) as e:
        run_sweep(tiny(tmp_path), seeds="1..5", campaign=campaign, executor=Interrupting())
    assert e.value.counts.done_now == 2 and e.value.counts.interrupted
    assert len(Campaign.open(campaign).runs()) == 2
    c = run_sweep(tiny(tmp_path), seeds="1..5", campaign=campaign, jobs=1)
    assert (c.last_sweep.done_now, c.last_sweep.skipped) == (3, 2)


def test_satcc_sweep_and_results_are_the_api(tmp_path):
    c = satcc.sweep(
        tiny(tmp_path),
        zip={RATE: ["2 Mbps", "4 Mbps"], "run.name": ["a", "b"]},
        campaign=tmp_path / "c",
        jobs=1,
    )
    assert c.last_sweep.done_now == 2
    assert satcc.results(tmp_path / "c").parameters == [RATE, "run.name"]


# ---------------------------------------------------------------------------
# The command line


def test_cli_sweep_twice(tmp_path, capsys):
    scenario = tiny(tmp_path)
    argv = [
        "sweep",
        str(scenario),
        "--set",
        f"{RATE}=range(2, 6, 2) Mbps",
        "--seeds",
        "1,2",
        "--campaign",
        str(tmp_path / "c"),
        "--jobs",
        "1",
        "--quiet",
    ]
    assert run_cli(argv) == 0
    assert final_line(capsys.readouterr().out) == (4, 4, 0, 0)
    assert run_cli(argv) == 0
    assert final_line(capsys.readouterr().out) == (4, 0, 4, 0)


def test_cli_bad_set_exits_2_naming_the_key(tmp_path, capsys):
    campaign = tmp_path / "c"
    argv = [
        "sweep",
        str(tiny(tmp_path)),
        "--set",
        "links.server.rate=1 Mbps,-1 Mbps",
        "--campaign",
        str(campaign),
    ]
    assert run_cli(argv) == 2
    err = capsys.readouterr().err
    assert 'error: sweep point links.server.rate="-1 Mbps": links.server.rate:' in err
    assert not campaign.exists()
    assert run_cli(["sweep", str(tiny(tmp_path)), "--set", "oops"]) == 2
    assert "bad --set" in capsys.readouterr().err
    assert run_cli(["sweep", str(tiny(tmp_path)), "--zip", "a=1,2", "--zip", "b=1"]) == 2
    assert "same length" in capsys.readouterr().err
    assert run_cli(["sweep", str(tiny(tmp_path)), "--seeds", "3..1"]) == 2
    assert run_cli(["sweep", str(tmp_path / "missing.toml")]) == 2
    assert run_cli(["sweep", str(tiny(tmp_path)), "--max-wall", "soon"]) == 2
    assert run_cli(["sweep", str(tiny(tmp_path)), "--executor", "dask"]) == 2
    assert "--scheduler" in capsys.readouterr().err


def test_cli_version_mismatch(tmp_path, capsys):
    scenario, campaign = tiny(tmp_path), tmp_path / "c"
    argv = ["sweep", str(scenario), "--campaign", str(campaign), "--jobs", "1", "-q"]
    assert run_cli(argv) == 0
    meta = campaign / "campaign.json"
    meta.write_text(meta.read_text().replace(_core.version(), "0.0.0-old"))
    capsys.readouterr()
    assert run_cli(argv) == 2
    assert "allow-version-mix" in capsys.readouterr().err
    assert run_cli([*argv, "--allow-version-mix"]) == 0


def test_cli_help_mentions_examples():
    from click.testing import CliRunner
    from satcc.cli import cli

    for command in ("sweep", "results"):
        result = CliRunner().invoke(cli, [command, "--help"])
        assert result.exit_code == 0 and "Examples:" in result.output


# ---------------------------------------------------------------------------
# kill -9 and resume


def test_kill_9_then_resume(tmp_path):
    # ~40 runs of ~0.1-0.3 s each, one at a time.
    scenario = tiny(tmp_path, duration="1200 s", sample="100 s")
    campaign = tmp_path / "c"
    satcc_bin = Path(sys.executable).parent / "satcc"
    cmd = [
        str(satcc_bin) if satcc_bin.exists() else sys.executable,
        *([] if satcc_bin.exists() else ["-c", "from satcc.cli import main; main()"]),
        "sweep",
        str(scenario),
        "--set",
        f"{RATE}=range(2, 10, 2) Mbps",
        "--seeds",
        "1..10",
        "--campaign",
        str(campaign),
        "--jobs",
        "1",
        "--quiet",
    ]
    proc = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True
    )
    try:
        wait_stored(proc, campaign, 10, bound_s=60)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        proc.stdout.close()
        proc.stderr.close()
    before = stored_runs(campaign)
    assert 10 <= before < 40
    # No process of the killed group survives.
    time.sleep(0.1)
    with pytest.raises(ProcessLookupError):
        os.killpg(proc.pid, 0)

    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    total, now, skipped, failed = final_line(done.stdout)
    assert total == 40 and failed == 0
    assert skipped == before and now == 40 - before
    runs = Campaign.open(campaign).runs()
    assert len(runs) == 40 and runs["key"].is_unique and set(runs["status"]) == {"ok"}
    # Every stored run also has its summary row, exactly once.
    keys = Campaign.open(campaign).sql("select key, count(*) n from summary group by key")
    assert len(keys) == 40 and set(keys["n"]) == {1}


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_stops_promptly_and_keeps_finished_runs(tmp_path):
    # Two workers; Ctrl-C (SIGINT to the whole group, as a
    # terminal sends it) must not wait for the runs in flight or queued.
    # Runs of ~4 s (on an idle machine): finishing the 18 left would take
    # over half a minute, so "prompt" can be told apart from "waited" with a
    # bound that still holds on a loaded CI machine.
    scenario = tiny(tmp_path, duration="32000 s", sample="100 s")
    campaign = tmp_path / "c"
    cmd = [
        sys.executable,
        "-c",
        "from satcc.cli import main; main()",
        "sweep",
        str(scenario),
        "--seeds",
        "1..20",
        "--campaign",
        str(campaign),
        "--jobs",
        "2",
        "--quiet",
    ]
    proc = subprocess.Popen(
        cmd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        # Launched in the background by a shell without job control (as CI
        # runners and nohup-style wrappers may be), this process inherits
        # SIGINT ignored, and Python then installs no Ctrl-C handler: give
        # the sweep the disposition it has under a terminal.
        preexec_fn=_default_sigint,
    )
    try:
        wait_stored(proc, campaign, 2)
        os.killpg(proc.pid, signal.SIGINT)
        t0 = time.monotonic()
        out, err = proc.communicate(timeout=60)
        assert time.monotonic() - t0 < 10
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
    assert proc.returncode == 130, err
    assert "error: interrupted" in err
    total, now, skipped, failed = final_line(out)
    assert total == 20 and skipped == 0 and failed == 0 and now >= 2
    assert "interrupted" in out
    assert len(Campaign.open(campaign).runs()) == now < 20


def test_numpy_integer_seeds_are_seeds_and_floats_are_not():
    import numpy as np
    from satcc.sweeps import SweepError, seed_sequence

    assert seed_sequence(np.int64(3)) == [3]
    assert seed_sequence([np.int32(1), 2, np.uint8(1)]) == [1, 2]
    with pytest.raises(SweepError, match="is not an integer"):
        seed_sequence([1, np.float64(1.5)])
