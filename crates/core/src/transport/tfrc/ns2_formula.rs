//! The TCP throughput equation as ns-2.35's TFRC agents compute it
//! (`tcp/formula.h`, `p_to_b`; `tcp/formula-with-inverse.h`, `b_to_p`).
//! It is RFC 5348's equation with three differences that move rates:
//! t_RTO is the sender's TCP-style RTO estimate (`tzero_`), not 4R; the
//! factor 3·√(3bp/8) is capped at 1; and the rate is capped at 25 MB/s,
//! which is also what p = 0 gives. The inverse is a bisection that stops
//! within 5 % of the rate, not an exact solution.

/// `MAXRATE` of formula.h, bytes/s.
pub(crate) const MAX_RATE: f64 = 25_000_000.0;
const SMALL: f64 = 0.000_000_1;

/// The rate (bytes/s) of `psize`-byte packets at loss event rate `p`,
/// RTT `rtt` and retransmission timeout `tzero` (formula.h `p_to_b`).
pub(crate) fn p_to_b(p: f64, rtt: f64, tzero: f64, psize: f64, bval: f64) -> f64 {
    if p < 0.0 || rtt < 0.0 {
        return MAX_RATE;
    }
    let mut res = rtt * (2.0 * bval * p / 3.0).sqrt();
    let tmp1 = (3.0 * (3.0 * bval * p / 8.0).sqrt()).min(1.0);
    let tmp2 = tzero * p * (1.0 + 32.0 * p * p);
    res += tmp1 * tmp2;
    if res < SMALL {
        return MAX_RATE;
    }
    (psize / res).min(MAX_RATE)
}

/// The loss event rate at which `p_to_b` gives `b` bytes/s, within 5 %
/// (formula-with-inverse.h `b_to_p`: bisection from p = 0.5, at most 31
/// halvings).
pub(crate) fn b_to_p(b: f64, rtt: f64, tzero: f64, psize: f64, bval: f64) -> f64 {
    let (mut p, mut step) = (0.5, 0.25);
    for _ in 0..=30 {
        let rate = p_to_b(p, rtt, tzero, psize, bval);
        if rate > 0.95 * b && rate < 1.05 * b {
            return p;
        }
        if rate > b {
            p += step;
        } else {
            p -= step;
        }
        step /= 2.0;
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The equation written out by hand for one point: s = 1000 B,
    /// R = 0.1 s, t_RTO = 0.4 s, p = 0.01, b = 1:
    /// R·√(2p/3) = 0.1 · 0.0816497 = 0.00816497;
    /// 3√(3p/8) = 3 · 0.0612372 = 0.183712 (below the cap of 1);
    /// t_RTO·p·(1 + 32p²) = 0.4 · 0.01 · 1.0032 = 0.0040128;
    /// 1000 / (0.00816497 + 0.183712 · 0.0040128) = 112 332.2 B/s.
    #[test]
    fn matches_the_equation_written_out() {
        let got = p_to_b(0.01, 0.1, 0.4, 1000.0, 1.0);
        assert!((got - 112_332.2).abs() < 0.1, "{got}");
    }

    #[test]
    fn caps_the_timeout_factor_at_one_and_the_rate_at_25_mb() {
        // p = 0.5: 3√(3·0.5/8) = 1.299, capped to 1.
        let r = p_to_b(0.5, 0.2, 1.0, 1000.0, 1.0);
        let want = 1000.0 / (0.2 * (1.0f64 / 3.0).sqrt() + 1.0 * 0.5 * (1.0 + 8.0));
        assert!((r - want).abs() < 1e-9 * want);
        assert_eq!(p_to_b(0.0, 0.2, 1.0, 1000.0, 1.0), MAX_RATE);
        assert_eq!(p_to_b(1e-12, 1e-9, 0.0, 1000.0, 1.0), MAX_RATE);
    }

    #[test]
    fn the_inverse_lands_within_five_percent() {
        for &(b, rtt, tzero) in &[(10_000.0, 0.5, 2.0), (300.0, 0.8, 2.4), (1e6, 0.05, 0.2)] {
            let p = b_to_p(b, rtt, tzero, 1000.0, 1.0);
            let back = p_to_b(p, rtt, tzero, 1000.0, 1.0);
            assert!(
                back > 0.95 * b && back < 1.05 * b,
                "{b}: p {p} gives {back}"
            );
        }
    }
}
