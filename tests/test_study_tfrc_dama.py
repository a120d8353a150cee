# The tfrc-dama study: its scenarios, its arithmetic from Table II, one
# start-up checked against the paper's timeline in words, and a reduced
# reproduction that writes every figure, the tables and the claims.
import dataclasses
import math

import pandas as pd
import pytest
import satcc
from satcc.scenario import Scenario
from satcc.studies.framework import reproduce
from satcc.studies.tfrc_dama import STUDY, claims
from satcc.studies.tfrc_dama import model as study
from satcc.studies.tfrc_dama.data import PhaseSweep, Results


@pytest.mark.parametrize(
    ("media", "asked"),
    [(256e3, 320e3), (16e3, 80e3), (64e3, 80e3), (80e3, 80e3), (512e3, 640e3)],
)
def test_quick_start_asks_for_the_smallest_table_rate_carrying_the_media(media, asked):
    assert study.qs_request_bps(media) == asked


def test_table_ii_arithmetic():
    # Arrivals x mean duration x rate: 960 + 288 + 640 kb/s, the paper's
    # "approximately 2 Mb/s", and its shares 50/15/35 % to within a point.
    loads = {c.name: c.load_bps for c in study.CLASSES}
    assert loads == pytest.approx({"voip": 960e3, "video": 288e3, "iptv": 640e3})
    total = sum(loads.values())
    assert total == pytest.approx(1.888e6)
    for c in study.CLASSES:
        assert loads[c.name] / total == pytest.approx(c.share, abs=0.02)
    # 100 000 s of arrivals give the paper's flow counts.
    counts = [study.AGGREGATE_S * len(study.AGGREGATE_SEEDS) / c.interval_s for c in study.CLASSES]
    assert counts == pytest.approx([100_000, 2500, 833.3], rel=1e-3)


def test_every_start_phase_is_a_slot_of_the_superframe():
    assert len(study.phases("large", quick=False)) == 432
    assert len(study.phases("small", quick=False)) == 72
    assert study.phases("large", quick=True) == [0, 72, 144, 216, 288, 360]


def test_quick_scenarios_are_valid_and_named_by_their_point():
    specs = study.runs(quick=True)
    labels = [s.label for s in specs]
    assert len(labels) == len(set(labels))
    names = {Scenario.from_dict(s.scenario).validate()["name"] for s in specs}
    assert len(names) == len(specs)
    parts = {s.params["part"] for s in specs}
    assert parts == {"single", "rate", "aggregate"}


