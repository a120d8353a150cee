//! Transmission errors on a link: independent bit errors at a given
//! bit-error rate (a PDU of n bits survives with probability (1-BER)^n) and
//! an independent per-PDU loss probability.

use crate::engine::RngStream;

pub struct ErrorModel {
    /// ln(1 - BER), kept so a PDU's survival probability is one exp().
    ln_bit_ok: f64,
    loss: f64,
    rng: RngStream,
}

impl ErrorModel {
    pub fn new(ber: f64, loss: f64, rng: RngStream) -> ErrorModel {
        assert!((0.0..=1.0).contains(&ber) && (0.0..=1.0).contains(&loss));
        ErrorModel {
            ln_bit_ok: (-ber).ln_1p(),
            loss,
            rng,
        }
    }

    pub fn is_active(&self) -> bool {
        self.ln_bit_ok != 0.0 || self.loss > 0.0
    }

    /// Probability that a PDU of `bytes` is lost.
    pub fn loss_probability(&self, bytes: u32) -> f64 {
        let survive_bits = (self.ln_bit_ok * 8.0 * bytes as f64).exp();
        1.0 - survive_bits * (1.0 - self.loss)
    }

    /// Draws whether this PDU is lost. Draws nothing when there are no
    /// errors, so an error-free link leaves its stream untouched.
    pub fn corrupts(&mut self, bytes: u32) -> bool {
        if !self.is_active() {
            return false;
        }
        let p = self.loss_probability(bytes);
        self.rng.uniform() < p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ber_loss_probability_by_size() {
        let e = ErrorModel::new(1e-5, 0.0, RngStream::new(1, "e"));
        let p = e.loss_probability(53);
        let exact = 1.0 - (1.0 - 1e-5f64).powi(424);
        assert!((p - exact).abs() < 1e-12);
    }

    #[test]
    fn empirical_loss_rate() {
        let mut e = ErrorModel::new(1e-4, 0.01, RngStream::new(3, "e"));
        let n = 200_000;
        let lost = (0..n).filter(|_| e.corrupts(1000)).count();
        let want = e.loss_probability(1000);
        let got = lost as f64 / n as f64;
        assert!((got - want).abs() < 0.005, "{got} vs {want}");
    }
}
