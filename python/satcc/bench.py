"""`satcc bench`: the canonical performance scenarios, measured.

B1 (BENCHMARKS.md): a cell storm over a GEO hop — 16 CBR sources of 53-byte
ATM cells at 8.892 Mb/s on 149.76 Mb/s links through three switches, the
middle hop 275 ms long (about 92 000 cells in flight). B1-deep is the same
network with a 600 ms hop, so about 200 000 cells are in flight: it checks
that memory stays flat in simulated time when the delay lines are deep.

Each scenario runs in a fresh process so its peak memory is its own. Figures
reported: link transmissions per wall second (a cell crossing one link is one
transmission), events per second, simulated seconds per wall second, peak
resident memory, and resident memory at two simulated instants (flatness).

B1 is judged against the bare-loop probe of the shared benchmarks (a binary
heap and per-link delay lines, nothing else), run right after satcc's B1 on
the same machine: the ratio of their link transmissions per second is the
figure that carries from machine to machine (`--probe`).

B3 is the heaviest run of the `abr-lrd-vbr` study: 15 TCP connections over
ATM ABR with ERICA+ sharing a 149.76 Mb/s port with 9 MPEG-2 video sources,
the source links being the GEO hop (feedback delay about 550 ms), MSS 512,
video 5 Mb/s mean and standard deviation, 170 simulated seconds.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

OC3 = "149.76 Mbps"


def b1_scenario(duration_s: float = 30.0, geo_delay: str = "275 ms") -> dict:
    """The B1 network as a scenario dict (examples/b1_cell_storm.toml is the same)."""
    queue = {"type": "droptail", "limit": "100000 packets"}
    nodes: dict = {name: {} for name in ("S1", "S2", "S3", "sink")}
    links: dict = {}
    sources: dict = {}
    for i in range(16):
        host = f"h{i:02}"
        nodes[host] = {"type": "host"}
        links[f"access{i:02}"] = {
            "from": host,
            "to": "S1",
            "rate": OC3,
            "delay": "5 us",
            "queue": queue,
        }
        sources[f"cbr{i:02}"] = {
            "type": "cbr",
            "from": host,
            "to": "rx",
            "rate": "8.892 Mbps",
            "packet_size": "53 B",
        }
    for name, a, b, delay in (
        ("s1_s2", "S1", "S2", "5 ms"),
        ("geo", "S2", "S3", geo_delay),
        ("s3_sink", "S3", "sink", "5 us"),
    ):
        links[name] = {"from": a, "to": b, "rate": OC3, "delay": delay, "queue": queue}
    return {
        "run": {
            "name": "b1_cell_storm",
            "duration": f"{duration_s:g} s",
            "seed": 1,
            "sample_interval": "1 s",
        },
        "nodes": nodes,
        "links": links,
        "sources": sources,
        "sinks": {"rx": {"node": "sink"}},
        "probes": {"geo_queue": {"link": "s1_s2", "metric": "queue_packets"}},
    }


def b2_scenario(n: int, rate: str, delay: str = "250 ms", duration_s: float = 1000.0) -> dict:
    """B2 (BENCHMARKS.md): n TCP SACK bulk senders over a GEO bottleneck
    (examples/dumbbell_geo.toml is the n = 16, 10 Mb/s case)."""
    queue = {"type": "droptail", "limit": "1000 packets"}
    nodes: dict = {"r1": {}, "r2": {}}
    links: dict = {
        "bottleneck": {
            "from": "r1",
            "to": "r2",
            "rate": rate,
            "delay": delay,
            "duplex": True,
            "queue": queue,
        }
    }
    tcp: dict = {}
    for i in range(n):
        s, d = f"s{i:02}", f"d{i:02}"
        nodes[s] = {"type": "host"}
        nodes[d] = {"type": "host"}
        for name, a, b in ((f"access{i:02}", s, "r1"), (f"egress{i:02}", "r2", d)):
            links[name] = {
                "from": a,
                "to": b,
                "rate": "100 Mbps",
                "delay": "1 ms",
                "duplex": True,
                "queue": queue,
            }
        tcp[f"flow{i:02}"] = {
            "from": s,
            "to": d,
            "variant": "sack",
            "mss": "1448 B",
            "delayed_ack": True,
            "send_buffer": "16 MB",
            "receive_buffer": "16 MB",
            "start": f"{10 * i} ms",
            "app": {"type": "bulk"},
        }
    return {
        "run": {
            "name": "dumbbell_geo",
            "duration": f"{duration_s:g} s",
            "seed": 1,
            "sample_interval": "100 ms",
        },
        "nodes": nodes,
        "links": links,
        "tcp": tcp,
        "probes": {
            "bottleneck_queue": {"link": "bottleneck", "metric": "queue_packets"},
            "flow00_cwnd": {"tcp": "flow00", "metric": "cwnd_bytes"},
        },
    }


def b3_scenario(duration_s: float = 170.0) -> dict:
    """B3 (BENCHMARKS.md): the study's own sat-long, MSS 512, (5, 5) Mb/s video run."""
    from .studies.abr_lrd_vbr import scenario

    return scenario("sat-long", 512, (5e6, 5e6), duration_s)


