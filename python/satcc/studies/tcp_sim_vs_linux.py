"""Study `tcp-sim-vs-linux`: satcc's TCP against Linux's, on the same paths.

Each case is one path (a bottleneck link each way between two hosts) run
twice: simulated, with satcc's TCP set up as a Linux host is (the "linux"
preset: SACK, IW 10, 200 ms minimum RTO, 40 ms delayed ACKs; MSS 1448 and
52 header bytes, as Linux sends with timestamps over a 1500-byte MTU), and
emulated in real time (`satcc emulate`), the same modelled path carrying a
bulk transfer between two real Linux hosts (`satcc.emulate.bulk`). Reno,
CUBIC and BBR (v1, Linux's `tcp_bbr`) are compared on every path; Hybla
is simulated everywhere and judged only where the kernel offers tcp_hybla.

The grid: two window-limited paths (the receiver's window below the
bandwidth-delay product; Linux's set with TCP_WINDOW_CLAMP), four
buffer-limited ones (a drop-tail bottleneck buffer of about half the
bandwidth-delay product, no window limit), at RTTs of 20, 40 (a LEO path),
100 and 550 ms (GEO), and one with random loss (1e-3 per data packet), run
with three seeds: the emulator draws the same losses by packet number as
the simulator does with the same seed, so each seed's ratio compares the
stacks under one loss pattern.

Goodput is the payload delivered in order between the end of a warm-up and
the end of the transfer, time zero being the connection's SYN (satcc models
the handshake; in Linux, the call to connect()). Completion time is that of a transfer of a fixed
size, from the same time zero to its last byte's arrival. The judged checks
are satcc/Linux for both (goodput only on the random-loss case, the mean
of its seeds' ratios), against 1 with a 10 % tolerance. Every emulated run
reports its release-time error (how late the emulator let packets out),
shown beside its result. Without root or
/dev/net/tun nothing is emulated and nothing judged; the simulated side and
the models are shown. docs/tcp-sim-vs-linux.md lists each setting matched,
and explains the differences.
"""

from __future__ import annotations

import json
import math
import sys
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from satcc import fmt
from satcc.analysis.tcp import MATHIS_C_DELAYED_ACK, mathis_throughput
from satcc.console import say
from satcc.emulate import bulk
from satcc.fmt import MISSING
from satcc.studies.emulated_mode import bulk_transfer
from satcc.studies.spec import Reference, RunSpec, Study, shown

TOLERANCE = 0.10
MSS = 1448
HEADER = 52
PACKET = MSS + HEADER
PORT = 5201
REVERSE_QUEUE_PACKETS = 1000
LINUX_SOURCE = "Linux TCP (this machine's kernel) over the same emulated path"
MODEL_SOURCE = "W/RTT (window-limited); Mathis et al. 1997 (random loss); link payload rate"
# Hybla is simulated on every path and compared where the kernel offers
# tcp_hybla (net.ipv4.tcp_available_congestion_control); the others are
# built into every kernel this study runs on.
CCS = ("reno", "cubic", "bbr", "hybla")
# The client starts this long after the devices are up (the server is
# listening by then; the client retries a refused connection anyway).
CLIENT_START_S = 0.3
# The emulation runs this long past the transfer's end, for its close.
CLOSE_MARGIN_S = 15.0


@dataclass(frozen=True)
class Case:
    """One path of the grid, and how long to measure on it."""

    label: str
    kind: str  # "window", "buffer" or "loss" (no fixed-size transfer)
    rate_bps: float
    rtt_s: float
    queue_packets: int
    window_bytes: int | None
    loss: float
    duration_s: float
    warmup_s: float
    transfer_bytes: int
    quick: bool = False
    # The bottleneck is Adaptive RED marking ECN-capable packets, and both
    # stacks negotiate ECN (RFC 3168).
    ecn: bool = False

    @property
    def has_transfer(self) -> bool:
        """Whether a fixed-size transfer's completion time is compared."""
        return self.kind != "loss"

    @property
    def seeds(self) -> tuple[int, ...]:
        """Random loss draws differ by seed; a lossless path does not."""
        return (1, 2, 3) if self.loss > 0 else (1,)

    def bdp_packets(self) -> float:
        return self.rate_bps * self.rtt_s / 8 / PACKET

    def shortened(self) -> Case:
        """The quick-mode version: a third as long."""
        return Case(
            **{
                **self.__dict__,
                "duration_s": self.duration_s / 3,
                "warmup_s": self.warmup_s / 3,
                "transfer_bytes": self.transfer_bytes // 2,
            }
        )


