//! ON-OFF source: CBR at the peak rate while ON, silent while OFF; ON and
//! OFF periods exponential or deterministic. Starts ON at `start`.
//!
//! The packet clock runs on ON time only: a gap cut short by the end of an
//! ON period resumes in the next one, so the mean rate is exactly
//! peak · on / (on + off) however short the periods are compared with a
//! packet time (a fresh packet at every ON start would bias it upwards).

use super::emitter::{Emitter, SizeDist};
use crate::engine::time::PS_PER_S;
use crate::engine::{Duration, RngStream, Time};
use crate::net::Pdu;

/// How ON and OFF periods are drawn; in a description "exponential" or
/// "deterministic".
/// A carry spanning at least this many ON periods is skipped in closed form
/// instead of period by period (which a run of ordinary periods never
/// reaches, so their draws are the loop's).
const SKIP_PERIODS: u64 = 64;

#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Periods {
    Exponential,
    Deterministic,
}

pub(crate) struct OnOff {
    pub(crate) emitter: Emitter,
    size: SizeDist,
    peak_bps: f64,
    on_mean: Duration,
    off_mean: Duration,
    periods: Periods,
    on_end: Time,
    next: Time,
    rng: RngStream,
}

impl OnOff {
    pub(crate) fn new(
        emitter: Emitter,
        size: SizeDist,
        peak_bps: f64,
        on_mean: Duration,
        off_mean: Duration,
        periods: Periods,
        rng: RngStream,
    ) -> OnOff {
        let start = emitter.start;
        let mut s = OnOff {
            emitter,
            size,
            peak_bps,
            on_mean,
            off_mean,
            periods,
            on_end: start,
            next: start,
            rng,
        };
        s.on_end = start + s.period(on_mean);
        s
    }

    fn period(&mut self, mean: Duration) -> Duration {
        match self.periods {
            Periods::Deterministic => mean,
            Periods::Exponential => Duration(self.rng.exp(mean.0 as f64).round() as u64),
        }
    }

    pub(crate) fn poll_at(&self) -> Time {
        if self.emitter.active(self.next) {
            self.next
        } else {
            Time::NEVER
        }
    }

    pub(crate) fn poll(&mut self, now: Time) -> Option<Pdu> {
        if now < self.next || !self.emitter.active(now) {
            return None;
        }
        let bytes = self.size.draw(&mut self.rng);
        let p = self.emitter.make(now, bytes);
        let gap = Duration((bytes as f64 * 8.0 * PS_PER_S as f64 / self.peak_bps).round() as u64);
        self.next = now + gap;
        // The rest of the gap continues in the next ON period(s).
        if self.next >= self.on_end {
            self.carry_over();
        }
        Some(p)
    }

    /// Moves `next`, which falls beyond the current ON period, into the ON
    /// period where its remaining ON time runs out. Period by period when
    /// that is a few periods; at once when it spans many, so that a packet
    /// costs the same however short the periods are.
    fn carry_over(&mut self) {
        if self.next == Time::NEVER {
            // A gap beyond the clock's range (a rate of a few bits per
            // year): no further packet, and the loop below would never end
            // with `on_end` saturated too.
            return;
        }
        let carry = self.next.since(self.on_end).ps();
        let many = carry / self.on_mean.ps().max(1) >= SKIP_PERIODS;
        match self.periods {
            Periods::Deterministic if many => self.skip_deterministic(carry),
            Periods::Exponential if many => self.skip_exponential(carry),
            _ => {
                while self.next >= self.on_end {
                    let carry = self.next.since(self.on_end);
                    let on_start = self.on_end + self.period(self.off_mean);
                    self.on_end = on_start + self.period(self.on_mean);
                    self.next = on_start + carry;
                }
            }
        }
    }

    /// Equal periods: the loop's end in closed form. `m` periods are
    /// entered, each after an OFF period; the carry is ON time throughout.
    fn skip_deterministic(&mut self, carry: u64) {
        let (on, off) = (self.on_mean.ps().max(1), self.off_mean.ps());
        let m = carry / on + 1;
        let end = self.on_end;
        // Saturating: past the clock's range the source is simply done.
        self.next = end + Duration(m.saturating_mul(off).saturating_add(carry));
        self.on_end = end + Duration(m.saturating_mul(off.saturating_add(on)));
    }

