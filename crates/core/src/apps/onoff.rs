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

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Periods {
    Exponential,
    Deterministic,
}

pub struct OnOff {
    pub emitter: Emitter,
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
    pub fn new(
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

    pub fn poll_at(&self) -> Time {
        if self.emitter.active(self.next) {
            self.next
        } else {
            Time::NEVER
        }
    }

    pub fn poll(&mut self, now: Time) -> Option<Pdu> {
        if now < self.next || !self.emitter.active(now) {
            return None;
        }
        let bytes = self.size.draw(&mut self.rng);
        let p = self.emitter.make(now, bytes);
        let gap = Duration((bytes as f64 * 8.0 * PS_PER_S as f64 / self.peak_bps).round() as u64);
        self.next = now + gap;
        // The rest of the gap continues in the next ON period(s).
        while self.next >= self.on_end {
            let carry = self.next.since(self.on_end);
            let on_start = self.on_end + self.period(self.off_mean);
            self.on_end = on_start + self.period(self.on_mean);
            self.next = on_start + carry;
        }
        Some(p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
