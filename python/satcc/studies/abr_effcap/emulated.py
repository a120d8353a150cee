"""`satcc reproduce abr-effcap --emulate`: real Linux TCP over the
two-state bottleneck, with instcap or effcap rate control at the sending
host, as the paper's testbed ran it (and TCP alone beside them).

The simulated study runs satcc's TCP set up as the paper's (timeout-only
recovery, 460-byte segments). Here the sender and the receiver are Linux
hosts (`satcc emulate`) and the same modelled system lies between them:
the sender's packets wait in its segmentation buffer
(`[emulate.NAME.rate_control]`, the same model as the simulation's),
served at the rate the bottleneck feeds back every 30 ms one loop delay
later, timed as their AAL5 cells; then the bottleneck's 10-packet
drop-tail buffer and its two-state capacity (100 and 50 KB/s, a step every
30 ms). TCP alone sends straight into the bottleneck.

What the real hosts are:
- Linux Reno of this machine's kernel (SACK, fast retransmit, RACK, a
  200 ms minimum RTO), not the paper's timeout-only TCP of 1998;
- 500-byte packets, as in the paper: the devices' MTU is 500, so Linux
  sends 448 bytes of payload under 52 bytes of headers (it keeps its
  timestamp option; the simulation's segments carry 460 under 40);
- a 32 KB window, the receiver's window clamp held as in
  `satcc.emulate.bulk`;
- transfers of 1 MB (quick) or 2 MB, not the paper's 10 MB, so that a
  point takes under a minute of real time (at τ/Δ = 50 a transfer then
  sees a few capacity changes, not dozens: the points at large τ/Δ carry
  more chance).

Each point is also simulated with the same seed (the capacity's sample
path is then the same, changes at the same instants) and the same
transfer, twice: with the study's TCP and with satcc's TCP set up as the
Linux host is (the "linux" preset, 448/52-byte segments). Efficiency is
the throughput counting every byte of the 500-byte packets over the mean
capacity, 75 KB/s (section 5.1). Shown, not judged; the paper's claims
are read off the Linux numbers in a second table.
"""

from __future__ import annotations

import math
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from satcc import fmt
from satcc.console import say
from satcc.emulate import bulk
from satcc.studies.abr_effcap import model as study
from satcc.studies.emulated_mode import Emulated, bulk_transfer
from satcc.studies.present import write_atomic
from satcc.studies.spec import RunSpec

SCHEMES = ("alone", "instcap", "effcap")
BUFFER = 10
PSIS = (0.25, 0.5, 1.0, 5.0, 50.0)
QUICK_PSIS = (0.5, 50.0)
TRANSFER = 2_000_000
QUICK_TRANSFER = 1_000_000
SEEDS = (1, 2)
QUICK_SEEDS = (1,)
# The devices' MTU: the paper's 500-byte packets. Linux's segments then
# carry 448 bytes, the timestamp option taking 12 of the 460.
MTU = study.PACKET
LINUX_HEADER = 52
LINUX_MSS = MTU - LINUX_HEADER
PORT = 5201
# The capacity's sampling period, for the capacity offered during a
# transfer: a third of the chain's 30 ms step.
SAMPLE_S = 0.010
# The client starts this long after the devices are up (the server is
# listening by then; the client retries a refused connection anyway).
CLIENT_START_S = 0.3
CLOSE_MARGIN_S = 15.0


@dataclass(frozen=True)
class Point:
    scheme: str
    psi: float
    seed: int

    @property
    def params(self) -> dict[str, Any]:
        # The study's own point: the same scenario, M and N.
        return study._point("emulated", self.scheme, BUFFER, self.psi)


def points(quick: bool) -> list[Point]:
    seeds = QUICK_SEEDS if quick else SEEDS
    psis = QUICK_PSIS if quick else PSIS
    return [Point(s, psi, seed) for psi in psis for s in SCHEMES for seed in seeds]


# ---------------------------------------------------------------------------
# The scenarios


