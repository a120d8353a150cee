"""Finite discrete-time Markov chains, apart from any one model.

A chain is its transition matrix P, P[i, j] the probability of moving from
state i to state j in one step. The abr-effcap analysis (satcc.analysis.effcap)
needs two kinds: the two-state chain that modulates the bottleneck's
capacity (the paper's section 3.1: state 0 the high rate, state 1 the low),
and the large, sparse embedded chain of its Markov renewal process (section
3.2), whose stationary distribution weighs the cycles' rewards (section 3.3).

- `transition_matrix`: P as a float array, checked (square, finite,
  non-negative, rows summing to 1).
- `two_state_matrix`: [[1 - p01, p01], [p10, 1 - p10]].
- `stationary_distribution`: pi P = pi, sum pi = 1: (p10, p01) / (p01 + p10)
  for two states, a dense linear solve for more.
- `n_step_matrix`: P^n of a two-state chain in closed form,
  Pi + lambda^n (I - Pi), lambda = 1 - p01 - p10 its second eigenvalue.
- `sparse_stationary_distribution`: pi of a large sparse chain with one
  closed class, by a sparse linear solve.

These are the textbook results for finite chains (Kleinrock, Queueing
Systems Vol. 1: Theory, Wiley 1975, ch. 2).
"""

from __future__ import annotations

import numpy as np
from scipy.sparse import csc_matrix, identity
from scipy.sparse.linalg import spsolve

from satcc.analysis._validate import integer, probability

__all__ = [
    "n_step_matrix",
    "sparse_stationary_distribution",
    "stationary_distribution",
    "transition_matrix",
    "two_state_matrix",
]


def transition_matrix(P: np.ndarray) -> np.ndarray:
    """P as a float array, or ValueError if it is not a transition matrix."""
    P = np.asarray(P, dtype=float)
    if P.ndim != 2 or P.shape[0] != P.shape[1] or P.shape[0] == 0:
        raise ValueError(f"a transition matrix must be square, got shape {P.shape}")
    if not np.all(np.isfinite(P)) or np.any(P < 0):
        raise ValueError("a transition matrix must have finite non-negative entries")
    if not np.allclose(P.sum(axis=1), 1.0, atol=1e-9):
        raise ValueError(f"the rows of a transition matrix must sum to 1, got {P.sum(axis=1)}")
    return P


def two_state_matrix(p01: float, p10: float | None = None) -> np.ndarray:
    """Transition matrix [[1-p01, p01], [p10, 1-p10]] of a two-state chain.

    Without p10 the chain is symmetric (p10 = p01), as in all of the
    abr-effcap paper's results (section 5.1: "the mean time in each state is
    the same"); there state 0 is the high rate, state 1 the low (section 3.1).
    """
    p01 = probability("p01", p01)
    p10 = p01 if p10 is None else probability("p10", p10)
    return np.array([[1.0 - p01, p01], [p10, 1.0 - p10]])


def stationary_distribution(P: np.ndarray) -> np.ndarray:
    """The stationary distribution pi (pi P = pi, sum 1) of a finite chain.

    Two states: pi = (p10, p01) / (p01 + p10). Larger chains: a linear solve
    with one balance equation replaced by the normalisation. A chain with
    more than one closed class has no unique answer: ValueError.
    """
    P = transition_matrix(P)
    n = P.shape[0]
    if n == 2:
        p01, p10 = P[0, 1], P[1, 0]
        if p01 + p10 == 0:
            raise ValueError("the chain never switches: its stationary distribution is not unique")
        return np.array([p10, p01]) / (p01 + p10)
    A = P.T - np.eye(n)
    A[-1, :] = 1.0
    rhs = np.zeros(n)
    rhs[-1] = 1.0
    try:
        pi = np.linalg.solve(A, rhs)
    except np.linalg.LinAlgError as exc:
        raise ValueError("the chain has no unique stationary distribution") from exc
    return pi


def n_step_matrix(P: np.ndarray, n: int) -> np.ndarray:
    """P^n of a two-state chain in closed form: Pi + lambda^n (I - Pi).

    Pi has the stationary distribution in every row and lambda = 1 - p01 - p10
    is the second eigenvalue. The abr-effcap analysis needs it for the
    channel state at the start of the cycle that follows a loss, which lasts
    several round trips (section 3.2, eq. (14)).
    """
    P = transition_matrix(P)
    if P.shape != (2, 2):
        raise ValueError(f"n_step_matrix is for two-state chains, got shape {P.shape}")
    n = integer("n", n, 0)
    p01, p10 = P[0, 1], P[1, 0]
    if p01 + p10 == 0:
        return np.eye(2)
    lam = 1.0 - p01 - p10
    Pi = np.tile(np.array([p10, p01]) / (p01 + p10), (2, 1))
    return Pi + lam**n * (np.eye(2) - Pi)


def sparse_stationary_distribution(T) -> np.ndarray:
    """pi T = pi, sum pi = 1, for a sparse chain T with one closed class.

    A linear solve with one balance equation replaced by the normalisation,
    as `stationary_distribution` does, on a scipy sparse matrix: the
    embedded chain of the abr-effcap analysis has hundreds to thousands of
    states, few of them reachable from each other in one step.
    """
    n = T.shape[0]
    if n == 1:
        return np.ones(1)
    A = (T.T - identity(n, format="csr")).tolil()
    A[n - 1, :] = np.ones(n)
    rhs = np.zeros(n)
    rhs[n - 1] = 1.0
    pi = spsolve(csc_matrix(A), rhs)
    if not np.all(np.isfinite(pi)):
        raise ValueError("the embedded chain has no unique stationary distribution")
    pi = np.clip(pi, 0.0, None)
    return pi / pi.sum()
