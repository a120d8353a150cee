//! Loss recovery of one endpoint: fast retransmit and fast recovery (RFC
//! 5681 §3.2, Reno), NewReno partial ACKs (RFC 6582 §3.2), SACK recovery
//! with the pipe algorithm (RFC 6675 §5), and the retransmission timeout
//! (RFC 6298 §5, RFC 5681 §3.1 eq. (4)). With `prr`, Proportional Rate
//! Reduction (RFC 6937 §3, `prr.rs`) sets cwnd = pipe + sndcnt on every
//! ACK of a fast recovery instead of RFC 6675's cwnd = ssthresh, RFC
//! 5681's inflation and RFC 6582's deflation; recovery still ends at cwnd =
//! ssthresh.

use super::{Recovery, State, TcpSocket};
use crate::engine::Time;
use crate::net::pdu::{Pdu, TCP_ACK, TCP_SYN};
use crate::transport::tcp::congestion::CongestionControl;
use crate::transport::tcp::prr::{Bound, Prr};
use crate::transport::tcp::{ReductionBasis, Variant};

impl TcpSocket {
    pub(super) fn recovery_ack(
        &mut self,
        now: Time,
        ack: u64,
        acked: u64,
        mark: u64,
        out: &mut Vec<Pdu>,
    ) {
        let mss = self.cfg.mss as u64;
        let full = ack >= self.recover;
        match self.cfg.variant {
            Variant::Reno | Variant::Tahoe => {
                self.cwnd = self.ssthresh;
                self.recovery = Recovery::Open;
            }
            // RFC 6937: recovery ends at cwnd = ssthresh (Linux's
            // tcp_end_cwnd_reduction).
            Variant::NewReno if full && self.cfg.prr => {
                self.cwnd = self.ssthresh;
                self.recovery = Recovery::Open;
            }
            Variant::NewReno if self.cfg.prr => {
                self.prr_ack(mark, true);
                let len = mss.min(self.snd_max - self.snd_una);
                self.retransmit(now, self.snd_una, len, out);
            }
            Variant::NewReno if full => {
                // RFC 6582 §3.2 step 3, option 1.
                let flight = self.snd_max - self.snd_una;
                self.cwnd = self.ssthresh.min(flight.max(mss) + mss);
                self.recovery = Recovery::Open;
            }
            Variant::NewReno => {
                // Partial ACK: retransmit the next hole, deflate cwnd.
                let len = mss.min(self.snd_max - self.snd_una);
                self.retransmit(now, self.snd_una, len, out);
                self.cwnd = self.cwnd.saturating_sub(acked) + if acked >= mss { mss } else { 0 };
                self.cwnd = self.cwnd.max(mss);
            }
            Variant::Sack if full => {
                self.cwnd = self.ssthresh;
                self.recovery = Recovery::Open;
                self.scoreboard.high_rxt = 0;
            }
            // With RACK-TLP, PRR runs after RACK has marked this ACK's
            // losses (`rack_tlp.rs`), as Linux's tcp_fastretrans_alert does.
            Variant::Sack if self.rack.is_some() => {}
            Variant::Sack => self.prr_ack(mark, false),
        }
    }

    /// `mark`: the delivery mark before this ACK (for PRR).
    pub(super) fn on_dup_ack(&mut self, now: Time, mark: u64, out: &mut Vec<Pdu>) {
        self.dupacks += 1;
        self.stats.dup_acks += 1;
        let mss = self.cfg.mss as u64;
        self.dup_acked = (self.dup_acked + mss).min(self.snd_max - self.snd_una);
        match self.cfg.variant {
            Variant::Tahoe => {}
            Variant::Reno | Variant::NewReno => {
                if self.in_recovery() {
                    if self.cfg.prr {
                        self.prr_ack(mark, false);
                    } else {
                        self.cwnd += mss; // window inflation
                    }
                } else if self.dupacks == 3 && self.may_enter_recovery() {
                    self.enter_recovery(now);
                    if self.cfg.prr {
                        self.prr_ack(mark, true);
                    } else {
                        self.cwnd = self.ssthresh.saturating_add(3 * mss);
                    }
                    self.fast_retransmit(now, out);
                }
            }
            // RACK-TLP decides losses by time, not by DupThresh.
            Variant::Sack if self.rack.is_some() => {}
            Variant::Sack => {
                let lost = self
                    .scoreboard
                    .first_is_lost(self.snd_una, self.snd_max, mss);
                if self.in_recovery() {
                    self.prr_ack(mark, false);
                } else if (self.dupacks >= 3 || lost) && self.may_enter_recovery() {
                    self.enter_recovery(now);
                    if self.cfg.prr {
                        self.prr_ack(mark, false);
                    } else {
                        self.cwnd = self.ssthresh;
                    }
                    let len = self.fast_retransmit(now, out);
                    self.scoreboard.high_rxt = self.snd_una + len;
                }
            }
        }
    }