KIB = 1024
CASES = (
    Case("win64K-100ms", "window", 10e6, 0.100, 200, 64 * KIB, 0.0, 40, 5, 2_000_000, quick=True),
    Case("win256K-550ms", "window", 10e6, 0.550, 400, 256 * KIB, 0.0, 60, 15, 4_000_000),
    # About half the bandwidth-delay product of buffer (17, 67, 83 and 92
    # packets); 40 ms is a LEO round trip (docs/tcp-sim-vs-linux.md).
    Case("buf8-20ms", "buffer", 10e6, 0.020, 8, None, 0.0, 40, 5, 4_000_000, quick=True),
    Case("buf33-40ms", "buffer", 20e6, 0.040, 33, None, 0.0, 40, 5, 8_000_000),
    Case("buf40-100ms", "buffer", 10e6, 0.100, 40, None, 0.0, 60, 10, 4_000_000),
    Case("buf46-550ms", "buffer", 2e6, 0.550, 46, None, 0.0, 120, 20, 1_000_000),
    Case("loss1e-3-100ms", "loss", 10e6, 0.100, 400, None, 1e-3, 60, 10, 2_000_000),
    # ECN: Linux's response to CE marks (net.ipv4.tcp_ecn = 1) against
    # satcc's, at a LEO round trip behind Adaptive RED.
    Case("red-ecn-40ms", "aqm", 10e6, 0.040, 100, None, 0.0, 40, 5, 4_000_000, ecn=True),
)
BY_LABEL = {c.label: c for c in CASES}


def case_of(spec: RunSpec) -> Case:
    case = BY_LABEL[spec.params["case"]]
    return case.shortened() if spec.params["quick"] else case


# ---------------------------------------------------------------------------
# The path, simulated and emulated


def network(case: Case, name: str, duration_s: float) -> dict[str, Any]:
    """The two hosts and the two directions of the bottleneck; the data
    direction alone loses packets."""
    one_way = f"{case.rtt_s / 2:.9g} s"
    rate = f"{case.rate_bps:.9g} bps"
    queue: dict[str, Any] = {"type": "droptail", "limit": f"{case.queue_packets} packets"}
    if case.ecn:
        from satcc.studies.aqm import ared_settings

        queue = {"type": "red", "limit": f"{case.queue_packets} packets", "adaptive": True}
        queue |= ared_settings(case.rate_bps, PACKET) | {"ecn": True}
    return {
        "run": {"name": name, "duration": f"{duration_s:.9g} s"},
        "nodes": {"a": {"type": "host"}, "b": {"type": "host"}},
        "links": {
            "ab": {
                "from": "a",
                "to": "b",
                "rate": rate,
                "delay": one_way,
                "loss": case.loss,
                "queue": queue,
            },
            "ba": {
                "from": "b",
                "to": "a",
                "rate": rate,
                "delay": one_way,
                "queue": {"type": "droptail", "limit": f"{REVERSE_QUEUE_PACKETS} packets"},
            },
        },
    }


def simulated(case: Case, cc: str, duration_s: float, size: int | None = None) -> dict:
    """satcc's TCP as a Linux host runs it, for `duration_s`, sending
    without end or `size` bytes."""
    scenario = network(case, "tcp-sim-vs-linux", duration_s)
    tcp: dict[str, Any] = {
        "from": "a",
        "to": "b",
        "preset": "linux",
        "congestion_control": cc,
        # Linux's HyStart is part of tcp_cubic; its Reno has none.
        "hystart": cc == "cubic",
        "mss": f"{MSS} B",
        "header": f"{HEADER} B",
        "app": {"type": "bulk", **({"size": f"{size} B"} if size else {})},
    }
    if case.window_bytes is not None:
        tcp["receive_buffer"] = f"{case.window_bytes} B"
    if case.ecn:
        tcp["ecn"] = True
    scenario["tcp"] = {"f": tcp}
    return scenario


