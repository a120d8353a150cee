//! The TFRC receiver (RFC 5348 §6): it measures the receive rate, keeps the
//! loss history and decides when to report.
//!
//! - The first data packet is reported at once (§6.3); the tfrc-dama paper
//!   notes that this first report's rate says little, which is why a
//!   Quick-Start sender ignores it.
//! - After that, one report per RTT: the feedback timer runs for R_m, the
//!   latest RTT estimate the data carried (§6.2). Until the data carry one
//!   (the sender has no sample yet) the timer is not running; the first
//!   packet carrying an estimate starts it, to expire R_m later. A timer
//!   that expires with no data since the last report sends nothing and
//!   runs for another R_m. (This is what puts the second report about
//!   three RTTs in, as the tfrc-dama paper's Fig. 4 describes.)
//! - A new loss event that raises p is reported at once (§6.1).
//! - X_recv is the bytes received since the last report over the time
//!   since then; the initial report carries 0, having no interval.
//! - A Quick-Start request on a data packet is echoed with the next report
//!   (RFC 4782 §4.2).

use super::equation;
use super::loss_history::LossHistory;
use super::TfrcConfig;
use crate::engine::{Duration, Time};
use crate::net::quick_start::QsOption;
use crate::net::{TfrcData, TfrcFeedback};

/// The TFRC receiver of RFC 5348 §6: the receive rate, the loss history and
/// when to report.
#[derive(Clone, Debug)]
pub struct TfrcReceiver {
    s_equation: f64,
    history: LossHistory,
    /// R_m, seconds; 0 until a data packet carries an estimate.
    rtt_s: f64,
    last_report: Option<Time>,
    last_x_recv: f64,
    last_p: f64,
    bytes_since_report: u64,
    /// The send time and arrival of the last data packet.
    last_data: Option<(Time, Time)>,
    data_since_report: bool,
    due: Time,
    qs_echo: Option<QsOption>,
    pub(crate) packets: u64,
    /// Bytes of data packets received, as they were on the wire.
    pub bytes: u64,
    pub(crate) reports: u64,
}

impl TfrcReceiver {
    /// A receiver of a flow with these parameters, nothing received yet.
    pub fn new(cfg: &TfrcConfig) -> TfrcReceiver {
        TfrcReceiver {
            s_equation: cfg.s_equation(),
            history: LossHistory::new(cfg.small_packets),
            rtt_s: 0.0,
            last_report: None,
            last_x_recv: 0.0,
            last_p: 0.0,
            bytes_since_report: 0,
            last_data: None,
            data_since_report: false,
            due: Time::NEVER,
            qs_echo: None,
            packets: 0,
            bytes: 0,
            reports: 0,
        }
    }

    /// A data packet `seq` of `bytes` with header `h` arrived at `now`;
    /// true when it must be reported at once.
    pub(crate) fn on_data(&mut self, now: Time, seq: u64, bytes: u32, h: &TfrcData) -> bool {
        self.packets += 1;
        self.bytes += u64::from(bytes);
        self.bytes_since_report += u64::from(bytes);
        self.data_since_report = true;
        if self.last_data.is_none_or(|(sent, _)| h.sent >= sent) {
            self.last_data = Some((h.sent, now));
        }
        if h.rtt_ps > 0 {
            self.rtt_s = Duration(h.rtt_ps).as_secs_f64();
        }
        if h.qs.rate_code > 0 {
            self.qs_echo = Some(h.qs);
        }
        let rtt = self.rtt_s;
        let x_recv = self.rate_now(now);
        let s = self.s_equation;
        let mut seed = || 1.0 / equation::loss_rate_for(s, rtt.max(1e-3), x_recv.max(1.0));
        let arrival = self.history.on_packet(seq, now, rtt, &mut seed);
        if self.last_report.is_none() {
            return true;
        }
        if arrival.new_events > 0 && self.history.p(now, rtt) > self.last_p {
            return true;
        }
        if self.due == Time::NEVER && self.rtt_s > 0.0 {
            self.due = now + self.rtt();
        }
        false
    }

    /// The data packet `seq` just given to `on_data` was CE-marked: a loss
    /// for the loss history (RFC 5348 §5 with ECN); true when it must be
    /// reported at once (a new event that raises p, §6.1).
    pub(crate) fn on_mark(&mut self, now: Time, seq: u64) -> bool {
        let rtt = self.rtt_s;
        let x_recv = self.rate_now(now);
        let s = self.s_equation;
        let mut seed = || 1.0 / equation::loss_rate_for(s, rtt.max(1e-3), x_recv.max(1.0));
        let arrival = self.history.on_mark(seq, now, rtt, &mut seed);
        self.last_report.is_some()
            && arrival.new_events > 0
            && self.history.p(now, rtt) > self.last_p
    }

    fn rtt(&self) -> Duration {
        Duration::from_secs_f64(self.rtt_s)
    }

    /// The receive rate since the last report, or the last reported one
    /// when too little time has passed to say.
    fn rate_now(&self, now: Time) -> f64 {
        match self.last_report {
            Some(t) if now > t => self.bytes_since_report as f64 / now.since(t).as_secs_f64(),
            _ => self.last_x_recv,
        }
    }

    /// Data arrived since the last report: the feedback timer will report.
    pub(crate) fn report_pending(&self) -> bool {
        self.data_since_report
    }

    /// When the feedback timer is next due.
    pub fn poll_at(&self) -> Time {
        self.due
    }

    /// The feedback timer: true when a report must go now.
    pub(crate) fn on_timer(&mut self, now: Time) -> bool {
        if now < self.due {
            return false;
        }
        if self.data_since_report {
            return true;
        }
        self.due = now + self.rtt();
        false
    }

