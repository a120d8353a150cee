//! Constant bit rate source: one packet every size*8/rate.
//!
//! Emission k is at start + round(k * interval) computed from k, not by
//! adding a rounded interval, so the rate never drifts.

use super::emitter::Emitter;
use crate::engine::time::PS_PER_S;
use crate::engine::Time;
use crate::net::Pdu;

pub(crate) struct Cbr {
    pub(crate) emitter: Emitter,
    bytes: u32,
    interval_ps: f64,
    k: u64,
    next: Time,
}

impl Cbr {
    pub(crate) fn new(emitter: Emitter, bytes: u32, rate_bps: f64) -> Cbr {
        let next = emitter.start;
        Cbr {
            emitter,
            bytes,
            interval_ps: bytes as f64 * 8.0 * PS_PER_S as f64 / rate_bps,
            k: 0,
            next,
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
        let p = self.emitter.make(now, self.bytes);
        self.k += 1;
        self.next = self.emitter.start
            + crate::engine::Duration((self.k as f64 * self.interval_ps).round() as u64);
        Some(p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn emitter(start: u64, stop: u64) -> Emitter {
        Emitter::for_test(Time(start), Time(stop))
    }

    #[test]
    fn emits_at_exact_rate_within_window() {
        // 53-byte cells at 8.892 Mb/s for 1 s: 20 971.6 cells → 20 972
        // emissions in [0, 1 s).
        let mut c = Cbr::new(emitter(0, PS_PER_S), 53, 8.892e6);
        let mut n = 0;
        while c.poll_at() != Time::NEVER {
            let t = c.poll_at();
            c.poll(t).unwrap();
            n += 1;
        }
        assert_eq!(n, 20_972);
        assert_eq!(c.emitter.sent_bytes, 20_972 * 53);
    }
}
