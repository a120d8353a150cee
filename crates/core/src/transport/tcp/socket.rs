//! One TCP endpoint: both halves of a full-duplex connection.
//!
//! Sending: slow start and congestion avoidance (RFC 5681 §3.1), fast
//! retransmit / fast recovery (RFC 5681 §3.2, Reno), NewReno partial ACKs
//! (RFC 6582 §3.2), SACK loss recovery with the pipe algorithm (RFC 6675
//! §5), the retransmission timer with Karn's rule and back-off (RFC 6298),
//! restart after idle (RFC 5681 §4.1), and window scaling (RFC 7323 §2).
//! Receiving: in-order delivery, out-of-order hold with SACK blocks
//! (RFC 2018), delayed ACKs every second segment or on a timer (RFC 1122
//! §4.2.3.2, RFC 5681 §4.2), immediate ACKs for out-of-order data and for
//! data filling a hole.
//!
//! Modelling choices (documented in docs/scenario.md):
//! - stream offsets start at 0 in both directions; SYN and SYN-ACK carry no
//!   sequence space;
//! - the receiving application reads at once, so the advertised window is
//!   the receive buffer less the bytes held out of order;
//! - a duplicate ACK is an ACK that does not advance snd_una, carries no
//!   data and arrives with data outstanding (the "window unchanged" test of
//!   RFC 5681 is not applied, as in ns-2 and ns-3, because the window shrinks
//!   while holes are held);
//! - no Nagle algorithm (NetPIPE sets TCP_NODELAY), no FIN: a connection
//!   lives for the whole run.
//!
//! The socket is a state machine driven by `on_segment`, `poll` and
//! `output`; it never touches a scheduler.

use super::reassembly::Reassembly;
use super::rtt::RttEstimator;
use super::scoreboard::Scoreboard;
use super::seq::{unwrap, wire};
use super::{TcpConfig, Variant};
use crate::engine::{Duration, Time, Timer};
use crate::net::pdu::{AgentAddr, Header, Pdu, TcpHeader, TCP_ACK, TCP_SYN};

/// Where a socket sits and where its segments go.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Endpoint {
    pub node: u32,
    pub peer_node: u32,
    /// The peer socket's agent at its node.
    pub peer_agent: AgentAddr,
    /// Flow id stamped on outgoing segments (per-direction drop accounting).
    pub flow: u32,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum State {
    /// The active side before its start time.
    Closed,
    Listen,
    SynSent,
    SynRcvd,
    Established,
}

#[derive(Clone, Debug, Default)]
pub struct TcpStats {
    pub segments_sent: u64,
    /// Payload bytes sent, retransmissions included.
    pub bytes_sent: u64,
    pub retransmissions: u64,
    pub fast_retransmits: u64,
    pub timeouts: u64,
    pub dup_acks: u64,
    pub acks_sent: u64,
    pub cwnd_max: u64,
}

pub struct TcpSocket {
    cfg: TcpConfig,
    pub endpoint: Endpoint,
    pub state: State,
    start: Time,
    my_shift: u8,
    peer_shift: u8,

    // Sending half (byte offsets of the outgoing stream).
    /// Bytes the application has written so far.
    written: u64,
    snd_una: u64,
    snd_nxt: u64,
    snd_max: u64,
    cwnd: u64,
    ssthresh: u64,
    peer_rwnd: u64,
    dupacks: u32,
    /// New data sent by Limited Transmit since the last new ACK: RFC 3042
    /// §2 keeps it out of FlightSize when ssthresh is set.
    limited_sent: u64,
    in_recovery: bool,
    /// NewReno `recover` / RFC 6675 RecoveryPoint.
    recover: u64,
    /// Partial ACKs seen in the current NewReno recovery.
    partial_acks: u32,
    /// The last attempt to send was stopped by cwnd (RFC 7661).
    cwnd_limited: bool,
    consecutive_timeouts: u32,
    rtt: RttEstimator,
    /// Segment being timed for an RTT sample: (end offset, send time).
    timing: Option<(u64, Time)>,
    rto_timer: Timer,
    scoreboard: Scoreboard,
    last_send: Time,
    syn_retransmitted: bool,

    // Receiving half.
    rx: Reassembly,
    /// Bytes delivered in order to the application.
    pub delivered: u64,
    unacked_segments: u32,
    ack_now: bool,
    delack_timer: Timer,

    pub stats: TcpStats,
}

