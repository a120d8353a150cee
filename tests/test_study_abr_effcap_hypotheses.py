"""The abr-effcap study's hypotheses (docs/abr-effcap.md, "What explains
the remaining difference"): each option reaches the scenario and leaves the
default's unchanged; eq. (25)'s effective capacity of the chain against its
closed forms; the smallest δ; the claims judged on hand-made numbers."""

from __future__ import annotations

import math

import pandas as pd
import pytest
from satcc.studies.abr_effcap import hypotheses as h
from satcc.studies.abr_effcap import model as study

HIGH, LOW = study.HIGH_BPS / 8, study.LOW_BPS / 8


def test_the_options_reach_the_scenario_and_are_absent_by_default():
    plain = study.scenario(study._point("h", "effcap", 10, 0.5), 1000)
    assert "buffer" not in plain["tcp"]["t1"]["rate_control"]
    assert "delta" not in plain["links"]["bottleneck"]["explicit_rate"]
    # The default TCP is the testbed's Linux: 3 s first RTO, 200 ms floor.
    t = plain["tcp"]["t1"]
    assert (t["initial_rto"], t["min_rto"], t["variant"]) == ("3 s", "200 ms", "tahoe")
    p = study._point("h", "effcap", 10, 0.5, host_buffer=20, delta_per_packet=60.0)
    sc = study.scenario(p, 1000)
    assert sc["tcp"]["t1"]["rate_control"]["buffer"] == 20
    assert math.isclose(sc["links"]["bottleneck"]["explicit_rate"]["delta"], 60 / 583)
    assert "host_buffer=20" in study._label(p) and sc["run"]["name"] != plain["run"]["name"]
    bsd = study.scenario(study._point("h", "alone", 10, 0.5, tcp_host="4.4bsd-reno"), 1000)
    t = bsd["tcp"]["t1"]
    assert (t["clock_granularity"], t["min_rto"], t["initial_rto"]) == ("500 ms", "1 s", "6 s")
    assert t["variant"] == "reno"


def test_effective_capacity_meets_its_closed_forms():
    # δ → 0: the mean; δ → ∞: the low rate.
    assert math.isclose(h.effective_capacity(1e-11, 5.0), (HIGH + LOW) / 2, rel_tol=1e-5)
    assert math.isclose(h.effective_capacity(1.0, 5.0), LOW, rel_tol=1e-3)
    # τ = one 30 ms step: the chain alternates at every step, so every two
    # steps serve exactly high + low and the effective capacity is the mean
    # at any δ.
    psi = study.INTERVAL_S / study.DELTA_S
    assert math.isclose(h.effective_capacity(0.01, psi), (HIGH + LOW) / 2, rel_tol=1e-9)
    # τ = two steps: independent steps, each high or low with probability
    # 1/2: −log((e^(−δ c_h) + e^(−δ c_l)) / 2) / (δ T).
    d, step = 0.002, study.INTERVAL_S
    c = [HIGH * step, LOW * step]
    iid = -math.log((math.exp(-d * c[0]) + math.exp(-d * c[1])) / 2) / (d * step)
    assert math.isclose(h.effective_capacity(d, 2 * psi), iid, rel_tol=1e-9)
    # Slower chains are harder to serve at a given δ.
    assert h.effective_capacity(0.002, 50.0) < h.effective_capacity(0.002, 0.5)


def test_smallest_delta_inverts_the_effective_capacity():
    gamma = LOW + 0.3 * (HIGH - LOW) / 2
    d = h.smallest_delta(gamma, 1.0)
    assert math.isclose(h.effective_capacity(d, 1.0), gamma, rel_tol=1e-6)
    assert h.smallest_delta((HIGH + LOW) / 2, 1.0) == 0.0
    assert h.smallest_delta(LOW, 1.0) == math.inf


def _rows(eff: dict) -> pd.DataFrame:
    rows = []
    for (scheme, buffer, psi), value in eff.items():
        for seed in (1, 2, 3):
            rows.append(
                {
                    "scheme": scheme,
                    "buffer": buffer,
                    "psi": psi,
                    "constant_bps": math.nan,
                    "seed": seed,
                    "efficiency": value,
                }
            )
    for rate in (study.HIGH_BPS, study.LOW_BPS):
        for seed in (1, 2, 3):
            rows.append(
                {
                    "scheme": "instcap",
                    "buffer": 12,
                    "psi": math.inf,
                    "constant_bps": rate,
                    "seed": seed,
                    "efficiency": 0.85,
                }
            )
    return pd.DataFrame(rows)


@pytest.mark.parametrize("paper_like", [True, False])
def test_claims_are_judged_as_the_claims_table_judges_them(paper_like):
    # A paper-like set: ABR 25 % above alone at τ/Δ 50, effcap 15 % above
    # instcap at 0.5 and 5 % below at 50, effcap above 2/3 everywhere, all
    # lowest at τ/Δ 1, buffers equal under ABR.
    alone = {0.25: 0.70, 0.5: 0.60, 1.0: 0.55, 50.0: 0.64}
    inst = {0.25: 0.72, 0.5: 0.60, 1.0: 0.58, 50.0: 0.80}
    eff = {0.25: 0.80, 0.5: 0.69 if paper_like else 0.61, 1.0: 0.68, 50.0: 0.76}
    numbers = {}
    for b in h.BUFFERS:
        for psi in h.PSIS:
            numbers["alone", b, psi] = alone[psi] + (0.04 if b == 12 else 0)
            numbers["instcap", b, psi] = inst[psi]
            numbers["effcap", b, psi] = eff[psi]
    got = {c["claim"].split(" (")[0]: c for c in h.claims(_rows(numbers))}
    assert got["instcap / alone, τ/Δ 50, B 10"]["holds"]
    assert math.isclose(got["instcap / alone, τ/Δ 50, B 10"]["value"], 1.25)
    assert got["effcap / instcap, τ/Δ 0.5, B 10"]["holds"] is paper_like
    assert got["effcap / instcap, τ/Δ 50, B 10"]["holds"]
    low = next(c for k, c in got.items() if k.startswith("lowest effcap"))
    assert low["holds"] is paper_like
    assert next(c for k, c in got.items() if k.startswith("B 12"))["holds"]


def test_no_claim_is_judged_on_numbers_that_were_not_measured():
    # Nothing measured: the lowest-point claims raised a KeyError, and every
    # NaN ratio read as "does not hold"; now none is judged.
    empty = _rows({}).iloc[0:0]
    got = h.claims(empty)
    assert got and all(c["holds"] is None for c in got), got


def test_a_claim_missing_one_of_its_numbers_is_not_judged():
    numbers = {(s, b, psi): 0.7 for s in h.SCHEMES for b in h.BUFFERS for psi in h.PSIS}
    numbers["alone", 12, 50.0] = math.nan  # one point not measured
    got = {c["claim"].split(" (")[0]: c["holds"] for c in h.claims(_rows(numbers))}
    assert got["instcap / alone, τ/Δ 50, B 12"] is None
    assert next(v for k, v in got.items() if k.startswith("B 12")) is None
    assert got["instcap / alone, τ/Δ 50, B 10"] is False  # 1.0: measured, judged
