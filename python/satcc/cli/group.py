"""The `satcc` command group, which every command module joins."""

from __future__ import annotations

from typing import Any

import click

from satcc.cli.common import CONTEXT, EXIT_OK


def _print_version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if not value or ctx.resilient_parsing:
        return
    import satcc

    click.echo(f"satcc {satcc.__version__}")
    ctx.exit(EXIT_OK)


class EpipeIsAFailure(Exception):
    """A BrokenPipeError raised by the work itself (a worker's pipe, a socket)."""

    def __init__(self, original: BrokenPipeError):
        super().__init__(original)
        self.original = original


class _Group(click.Group):
    def invoke(self, ctx: click.Context) -> Any:
        # click would turn it into a silent exit 1. stdout's own broken pipe
        # never gets here (see satcc.pipes.GuardedStream), so this one is a failure to report.
        try:
            return super().invoke(ctx)
        except BrokenPipeError as e:
            raise EpipeIsAFailure(e) from e


@click.group(
    cls=_Group,
    context_settings=CONTEXT,
    epilog="""\b
Examples:
  satcc validate examples/*.toml
  satcc run examples/geo_cbr.toml --seed 2 --out out/geo
  satcc reproduce --list
  satcc reproduce queueing-theory --quick
  satcc sweep examples/mm1.toml --set 'sources.arrivals.rate=4 Mbps,8 Mbps' --seeds 1..5
  satcc results campaigns/mm1 "select count(*) from runs"

Exit status: 0 ok, 1 failure (or checks out of tolerance), 2 bad input, 130 interrupted.""",
)
@click.option(
    "--version",
    is_flag=True,
    expose_value=False,
    is_eager=True,
    callback=_print_version,
    help="Print the version and exit.",
)
def cli() -> None:
    """Simulate congestion control over satellite and long-delay networks."""
