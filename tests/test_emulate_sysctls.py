"""Per-host sysctls of emulated hosts ([emulate.NAME] sysctl).

The schema's refusals need nothing; the rest runs real hosts and reads
what Linux did from tools that are not satcc's: iperf3's report of the
congestion control its sockets used, and the TCP options of the SYNs in
each host's capture (SACK-permitted, kind 4, and timestamps, kind 8, RFC
2018 and RFC 7323). They need root and /dev/net/tun (skipped, saying so,
where either is missing).
"""

from __future__ import annotations

import json
import os
import shutil
import struct
import subprocess
import sys
from pathlib import Path

import pytest
import satcc
from satcc.emulate import EmulationSetupError, emulate, report, sysctls

CAN_EMULATE = os.geteuid() == 0 and os.path.exists("/dev/net/tun") and shutil.which("ip")
needs_emulation = pytest.mark.skipif(
    not CAN_EMULATE, reason="emulation needs root, /dev/net/tun and iproute2's ip"
)
needs_iperf3 = pytest.mark.skipif(
    shutil.which("iperf3") is None,
    reason="iperf3 is not installed (scripts/ensure-emulation-tools.sh)",
)


def scenario(left: dict | None = None, right: dict | None = None) -> dict:
    """Hosts left (10.77.0.1) and right (10.77.0.2) across a 10 Mb/s, 10 ms link."""
    hosts = {"left": {"node": "a"}, "right": {"node": "b"}}
    for name, table in (("left", left), ("right", right)):
        if table is not None:
            hosts[name]["sysctl"] = table
    return {
        "run": {"name": "sysctls", "duration": "30 s"},
        "nodes": {"a": {"type": "host"}, "b": {"type": "host"}},
        "links": {
            "ab": {
                "from": "a",
                "to": "b",
                "rate": "10 Mbps",
                "delay": "10 ms",
                "duplex": True,
                "queue": {"type": "droptail", "limit": "100 packets"},
            }
        },
        "emulate": hosts,
    }


def namespaces() -> set[str]:
    out = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    return {line.split()[0] for line in out.splitlines() if line.strip()}


# ---------------------------------------------------------------------------
# The schema (no root needed).


@pytest.mark.parametrize(
    ("table", "where", "reason"),
    [
        ({"kernel.panic": 1}, '"kernel.panic"', "only net.* sysctls.*change the host machine"),
        ({"vm": {"swappiness": 1}}, '"vm.swappiness"', r"only net\.\* sysctls"),
        ({"net/ipv4/tcp_sack": 0}, '"net/ipv4/tcp_sack"', "with dots"),
        ({"net": 0}, "net", "not a sysctl name"),
        ({"net.ipv4.tcp sack": 0}, '"net.ipv4.tcp sack"', "not a sysctl name"),
        ({"net.ipv4.tcp_sack": True}, '"net.ipv4.tcp_sack"', "write 1 or 0"),
        ({"net.ipv4.tcp_sack": 0.5}, '"net.ipv4.tcp_sack"', "float 0.5"),
        ({"net.ipv4.tcp_rmem": "4096 big 6291456"}, '"net.ipv4.tcp_rmem"', "one word"),
        ({"net.ipv4.tcp_rmem": ""}, '"net.ipv4.tcp_rmem"', "expected an integer"),
        ({"net.ipv4.tcp_rmem": [4096, "x"]}, '"net.ipv4.tcp_rmem"', "a list holds integers"),
        ({"net.ipv4.tcp_rmem": []}, '"net.ipv4.tcp_rmem"', "a list holds integers"),
        (
            {"net.ipv4.tcp_sack": 0, "net": {"ipv4": {"tcp_sack": 1}}},
            '"net.ipv4.tcp_sack"',
            "given twice",
        ),
        (3, "sysctl", "expected a table of sysctl names and values"),
    ],
)
def test_bad_sysctls_are_refused_at_their_key(table, where, reason):
    with pytest.raises(satcc.ScenarioError, match=rf"emulate\.left\.sysctl.*{reason}") as e:
        satcc.Scenario.from_dict(scenario(table)).validate()
    assert f"emulate.left.{where}" in str(e.value) or f"sysctl.{where}" in str(e.value)


def test_good_sysctls_pass_and_stay_out_of_the_description():
    table = {
        "net.ipv4.tcp_congestion_control": "bbr",
        "net.ipv4.tcp_rmem": "4096  131072 6291456",
        "net.ipv4.tcp_wmem": [4096, 16384, 4194304],
        # Unquoted dotted keys in TOML are nested tables: the same names.
        "net": {"ipv4": {"tcp_ecn": 1}},
        "net.ipv4.ip_local_port_range": "32768 60999",
        "net.ipv4.tcp_min_tso_segs": 2,
    }
    plain = satcc.Scenario.from_dict(scenario()).validate()
    with_sysctls = satcc.Scenario.from_dict(scenario(table)).validate()
    assert with_sysctls["emulate"] == plain["emulate"]