# name -> (scenario builder taking the simulated seconds, full-length seconds)
SCENARIOS = {
    "B1": (lambda seconds: b1_scenario(seconds), 30.0),
    "B1-deep": (lambda seconds: b1_scenario(seconds, geo_delay="600 ms"), 30.0),
    "B2a": (lambda seconds: b2_scenario(16, "10 Mbps", duration_s=seconds), 1000.0),
    "B2b": (lambda seconds: b2_scenario(64, "10 Mbps", duration_s=seconds), 1000.0),
    "B2c": (lambda seconds: b2_scenario(16, "155 Mbps", duration_s=seconds), 200.0),
    "B2d": (lambda seconds: b2_scenario(256, "155 Mbps", duration_s=seconds), 100.0),
    # B2 with any N, rate and delay (satcc bench B2 --n 32 --rate "50 Mbps" ...).
    "B2": (
        lambda seconds, n=16, rate="10 Mbps", delay="250 ms": b2_scenario(n, rate, delay, seconds),
        1000.0,
    ),
    "B3": (b3_scenario, 170.0),
}
# Run by `satcc bench` with no names.
DEFAULT = ("B1", "B1-deep", "B2a", "B2b", "B2c", "B2d", "B3")


def _rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        resident_pages = int(f.read().split()[1])
    return resident_pages * os.sysconf("SC_PAGE_SIZE")


def _peak_rss_bytes() -> int:
    """This process's own peak resident memory (VmHWM). Not ru_maxrss: Linux
    carries that over an exec, so a child would report its parent's peak
    when the parent (`satcc bench`, having built B3) is the larger."""
    with open("/proc/self/status") as f:
        kib = next(line.split()[1] for line in f if line.startswith("VmHWM:"))
    return int(kib) * 1024


def measure(name: str, seconds: float, scenario: dict) -> dict:
    """Runs one benchmark scenario (a dict from SCENARIOS) in this process
    and returns its figures."""
    from . import _core
    from .scenario import Scenario, normalised_json

    desc = Scenario.from_dict(scenario).validate()
    sim = _core.Simulation(normalised_json(desc))
    # Resident memory at one third and at the end of the run: equal when
    # memory is flat in simulated time.
    checkpoint_ps = sim.end_ps // 3
    rss_early = None
    t0 = time.perf_counter()
    while not sim.advance(1_000_000):
        if rss_early is None and sim.now_ps >= checkpoint_ps:
            rss_early = _rss_bytes()
    wall = time.perf_counter() - t0
    rss_end = _rss_bytes()
    summary = json.loads(sim.summary_json())
    tx = sum(v for k, v in summary.items() if k.startswith("links.") and k.endswith(".tx_packets"))
    drops = sum(v for k, v in summary.items() if k.startswith("links.") and k.endswith(".drops"))
    in_flight = sum(
        v for k, v in summary.items() if k.startswith("flows.") and k.endswith(".in_flight_packets")
    )
    delivered = sum(
        v for k, v in summary.items() if k.startswith("tcp.") and k.endswith(".delivered_bytes")
    )
    return {
        "scenario": name,
        "simulated_s": seconds,
        "wall_s": wall,
        "events": sim.events,
        "transmissions": tx,
        "transmissions_per_s": tx / wall,
        "events_per_s": sim.events / wall,
        "sim_s_per_wall_s": seconds / wall,
        "drops": drops,
        "bottleneck_drops": summary.get("links.bottleneck.drops"),
        "bottleneck_tx_packets": summary.get("links.bottleneck.tx_packets"),
        "goodput_mbps": delivered * 8 / seconds / 1e6 if delivered else None,
        "cells_in_flight_at_end": in_flight,
        "rss_at_third_mb": (rss_early or rss_end) / 2**20,
        "rss_at_end_mb": rss_end / 2**20,
        "peak_rss_mb": _peak_rss_bytes() / 2**20,
    }


