# `satcc leo`: the presets listed, a pair's summary and series written,
# and bad input (unknown shell or city, a malformed pair, a non-positive
# duration or step, an unknown output format) exiting 2 with the reason.

import pandas as pd
import pytest
from cli_helpers import call


def test_shells_lists_the_three_presets(capsys):
    status, out, _ = call(capsys, "leo", "shells")
    assert status == 0
    assert [line.split()[0] for line in out.splitlines()] == [
        "starlink-s1",
        "kuiper-k1",
        "telesat-t1",
    ]
    assert "72 x 22 = 1584" in out


def test_paths_prints_a_summary_and_writes_the_series(capsys, tmp_path):
    out_file = tmp_path / "pm.csv"
    status, out, err = call(
        capsys, "leo", "paths", "--shell", "kuiper-k1", "--pair", "Manila:Dalian",
        "--duration", "2", "--step", "0.5", "--out", str(out_file),
    )  # fmt: skip
    assert status == 0, err
    assert out.startswith("Manila:Dalian: RTT min 29.38 / mean 29.40 / max 29.42 ms")
    assert "0 path changes, unreachable 0.0 s of 2 s" in out
    table = pd.read_csv(out_file)
    assert list(table.columns) == ["pair", "t_s", "rtt_ms", "hops"]
    assert table.t_s.tolist() == [0.0, 0.5, 1.0, 1.5]
    assert table.hops[0] == "Manila-184-183-217-Dalian"


@pytest.mark.parametrize(
    "args,words",
    [
        (["--shell", "iridium"], ["unknown shell 'iridium'", "starlink-s1"]),
        (["--pair", "Paris:Atlantis"], ["unknown city 'Atlantis'"]),
        (["--pair", "Paris"], ["--pair 'Paris'", "SOURCE:DESTINATION"]),
        (["--duration", "-1"], ["duration must be a positive"]),
        (["--step", "0"], ["step must be a positive"]),
        (["--out", "x.txt"], ["--out x.txt", ".csv or .parquet"]),
        (["--pair", "Paris:paris"], ["--pair Paris:paris", "same city"]),
    ],
)
def test_bad_input_exits_2_naming_why(capsys, args, words):
    base = {"--pair": "Paris:Moscow"}
    for k, v in zip(args[::2], args[1::2], strict=True):
        base[k] = v
    status, _, err = call(capsys, "leo", "paths", *[x for kv in base.items() for x in kv])
    assert status == 2
    assert err.startswith("error: ")
    for w in words:
        assert w in err
