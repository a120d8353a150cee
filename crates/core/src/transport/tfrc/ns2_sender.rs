//! The TFRC sender as ns-2.35's `Agent/TFRC` runs it (`tcp/tfrc.cc`, with
//! the defaults of `tcl/lib/ns-default.tcl` lines 1123-1186): the
//! `profile = "ns2"` of a TFRC flow, for reproducing studies made in ns-2
//! (the tfrc-dama paper's simulator). Where it departs from RFC 5348:
//!
//! - start: `InitRate_` = 300 B/s whatever the packet size, the first
//!   packet at once, the nofeedback timer at 2·s/rate (`start`, l. 195);
//! - the first report sets the rate to at least the RFC 3390 window per RTT
//!   (`slowstart`, l. 462; `rate_init_option_` 2), and so does the second;
//!   every report in slow start sends a packet at once (`recv`, l. 405);
//! - slow start doubles at most once per RTT up to twice the reported
//!   receive rate, but a rate above that falls to the receive rate itself
//!   (l. 497: `rate_ = ss_maxrate_/2`); a sender data-limited in the last
//!   1.5 RTT keeps at least the RFC 3390 rate (`idleFix_`, l. 482);
//! - after slow start the rate moves towards the equation's rate by
//!   s/R per RTT (`increase_rate`, l. 518) or drops to it (`decrease_rate`,
//!   l. 549); the equation uses ns-2's TCP-style RTO (`update_rtt`, l. 290);
//! - pacing: an increase in slow start is spread over the next RTT packet
//!   by packet (`slow_increase_`, l. 264), otherwise the rate is scaled by
//!   √(mean RTT)/√(last RTT) (`ca_`, l. 270); a sender that was data-limited
//!   sends a new packet at once (`advanceby`, l. 150);
//! - the nofeedback timer halves the rate (not below the RFC 3390 rate
//!   when data-limited), stays in slow start, marks the next packets
//!   urgent and sends at once (`reduce_rate_on_no_feedback`, l. 614);
//! - packets carry `headersize_` = 32 bytes of headers on top of their
//!   size (`useHeaders_`, l. 597); TFRC-SP is ns-2's `voip_` mode: the
//!   equation with 1460-byte segments, the header penalty and at most 100
//!   packets per second (l. 346, 276).
//!
//! Rates here are bytes/s of `packetSize_` bytes, as ns-2 keeps them.
//! Times are compared in whole picoseconds, the RTT rounded to one, and
//! rates as equal within a relative 1e-9: where ns-2 compares two doubles
//! that exact arithmetic makes equal (a report one RTT after the last on a
//! fixed path; a rate of n packets per RTT against twice a receive rate of
//! n/2 packets per RTT), this gives exact arithmetic's answer rather than
//! the last bit's. On a fixed path ns-2 itself goes either way from one
//! path delay to the next (docs/tfrc-crosscheck.md).
//!
//! Quick-Start (not in ns-2.35's TFRC; the paper's authors added it): an
//! approval in the first report sets the rate to the approved rate (a rate
//! of the wire, so less the headers); reports on packets sent before the
//! approval leave it alone; the first report on the phase's packets ends
//! the phase with an ordinary slow-start step, so a rate above twice the
//! receive rate falls to the receive rate (the paper's step (c)). A loss
//! reported in the phase ends it too. The nofeedback timer ends a phase
//! under way but not a request still unanswered, whose approval is used
//! when it comes: what ns-2.35's TCP does with Quick-Start on a timeout
//! (`tcp.cc`: `timeout` clears `qs_approved_`, l. 1868, while a response
//! is still processed as long as `qs_requested_` is set, l. 1783).

use super::ns2_formula::p_to_b;
use super::sender::{QsState, SenderStats};
use super::TfrcConfig;
use crate::engine::{Duration, Time};
use crate::net::quick_start::QsOption;
use crate::net::{TfrcData, TfrcFeedback};

/// `InitRate_`, bytes/s (ns-default.tcl l. 1170).
pub(crate) const INIT_RATE: f64 = 300.0;
/// `df_`: weight of the old RTT in the EWMA (l. 1168).
const DF: f64 = 0.95;
/// `ssmult_` (l. 1172).
const SS_MULT: f64 = 2.0;
/// `voip_max_pkt_rate_` (l. 1137): TFRC-SP's at most 100 packets/s.
const VOIP_MAX_PKT_RATE: f64 = 100.0;
/// `fsize_` (l. 1138): TFRC-SP's nominal segment in the equation.
const VOIP_FSIZE: f64 = 1460.0;
/// `headersize_` (l. 1140).
pub(crate) const HEADER_BYTES: u32 = 32;
/// `SMALLFLOAT` of tfrc.h.
const SMALL: f64 = 0.000_000_1;

