//! Fractional Gaussian noise (fGn) by Paxson's FFT method: V. Paxson, "Fast,
//! approximate synthesis of fractional Gaussian noise for generating
//! self-similar network traffic", Computer Communication Review 27(5), 1997
//! (also LBL-36750, 1995). Spectrum, corrected B3'' sum and the four
//! generation steps follow REFERENCE.md §3.2.
//!
//! The sequence is used, e.g., as the long-range dependent rate process of
//! MPEG-2 VBR video sources (Hurst 0.8, Garrett & Willinger 1994).

use std::f64::consts::PI;

use rustfft::num_complex::Complex;
use rustfft::FftPlanner;

use crate::engine::RngStream;

/// Invalid generator parameters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FgnError(pub String);

impl std::fmt::Display for FgnError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for FgnError {}

/// Γ(x) for x ≥ 0.5 (Lanczos approximation, g = 7, 9 terms; relative error
/// ~1e-15). Only Γ(2H+1) with 2H+1 ∈ [2, 3) is needed here.
fn gamma(x: f64) -> f64 {
    const G: f64 = 7.0;
    const P: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    let x = x - 1.0;
    let t = x + G + 0.5;
    let a = P[0]
        + P[1..]
            .iter()
            .enumerate()
            .map(|(i, p)| p / (x + (i + 1) as f64))
            .sum::<f64>();
    (2.0 * PI).sqrt() * t.powf(x + 0.5) * (-t).exp() * a
}

/// Paxson's B3(λ, H): three terms of the aliasing sum plus an integral
/// estimate of the tail.
fn b3(lambda: f64, hurst: f64) -> f64 {
    let d = -2.0 * hurst - 1.0;
    let dp = -2.0 * hurst;
    let a = |k: f64| 2.0 * PI * k + lambda;
    let b = |k: f64| 2.0 * PI * k - lambda;
    let head: f64 = (1..=3)
        .map(|k| a(k as f64).powf(d) + b(k as f64).powf(d))
        .sum();
    let tail = a(3.0).powf(dp) + b(3.0).powf(dp) + a(4.0).powf(dp) + b(4.0).powf(dp);
    head + tail / (8.0 * PI * hurst)
}

/// Paxson's corrected estimate B3''(λ, H) of the infinite sum B(λ, H).
fn b3_corrected(lambda: f64, hurst: f64) -> f64 {
    (1.0002 - 0.000134 * lambda) * (b3(lambda, hurst) - 2f64.powf(-7.65 * hurst - 7.4))
}

/// Spectral density f(λ; H) of unit-variance fGn for 0 < λ ≤ π, with the
/// aliasing sum approximated by B3'' (f ≡ 1 for H = 1/2: white noise).
pub(crate) fn fgn_spectrum(lambda: f64, hurst: f64) -> f64 {
    let a = 2.0 * (PI * hurst).sin() * gamma(2.0 * hurst + 1.0) * (1.0 - lambda.cos());
    a * (lambda.powf(-2.0 * hurst - 1.0) + b3_corrected(lambda, hurst))
}

