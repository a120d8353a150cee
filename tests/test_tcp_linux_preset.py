"""The `linux` preset's loss recovery (RACK-TLP, PRR, byte counting,
reductions from cwnd) on tcp-sim-vs-linux's GEO path with a buffer of half
the bandwidth-delay product, where the slow-start overshoot loses about a
hundred segments of one window."""

import satcc
from satcc.studies import tcp_sim_vs_linux as study


def _longest_recovery_s(ssthresh_from: str) -> tuple[float, dict]:
    case = study.BY_LABEL["buf46-550ms"]
    sc = study.simulated(case, "cubic", 40.0)
    sc["tcp"]["f"]["ssthresh_from"] = ssthresh_from
    sc["traces"] = {"w": {"tcp": "f", "events": ["cwnd"]}}
    res = satcc.run(sc, seed=1, progress=False)
    df = res.trace("w")
    changes = df[df.state != df.state.shift()]
    starts = changes[changes.state == "recovery"].time_s.to_numpy()
    ends = changes[changes.state.shift() == "recovery"].time_s.to_numpy()
    longest = max(e - s for s, e in zip(starts, ends, strict=False))
    return longest, res.summary


def test_the_preset_reduces_from_cwnd():
    tcp = satcc.Scenario.from_dict(
        study.simulated(study.BY_LABEL["buf46-550ms"], "cubic", 1.0)
    ).validate()["tcp"][0]
    assert (tcp["recovery"], tcp["prr"], tcp["abc"]) == ("rack-tlp", True, True)
    assert tcp["ssthresh_from"] == "cwnd"


def test_reducing_from_cwnd_ends_recovery_within_a_few_round_trips():
    # From FlightSize, which still counts every SACKed byte above the
    # first hole, each reduction left more than the path holds (46 + 92
    # packets): recovery after recovery, 24 s in one state and hundreds
    # of losses. From cwnd, as Linux, the overshoot is repaired in one
    # episode of under ten round trips (550 ms each; 4.0 s measured).
    from_flight, flight_summary = _longest_recovery_s("flight")
    from_cwnd, cwnd_summary = _longest_recovery_s("cwnd")
    assert from_flight > 10.0
    assert from_cwnd < 10 * 0.55
    assert cwnd_summary["tcp.f.timeouts"] == 0
    dropped = cwnd_summary["links.ab.drops"]
    assert dropped < 0.5 * flight_summary["links.ab.drops"]


def test_cubic_alpha_switch_is_the_linux_presets_and_cubics_only():
    from test_scenario_tcp import assert_refused, scenario, tcp_entry

    linux = tcp_entry(scenario(**{"tcp.bulk.preset": "linux"}))
    assert linux["cubic_alpha_switch"] is False
    # The RFC's switch is the default, left out of the description.
    assert "cubic_alpha_switch" not in tcp_entry(scenario(**{"tcp.bulk.preset": "rfc"}))
    # The preset's value rides along with another controller; the table's own is refused.
    reno = tcp_entry(
        scenario(**{"tcp.bulk.preset": "linux", "tcp.bulk.congestion_control": "reno"})
    )
    assert reno.get("congestion_control", "reno") == "reno"
    assert_refused(
        scenario(**{"tcp.bulk.cubic_alpha_switch": False}),
        "tcp.bulk.cubic_alpha_switch",
        'applies to congestion_control = "cubic" only',
    )
