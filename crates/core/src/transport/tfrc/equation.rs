//! The TCP throughput equation TFRC sets its rate by (RFC 5348 §3.1), and
//! its inverse, which the receiver needs to seed the loss history after the
//! first loss (RFC 5348 §6.3.1).

/// The rate in bytes/s a TCP flow with segments of `s` bytes would get with
/// round-trip time `rtt_s` and loss event rate `p`: b = 1 packet per ACK,
/// t_RTO = 4R, as RFC 5348 §3.1 recommends.
pub(crate) fn rate_bps_bytes(s: f64, rtt_s: f64, p: f64) -> f64 {
    if p <= 0.0 {
        return f64::INFINITY;
    }
    let b = 1.0;
    let t_rto = 4.0 * rtt_s;
    let denom = rtt_s * (2.0 * b * p / 3.0).sqrt()
        + t_rto * (3.0 * (3.0 * b * p / 8.0).sqrt()) * p * (1.0 + 32.0 * p * p);
    s / denom
}

/// The loss event rate p at which `rate_bps_bytes(s, rtt_s, p)` equals
/// `x` bytes/s: the rate falls monotonically in p, so bisection on log p
/// finds it to well below any precision the receiver needs. A rate the
/// equation gives only for p below 1e-12 returns 1e-12; one at or below
/// its value at p = 1 returns 1.
pub(crate) fn loss_rate_for(s: f64, rtt_s: f64, x: f64) -> f64 {
    const P_MIN: f64 = 1e-12;
    if rate_bps_bytes(s, rtt_s, P_MIN) <= x {
        return P_MIN;
    }
    let (mut lo, mut hi) = (P_MIN.ln(), 0.0_f64);
    if rate_bps_bytes(s, rtt_s, 1.0) >= x {
        return 1.0;
    }
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if rate_bps_bytes(s, rtt_s, mid.exp()) > x {
            lo = mid;
        } else {
            hi = mid;
        }
        if hi - lo < 1e-12 {
            break;
        }
    }
    (0.5 * (lo + hi)).exp()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 5348 §3.1 written out with b = 1, t_RTO = 4R, independently of
    /// the function under test.
    fn rfc(s: f64, r: f64, p: f64) -> f64 {
        s / (r * (2.0 * p / 3.0).sqrt()
            + 12.0 * (3.0 * p / 8.0).sqrt() * p * (1.0 + 32.0 * p * p) * r)
    }

    #[test]
    fn matches_rfc_5348_formula_at_several_points() {
        for &(s, r, p) in &[
            (1460.0, 0.1, 0.01),
            (1316.0, 0.78, 0.001),
            (160.0, 0.55, 0.05),
            (1000.0, 0.02, 0.2),
            (1460.0, 0.6, 1e-5),
        ] {
            let x = rate_bps_bytes(s, r, p);
            assert!((x / rfc(s, r, p) - 1.0).abs() < 1e-12, "{s} {r} {p}");
        }
    }

    #[test]
    fn square_root_regime_for_small_p() {
        // For small p the timeout term vanishes: X ≈ s / (R sqrt(2p/3)).
        let (s, r, p) = (1460.0_f64, 0.2_f64, 1e-6_f64);
        let sqrt_law = s / (r * (2.0 * p / 3.0).sqrt());
        assert!((rate_bps_bytes(s, r, p) / sqrt_law - 1.0).abs() < 1e-3);
    }

    #[test]
    fn worked_value() {
        // s = 1000 B, R = 100 ms, p = 1 %: sqrt(2p/3) = 0.08165,
        // 12 sqrt(3p/8) p (1 + 32p²) = 12 · 0.061237 · 0.01 · 1.0032
        // = 0.0073719; X = 1000 / (0.1 · 0.089022) = 112 332 B/s.
        let x = rate_bps_bytes(1000.0, 0.1, 0.01);
        assert!((x - 112_332.0).abs() < 5.0, "{x}");
    }

    #[test]
    fn no_loss_means_no_equation_limit() {
        assert!(rate_bps_bytes(1000.0, 0.1, 0.0).is_infinite());
    }

    #[test]
    fn inverse_recovers_p() {
        for &p in &[1e-6, 1e-4, 0.003, 0.05, 0.4] {
            let x = rate_bps_bytes(1316.0, 0.78, p);
            let back = loss_rate_for(1316.0, 0.78, x);
            assert!((back / p - 1.0).abs() < 1e-6, "{p} {back}");
        }
    }

    #[test]
    fn inverse_clamps_out_of_range_rates() {
        assert_eq!(loss_rate_for(1000.0, 0.1, 1e30), 1e-12);
        assert_eq!(loss_rate_for(1000.0, 0.1, 1.0), 1.0);
    }
}
