# Result folders: round trip, byte-identical deterministic files, atomicity
# (a failure or Ctrl-C at any point leaves the previous folder as it was), and
# what a writer killed with kill -9 leaves behind (removed by the next write).

import json
import math
import os
import signal
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from satcc import result_folder as results
from satcc.result_folder import read_result, write_result, write_series_parquet

DESCRIPTION = {
    "name": "tiny",
    "seed": 3,
    "duration_ps": 1_000_000_000_000,
    "nodes": [{"name": "a", "kind": "router", "routes": {"b": "ab"}}],
}


class FakeResult:
    """The parts of satcc.runner.Result that write_result reads."""

    def __init__(self, summary=None, series=None, info=None, seed=3):
        self.summary = summary or {
            "run.events": 1234,
            "run.end_time_s": 1.0,
            "links.ab.utilisation": 0.5,
            "flows.s1.delay_p99_s": math.nan,
            "flows.s1.loss_rate": 0.0,
        }
        self._series = series or {
            "q.queue_packets": pd.DataFrame({"time_s": [0.1, 0.2, 0.3], "value": [0.0, 2.0, 1.0]}),
            "rx.throughput_bps": pd.DataFrame({"time_s": [0.1, 0.2], "value": [1e6, 2e6]}),
        }
        self.description = DESCRIPTION
        self.seed = seed
        self.info = info or {"satcc": "test", "wall_s": 0.01, "events": 1234}

    @property
    def series_names(self):
        return list(self._series)

    def series(self, name):
        return self._series[name]


def hidden_siblings(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.parent.iterdir() if p.name.startswith("."))


