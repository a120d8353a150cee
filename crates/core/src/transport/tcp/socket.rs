//! One TCP endpoint: both halves of a full-duplex connection.
//!
//! Sending: slow start and congestion avoidance (RFC 5681 §3.1), fast
//! retransmit / fast recovery (RFC 5681 §3.2, Reno), NewReno partial ACKs
//! (RFC 6582 §3.2), SACK loss recovery with the pipe algorithm (RFC 6675
//! §5), the retransmission timer with Karn's rule and back-off (RFC 6298),
//! restart after idle (RFC 5681 §4.1) or congestion window validation (RFC
//! 2861, RFC 7661; in `cwv.rs`), and window scaling (RFC 7323 §2).
//! Receiving: in-order delivery, out-of-order hold with SACK blocks
//! (RFC 2018), delayed ACKs every second segment or on a timer (RFC 1122
//! §4.2.3.2, RFC 5681 §4.2), immediate ACKs for out-of-order data and for
//! data filling a hole.
//!
//! Modelling choices (documented in docs/scenario.md):
//! - stream offsets start at 0 in both directions; SYN and SYN-ACK carry no
//!   sequence space;
//! - the receiving application reads at once, so the advertised window is
//!   the receive buffer less the bytes held out of order, as the host
//!   profile makes of it (`window_profile.rs`);
//! - a duplicate ACK is an ACK that does not advance snd_una, carries no
//!   data and arrives with data outstanding (the "window unchanged" test of
//!   RFC 5681 is not applied, as in ns-2 and ns-3, because the window shrinks
//!   while holes are held);
//! - no Nagle algorithm (NetPIPE sets TCP_NODELAY), no FIN: a connection
//!   lives for the whole run.
//!
//! The socket is a state machine driven by `on_segment`, `poll` and
//! `output`; it never touches a scheduler. Loss recovery and the
//! retransmission timeout are in `socket/recovery.rs`.
//!
//! The hooks of RACK-TLP loss detection (RFC 8985, `recovery = "rack-tlp"`)
//! are in `socket/rack_tlp.rs`, connection set-up in `socket/handshake.rs`,
//! a rate-based controller's samples and pacing in `socket/rate_based.rs`,
//! and the wire form of a segment in `socket/segments.rs`.

use super::congestion::{self, CongestionControl, Controller, Window};
use super::cwv::Validator;
use super::ecn::Ecn;
use super::prr::Prr;
use super::rack::{LossDetection, Rack};
use super::rate::RateEstimator;
use super::reassembly::Reassembly;
use super::rtt::RttEstimator;
use super::scoreboard::Scoreboard;
use super::seq::unwrap;
use super::window_profile::ReceiveWindow;
use super::{TcpConfig, Variant};
use crate::engine::{Duration, RngStream, Time, Timer};
use crate::net::pdu::{AgentAddr, Pdu, TcpHeader, TCP_ACK, TCP_SYN};

mod ecn;
mod handshake;
mod rack_tlp;
mod rate_based;
mod receive;
mod recovery;
mod segments;
mod window_validation;

/// Where a socket sits and where its segments go.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Endpoint {
    /// The index of the node the socket is at.
    pub node: u32,
    pub(crate) peer_node: u32,
    /// The peer socket's agent at its node.
    pub(crate) peer_agent: AgentAddr,
    /// Flow id stamped on outgoing segments (per-direction drop accounting).
    pub flow: u32,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum State {
    /// The active side before its start time.
    Closed,
    Listen,
    SynSent,
    SynRcvd,
    Established,
}

/// Where loss recovery stands (RFC 5681 §3.2, RFC 6582 §3.2, RFC 6675 §5).
/// A timeout ends a fast recovery (go-back-N takes over).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Recovery {
    /// No fast recovery under way.
    Open,
    /// Fast recovery, with the partial ACKs seen in it: NewReno resets the
    /// retransmission timer on the first only (RFC 6582 §3.2 step 5); and
    /// with `prr`, the rate reduction's state (RFC 6937).
    Fast { partial_acks: u32, prr: Option<Prr> },
}