/// `a` exceeds `b` by more than rounding.
fn above(a: f64, b: f64) -> bool {
    a > b * (1.0 + 1e-9)
}

/// `rate_change_` (tfrc.h).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Phase {
    SlowStart,
    CongAvoid,
    RateDecrease,
    OutOfSlowStart,
}

/// ns-2's TCP retransmission-timer estimator in ticks of `tcp_tick_` =
/// 0.1 s (`update_rtt`, l. 292; srtt_init_ 0, rttvar_exp_ 2, T_SRTT_BITS
/// 3, T_RTTVAR_BITS 2, ns-default.tcl l. 1128-1133): TFRC uses it as the
/// equation's t_RTO (`tzero_`).
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub(crate) struct TickRto {
    srtt: i32,
    rttvar: i32,
}

impl TickRto {
    const TICK: f64 = 0.1;
    const SRTT_BITS: u32 = 3;
    const RTTVAR_BITS: u32 = 2;
    const RTTVAR_EXP: u32 = 2;

    /// A sample of `rtt` seconds; returns the new RTO, seconds.
    pub(crate) fn sample(&mut self, rtt: f64) -> f64 {
        let ticks = ((rtt / Self::TICK + 0.5) as i32).max(1);
        if self.srtt != 0 {
            // `register short rtt_delta` in ns-2.
            let mut delta = (ticks - (self.srtt >> Self::SRTT_BITS)) as i16;
            self.srtt += i32::from(delta);
            if self.srtt <= 0 {
                self.srtt = 1;
            }
            delta = delta.wrapping_abs();
            delta -= (self.rttvar >> Self::RTTVAR_BITS) as i16;
            self.rttvar += i32::from(delta);
            if self.rttvar <= 0 {
                self.rttvar = 1;
            }
        } else {
            self.srtt = ticks << Self::SRTT_BITS;
            self.rttvar = ticks << (Self::RTTVAR_BITS - 1);
        }
        let shift = Self::RTTVAR_EXP + (Self::SRTT_BITS - Self::RTTVAR_BITS);
        f64::from(((self.rttvar << shift) + self.srtt) >> Self::SRTT_BITS) * Self::TICK
    }
}

#[derive(Clone, Debug)]
pub(crate) struct Ns2Sender {
    /// `size_`, bytes.
    size: f64,
    header: u32,
    voip: bool,
    started: bool,
    active: bool,
    seqno: u64,
    /// `rate_`, `oldrate_`, `delta_`: bytes/s.
    rate: f64,
    oldrate: f64,
    delta: f64,
    phase: Phase,
    last_change: Time,
    /// `rtt_` (0 until the first report), `sqrtrtt_`, `rttcur_`, seconds.
    rtt: f64,
    sqrtrtt: f64,
    rttcur: f64,
    tzero: f64,
    rto: TickRto,
    maxrate: f64,
    ss_maxrate: f64,
    rcvrate: f64,
    p: f64,
    round_id: u32,
    urgent: bool,
    first_report: bool,
    datalimited: bool,
    lastlimited: Time,
    all_idle: bool,
    heavyrounds: u32,
    send_at: Time,
    nofeedback_at: Time,
    /// A report or the nofeedback timer asked for `nextpkt` now.
    next_now: bool,
    initial_rto: Option<Duration>,
    qs_request: Option<f64>,
    qs: QsState,
    pub stats: SenderStats,
}

impl Ns2Sender {
    pub(crate) fn new(cfg: &TfrcConfig) -> Ns2Sender {
        Ns2Sender {
            size: f64::from(cfg.packet_bytes),
            header: cfg.header_bytes(),
            voip: cfg.small_packets,
            started: false,
            active: true,
            seqno: 0,
            rate: INIT_RATE,
            oldrate: INIT_RATE,
            delta: 0.0,
            phase: Phase::SlowStart,
            last_change: Time::ZERO,
            rtt: 0.0,
            sqrtrtt: 1.0,
            rttcur: 1.0,
            tzero: 0.0,
            rto: TickRto::default(),
            maxrate: 0.0,
            ss_maxrate: 0.0,
            rcvrate: 0.0,
            p: 0.0,
            round_id: 0,
            urgent: true,
            first_report: false,
            datalimited: false,
            lastlimited: Time::ZERO,
            all_idle: false,
            heavyrounds: 0,
            send_at: Time::NEVER,
            nofeedback_at: Time::NEVER,
            next_now: false,
            initial_rto: cfg.initial_rto,
            qs_request: cfg.quick_start_bps,
            qs: if cfg.quick_start_bps.is_some() {
                QsState::Asked
            } else {
                QsState::Off
            },
            stats: SenderStats::default(),
        }
    }

