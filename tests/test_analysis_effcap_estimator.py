# Tests for satcc.analysis.effcap_estimator: the effcap feedback of the
# abr-effcap paper's section 4.1. Reference values come from the formula of
# /work/shared/REFERENCE.md section 8 for the block estimator, its delta -> 0
# and delta -> infinity limits, and the paper's statements about slow and
# fast capacity changes.

import math

import numpy as np
import pytest
from satcc.analysis.effcap_estimator import effcap_estimate, effcap_series


def _reference_block_estimator(x, block_len, theta):
    """REFERENCE.md section 8: disjoint blocks, -1/(theta T) ln((1/K) sum exp(-theta S_k))."""
    K = x.size // block_len
    S = x[x.size - K * block_len :].reshape(K, block_len).sum(axis=1)
    return -math.log(np.mean(np.exp(-theta * S))) / (theta * block_len)


def _trace(p, n, seed=1, high=1.0, low=0.5):
    """Per-interval capacity of a symmetric two-state chain switching with probability p."""
    rng = np.random.default_rng(seed)
    flips = rng.random(n) < p
    state = np.cumsum(flips) % 2
    return np.where(state == 0, high, low)


def test_instcap_is_effcap_with_one_block_of_one_sample():
    x = _trace(0.2, 100)
    for delta in (0.0, 0.5, math.inf):
        assert effcap_estimate(x, 1, 1, delta) == x[-1]


def test_effcap_minimum_of_sliding_block_averages():
    x = np.array([1.0, 0.5, 0.5, 1.0, 1.0, 1.0, 0.5, 1.0])
    # M = 3, N = 4 most recent sliding blocks: [3:6], [4:7], [5:8] and [2:5].
    blocks = [x[2:5].mean(), x[3:6].mean(), x[4:7].mean(), x[5:8].mean()]
    assert effcap_estimate(x, 3, 4) == pytest.approx(min(blocks))
    assert effcap_estimate(x, 3, 4, delta=0) == pytest.approx(np.mean(blocks))


@pytest.mark.parametrize("stride", [1, 2, 5])
def test_effcap_delta_limits(stride):
    x = _trace(0.1, 400, seed=3) * 20  # packets per interval
    mean_blocks = effcap_estimate(x, 5, 30, delta=0, stride=stride)
    minimum = effcap_estimate(x, 5, 30, delta=math.inf, stride=stride)
    assert effcap_estimate(x, 5, 30, delta=1e-9, stride=stride) == pytest.approx(mean_blocks)
    assert effcap_estimate(x, 5, 30, delta=1e4, stride=stride) == pytest.approx(minimum, rel=1e-3)
    values = [effcap_estimate(x, 5, 30, delta=d, stride=stride) for d in (0, 0.01, 0.1, 1, 10)]
    assert all(a >= b - 1e-12 for a, b in zip(values, values[1:], strict=False))
    assert minimum <= values[-1] <= values[0]


@pytest.mark.parametrize("theta", [0.01, 0.2, 3.0])
def test_effcap_with_disjoint_blocks_is_the_reference_block_estimator(theta):
    x = _trace(0.05, 240, seed=5) * 7
    got = effcap_estimate(x, 6, 40, delta=theta, stride=6)
    assert got == pytest.approx(_reference_block_estimator(x, 6, theta), rel=1e-12)


def test_effcap_follows_slow_changes_like_instcap():
    # Section 4.1: "if the network changes are slow, all N averages equal the
    # bottleneck's capacity ... EFFCAP is INSTCAP" (apart from the few intervals
    # after each change, M + N - 1 at most).
    x = _trace(0.002, 5000, seed=11)
    fb = effcap_series(x, 7, 8)
    agree = np.mean(fb[20:] == x[20:])
    assert agree > 0.9


def test_effcap_feeds_back_the_mean_when_changes_are_fast():
    # Section 4.1: "if the network variations are fast, EFFCAP is (close to) the
    # mean capacity". A chain that switches every interval (tau = T) alternates,
    # so any M-average is within (high - low) / (2 M) of the mean.
    x = _trace(1.0, 200)
    fb = effcap_series(x, 7, 8)[50:]
    assert np.all(np.abs(fb - 0.75) <= 0.25 / 7 + 1e-12)


def test_effcap_series_matches_the_estimate_at_each_interval():
    x = _trace(0.1, 60, seed=2)
    fb = effcap_series(x, 4, 3, delta=0.5, stride=2)
    need = 4 + 2 * 2
    assert np.all(np.isnan(fb[: need - 1]))
    for t in range(need - 1, x.size):
        assert fb[t] == pytest.approx(effcap_estimate(x[: t + 1], 4, 3, 0.5, 2))


@pytest.mark.parametrize(
    ("args", "match"),
    [
        ((np.ones(4), 3, 3), "need 5 samples"),
        ((np.ones((2, 2)), 1, 1), "one-dimensional"),
        ((np.array([1.0, np.nan]), 1, 1), "finite"),
        ((np.ones(5), 0, 1), "block_len"),
    ],
)
def test_effcap_bad_arguments(args, match):
    with pytest.raises(ValueError, match=match):
        effcap_estimate(*args)
