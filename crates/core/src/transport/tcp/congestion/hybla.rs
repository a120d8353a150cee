//! TCP Hybla (Caini and Firrincieli, "TCP Hybla: a TCP enhancement for
//! heterogeneous networks", Int. J. Satell. Commun. Netw. 22 (2004)
//! 547-566), as Linux's `net/ipv4/tcp_hybla.c` computes it.
//!
//! With ρ = RTT / RTT0 (at least 1), slow start adds 2^ρ − 1 segments per
//! segment acknowledged and congestion avoidance ρ²/cwnd per ACK: cwnd
//! then doubles every RTT0 and grows by ρ² segments per RTT, so the
//! sending rate cwnd/RTT ramps in time as a Reno connection's over RTT0,
//! whatever the RTT (the paper's eqs. for W^H(t)). A loss halves as Reno.
//!
//! From Linux:
//! - ρ in eighths, floor(8·SRTT / RTT0), at least 8 (`rho_3ls`), taken from
//!   the handshake's SRTT (`hybla_init`; the first ACK's SRTT without a
//!   handshake) and again whenever SRTT falls below the lowest SRTT seen
//!   (`minrtt_us`); ρ² is then exact in 1/128 (`rho2_7ls`);
//! - 2^ρ in 1/128 as 2^⌊ρ⌋ times a table of 2^(k/8) for the eighths,
//!   ⌊ρ⌋ capped at 16 (`hybla_fraction`);
//! - Reno's rules (ρ = 1) before the first SRTT, and after a
//!   retransmission timeout until what was outstanding is acknowledged
//!   (`hybla_en` is false outside the Open state);
//! - cwnd at most 65535 segments (`snd_cwnd_clamp`).
//!
//! As this crate's Reno, and unlike Linux which counts ACKs in segments:
//! slow start counts bytes acknowledged (RFC 3465, at most L·SMSS per ACK)
//! and congestion avoidance adds ρ²·SMSS²/cwnd bytes per ACK; so at ρ = 1
//! Hybla is exactly Reno. Linux's initial window of ⌊ρ⌋ segments is not
//! taken: the connection's initial window stays.

use super::reno::half_flight;
use super::{Ack, CongestionControl, HyStart, Window};
use crate::engine::{Duration, Time};

/// Linux's `rtt0` default, 25 ms.
pub(crate) const DEFAULT_RTT0: Duration = Duration::from_millis(25);

/// 128·2^(k/8), truncated, for k = 0..7 (Linux's `hybla_fraction`).
const TWO_TO_EIGHTHS: [u64; 8] = [128, 139, 152, 165, 181, 197, 215, 234];

/// Linux's `snd_cwnd_clamp` under Hybla, in segments.
const CLAMP_SEGMENTS: u64 = 65_535;

/// ρ at Reno's scale, in eighths.
const RHO_ONE: u64 = 8;

/// What ρ is taken from.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Scale {
    /// No SRTT yet: ρ = 1.
    Unmeasured,
    /// ρ in eighths, from `min_srtt`, the lowest SRTT seen.
    Measured { rho8: u64, min_srtt: Duration },
}

/// Whether Hybla's rules apply.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Phase {
    Hybla,
    /// After a retransmission timeout, Reno's rules until `recover` (the
    /// highest offset sent, taken at the first ACK after the timeout) is
    /// acknowledged: Linux's Loss state.
    AfterTimeout {
        recover: Option<u64>,
    },
}

#[derive(Clone, Debug)]
pub(crate) struct Hybla {
    abc_limit_segments: u32,
    pub(crate) hystart: Option<HyStart>,
    rtt0: Duration,
    scale: Scale,
    phase: Phase,
}

/// ρ in eighths: floor(8·SRTT / RTT0), at least 8 (Linux's `rho_3ls`).
pub(crate) fn rho_eighths(srtt: Duration, rtt0: Duration) -> u64 {
    let eighths = u128::from(srtt.ps()) * 8 / u128::from(rtt0.ps().max(1));
    u64::try_from(eighths).unwrap_or(u64::MAX).max(RHO_ONE)
}

/// 2^ρ − 1 in 1/128 of a segment: slow start's growth per segment
/// acknowledged.
pub(crate) fn slow_start_gain_128(rho8: u64) -> u64 {
    let whole = (rho8 / 8).min(16);
    (1u64 << whole) * TWO_TO_EIGHTHS[(rho8 % 8) as usize] - 128
}

/// ρ² in 1/128: 2·rho8², exact for ρ in eighths (Linux's `rho2_7ls`).
pub(crate) fn rho2_128(rho8: u64) -> u128 {
    2 * u128::from(rho8) * u128::from(rho8)
}