def _measure_in_subprocess(name: str, seconds: float, params: dict | None = None) -> dict:
    """Runs one benchmark in a fresh interpreter; adds the whole process's
    wall time (start-up, validation and result included), which is what the
    peers' figures measure. The scenario is built here and sent as JSON, so
    what building it imports (B3: the study package, with scipy and pandas)
    counts in neither the process's time nor its memory."""
    scenario = SCENARIOS[name][0](seconds, **(params or {}))
    return run_in_subprocess(name, seconds, scenario)


def run_in_subprocess(
    name: str, seconds: float, scenario: dict, env: dict[str, str] | None = None
) -> dict:
    """`measure` of `scenario` in a fresh interpreter (with `env`, e.g.
    another build's PYTHONPATH), plus the whole process's wall time."""
    t0 = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-m", "satcc.bench", name, str(seconds)],
        input=json.dumps(scenario),
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    row = json.loads(out.stdout)
    row["process_wall_s"] = time.perf_counter() - t0
    return row


# Where the shared benchmarks keep the probe's sources, from a checkout's
# root (the repository and `shared` side by side).
PROBE_SOURCES = Path("../shared/bench/b1-bare-loop")


class ProbeError(Exception):
    """The probe could not be found, built or run."""


def _cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "satcc" / "b1-probe"


def _built_probe(sources: Path) -> Path:
    return _cache_dir() / "release" / "b1-bare-loop"


def build_probe(sources: Path) -> Path:
    """Builds the probe from its sources into satcc's cache (the sources may
    be read-only) and returns the binary."""
    manifest = sources / "Cargo.toml"
    if not manifest.is_file():
        raise ProbeError(f"--probe {sources}: no Cargo.toml there")
    try:
        out = subprocess.run(
            [
                "cargo",
                "build",
                "--release",
                "--quiet",
                "--manifest-path",
                str(manifest),
                "--target-dir",
                str(_cache_dir()),
            ],
            capture_output=True,
            text=True,
        )
    except FileNotFoundError as e:
        raise ProbeError("--probe: building the probe needs cargo on PATH") from e
    if out.returncode != 0:
        raise ProbeError(f"--probe {sources}: cargo build failed:\n{out.stderr.strip()}")
    return _built_probe(sources)


def find_probe(probe: str | None) -> Path | None:
    """The probe binary to run: `probe` names a built binary or the probe's
    source directory (built on first use); without it, a probe already built
    from PROBE_SOURCES, else None."""
    if probe is None:
        built = _built_probe(PROBE_SOURCES)
        return built if PROBE_SOURCES.is_dir() and built.is_file() else None
    path = Path(probe)
    if path.is_dir():
        return build_probe(path)
    if path.is_file() and os.access(path, os.X_OK):
        return path
    raise ProbeError(f"--probe {probe}: neither the probe's sources nor an executable")


def run_probe(binary: Path, seconds: float) -> dict:
    """Runs the probe for `seconds` of simulated time (whole seconds, at
    least one) and returns its figures."""
    whole = max(1, round(seconds))
    out = subprocess.run([str(binary), str(whole)], capture_output=True, text=True)
    m = re.search(r"tx/s\s+([0-9.]+)M", out.stdout)
    if out.returncode != 0 or m is None:
        raise ProbeError(f"the probe {binary} printed no tx/s: {out.stdout or out.stderr}")
    return {"probe": str(binary), "probe_simulated_s": whole, "probe_tx_per_s": float(m[1]) * 1e6}


def main(
    quick: bool = False,
    as_json: bool = False,
    only: tuple[str, ...] = (),
    b2: dict | None = None,
    duration_s: float | None = None,
    probe: str | None = None,
) -> int:
    """Runs the named benchmarks (default: all canonical ones). `b2` holds
    n/rate/delay for the custom "B2"; `duration_s` overrides run lengths;
    `probe` names the bare-loop probe (see `find_probe`), run after B1."""
    names = list(only) or list(DEFAULT)
    binary = find_probe(probe) if "B1" in names else None
    rows = []
    for name in names:
        full = duration_s or SCENARIOS[name][1]
        # Quick mode: a tenth of each run (B1: 3 s), for a smoke test.
        seconds = full / 10 if quick else full
        row = _measure_in_subprocess(name, seconds, b2 if name == "B2" else None)
        if name == "B1" and binary is not None:
            row.update(run_probe(binary, seconds))
            row["ratio_to_probe"] = row["transmissions_per_s"] / row["probe_tx_per_s"]
        rows.append(row)
    if as_json:
        print(json.dumps(rows, indent=2))
        return 0
    _print(rows, quick)
    return 0


