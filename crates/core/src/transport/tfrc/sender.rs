//! The TFRC sender (RFC 5348 §4; RFC 3448 §4 as `Profile::Rfc3448`): the
//! allowed sending rate X, set from the receiver's reports by slow start
//! or the throughput equation, limited by the receive rate, backed off by
//! the nofeedback timer; packets paced one per s/X.
//!
//! Quick-Start (RFC 4782; the TFRC behaviour the tfrc-dama paper's section
//! 2.3 describes): the first packet carries the request. If the first
//! report carries an approval from every router, the sender ignores that
//! report's receive rate and sends at the approved rate until validation:
//! the first report on packets sent at that rate (its t_recvdata at or
//! after the approval) ends the phase with an ordinary slow-start step, so
//! the rate falls to what that report says the path delivered. A loss
//! reported in the phase, or the nofeedback timer, abandons it.
//!
//! Pacing (§4.6) has no clock granularity (δ = 0): each packet sets the
//! nominal time of the next, t_nom = t_send + s/X with the rate of that
//! moment, so a rate change takes effect from the packet after next (as in
//! RFC 5348 and ns-2); a packet that arrives after t_nom goes at once, and
//! no credit builds up while the sender is idle.
//! Oscillation damping (§4.5) is not modelled.

use super::{equation, Revision, TfrcConfig, SP_MIN_INTERVAL_S};
use crate::engine::{Duration, Time};
use crate::net::quick_start::QsOption;
use crate::net::{TfrcData, TfrcFeedback};

/// RTT EWMA weight of the old estimate (§4.3, q).
const Q: f64 = 0.9;

#[derive(Copy, Clone, Debug, PartialEq)]
pub(crate) enum QsState {
    /// Not configured.
    Off,
    /// Requested with the first packet, no report yet.
    Asked,
    /// Sending at the approved rate (bytes/s) since `since`.
    Phase { since: Time, rate: f64 },
    /// The phase ended by validation.
    Validated,
    /// Refused, abandoned, or the first report carried no approval.
    NotUsed,
}

#[derive(Clone, Debug, Default)]
pub struct SenderStats {
    pub(crate) packets: u64,
    pub bytes: u64,
    pub(crate) reports: u64,
    pub(crate) nofeedback_expiries: u64,
    /// The approved Quick-Start rate, bits/s (0: none).
    pub(crate) qs_approved_bps: f64,
    pub(crate) qs_validated_at: Option<Time>,
    /// When the rate first fell below the Quick-Start rate it was given:
    /// the paper's step (c), whichever report or timer made it.
    pub(crate) qs_cut_at: Option<Time>,
    /// When the first report (with a Quick-Start response, if asked) came.
    pub(crate) first_report_at: Option<Time>,
}

/// The TFRC sender of RFC 5348 §4 (or RFC 3448's start-up): its allowed
/// rate, its RTT estimate, the X_recv set, the nofeedback timer and the
/// Quick-Start phase.
#[derive(Clone, Debug)]
pub struct TfrcSender {
    cfg: TfrcConfig,
    revision: Revision,
    /// Allowed rate, bytes/s on the wire.
    x: f64,
    /// RTT estimate, seconds.
    r: Option<f64>,
    tld: Time,
    x_recv_set: Vec<(f64, Time)>,
    p: f64,
    nofeedback_at: Time,
    /// t_nom: when the next packet may go.
    next_at: Time,
    sent_since_timer: bool,
    /// Since the last report, a packet waited for the rate (not data-limited).
    rate_limited: bool,
    qs: QsState,
    next_seq: u64,
    /// What it counted, for the summary and the probes.
    pub stats: SenderStats,
}

impl TfrcSender {
    /// A sender starting at `start` (§4.2: one packet per second, the
    /// nofeedback timer at the initial RTO).
    pub fn new(cfg: &TfrcConfig, start: Time) -> TfrcSender {
        TfrcSender {
            cfg: cfg.clone(),
            revision: cfg.profile.revision().unwrap_or_default(),
            x: f64::from(cfg.packet_bytes),
            r: None,
            tld: start,
            x_recv_set: Vec::new(),
            p: 0.0,
            nofeedback_at: start + cfg.initial_rto(),
            next_at: Time::ZERO,
            sent_since_timer: false,
            rate_limited: false,
            qs: if cfg.quick_start_bps.is_some() {
                QsState::Asked
            } else {
                QsState::Off
            },
            next_seq: 0,
            stats: SenderStats::default(),
        }
    }

