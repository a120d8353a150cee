# The `satcc` command's contract with scripts: exit statuses (0 ok, 1 failure,
# 2 bad input, 130 interrupted), `error: ...` on stderr naming the key path,
# --set applied before validation, nothing written on failure; and the
# queueing-theory study reproduced end to end in quick mode.

import json
import os
import platform
import subprocess
import sys
import textwrap
from pathlib import Path

import pandas as pd
import pytest
import satcc
from cli_helpers import GOOD, call
from satcc.cli import parse_assignment, run_cli


def test_version_names_the_build(capsys):
    # One line a bug report can quote: release, build id (as stored runs
    # record it), the loaded core's version, and the interpreter.
    from satcc import _core
    from satcc.build import build_id

    status, out, _ = call(capsys, "--version")
    assert status == 0
    assert out == (
        f"satcc {satcc.__version__} (build {build_id()}, core {_core.version()}, "
        f"Python {platform.python_version()})\n"
    )


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
    assert "tfrc-dama" in out


def test_reproduce_on_local_processes_takes_no_scheduler(capsys):
    status, _, err = call(
        capsys, "reproduce", "queueing-theory", "--executor", "local", "--scheduler", "tcp://x:1"
    )
    assert status == 2
    assert "--scheduler needs --executor dask" in err


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


def test_a_panic_in_the_core_is_one_line_exit_1(capsys, good, monkeypatch):
    # A Rust panic is a BaseException in Python: it went past every handler
    # as a Rust message, a backtrace and a Python traceback.
    import satcc.runner
    from satcc import _core

    def panics(*args, **kwargs):
        _core.panic_for_test("attempt to divide by zero")

    monkeypatch.delenv("SATCC_DEBUG", raising=False)
    monkeypatch.setattr(satcc.runner, "run", panics)
    status, out, err = call(capsys, "run", str(good))
    assert status == 1 and out == ""
    assert err.splitlines() == [
        "error: internal error: the simulation core failed (a defect of satcc, please "
        "report it): attempt to divide by zero",
        "(set SATCC_DEBUG=1 for the traceback)",
    ]


def test_a_panic_in_a_run_is_a_failed_run(monkeypatch):
    from satcc import _core, executors

    def panics(*args, **kwargs):
        _core.panic_for_test("boom")

    monkeypatch.setattr(_core, "Simulation", panics)
    outcome = executors.execute(executors.Task("k", '{"name": "x"}'))
    assert (
        not outcome.ok and "the simulation core failed" in outcome.error and "boom" in outcome.error
    )


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


def test_validate_a_file_nested_too_deeply_is_bad_input_naming_the_file(capsys, tmp_path):
    deep = tmp_path / "deep.toml"
    deep.write_text("x = " + "[" * 5000 + "]" * 5000 + "\n")
    status, _, err = call(capsys, "validate", str(deep))
    assert status == 2
    assert err.startswith(f"error: {deep}: ") and "nested too deeply" in err
    assert "internal error" not in err


def test_a_set_value_nested_too_deeply_is_bad_input(capsys, good):
    for value in ("[" * 5000 + "]" * 5000, "[" * 100 + "]" * 100):
        status, _, err = call(capsys, "validate", str(good), "--set", f"run.name={value}")
        assert status == 2, err
        assert "run.name" in err and "nested too deeply" in err


def test_validate_accepts_a_file_with_a_utf8_bom(capsys, tmp_path):
    path = tmp_path / "bom.toml"
    path.write_text("\ufeff" + GOOD, encoding="utf-8")
    status, out, err = call(capsys, "validate", str(path))
    assert status == 0, err
    assert out == f"{path}: ok (2 nodes, 1 link, 1 source)\n"


# ---------------------------------------------------------------------------
# --out is checked before the run: a run is never spent on an output that
# cannot be written, and nothing is left half-written.


@pytest.fixture
def no_run(monkeypatch):
    def must_not_run(*args, **kwargs):
        raise AssertionError("the scenario ran although --out was unusable")

    monkeypatch.setattr(satcc.runner, "run", must_not_run)


def test_out_under_a_regular_file_is_refused_before_running(capsys, good, tmp_path, no_run):
    (tmp_path / "afile").write_text("")
    out = tmp_path / "afile" / "sub" / "o"
    status, stdout, err = call(capsys, "run", str(good), "--out", str(out))
    assert status == 2, err
    assert err == (
        f"error: {out}: cannot write the result folder: {tmp_path / 'afile'} is not a folder\n"
    )
    assert stdout == ""
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile", "tiny.toml"]


