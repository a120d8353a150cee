//! PIE, Proportional Integral controller Enhanced (RFC 8033): a FIFO that
//! drops (or, with `ecn`, marks) arrivals at random with a probability a
//! PI controller moves every `tupdate` towards holding the queueing delay
//! at `target`:
//!
//! - §4.2: p += alpha (qdelay − target) + beta (qdelay − qdelay_old), alpha
//!   and beta divided by 2048, 512, 128, 32, 8 or 2 while p is below 1e-6,
//!   1e-5, 1e-4, 1e-3, 1e-2 or 0.1 (the auto-tuning); p decays by 0.98 per
//!   update while both delays are 0; p is kept in [0, 1];
//! - §5.5: above p = 10 % an update raises p by at most 2 %;
//! - §4.3: the delay estimate is the sojourn time of the last PDU to leave,
//!   0 once the queue has emptied (timestamps, as Linux's `sch_pie` does
//!   by default; the departure-rate estimate of §5.2 is not modelled);
//! - §4.4: no early drop while the burst allowance (`max_burst`, used up
//!   by `tupdate` at each update) lasts; it is restored when p is 0 and
//!   both delays are below target/2;
//! - §4.1: no early drop while the last update's delay is below target/2
//!   and p below 20 %, nor while at most two maximum-size PDUs wait (the
//!   largest PDU seen stands for the MTU, as in CoDel's model);
//! - §5.4 (`derandomize`): the probabilities of the arrivals since the
//!   last drop are summed; below 0.85 nothing is dropped, from 8.5 the
//!   arrival is, between the two a draw decides;
//! - §5.1 (`ecn`): an ECN-capable PDU is marked instead of dropped while
//!   p is at most `mark_ecnth`.
//!
//! A queue has no timer of its own here: the updates run lazily, each at
//! its instant k·`tupdate`, before the arrival or departure that first
//! follows it. Between two such events the queue does not change, so the
//! delay estimate an update reads is the one valid at its instant (0 for
//! every instant of an idle spell). A spell at rest (p, both delays and
//! the allowance as after many idle updates) is skipped in one step.

use super::fifo::Fifo;
use super::{mark_or_drop, Dequeued, Limit, OneFifo, QueueDiscipline, Verdict};
use crate::engine::stats::TimeAverage;
use crate::engine::{Check, ConfigError, Duration, RngStream, Time};
use crate::net::pdu::Pdu;
use serde::{Deserialize, Serialize};

/// §4.2's auto-tuning: below each bound of p, alpha and beta are divided
/// by the factor beside it.
const AUTO_TUNE: [(f64, f64); 6] = [
    (0.000_001, 2048.0),
    (0.000_01, 512.0),
    (0.000_1, 128.0),
    (0.001, 32.0),
    (0.01, 8.0),
    (0.1, 2.0),
];
/// §5.5: above this p an update adds at most `MAX_STEP`.
const CAP_ABOVE: f64 = 0.1;
const MAX_STEP: f64 = 0.02;
/// §4.2: the decay of p per update while the queue stays empty.
const DECAY: f64 = 0.98;
/// §4.1: below target/2, early drops wait until p reaches this.
const SAFE_PROB: f64 = 0.2;
/// §5.4: bounds of the accumulated probability.
const ACCU_LOW: f64 = 0.85;
const ACCU_HIGH: f64 = 8.5;

/// PIE's parameters in a scenario description (`queue.type = "pie"`).
#[derive(Copy, Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PieConfig {
    /// Hard limit: an arrival that does not fit is dropped (overflow).
    pub limit: Limit,
    /// Queueing delay the controller holds (§5.1 `QDELAY_REF`: 15 ms).
    pub target_ps: Duration,
    /// Period of the probability update (§5.1 `T_UPDATE`: 15 ms).
    pub tupdate_ps: Duration,
    /// Weight of the delay's distance from target, per second (0.125).
    pub alpha: f64,
    /// Weight of the delay's change since the last update, per second
    /// (1.25).
    pub beta: f64,
    /// Burst allowance (§4.4 `MAX_BURST`: 150 ms).
    pub max_burst_ps: Duration,
    /// Marks ECN-capable PDUs instead of dropping them (§5.1).
    pub ecn: bool,
    /// Above this p ECN-capable PDUs are dropped too (§5.1: 10 %).
    pub mark_ecnth: f64,
    /// §5.4's derandomization (default on, as Linux's `sch_pie`).
    pub derandomize: bool,
}

