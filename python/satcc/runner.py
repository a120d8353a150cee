"""Running one scenario: validation, the Rust engine, and the result.

The engine is advanced in slices of at most 0.1 s of wall time with the GIL
released (and built with it released), so a run can show a progress bar,
answers Ctrl-C and its wall budget within about 0.1 s however slow its
events are, and leaves a notebook responsive.
"""

from __future__ import annotations

import json
import time
from os import PathLike
from typing import TYPE_CHECKING, Any

from . import _core
from .scenario import Scenario, load, normalised_json

if TYPE_CHECKING:
    import pandas as pd

# A probe's series as the core hands it over: times and values, each the
# bytes of a little-endian f64 array.
RawSeries = tuple[bytes, bytes]

# At most this many events per call; the core also returns after 0.1 s of
# wall time, for a live bar and a prompt Ctrl-C.
CHUNK_EVENTS = 2_000_000
# Runs shorter than this never show a bar.
PROGRESS_AFTER_S = 1.0


class Result:
    """The outcome of one run: a flat summary and named time series."""

    def __init__(
        self,
        description: dict,
        seed: int,
        summary: dict[str, Any],
        series: dict[str, pd.DataFrame | RawSeries],
        info: dict[str, Any],
    ):
        self.description = description
        self.seed = seed
        self.summary = summary
        self._series = series
        self.info = info

    @property
    def series_names(self) -> list[str]:
        return list(self._series)

    def series(self, name: str) -> pd.DataFrame:
        """The probe `name` as a DataFrame with columns `time_s` and `value`."""
        try:
            frame = self._series[name]
        except KeyError:
            known = ", ".join(self._series) or "none"
            raise KeyError(f"no series named {name!r} (series: {known})") from None
        if isinstance(frame, tuple):
            frame = self._series[name] = series_frame(*frame)
        return frame.copy()

    @property
    def trace_names(self) -> list[str]:
        """The run's traces ([traces.NAME]), pcap and TCP alike."""
        return list(_traces_of(self))

    def pcap(self, name: str) -> bytes:
        """The pcap file of trace `name` ([traces.NAME] pcap = "LINK"), as bytes."""
        return _trace_of(self, name, "pcap")["pcap"]

    def write_pcap(self, name: str, path: str | PathLike) -> None:
        """Writes the pcap file of trace `name` to `path` (Wireshark opens it)."""
        from .result_folder import write_file_atomically

        write_file_atomically(path, self.pcap(name))

    def trace(self, name: str) -> pd.DataFrame:
        """The TCP trace `name` ([traces.NAME] tcp = "CONNECTION"): one row per change,
        columns time_s, cwnd_bytes, ssthresh_bytes, srtt_s, rto_s and state."""
        return trace_frame(_trace_of(self, name, "tcp"))

    def to_dir(self, path: str | PathLike, overwrite: bool = True):
        """Writes summary.json, series/*.parquet, scenario.json and run.json atomically."""
        from .result_folder import write_result

        return write_result(self, path, overwrite=overwrite)

    def flows(self, kind: str | None = None) -> pd.DataFrame:
        """One row per flow (TCP connection, TFRC flow, datagram source,
        request/response exchange, emulated host), one column per figure of
        its summary keys (`tcp.NAME.goodput_bps` -> column `goodput_bps`),
        units in `attrs["units"]`. Index (kind, name), or the name alone
        for one `kind` ("tcp", "tfrc", "flows", "udp_rr", "emulate")."""
        from .flow_table import flow_frame

        return flow_frame(self.summary, kind)

    def __repr__(self) -> str:
        from .result_view import result_text

        return result_text(self)

    def _repr_html_(self) -> str:
        """Jupyter's view: the run, the conservation check, the flow tables,
        the fairness indices and the series names."""
        from .result_view import result_html

        return result_html(self)


def as_scenario(scenario: Scenario | dict | str | PathLike) -> Scenario:
    """Accepts a Scenario, a dict in the scenario format, or a TOML path."""
    if isinstance(scenario, Scenario):
        return scenario
    if isinstance(scenario, dict):
        return Scenario.from_dict(scenario)
    return load(scenario)


def run(
    scenario: Scenario | dict | str | PathLike,
    seed: int | None = None,
    progress: bool = False,
    *,
    max_wall_s: float | None = None,
) -> Result:
    """Validates and runs a scenario; `seed` overrides the scenario's own.

    `max_wall_s` bounds the wall-clock time of the run (sweeps give every run
    a budget); a run stopped by it raises TimeoutError.
    """
    desc = as_scenario(scenario).validate(seed=seed)
    sim = _core.Simulation(normalised_json(desc))
    t0 = time.perf_counter()
    _drive(sim, desc["name"], progress, max_wall_s, t0)
    wall = time.perf_counter() - t0
    summary = json.loads(sim.summary_json())
    series = {name: (times, values) for name, times, values in sim.series()}
    info = {
        "satcc_version": _core.version(),
        "wall_s": wall,
        "events": sim.events,
        "events_per_s": sim.events / wall if wall > 0 else float("nan"),
        "sim_time_s": sim.now_ps * 1e-12,
    }
    traces = sim.traces()
    if traces:
        info["traces"] = {name: json.loads(report) for name, report, _ in traces}
        _warn_incomplete(info["traces"])
    result = Result(desc, desc["seed"], summary, series, info)
    result._traces = {name: dict(columns) for name, _, columns in traces}
    return result


