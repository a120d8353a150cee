//! Reno's window (RFC 5681 §3.1): slow start with byte counting (RFC 3465
//! §2.2), congestion avoidance of about one segment per window, ssthresh
//! half the flight after a loss (RFC 5681 eq. (4)).

use super::{slow_start, Ack, CongestionControl, HyStart, Window};
use crate::engine::Time;

#[derive(Clone, Debug)]
pub(crate) struct Reno {
    abc_limit_segments: u32,
    pub(crate) hystart: Option<HyStart>,
}

impl Reno {
    pub(crate) fn new(abc_limit_segments: u32, hystart: Option<HyStart>) -> Reno {
        Reno {
            abc_limit_segments,
            hystart,
        }
    }
}

/// RFC 5681 eq. (4): max(FlightSize / 2, 2·SMSS).
pub(crate) fn half_flight(flight: u64, mss: u64) -> u64 {
    (flight / 2).max(2 * mss)
}

impl CongestionControl for Reno {
    fn wants_rtt_samples(&self) -> bool {
        self.hystart.as_ref().is_some_and(|h| h.active())
    }

    fn on_ack(&mut self, w: &mut Window, ack: &Ack) {
        if w.cwnd < w.ssthresh {
            slow_start(w, ack, self.abc_limit_segments, self.hystart.as_mut());
        } else {
            // cwnd += SMSS²/cwnd per ACK, at least one byte.
            w.cwnd += (w.mss * w.mss / w.cwnd).max(1);
        }
    }

    fn on_congestion(&mut self, _now: Time, w: &Window, flight: u64) -> u64 {
        if let Some(h) = &mut self.hystart {
            h.stop();
        }
        half_flight(flight, w.mss)
    }

    fn on_timeout(&mut self, now: Time, w: &Window, flight: u64) -> u64 {
        self.on_congestion(now, w, flight)
    }
}
