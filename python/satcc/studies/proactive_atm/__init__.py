"""Study `proactive-atm`: the thesis's network, sources and cases
(`model`), the figures and tables drawn from its runs (`figures`), and the
study they make."""

from __future__ import annotations

from satcc.studies.proactive_atm import figures, model
from satcc.studies.spec import Study


def _labels(sweep: dict[int, tuple[int, ...]]) -> set[str]:
    return {model.label(n, c, s) for n in sweep for c in model.CASES for s in sweep[n]}


STUDY = Study(
    name="proactive-atm",
    title="Proactive rate-based congestion control with policing over a satellite ATM link",
    paper="Proactive rate-based congestion control and policing in satellite ATM networks (thesis)",
    description=model.__doc__ or "",
    runs=model.runs,
    metrics=model.metrics,
    references=model.references(),
    seeds=model.seeds,
    quick_note=(
        "one seed, three source counts per scenario, no sensitivity or activity runs; "
        "one seed sees few sessions and may miss a tolerance"
    ),
    artifacts=figures.write,
    full_only=frozenset(_labels(model.SWEEP) - _labels(model.QUICK_SWEEP)),
)
