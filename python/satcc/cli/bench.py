"""satcc bench: the canonical performance scenarios (BENCHMARKS.md)."""

from __future__ import annotations

import click

from satcc.cli.common import EXIT_OK, BadInput
from satcc.cli.group import cli


@cli.command(
    epilog="""\b
Examples:
  satcc bench --quick
  satcc bench B1
  satcc bench B1 --probe ../shared/bench/b1-bare-loop
  satcc bench B2 --n 32 --rate "50 Mbps" --delay "300 ms" --duration "100 s"
  satcc bench --json > figures.json"""
)
@click.option("--quick", is_flag=True, help="A tenth of each run, for a smoke test.")
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
@click.option("--n", "n", type=click.IntRange(min=1), default=16, help="B2: number of TCP flows.")
@click.option("--rate", default="10 Mbps", help='B2: bottleneck rate, e.g. "155 Mbps".')
@click.option("--delay", default="250 ms", help='B2: bottleneck one-way delay, e.g. "300 ms".')
@click.option("--duration", default=None, help='Simulated time of each run, e.g. "100 s".')
@click.option(
    "--probe",
    default=None,
    help="B1's bare-loop probe: its sources (built into ~/.cache/satcc) or a built binary; "
    "run after B1 for the ratio. Default: the one built from ../shared/bench/b1-bare-loop.",
)
@click.argument("names", nargs=-1, metavar="[B1|B1-deep|B2a|B2b|B2c|B2d|B2|B3]...")
def bench(
    quick: bool,
    as_json: bool,
    n: int,
    rate: str,
    delay: str,
    duration: str | None,
    probe: str | None,
    names: tuple[str, ...],
) -> int:
    """Measure the simulator on the canonical benchmarks (all, or those named).

    B2 is the TCP dumbbell with the flow count, bottleneck rate, delay and
    duration taken from --n, --rate, --delay and --duration.
    """
    from satcc import bench as bench_module
    from satcc.units import UnitError, parse_rate, parse_time

    unknown = [n for n in names if n not in bench_module.SCENARIOS]
    if unknown:
        known = ", ".join(bench_module.SCENARIOS)
        raise BadInput(f"unknown benchmark {unknown[0]!r} (benchmarks: {known})")
    try:
        duration_s = parse_time(duration) * 1e-12 if duration else None
        if parse_rate(rate) <= 0 or parse_time(delay) < 0 or (duration and duration_s <= 0):
            raise UnitError("--rate and --duration must be positive, --delay not negative")
    except UnitError as e:
        raise BadInput(f"bench: {e}") from e
    b2 = {"n": n, "rate": rate, "delay": delay}
    try:
        status = bench_module.main(
            quick=quick, as_json=as_json, only=names, b2=b2, duration_s=duration_s, probe=probe
        )
    except bench_module.ProbeError as e:
        raise BadInput(f"bench: {e}") from e
    return status if isinstance(status, int) else EXIT_OK
