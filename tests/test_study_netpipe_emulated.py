"""`satcc reproduce netpipe-satellite --emulate`: the emulated path, the
reading of NPtcp's output, the refusals of `--emulate`, and (as root, with
NPtcp) NPtcp's latency and a sweep over the emulated E1 satellite path."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import satcc
from satcc.studies import tcp_sim_vs_linux
from satcc.studies.netpipe_satellite import emulated
from satcc.studies.netpipe_satellite import model as study

SATCC = str(Path(sys.executable).parent / "satcc")
needs_nptcp = pytest.mark.skipif(
    not tcp_sim_vs_linux.can_emulate() or shutil.which("NPtcp") is None,
    reason="needs root, /dev/net/tun, iproute2 and NPtcp (scripts/ensure-emulation-tools.sh)",
)


def test_the_emulated_path_is_the_studys_with_hosts_for_its_pcs():
    d = satcc.Scenario.from_dict(emulated.emulated_path(0.4, 1e-6)).validate()
    simulated = satcc.Scenario.from_dict(
        study.testbed("t", [study.path("np", 0.4, 8192, study.sweep_app(), 1e-6)], 10.0)
    ).validate()
    ours = {link["name"]: link for link in d["links"]}
    theirs = {link["name"]: link for link in simulated["links"]}
    assert ours.keys() == theirs.keys()
    for name, link in ours.items():
        for key in ("capacity", "delay_ps", "ber"):
            assert link[key] == theirs[name][key], (name, key)
        # Packets cross the ATM hops as their AAL5 cells.
        assert link.get("framing") == ("ethernet" if "ethernet" in name else "aal5")
    assert {h["node"] for h in d["emulate"]} == {"np_a", "np_b"}
    assert not d.get("tcp")


def test_nptcp_output_is_read_in_si_megabits():
    rows = emulated.parse_output("       1   0.000031   0.25000000\n    8192   0.1   0.5\n\n")
    assert [r["bytes"] for r in rows] == [1, 8192]
    assert rows[1]["throughput_mbps"] == pytest.approx(8192 * 8 / 0.5 / 1e6)
    assert rows[0]["transfer_time_s"] == 0.25


def test_the_receiver_gets_the_transmitters_schedule_but_not_its_upper_bound():
    # Each NPtcp derives the block sizes from its own options: a receiver
    # left with the default perturbation waits for 13 bytes where 16 come.
    assert emulated.receiver_args("-b 8192 -p 0 -u 65536 -l 1") == "-b 8192 -p 0 -l 1"
    assert emulated.receiver_args("-u 8 -n 7") == "-n 7"


def test_window_estimate_from_the_largest_block():
    rows = [{"bytes": 65536, "throughput_mbps": 0.1, "transfer_time_s": 5.2}]
    assert emulated.window_estimate_bytes(rows, 0.6) == pytest.approx(0.1e6 / 8 * 0.6)
    assert emulated.window_estimate_bytes(rows[:0], 0.6) != emulated.window_estimate_bytes(
        rows[:0], 0.6
    )  # NaN: nothing to estimate from


def test_emulate_is_refused_for_a_study_without_an_emulated_mode():
    done = subprocess.run(
        [SATCC, "reproduce", "queueing-theory", "--quick", "--emulate"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2, done.stderr
    assert "has no emulated mode" in done.stderr


def test_emulate_is_refused_for_all_studies():
    done = subprocess.run(
        [SATCC, "reproduce", "all", "--quick", "--emulate"], capture_output=True, text=True
    )
    assert done.returncode == 2 and "one study at a time" in done.stderr


@needs_nptcp
def test_nptcp_latency_over_the_emulated_satellite_path():
    rows, summary = emulated.run_nptcp(0.05, "-l 1 -u 1 -p 0 -n 10")
    # Half the RTT plus a 1-byte segment's time on each hop: 53 bytes of IP
    # packet in 2 cells (106 bytes) on the 25 Mb/s, E1, OC-3 and E1 hops,
    # then a minimum Ethernet frame with its preamble and gap (84 bytes).
    cells = 106 * 8 * (1 / study.ATM25_BPS + 2 / study.E1_BPS + 1 / study.OC3_BPS)
    modelled = 0.025 + cells + 84 * 8 / study.ETHERNET_BPS
    assert rows[0]["bytes"] == 1
    assert rows[0]["transfer_time_s"] == pytest.approx(modelled, rel=0.02)
    assert summary["run.pdus_unaccounted"] == 0
