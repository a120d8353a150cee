"""Study `netpipe-satellite`: the paper's testbed and measurements
(`model`), its figures (`figures`), NPtcp on real Linux hosts over the same
path (`emulated`, imported only when that mode runs), and the study they
make."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from satcc.studies.emulated_mode import emulation_in
from satcc.studies.netpipe_satellite import figures, model
from satcc.studies.spec import RunSpec, Study


def _artifacts(
    specs: list[RunSpec],
    summaries: dict[tuple[int, int], dict[str, Any]],
    out: Path,
    quick: bool,
) -> list[str]:
    return figures.write(specs, summaries, out)


STUDY = Study(
    name="netpipe-satellite",
    title="NetPIPE over an E1 ATM satellite path with delay and bit errors",
    paper=(
        "S. Yousef, C. Strange: 'Experimental Investigation of the Effects of Delay and "
        "Error Rate on Throughput and Performance of ATM Satellite Links Serving LAN "
        "Islands', Anglia Polytechnic University"
    ),
    description=model.__doc__ or "",
    runs=model.runs,
    metrics=model.metrics,
    references=model.references(),
    seeds=model.seeds,
    quick_note="fewer delays, socket sizes and error rates, and 2 seeds instead of 5",
    artifacts=_artifacts,
    emulation=emulation_in("satcc.studies.netpipe_satellite.emulated"),
)
