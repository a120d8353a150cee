# The `satcc` command: run and validate scenarios, benchmark, reproduce studies.
#
# Manners follow cargo and ripgrep, because scripts and CI jobs call this:
# results on stdout, everything else (progress, notes, errors) on stderr;
# errors read `error: <message>`; exit status 0 = success, 1 = the work failed
# (an internal error, or `reproduce` checks out of tolerance), 2 = bad input
# (a scenario error, a missing file, an unknown study, a bad --set),
# 130 = interrupted, 141 = stdout closed by its reader (`satcc ... | head`),
# as the shell reports for any Unix tool stopped by SIGPIPE. Output folders and
# tables are written atomically, so an interrupted command leaves the previous
# output as it was.

from __future__ import annotations

import os
import signal
import sys
import tomllib
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from satcc import fmt
from satcc.pipes import GuardedStream, ReaderGone

if TYPE_CHECKING:
    from satcc.summary_tables import Group

EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_BAD_INPUT = 2
EXIT_INTERRUPTED = 130
EXIT_READER_GONE = 128 + signal.SIGPIPE

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


class BadInput(click.ClickException):
    """The user's input is wrong (exit status 2), as opposed to satcc failing."""

    exit_code = EXIT_BAD_INPUT


@contextmanager
def _input_errors() -> Iterator[None]:
    """Turn scenario errors into BadInput; any other exception stays internal."""
    from satcc.scenario import ScenarioError

    try:
        yield
    except ScenarioError as e:
        raise BadInput(str(e)) from e


def _progress_wanted(quiet: bool) -> bool:
    # A progress bar on a pipe or in a CI log is noise.
    return not quiet and sys.stderr.isatty()


def _note(message: str, quiet: bool) -> None:
    if not quiet:
        click.echo(message, err=True)


# ---------------------------------------------------------------------------
# Scenario loading and --set


def parse_assignment(text: str) -> tuple[str, Any]:
    """KEY=VALUE -> (key, value); VALUE is a TOML value when it parses as one
    (3, 0.5, true, "x", [..], {..}), otherwise the plain string ("4 Mbps")."""
    key, sep, raw = text.partition("=")
    key = key.strip()
    if not sep or not key:
        raise BadInput(
            f"bad --set {text!r}: expected KEY=VALUE, e.g. --set 'links.sat.rate=4 Mbps'"
        )
    try:
        value = tomllib.loads(f"value = {raw}")["value"]
    except tomllib.TOMLDecodeError:
        value = raw.strip()
    except RecursionError:
        raise BadInput(
            f"bad --set {key}: the value is nested too deeply (arrays or inline tables)"
        ) from None
    return key, value


def load_scenario(file: Path, assignments: tuple[str, ...]) -> Any:
    """Load a scenario file and apply --set assignments (not yet validated)."""
    from satcc import scenario as scenario_module

    if not file.exists():
        raise BadInput(f"{file}: no such file")
    if not file.is_file():
        raise BadInput(f"{file}: not a file")
    with _input_errors():
        scenario = scenario_module.load(file)
        for text in assignments:
            key, value = parse_assignment(text)
            scenario.set(key, value)
    return scenario


SET_HELP = (
    "Override one scenario value before validation, e.g. --set 'links.sat.rate=4 Mbps'. "
    "VALUE is read as TOML when it is valid TOML (3, 0.5, true, [..], {..}), else as text. "
    "Repeatable."
)

# ---------------------------------------------------------------------------
# The command group


def _print_version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if not value or ctx.resilient_parsing:
        return
    import satcc

    click.echo(f"satcc {satcc.__version__}")
    ctx.exit(EXIT_OK)


class _EpipeIsAFailure(Exception):
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
            raise _EpipeIsAFailure(e) from e


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


# ---------------------------------------------------------------------------
# satcc run


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
        _check_out(scenario, seed, out)
    with _input_errors():
        result = runner.run(scenario, seed=seed, progress=_progress_wanted(quiet))
    # The folder first: a reader that stops reading the tables (`| head`)
    # must not cost the results.
    if out is not None:
        from satcc.result_folder import write_result

        write_result(result, out)
    if not quiet:
        print_run_summary(result)
    if out is not None:
        _note(f"wrote {out}{os.sep}", quiet)
    missing = result.summary.get("run.pdus_unaccounted", 0)
    if missing:
        _error(
            f"{missing:,} PDUs are unaccounted for: this run lost data without counting it, "
            "a defect of satcc; please report it with the scenario"
        )
        return EXIT_FAILURE
    return EXIT_OK