    /// The report to send now; restarts the feedback timer.
    pub(crate) fn report(&mut self, now: Time) -> TfrcFeedback {
        let x_recv = match self.last_report {
            None => 0.0,
            Some(t) if now > t => self.bytes_since_report as f64 / now.since(t).as_secs_f64(),
            Some(_) => self.last_x_recv,
        };
        let p = self.history.p(now, self.rtt_s);
        let (sent, arrived) = self.last_data.unwrap_or((Time::ZERO, now));
        self.last_report = Some(now);
        self.last_x_recv = x_recv;
        self.last_p = p;
        self.bytes_since_report = 0;
        self.data_since_report = false;
        self.reports += 1;
        self.due = if self.rtt_s > 0.0 {
            now + self.rtt()
        } else {
            Time::NEVER
        };
        TfrcFeedback {
            t_recvdata: sent,
            t_delay_ps: now.since(arrived).ps(),
            x_recv,
            p,
            qs: self.qs_echo.take().unwrap_or_default(),
        }
    }

    pub(crate) fn loss_history(&self) -> &LossHistory {
        &self.history
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Time {
        Time(v * 1_000_000_000)
    }

    fn data(sent: Time, rtt_ms: u64) -> TfrcData {
        TfrcData {
            sent,
            rtt_ps: rtt_ms * 1_000_000_000,
            ..TfrcData::default()
        }
    }

    #[test]
    fn first_packet_is_reported_at_once_with_no_rate() {
        let mut r = TfrcReceiver::new(&TfrcConfig::new(1000));
        assert!(r.on_data(ms(400), 0, 1000, &data(ms(0), 0)));
        let fb = r.report(ms(400));
        assert_eq!(fb.x_recv, 0.0);
        assert_eq!(fb.t_recvdata, ms(0));
        assert_eq!(fb.t_delay_ps, 0);
        // No RTT known: no timer yet.
        assert_eq!(r.poll_at(), Time::NEVER);
    }

    #[test]
    fn one_report_per_rtt_carried_by_the_data() {
        let mut r = TfrcReceiver::new(&TfrcConfig::new(1000));
        r.on_data(ms(400), 0, 1000, &data(ms(0), 0));
        r.report(ms(400));
        // Packets every 100 ms carrying R = 800 ms from t = 1000 ms.
        assert!(!r.on_data(ms(1000), 1, 1000, &data(ms(600), 800)));
        assert_eq!(r.poll_at(), ms(1800));
        for k in 2..=3 {
            r.on_data(ms(1000 + 100 * (k - 1)), k, 1000, &data(ms(600), 800));
        }
        assert!(!r.on_timer(ms(1799)));
        assert!(r.on_timer(ms(1800)));
        let fb = r.report(ms(1800));
        // 3000 bytes between 400 ms and 1800 ms.
        assert!((fb.x_recv - 3000.0 / 1.4).abs() < 1e-9);
        assert_eq!(fb.t_delay_ps, 600 * 1_000_000_000);
        assert_eq!(r.poll_at(), ms(2600));
        // Nothing received since: the timer sends nothing and runs again.
        assert!(!r.on_timer(ms(2600)));
        assert_eq!(r.poll_at(), ms(3400));
    }

    #[test]
    fn a_new_loss_event_is_reported_at_once() {
        let mut r = TfrcReceiver::new(&TfrcConfig::new(1000));
        r.on_data(ms(0), 0, 1000, &data(ms(0), 100));
        r.report(ms(0));
        let mut now_report = vec![];
        for seq in (1..10).filter(|&s| s != 4) {
            now_report.push(r.on_data(ms(10 * seq), seq, 1000, &data(ms(10 * seq), 100)));
        }
        // Packet 4 is declared lost when 7 (the third after it) arrives.
        assert_eq!(
            now_report,
            vec![false, false, false, false, false, true, false, false]
        );
        let fb = r.report(ms(70));
        assert!(fb.p > 0.0);
    }

    #[test]
    fn quick_start_request_is_echoed_once() {
        let mut r = TfrcReceiver::new(&TfrcConfig::new(1000));
        let mut h = data(ms(0), 0);
        h.qs = QsOption::request(320_000.0);
        r.on_data(ms(400), 0, 1000, &h);
        assert_eq!(r.report(ms(400)).qs, QsOption::request(320_000.0));
        r.on_data(ms(500), 1, 1000, &data(ms(100), 0));
        assert_eq!(r.report(ms(500)).qs.rate_code, 0);
    }

    #[test]
    fn first_loss_seeds_the_history_from_the_receive_rate() {
        // 1000-byte packets every 10 ms (100 kB/s) with R = 100 ms: the
        // synthetic interval is 1/p* with X(s, R, p*) = 100 kB/s.
        let cfg = TfrcConfig::new(1000);
        let mut r = TfrcReceiver::new(&cfg);
        r.on_data(ms(0), 0, 1000, &data(ms(0), 100));
        r.report(ms(0));
        for seq in (1..=60).filter(|&s| s != 50) {
            r.on_data(ms(10 * seq), seq, 1000, &data(ms(10 * seq), 100));
        }
        // Packets 1..=53 but 50 have arrived when 53 reveals the loss.
        let p_star = equation::loss_rate_for(1000.0, 0.1, 52_000.0 / 0.53);
        let seeded = r.loss_history().intervals(0.1);
        assert_eq!(seeded.len(), 1);
        assert!(
            (seeded[0] * p_star - 1.0).abs() < 1e-6,
            "{seeded:?} {p_star}"
        );
    }
}