    /// Allowed rate, bits/s.
    pub fn rate_bps(&self) -> f64 {
        self.x * 8.0
    }

    pub(crate) fn rtt_s(&self) -> Option<f64> {
        self.r
    }

    pub(crate) fn p(&self) -> f64 {
        self.p
    }

    pub(crate) fn qs_state(&self) -> QsState {
        self.qs
    }

    fn s(&self) -> f64 {
        f64::from(self.cfg.packet_bytes)
    }

    /// The gap between packets at the current rate.
    pub fn interval(&self) -> Duration {
        let mut ipi = self.s() / self.x;
        if self.cfg.small_packets {
            ipi = ipi.max(SP_MIN_INTERVAL_S);
        }
        Duration::from_secs_f64(ipi)
    }

    /// The earliest time the next packet may go.
    pub(crate) fn next_send_at(&self) -> Time {
        self.next_at
    }

    /// A packet waits for the rate rather than for data.
    pub(crate) fn note_waiting(&mut self) {
        self.rate_limited = true;
    }

    /// A packet goes now; `more_waiting` says whether others wait behind it.
    /// Returns its header, its sequence number in the PDU's `seq`.
    pub(crate) fn on_send(&mut self, now: Time, more_waiting: bool) -> (u64, TfrcData) {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.next_at = now + self.interval();
        self.sent_since_timer = true;
        self.rate_limited |= more_waiting;
        self.stats.packets += 1;
        self.stats.bytes += u64::from(self.cfg.packet_bytes);
        let qs = match (seq, self.cfg.quick_start_bps) {
            (0, Some(bps)) => QsOption::request(bps),
            _ => QsOption::default(),
        };
        let rtt_ps = self.r.map_or(0, |r| Duration::from_secs_f64(r).ps());
        let h = TfrcData {
            sent: now,
            rtt_ps,
            qs,
            ..TfrcData::default()
        };
        (seq, h)
    }

    /// The rate slow start starts from and never falls below (§4.2).
    fn initial_rate(&self, r: f64) -> f64 {
        match self.revision {
            Revision::Rfc5348 => self.cfg.w_init() / r,
            Revision::Rfc3448 => self.s() / r,
        }
    }

    fn rto(&self) -> Duration {
        match self.r {
            Some(r) => Duration::from_secs_f64((4.0 * r).max(2.0 * self.s() / self.x)),
            None => self.cfg.initial_rto(),
        }
    }

    /// The equation's rate at the current R and p (TFRC-SP: nominal
    /// segment and header penalty).
    fn x_calc(&self, r: f64) -> f64 {
        equation::rate_bps_bytes(self.cfg.s_equation(), r, self.p) * self.cfg.header_penalty()
    }

    /// A report arrived (§4.3).
    pub(crate) fn on_feedback(&mut self, now: Time, fb: &TfrcFeedback) {
        self.stats.reports += 1;
        let sample = (now.since(fb.t_recvdata).as_secs_f64()
            - Duration(fb.t_delay_ps).as_secs_f64())
        .max(1e-6);
        let first = self.r.is_none();
        let r = match self.r {
            None => sample,
            Some(r) => Q * r + (1.0 - Q) * sample,
        };
        self.r = Some(r);
        if first {
            self.on_first_report(now, fb, r);
        } else {
            match self.qs {
                QsState::Phase { since, .. } if fb.p == 0.0 && fb.t_recvdata < since => {}
                QsState::Phase { .. } if fb.p == 0.0 => {
                    self.qs = QsState::Validated;
                    self.stats.qs_validated_at = Some(now);
                    self.x_recv_set.clear();
                    self.tld = Time::ZERO;
                    self.update_rate(now, fb, r);
                }
                QsState::Phase { .. } => {
                    self.qs = QsState::NotUsed;
                    self.update_rate(now, fb, r);
                }
                _ => self.update_rate(now, fb, r),
            }
        }
        self.rate_limited = false;
        self.restart_timer(now);
    }

