"""Guards: descriptions and results that must not change by accident.

tests/data/guards.json holds the SHA-256 of the normalised description of
every example and every study run (run keys hash it: a changed byte makes
campaigns recompute finished runs), and of the summary and probe series of
a set of runs for a fixed seed. A change that is meant to alter them
re-records the file with scripts/record_guards.py and says why.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from guard_cases import description_cases, description_hash, result_hashes, run_cases

GUARDS = json.loads((Path(__file__).parent / "data" / "guards.json").read_text())
RERECORD = "if the change is meant, re-record with scripts/record_guards.py and say why"


def test_every_normalised_description_is_unchanged():
    seen = {key: description_hash(scenario, seed) for key, scenario, seed in description_cases()}
    assert sorted(seen) == sorted(GUARDS["descriptions"]), "the set of cases changed"
    changed = [key for key in seen if seen[key] != GUARDS["descriptions"][key]]
    assert not changed, f"{len(changed)} descriptions changed, e.g. {changed[:3]}; {RERECORD}"


RUNS = list(run_cases())


def test_the_run_cases_are_the_recorded_ones():
    assert sorted(key for key, _, _ in RUNS) == sorted(GUARDS["runs"])


@pytest.mark.parametrize("key,scenario,seed", RUNS, ids=[key for key, _, _ in RUNS])
def test_results_are_unchanged(key, scenario, seed):
    got, want = result_hashes(scenario, seed), GUARDS["runs"][key]
    assert got["summary"] == want["summary"], f"summary of {key} changed; {RERECORD}"
    assert got["series"] == want["series"], f"series of {key} changed; {RERECORD}"
