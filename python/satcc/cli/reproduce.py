"""satcc reproduce: a study's runs against the published values; satcc
report: an HTML page of study results and campaigns."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from satcc.cli.common import EXIT_FAILURE, EXIT_OK, BadInput, note, progress_wanted
from satcc.cli.group import cli
from satcc.signals import sigterm_as_interrupt


@cli.command(
    epilog="""\b
Examples:
  satcc reproduce --list
  satcc reproduce queueing-theory --quick
  satcc reproduce queueing-theory --jobs 8 --out results/qt
  satcc reproduce tfrc-dama --executor dask --scheduler tcp://HOST:8786
  satcc reproduce all --quick          (every study, then results/report.html)"""
)
@click.argument("study", required=False)
@click.option("--list", "list_", is_flag=True, help="List the studies and exit.")
@click.option("--quick", is_flag=True, help="Shorter runs, fewer seeds: a demo, may fail checks.")
@click.option(
    "-j", "--jobs", type=click.IntRange(min=1), help="Parallel runs (default: number of CPUs)."
)
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    help="Where to write STUDY.csv and STUDY.json (default: results/STUDY/).",
)
@click.option("-q", "--quiet", is_flag=True, help="No progress bar, no table; the verdict only.")
@click.option(
    "--allow-fail",
    is_flag=True,
    help="Exit 0 even when checks are outside tolerance (the table still says which).",
)
@click.option(
    "--emulate",
    is_flag=True,
    help="Then run real tools over the same models in real time, beside the simulation "
    "(studies that have an emulated mode; root and /dev/net/tun).",
)
@click.option(
    "--executor",
    type=click.Choice(["local", "dask", "dask-local"]),
    help="Where the study's runs execute, as for `satcc sweep`: local processes (default), "
    "a Dask cluster at --scheduler (dask), or one started on this machine (dask-local).",
)
@click.option("--scheduler", metavar="tcp://HOST:PORT", help="Dask scheduler address.")
# SIGTERM stops a reproduction as Ctrl-C does: workers ended, finished runs
# kept in the campaign, exit 143 (before: killed, -15, no message, a leaked
# semaphore).
@sigterm_as_interrupt()
def reproduce(
    study: str | None,
    list_: bool,
    quick: bool,
    jobs: int | None,
    out: Path | None,
    quiet: bool,
    allow_fail: bool,
    emulate: bool,
    executor: str | None,
    scheduler: str | None,
) -> int:
    """Run STUDY and compare the simulator with the published values.

    Every run of the study is repeated over several seeds, averaged (with a
    95% Student-t confidence interval) and checked against the published
    value within a tolerance fixed in the study. Exit status 0 when every
    check passes, 1 when any does not (0 with --allow-fail) or a run fails.
    """
    from satcc import studies

    if list_:
        _list_studies(studies.STUDIES)
        return EXIT_OK
    if study is None:
        raise click.UsageError("missing STUDY (see `satcc reproduce --list`)")
    if study == "all":
        from satcc.report import reproduce_all

        if emulate:
            raise BadInput("--emulate runs one study at a time, not `all`")
        root = out if out is not None else Path("results")
        status = reproduce_all(
            quick,
            root,
            jobs,
            progress=progress_wanted(quiet),
            show=not quiet,
            allow_fail=allow_fail,
        )
        note(f"wrote {root / 'report.html'}", quiet)
        return status
    try:
        chosen = studies.get(study)
    except studies.UnknownStudyError as e:
        raise BadInput(str(e)) from e
    out_dir = out if out is not None else Path("results") / chosen.name
    executor = executor or ("dask" if scheduler else "local")
    if executor == "local" and scheduler:
        raise BadInput("--scheduler needs --executor dask")
    # No input_errors() here: the scenarios are the study's, not the user's,
    # so a scenario error in a study is a bug in satcc (exit 1), not bad input.
    from satcc.emulate import EmulationSetupError
    from satcc.studies.emulated_mode import NoEmulation

    try:
        table = studies.reproduce(
            chosen,
            quick=quick,
            jobs=jobs,
            out=out_dir,
            progress=progress_wanted(quiet),
            show=not quiet,
            emulate=emulate,
            executor=executor,
            scheduler=scheduler,
        )
    except (NoEmulation, EmulationSetupError) as e:
        raise BadInput(str(e)) from e
    if quiet:
        from satcc.studies.compare import verdict_line

        click.echo(verdict_line(table))
    note(f"wrote {out_dir / (chosen.name + '.csv')} and {chosen.name}.json", quiet)
    judged = table[table["tolerance_kind"] != "none"]
    if allow_fail or bool(judged["passed"].astype(bool).all()):
        return EXIT_OK
    return EXIT_FAILURE


@cli.command(
    epilog="""\b
Examples:
  satcc report results/queueing-theory
  satcc report campaigns/mm1 --out mm1.html
  satcc report results/queueing-theory campaigns/mm1 --out all.html"""
)
@click.argument("sources", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    default=Path("report.html"),
    show_default=True,
    help="The HTML file to write (self-contained: opens with no network).",
)
def report(sources: tuple[Path, ...], out: Path) -> int:
    """Write an HTML report of study results and/or campaigns.

    Each SOURCE is a study result folder (written by `satcc reproduce`) or a
    campaign folder (written by `satcc sweep`). The page embeds its figures
    and styles, so it opens in a browser with no network access.
    """
    from satcc import report as report_module
    from satcc.paths import unreachable

    for source in sources:
        why = unreachable(source, "file or folder")
        if why is not None:
            raise BadInput(f"{source}: {why}")
    try:
        path = report_module.write_report(list(sources), out)
    except report_module.ReportError as e:
        raise BadInput(str(e)) from e
    click.echo(f"wrote {path}")
    return EXIT_OK


def _list_studies(registry: dict[str, Any]) -> None:
    from rich.table import Table

    from satcc.console import table_console

    table = Table(box=None, show_header=True)
    table.add_column("study")
    table.add_column("title")
    table.add_column("checks", justify="right")
    for name, study in sorted(registry.items()):
        table.add_row(name, study.title, str(len(study.references)))
    table_console().print(table)