    fn on_first_report(&mut self, now: Time, fb: &TfrcFeedback, r: f64) {
        self.stats.first_report_at = Some(now);
        self.tld = now;
        self.x_recv_set = vec![(f64::INFINITY, now)];
        self.p = fb.p;
        if self.qs == QsState::Asked {
            if fb.qs.approved() {
                let rate = fb.qs.rate_bps() / 8.0;
                self.stats.qs_approved_bps = fb.qs.rate_bps();
                self.qs = QsState::Phase { since: now, rate };
                self.x = rate;
                return;
            }
            self.qs = QsState::NotUsed;
        }
        self.x = match self.revision {
            Revision::Rfc5348 => self.initial_rate(r),
            Revision::Rfc3448 => (2.0 * self.x)
                .min(2.0 * fb.x_recv)
                .max(self.initial_rate(r)),
        };
    }

    /// Step 4 of §4.3 (RFC 3448: the last report's X_recv alone).
    fn update_rate(&mut self, now: Time, fb: &TfrcFeedback, r: f64) {
        let new_loss = fb.p > self.p;
        let recv_limit = match self.revision {
            Revision::Rfc3448 => 2.0 * fb.x_recv,
            Revision::Rfc5348 if !self.rate_limited && new_loss => {
                for e in &mut self.x_recv_set {
                    e.0 /= 2.0;
                }
                self.maximize_x_recv_set(0.85 * fb.x_recv, now);
                self.max_x_recv()
            }
            Revision::Rfc5348 if !self.rate_limited => {
                self.maximize_x_recv_set(fb.x_recv, now);
                2.0 * self.max_x_recv()
            }
            Revision::Rfc5348 => {
                self.update_x_recv_set(fb.x_recv, now, r);
                2.0 * self.max_x_recv()
            }
        };
        self.p = fb.p;
        if self.p > 0.0 {
            self.x = self.x_calc(r).min(recv_limit).max(self.cfg.min_rate());
        } else if now.since(self.tld).as_secs_f64() >= r {
            self.x = (2.0 * self.x).min(recv_limit).max(self.initial_rate(r));
            self.tld = now;
        }
    }

    fn max_x_recv(&self) -> f64 {
        self.x_recv_set.iter().map(|e| e.0).fold(0.0, f64::max)
    }

    fn maximize_x_recv_set(&mut self, x_recv: f64, now: Time) {
        let max = self
            .x_recv_set
            .iter()
            .map(|e| e.0)
            .filter(|v| v.is_finite())
            .fold(x_recv, f64::max);
        self.x_recv_set = vec![(max, now)];
    }

    fn update_x_recv_set(&mut self, x_recv: f64, now: Time, r: f64) {
        self.x_recv_set.push((x_recv, now));
        let horizon = 2.0 * r;
        self.x_recv_set
            .retain(|e| now.since(e.1).as_secs_f64() <= horizon);
    }

    fn restart_timer(&mut self, now: Time) {
        self.nofeedback_at = now + self.rto();
        self.sent_since_timer = false;
    }

    /// When the nofeedback timer expires.
    pub fn poll_at(&self) -> Time {
        self.nofeedback_at
    }

