"""satcc run: one scenario, its summary tables, and its result folder."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from satcc import fmt
from satcc.cli.common import (
    EXIT_FAILURE,
    EXIT_OK,
    SET_HELP,
    BadInput,
    input_errors,
    load_scenario,
    note,
    print_error,
    progress_wanted,
)
from satcc.cli.group import cli

if TYPE_CHECKING:
    from satcc.summary_tables import Group


@cli.command(
    short_help="Run a scenario and print its main figures.",
    epilog="""\b
Examples:
  satcc run examples/geo_cbr.toml
  satcc run examples/geo_cbr.toml --seed 7 --out out/geo_seed7
  satcc run examples/geo_cbr.toml --set 'links.sat.rate=4 Mbps' --set 'run.duration=60 s'""",
)
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--seed", type=click.IntRange(min=0), help="Run seed (overrides run.seed).")
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    help="Write the result folder here (summary.json, series/*.parquet, scenario.json, "
    "run.json), replacing it atomically. Without --out nothing is written.",
)
@click.option("--set", "assignments", multiple=True, metavar="KEY=VALUE", help=SET_HELP)
@click.option("-q", "--quiet", is_flag=True, help="No progress bar, no tables; errors only.")
def run(
    file: Path, seed: int | None, out: Path | None, assignments: tuple[str, ...], quiet: bool
) -> int:
    """Run the scenario in FILE and print its main per-flow and per-link figures."""
    from satcc import runner

    scenario = load_scenario(file, assignments)
    if out is not None:
        check_out(scenario, seed, out)
    with input_errors():
        result = runner.run(scenario, seed=seed, progress=progress_wanted(quiet))
    # The folder first: a reader that stops reading the tables (`| head`)
    # must not cost the results.
    if out is not None:
        from satcc.result_folder import ResultWriteError, write_result

        try:
            write_result(result, out)
        except ResultWriteError as e:
            print_error(e.strerror)
            return EXIT_FAILURE
    if not quiet:
        print_run_summary(result)
    if out is not None:
        note(f"wrote {out}{os.sep}", quiet)
    missing = result.summary.get("run.pdus_unaccounted", 0)
    if missing:
        print_error(
            f"{missing:,} PDUs are unaccounted for: this run lost data without counting it, "
            "a defect of satcc; please report it with the scenario"
        )
        return EXIT_FAILURE
    return EXIT_OK


def check_out(scenario: Any, seed: int | None, out: Path) -> None:
    """Refuse an --out that could not be written before spending the run on it."""
    from satcc.result_folder import OutputFolderError, check_output_folder

    with input_errors():
        description = scenario.validate(seed=seed)
    # Each probe's series becomes series/NAME.parquet.
    probes = [probe["name"] for probe in description.get("probes", [])]
    try:
        check_output_folder(out, probes)
    except (FileExistsError, OutputFolderError) as e:
        raise BadInput(str(e)) from e


def print_run_summary(result: Any) -> None:
    from satcc import summary_tables
    from satcc.console import table_console

    console = table_console()
    console.print(_run_headline(result), markup=False)
    for group in summary_tables.GROUPS:
        entities = group.entities(result.summary)
        if entities:
            console.print(_entity_table(group, entities))
            for line in _fairness_lines(group.prefix, result.summary):
                console.print(line, markup=False, highlight=False)


def _fairness_lines(prefix: str, summary: dict[str, Any]) -> list[str]:
    """Jain's index under the table of the flows it is over."""
    from satcc.summary_tables import FAIRNESS

    return [
        f"Jain's fairness index ({over}): {fmt.number(summary[key], 3)}"
        for key, (group, over) in FAIRNESS.items()
        if group == prefix and summary.get(key) is not None
    ]


def _run_headline(result: Any) -> str:
    summary, info = result.summary, result.info
    name = (result.description or {}).get("name", "scenario")
    how = "emulated in real time" if info.get("emulated") else "simulated"
    line = (
        f"{name}: seed {result.seed}, {fmt.seconds(summary.get('run.end_time_s'))} "
        f"{how}, {fmt.count(summary.get('run.events'))} events"
    )
    wall = info.get("wall_s")
    if isinstance(wall, int | float):
        line += f" in {fmt.seconds(wall)} wall"
    return line + "\n" + _conservation_line(summary)


def _conservation_line(summary: dict[str, Any]) -> str:
    """What became of every PDU the network took (run.pdus_*), and whether
    the count closes."""
    get = lambda key: summary.get(f"run.pdus_{key}")  # noqa: E731
    if get("sent") is None:
        return "conservation: not checked (a result from an older satcc)"
    parts = ", ".join(
        f"{fmt.count(get(key))} {key.replace('_', ' ')}"
        for key in ("delivered", "dropped", "errored", "in_flight")
    )
    verdict = "ok" if get("unaccounted") == 0 else f"{fmt.count(get('unaccounted'))} UNACCOUNTED"
    return f"conservation {verdict}: {fmt.count(get('sent'))} PDUs sent = {parts}"


def _compact_table(title: str) -> Any:
    # One space between columns and no frame: the usual tables fit 80 columns.
    from rich import box
    from rich.table import Table

    return Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, padding=0, show_edge=False)


def _entity_table(group: Group, entities: dict[str, dict[str, Any]]) -> Any:
    """One row per flow/connection/link/exchange of a satcc.summary_tables group."""
    table = _compact_table(group.prefix)
    table.add_column(group.entity, justify="left")
    for column in group.columns:
        table.add_column(column.header, justify="right")
    for name, values in entities.items():
        table.add_row(name, *(column.cell(values.get(column.key)) for column in group.columns))
    return table