def emulated(case: Case, cc: str, work: Path, *, size: int | None = None) -> dict:
    """The same path with two real hosts: `tx` at a sends to `rx` at b."""
    seconds = case.duration_s if size is None else None
    longest = case.duration_s if size is None else transfer_allowance_s(case, size)
    scenario = network(case, "tcp-sim-vs-linux", CLIENT_START_S + longest + CLOSE_MARGIN_S)
    bulk = f"{sys.executable} -m satcc.emulate.bulk"
    serve = f"{bulk} serve --port {PORT} --log {work / 'rx.json'}"
    if case.window_bytes is not None:
        serve += f" --window {case.window_bytes}"
    how = f"--seconds {seconds:g} --warmup {case.warmup_s:g}" if size is None else f"--bytes {size}"
    send = f"{bulk} send --to 10.77.0.2 --port {PORT} --log {work / 'tx.json'} --cc {cc} {how}"
    scenario["emulate"] = {
        "tx": {
            "node": "a",
            "address": "10.77.0.1",
            "command": send,
            "start": f"{CLIENT_START_S} s",
        },
        "rx": {"node": "b", "address": "10.77.0.2", "command": serve, "background": True},
    }
    if case.ecn:
        for host in scenario["emulate"].values():
            host["sysctl"] = {"net.ipv4.tcp_ecn": 1}
    return scenario


def kernel_offers(cc: str) -> bool:
    """Whether this machine's kernel has `cc` loaded (a module not loaded
    is not loaded here: that would change the machine)."""
    from satcc.emulate.sysctls import AVAILABLE, read

    return cc in (read(AVAILABLE) or "").split()


def can_emulate() -> bool:
    """Whether this machine can run the Linux side (root, TUN, `ip`)."""
    from satcc.emulate import EmulationSetupError
    from satcc.emulate.namespaces import check_machine

    try:
        check_machine()
    except EmulationSetupError:
        return False
    return True


# ---------------------------------------------------------------------------
# Running the Linux side: one emulation at a time, never beside another


_lock = threading.Lock()
_linux: dict[tuple, dict[str, float]] = {}


def _release(summary: dict, prefix: str) -> dict[str, float]:
    return {
        f"{prefix}release_p99_ms": float(summary["emulator.release_error_p99_us"]) / 1e3,
        f"{prefix}release_max_ms": float(summary["emulator.release_error_max_us"]) / 1e3,
    }


def linux_measurements(case: Case, cc: str, seed: int) -> dict[str, float]:
    """Linux's goodput and retransmissions over the same window as the
    simulation's, and, where the case has one, its completion time of the
    case's transfer; each with the emulator's release-time error. Runs the
    emulations the first time a (case, cc, seed) is asked for."""
    key = (case, cc, seed)
    with _lock:
        if key not in _linux:
            _linux[key] = _measure_linux(case, cc, seed)
        return _linux[key]


def _measure_linux(case: Case, cc: str, seed: int) -> dict[str, float]:
    out: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="satcc-sim-vs-linux-") as tmp:
        work = Path(tmp)
        say(f"emulating {case.label} with Linux {cc}, seed {seed} ({case.duration_s:g} s)")
        what = f"{case.label} ({cc}, bulk)"
        tx, rx, summary = bulk_transfer(emulated(case, cc, work), work, what, seed=seed)
        out["linux_goodput_mbps"] = bulk.goodput_bps(tx, rx, case.warmup_s, case.duration_s) / 1e6
        out["linux_retransmissions"] = bulk.retransmissions(tx)
        if case.ecn:
            out["linux_marks"] = float(summary["links.ab.marks"])
        out.update(_release(summary, "linux_"))
        if case.has_transfer:
            for name in ("tx.json", "rx.json"):
                (work / name).unlink()
            say(f"emulating {case.label} with Linux {cc} ({case.transfer_bytes:,} B transfer)")
            scenario = emulated(case, cc, work, size=case.transfer_bytes)
            what = f"{case.label} ({cc}, transfer)"
            tx, rx, summary = bulk_transfer(scenario, work, what, seed=seed)
            out["linux_completion_s"] = bulk.completion_s(tx, rx, case.transfer_bytes)
            out.update(_release(summary, "linux_completion_"))
    return out


# ---------------------------------------------------------------------------
# The study's runs and metrics


def runs(quick: bool) -> list[RunSpec]:
    specs = []
    for full in CASES:
        if quick and not full.quick:
            continue
        case = full.shortened() if quick else full
        for cc in CCS:
            params = {
                "case": case.label,
                "quick": quick,
                "congestion_control": cc,
                "rate_bps": case.rate_bps,
                "rtt_s": case.rtt_s,
                "queue_packets": case.queue_packets,
                "window_bytes": case.window_bytes,
                "loss": case.loss,
                "duration_s": case.duration_s,
                "warmup_s": case.warmup_s,
                "transfer_bytes": case.transfer_bytes,
            }
            scenario = simulated(case, cc, case.duration_s)
            specs.append(RunSpec(f"{case.label} {cc}", params, scenario, seeds=case.seeds))
    return specs


