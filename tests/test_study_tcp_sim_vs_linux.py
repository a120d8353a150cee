"""The tcp-sim-vs-linux study: its two scenarios of one path, the reading
of the Linux hosts' logs, the bulk tool over loopback, and (as root, with
/dev/net/tun) a window-limited and a buffer-limited case against Linux."""

from __future__ import annotations

import dataclasses
import json
import math
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import satcc
from satcc import studies
from satcc.emulate import bulk
from satcc.studies import tcp_sim_vs_linux as study
from satcc.studies.execution import run_one
from study_table_helpers import assert_nothing_judged

needs_emulation = pytest.mark.skipif(
    not study.can_emulate(), reason="emulation needs root, /dev/net/tun and iproute2's ip"
)


def test_registered():
    assert studies.get("tcp-sim-vs-linux") is study.STUDY


def test_simulated_and_emulated_runs_share_one_network(tmp_path):
    case = study.BY_LABEL["win64K-100ms"]
    sim = satcc.Scenario.from_dict(study.simulated(case, "cubic", 40.0)).validate()
    emu = satcc.Scenario.from_dict(study.emulated(case, "cubic", tmp_path)).validate()
    assert sim["links"] == emu["links"]
    (flow,) = sim["tcp"]
    # The Linux host's segments: 1448 B of payload behind 52 B of headers
    # (timestamps on), IW 10, 200 ms minimum RTO, window = the clamp.
    assert (flow["mss_bytes"], flow["header_bytes"], flow["initial_window_segments"]) == (
        1448,
        52,
        10,
    )
    assert flow["receive_buffer_bytes"] == 65536
    # Both count time from the SYN: satcc's flow begins with its handshake.
    assert flow["handshake"] is True
    assert flow["congestion_control"] == "cubic" and flow["hystart"] is True
    assert [h["address"] for h in emu["emulate"]] == ["10.77.0.2", "10.77.0.1"]
    commands = {
        name: host["command"]
        for name, host in study.emulated(case, "reno", tmp_path)["emulate"].items()
    }
    assert "--window 65536" in commands["rx"]
    assert "--cc reno --seconds 40 --warmup 5" in commands["tx"]


def test_reno_runs_without_hystart():
    case = study.BY_LABEL["buf8-20ms"]
    (flow,) = satcc.Scenario.from_dict(study.simulated(case, "reno", 1.0)).validate()["tcp"]
    assert flow.get("congestion_control", "reno") == "reno"
    assert flow.get("hystart", False) is False
    assert flow["receive_buffer_bytes"] == 6 * 1024 * 1024  # the preset's tcp_rmem max


def test_the_grid_spans_what_the_issue_asks():
    kinds = {c.kind for c in study.CASES}
    assert kinds == {"window", "buffer", "loss", "aqm"}
    # ECN through an AQM: both stacks ECN-capable, the bottleneck marking.
    (ecn,) = [c for c in study.CASES if c.ecn]
    assert ecn.kind == "aqm"
    spec = next(s for s in study.runs(False) if s.label == f"{ecn.label} cubic")
    queue = spec.scenario["links"]["ab"]["queue"]
    assert queue["type"] == "red" and queue["ecn"] and spec.scenario["tcp"]["f"]["ecn"]
    emulated = study.emulated(ecn, "cubic", Path("/tmp"))
    assert all(h["sysctl"] == {"net.ipv4.tcp_ecn": 1} for h in emulated["emulate"].values())
    # LEO (40 ms) and GEO (550 ms) round trips among them.
    assert {c.rtt_s for c in study.CASES if c.kind == "buffer"} == {0.02, 0.04, 0.1, 0.55}
    assert study.CCS == ("reno", "cubic", "bbr", "hybla")
    # Random loss is judged over seeds, the lossless paths with one.
    assert {c.seeds for c in study.CASES} == {(1,), (1, 2, 3)}
    assert all((c.seeds == (1,)) == (c.loss == 0) for c in study.CASES)
    for case in study.CASES:
        if case.kind == "window":
            assert case.window_bytes * 8 / case.rtt_s < case.rate_bps * 0.9  # window-limited
            assert case.queue_packets > case.window_bytes / study.MSS  # never drops
        if case.kind == "buffer":
            assert 0.3 < case.queue_packets / case.bdp_packets() < 0.6


def test_models():
    window = study.BY_LABEL["win64K-100ms"]
    assert study.model_mbps(window) == pytest.approx(65536 * 8 / 0.1 / 1e6)
    buffer = study.BY_LABEL["buf8-20ms"]
    assert study.model_mbps(buffer) == pytest.approx(10 * 1448 / 1500)


# ---------------------------------------------------------------------------
# The logs


TX = {
    "start_ns": 1_000_000_000,
    "at_warmup": {"total_retrans": 3},
    "at_end": {"total_retrans": 10},
    "at_close": {"total_retrans": 12},
}
RX = {"times_ns": [1_100_000_000, 2_000_000_000, 3_000_000_000], "bytes": [1000, 5000, 9000]}


def test_received_by_is_a_step_function():
    assert bulk.received_by(RX, 1_099_999_999) == 0
    assert bulk.received_by(RX, 1_100_000_000) == 1000
    assert bulk.received_by(RX, 2_999_999_999) == 5000
    assert bulk.received_by(RX, 10**12) == 9000