def test_every_run_is_made_under_ns2s_tfrc_and_again_under_rfc_5348():
    specs = study.runs(quick=True)
    by_profile = {p: [s for s in specs if s.params["profile"] == p] for p in study.PROFILES}
    assert len(by_profile["ns2"]) == len(by_profile["rfc5348"]) == len(specs) // 2
    for profile, part in by_profile.items():
        for spec in part[:: max(1, len(part) // 20)]:
            flows = spec.scenario.get("tfrc") or spec.scenario["tfrc_arrivals"]
            assert {f["profile"] for f in flows.values()} == {profile}
            assert spec.label.endswith("[rfc5348]") == (profile == "rfc5348")
    # The profiles' own initial nofeedback timers, but where a strategy sets one.
    aggregated = study.aggregated(study.STRATEGIES["DAMA"], 100.0)["tfrc_arrivals"]
    assert all("initial_rto" not in c for c in aggregated.values())
    rto3 = study.aggregated(study.STRATEGIES["QSD Tq=max RTO=3s"], 100.0)["tfrc_arrivals"]
    assert all(c["initial_rto"] == "3 s" for c in rto3.values())


def test_the_initial_nofeedback_timer_is_the_profiles_or_the_strategys():
    plain, rto3 = study.STRATEGIES["QSD Tq=max"], study.STRATEGIES["QSD Tq=max RTO=3s"]
    # ns-2: two 1316-byte packets at 300 B/s; RFC 5348: 2 s.
    assert study.initial_timer_s("ns2", plain) == pytest.approx(2 * 1316 / 300)
    assert study.initial_timer_s("ns2", plain, 160) == pytest.approx(2 * 160 / 300)
    assert study.initial_timer_s("rfc5348", plain) == 2.0
    assert study.initial_timer_s("ns2", rto3) == study.initial_timer_s("rfc5348", rto3) == 3.0


def test_cra_terminals_hold_a_fifth_of_the_channel_from_the_start():
    d = Scenario.from_dict(study.single_flow("large", study.STRATEGIES["CRA"], 0)).validate()
    terminals = d["dvb_rcs"][0]["terminals"]
    assert [t["request"]["cra_bps"] for t in terminals] == [6.336e6 / 5] * 2 + [0.0] * 3
    result = satcc.run(Scenario.from_dict(study.single_flow("large", study.STRATEGIES["CRA"], 0)))
    # 29 slots of 44 kb/s from the first super-frame on, never fewer.
    assert result.summary["dvb_rcs.rl.t1.allocated_bps"] == pytest.approx(29 * 44e3, rel=1e-6)


def test_one_start_up_follows_the_papers_timeline():
    # Large frame, DAMA and QS, phase 0: the QS-Response (320 kb/s) comes
    # with the first report, one RTT in; the report that throttles it to the
    # received rate comes about three RTTs in (the paper: 0.8 and 2.3 s),
    # ns-2's TFRC keeping the rate at the report before; nothing is lost
    # and the uplink never overflows.
    spec = next(s for s in study.runs(quick=True) if s.label == "large DAMA+QS phase 0")
    s = satcc.run(Scenario.from_dict(spec.scenario)).summary
    m = study.metrics(s, spec)
    assert m["unaccounted"] == 0 and m["uplink_drops"] == 0 and m["packets_lost"] == 0
    assert m["qs_approved_bps"] == 320e3
    rtt = m["mean_rtt_ms"] / 1e3
    assert 0.5 * rtt < m["first_report_s"] < 1.2 * rtt
    assert m["qs_validated_s"] <= m["qs_cut_s"]
    assert 2 * rtt < m["qs_cut_s"] < 4 * rtt
    assert m["tr_half_plus_ta_ms"] == pytest.approx(2050.9, abs=0.1)


def _sweep(peak: float) -> PhaseSweep:
    t = pd.Series([0.0, 1.0, 2.0]).to_numpy()
    e2ed = pd.DataFrame([[0.3, peak, 0.3], [0.3, peak + 0.5, 0.3]]).to_numpy()
    return PhaseSweep(t, e2ed, e2ed, [{}, {}], [0, 1])


def test_a_claim_that_the_numbers_contradict_does_not_hold():
    # QS worse than no QS on the large frame: the claim must say so.
    single = {
        ("large", "DAMA"): _sweep(4.0),
        ("large", "DAMA+QS"): _sweep(6.0),
        ("small", "DAMA"): _sweep(3.0),
        ("small", "DAMA+QS"): _sweep(1.0),
    }
    r = Results(single, {}, {}, {})
    row = claims.claim_qs_improves(r)
    assert row["holds"] is False
    assert "DAMA+QS 6.25 s" in row["measured"]  # the median of 6.0 and 6.5
    single[("large", "DAMA+QS")] = _sweep(2.0)
    assert claims.claim_qs_improves(r)["holds"] is True
    # A claim whose runs are missing is not judged.
    assert claims.claim_second_report(Results({}, {}, {}, {}))["holds"] is None


def test_no_claim_is_judged_on_numbers_that_were_not_measured():
    # Nothing measured (no runs, no series): every claim says "not judged",
    # none fails (a NaN compares false) and none passes.
    table = claims.claims_table(Results({}, {}, {}, {}), pd.DataFrame(), quick=False)
    assert len(table) == len(claims.SINGLE_FLOW) + 1 + len(claims.AGGREGATED)
    assert table["holds"].isna().all(), table[table["holds"].notna()][["claim", "measured"]]
    # One strategy's series missing leaves the claims resting on it unjudged.
    single = {(f, n): _sweep(4.0) for f in study.FRAMES for n in ("CRA", "DAMA", "DAMA+QS")}
    r = Results(single, {}, {}, {})
    assert claims.claim_qs_improves(r)["holds"] is False
    del single[("small", "DAMA+QS")]
    assert claims.claim_qs_improves(r)["holds"] is None


def _reduced(quick: bool) -> list:
    # Two phases per frame and strategy, one rate point per Fig. 6 curve at
    # two rates, and short aggregated runs: every figure has data.
    keep = []
    for spec in study.runs(quick=True):
        p = spec.params
        if p["part"] == "single" and p["phase"] in (0, 144 if p["frame"] == "large" else 36):
            keep.append(spec)
        elif p["part"] == "rate" and p["rate_kbps"] in (128, 512) and p["phase"] == 0:
            keep.append(spec)
        elif p["part"] == "aggregate":
            scenario = study.aggregated(study.STRATEGIES[p["strategy"]], 400.0, p["profile"])
            keep.append(
                dataclasses.replace(spec, scenario=scenario, params=p | {"duration_s": 400.0})
            )
    return keep


@pytest.fixture(scope="module")
def reduced_reproduction(tmp_path_factory):
    out = tmp_path_factory.mktemp("tfrc-dama")
    reduced = dataclasses.replace(STUDY, runs=_reduced)
    table = reproduce(reduced, quick=True, out=out, progress=False, show=False, jobs=2)
    return table, out


def test_the_reproduction_writes_every_figure_and_table(reduced_reproduction):
    table, out = reduced_reproduction
    for name in (
        "fig3_large.png",
        "fig3_small.png",
        "fig4_large.png",
        "fig5_large.png",
        "fig6_large.png",
        "fig6_small.png",
        "fig7_fluid.png",
        "fig8_iptv.png",
        "fig9.png",
        "fluid_vs_packets.png",
        "tx_buffer_loss.csv",
        "tq.csv",
        "claims.csv",
    ):
        assert (out / name).stat().st_size > 0, name
    # Table I and eq. (6) against the model's own timing.
    assert table["passed"].all(), table[~table["passed"].astype(bool)]


def test_the_tables_carry_every_strategy_and_claim(reduced_reproduction):
    _, out = reduced_reproduction
    loss = pd.read_csv(out / "tx_buffer_loss.csv")
    for profile in study.PROFILES:
        assert list(loss[loss["profile"] == profile]["strategy"]) == list(study.AGGREGATE)
    columns = [f"{c}{w}" for c in ("voip", "video", "iptv") for w in ("", "_30s")]
    assert ((loss[columns] >= 0) & (loss[columns] < 1)).all().all()
    table = pd.read_csv(out / "claims.csv")
    per_profile = len(claims.SINGLE_FLOW) + 1 + len(claims.AGGREGATED)
    assert table["profile"].value_counts().to_dict() == {p: per_profile for p in study.PROFILES}
    tq = pd.read_csv(out / "tq.csv").set_index("frame")
    assert tq.loc["large", "tq_opt_eq6_ms"] == pytest.approx(518.0, abs=0.1)
    assert tq.loc["small", "tq_opt_eq6_ms"] == pytest.approx(53.1, abs=0.1)
    assert not math.isnan(tq.loc["large", "tq_opt_fluid_paper_ms"])
    fig3 = pd.read_csv(out / "fig3_large.csv")
    assert set(fig3["strategy"]) == {"CRA", "CRA+QS", "DAMA", "DAMA+QS"}
    assert (fig3["min_s"] <= fig3["median_s"]).all() and (fig3["median_s"] <= fig3["max_s"]).all()