def _check_out(scenario: Any, seed: int | None, out: Path) -> None:
    """Refuse an --out that could not be written before spending the run on it."""
    from satcc.result_folder import OutputFolderError, check_output_folder

    with _input_errors():
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


# ---------------------------------------------------------------------------
# satcc emulate


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
        _note(f"removed {_plural(len(removed), 'namespace')}", quiet)
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
        _check_out(scenario, seed, out)
    try:
        with _input_errors():
            result = emulation.emulate(
                scenario,
                seed=seed,
                commands=commands,
                pcap=pcap,
                progress=_progress_wanted(quiet),
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
        _note(f"wrote {out}{os.sep}", quiet)
    failed = report.failed_hosts(result.info)
    missing = result.summary.get("run.pdus_unaccounted", 0)
    if missing:
        _error(f"{missing:,} PDUs are unaccounted for: a defect of satcc; please report it")
    for host in failed:
        _error(
            f"the command of host {host} failed (exit status "
            f"{result.info['commands'][host]['exit_code']})"
        )
    return EXIT_FAILURE if failed or missing else EXIT_OK


def _host_command(text: str) -> tuple[str, str]:
    host, sep, command = text.partition("=")
    if not sep or not host.strip():
        raise BadInput(f"bad --command {text!r}: expected HOST=CMD")
    return host.strip(), command


# ---------------------------------------------------------------------------
# satcc validate


@cli.command(
    epilog="""\b
Examples:
  satcc validate examples/geo_cbr.toml
  satcc validate examples/*.toml
  satcc validate examples/geo_cbr.toml --set 'links.sat.rate=4 Mbps'"""
)
@click.argument("files", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--set", "assignments", multiple=True, metavar="KEY=VALUE", help=SET_HELP)
def validate(files: tuple[Path, ...], assignments: tuple[str, ...]) -> int:
    """Check scenario FILES without running them.

    Prints "FILE: ok (N nodes, M links, K sources)" for each good file and an
    error naming the key path for each bad one; exit status 2 if any is bad.
    """
    status = EXIT_OK
    for file in files:
        try:
            scenario = load_scenario(file, assignments)
            with _input_errors():
                description = scenario.validate()
        except BadInput as e:
            _error(e.format_message())
            status = EXIT_BAD_INPUT
            continue
        counts = ", ".join(
            _plural(len(description.get(key, [])), noun)
            for key, noun in (
                ("nodes", "node"),
                ("links", "link"),
                ("sources", "source"),
                ("tcp", "TCP connection"),
            )
            if key != "tcp" or description.get(key)
        )
        click.echo(f"{file}: ok ({counts})")
    return status


def _plural(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


# ---------------------------------------------------------------------------
# satcc bench


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


# ---------------------------------------------------------------------------
# satcc reproduce


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
            progress=_progress_wanted(quiet),
            show=not quiet,
            allow_fail=allow_fail,
        )
        _note(f"wrote {root / 'report.html'}", quiet)
        return status
    try:
        chosen = studies.get(study)
    except studies.UnknownStudyError as e:
        raise BadInput(str(e)) from e
    out_dir = out if out is not None else Path("results") / chosen.name
    executor = executor or ("dask" if scheduler else "local")
    if executor == "local" and scheduler:
        raise BadInput("--scheduler needs --executor dask")
    # No _input_errors() here: the scenarios are the study's, not the user's,
    # so a scenario error in a study is a bug in satcc (exit 1), not bad input.
    from satcc.emulate import EmulationSetupError
    from satcc.studies.emulated_mode import NoEmulation

    try:
        table = studies.reproduce(
            chosen,
            quick=quick,
            jobs=jobs,
            out=out_dir,
            progress=_progress_wanted(quiet),
            show=not quiet,
            emulate=emulate,
            executor=executor,
            scheduler=scheduler,
        )
    except (NoEmulation, EmulationSetupError) as e:
        raise BadInput(str(e)) from e
    if quiet:
        from satcc.studies.framework import verdict_line

        click.echo(verdict_line(table))
    _note(f"wrote {out_dir / (chosen.name + '.csv')} and {chosen.name}.json", quiet)
    judged = table[table["tolerance_kind"] != "none"]
    if allow_fail or bool(judged["passed"].astype(bool).all()):
        return EXIT_OK
    return EXIT_FAILURE


# ---------------------------------------------------------------------------
# satcc report


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

    missing = [s for s in sources if not s.exists()]
    if missing:
        raise BadInput(f"{missing[0]}: no such file or folder")
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


# ---------------------------------------------------------------------------
# satcc sweep


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


# 128 + SIGTERM, as a shell reports a process SIGTERM ended (Ctrl-C: 130).
EXIT_TERMINATED = 143

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
  satcc sweep examples/geo_cbr.toml --set 'links.sat_up.rate=2 Mbps,4 Mbps' \
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

    from satcc.sweeps import SweepInterrupted
    from satcc.sweeps import sweep as run_sweep

    max_wall_s = parse_wall(max_wall)
    scenario = load_scenario(file, ())
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
                progress=_progress_wanted(quiet),
                allow_other_scenario=allow_other_scenario,
                wait=not no_wait,
            )
    except SweepInterrupted as e:
        click.echo(e.counts.line())
        if e.signum == signal.SIGTERM:
            _error("terminated")
            return EXIT_TERMINATED
        raise
    counts = store.last_sweep
    for key, error in counts.errors[:5]:
        _note(f"run {key} failed: {error}", quiet)
    if len(counts.errors) > 5:
        _note(f"... and {len(counts.errors) - 5} more failed runs", quiet)
    click.echo(counts.line())
    return EXIT_FAILURE if counts.failed else EXIT_OK


# ---------------------------------------------------------------------------
# satcc results


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
and the struct param, wall_s, events, error, satcc_version, finished),
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


