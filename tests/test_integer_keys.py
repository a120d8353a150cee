"""Every integer key's bound is the core's type for it (issue 37, C2).

The scenario layer states each integer key's largest value once, in its
type (values.py: PositiveU32 for a u32 field of the core). Here each such
key is checked against the core itself: a description holding the bound
parses, one holding bound + 1 does not; a scenario holding bound + 1 is
refused naming the key, exit 2. A new integer key with a bound of its own
fails test_every_bounded_key_is_cross_checked until it is listed below.
"""

from __future__ import annotations

import copy
import json
import typing
from pathlib import Path

import pytest
import satcc
from pydantic import BeforeValidator
from satcc import _core, studies
from satcc.scenario import ScenarioError
from satcc.scenario.sections import SECTIONS
from satcc.scenario.tables import _Table

ROOT = Path(__file__).resolve().parents[1]


def bounded_fields() -> set[tuple[str, str, int]]:
    """(model, field, maximum) of every integer field with a bound below i64's."""
    found: set[tuple[str, str, int]] = set()
    seen: set[type] = set()

    def visit(model: type) -> None:
        if model in seen:
            return
        seen.add(model)
        for name, field in model.model_fields.items():
            for meta in field.metadata:
                maximum = getattr(getattr(meta, "func", None), "maximum", None)
                if isinstance(meta, BeforeValidator) and maximum is not None:
                    if maximum < 2**63 - 1:
                        found.add((model.__name__, name, maximum))
            for inner in _models_in(field.annotation):
                visit(inner)

    for section in SECTIONS:
        visit(section.table)
    return found


def _models_in(annotation: object) -> list[type]:
    if isinstance(annotation, type) and issubclass(annotation, _Table):
        return [annotation]
    return [m for arg in typing.get_args(annotation) for m in _models_in(arg)]


def _tfrc_dama() -> dict:
    sc = copy.deepcopy(studies.get("tfrc-dama").runs(True)[0].scenario)
    channel = next(iter(sc["dvb_rcs"].values()))
    next(iter(channel["terminals"].values()))["quick_start"] = {}
    return sc


def _arrivals() -> dict:
    runs = studies.get("tfrc-dama").runs(True)
    return copy.deepcopy(next(r.scenario for r in runs if "tfrc_arrivals" in r.scenario))


def _cells() -> dict:
    sc = copy.deepcopy(studies.get("proactive-atm").runs(True)[0].scenario)
    group = next(iter(sc["cell_sources"].values()))
    link = next(name for name, link in sc["links"].items() if link["from"] == group["from"])
    group["contract"] = {"at": link, "peak_rate": "1 Mbps", "drain_rate": "1 Mbps"}
    return sc


def _abr() -> dict:
    return copy.deepcopy(satcc.load(ROOT / "examples" / "abr_vbr.toml").data)


