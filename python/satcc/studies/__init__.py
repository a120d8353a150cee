"""The registry of reproducible studies, by the name `satcc reproduce` takes.

Each study module defines one STUDY; registering it here is what makes it
reachable from the command line and from reports."""

from __future__ import annotations

from satcc.studies import (
    abr_effcap,
    abr_lrd_vbr,
    aqm,
    leo_hypatia,
    netpipe_satellite,
    proactive_atm,
    queueing_theory,
    tcp_crosscheck,
    tcp_sim_vs_linux,
    tfrc_crosscheck,
    tfrc_dama,
)
from satcc.studies.framework import reproduce
from satcc.studies.spec import Reference, RunSpec, Study

STUDIES: dict[str, Study] = {
    study.name: study
    for study in (
        queueing_theory.STUDY,
        abr_lrd_vbr.STUDY,
        netpipe_satellite.STUDY,
        tcp_crosscheck.STUDY,
        abr_effcap.STUDY,
        tcp_sim_vs_linux.STUDY,
        tfrc_dama.STUDY,
        tfrc_crosscheck.STUDY,
        proactive_atm.STUDY,
        aqm.STUDY,
        leo_hypatia.STUDY,
    )
}


class UnknownStudyError(KeyError):
    """No study of that name; the message lists the ones that exist."""

    def __init__(self, name: str) -> None:
        self.name = name
        known = ", ".join(sorted(STUDIES)) or "(none)"
        super().__init__(f"unknown study {name!r}; known studies: {known}")

    def __str__(self) -> str:
        # KeyError's str() is the repr of its argument, quotes and all.
        return self.args[0]


def get(name: str) -> Study:
    try:
        return STUDIES[name]
    except KeyError:
        raise UnknownStudyError(name) from None


__all__ = ["STUDIES", "Reference", "RunSpec", "Study", "UnknownStudyError", "get", "reproduce"]