/// What one end of a connection counted: segments and payload bytes sent,
/// retransmissions, fast retransmits, timeouts, duplicate ACKs, pure ACKs,
/// the largest cwnd (the `tcp.NAME.*` summary keys).
#[derive(Clone, Debug, Default)]
pub struct TcpStats {
    pub(crate) segments_sent: u64,
    /// Payload bytes sent, retransmissions included.
    pub(crate) bytes_sent: u64,
    pub(crate) retransmissions: u64,
    pub(crate) fast_retransmits: u64,
    pub(crate) timeouts: u64,
    pub(crate) dup_acks: u64,
    pub(crate) acks_sent: u64,
    pub(crate) cwnd_max: u64,
    /// Data segments that arrived CE-marked (RFC 3168; the receiving end).
    pub(crate) ce_marks_received: u64,
    /// Window reductions on ECE (RFC 3168 §6.1.2; the sending end).
    pub(crate) ecn_reductions: u64,
}

/// One TCP endpoint, both halves of a full-duplex connection: a state
/// machine driven by the segments that arrive and by its timers.
pub struct TcpSocket {
    cfg: TcpConfig,
    pub(crate) endpoint: Endpoint,
    pub(crate) state: State,
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
    /// Without SACK, the bytes duplicate ACKs say arrived above snd_una
    /// (one SMSS each, less what later ACKs cover): RFC 6937 §2's
    /// DeliveredData and the pipe estimate, as Linux counts `sacked_out`
    /// for a Reno connection. Used only by PRR.
    dup_acked: u64,
    recovery: Recovery,
    /// NewReno `recover` / RFC 6675 RecoveryPoint: set on entering fast
    /// recovery and at a timeout, it outlives the recovery, so that the
    /// losses of a window already repaired start no other (RFC 6582 §3.2
    /// step 1).
    recover: u64,
    /// The last attempt to send was stopped by cwnd (RFC 7661).
    cwnd_limited: bool,
    cwv: Validator,
    /// Payload bytes resent so far (RFC 7661's R is a difference of two).
    retransmitted_bytes: u64,
    consecutive_timeouts: u32,
    cc: Controller,
    /// Send times of new segments, for per-ACK RTT samples when the
    /// controller wants them (HyStart++): (end offset, send time).
    sent_times: std::collections::VecDeque<(u64, Time)>,
    rtt: RttEstimator,
    /// Segment being timed for an RTT sample: (end offset, send time).
    timing: Option<(u64, Time)>,
    rto_timer: Timer,
    scoreboard: Scoreboard,
    /// RACK-TLP's loss detection, when `recovery = "rack-tlp"`.
    rack: Option<Box<Rack>>,
    last_send: Time,
    syn_retransmitted: bool,
    /// Delivery-rate estimation, when the controller runs on it.
    rate: Option<RateEstimator>,
    /// Pacing: the earliest time the next segment may leave, and the timer
    /// that wakes the socket then.
    next_send: Time,
    pacing_timer: Timer,
    /// snd_max at the last timeout: until it is acknowledged the
    /// controller sees the Loss state.
    loss_until: u64,
    /// ECN (RFC 3168), both halves.
    pub(super) ecn: Ecn,

    // Receiving half.
    rx: Reassembly,
    /// The host profile's receive window (`window_profile`).
    rwin: ReceiveWindow,
    /// Bytes delivered in order to the application.
    pub(crate) delivered: u64,
    unacked_segments: u32,
    ack_now: bool,
    delack_timer: Timer,

    /// What this end counted.
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
        let cc = Controller::new(&cfg);
        let rate = cc.wants_rate_samples().then(|| {
            if cc.wants_lost_segments() {
                RateEstimator::reporting_losses()
            } else {
                RateEstimator::default()
            }
        });
        let rwin = ReceiveWindow::new(
            cfg.window_profile,
            cfg.receive_buffer,
            mss,
            cfg.adv_win_scale,
        );
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
            // Without a handshake the peer (same parameters) offers its
            // first window.
            peer_rwnd: if cfg.handshake {
                mss
            } else {
                rwin.advertised(0, peer_shift)
            },
            dupacks: 0,
            limited_sent: 0,
            dup_acked: 0,
            recovery: Recovery::Open,
            recover: 0,
            cwnd_limited: true,
            cwv: Validator::new(cfg.cwnd_validation, start),
            retransmitted_bytes: 0,
            consecutive_timeouts: 0,
            cc,
            sent_times: Default::default(),
            rtt,
            timing: None,
            rto_timer: Timer::new(),
            scoreboard: Scoreboard::default(),
            rack: (cfg.recovery == LossDetection::RackTlp).then(|| Box::new(Rack::new())),
            last_send: start,
            syn_retransmitted: false,
            rate,
            next_send: Time::ZERO,
            pacing_timer: Timer::new(),
            loss_until: 0,
            ecn: Ecn::new(cfg.ecn, cfg.handshake).with_l4s(cfg.ecn_l4s),
            rx: Reassembly::default(),
            rwin,
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

