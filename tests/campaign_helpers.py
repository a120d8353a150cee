"""What the tests that kill sweeps share: how many runs a campaign folder
holds while a sweep writes (and compacts) it, and waiting for a count."""

import subprocess
import time
from pathlib import Path

import pyarrow.parquet as pq


def stored_runs(campaign: Path) -> int:
    """Rows in the campaign's run parts now; a part compacted away while it
    is read counts as nothing (its rows are in the merged part)."""
    n = 0
    for part in sorted((campaign / "runs").glob("part-*.parquet")):
        try:
            n += pq.read_metadata(part).num_rows
        except OSError:
            pass
    return n


def wait_stored(
    proc: subprocess.Popen, campaign: Path, runs: int, bound_s: float = 180, poll_s: float = 0.02
) -> None:
    """Waits until `campaign` holds at least `runs` runs; fails if `proc`
    ends first or the bound passes."""
    deadline = time.monotonic() + bound_s
    while stored_runs(campaign) < runs:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "sweep too slow"
        time.sleep(poll_s)