impl TcpSocket {
    /// The active side (connects at `start`) when `active`, else the
    /// listening side. `peer_shift` is the peer's window-scale shift, used
    /// when there is no handshake to carry it.
    pub fn new(
        cfg: TcpConfig,
        endpoint: Endpoint,
        active: bool,
        start: Time,
        peer_shift: u8,
    ) -> TcpSocket {
        let mss = cfg.mss as u64;
        let rtt = RttEstimator::new(cfg.initial_rto, cfg.min_rto, cfg.max_rto, cfg.granularity);
        let state = match (active, cfg.handshake) {
            (true, _) => State::Closed,
            (false, true) => State::Listen,
            (false, false) => State::Established,
        };
        TcpSocket {
            my_shift: cfg.window_shift(),
            peer_shift: if cfg.handshake { 0 } else { peer_shift },
            written: 0,
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            cwnd: cfg.initial_window_segments as u64 * mss,
            ssthresh: cfg.initial_ssthresh.unwrap_or(u64::MAX),
            peer_rwnd: if cfg.handshake {
                mss
            } else {
                cfg.receive_buffer
            },
            dupacks: 0,
            limited_sent: 0,
            in_recovery: false,
            recover: 0,
            partial_acks: 0,
            cwnd_limited: true,
            consecutive_timeouts: 0,
            rtt,
            timing: None,
            rto_timer: Timer::new(),
            scoreboard: Scoreboard::default(),
            last_send: start,
            syn_retransmitted: false,
            rx: Reassembly::default(),
            delivered: 0,
            unacked_segments: 0,
            ack_now: false,
            delack_timer: Timer::new(),
            stats: TcpStats::default(),
            cfg,
            endpoint,
            state,
            start,
        }
    }

    // ----- what the application and the observers see -----

    /// Room in the send buffer for the application to write into.
    pub fn send_space(&self) -> u64 {
        self.cfg
            .send_buffer
            .saturating_sub(self.written - self.snd_una)
    }

    /// The application writes `n` bytes (at most `send_space()`).
    pub fn write(&mut self, n: u64) {
        debug_assert!(n <= self.send_space());
        self.written += n;
    }

    /// Everything written has been acknowledged.
    pub fn all_acked(&self) -> bool {
        self.snd_una == self.written
    }

    pub fn cwnd(&self) -> u64 {
        self.cwnd
    }
    pub fn ssthresh(&self) -> u64 {
        self.ssthresh
    }
    pub fn flight(&self) -> u64 {
        self.snd_max - self.snd_una
    }
    pub fn srtt(&self) -> Option<Duration> {
        self.rtt.srtt()
    }
    pub fn rto(&self) -> Duration {
        self.rtt.rto()
    }
    /// The window this socket advertises, in bytes.
    pub fn advertised_window(&self) -> u64 {
        self.cfg.receive_buffer.saturating_sub(self.rx.held_bytes())
    }
    pub fn in_recovery(&self) -> bool {
        self.in_recovery
    }

    // ----- the driver's interface -----

    /// When the socket next needs `poll`.
    pub fn poll_at(&self) -> Time {
        if self.state == State::Closed {
            return self.start;
        }
        self.rto_timer.deadline().min(self.delack_timer.deadline())
    }

    /// Timers and the opening of an active socket.
    pub fn poll(&mut self, now: Time, out: &mut Vec<Pdu>) {
        if self.state == State::Closed && now >= self.start {
            self.open(now, out);
        }
        if self.delack_timer.fire(now) {
            self.ack_now = true;
        }
        if self.rto_timer.fire(now) {
            self.on_rto(now, out);
        }
    }

    /// Sends what the windows allow, and any ACK that is due.
    pub fn output(&mut self, now: Time, out: &mut Vec<Pdu>) {
        if self.state == State::Established {
            if self.in_recovery && self.cfg.variant == Variant::Sack {
                self.sack_recovery_send(now, out);
            } else {
                self.send_new_data(now, out);
            }
        }
        if self.ack_now {
            self.send_ack(now, out);
        }
    }

