"""`satcc reproduce abr-effcap --emulate`: an emulated host behind a
rate-controlled buffer ([emulate.NAME.rate_control]), the emulated system
against the simulated one, the efficiency over the capacity offered, the
claims read off the numbers, and (as root) real Linux TCP under instcap
rate control over a constant-rate bottleneck."""

from __future__ import annotations

import math

import numpy as np
import pytest
import satcc
from satcc.scenario import ScenarioError
from satcc.studies import tcp_sim_vs_linux
from satcc.studies.abr_effcap import STUDY, emulated
from satcc.studies.abr_effcap import model as study

needs_emulation = pytest.mark.skipif(
    not tcp_sim_vs_linux.can_emulate(), reason="emulation needs root, /dev/net/tun and ip"
)


def test_the_study_has_an_emulated_mode(monkeypatch, tmp_path):
    calls = []
    monkeypatch.setattr(emulated, "emulation", lambda *args: calls.append(args) or "done")
    assert STUDY.emulation([], {}, tmp_path, True) == "done"
    assert calls == [([], {}, tmp_path, True)]


@pytest.mark.parametrize("scheme", ["alone", "instcap", "effcap"])
def test_the_emulated_system_is_the_simulated_one_with_real_hosts(scheme, tmp_path):
    p = emulated.Point(scheme, 5.0, 1)
    d = satcc.Scenario.from_dict(emulated.emulated_scenario(p, 100_000, tmp_path)).validate()
    sim = satcc.Scenario.from_dict(study.scenario(p.params, 100_000)).validate()
    assert {link["name"]: link for link in d["links"]} == {
        link["name"]: link for link in sim["links"]
    }
    assert not d.get("tcp")
    hosts = {h["name"]: h for h in d["emulate"]}
    assert (hosts["tx"]["node"], hosts["rx"]["node"]) == ("s1", "d")
    rc = hosts["tx"].get("rate_control")
    if scheme == "alone":
        assert rc is None
        return
    assert rc == sim["tcp"][0]["rate_control"]
    m, n = study.effcap_blocks(study.DELTA_S) if scheme == "effcap" else (1, 1)
    assert (rc["block"], rc["blocks"], rc["framing"]) == (m, n, "aal5")


def test_an_emulated_hosts_rate_control_is_checked_as_a_connections(tmp_path):
    doc = emulated.emulated_scenario(emulated.Point("instcap", 5.0, 1), 1000, tmp_path)
    doc["emulate"]["tx"]["rate_control"]["link"] = "ack1"
    with pytest.raises(ScenarioError) as caught:
        satcc.Scenario.from_dict(doc).validate()
    assert caught.value.path == "emulate.tx.rate_control.link"
    assert "no explicit_rate" in str(caught.value)


def test_a_simulation_of_the_emulated_system_counts_the_silent_host(tmp_path):
    doc = emulated.emulated_scenario(emulated.Point("effcap", 5.0, 1), 1000, tmp_path)
    doc["run"]["duration"] = "2 s"
    s = satcc.run(doc).summary
    assert s["emulate.tx.rate_control.packets"] == 0
    assert s["emulate.tx.rate_control.feedback_received"] > 0
    assert s["run.pdus_unaccounted"] == 0


def test_the_linux_like_tcp_is_the_preset_with_linuxs_segments():
    p = emulated.Point("instcap", 5.0, 1)
    d = satcc.Scenario.from_dict(emulated.linux_like(p, 100_000)).validate()
    tcp = d["tcp"][0]
    assert tcp["mss_bytes"] + tcp["header_bytes"] == study.PACKET == emulated.MTU
    assert tcp["mss_bytes"] == 448
    assert (tcp["variant"], tcp.get("hystart", False)) == ("sack", False)
    assert tcp["min_rto_ps"] == 200 * 10**9
    assert tcp["receive_buffer_bytes"] == study.WINDOW


def test_the_capacity_path_is_the_seeds_and_efficiency_is_over_what_was_offered():
    p = emulated.Point("instcap", 0.5, 3)
    times, bps = emulated.capacity_path(p, 20.0)
    assert set(np.unique(bps)) == {study.HIGH_BPS, study.LOW_BPS}
    again = emulated.capacity_path(p, 20.0)
    assert np.array_equal(bps, again[1]), "the same seed draws the same path"
    # A constant 800 kb/s: 460 bytes of payload in 500-byte packets, 100
    # KB/s, moved in 1 s is an efficiency of one.
    flat = (np.arange(1, 1001) * 0.01, np.full(1000, study.HIGH_BPS))
    assert emulated.efficiency(1.0, 92_000, 460, flat) == pytest.approx(1.0)
    assert math.isnan(emulated.efficiency(math.nan, 92_000, 460, flat))
    # High for 1 s, then low: a transfer from 1 s on is measured against the
    # low rate alone.
    steps = (flat[0], np.where(flat[0] <= 1.0, study.HIGH_BPS, study.LOW_BPS))
    assert emulated.efficiency(2.0, 92_000, 460, steps, start_s=1.0) == pytest.approx(1.0)


