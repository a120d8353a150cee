"""Study `abr-effcap`: the paper's scenarios and metrics (`model`), its
figures (`figures`), the same paths with real Linux hosts (`emulated`,
imported only when that mode runs), and the study they make."""

from __future__ import annotations

from satcc.studies.abr_effcap import figures, model
from satcc.studies.emulated_mode import emulation_in
from satcc.studies.spec import Study

STUDY = Study(
    name="abr-effcap",
    title="TCP over end-to-end explicit-rate control: instcap against effcap",
    paper=(
        "TCP over end-to-end ABR: a study of TCP performance with end-to-end rate control "
        "and stochastic available capacity (instcap and effcap feedback)"
    ),
    description=model.__doc__ or "",
    runs=model.runs,
    metrics=model.metrics,
    references=model.references(),
    seeds=model.seeds,
    quick_note=(
        "three τ/Δ points, buffers 10 and 12, effcap at buffer 10 only, 2 MB transfers "
        "and 2 seeds; no Δ, M or two-session sweeps"
    ),
    artifacts=figures.write,
    emulation=emulation_in("satcc.studies.abr_effcap.emulated"),
)