def emulated_scenario(p: Point, transfer: int, work: Path) -> dict[str, Any]:
    """The study's system with its TCP connection taken out and two real
    hosts put in: `tx` at the sender's node, behind its rate-controlled
    buffer under ABR, and `rx` at the receiver's."""
    scenario = study.scenario(p.params, transfer)
    tcp = scenario.pop("tcp")["t1"]
    run = scenario["run"]
    run.pop("stop_when", None)
    run["duration"] = f"{CLIENT_START_S + _allowance_s(transfer) + CLOSE_MARGIN_S:.9g} s"
    python = f"{sys.executable} -m satcc.emulate.bulk"
    send = (
        f"{python} send --to 10.77.0.2 --port {PORT} --log {work / 'tx.json'} "
        f"--cc reno --bytes {transfer}"
    )
    serve = f"{python} serve --port {PORT} --log {work / 'rx.json'} --window {study.WINDOW}"
    tx: dict[str, Any] = {
        "node": "s1",
        "address": "10.77.0.1",
        "mtu": MTU,
        "command": send,
        "start": f"{CLIENT_START_S} s",
    }
    if "rate_control" in tcp:
        tx["rate_control"] = tcp["rate_control"]
    rx = {"node": "d", "address": "10.77.0.2", "mtu": MTU, "command": serve, "background": True}
    scenario["emulate"] = {"tx": tx, "rx": rx}
    return scenario


def _allowance_s(transfer: int) -> float:
    """The simulation's: twice the transfer's time at the low rate."""
    return 2 * transfer * 8 / study.LOW_BPS


def simulated(p: Point, transfer: int, start_s: float) -> dict[str, Any]:
    """The study's scenario, its connection starting at `start_s`."""
    scenario = study.scenario(p.params, transfer)
    scenario["tcp"]["t1"]["start"] = f"{start_s:.9g} s"
    duration = float(scenario["run"]["duration"].split()[0])
    scenario["run"]["duration"] = f"{duration + start_s:.9g} s"
    return scenario


def linux_like(p: Point, transfer: int, start_s: float = 0.0) -> dict[str, Any]:
    """The study's scenario with satcc's TCP set up as the Linux host is."""
    scenario = simulated(p, transfer, start_s)
    tcp = scenario["tcp"]["t1"]
    for key in ("variant", "min_rto", "clock_granularity", "send_buffer"):
        tcp.pop(key)
    tcp.update(
        {
            "preset": "linux",
            "congestion_control": "reno",
            # Linux's HyStart is part of its CUBIC, not of its Reno.
            "hystart": False,
            "mss": f"{LINUX_MSS} B",
            "header": f"{LINUX_HEADER} B",
        }
    )
    return scenario


def capacity_path(p: Point, seconds: float) -> tuple[np.ndarray, np.ndarray]:
    """The bottleneck's capacity (bits/s) every SAMPLE_S from 0 to
    `seconds`, as the seed draws it: the study's system with no traffic
    (the chain draws from a stream of its own, whatever the traffic)."""
    from satcc.runner import run

    scenario = study.scenario(p.params, 0)
    scenario.pop("tcp")
    scenario["run"] = {
        "name": "capacity",
        "duration": f"{seconds + SAMPLE_S:.9g} s",
        "sample_interval": f"{SAMPLE_S} s",
    }
    scenario["probes"] = {"capacity": {"link": "bottleneck", "metric": "capacity_bps"}}
    series = run(scenario, seed=p.seed, progress=False).series("capacity")
    return series["time_s"].to_numpy(), series["value"].to_numpy()


def efficiency(
    completion_s: float,
    transfer: int,
    mss: int,
    capacity: tuple[np.ndarray, np.ndarray],
    start_s: float = 0.0,
) -> float:
    """Throughput counting the 500-byte packets' every byte, over the mean
    capacity the bottleneck offered from the transfer's start (model time)
    until it completed; NaN for a transfer that did not complete."""
    if not completion_s > 0:
        return math.nan
    times, bps = capacity
    during = (times > start_s) & (times <= start_s + completion_s)
    offered = bps[during].mean() / 8
    return transfer * study.PACKET / mss / completion_s / offered


# ---------------------------------------------------------------------------
# Running a point