def test_goodput_completion_and_retransmissions_from_the_logs():
    # From time zero at 1 s: 5000 B by 1 s, 9000 B by 2 s.
    assert bulk.goodput_bps(TX, RX, 1.0, 2.0) == pytest.approx(4000 * 8)
    assert bulk.completion_s(TX, RX, 5000) == pytest.approx(1.0)
    assert bulk.completion_s(TX, RX, 5001) == pytest.approx(2.0)
    assert math.isnan(bulk.completion_s(TX, RX, 9001))
    assert bulk.retransmissions(TX) == 7
    assert bulk.retransmissions(TX, since_warmup=False) == 12
    assert math.isnan(bulk.retransmissions({**TX, "at_warmup": None}))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize("window", [None, 65536])
def test_the_bulk_tool_over_loopback(tmp_path, window):
    port = _free_port()
    tool = [sys.executable, "-m", "satcc.emulate.bulk"]
    serve = [*tool, "serve", "--port", str(port), "--log", str(tmp_path / "rx.json")]
    if window:
        serve += ["--window", str(window)]
    server = subprocess.Popen(serve)
    try:
        send = [*tool, "send", "--to", "127.0.0.1", "--port", str(port), "--cc", "reno"]
        send += ["--log", str(tmp_path / "tx.json"), "--bytes", "3000000"]
        subprocess.run(send, check=True, timeout=60)
        assert server.wait(timeout=30) == 0
    finally:
        server.kill()
    tx = json.loads((tmp_path / "tx.json").read_text())
    rx = json.loads((tmp_path / "rx.json").read_text())
    assert tx["bytes_written"] == 3_000_000 == rx["bytes"][-1]
    assert tx["congestion_control"] == "reno"
    assert rx["window_clamp"] == window
    assert rx["times_ns"] == sorted(rx["times_ns"]) and rx["times_ns"][0] >= tx["start_ns"]
    assert bulk.completion_s(tx, rx, 3_000_000) > 0
    assert set(tx["at_end"]) >= {"total_retrans", "snd_cwnd", "rtt_us"}


def test_a_refused_connection_is_retried_then_reported(tmp_path, monkeypatch):
    from satcc.emulate import bulk

    monkeypatch.setattr(bulk, "CONNECT_PATIENCE_S", 0.2)
    started = time.monotonic()
    with pytest.raises(ConnectionRefusedError):
        bulk.send("127.0.0.1", _free_port(), tmp_path / "tx.json", "reno", None, 0.0, 10)
    assert time.monotonic() - started >= 0.2
    assert not (tmp_path / "tx.json").exists()


# ---------------------------------------------------------------------------
# The comparison


def _spec(label: str):
    (spec,) = [s for s in study.runs(quick=True) if s.label == label]
    return spec


def test_without_emulation_the_linux_side_is_empty_and_nothing_is_judged(monkeypatch):
    monkeypatch.setattr(study, "can_emulate", lambda: False)
    spec = _spec("win64K-100ms cubic")
    measured = study.metrics(run_one(spec.scenario, 1), spec)
    assert measured["satcc_goodput_mbps"] == pytest.approx(5.07, rel=0.02)
    assert math.isnan(measured["linux_goodput_mbps"]) and math.isnan(measured["goodput_ratio"])
    assert not any(ref.judged for ref in study.references(judge=False))


@needs_emulation
@pytest.mark.parametrize("label", ["win64K-100ms reno", "buf8-20ms cubic"])
def test_linux_and_satcc_agree_within_ten_percent(label):
    spec = _spec(label)
    measured = study.metrics(run_one(spec.scenario, 1), spec)
    # The emulator kept time: a late packet would blur the comparison.
    assert measured["linux_release_p99_ms"] < 5
    for ratio in ("goodput_ratio", "completion_ratio"):
        assert measured[ratio] == pytest.approx(1, abs=study.TOLERANCE), (ratio, measured)
    judged = [r for r in study.references(judge=True) if r.label == label and r.judged]
    assert {r.metric for r in judged} == {"goodput_ratio", "completion_ratio"}
    assert all(r.passes(measured[r.metric]) for r in judged)


def test_a_controller_the_kernel_lacks_is_simulated_and_not_judged(monkeypatch):
    monkeypatch.setattr(study, "kernel_offers", lambda cc: cc != "hybla")
    refs = study.references(judge=True)
    hybla = [r for r in refs if r.label.endswith(" hybla") and r.metric == "goodput_ratio"]
    assert hybla and not any(r.judged for r in hybla)
    assert all("does not offer tcp_hybla" in r.notes for r in hybla)
    bbr = [r for r in refs if r.label.endswith(" bbr") and r.metric == "goodput_ratio"]
    assert bbr and all(r.judged for r in bbr)
    called = []
    monkeypatch.setattr(study, "can_emulate", lambda: True)
    monkeypatch.setattr(study, "linux_measurements", lambda *a: called.append(a) or {})
    spec = _spec("win64K-100ms hybla")
    measured = study.metrics(run_one(spec.scenario, 1), spec)
    assert not called and math.isnan(measured["goodput_ratio"])
    assert measured["satcc_goodput_mbps"] > 4.5


def test_no_check_is_judged_on_numbers_that_were_not_measured():
    assert_nothing_judged(dataclasses.replace(study.STUDY, references=study.references(judge=True)))
