"""Fractional Gaussian noise (Paxson's FFT method, core `apps::fgn`) and the
Hurst estimators of `satcc.analysis.hurst` (REFERENCE.md §3)."""

import numpy as np
import pytest
from satcc import _core
from satcc.analysis import hurst_aggregated_variance, hurst_whittle
from satcc.traffic import fgn

N = 2**17
SEEDS = (1, 2, 3, 4)
TOL = 0.05


@pytest.mark.parametrize("hurst", [0.6, 0.8, 0.9])
def test_hurst_estimates_match_target(hurst):
    xs = [fgn(N, hurst, seed=s, name="lrd") for s in SEEDS]
    av = np.mean([hurst_aggregated_variance(x) for x in xs])
    wh = np.mean([hurst_whittle(x) for x in xs])
    assert abs(av - hurst) <= TOL, f"aggregated variance {av:.4f} vs H={hurst}"
    assert abs(wh - hurst) <= TOL, f"Whittle {wh:.4f} vs H={hurst}"


def test_mean_and_std_as_requested():
    x = fgn(N, 0.8, mean=5e6, std=5e6, seed=3, name="mpeg2")
    assert x.shape == (N,) and x.dtype == np.float64
    assert x.mean() == pytest.approx(5e6, rel=1e-9)
    assert x.std() == pytest.approx(5e6, rel=1e-9)


def test_core_returns_standardised_little_endian_f64():
    raw = _core.fgn(1001, 0.7, 5, "odd")
    x = np.frombuffer(raw, dtype="<f8")
    assert x.size == 1001
    assert abs(x.mean()) < 1e-12 and x.std() == pytest.approx(1.0, abs=1e-12)


def test_h_half_is_uncorrelated():
    x = fgn(N, 0.5, seed=9)
    lag1 = np.corrcoef(x[:-1], x[1:])[0, 1]
    assert abs(lag1) < 4 / np.sqrt(N)  # ~0.011: four standard errors of white noise
    assert abs(hurst_whittle(x) - 0.5) <= TOL


def test_lag1_correlation_matches_fgn_autocovariance():
    # gamma(1) = (2^(2H) - 2) / 2 for unit-variance fGn (REFERENCE.md §3.1).
    h = 0.8
    x = fgn(N, h, seed=2)
    lag1 = np.corrcoef(x[:-1], x[1:])[0, 1]
    assert lag1 == pytest.approx((2 ** (2 * h) - 2) / 2, abs=0.02)


@pytest.mark.parametrize("hurst", [0.49, 1.0, 1.5, -0.2, float("nan")])
def test_invalid_hurst_raises(hurst):
    with pytest.raises(ValueError, match=r"Hurst parameter must satisfy 0\.5 <= H < 1"):
        fgn(1000, hurst)


@pytest.mark.parametrize("n", [0, 1, 2.5])
def test_invalid_length_raises(n):
    with pytest.raises(ValueError, match="n must be"):
        fgn(n, 0.8)


def test_invalid_std_raises():
    with pytest.raises(ValueError, match="std"):
        fgn(1000, 0.8, std=-1.0)


def test_reproducible_per_seed_and_name():
    a = fgn(4096, 0.8, seed=11, name="video1")
    np.testing.assert_array_equal(a, fgn(4096, 0.8, seed=11, name="video1"))
    assert not np.array_equal(a, fgn(4096, 0.8, seed=12, name="video1"))
    assert not np.array_equal(a, fgn(4096, 0.8, seed=11, name="video2"))
    # distinct streams are (nearly) uncorrelated with each other
    b = fgn(4096, 0.8, seed=11, name="video2")
    assert abs(np.corrcoef(a, b)[0, 1]) < 0.1


@pytest.mark.parametrize("seed", [-1, 2**64, -(2**70)])
def test_a_seed_out_of_range_is_a_value_error_naming_it(seed):
    with pytest.raises(ValueError, match=f"seed must be an integer from 0 to 2\\^64-1, got {seed}"):
        fgn(16, 0.8, seed=seed)


@pytest.mark.parametrize("seed", [3.0, 3.7, np.float64(3.0), np.float32(3.0), True, "3", None])
def test_a_seed_that_is_not_an_integer_is_a_value_error(seed):
    with pytest.raises(ValueError, match="seed must be an integer"):
        fgn(16, 0.8, seed=seed)


@pytest.mark.parametrize("seed", [np.int64(7), np.uint64(7), np.int8(7), np.array(7)])
def test_numpy_integer_seeds_are_the_same_as_python_ints(seed):
    assert np.array_equal(fgn(64, 0.8, seed=seed), fgn(64, 0.8, seed=7))


def test_the_whole_u64_seed_range_is_usable():
    top = fgn(64, 0.8, seed=2**64 - 1)
    assert np.array_equal(top, fgn(64, 0.8, seed=np.uint64(2**64 - 1)))
    assert not np.array_equal(top, fgn(64, 0.8, seed=0))
