//! Explicit Congestion Notification in TCP (RFC 3168 §6.1), one end's state
//! for both halves of the connection.
//!
//! - Negotiation (§6.1.1): the SYN carries ECE and CWR, a SYN-ACK agreeing
//!   carries ECE alone. Without a handshake both ends assume it agreed.
//! - Sending (§6.1.2, §6.1.4, §6.1.5): new data segments leave ECT(0);
//!   retransmissions, pure ACKs and SYNs leave Not-ECT. An ACK carrying ECE
//!   reduces the window as a loss does, without a retransmission, at most
//!   once per window of data: none until snd_una passes snd_max as it was at
//!   the last reduction (a fast recovery or a timeout counts as one, as in
//!   Linux's `tcp_enter_recovery` and `tcp_enter_loss`). The first new data
//!   segment after a reduction carries CWR.
//! - Receiving (§6.1.3): a CE-marked arrival makes every later ACK carry
//!   ECE until a segment with CWR arrives (a CWR segment that is itself
//!   marked keeps it on). The arrival that starts the echo, and a segment
//!   with CWR, are acknowledged at once, not delayed: RFC 3168 leaves it
//!   open; Linux's `tcp_ecn_check_ce` enters quick-ACK mode on the first,
//!   so the sender learns of the mark without a delayed-ACK timer's wait,
//!   and `tcp_ecn_accept_cwr` ACKs the second at once, as the sender's
//!   window may have just become very small.
//!
//! - L4S (`ecn = "l4s"`, a Prague-like scalable response): new data
//!   leaves ECT(1), so that a DualPI2 queue holds it in its L queue (RFC
//!   9332 §2.3). The receiver echoes per packet as DCTCP's does (RFC 8257
//!   §3.2): ECE reflects the CE state of the last data segment received,
//!   and when that state changes any delayed ACK for the earlier segments
//!   goes at once with the old state, so every acknowledged byte is
//!   reported with its own state. This stands in for Accurate ECN (RFC
//!   9768), whose counters a counting sender reads for the same number of
//!   marked bytes (both report each byte's CE state exactly while no ACK
//!   is lost). The sender keeps DCTCP's alpha (`ecn/scalable.rs`) and
//!   reduces at most once per window on ECE to `cwnd (1 - alpha / 2)`;
//!   CWR is not used.
//!
//! The socket calls in from `on_segment`, `send_segment`, `segment` and its
//! reductions; the window arithmetic is the controller's `on_congestion`.

use crate::net::pdu::{ecn, TCP_CWR, TCP_ECE};
use scalable::Scalable;

pub(crate) mod scalable;

/// Where the sender's response stands.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Response {
    /// No reduction yet: the next ECE reduces.
    Open,
    /// Reduced when snd_max was `high`; `cwr_pending` until the next new
    /// data segment carries CWR.
    Reduced { high: u64, cwr_pending: bool },
}

/// One end's ECN state.
#[derive(Clone, Debug)]
pub(crate) struct Ecn {
    /// ECN asked for by the configuration.
    wanted: bool,
    /// ECN agreed for this connection.
    on: bool,
    /// Receiver: echo ECE on every segment until CWR arrives.
    echo: bool,
    response: Response,
    /// The L4S sender's estimate; Some in L4S mode.
    scalable: Option<Scalable>,
}

impl Ecn {
    /// `wanted`: the configuration's `ecn`; without a handshake the peer
    /// is assumed to have agreed.
    pub(crate) fn new(wanted: bool, handshake: bool) -> Ecn {
        Ecn {
            wanted,
            on: wanted && !handshake,
            echo: false,
            response: Response::Open,
            scalable: None,
        }
    }

    /// In L4S mode (`l4s`): ECT(1), DCTCP-style echo and response.
    pub(crate) fn with_l4s(mut self, l4s: bool) -> Ecn {
        if l4s {
            self.scalable = Some(Scalable::new());
        }
        self
    }

    /// The L4S sender's estimate, when negotiated in L4S mode.
    pub(crate) fn scalable(&mut self) -> Option<&mut Scalable> {
        self.scalable.as_mut().filter(|_| self.on)
    }

    /// Receiver, L4S mode: whether a data segment with this IP ECN field
    /// changes the CE state being echoed (RFC 8257 §3.2).
    pub(crate) fn ce_state_changes(&self, field: u8) -> bool {
        self.on && self.scalable.is_some() && (field == ecn::CE) != self.echo
    }

    pub(crate) fn on(&self) -> bool {
        self.on
    }

    /// The ECN flags of a SYN (`syn_ack` false) or SYN-ACK (§6.1.1).
    pub(crate) fn syn_flags(&self, syn_ack: bool) -> u8 {
        match (syn_ack, self.wanted, self.on) {
            (false, true, _) => TCP_ECE | TCP_CWR,
            (true, _, true) => TCP_ECE,
            _ => 0,
        }
    }

    /// A SYN (`syn_ack` false) or SYN-ACK arrived with these flags.
    pub(crate) fn on_syn(&mut self, syn_ack: bool, flags: u8) {
        let f = flags & (TCP_ECE | TCP_CWR);
        self.on = self.wanted
            && if syn_ack {
                f == TCP_ECE
            } else {
                f == TCP_ECE | TCP_CWR
            };
    }

    /// Receiver: a segment carrying data arrived with these TCP flags and
    /// IP ECN field. Returns (CE-marked, ACK at once).
    pub(crate) fn on_data(&mut self, flags: u8, field: u8) -> (bool, bool) {
        if !self.on {
            return (false, false);
        }
        if self.scalable.is_some() {
            // The earlier segments' ACK, if one was owed, has gone.
            self.echo = field == ecn::CE;
            return (self.echo, false);
        }
        let cwr = flags & TCP_CWR != 0;
        if cwr {
            self.echo = false;
        }
        let marked = field == ecn::CE;
        let starts = marked && !self.echo;
        self.echo |= marked;
        (marked, starts || cwr)
    }

