//! Random Early Detection: Floyd and Jacobson, "Random Early Detection
//! Gateways for Congestion Avoidance" (IEEE/ACM ToN 1993) §4 and its
//! count-based spacing of drops; gentle RED (Floyd, "Recommendation on
//! using the gentle_ variant of RED", 2000) between `max_th` and
//! 2 `max_th`; Adaptive RED (Floyd, Gummadi, Shenker 2001) adapting
//! `max_p` every 0.5 s. Where the papers are silent the model does what
//! ns-2.35's `queue/red.cc` does, since ns-2 is the reference it is
//! validated against (docs/queues.md lists each choice):
//!
//! - the average is updated at every arrival with the queue as it is
//!   before the arrival, the PDU in transmission not counted;
//! - after an idle period the average decays as if `m` packets of
//!   `mean_packet_bytes` had arrived to an empty queue, `m` being the
//!   idle time over their transmission time at the link's rate;
//! - nothing is dropped early while the instantaneous queue holds at
//!   most one unit (`qlen > 1`), and the first arrival after the average
//!   crosses `min_th` only restarts the count;
//! - the count rule is ns-2's `wait_` (its default): p_a = 0 while
//!   count·p_b < 1, p_b / (2 − count·p_b) up to 2, then 1, which spaces
//!   drops roughly uniformly between 1/p_b and 2/p_b arrivals;
//! - with `ecn` an ECN-capable PDU is marked instead of dropped while p_b
//!   is at most `max_p` (the linear part, as ns-2's `mark_p_` with its
//!   0.1 default); above it, in the gentle region, it is dropped;
//! - the queue is measured in the unit of its limit (ns-2's
//!   `queue_in_bytes_`), thresholds in that unit too; the drop
//!   probability is per PDU whatever its size (ns-2's `bytes_` off).

use super::fifo::Fifo;
use super::{mark_or_drop, Limit, OneFifo, QueueDiscipline, Verdict};
use crate::engine::stats::TimeAverage;
use crate::engine::{Check, ConfigError, Duration, Rate, RngStream, Time};
use crate::net::pdu::Pdu;
use serde::{Deserialize, Serialize};

/// Adaptive RED's period, bounds of `max_p` and increase step (Floyd,
/// Gummadi, Shenker 2001, Fig. 5: interval 0.5 s, max_p in [0.01, 0.5],
/// alpha = min(0.01, max_p / 4), beta = 0.9).
const ADAPT_INTERVAL: Duration = Duration(500_000_000_000);
const ADAPT_MAX_P: (f64, f64) = (0.01, 0.5);
const ADAPT_ALPHA: f64 = 0.01;
const ADAPT_BETA: f64 = 0.9;

/// RED's parameters in a scenario description (`queue.type = "red"`).
#[derive(Copy, Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RedConfig {
    /// Hard limit: an arrival that does not fit is dropped (overflow).
    pub limit: Limit,
    /// Below this average nothing is dropped early (in the limit's unit).
    pub min_th: f64,
    /// At this average the early-drop probability reaches `max_p`.
    pub max_th: f64,
    /// Weight of the average (default 0.002, Floyd and Jacobson §6).
    pub w_q: f64,
    /// Early-drop probability at `max_th` (default 0.1, ns-2's
    /// `linterm_` 10); Adaptive RED's starting value.
    pub max_p: f64,
    /// The probability rises from `max_p` to 1 between `max_th` and
    /// 2 `max_th` instead of jumping to 1 (default true, ns-2.35's).
    pub gentle: bool,
    /// Adaptive RED (default false).
    pub adaptive: bool,
    /// Marks ECN-capable PDUs instead of dropping them (default false).
    pub ecn: bool,
    /// Typical PDU size for the idle-time decay (default 500 B, ns-2's
    /// `mean_pktsize_`).
    pub mean_packet_bytes: u32,
}

