# Campaign reliability (docs/reliability.md, Campaigns): the size and memory
# bounds of a sweep, the campaign lock between two sweeps, compaction racing
# readers, refusing another scenario's runs, temporary files left by kill -9,
# and signals: SIGTERM handled like Ctrl-C, no process outliving a killed
# sweep.

import os
import re
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import satcc
from campaign_helpers import stored_runs, wait_stored
from satcc import _core, sweeps
from satcc import store as store_module
from satcc.store import Campaign, CampaignError, RunPoint
from satcc.sweeps import SweepError
from satcc.sweeps import sweep as run_sweep
from test_sweep import RATE, final_line, tiny

ROOT = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-c", "from satcc.cli import main; main()"]
# Enough address space for satcc, pyarrow, DuckDB and a small sweep (about
# 1.5 GB is needed); far too little for a grid materialised in memory.
ADDRESS_SPACE = 3 * 2**30


def _limit_address_space() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))


def run_limited(argv: list[str], **kwargs) -> subprocess.CompletedProcess:
    """A command under ADDRESS_SPACE: a grid that would be built in memory
    fails with MemoryError instead of taking the machine's memory."""
    return subprocess.run(
        argv,
        capture_output=True,
        text=True,
        timeout=300,
        preexec_fn=_limit_address_space,
        **kwargs,
    )


# ---------------------------------------------------------------------------
# The size of a sweep and the memory of its bookkeeping


def test_a_huge_seed_range_is_refused_before_anything_is_built(tmp_path):
    campaign = tmp_path / "c"
    argv = [*CLI, "sweep", str(tiny(tmp_path)), "--seeds", "1..100000000"]
    done = run_limited([*argv, "--campaign", str(campaign)])
    assert done.returncode == 2, done.stderr
    assert "100,000,000 runs requested (100,000,000 seeds)" in done.stderr
    assert "at most 1,000,000 runs per sweep" in done.stderr
    assert not campaign.exists()


def test_huge_grids_and_ranges_are_refused_through_the_api():
    code = """
import pytest
from satcc.sweeps import SweepError, expand, grid, parse_seeds, parse_values

for call in (
    lambda: parse_seeds("1..100000000"),
    lambda: parse_seeds(range(10**12)),
    lambda: expand(seeds=range(1, 10**8)),
    lambda: expand(set={"a": range(10**9)}),
    lambda: expand(set={"a": iter(int, 1)}),  # endless
    lambda: parse_values("range(0, 1000000000)"),
    lambda: parse_values("range(0, 1e9, 0.5)"),
):
    with pytest.raises(SweepError, match="1,000,000"):
        call()
with pytest.raises(SweepError) as e:
    expand(set=["a=range(0, 1000)", "b=range(0, 1000)"], seeds="1..2")
assert str(e.value).startswith(
    "2,000,000 runs requested (1,000 values of a × 1,000 values of b × 2 seeds)"
), e.value
# A grid at the bound is accepted, and its size known without building it.
assert grid(set=["a=range(0, 1000)", "b=range(0, 1000)"]).size == 1_000_000
print("ok")
"""
    done = run_limited([sys.executable, "-c", code])
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr


def test_bookkeeping_is_estimated_and_refused_beyond_the_memory_available(tmp_path, monkeypatch):
    scenario, campaign = tiny(tmp_path), tmp_path / "c"
    need = sweeps.check_memory(satcc.load(scenario), sweeps.grid(seeds="1..10000"))
    # Every planned run keeps its description (mm1: under a kilobyte).
    assert 10_000 * 1_000 < need < 10_000 * 10_000
    monkeypatch.setattr(sweeps, "available_memory", lambda: need)  # half is too little
    with pytest.raises(SweepError) as e:
        run_sweep(scenario, seeds="1..10000", campaign=campaign, jobs=1)
    message = str(e.value)
    assert message.startswith("this sweep's bookkeeping needs about ") and "10,000 runs" in message
    assert not campaign.exists()
    monkeypatch.setattr(sweeps, "available_memory", lambda: 2 * need)
    assert run_sweep(scenario, seeds="1..2", campaign=campaign, jobs=1).last_sweep.done_now == 2


def test_cli_bookkeeping_refusal_exits_2(tmp_path, monkeypatch, capsys):
    from satcc.cli import run_cli

    monkeypatch.setattr(sweeps, "available_memory", lambda: 1_000_000)
    argv = ["sweep", str(tiny(tmp_path)), "--seeds", "1..1000", "--campaign", str(tmp_path / "c")]
    assert run_cli(argv) == 2
    assert "bookkeeping needs about" in capsys.readouterr().err