    /// A packet's size on the wire.
    pub(crate) fn wire_bytes(&self) -> u32 {
        self.size as u32 + self.header
    }

    /// `rate_`, bits/s of `packetSize_` bytes.
    pub(crate) fn rate_bps(&self) -> f64 {
        self.rate * 8.0
    }

    pub(crate) fn rtt_s(&self) -> Option<f64> {
        (self.rtt > 0.0).then_some(self.rtt)
    }

    pub(crate) fn p(&self) -> f64 {
        self.p
    }

    #[cfg(test)]
    pub(crate) fn phase(&self) -> Phase {
        self.phase
    }

    pub(crate) fn qs_state(&self) -> QsState {
        self.qs
    }

    /// The RFC 3390 window in packets (`rfc3390`, l. 427).
    fn rfc3390(&self) -> f64 {
        if self.size <= 1095.0 {
            4.0
        } else if self.size < 2190.0 {
            3.0
        } else {
            2.0
        }
    }

    /// The earliest time a timer needs the sender.
    pub(crate) fn poll_at(&self) -> Time {
        if !self.started {
            return Time::NEVER;
        }
        let send = if self.active {
            self.send_at
        } else {
            Time::NEVER
        };
        send.min(self.nofeedback_at)
    }

    /// The application has no more data (ns-2's `stop`, l. 232, with
    /// `idleFix_`): no more sends; the timers that would only tick are
    /// not run.
    pub(crate) fn stop(&mut self) {
        self.active = false;
        self.datalimited = true;
    }

    /// New data, then the timers due at `now`, with `waiting` packets in
    /// the transmit buffer; returns how many may go now.
    pub(crate) fn poll(&mut self, now: Time, waiting: usize) -> u32 {
        if !self.started {
            if waiting == 0 {
                return 0;
            }
            self.start(now);
            return 1;
        }
        let mut n = 0;
        if self.datalimited && waiting > 0 && self.active {
            // Data after a data-limited spell goes at once (`advanceby`,
            // l. 150); the send timer runs on.
            self.datalimited = false;
            self.lastlimited = now;
            self.all_idle = false;
            n = 1;
        }
        if now >= self.nofeedback_at {
            self.on_nofeedback(now);
        }
        if self.next_now || now >= self.send_at {
            self.next_now = false;
            n += self.nextpkt(now, waiting > n as usize);
        }
        n
    }

    /// `start` (l. 195): the first packet goes now, the next after s/rate,
    /// the nofeedback timer after 2·s/rate (or the configured initial RTO).
    fn start(&mut self, now: Time) {
        self.started = true;
        let ipi = self.size / self.rate;
        self.send_at = now + Duration::from_secs_f64(ipi);
        let first = self
            .initial_rto
            .unwrap_or_else(|| Duration::from_secs_f64(2.0 * ipi));
        self.nofeedback_at = now + first;
    }

    /// `nextpkt` (l. 240): a packet if there is one, else data-limited;
    /// the send timer set by the rate of the moment.
    fn nextpkt(&mut self, now: Time, has_data: bool) -> u32 {
        let sent = u32::from(has_data && self.active);
        if !has_data {
            self.datalimited = true;
        }
        let xrate = if self.round_id > 2
            && self.phase == Phase::SlowStart
            && self.oldrate + SMALL < self.rate
        {
            self.oldrate += self.delta;
            self.oldrate
        } else {
            self.rate * self.sqrtrtt / self.rttcur.sqrt()
        };
        self.send_at = if xrate > SMALL && self.active {
            let mut next = self.size / xrate;
            if self.voip {
                next = next.max(1.0 / VOIP_MAX_PKT_RATE);
            }
            now + Duration::from_secs_f64(next.max(SMALL))
        } else {
            Time::NEVER
        };
        sent
    }

