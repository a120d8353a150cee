# The campaign store (docs/campaigns.md): atomic parts, de-duplication by
# key, compaction, empty campaigns, the DuckDB views, pandas and xarray
# read-back, and `satcc results`.

import json
import re
from pathlib import Path

import pytest
import satcc
from satcc import _core
from satcc.cli import run_cli
from satcc.executors import Outcome
from satcc.store import Campaign, CampaignError, QueryError, RunPoint, results
from satcc.sweeps import sweep as run_sweep

ROOT = Path(__file__).resolve().parents[1]
MM1 = ROOT / "examples" / "mm1.toml"
RATE = "sources.arrivals.rate"
WAIT = "links.server.wait_mean_s"


def meta(parameters=("a",)):
    return {
        "satcc_version": _core.version(),
        "created": "2026-01-01T00:00:00+00:00",
        "scenario": "test",
        "base_description": None,
        "parameters": list(parameters),
    }


def ok(key, value=1.0, series=True):
    return Outcome(
        key,
        True,
        summary={"x": value, "run.stop_reason": "time"},
        series={"q": ([0.0, 1.0], [value, value + 1])} if series else {},
        info={"wall_s": 0.1, "events": 10, "satcc_version": _core.version()},
    )


def failed(key):
    return Outcome(key, False, error="RuntimeError: boom", info={"wall_s": 0.2})


