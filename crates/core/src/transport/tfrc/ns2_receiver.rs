//! The TFRC receiver as ns-2.35's `Agent/TFRCSink` runs it
//! (`tcp/tfrc-sink.cc`, defaults of `tcl/lib/ns-default.tcl` l. 1188-1213):
//! the `profile = "ns2"` receiver. Where it departs from RFC 5348:
//!
//! - when to report (`recv`, l. 164; `nextpkt`, l. 372): at once for a
//!   packet the sender marked urgent (every packet before its first report
//!   and after a nofeedback expiry), for a new loss event, and for the first
//!   loss; otherwise on the first new packet at least one RTT (the RTT the
//!   data carry) after the last report; a backup timer 1.5 RTT after each
//!   report sends one if data came in since;
//! - the receive rate (`est_thput`, l. 334) is packets per second: those
//!   received since the last report over the time since it, when that is
//!   an RTT or more, else those received in the RTT before the newest; 1
//!   packet/s when no RTT is known;
//! - loss (`recv`, `new_loss`, l. 135): one packet past a gap declares it
//!   lost (`numPkts_` 1); a loss opens a new loss event if it is more than
//!   an RTT after the last event began and the sender has had a report
//!   since (`PreciseLoss_`, the data's round id);
//! - the first loss replaces the history by one interval, 1/p of the
//!   equation's inverse at the receive rate (`adjust_history`, l. 836;
//!   ns-2's own `b_to_p` and the sender's t_RTO);
//! - the loss event rate (`est_loss_WALI`, l. 546): nine intervals with
//!   `smooth_` weights, the open interval counted only if it raises the
//!   mean, and history discounting (`discount_`, RFC 5348 §5.5, not below
//!   0.5).
//!
//! `ShortIntervals_` is 0 by default, so TFRC-SP flows (ns-2's `voip_`)
//! count loss intervals as plain TFRC does; ECN is not modelled. Times are
//! whole picoseconds (as in `ns2_sender`, ties go as exact arithmetic has
//! them).

use super::ns2_formula::b_to_p;
use super::TfrcConfig;
use crate::engine::{Duration, Time};
use crate::net::quick_start::QsOption;
use crate::net::{TfrcData, TfrcFeedback};

/// `InitHistorySize_` (l. 1189): the ring of per-packet records.
const HISTORY: usize = 100_000;
/// `NumSamples_` -1 means `DEFAULT_NUMSAMPLES` (tfrc-sink.h) = 8, plus one
/// with `smooth_` (`init_WALI`, l. 874).
const SAMPLES: usize = 9;
/// `minDiscountRatio_` (l. 1194).
const MIN_DISCOUNT: f64 = 0.5;
/// `SMALLFLOAT` of tfrc-sink.h, in picoseconds.
const SMALL_PS: i64 = 100_000;
const PS: f64 = 1e12;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Mark {
    Unknown,
    Received,
    /// Lost, and the first of a new loss event.
    Lost,
    /// Lost within an event already counted.
    NotReceived,
}

#[derive(Copy, Clone, Debug)]
struct Record {
    mark: Mark,
    /// Arrival time and the sender's timestamp, ps (-1: none).
    arrived: i64,
    sent: i64,
}

const EMPTY: Record = Record {
    mark: Mark::Unknown,
    arrived: -1,
    sent: -1,
};

/// The average loss interval of `est_loss_WALI`: intervals in packets,
/// the open one first, with their discount multipliers.
#[derive(Clone, Debug)]
struct Intervals {
    sample: [i64; SAMPLES + 1],
    mult: [f64; SAMPLES + 1],
    weights: [f64; SAMPLES + 1],
    count: usize,
    /// Set by the first loss (`false_sample`): the history is seeded.
    seeded: bool,
    factor: f64,
}

impl Intervals {
    fn new() -> Intervals {
        // `init_WALI` with smooth_: 1, 1, 1, 1, 1, 0.8, 0.6, 0.4, 0.2, 0.
        let mid = SAMPLES / 2;
        let mut weights = [1.0; SAMPLES + 1];
        for (i, w) in weights.iter_mut().enumerate().skip(mid) {
            *w = 1.0 - (i - mid) as f64 / (mid as f64 + 1.0);
        }
        Intervals {
            sample: [0; SAMPLES + 1],
            mult: [1.0; SAMPLES + 1],
            weights,
            count: 1,
            seeded: false,
            factor: 1.0,
        }
    }