    /// An arriving segment addressed to this socket.
    pub fn on_segment(&mut self, now: Time, pdu: &Pdu, out: &mut Vec<Pdu>) {
        let Header::Tcp(h) = pdu.header else {
            return;
        };
        let len = (pdu.bytes - self.cfg.header.min(pdu.bytes)) as u64;
        if h.flags & TCP_SYN != 0 {
            self.on_syn(now, &h, out);
            return;
        }
        match self.state {
            State::Established => {}
            State::SynRcvd => self.established_by_ack(now),
            _ => return,
        }
        if len > 0 {
            self.on_data(now, unwrap(self.rx.rcv_nxt, h.seq), len);
        }
        if h.flags & TCP_ACK != 0 {
            self.on_ack(now, &h, len, out);
        }
    }

    // ----- connection set-up -----

    fn open(&mut self, now: Time, out: &mut Vec<Pdu>) {
        if !self.cfg.handshake {
            self.state = State::Established;
            return;
        }
        self.state = State::SynSent;
        self.timing = Some((0, now));
        out.push(self.control(now, TCP_SYN));
        self.rto_timer.arm(now, self.rtt.rto());
    }

    fn on_syn(&mut self, now: Time, h: &TcpHeader, out: &mut Vec<Pdu>) {
        let is_syn_ack = h.flags & TCP_ACK != 0;
        match (self.state, is_syn_ack) {
            (State::Listen | State::SynRcvd, false) => {
                self.learn_peer(h);
                if self.state == State::Listen {
                    self.timing = Some((0, now));
                }
                self.state = State::SynRcvd;
                out.push(self.control(now, TCP_SYN | TCP_ACK));
                self.rto_timer.arm(now, self.rtt.rto());
            }
            (State::SynSent, true) => {
                self.learn_peer(h);
                self.handshake_rtt(now);
                self.state = State::Established;
                self.rto_timer.cancel();
                self.ack_now = true;
            }
            // A retransmitted SYN-ACK: our ACK was lost; repeat it.
            (State::Established, true) => self.ack_now = true,
            _ => {}
        }
    }

    fn learn_peer(&mut self, h: &TcpHeader) {
        self.peer_shift = if self.cfg.window_scaling { h.wscale } else { 0 };
        // RFC 7323 §2.2: the window of a SYN is never scaled.
        self.peer_rwnd = h.window as u64;
    }

    fn handshake_rtt(&mut self, now: Time) {
        if let Some((_, t)) = self.timing.take() {
            if !self.syn_retransmitted {
                self.rtt.sample(now.since(t));
            }
        }
        if self.syn_retransmitted {
            // RFC 6298 §5.7.
            self.rtt.raise_to(Duration::from_millis(3000));
        }
    }

    fn established_by_ack(&mut self, now: Time) {
        self.handshake_rtt(now);
        self.state = State::Established;
        self.rto_timer.cancel();
    }

    // ----- receiving data -----

    fn on_data(&mut self, now: Time, seq: u64, len: u64) {
        let a = self.rx.receive(seq, len);
        self.delivered += a.delivered;
        if a.out_of_order || a.filled_hole || a.duplicate {
            self.ack_now = true;
            return;
        }
        self.unacked_segments += 1;
        if !self.cfg.delayed_ack || self.unacked_segments >= 2 {
            self.ack_now = true;
        } else if !self.delack_timer.is_armed() {
            self.delack_timer.arm(now, self.cfg.delayed_ack_timeout);
        }
    }

    // ----- acknowledgements -----

    fn on_ack(&mut self, now: Time, h: &TcpHeader, len: u64, out: &mut Vec<Pdu>) {
        let ack = unwrap(self.snd_una, h.ack);
        if ack > self.snd_max {
            return; // acknowledges data never sent: ignore
        }
        let window = (h.window as u64) << self.peer_shift;
        self.peer_rwnd = window;
        if self.cfg.variant == Variant::Sack {
            for &(s, e) in &h.sack[..h.sack_blocks as usize] {
                let s = unwrap(self.snd_una, s);
                let e = unwrap(self.snd_una, e);
                self.scoreboard.add(self.snd_una, s, e.min(self.snd_max));
            }
        }
        if ack > self.snd_una {
            self.on_new_ack(now, ack, out);
        } else if len == 0 && self.snd_max > self.snd_una {
            self.on_dup_ack(now, out);
        }
    }