def seeds(quick: bool) -> list[int]:
    return [1]


_sim_lock = threading.Lock()
_sim: dict[tuple, dict[str, Any]] = {}


def _simulate(scenario: dict, seed: int) -> dict[str, Any]:
    from satcc.runner import run

    key = (json.dumps(scenario, sort_keys=True), seed)
    with _sim_lock:
        if key not in _sim:
            _sim[key] = dict(run(scenario, seed=seed, progress=False).summary)
        return _sim[key]


def model_mbps(case: Case) -> float:
    """What theory says the goodput is: W/RTT for a window-limited path,
    Mathis's law with delayed ACKs for random loss, and the payload share
    of the link's rate for a buffer-limited one (an upper bound)."""
    payload_rate = case.rate_bps * MSS / PACKET
    if case.kind == "window":
        return min(case.window_bytes * 8 / case.rtt_s, payload_rate) / 1e6
    if case.kind == "loss":
        mathis = mathis_throughput(MSS, case.rtt_s, case.loss, MATHIS_C_DELAYED_ACK) * 8
        return min(mathis, payload_rate) / 1e6
    return payload_rate / 1e6


def metrics(summary: dict[str, Any], spec: RunSpec) -> dict[str, float]:
    case = case_of(spec)
    cc = spec.params["congestion_control"]
    seed = int(summary["run.seed"])
    warm = _simulate(simulated(case, cc, case.warmup_s), seed)
    delivered = float(summary["tcp.f.delivered_bytes"]) - float(warm["tcp.f.delivered_bytes"])
    out = {
        "satcc_goodput_mbps": delivered * 8 / (case.duration_s - case.warmup_s) / 1e6,
        "satcc_retransmissions": float(summary["tcp.f.retransmissions"])
        - float(warm["tcp.f.retransmissions"]),
        "model_mbps": model_mbps(case),
    }
    if case.ecn:
        out["satcc_marks"] = float(summary["links.ab.marks"])
    if case.has_transfer:
        sized = _simulate(simulated(case, cc, emulated_duration(case), case.transfer_bytes), seed)
        done = sized["tcp.f.completion_time_s"]
        out["satcc_completion_s"] = math.nan if done is None else float(done)
    emulate = can_emulate() and kernel_offers(cc)
    measured = linux_measurements(case, cc, seed) if emulate else {}
    for name in _linux_metric_names(case):
        out[name] = measured.get(name, math.nan)
    # NaN without the Linux side: nothing is judged then.
    out["goodput_ratio"] = out["satcc_goodput_mbps"] / out["linux_goodput_mbps"]
    if case.has_transfer:
        out["completion_ratio"] = out["satcc_completion_s"] / out["linux_completion_s"]
    return out


def transfer_allowance_s(case: Case, size: int) -> float:
    """Time enough for a transfer of `size` bytes, slow start, losses and
    all: four times the link's time for it, plus ten round trips."""
    return 4 * size * 8 / case.rate_bps + 10 * case.rtt_s


def emulated_duration(case: Case) -> float:
    """Simulated time for the sized transfer: the emulation's allowance."""
    return transfer_allowance_s(case, case.transfer_bytes) + CLOSE_MARGIN_S


def _linux_metric_names(case: Case) -> list[str]:
    names = ["linux_goodput_mbps", "linux_retransmissions"]
    names += ["linux_marks"] if case.ecn else []
    names += ["linux_release_p99_ms", "linux_release_max_ms"]
    if case.has_transfer:
        names += ["linux_completion_s", "linux_completion_release_p99_ms"]
        names += ["linux_completion_release_max_ms"]
    return names


# ---------------------------------------------------------------------------
# References: satcc / Linux judged against 1; the rest shown


def _judged_ratio(metric: str, what: str, judge: bool, why_not: str) -> Reference:
    return Reference(
        "",
        metric,
        1.0 if judge else math.nan,
        LINUX_SOURCE,
        TOLERANCE if judge else 0.0,
        "relative" if judge else "none",
        kind="real stack",
        notes=f"satcc {what} / Linux {what}" + ("" if judge else f"; not emulated ({why_not})"),
    )


def _shown(metric: str) -> Reference:
    source = MODEL_SOURCE if metric == "model_mbps" else LINUX_SOURCE
    return shown("", metric, source)


