//! The socket's side of RACK-TLP (RFC 8985, `recovery = "rack-tlp"`): it
//! tells `rack.rs` what it sends and what the ACKs say, enters fast
//! recovery when RACK marks a loss (§6.2 step 5, as RFC 6675's step 4 would
//! on DupThresh), sends by RFC 6675 §5's rules with RACK's loss marks,
//! sends the loss probe and applies its congestion response (§7).
//! Recovery's bounds and the ssthresh rule stay `recovery.rs`'s. With `prr`,
//! PRR's step runs on each ACK after RACK has marked that ACK's losses, so
//! its pipe is the one the sending rule reads (Linux: tcp_rack_mark_lost,
//! then tcp_cwnd_reduction, in tcp_fastretrans_alert).

use super::{State, TcpSocket};
use crate::engine::{Duration, Time};
use crate::net::pdu::Pdu;
use crate::transport::tcp::congestion::CongestionControl;
use crate::transport::tcp::rack::{AckInfo, Due, ProbeVerdict};

impl TcpSocket {
    /// In fast recovery, or still repairing a window that timed out.
    fn repairing(&self) -> bool {
        self.in_recovery() || self.snd_una < self.recover
    }

    fn rack_reo_wnd(&self) -> Duration {
        let sacked = self.scoreboard.sacked_bytes().div_ceil(self.cfg.mss as u64);
        self.rack.as_ref().map_or(Duration::ZERO, |r| {
            r.reo_wnd(self.repairing(), sacked, self.rtt.srtt())
        })
    }

    pub(super) fn rack_on_send(&mut self, now: Time, seq: u64, len: u64, retransmission: bool) {
        if let Some(r) = self.rack.as_mut() {
            r.on_send(now, seq, len, retransmission);
        }
        if !retransmission {
            self.rearm_probe_timer(now); // RFC 8985 §7.2
        }
    }

