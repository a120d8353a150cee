//! The socket's side of ECN (RFC 3168 §6.1, `ecn.rs` holding the state):
//! what a data segment carries, what an arriving one says, and the
//! reduction an ECE asks for, which the controller may decline (BBR). In
//! L4S mode the echo is DCTCP's (RFC 8257 §3.2) and the reduction
//! scalable (§3.3).

use super::{State, TcpSocket};
use crate::engine::Time;
use crate::net::pdu::{Pdu, TCP_ECE};
use crate::transport::tcp::congestion::CongestionControl;

impl TcpSocket {
    /// A data segment arrived with these flags and this IP ECN field: count
    /// a CE mark and ACK at once where RFC 3168 (and Linux) wants it.
    pub(super) fn ecn_on_data(&mut self, now: Time, flags: u8, field: u8, out: &mut Vec<Pdu>) {
        if self.ecn.ce_state_changes(field) && self.unacked_segments > 0 {
            // RFC 8257 §3.2: the held ACK reports the earlier segments'
            // state before this one changes it.
            self.send_ack(now, out);
        }
        let (marked, ack_now) = self.ecn.on_data(flags, field);
        self.stats.ce_marks_received += u64::from(marked);
        self.ack_now |= ack_now;
    }

    /// After the ACK's loss recovery: one reduction per window of data on
    /// ECE.
    pub(super) fn ecn_on_ack(&mut self, now: Time, flags: u8, prev_una: u64) {
        let (una, max) = (self.snd_una, self.snd_max);
        if let Some(s) = self.ecn.scalable() {
            s.on_ack(una.saturating_sub(prev_una), flags & TCP_ECE != 0, una, max);
        }
        if self.ecn.reduce_on(flags, self.snd_una) && self.cc.responds_to_ecn() {
            self.ecn_reduce(now);
        }
    }

    /// Whether this ACK may not grow cwnd: it echoes a CE mark the
    /// controller answers (RFC 3168 §6.1.2).
    pub(super) fn ecn_holds_growth(&self, flags: u8) -> bool {
        // L4S: ECE is routine there; only the reduction answers it.
        flags & TCP_ECE != 0 && self.ecn.on() && !self.cfg.ecn_l4s && self.cc.responds_to_ecn()
    }

    /// ECT(0) on new data and CWR after a reduction (§6.1.2, §6.1.5).
    pub(super) fn ecn_stamp(&mut self, p: &mut Pdu, seq: u64) {
        if !self.ecn.on() {
            return;
        }
        let (field, flags) = self.ecn.stamp_data(seq >= self.snd_max);
        p.ecn = field;
        if let Some(h) = p.header.tcp_mut() {
            h.flags |= flags;
        }
    }

    /// RFC 3168 §6.1.2: an ECE outside loss recovery reduces as a loss
    /// would (the controller's `on_congestion`), without a retransmission,
    /// cwnd going straight to ssthresh (Linux paces this with PRR in its
    /// CWR state; not modelled). The next new segment carries CWR.
    fn ecn_reduce(&mut self, now: Time) {
        if self.state != State::Established || self.in_recovery() || self.snd_una < self.loss_until
        {
            return;
        }
        let flight = self.snd_max - self.snd_una;
        let basis = self.reduction_basis(flight);
        self.ssthresh = self.cc.on_congestion(now, &self.window(), basis);
        if let Some(beta) = self.cfg.ecn_beta {
            // RFC 8511 §3: the controller keeps its state from the call
            // above (CUBIC's W_max); only the reduction is gentler.
            let mss = self.cfg.mss as u64;
            self.ssthresh = ((basis as f64 * beta) as u64).max(2 * mss);
        }
        if let Some(s) = self.ecn.scalable() {
            // RFC 8257 §3.3: cwnd (1 - alpha/2); the controller's state
            // (CUBIC's W_max, its epoch) is the call above's, as for ABE.
            let mss = self.cfg.mss as u64;
            self.ssthresh = s.reduced(self.cwnd).max(2 * mss);
        }
        self.cwnd = self.ssthresh;
        self.ecn.reduced(self.snd_max);
        self.stats.ecn_reductions += 1;
    }
}