impl Check for PieConfig {
    fn check(&self) -> Result<(), ConfigError> {
        if matches!(self.limit, Limit::Packets(0) | Limit::Bytes(0)) {
            return Err("queue: pie's limit must be positive".into());
        }
        if self.target_ps.ps() == 0 || self.tupdate_ps.ps() == 0 {
            return Err("queue: pie's target and tupdate must be positive".into());
        }
        if !(self.alpha >= 0.0
            && self.alpha.is_finite()
            && self.beta >= 0.0
            && self.beta.is_finite())
        {
            return Err("queue: pie's alpha and beta must be finite and >= 0".into());
        }
        if !(0.0..=1.0).contains(&self.mark_ecnth) {
            return Err("queue: pie's mark_ecnth is in [0, 1]".into());
        }
        Ok(())
    }
}

/// A PIE queue.
#[derive(Clone, Debug)]
pub struct Pie {
    fifo: Fifo,
    cfg: PieConfig,
    rng: RngStream,
    /// The drop probability p.
    prob: f64,
    /// The delay estimate now: the last departure's sojourn time, or 0.
    qdelay: Duration,
    /// The estimate at the last update.
    qdelay_old: Duration,
    /// What is left of the burst allowance.
    burst: Duration,
    /// §5.4's accumulated probability.
    accu_prob: f64,
    /// The instant of the next update.
    next_update: Time,
    /// The largest PDU seen: two of these waiting are never too many.
    max_packet: u64,
    /// Updates run so far.
    pub(crate) updates: u64,
    /// p over time, for the summary (`pie_prob_mean`).
    pub(crate) prob_over_time: TimeAverage,
}

impl Pie {
    /// An empty PIE queue drawing its decisions from `rng`.
    pub fn new(cfg: PieConfig, rng: RngStream) -> Pie {
        Pie {
            fifo: Fifo::new(),
            cfg,
            rng,
            prob: 0.0,
            qdelay: Duration::ZERO,
            qdelay_old: Duration::ZERO,
            burst: cfg.max_burst_ps,
            accu_prob: 0.0,
            next_update: Time::ZERO + cfg.tupdate_ps,
            max_packet: 0,
            updates: 0,
            prob_over_time: TimeAverage::default(),
        }
    }

    /// Decides on arriving `p` at `now` (RFC 8033 §4.1, §5.1).
    pub(crate) fn admit(&mut self, p: &mut Pdu, now: Time) -> Verdict {
        self.catch_up(now);
        self.max_packet = self.max_packet.max(u64::from(p.bytes));
        if !self.fifo.fits(self.cfg.limit, p.bytes) {
            self.accu_prob = 0.0;
            return Verdict::DroppedFull;
        }
        if !self.drop_early() {
            return Verdict::Queued;
        }
        self.accu_prob = 0.0;
        mark_or_drop(p, self.cfg.ecn && self.prob <= self.cfg.mark_ecnth)
    }

    /// Runs every update whose instant is at or before `now`, in order.
    fn catch_up(&mut self, now: Time) {
        let period = self.cfg.tupdate_ps.ps();
        while self.next_update <= now {
            if self.at_rest() {
                // Every update left would change nothing: skip to the last.
                let left = (now.ps() - self.next_update.ps()) / period;
                self.updates += left;
                self.next_update = Time(self.next_update.ps() + left * period);
            }
            let at = self.next_update;
            self.update(self.qdelay);
            self.prob_over_time.set(at.ps(), self.prob);
            self.next_update = Time(at.ps() + period);
        }
    }