def tree_bytes(folder: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


def test_round_trip(tmp_path):
    result = FakeResult()
    out = write_result(result, tmp_path / "run1")
    stored = read_result(out)
    assert stored.summary.keys() == result.summary.keys()
    assert math.isnan(stored.summary["flows.s1.delay_p99_s"])
    assert stored.summary["run.events"] == 1234
    assert set(stored.series) == set(result.series_names)
    for name in result.series_names:
        pd.testing.assert_frame_equal(stored.series[name], result.series(name))
    assert stored.description["name"] == "tiny"
    assert stored.run["seed"] == 3
    assert stored.run["wall_s"] == 0.01
    assert hidden_siblings(out) == []


def test_summary_json_is_sorted_and_newline_terminated(tmp_path):
    out = write_result(FakeResult(summary={"b": 1, "a": 2}), tmp_path / "r")
    text = (out / "summary.json").read_text()
    assert text == json.dumps({"a": 2, "b": 1}, indent=2) + "\n"


def test_identical_results_give_identical_bytes_except_run_json(tmp_path):
    first = write_result(FakeResult(info={"wall_s": 1.0}), tmp_path / "first")
    second = write_result(FakeResult(info={"wall_s": 9.0}), tmp_path / "second")
    a, b = tree_bytes(first), tree_bytes(second)
    assert a.keys() == b.keys()
    differing = sorted(name for name in a if a[name] != b[name])
    assert differing == ["run.json"]


def test_parquet_bytes_do_not_depend_on_when_written(tmp_path):
    frame = pd.DataFrame({"time_s": [0.0, 0.5, 1.0], "value": [1.5, float("nan"), 3.0]})
    write_series_parquet(frame, tmp_path / "a.parquet")
    os.utime(tmp_path, (0, 0))
    write_series_parquet(frame.copy(), tmp_path / "b.parquet")
    assert (tmp_path / "a.parquet").read_bytes() == (tmp_path / "b.parquet").read_bytes()


def test_overwrite_replaces_the_whole_folder(tmp_path):
    target = tmp_path / "out"
    write_result(FakeResult(summary={"old": 1}), target)
    (target / "stale.txt").write_text("from an earlier run")
    write_result(FakeResult(summary={"new": 2}), target)
    assert read_result(target).summary == {"new": 2}
    assert not (target / "stale.txt").exists()
    assert hidden_siblings(target) == []


def test_overwrite_false_refuses_and_keeps_old(tmp_path):
    target = tmp_path / "out"
    write_result(FakeResult(summary={"old": 1}), target)
    with pytest.raises(FileExistsError):
        write_result(FakeResult(summary={"new": 2}), target, overwrite=False)
    assert read_result(target).summary == {"old": 1}
    assert hidden_siblings(target) == []


@pytest.mark.parametrize("exception", [RuntimeError("disk full"), KeyboardInterrupt()])
def test_failure_mid_write_leaves_old_output_and_no_temp(tmp_path, monkeypatch, exception):
    target = tmp_path / "out"
    write_result(FakeResult(summary={"old": 1}), target)
    before = tree_bytes(target)
    calls = []
    real = results.write_series_parquet

    def fail_on_second_series(frame, path):
        calls.append(path)
        if len(calls) == 2:
            raise exception
        real(frame, path)

    monkeypatch.setattr(results, "write_series_parquet", fail_on_second_series)
    with pytest.raises(type(exception)):
        write_result(FakeResult(summary={"new": 2}), target)
    assert len(calls) == 2  # the failure really happened mid-write
    assert tree_bytes(target) == before
    assert hidden_siblings(target) == []


def test_failure_during_swap_restores_old_output(tmp_path, monkeypatch):
    target = tmp_path / "out"
    write_result(FakeResult(summary={"old": 1}), target)
    before = tree_bytes(target)
    real_rename = os.rename
    renames = []

    def rename(src, dst):
        renames.append((Path(src).name, Path(dst).name))
        # The first rename moves the old folder aside; fail the one that
        # would put the new folder in place.
        if len(renames) == 2:
            raise OSError("simulated failure")
        real_rename(src, dst)

    monkeypatch.setattr(results.os, "rename", rename)
    with pytest.raises(OSError, match="simulated"):
        write_result(FakeResult(summary={"new": 2}), target)
    monkeypatch.setattr(results.os, "rename", real_rename)
    assert renames[1][1] == "out"
    assert tree_bytes(target) == before
    assert hidden_siblings(target) == []


def test_unusable_series_name_writes_nothing(tmp_path):
    bad = FakeResult(series={"../escape": pd.DataFrame({"time_s": [0.0], "value": [1.0]})})
    with pytest.raises(ValueError, match="escape"):
        write_result(bad, tmp_path / "out")
    assert list(tmp_path.iterdir()) == []


def test_read_result_refuses_non_result_folder(tmp_path):
    with pytest.raises(FileNotFoundError, match="not a result folder"):
        read_result(tmp_path)


def test_a_folder_that_is_not_a_result_is_never_replaced(tmp_path):
    target = tmp_path / "mine"
    target.mkdir()
    (target / "notes.txt").write_text("the user's own")
    with pytest.raises(FileExistsError, match="not a satcc result folder"):
        write_result(FakeResult(summary={"new": 2}), target)
    assert (target / "notes.txt").read_text() == "the user's own"
    assert hidden_siblings(target) == []


def test_an_empty_folder_is_used(tmp_path):
    target = tmp_path / "empty"
    target.mkdir()
    write_result(FakeResult(summary={"new": 2}), target)
    assert read_result(target).summary == {"new": 2}


# ---------------------------------------------------------------------------
# What a writer killed with kill -9 leaves behind

_BLOCKED_WRITER = """
import sys, time
import pandas as pd
from satcc.result_folder import write_result

class Stuck:
    summary = {"a": 1}
    description = {"name": "tiny", "seed": 1}
    seed = 1
    info = {}
    series_names = ["q"]

    def series(self, name):
        print("writing", flush=True)
        time.sleep(600)  # killed here, its folder half-written

write_result(Stuck(), sys.argv[1])
"""

_HOLDER = """
import sys, time
from pathlib import Path
from satcc.fslocks import hold

held = [hold(Path(p)) for p in sys.argv[1:]]
print("holding", flush=True)
time.sleep(600)
"""


def _killed_mid_write(target: Path) -> int:
    """Run write_result in a process killed (SIGKILL) mid-write; its pid."""
    proc = subprocess.Popen(
        [sys.executable, "-c", _BLOCKED_WRITER, str(target)], stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout.readline() == "writing\n"
    proc.send_signal(signal.SIGKILL)
    proc.communicate()
    return proc.pid


def test_a_later_write_removes_what_a_killed_writer_left_and_nothing_else(tmp_path):
    dead = _killed_mid_write(tmp_path / "D")
    left = [p.name for p in tmp_path.iterdir()]
    assert len(left) == 1 and left[0].startswith(f".D.tmp-{dead}-")
    # Entries that are not a dead writer's: another's file, a name we would
    # not give, a link, a folder of a running process (1: always running)
    # that is not locked (a writer of an older satcc), and a folder whose
    # id says dead but whose lock is held (a writer on another machine).
    keep = {
        ".E.tmp-notes": "dir",
        ".F.tmp-123-notahex1": "dir",
        f".G.tmp-{dead}-0123abcd": "file",
        ".H.tmp-1-0123abcd": "dir",
        f".I.tmp-{dead}-4567cdef": "dir",
        f".J.tmp-{dead}-89abcdef": "link",
    }
    for name, kind in keep.items():
        if kind == "dir":
            (tmp_path / name).mkdir()
        elif kind == "file":
            (tmp_path / name).write_text("not ours")
        else:
            (tmp_path / name).symlink_to(tmp_path / ".E.tmp-notes")
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLDER, str(tmp_path / f".I.tmp-{dead}-4567cdef")],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline() == "holding\n"
        write_result(FakeResult(), tmp_path / "other")
    finally:
        holder.kill()
        holder.communicate()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([*keep, "other"])
    assert (tmp_path / ".E.tmp-notes").is_dir()


def test_a_replacement_killed_between_its_renames_gets_the_old_folder_back(tmp_path):
    dead = _killed_mid_write(tmp_path / "scratch")
    write_result(FakeResult(summary={"old": 1}), tmp_path / "out")
    before = tree_bytes(tmp_path / "out")
    # As a writer killed after moving "out" aside, before renaming its own
    # folder into place, leaves the parent.
    os.rename(tmp_path / "out", tmp_path / f".out.old-{dead}-0123abcd")
    write_result(FakeResult(), tmp_path / "elsewhere")
    assert tree_bytes(tmp_path / "out") == before
    assert hidden_siblings(tmp_path / "out") == []


def test_a_series_name_too_long_for_a_file_is_refused_before_writing(tmp_path):
    frame = pd.DataFrame({"time_s": [0.0], "value": [1.0]})
    bad = FakeResult(series={"q": frame, "p" * 300: frame})
    with pytest.raises(results.OutputFolderError, match="at most 247 bytes"):
        write_result(bad, tmp_path / "out")
    assert list(tmp_path.iterdir()) == []


def test_checking_an_output_folder_creates_nothing(tmp_path):
    results.check_output_folder(tmp_path / "a" / "b" / "c", ["q", "rx.throughput_bps"])
    assert list(tmp_path.iterdir()) == []


def test_a_path_beyond_path_max_is_refused_before_writing(tmp_path):
    # Every name fits 255 bytes; the whole path to series/q.parquet does not fit 4096.
    deep = tmp_path.joinpath(*["x" * 200] * 20, "out")
    with pytest.raises(results.OutputFolderError, match="choose a shorter --out"):
        write_result(FakeResult(), deep)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("name", [".", ".."])
def test_dot_and_dot_dot_are_refused(tmp_path, monkeypatch, name):
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.chdir(empty)
    with pytest.raises(results.OutputFolderError, match="not . or .."):
        write_result(FakeResult(), name if name == "." else "sub/..")
    assert list(tmp_path.iterdir()) == [empty] and list(empty.iterdir()) == []


def test_an_existing_folder_that_cannot_be_listed_is_refused_with_the_reason(tmp_path, monkeypatch):
    target = tmp_path / "locked"
    target.mkdir()

    def denied(self):
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(Path, "iterdir", denied)
    with pytest.raises(results.OutputFolderError, match="cannot look into it: Permission denied"):
        results.check_output_folder(target)