impl Check for RedConfig {
    fn check(&self) -> Result<(), ConfigError> {
        let limit = match self.limit {
            Limit::Packets(n) | Limit::Bytes(n) => n as f64,
        };
        if !(self.min_th >= 0.0 && self.min_th < self.max_th && self.max_th <= limit) {
            return Err("queue: red needs 0 <= min_th < max_th <= limit".into());
        }
        if !(self.w_q > 0.0 && self.w_q <= 1.0) {
            return Err("queue: red's w_q is in (0, 1]".into());
        }
        if !(self.max_p > 0.0 && self.max_p <= 1.0) {
            return Err("queue: red's max_p is in (0, 1]".into());
        }
        if self.mean_packet_bytes == 0 {
            return Err("queue: red's mean_packet_bytes must be positive".into());
        }
        Ok(())
    }
}

/// A RED queue: a FIFO with the average, count and adapted `max_p`.
#[derive(Clone, Debug)]
pub struct Red {
    fifo: Fifo,
    cfg: RedConfig,
    /// The average queue, in the limit's unit.
    avg: f64,
    /// Arrivals since the last early drop or mark (ns-2's `count`).
    count: u64,
    /// The average was at or above `min_th` at the previous arrival.
    above_min: bool,
    /// The current `max_p` (changes only with `adaptive`).
    max_p: f64,
    last_adapt: Time,
    rng: RngStream,
    /// The average over time, for the summary (`red_avg_mean`).
    pub(crate) avg_over_time: TimeAverage,
}

impl Red {
    /// An empty RED queue drawing its decisions from `rng`.
    pub fn new(cfg: RedConfig, rng: RngStream) -> Red {
        Red {
            fifo: Fifo::new(),
            cfg,
            avg: 0.0,
            count: 0,
            above_min: false,
            max_p: cfg.max_p,
            last_adapt: Time::ZERO,
            rng,
            avg_over_time: TimeAverage::default(),
        }
    }

    /// The current average queue.
    pub(crate) fn avg(&self) -> f64 {
        self.avg
    }

    /// The current (possibly adapted) `max_p`.
    pub(crate) fn max_p(&self) -> f64 {
        self.max_p
    }

    fn occupancy(&self) -> f64 {
        match self.cfg.limit {
            Limit::Packets(_) => self.fifo.len() as f64,
            Limit::Bytes(_) => self.fifo.bytes as f64,
        }
    }

    /// Decides on arriving `p` at `now`: `idle` is how long the link has
    /// been idle with an empty queue, and its rate, if it is.
    pub(crate) fn admit(
        &mut self,
        p: &mut Pdu,
        now: Time,
        idle: Option<(Duration, Rate)>,
    ) -> Verdict {
        // Idle means nothing in transmission and nothing waiting (a link
        // at zero capacity holds its queue without transmitting).
        let idle = idle.filter(|_| self.fifo.len() == 0);
        let m = idle.map_or(0.0, |(d, rate)| {
            (d.as_secs_f64() * rate.bps / (8.0 * f64::from(self.cfg.mean_packet_bytes))).floor()
        });
        let q = self.occupancy();
        let keep = 1.0 - self.cfg.w_q;
        self.avg = self.avg * keep.powf(m) * keep + self.cfg.w_q * q;
        self.avg_over_time.set(now.ps(), self.avg);
        if self.cfg.adaptive && now > self.last_adapt + ADAPT_INTERVAL {
            self.adapt(now);
        }
        self.count += 1;
        let mut verdict = Verdict::Queued;
        if self.avg >= self.cfg.min_th && q > 1.0 {
            if !self.above_min {
                self.count = 1;
                self.above_min = true;
            } else {
                let p_b = self.p_b();
                if self.rng.uniform() <= self.spaced(p_b) {
                    self.count = 0;
                    verdict = mark_or_drop(p, self.cfg.ecn && p_b <= self.max_p);
                }
            }
        } else {
            self.above_min = false;
        }
        if verdict.admitted() && !self.fifo.fits(self.cfg.limit, p.bytes) {
            self.count = 0;
            return Verdict::DroppedFull;
        }
        verdict
    }