impl Hybla {
    pub(crate) fn new(
        abc_limit_segments: u32,
        hystart: Option<HyStart>,
        rtt0: Option<Duration>,
    ) -> Hybla {
        Hybla {
            abc_limit_segments,
            hystart,
            rtt0: rtt0.unwrap_or(DEFAULT_RTT0),
            scale: Scale::Unmeasured,
            phase: Phase::Hybla,
        }
    }

    /// ρ in eighths as the next growth uses it.
    pub(crate) fn rho8(&self) -> u64 {
        match (self.phase, self.scale) {
            (Phase::Hybla, Scale::Measured { rho8, .. }) => rho8,
            _ => RHO_ONE,
        }
    }

    /// Linux recomputes ρ only when SRTT reaches a new low, so a queue
    /// building up does not inflate it.
    fn track_srtt(&mut self, srtt: Option<Duration>) {
        let Some(srtt) = srtt else { return };
        let lower = match self.scale {
            Scale::Unmeasured => true,
            Scale::Measured { min_srtt, .. } => srtt < min_srtt,
        };
        if lower {
            self.scale = Scale::Measured {
                rho8: rho_eighths(srtt, self.rtt0),
                min_srtt: srtt,
            };
        }
    }

    fn leave_timeout_phase(&mut self, ack: &Ack) {
        if let Phase::AfterTimeout { recover } = &mut self.phase {
            if ack.ack >= *recover.get_or_insert(ack.snd_max) {
                self.phase = Phase::Hybla;
            }
        }
    }

    fn slow_start(&mut self, w: &mut Window, ack: &Ack, rho8: u64) {
        let mut counted = ack.acked.min(u64::from(self.abc_limit_segments) * w.mss);
        let hystart = self.hystart.as_mut().filter(|h| h.active());
        // HyStart++ judges the byte count; Hybla's gain scales what it lets through.
        let increase = match hystart {
            Some(h) => {
                counted = h.on_ack(w, ack, counted);
                let increase = scaled(counted, slow_start_gain_128(rho8));
                if w.cwnd + increase >= w.ssthresh {
                    h.stop(); // the initial slow start ends here (RFC 9406 §4.3)
                }
                increase
            }
            None => scaled(counted, slow_start_gain_128(rho8)),
        };
        if w.cwnd < w.ssthresh {
            w.cwnd = (w.cwnd + increase).min(w.ssthresh.max(w.cwnd));
        }
    }
}

/// `bytes` times a gain in 1/128, truncated to a byte.
fn scaled(bytes: u64, gain_128: u64) -> u64 {
    let b = u128::from(bytes) * u128::from(gain_128) / 128;
    u64::try_from(b).unwrap_or(u64::MAX)
}

/// ρ²·SMSS²/cwnd bytes, at least one: Reno's RFC 5681 eq. (3) times ρ².
fn congestion_avoidance_increase(w: &Window, rho8: u64) -> u64 {
    let mss = u128::from(w.mss);
    let inc = rho2_128(rho8) * mss * mss / (128 * u128::from(w.cwnd.max(1)));
    u64::try_from(inc).unwrap_or(u64::MAX).max(1)
}

impl CongestionControl for Hybla {
    fn wants_rtt_samples(&self) -> bool {
        self.hystart.as_ref().is_some_and(|h| h.active())
    }

    /// Linux's `hybla_init` takes ρ from the handshake's SRTT; data
    /// segments, longer than a SYN and often held by a delayed ACK, give a
    /// larger first SRTT and so a larger ρ.
    fn on_established(&mut self, srtt: Option<Duration>) {
        self.track_srtt(srtt);
    }

    fn on_ack(&mut self, w: &mut Window, ack: &Ack) {
        self.track_srtt(ack.srtt);
        self.leave_timeout_phase(ack);
        let rho8 = self.rho8();
        if w.cwnd < w.ssthresh {
            self.slow_start(w, ack, rho8);
        } else {
            w.cwnd = w
                .cwnd
                .saturating_add(congestion_avoidance_increase(w, rho8));
        }
        w.cwnd = w.cwnd.min(CLAMP_SEGMENTS * w.mss);
    }

    fn on_congestion(&mut self, _now: Time, w: &Window, flight: u64) -> u64 {
        if let Some(h) = &mut self.hystart {
            h.stop();
        }
        half_flight(flight, w.mss)
    }