class TraceWarning(UserWarning):
    """A trace left records out: it reached its bound, or its link carried ATM cells."""


def _warn_incomplete(reports: dict[str, dict]) -> None:
    import warnings

    for name, r in reports.items():
        if r["stopped_by"] is not None:
            warnings.warn(
                f"trace {name!r} stopped recording at {r['stopped_at_s']:.6f} s, "
                f"when its {r['stopped_by']} was reached: {r['records']:,} records kept, "
                f"{r['not_recorded']:,} left out",
                TraceWarning,
                stacklevel=3,
            )
        if r.get("cells_not_recorded"):
            warnings.warn(
                f"trace {name!r}: link {r['of']!r} carried {r['cells_not_recorded']:,} ATM "
                "cells, which a pcap of IP packets leaves out",
                TraceWarning,
                stacklevel=3,
            )


def _traces_of(result: Result) -> dict[str, dict[str, bytes]]:
    # A Result built elsewhere (an emulation) has no traces.
    return getattr(result, "_traces", {})


def _trace_of(result: Result, name: str, kind: str) -> dict[str, bytes]:
    traces = _traces_of(result)
    columns = traces.get(name)
    if columns is None or ("pcap" in columns) != (kind == "pcap"):
        known = [n for n, c in traces.items() if ("pcap" in c) == (kind == "pcap")]
        what = "pcap trace" if kind == "pcap" else "tcp trace"
        raise KeyError(f"no {what} named {name!r} ({what}s: {', '.join(known) or 'none'})")
    return columns


def trace_frame(columns: dict[str, bytes]) -> pd.DataFrame:
    """A TCP trace from the core's columns; `state` a categorical of the sender's phases."""
    import numpy as np
    import pandas as pd

    frame = pd.DataFrame(
        {
            key: np.frombuffer(columns[key], dtype="<f8").copy()
            for key in ("time_s", "cwnd_bytes", "ssthresh_bytes", "srtt_s", "rto_s")
        }
    )
    states = _core.tcp_trace_states()
    codes = np.frombuffer(columns["state"], dtype=np.uint8).astype(np.int8)
    frame["state"] = pd.Categorical.from_codes(codes, categories=states)
    return frame


def series_frame(times: bytes, values: bytes) -> pd.DataFrame:
    """A probe's series from the core's bytes. Built when first asked for:
    a run that only prints its summary never imports pandas (0.2 s)."""
    import numpy as np
    import pandas as pd

    return pd.DataFrame(
        {
            "time_s": np.frombuffer(times, dtype="<f8").copy(),
            "value": np.frombuffer(values, dtype="<f8").copy(),
        }
    )


def _drive(sim, name: str, progress: bool, max_wall_s: float | None, t0: float) -> None:
    bar = None
    try:
        while not sim.advance(CHUNK_EVENTS):
            elapsed = time.perf_counter() - t0
            if max_wall_s is not None and elapsed > max_wall_s:
                raise TimeoutError(
                    f"run {name!r} exceeded its wall-clock budget of {max_wall_s} s "
                    f"at simulated {sim.now_ps * 1e-12:.3f} s"
                )
            if progress and bar is None and elapsed > PROGRESS_AFTER_S:
                bar = _ProgressBar(name, sim.end_ps)
            if bar is not None:
                bar.update(sim.now_ps, sim.events, elapsed)
    finally:
        if bar is not None:
            bar.close()


class _ProgressBar:
    """Simulated time against end time, with the event rate."""

    def __init__(self, name: str, end_ps: int):
        from rich.console import Console
        from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

        self.progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            TextColumn("{task.fields[sim]}"),
            TextColumn("{task.fields[rate]}"),
            TimeElapsedColumn(),
            console=Console(stderr=True),
            transient=True,
        )
        self.end_s = end_ps * 1e-12
        self.task = self.progress.add_task(name, total=end_ps, sim="", rate="")
        self.progress.start()

    def update(self, now_ps: int, events: int, elapsed: float) -> None:
        self.progress.update(
            self.task,
            completed=now_ps,
            sim=f"{now_ps * 1e-12:.2f}/{self.end_s:.2f} s",
            rate=f"{events / elapsed / 1e6:.1f} M events/s",
        )

    def close(self) -> None:
        self.progress.stop()
