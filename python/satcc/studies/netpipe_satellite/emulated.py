"""`satcc reproduce netpipe-satellite --emulate`: the real NetPIPE (NPtcp)
between two Linux hosts over the study's E1 satellite path, in real time.

The paper ran NetPIPE between two PCs through a delay and error analyser;
the simulated study runs satcc's model of NetPIPE 2.x over satcc's TCP.
Here NPtcp (Debian's netpipe-tcp, NetPIPE 3.7) and Linux's TCP run over the
same modelled path: the 25 Mb/s access link, an E1 each way, the OC-3 hop
and E1 on which the analyser imposes its delay and bit errors, and the
hub's 10 Mb/s Ethernet. The emulator carries IP packets, not the cells of
a VC: the ATM links time each packet as its AAL5 cells (`framing =
"aal5"`, RFC 1577's 8-byte LLC/SNAP header, where LAN emulation puts 16
bytes: the same number of cells for full-sized segments) and a bit error
anywhere in them loses the packet, as a lost cell loses its AAL5 frame.

The socket: NPtcp's `-b 8192` asks for 8 KB send and receive buffers, as
NetPIPE did in the paper. Linux stores twice what setsockopt asks (the
other half is its allowance for bookkeeping) and advertises as window the
payload share of that buffer, so the "8 KB socket" of a Linux host is a
window of roughly 8 to 11 KB, not 4.4BSD's 8760 bytes (8192 rounded up to
whole segments). The window a run actually had is estimated from its
largest blocks (throughput x RTT) and shown.

What is compared, per RTT: the largest block NetPIPE shows before a
transfer takes over its 1 s stop time, the peak throughput, and the
throughput of each block size (written to netpipe-satellite-emulated.csv);
and, at 400 ms, the 8 KB block's throughput under bit errors as a fraction
of the error-free one. These are shown beside the simulation, not judged:
NPtcp is NetPIPE 3.7, not the paper's 2.x (its own repetition and stop
rules), and Linux's TCP is not the paper hosts'.
"""

from __future__ import annotations

import math
import shutil
import tempfile
from pathlib import Path
from typing import Any

from satcc.console import say
from satcc.studies.emulated_mode import Emulated
from satcc.studies.errors import RunFailed
from satcc.studies.netpipe_satellite import model as sim
from satcc.studies.present import write_atomic
from satcc.studies.spec import RunSpec

SOCKET = sim.DEFAULT_SOCKET
QUICK_RTTS = (0.05, 0.4)
RTTS = (0.001, 0.05, 0.2, 0.4, 0.6)
# Up to 3e-6: beyond, most 8 KB exchanges wait for a retransmission timeout
# and a sweep outlasts any sensible run.
BERS = (1e-12, 1e-7, 1e-6, 3e-6)
QUICK_BERS = (1e-12, 1e-6)
# NPtcp's repetitions per trial at the fixed 8 KB block under bit errors.
BER_REPEATS = 3
# An NPtcp sweep ends by its stop rule; this bounds a sweep that would not.
SWEEP_LIMIT_S = 600.0


class NetpipeMissing(RuntimeError):
    pass


