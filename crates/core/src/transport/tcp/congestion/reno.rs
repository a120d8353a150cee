//! Reno's window (RFC 5681 §3.1): slow start with byte counting (RFC 3465
//! §2.2), congestion avoidance of about one segment per window, ssthresh
//! half the flight after a loss (RFC 5681 eq. (4)).
//!
//! Congestion avoidance adds SMSS²/cwnd per ACK (RFC 5681 eq. (3)), or with
//! `abc` counts the bytes acknowledged and adds one SMSS per cwnd of them
//! (RFC 3465 §2.1; Linux's `tcp_cong_avoid_ai` counts segments the same
//! way). With delayed ACKs the first grows half a segment per RTT, the
//! second one.

use super::{slow_start, Ack, CongestionControl, HyStart, Window};
use crate::engine::Time;

#[derive(Clone, Debug)]
pub(crate) struct Reno {
    abc_limit_segments: u32,
    pub(crate) hystart: Option<HyStart>,
    /// RFC 3465 §2.1 byte counting in congestion avoidance.
    abc: bool,
    /// RFC 3465 bytes_acked: acknowledged bytes not yet turned into growth.
    bytes_acked: u64,
}

impl Reno {
    pub(crate) fn new(abc_limit_segments: u32, hystart: Option<HyStart>, abc: bool) -> Reno {
        Reno {
            abc_limit_segments,
            hystart,
            abc,
            bytes_acked: 0,
        }
    }

    fn congestion_avoidance(&mut self, w: &mut Window, acked: u64) {
        if !self.abc {
            // cwnd += SMSS²/cwnd per ACK, at least one byte.
            w.cwnd += (w.mss * w.mss / w.cwnd).max(1);
            return;
        }
        // One SMSS per cwnd acknowledged; an ACK covering several windows
        // (a stretch ACK) earns several, as in Linux.
        self.bytes_acked += acked;
        let windows = self.bytes_acked / w.cwnd;
        self.bytes_acked -= windows * w.cwnd;
        w.cwnd += windows * w.mss;
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
            self.congestion_avoidance(w, ack.acked);
        }
    }

    fn on_congestion(&mut self, _now: Time, w: &Window, flight: u64) -> u64 {
        if let Some(h) = &mut self.hystart {
            h.stop();
        }
        // Bytes counted against the old window are dropped (Linux zeroes
        // its count at a timeout; here at every reduction).
        self.bytes_acked = 0;
        half_flight(flight, w.mss)
    }

    fn on_timeout(&mut self, now: Time, w: &Window, flight: u64) -> u64 {
        self.on_congestion(now, w, flight)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One round trip in congestion avoidance with delayed ACKs: a window
    /// of `w` segments acknowledged two segments per ACK. Growth in bytes.
    fn round_growth(abc: bool, w: u64) -> u64 {
        let mss = 1000;
        let mut reno = Reno::new(2, None, abc);
        let mut win = Window {
            cwnd: w * mss,
            ssthresh: mss,
            mss,
        };
        let start = win.cwnd;
        for _ in 0..w / 2 {
            let a = Ack {
                now: Time::ZERO,
                acked: 2 * mss,
                ack: 0,
                snd_max: 0,
                srtt: None,
                rtt_sample: None,
            };
            reno.on_ack(&mut win, &a);
        }
        win.cwnd - start
    }

    #[test]
    fn byte_counting_grows_one_segment_per_window_with_delayed_acks() {
        // RFC 3465 §2.1: exactly one SMSS once a window is acknowledged.
        assert_eq!(round_growth(true, 40), 1000);
        // RFC 5681 eq. (3) per ACK: W/2 ACKs of SMSS²/cwnd, about half.
        let per_ack = round_growth(false, 40);
        assert!((450..=500).contains(&per_ack), "{per_ack}");
    }

    #[test]
    fn a_stretch_ack_earns_one_segment_per_window_it_covers() {
        let mss = 1000;
        let mut reno = Reno::new(2, None, true);
        let mut w = Window {
            cwnd: 10 * mss,
            ssthresh: mss,
            mss,
        };
        let a = Ack {
            now: Time::ZERO,
            acked: 25 * mss,
            ack: 0,
            snd_max: 0,
            srtt: None,
            rtt_sample: None,
        };
        reno.on_ack(&mut w, &a);
        assert_eq!(w.cwnd, 12 * mss);
        assert_eq!(reno.bytes_acked, 5 * mss);
        reno.on_congestion(Time::ZERO, &w, w.cwnd);
        assert_eq!(reno.bytes_acked, 0);
    }
}
