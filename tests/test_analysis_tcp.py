# Tests for the closed-form TCP throughput models (satcc.analysis.tcp). The
# reference values are computed here from the published formulas written out
# term by term, independently of the module's code.

import math

import pytest
import satcc.analysis
from satcc.analysis import (
    MATHIS_C_ACK_EVERY_SEGMENT,
    MATHIS_C_DELAYED_ACK,
    bdp_bytes,
    mathis_throughput,
    padhye_approx,
    padhye_throughput,
    padhye_window,
    window_limited_throughput,
)

MSS = 1460
P_GRID = [1e-6, 1e-5, 1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 3e-2, 0.1, 0.2, 0.4, 0.6, 0.9]


def padhye_by_hand(mss, rtt, p, t0, b, wmax=None):
    """Padhye et al. 1998 eq. (31)/(32), written out with plain powers."""
    a = (2 + b) / (3 * b)
    w = a + (8 * (1 - p) / (3 * b * p) + a**2) ** 0.5
    q = 1 - p
    if wmax is not None and w >= wmax:
        w = wmax
        rtt_term = rtt * (b * wmax / 8 + (1 - p) / (p * wmax) + 2)
    else:
        rtt_term = rtt * (b * w / 2 + 1)
    q_hat = min(1, (1 - q**3) * (1 + q**3 * (1 - q ** (w - 3))) / (1 - q**w))
    f = 1 + p + 2 * p**2 + 4 * p**3 + 8 * p**4 + 16 * p**5 + 32 * p**6
    numerator = (1 - p) / p + w + q_hat / (1 - p)
    denominator = rtt_term + q_hat * t0 * f / (1 - p)
    return mss * numerator / denominator


# ---------------------------------------------------------------------------
# Mathis et al. 1997


def test_mathis_value():
    expected = 1460 / 0.1 * 1.2247 / 0.1
    assert mathis_throughput(1460, 0.1, 0.01) == pytest.approx(expected, rel=1e-4)
    exact = 1460 / 0.1 * math.sqrt(1.5) / math.sqrt(0.01)
    assert mathis_throughput(1460, 0.1, 0.01) == pytest.approx(exact, rel=1e-12)


def test_mathis_constant_and_scaling():
    assert MATHIS_C_ACK_EVERY_SEGMENT == pytest.approx(1.2247, abs=1e-4)
    assert MATHIS_C_DELAYED_ACK == pytest.approx(0.8660, abs=1e-4)
    delayed = mathis_throughput(MSS, 0.5, 1e-3, c=MATHIS_C_DELAYED_ACK)
    assert delayed / mathis_throughput(MSS, 0.5, 1e-3) == pytest.approx(math.sqrt(0.5))
    # Four times the loss halves the rate; twice the RTT halves it too.
    assert mathis_throughput(MSS, 0.5, 4e-3) == pytest.approx(mathis_throughput(MSS, 0.5, 1e-3) / 2)
    assert mathis_throughput(MSS, 1.0, 1e-3) == pytest.approx(mathis_throughput(MSS, 0.5, 1e-3) / 2)
    assert mathis_throughput(MSS, 0.5, 0) == math.inf


# ---------------------------------------------------------------------------
# Padhye et al. 1998: the full model


@pytest.mark.parametrize(
    ("rtt", "p", "t0", "b", "wmax"),
    [
        (0.2, 0.02, 1.5, 2, None),
        (0.55, 1e-3, 1.0, 2, None),
        (0.55, 0.3, 3.0, 1, None),
        (0.1, 0.05, 0.4, 1, 100),  # W(p) < Wmax: the unconstrained branch
        (0.55, 1e-4, 1.0, 2, 20),  # W(p) >= Wmax: the window-limited branch
        (0.55, 1e-2, 1.0, 2, 4.5),
    ],
)
def test_full_model_matches_the_formula(rtt, p, t0, b, wmax):
    expected = padhye_by_hand(MSS, rtt, p, t0, b, wmax)
    got = padhye_throughput(MSS, rtt, p, t0, b=b, wmax_segments=wmax)
    assert got == pytest.approx(expected, rel=1e-9)