    /// Whether an update would leave the state as it is: nothing queued
    /// or measured, p at 0 and the allowance whole.
    fn at_rest(&self) -> bool {
        self.prob == 0.0
            && self.qdelay == Duration::ZERO
            && self.qdelay_old == Duration::ZERO
            && self.burst == self.cfg.max_burst_ps
    }

    /// One update of p from the delay estimate `qdelay` (§4.2, §4.4, §5.5).
    fn update(&mut self, qdelay: Duration) {
        self.updates += 1;
        let (alpha, beta) = self.tuned();
        let target = self.cfg.target_ps.as_secs_f64();
        let (now_s, old_s) = (qdelay.as_secs_f64(), self.qdelay_old.as_secs_f64());
        let mut delta = alpha * (now_s - target) + beta * (now_s - old_s);
        if self.prob >= CAP_ABOVE && delta > MAX_STEP {
            delta = MAX_STEP;
        }
        self.prob += delta;
        if qdelay == Duration::ZERO && self.qdelay_old == Duration::ZERO {
            self.prob *= DECAY;
        }
        self.prob = self.prob.clamp(0.0, 1.0);
        self.burst = Duration(self.burst.ps().saturating_sub(self.cfg.tupdate_ps.ps()));
        let half = self.cfg.target_ps.ps() / 2;
        if self.prob == 0.0 && qdelay.ps() < half && self.qdelay_old.ps() < half {
            self.burst = self.cfg.max_burst_ps;
        }
        self.qdelay_old = qdelay;
    }

    /// alpha and beta, scaled down while p is small (§4.2).
    fn tuned(&self) -> (f64, f64) {
        let f = AUTO_TUNE
            .iter()
            .find(|(below, _)| self.prob < *below)
            .map_or(1.0, |(_, f)| *f);
        (self.cfg.alpha / f, self.cfg.beta / f)
    }

    /// §4.1 and §5.4: whether the arrival is to be dropped (or marked).
    fn drop_early(&mut self) -> bool {
        if self.burst > Duration::ZERO {
            return false;
        }
        let half = self.cfg.target_ps.ps() / 2;
        if self.qdelay_old.ps() < half && self.prob < SAFE_PROB {
            return false;
        }
        if self.fifo.bytes <= 2 * self.max_packet {
            return false;
        }
        if self.cfg.derandomize {
            if self.prob == 0.0 {
                self.accu_prob = 0.0;
            }
            self.accu_prob += self.prob;
            if self.accu_prob < ACCU_LOW {
                return false;
            }
            if self.accu_prob >= ACCU_HIGH {
                return true;
            }
        }
        self.rng.uniform() < self.prob
    }
}

impl QueueDiscipline for Pie {
    /// Whether the limit would take `p` (the early decision is random and
    /// is made only by `admit`).
    fn admission(&self, p: &Pdu) -> Verdict {
        self.fifo.admit_under(self.cfg.limit, p.bytes)
    }

    fn push(&mut self, p: Pdu, _now: Time) {
        self.fifo.push(p);
    }

    /// The head, its sojourn time now the delay estimate (§4.3).
    fn pop(&mut self, now: Time, _out: &mut Dequeued) -> Option<Pdu> {
        self.catch_up(now);
        let p = self.fifo.pop();
        self.qdelay = match &p {
            Some(p) if self.fifo.len() > 0 => now.since(p.enqueued),
            _ => Duration::ZERO,
        };
        p
    }
}

