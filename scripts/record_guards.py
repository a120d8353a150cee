"""Record the guard values that tests/test_guards.py checks.

The guards pin two things a restructuring of the engine or the scenario
layer must not change:

- the normalised description (its SHA-256) of every example and of every
  run of every built-in study, in full and quick mode: run keys hash it, so
  a changed byte would make campaigns recompute finished runs;
- the summary and the probe series (their SHA-256) of every example, of the
  guard scenarios in tests/data/guard/ and of the quick runs of the studies
  (shortened where a study run is long), for a fixed seed.

Run it only when a change is meant to alter descriptions or results, and
say in the commit why they changed:

    .venv/bin/python scripts/record_guards.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "data" / "guards.json"
sys.path.insert(0, str(ROOT / "tests"))

from guard_cases import (  # noqa: E402
    description_cases,
    description_hash,
    result_hashes,
    run_cases,
)


def main() -> None:
    descriptions = {key: description_hash(sc, seed) for key, sc, seed in description_cases()}
    runs = {}
    for key, scenario, seed in run_cases():
        runs[key] = result_hashes(scenario, seed)
        print(f"{key}: {runs[key]['summary'][:12]}")
    OUT.write_text(
        json.dumps({"descriptions": descriptions, "runs": runs}, indent=1, sort_keys=True) + "\n"
    )
    print(f"wrote {OUT.relative_to(ROOT)}: {len(descriptions)} descriptions, {len(runs)} runs")


if __name__ == "__main__":
    main()