def test_window_formula():
    # b = 2: W(p) = 2/3 + sqrt(4(1-p)/(3p) + 4/9).
    p = 0.01
    assert padhye_window(p, 2) == pytest.approx(2 / 3 + math.sqrt(4 * 0.99 / 0.03 + 4 / 9))
    assert padhye_window(p, 1) == pytest.approx(1 + math.sqrt(8 * 0.99 / 0.03 + 1))
    assert padhye_window(0) == math.inf


def test_small_p_window_limit_tends_to_wmax_over_rtt():
    wmax, rtt = 44, 0.55
    limit = MSS * wmax / rtt
    assert padhye_throughput(MSS, rtt, 0, 1.0, wmax_segments=wmax) == limit
    previous_gap = math.inf
    for p in (1e-5, 1e-6, 1e-7, 1e-8, 1e-9):
        gap = 1 - padhye_throughput(MSS, rtt, p, 1.0, wmax_segments=wmax) / limit
        assert 0 < gap < previous_gap
        previous_gap = gap
    assert previous_gap < 1e-5
    # The same limit is the plain window-limited throughput of Wmax segments.
    assert limit == pytest.approx(window_limited_throughput(wmax * MSS, rtt))


def test_never_above_the_window_limit():
    wmax, rtt = 30, 0.55
    for p in P_GRID:
        full = padhye_throughput(MSS, rtt, p, 1.0, wmax_segments=wmax)
        assert full <= MSS * wmax / rtt * (1 + 1e-12)


@pytest.mark.parametrize("wmax", [None, 12, 64])
@pytest.mark.parametrize("model", [padhye_throughput, padhye_approx])
def test_decreasing_in_p(model, wmax):
    rates = [model(MSS, 0.55, p, 1.0, wmax_segments=wmax) for p in P_GRID]
    for higher, lower in zip(rates, rates[1:], strict=False):
        if wmax is None:
            assert lower < higher
        else:
            assert lower <= higher * (1 + 1e-12)
    # Unlimited windows: strictly decreasing, by orders of magnitude overall.
    if wmax is None:
        assert rates[0] / rates[-1] > 1e3


def test_mathis_decreasing_in_p():
    rates = [mathis_throughput(MSS, 0.55, p) for p in P_GRID]
    assert all(lower < higher for higher, lower in zip(rates, rates[1:], strict=False))


@pytest.mark.parametrize("model", [padhye_throughput, padhye_approx])
@pytest.mark.parametrize("p", [1e-4, 1e-3, 1e-2, 0.1])
def test_an_ack_per_segment_is_faster_than_delayed_acks(model, p):
    # b = 1 opens the window twice as fast in congestion avoidance as b = 2.
    assert model(MSS, 0.55, p, 1.0, b=1) > model(MSS, 0.55, p, 1.0, b=2)


def test_timeouts_make_the_full_model_slower_than_mathis():
    # Mathis with the matching constant (delayed ACKs: b = 2) ignores timeouts.
    for p in (1e-3, 1e-2, 0.1):
        full = padhye_throughput(MSS, 0.55, p, 1.0, b=2)
        assert full < mathis_throughput(MSS, 0.55, p, c=MATHIS_C_DELAYED_ACK)
    # ... and at small p the two agree within a few percent.
    full = padhye_throughput(MSS, 0.55, 1e-5, 1.0, b=2)
    mathis = mathis_throughput(MSS, 0.55, 1e-5, c=MATHIS_C_DELAYED_ACK)
    assert full == pytest.approx(mathis, rel=0.01)


def test_larger_rto_lowers_throughput():
    assert padhye_throughput(MSS, 0.55, 0.01, 3.0) < padhye_throughput(MSS, 0.55, 0.01, 1.0)


# ---------------------------------------------------------------------------
# Padhye et al. 1998: the approximation, eq. (33)


