"""The hosts' buffer and window profiles against the paper's signature graph
and its 400 ms table (docs/netpipe-satellite.md, "What explains the
remaining difference").

The paper's 8 KB curve parts from the 64 KB one at 0.33 s; satcc's, with
4.4BSD hosts, at 0.241 s. What a host makes of an "8 KB socket" sets where
a block first needs a second round trip: `one_window_bytes` gives it in
closed form per profile, and `compare` runs the study's signature
experiment (the 8 KB and 64 KB sweeps at 400 ms, whose 8 KB sweep is also
the study's table (a)) once per profile.

    python -m satcc.studies.netpipe_satellite.profiles [--emulate]

With `--emulate` (root, /dev/net/tun, NPtcp) it also runs the real NPtcp
with `-b 8192` between two Linux hosts over the emulated path, one block
size at a time around the knee, beside satcc's linux and bsd44 profiles on
the same emulated path.
"""

from __future__ import annotations

import argparse
import math
from typing import Any

import satcc
from satcc.studies.netpipe_satellite import model as sim

# The 400 ms table's rows the comparison shows (4, 8, 12 and 16 KB with
# NetPIPE 2.x's perturbations), and the knee's neighbourhood.
TABLE_ROWS = (4093, 4096, 8192, 8195, 12285, 12288, 16384, 16387)
# (socket, block) pairs for the real-NPtcp comparison, one NPtcp run each.
KNEE_SIZES = tuple(
    (8192, b) for b in (4096, 7300, 7301, 8192, 8195, 8688, 8689, 8760, 12288)
) + tuple((4096, b) for b in (2896, 2897, 2920, 4096))


def one_window_bytes(host: str, requested: int, mss: int = sim.MSS) -> int:
    """The largest block a host profile moves in one round trip once its
    window is open, in closed form.

    - bsd44 and winnt: the receive buffer rounded up to whole segments
      (8192 -> 8760), all of it advertised.
    - linux: the kernel keeps 2 x requested and offers half of it
      (tcp_adv_win_scale 1), in whole segments while that fits the window
      field unscaled (8192 -> 16384 -> 8192 -> 7300); rcv_ssthresh reaches
      that clamp after a few blocks (it starts at ten segments).
      linux-2.4 offers three quarters (tcp_adv_win_scale 2): 8192 ->
      16384 -> 12288 -> 11680.
    """
    if host in ("bsd44", "winnt"):
        return sim.bsd_socket_buffer(requested, mss)
    if host in ("linux", "linux-2.4"):
        kept = 2 * requested
        share = kept - (kept >> (2 if host == "linux-2.4" else 1))
        if share > 65_535:
            return share  # a window shift: no rounding to segments
        return share // mss * mss
    raise ValueError(f"unknown host profile {host!r}")


def signature(host: str, rtt_s: float = sim.GEO_RTT) -> dict[str, list[dict]]:
    """The study's signature experiment with `host` hosts: the 8 KB and
    64 KB NetPIPE sweeps side by side."""
    paths = [
        sim.path(f"s{sock // 1024:02d}", rtt_s, sock, sim.sweep_app(), host=host)
        for sock in sim.SIGNATURE_SOCKETS
    ]
    summary = satcc.run(sim.testbed("netpipe-signature", paths, sim.SWEEP_S), seed=1).summary
    return {
        "small": sim.blocks(summary, f"s{sim.SIGNATURE_SOCKETS[0] // 1024:02d}"),
        "large": sim.blocks(summary, f"s{sim.SIGNATURE_SOCKETS[1] // 1024:02d}"),
    }


def max_shown_block(host: str, rtt_s: float) -> float:
    """The largest block NetPIPE shows with the default socket at `rtt_s`."""
    p = sim.path("np", rtt_s, sim.DEFAULT_SOCKET, sim.sweep_app(), host=host)
    summary = satcc.run(sim.testbed("netpipe-fig2", [p], sim.SWEEP_S), seed=1).summary
    return sim.max_shown_block(sim.blocks(summary, "np"))


