"""Study `tcp-crosscheck`: the cases, scenarios and metrics (`model`, whose
docstring describes the study), the closed-form averages shown beside the
rows (`response`), what is judged and shown (`claims`), the terminal table
(`table`), and the study they make."""

from __future__ import annotations

from satcc.studies.spec import Study
from satcc.studies.tcp_crosscheck import claims, model, table

STUDY = Study(
    name="tcp-crosscheck",
    title="satcc's TCP against ns-2.35 on the same scenarios, models beside",
    paper=(
        "ns-2.35 (the ns-2 network simulator, Agent/TCP/Reno, Newreno, Sack1 with TCPSink "
        "and DelAck, Agent/TCP/Linux with tcp_cubic and tcp_hybla); J. Padhye et al., "
        "SIGCOMM 1998; M. Mathis et al., CCR 27(3), 1997; RFC 9438; C. Caini and "
        "R. Firrincieli, IJSCN 22(5), 2004"
    ),
    description=model.__doc__ or "",
    runs=model.runs,
    metrics=model.metrics,
    references=claims.references(judge=model.ns2_present()),
    seeds=model.seeds,
    quick_note="3 seeds instead of 20, runs a fifth to a third as long, one CUBIC and one "
    "Hybla case; "
    "both simulators lose the same packets (lists drawn once per seed), so each ratio "
    "compares the two TCPs on the same losses, but over a few loss events per seed",
    layout=table.layout,
    full_only=frozenset(p.label for p in model.POINTS if not p.quick),
)