    /// The nofeedback timer (§4.4); a no-op before it is due.
    pub(crate) fn on_timer(&mut self, now: Time) {
        if now < self.nofeedback_at {
            return;
        }
        self.stats.nofeedback_expiries += 1;
        if matches!(self.qs, QsState::Phase { .. } | QsState::Asked) {
            self.qs = QsState::NotUsed;
        }
        let idle = !self.sent_since_timer;
        let min_rate = self.cfg.min_rate();
        match self.r {
            None => {
                if !idle {
                    self.x = (self.x / 2.0).max(min_rate);
                }
            }
            Some(r) => {
                let recover = self.initial_rate(r);
                let x_recv = self.max_x_recv();
                let quiet =
                    (self.p > 0.0 && x_recv < recover) || (self.p == 0.0 && self.x < 2.0 * recover);
                if quiet && idle {
                    // A sender that was idle at a low rate keeps it: the
                    // silence says nothing about the path.
                } else if self.p == 0.0 {
                    self.x = (self.x / 2.0).max(min_rate);
                } else {
                    let x_calc = self.x_calc(r);
                    let limit = if x_calc > 2.0 * x_recv {
                        x_recv
                    } else {
                        x_calc / 2.0
                    };
                    let limit = limit.max(min_rate);
                    self.x_recv_set = vec![(limit / 2.0, now)];
                    self.x = x_calc.min(limit).max(min_rate);
                }
            }
        }
        self.restart_timer(now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Time {
        Time(v * 1_000_000_000)
    }

    fn report(sent: Time, x_recv: f64, p: f64) -> TfrcFeedback {
        TfrcFeedback {
            t_recvdata: sent,
            t_delay_ps: 0,
            x_recv,
            p,
            qs: QsOption::default(),
        }
    }

    #[test]
    fn one_packet_per_second_before_any_report() {
        let s = TfrcSender::new(&TfrcConfig::new(1000), Time::ZERO);
        assert_eq!(s.rate_bps(), 8000.0);
        assert_eq!(s.interval(), Duration::from_millis(1000));
        assert_eq!(s.poll_at(), ms(2000));
    }

    #[test]
    fn rfc5348_first_report_sets_w_init_over_r() {
        let mut s = TfrcSender::new(&TfrcConfig::new(1000), Time::ZERO);
        s.on_send(ms(0), false);
        s.on_feedback(ms(500), &report(ms(0), 0.0, 0.0));
        // W_init = min(4000, max(2000, 4380)) = 4000 B over R = 0.5 s.
        assert!((s.rate_bps() - 8.0 * 4000.0 / 0.5).abs() < 1e-6);
        // RTO = max(4R, 2s/X) = 2 s.
        assert_eq!(s.poll_at(), ms(2500));
    }

    #[test]
    fn rfc3448_first_report_gives_one_packet_per_rtt() {
        let mut cfg = TfrcConfig::new(1000);
        cfg.profile = crate::transport::tfrc::Profile::Rfc3448;
        let mut s = TfrcSender::new(&cfg, Time::ZERO);
        s.on_send(ms(0), false);
        s.on_feedback(ms(500), &report(ms(0), 0.0, 0.0));
        assert!((s.rate_bps() - 8.0 * 1000.0 / 0.5).abs() < 1e-6);
    }

    #[test]
    fn slow_start_doubles_once_per_rtt_within_twice_the_receive_rate() {
        let mut s = TfrcSender::new(&TfrcConfig::new(1000), Time::ZERO);
        s.on_send(ms(0), false);
        s.on_feedback(ms(100), &report(ms(0), 0.0, 0.0));
        let x0 = s.rate_bps() / 8.0; // 40 000 B/s
                                     // Sender rate-limited; reports 100 ms apart saying the path got X.
        s.note_waiting();
        s.on_feedback(ms(200), &report(ms(100), x0, 0.0));
        assert!((s.rate_bps() / 8.0 - 2.0 * x0).abs() < 1e-6);
        // A report 50 ms later does not double again (tld).
        s.note_waiting();
        s.on_feedback(ms(250), &report(ms(150), 2.0 * x0, 0.0));
        assert!((s.rate_bps() / 8.0 - 2.0 * x0).abs() < 1e-6);
        // A report saying little arrived limits the rate to twice that.
        s.note_waiting();
        s.on_feedback(ms(400), &report(ms(300), 30_000.0, 0.0));
        // The X_recv set keeps the last two RTTs (the initial +∞ entry has
        // aged out): its largest, 80 000 from t = 250 ms, limits the rate
        // to 160 000, which is also 2X.
        assert!((s.rate_bps() / 8.0 - 160_000.0).abs() < 1e-6);
    }

    #[test]
    fn loss_switches_to_the_equation() {
        let mut s = TfrcSender::new(&TfrcConfig::new(1000), Time::ZERO);
        s.on_send(ms(0), false);
        s.on_feedback(ms(100), &report(ms(0), 0.0, 0.0));
        s.note_waiting();
        s.on_feedback(ms(200), &report(ms(100), 1e9, 0.01));
        let r = s.rtt_s().unwrap();
        let expect = equation::rate_bps_bytes(1000.0, r, 0.01);
        assert!((s.rate_bps() / 8.0 - expect).abs() < 1e-6 * expect);
    }

    #[test]
    fn rtt_is_an_ewma_of_samples() {
        let mut s = TfrcSender::new(&TfrcConfig::new(1000), Time::ZERO);
        s.on_feedback(ms(100), &report(ms(0), 0.0, 0.0));
        let mut fb = report(ms(100), 0.0, 0.0);
        fb.t_delay_ps = Duration::from_millis(100).ps();
        // Sample = (400 − 100) − 100 = 200 ms.
        s.on_feedback(ms(400), &fb);
        assert!((s.rtt_s().unwrap() - (0.9 * 0.1 + 0.1 * 0.2)).abs() < 1e-12);
    }

    #[test]
    fn nofeedback_halves_the_rate() {
        let mut s = TfrcSender::new(&TfrcConfig::new(1000), Time::ZERO);
        s.on_send(ms(0), false);
        s.on_timer(ms(2000));
        assert_eq!(s.rate_bps(), 4000.0);
        assert_eq!(s.stats.nofeedback_expiries, 1);
        // Idle since the timer was set (nothing sent) and no RTT: unchanged.
        s.on_timer(ms(4000));
        assert_eq!(s.rate_bps(), 4000.0);
    }

    #[test]
    fn never_below_one_packet_per_t_mbi() {
        let mut s = TfrcSender::new(&TfrcConfig::new(1000), Time::ZERO);
        for k in 1..40 {
            s.on_send(ms(2000 * k - 1), false);
            s.on_timer(ms(2000 * k + 10_000 * k));
        }
        assert!((s.rate_bps() / 8.0 - 1000.0 / 64.0).abs() < 1e-9);
    }

    #[test]
    fn tfrc_sp_keeps_ten_ms_between_packets() {
        let mut cfg = TfrcConfig::new(200);
        cfg.small_packets = true;
        let mut s = TfrcSender::new(&cfg, Time::ZERO);
        s.on_send(ms(0), false);
        s.on_feedback(ms(50), &report(ms(0), 0.0, 0.0));
        // W_init/R with s = 1460: 4380/0.05 = 87 600 B/s, 2.3 ms a packet.
        assert_eq!(s.interval(), Duration::from_millis(10));
    }

    fn qs_sender() -> TfrcSender {
        let mut cfg = TfrcConfig::new(1316);
        cfg.profile = crate::transport::tfrc::Profile::Rfc3448;
        cfg.quick_start_bps = Some(320_000.0);
        TfrcSender::new(&cfg, Time::ZERO)
    }

    #[test]
    fn quick_start_request_rides_the_first_packet_only() {
        let mut s = qs_sender();
        assert_eq!(s.on_send(ms(0), false).1.qs, QsOption::request(320_000.0));
        assert_eq!(s.on_send(ms(1000), false).1.qs.rate_code, 0);
    }

    #[test]
    fn an_approval_sets_the_rate_until_validation() {
        let mut s = qs_sender();
        s.on_send(ms(0), false);
        let mut first = report(ms(0), 0.0, 0.0);
        first.qs = QsOption::request(320_000.0);
        s.on_feedback(ms(800), &first);
        assert_eq!(s.rate_bps(), 320_000.0);
        assert!(matches!(s.qs_state(), QsState::Phase { .. }));
        // A report on packets sent before the approval changes nothing.
        s.on_feedback(ms(1200), &report(ms(500), 1000.0, 0.0));
        assert_eq!(s.rate_bps(), 320_000.0);
        // The first report on the phase's packets validates: twice the
        // receive rate it reports (RFC 3448 rule).
        s.on_feedback(ms(2300), &report(ms(900), 5500.0, 0.0));
        assert_eq!(s.qs_state(), QsState::Validated);
        assert!((s.rate_bps() - 8.0 * 11_000.0).abs() < 1e-6);
        assert_eq!(s.stats.qs_validated_at, Some(ms(2300)));
    }

    #[test]
    fn a_refused_request_leaves_ordinary_slow_start() {
        let mut s = qs_sender();
        s.on_send(ms(0), false);
        s.on_feedback(ms(800), &report(ms(0), 0.0, 0.0));
        assert_eq!(s.qs_state(), QsState::NotUsed);
        assert!((s.rate_bps() - 8.0 * 1316.0 / 0.8).abs() < 1e-6);
    }

    #[test]
    fn nofeedback_abandons_quick_start() {
        let mut s = qs_sender();
        s.on_send(ms(0), false);
        s.on_timer(ms(2000));
        assert_eq!(s.qs_state(), QsState::NotUsed);
    }
}
