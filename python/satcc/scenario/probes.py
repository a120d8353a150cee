"""[probes.NAME]: time series of one metric of one link, sink, source or connection.

The probe targets and their metrics are the core's (satcc._core.probe_metrics),
which computes them, so the table's target keys are generated from that list.
A probe names exactly one target; the section that answers to the target
(links for "link", ...; Section.probe_target) must have an entry of that name.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from pydantic import create_model

from satcc import _core

from .description import NOT_DESCRIBED, describe_table
from .errors import quote
from .tables import Section, _Table
from .values import Str, optional

if TYPE_CHECKING:
    from .validation import Checks, Resolved

PROBE_METRICS = {target: tuple(metrics) for target, metrics in _core.probe_metrics()}


def _probe_model() -> type[_Table]:
    # The target key is written as "target" and "of", not under its own name.
    target_keys = {
        target: (Annotated[optional(Str), NOT_DESCRIBED], None) for target in PROBE_METRICS
    }
    return create_model(
        "Probe",
        __base__=_Table,
        __doc__="One probe, [probes.NAME]: a target key naming what it samples, and a metric.",
        **target_keys,
        metric=(Str, ...),
    )


Probe = _probe_model()


def _one_of(words: list[str]) -> str:
    return ", ".join(words[:-1]) + f" or {words[-1]}" if len(words) > 1 else words[0]


def _targets(probe: _Table) -> list[str]:
    return [target for target in PROBE_METRICS if getattr(probe, target) is not None]


def check_probe(checks: Checks, path: tuple, name: str, probe: _Table) -> None:
    targets = _targets(probe)
    if not targets:
        checks.refuse(path, f"needs exactly one target key: {_one_of(list(PROBE_METRICS))}")
        return
    if len(targets) > 1:
        checks.refuse(
            (*path, targets[1]),
            f"a probe has exactly one target, got {' and '.join(targets)}",
        )
        return
    target = targets[0]
    section = checks.answering(target)
    if checks.require((*path, target), section.key, getattr(probe, target)):
        metrics = PROBE_METRICS[target]
        if probe.metric not in metrics:
            checks.refuse(
                (*path, "metric"),
                f"metric {quote(probe.metric)} is not available for a {target} probe "
                f"(allowed: {', '.join(sorted(metrics))})",
            )


def describe_probe(name: str, probe: _Table, resolved: Resolved) -> dict:
    target = _targets(probe)[0]
    return {"name": name, "target": target, "of": getattr(probe, target), **describe_table(probe)}


SECTION = Section(
    key="probes",
    table=Probe,
    noun="probe",
    description_key="probes",
    check=check_probe,
    describe=describe_probe,
)