def _mega(key: str) -> Callable[[dict], str]:
    return lambda r: f"{r[key] / 1e6:.2f} M"


def _mb(key: str) -> Callable[[dict], str]:
    return lambda r: f"{r[key]:.0f} MB"


def _goodput(r: dict) -> str:
    # None when no TCP byte has arrived yet (very short runs).
    return f"{r['goodput_mbps'] or 0:.2f}"


# One table per family: (scenario prefix, title, columns, target line).
# Each column is (header, cell formatter).
_SIM_S = ("sim s", lambda r: f"{r['simulated_s']:g}")
_WALL = (
    ("run wall s", lambda r: f"{r['wall_s']:.2f}"),
    ("process wall s", lambda r: f"{r['process_wall_s']:.2f}"),
)
_RATES = (
    ("transmissions/s", _mega("transmissions_per_s")),
    ("events/s", _mega("events_per_s")),
    ("sim s / wall s", lambda r: f"{r['sim_s_per_wall_s']:.2f}"),
)
_TABLES = (
    (
        "B1",
        "B1, cell storm over GEO",
        (
            _SIM_S,
            ("wall s", lambda r: f"{r['wall_s']:.2f}"),
            *_RATES,
            ("cells in flight", lambda r: f"{r['cells_in_flight_at_end']:,}"),
            ("drops", lambda r: f"{r['drops']:,}"),
            (
                "RSS at 1/3 → end",
                lambda r: f"{r['rss_at_third_mb']:.0f} → {r['rss_at_end_mb']:.0f} MB",
            ),
            ("peak RSS", _mb("peak_rss_mb")),
        ),
        "Target (B1, one core, release build): >= 10 M link transmissions/s, "
        "memory flat in simulated time.",
    ),
    (
        "B2",
        "B2, TCP dumbbell over GEO",
        (
            _SIM_S,
            *_WALL,
            ("events", lambda r: f"{r['events']:,}"),
            ("goodput Mb/s", _goodput),
            ("bottleneck drops", lambda r: f"{r['bottleneck_drops']:,}"),
            ("peak RSS", _mb("peak_rss_mb")),
        ),
        "Peers (BENCHMARKS.md, whole process): ns-2.35 0.79 / 1.32 / 2.45 / 7.72 s, "
        "ns-3 14.1 / 25.4 / 50.8 / 84.4 s for B2a / B2b / B2c / B2d.",
    ),
    (
        "B3",
        "B3, abr-lrd-vbr sat-long (TCP over ABR, MPEG-2 video)",
        (
            _SIM_S,
            *_WALL,
            *_RATES,
            ("TCP goodput Mb/s", _goodput),
            ("drops", lambda r: f"{r['drops']:,}"),
            ("peak RSS", _mb("peak_rss_mb")),
        ),
        "Target (B3, one core): >= 1 simulated second per wall second.",
    ),
)


def _print(rows: list[dict], quick: bool) -> None:
    from rich.table import Table

    from . import _core
    from .console import table_console

    console = table_console()
    suffix = " (quick: a tenth of each run)" if quick else ""
    for prefix, title, columns, target in _TABLES:
        family = [r for r in rows if r["scenario"].startswith(prefix)]
        if not family:
            continue
        table = Table(title=f"satcc {_core.version()}: {title}{suffix}")
        table.add_column("scenario", justify="left")
        for header, _ in columns:
            table.add_column(header, justify="right")
        for r in family:
            table.add_row(r["scenario"], *(cell(r) for _, cell in columns))
        console.print(table)
        console.print(target)
        if prefix == "B1":
            _print_probe(console, family)


def _print_probe(console, rows: list[dict]) -> None:
    b1 = next((r for r in rows if r["scenario"] == "B1"), None)
    if b1 is None:
        return
    if "ratio_to_probe" not in b1:
        console.print(
            f"No bare-loop probe to compare with: `--probe {PROBE_SOURCES}` builds it "
            "and runs it after B1."
        )
        return
    console.print(
        f"Bare-loop probe, run after B1 ({b1['probe_simulated_s']} s simulated): "
        f"{b1['probe_tx_per_s'] / 1e6:.2f} M transmissions/s; satcc / probe = "
        f"{b1['ratio_to_probe']:.3f} (target >= 0.6)."
    )


if __name__ == "__main__":
    # python -m satcc.bench NAME SECONDS < scenario.json
    print(json.dumps(measure(sys.argv[1], float(sys.argv[2]), json.load(sys.stdin))))
