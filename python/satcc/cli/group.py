"""The `satcc` command group, which every command module joins."""

from __future__ import annotations

from typing import Any

import click

from satcc.cli.common import CONTEXT, EXIT_OK


def _print_version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if not value or ctx.resilient_parsing:
        return
    click.echo(version_line())
    ctx.exit(EXIT_OK)


def version_line() -> str:
    """Which satcc this is, in one line: the version says the release, the
    build id which code computes (the one stored runs carry as
    `satcc_build`), the core's version which extension module is loaded,
    and Python which interpreter runs it."""
    import platform

    from satcc import _core
    from satcc.build import build_id

    return (
        f"satcc {_package_version()} (build {build_id()}, core {_core.version()}, "
        f"Python {platform.python_version()})"
    )


def _package_version() -> str:
    """The installed distribution's version when it is the package running;
    otherwise (a source tree on PYTHONPATH, an editable install) the
    core's, which the build gives the package too."""
    from importlib import metadata
    from pathlib import Path

    import satcc

    try:
        dist = metadata.distribution("satcc")
    except metadata.PackageNotFoundError:
        return satcc.__version__
    installed = Path(dist.locate_file("satcc/__init__.py"))
    if installed.is_file() and installed.resolve() == Path(satcc.__file__).resolve():
        return dist.version
    return satcc.__version__


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
    help="Print the version, build id, core version and Python version, and exit.",
)
def cli() -> None:
    """Simulate congestion control over satellite and long-delay networks."""