    /// What the receiver is known to hold: snd_una plus the SACKed bytes,
    /// or without SACK the duplicate ACKs' estimate. DeliveredData (RFC
    /// 6937 §2) is its change over one ACK.
    pub(super) fn delivery_mark(&self) -> u64 {
        let above = if self.cfg.variant == Variant::Sack {
            self.scoreboard.sacked_bytes()
        } else {
            self.dup_acked
        };
        self.snd_una + above
    }

    /// RFC 6675 pipe (with RACK-TLP, the pipe by RACK's loss marks, which
    /// is what its sending rule compares cwnd with), or without SACK
    /// FlightSize less what duplicate ACKs
    /// reported; `resend_pending`: less the hole about to be retransmitted
    /// (deemed lost, not yet resent), so the retransmission counts against
    /// sndcnt as Linux's lost_out/retrans_out accounting has it.
    fn prr_pipe(&self, resend_pending: bool) -> u64 {
        let mss = self.cfg.mss as u64;
        if let Some(r) = &self.rack {
            return r.pipe();
        }
        if self.cfg.variant == Variant::Sack {
            return self.scoreboard.pipe(self.snd_una, self.snd_max, mss);
        }
        let pipe = (self.snd_max - self.snd_una).saturating_sub(self.dup_acked);
        if resend_pending {
            pipe.saturating_sub(mss.min(self.snd_max - self.snd_una))
        } else {
            pipe
        }
    }

    /// RFC 6937 §3 on an ACK of a fast recovery: cwnd = pipe + sndcnt, so
    /// what the sending rules let out next is sndcnt. No-op without PRR.
    pub(super) fn prr_ack(&mut self, mark: u64, resend_pending: bool) {
        let delivered = self.delivery_mark().saturating_sub(mark);
        let pipe = self.prr_pipe(resend_pending);
        if let Recovery::Fast { prr: Some(p), .. } = &mut self.recovery {
            self.cwnd = pipe + p.on_ack(delivered, pipe);
        }
    }

    /// Without SACK, the bytes send_new_data may count beyond cwnd while
    /// PRR runs: its window is over snd_nxt − snd_una, PRR's over pipe.
    pub(super) fn prr_dup_acked(&self) -> u64 {
        match self.recovery {
            Recovery::Fast { prr: Some(_), .. } if self.cfg.variant != Variant::Sack => {
                self.dup_acked
            }
            _ => 0,
        }
    }

    /// Resends the first unacknowledged segment; returns its length.
    ///
    /// RFC 6298 §5.1 starts the timer only when it is not running, so read
    /// literally the timer keeps the clock of the last new ACK, and on a
    /// long path with a small minimum RTO it often expires before the
    /// retransmission can be acknowledged. ns-2 (`reset_rtx_timer` in its
    /// dupack actions) and Linux (re-arming when the head of the
    /// retransmission queue is resent) restart it here, as RFC 6582 §3.2
    /// does on a partial ACK; `rto_restart_on_fast_retransmit` (default on)
    /// chooses.
    fn fast_retransmit(&mut self, now: Time, out: &mut Vec<Pdu>) -> u64 {
        let len = (self.cfg.mss as u64).min(self.snd_max - self.snd_una);
        self.retransmit(now, self.snd_una, len, out);
        self.stats.fast_retransmits += 1;
        if self.cfg.rto_restart_on_fast_retransmit {
            self.rto_timer.arm(now, self.rtt.rto());
        }
        len
    }

    /// What the controller reduces from: `flight`, or cwnd (`ssthresh_from`).
    pub(super) fn reduction_basis(&self, flight: u64) -> u64 {
        match self.cfg.ssthresh_from {
            ReductionBasis::Flight => flight,
            ReductionBasis::Cwnd => self.cwnd,
        }
    }

    /// RFC 6582 §3.2 step 1 / RFC 6675 §5: no new recovery for losses of
    /// the window already being recovered.
    pub(super) fn may_enter_recovery(&self) -> bool {
        // RFC 5681 (Reno) has no such guard.
        self.cfg.variant == Variant::Reno || self.snd_una >= self.recover || self.recover == 0
    }

