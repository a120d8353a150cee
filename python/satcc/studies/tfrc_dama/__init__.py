"""Study `tfrc-dama`: the paper's scenarios and metrics (`model`), the
figures' data gathered from the runs (`data`), the paper's claims judged
(`claims`), the figures and tables (`figures`), and the study they make."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from satcc.studies.spec import RunSpec, Study
from satcc.studies.tfrc_dama import figures, model


def _artifacts(
    specs: list[RunSpec],
    summaries: dict[tuple[int, int], dict[str, Any]],
    out: Path,
    quick: bool,
    series: dict[tuple[int, int], dict[str, Any]],
    jobs: int = 1,
) -> list[str]:
    return figures.write(specs, summaries, series, out, quick, jobs)


STUDY = Study(
    name="tfrc-dama",
    title="TFRC with Quick-Start over DVB-RCS DAMA: the QSD method and its fluid model",
    paper=(
        "Secchi, Sathiaseelan, Potorti, Gotta, Fairhurst: Using Quick-Start to enhance "
        "TCP-friendly rate control performance in bidirectional satellite networks (IJSCN 2009)"
    ),
    description=model.__doc__ or "",
    runs=model.runs,
    metrics=model.metrics,
    references=model.references(),
    seeds=model.seeds,
    quick_note=(
        "6 start phases (large frame) and 4 (small) instead of every slot of the super-frame, "
        "3 flow rates for Fig. 6, and one aggregated run of 3000 s per strategy and profile "
        "instead of 4 x 25 000 s"
    ),
    artifacts=_artifacts,
    artifacts_take_jobs=True,
    series=model.series_names(),
)
