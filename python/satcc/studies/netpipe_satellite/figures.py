"""The curves of the netpipe-satellite study: the paper's table at 400 ms
and Figs. 1 (network signature), 2, 3, 4 and 5, as CSV and PNG."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from satcc.analysis.netpipe import NETPIPE_MBIT
from satcc.studies import plots
from satcc.studies.netpipe_satellite import model as study
from satcc.studies.present import write_atomic
from satcc.studies.spec import RunSpec


def _figure():
    return plots.figure()


def _save(fig, path: Path) -> None:
    plots.save_png(fig, path)


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
    fig, ax = _figure()
    for rtt, group in frame.groupby("rtt_s"):
        ax.plot(group["bytes"], group["throughput_mbps"], marker=".", label=f"RTT {rtt * 1e3:g} ms")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("block size (bytes)")
    ax.set_ylabel("throughput (Mb/s)")
    ax.set_title("Fig. 2: NetPIPE throughput vs block size, 8 KB socket, E1 ATM path")
    ax.legend(fontsize=8)
    _save(fig, out / "fig2_throughput_vs_block.png")
    return ["table1_400ms_default_socket.csv", "fig2_throughput_vs_block.csv/.png"]


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
    fig, ax = _figure()
    for rtt, group in frame.groupby("rtt_s"):
        ax.plot(
            group["socket_kb"], group["throughput_mbps"], marker="o", label=f"RTT {rtt * 1e3:g} ms"
        )
    slow = frame[frame["rtt_s"] == max(frame["rtt_s"])]
    if len(slow):
        x = np.array([0, slow["socket_kb"].max()])
        paper = 0.0125 * x * NETPIPE_MBIT / 1e6
        ax.plot(x, paper, "k--", label="paper: y = 0.0125 x (600 ms, NetPIPE units)")
    ax.set_xlabel("socket buffer (KB)")
    ax.set_ylabel("throughput (Mb/s)")
    ax.set_title("Fig. 3: throughput of 64 KB blocks vs socket buffer")
    ax.legend(fontsize=8)
    _save(fig, out / "fig3_throughput_vs_socket.png")
    return ["fig3_throughput_vs_socket.csv/.png"]


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
    mean = frame.groupby("ber").agg(["mean", "min", "max"])
    for column, name, title, label in (
        (
            "throughput_mbps",
            "fig4_throughput_vs_ber.png",
            "Fig. 4: throughput vs BER",
            "throughput (Mb/s)",
        ),
        (
            "cdv_pct",
            "fig5_cdv_vs_ber.png",
            "Fig. 5: %CDV vs BER",
            "%CDV of the block transfer time",
        ),
    ):
        fig, ax = _figure()
        for col, legend in (
            (column, "NetPIPE: fastest trial, variance of the trial means"),
            (f"exchanges_{column}", "every timed exchange alike"),
        ):
            m = mean[col]
            err = np.vstack([m["mean"] - m["min"], m["max"] - m["mean"]])
            ax.errorbar(
                m.index, m["mean"], yerr=np.nan_to_num(err), marker="o", capsize=3, label=legend
            )
        ax.legend(fontsize=8)
        ax.set_xscale("log")
        ax.set_xlabel("bit-error rate on the analyser's hop (OC-3 out, E1 back)")
        ax.set_ylabel(label)
        ax.set_title(f"{title}, RTT 400 ms, 8 KB blocks and socket\n(mean, min-max over seeds)")
        _save(fig, out / name)
    return ["fig4_fig5_ber.csv", "fig4_throughput_vs_ber.png", "fig5_cdv_vs_ber.png"]


def _signature(specs, summaries, out: Path) -> list[str]:
    rows = []
    for _, _, summary in _by_experiment(specs, summaries, "signature"):
        for sock in study.SIGNATURE_SOCKETS:
            for r in study.blocks(summary, f"s{sock // 1024:02d}"):
                rows.append({"socket": sock, **r})
    frame = pd.DataFrame(rows)
    _csv(frame, out / "signature_400ms.csv")
    fig, ax = _figure()
    for sock, group in frame.groupby("socket"):
        ax.plot(
            group["transfer_time_s"],
            group["throughput_mbps"],
            marker=".",
            label=f"socket {sock // 1024} KB",
        )
    ax.set_xscale("log")
    ax.set_xlabel("transfer time (s)")
    ax.set_ylabel("throughput (Mb/s)")
    ax.set_title("Network signature graph, RTT 400 ms")
    ax.axvline(0.33, color="grey", linestyle=":", label="paper: the curves part at 0.33 s")
    ax.legend(fontsize=8)
    _save(fig, out / "signature_400ms.png")
    return ["signature_400ms.csv/.png"]
