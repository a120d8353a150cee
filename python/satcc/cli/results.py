# satcc results: SQL over a campaign's runs, summaries and series.

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from satcc import fmt
from satcc.cli.common import EXIT_OK, BadInput
from satcc.cli.group import cli


@cli.command(
    short_help="Query a campaign's runs with SQL.",
    epilog="""\b
Examples:
  satcc results campaigns/mm1
  satcc results campaigns/mm1 "select count(*) from runs"
  satcc results campaigns/mm1 "select param.\\"sources.arrivals.rate\\" as rate,
      avg(\\"links.server.wait_mean_s\\") as wait from summary group by all order by 1"
  satcc results campaigns/mm1 "select * from series where series = 'queue'" --csv > q.csv

\b
Views: runs (one row per run: key, status, seed, params, "param.KEY" columns
and the struct param, wall_s, events, error, satcc_version, satcc_build,
finished),
summary (the ok runs joined with one column per summary figure), series
(key, series, time_s, value).""",
)
@click.argument("campaign", type=click.Path(path_type=Path))
@click.argument("query", metavar="[SQL]", required=False)
@click.option("--csv", "as_csv", is_flag=True, help="Print the result as CSV.")
def results(campaign: Path, query: str | None, as_csv: bool) -> int:
    """Query CAMPAIGN with DuckDB SQL over the views runs, summary and series.

    Without SQL, an overview: the runs ok and failed per parameter point.
    """
    from satcc.store import CampaignError
    from satcc.store import results as open_campaign

    try:
        store = open_campaign(campaign)
    except CampaignError as e:
        raise BadInput(str(e)) from e
    if query is None:
        frame = store.overview()
    else:
        import duckdb

        try:
            frame = store.sql(query)
        except duckdb.Error as e:
            raise BadInput(f"SQL: {e}") from e
    builds = store.builds()
    if len(builds) > 1:
        listed = ", ".join(f"{b} ({n} runs)" for b, n in builds.items())
        click.echo(
            f"note: {store.path} holds runs of {len(builds)} builds of satcc, computed by "
            f"different code: {listed}; group or filter on satcc_build",
            err=True,
        )
    if as_csv:
        click.echo(frame.to_csv(index=False), nl=False)
    elif query is None:
        _print_overview(store, frame)
    else:
        _print_frame(frame)
    return EXIT_OK


def _print_overview(store: Any, frame: Any) -> None:
    meta = store.meta
    ok = int(frame["ok"].sum()) if len(frame) else 0
    failed = int(frame["failed"].sum()) if len(frame) else 0
    click.echo(
        f"{store.path}: scenario {meta.get('scenario')}, satcc {meta.get('satcc_version')}, "
        f"{ok} runs ok, {failed} failed"
    )
    if len(frame.columns) > 2 and len(frame):
        _print_frame(frame)


def _print_frame(frame: Any) -> None:
    from rich import box
    from rich.table import Table

    from satcc.console import table_console

    table = Table(box=box.SIMPLE_HEAD, show_edge=False, padding=(0, 1))
    for column in frame.columns:
        table.add_column(str(column), overflow="fold")
    for row in frame.itertuples(index=False):
        table.add_row(*(_cell(v) for v in row))
    # On a terminal, cells too wide fold onto more lines rather than being cut.
    table_console().print(table)


def _cell(value: Any) -> str:
    if fmt.is_missing(value):
        return ""
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)
