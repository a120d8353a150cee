# A run's flows for a researcher: Jain's fairness index in the summary
# (checked against values worked out by hand: equal shares give 1, one flow
# taking everything 1/n, k equal flows and the rest starving k/n),
# Result.flows() as a typed per-flow table, and the run's repr and Jupyter
# view.

from pathlib import Path

import pandas as pd
import pytest
import satcc
from satcc.executors import Task, execute
from satcc.runner import Result
from satcc.scenario import Scenario, normalised_json

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def parallel_paths(n: int, lossy: set[int] = frozenset(), duration: str = "3 s") -> dict:
    """n identical disjoint paths h<i> -> d<i>, 2 Mb/s, 20 ms; the links of
    the paths in `lossy` lose every PDU. Callers add flows."""
    nodes = {f"{end}{i}": {"type": "host"} for i in range(n) for end in "hd"}
    links = {
        f"p{i}": {
            "from": f"h{i}",
            "to": f"d{i}",
            "rate": "2 Mbps",
            "delay": "20 ms",
            "duplex": True,
            **({"loss": 1.0} if i in lossy else {}),
        }
        for i in range(n)
    }
    return {
        "run": {"name": "paths", "duration": duration, "seed": 1},
        "nodes": nodes,
        "links": links,
    }


def with_sources(n: int, lossy: set[int] = frozenset()) -> dict:
    data = parallel_paths(n, lossy)
    data["sinks"] = {f"rx{i}": {"node": f"d{i}"} for i in range(n)}
    data["sources"] = {
        f"s{i}": {"type": "cbr", "from": f"h{i}", "to": f"rx{i}", "rate": "1 Mbps"}
        for i in range(n)
    }
    return data


def with_tcp(n: int, lossy: set[int] = frozenset()) -> dict:
    data = parallel_paths(n, lossy)
    data["tcp"] = {
        f"t{i}": {"from": f"h{i}", "to": f"d{i}", "app": {"type": "bulk"}} for i in range(n)
    }
    return data


def jain(x: list[float]) -> float:
    return sum(x) ** 2 / (len(x) * sum(v * v for v in x))


# ---------------------------------------------------------------------------
# Jain's fairness index


def test_equal_shares_give_one():
    s = satcc.run(with_sources(3)).summary
    throughputs = [s[f"flows.s{i}.throughput_bps"] for i in range(3)]
    assert throughputs[0] > 0 and len(set(throughputs)) == 1
    assert s["fairness.jain_flows_throughput"] == pytest.approx(1.0, abs=1e-15)
    t = satcc.run(with_tcp(2)).summary
    assert t["tcp.t0.goodput_bps"] == t["tcp.t1.goodput_bps"] > 0
    assert t["fairness.jain_tcp_goodput"] == pytest.approx(1.0, abs=1e-15)


def test_one_flow_taking_everything_gives_one_over_n():
    s = satcc.run(with_sources(4, lossy={1, 2, 3})).summary
    assert [s[f"flows.s{i}.throughput_bps"] > 0 for i in range(4)] == [True, False, False, False]
    assert s["fairness.jain_flows_throughput"] == pytest.approx(1 / 4, abs=1e-15)


def test_k_equal_flows_and_the_rest_starving_give_k_over_n():
    t = satcc.run(with_tcp(3, lossy={2})).summary
    assert t["tcp.t2.goodput_bps"] == 0 and t["tcp.t0.goodput_bps"] > 0
    assert t["fairness.jain_tcp_goodput"] == pytest.approx(2 / 3, abs=1e-15)


def test_the_index_is_over_the_flows_own_goodputs_in_a_contended_run():
    sc = satcc.load(EXAMPLES / "dumbbell_geo.toml").set("run.duration", "20 s")
    s = satcc.run(sc, seed=2).summary
    goodputs = [s[f"tcp.flow{i:02d}.goodput_bps"] for i in range(16)]
    assert 0.5 < jain(goodputs) < 1.0  # unequal shares: a test that can tell
    assert s["fairness.jain_tcp_goodput"] == pytest.approx(jain(goodputs), rel=1e-12)


def test_no_index_for_a_single_flow_and_null_when_nothing_was_received():
    s = satcc.run(with_sources(1)).summary
    assert not [k for k in s if "jain" in k]
    both_lost = satcc.run(with_sources(2, lossy={0, 1})).summary
    assert both_lost["fairness.jain_flows_throughput"] is None


def test_a_flow_that_has_not_started_is_left_out():
    data = with_sources(3, lossy={2})
    data["sources"]["s2"]["start"] = "10 s"  # after the end of the run
    s = satcc.run(data).summary
    assert s["flows.s2.throughput_bps"] is None
    assert s["fairness.jain_flows_throughput"] == pytest.approx(1.0, abs=1e-15)


def test_sweep_workers_get_the_index_too():
    desc = Scenario.from_dict(with_tcp(3, lossy={2})).validate()
    outcome = execute(Task("k", normalised_json(desc)))
    assert outcome.ok
    assert outcome.summary["fairness.jain_tcp_goodput"] == pytest.approx(2 / 3, abs=1e-15)


# ---------------------------------------------------------------------------
# Result.flows()