def test_a_folder_name_too_long_for_the_temporary_sibling_is_refused(
    capsys, good, tmp_path, no_run
):
    # 250 bytes fit the file system's 255, but .NAME.tmp-PID-XXXXXXXX does not.
    out = tmp_path / ("d" * 250)
    status, _, err = call(capsys, "run", str(good), "--out", str(out))
    assert status == 2, err
    assert err.startswith(f"error: {out}: cannot write the result folder: its name is 250 bytes")
    assert "hidden sibling" in err and "at most" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tiny.toml"]


def test_the_longest_folder_name_allowed_is_written(capsys, good, tmp_path):
    # The limit the refusal states is exact: a name of that length works.
    out = tmp_path / ("d" * 250)
    _, _, err = call(capsys, "run", str(good), "--out", str(out), "--quiet")
    allowed = int(err.split("at most ")[1].split(" bytes")[0])
    out = tmp_path / ("d" * allowed)
    status, _, err = call(capsys, "run", str(good), "--out", str(out), "--quiet")
    assert status == 0, err
    assert (out / "summary.json").is_file()
    out = tmp_path / ("e" * (allowed + 1))
    status, _, err = call(capsys, "run", str(good), "--out", str(out), "--quiet")
    assert status == 2 and "hidden sibling" in err


def test_a_missing_parent_with_a_name_too_long_is_refused(capsys, good, tmp_path, no_run):
    out = tmp_path / ("p" * 256) / "o"
    status, _, err = call(capsys, "run", str(good), "--out", str(out))
    assert status == 2, err
    assert "is 256 bytes long; the file system allows 255" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tiny.toml"]


def test_a_probe_name_too_long_for_its_parquet_file_is_refused(capsys, good, tmp_path, no_run):
    probe = "p" * 300
    path = tmp_path / "probe.toml"
    path.write_text(GOOD + f'\n[probes.{probe}]\nlink = "ab"\nmetric = "queue_packets"\n')
    out = tmp_path / "o"
    status, _, err = call(capsys, "run", str(path), "--out", str(out))
    assert status == 2, err
    assert f"probe '{probe}' would be written as series/{probe}.parquet" in err
    assert "at most 247 bytes" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["probe.toml", "tiny.toml"]


