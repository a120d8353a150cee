//! The socket's side of congestion window validation (RFC 2861, RFC 7661;
//! the rules are `cwv.rs`'s): what it tells the validator of its sending.

use super::TcpSocket;
use crate::engine::Time;
use crate::transport::tcp::cwv;

impl TcpSocket {
    /// Whether cwnd may grow on this ACK: only while cwnd limits the flight
    /// (RFC 7661 §4), or in RFC 7661's validated phase.
    pub(super) fn validate_on_ack(&mut self, now: Time, ack: u64) -> bool {
        let mut w = self.window();
        let s = self.send_state(now);
        let grow = self.cwv.on_ack(&mut w, &s, ack, self.snd_max);
        self.set_window(w);
        grow
    }

    pub(super) fn send_state(&self, now: Time) -> cwv::SendState {
        cwv::SendState {
            now,
            cwnd_limited: self.cwnd_limited,
            flight: self.snd_max - self.snd_una,
            srtt: self.rtt.srtt(),
            rto: self.rtt.rto(),
            rwnd: self.peer_rwnd,
            iw: self.cfg.initial_window_segments as u64 * self.cfg.mss as u64,
        }
    }
}
