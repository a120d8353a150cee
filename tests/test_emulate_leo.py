"""Real Linux hosts across a moving LEO path (docs/leo.md): a UDP echo
between Manila and Dalian over Kuiper K1 measures the RTT the link's delay
schedule gives, path change included. Needs root and /dev/net/tun (skipped,
saying so, where either is missing; CI runs it as root)."""

from __future__ import annotations

import sys

import numpy as np
import satcc
import test_constellation
from satcc.emulate import emulate
from test_emulate import needs_emulation

ECHO = """
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("0.0.0.0", 7777))
while True:
    data, peer = s.recvfrom(64)
    s.sendto(data, peer)
"""

# One probe every 50 ms for `seconds`: "time since the first  RTT in ms".
# A reply that comes after its probe's 40 ms timeout is read and thrown
# away by a later probe, which waits for its own (matched by the send
# time the datagram carries): otherwise one late reply would pair every
# later probe with its predecessor's reply, 50 ms off.
PROBE = """
import socket, struct, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
t0 = time.monotonic()
while time.monotonic() - t0 < {seconds}:
    sent = time.monotonic()
    s.sendto(struct.pack("!d", sent), ("10.77.0.2", 7777))
    while True:
        left = sent + 0.04 - time.monotonic()
        if left <= 0:
            break
        s.settimeout(left)
        try:
            (t,) = struct.unpack("!d", s.recvfrom(64)[0][:8])
        except socket.timeout:
            break
        if t == sent:
            print(f"{{t - t0:.6f}} {{(time.monotonic() - t) * 1e3:.4f}}", flush=True)
            break
    time.sleep(max(0.0, 0.05 - (time.monotonic() - sent)))
"""

START_S = 0.5


def scenario() -> dict:
    """test_constellation's Manila - Dalian path with two real hosts
    instead of the simulated connection."""
    sc = test_constellation.scenario(duration="30 s")
    del sc["tcp"]
    sc["emulate"] = {
        "left": {"node": "a", "start": f"{START_S} s"},
        "right": {"node": "b", "background": True},
    }
    return sc


def schedule_rtt_ms(desc: dict, t: np.ndarray) -> np.ndarray:
    """The RTT of a probe sent at t: out on the delay in force then, back
    on the one in force when it reaches the far end."""
    link = next(entry for entry in desc["links"] if entry["name"] == "sat")
    delays = np.array(link["delay_schedule"]["delays_ps"], dtype=float) / 1e12
    step = link["delay_schedule"]["times_ps"][1] / 1e12
    out = delays[(t / step).astype(int)]
    back = delays[((t + out) / step).astype(int)]
    return (out + back) * 1e3


@needs_emulation
def test_a_real_udp_echo_follows_the_moving_path(tmp_path):
    # Manila-Dalian's path changes at 18.0 s, its RTT falling from 29.0 to
    # 25.3 ms (Hypatia's data, docs/leo.md).
    (tmp_path / "echo.py").write_text(ECHO)
    (tmp_path / "probe.py").write_text(PROBE.format(seconds=24))
    r = emulate(
        scenario(),
        commands={
            "right": f"{sys.executable} {tmp_path / 'echo.py'}",
            "left": f"{sys.executable} {tmp_path / 'probe.py'}",
        },
    )
    assert r.exit_code("left") == 0, r.output("left")
    m = np.loadtxt(r.output("left").splitlines())
    t, rtt = m[:, 0], m[:, 1]
    assert len(t) > 400
    desc = satcc.Scenario.from_dict(scenario()).validate()
    # The probe's clock starts when its interpreter is up, a little after
    # START_S: the offset that fits best, within 0.3 s of it.
    fits = []
    for offset in np.arange(START_S, START_S + 0.3, 0.001):
        residual = rtt - schedule_rtt_ms(desc, t + offset)
        fits.append((np.mean(np.abs(residual - np.median(residual))), offset, residual))
    _, offset, residual = min(fits, key=lambda f: f[0])
    # A constant excess, the hosts' own stacks and the user-space echo,
    # and around it the emulator's and the hosts' timing errors (a few ms
    # for some probes on a busy machine, hence the median and the 90th
    # percentile rather than the largest).
    excess = np.median(residual)
    assert 0 <= excess < 2.0, excess
    spread = np.abs(residual - excess)
    assert np.median(spread) < 0.3 and np.percentile(spread, 90) < 1.5, np.percentile(spread, 90)
    before = rtt[(t + offset > 16) & (t + offset < 17.9)].mean()
    after = rtt[(t + offset > 18.2) & (t + offset < 20)].mean()
    assert 3.2 < before - after < 4.0, (before, after)
    assert r.summary["run.pdus_unaccounted"] == 0