/// n samples of zero-mean, unit-variance fGn with Hurst parameter H
/// (n ≥ 2, 0.5 ≤ H < 1), drawing from `rng`.
///
/// Steps (REFERENCE.md §3.2), on an even length m = n rounded up to even:
/// 1. f_j = f(λ_j; H) at λ_j = 2πj/m, j = 1 … m/2;
/// 2. periodogram-like randomisation z_j = sqrt(f_j E_j) e^{iφ_j}, with, for
///    each j in turn, E_j = rng.exp(1) then φ_j = 2π rng.uniform();
/// 3. z_0 = 0, z_{m−j} = conj(z_j) (Hermitian symmetry);
/// 4. x = Re(inverse DFT(z)) (rustfft, unnormalised: the scale is fixed next).
///
/// The method leaves mean and variance arbitrary ("apply an affine map to the
/// desired mean and variance"); the standard choice taken here is to
/// standardise the sample: subtract its sample mean and divide by its sample
/// standard deviation (1/n normalisation), so the returned sequence has mean
/// 0 and variance 1 exactly (up to round-off). For odd n the last of the m
/// generated points is dropped before standardising. The output is
/// circularly correlated (periodic in m); generate longer than needed if
/// that matters.
pub fn paxson_fgn(n: usize, hurst: f64, rng: &mut RngStream) -> Result<Vec<f64>, FgnError> {
    if n < 2 {
        return Err(FgnError(format!("fgn: n must be at least 2, got {n}")));
    }
    if !(0.5..1.0).contains(&hurst) {
        return Err(FgnError(format!(
            "fgn: Hurst parameter must satisfy 0.5 <= H < 1, got {hurst}"
        )));
    }
    let m = n + (n & 1);
    let half = m / 2;
    let mut z = vec![Complex::new(0.0, 0.0); m];
    for (j, zj) in z.iter_mut().enumerate().take(half + 1).skip(1) {
        let lambda = 2.0 * PI * j as f64 / m as f64;
        let power = fgn_spectrum(lambda, hurst) * rng.exp(1.0);
        let phase = 2.0 * PI * rng.uniform();
        *zj = Complex::from_polar(power.sqrt(), phase);
    }
    // z[m-j] = conj(z[j]) for j = 1 … m/2-1, i.e. z[m/2+1 …] mirrors z[… 1].
    let (low, high) = z.split_at_mut(half + 1);
    for (dst, src) in high.iter_mut().zip(low[1..half].iter().rev()) {
        *dst = src.conj();
    }
    FftPlanner::<f64>::new().plan_fft_inverse(m).process(&mut z);

    let mut x: Vec<f64> = z[..n].iter().map(|c| c.re).collect();
    let mean = x.iter().sum::<f64>() / n as f64;
    let var = x.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n as f64;
    let sd = var.sqrt();
    if !(sd.is_finite() && sd > 0.0) {
        return Err(FgnError(format!(
            "fgn: degenerate sample (standard deviation {sd})"
        )));
    }
    for v in &mut x {
        *v = (*v - mean) / sd;
    }
    Ok(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gen(n: usize, h: f64, seed: u64, name: &str) -> Vec<f64> {
        paxson_fgn(n, h, &mut RngStream::new(seed, name)).unwrap()
    }

    fn mean_var(x: &[f64]) -> (f64, f64) {
        let n = x.len() as f64;
        let m = x.iter().sum::<f64>() / n;
        (m, x.iter().map(|v| (v - m).powi(2)).sum::<f64>() / n)
    }

    /// Autocovariance of unit-variance fGn (REFERENCE.md §3.1).
    fn gamma_k(k: f64, h: f64) -> f64 {
        0.5 * ((k + 1.0).powf(2.0 * h) - 2.0 * k.powf(2.0 * h) + (k - 1.0).abs().powf(2.0 * h))
    }

    fn autocov(x: &[f64], k: usize) -> f64 {
        let n = x.len();
        x[..n - k]
            .iter()
            .zip(&x[k..])
            .map(|(a, b)| a * b)
            .sum::<f64>()
            / (n - k) as f64
    }

    #[test]
    fn fgn_gamma_matches_known_values() {
        assert!((gamma(2.0) - 1.0).abs() < 1e-13);
        assert!((gamma(3.0) - 2.0).abs() < 1e-13);
        assert!((gamma(2.5) - 1.329_340_388_179_137).abs() < 1e-13);
    }

    #[test]
    fn fgn_spectrum_is_flat_for_h_half_and_close_to_exact_sum() {
        for j in 1..=64 {
            let l = PI * j as f64 / 64.0;
            assert!((fgn_spectrum(l, 0.5) - 1.0).abs() < 2e-3, "λ={l}");
        }
        // B3'' against the aliasing sum B summed directly (plus integral tail).
        for &h in &[0.6, 0.8, 0.9] {
            for &l in &[0.01, 0.5, 1.5, 3.0] {
                let d = -2.0 * h - 1.0;
                let kmax = 200_000;
                let mut b: f64 = (1..=kmax)
                    .map(|k| {
                        let k = k as f64;
                        (2.0 * PI * k + l).powf(d) + (2.0 * PI * k - l).powf(d)
                    })
                    .sum();
                b += 2.0 * (2.0 * PI * (kmax as f64 + 0.5)).powf(-2.0 * h) / (4.0 * PI * h);
                let exact =
                    2.0 * (PI * h).sin() * gamma(2.0 * h + 1.0) * (1.0 - l.cos()) * (l.powf(d) + b);
                let rel = (fgn_spectrum(l, h) - exact).abs() / exact;
                assert!(rel < 2e-3, "H={h} λ={l} rel={rel}");
            }
        }
    }

    #[test]
    fn fgn_length_mean_and_variance() {
        for &n in &[2usize, 3, 1000, 1001, 4096] {
            let x = gen(n, 0.8, 1, "fgn");
            assert_eq!(x.len(), n);
            let (m, v) = mean_var(&x);
            assert!(m.abs() < 1e-12, "n={n} mean {m}");
            assert!((v - 1.0).abs() < 1e-12, "n={n} var {v}");
        }
    }

    #[test]
    fn fgn_is_deterministic_per_seed_and_name() {
        let a = gen(1024, 0.8, 7, "video1");
        assert_eq!(a, gen(1024, 0.8, 7, "video1"));
        assert_ne!(a, gen(1024, 0.8, 8, "video1"));
        assert_ne!(a, gen(1024, 0.8, 7, "video2"));
    }

    #[test]
    fn fgn_autocovariance_matches_theory() {
        // Average the sample autocovariance over seeds; the sample is
        // standardised, so compare with γ(k) for small lags.
        let n = 1 << 16;
        for &h in &[0.5, 0.7, 0.9] {
            let seeds = 8;
            for k in 1..=4 {
                let est = (0..seeds)
                    .map(|s| autocov(&gen(n, h, s, "acf"), k))
                    .sum::<f64>()
                    / seeds as f64;
                let want = if h == 0.5 { 0.0 } else { gamma_k(k as f64, h) };
                // The sample mean removal biases LRD autocovariances down by
                // about Var(mean) = n^(2H-2) (≈ 0.11 at H = 0.9, n = 2^16).
                let bias = (n as f64).powf(2.0 * h - 2.0);
                assert!(
                    (est - (want - bias) / (1.0 - bias)).abs() < 0.02,
                    "H={h} k={k} est={est} want={want}"
                );
            }
        }
    }

    #[test]
    fn fgn_rejects_bad_parameters() {
        let mut r = RngStream::new(1, "fgn");
        for &h in &[0.49, 1.0, 1.2, -0.1, f64::NAN] {
            let e = paxson_fgn(100, h, &mut r).unwrap_err();
            assert!(e.0.contains("Hurst"), "{e}");
        }
        assert!(paxson_fgn(1, 0.8, &mut r).unwrap_err().0.contains("n must"));
        assert!(paxson_fgn(0, 0.8, &mut r).is_err());
    }
}