def references(judge: bool) -> list[Reference]:
    from dataclasses import replace

    refs = []
    for case in CASES:
        for cc in CCS:
            label = f"{case.label} {cc}"
            offered = kernel_offers(cc)
            why_not = (
                "needs root and /dev/net/tun"
                if not judge
                else f"this kernel does not offer tcp_{cc}"
            )
            judged = judge and offered
            rows = [_judged_ratio("goodput_ratio", "goodput", judged, why_not)]
            if case.has_transfer:
                rows.append(_judged_ratio("completion_ratio", "completion time", judged, why_not))
            names = ["satcc_goodput_mbps", "satcc_retransmissions", "model_mbps"]
            names += ["satcc_marks"] if case.ecn else []
            names += _linux_metric_names(case)
            if case.has_transfer:
                names.append("satcc_completion_s")
            rows += [_shown(n) for n in names]
            refs += [replace(r, label=label) for r in rows]
    return refs


# ---------------------------------------------------------------------------
# The table


class _Cells:
    """A row's numbers as the table shows them."""

    def __init__(self, rows: dict[str, Any]):
        self.rows = rows

    def value(self, metric: str, digits: int = 4) -> str:
        row = self.rows.get(metric)
        return MISSING if row is None else fmt.number(row.measured, digits)

    def verdict(self, metric: str) -> str:
        from satcc.studies.compare import verdict_markup

        row = self.rows.get(metric)
        return "" if row is None else verdict_markup(row)

    def marks(self) -> str:
        """CE marks at the bottleneck, satcc/Linux, on an ECN case."""
        if "satcc_marks" not in self.rows:
            return ""
        return f"{self.value('satcc_marks', 5)}/{self.value('linux_marks', 5)}"

    def late(self, prefix: str) -> str:
        """The release-time error, p99/max in ms."""
        return (
            f"{self.value(prefix + 'release_p99_ms', 2)}/{self.value(prefix + 'release_max_ms', 2)}"
        )


def layout(table: Any) -> list[Any]:
    from rich import box
    from rich.table import Table

    judged = bool((table["tolerance_kind"] != "none").any())
    title = "tcp-sim-vs-linux: satcc's TCP and Linux's over the same paths (goodput: payload)"
    if not judged:
        title += " - NOT EMULATED (needs root and /dev/net/tun): satcc and models only"
    out = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, padding=(0, 1))
    out.add_column("case", no_wrap=True)
    out.add_column("TCP", no_wrap=True)
    heads = ["satcc Mb/s", "Linux Mb/s", "ratio", ""]
    heads += ["satcc done s", "Linux done s", "ratio", ""]
    heads += ["retx satcc", "retx Linux", "CE marks s/L", "late p99/max ms", "model Mb/s"]
    for head in heads:
        out.add_column(head, justify="right", no_wrap=True)
    for label in dict.fromkeys(table["label"]):
        rows = {r.metric: r for r in table[table["label"] == label].itertuples()}
        case, cc = label.rsplit(" ", 1)
        cell = _Cells(rows)
        out.add_row(
            case,
            cc,
            cell.value("satcc_goodput_mbps"),
            cell.value("linux_goodput_mbps"),
            cell.value("goodput_ratio", 3),
            cell.verdict("goodput_ratio"),
            cell.value("satcc_completion_s"),
            cell.value("linux_completion_s"),
            cell.value("completion_ratio", 3),
            cell.verdict("completion_ratio"),
            cell.value("satcc_retransmissions"),
            cell.value("linux_retransmissions"),
            cell.marks(),
            cell.late("linux_"),
            cell.value("model_mbps"),
        )
    return [out]


STUDY = Study(
    name="tcp-sim-vs-linux",
    title="satcc's TCP against Linux's TCP over the same emulated paths",
    paper=(
        "Linux TCP (Reno, CUBIC, BBR) of this machine's kernel, through `satcc emulate`; "
        "M. Mathis et al., CCR 27(3), 1997"
    ),
    description=__doc__ or "",
    runs=runs,
    metrics=metrics,
    references=references(judge=can_emulate()),
    seeds=seeds,
    quick_note="two cases (64 KiB window at 100 ms, 8-packet buffer at 20 ms), a third as "
    "long, transfers half the size",
    layout=layout,
    full_only=frozenset(f"{c.label} {cc}" for c in CASES if not c.quick for cc in CCS),
)
