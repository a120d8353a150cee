"""What the CLI's test files share: a small valid scenario and a call of
the `satcc` command in-process that returns (status, stdout, stderr)."""

from satcc.cli import run_cli

GOOD = """
[run]
name = "tiny"
duration = "2 s"

[nodes.a]
[nodes.b]

[links.ab]
from = "a"
to = "b"
rate = "1 Mbps"
delay = "10 ms"

[sources.s1]
type = "cbr"
from = "a"
to = "rx"
rate = "500 kbps"

[sinks.rx]
node = "b"
"""


def call(capsys, *args):
    status = run_cli(list(args))
    out, err = capsys.readouterr()
    return status, out, err
