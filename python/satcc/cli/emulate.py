"""satcc emulate: a scenario in real time between real Linux hosts."""

from __future__ import annotations

import os
from pathlib import Path

import click

from satcc.cli.common import (
    EXIT_FAILURE,
    EXIT_OK,
    SET_HELP,
    BadInput,
    input_errors,
    load_scenario,
    note,
    plural,
    print_error,
    progress_wanted,
)
from satcc.cli.group import cli
from satcc.cli.run import check_out, print_run_summary


@cli.command(
    short_help="Run a scenario in real time between real Linux hosts.",
    epilog="""\b
Each [emulate.NAME] host of the scenario becomes a network namespace whose
TUN device joins the modelled network; the hosts' commands run inside them.
Needs root and /dev/net/tun (docs/emulate.md).

\b
Examples:
  satcc emulate examples/emulate_geo.toml
  satcc emulate examples/emulate_geo.toml --right 'iperf3 -s -1' \\
      --left 'iperf3 -c 10.77.0.2 -t 20 -C cubic' --out out/geo_cubic --pcap
  satcc emulate --cleanup""",
)
@click.argument("file", type=click.Path(path_type=Path), required=False)
@click.option("--left", metavar="CMD", help="The command of the host named left.")
@click.option("--right", metavar="CMD", help="The command of the host named right.")
@click.option(
    "--command",
    "host_commands",
    multiple=True,
    metavar="HOST=CMD",
    help="The command of emulated host HOST (replaces the scenario's). Repeatable.",
)
@click.option("--seed", type=click.IntRange(min=0), help="Run seed (overrides run.seed).")
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    help="Write the result folder here: as `satcc run` does, plus hosts/NAME.log "
    "(each command's output) and, with --pcap, pcap/NAME.pcap.",
)
@click.option("--pcap", is_flag=True, help="Capture each host's packets (needs --out).")
@click.option(
    "--spin-us",
    type=click.FloatRange(min=0, max=10_000),
    default=20.0,
    show_default=True,
    help="Spin this long before each modelled instant instead of sleeping.",
)
@click.option("--set", "assignments", multiple=True, metavar="KEY=VALUE", help=SET_HELP)
@click.option(
    "--cleanup",
    is_flag=True,
    help="Remove the namespaces that killed runs left behind (and nothing else), then exit.",
)
@click.option("-q", "--quiet", is_flag=True, help="No progress bar, no tables; errors only.")
def emulate(
    file: Path | None,
    left: str | None,
    right: str | None,
    host_commands: tuple[str, ...],
    seed: int | None,
    out: Path | None,
    pcap: bool,
    spin_us: float,
    assignments: tuple[str, ...],
    cleanup: bool,
    quiet: bool,
) -> int:
    """Run the scenario in FILE in real time, its [emulate.NAME] hosts being
    real Linux network namespaces, and print its figures as `satcc run` does."""
    from satcc import emulate as emulation
    from satcc.emulate import report

    if cleanup:
        if file is not None:
            raise BadInput("--cleanup takes no scenario")
        try:
            removed = emulation.cleanup()
        except PermissionError as e:
            raise click.ClickException(f"cannot clean up: {e}") from e
        for namespace in removed:
            click.echo(f"removed network namespace {namespace}")
        note(f"removed {plural(len(removed), 'namespace')}", quiet)
        return EXIT_OK
    if file is None:
        raise BadInput("missing the scenario FILE (or --cleanup)")
    if pcap and out is None:
        raise BadInput("--pcap writes into the result folder: give --out too")
    commands = dict(_host_command(text) for text in host_commands)
    for host, command in (("left", left), ("right", right)):
        if command is not None:
            commands[host] = command
    scenario = load_scenario(file, assignments)
    if out is not None:
        check_out(scenario, seed, out)
    try:
        with input_errors():
            result = emulation.emulate(
                scenario,
                seed=seed,
                commands=commands,
                pcap=pcap,
                progress=progress_wanted(quiet),
                spin_us=spin_us,
            )
    except emulation.EmulationSetupError as e:
        raise click.ClickException(str(e)) from e
    if out is not None:
        from satcc.result_folder import write_result

        write_result(result, out)
    if not quiet:
        print_run_summary(result)
        for line in report.lines(result.summary, result.info):
            click.echo(line)
    if out is not None:
        note(f"wrote {out}{os.sep}", quiet)
    failed = report.failed_hosts(result.info)
    missing = result.summary.get("run.pdus_unaccounted", 0)
    if missing:
        print_error(f"{missing:,} PDUs are unaccounted for: a defect of satcc; please report it")
    for host in failed:
        print_error(
            f"the command of host {host} failed (exit status "
            f"{result.info['commands'][host]['exit_code']})"
        )
    return EXIT_FAILURE if failed or missing else EXIT_OK


def _host_command(text: str) -> tuple[str, str]:
    host, sep, command = text.partition("=")
    if not sep or not host.strip():
        raise BadInput(f"bad --command {text!r}: expected HOST=CMD")
    return host.strip(), command
