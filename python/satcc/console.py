"""The rich Console every table is printed with: fitted to a terminal, never cut elsewhere.

On a terminal, rich fits tables to the window, folding or shortening cells
("utilisati…"), and a reader who wants more widens the window. Off a
terminal (a CI log, `| tee`, `> file`) rich assumes 80 columns, and a value
cut there is lost for good; so there the width is one no table reaches, and
every table takes its natural width.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console

UNBOUNDED_WIDTH = 10_000


def table_console(stderr: bool = False) -> Console:
    """A Console for stdout (or stderr) as it is now."""
    from rich.console import Console

    stream = sys.stderr if stderr else sys.stdout
    # The stream itself, not Console.is_terminal: that follows FORCE_COLOR,
    # which CI services set to get colours in their logs, which are no
    # wider for it.
    try:
        on_terminal = stream.isatty()
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        on_terminal = False
    if on_terminal:
        return Console(stderr=stderr, highlight=False)
    return Console(stderr=stderr, highlight=False, width=UNBOUNDED_WIDTH)


def say(line: str) -> None:
    """A progress line on stderr, for steps that take long and run one by
    one (emulations in real time)."""
    from rich.console import Console

    Console(stderr=True).print(f"[dim]{line}[/dim]", highlight=False)
