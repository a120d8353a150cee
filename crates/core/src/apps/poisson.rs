//! Poisson source: exponential gaps with mean mean_size*8/rate, sizes
//! constant or exponential (the M/M/1 and M/D/1 arrival processes).

use super::emitter::{Emitter, SizeDist};
use crate::engine::time::PS_PER_S;
use crate::engine::{Duration, RngStream, Time};
use crate::net::Pdu;

pub(crate) struct Poisson {
    pub(crate) emitter: Emitter,
    size: SizeDist,
    mean_gap_ps: f64,
    next: Time,
    rng: RngStream,
}

impl Poisson {
    pub(crate) fn new(
        emitter: Emitter,
        size: SizeDist,
        rate_bps: f64,
        mut rng: RngStream,
    ) -> Poisson {
        let mean_gap_ps = size.mean_bytes() * 8.0 * PS_PER_S as f64 / rate_bps;
        let next = emitter.start + Duration(rng.exp(mean_gap_ps).round() as u64);
        Poisson {
            emitter,
            size,
            mean_gap_ps,
            next,
            rng,
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
        self.next = now + Duration(self.rng.exp(self.mean_gap_ps).round() as u64);
        Some(p)
    }
}
