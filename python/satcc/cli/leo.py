"""satcc leo: LEO constellation shells and the paths between cities over
them, recomputed every step as Hypatia does (docs/leo.md)."""

from __future__ import annotations

from pathlib import Path

import click

from satcc.cli.common import EXIT_OK, BadInput
from satcc.cli.group import cli


@cli.group()
def leo() -> None:
    """LEO constellations: shells, and paths that move."""


@leo.command(
    epilog="""\b
Examples:
  satcc leo shells"""
)
def shells() -> int:
    """List the preset shells."""
    from satcc.leo import shells as shells_module

    for s in shells_module.PRESETS.values():
        click.echo(
            f"{s.name:<12} {s.altitude_km:>6g} km  {s.planes} x {s.per_plane} = {s.size:>4}  "
            f"{s.inclination_deg:g} deg  min elevation {s.min_elevation_deg:g} deg  ({s.source})"
        )
    return EXIT_OK


def _pair(text: str) -> tuple[str, str]:
    src, sep, dst = text.partition(":")
    if not sep or not src.strip() or not dst.strip():
        raise BadInput(f"--pair {text!r}: give two cities as SOURCE:DESTINATION, e.g. Paris:Moscow")
    return src, dst


def _distinct(pair: tuple[str, str]) -> tuple[str, str]:
    from satcc.leo import ground

    if ground.city(pair[0]) == ground.city(pair[1]):
        raise BadInput(f"--pair {':'.join(pair)}: source and destination are the same city")
    return pair


@leo.command(
    epilog="""\b
Examples:
  satcc leo paths --shell starlink-s1 --pair Paris:Moscow
  satcc leo paths --shell kuiper-k1 --pair Manila:Dalian --pair Rio-de-Janeiro:Saint-Petersburg
  satcc leo paths --shell kuiper-k1 --pair Manila:Dalian --duration 200 --step 0.1 --out md.csv"""
)
@click.option(
    "--shell",
    "shell_name",
    default="starlink-s1",
    show_default=True,
    help="A preset shell (satcc leo shells).",
)
@click.option(
    "--pair",
    "pair_texts",
    multiple=True,
    required=True,
    help="SOURCE:DESTINATION cities, e.g. Paris:Moscow (repeatable).",
)
@click.option("--duration", type=float, default=200.0, show_default=True, help="Seconds.")
@click.option(
    "--step", type=float, default=0.1, show_default=True, help="Seconds between routing snapshots."
)
@click.option(
    "--gsl-rule",
    type=click.Choice(["range", "elevation"]),
    default="range",
    show_default=True,
    help="Ground-satellite links within Hypatia's range, or above the minimum elevation.",
)
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Write the series (.csv or .parquet).",
)
def paths(
    shell_name: str, pair_texts: tuple[str, ...], duration: float, step: float, gsl_rule: str,
    out: Path | None,
) -> int:  # fmt: skip
    """Each pair's path, RTT and path changes over time, recomputed every step.

    Times start at the shell's epoch (2000-01-01 00:00 UTC) as in Hypatia;
    the RTT is twice the path's propagation delay at c.
    """
    import numpy as np
    import pandas as pd

    from satcc.leo import ground
    from satcc.leo import paths as paths_module
    from satcc.leo import shells as shells_module

    if out is not None and out.suffix not in (".csv", ".parquet"):
        raise BadInput(f"--out {out}: give a .csv or .parquet file")
    try:
        shell = shells_module.preset(shell_name)
        named = [_distinct(_pair(p)) for p in pair_texts]
        stations = list(dict.fromkeys(ground.city(c) for p in named for c in p))
        paths_module.times(duration, step)
    except ValueError as e:
        raise BadInput(f"leo paths: {e}") from e
    index = {s: i for i, s in enumerate(stations)}
    pairs = [(index[ground.city(a)], index[ground.city(b)]) for a, b in named]
    result = paths_module.series(shell, stations, pairs, duration, step, gsl_rule)

    def hop_text(hops: tuple[int, ...]) -> str:
        n = shell.size
        return "-".join(stations[h - n].name if h >= n else str(h) for h in hops)

    frames = []
    for (a, b), s in result.items():
        name = f"{stations[a].name}:{stations[b].name}"
        rtt_ms = s.rtt_s * 1e3
        if np.all(np.isnan(rtt_ms)):
            click.echo(f"{name}: unreachable throughout")
        else:
            click.echo(
                f"{name}: RTT min {np.nanmin(rtt_ms):.2f} / mean {np.nanmean(rtt_ms):.2f} / "
                f"max {np.nanmax(rtt_ms):.2f} ms, {s.path_changes} path changes, "
                f"unreachable {s.unreachable_s(step):.1f} s of {duration:g} s"
            )
        frames.append(
            pd.DataFrame(
                {"pair": name, "t_s": s.t_s, "rtt_ms": rtt_ms,
                 "hops": [hop_text(h) for h in s.hops]}
            )
        )  # fmt: skip
    if out is not None:
        table = pd.concat(frames, ignore_index=True)
        if out.suffix == ".csv":
            table.to_csv(out, index=False)
        else:
            table.to_parquet(out, index=False)
    return EXIT_OK