    fn on_new_ack(&mut self, now: Time, ack: u64, out: &mut Vec<Pdu>) {
        let acked = ack - self.snd_una;
        if let Some((end, t)) = self.timing {
            if ack >= end {
                self.rtt.sample(now.since(t));
                self.timing = None;
            }
        }
        self.snd_una = ack;
        self.snd_nxt = self.snd_nxt.max(ack);
        self.scoreboard.advance(ack);
        self.dupacks = 0;
        self.limited_sent = 0;
        self.consecutive_timeouts = 0;
        let was_in_recovery = self.in_recovery;
        if self.in_recovery {
            self.recovery_ack(now, ack, acked, out);
        } else if self.cwnd_limited {
            // RFC 7661 §4: no growth while the application or the receive
            // window, not cwnd, limits the flight.
            self.grow_cwnd(acked);
        }
        let partial = was_in_recovery && self.in_recovery;
        if self.snd_una == self.snd_max {
            self.rto_timer.cancel();
        } else if partial && self.cfg.variant == Variant::NewReno {
            // RFC 6582 §3.2 step 5: reset the timer on the first partial
            // ACK only, so a window with many losses ends in a timeout
            // instead of one repair per RTT for ever.
            if self.partial_acks == 0 {
                self.rto_timer.arm(now, self.rtt.rto());
            }
            self.partial_acks += 1;
        } else {
            self.rto_timer.arm(now, self.rtt.rto()); // RFC 6298 §5.3
        }
        self.stats.cwnd_max = self.stats.cwnd_max.max(self.cwnd);
    }

    /// RFC 5681 §3.1 with RFC 3465 byte counting: slow start below
    /// ssthresh, else about one segment per window (cwnd += SMSS²/cwnd per
    /// ACK, at least one byte).
    fn grow_cwnd(&mut self, acked: u64) {
        let mss = self.cfg.mss as u64;
        if self.cwnd < self.ssthresh {
            // Slow start stops at ssthresh (as in Linux); CA takes over.
            let grown = self.cwnd + acked.min(self.cfg.abc_limit_segments as u64 * mss);
            self.cwnd = grown.min(self.ssthresh.max(self.cwnd));
        } else {
            self.cwnd += (mss * mss / self.cwnd).max(1);
        }
    }

    fn recovery_ack(&mut self, now: Time, ack: u64, acked: u64, out: &mut Vec<Pdu>) {
        let mss = self.cfg.mss as u64;
        let full = ack >= self.recover;
        match self.cfg.variant {
            Variant::Reno | Variant::Tahoe => {
                self.cwnd = self.ssthresh;
                self.in_recovery = false;
            }
            Variant::NewReno if full => {
                // RFC 6582 §3.2 step 3, option 1.
                let flight = self.snd_max - self.snd_una;
                self.cwnd = self.ssthresh.min(flight.max(mss) + mss);
                self.in_recovery = false;
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
                self.in_recovery = false;
                self.scoreboard.high_rxt = 0;
            }
            Variant::Sack => {}
        }
    }

