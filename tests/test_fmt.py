# satcc.fmt: every number a person reads, written one way everywhere.

from __future__ import annotations

import math

import numpy as np
import pytest
from satcc import fmt

MISSING_VALUES = [None, math.nan, np.float64("nan")]


@pytest.mark.parametrize("value", MISSING_VALUES)
@pytest.mark.parametrize(
    "format_",
    [fmt.number, fmt.count, fmt.percent, fmt.signed_percent, fmt.rate, fmt.seconds],
)
def test_missing_values_read_n_a(format_, value):
    assert format_(value) == "n/a"


def test_is_missing():
    assert fmt.is_missing(None) and fmt.is_missing(math.nan)
    assert not fmt.is_missing(0) and not fmt.is_missing(0.0) and not fmt.is_missing("")
    assert not fmt.is_missing(math.inf)


@pytest.mark.parametrize(
    "format_,value,text",
    [
        (fmt.number, 1 / 3, "0.3333"),
        (fmt.number, 123456.0, "1.235e+05"),
        (fmt.count, 1234567, "1,234,567"),
        (fmt.count, 12.9, "12"),
        (fmt.percent, 0.12345, "12.35%"),
        (fmt.percent, 0, "0.00%"),
        (fmt.signed_percent, 0.0125, "+1.25%"),
        (fmt.signed_percent, -0.5, "-50.00%"),
        (fmt.rate, 0, "0 bps"),
        (fmt.rate, 999, "999 bps"),
        (fmt.rate, 1000, "1 kbps"),
        (fmt.rate, 2.048e6, "2.048 Mbps"),
        (fmt.rate, 1.5e10, "15 Gbps"),
        (fmt.seconds, 0, "0 s"),
        (fmt.seconds, 0.25, "250 ms"),
        (fmt.seconds, 2.5e-5, "25 µs"),
        (fmt.seconds, 3e-9, "3 ns"),
        (fmt.seconds, 600, "600 s"),
        (fmt.seconds, -0.002, "-2 ms"),
    ],
)
def test_single_values(format_, value, text):
    assert format_(value) == text


def test_number_digits():
    assert fmt.number(math.pi, 2) == "3.1"
    assert fmt.number(np.float32(0.5)) == "0.5"


def test_with_unit():
    assert fmt.with_unit("12", "pkt") == "12 pkt"
    assert fmt.with_unit("12", "") == "12"
    assert fmt.with_unit(fmt.count(None), "B") == "n/a"


@pytest.mark.parametrize(
    "kind,top,scale",
    [
        ("rate", 4.2e6, (1e6, "Mbps")),
        ("rate", 12.0, (1.0, "bps")),
        ("rate", -3e9, (1e9, "Gbps")),
        ("time", 0.004, (1e-3, "ms")),
        ("time", 5e-8, (1e-9, "ns")),
        ("time", 0.0, (1.0, "s")),
        ("time", math.nan, (1.0, "s")),
        ("percent", 0.5, (0.01, "%")),
        ("count", 1e6, (1.0, "")),
        ("number", 1e-6, (1.0, "")),
    ],
)
def test_scale(kind, top, scale):
    assert fmt.scale(kind, top) == scale


def test_scale_refuses_an_unknown_kind():
    with pytest.raises(ValueError, match="unknown kind 'bytes'"):
        fmt.scale("bytes", 1.0)


def test_every_kind_has_a_formatter_and_a_scale():
    for kind, format_ in fmt.FORMATS.items():
        assert isinstance(format_(1.0), str)
        assert fmt.scale(kind, 1.0)[0] > 0


def test_mean_ci():
    assert fmt.mean_ci(4.0e6, 0.0123e6, 1e6) == "4 ± 0.012"
    assert fmt.mean_ci(4.0e6, math.nan, 1e6) == "4"
    assert fmt.mean_ci(math.nan, 1.0) == "n/a"
    assert fmt.mean_ci(None, None) == "n/a"


@pytest.mark.parametrize(
    "value,kind,text",
    [
        (0.05, "relative", "5%"),
        (0.2, "absolute", "±0.2"),
        (2.0, "factor", "×2"),
        (1.5, "factor", "×1.5"),
        (0.0, "none", "n/a"),
        (math.nan, "relative", "n/a"),
        (None, "absolute", "n/a"),
    ],
)
def test_tolerance(value, kind, text):
    assert fmt.tolerance(value, kind) == text


def test_verdict():
    assert [fmt.verdict(p) for p in (True, False, None, math.nan)] == [
        "PASS",
        "FAIL",
        "shown",
        "shown",
    ]
    assert fmt.verdict(np.bool_(True)) == "PASS"
    assert fmt.verdict_markup(True) == "[green]PASS[/]"
    assert fmt.verdict_markup(False) == "[bold red]FAIL[/]"
    assert fmt.verdict_markup(None) == "[dim]shown[/]"
    # A check (a row with a tolerance) without a verdict: nothing measured.
    assert [fmt.verdict(p, check=True) for p in (True, None, math.nan)] == [
        "PASS",
        "not measured",
        "not measured",
    ]
    assert fmt.verdict_markup(None, check=True) == "[dim]not measured[/]"


def test_pick_unit_uses_the_last_unit_below_the_smallest():
    assert fmt.pick_unit(fmt.SIZE_UNITS, 0.5) == (1.0, "B")
    assert fmt.pick_unit(fmt.SIZE_UNITS, 2048) == (1e3, "kB")