impl OneFifo for Pie {
    fn fifo(&self) -> &Fifo {
        &self.fifo
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::pdu::ecn;

    const MS: u64 = 1_000_000_000;

    fn cfg() -> PieConfig {
        PieConfig {
            limit: Limit::Packets(1000),
            target_ps: Duration::from_millis(15),
            tupdate_ps: Duration::from_millis(15),
            alpha: 0.125,
            beta: 1.25,
            max_burst_ps: Duration::from_millis(150),
            ecn: false,
            mark_ecnth: 0.1,
            derandomize: true,
        }
    }

    fn pie(c: PieConfig) -> Pie {
        Pie::new(c, RngStream::new(1, "t"))
    }

    fn pdu(e: u8) -> Pdu {
        Pdu {
            bytes: 1000,
            ecn: e,
            ..Pdu::default()
        }
    }

    fn ms(x: f64) -> Duration {
        Duration::from_secs_f64(x / 1000.0)
    }

    /// p after one update from `p` with delays `now` and `old` (ms).
    fn one_update(p: f64, now: f64, old: f64) -> f64 {
        let mut q = pie(cfg());
        q.prob = p;
        q.qdelay_old = ms(old);
        q.update(ms(now));
        q.prob
    }

    #[test]
    fn one_update_follows_the_rfc_arithmetic() {
        // p = 5 %: alpha, beta halved; 0.0625 * 0.005 + 0.625 * 0.010.
        let p = one_update(0.05, 20.0, 10.0);
        assert!((p - (0.05 + 0.000_312_5 + 0.006_25)).abs() < 1e-12, "{p}");
        // p = 50 %: unscaled, and below target p falls.
        let p = one_update(0.5, 5.0, 5.0);
        assert!((p - (0.5 - 0.125 * 0.010)).abs() < 1e-12, "{p}");
    }

    #[test]
    fn alpha_and_beta_are_scaled_by_the_size_of_p() {
        // With qdelay = old = target + 8 ms, delta = alpha * 0.008 / factor.
        for (p, factor) in [
            (0.0, 2048.0),
            (5e-7, 2048.0),
            (5e-6, 512.0),
            (5e-5, 128.0),
            (5e-4, 32.0),
            (5e-3, 8.0),
            (0.05, 2.0),
            (0.1, 1.0),
            (0.5, 1.0),
        ] {
            let got = one_update(p, 23.0, 23.0) - p;
            let want = 0.125 * 0.008 / factor;
            assert!((got - want).abs() < 1e-15, "p {p}: {got} vs {want}");
        }
    }

    #[test]
    fn above_ten_percent_an_update_adds_at_most_two_percent() {
        // Unscaled delta: 0.125 * 0.085 + 1.25 * 0.085 = 0.116875.
        assert!((one_update(0.15, 100.0, 15.0) - 0.17).abs() < 1e-12);
        // Just below 10 % the step is whole (scaled by 2: 0.0584375).
        let p = one_update(0.099, 100.0, 15.0);
        assert!((p - (0.099 + 0.058_437_5)).abs() < 1e-12, "{p}");
        // Decreases are never capped.
        let p = one_update(0.5, 0.0, 100.0);
        assert!(
            (p - (0.5 - 0.125 * 0.015 - 1.25 * 0.1)).abs() < 1e-12,
            "{p}"
        );
    }

    #[test]
    fn an_idle_queue_decays_p_once_per_update_instant() {
        // p = 0.5, idle from 0: each update adds -alpha * target then
        // multiplies by 0.98; 10 instants pass before t = 155 ms.
        let mut q = pie(cfg());
        q.prob = 0.5;
        q.burst = Duration::ZERO;
        q.admit(&mut pdu(0), Time(155 * MS));
        let mut want = 0.5;
        for _ in 0..10 {
            want = (want - 0.125 * 0.015) * DECAY;
        }
        assert_eq!(q.updates, 10);
        assert!((q.prob - want).abs() < 1e-12, "{} vs {want}", q.prob);
        // The next instant is 165 ms: nothing more at 164 ms, one at 165.
        q.admit(&mut pdu(0), Time(164 * MS));
        assert_eq!(q.updates, 10);
        q.admit(&mut pdu(0), Time(165 * MS));
        assert_eq!(q.updates, 11);
    }

    #[test]
    fn a_long_rest_is_skipped_but_counted() {
        let mut q = pie(cfg());
        q.admit(&mut pdu(0), Time(3_600_000 * MS));
        assert_eq!(q.updates, 240_000);
        assert_eq!(q.prob, 0.0);
    }

    #[test]
    fn updates_read_the_delay_valid_at_their_instant() {
        // A PDU left at 10 ms after 40 ms queued, others still waiting:
        // the update at 15 ms reads 40 ms. The queue empties at 20 ms, so
        // the one at 30 ms reads 0.
        let mut q = pie(cfg());
        for _ in 0..3 {
            q.push(pdu(0), Time::ZERO);
        }
        q.fifo.q.iter_mut().for_each(|p| p.enqueued = Time::ZERO);
        let mut out = Dequeued::default();
        q.pop(Time(40 * MS), &mut out);
        assert_eq!(q.qdelay, ms(40.0));
        q.pop(Time(41 * MS), &mut out);
        q.admit(&mut pdu(0), Time(45 * MS));
        // Instants 15, 30 read 0 (nothing had left), 45 reads 41 ms.
        assert_eq!(q.updates, 3);
        assert_eq!(q.qdelay_old, ms(41.0));
        q.pop(Time(50 * MS), &mut out);
        q.pop(Time(51 * MS), &mut out);
        assert_eq!(q.qdelay, Duration::ZERO);
        q.admit(&mut pdu(0), Time(60 * MS));
        assert_eq!(q.qdelay_old, Duration::ZERO);
    }

    /// A queue with `n` PDUs waiting, p and the delays set, no allowance.
    fn loaded(c: PieConfig, p: f64, qdelay_ms: f64, n: usize) -> Pie {
        let mut q = pie(c);
        for _ in 0..n {
            q.push(pdu(0), Time::ZERO);
        }
        q.max_packet = 1000;
        q.prob = p;
        q.qdelay = ms(qdelay_ms);
        q.qdelay_old = ms(qdelay_ms);
        q.burst = Duration::ZERO;
        q
    }

    /// Early verdicts among `n` arrivals at time 0 (no update runs).
    fn early(q: &mut Pie, n: usize, e: u8) -> (usize, usize) {
        let (mut marked, mut dropped) = (0, 0);
        for _ in 0..n {
            match q.admit(&mut pdu(e), Time::ZERO) {
                Verdict::Marked => marked += 1,
                Verdict::DroppedEarly => dropped += 1,
                _ => {}
            }
        }
        (marked, dropped)
    }

    #[test]
    fn nothing_is_dropped_while_the_burst_allowance_lasts() {
        // The allowance is 150 ms: ten updates at a 100 ms delay use it
        // up; only then may an arrival be dropped, p at 30 % or not.
        let c = PieConfig {
            limit: Limit::Packets(5000),
            ..cfg()
        };
        let mut q = loaded(c, 0.3, 100.0, 50);
        q.burst = c.max_burst_ps;
        let mut dropped_at = None;
        for k in 1..=1000u64 {
            let v = q.admit(&mut pdu(0), Time(k * MS));
            if v == Verdict::DroppedEarly && dropped_at.is_none() {
                dropped_at = Some(k);
            }
            if v == Verdict::Queued {
                q.push(pdu(0), Time(k * MS));
            }
        }
        assert!(dropped_at.is_some_and(|k| k >= 150), "{dropped_at:?}");
        // Without the allowance the same queue drops earlier.
        let mut q = loaded(c, 0.3, 100.0, 50);
        let first =
            (1..=1000u64).find(|&k| q.admit(&mut pdu(0), Time(k * MS)) == Verdict::DroppedEarly);
        assert!(first.is_some_and(|k| k < 150), "{first:?}");
    }

    #[test]
    fn the_allowance_is_restored_once_congestion_has_gone() {
        // p stays 0 at a steady 5 ms: the allowance is whole again.
        let mut q = pie(cfg());
        q.burst = Duration::ZERO;
        q.qdelay_old = ms(5.0);
        q.update(ms(5.0));
        assert_eq!(q.burst, cfg().max_burst_ps);
        // Not while p is above 0, nor with a delay at target/2.
        let mut q = pie(cfg());
        q.burst = Duration::ZERO;
        q.qdelay_old = ms(5.0);
        q.prob = 0.01;
        q.update(ms(5.0));
        assert!(q.prob > 0.0 && q.burst == Duration::ZERO);
        let mut q = pie(cfg());
        q.burst = Duration::ZERO;
        q.qdelay_old = ms(7.5);
        q.update(ms(7.5));
        assert!(q.prob == 0.0 && q.burst == Duration::ZERO);
    }

    #[test]
    fn the_safeguards_keep_a_short_or_calm_queue_whole() {
        // Delay below target/2 and p < 20 %: no early drop.
        let mut q = loaded(cfg(), 0.19, 7.0, 50);
        assert_eq!(early(&mut q, 1000, 0), (0, 0));
        // At 20 % the same queue drops (about one arrival in 9).
        let mut q = loaded(cfg(), 0.2, 7.0, 50);
        assert!(early(&mut q, 1000, 0).1 > 60);
        // Two MTU-sized PDUs waiting: no early drop, whatever p.
        let mut q = loaded(cfg(), 0.9, 100.0, 2);
        assert_eq!(early(&mut q, 1000, 0), (0, 0));
        let mut q = loaded(cfg(), 0.9, 100.0, 3);
        assert!(early(&mut q, 1000, 0).1 > 500);
    }

    #[test]
    fn derandomization_spaces_drops_by_the_accumulated_probability() {
        // p = 0.1: no drop before 9 arrivals (0.9 >= 0.85), always one by
        // the 85th (8.5); with derandomize off gaps of 1 and 2 occur.
        let mut q = loaded(cfg(), 0.1, 30.0, 50);
        let mut gaps = Vec::new();
        let mut since = 0;
        for _ in 0..20_000 {
            since += 1;
            if q.admit(&mut pdu(0), Time::ZERO) == Verdict::DroppedEarly {
                gaps.push(since);
                since = 0;
            }
        }
        assert!(gaps.iter().all(|g| (9..=86).contains(g)), "{gaps:?}");
        let rate = gaps.len() as f64 / 20_000.0;
        // Gaps of 8 plus a geometric count of mean 10: rate about 1/18.
        assert!(rate > 0.045 && rate < 0.07, "{rate}");
        let c = PieConfig {
            derandomize: false,
            ..cfg()
        };
        let mut q = loaded(c, 0.1, 30.0, 50);
        let (_, dropped) = early(&mut q, 20_000, 0);
        let rate = dropped as f64 / 20_000.0;
        assert!((rate - 0.1).abs() < 0.01, "{rate}");
    }

    #[test]
    fn ecn_marks_up_to_mark_ecnth_and_drops_above() {
        let c = PieConfig { ecn: true, ..cfg() };
        let mut q = loaded(c, 0.1, 30.0, 50);
        let (marked, dropped) = early(&mut q, 5000, ecn::ECT0);
        assert!(marked > 200 && dropped == 0, "{marked} {dropped}");
        let (marked, dropped) = early(&mut q, 5000, ecn::NOT_ECT);
        assert!(marked == 0 && dropped > 200, "{marked} {dropped}");
        let mut q = loaded(c, 0.11, 30.0, 50);
        let (marked, dropped) = early(&mut q, 5000, ecn::ECT0);
        assert!(marked == 0 && dropped > 200, "{marked} {dropped}");
    }

    #[test]
    fn a_full_queue_overflows() {
        let c = PieConfig {
            limit: Limit::Packets(5),
            ..cfg()
        };
        let mut q = loaded(c, 0.0, 0.0, 5);
        assert_eq!(q.admit(&mut pdu(0), Time::ZERO), Verdict::DroppedFull);
    }

    #[test]
    fn bad_parameters_are_refused() {
        for c in [
            PieConfig {
                target_ps: Duration::ZERO,
                ..cfg()
            },
            PieConfig {
                tupdate_ps: Duration::ZERO,
                ..cfg()
            },
            PieConfig {
                alpha: -0.1,
                ..cfg()
            },
            PieConfig {
                beta: f64::NAN,
                ..cfg()
            },
            PieConfig {
                mark_ecnth: 1.5,
                ..cfg()
            },
            PieConfig {
                limit: Limit::Packets(0),
                ..cfg()
            },
        ] {
            assert!(c.check().is_err(), "{c:?}");
        }
        assert!(cfg().check().is_ok());
    }
}