def emulated_path(
    rtt_s: float, ber: float = 1e-12, sysctl: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The study's path with its TCP connection taken out, two real hosts
    (tx at the transmitting PC, rx at the receiving one) put in, and the
    ATM links carrying packets as their AAL5 cells; `sysctl` is set on
    both hosts."""
    p = sim.path("np", rtt_s, SOCKET, sim.sweep_app(), ber)
    p.pop("tcp")
    for name, link in p["links"].items():
        if not name.endswith("ethernet"):
            link["framing"] = "aal5"
    hosts = {
        "tx": {"node": "np_a", "address": "10.77.0.1"},
        "rx": {"node": "np_b", "address": "10.77.0.2", "command": "NPtcp", "background": True},
    }
    for host in hosts.values():
        if sysctl:
            host["sysctl"] = dict(sysctl)
    return {
        "run": {"name": "netpipe-emulated", "duration": f"{SWEEP_LIMIT_S} s"},
        "nodes": p["nodes"],
        "links": p["links"],
        "emulate": hosts,
    }


def parse_output(text: str) -> list[dict[str, float]]:
    """NPtcp's output file: per block, its bytes, throughput and one-way
    time (half the round trip, seconds). The throughput is recomputed from
    the other two, in SI Mb/s as the simulation reports it, whatever
    megabit NPtcp prints."""
    rows = []
    for line in text.splitlines():
        fields = line.split()
        if len(fields) < 3:
            continue
        size, seconds = float(fields[0]), float(fields[2])
        rows.append(
            {
                "bytes": size,
                "throughput_mbps": size * 8 / seconds / 1e6 if seconds > 0 else math.nan,
                "transfer_time_s": seconds,
            }
        )
    return rows


def receiver_args(args: str) -> str:
    """The receiver's NPtcp options: each side derives the block sizes from
    its own -l, -p and -n, so the receiver needs the transmitter's, except
    -u (the receiver stops when the transmitter closes)."""
    words = args.split()
    kept = []
    for i, word in enumerate(words):
        if word == "-u" or (i > 0 and words[i - 1] == "-u"):
            continue
        kept.append(word)
    return " ".join(kept)


def run_nptcp(
    rtt_s: float, args: str, ber: float = 1e-12, sysctl: dict[str, Any] | None = None
) -> tuple[list[dict], dict]:
    """NPtcp from tx to rx with `args`; its rows and the run's summary
    (with `cut_short`: the run's time limit ended NPtcp); `sysctl` is set
    on both hosts."""
    from satcc.emulate import emulate_on_time

    if shutil.which("NPtcp") is None:
        raise NetpipeMissing("NPtcp is not installed (bash scripts/ensure-emulation-tools.sh)")
    with tempfile.TemporaryDirectory(prefix="satcc-netpipe-") as tmp:
        out = Path(tmp) / "np.out"
        command = f"sleep 0.3 && NPtcp -h 10.77.0.2 {args} -o {out}"
        commands = {"tx": command, "rx": f"NPtcp {receiver_args(args)}"}

        def read(result) -> tuple[list[dict], bool]:
            cut_short = result.commands["tx"].stopped
            if (result.exit_code("tx") != 0 and not cut_short) or not out.exists():
                raise RunFailed(
                    f"NPtcp {args} at RTT {rtt_s * 1e3:g} ms failed: {result.output('tx')[-400:]}"
                )
            # A sweep the run's limit cut short keeps the blocks it finished.
            return parse_output(out.read_text()), cut_short

        path = emulated_path(rtt_s, ber, sysctl)
        result, (rows, cut_short) = emulate_on_time(path, read, seed=1, commands=commands)
        return rows, {**result.summary, "cut_short": cut_short}


def window_estimate_bytes(rows: list[dict], rtt_s: float) -> float:
    """The window a sweep ran with, from its largest shown block: a block
    of many windows moves one window per round trip."""
    if not rows or rtt_s < 0.05:
        return math.nan
    last = rows[-1]
    if last["bytes"] < 4 * SOCKET:
        return math.nan
    return last["throughput_mbps"] * 1e6 / 8 * rtt_s


def emulation(
    specs: list[RunSpec],
    summaries: dict[tuple[int, int], dict[str, Any]],
    out: Path,
    quick: bool,
) -> Emulated:
    """Runs NPtcp over the emulated path for the study's fig2 RTTs and its
    bit errors, and lays the results beside the simulated ones."""
    simulated = _simulated_fig2(specs, summaries)
    curves: list[str] = ["experiment,rtt_s,ber,bytes,throughput_mbps,transfer_time_s"]
    sweeps = []
    for rtt in QUICK_RTTS if quick else RTTS:
        say(f"emulating NPtcp -b {SOCKET} at RTT {rtt * 1e3:g} ms")
        rows, summary = run_nptcp(rtt, f"-b {SOCKET} -p 0 -u {sim.PAPER_MAX_BLOCK - 3}")
        curves += [
            f"sweep,{rtt},0,{r['bytes']:g},{r['throughput_mbps']:.6g},{r['transfer_time_s']:.6g}"
            for r in rows
        ]
        sweeps.append((rtt, rows, summary))
    errors = []
    for ber in QUICK_BERS if quick else BERS:
        say(f"emulating NPtcp, 8 KB blocks at RTT 400 ms, BER {ber:g}")
        args = f"-b {SOCKET} -l {sim.BER_BLOCK} -u {sim.BER_BLOCK} -p 0 -n {BER_REPEATS}"
        rows, summary = run_nptcp(sim.GEO_RTT, args, ber)
        curves += [
            f"ber,{sim.GEO_RTT},{ber:g},{r['bytes']:g},{r['throughput_mbps']:.6g},"
            f"{r['transfer_time_s']:.6g}"
            for r in rows
        ]
        errors.append((ber, rows, summary))
    name = "netpipe-satellite-emulated.csv"
    write_atomic(out / name, "\n".join(curves) + "\n")
    tables = [_sweep_table(sweeps, simulated), _ber_table(errors, specs, summaries)]
    return Emulated(tables=tables, files=[name])


def _simulated_fig2(specs: list[RunSpec], summaries: dict) -> dict[float, list[dict]]:
    out = {}
    for (i, _seed), summary in summaries.items():
        if specs[i].params["experiment"] == "fig2":
            out[specs[i].params["rtt_s"]] = sim.blocks(summary, "np")
    return out


def _late(summary: dict) -> str:
    p99 = float(summary["emulator.release_error_p99_us"]) / 1e3
    worst = float(summary["emulator.release_error_max_us"]) / 1e3
    return f"{p99:.2g}/{worst:.2g}"


def _sweep_table(sweeps: list, simulated: dict[float, list[dict]]) -> Any:
    from rich import box
    from rich.table import Table

    from satcc import fmt

    table = Table(
        title="netpipe-satellite --emulate: NPtcp (NetPIPE 3.7) and Linux TCP over the "
        "emulated path, 8 KB socket, beside the simulation",
        title_justify="left",
        box=box.SIMPLE_HEAD,
        padding=(0, 1),
    )
    table.add_column("RTT", no_wrap=True)
    for head in (
        "largest block sim",
        "Linux",
        "peak Mb/s sim",
        "Linux",
        "latency ms sim",
        "Linux",
        "window est. B",
        "late p99/max ms",
    ):
        table.add_column(head, justify="right", no_wrap=True)
    for rtt, rows, summary in sweeps:
        ours = simulated.get(rtt, [])
        table.add_row(
            f"{rtt * 1e3:g} ms",
            fmt.number(sim.max_shown_block(ours)) if ours else fmt.MISSING,
            fmt.number(sim.max_shown_block(rows)),
            fmt.number(sim.peak_throughput_mbps(ours)) if ours else fmt.MISSING,
            fmt.number(sim.peak_throughput_mbps(rows)),
            fmt.number(ours[0]["transfer_time_s"] * 1e3) if ours else fmt.MISSING,
            fmt.number(rows[0]["transfer_time_s"] * 1e3) if rows else fmt.MISSING,
            fmt.number(window_estimate_bytes(rows, rtt)),
            _late(summary),
        )
    return table


def _ber_table(errors: list, specs: list[RunSpec], summaries: dict) -> Any:
    from rich import box
    from rich.table import Table

    from satcc import fmt

    simulated: dict[float, list[float]] = {}
    for (i, _seed), summary in sorted(summaries.items()):
        if specs[i].params["experiment"] != "ber":
            continue
        metrics = sim.metrics(summary, specs[i])
        for ber in specs[i].params["bers"]:
            key = f"throughput_fraction_ber_{sim._label_ber(ber)}"
            simulated.setdefault(ber, []).append(metrics[key])
    table = Table(
        title="8 KB blocks at RTT 400 ms under bit errors: throughput / error-free throughput",
        title_justify="left",
        box=box.SIMPLE_HEAD,
        padding=(0, 1),
    )
    for head in ("BER", "sim (mean of seeds)", "Linux + NPtcp", "Linux Mb/s", "late p99/max ms"):
        table.add_column(head, justify="right", no_wrap=True)
    clean = errors[0][1][0]["throughput_mbps"] if errors and errors[0][1] else math.nan
    for ber, rows, summary in errors:
        mbps = rows[0]["throughput_mbps"] if rows else 0.0
        ours = simulated.get(ber)
        table.add_row(
            f"{ber:g}",
            fmt.number(sum(ours) / len(ours)) if ours else fmt.MISSING,
            fmt.number(mbps / clean),
            fmt.number(mbps),
            _late(summary),
        )
    return table
