"""Hurst-parameter estimators for long-range dependent series (REFERENCE.md §3.4).

- `hurst_aggregated_variance`: variance-time plot. The block means of size m
  of a self-similar series have variance sigma^2 m^(2H-2); the least-squares
  slope beta of log s^2(m) against log m gives H = 1 + beta/2 (Beran 1994,
  §4.4; Taqqu, Teverovsky & Willinger 1995, "Estimators for long-range
  dependence: an empirical study", Fractals 3(4)).
- `hurst_whittle`: Whittle's approximate maximum-likelihood estimator for the
  fractional Gaussian noise model (Beran 1994, §5.5; Taqqu et al. 1995), with
  the fGn spectral density evaluated by Paxson's (1997) approximation of the
  aliasing sum.
"""

import numpy as np
from scipy.optimize import minimize_scalar
from scipy.special import digamma, gamma


def _as_series(x) -> np.ndarray:
    a = np.asarray(x, dtype=float).ravel()
    if a.size < 100:
        raise ValueError(f"need at least 100 samples to estimate H, got {a.size}")
    if not np.all(np.isfinite(a)):
        raise ValueError("series contains NaN or infinite values")
    return a


def hurst_aggregated_variance(
    x,
    m_min: int = 10,
    m_max: int | None = None,
    points: int = 20,
    bias_correction: bool = True,
) -> float:
    """Aggregated-variance (variance-time) estimate of H.

    For `points` log-spaced block sizes m in [m_min, m_max], the series is cut
    into k = floor(N/m) non-overlapping blocks and s^2(m) is the sample
    variance (ddof=1) of the k block means; log s^2(m) is fitted on log m with
    slope beta = 2H - 2.

    m_max defaults to N/100 (at least 100 blocks), not the N/10 that
    REFERENCE.md §3.4 gives as an example: with only ~10 blocks log s^2(m) is
    biased by about -1/(k-1) and very noisy, which drags the slope down.

    With `bias_correction=False` this is the textbook least-squares slope,
    H = 1 + beta/2. It underestimates H under strong dependence (about -0.04
    at H = 0.9, N = 2^17; Taqqu et al. 1995 report the same tendency), because
    each s^2(m) removes the sample mean, whose variance is large for LRD
    series. With `bias_correction=True` (default) H is instead fitted by least
    squares (intercept free) to the expected log-variance under the fGn model:
        log s^2(m) ~ c + (2H-2) log m + log((k - k^(2H-1)) / (k-1))
                       + psi((k-1)/2) - log((k-1)/2),
    where the third term is exact for fGn (block means of fGn are fGn with the
    same H, so E[s^2] = sigma^2 m^(2H-2) (k - k^(2H-1))/(k-1)) and the last is
    E[log] of a chi-square variance estimate with k-1 degrees of freedom
    (approximate: the block means are correlated).
    """
    a = _as_series(x)
    n = a.size
    m_max = n // 100 if m_max is None else m_max
    if not 2 <= m_min < m_max <= n // 2:
        raise ValueError(f"need 2 <= m_min < m_max <= N/2, got {m_min}, {m_max} (N={n})")
    ms = np.unique(np.geomspace(m_min, m_max, points).astype(int))
    ks = n // ms
    log_var = np.log(
        [a[: k * m].reshape(k, m).mean(axis=1).var(ddof=1) for m, k in zip(ms, ks, strict=True)]
    )
    log_m = np.log(ms)
    if not bias_correction:
        return float(1.0 + np.polyfit(log_m, log_var, 1)[0] / 2.0)

    log_chi2_bias = digamma((ks - 1) / 2) - np.log((ks - 1) / 2)

    def sse(h):
        pred = (2 * h - 2) * log_m + np.log((ks - ks ** (2 * h - 1)) / (ks - 1)) + log_chi2_bias
        r = log_var - pred
        r -= r.mean()
        return float(r @ r)

    res = minimize_scalar(sse, bounds=(0.01, 0.99), method="bounded", options={"xatol": 1e-6})
    return float(res.x)


def fgn_spectral_density(lam, hurst: float) -> np.ndarray:
    """Spectral density of unit-variance fGn at 0 < lam <= pi, with the
    aliasing sum approximated by Paxson's corrected estimate B3''
    (REFERENCE.md §3.2; the same formula as the core generator)."""
    lam = np.asarray(lam, dtype=float)
    h = hurst
    d, dp = -2.0 * h - 1.0, -2.0 * h
    k = np.arange(1, 5)[:, None]
    a = 2 * np.pi * k + lam
    b = 2 * np.pi * k - lam
    b3 = (a[:3] ** d + b[:3] ** d).sum(axis=0) + (a[2:] ** dp + b[2:] ** dp).sum(axis=0) / (
        8 * np.pi * h
    )
    b3c = (1.0002 - 0.000134 * lam) * (b3 - 2.0 ** (-7.65 * h - 7.4))
    amp = 2 * np.sin(np.pi * h) * gamma(2 * h + 1) * (1 - np.cos(lam))
    return amp * (lam**d + b3c)


def hurst_whittle(x, bounds: tuple[float, float] = (0.01, 0.99)) -> float:
    """Whittle estimate of H under the fGn model.

    With the periodogram I_j = |sum_t x_t e^{-i lam_j t}|^2 / (2 pi N) at the
    Fourier frequencies lam_j = 2 pi j / N, j = 1 .. floor((N-1)/2), H
    minimises log(mean_j I_j / f_j) + mean_j log f_j, the profile of the
    Whittle likelihood over the scale (REFERENCE.md §3.4).
    """
    a = _as_series(x)
    n = a.size
    a = a - a.mean()
    j = np.arange(1, (n - 1) // 2 + 1)
    lam = 2 * np.pi * j / n
    periodogram = np.abs(np.fft.rfft(a)[j]) ** 2 / (2 * np.pi * n)

    def objective(h):
        f = fgn_spectral_density(lam, h)
        return np.log(np.mean(periodogram / f)) + np.mean(np.log(f))

    res = minimize_scalar(objective, bounds=bounds, method="bounded", options={"xatol": 1e-6})
    return float(res.x)