    /// The random stream of the controller (BBR's first ProbeBW phase).
    pub(crate) fn seed_controller(&mut self, rng: RngStream) {
        self.cc.seed(rng);
    }

    // ----- what the application and the observers see -----

    /// Room in the send buffer for the application to write into.
    pub(crate) fn send_space(&self) -> u64 {
        self.cfg
            .send_buffer
            .saturating_sub(self.written - self.snd_una)
    }

    /// The application writes `n` bytes (at most `send_space()`).
    pub(crate) fn write(&mut self, n: u64) {
        debug_assert!(n <= self.send_space());
        self.written += n;
    }

    /// Everything written has been acknowledged.
    pub(crate) fn all_acked(&self) -> bool {
        self.snd_una == self.written
    }

    pub(crate) fn cwnd(&self) -> u64 {
        self.cwnd
    }
    pub(crate) fn ssthresh(&self) -> u64 {
        self.ssthresh
    }
    pub(crate) fn flight(&self) -> u64 {
        self.snd_max - self.snd_una
    }
    pub(crate) fn srtt(&self) -> Option<Duration> {
        self.rtt.srtt()
    }
    pub(crate) fn rto(&self) -> Duration {
        self.rtt.rto()
    }
    /// The connection's parameters.
    pub(crate) fn config(&self) -> &TcpConfig {
        &self.cfg
    }
    pub(crate) fn in_recovery(&self) -> bool {
        matches!(self.recovery, Recovery::Fast { .. })
    }

    // ----- the driver's interface -----

    /// When the socket next needs `poll`.
    pub fn poll_at(&self) -> Time {
        if self.state == State::Closed {
            return self.start;
        }
        let rack = self.rack.as_ref().map_or(Time::NEVER, |r| r.poll_at());
        self.rto_timer
            .deadline()
            .min(self.delack_timer.deadline())
            .min(self.pacing_timer.deadline())
            .min(rack)
    }

    /// Timers and the opening of an active socket.
    pub(crate) fn poll(&mut self, now: Time, out: &mut Vec<Pdu>) {
        if self.state == State::Closed && now >= self.start {
            self.open(now, out);
        }
        if self.delack_timer.fire(now) {
            self.ack_now = true;
        }
        if self.rack.is_some() {
            self.rack_poll(now, out);
        }
        if self.rto_timer.fire(now) {
            self.on_rto(now, out);
        }
        // What pacing held back leaves in `output`.
        self.pacing_timer.fire(now);
    }