@pytest.fixture(scope="module")
def mm1_campaign(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("mm1")
    text = MM1.read_text().replace('duration = "600 s"', 'duration = "20 s"')
    scenario = tmp / "mm1.toml"
    scenario.write_text(text)
    campaign = tmp / "campaign"
    run_sweep(
        scenario,
        set={RATE: ["2 Mbps", "8 Mbps", "4 Mbps"]},
        seeds="1..3",
        campaign=campaign,
        jobs=1,
    )
    return campaign


def test_open_refuses_what_is_not_a_campaign(tmp_path):
    with pytest.raises(CampaignError, match="no such campaign"):
        results(tmp_path / "missing")
    (tmp_path / "folder").mkdir()
    with pytest.raises(CampaignError, match="not a campaign"):
        results(tmp_path / "folder")
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("precious")
    with pytest.raises(CampaignError, match="not empty"):
        Campaign.open(tmp_path / "mine", create_with=meta())


def test_campaign_json_written_once(tmp_path):
    c = Campaign.open(tmp_path / "c", create_with=meta())
    assert c.meta["parameters"] == ["a"]
    again = Campaign.open(tmp_path / "c", create_with=meta(("b",)))
    assert again.meta["parameters"] == ["a"]
    assert json.loads((tmp_path / "c" / "campaign.json").read_text())["scenario"] == "test"
    assert not [p for p in (tmp_path / "c").rglob(".tmp-*")]


def test_empty_campaign_queries_work(tmp_path):
    c = Campaign.open(tmp_path / "c", create_with=meta())
    runs = c.runs()
    assert len(runs) == 0
    assert {"key", "status", "seed", "params", "param.a", "wall_s", "error"} <= set(runs.columns)
    assert len(c.summary()) == 0
    assert list(c.series("q").columns)[:2] == ["key", "seed"]
    assert c.sql("select count(*) as n from runs")["n"].iloc[0] == 0
    assert c.sql("select count(*) as n from series")["n"].iloc[0] == 0
    assert c.done_keys() == set()
    assert c.to_xarray("x").dims == ("a", "seed")


def test_append_dedup_and_compact(tmp_path):
    c = Campaign.open(tmp_path / "c", create_with=meta())
    c.append([failed("k1")], {"k1": RunPoint({"a": 1}, 1)})
    c.append([ok("k2", 2.0)], [RunPoint({"a": 2}, 1)])
    assert c.done_keys() == {"k2"}
    c.append([ok("k1", 1.0)], {"k1": RunPoint({"a": 1}, 1)})
    # The same run written twice (a crash during compaction, a race): counted once.
    c.append([ok("k2", 2.0)], [RunPoint({"a": 2}, 1)])
    assert len(c.parts("runs")) == 4
    assert c.done_keys() == {"k1", "k2"}

    def check():
        runs = c.runs()
        assert list(runs["key"]) == ["k1", "k2"] and set(runs["status"]) == {"ok"}
        assert list(runs["param.a"]) == ["1", "2"]
        assert [json.loads(p) for p in runs["params"]] == [{"a": 1}, {"a": 2}]
        summary = c.summary()
        assert list(summary["x"]) == [1.0, 2.0]
        assert list(summary["seed"]) == [1, 1]
        q = c.series("q")
        assert len(q) == 4 and list(q["value"]) == [1.0, 2.0, 2.0, 3.0]

    check()
    c.compact()
    assert [len(c.parts(t)) for t in ("runs", "summary", "series")] == [1, 1, 1]
    check()
    # A crash after the merged part was written but before the parts were
    # deleted leaves duplicates; readers still count each run once.
    c.append([ok("k1", 1.0)], {"k1": RunPoint({"a": 1}, 1)})
    check()
    assert not [p for p in c.path.rglob(".tmp-*")]
    assert all(re.fullmatch(r"part-\d{6}\.parquet", p.name) for p in c.path.rglob("*.parquet"))


def test_summary_joins_params(mm1_campaign):
    c = satcc.results(mm1_campaign)
    summary = c.summary()
    assert len(summary) == 9
    assert {"key", "seed", f"param.{RATE}", WAIT, "run.events"} <= set(summary.columns)
    assert (summary["run.seed"] == summary["seed"]).all()
    # Natural order: rates as numbers, not as text.
    frame = c.sql(f'select param."{RATE}" as rate, avg("{WAIT}") as wait from summary group by all')
    waits = dict(zip(frame["rate"], frame["wait"], strict=True))
    assert waits["2 Mbps"] < waits["4 Mbps"] < waits["8 Mbps"]


def test_to_xarray_dims(mm1_campaign):
    arr = satcc.results(mm1_campaign).to_xarray(WAIT)
    assert arr.dims == (RATE, "seed")
    # The swept rates as numbers in bit/s, ascending, the text beside them.
    assert list(arr.coords[RATE].values) == [2e6, 4e6, 8e6]
    assert arr.coords[RATE].attrs["units"] == "bit/s"
    assert list(arr.coords[RATE + "_label"].values) == ["2 Mbps", "4 Mbps", "8 Mbps"]
    assert arr.sel({RATE: 4e6})[RATE + "_label"].item() == "4 Mbps"
    assert list(arr.coords["seed"].values) == [1, 2, 3]
    assert arr.shape == (3, 3) and not arr.isnull().any()
    means = arr.mean("seed").values
    assert means[0] < means[1] < means[2]
    with pytest.raises(KeyError):
        satcc.results(mm1_campaign).to_xarray("no.such.metric")


def _frame(points, metric="m"):
    """A summary frame as Campaign.summary() gives it: one row per (params, seed)."""
    import pandas as pd

    return pd.DataFrame(
        [{"params": json.dumps(p), "seed": s, metric: v} for p, s, v in points],
    )


@pytest.mark.parametrize(
    "swept,unit",
    [
        ({"10 Mbps": 1e7, "500 kbps": 5e5, "2 Mbps": 2e6}, "bit/s"),
        ({"1 s": 1.0, "250 ms": 0.25, "2 min": 120.0}, "s"),
        ({"64 KiB": 65536, "1500 B": 1500, "1 MB": 1_000_000}, "B"),
        ({"100 packets": 100, "20 packets": 20, "1000 packets": 1000}, "packets"),
    ],
)
def test_swept_quantities_are_numeric_coordinates_in_base_units(swept, unit):
    from satcc.campaign_arrays import summary_array

    # Each run's figure is made from its value, so the data must follow
    # their coordinates when these are reordered.
    points = [({"k": text}, seed, n * 10 + seed) for text, n in swept.items() for seed in (1, 2)]
    arr = summary_array(_frame(points), ["k"], "m")
    numbers = sorted(swept.values())
    assert list(arr.coords["k"].values) == numbers
    assert arr.coords["k"].attrs == {"units": unit}
    text_of = {n: text for text, n in swept.items()}
    assert list(arr.coords["k_label"].values) == [text_of[n] for n in numbers]
    assert arr.values.tolist() == [[n * 10 + 1, n * 10 + 2] for n in numbers]


@pytest.mark.parametrize(
    "swept",
    [
        ["2 Mbps", "250 ms"],  # two kinds of quantity
        ["1 Mbps", "1000 kbps"],  # the same quantity twice
        ["64 KiB", "100 packets"],  # a queue limit in bytes and one in packets
        ["reno", "cubic"],
        ["4 Mbps", None],  # a run that did not set the key
    ],
)
def test_other_swept_values_stay_as_swept_in_natural_order(swept):
    from satcc.campaign_arrays import natural_order, summary_array

    points = [({"k": v} if v is not None else {}, 1, 1.0) for v in swept]
    arr = summary_array(_frame(points), ["k"], "m")
    # xarray writes a missing value (None) as NaN.
    got = [v if v == v else None for v in arr.coords["k"].values]
    assert got == natural_order(set(swept))
    assert "units" not in arr.coords["k"].attrs and "k_label" not in arr.coords


def test_numbers_swept_as_numbers_stay_numbers():
    from satcc.campaign_arrays import summary_array

    points = [({"k": v}, 1, float(v)) for v in (10, 2, 0.5)]
    arr = summary_array(_frame(points), ["k"], "m")
    assert list(arr.coords["k"].values) == [0.5, 2, 10]
    assert arr.values[:, 0].tolist() == [0.5, 2.0, 10.0]


def test_series_long(mm1_campaign):
    q = satcc.results(mm1_campaign).series("queue")
    assert list(q.columns) == ["key", "seed", f"param.{RATE}", "time_s", "value"]
    assert q["key"].nunique() == 9
    with pytest.raises(KeyError, match="queue"):
        satcc.results(mm1_campaign).series("nope")


def test_cli_results(mm1_campaign, capsys):
    assert run_cli(["results", str(mm1_campaign), "select count(*) as n from runs"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"\bn\b", out) and re.search(r"\b9\b", out)
    assert run_cli(["results", str(mm1_campaign), "select count(*) as n from runs", "--csv"]) == 0
    assert capsys.readouterr().out == "n\n9\n"
    assert run_cli(["results", str(mm1_campaign)]) == 0
    out = capsys.readouterr().out
    assert "9 runs ok, 0 failed" in out
    assert out.index("2 Mbps") < out.index("4 Mbps") < out.index("8 Mbps")
    assert run_cli(["results", str(mm1_campaign), "--csv"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"param.{RATE},ok,failed" and len(lines) == 4


def test_cli_results_errors(tmp_path, mm1_campaign, capsys):
    assert run_cli(["results", str(tmp_path)]) == 2
    assert "not a campaign" in capsys.readouterr().err
    assert run_cli(["results", str(mm1_campaign), "select nope from runs"]) == 2
    assert "error: SQL:" in capsys.readouterr().err


def _tree(folder: Path) -> dict[str, tuple[int, int]]:
    """Every entry under `folder` with its size and modification time."""
    return {
        str(p.relative_to(folder)): (p.stat().st_size, p.stat().st_mtime_ns)
        for p in sorted(folder.rglob("*"))
    }


@pytest.fixture
def small_campaign(tmp_path):
    campaign = tmp_path / "c"
    store = Campaign.open(campaign, create_with=meta(()))
    store.append([ok("k1"), ok("k2", 2.0)], {"k1": RunPoint({}, 1), "k2": RunPoint({}, 2)})
    (campaign / ".readers").unlink(missing_ok=True)  # as an older satcc left it
    return campaign


WRITES = {
    "copy": "COPY (select 1 as x) TO '{c}/runs/part-999999.parquet' (FORMAT parquet)",
    "copy-out": "COPY runs TO '{t}/out.csv'",
    "attach": "ATTACH '{t}/x.db' AS x",
    "create": "CREATE TABLE t AS SELECT 1",
    "set": "SET enable_external_access = true",
    "install": "INSTALL httpfs",
    "export": "EXPORT DATABASE '{t}/exp'",
    "two": "select 1; COPY (select 1) TO '{t}/two.csv'",
}


@pytest.mark.parametrize("name", sorted(WRITES))
def test_results_queries_cannot_write(small_campaign, tmp_path, capsys, name):
    # Before: COPY wrote a part into the campaign (61 rows for 60 runs, then
    # the next sweep failed with ArrowInvalid); ATTACH created a database.
    before, outside = _tree(small_campaign), sorted(p.name for p in tmp_path.iterdir())
    query = WRITES[name].format(c=small_campaign, t=tmp_path)
    assert run_cli(["results", str(small_campaign), query]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "internal error" not in err, err
    assert _tree(small_campaign) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == outside
    with pytest.raises(QueryError):
        results(small_campaign).sql(query)


@pytest.mark.parametrize(
    "query",
    [
        "select * from read_csv('/etc/passwd')",
        "select * from glob('/*')",
        "select * from read_text('{c}/campaign.json')",
        "select * from read_parquet('{c}/runs/../../*.parquet')",
    ],
)
def test_results_queries_read_nothing_outside_the_tables(small_campaign, capsys, query):
    assert run_cli(["results", str(small_campaign), query.format(c=small_campaign)]) == 2
    assert "Permission Error" in capsys.readouterr().err


@pytest.mark.parametrize("query", ["", ";", "  ", "/* nothing */"])
def test_an_empty_query_is_bad_input(small_campaign, capsys, query):
    # Before: "internal error: AttributeError" and exit 1.
    assert run_cli(["results", str(small_campaign), query]) == 2
    assert capsys.readouterr().err == "error: the query is empty: give one SELECT statement\n"


def test_reading_changes_no_file(small_campaign, capsys):
    before = _tree(small_campaign)
    for args in (
        [],
        ["--csv"],
        ["select * from summary"],
        ["describe runs"],
        ["summarize series"],
        ["explain select * from runs"],
        ["from series", "--csv"],
    ):
        assert run_cli(["results", str(small_campaign), *args]) == 0, capsys.readouterr().err
    store = results(small_campaign)
    store.runs(), store.summary(), store.series("q"), store.overview(), store.to_xarray("x")
    assert _tree(small_campaign) == before  # not even the readers' lock file


def test_a_large_result_is_streamed(small_campaign, capsys):
    query = "select range as i, range * 0.5 as half from range(250000)"
    chunks = list(results(small_campaign).sql_chunks(query, vectors=10))
    assert [len(c) for c in chunks[:2]] == [20480, 20480] and sum(map(len, chunks)) == 250000
    assert run_cli(["results", str(small_campaign), query, "--csv"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[:3] == ["i,half", "0,0.0", "1,0.5"] and lines[-1] == "249999,124999.5"
    assert len(lines) == 250001
    assert run_cli(["results", str(small_campaign), query, "--max-rows", "5"]) == 0
    out = capsys.readouterr()
    assert re.search(r"^ *4 +2 *$", out.out, re.M) and not re.search(r"^ *5 +2\.5", out.out, re.M)
    assert out.err == "5 of 250,000 rows shown (--max-rows 0 for all, --csv to export)\n"


def test_an_empty_result_keeps_its_columns(small_campaign, capsys):
    query = "select key, seed from runs where false"
    assert run_cli(["results", str(small_campaign), query, "--csv"]) == 0
    assert capsys.readouterr().out == "key,seed\n"
    assert list(results(small_campaign).sql(query).columns) == ["key", "seed"]


def test_a_campaign_says_when_it_holds_runs_of_several_builds(tmp_path, monkeypatch, capsys):
    from satcc import store

    c = Campaign.open(tmp_path / "c", create_with=meta())
    c.append([ok("k1")], [RunPoint({"a": 1}, 1)])
    ours = c.builds()
    assert list(ours.values()) == [1] and list(ours) != ["unknown"]
    assert run_cli(["results", str(tmp_path / "c")]) == 0
    assert "builds" not in capsys.readouterr().err
    # Runs stored by another build (before an edit and `make dev`, say).
    monkeypatch.setattr(store, "_build", lambda: "0123456789abcdef")
    c.append([ok("k2"), ok("k3")], [RunPoint({"a": 2}, 1), RunPoint({"a": 3}, 1)])
    assert c.builds() == {"0123456789abcdef": 2, **ours}
    assert set(c.runs()["satcc_build"]) == {"0123456789abcdef", *ours}
    assert run_cli(["results", str(tmp_path / "c"), "select count(*) as n from runs"]) == 0
    err = capsys.readouterr().err
    assert "holds runs of 2 builds" in err and "0123456789abcdef (2 runs)" in err