@pytest.fixture(scope="module")
def mixed():
    """Two datagram flows and two TCP connections in one run."""
    data = with_sources(4)
    for i in (2, 3):
        del data["sources"][f"s{i}"], data["sinks"][f"rx{i}"]
        data["tcp"] = data.get("tcp", {})
        data["tcp"][f"t{i}"] = {"from": f"h{i}", "to": f"d{i}", "app": {"type": "bulk"}}
    return satcc.run(data)


def test_flows_has_one_row_per_flow_with_the_summary_figures(mixed):
    df = mixed.flows()
    assert list(df.index) == [("flows", "s0"), ("flows", "s1"), ("tcp", "t2"), ("tcp", "t3")]
    assert df.index.names == ["kind", "name"]
    s = mixed.summary
    for (kind, name), row in df.iterrows():
        own = {k.split(".", 2)[2]: v for k, v in s.items() if k.startswith(f"{kind}.{name}.")}
        # Every figure of the flow and nothing else; a null is missing.
        assert set(row.dropna().index) == {k for k, v in own.items() if v is not None}
        for figure, value in own.items():
            assert pd.isna(row[figure]) if value is None else row[figure] == value
    # A figure of the other kind is missing, not zero.
    assert pd.isna(df.loc[("tcp", "t2"), "throughput_bps"])


def test_flows_columns_are_numeric_with_units(mixed):
    df = mixed.flows()
    assert str(df["sent_packets"].dtype) == "Int64"  # counts stay whole
    assert str(df["goodput_bps"].dtype) == "float64"
    assert str(df["srtt_s"].dtype) == "float64"
    assert all(str(t) in ("Int64", "float64") for t in df.dtypes)
    units = df.attrs["units"]
    assert units["goodput_bps"] == "bit/s" and units["delay_mean_s"] == "s"
    assert units["delivered_bytes"] == "B" and units["sent_packets"] == "packets"
    assert "retransmissions" not in units


def test_flows_of_one_kind_are_indexed_by_name(mixed):
    tcp = mixed.flows("tcp")
    assert list(tcp.index) == ["t2", "t3"] and tcp.index.name == "name"
    assert "throughput_bps" not in tcp.columns and "goodput_bps" in tcp.columns
    assert tcp["goodput_bps"].tolist() == [
        mixed.summary["tcp.t2.goodput_bps"],
        mixed.summary["tcp.t3.goodput_bps"],
    ]
    assert len(mixed.flows("tfrc")) == 0
    with pytest.raises(ValueError, match="unknown flow kind 'links'.*tcp"):
        mixed.flows("links")


def test_tfrc_flows_get_the_index_and_keep_their_state_as_text():
    data = parallel_paths(2, lossy={1})
    data["tfrc"] = {
        f"m{i}": {
            "from": f"h{i}",
            "to": f"d{i}",
            "packet_size": "1000 B",
            "media": {"rate": "500 kbps"},
        }
        for i in range(2)
    }
    r = satcc.run(data)
    df = r.flows("tfrc")
    assert df.loc["m0", "qs_state"] == "off"
    assert str(df["goodput_bps"].dtype) == "float64"
    assert df.loc["m1", "goodput_bps"] == 0 < df.loc["m0", "goodput_bps"]
    assert r.summary["fairness.jain_tfrc_goodput"] == pytest.approx(1 / 2, abs=1e-15)


# ---------------------------------------------------------------------------
# repr and the Jupyter view


def test_repr_names_the_run_its_flows_the_check_and_the_series(mixed):
    text = repr(mixed)
    assert text.startswith("<satcc.Result paths, seed 1: 3 s simulated in ")
    assert "2 datagram flows, 2 TCP connections; conservation ok; series: none>" in text


def test_html_view_shows_the_check_the_flow_tables_fairness_and_series():
    sc = satcc.load(EXAMPLES / "dumbbell_geo.toml").set("run.duration", "5 s")
    html = satcc.run(sc, seed=1)._repr_html_()
    assert "dumbbell_geo, seed 1: 5 s simulated" in html
    assert 'Conservation: <span style="color:green">ok: ' in html
    assert "TCP connections (first 12 of 16;" in html
    assert html.count("<tr><th>flow") == 12
    assert (
        "Jain&#x27;s" not in html and "Jain's fairness index: TCP connections, goodput: 0." in html
    )
    assert "<code>bottleneck_queue</code>, <code>flow00_cwnd</code>" in html


def test_html_view_escapes_and_shows_a_failed_check():
    summary = {
        "run.end_time_s": 1.0,
        "run.events": 10,
        "run.pdus_sent": 5,
        "run.pdus_delivered": 2,
        "run.pdus_dropped": 0,
        "run.pdus_errored": 0,
        "run.pdus_in_flight": 0,
        "run.pdus_unaccounted": 3,
        "flows.a<b>.throughput_bps": 1e6,
    }
    r = Result({"name": "<script>x</script>"}, 7, summary, {"q&a": (b"", b"")}, {})
    html = r._repr_html_()
    assert "<script>" not in html and "&lt;script&gt;x&lt;/script&gt;" in html
    assert "<th>a&lt;b&gt;</th>" in html and "<code>q&amp;a</code>" in html
    assert 'color:red">3 PDUs UNACCOUNTED (5 PDUs sent = 2 delivered' in html
    assert "conservation FAILED" in repr(r)