def test_approximation_matches_its_formula():
    rtt, p, t0, b = 0.55, 0.02, 1.2, 2
    rate = 1 / (
        rtt * math.sqrt(2 * b * p / 3)
        + t0 * min(1, 3 * math.sqrt(3 * b * p / 8)) * p * (1 + 32 * p * p)
    )
    assert padhye_approx(MSS, rtt, p, t0, b=b) == pytest.approx(MSS * rate, rel=1e-12)
    # The receiver window caps it at Wmax / RTT.
    assert padhye_approx(MSS, rtt, 1e-6, t0, wmax_segments=10) == pytest.approx(MSS * 10 / rtt)
    assert padhye_approx(MSS, rtt, 0, t0, wmax_segments=10) == MSS * 10 / rtt


@pytest.mark.parametrize("p", [1e-5, 1e-4, 1e-3, 3e-3, 1e-2])
@pytest.mark.parametrize("b", [1, 2])
def test_approximation_is_close_to_the_full_model_at_small_p(p, b):
    full = padhye_throughput(MSS, 0.55, p, 1.0, b=b)
    approx = padhye_approx(MSS, 0.55, p, 1.0, b=b)
    assert approx == pytest.approx(full, rel=0.03)


# ---------------------------------------------------------------------------
# Windows and the bandwidth-delay product


def test_window_limited_throughput_and_bdp():
    # 64 KiB over a GEO round trip of 550 ms: about 119 kB/s, under 1 Mb/s.
    assert window_limited_throughput(65536, 0.55) == pytest.approx(65536 / 0.55)
    assert window_limited_throughput(65536, 0.55) * 8 < 1e6
    # 10 Mb/s over 500 ms needs 625 kB in flight.
    assert bdp_bytes(10e6, 0.5) == pytest.approx(625_000)
    assert window_limited_throughput(bdp_bytes(10e6, 0.5), 0.5) * 8 == pytest.approx(10e6)


@pytest.mark.parametrize(
    "call",
    [
        lambda: mathis_throughput(MSS, 0, 0.01),
        lambda: mathis_throughput(MSS, 0.1, -0.1),
        lambda: mathis_throughput(0, 0.1, 0.01),
        lambda: padhye_throughput(MSS, 0.1, 1.0, 1.0),
        lambda: padhye_throughput(MSS, 0.1, 0.01, 0),
        lambda: padhye_throughput(MSS, 0.1, 0.01, 1.0, b=0.5),
        lambda: padhye_throughput(MSS, 0.1, 0.01, 1.0, wmax_segments=0),
        lambda: padhye_approx(MSS, 0.1, math.nan, 1.0),
        lambda: window_limited_throughput(-1, 0.1),
        lambda: bdp_bytes(10e6, -0.5),
    ],
)
def test_out_of_domain_arguments_are_refused(call):
    with pytest.raises(ValueError):
        call()


def test_package_reexports_and_docstring():
    assert "closed-form models the studies use, checked against the simulator" in (
        satcc.analysis.__doc__
    )
    assert set(satcc.analysis.__all__) >= {
        "mathis_throughput",
        "padhye_throughput",
        "padhye_approx",
        "window_limited_throughput",
        "bdp_bytes",
    }


def test_tfrc_equation_is_rfc_5348s():
    from satcc.analysis.tcp import tfrc_equation

    # s = 1000 B, R = 0.1 s, p = 0.01, t_RTO = 4R = 0.4 s:
    # 1000 / (0.1·√(0.02/3) + 0.4·3·√(0.03/8)·0.01·1.0032) = 112 332.2 B/s.
    assert tfrc_equation(1000, 0.1, 0.01) == pytest.approx(112_332.2, abs=0.1)
    # No cap on 3√(3p/8) (Padhye's approximation has one): at p = 0.5 the
    # RFC's equation is below padhye_approx.
    assert tfrc_equation(1000, 0.1, 0.5) < padhye_approx(1000, 0.1, 0.5, 0.4, b=1)
    assert tfrc_equation(1000, 0.1, 0.01, t_rto_s=1.0) < tfrc_equation(1000, 0.1, 0.01)
    with pytest.raises(ValueError):
        tfrc_equation(1000, 0.1, 0.0)
