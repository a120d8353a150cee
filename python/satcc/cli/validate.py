"""satcc validate: check scenario files without running them."""

from __future__ import annotations

from pathlib import Path

import click

from satcc.cli.common import (
    EXIT_BAD_INPUT,
    EXIT_OK,
    SET_HELP,
    BadInput,
    input_errors,
    load_scenario,
    plural,
    print_error,
)
from satcc.cli.group import cli


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
            with input_errors():
                description = scenario.validate()
        except BadInput as e:
            print_error(e.format_message())
            status = EXIT_BAD_INPUT
            continue
        counts = ", ".join(
            plural(len(description.get(key, [])), noun)
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