    /// The initial drop probability p_b at the current average (§4;
    /// gentle: linear from `max_p` to 1 between `max_th` and 2 `max_th`).
    fn p_b(&self) -> f64 {
        let (min, max, avg) = (self.cfg.min_th, self.cfg.max_th, self.avg);
        let p = if avg < max {
            self.max_p * (avg - min) / (max - min)
        } else if self.cfg.gentle {
            self.max_p + (1.0 - self.max_p) * (avg - max) / max
        } else {
            1.0
        };
        p.min(1.0)
    }

    /// p_a: p_b spread by the count since the last drop (ns-2's `wait_`).
    fn spaced(&self, p_b: f64) -> f64 {
        let c = self.count as f64 * p_b;
        if c < 1.0 {
            0.0
        } else if c < 2.0 {
            p_b / (2.0 - c)
        } else {
            1.0
        }
    }

    /// Adaptive RED: `max_p` down by `beta` below 40 % of the way from
    /// `min_th` to `max_th`, up by `alpha` above 60 %.
    fn adapt(&mut self, now: Time) {
        let part = 0.4 * (self.cfg.max_th - self.cfg.min_th);
        if self.avg < self.cfg.min_th + part && self.max_p > ADAPT_MAX_P.0 {
            self.max_p *= ADAPT_BETA;
            self.last_adapt = now;
        } else if self.avg > self.cfg.max_th - part && self.max_p < ADAPT_MAX_P.1 {
            self.max_p += ADAPT_ALPHA.min(self.max_p / 4.0);
            self.last_adapt = now;
        }
    }
}

impl QueueDiscipline for Red {
    /// Whether the limit would take `p` (the early decision is random and
    /// is made only by `admit`).
    fn admission(&self, p: &Pdu) -> Verdict {
        self.fifo.admit_under(self.cfg.limit, p.bytes)
    }

    fn push(&mut self, p: Pdu, _now: Time) {
        self.fifo.push(p);
    }

    fn pop(&mut self, _now: Time, _out: &mut super::Dequeued) -> Option<Pdu> {
        self.fifo.pop()
    }
}