    /// A packet goes now: its sequence number and header.
    pub(crate) fn on_send(&mut self, now: Time) -> (u64, TfrcData) {
        let seq = self.seqno;
        self.seqno += 1;
        self.stats.packets += 1;
        self.stats.bytes += u64::from(self.wire_bytes());
        let qs = match (seq, self.qs_request) {
            (0, Some(bps)) => QsOption::request(bps),
            _ => QsOption::default(),
        };
        let h = TfrcData {
            sent: now,
            rtt_ps: Duration::from_secs_f64(self.rtt).ps(),
            qs,
            round: self.round_id,
            urgent: self.urgent,
            rto_ps: Duration::from_secs_f64(self.tzero).ps(),
        };
        (seq, h)
    }

    /// `update_rtt` (l. 290).
    fn update_rtt(&mut self, sample: f64) {
        self.tzero = self.rto.sample(sample);
        if self.rtt > 0.0 {
            self.rtt = DF * self.rtt + (1.0 - DF) * sample;
            self.sqrtrtt = DF * self.sqrtrtt + (1.0 - DF) * sample.sqrt();
        } else {
            self.rtt = sample;
            self.sqrtrtt = sample.sqrt();
        }
        self.rttcur = sample;
    }

    /// A report arrived (`recv`, l. 328).
    pub(crate) fn on_feedback(&mut self, now: Time, fb: &TfrcFeedback) {
        let t = now;
        self.stats.reports += 1;
        self.round_id += 1;
        self.urgent = false;
        if self.round_id > 1 && fb.x_recv > 0.0 {
            self.ss_maxrate = 2.0 * fb.x_recv;
            self.maxrate = 2.0 * fb.x_recv;
        } else {
            self.ss_maxrate = 0.0;
            self.maxrate = 0.0;
        }
        let sample = (now.since(fb.t_recvdata).as_secs_f64()
            - Duration(fb.t_delay_ps).as_secs_f64())
        .max(0.0);
        self.update_rtt(sample);
        self.p = fb.p;
        self.rcvrate = if self.voip {
            let r = p_to_b(fb.p, self.rtt, self.tzero, VOIP_FSIZE, 1.0);
            r * (self.size / (f64::from(self.header) + self.size))
        } else {
            p_to_b(fb.p, self.rtt, self.tzero, self.size, 1.0)
        };
        let timer = (2.0 * self.rtt).max(2.0 * self.size / self.rate);
        self.nofeedback_at = now + Duration::from_secs_f64(timer);
        if !self.first_report {
            self.first_report = true;
            self.stats.first_report_at = Some(now);
            if self.on_qs_response(now, fb) {
                return;
            }
            self.slowstart(t);
            self.next_now = true;
            return;
        }
        if let QsState::Phase { since, .. } = self.qs {
            if fb.p == 0.0 && fb.t_recvdata < since {
                return; // a report on packets sent before the approval
            }
            self.qs = if fb.p == 0.0 {
                self.stats.qs_validated_at = Some(now);
                QsState::Validated
            } else {
                QsState::NotUsed
            };
        }
        if self.phase == Phase::SlowStart {
            if fb.p > 0.0 {
                self.phase = Phase::OutOfSlowStart;
                self.rate = self.rcvrate;
                self.oldrate = self.rcvrate;
            } else {
                self.slowstart(t);
                self.next_now = true;
            }
        } else if self.rcvrate > self.rate {
            self.increase_rate(t);
        } else {
            self.decrease_rate(t);
        }
    }

    /// The first report answers a Quick-Start request: true when it
    /// approved one and the phase starts.
    fn on_qs_response(&mut self, now: Time, fb: &TfrcFeedback) -> bool {
        if self.qs != QsState::Asked {
            return false;
        }
        if !fb.qs.approved() {
            self.qs = QsState::NotUsed;
            return false;
        }
        let wire = fb.qs.rate_bps() / 8.0;
        self.stats.qs_approved_bps = fb.qs.rate_bps();
        self.qs = QsState::Phase {
            since: now,
            rate: wire,
        };
        self.rate = wire * self.size / (self.size + f64::from(self.header));
        self.oldrate = self.rate;
        self.delta = 0.0;
        self.last_change = now;
        self.next_now = true;
        true
    }

    fn step(&self, rate: f64, oldrate: f64) -> f64 {
        (rate - oldrate) / (rate * self.rtt / self.size)
    }