    /// Sends what the windows allow, and any ACK that is due.
    pub(crate) fn output(&mut self, now: Time, out: &mut Vec<Pdu>) {
        if self.state == State::Established {
            if self.in_recovery() && self.rack.is_some() {
                self.rack_recovery_send(now, out);
            } else if self.in_recovery() && self.cfg.variant == Variant::Sack {
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
    pub(crate) fn on_segment(&mut self, now: Time, pdu: &Pdu, out: &mut Vec<Pdu>) {
        let Some(&h) = pdu.header.tcp() else {
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
            self.ecn_on_data(now, h.flags, pdu.ecn, out);
            self.on_data(now, unwrap(self.rx.rcv_nxt, h.seq), len);
        }
        if h.flags & TCP_ACK != 0 {
            self.on_ack(now, &h, pdu.header.sack_blocks(), len, out);
        }
    }

    // ----- acknowledgements -----

    fn on_ack(
        &mut self,
        now: Time,
        h: &TcpHeader,
        sack: &[(u32, u32)],
        len: u64,
        out: &mut Vec<Pdu>,
    ) {
        let ack = unwrap(self.snd_una, h.ack);
        if ack > self.snd_max {
            return; // acknowledges data never sent: ignore
        }
        let window = (h.window as u64) << self.peer_shift;
        self.peer_rwnd = window;
        let prior_in_flight = self.rate.is_some().then(|| self.in_flight());
        // Only PRR reads the mark; the SACKed-bytes sum is not free.
        let mark = if self.cfg.prr {
            self.delivery_mark()
        } else {
            0
        };
        let mut blocks = [(0, 0); 3];
        let n = if self.cfg.variant == Variant::Sack {
            sack.len()
        } else {
            0
        };
        for (i, &(s, e)) in sack[..n].iter().enumerate() {
            let s = unwrap(self.snd_una, s);
            let e = unwrap(self.snd_una, e).min(self.snd_max);
            self.scoreboard.add(self.snd_una, s, e);
            if let Some(r) = &mut self.rate {
                r.on_sack(now, s, e);
            }
            blocks[i] = (s, e);
        }
        let prev_una = self.snd_una;
        if ack > self.snd_una {
            if let Some(r) = &mut self.rate {
                r.on_cum_ack(now, ack);
            }
            let hold = self.ecn_holds_growth(h.flags);
            self.on_new_ack(now, ack, mark, hold, out);
        } else if len == 0 && self.snd_max > self.snd_una {
            self.on_dup_ack(now, mark, out);
        }
        if self.rack.is_some() {
            let pure_dup = ack == prev_una && len == 0 && n == 0;
            let advanced = ack > prev_una;
            self.rack_on_ack(now, ack, mark, &blocks[..n], advanced, pure_dup, out);
        }
        self.ecn_on_ack(now, h.flags, prev_una);
        // Last, as Linux's tcp_cong_control follows tcp_fastretrans_alert:
        // a rate-based controller sees the recovery state this ACK left
        // and sets the window, which no recovery rule overrides.
        if let Some(prior) = prior_in_flight {
            self.rate_sample(now, prior);
        }
    }

    /// `mark`: the delivery mark before this ACK (for PRR); `hold`: it
    /// echoes a CE mark, so cwnd does not grow on it (RFC 3168 §6.1.2).
    fn on_new_ack(&mut self, now: Time, ack: u64, mark: u64, hold: bool, out: &mut Vec<Pdu>) {
        let acked = ack - self.snd_una;
        let rtt_sample = self.ack_rtt_sample(now, ack);
        if let Some((end, t)) = self.timing {
            if ack >= end {
                self.rtt.sample(now.since(t));
                self.timing = None;
            }
        }
        self.snd_una = ack;
        self.snd_nxt = self.snd_nxt.max(ack);
        self.scoreboard.advance(ack);
        self.dup_acked = if self.in_recovery() {
            self.dup_acked.saturating_sub(acked)
        } else {
            0
        };
        self.dupacks = 0;
        self.limited_sent = 0;
        self.consecutive_timeouts = 0;
        let was_in_recovery = self.in_recovery();
        if self.in_recovery() {
            self.recovery_ack(now, ack, acked, mark, out);
            if !self.in_recovery() {
                self.dup_acked = 0;
                let mut w = self.window();
                self.cwv.on_recovery_end(&mut w, self.retransmitted_bytes);
                self.set_window(w);
            }
        } else if self.validate_on_ack(now, ack) && !hold {
            self.grow_cwnd(now, ack, acked, rtt_sample);
        }
        let partial = was_in_recovery && self.in_recovery();
        if self.snd_una == self.snd_max {
            self.rto_timer.cancel();
        } else if partial && self.cfg.variant == Variant::NewReno {
            // RFC 6582 §3.2 step 5: reset the timer on the first partial
            // ACK only, so a window with many losses ends in a timeout
            // instead of one repair per RTT for ever.
            if let Recovery::Fast { partial_acks, .. } = &mut self.recovery {
                if *partial_acks == 0 {
                    self.rto_timer.arm(now, self.rtt.rto());
                }
                *partial_acks += 1;
            }
        } else {
            self.rto_timer.arm(now, self.rtt.rto()); // RFC 6298 §5.3
        }
        self.stats.cwnd_max = self.stats.cwnd_max.max(self.cwnd);
    }

    /// The controller's growth (RFC 5681 §3.1 for Reno, RFC 9438 for CUBIC).
    fn grow_cwnd(&mut self, now: Time, ack: u64, acked: u64, rtt_sample: Option<Duration>) {
        let mut w = self.window();
        let a = congestion::Ack {
            now,
            acked,
            ack,
            snd_max: self.snd_max,
            srtt: self.rtt.srtt(),
            rtt_sample,
        };
        self.cc.on_ack(&mut w, &a);
        self.set_window(w);
    }

    fn set_window(&mut self, w: Window) {
        self.cwnd = w.cwnd;
        self.ssthresh = w.ssthresh;
    }

    fn window(&self) -> Window {
        Window {
            cwnd: self.cwnd,
            ssthresh: self.ssthresh,
            mss: self.cfg.mss as u64,
        }
    }

    /// The RTT of the newest segment this ACK covers, if none of those it
    /// covers was retransmitted (Karn); only kept when the controller asks.
    fn ack_rtt_sample(&mut self, now: Time, ack: u64) -> Option<Duration> {
        let mut sample = None;
        while let Some(&(end, sent)) = self.sent_times.front() {
            if end > ack {
                break;
            }
            sample = Some(now.since(sent));
            self.sent_times.pop_front();
        }
        sample
    }

    // ----- sending -----

    /// Sends from snd_nxt while the congestion and receive windows allow.
    fn send_new_data(&mut self, now: Time, out: &mut Vec<Pdu>) {
        let mss = self.cfg.mss as u64;
        if self.snd_una == self.snd_max && self.written > self.snd_max && self.snd_max > 0 {
            let mut w = self.window();
            let s = self.send_state(now);
            let idle = now.since(self.last_send);
            self.cwv
                .after_idle(&mut w, &s, idle, self.cfg.restart_after_idle);
            self.set_window(w);
        }
        self.check_tx_start(now);
        let sent_before = self.stats.segments_sent;
        // RFC 3042 Limited Transmit: the first two duplicate ACKs may each
        // clock out one new segment.
        let limited_transmit = if self.cfg.limited_transmit
            && self.cfg.variant != Variant::Tahoe
            && !self.in_recovery()
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
                let flight = self.snd_max - self.snd_una;
                if let Some(r) = self.rate.as_mut().filter(|_| flight < self.cwnd) {
                    r.mark_app_limited(flight);
                }
                break;
            }
            let cwnd = self.cwnd + limited_transmit + self.prr_dup_acked();
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
                    if self.cwnd_limited {
                        self.note_cwnd_limited();
                    }
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
            if self.paced_out(now) {
                break;
            }
            if limited_transmit > 0 && self.snd_nxt + len > self.snd_una + self.cwnd {
                self.limited_sent += len;
            }
            self.send_segment(now, seq, len, out);
            self.snd_nxt += len;
            self.snd_max = self.snd_max.max(self.snd_nxt);
        }
        if self.stats.segments_sent > sent_before && !self.in_recovery() {
            let mut w = self.window();
            self.cwv.after_send(&mut w, &self.send_state(now));
            self.set_window(w);
        }
    }

    /// Resends [seq, seq+len) without moving snd_nxt.
    fn retransmit(&mut self, now: Time, seq: u64, len: u64, out: &mut Vec<Pdu>) {
        if len > 0 {
            self.send_segment(now, seq, len, out);
        }
    }

    fn send_segment(&mut self, now: Time, seq: u64, len: u64, out: &mut Vec<Pdu>) {
        let mut p = self.data_segment(now, seq, len);
        self.ecn_stamp(&mut p, seq);
        out.push(p);
        self.account_send(now, seq, len);
    }

    fn account_send(&mut self, now: Time, seq: u64, len: u64) {
        let retransmission = seq < self.snd_max;
        if self.rate.is_some() {
            self.rate_on_send(now, seq, len);
        }
        self.pace(now, len);
        self.stats.segments_sent += 1;
        self.stats.bytes_sent += len;
        if let Recovery::Fast { prr: Some(p), .. } = &mut self.recovery {
            p.on_send(len);
        }
        if retransmission {
            self.stats.retransmissions += 1;
            self.retransmitted_bytes += len;
            self.sent_times.clear();
            if let Some((end, _)) = self.timing {
                if seq < end {
                    self.timing = None; // Karn's rule
                }
            }
        } else {
            if self.timing.is_none() {
                self.timing = Some((seq + len, now));
            }
            if self.cc.wants_rtt_samples() {
                self.sent_times.push_back((seq + len, now));
            }
        }
        if !self.rto_timer.is_armed() {
            self.rto_timer.arm(now, self.rtt.rto()); // RFC 6298 §5.1
        }
        self.last_send = now;
        if self.rack.is_some() {
            self.rack_on_send(now, seq, len, retransmission);
        }
        // Every data segment carries the current ACK.
        self.ack_sent();
    }
}

#[cfg(test)]
mod tests;