impl OneFifo for Red {
    fn fifo(&self) -> &Fifo {
        &self.fifo
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::pdu::ecn;

    fn cfg() -> RedConfig {
        RedConfig {
            limit: Limit::Packets(100),
            min_th: 5.0,
            max_th: 15.0,
            w_q: 0.002,
            max_p: 0.1,
            gentle: true,
            adaptive: false,
            ecn: false,
            mean_packet_bytes: 500,
        }
    }

    fn pdu(e: u8) -> Pdu {
        Pdu {
            bytes: 1000,
            ecn: e,
            ..Pdu::default()
        }
    }

    fn red_with_avg(c: RedConfig, avg: f64, queued: u64) -> Red {
        let mut r = Red::new(c, RngStream::new(1, "t"));
        for _ in 0..queued {
            r.push(pdu(0), Time::ZERO);
        }
        r.avg = avg;
        r.above_min = true;
        r
    }

    #[test]
    fn p_b_is_linear_then_gentle() {
        let r = red_with_avg(cfg(), 10.0, 0);
        assert!((r.p_b() - 0.05).abs() < 1e-12);
        let r = red_with_avg(cfg(), 22.5, 0);
        assert!((r.p_b() - 0.55).abs() < 1e-12);
        let r = red_with_avg(cfg(), 30.0, 0);
        assert_eq!(r.p_b(), 1.0);
        let r = red_with_avg(
            RedConfig {
                gentle: false,
                ..cfg()
            },
            15.0,
            0,
        );
        assert_eq!(r.p_b(), 1.0);
    }

    #[test]
    fn the_average_follows_an_ewma_and_decays_when_idle() {
        let mut r = red_with_avg(cfg(), 0.0, 10);
        r.admit(&mut pdu(0), Time::ZERO, None);
        assert!((r.avg - 0.02).abs() < 1e-12);
        // Idle 8 ms at 1 Mb/s: 2 packets of 500 B, (1 - w)^2 then one sample of 0.
        let mut r = red_with_avg(cfg(), 10.0, 0);
        let idle = (Duration::from_secs_f64(0.008), Rate::from_bps(1e6));
        r.admit(&mut pdu(0), Time::ZERO, Some(idle));
        assert!((r.avg - 10.0 * 0.998f64.powi(3)).abs() < 1e-9);
    }

    #[test]
    fn drops_are_spaced_between_1_and_2_over_p_b() {
        // avg held at 10 (p_b 0.05) by w_q tiny: gaps are 20..40 arrivals.
        let c = RedConfig {
            w_q: 1e-12,
            ..cfg()
        };
        let mut r = red_with_avg(c, 10.0, 20);
        let mut gaps = Vec::new();
        let mut since = 0;
        for _ in 0..20_000 {
            since += 1;
            if r.admit(&mut pdu(0), Time::ZERO, None) == Verdict::DroppedEarly {
                gaps.push(since);
                since = 0;
            }
        }
        assert!(gaps.len() > 400, "{}", gaps.len());
        assert!(
            gaps.iter().skip(1).all(|&g| (20..=40).contains(&g)),
            "{gaps:?}"
        );
        let mean = gaps.iter().sum::<u64>() as f64 / gaps.len() as f64;
        // Uniform over 20..40 has mean ≈ 30 (1.5 / p_b).
        assert!((mean - 30.0).abs() < 1.5, "{mean}");
    }

    #[test]
    fn ecn_marks_capable_pdus_and_drops_the_others() {
        let c = RedConfig {
            ecn: true,
            w_q: 1e-12,
            ..cfg()
        };
        let mut r = red_with_avg(c, 14.0, 20);
        let (mut marked, mut dropped) = (0, 0);
        for i in 0..2000 {
            let mut p = pdu(if i % 2 == 0 { ecn::ECT0 } else { ecn::NOT_ECT });
            match r.admit(&mut p, Time::ZERO, None) {
                Verdict::Marked => {
                    assert_eq!(p.ecn, ecn::CE);
                    marked += 1
                }
                Verdict::DroppedEarly => {
                    assert_eq!(p.ecn, ecn::NOT_ECT);
                    dropped += 1
                }
                _ => {}
            }
        }
        assert!(marked > 20 && dropped > 20, "{marked} {dropped}");
        // In the gentle region ECN-capable PDUs are dropped too.
        let mut r = red_with_avg(c, 25.0, 20);
        let early: Vec<_> = (0..200)
            .map(|_| r.admit(&mut pdu(ecn::ECT0), Time::ZERO, None))
            .filter(|v| *v != Verdict::Queued)
            .collect();
        assert!(!early.is_empty() && early.iter().all(|v| *v == Verdict::DroppedEarly));
    }

    #[test]
    fn a_full_queue_overflows_whatever_the_average() {
        let c = RedConfig {
            limit: Limit::Packets(20),
            max_th: 20.0,
            ..cfg()
        };
        let mut r = red_with_avg(c, 0.0, 20);
        assert_eq!(r.admit(&mut pdu(0), Time::ZERO, None), Verdict::DroppedFull);
    }

    #[test]
    fn adaptive_raises_max_p_above_the_target_band_and_lowers_it_below() {
        let c = RedConfig {
            adaptive: true,
            w_q: 1e-12,
            ..cfg()
        };
        let mut r = red_with_avg(c, 14.0, 0);
        r.admit(&mut pdu(0), Time::from_secs_f64(0.6), None);
        assert!((r.max_p - 0.11).abs() < 1e-12);
        let mut r = red_with_avg(c, 6.0, 0);
        r.admit(&mut pdu(0), Time::from_secs_f64(0.6), None);
        assert!((r.max_p - 0.09).abs() < 1e-12);
        // Not again within 0.5 s.
        r.admit(&mut pdu(0), Time::from_secs_f64(0.9), None);
        assert!((r.max_p - 0.09).abs() < 1e-12);
    }
}