# ---------------------------------------------------------------------------
# Helpers for sweeps in subprocesses


def _start_sweep(scenario: Path, campaign: Path, *args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [*CLI, "sweep", str(scenario), "--campaign", str(campaign), "--quiet", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


def _processes() -> dict[int, tuple[int, str, str]]:
    """pid -> (parent pid, state, start time) from /proc."""
    table = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        table[int(entry)] = (int(fields[1]), fields[0], fields[19])
    return table


def _descendants(pid: int) -> dict[int, str]:
    """Every process below `pid`: pid -> start time (so that a recycled pid
    is not taken for a survivor)."""
    table = _processes()
    found: dict[int, str] = {}
    parents = [pid]
    while parents:
        parent = parents.pop()
        for child, (ppid, _, start) in table.items():
            if ppid == parent and child not in found:
                found[child] = start
                parents.append(child)
    return found


def _survivors(processes: dict[int, str]) -> list[int]:
    """Those still running (a zombie has ended: it only waits to be reaped,
    which in a container whose init does not reap may be never)."""
    table = _processes()
    return [
        pid
        for pid, start in processes.items()
        if pid in table and table[pid][2] == start and table[pid][1] != "Z"
    ]


def _gone_within(processes: dict[int, str], bound_s: float) -> list[int]:
    deadline = time.monotonic() + bound_s
    while (alive := _survivors(processes)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return alive


def _kill(processes: dict[int, str]) -> None:
    for pid in _survivors(processes):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


# ---------------------------------------------------------------------------
# Two sweeps into one campaign


def test_two_sweeps_at_once_compute_each_run_once(tmp_path):
    # 20 runs of ~0.1-0.3 s, one at a time: the second sweep starts while the
    # first is at work.
    scenario, campaign = tiny(tmp_path, duration="600 s", sample="100 s"), tmp_path / "c"
    args = ("--seeds", "1..20", "--jobs", "1")
    first = _start_sweep(scenario, campaign, *args)
    second = None
    try:
        wait_stored(first, campaign, 1)
        second = _start_sweep(scenario, campaign, *args)
        out1, err1 = first.communicate(timeout=300)
        out2, err2 = second.communicate(timeout=300)
    finally:
        for proc in (first, second):
            if proc is not None and proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.communicate()
    assert first.returncode == 0, err1
    assert second.returncode == 0, err2
    assert final_line(out1) == (20, 20, 0, 0)
    # The second waited, said for whom, then found everything done.
    assert f"is in use by another sweep (pid {first.pid} on " in err2
    assert final_line(out2) == (20, 0, 20, 0)
    runs = Campaign.open(campaign).runs()
    assert len(runs) == 20 and runs["key"].is_unique
    assert stored_runs(campaign) == 20


def test_no_wait_refuses_a_campaign_in_use(tmp_path):
    scenario, campaign = tiny(tmp_path, duration="32000 s", sample="100 s"), tmp_path / "c"
    first = _start_sweep(scenario, campaign, "--seeds", "1..20", "--jobs", "1")
    try:
        wait_stored(first, campaign, 1)
        done = subprocess.run(
            [*CLI, "sweep", str(scenario), "--campaign", str(campaign), "--seeds", "1..20"]
            + ["--no-wait", "-q"],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert first.poll() is None  # untouched by the refused one
    finally:
        os.killpg(first.pid, signal.SIGKILL)
        first.communicate()
    assert done.returncode == 2, done.stderr
    assert f"in use by another process (pid {first.pid} on " in done.stderr
    assert "--no-wait" in done.stderr
    assert done.stdout == ""


def test_the_lock_is_released_by_a_killed_holder(tmp_path):
    scenario, campaign = tiny(tmp_path, duration="32000 s", sample="100 s"), tmp_path / "c"
    first = _start_sweep(scenario, campaign, "--seeds", "1..3", "--jobs", "1")
    try:
        wait_stored(first, campaign, 1)
    finally:
        os.killpg(first.pid, signal.SIGKILL)
        first.communicate()
    store = Campaign.open(campaign)
    with store.locked(wait=False):  # no stale lock to clear by hand
        pass


def _start_writer(campaign: Path, runs: int, progress: Path) -> subprocess.Popen:
    """A process appending `runs` runs to `campaign`, compacting after each,
    and writing how many it has stored to `progress`."""
    return subprocess.Popen(
        [sys.executable, "-c", _WRITER, str(campaign), str(runs), str(progress)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_readers_survive_compactions(tmp_path, monkeypatch):
    """A writer appends and compacts in a loop while this process reads:
    every read succeeds at its first attempt (the readers' lock keeps parts
    from vanishing under it; retrying is only the fallback where there is no
    lock) and sees at least the runs stored before it began."""
    monkeypatch.setattr(store_module, "READ_ATTEMPTS", 1)
    campaign, progress = tmp_path / "c", tmp_path / "stored"
    Campaign.open(campaign, create_with=_meta())
    writer = _start_writer(campaign, 150, progress)
    store = Campaign.open(campaign)
    reads = 0
    try:
        while writer.poll() is None:
            before = int(progress.read_text()) if progress.exists() else 0
            assert len(store.runs()) >= before
            assert len(store.done_keys()) >= before
            assert len(store.series("q")) >= 2 * before
            reads += 1
    finally:
        if writer.poll() is None:
            writer.kill()
        out, err = writer.communicate()
    assert writer.returncode == 0, err
    assert reads > 10
    assert len(store.runs()) == 150 and len(store.parts("runs")) == 1


_WRITER = """
import os, sys
from satcc.executors import Outcome
from satcc.store import Campaign, RunPoint

store = Campaign.open(sys.argv[1])
for i in range(int(sys.argv[2])):
    key = f"k{i:04d}"
    outcome = Outcome(key, True, summary={"x": float(i)}, series={"q": ([0.0, 1.0], [1.0, 2.0])},
                      info={"wall_s": 0.0, "events": 1})
    store.append([outcome], {key: RunPoint({"a": i}, 1)})
    store.compact()
    with open(sys.argv[3] + ".tmp", "w") as f:
        f.write(str(i + 1))
    os.replace(sys.argv[3] + ".tmp", sys.argv[3])
"""


def _meta() -> dict:
    return {
        "satcc_version": _core.version(),
        "created": "2026-01-01T00:00:00+00:00",
        "scenario": "test",
        "base_description": None,
        "parameters": ["a"],
    }


def test_an_interrupted_compaction_loses_nothing(tmp_path, monkeypatch):
    store = Campaign.open(tmp_path / "c", create_with=_meta())
    for i in range(3):
        store.append([_ok(f"k{i}")], {f"k{i}": RunPoint({"a": i}, 1)})
    real_unlink = Path.unlink

    def killed_after_the_merge(path, *args, **kwargs):
        if path.name.startswith("part-"):
            raise KeyboardInterrupt  # as if killed between writing and deleting
        return real_unlink(path, *args, **kwargs)

    monkeypatch.setattr(Path, "unlink", killed_after_the_merge)
    with pytest.raises(KeyboardInterrupt):
        store.compact()
    monkeypatch.setattr(Path, "unlink", real_unlink)
    assert len(store.parts("runs")) == 4  # the merged part beside the three it covers
    assert sorted(store.runs()["key"]) == ["k0", "k1", "k2"]
    assert len(store.series("q")) == 6
    store.compact()
    assert [len(store.parts(t)) for t in ("runs", "summary", "series")] == [1, 1, 1]
    assert sorted(store.runs()["key"]) == ["k0", "k1", "k2"]
    assert not list(store.path.rglob(".tmp-*"))


def _ok(key: str):
    from satcc.executors import Outcome

    return Outcome(
        key,
        True,
        summary={"x": 1.0},
        series={"q": ([0.0, 1.0], [1.0, 2.0])},
        info={"wall_s": 0.0, "events": 1},
    )


# ---------------------------------------------------------------------------
# One scenario per campaign


def test_another_scenarios_runs_are_refused_unless_asked_for(tmp_path):
    campaign = tmp_path / "c"
    run_sweep(tiny(tmp_path), seeds="1", campaign=campaign, jobs=1)
    geo = tmp_path / "geo_cbr.toml"
    geo.write_text((ROOT / "examples" / "geo_cbr.toml").read_text().replace("30 s", "1 s"))
    with pytest.raises(CampaignError) as e:
        run_sweep(geo, seeds="1", campaign=campaign, jobs=1)
    message = str(e.value)
    assert "campaign of scenario 'mm1'; this sweep is of scenario 'geo_cbr'" in message
    assert "--allow-other-scenario" in message
    assert len(Campaign.open(campaign).runs()) == 1  # nothing ran
    c = run_sweep(geo, seeds="1", campaign=campaign, jobs=1, allow_other_scenario=True)
    assert c.last_sweep.done_now == 1 and len(c.runs()) == 2


def test_an_edited_scenario_is_another_scenario(tmp_path):
    campaign = tmp_path / "c"
    run_sweep(tiny(tmp_path, duration="2 s"), seeds="1", campaign=campaign, jobs=1)
    with pytest.raises(CampaignError) as e:
        run_sweep(tiny(tmp_path, duration="3 s"), seeds="1", campaign=campaign, jobs=1)
    assert "scenario 'mm1' differs from the one this campaign holds" in str(e.value)
    assert "duration_ps: 2000000000000 -> 3000000000000" in str(e.value)
    # Sweeping other values of the same scenario is what campaigns are for.
    c = run_sweep(tiny(tmp_path), set={RATE: ["4 Mbps"]}, seeds="1", campaign=campaign, jobs=1)
    assert c.last_sweep.done_now == 1


def test_cli_other_scenario_exits_2_naming_both(tmp_path, capsys):
    from satcc.cli import run_cli

    campaign = tmp_path / "c"
    geo = tmp_path / "geo_cbr.toml"
    geo.write_text((ROOT / "examples" / "geo_cbr.toml").read_text().replace("30 s", "1 s"))
    common = ["--campaign", str(campaign), "--jobs", "1", "-q"]
    assert run_cli(["sweep", str(tiny(tmp_path)), *common]) == 0
    capsys.readouterr()
    assert run_cli(["sweep", str(geo), *common]) == 2
    err = capsys.readouterr().err
    assert "'mm1'" in err and "'geo_cbr'" in err and "--allow-other-scenario" in err
    assert run_cli(["sweep", str(geo), *common, "--allow-other-scenario"]) == 0


# ---------------------------------------------------------------------------
# Signals: SIGTERM as Ctrl-C, no process outliving the sweep


def _terminate_when(proc: subprocess.Popen, ready) -> tuple[str, str, list[int]]:
    """SIGTERM to `proc` alone once ready() returns; its output and the
    processes below it still alive 20 s later."""
    tree: dict[int, str] = {}
    try:
        ready()
        tree = _descendants(proc.pid)
        assert tree
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=60)  # returns once nobody holds our pipes
        left = _gone_within(tree, 20)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
        _kill(tree)
    return out, err, left


def test_sigterm_stops_the_sweep_keeps_finished_runs_and_exits_143(tmp_path):
    # Runs of ~4 s on two workers: SIGTERM to the sweep's process alone (as
    # `kill PID` sends it) must stop it without waiting for the runs in
    # flight, and leave no worker behind.
    scenario, campaign = tiny(tmp_path, duration="32000 s", sample="100 s"), tmp_path / "c"
    proc = _start_sweep(scenario, campaign, "--seeds", "1..20", "--jobs", "2")
    out, err, left = _terminate_when(proc, lambda: wait_stored(proc, campaign, 2))
    assert proc.returncode == 143, err
    assert "error: terminated" in err
    total, now, skipped, failed = final_line(out)
    assert total == 20 and skipped == 0 and failed == 0 and now >= 2
    assert "interrupted" in out
    assert len(Campaign.open(campaign).runs()) == now < 20
    assert left == []


def test_sigterm_stops_a_reproduction_as_it_stops_a_sweep(tmp_path):
    # Before: killed outright, exit -15, no message, "leaked semaphore".
    out = tmp_path / "r"
    proc = subprocess.Popen(
        [*CLI, "reproduce", "tfrc-dama", "--quick", "--out", str(out), "-q", "-j", "2"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )

    def first_run_stored() -> None:
        deadline = time.monotonic() + 120
        while not any(out.glob("campaign-*/runs/part-*.parquet")):
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "reproduction too slow"
            time.sleep(0.05)

    _, err, left = _terminate_when(proc, first_run_stored)
    assert proc.returncode == 143, err
    assert err.strip().splitlines()[-1] == "error: terminated"
    assert "leaked" not in err and "Traceback" not in err
    assert left == []


@pytest.mark.parametrize("executor", ["local", "dask-local"])
def test_no_process_outlives_a_killed_sweep(tmp_path, executor):
    # SIGKILL to the sweep's process alone: its forkserver, resource tracker
    # and workers (or Dask's) must end too, and release the caller's pipes.
    scenario, campaign = tiny(tmp_path, duration="32000 s", sample="100 s"), tmp_path / "c"
    args = ("--seeds", "1..20", "--jobs", "2", "--executor", executor, "--max-wall", "5 min")
    proc = _start_sweep(scenario, campaign, *args)
    tree: dict[int, str] = {}
    try:
        wait_stored(proc, campaign, 1)
        tree = _descendants(proc.pid)
        assert len(tree) >= 2
        proc.kill()
        proc.communicate(timeout=30)  # TimeoutExpired while a survivor holds the pipes
        left = _gone_within(tree, 20)
    finally:
        if proc.poll() is None:
            proc.kill()
        _kill(tree)
    assert left == []


# ---------------------------------------------------------------------------
# Temporary files of a writer killed mid-write

_STUCK_APPENDER = """
import sys, time
import pyarrow.parquet as pq
from satcc.executors import Outcome
from satcc.store import Campaign, RunPoint

real = pq.write_table

def write_half_then_hang(table, where, **kwargs):
    real(table, where, **kwargs)
    print("writing", flush=True)
    time.sleep(600)  # killed here, the part written under its temporary name

pq.write_table = write_half_then_hang
store = Campaign.open(sys.argv[1])
store.append([Outcome("k", True, summary={"x": 1.0})], {"k": RunPoint({"a": 1}, 1)})
"""

_HOLDER = """
import sys, time
from pathlib import Path
from satcc.fslocks import hold

held = [hold(Path(p)) for p in sys.argv[1:]]
print("holding", flush=True)
time.sleep(600)
"""


def test_the_next_append_removes_a_killed_writers_temporary_files_only(tmp_path):
    campaign = tmp_path / "c"
    store = Campaign.open(campaign, create_with=_meta())
    writer = subprocess.Popen(
        [sys.executable, "-c", _STUCK_APPENDER, str(campaign)], stdout=subprocess.PIPE, text=True
    )
    assert writer.stdout.readline() == "writing\n"
    writer.kill()
    writer.communicate()
    dead = writer.pid
    summary = campaign / "summary"
    [stale] = [p.name for p in summary.iterdir()]
    assert re.fullmatch(rf"\.tmp-{dead}-[0-9a-f]{{12}}\.parquet", stale)
    # Not a dead writer's: a name we would not give, a link, a file of a
    # running process (1: always running) that is not locked (an older
    # satcc's writer), and one whose id says dead but whose lock is held (a
    # writer in another container or on another machine).
    keep = [
        ".tmp-notes.parquet",
        f".tmp-{dead}-0123456789ab.csv",
        ".tmp-1-0123456789ab.parquet",
        f".tmp-{dead}-aaaaaaaaaaaa.parquet",
        f".tmp-{dead}-bbbbbbbbbbbb.parquet",
    ]
    # campaign.json as a creator killed before renaming it left it.
    (campaign / f".tmp-{dead}-cccccccccccc.json").write_text("{}")
    for name in keep[:-1]:
        (summary / name).write_text("not ours to remove")
    (summary / keep[-1]).symlink_to(tmp_path / "elsewhere")
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLDER, str(summary / keep[3])], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout.readline() == "holding\n"
        store.append([_ok("k2")], {"k2": RunPoint({"a": 2}, 1)})
    finally:
        holder.kill()
        holder.communicate()
    names = sorted(p.name for p in summary.iterdir())
    assert names == sorted([*keep, "part-000001.parquet"])
    assert not (campaign / f".tmp-{dead}-cccccccccccc.json").exists()
    assert list(store.runs()["key"]) == ["k2"]


def test_a_report_survives_compactions(tmp_path):
    """The report reads parts directly; a compaction deleting one under it
    must make it read again, not fail (it raised FileNotFoundError)."""
    from satcc.report.campaign_data import load_campaign

    campaign, progress = tmp_path / "c", tmp_path / "stored"
    Campaign.open(campaign, create_with=_meta())
    writer = _start_writer(campaign, 60, progress)
    reads = 0
    try:
        while writer.poll() is None:
            before = int(progress.read_text()) if progress.exists() else 0
            assert len(load_campaign(campaign).runs) >= before
            reads += 1
    finally:
        if writer.poll() is None:
            writer.kill()
        out, err = writer.communicate()
    assert writer.returncode == 0, err
    assert reads > 5