    /// Whether more than `rtts` RTTs have passed since `then`.
    fn rtts_since(&self, now: Time, then: Time, rtts: f64) -> bool {
        now.ps().saturating_sub(then.ps()) > Duration::from_secs_f64(rtts * self.rtt).ps()
    }

    /// Data-limited now or in the last 1.5 RTT (`idleFix_`).
    fn recently_limited(&self, now: Time) -> bool {
        self.datalimited
            || self.lastlimited.ps() + Duration::from_secs_f64(1.5 * self.rtt).ps() > now.ps()
    }

    /// `slowstart` (l. 462).
    fn slowstart(&mut self, now: Time) {
        let initrate = self.rfc3390() * self.size / self.rtt;
        let keep_initial = self.round_id <= 1 || self.round_id == 2;
        if keep_initial
            || (self.ss_maxrate > 0.0
                && self.recently_limited(now)
                && above(initrate, self.ss_maxrate))
        {
            // No good receive rate yet, or data-limited with a small one:
            // at least the initial rate.
            self.oldrate = self.rate;
            self.rate = self.rate.max(initrate);
            self.delta = self.step(self.rate, self.oldrate);
            self.last_change = now;
        } else if self.ss_maxrate > 0.0 {
            if above(self.ss_maxrate, self.rate) && self.rtts_since(now, self.last_change, 1.0) {
                self.oldrate = self.rate;
                self.rate = (SS_MULT * self.rate)
                    .min(self.ss_maxrate)
                    .max(self.size / self.rtt);
                self.delta = self.step(self.rate, self.oldrate);
                self.last_change = now;
            } else if above(self.rate, self.ss_maxrate) {
                // Above twice the receive rate: down to the receive rate.
                self.rate = self.ss_maxrate / 2.0;
                self.oldrate = self.rate;
                self.delta = 0.0;
                self.last_change = now;
            }
        } else {
            self.oldrate = self.rate;
            self.rate = self.size / self.rtt;
            self.delta = 0.0;
            self.last_change = now;
        }
    }

    /// `increase_rate` (l. 518): s/R more per RTT since the last change
    /// (at most two RTTs' worth), within twice the receive rate and the
    /// equation's rate.
    fn increase_rate(&mut self, now: Time) {
        let mult = (now.since(self.last_change).as_secs_f64() / self.rtt).min(2.0);
        self.rate += self.size / self.rtt * mult;
        let floor = if self.recently_limited(now) {
            self.rfc3390() * self.size / self.rtt
        } else {
            self.size / self.rtt
        };
        let ceiling = self.maxrate.max(floor).min(self.rcvrate);
        self.rate = self.rate.min(ceiling);
        self.phase = Phase::CongAvoid;
        self.last_change = now;
        self.heavyrounds = 0;
    }

    /// `decrease_rate` (l. 549): the equation's rate, held within twice
    /// the receive rate (`maxHeavyRounds_` = 0).
    fn decrease_rate(&mut self, now: Time) {
        self.rate = self.rcvrate;
        let ceiling = self.maxrate.max(self.size / self.rtt);
        if self.rate > ceiling {
            self.heavyrounds += 1;
        } else {
            self.heavyrounds = 0;
        }
        if self.heavyrounds > 0 {
            self.rate = self.rate.min(ceiling);
        }
        self.phase = Phase::RateDecrease;
        self.last_change = now;
    }

    /// `reduce_rate_on_no_feedback` (l. 614).
    fn on_nofeedback(&mut self, now: Time) {
        self.stats.nofeedback_expiries += 1;
        if matches!(self.qs, QsState::Phase { .. }) {
            self.qs = QsState::NotUsed;
        }
        if self.phase != Phase::SlowStart {
            self.phase = Phase::RateDecrease;
        }
        if !self.all_idle && !self.datalimited {
            self.rate *= 0.5;
        } else {
            // Data-limited: not below the RFC 3390 rate (with no RTT yet
            // that rate is infinite and nothing changes, as in ns-2).
            let w = self.rfc3390() * self.size / self.rtt;
            if self.rate > 2.0 * w {
                self.rate *= 0.5;
            } else if self.rate > w {
                self.rate = w;
            }
        }
        self.urgent = true;
        self.round_id += 1;
        let timer = (2.0 * self.rtt).max(2.0 * self.size / self.rate);
        self.nofeedback_at = now + Duration::from_secs_f64(timer);
        if self.datalimited {
            self.all_idle = true;
        }
        self.next_now = true;
    }
}

#[cfg(test)]
mod tests;