def _without_dac_override():
    # Root ignores permission bits (CAP_DAC_OVERRIDE); dropping the capability
    # from the bounding set before exec makes a mode-0555 folder read-only for
    # the child, as it is for everyone else.
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    pr_capbset_drop, cap_dac_override, cap_dac_read_search = 24, 1, 2
    for cap in (cap_dac_override, cap_dac_read_search):
        if libc.prctl(pr_capbset_drop, cap, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")


def test_out_in_a_read_only_folder_is_refused_before_running(good, tmp_path):
    privileged = os.geteuid() == 0
    if privileged:
        try:
            subprocess.run(["true"], preexec_fn=_without_dac_override, check=True)
        except (subprocess.SubprocessError, OSError):
            pytest.skip("root that may not drop CAP_DAC_OVERRIDE: no folder is read-only to it")
    parent = tmp_path / "ro"
    parent.mkdir()
    parent.chmod(0o555)
    out = parent / "o"
    try:
        proc = subprocess.run(
            [sys.executable, "-c", "from satcc.cli import main; main()"]
            + ["run", str(good), "--out", str(out)],
            capture_output=True,
            text=True,
            preexec_fn=_without_dac_override if privileged else None,
        )
    finally:
        parent.chmod(0o755)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr == (
        f"error: {out}: cannot write the result folder: no permission to create files in {parent}\n"
    )
    assert proc.stdout == ""  # refused before the run, whose tables would be here
    assert list(parent.iterdir()) == []


# ---------------------------------------------------------------------------
# Pipes: `satcc run X --out D | head -1`. The folder is written before the
# tables; a reader that closes stdout stops the command quietly with 141,
# the status a shell reports for a Unix tool stopped by SIGPIPE.


def _satcc(*args, close):
    """Run the console script with stdout or stderr closed by its reader before any output."""
    proc = subprocess.Popen(
        [sys.executable, "-c", "from satcc.cli import main; main()", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    closed, kept = (proc.stdout, proc.stderr) if close == "stdout" else (proc.stderr, proc.stdout)
    closed.close()
    text = kept.read().decode()
    kept.close()
    return proc.wait(), text


def test_run_with_stdout_closed_writes_the_folder_and_exits_141_quietly(good, tmp_path):
    out = tmp_path / "o"
    status, err = _satcc("run", str(good), "--out", str(out), close="stdout")
    assert status == 141
    assert err == ""  # no "internal error", no "Exception ignored ... BrokenPipeError"
    assert json.loads((out / "summary.json").read_text())["flows.s1.sent_packets"] > 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["o", "tiny.toml"]


def test_a_reader_gone_mid_table_still_leaves_the_folder(capsys, good, tmp_path, monkeypatch):
    class ClosedPipe:
        def write(self, text):
            raise BrokenPipeError(32, "Broken pipe")

        def flush(self):
            pass

        def isatty(self):
            return False

    monkeypatch.setattr(sys, "stdout", ClosedPipe())
    out = tmp_path / "o"
    assert run_cli(["run", str(good), "--out", str(out)]) == 141
    assert (out / "summary.json").is_file() and (out / "series").is_dir()
    assert capsys.readouterr().err == ""


def test_stderr_closed_keeps_the_exit_status_of_the_command(bare_rate, good):
    # Only the messages are lost: a bad file is still exit 2, a good one 0.
    status, out = _satcc("validate", str(bare_rate), close="stderr")
    assert (status, out) == (2, "")
    status, out = _satcc("validate", str(good), close="stderr")
    assert (status, out) == (0, f"{good}: ok (2 nodes, 1 link, 1 source)\n")


def _satcc_fd_closed(fd: int, *args) -> tuple[int, str, str]:
    """Run the console script with descriptor `fd` closed before it starts
    (`satcc ... >&-`), as a shell does: Python then sees that stream as None."""
    done = subprocess.run(
        [sys.executable, "-c", "from satcc.cli import main; main()", *args],
        capture_output=True,
        text=True,
        preexec_fn=lambda: os.close(fd),  # in the child, after its pipes are set up
    )
    return done.returncode, done.stdout, done.stderr


@pytest.mark.parametrize("fd", [0, 1, 2])
def test_a_closed_standard_descriptor_keeps_the_exit_status(fd, bare_rate, good):
    # Before: AttributeError ('NoneType' ... flush) and exit 1 whatever the command.
    status, _, err = _satcc_fd_closed(fd, "--version")
    assert status == 0 and "Traceback" not in err
    assert _satcc_fd_closed(fd, "validate", str(good))[0] == 0
    assert _satcc_fd_closed(fd, "validate", str(bare_rate))[0] == 2


def test_out_where_nothing_can_be_created_is_refused_before_running(capsys, good, monkeypatch):
    # /proc lets root pass every permission check and creates nothing.
    def never(*args, **kwargs):
        raise AssertionError("the run must not start")

    monkeypatch.setattr(satcc.runner, "run", never)
    status, _, err = call(capsys, "run", str(good), "--out", "/proc/satcc-out")
    assert status == 2
    assert err.startswith("error: /proc/satcc-out: cannot write the result folder: cannot create")


def test_a_failed_write_names_the_folder_and_keeps_the_old_one(capsys, good, tmp_path, monkeypatch):
    # A full disk: before, "internal error: OSError" without the path.
    import errno

    from satcc import result_folder

    out = tmp_path / "o"
    assert call(capsys, "run", str(good), "--out", str(out), "-q")[0] == 0
    before = (out / "summary.json").read_bytes()

    def full(result, folder):
        raise OSError(errno.ENOSPC, "No space left on device", str(folder / "summary.json"))

    monkeypatch.setattr(result_folder, "_write_contents", full)
    status, _, err = call(capsys, "run", str(good), "--out", str(out), "-q")
    assert status == 1
    assert err.startswith(f"error: {out}: could not write the result folder: No space left")
    assert "untouched" in err and "internal error" not in err
    assert (out / "summary.json").read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["o", "tiny.toml"]


def test_a_symbolic_link_loop_is_called_one(capsys, good, tmp_path):
    # Before: "no such file", and an internal error (FileExistsError) for a sweep.
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    loop = str(tmp_path / "a")
    for args in (
        ["run", loop],
        ["validate", loop],
        ["results", loop],
        ["report", loop],
        ["sweep", str(good), "--campaign", loop, "-q"],
        ["sweep", str(good), "--campaign", loop + "/c", "-q"],
        ["run", str(good), "--out", loop + "/o"],
    ):
        status, _, err = call(capsys, *args)
        assert status == 2 and "symbolic link loop" in err, (args, err)


def test_a_link_to_nothing_says_where_it_points(capsys, tmp_path):
    (tmp_path / "s.toml").symlink_to(tmp_path / "gone.toml")
    status, _, err = call(capsys, "validate", str(tmp_path / "s.toml"))
    assert status == 2 and "a symbolic link to" in err and "gone.toml" in err


def test_a_huge_file_is_refused_unread(capsys, tmp_path):
    # Before: read whole (4 GB), then MemoryError as an internal error.
    big = tmp_path / "big.toml"
    with open(big, "wb") as f:
        f.truncate(4 * 2**30)  # sparse: no disk used
    status, _, err = call(capsys, "validate", str(big))
    assert status == 2 and "larger than 64 MiB" in err


def test_a_broken_pipe_that_is_not_stdout_is_an_internal_error(capsys, good, monkeypatch):
    # e.g. a worker's pipe: a failure, not a reader that stopped reading.
    def broken(*args, **kwargs):
        raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(satcc.runner, "run", broken)
    status, _, err = call(capsys, "run", str(good))
    assert status == 1
    assert "internal error: BrokenPipeError" in err


# ---------------------------------------------------------------------------
# Tables: every value in full off a terminal (CI logs, | tee); fitted on one.

LONG = "a_link_with_a_name_long_enough_to_push_the_table_past_eighty_columns"


def test_off_a_terminal_tables_are_printed_in_full(capsys, tmp_path):
    path = tmp_path / "long.toml"
    path.write_text(GOOD.replace("[links.ab]", f"[links.{LONG}]"))
    status, out, err = call(capsys, "run", str(path))
    assert status == 0, err
    assert "…" not in out
    rows = out.splitlines()
    header = next(line for line in rows if line.startswith("link "))
    assert header.split() == [
        "link", "utilisation", "sent", "drops", "errors", "queue", "mean",
        "queue", "max", "wait", "mean", "wait", "p99",
    ]  # fmt: skip
    (row,) = [line for line in rows if line.startswith(LONG)]
    # Every cell on the one line: "0 pkt" and "0 s" are two words each.
    assert len(row.split()) == 13 and row.endswith(" s")


def test_on_a_terminal_tables_fit_its_width(monkeypatch):
    from satcc.console import UNBOUNDED_WIDTH, table_console

    class Terminal:
        def __init__(self, tty):
            self.tty = tty

        def isatty(self):
            return self.tty

        def write(self, text):
            return len(text)

        def flush(self):
            pass

    monkeypatch.setenv("COLUMNS", "72")
    monkeypatch.setenv("FORCE_COLOR", "1")  # as CI services set it, off a terminal
    monkeypatch.setattr(sys, "stdout", Terminal(True))
    assert table_console().width == 72
    monkeypatch.setattr(sys, "stdout", Terminal(False))
    assert table_console().width == UNBOUNDED_WIDTH


# Bytes that are not UTF-8 on the command line reach Python as lone surrogates.
NOT_UTF8 = b"\xff".decode("utf-8", "surrogateescape")


def test_a_set_value_of_bytes_that_are_not_utf8_is_bad_input(capsys, good):
    status, _, err = call(capsys, "validate", str(good), "--set", f"run.name=x{NOT_UTF8}")
    assert status == 2, err
    assert "run.name" in err and "not valid text" in err


def test_out_named_with_bytes_that_are_not_utf8_is_written(capsys, good, tmp_path):
    # A legal Linux file name; pyarrow took the path as UTF-8 text and failed.
    probe = tmp_path / "probe.toml"
    probe.write_text(GOOD + '\n[probes.q]\nlink = "ab"\nmetric = "queue_packets"\n')
    out = tmp_path / f"o{NOT_UTF8}"
    status, _, err = call(capsys, "run", str(probe), "--out", str(out), "--quiet")
    assert status == 0, err
    assert os.fsencode(out) in [os.fsencode(p) for p in tmp_path.iterdir()]
    assert len(satcc.result_folder.read_result(out).series["q"]) > 0


GEO = Path(__file__).resolve().parent.parent / "examples" / "geo_cbr.toml"


def test_run_says_its_conservation_check(capsys):
    assert run_cli(["run", str(GEO)]) == 0
    out = capsys.readouterr().out
    assert "conservation ok: 5,968 PDUs sent = 5,901 delivered, 0 dropped, 0 errored" in out


def test_run_fails_loudly_when_pdus_went_missing(monkeypatch, capsys, tmp_path):
    from satcc import runner

    real = runner.run

    def leaky(*args, **kwargs):
        result = real(*args, **kwargs)
        result.summary["run.pdus_unaccounted"] = 3
        return result

    monkeypatch.setattr(runner, "run", leaky)
    out = tmp_path / "out"
    code = run_cli(["run", str(GEO), "--out", str(out)])
    captured = capsys.readouterr()
    assert code == 1
    assert "conservation 3 UNACCOUNTED" in captured.out
    assert "3 PDUs are unaccounted for" in captured.err
    assert (out / "summary.json").exists(), "the evidence is kept"


def test_run_prints_jain_index_under_the_connections_it_is_over(capsys):
    examples = Path(__file__).resolve().parent.parent / "examples"
    code, out, _ = call(
        capsys, "run", str(examples / "dumbbell_geo.toml"), "--set", "run.duration=5 s"
    )
    assert code == 0
    lines = out.splitlines()
    jain = [i for i, line in enumerate(lines) if line.startswith("Jain's fairness index")]
    assert len(jain) == 1
    assert "(TCP connections, goodput)" in lines[jain[0]]
    # Right under the last connection row, before the links' table.
    assert lines[jain[0] - 1].startswith("flow15 ")
    value = float(lines[jain[0]].rsplit(":", 1)[1])
    assert 0 < value <= 1
