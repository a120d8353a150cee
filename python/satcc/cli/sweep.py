"""satcc sweep: a scenario over a grid of values and seeds, into a campaign."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import click

from satcc.cli.common import (
    EXIT_FAILURE,
    EXIT_OK,
    EXIT_TERMINATED,
    BadInput,
    load_scenario,
    note,
    print_error,
    progress_wanted,
    refuse_unknown_table,
)
from satcc.cli.group import cli


@contextmanager
def _sweep_errors() -> Iterator[None]:
    """Scenario, sweep-request and campaign errors are the user's input: exit 2."""
    from satcc.scenario import ScenarioError
    from satcc.store import CampaignError
    from satcc.sweeps import SweepError

    try:
        yield
    except (ScenarioError, SweepError, CampaignError) as e:
        raise BadInput(str(e)) from e


def _refuse_unknown_tables(scenario, sets: tuple[str, ...], zips: tuple[str, ...], seeds) -> None:
    """Each swept key must go through tables the scenario has, named with its
    option (the sweep itself would refuse it too, naming the first point);
    a malformed request is refused first, as the grid says."""
    from satcc.sweeps import grid

    with _sweep_errors():
        g = grid(list(sets), list(zips), seeds)
    set_keys = [key for key, _ in g.grid]
    for key in g.keys:
        option = "--set" if key in set_keys else "--zip"
        refuse_unknown_table(scenario, key, option, whole=False)


def _say_failures(counts, quiet: bool) -> None:
    for key, error in counts.errors[:5]:
        note(f"run {key} failed: {error}", quiet)
    if len(counts.errors) > 5:
        note(f"... and {len(counts.errors) - 5} more failed runs", quiet)


_WALL_UNITS = {"ms": 1e-3, "s": 1.0, "min": 60.0, "h": 3600.0}


def parse_wall(text: str) -> float:
    """'1 h', '90 min', '30 s', '500 ms' or plain seconds -> seconds."""
    import re

    m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*([a-z]*)\s*", text)
    if not m or (m.group(2) and m.group(2) not in _WALL_UNITS):
        raise BadInput(f"bad --max-wall {text!r}: expected a time such as '1 h', '30 min', '90 s'")
    seconds = float(m.group(1)) * _WALL_UNITS[m.group(2) or "s"]
    if not seconds > 0:
        raise BadInput(f"bad --max-wall {text!r}: must be positive")
    return seconds