    fn on_dup_ack(&mut self, now: Time, out: &mut Vec<Pdu>) {
        self.dupacks += 1;
        self.stats.dup_acks += 1;
        let mss = self.cfg.mss as u64;
        match self.cfg.variant {
            Variant::Tahoe => {}
            Variant::Reno | Variant::NewReno => {
                if self.in_recovery {
                    self.cwnd += mss; // window inflation
                } else if self.dupacks == 3 && self.may_enter_recovery() {
                    self.enter_recovery();
                    self.cwnd = self.ssthresh + 3 * mss;
                    self.fast_retransmit(now, out);
                }
            }
            Variant::Sack => {
                let lost = self
                    .scoreboard
                    .first_is_lost(self.snd_una, self.snd_max, mss);
                if !self.in_recovery && (self.dupacks >= 3 || lost) && self.may_enter_recovery() {
                    self.enter_recovery();
                    self.cwnd = self.ssthresh;
                    let len = self.fast_retransmit(now, out);
                    self.scoreboard.high_rxt = self.snd_una + len;
                }
            }
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

    /// RFC 6582 §3.2 step 1 / RFC 6675 §5: no new recovery for losses of
    /// the window already being recovered.
    fn may_enter_recovery(&self) -> bool {
        // RFC 5681 (Reno) has no such guard.
        self.cfg.variant == Variant::Reno || self.snd_una >= self.recover || self.recover == 0
    }

    fn enter_recovery(&mut self) {
        let mss = self.cfg.mss as u64;
        // RFC 5681 §3.2 step 2 with RFC 3042 §2: FlightSize without the
        // segments Limited Transmit sent on the first two duplicate ACKs.
        let flight = self.snd_max - self.snd_una - self.limited_sent;
        self.ssthresh = (flight / 2).max(2 * mss);
        self.recover = self.snd_max;
        self.in_recovery = true;
        self.partial_acks = 0;
        self.timing = None; // Karn: the timed segment may be retransmitted
    }

    // ----- retransmission timer -----

    fn on_rto(&mut self, now: Time, out: &mut Vec<Pdu>) {
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
        if self.consecutive_timeouts == 0 {
            // RFC 5681 §3.1 eq. (4); held constant on repeated timeouts.
            self.ssthresh = ((self.snd_max - self.snd_una) / 2).max(2 * mss);
        }
        self.consecutive_timeouts += 1;
        self.cwnd = mss;
        self.snd_nxt = self.snd_una; // go back N
        self.in_recovery = false;
        self.dupacks = 0;
        self.limited_sent = 0;
        self.recover = self.snd_max;
        // RFC 6675 §5.1: keep the SACK information through the timeout, so
        // the resending skips what the receiver holds (Linux does the same;
        // a receiver that reneges is not modelled). Only HighRxt restarts.
        self.scoreboard.high_rxt = self.snd_una;
        self.timing = None;
        self.rtt.back_off();
        self.send_new_data(now, out);
        self.rto_timer.arm(now, self.rtt.rto());
    }

    // ----- sending -----

    /// Sends from snd_nxt while the congestion and receive windows allow.
    fn send_new_data(&mut self, now: Time, out: &mut Vec<Pdu>) {
        let mss = self.cfg.mss as u64;
        if self.cfg.restart_after_idle
            && self.snd_una == self.snd_max
            && self.written > self.snd_max
            && now.since(self.last_send) >= self.rtt.rto()
            && self.snd_max > 0
        {
            // RFC 5681 §4.1: restart after an idle period longer than the RTO.
            let iw = self.cfg.initial_window_segments as u64 * mss;
            self.cwnd = self.cwnd.min(iw);
        }
        // RFC 3042 Limited Transmit: the first two duplicate ACKs may each
        // clock out one new segment.
        let limited_transmit = if self.cfg.limited_transmit
            && self.cfg.variant != Variant::Tahoe
            && !self.in_recovery
            && self.snd_nxt == self.snd_max
        {
            self.dupacks.min(2) as u64 * mss
        } else {
            0
        };
        loop {
            let avail = self.written - self.snd_nxt;
            if avail == 0 {
                self.cwnd_limited = false;
                break;
            }
            let cwnd = self.cwnd + limited_transmit;
            self.cwnd_limited = cwnd <= self.peer_rwnd;
            let window = cwnd.min(self.peer_rwnd);
            let usable = (self.snd_una + window).saturating_sub(self.snd_nxt);
            let mut len = mss.min(avail);
            if len > usable {
                // Sender-side silly window avoidance (RFC 1122 §4.2.3.4):
                // a partial segment only when nothing is outstanding.
                if self.snd_nxt == self.snd_una && usable > 0 {
                    len = usable;
                } else {
                    break;
                }
            }
            let mut seq = self.snd_nxt;
            if seq < self.snd_max && !self.scoreboard.is_empty() {
                // Resending after a timeout: skip SACKed data.
                let (start, end) = self.scoreboard.unsacked_run(seq, self.snd_max);
                if start >= self.snd_max {
                    self.snd_nxt = self.snd_max;
                    continue;
                }
                if start > seq {
                    self.snd_nxt = start;
                    continue;
                }
                seq = start;
                len = len.min(end - start);
            }
            if limited_transmit > 0 && self.snd_nxt + len > self.snd_una + self.cwnd {
                self.limited_sent += len;
            }
            self.send_segment(now, seq, len, out);
            self.snd_nxt += len;
            self.snd_max = self.snd_max.max(self.snd_nxt);
        }
    }

    /// RFC 6675 §5 step (C): while cwnd − pipe ≥ SMSS, send NextSeg().
    fn sack_recovery_send(&mut self, now: Time, out: &mut Vec<Pdu>) {
        let mss = self.cfg.mss as u64;
        loop {
            let pipe = self.scoreboard.pipe(self.snd_una, self.snd_max, mss);
            if self.cwnd < pipe + mss {
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

    /// Resends [seq, seq+len) without moving snd_nxt.
    fn retransmit(&mut self, now: Time, seq: u64, len: u64, out: &mut Vec<Pdu>) {
        if len > 0 {
            self.send_segment(now, seq, len, out);
        }
    }

    fn send_segment(&mut self, now: Time, seq: u64, len: u64, out: &mut Vec<Pdu>) {
        out.push(self.data_segment(now, seq, len));
        self.account_send(now, seq, len);
    }

    fn account_send(&mut self, now: Time, seq: u64, len: u64) {
        let retransmission = seq < self.snd_max;
        self.stats.segments_sent += 1;
        self.stats.bytes_sent += len;
        if retransmission {
            self.stats.retransmissions += 1;
            if let Some((end, _)) = self.timing {
                if seq < end {
                    self.timing = None; // Karn's rule
                }
            }
        } else if self.timing.is_none() {
            self.timing = Some((seq + len, now));
        }
        if !self.rto_timer.is_armed() {
            self.rto_timer.arm(now, self.rtt.rto()); // RFC 6298 §5.1
        }
        self.last_send = now;
        // Every data segment carries the current ACK.
        self.ack_sent();
    }

    fn send_ack(&mut self, now: Time, out: &mut Vec<Pdu>) {
        out.push(self.segment(now, self.snd_nxt, 0, TCP_ACK));
        self.stats.acks_sent += 1;
        self.ack_sent();
    }

    fn ack_sent(&mut self) {
        self.ack_now = false;
        self.unacked_segments = 0;
        self.delack_timer.cancel();
    }

    fn data_segment(&self, now: Time, seq: u64, len: u64) -> Pdu {
        self.segment(now, seq, len, TCP_ACK)
    }

    fn control(&self, now: Time, flags: u8) -> Pdu {
        self.segment(now, 0, 0, flags)
    }

    fn segment(&self, now: Time, seq: u64, len: u64, flags: u8) -> Pdu {
        let syn = flags & TCP_SYN != 0;
        let adv = self.advertised_window();
        let window = if syn { adv } else { adv >> self.my_shift }.min(65_535) as u16;
        let mut h = TcpHeader {
            seq: wire(seq),
            ack: wire(self.rx.rcv_nxt),
            window,
            flags,
            wscale: if syn { self.my_shift } else { 0 },
            sack_blocks: 0,
            sack: [(0, 0); 3],
        };
        if self.cfg.variant == Variant::Sack && !syn {
            for (i, (s, e)) in self.rx.sack_blocks(3).into_iter().enumerate() {
                h.sack[i] = (wire(s), wire(e));
                h.sack_blocks += 1;
            }
        }
        Pdu {
            bytes: self.cfg.header + len as u32,
            flow: self.endpoint.flow,
            seq: seq / self.cfg.mss.max(1) as u64,
            src_node: self.endpoint.node,
            dst_node: self.endpoint.peer_node,
            dst_agent: self.endpoint.peer_agent.index,
            dst_gen: self.endpoint.peer_agent.gen,
            created: now,
            enqueued: now,
            priority: self.cfg.priority,
            clp: self.cfg.clp,
            header: Header::Tcp(h),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apps::tcp_app::{AppKind, TcpApp};

    const MS: u64 = 1_000_000_000;

    /// Two sockets joined by a lossless wire with a fixed one-way delay and
    /// no serialisation; `drop` may discard a data segment by its offset.
    struct Pair {
        s: [TcpSocket; 2],
        app: TcpApp,
        wire: Vec<(Time, usize, Pdu)>,
        one_way: Duration,
        dropped: Vec<u64>,
        drop_once: Vec<u64>,
        log: Vec<(Time, usize, TcpHeader, u32)>,
    }

    impl Pair {
        fn new(cfg: TcpConfig, one_way_ms: u64, app: AppKind) -> Pair {
            let shift = cfg.window_shift();
            let e = |node, peer, flow| Endpoint {
                node,
                peer_node: peer,
                peer_agent: AgentAddr::fixed(peer),
                flow,
            };
            Pair {
                s: [
                    TcpSocket::new(cfg.clone(), e(0, 1, 0), true, Time::ZERO, shift),
                    TcpSocket::new(cfg, e(1, 0, 1), false, Time::ZERO, shift),
                ],
                app: TcpApp::new(app),
                wire: vec![],
                one_way: Duration(one_way_ms * MS),
                dropped: vec![],
                drop_once: vec![],
                log: vec![],
            }
        }

        fn emit(&mut self, now: Time, from: usize, out: &mut Vec<Pdu>) {
            for p in out.drain(..) {
                let Header::Tcp(h) = p.header else {
                    unreachable!()
                };
                let len = p.bytes - 40;
                if from == 0 && len > 0 && self.drop_once.contains(&(h.seq as u64)) {
                    self.drop_once.retain(|s| *s != h.seq as u64);
                    self.dropped.push(h.seq as u64);
                    continue;
                }
                self.log.push((now, from, h, len));
                self.wire.push((now + self.one_way, 1 - from, p));
            }
        }

        fn service(&mut self, now: Time) {
            let [a, b] = &mut self.s;
            self.app.service(now, a, b);
            for side in 0..2 {
                let mut out = vec![];
                self.s[side].output(now, &mut out);
                self.emit(now, side, &mut out);
            }
        }

        fn run_until(&mut self, end: Time) {
            loop {
                let next_wire = self.wire.iter().map(|w| w.0).min().unwrap_or(Time::NEVER);
                let next_timer = self.s[0].poll_at().min(self.s[1].poll_at());
                let now = next_wire.min(next_timer);
                if now >= end {
                    return;
                }
                for side in 0..2 {
                    if self.s[side].poll_at() <= now {
                        let mut out = vec![];
                        self.s[side].poll(now, &mut out);
                        self.emit(now, side, &mut out);
                    }
                }
                while let Some(i) = self.wire.iter().position(|w| w.0 == now) {
                    let (_, to, p) = self.wire.remove(i);
                    let mut out = vec![];
                    self.s[to].on_segment(now, &p, &mut out);
                    self.emit(now, to, &mut out);
                    // As in the simulator: each arrival is its own event.
                    self.service(now);
                }
                self.service(now);
            }
        }
    }

    fn cfg(variant: Variant, delayed_ack: bool) -> TcpConfig {
        TcpConfig {
            variant,
            delayed_ack,
            header: 40,
            mss: 1000,
            initial_window_segments: 2,
            send_buffer: 1 << 20,
            receive_buffer: 1 << 20,
            ..TcpConfig::default_newreno()
        }
    }

    #[test]
    fn handshake_then_data_one_rtt_later() {
        let mut p = Pair::new(
            cfg(Variant::NewReno, true),
            50,
            AppKind::Bulk { bytes: Some(1000) },
        );
        p.run_until(Time(1000 * MS));
        let syn = p.log[0];
        assert_eq!(syn.2.flags, TCP_SYN);
        assert_eq!(syn.2.wscale, 5); // 1 MiB needs 65535 << 5
        let syn_ack = p.log[1];
        assert_eq!(
            (syn_ack.0, syn_ack.1, syn_ack.2.flags),
            (Time(50 * MS), 1, TCP_SYN | TCP_ACK)
        );
        let first_data = p.log.iter().find(|l| l.3 > 0).unwrap();
        assert_eq!((first_data.0, first_data.1), (Time(100 * MS), 0));
        assert_eq!(p.s[1].delivered, 1000);
        // Samples: 100 ms from the SYN, then 300 ms for the lone segment
        // (sent at 100 ms, ACK delayed 200 ms, back at 400 ms):
        // SRTT = 7/8·100 + 1/8·300 = 125 ms (RFC 6298 §2.3).
        assert_eq!(p.s[0].srtt(), Some(Duration(125 * MS)));
    }

    #[test]
    fn a_lone_segment_is_acked_after_the_delayed_ack_timeout() {
        let mut p = Pair::new(
            cfg(Variant::NewReno, true),
            50,
            AppKind::Bulk { bytes: Some(1000) },
        );
        p.run_until(Time(1000 * MS));
        let ack = p
            .log
            .iter()
            .rfind(|l| l.1 == 1 && l.2.flags == TCP_ACK)
            .unwrap();
        // Data arrives at 150 ms; the ACK waits the 200 ms delayed-ACK timer.
        assert_eq!(ack.0, Time(350 * MS));
    }

    #[test]
    fn every_second_segment_is_acked_at_once() {
        let mut p = Pair::new(
            cfg(Variant::NewReno, true),
            50,
            AppKind::Bulk { bytes: Some(2000) },
        );
        p.run_until(Time(1000 * MS));
        let acks: Vec<_> = p
            .log
            .iter()
            .filter(|l| l.1 == 1 && l.2.flags == TCP_ACK)
            .collect();
        assert_eq!(acks.len(), 1);
        assert_eq!(acks[0].0, Time(150 * MS));
        assert_eq!(acks[0].2.ack, 2000);
    }

    #[test]
    fn advertised_window_is_scaled() {
        let p = Pair::new(
            cfg(Variant::NewReno, true),
            50,
            AppKind::Bulk { bytes: None },
        );
        let h = match p.s[1].segment(Time::ZERO, 0, 0, TCP_ACK).header {
            Header::Tcp(h) => h,
            _ => unreachable!(),
        };
        assert_eq!((h.window as u64) << 5, (1u64 << 20) & !31);
    }

    fn one_loss(variant: Variant) -> Pair {
        let mut p = Pair::new(
            cfg(variant, false),
            50,
            AppKind::Bulk {
                bytes: Some(100_000),
            },
        );
        p.drop_once = vec![20_000];
        p.run_until(Time(20_000 * MS));
        assert_eq!(p.s[1].delivered, 100_000);
        p
    }

    #[test]
    fn newreno_repairs_one_loss_by_fast_retransmit() {
        let p = one_loss(Variant::NewReno);
        assert_eq!(p.s[0].stats.fast_retransmits, 1);
        assert_eq!(p.s[0].stats.timeouts, 0);
        assert_eq!(p.s[0].stats.retransmissions, 1);
    }

    /// RFC 3042 §2: the two segments Limited Transmit sends on the first
    /// duplicate ACKs are not part of FlightSize when ssthresh is set, so
    /// the ssthresh of a fast retransmit is the same with and without it:
    /// half the window that was in flight when the loss happened.
    #[test]
    fn ssthresh_leaves_out_limited_transmit_segments() {
        for v in [Variant::Reno, Variant::NewReno, Variant::Sack] {
            let ssthresh = |limited_transmit: bool| {
                let c = TcpConfig {
                    limited_transmit,
                    initial_ssthresh: Some(16_000),
                    ..cfg(v, false)
                };
                let mut p = Pair::new(c, 50, AppKind::Bulk { bytes: None });
                // Dropped in congestion avoidance with cwnd near 16 segments.
                p.drop_once = vec![60_000];
                p.run_until(Time(2_000 * MS));
                assert_eq!(p.s[0].stats.fast_retransmits, 1);
                let sent_after_loss = p
                    .log
                    .iter()
                    .filter(|l| l.1 == 0 && l.3 > 0 && l.2.seq as u64 > 60_000)
                    .count();
                (p.s[0].ssthresh(), sent_after_loss)
            };
            let (with_lt, _) = ssthresh(true);
            let (without_lt, _) = ssthresh(false);
            assert_eq!(with_lt, without_lt, "{v:?}");
            // Half of a window of 16 to 18 whole segments.
            assert!((8_000..=9_000).contains(&with_lt), "{v:?}: {with_lt}");
        }
    }

    #[test]
    fn tahoe_waits_for_the_timer() {
        let p = one_loss(Variant::Tahoe);
        assert_eq!(p.s[0].stats.fast_retransmits, 0);
        assert_eq!(p.s[0].stats.timeouts, 1);
        assert!(p.s[0].cwnd() < 20_000);
    }

    #[test]
    fn newreno_and_sack_repair_three_losses_in_one_window_without_timeout() {
        for v in [Variant::NewReno, Variant::Sack] {
            let mut p = Pair::new(
                cfg(v, false),
                50,
                AppKind::Bulk {
                    bytes: Some(200_000),
                },
            );
            p.drop_once = vec![30_000, 33_000, 36_000];
            p.run_until(Time(20_000 * MS));
            assert_eq!(p.s[1].delivered, 200_000, "{v:?}");
            assert_eq!(p.s[0].stats.timeouts, 0, "{v:?}");
            assert_eq!(p.s[0].stats.fast_retransmits, 1, "{v:?}");
            assert_eq!(p.s[0].stats.retransmissions, 3, "{v:?}");
        }
    }

    #[test]
    fn request_response_round_trip() {
        let mut p = Pair::new(
            cfg(Variant::NewReno, true),
            50,
            AppKind::RequestResponse {
                request: 1,
                response: 1,
                count: Some(10),
                warmup: 0,
            },
        );
        p.run_until(Time(5_000 * MS));
        assert_eq!(p.app.completed, 10);
        // The first transaction includes the handshake; the others one RTT.
        let mean = p.app.transaction_times.mean();
        assert!((mean - (0.1 + 0.1 / 10.0)).abs() < 1e-9, "{mean}");
    }
}