# (model, field) -> (base scenario, its key in the scenario, the description
# path it becomes; "*" is the first entry of a named section).
CASES = {
    ("Frame", "slots_per_frame"): (
        _tfrc_dama,
        "dvb_rcs.*.frame.slots_per_frame",
        "dvb_rcs.*.frame.slots_per_frame",
    ),
    ("Frame", "frames_per_multiframe"): (
        _tfrc_dama,
        "dvb_rcs.*.frame.frames_per_multiframe",
        "dvb_rcs.*.frame.frames_per_multiframe",
    ),
    ("Frame", "multiframes_per_superframe"): (
        _tfrc_dama,
        "dvb_rcs.*.frame.multiframes_per_superframe",
        "dvb_rcs.*.frame.multiframes_per_superframe",
    ),
    ("Dama", "min_slots"): (_tfrc_dama, "dvb_rcs.*.dama.min_slots", "dvb_rcs.*.dama.min_slots"),
    ("QuickStart", "memory_intervals"): (
        _tfrc_dama,
        "dvb_rcs.*.terminals.*.quick_start.memory_intervals",
        "dvb_rcs.*.terminals.*.quick_start.memory_intervals",
    ),
    ("Media", "buffer"): (_tfrc_dama, "tfrc.*.media.buffer", "tfrc.*.media.buffer_packets"),
    ("ArrivalMedia", "buffer"): (
        _arrivals,
        "tfrc_arrivals.*.media.buffer",
        "tfrc_arrivals.*.media.buffer_packets",
    ),
    ("CellSources", "count"): (_cells, "cell_sources.*.count", "cell_sources.*.count"),
    ("Contract", "prc_queue"): (
        _cells,
        "cell_sources.*.contract.prc_queue",
        "cell_sources.*.contract.peak_rate.queue_cells",
    ),
    ("Contract", "bucket_queue"): (
        _cells,
        "cell_sources.*.contract.bucket_queue",
        "cell_sources.*.contract.leaky_bucket.queue_cells",
    ),
    ("Abr", "nrm"): (_abr, "tcp.*.abr.nrm", "tcp.*.abr.nrm"),
    ("Abr", "mrm"): (_abr, "tcp.*.abr.mrm", "tcp.*.abr.mrm"),
}


def test_every_bounded_key_is_cross_checked():
    fields = {(model, field) for model, field, _ in bounded_fields()}
    assert fields == set(CASES)


def _set(tree: dict, path: str, value: object) -> str:
    """Set `path` in `tree` (a "*" or a number picks an entry) and return the
    path with the names it picked."""
    *parents, last = path.split(".")
    shown = []
    for part in parents:
        if part == "*":
            part = next(iter(tree))
        shown.append(str(part))
        tree = tree[int(part)] if isinstance(tree, list) else tree.setdefault(part, {})
    if isinstance(tree, list):
        tree[int(last)] = value
    else:
        tree[last] = value
    return ".".join([*shown, last])


def _description_entry(description: dict, path: str, names: list[str]) -> tuple[dict, str]:
    """The entry of the description holding `path`'s last key; each "*"
    is the entry named by the next of `names` (the scenario's pick)."""
    *parents, last = path.split(".")
    names = list(names)
    node: object = description
    for part in parents:
        if part == "*":
            name = names.pop(0)
            node = (
                node[name]
                if isinstance(node, dict)
                else next(e for e in node if e.get("name") == name)
            )
        else:
            node = node[part]
    return node, last


def _picked(scenario: dict, key: str) -> list[str]:
    """The entry names `_set` picks for each "*" of `key`."""
    shown = _set(copy.deepcopy(scenario), key, 1).split(".")
    return [shown[i] for i, part in enumerate(key.split(".")) if part == "*"]


@pytest.mark.parametrize("case", sorted(CASES), ids=lambda c: f"{c[0]}.{c[1]}")
def test_the_bound_is_the_cores_type(case):
    base, key, core_path = CASES[case]
    maximum = {(m, f): top for m, f, top in bounded_fields()}[case]
    scenario = base()
    description = satcc.Scenario.from_dict(scenario).validate()
    entry, field = _description_entry(description, core_path, _picked(scenario, key))
    assert field in entry, (core_path, sorted(entry))
    entry[field] = maximum
    _core.parse_description(json.dumps(description))
    entry[field] = maximum + 1
    with pytest.raises(ValueError, match="invalid"):
        _core.parse_description(json.dumps(description))


@pytest.mark.parametrize("case", sorted(CASES), ids=lambda c: f"{c[0]}.{c[1]}")
def test_one_beyond_the_bound_is_refused_naming_the_key(case):
    base, key, _ = CASES[case]
    maximum = {(m, f): top for m, f, top in bounded_fields()}[case]
    scenario = base()
    shown = _set(scenario, key, maximum + 1)
    with pytest.raises(ScenarioError) as e:
        satcc.Scenario.from_dict(scenario).validate()
    assert f"{shown}: " in str(e.value) and f"at most {maximum:,}" in str(e.value)