    /// A packet counted into the open interval; `lost` starts a new one
    /// after it.
    fn add(&mut self, lost: bool) {
        self.sample[0] += 1;
        if lost {
            self.count += 1;
            self.sample.rotate_right(1);
            self.sample[0] = 0;
            for m in &mut self.mult[1..] {
                *m *= self.factor;
            }
            self.mult.rotate_right(1);
            self.mult[0] = 1.0;
            self.factor = 1.0;
        }
    }

    /// `weighted_average1` with smooth_ 1 and ShortIntervals_ 0 (l. 734):
    /// from the open interval, weights shifted by one and the last
    /// interval left out; from the newest closed one, weights as they are.
    fn average(&self, with_open: bool, end: usize, factor: f64) -> f64 {
        let (start, end, shift) = if with_open {
            (0, end.min(SAMPLES), 1)
        } else {
            (1, end, 0)
        };
        let weight = |i: usize| {
            let w = self.mult[i] * self.weights[i + shift];
            if i == 0 {
                w
            } else {
                factor * w
            }
        };
        let wsum: f64 = (start..end).map(weight).sum();
        (start..end)
            .map(|i| weight(i) * self.sample[i] as f64 / wsum)
            .sum()
    }

    /// The loss event rate (l. 590-642).
    fn p(&mut self) -> f64 {
        let ds = self.count.min(SAMPLES + 1);
        if self.count == 1 && !self.seeded {
            return 0.0;
        }
        if self.count > 1 && self.sample[0] > 0 {
            let ave = self.average(false, ds, 1.0);
            let ratio = 2.0 * ave / self.sample[0] as f64;
            if ratio < 1.0 {
                self.factor = ratio.max(MIN_DISCOUNT);
            }
        }
        let with_open = self.average(true, ds, self.factor);
        let closed = self.average(false, ds, self.factor);
        let mean = with_open.max(closed);
        if mean > 0.0 {
            1.0 / mean
        } else {
            999.0
        }
    }
}

#[derive(Clone, Debug)]
pub struct Ns2Receiver {
    /// `psize_` and the equation's segment (`fsize_`), bytes.
    psize: f64,
    fsize: f64,
    ring: Vec<Record>,
    maxseq: i64,
    maxseq_list: i64,
    pkts_past_gap: u32,
    rcvd_since_report: u64,
    loss_seen: bool,
    lastloss: i64,
    lastloss_round: i64,
    /// From the newest data: the sender's RTT (ps), t_RTO (s) and round.
    rtt: i64,
    tzero: f64,
    round: i64,
    last_arrival: i64,
    last_timestamp: i64,
    last_report_sent: i64,
    intervals: Intervals,
    last_sample: i64,
    /// The p of a report that must carry it (the first loss).
    pending_p: Option<f64>,
    nack_at: Time,
    qs_echo: Option<QsOption>,
    pub(crate) packets: u64,
    pub bytes: u64,
    pub(crate) reports: u64,
    pub(crate) loss_events: u64,
    pub(crate) packets_lost: u64,
}

impl Ns2Receiver {
    pub fn new(cfg: &TfrcConfig) -> Ns2Receiver {
        let psize = f64::from(cfg.packet_bytes);
        Ns2Receiver {
            psize,
            fsize: if cfg.small_packets { 1460.0 } else { psize },
            ring: Vec::new(),
            maxseq: -1,
            maxseq_list: -1,
            pkts_past_gap: 0,
            rcvd_since_report: 0,
            loss_seen: false,
            lastloss: 0,
            lastloss_round: -1,
            rtt: 0,
            tzero: 0.0,
            round: 0,
            last_arrival: 0,
            last_timestamp: 0,
            last_report_sent: 0,
            intervals: Intervals::new(),
            last_sample: 0,
            pending_p: None,
            nack_at: Time::NEVER,
            qs_echo: None,
            packets: 0,
            bytes: 0,
            reports: 0,
            loss_events: 0,
            packets_lost: 0,
        }
    }

