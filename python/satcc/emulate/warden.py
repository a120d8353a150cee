"""An emulation's warden: removes what the emulator leaves when it is killed.

`satcc emulate` starts one with its namespaces (namespaces.start_warden).
It waits for the emulator to end. A run that ends in any ordinary way has
removed its namespaces and record itself, and kills its warden first; a run
killed outright (SIGKILL, the out-of-memory killer) cannot, and the warden
then kills the host commands left in its namespaces and removes them and
the record, as `satcc emulate --cleanup` would (namespaces.cleanup_run).

    python -m satcc.emulate.warden PID
"""

from __future__ import annotations

import os
import select
import sys

from satcc.emulate.namespaces import cleanup_run


def wait_for_exit(pid: int) -> None:
    """Block until process `pid` has ended (a pidfd: no polling, no race
    with a recycled pid)."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return
    try:
        select.select([fd], [], [])
    finally:
        os.close(fd)


def main(argv: list[str]) -> int:
    pid = int(argv[1])
    wait_for_exit(pid)
    cleanup_run(pid)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
