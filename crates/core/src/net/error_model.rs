//! Transmission errors on a link: independent bit errors at a given
//! bit-error rate (a PDU of n bits survives with probability (1-BER)^n), an
//! independent per-PDU loss probability, and deterministic patterns that
//! let two simulators see the very same losses: every n-th PDU (ns-2.35's
//! `ErrorModel/Periodic` in packet units, `queue/errmodel.cc`: the
//! `offset_`-th PDU first, then every `period_`-th) or a list of PDUs by
//! number (its `ErrorModel/List`).

use crate::engine::RngStream;

/// A link's transmission errors: independent bit errors, an independent
/// per-PDU loss probability, and fixed patterns of lost PDUs.
pub struct ErrorModel {
    /// ln(1 - BER), kept so a PDU's survival probability is one exp().
    ln_bit_ok: f64,
    loss: f64,
    periodic: Option<Periodic>,
    /// PDU numbers (from 1) to lose, descending; the next at the end.
    listed: Vec<u64>,
    count: u64,
    rng: RngStream,
}

/// Every `every`-th PDU lost, the first being the `first`-th.
#[derive(Copy, Clone, Debug, PartialEq)]
pub(crate) struct Periodic {
    every: u64,
    first: u64,
    count: u64,
    started: bool,
}

impl Periodic {
    pub(crate) fn new(every: u64, first: u64) -> Periodic {
        assert!(every > 0 && first > 0);
        Periodic {
            every,
            first,
            count: 0,
            started: false,
        }
    }

    /// One more PDU: whether it is lost.
    fn next(&mut self) -> bool {
        self.count += 1;
        let due = if self.started { self.every } else { self.first };
        if self.count >= due {
            self.count = 0;
            self.started = true;
            return true;
        }
        false
    }
}

impl ErrorModel {
    /// Bit errors at `ber` (a PDU of n bits survives with probability
    /// (1 - ber)^n) and PDUs lost with probability `loss`, drawn from `rng`.
    pub fn new(ber: f64, loss: f64, rng: RngStream) -> ErrorModel {
        assert!((0.0..=1.0).contains(&ber) && (0.0..=1.0).contains(&loss));
        ErrorModel {
            ln_bit_ok: (-ber).ln_1p(),
            loss,
            periodic: None,
            listed: Vec::new(),
            count: 0,
            rng,
        }
    }

    /// Also loses the PDUs numbered (from 1) in `numbers`.
    pub(crate) fn with_list(mut self, numbers: &[u64]) -> ErrorModel {
        self.listed = numbers.to_vec();
        self.listed.sort_unstable_by(|a, b| b.cmp(a));
        self
    }

    /// Also loses PDUs in a fixed pattern.
    pub(crate) fn with_periodic(mut self, p: Periodic) -> ErrorModel {
        self.periodic = Some(p);
        self
    }

    #[cfg(test)]
    pub(crate) fn is_active(&self) -> bool {
        self.ln_bit_ok != 0.0
            || self.loss > 0.0
            || self.periodic.is_some()
            || !self.listed.is_empty()
    }

    /// Probability that a PDU of `bytes` is lost.
    pub(crate) fn loss_probability(&self, bytes: u32) -> f64 {
        let survive_bits = (self.ln_bit_ok * 8.0 * bytes as f64).exp();
        1.0 - survive_bits * (1.0 - self.loss)
    }

    /// Draws whether this PDU is lost. Draws nothing when there are no
    /// errors, so an error-free link leaves its stream untouched.
    pub(crate) fn corrupts(&mut self, bytes: u32) -> bool {
        self.count += 1;
        if self.listed.last() == Some(&self.count) {
            self.listed.pop();
            return true;
        }
        if let Some(p) = &mut self.periodic {
            if p.next() {
                return true;
            }
        }
        if self.ln_bit_ok == 0.0 && self.loss == 0.0 {
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
    fn periodic_loses_the_first_th_then_every_th_pdu() {
        let mut e =
            ErrorModel::new(0.0, 0.0, RngStream::new(1, "e")).with_periodic(Periodic::new(4, 2));
        let lost: Vec<usize> = (1..=12).filter(|_| e.corrupts(100)).collect();
        assert_eq!(lost, vec![2, 6, 10]);
        assert!(e.is_active());
    }

    #[test]
    fn a_list_loses_the_numbered_pdus() {
        let mut e = ErrorModel::new(0.0, 0.0, RngStream::new(1, "e")).with_list(&[7, 1, 3]);
        let lost: Vec<u64> = (1..=10).filter(|_| e.corrupts(100)).collect();
        assert_eq!(lost, vec![1, 3, 7]);
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