    fn at(&self, seq: i64) -> Record {
        self.ring
            .get(seq.rem_euclid(HISTORY as i64) as usize)
            .copied()
            .unwrap_or(EMPTY)
    }

    fn at_mut(&mut self, seq: i64) -> &mut Record {
        let i = seq.rem_euclid(HISTORY as i64) as usize;
        if i >= self.ring.len() {
            self.ring.resize(i + 1, EMPTY);
        }
        &mut self.ring[i]
    }

    /// `new_loss` (l. 135) with PreciseLoss_.
    fn new_loss(&mut self, seq: i64, tstamp: i64) -> bool {
        let since = self.at(seq).sent - self.lastloss;
        if since > self.rtt && self.round > self.lastloss_round {
            self.lastloss = tstamp;
            self.lastloss_round = self.round;
            return true;
        }
        false
    }

    /// A data packet `seq` of `bytes` arrived at `now`; true when it must
    /// be reported at once (`recv`, l. 164).
    pub(crate) fn on_data(&mut self, now: Time, seq: u64, bytes: u32, h: &TfrcData) -> bool {
        let t = now.ps() as i64;
        let seq = seq as i64;
        self.packets += 1;
        self.bytes += u64::from(bytes);
        self.rcvd_since_report += 1;
        if h.qs.rate_code > 0 {
            self.qs_echo = Some(h.qs);
        }
        if self.maxseq < 0 {
            self.maxseq = seq - 1;
            self.maxseq_list = seq;
        }
        let old_maxseq = self.maxseq;
        let mut urgent = false;
        if seq > self.maxseq || (seq > self.maxseq_list && self.at(seq).mark == Mark::Unknown) {
            if seq > self.maxseq_list + 1 {
                self.pkts_past_gap += 1;
            }
            urgent = h.urgent;
            self.round = i64::from(h.round);
            self.rtt = h.rtt_ps as i64;
            self.tzero = Duration(h.rto_ps).as_secs_f64();
            self.last_arrival = t;
            self.last_timestamp = h.sent.ps() as i64;
            *self.at_mut(seq) = Record {
                mark: Mark::Received,
                arrived: t,
                sent: self.last_timestamp,
            };
        }
        if seq > self.maxseq {
            for i in self.maxseq + 1..seq {
                self.at_mut(i).mark = Mark::Unknown;
                self.packets_lost += 1;
            }
        }
        let congestion = self.detect_losses(t, seq, old_maxseq);
        if seq > self.maxseq {
            self.maxseq = seq;
            if !self.loss_seen && seq - old_maxseq > 1 {
                // The first loss: seed the history (AdjustHistoryAfterSS_).
                urgent = true;
                self.loss_seen = true;
                self.pending_p = Some(self.adjust_history(t, h.sent.ps() as i64));
            }
            if self.rtt > SMALL_PS && t - self.last_report_sent >= self.rtt {
                urgent = true;
            }
        }
        urgent || congestion
    }

    /// Marks the packets of a gap lost once one packet is past it; true
    /// when one of them opens a new loss event.
    fn detect_losses(&mut self, t: i64, seq: i64, old_maxseq: i64) -> bool {
        let past = self.pkts_past_gap >= 1
            || self.at(seq).sent - self.at(self.maxseq_list).sent > self.rtt;
        if seq > self.maxseq_list && past {
            let mut congestion = false;
            for i in self.maxseq_list..seq {
                if self.at(i).mark != Mark::Unknown {
                    continue;
                }
                let sent = self.estimate_sent(old_maxseq, seq, i);
                *self.at_mut(i) = Record {
                    mark: Mark::Unknown,
                    arrived: t,
                    sent,
                };
                let mark = if self.new_loss(i, sent) {
                    congestion = true;
                    self.loss_events += 1;
                    Mark::Lost
                } else {
                    Mark::NotReceived
                };
                self.at_mut(i).mark = mark;
            }
            self.maxseq_list = seq;
            self.pkts_past_gap = 0;
            return congestion;
        }
        if seq == self.maxseq_list + 1 {
            self.maxseq_list = seq;
            self.pkts_past_gap = 0;
        }
        false
    }