# ---------------------------------------------------------------------------
# Entry point


def _error(message: str) -> None:
    click.echo(f"{click.style('error', fg='red', bold=True)}: {message}", err=True)


def _usage_error(e: click.UsageError) -> None:
    _error(e.format_message())
    if e.ctx is not None:
        click.echo(f"\n{e.ctx.get_usage()}\n", err=True)
        click.echo(f"For more information, try '{e.ctx.command_path} --help'.", err=True)


# Set when a reader closed stdout or stderr during run_cli; main() then makes
# the interpreter's last flush of that stream harmless.
_closed_by_reader = False


def run_cli(argv: list[str] | None = None) -> int:
    """Run the command line and return the exit status (no sys.exit: testable)."""
    global _closed_by_reader
    stdout, stderr = sys.stdout, sys.stderr
    guarded_out, guarded_err = GuardedStream(stdout, stop=True), GuardedStream(stderr, stop=False)
    sys.stdout, sys.stderr = guarded_out, guarded_err
    try:
        status = _run_cli(argv)
        # Whatever is still buffered, so that a reader gone shows here and
        # not in the interpreter's last flush.
        guarded_out.flush()
        guarded_err.flush()
    except ReaderGone:
        status = EXIT_READER_GONE
    finally:
        _closed_by_reader = _closed_by_reader or guarded_out.gone or guarded_err.gone
        sys.stdout, sys.stderr = stdout, stderr
    return status


def _run_cli(argv: list[str] | None) -> int:
    try:
        status = cli.main(args=argv, prog_name="satcc", standalone_mode=False)
    except (click.Abort, KeyboardInterrupt):
        _error("interrupted")
        return EXIT_INTERRUPTED
    except click.exceptions.NoArgsIsHelpError as e:
        e.show()
        return EXIT_BAD_INPUT
    except click.UsageError as e:
        _usage_error(e)
        return EXIT_BAD_INPUT
    except click.ClickException as e:
        _error(e.format_message())
        return e.exit_code
    except Exception as e:
        if isinstance(e, _EpipeIsAFailure):
            e = e.original
        _error(f"internal error: {type(e).__name__}: {e}")
        if os.environ.get("SATCC_DEBUG"):
            traceback.print_exc()
        else:
            click.echo("(set SATCC_DEBUG=1 for the traceback)", err=True)
        return EXIT_FAILURE
    return status if isinstance(status, int) else EXIT_OK


def main() -> None:
    status = run_cli()
    if _closed_by_reader:
        # The text that could not be written is still buffered; at exit
        # Python would flush it again, print "Exception ignored ...
        # BrokenPipeError" and exit 120. Let it go to /dev/null instead.
        devnull = os.open(os.devnull, os.O_WRONLY)
        for stream in (sys.stdout, sys.stderr):
            os.dup2(devnull, stream.fileno())
    sys.exit(status)