def simulate(p: Point, transfer: int, capacity, start_s: float) -> dict[str, float]:
    """satcc's TCP, the paper's and the Linux-like, starting when Linux's
    did (so that all three meet the same capacity changes)."""
    from satcc.runner import run

    out = {}
    for name, scenario, mss in (
        ("paper", simulated(p, transfer, start_s), study.MSS),
        ("linux_like", linux_like(p, transfer, start_s), LINUX_MSS),
    ):
        s = run(scenario, seed=p.seed, progress=False).summary
        done = s.get("tcp.t1.completion_time_s")
        done = math.nan if done is None else done
        out[f"{name}_efficiency"] = efficiency(done, transfer, mss, capacity, start_s)
        out[f"{name}_retransmissions"] = float(s["tcp.t1.retransmissions"])
        out[f"{name}_drops"] = float(s["links.bottleneck.drops"])
    return out


def emulate_point(p: Point, transfer: int) -> tuple[dict[str, float], float, float]:
    """Linux's transfer over the emulated system (re-run while the
    emulator fell behind, `emulate_on_time`): its numbers, the model time
    of its SYN and its completion time."""
    with tempfile.TemporaryDirectory(prefix="satcc-abr-effcap-") as tmp:
        work = Path(tmp)
        scenario = emulated_scenario(p, transfer, work)
        tx, rx, s = bulk_transfer(scenario, work, str(p), seed=p.seed)
    done = bulk.completion_s(tx, rx, transfer)
    # The hosts log CLOCK_MONOTONIC, which the emulator's model time counts
    # from.
    start_s = (tx["start_ns"] - int(s["emulator.clock_zero_monotonic_ns"])) / 1e9
    return (
        {
            "linux_start_s": start_s,
            "linux_retransmissions": bulk.retransmissions(tx, since_warmup=False),
            "linux_drops": float(s["links.bottleneck.drops"]),
            "late_p99_ms": float(s["emulator.release_error_p99_us"]) / 1e3,
            "late_max_ms": float(s["emulator.release_error_max_us"]) / 1e3,
            "pdus_unaccounted": float(s["run.pdus_unaccounted"]),
        },
        start_s,
        done,
    )


# ---------------------------------------------------------------------------
# The emulated mode


def emulation(
    specs: list[RunSpec],
    summaries: dict[tuple[int, int], dict[str, Any]],
    out: Path,
    quick: bool,
) -> Emulated:
    transfer = QUICK_TRANSFER if quick else TRANSFER
    rows = []
    for p in points(quick):
        say(
            f"emulating Linux reno, {p.scheme}, τ/Δ = {p.psi:g}, seed {p.seed} "
            f"({transfer / 1e6:g} MB)"
        )
        row = {"scheme": p.scheme, "psi": p.psi, "seed": p.seed, "transfer_bytes": transfer}
        linux, start_s, done = emulate_point(p, transfer)
        capacity = capacity_path(p, start_s + _allowance_s(transfer))
        linux["linux_efficiency"] = efficiency(done, transfer, LINUX_MSS, capacity, start_s)
        row.update(simulate(p, transfer, capacity, start_s))
        row.update(linux)
        rows.append(row)
    name = "abr-effcap-emulated.csv"
    columns = list(rows[0])
    lines = [",".join(columns)] + [",".join(_csv(r[c]) for c in columns) for r in rows]
    write_atomic(out / name, "\n".join(lines) + "\n")
    means = mean_by_point(rows)
    return Emulated(tables=[efficiency_table(means), claims_table(means)], files=[name])


def _csv(value: Any) -> str:
    return f"{value:.6g}" if isinstance(value, float) else str(value)


def mean_by_point(rows: list[dict]) -> dict[tuple[str, float], dict[str, float]]:
    """Each (scheme, τ/Δ): the mean of its seeds' numbers, and the largest
    release-time error."""
    out: dict[tuple[str, float], dict[str, float]] = {}
    for key in dict.fromkeys((r["scheme"], r["psi"]) for r in rows):
        mine = [r for r in rows if (r["scheme"], r["psi"]) == key]
        numbers = [k for k, v in mine[0].items() if isinstance(v, float) and k != "psi"]
        mean = {k: sum(r[k] for r in mine) / len(mine) for k in numbers}
        mean["late_p99_ms"] = max(r["late_p99_ms"] for r in mine)
        mean["late_max_ms"] = max(r["late_max_ms"] for r in mine)
        mean["seeds"] = len(mine)
        out[key] = mean
    return out