    /// The ECE flag every non-SYN segment carries while echoing.
    pub(crate) fn ack_flags(&self) -> u8 {
        if self.echo {
            TCP_ECE
        } else {
            0
        }
    }

    /// Sender: the IP ECN field and extra TCP flags of a data segment;
    /// `new`: not a retransmission. Takes the pending CWR.
    pub(crate) fn stamp_data(&mut self, new: bool) -> (u8, u8) {
        if !self.on || !new {
            return (ecn::NOT_ECT, 0);
        }
        if self.scalable.is_some() {
            return (ecn::ECT1, 0);
        }
        match &mut self.response {
            Response::Reduced { cwr_pending, .. } if *cwr_pending => {
                *cwr_pending = false;
                (ecn::ECT0, TCP_CWR)
            }
            _ => (ecn::ECT0, 0),
        }
    }

    /// Sender: whether an ACK with these flags, after it moved snd_una,
    /// calls for a reduction now (ECE, and none this window yet).
    pub(crate) fn reduce_on(&self, flags: u8, snd_una: u64) -> bool {
        self.on
            && flags & TCP_ECE != 0
            && match self.response {
                Response::Open => true,
                Response::Reduced { high, .. } => snd_una > high,
            }
    }

    /// Sender: the window was reduced (by ECE, a fast recovery or a
    /// timeout) with `snd_max` sent: no ECE reduction again this window,
    /// and the next new segment carries CWR.
    pub(crate) fn reduced(&mut self, snd_max: u64) {
        if self.on {
            self.response = Response::Reduced {
                high: snd_max,
                cwr_pending: true,
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn negotiation_needs_both_ends() {
        let mut a = Ecn::new(true, true);
        let mut b = Ecn::new(true, true);
        assert!(!a.on() && !b.on());
        b.on_syn(false, a.syn_flags(false));
        assert!(b.on());
        a.on_syn(true, b.syn_flags(true));
        assert!(a.on());
        // A peer that does not ask: no ECN, and no ECE on the SYN-ACK.
        let mut c = Ecn::new(true, true);
        c.on_syn(false, 0);
        assert!(!c.on());
        assert_eq!(c.syn_flags(true), 0);
        // A SYN-ACK echoing both flags is a reflecting middlebox (§6.1.1).
        a.on_syn(true, TCP_ECE | TCP_CWR);
        assert!(!a.on());
        assert!(Ecn::new(true, false).on());
        assert!(!Ecn::new(false, false).on());
    }

    #[test]
    fn echo_until_cwr() {
        let mut r = Ecn::new(true, false);
        assert_eq!(r.on_data(0, ecn::ECT0), (false, false));
        assert_eq!(r.ack_flags(), 0);
        assert_eq!(r.on_data(0, ecn::CE), (true, true));
        assert_eq!(r.on_data(0, ecn::CE), (true, false));
        assert_eq!(r.on_data(0, ecn::ECT0), (false, false));
        assert_eq!(r.ack_flags(), TCP_ECE);
        // A CWR segment that is marked itself keeps the echo on.
        assert_eq!(r.on_data(TCP_CWR, ecn::CE), (true, true));
        assert_eq!(r.ack_flags(), TCP_ECE);
        assert_eq!(r.on_data(TCP_CWR, ecn::ECT0), (false, true));
        assert_eq!(r.ack_flags(), 0);
    }

    #[test]
    fn one_reduction_per_window_and_cwr_once() {
        let mut s = Ecn::new(true, false);
        assert_eq!(s.stamp_data(true), (ecn::ECT0, 0));
        assert_eq!(s.stamp_data(false), (ecn::NOT_ECT, 0));
        assert!(!s.reduce_on(0, 10));
        assert!(s.reduce_on(TCP_ECE, 10));
        s.reduced(50);
        assert!(!s.reduce_on(TCP_ECE, 50));
        assert_eq!(s.stamp_data(false), (ecn::NOT_ECT, 0));
        assert_eq!(s.stamp_data(true), (ecn::ECT0, TCP_CWR));
        assert_eq!(s.stamp_data(true), (ecn::ECT0, 0));
        assert!(s.reduce_on(TCP_ECE, 51));
        let off = Ecn::new(false, false);
        assert!(!off.reduce_on(TCP_ECE, 1));
    }
}

#[cfg(test)]
mod whole_run;

#[cfg(test)]
mod l4s_tests {
    use super::*;

    #[test]
    fn l4s_sends_ect1_and_echoes_each_segment_s_state() {
        let mut s = Ecn::new(true, false).with_l4s(true);
        assert_eq!(s.stamp_data(true), (ecn::ECT1, 0));
        assert_eq!(s.stamp_data(false), (ecn::NOT_ECT, 0));
        s.reduced(10);
        // No CWR in L4S mode.
        assert_eq!(s.stamp_data(true), (ecn::ECT1, 0));
        let mut r = Ecn::new(true, false).with_l4s(true);
        assert!(!r.ce_state_changes(ecn::ECT1));
        assert!(r.ce_state_changes(ecn::CE));
        assert_eq!(r.on_data(0, ecn::CE), (true, false));
        assert_eq!(r.ack_flags(), TCP_ECE);
        assert!(r.ce_state_changes(ecn::ECT1));
        // No CWR needed to stop echoing: the next unmarked segment does.
        assert_eq!(r.on_data(0, ecn::ECT1), (false, false));
        assert_eq!(r.ack_flags(), 0);
        assert!(Ecn::new(true, false).scalable().is_none());
        assert!(Ecn::new(false, false).with_l4s(true).scalable().is_none());
    }
}