    /// Exponential periods: ON-period ends form a Poisson process in ON
    /// time, so the periods entered while `carry` of ON time elapses are
    /// 1 + Poisson(carry / on); the OFF periods before them add up to a
    /// Gamma; what is left of the last ON period is again exponential
    /// (memoryless). Same law as the loop, in O(1).
    fn skip_exponential(&mut self, carry: u64) {
        let on = self.on_mean.ps().max(1) as f64;
        let m = 1 + self.rng.poisson(carry as f64 / on);
        let off = self.rng.gamma(m, self.off_mean.ps() as f64).round() as u64;
        let end = self.on_end;
        self.next = end + Duration(off.saturating_add(carry));
        self.on_end = self.next + Duration(self.rng.exp(on).round() as u64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gap_beyond_the_clock_ends_the_source_instead_of_looping() {
        // 1e-4 b/s: a 1000-byte packet every 2.5e6 years. The gap saturated
        // the clock and the carry loop compared NEVER with NEVER for ever.
        let minutes = Duration::from_millis(60_000);
        let mut s = OnOff::new(
            Emitter::for_test(Time(0), Time(10 * PS_PER_S)),
            SizeDist::Constant(1000),
            1e-4,
            Duration(100_000 * minutes.0),
            Duration::from_millis(1000),
            Periods::Deterministic,
            RngStream::new(1, "o"),
        );
        assert!(s.poll(Time(0)).is_some());
        assert_eq!(s.poll_at(), Time::NEVER);
    }

    fn emitter(seconds: u64) -> Emitter {
        Emitter::for_test(Time(0), Time(seconds * PS_PER_S))
    }

    /// Runs a source to its stop time; returns its mean rate in b/s.
    fn mean_rate(mut s: OnOff, seconds: u64) -> f64 {
        while s.poll_at() != Time::NEVER {
            let t = s.poll_at();
            s.poll(t).unwrap();
        }
        s.emitter.sent_bytes as f64 * 8.0 / seconds as f64
    }

    #[test]
    fn deterministic_duty_cycle_gives_mean_rate() {
        // 1 Mb/s peak, 10 ms ON, 30 ms OFF → 250 kb/s on average.
        let ms = Duration::from_millis(1);
        let s = OnOff::new(
            emitter(10),
            SizeDist::Constant(125),
            1e6,
            Duration(10 * ms.0),
            Duration(30 * ms.0),
            Periods::Deterministic,
            RngStream::new(1, "o"),
        );
        let rate = mean_rate(s, 10);
        assert!((rate - 250e3).abs() / 250e3 < 0.001, "{rate}");
    }

    #[test]
    fn short_periods_do_not_bias_the_mean_rate() {
        // ON and OFF of 1 ms mean, packets of 1 ms at the peak: a fresh
        // packet at every ON start would give about 0.7 of the peak.
        let ms = Duration::from_millis(1);
        let s = OnOff::new(
            emitter(200),
            SizeDist::Constant(1000),
            8e6,
            ms,
            ms,
            Periods::Exponential,
            RngStream::new(1, "o"),
        );
        let rate = mean_rate(s, 200);
        assert!((rate - 4e6).abs() / 4e6 < 0.01, "{rate}");
    }

    #[test]
    fn deterministic_skip_lands_where_the_loop_does() {
        // Periods of 7 and 5 ps; carries from 0 to many periods: the closed
        // form must give the loop's next and on_end exactly.
        for carry in [0u64, 1, 6, 7, 13, 448, 449, 10_000, 123_457] {
            let mut s = OnOff::new(
                emitter(1),
                SizeDist::Constant(1),
                1e6,
                Duration(7),
                Duration(5),
                Periods::Deterministic,
                RngStream::new(1, "o"),
            );
            let end = s.on_end;
            s.next = end + Duration(carry);
            let mut looped = (s.next, s.on_end);
            while looped.0 >= looped.1 {
                let c = looped.0.since(looped.1);
                let on_start = looped.1 + Duration(5);
                looped = (on_start + c, on_start + Duration(7));
            }
            s.skip_deterministic(carry);
            assert_eq!((s.next, s.on_end), looped, "carry {carry}");
        }
    }

    #[test]
    fn periods_far_shorter_than_a_packet_keep_the_mean_rate_and_cost_nothing() {
        // 8 Mb/s peak, ON and OFF of 10 ns, 1000-byte packets (1 ms at the
        // peak): each packet spans 10^5 ON periods, skipped at once. The
        // duty cycle is 1/2, so the mean rate is 4 Mb/s.
        for periods in [Periods::Exponential, Periods::Deterministic] {
            let ns = Duration(1_000);
            let s = OnOff::new(
                emitter(20),
                SizeDist::Constant(1000),
                8e6,
                Duration(10 * ns.0),
                Duration(10 * ns.0),
                periods,
                RngStream::new(2, "o"),
            );
            let rate = mean_rate(s, 20);
            assert!((rate - 4e6).abs() / 4e6 < 0.01, "{periods:?}: {rate}");
        }
    }
}