def _table(title: str, heads: list[str]) -> Any:
    from rich import box
    from rich.table import Table

    table = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, padding=(0, 1))
    for i, head in enumerate(heads):
        table.add_column(head, justify="left" if i < 2 else "right", no_wrap=True)
    return table


def efficiency_table(means: dict) -> Any:
    table = _table(
        "abr-effcap --emulate: Linux Reno over the emulated system (B = 10, Δ = 200 ms) "
        "beside satcc's TCP on the same capacity path; efficiency: throughput with headers "
        "over the capacity offered until the transfer completed",
        [
            "scheme",
            "τ/Δ",
            "satcc (paper TCP)",
            "satcc (Linux-like)",
            "Linux",
            "Linux / Linux-like",
            "retx sim/Linux-like/Linux",
            "late p99/max ms",
        ],
    )
    for (scheme, psi), m in means.items():
        names = ("paper", "linux_like", "linux")
        retx = "/".join(fmt.number(m[f"{k}_retransmissions"], 3) for k in names)
        table.add_row(
            scheme,
            f"{psi:g}",
            fmt.number(m["paper_efficiency"], 3),
            fmt.number(m["linux_like_efficiency"], 3),
            fmt.number(m["linux_efficiency"], 3),
            fmt.number(m["linux_efficiency"] / m["linux_like_efficiency"], 3),
            retx,
            _late(m),
        )
    return table


def _late(m: dict) -> str:
    """The release-time error, p99/max in ms; marked where the emulator
    fell behind in every attempt (its Linux numbers mean less)."""
    text = f"{fmt.number(m['late_p99_ms'], 2)}/{fmt.number(m['late_max_ms'], 2)}"
    return f"[bold red]{text} late[/]" if _fell_behind(m) else text


def _fell_behind(m: dict) -> bool:
    from satcc.emulate import LATE_P99_MS

    return m["late_p99_ms"] > LATE_P99_MS


@dataclass(frozen=True)
class Claim:
    text: str
    numerator: str
    denominator: str
    psi: str  # "slow", "fast"
    low: float
    high: float


# The paper's claims that compare schemes at one τ/Δ (sections 5.1, 6, 8),
# as ratios of efficiencies and the range the paper gives.
CLAIMS = (
    Claim("ABR (instcap) improves on TCP alone by 20-30 % for slow variation", "instcap",
          "alone", "slow", 1.2, 1.3),
    Claim("effcap is 10-20 % above instcap for small τ/Δ", "effcap", "instcap", "fast",
          1.1, 1.2),
    Claim("effcap is a few percent below instcap for large τ/Δ", "effcap", "instcap", "slow",
          0.9, 1.0),
)  # fmt: skip


def claims_table(means: dict) -> Any:
    where = {"slow": study.SLOW, "fast": study.FAST}
    table = _table(
        "The paper's claims on the Linux numbers (and satcc's paper TCP on the same paths)",
        ["claim", "τ/Δ", "paper", "Linux", "holds", "satcc (paper TCP)"],
    )
    for c in CLAIMS:
        psi = where[c.psi]

        def ratio(prefix: str, c=c, psi=psi) -> float:
            top = means[(c.numerator, psi)][f"{prefix}_efficiency"]
            return top / means[(c.denominator, psi)][f"{prefix}_efficiency"]

        linux = ratio("linux")
        pair = [means[(scheme, psi)] for scheme in (c.numerator, c.denominator)]
        if any(_fell_behind(m) for m in pair):
            verdict = "[dim]not judged: the emulator fell behind[/]"
        elif any(math.isnan(m["late_p99_ms"]) for m in pair):
            # Whether the emulator kept up was not measured: NaN compares
            # false, and would pass for "it kept up".
            verdict = "[dim]not judged: the emulator's lateness not measured[/]"
        elif math.isfinite(linux):
            verdict = fmt.verdict_markup(c.low <= linux <= c.high)
        else:
            verdict = fmt.MISSING
        table.add_row(
            c.text,
            f"{psi:g}",
            f"{c.low:g}-{c.high:g}",
            fmt.number(linux, 3),
            verdict,
            fmt.number(ratio("paper"), 3),
        )
    return table