def test_nested_tables_read_as_dotted_names_and_values_as_sysctl_writes_them(tmp_path):
    f = tmp_path / "s.toml"
    text = satcc.Scenario.from_dict(scenario()).to_toml()
    f.write_text(
        text
        + '\n[emulate.left.sysctl]\nnet.ipv4.tcp_sack = 0\n"net.ipv4.tcp_rmem" = [1, 2, 3]\n'
        + 'net.ipv4.tcp_congestion_control = " reno "\n'
    )
    from satcc.emulate.session import _plan

    plan = _plan(satcc.scenario.load(f), None)
    assert plan.sysctls() == {
        "left": {
            "net.ipv4.tcp_sack": "0",
            "net.ipv4.tcp_rmem": "1 2 3",
            "net.ipv4.tcp_congestion_control": "reno",
        }
    }


@pytest.fixture
def kernel_lists(monkeypatch):
    """The machine's congestion-control lists as a kernel with tcp_hybla
    built but not allowed in namespaces would show them: the refusal rules
    are judged the same on every machine, whatever its own lists."""
    lists = {sysctls.AVAILABLE: "reno cubic bbr hybla", sysctls.ALLOWED: "reno bbr"}
    monkeypatch.setattr(sysctls, "read", lambda name: lists.get(name))
    return lists


def test_a_congestion_control_the_kernel_lacks_is_refused_before_any_probe(kernel_lists):
    with pytest.raises(EmulationSetupError) as e:
        sysctls.check({"right": {sysctls.CONGESTION_CONTROL: "nosuchcc"}})
    message = str(e.value)
    assert len(message.splitlines()) == 1
    assert 'emulate.right.sysctl."net.ipv4.tcp_congestion_control"' in message
    assert "it offers reno cubic bbr hybla" in message
    assert "modprobe tcp_nosuchcc" in message


def test_a_congestion_control_the_machine_does_not_allow_namespaces_is_refused(kernel_lists):
    with pytest.raises(EmulationSetupError) as e:
        sysctls.check({"left": {sysctls.CONGESTION_CONTROL: "hybla"}})
    assert "allows (reno bbr: net.ipv4.tcp_allowed_congestion_control" in str(e.value)
    assert "iperf3 -C hybla" in str(e.value)


def test_an_allowed_congestion_control_is_not_refused_by_the_list_check(kernel_lists):
    assert sysctls._congestion_control_problems({"left": {sysctls.CONGESTION_CONTROL: "bbr"}}) == {}


def test_the_machines_own_lists_are_read_from_proc():
    # The check reads the real files on a real machine; on Linux they exist.
    assert "reno" in (sysctls.read(sysctls.AVAILABLE) or "").split()


def test_a_sysctl_whose_setting_moved_the_machines_value_is_refused():
    # Linux gives no per-namespace sysctl that leaks; the rule that catches
    # one is checked on its own.
    why = sysctls._refusal("net.x.y", "1", "set", "0", "1")
    assert why is not None and "changed the host machine's value too (0 -> 1)" in why
    assert sysctls._refusal("net.x.y", "1", "set", "0", "0") is None


# ---------------------------------------------------------------------------
# Real hosts.


@needs_emulation
@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("net.ipv4.tcp_no_such_option", "this kernel has no sysctl net.ipv4.tcp_no_such_option"),
        # Registered in the machine's namespace only, on every kernel.
        ("net.core.netdev_max_backlog", "not per-namespace on this kernel"),
        # Absent from a namespace before Linux 6.x, read-only in one since.
        ("net.core.rmem_max", "not per-namespace.*net.ipv4.tcp_rmem is per-namespace"),
    ],
)
def test_a_sysctl_a_namespace_cannot_set_is_refused_by_name_before_anything_starts(
    name, reason, tmp_path
):
    ran = tmp_path / "ran"
    before = namespaces()
    machine = sysctls.read(name)
    table = {"net.ipv4.tcp_sack": 0, name: 1000}
    with pytest.raises(EmulationSetupError, match=reason) as e:
        emulate(scenario(table), commands={"left": f"touch {ran}"})
    assert str(e.value).startswith(f'emulate.left.sysctl."{name}": ')
    assert "tcp_sack" not in str(e.value)  # that one is fine
    assert namespaces() == before
    assert sysctls.read(name) == machine
    assert not ran.exists()


@needs_emulation
def test_every_problem_is_named_at_once():
    with pytest.raises(EmulationSetupError) as e:
        sysctls.check(
            {
                "left": {sysctls.CONGESTION_CONTROL: "nosuchcc", "net.ipv4.tcp_sack": "0"},
                "right": {"net.ipv4.tcp_no_such_option": "1"},
            }
        )
    lines = str(e.value).splitlines()
    assert len(lines) == 2
    assert lines[0].startswith('emulate.left.sysctl."net.ipv4.tcp_congestion_control": ')
    assert lines[1].startswith('emulate.right.sysctl."net.ipv4.tcp_no_such_option": ')


