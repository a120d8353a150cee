"""Study `abr-lrd-vbr`: TCP over ATM ABR with ERICA+ and self-similar MPEG-2 video.

The "N Source + VBR" configuration of the paper (section 5, Figure 5): 15
TCP bulk transfers, each over its own ABR VC, share the output port of
switch sw1 towards sw2 with one VBR VC that multiplexes 9 MPEG-2 video
sources. All links run at 149.76 Mb/s. VBR has strict priority over ABR at
every port; ERICA+ runs at every switch output port and writes explicit
rates into the backward RM cells of the VCs it carries.

Three placements of the satellite hop (paper sections 7.1-7.3):

- ``wan``: three 1000 km links per path (5 ms each at 5 us/km): RTT 30 ms,
  feedback delay from the bottleneck 10 ms.
- ``sat-short``: the bottleneck link sw1-sw2 is the GEO hop (270 ms one way),
  the destination links are 1 km: RTT 550 ms, feedback delay still 10 ms.
- ``sat-long``: the source links are the GEO hop (275 ms), all others 1 km:
  RTT and feedback delay both about 550 ms.

Efficiency is computed exactly as the paper defines it (section 6): the
measured mean VBR rate at the bottleneck is subtracted from 149.76 Mb/s to
give the mean ABR capacity, which times the maximum TCP-over-ABR efficiency
(about 78 % for MSS 512 and 87 % for MSS 9140, here derived from the cell
arithmetic of the model) is the most TCP could carry; efficiency is the
measured total TCP goodput over that.

Every assumption the paper leaves open is listed in docs/abr-lrd-vbr.md.
"""

from __future__ import annotations

import math
from typing import Any

LINK = "149.76 Mbps"
LINK_BPS = 149.76e6
N_TCP = 15
N_VIDEO = 9
BOTTLENECK = "sw1_sw2"
CELL_BYTES = 53
CELL_PAYLOAD = 48
TCP_IP_HEADER = 40
LLC_SNAP = 8
AAL5_TRAILER = 8
NRM = 32

# Video settings (per-source mean, standard deviation), paper section 5.
VIDEO = {1: (5e6, 5e6), 2: (7.5e6, 7e6), 3: (10e6, 5e6)}
MSS = (512, 9140)

# One-way delays of (source access, bottleneck sw1-sw2, destination access).
KM = 5e-6  # propagation, s per km (paper section 5: 1000 km -> 10 ms feedback)
CONFIGS = {
    "wan": (1000 * KM, 1000 * KM, 1000 * KM),
    "sat-short": (1000 * KM, 0.270, 1 * KM),
    "sat-long": (0.275, 1 * KM, 1 * KM),
}
DURATION = {"wan": 10.0, "sat-short": 170.0, "sat-long": 170.0}
QUICK_DURATION = {"wan": 10.0, "sat-short": 20.0, "sat-long": 20.0}
# Paper section 5: 16 x 64 kB for the WAN, 256 x 34000 B over the satellite.
WINDOW = {"wan": 16 * 64 * 1024, "sat-short": 256 * 34000, "sat-long": 256 * 34000}
TABLE_OF = {("wan", 512): 1, ("wan", 9140): 2, ("sat-short", 512): 3}
TABLE_OF.update({("sat-short", 9140): 4, ("sat-long", 512): 5, ("sat-long", 9140): 6})


def cells_per_segment(mss: int) -> int:
    """AAL5 cells for one segment: TCP/IP headers, LLC/SNAP and trailer, padded."""
    return math.ceil((mss + TCP_IP_HEADER + LLC_SNAP + AAL5_TRAILER) / CELL_PAYLOAD)


def max_tcp_efficiency(mss: int, nrm: int = NRM) -> float:
    """TCP payload over ABR line rate: 512 B -> 0.7799, 9140 B -> 0.8701 (paper: 78 %, 87 %)."""
    return mss / (cells_per_segment(mss) * CELL_BYTES) * (nrm - 1) / nrm


def efficiency(tcp_bps: float, vbr_bps: float, mss: int) -> float:
    """The paper's efficiency: TCP goodput over max efficiency x (link - measured VBR)."""
    return tcp_bps / (max_tcp_efficiency(mss) * (LINK_BPS - vbr_bps))


