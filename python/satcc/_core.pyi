"""The compiled simulation core (crates/py): a thin binding that converts,
releases the GIL and never models. Descriptions are the canonical JSON of
`satcc.scenario.normalised_json`; errors in them raise ValueError, a
panic in the core a PanicException (reported as an internal error)."""

from __future__ import annotations

class Simulation:
    """A built simulation, advanced in chunks so Python can show progress
    and stay interruptible."""

    def __init__(self, description_json: str) -> None: ...
    def advance(self, budget: int, slice_s: float = 0.1) -> bool:
        """Runs at most `budget` events, for at most `slice_s` wall seconds;
        True when the run is done."""
    def now_ps(self) -> int: ...
    def end_ps(self) -> int: ...
    def events(self) -> int: ...
    def finished(self) -> bool: ...
    def summary_json(self) -> str:
        """The flat summary as canonical JSON."""
    def series(self) -> list[tuple[str, bytes, bytes]]:
        """Probe series, then the components' end-of-run series: (name,
        times or x, values), each little-endian f64 bytes."""
    def traces(self) -> list[tuple[str, str, list[tuple[str, bytes]]]]:
        """Every trace as the run leaves it: (name, report JSON, columns).
        A capture's one column is "pcap" (the file); a TCP trace's are
        time_s, cwnd_bytes, ssthresh_bytes, srtt_s, rto_s (little-endian
        f64) and state (a byte per row, an index into tcp_trace_states())."""

class Emulation:
    """A running emulation: the loop runs on its own thread."""

    def __init__(self, description_json: str, config_json: str) -> None: ...
    def progress(self) -> tuple[float, int, int]:
        """(model time in s, packets read from hosts, packets written to
        hosts)."""
    def finished(self) -> bool: ...
    def stop(self) -> tuple[str, list[tuple[str, bytes, bytes]]]:
        """Stops the loop: (summary JSON, [(probe, times, values)])."""

def version() -> str: ...
def probe_metrics() -> list[tuple[str, list[str]]]:
    """The probe targets and their metrics, in the scenario format's order."""

def tcp_trace_states() -> list[str]:
    """The values of a TCP trace's state column, by index."""

def fgn(n: int, hurst: float, seed: int, name: str) -> bytes:
    """n samples of zero-mean, unit-variance fractional Gaussian noise
    (Paxson's FFT method) from the stream (seed, name), little-endian f64."""

def skyplex_frame(size: str) -> str:
    """A DVB-RCS frame preset of the tfrc-dama paper ("small" or "large")
    as its description entry (JSON)."""

def frame_timing(frame_json: str) -> str:
    """The timing a frame's geometry implies, as JSON."""

def parse_description(description_json: str) -> None:
    """Reads a description as a run would, without building anything."""

def check_description(description_json: str) -> None:
    """Every entry's own checks in the core, without building anything; a
    ValueError with `path` and `reason` for the first refusal."""

def panic_for_test(message: str) -> None:
    """Panics with `message` (tests of the internal-error report)."""