def compare(hosts: tuple[str, ...] = sim.HOSTS) -> dict[str, dict[str, Any]]:
    """Per profile: the parting time, the one-window block in closed form,
    the 8 KB sweep's rows of `TABLE_ROWS` (seconds) and the largest block
    NetPIPE shows at 400 ms (that sweep) and at 600 ms."""
    out = {}
    for host in hosts:
        curves = signature(host)
        times = {r["bytes"]: r["transfer_time_s"] for r in curves["small"]}
        out[host] = {
            "parting_transfer_time_s": sim.parting_transfer_time(curves["small"], curves["large"]),
            "one_window_bytes": one_window_bytes(host, sim.DEFAULT_SOCKET),
            "rows": {b: times.get(b, math.nan) for b in TABLE_ROWS},
            "max_shown_block_400ms": sim.max_shown_block(curves["small"]),
            "max_shown_block_600ms": max_shown_block(host, 0.6),
        }
    return out


def emulated_path_tcp(
    rtt_s: float, host: str, size: int, socket: int = sim.DEFAULT_SOCKET
) -> dict[str, Any]:
    """satcc's TCP over the emulated path (the ATM hops timing packets as
    AAL5 cells, as the emulator does), one block size, NetPIPE's
    measurement: what the real NPtcp run is compared with."""
    from satcc.studies.netpipe_satellite import emulated as em

    p = sim.path("np", rtt_s, socket, _fixed(size), host=host)
    tcp = p["tcp"]["np"]
    tcp.pop("ubr")
    scenario = em.emulated_path(rtt_s)
    scenario.pop("emulate")
    scenario["run"]["duration"] = "300 s"
    scenario["tcp"] = {"np": tcp}
    return scenario


def _fixed(size: int) -> dict[str, Any]:
    # Five untimed exchanges of the size first open the window, as the
    # smaller blocks of a sweep do.
    return {**sim.fixed_block_app(size), "warmup": 5}


def simulated_on_emulated_path(
    host: str, size: int, socket: int = sim.DEFAULT_SOCKET, rtt_s: float = sim.GEO_RTT
) -> float:
    summary = satcc.run(emulated_path_tcp(rtt_s, host, size, socket), seed=1).summary
    (row,) = sim.blocks(summary, "np")
    return row["transfer_time_s"]


# The real hosts' congestion control: Reno, as the paper's hosts' family and
# without pacing. A machine's default may be BBR, which paces at its
# delivery-rate estimate: a ping-pong is application-limited, so the
# estimate is low and a block leaves slower than the path carries it.
REAL_SYSCTL = {"net.ipv4.tcp_congestion_control": "reno"}


def real_nptcp(size: int, socket: int = sim.DEFAULT_SOCKET, rtt_s: float = sim.GEO_RTT) -> float:
    """NPtcp -b `socket` at one block size over the emulated path (3
    repetitions per trial), Reno on both hosts: its reported one-way time."""
    from satcc.studies.netpipe_satellite import emulated as em

    args = f"-b {socket} -l {size} -u {size} -p 0 -n 3"
    rows, _summary = em.run_nptcp(rtt_s, args, sysctl=REAL_SYSCTL)
    return rows[0]["transfer_time_s"] if rows else math.nan


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--emulate", action="store_true", help="also run the real NPtcp")
    args = parser.parse_args(argv)
    result = compare()
    head = "host,parting_s,one_window_bytes,max_block_400ms,max_block_600ms,"
    print(head + ",".join(f"t_{b}" for b in TABLE_ROWS))
    for host, r in result.items():
        rows = ",".join(f"{r['rows'][b]:.4f}" for b in TABLE_ROWS)
        print(
            f"{host},{r['parting_transfer_time_s']:.4f},{r['one_window_bytes']},"
            f"{r['max_shown_block_400ms']:g},{r['max_shown_block_600ms']:g},{rows}"
        )
    print(
        "socket,size,satcc_linux_emulated_path,satcc_bsd44_emulated_path" + ",real" * args.emulate
    )
    for socket, size in KNEE_SIZES:
        linux = simulated_on_emulated_path("linux", size, socket)
        bsd = simulated_on_emulated_path("bsd44", size, socket)
        real = f",{real_nptcp(size, socket):.4f}" if args.emulate else ""
        print(f"{socket},{size},{linux:.4f},{bsd:.4f}{real}", flush=True)


if __name__ == "__main__":
    main()