def feedback_delay_s(config: str) -> float:
    """Bottleneck to source and back: twice the one-way delay of the source links."""
    return 2 * CONFIGS[config][0]


def cells_per_s() -> float:
    return LINK_BPS / (CELL_BYTES * 8)


def label(config: str, mss: int, row: int) -> str:
    return f"{config} mss={mss} row={row}"


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.6g} ms"


def scenario(
    config: str,
    mss: int,
    video: tuple[float, float],
    duration_s: float,
    *,
    n_tcp: int = N_TCP,
    n_video: int = N_VIDEO,
) -> dict[str, Any]:
    """The N Source + VBR configuration as a scenario dict."""
    access, middle, egress = CONFIGS[config]
    window = WINDOW[config]
    unbounded = {"limit": "100000000 packets"}
    port = {"type": "priority", "high": unbounded, "low": unbounded}
    nodes: dict[str, Any] = {"sw1": {}, "sw2": {}, "vsrc": {"type": "host"}}
    nodes["vdst"] = {"type": "host"}
    links: dict[str, Any] = {
        BOTTLENECK: {
            "from": "sw1",
            "to": "sw2",
            "rate": LINK,
            "delay": _ms(middle),
            "duplex": True,
            "queue": port,
            "erica": {},
        },
        "vsrc_sw1": {"from": "vsrc", "to": "sw1", "rate": LINK, "delay": _ms(1 * KM)},
        "sw2_vdst": {"from": "sw2", "to": "vdst", "rate": LINK, "delay": _ms(1 * KM)},
    }
    tcp: dict[str, Any] = {}
    for i in range(1, n_tcp + 1):
        src, dst = f"s{i:02d}", f"d{i:02d}"
        nodes[src] = {"type": "host"}
        nodes[dst] = {"type": "host"}
        # Switch ports towards the hosts run ERICA+ too (that is where the
        # reverse VCs' rates are set); the hosts pace their own cells.
        links[f"{src}_sw1"] = {"from": src, "to": "sw1", "rate": LINK, "delay": _ms(access)}
        links[f"sw1_{src}"] = {
            "from": "sw1",
            "to": src,
            "rate": LINK,
            "delay": _ms(access),
            "queue": port,
            "erica": {},
        }
        links[f"sw2_{dst}"] = {
            "from": "sw2",
            "to": dst,
            "rate": LINK,
            "delay": _ms(egress),
            "queue": port,
            "erica": {},
        }
        links[f"{dst}_sw2"] = {"from": dst, "to": "sw2", "rate": LINK, "delay": _ms(egress)}
        tcp[f"t{i:02d}"] = {
            "from": src,
            "to": dst,
            # Section 6: no fast retransmit and recovery, so RTO-only recovery.
            "variant": "tahoe",
            "mss": f"{mss} B",
            "initial_window": 1,
            "delayed_ack": False,
            "clock_granularity": "100 ms",
            "send_buffer": f"{window} B",
            "receive_buffer": f"{window} B",
            "abr": {"pcr": LINK},
        }
    mean, std = video
    sources = {
        f"video{k}": {
            "type": "mpeg2",
            "from": "vsrc",
            "to": "vbr",
            "rate": f"{mean} bps",
            "std": f"{std} bps",
            "hurst": 0.8,
            "priority": 0,
        }
        for k in range(1, n_video + 1)
    }
    return {
        "run": {
            "name": f"abr-lrd-vbr-{config}-mss{mss}",
            "duration": f"{duration_s} s",
            "sample_interval": "10 ms",
        },
        "nodes": nodes,
        "links": links,
        "sources": sources,
        "sinks": {"vbr": {"node": "vdst"}},
        "tcp": tcp,
        "probes": {
            "abr_queue": {"link": BOTTLENECK, "metric": "queue_low_packets"},
            "vbr_rate": {"link": BOTTLENECK, "metric": "throughput_high_bps"},
            "abr_rate": {"link": BOTTLENECK, "metric": "throughput_low_bps"},
            "fair_share": {"link": BOTTLENECK, "metric": "erica_fair_share_bps"},
        },
    }