def test_the_simulations_start_when_linux_did():
    p = emulated.Point("effcap", 0.5, 1)
    for doc in (emulated.simulated(p, 100_000, 1.25), emulated.linux_like(p, 100_000, 1.25)):
        d = satcc.Scenario.from_dict(doc).validate()
        assert d["tcp"][0]["start_ps"] == 1_250_000_000_000
        s = satcc.run(doc).summary
        assert s["tcp.t1.completion_time_s"] > 0


def _means(late_ms: float = 0.1) -> dict:
    def m(paper: float, linux: float) -> dict:
        return {
            "paper_efficiency": paper,
            "linux_like_efficiency": linux,
            "linux_efficiency": linux,
            "paper_retransmissions": 1.0,
            "linux_like_retransmissions": 1.0,
            "linux_retransmissions": 1.0,
            "late_p99_ms": late_ms,
            "late_max_ms": late_ms,
        }

    return {
        ("alone", 0.5): m(0.6, 0.6),
        ("instcap", 0.5): m(0.6, 0.6),
        ("effcap", 0.5): m(0.7, 0.69),
        ("alone", 50.0): m(0.6, 0.6),
        ("instcap", 50.0): m(0.75, 0.75),
        ("effcap", 50.0): m(0.7, 0.72),
    }


def _cells(table) -> list[list[str]]:
    columns = [list(c.cells) for c in table.columns]
    return [list(row) for row in zip(*columns, strict=True)]


def test_the_claims_are_read_off_the_linux_numbers():
    rows = _cells(emulated.claims_table(_means()))
    # instcap / alone at 50: 1.25, within 20-30 %; effcap / instcap at 0.5:
    # 1.15; at 50: 0.96.
    assert [r[3] for r in rows] == ["1.25", "1.15", "0.96"]
    assert all("PASS" in r[4] for r in rows)


def test_a_claim_on_a_late_emulation_is_not_judged():
    rows = _cells(emulated.claims_table(_means(late_ms=5.0)))
    assert all("fell behind" in r[4] for r in rows)
    table = _cells(emulated.efficiency_table(_means(late_ms=5.0)))
    assert all("late" in r[-1] for r in table)


@needs_emulation
def test_linux_tcp_under_instcap_fills_a_constant_bottleneck_without_loss(tmp_path):
    """The τ/Δ → ∞ limit with real TCP: fed back the bottleneck's own rate,
    the host's buffer sends exactly what the bottleneck carries, so nothing
    is lost there, and the efficiency is the cell tax's 500/583 less the
    start-up."""
    from satcc.emulate import bulk, emulate

    transfer = 300_000
    p = emulated.Point("instcap", 5.0, 1)
    doc = emulated.emulated_scenario(p, transfer, tmp_path)
    doc["links"]["bottleneck"]["capacity"] = {"type": "constant", "rate": "800 kbps"}
    result = emulate(doc, seed=1)
    s = result.summary
    assert result.exit_code("tx") == 0, result.output("tx")
    tx, rx = (bulk.json.loads((tmp_path / n).read_text()) for n in ("tx.json", "rx.json"))
    done = bulk.completion_s(tx, rx, transfer)
    flat = (np.arange(1, 10_001) * 0.01, np.full(10_000, study.HIGH_BPS))
    eff = emulated.efficiency(done, transfer, emulated.LINUX_MSS, flat)
    assert 0.7 < eff < 500 / 583
    assert s["links.bottleneck.drops"] == 0
    assert s["emulate.tx.rate_control.packets"] == s["emulate.tx.sent_packets"]
    assert s["emulate.tx.rate_control.feedback_received"] > 0
    assert s["run.pdus_unaccounted"] == 0


def test_the_mode_writes_one_row_per_point_and_two_tables(monkeypatch, tmp_path):
    """The whole mode with the Linux side stood in for (the real one is
    the root test above): the simulations run, start when Linux did, and
    every point lands in the CSV."""
    monkeypatch.setattr(emulated, "TRANSFER", 300_000)
    monkeypatch.setattr(emulated, "QUICK_TRANSFER", 300_000)
    started = []

    def fake_linux(p, transfer):
        started.append(p)
        numbers = {"linux_start_s": 0.5, "linux_retransmissions": 0.0, "linux_drops": 0.0}
        numbers.update({"late_p99_ms": 0.1, "late_max_ms": 1.0, "pdus_unaccounted": 0.0})
        return numbers, 0.5, 3.0

    monkeypatch.setattr(emulated, "emulate_point", fake_linux)
    out = emulated.emulation([], {}, tmp_path, quick=True)
    assert len(out.tables) == 2 and out.files == ["abr-effcap-emulated.csv"]
    lines = (tmp_path / "abr-effcap-emulated.csv").read_text().splitlines()
    assert len(lines) == 1 + len(emulated.points(quick=True)) == 1 + len(started)
    header = lines[0].split(",")
    for row in lines[1:]:
        values = dict(zip(header, row.split(","), strict=True))
        assert float(values["paper_efficiency"]) > 0
        assert float(values["linux_efficiency"]) > 0


def test_a_claim_whose_emulation_lateness_was_not_measured_is_not_judged():
    # NaN > LATE_P99_MS is False: an emulation whose lateness was not
    # measured read as one that kept up, and its claims were judged.
    rows = _cells(emulated.claims_table(_means(late_ms=math.nan)))
    assert all("not judged" in r[4] and "PASS" not in r[4] for r in rows)
