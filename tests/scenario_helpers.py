"""What the scenario-format tests share: a base scenario with dotted-path
changes applied, and the refusal its validation raises."""

from __future__ import annotations

import copy

import pytest
from satcc.scenario import Scenario, ScenarioError


def changed(base: dict, without: tuple[str, ...] = (), **changes) -> Scenario:
    """`base` (left untouched) without the dotted keys in `without` and with
    `changes` applied, e.g. changed(BASE, **{"links.sat.rate": "1 Mbps"})."""
    data = copy.deepcopy(base)
    for path in without:
        *parents, last = path.split(".")
        table = data
        for key in parents:
            table = table[key]
        del table[last]
    sc = Scenario.from_dict(data)
    for path, value in changes.items():
        sc.set(path, value)
    return sc


def refused(sc: Scenario) -> ScenarioError:
    """The error validating `sc` raises; fails the test when there is none."""
    with pytest.raises(ScenarioError) as caught:
        sc.validate()
    return caught.value
