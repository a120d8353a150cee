"""The cases the guards cover (scripts/record_guards.py, tests/test_guards.py).

Descriptions: every example, and every run of every built-in study in full
and quick mode with each of its seeds. Runs: every example, the guard
scenarios in tests/data/guard/, and one seed of every quick study run, the
long ones cut short so that the whole set runs in seconds.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import satcc
from satcc.scenario import Scenario, normalised_json
from satcc.studies import STUDIES
from satcc.units import parse_time

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "examples").glob("*.toml"))
GUARD_SCENARIOS = sorted((ROOT / "tests" / "data" / "guard").glob("*.toml"))
# Study runs longer than this (simulated) are cut to it for the run guards.
STUDY_RUN_CAP = "2 s"


def _study_specs(quick: bool) -> Iterator[tuple[str, object, list[int]]]:
    for name, study in sorted(STUDIES.items()):
        for spec in study.runs(quick):
            seeds = list(spec.seeds) if spec.seeds is not None else study.seeds(quick)
            yield f"{name}/{'quick' if quick else 'full'}/{spec.label}", spec, seeds


def description_cases() -> Iterator[tuple[str, Scenario, int | None]]:
    for path in EXAMPLES:
        yield f"examples/{path.name}", satcc.load(path), None
    for quick in (True, False):
        for key, spec, seeds in _study_specs(quick):
            for seed in seeds:
                yield f"{key}/seed {seed}", Scenario.from_dict(spec.scenario), seed


def run_cases() -> Iterator[tuple[str, Scenario, int | None]]:
    for path in EXAMPLES:
        yield f"examples/{path.name}", satcc.load(path), None
    for path in GUARD_SCENARIOS:
        yield f"guard/{path.name}", satcc.load(path), None
    features = ROOT / "tests" / "data" / "guard" / "features.toml"
    stopped = satcc.load(features).set("run.stop_when", {"tcp": "tahoe", "completed": True})
    yield "guard/features.toml/stop_when", stopped, None
    specs = list(_study_specs(quick=True))
    # A study may run one scenario per seed under one label (its own losses
    # drawn per seed): those runs are told apart by their seed.
    repeated = Counter(key for key, _, _ in specs)
    for key, spec, seeds in specs:
        scenario = Scenario.from_dict(spec.scenario)
        desc = scenario.validate()
        if desc["duration_ps"] > parse_time(STUDY_RUN_CAP):
            scenario.set("run.duration", STUDY_RUN_CAP)
        name = f"{key}/seed {seeds[0]}" if repeated[key] > 1 else key
        yield name, scenario, seeds[0]


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def description_hash(scenario: Scenario, seed: int | None) -> str:
    return sha(normalised_json(scenario.validate(seed=seed)))


def result_hashes(scenario: Scenario, seed: int | None) -> dict[str, str]:
    """SHA-256 of the run's summary and of its probe series, canonical JSON."""
    result = satcc.run(scenario, seed=seed)
    summary = json.dumps(result.summary, sort_keys=True, separators=(",", ":"))
    series = {
        name: [result.series(name)["time_s"].tolist(), result.series(name)["value"].tolist()]
        for name in sorted(result.series_names)
    }
    return {"summary": sha(summary), "series": sha(json.dumps(series))}