    /// A lost packet's send time, interpolated (`estimate_tstamp`, l. 154).
    fn estimate_sent(&self, before: i64, after: i64, i: i64) -> i64 {
        let (b, a) = (self.at(before).sent as f64, self.at(after).sent as f64);
        let delta = (a - b) / (after - before) as f64;
        (b + (i - before) as f64 * delta).round() as i64
    }

    /// `adjust_history` (l. 836): the first loss is not an event; the
    /// history becomes one interval of 1/p at the receive rate.
    fn adjust_history(&mut self, t: i64, ts: i64) -> f64 {
        for r in &mut self.ring {
            if r.mark == Mark::Lost {
                r.mark = Mark::NotReceived;
                self.loss_events -= 1;
            }
        }
        self.lastloss = ts;
        self.lastloss_round = self.round;
        let p = b_to_p(
            self.receive_rate(t) * self.psize,
            self.rtt as f64 / PS,
            self.tzero,
            self.fsize,
            1.0,
        );
        let iv = &mut self.intervals;
        iv.sample[1] = (1.0 / p) as i64;
        iv.sample[0] = 0;
        iv.count += 1;
        iv.seeded = true;
        p
    }

    /// `est_thput` (l. 334), packets/s.
    fn receive_rate(&self, t: i64) -> f64 {
        if self.rtt <= 0 {
            return 1.0;
        }
        let since = t - self.last_report_sent;
        if since >= self.rtt {
            if self.rcvd_since_report > 0 {
                return self.rcvd_since_report as f64 / (since as f64 / PS);
            }
            return 1.0;
        }
        let last = self.at(self.maxseq).arrived;
        let mut rcvd = 0u64;
        let mut i = self.maxseq;
        while i > 0 {
            let r = self.at(i);
            if r.mark == Mark::Received {
                if r.arrived + self.rtt > last {
                    rcvd += 1;
                } else {
                    break;
                }
            }
            i -= 1;
        }
        if rcvd > 0 {
            rcvd as f64 / (self.rtt as f64 / PS)
        } else {
            1.0
        }
    }

    /// `est_loss_WALI` (l. 546).
    fn loss_event_rate(&mut self) -> f64 {
        for i in self.last_sample..=self.maxseq {
            let lost = self.at(i).mark == Mark::Lost;
            self.intervals.add(lost);
        }
        self.last_sample = self.maxseq + 1;
        self.intervals.p()
    }

    /// Data arrived since the last report.
    pub(crate) fn report_pending(&self) -> bool {
        self.rcvd_since_report > 0
    }

    /// When the backup timer is next due.
    pub fn poll_at(&self) -> Time {
        self.nack_at
    }

    /// The backup timer: true when due (`report` then decides whether there
    /// is anything to report).
    pub(crate) fn on_timer(&mut self, now: Time) -> bool {
        now >= self.nack_at
    }

