//! The sender's side of the scalable (L4S, Prague-like) ECN response:
//! DCTCP's estimate of the fraction of bytes marked (RFC 8257 §3.3).
//! Once per observation window (from SND.NXT at its start until SND.UNA
//! passes it, about an RTT) `alpha = (1 - g) alpha + g F`, F the fraction
//! of the bytes acknowledged in the window by ACKs carrying ECE, g = 1/16;
//! alpha starts at 1 (§3.3's recommended conservative start, as Linux's
//! `tcp_dctcp` and TCP Prague). A reduction sets cwnd to
//! `cwnd (1 - alpha / 2)`.

/// RFC 8257 §4.2's recommended gain.
const G: f64 = 1.0 / 16.0;

/// DCTCP's marked-fraction estimate.
#[derive(Clone, Debug)]
pub(crate) struct Scalable {
    alpha: f64,
    /// SND.NXT when the current observation window began.
    window_end: u64,
    acked: u64,
    marked: u64,
}

impl Scalable {
    pub(crate) fn new() -> Scalable {
        Scalable {
            alpha: 1.0,
            window_end: 0,
            acked: 0,
            marked: 0,
        }
    }

    #[cfg(test)]
    pub(crate) fn alpha(&self) -> f64 {
        self.alpha
    }

    /// An ACK acknowledged `bytes` new bytes, with ECE or not, leaving
    /// `snd_una`; `snd_max` is what has been sent.
    pub(crate) fn on_ack(&mut self, bytes: u64, ece: bool, snd_una: u64, snd_max: u64) {
        self.acked += bytes;
        if ece {
            self.marked += bytes;
        }
        if snd_una > self.window_end {
            if self.acked > 0 {
                let f = self.marked as f64 / self.acked as f64;
                self.alpha = (1.0 - G) * self.alpha + G * f;
            }
            self.acked = 0;
            self.marked = 0;
            self.window_end = snd_max;
        }
    }

    /// The window after a reduction from `cwnd` (§3.3).
    pub(crate) fn reduced(&self, cwnd: u64) -> u64 {
        (cwnd as f64 * (1.0 - self.alpha / 2.0)) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alpha_follows_the_ewma_once_per_window() {
        let mut s = Scalable::new();
        // The first ACK closes the empty initial window, all marked: F = 1.
        s.on_ack(1000, true, 1000, 10_000);
        assert_eq!(s.alpha(), 1.0);
        s.on_ack(1000, false, 2000, 10_000);
        // A window of 10 000 bytes, 2500 of them marked: F = 1/4 at its end.
        let a0 = s.alpha();
        for i in 0..8 {
            s.on_ack(1000, i < 2, 3000 + i * 1000, 20_000);
        }
        assert_eq!(s.alpha(), a0);
        s.on_ack(500, true, 10_500, 20_000);
        let f = 2500.0 / 9500.0;
        assert!((s.alpha() - (a0 * 15.0 / 16.0 + f / 16.0)).abs() < 1e-12);
        // Unmarked windows decay alpha geometrically by 15/16.
        let a1 = s.alpha();
        s.on_ack(9500, false, 20_001, 30_000);
        assert!((s.alpha() - a1 * 15.0 / 16.0).abs() < 1e-12);
        assert_eq!(
            s.reduced(100_000),
            (100_000.0 * (1.0 - s.alpha() / 2.0)) as u64
        );
    }
}
