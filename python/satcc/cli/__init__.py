"""The `satcc` command: run and validate scenarios, benchmark, reproduce studies.

Manners follow cargo and ripgrep, because scripts and CI jobs call this:
results on stdout, everything else (progress, notes, errors) on stderr;
errors read `error: <message>`; exit status 0 = success, 1 = the work failed
(an internal error, or `reproduce` checks out of tolerance), 2 = bad input
(a scenario error, a missing file, an unknown study, a bad --set),
130 = interrupted, 141 = stdout closed by its reader (`satcc ... | head`),
as the shell reports for any Unix tool stopped by SIGPIPE. Output folders and
tables are written atomically, so an interrupted command leaves the previous
output as it was.

One module per command (run, emulate, validate, bench, reproduce, sweep,
results); `common` holds what they share and `group` the command group
they join; `entry` runs the whole and maps outcomes to exit statuses."""

from satcc.cli.common import BadInput, load_scenario, parse_assignment
from satcc.cli.entry import main, run_cli
from satcc.cli.group import cli

__all__ = ["BadInput", "cli", "load_scenario", "main", "parse_assignment", "run_cli"]
