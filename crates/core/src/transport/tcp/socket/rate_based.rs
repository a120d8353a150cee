//! The socket's side of a rate-based controller (BBR): a delivery-rate
//! sample on every ACK (`rate.rs`, draft-cheng-iccrg-delivery-rate-estimation)
//! handed over after loss recovery had its turn, and pacing: segments leave
//! no faster than the controller's rate (next send = last send +
//! length/rate, as Linux's internal pacing).

use super::{TcpSocket, Variant};
use crate::engine::{Duration, Time};
use crate::transport::tcp::congestion::{CaState, CongestionControl, RateAck};

impl TcpSocket {
    /// Bytes in the network: RFC 6675 pipe when SACK says more, else
    /// everything outstanding.
    pub(super) fn in_flight(&self) -> u64 {
        if self.cfg.variant == Variant::Sack && !self.scoreboard.is_empty() {
            let mss = self.cfg.mss as u64;
            return self.scoreboard.pipe(self.snd_una, self.snd_max, mss);
        }
        self.snd_max - self.snd_una
    }

    /// A rate-based controller's turn, after loss recovery had its own:
    /// the cwnd it sets is the one used (Linux's `cong_control`).
    pub(super) fn rate_sample(&mut self, now: Time, prior_in_flight: u64) {
        let Some(r) = &mut self.rate else {
            return;
        };
        let rs = r.sample(now);
        let state = if self.in_recovery() {
            CaState::Recovery
        } else if self.loss_until > self.snd_una {
            CaState::Loss
        } else {
            CaState::Open
        };
        let in_flight = self.in_flight();
        let a = RateAck {
            now,
            rs,
            prior_in_flight,
            in_flight,
            state,
            srtt: self.rtt.srtt(),
        };
        let mut w = self.window();
        self.cc.on_rate_sample(&mut w, &a);
        self.set_window(w);
        if self.cc.holds_app_limited() {
            if let Some(r) = &mut self.rate {
                r.mark_app_limited(in_flight);
            }
        }
        self.stats.cwnd_max = self.stats.cwnd_max.max(self.cwnd);
    }

    /// The estimator's note of a send; with a controller that wants them
    /// (BBRv3), the lost segment a retransmission replaces goes to it.
    pub(super) fn rate_on_send(&mut self, now: Time, seq: u64, len: u64) {
        let wants_losses = self.cc.wants_lost_segments();
        // Only BBRv3 reads the flight after each send; the pipe is not free.
        let in_flight = if wants_losses { self.in_flight() } else { 0 };
        let flight = self.snd_max - self.snd_una;
        let Some(r) = &mut self.rate else {
            return;
        };
        r.on_send(now, seq, len, flight, in_flight);
        if !wants_losses {
            return;
        }
        let lost = r.take_lost();
        if lost.is_empty() {
            return;
        }
        let w = self.window();
        for l in &lost {
            self.cc.on_lost_segment(now, &w, l);
        }
    }

    /// cwnd held a send back: the estimator's samples say so until this
    /// flight is delivered (BBRv3's `is_cwnd_limited`).
    pub(super) fn note_cwnd_limited(&mut self) {
        let flight = self.snd_max - self.snd_una;
        if let Some(r) = &mut self.rate {
            r.mark_cwnd_limited(flight);
        }
    }

    /// Linux's `CA_EVENT_TX_START`: data to send, nothing in flight and the
    /// estimator application-limited (BBRv3's restart from idle).
    pub(super) fn check_tx_start(&mut self, now: Time) {
        let idle = self.snd_una == self.snd_max
            && self.written > self.snd_max
            && self.rate.as_ref().is_some_and(|r| r.is_app_limited());
        if idle {
            let w = self.window();
            self.cc.on_tx_start(now, &w);
        }
    }

    /// Whether pacing holds the next segment back; if so the pacing timer
    /// is set for when it may leave.
    pub(super) fn paced_out(&mut self, now: Time) -> bool {
        if now >= self.next_send {
            return false;
        }
        self.pacing_timer.arm(now, self.next_send.since(now));
        true
    }

    /// The pacing clock after a segment of `len` bytes left now.
    pub(super) fn pace(&mut self, now: Time, len: u64) {
        // A pacing rate comes from the delivery-rate model, so only a
        // controller that takes rate samples paces; the others skip the
        // per-segment dispatch.
        if self.rate.is_none() {
            return;
        }
        let w = self.window();
        if let Some(rate) = self
            .cc
            .pacing_rate(&w, self.rtt.srtt())
            .filter(|r| *r > 0.0)
        {
            let gap = Duration::from_secs_f64(len as f64 / rate);
            self.next_send = self.next_send.max(now) + gap;
        }
    }
}
