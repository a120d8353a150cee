# Tests for satcc.analysis.markov: the chain tools the abr-effcap analysis
# uses for its two-state capacity chain. Reference values come from outside
# the module: numpy's eigenvectors and matrix powers.

import numpy as np
import pytest
from satcc.analysis.markov import (
    n_step_matrix,
    sparse_stationary_distribution,
    stationary_distribution,
    two_state_matrix,
)
from scipy.sparse import csr_matrix

IDENTITY = np.eye(2)


def _numpy_stationary(P):
    """Left eigenvector of P for eigenvalue 1, normalised (independent of the module)."""
    w, v = np.linalg.eig(P.T)
    k = int(np.argmin(abs(w - 1)))
    vec = np.real(v[:, k])
    return vec / vec.sum()


@pytest.mark.parametrize(("p01", "p10"), [(0.1, 0.1), (0.3, 0.05), (1.0, 1.0), (0.02, 0.9)])
def test_stationary_distribution_two_states_against_numpy(p01, p10):
    P = two_state_matrix(p01, p10)
    assert np.allclose(P.sum(axis=1), 1)
    assert np.allclose(stationary_distribution(P), _numpy_stationary(P))


def test_stationary_distribution_larger_chain_against_numpy():
    rng = np.random.default_rng(7)
    P = rng.random((5, 5))
    P /= P.sum(axis=1, keepdims=True)
    assert np.allclose(stationary_distribution(P), _numpy_stationary(P))


def test_symmetric_chain_spends_half_the_time_in_each_state():
    assert np.allclose(stationary_distribution(two_state_matrix(0.2)), [0.5, 0.5])


def test_stationary_distribution_rejects_a_chain_that_never_switches():
    with pytest.raises(ValueError, match="not unique"):
        stationary_distribution(IDENTITY)


@pytest.mark.parametrize(("p01", "p10"), [(0.15, 0.15), (0.6, 0.6), (0.3, 0.7), (1.0, 1.0)])
@pytest.mark.parametrize("n", [0, 1, 2, 6, 7, 13])
def test_n_step_matrix_against_matrix_power(p01, p10, n):
    P = two_state_matrix(p01, p10)
    assert np.allclose(n_step_matrix(P, n), np.linalg.matrix_power(P, n), atol=1e-12)


def test_sparse_stationary_distribution_against_numpy():
    rng = np.random.default_rng(11)
    P = rng.random((6, 6)) * (rng.random((6, 6)) < 0.5) + np.eye(6) * 0.1
    P /= P.sum(axis=1, keepdims=True)
    assert np.allclose(sparse_stationary_distribution(csr_matrix(P)), _numpy_stationary(P))
