"""satcc results: SQL over a campaign's runs, summaries and series."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click

from satcc import fmt
from satcc.cli.common import EXIT_OK, BadInput
from satcc.cli.group import cli

# Rows a query's table shows by default: a terminal table of a million rows
# helps nobody and took minutes and a gigabyte to build.
MAX_ROWS = 1000


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
@click.option("--csv", "as_csv", is_flag=True, help="Print the whole result as CSV, streamed.")
@click.option(
    "--max-rows",
    type=click.IntRange(min=0),
    default=MAX_ROWS,
    show_default=True,
    help="Rows shown in the table (0: all); --csv prints every row.",
)
def results(campaign: Path, query: str | None, as_csv: bool, max_rows: int) -> int:
    """Query CAMPAIGN with DuckDB SQL over the views runs, summary and series.

    Without SQL, an overview: the runs ok and failed per parameter point.
    A query only reads: one statement (SELECT, WITH, FROM, DESCRIBE,
    SUMMARIZE, EXPLAIN) over the campaign's tables; COPY, ATTACH, CREATE,
    SET and file access outside the campaign are refused (exit 2).
    """
    from satcc.store import CampaignError
    from satcc.store import results as open_campaign

    try:
        store = open_campaign(campaign)
    except CampaignError as e:
        raise BadInput(str(e)) from e
    _say_builds(store)
    if query is None:
        frame = store.overview()
        if as_csv:
            click.echo(frame.to_csv(index=False), nl=False)
        else:
            _print_overview(store, frame)
        return EXIT_OK
    with _query_errors():
        chunks = store.sql_chunks(query)
        try:
            if as_csv:
                _stream_csv(chunks)
            else:
                _print_result(chunks, max_rows)
        finally:
            chunks.close()
    return EXIT_OK


@contextmanager
def _query_errors() -> Iterator[None]:
    """A query DuckDB or the campaign refuses is the user's input: exit 2."""
    import duckdb

    from satcc.store import QueryError

    try:
        yield
    except QueryError as e:
        raise BadInput(str(e)) from e
    except duckdb.Error as e:
        raise BadInput(f"SQL: {e}") from e


def _say_builds(store: Any) -> None:
    builds = store.builds()
    if len(builds) > 1:
        listed = ", ".join(f"{b} ({n} runs)" for b, n in builds.items())
        click.echo(
            f"note: {store.path} holds runs of {len(builds)} builds of satcc, computed by "
            f"different code: {listed}; group or filter on satcc_build",
            err=True,
        )


def _stream_csv(chunks: Iterator[Any]) -> None:
    header = True
    for chunk in chunks:
        click.echo(chunk.to_csv(index=False, header=header), nl=False)
        header = False


def _print_result(chunks: Iterator[Any], max_rows: int) -> None:
    """The first max_rows rows as a table; the rest only counted, so a large
    result costs no more memory than the rows shown."""
    import pandas as pd

    shown: list[Any] = []
    kept = total = 0
    for chunk in chunks:
        total += len(chunk)
        room = len(chunk) if max_rows == 0 else max(0, max_rows - kept)
        if room or not shown:
            shown.append(chunk.iloc[:room])
            kept += min(room, len(chunk))
    _print_frame(pd.concat(shown, ignore_index=True))
    if total > kept:
        click.echo(
            f"{kept:,} of {total:,} rows shown (--max-rows 0 for all, --csv to export)", err=True
        )


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