@needs_emulation
def test_a_value_the_kernel_refuses_is_refused_by_name():
    with pytest.raises(EmulationSetupError, match=r'tcp_sack.*refused.*"yes": Invalid argument'):
        emulate(scenario({"net.ipv4.tcp_sack": "yes"}), commands={"left": "true"})


@needs_emulation
@needs_iperf3
def test_each_host_sends_with_its_own_congestion_control_and_the_machine_keeps_its_own():
    machine = {n: sysctls.read(n) for n in (sysctls.CONGESTION_CONTROL, "net.ipv4.tcp_sack")}
    # reno is allowed everywhere; the right host takes another allowed one.
    other = next(
        (cc for cc in (sysctls.read(sysctls.ALLOWED) or "").split() if cc != "reno"), "reno"
    )
    result = emulate(
        scenario(
            {sysctls.CONGESTION_CONTROL: "reno", "net.ipv4.tcp_sack": 0},
            {sysctls.CONGESTION_CONTROL: other},
        ),
        commands={
            # Once the server listens: a refused connection ends iperf3.
            "left": "sleep 1 && iperf3 -c 10.77.0.2 -t 2 -J",
            "right": "iperf3 -s -1 -J",
        },
    )
    assert result.exit_code("left") == 0, result.output("left")
    sent = json.loads(result.output("left"))["end"]
    # iperf3 reads each socket's TCP_CONGESTION: the namespaces' defaults.
    assert sent["sender_tcp_congestion"] == "reno"
    assert sent["receiver_tcp_congestion"] == other
    assert sent["sum_received"]["bytes"] > 100_000  # a transfer, not a handshake
    assert result.info["sysctl"] == {
        "left": {sysctls.CONGESTION_CONTROL: "reno", "net.ipv4.tcp_sack": "0"},
        "right": {sysctls.CONGESTION_CONTROL: other},
    }
    shown = report.lines(result.summary, result.info)
    assert "left: sysctl net.ipv4.tcp_congestion_control = reno, net.ipv4.tcp_sack = 0" in shown
    assert {n: sysctls.read(n) for n in machine} == machine


CONNECT = """
import socket, sys, time
role, host, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
if role == "serve":
    s = socket.create_server((host, port))
    c, _ = s.accept()
    while c.recv(65536):
        pass
else:
    deadline = time.monotonic() + 10
    while True:
        try:
            c = socket.create_connection((host, port))
            break
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)
    c.sendall(b"x" * 10000)
    c.close()
"""


def syn_options(pcap: Path) -> dict[str, set[int]]:
    """The TCP option kinds of each SYN in a raw-IPv4 capture, by its
    source address (SYN-ACKs left out)."""
    data = pcap.read_bytes()
    magic = struct.unpack_from("<I", data)[0]
    assert magic in (0xA1B2C3D4, 0xA1B23C4D)
    assert struct.unpack_from("<I", data, 20)[0] == 101  # LINKTYPE_RAW
    found: dict[str, set[int]] = {}
    at = 24
    while at < len(data):
        length = struct.unpack_from("<I", data, at + 8)[0]
        packet = data[at + 16 : at + 16 + length]
        at += 16 + length
        if packet[0] >> 4 != 4 or packet[9] != 6:
            continue
        tcp = packet[(packet[0] & 15) * 4 :]
        if tcp[13] & 0x12 != 0x02:  # SYN without ACK
            continue
        kinds, options = set(), tcp[20 : (tcp[12] >> 4) * 4]
        i = 0
        while i < len(options) and options[i] != 0:
            if options[i] == 1:
                i += 1
                continue
            kinds.add(options[i])
            i += options[i + 1]
        source = ".".join(str(b) for b in packet[12:16])
        found.setdefault(source, set()).update(kinds)
    return found


@needs_emulation
def test_a_host_without_sack_and_timestamps_offers_neither_in_its_syn(tmp_path):
    script = tmp_path / "connect.py"
    script.write_text(CONNECT)
    run = f"{sys.executable} {script}"
    # Each host serves one connection and opens one to the other: the
    # right host's SYN is the control.
    result = emulate(
        scenario(
            {"net.ipv4.tcp_sack": 0, "net.ipv4.tcp_timestamps": 0},
            {"net.ipv4.tcp_sack": 1, "net.ipv4.tcp_timestamps": 1},
        ),
        commands={
            "left": f"{run} serve 10.77.0.1 5001 & {run} connect 10.77.0.2 5000; wait",
            "right": f"{run} serve 10.77.0.2 5000 & {run} connect 10.77.0.1 5001; wait",
        },
        pcap=True,
    )
    assert result.exit_code("left") == 0 and result.exit_code("right") == 0
    syns = syn_options(result.files["pcap/left.pcap"])
    sack_permitted, timestamps, mss = 4, 8, 2
    assert mss in syns["10.77.0.1"] and mss in syns["10.77.0.2"]
    assert sack_permitted not in syns["10.77.0.1"]
    assert timestamps not in syns["10.77.0.1"]
    assert sack_permitted in syns["10.77.0.2"]
    assert timestamps in syns["10.77.0.2"]