    pub(super) fn enter_recovery(&mut self, now: Time) {
        // RFC 5681 §3.2 step 2 with RFC 3042 §2: FlightSize without the
        // segments Limited Transmit sent on the first two duplicate ACKs.
        let flight = self.snd_max - self.snd_una - self.limited_sent;
        let mut s = self.send_state(now);
        s.flight = flight;
        self.cwv
            .on_recovery_start(&self.window(), &s, self.retransmitted_bytes);
        let basis = self.reduction_basis(flight);
        self.ssthresh = self.cc.on_congestion(now, &self.window(), basis);
        self.recover = self.snd_max;
        self.ecn.reduced(self.snd_max);
        // RFC 6937 §3: RecoverFS = snd.nxt − snd.una (Linux uses the cwnd
        // before the reduction), PRR-SSRB as RFC 6937 recommends.
        let recover_fs = self.snd_nxt - self.snd_una;
        let mss = self.cfg.mss as u64;
        let prr = (self.cfg.prr).then(|| Prr::start(self.ssthresh, recover_fs, mss, Bound::Ssrb));
        self.recovery = Recovery::Fast {
            partial_acks: 0,
            prr,
        };
        self.timing = None; // Karn: the timed segment may be retransmitted
    }

    // ----- retransmission timer -----

    pub(super) fn on_rto(&mut self, now: Time, out: &mut Vec<Pdu>) {
        match self.state {
            State::SynSent | State::SynRcvd => {
                self.syn_retransmitted = true;
                self.timing = None;
                self.rtt.back_off();
                let flags = if self.state == State::SynSent {
                    TCP_SYN
                } else {
                    TCP_SYN | TCP_ACK
                };
                out.push(self.control(now, flags));
                self.stats.retransmissions += 1;
                self.rto_timer.arm(now, self.rtt.rto());
                return;
            }
            State::Established => {}
            _ => return,
        }
        if self.snd_una == self.snd_max {
            return;
        }
        let mss = self.cfg.mss as u64;
        self.stats.timeouts += 1;
        self.rack_on_rto(now);
        if self.consecutive_timeouts == 0 {
            // RFC 5681 §3.1 eq. (4) (RFC 9438 §4.8 for CUBIC); held
            // constant on repeated timeouts.
            let basis = self.reduction_basis(self.snd_max - self.snd_una);
            self.ssthresh = self.cc.on_timeout(now, &self.window(), basis);
        }
        self.consecutive_timeouts += 1;
        self.cwv.on_timeout(now);
        self.cwnd = mss;
        self.snd_nxt = self.snd_una; // go back N
        self.recovery = Recovery::Open;
        self.dupacks = 0;
        self.limited_sent = 0;
        self.dup_acked = 0;
        self.recover = self.snd_max;
        self.loss_until = self.snd_max;
        self.ecn.reduced(self.snd_max);
        // RFC 6675 §5.1: keep the SACK information through the timeout, so
        // the resending skips what the receiver holds (Linux does the same;
        // a receiver that reneges is not modelled). Only HighRxt restarts.
        self.scoreboard.high_rxt = self.snd_una;
        self.timing = None;
        self.rtt.back_off();
        self.send_new_data(now, out);
        self.rto_timer.arm(now, self.rtt.rto());
    }

    /// RFC 6675 §5 step (C): while cwnd − pipe ≥ SMSS, send NextSeg().
    pub(super) fn sack_recovery_send(&mut self, now: Time, out: &mut Vec<Pdu>) {
        let mss = self.cfg.mss as u64;
        loop {
            let pipe = self.scoreboard.pipe(self.snd_una, self.snd_max, mss);
            if self.cwnd < pipe + mss {
                self.note_cwnd_limited();
                break;
            }
            if self.paced_out(now) {
                break;
            }
            if let Some((s, l)) = self.scoreboard.next_lost(self.snd_una, self.snd_max, mss) {
                let len = l.min(mss);
                self.retransmit(now, s, len, out);
                self.scoreboard.high_rxt = s + len;
                continue;
            }
            let avail = self.written - self.snd_max;
            let rwnd_room = (self.snd_una + self.peer_rwnd).saturating_sub(self.snd_max);
            let len = mss.min(avail);
            if len > 0 && len <= rwnd_room {
                let seq = self.snd_max;
                self.send_segment(now, seq, len, out);
                self.snd_max += len;
                self.snd_nxt = self.snd_max;
                continue;
            }
            if let Some((s, l)) = self
                .scoreboard
                .next_unsacked(self.snd_una, self.snd_max, mss)
            {
                let len = l.min(mss);
                self.retransmit(now, s, len, out);
                self.scoreboard.high_rxt = s + len;
                continue;
            }
            break;
        }
    }
}