    /// After the ACK's ordinary processing: RACK's detection (§6.2), the
    /// probe's resolution (§7.4), recovery on a marked loss, PRR's step,
    /// the PTO. `mark`: the delivery mark before this ACK (for PRR).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn rack_on_ack(
        &mut self,
        now: Time,
        ack: u64,
        mark: u64,
        sack: &[(u64, u64)],
        advanced: bool,
        pure_dup: bool,
        out: &mut Vec<Pdu>,
    ) {
        let info = AckInfo {
            now,
            ack,
            sack,
            pure_dup,
            in_recovery: self.repairing(),
            sacked_segments: self.scoreboard.sacked_bytes().div_ceil(self.cfg.mss as u64),
            srtt: self.rtt.srtt(),
        };
        let Some(r) = self.rack.as_mut() else {
            return;
        };
        if let ProbeVerdict::RepairedLoss { flight } = r.on_ack(&info) {
            self.reduce_after_probe(now, flight);
        }
        self.reduce_on_lost_retransmission(now);
        let entered = self.rack_enter_recovery(now, mark, out);
        if !entered && self.in_recovery() && self.cfg.prr {
            self.prr_ack(mark, false);
        }
        if advanced {
            self.rearm_probe_timer(now);
        } else if !self.scoreboard.is_empty() {
            self.cancel_probe_timer();
        }
    }

    pub(super) fn rack_poll(&mut self, now: Time, out: &mut Vec<Pdu>) {
        loop {
            let reo = self.rack_reo_wnd();
            let Some(due) = self.rack.as_mut().and_then(|r| r.poll(now, reo)) else {
                return;
            };
            match due {
                Due::Reordering => {
                    self.reduce_on_lost_retransmission(now);
                    let mark = self.delivery_mark();
                    self.rack_enter_recovery(now, mark, out);
                }
                Due::Probe => self.send_probe(now, out),
            }
        }
    }

    pub(super) fn rack_on_rto(&mut self, now: Time) {
        let reo = self.rack_reo_wnd();
        if let Some(r) = self.rack.as_mut() {
            r.on_rto(now, reo);
            r.note_reduction(now);
        }
    }

    /// RFC 8985 §9.3: without PRR to bound what recovery sends, a
    /// retransmission deemed lost is a second indication of congestion, and
    /// RFC 5681 §4.3 lowers cwnd and ssthresh again. Once per window of
    /// retransmissions: only one sent since the last reduction counts.
    /// Without it the sender keeps the window it entered recovery with;
    /// when that is above what the path holds, each round of
    /// retransmissions overflows the queue again and recovery never ends.
    /// The reduction starts from cwnd (the window recovery set), not from
    /// a FlightSize that still counts SACKed data, nor from RACK's pipe,
    /// which the same ACK's loss marks may just have emptied.
    fn reduce_on_lost_retransmission(&mut self, now: Time) {
        let repairing = self.repairing();
        let Some(r) = self.rack.as_mut() else {
            return;
        };
        if !r.take_lost_retransmission() || self.cfg.prr || !repairing {
            return;
        }
        r.note_reduction(now);
        self.ssthresh = self.cc.on_congestion(now, &self.window(), self.cwnd);
        self.cwnd = self.ssthresh;
    }

    /// Fast recovery on a RACK-marked loss, with RFC 6675's entry: ssthresh
    /// from the controller, cwnd = ssthresh (with PRR, pipe + sndcnt), the
    /// first lost segment resent whatever the window (RFC 6937 §3 sends
    /// the fast retransmit outside PRR's budget too). Whether it entered.
    fn rack_enter_recovery(&mut self, now: Time, mark: u64, out: &mut Vec<Pdu>) -> bool {
        let Some((seq, len)) = self.rack.as_ref().and_then(|r| r.next_lost()) else {
            return false;
        };
        if self.state != State::Established || self.in_recovery() || !self.may_enter_recovery() {
            return false;
        }
        self.enter_recovery(now);
        if let Some(r) = self.rack.as_mut() {
            r.note_reduction(now);
        }
        if self.cfg.prr {
            self.prr_ack(mark, false);
        } else {
            self.cwnd = self.ssthresh;
        }
        self.cancel_probe_timer();
        self.retransmit(now, seq, len.min(self.cfg.mss as u64), out);
        self.stats.fast_retransmits += 1;
        if self.cfg.rto_restart_on_fast_retransmit {
            self.rto_timer.arm(now, self.rtt.rto());
        }
        true
    }

    /// RFC 6675 §5 step (C) with RACK's marks: while cwnd − pipe ≥ SMSS
    /// (and pacing lets a segment go), resend the lowest segment RACK deems
    /// lost, else send new data. No
    /// NextSeg rule 3: only what RACK marks is resent, as Linux does.
    pub(super) fn rack_recovery_send(&mut self, now: Time, out: &mut Vec<Pdu>) {
        let mss = self.cfg.mss as u64;
        while let Some(pipe) = self.rack.as_ref().map(|r| r.pipe()) {
            if self.cwnd < pipe + mss {
                self.note_cwnd_limited();
                break;
            }
            if self.paced_out(now) {
                break;
            }
            if let Some((s, l)) = self.rack.as_ref().and_then(|r| r.next_lost()) {
                self.retransmit(now, s, l.min(mss), out);
                // Linux re-arms the timer when it resends the head of the
                // retransmission queue (tcp_xmit_retransmit_queue), so a
                // lost retransmission of snd.una is RACK's to find.
                if s == self.snd_una && self.cfg.rto_restart_on_fast_retransmit {
                    self.rto_timer.arm(now, self.rtt.rto());
                }
                continue;
            }
            if !self.send_one_new(now, out) {
                break;
            }
        }
    }

    /// One new segment if there is data and the receive window allows.
    fn send_one_new(&mut self, now: Time, out: &mut Vec<Pdu>) -> bool {
        let avail = self.written - self.snd_max;
        let rwnd_room = (self.snd_una + self.peer_rwnd).saturating_sub(self.snd_max);
        let len = (self.cfg.mss as u64).min(avail);
        if len == 0 || len > rwnd_room || self.snd_nxt != self.snd_max {
            return false;
        }
        let seq = self.snd_max;
        self.send_segment(now, seq, len, out);
        self.snd_max += len;
        self.snd_nxt = self.snd_max;
        true
    }

    /// RFC 8985 §7.2: a probe timeout while data is out, outside recovery
    /// and with nothing SACKed.
    fn rearm_probe_timer(&mut self, now: Time) {
        let flight = self.snd_max - self.snd_una;
        let may = self.state == State::Established
            && flight > 0
            && !self.repairing()
            && self.scoreboard.is_empty();
        if !may {
            self.cancel_probe_timer();
            return;
        }
        let one_segment = flight <= self.cfg.mss as u64;
        let (srtt, rto_at) = (self.rtt.srtt(), self.rto_timer.deadline());
        if let Some(r) = self.rack.as_mut() {
            r.arm_pto(now, srtt, one_segment, rto_at);
        }
    }

    fn cancel_probe_timer(&mut self) {
        if let Some(r) = self.rack.as_mut() {
            r.cancel_pto();
        }
    }

    /// RFC 8985 §7.3: new data if any may go, else the highest segment
    /// sent, whatever cwnd; then the retransmission timer restarts.
    fn send_probe(&mut self, now: Time, out: &mut Vec<Pdu>) {
        let may = self.rack.as_ref().is_some_and(|r| r.may_probe());
        if self.state != State::Established || self.snd_una == self.snd_max || !may {
            return; // the retransmission timer keeps running
        }
        let flight = self.snd_max - self.snd_una;
        let is_retrans = if self.send_one_new(now, out) {
            false
        } else if let Some((s, l)) = self.rack.as_ref().and_then(|r| r.last_segment()) {
            self.retransmit(now, s, l.min(self.cfg.mss as u64), out);
            true
        } else {
            return;
        };
        let end_seq = self.snd_max;
        if let Some(r) = self.rack.as_mut() {
            r.on_probe(end_seq, is_retrans, flight);
        }
        self.rto_timer.arm(now, self.rtt.rto());
    }

    /// RFC 8985 §7.4: the probe repaired a loss, so the flight it was sent
    /// into lost a segment: the controller's reduction, at once (Linux's
    /// CWR state ends with cwnd = ssthresh), without a recovery episode.
    fn reduce_after_probe(&mut self, now: Time, flight: u64) {
        let w = self.window();
        let basis = self.reduction_basis(flight);
        self.ssthresh = self.cc.on_congestion(now, &w, basis);
        self.cwnd = self.ssthresh;
        if let Some(r) = self.rack.as_mut() {
            r.note_reduction(now);
        }
    }
}
