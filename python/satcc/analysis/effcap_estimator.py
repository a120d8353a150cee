"""The effcap estimator: effective capacity from per-interval capacity samples.

The abr-effcap paper (`../shared/papers/tcp-end-to-end-abr_effcap.txt`
beside the repository), section 4.1, has the bottleneck feed back not its
instantaneous capacity (INSTCAP) but an effective capacity (EFFCAP)
estimated from its recent capacity samples C_ij, the i-th of M samples in
block j of N, eq. (25):

    effcap = -1/(M delta) log( (1/N) sum_j exp(-delta sum_i C_ij) )

and its delta -> infinity limit, eq. (31), the minimum block average
min_j (1/M) sum_i C_ij, which is what the paper feeds back. The blocks
"need not be disjoint" (Fig. 7: sliding blocks, one sample apart); with
disjoint blocks it is the block estimator of the effective capacity in
REFERENCE.md section 8. delta -> 0 gives the mean of the block averages.
The simulator's explicit-rate port computes the same feedback as a run
goes (net/explicit_rate.rs); these functions compute it from a trace.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import logsumexp

from satcc.analysis._validate import integer

__all__ = ["effcap_estimate", "effcap_series"]


def _samples(samples) -> np.ndarray:
    x = np.asarray(samples, dtype=float)
    if x.ndim != 1:
        raise ValueError(f"samples must be a one-dimensional array, got shape {x.shape}")
    if not np.all(np.isfinite(x)):
        raise ValueError("samples must be finite")
    return x


def _block_sums(x: np.ndarray, block_len: int, n_blocks: int, stride: int) -> np.ndarray:
    """Sums of the n_blocks most recent blocks of block_len samples, `stride` apart."""
    need = block_len + (n_blocks - 1) * stride
    if x.size < need:
        raise ValueError(
            f"{n_blocks} blocks of {block_len} samples, {stride} apart, need {need} samples; "
            f"got {x.size}"
        )
    csum = np.concatenate(([0.0], np.cumsum(x[x.size - need :])))
    ends = need - stride * np.arange(n_blocks)
    return csum[ends] - csum[ends - block_len]


def _effcap_from_sums(sums: np.ndarray, block_len: int, delta: float) -> float:
    if delta == math.inf:
        return float(sums.min()) / block_len
    if delta == 0:
        return float(sums.mean()) / block_len
    n = sums.size
    return -float(logsumexp(-delta * sums) - math.log(n)) / (block_len * delta)


def effcap_estimate(
    samples,
    block_len: int,
    n_blocks: int,
    delta: float = math.inf,
    stride: int = 1,
) -> float:
    """Effcap feedback from per-interval capacity samples (section 4.1, eqs. (25), (31)).

    With C_ij the i-th sample of block j (M = block_len samples per block,
    N = n_blocks blocks, the most recent ending at the last sample, each
    `stride` samples before the next; stride 1 is the paper's sliding blocks
    of Fig. 7):

        effcap = -1/(M delta) log( (1/N) sum_j exp(-delta sum_i C_ij) )

    in the units of the samples (a capacity per interval). delta = inf gives
    the paper's feedback, eq. (31): the minimum over j of the block averages
    (1/M) sum_i C_ij; delta = 0 the limit delta -> 0, the mean of the block
    averages. M = N = 1 feeds back the last sample: INSTCAP. delta is per
    unit of the samples, applied to block sums as in eq. (25).
    """
    x = _samples(samples)
    block_len = integer("block_len", block_len, 1)
    n_blocks = integer("n_blocks", n_blocks, 1)
    stride = integer("stride", stride, 1)
    delta = float(delta)
    if not (delta >= 0 and not math.isnan(delta)):
        raise ValueError(f"delta must be >= 0 (or inf), got {delta!r}")
    return _effcap_from_sums(_block_sums(x, block_len, n_blocks, stride), block_len, delta)


def effcap_series(
    samples,
    block_len: int,
    n_blocks: int,
    delta: float = math.inf,
    stride: int = 1,
) -> np.ndarray:
    """`effcap_estimate` after every sample: the feedback sent at each interval.

    Entry t uses samples[: t + 1]; it is NaN until block_len + (n_blocks - 1)
    * stride samples have been seen.
    """
    x = _samples(samples)
    block_len = integer("block_len", block_len, 1)
    n_blocks = integer("n_blocks", n_blocks, 1)
    stride = integer("stride", stride, 1)
    need = block_len + (n_blocks - 1) * stride
    out = np.full(x.size, np.nan)
    for t in range(need - 1, x.size):
        out[t] = effcap_estimate(x[: t + 1], block_len, n_blocks, delta, stride)
    return out
