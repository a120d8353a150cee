"""The curves of the netpipe-satellite study: the paper's table at 400 ms
and Figs. 1 (network signature), 2, 3, 4 and 5, as CSV, PNG and SVG."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from satcc import seed_bands
from satcc.analysis.netpipe import NETPIPE_MBIT
from satcc.studies import plots
from satcc.studies.netpipe_satellite import model as study
from satcc.studies.present import write_atomic
from satcc.studies.spec import RunSpec

SIMULATED = "satcc's simulation of the paper's testbed (NetPIPE 2.x's ping-pong over TCP)"


def _save(fig, ax, path: Path, what: str, condition: str, caption: str) -> list[str]:
    plots.title(fig, what, condition)
    plots.legend(ax)
    return plots.save_figure(fig, path, caption)


def _csv(frame: pd.DataFrame, path: Path) -> None:
    write_atomic(path, frame.to_csv(index=False, lineterminator="\n"))


def _by_experiment(
    specs: list[RunSpec], summaries: dict, kind: str
) -> list[tuple[RunSpec, int, dict]]:
    return [
        (specs[i], seed, summary)
        for (i, seed), summary in sorted(summaries.items())
        if specs[i].params["experiment"] == kind
    ]


def write(
    specs: list[RunSpec], summaries: dict[tuple[int, int], dict[str, Any]], out: Path
) -> list[str]:
    out.mkdir(parents=True, exist_ok=True)
    written: list[str] = []
    written += _fig2_and_table(specs, summaries, out)
    written += _fig3(specs, summaries, out)
    written += _ber(specs, summaries, out)
    written += _signature(specs, summaries, out)
    written += _udp(specs, summaries, out)
    return written


def _udp(specs, summaries, out: Path) -> list[str]:
    rows = []
    for spec, _, summary in _by_experiment(specs, summaries, "udp"):
        m = study.metrics(summary, spec)
        for rtt in spec.params["rtts"]:
            tag = f"{rtt * 1e3:g}ms"
            rows.append(
                {
                    "rtt_s": rtt,
                    "transactions_per_s": m[f"transactions_per_s_rtt_{tag}"],
                    "transaction_time_s": m[f"transaction_time_s_rtt_{tag}"],
                }
            )
    _csv(pd.DataFrame(rows), out / "udp_rr_vs_rtt.csv")
    return ["udp_rr_vs_rtt.csv"]


def _fig2_and_table(specs, summaries, out: Path) -> list[str]:
    rows = []
    for spec, _, summary in _by_experiment(specs, summaries, "fig2"):
        for r in study.blocks(summary, "np"):
            rows.append({"rtt_s": spec.params["rtt_s"], **r})
    frame = pd.DataFrame(rows)
    _csv(frame, out / "fig2_throughput_vs_block.csv")
    table = frame[frame["rtt_s"] == study.GEO_RTT].drop(columns="rtt_s")
    _csv(table, out / "table1_400ms_default_socket.csv")
    fig, ax = plots.figure("block size (bytes)", "throughput (Mb/s)")
    for rtt, group in frame.groupby("rtt_s"):
        ax.plot(group["bytes"], group["throughput_mbps"], marker=".", label=f"RTT {rtt * 1e3:g} ms")
    ax.set_xscale("log", base=2)
    caption = (
        "As the paper's Fig. 2: NetPIPE's throughput (the fastest of its trials) against the "
        "block size, one line per round-trip time, with NetPIPE's default 8 KB socket "
        f"buffers over the E1 ATM path; {SIMULATED}, one deterministic run per RTT (no "
        "spread to show)."
    )
    pictures = _save(
        fig,
        ax,
        out / "fig2_throughput_vs_block.png",
        "Throughput against block size",
        "8 KB socket buffers, E1 ATM path",
        caption,
    )
    return ["table1_400ms_default_socket.csv", "fig2_throughput_vs_block.csv", *pictures]


def _fig3(specs, summaries, out: Path) -> list[str]:
    rows = []
    for spec, _, summary in _by_experiment(specs, summaries, "fig3"):
        m = study.metrics(summary, spec)
        for kb in spec.params["sockets_kb"]:
            rows.append(
                {
                    "rtt_s": spec.params["rtt_s"],
                    "socket_kb": kb,
                    "throughput_mbps": m[f"throughput_mbps_socket_{kb:02d}kb"],
                    "peak_throughput_mbps": m[f"peak_throughput_mbps_socket_{kb:02d}kb"],
                }
            )
    frame = pd.DataFrame(rows)
    _csv(frame, out / "fig3_throughput_vs_socket.csv")
    fig, ax = plots.figure("socket buffer (KB)", "throughput (Mb/s)")
    for rtt, group in frame.groupby("rtt_s"):
        ax.plot(
            group["socket_kb"], group["throughput_mbps"], marker="o", label=f"RTT {rtt * 1e3:g} ms"
        )
    slow = frame[frame["rtt_s"] == max(frame["rtt_s"])]
    if len(slow):
        x = np.array([0, slow["socket_kb"].max()])
        paper = 0.0125 * x * NETPIPE_MBIT / 1e6
        ax.plot(x, paper, "k--", label="paper: y = 0.0125 x (600 ms)")
    caption = (
        "As the paper's Fig. 3: the throughput of 64 KB blocks against the socket buffer size, "
        f"one line per round-trip time; {SIMULATED}, one deterministic run per RTT (no "
        "spread to show). Dashed: the paper's fitted line at 600 ms, y = 0.0125 x in "
        "NetPIPE's units (2^20 bit/s per KB), converted to Mb/s."
    )
    pictures = _save(
        fig,
        ax,
        out / "fig3_throughput_vs_socket.png",
        "Throughput of 64 KB blocks against socket buffer",
        "E1 ATM path",
        caption,
    )
    return ["fig3_throughput_vs_socket.csv", *pictures]


def _ber(specs, summaries, out: Path) -> list[str]:
    rows = []
    for spec, seed, summary in _by_experiment(specs, summaries, "ber"):
        m = study.metrics(summary, spec)
        for ber in spec.params["bers"]:
            tag = study._label_ber(ber)
            rows.append(
                {
                    "ber": ber,
                    "seed": seed,
                    "throughput_mbps": m[f"throughput_mbps_ber_{tag}"],
                    "cdv_pct": m[f"cdv_pct_ber_{tag}"],
                    "exchanges_throughput_mbps": m[f"exchanges_throughput_mbps_ber_{tag}"],
                    "exchanges_cdv_pct": m[f"exchanges_cdv_pct_ber_{tag}"],
                }
            )
    frame = pd.DataFrame(rows)
    _csv(frame, out / "fig4_fig5_ber.csv")
    written = ["fig4_fig5_ber.csv"]
    for column, name, what, label, paper in (
        ("throughput_mbps", "fig4_throughput_vs_ber.png", "Throughput", "throughput (Mb/s)", 4),
        (
            "cdv_pct",
            "fig5_cdv_vs_ber.png",
            "Block transfer time variation",
            "%CDV of the block transfer time",
            5,
        ),
    ):
        fig, ax = plots.figure("bit-error rate on the analyser's hop (OC-3 out, E1 back)", label)
        counts: list[int] = []
        for col, legend in (
            (column, "NetPIPE: fastest trial, variance of the trial means"),
            (f"exchanges_{column}", "every timed exchange alike"),
        ):
            counts += _banded_by_ber(ax, frame, col, legend)
        ax.set_xscale("log")
        caption = (
            f"As the paper's Fig. {paper}: {label} against the bit-error rate imposed by the "
            "analyser, RTT 400 ms, 8 KB blocks and socket buffers; "
            f"{SIMULATED}, mean over seeds, as NetPIPE reports it (the fastest trial, the "
            "variance of the trial means) and over every timed exchange alike. "
            + plots.band_caption(counts, seed_bands.NONNEGATIVE)
        )
        written += _save(
            fig, ax, out / name, f"{what} against bit-error rate", "RTT 400 ms", caption
        )
    return written


def _banded_by_ber(ax, frame: pd.DataFrame, column: str, label: str) -> list[int]:
    """The mean over seeds of `column` at each bit-error rate with its
    band (satcc.seed_bands; a throughput and a %CDV are never negative)."""
    rows = []
    for ber, group in frame.groupby("ber"):
        b = seed_bands.band(group[column], seed_bands.NONNEGATIVE)
        rows.append(
            {
                "ber": ber,
                column: b.mean,
                f"{column}_low": b.low,
                f"{column}_high": b.high,
                f"{column}_n": b.n,
            }
        )
    return plots.banded(ax, pd.DataFrame(rows), "ber", column, label, capsize=3)


def _signature(specs, summaries, out: Path) -> list[str]:
    rows = []
    for _, _, summary in _by_experiment(specs, summaries, "signature"):
        for sock in study.SIGNATURE_SOCKETS:
            for r in study.blocks(summary, f"s{sock // 1024:02d}"):
                rows.append({"socket": sock, **r})
    frame = pd.DataFrame(rows)
    _csv(frame, out / "signature_400ms.csv")
    fig, ax = plots.figure("transfer time (s)", "throughput (Mb/s)")
    for sock, group in frame.groupby("socket"):
        ax.plot(
            group["transfer_time_s"],
            group["throughput_mbps"],
            marker=".",
            label=f"socket {sock // 1024} KB",
        )
    ax.set_xscale("log")
    ax.axvline(0.33, color="grey", linestyle=":", label="paper: the curves part at 0.33 s")
    caption = (
        "As the paper's network signature graph (section 3, Fig. 1): NetPIPE's throughput "
        "against the block transfer time at RTT 400 ms, for 8 KB and 64 KB socket buffers; "
        f"{SIMULATED}, one deterministic run (no spread to show). Dotted: where the paper "
        "reads the two curves parting."
    )
    pictures = _save(
        fig, ax, out / "signature_400ms.png", "Network signature graph", "RTT 400 ms", caption
    )
    return ["signature_400ms.csv", *pictures]