    /// `nextpkt` (l. 372): the report to send now, if data came in since
    /// the last one (`sendpkt`, l. 385); the backup timer runs for 1.5 RTT.
    pub(crate) fn report(&mut self, now: Time) -> Option<TfrcFeedback> {
        let t = now.ps() as i64;
        let fb = (self.last_arrival >= self.last_report_sent).then(|| {
            let p = match self.pending_p.take() {
                Some(p) => p,
                None => self.loss_event_rate(),
            };
            let x_recv = self.receive_rate(t) * self.psize;
            let fb = TfrcFeedback {
                t_recvdata: Time(self.last_timestamp as u64),
                t_delay_ps: (t - self.last_arrival) as u64,
                x_recv,
                p,
                qs: self.qs_echo.take().unwrap_or_default(),
            };
            self.last_report_sent = t;
            self.rcvd_since_report = 0;
            self.reports += 1;
            fb
        });
        self.nack_at = if self.rtt > 0 {
            now + Duration(self.rtt as u64 * 3 / 2)
        } else {
            Time::NEVER
        };
        fb
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Time {
        Time(v * 1_000_000_000)
    }

    fn data(sent: Time, rtt_ms: u64, round: u32, urgent: bool) -> TfrcData {
        TfrcData {
            sent,
            rtt_ps: rtt_ms * 1_000_000_000,
            round,
            urgent,
            rto_ps: 4 * rtt_ms * 1_000_000_000,
            ..TfrcData::default()
        }
    }

    fn rx() -> Ns2Receiver {
        Ns2Receiver::new(&TfrcConfig::new(1000))
    }

    #[test]
    fn urgent_packets_are_reported_at_once_at_one_packet_per_second() {
        let mut r = rx();
        assert!(r.on_data(ms(400), 0, 1000, &data(ms(0), 0, 0, true)));
        let fb = r.report(ms(400)).unwrap();
        assert_eq!(fb.x_recv, 1000.0, "no RTT: 1 packet/s");
        assert_eq!(fb.p, 0.0);
        assert_eq!(r.poll_at(), Time::NEVER, "no RTT: no backup timer");
        // A second urgent packet (sent before the first report arrived).
        assert!(r.on_data(ms(900), 1, 1000, &data(ms(500), 0, 0, true)));
    }

    #[test]
    fn later_reports_wait_an_rtt_and_the_timer_backs_them_up() {
        let mut r = rx();
        r.on_data(ms(400), 0, 1000, &data(ms(0), 0, 0, true));
        r.report(ms(400));
        // R = 800 ms from now on; not yet an RTT since the report.
        assert!(!r.on_data(ms(1000), 1, 1000, &data(ms(600), 800, 1, false)));
        assert!(!r.on_data(ms(1100), 2, 1000, &data(ms(700), 800, 1, false)));
        // 810 ms after the report: the first new packet reports.
        assert!(r.on_data(ms(1210), 3, 1000, &data(ms(810), 800, 1, false)));
        let fb = r.report(ms(1210)).unwrap();
        // The 3 packets since the report, over the 0.81 s since it.
        assert!((fb.x_recv - 1000.0 * 3.0 / 0.81).abs() < 1e-9);
        assert_eq!(fb.t_recvdata, ms(810));
        assert_eq!(fb.t_delay_ps, 0);
        assert_eq!(r.poll_at(), ms(2410));
        // The timer, nothing new: the last packet came at the very time of
        // the last report, which ns-2's `last_arrival_ >= last_report_sent`
        // counts as new, so it reports, at 1 packet/s (none since).
        assert!(r.on_timer(ms(2410)));
        assert_eq!(r.report(ms(2410)).unwrap().x_recv, 1000.0);
        // Data, then the timer: the rate over the time since the report.
        r.on_data(ms(2610), 4, 1000, &data(ms(2210), 800, 2, false));
        assert!(r.on_timer(ms(3610)));
        let fb = r.report(ms(3610)).unwrap();
        assert!((fb.x_recv - 1000.0 / 1.2).abs() < 1e-6);
        assert_eq!(fb.t_delay_ps, 1000 * 1_000_000_000);
        // Then nothing at all: no report, the timer runs on.
        assert!(r.report(ms(4810)).is_none());
        assert_eq!(r.poll_at(), ms(6010));
    }

    #[test]
    fn within_an_rtt_the_rate_counts_the_last_rtt_of_arrivals() {
        let mut r = rx();
        r.on_data(ms(0), 0, 1000, &data(ms(0), 0, 0, true));
        r.report(ms(0));
        for k in 1..=20 {
            r.on_data(ms(50 * k), k, 1000, &data(ms(50 * k), 200, 1, false));
        }
        // A report 100 ms after the last (an urgent one, say): less than
        // an RTT since, so the packets that arrived within 200 ms of the
        // newest (t = 850..1000 ms: four) over 200 ms.
        r.last_report_sent = ms(950).ps() as i64;
        assert!((r.receive_rate(ms(1000).ps() as i64) - 4.0 / 0.2).abs() < 1e-9);
    }

    #[test]
    fn one_packet_past_a_gap_declares_the_loss_and_the_first_seeds_the_history() {
        let mut r = rx();
        r.on_data(ms(0), 0, 1000, &data(ms(0), 0, 0, true));
        r.report(ms(0));
        for k in 1..=9 {
            r.on_data(ms(100 * k), k, 1000, &data(ms(100 * k), 300, 2, false));
        }
        r.report(ms(900));
        // 10 is lost; 11 reveals it at once.
        assert!(r.on_data(ms(1100), 11, 1000, &data(ms(1100), 300, 3, false)));
        assert_eq!(r.packets_lost, 1);
        let fb = r.report(ms(1100)).unwrap();
        // The first loss is no event: p is the inverse of the equation at
        // the receive rate (0.2 s since the last report is less than an
        // RTT: the 2 packets of the last 0.3 s), within ns-2's 5 %.
        let rate = 2.0 / 0.3 * 1000.0;
        let back = super::super::ns2_formula::p_to_b(fb.p, 0.3, 1.2, 1000.0, 1.0);
        assert!((back / rate - 1.0).abs() < 0.05, "{back} vs {rate}");
        assert_eq!(r.loss_events, 0);
        assert!(r.intervals.seeded);
        assert_eq!(r.intervals.sample[1], (1.0 / fb.p) as i64);
    }

    #[test]
    fn a_loss_an_rtt_later_in_a_new_round_is_a_new_event_reported_at_once() {
        let mut r = rx();
        r.on_data(ms(0), 0, 1000, &data(ms(0), 0, 0, true));
        r.report(ms(0));
        // Packets every 10 ms, R = 100 ms; `gap` skips one (lost).
        let mut seq = 1;
        let mut send = |r: &mut Ns2Receiver, t: u64, round: u32, gap: bool| {
            seq += u64::from(gap);
            let urgent = r.on_data(ms(t), seq, 1000, &data(ms(t), 100, round, false));
            seq += 1;
            urgent
        };
        for t in (10..=500).step_by(10) {
            send(&mut r, t, 1, false);
        }
        send(&mut r, 520, 2, true); // the first loss
        r.report(ms(520));
        for t in (530..=550).step_by(10) {
            send(&mut r, t, 2, false);
        }
        // A second loss 30 ms after the first, same round: no new event.
        assert!(!send(&mut r, 570, 2, true));
        assert_eq!(r.loss_events, 0);
        for t in (580..=800).step_by(10) {
            send(&mut r, t, 3, false);
        }
        // A third, more than an RTT later and in a later round: an event.
        assert!(send(&mut r, 820, 3, true));
        assert_eq!(r.loss_events, 1);
        assert_eq!(r.packets_lost, 3);
    }

    #[test]
    fn the_average_interval_follows_smooth_weights_and_discounting() {
        let mut iv = Intervals::new();
        let want = [1.0, 1.0, 1.0, 1.0, 1.0, 0.8, 0.6, 0.4, 0.2, 0.0];
        assert!(iv
            .weights
            .iter()
            .zip(want)
            .all(|(a, b)| (a - b).abs() < 1e-12));
        assert_eq!(iv.p(), 0.0, "no loss yet");
        // Two closed intervals of 100 and 50 packets, then 10 open.
        for k in 0..50 {
            iv.add(k == 49);
        }
        for k in 0..100 {
            iv.add(k == 99);
        }
        for _ in 0..10 {
            iv.add(false);
        }
        assert_eq!(&iv.sample[..3], &[10, 100, 50]);
        // Closed only: (100 + 50) / 2 = 75; with the open one (shifted
        // weights 1, 1, 1): (10 + 100 + 50) / 3 = 53.3: closed wins.
        assert!((iv.p() - 1.0 / 75.0).abs() < 1e-12);
        // A long open interval (400) raises the mean, and 2·75/400 < 1
        // discounts the closed ones by 0.375 → 0.5 at least.
        for _ in 0..390 {
            iv.add(false);
        }
        let p = iv.p();
        assert_eq!(iv.factor, 0.5);
        let want = (400.0 + 0.5 * 100.0 + 0.5 * 50.0) / 2.0;
        assert!((p - 1.0 / want).abs() < 1e-12, "{p} vs {}", 1.0 / want);
    }

    #[test]
    fn quick_start_requests_are_echoed() {
        let mut r = rx();
        let mut h = data(ms(0), 0, 0, true);
        h.qs = QsOption::request(320_000.0);
        r.on_data(ms(400), 0, 1000, &h);
        assert_eq!(r.report(ms(400)).unwrap().qs, QsOption::request(320_000.0));
    }
}