@cli.command(
    short_help="Run a scenario over a grid of values and seeds into a campaign.",
    epilog="""\b
Examples:
  satcc sweep examples/mm1.toml --set 'sources.arrivals.rate=range(2, 10, 2) Mbps' --seeds 1..10
  satcc sweep examples/geo_cbr.toml --set 'links.sat.rate=2 Mbps,4 Mbps' \
--set 'run.seed=1,2'
  satcc sweep examples/mm1.toml --zip 'sources.arrivals.rate=4 Mbps,8 Mbps' \
--zip 'run.name=light,heavy' --campaign campaigns/mm1-zip
  satcc sweep examples/mm1.toml --seeds 1..100 --executor dask --scheduler tcp://10.0.0.5:8786

\b
Running the same command again runs only what the campaign lacks (missing
or failed runs); an interrupted sweep resumes where it stopped. Read the
results with `satcc results CAMPAIGN`.""",
)
@click.argument("file", type=click.Path(path_type=Path))
@click.option(
    "--set",
    "sets",
    multiple=True,
    metavar="KEY=V1,V2,...",
    help="The values KEY takes; every --set multiplies the grid. Each value is TOML when "
    'valid TOML (3, 0.5, true, "x", [..], {..}), else text; \'range(START, STOP[, STEP]) '
    "[UNIT]' gives numbers as Python's range, floats allowed. Repeatable.",
)
@click.option(
    "--zip",
    "zips",
    multiple=True,
    metavar="KEY=V1,V2,...",
    help="Keys that vary together: all --zip lists have the same length and their i-th "
    "values form one point. Repeatable.",
)
@click.option(
    "--seeds",
    metavar="SPEC",
    help="Seeds of every point: 1..10 (inclusive), 1,2,7 or one number "
    "(default: the scenario's run.seed).",
)
@click.option(
    "--campaign",
    type=click.Path(file_okay=False, path_type=Path),
    help="The campaign folder (default: campaigns/<scenario name>).",
)
@click.option(
    "--executor",
    type=click.Choice(["local", "dask", "dask-local"]),
    help="Where runs execute: local processes (default), a Dask cluster at --scheduler "
    "(dask), or a Dask cluster started on this machine (dask-local).",
)
@click.option(
    "-j", "--jobs", type=click.IntRange(min=1), help="Parallel runs (default: number of CPUs)."
)
@click.option("--scheduler", metavar="tcp://HOST:PORT", help="Dask scheduler address.")
@click.option(
    "--max-wall",
    default="1 h",
    show_default=True,
    metavar="TIME",
    help="Wall-clock budget per run; a run over it is recorded as failed, not retried.",
)
@click.option(
    "--retries",
    type=click.IntRange(min=0),
    default=2,
    show_default=True,
    help="How often a run whose worker died is retried.",
)
@click.option(
    "--allow-version-mix",
    is_flag=True,
    help="Add to a campaign written by another satcc version (its runs are recomputed).",
)
@click.option(
    "--allow-other-scenario",
    is_flag=True,
    help="Add to a campaign that holds another scenario's runs (or this scenario's "
    "before an edit); without it such a campaign is refused.",
)
@click.option(
    "--no-wait",
    is_flag=True,
    help="If another sweep is writing into the campaign, exit (status 2) instead of "
    "waiting for it to finish.",
)
@click.option("-q", "--quiet", is_flag=True, help="No progress bar; the final line only.")
def sweep(
    file: Path,
    sets: tuple[str, ...],
    zips: tuple[str, ...],
    seeds: str | None,
    campaign: Path | None,
    executor: str | None,
    jobs: int | None,
    scheduler: str | None,
    max_wall: str,
    retries: int,
    allow_version_mix: bool,
    allow_other_scenario: bool,
    no_wait: bool,
    quiet: bool,
) -> int:
    """Run the scenario in FILE at every point of a grid, into a campaign folder.

    Every point is validated before anything runs. Each finished run is stored
    at once (Parquet parts in the campaign folder), so Ctrl-C or a kill loses
    only the runs in flight. One sweep writes into a campaign at a time: a
    second one waits for the first (saying so), then runs only what is still
    missing. Prints "N runs: K done now, S skipped (already in the store), F
    failed -> CAMPAIGN"; exit status 1 if any run failed, 2 on bad input
    (including a grid of more than 1,000,000 runs), 130 on Ctrl-C, 143 on
    SIGTERM (both keep every finished run).
    """
    import signal

    from satcc.sweeps import SweepFailed, SweepInterrupted
    from satcc.sweeps import sweep as run_sweep

    max_wall_s = parse_wall(max_wall)
    scenario = load_scenario(file, ())
    _refuse_unknown_tables(scenario, sets, zips, seeds)
    if executor is None:
        executor = "dask" if scheduler else "local"
    try:
        with _sweep_errors():
            store = run_sweep(
                scenario,
                set=list(sets),
                zip=list(zips),
                seeds=seeds,
                campaign=campaign,
                executor=executor,
                jobs=jobs,
                scheduler=scheduler,
                max_wall_s=max_wall_s,
                retries=retries,
                allow_version_mix=allow_version_mix,
                progress=progress_wanted(quiet),
                allow_other_scenario=allow_other_scenario,
                wait=not no_wait,
            )
    except SweepInterrupted as e:
        click.echo(e.counts.line())
        if e.signum == signal.SIGTERM:
            print_error("terminated")
            return EXIT_TERMINATED
        raise
    except SweepFailed as e:
        _say_failures(e.counts, quiet)
        click.echo(e.counts.line())
        return EXIT_FAILURE
    counts = store.last_sweep
    _say_failures(counts, quiet)
    builds = store.builds() if allow_version_mix else {}
    if len(builds) > 1:
        listed = ", ".join(f"{b} ({n} runs)" for b, n in builds.items())
        note(f"the campaign holds runs of {len(builds)} builds of satcc: {listed}", quiet)
    click.echo(counts.line())
    return EXIT_FAILURE if counts.failed else EXIT_OK