    fn on_timeout(&mut self, now: Time, w: &Window, flight: u64) -> u64 {
        self.phase = Phase::AfterTimeout { recover: None };
        self.on_congestion(now, w, flight)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::tcp::congestion::Reno;

    const MSS: u64 = 1000;
    const MS: u64 = 1_000_000_000;

    fn ms(n: u64) -> Duration {
        Duration(n * MS)
    }

    fn ack(acked: u64, srtt: Option<Duration>) -> Ack {
        Ack {
            now: Time::ZERO,
            acked,
            ack: 0,
            snd_max: 0,
            srtt,
            rtt_sample: None,
        }
    }

    fn window(cwnd_segments: u64, ssthresh: u64) -> Window {
        Window {
            cwnd: cwnd_segments * MSS,
            ssthresh,
            mss: MSS,
        }
    }

    /// cwnd after one ACK of `acked` bytes, SRTT `srtt`, RTT0 25 ms.
    fn after_one_ack(w: Window, acked: u64, srtt: Option<Duration>) -> u64 {
        let mut c = Hybla::new(2, None, None);
        let mut w = w;
        c.on_ack(&mut w, &ack(acked, srtt));
        w.cwnd
    }

    #[test]
    fn rho_is_srtt_over_rtt0_in_eighths_floored_and_at_least_one() {
        let rtt0 = DEFAULT_RTT0;
        assert_eq!(rho_eighths(ms(600), rtt0), 192); // GEO: ρ = 24
        assert_eq!(rho_eighths(ms(60), rtt0), 19); // 19.2 eighths: ρ = 2.375
        assert_eq!(rho_eighths(ms(28), rtt0), 8); // 8.96 eighths: ρ = 1
        assert_eq!(rho_eighths(ms(29), rtt0), 9); // 9.28 eighths: ρ = 1.125
        assert_eq!(rho_eighths(ms(10), rtt0), 8); // shorter than RTT0: ρ = 1
        assert_eq!(rho_eighths(ms(600), ms(50)), 96); // another RTT0: ρ = 12
    }

    #[test]
    fn the_table_is_two_to_the_eighths_truncated() {
        // The closed form behind Linux's table: floor(128·2^(k/8)).
        for (k, &v) in TWO_TO_EIGHTHS.iter().enumerate() {
            assert_eq!(v, (128.0 * 2f64.powf(k as f64 / 8.0)).floor() as u64);
        }
    }

    #[test]
    fn slow_start_gain_is_two_to_the_rho_minus_one() {
        // ρ = 1: one segment per segment, Reno's.
        assert_eq!(slow_start_gain_128(8), 128);
        // ρ = 1.5: 2·181 − 128 = 234/128 = 1.828125 (√8 − 1 = 1.8284).
        assert_eq!(slow_start_gain_128(12), 234);
        // ρ = 2.375: 4·165 − 128 = 532/128 = 4.15625 (2^2.375 − 1 = 4.1873).
        assert_eq!(slow_start_gain_128(19), 532);
        // ρ = 24: 2^16 caps 2^24: 65535 segments.
        assert_eq!(slow_start_gain_128(192), 65_535 * 128);
    }

    #[test]
    fn slow_start_adds_two_to_the_rho_minus_one_per_segment() {
        let w = window(10, u64::MAX);
        // No SRTT: Reno's one segment.
        assert_eq!(after_one_ack(w, MSS, None), 11 * MSS);
        // SRTT 60 ms: 1000·532/128 = 4156.25 bytes, truncated.
        assert_eq!(after_one_ack(w, MSS, Some(ms(60))), 10 * MSS + 4156);
        // A delayed ACK of two segments counts both (L = 2)...
        assert_eq!(after_one_ack(w, 2 * MSS, Some(ms(60))), 10 * MSS + 8312);
        // ...but not a third.
        assert_eq!(after_one_ack(w, 3 * MSS, Some(ms(60))), 10 * MSS + 8312);
        // Slow start stops at ssthresh.
        assert_eq!(
            after_one_ack(window(10, 12 * MSS), MSS, Some(ms(60))),
            12 * MSS
        );
        // GEO: 65535 segments per segment, then Linux's clamp.
        assert_eq!(after_one_ack(w, MSS, Some(ms(600))), CLAMP_SEGMENTS * MSS);
    }

    #[test]
    fn congestion_avoidance_adds_rho_squared_over_cwnd_per_ack() {
        let w = window(10, 0);
        // ρ = 1: SMSS²/cwnd = 100 bytes, Reno's.
        assert_eq!(after_one_ack(w, MSS, None), 10 * MSS + 100);
        // ρ = 2.375, ρ² = 722/128 = 5.640625: 564.0625 bytes, truncated.
        assert_eq!(after_one_ack(w, MSS, Some(ms(60))), 10 * MSS + 564);
        // ρ = 24, ρ² = 576: 57.6 segments per ACK at cwnd 10.
        assert_eq!(after_one_ack(w, MSS, Some(ms(600))), 10 * MSS + 57_600);
        // A window of ACKs at ρ = 24 from cwnd 576 segments: dW/dn = ρ²/W,
        // so W² grows by 2ρ² per ACK and W = 576·√3 after 576 ACKs.
        let mut c = Hybla::new(2, None, None);
        let mut w = window(576, 0);
        for _ in 0..576 {
            c.on_ack(&mut w, &ack(MSS, Some(ms(600))));
        }
        let grown = w.cwnd as f64 / MSS as f64 - 576.0;
        let exact = 576.0 * (3f64.sqrt() - 1.0); // 421.65 segments
        assert!((grown - exact).abs() < 1.0, "{grown} vs {exact}");
    }

    #[test]
    fn rho_follows_the_lowest_srtt_only() {
        let mut c = Hybla::new(2, None, None);
        let mut w = window(10, 0);
        assert_eq!(c.rho8(), 8);
        c.on_ack(&mut w, &ack(MSS, Some(ms(600))));
        assert_eq!(c.rho8(), 192);
        c.on_ack(&mut w, &ack(MSS, Some(ms(900)))); // a queue builds: kept
        assert_eq!(c.rho8(), 192);
        c.on_ack(&mut w, &ack(MSS, Some(ms(300)))); // a new low: ρ = 12
        assert_eq!(c.rho8(), 96);
    }

    #[test]
    fn rho_is_the_handshakes_when_there_was_one() {
        // The 41 ms path: the SYN's 40 ms gives 12 eighths; the first data
        // ACK, held 100 ms by a delayed ACK, must not raise it.
        let mut c = Hybla::new(2, None, None);
        c.on_established(Some(ms(40)));
        assert_eq!(c.rho8(), 12);
        let mut w = window(10, 0);
        c.on_ack(&mut w, &ack(MSS, Some(Duration(52_800 * MS / 1000))));
        assert_eq!(c.rho8(), 12);
        // A handshake without a sample (its SYN was resent) leaves ρ to
        // the first ACK.
        let mut c = Hybla::new(2, None, None);
        c.on_established(None);
        assert_eq!(c.rho8(), 8);
        c.on_ack(&mut w, &ack(MSS, Some(ms(600))));
        assert_eq!(c.rho8(), 192);
    }

    #[test]
    fn a_timeout_means_reno_until_what_was_outstanding_is_acknowledged() {
        let mut c = Hybla::new(2, None, None);
        let mut w = window(1, u64::MAX);
        c.on_ack(&mut w, &ack(MSS, Some(ms(60))));
        assert_eq!(c.on_timeout(Time::ZERO, &w, 40 * MSS), 20 * MSS);
        let mut a = ack(MSS, Some(ms(60)));
        (a.ack, a.snd_max) = (10 * MSS, 40 * MSS);
        let before = w.cwnd;
        c.on_ack(&mut w, &a);
        assert_eq!(w.cwnd, before + MSS); // Reno's slow start
        a.snd_max = 50 * MSS; // new data since: the recovery point stays
        a.ack = 39 * MSS;
        c.on_ack(&mut w, &a);
        assert_eq!(c.rho8(), 8);
        a.ack = 40 * MSS;
        let before = w.cwnd;
        c.on_ack(&mut w, &a);
        assert_eq!(w.cwnd, before + 4156); // Hybla again on this ACK
    }

    #[test]
    fn a_loss_halves_the_flight_as_reno() {
        let mut c = Hybla::new(2, None, None);
        let mut w = window(10, u64::MAX);
        c.on_ack(&mut w, &ack(MSS, Some(ms(600))));
        let w = window(80, 0);
        assert_eq!(c.on_congestion(Time::ZERO, &w, 80 * MSS), 40 * MSS);
        assert_eq!(c.on_congestion(Time::ZERO, &w, 3 * MSS), 2 * MSS);
    }

    #[test]
    fn at_rho_one_every_ack_is_renos() {
        // The same ACKs through both, crossing ssthresh, with a loss.
        let mut h = Hybla::new(2, None, None);
        let mut r = Reno::new(2, None, false);
        let (mut wh, mut wr) = (window(3, 40 * MSS), window(3, 40 * MSS));
        for i in 0..2000u64 {
            let a = ack(if i % 3 == 0 { 2 * MSS } else { MSS }, Some(ms(25)));
            h.on_ack(&mut wh, &a);
            r.on_ack(&mut wr, &a);
            assert_eq!(wh, wr, "ACK {i}");
            if i == 1000 {
                let flight = wh.cwnd;
                wh.ssthresh = h.on_congestion(Time::ZERO, &wh, flight);
                wr.ssthresh = r.on_congestion(Time::ZERO, &wr, flight);
                (wh.cwnd, wr.cwnd) = (wh.ssthresh, wr.ssthresh);
            }
        }
    }
}
