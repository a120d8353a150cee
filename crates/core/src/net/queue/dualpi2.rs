//! DualPI2, the DualQ Coupled AQM of RFC 9332 with a PI2 base AQM
//! (Appendix A, its pseudocode; Linux's `net/sched/sch_dualpi2.c` where
//! the RFC leaves a choice).
//!
//! - Classifier (§2.3): ECT(1) and CE PDUs wait in the L queue, Not-ECT
//!   and ECT(0) ones in the C queue; one `limit` holds both (App. A.1).
//! - Base AQM (App. A.1, PI2): every `tupdate` the base probability p'
//!   moves by `alpha * tupdate * (q - target) + beta * tupdate * (q - q_prev)`,
//!   q the sojourn time of the C queue's head, p' kept in [0, 1]. Classic
//!   PDUs are dropped (or, ECT(0) with `ecn`, marked) with p_C = p'^2;
//!   L PDUs are marked with max(native step, p_CL = min(k p', 1)).
//! - Native L AQM (App. A.2's step option, Linux's default): an L PDU that
//!   waited `step_thresh` or more is marked.
//! - Overload (§4.2.3, App. A.1; Linux `drop_overload`): once p_CL would
//!   exceed 1 (p_C above p_Cmax = 1/k^2), L PDUs are dropped with p_C like
//!   classic ones and the rest all marked, so an unresponsive L flow
//!   cannot starve the C queue of its share of drops.
//! - Drops and marks at dequeue (App. A.1, as Linux by default): the PDU's
//!   own sojourn is known then.
//! - Scheduler (§4.2.2): a weighted round robin between the queues while
//!   both hold PDUs, in bytes, as Linux's `c_protection`: the C queue is
//!   owed `c_protection` % of what leaves, L the rest; either alone is
//!   served at once.
//! - Timer: satcc's queues have none. The updates whose instants
//!   (multiples of `tupdate` from time zero) have passed run, in order,
//!   before each arrival or dequeue. Between two such events the queues do
//!   not change, so the C head's sojourn at each instant is known and the
//!   result is the one a timer would give. Over an idle gap, once p' and
//!   q_prev are zero the remaining updates change nothing and are skipped.

use super::fifo::Fifo;
use super::{Dequeued, Limit, Occupancy, QueueDiscipline, Verdict};
use crate::engine::stats::Histogram;
use crate::engine::{Check, ConfigError, Duration, RngStream, Time};
use crate::net::pdu::{ecn, Pdu};
use serde::{Deserialize, Serialize};

/// DualPI2's parameters in a scenario description
/// (`queue.type = "dualpi2"`).
#[derive(Copy, Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DualPi2Config {
    /// Both queues together: an arrival that does not fit is dropped.
    pub limit: Limit,
    /// The C queue's target sojourn time (App. A.1: 15 ms).
    pub target_ps: Duration,
    /// The PI update interval (App. A.1: 16 ms).
    pub tupdate_ps: Duration,
    /// Integral gain, in Hz (App. A.1: 0.16).
    pub alpha: f64,
    /// Proportional gain, in Hz (App. A.1: 3.2).
    pub beta: f64,
    /// Coupling factor k (App. A.1: 2).
    pub coupling: f64,
    /// L queue's native step: marks at this sojourn or more (1 ms).
    pub step_thresh_ps: Duration,
    /// The C queue's share under contention, in % (Linux: 10).
    pub c_protection: f64,
    /// Marks ECT(0) classic PDUs instead of dropping them (RFC 3168).
    pub ecn: bool,
}

impl Check for DualPi2Config {
    fn check(&self) -> Result<(), ConfigError> {
        if self.target_ps.ps() == 0 || self.tupdate_ps.ps() == 0 {
            return Err("queue: dualpi2's target and tupdate must be positive".into());
        }
        for (name, v) in [("alpha", self.alpha), ("beta", self.beta)] {
            if !(v.is_finite() && v >= 0.0) {
                return Err(format!("queue: dualpi2's {name} must be >= 0, got {v}").into());
            }
        }
        if !(self.coupling.is_finite() && self.coupling > 0.0) {
            return Err(format!(
                "queue: dualpi2's coupling must be positive, got {}",
                self.coupling
            )
            .into());
        }
        if !(0.0..=100.0).contains(&self.c_protection) {
            return Err(format!(
                "queue: dualpi2's c_protection is a percentage in [0, 100], got {}",
                self.c_protection
            )
            .into());
        }
        Ok(())
    }
}

/// Counts of what each queue's AQM did, and each queue's sojourn times.
#[derive(Clone, Debug, Default)]
pub(crate) struct SideStats {
    pub(crate) marks: u64,
    pub(crate) drops: u64,
    pub(crate) sojourn: Histogram,
}

/// A DualPI2 queue.
#[derive(Clone, Debug)]
pub struct DualPi2 {
    l: Fifo,
    c: Fifo,
    cfg: DualPi2Config,
    rng: RngStream,
    /// The base probability p'.
    p: f64,
    /// The C head's sojourn at the last update, in seconds.
    prevq: f64,
    next_update: Time,
    /// Scheduler credit, bytes × %: L goes while it is not negative.
    credit: f64,
    pub(crate) l_stats: SideStats,
    pub(crate) c_stats: SideStats,
}

impl DualPi2 {
    /// An empty DualPI2 queue drawing from `rng`.
    pub fn new(cfg: DualPi2Config, rng: RngStream) -> DualPi2 {
        DualPi2 {
            l: Fifo::new(),
            c: Fifo::new(),
            cfg,
            rng,
            p: 0.0,
            prevq: 0.0,
            next_update: Time::ZERO + cfg.tupdate_ps,
            credit: 0.0,
            l_stats: SideStats::default(),
            c_stats: SideStats::default(),
        }
    }

    /// The base probability p'.
    #[cfg(test)]
    pub(crate) fn base(&self) -> f64 {
        self.p
    }

    /// Classic drop/mark probability p_C = p'^2.
    pub(crate) fn p_c(&self) -> f64 {
        self.p * self.p
    }

    /// Coupled L marking probability p_CL = min(k p', 1).
    pub(crate) fn p_cl(&self) -> f64 {
        (self.cfg.coupling * self.p).min(1.0)
    }

    /// Overload (§4.2.3): p_CL would exceed 1.
    fn overloaded(&self) -> bool {
        self.cfg.coupling * self.p > 1.0
    }

    /// One PI2 update with the C head's sojourn `q` seconds (App. A.1).
    fn update(&mut self, q: f64) {
        let t = self.cfg.tupdate_ps.ps() as f64 * 1e-12;
        let target = self.cfg.target_ps.ps() as f64 * 1e-12;
        let step = self.cfg.alpha * t * (q - target) + self.cfg.beta * t * (q - self.prevq);
        self.p = (self.p + step).clamp(0.0, 1.0);
        self.prevq = q;
    }

    /// Runs every update whose instant is at or before `now`.
    fn catch_up(&mut self, now: Time) {
        let tu = self.cfg.tupdate_ps.ps();
        while self.next_update <= now {
            let t = self.next_update;
            let Some(head) = self.c.q.front() else {
                if self.p == 0.0 && self.prevq == 0.0 {
                    // Idle and settled: later updates are no-ops.
                    let n = (now.ps() - t.ps()) / tu + 1;
                    self.next_update = Time(t.ps() + n * tu);
                    return;
                }
                self.update(0.0);
                self.next_update = t + self.cfg.tupdate_ps;
                continue;
            };
            let q = t.since(head.enqueued).ps() as f64 * 1e-12;
            self.update(q);
            self.next_update = t + self.cfg.tupdate_ps;
        }
    }

    /// Draws against `p`, without a draw when the answer is certain.
    fn roll(&mut self, p: f64) -> bool {
        if p <= 0.0 {
            false
        } else if p >= 1.0 {
            true
        } else {
            self.rng.uniform() < p
        }
    }

    /// Whether the scheduler serves L next; None when both are empty.
    fn pick_l(&mut self) -> Option<bool> {
        match (self.l.len() > 0, self.c.len() > 0) {
            (false, false) => None,
            (true, false) => Some(true),
            (false, true) => Some(false),
            (true, true) => Some(self.credit >= 0.0),
        }
    }

    /// Books `bytes` leaving from L (`from_l`) or C in the WRR credit,
    /// only while the other queue waits too.
    fn charge(&mut self, from_l: bool, bytes: u32, contended: bool) {
        if !contended {
            return;
        }
        let wc = self.cfg.c_protection;
        if from_l {
            self.credit -= wc * f64::from(bytes);
        } else {
            self.credit += (100.0 - wc) * f64::from(bytes);
        }
    }

    fn mark(p: &mut Pdu, side: &mut SideStats, out: &mut Dequeued) {
        p.ecn = ecn::CE;
        side.marks += 1;
        out.marks += 1;
    }

    fn drop(p: Pdu, side: &mut SideStats, out: &mut Dequeued) {
        side.drops += 1;
        out.drops += 1;
        out.flows.push(p.flow);
    }

    /// The L head leaves: marked or (in overload) dropped; None if dropped.
    fn pop_l(&mut self, now: Time, out: &mut Dequeued) -> Option<Pdu> {
        let mut p = self.l.pop()?;
        let sojourn = now.since(p.enqueued);
        if self.overloaded() {
            if self.roll(self.p_c()) {
                DualPi2::drop(p, &mut self.l_stats, out);
                return None;
            }
            DualPi2::mark(&mut p, &mut self.l_stats, out);
        } else {
            let native = if sojourn >= self.cfg.step_thresh_ps {
                1.0
            } else {
                0.0
            };
            if self.roll(f64::max(native, self.p_cl())) {
                DualPi2::mark(&mut p, &mut self.l_stats, out);
            }
        }
        self.l_stats.sojourn.record(sojourn.ps());
        Some(p)
    }

    /// The C head leaves: dropped or marked with p_C; None if dropped.
    fn pop_c(&mut self, now: Time, out: &mut Dequeued) -> Option<Pdu> {
        let mut p = self.c.pop()?;
        if self.roll(self.p_c()) {
            if self.cfg.ecn && p.ecn == ecn::ECT0 {
                DualPi2::mark(&mut p, &mut self.c_stats, out);
            } else {
                DualPi2::drop(p, &mut self.c_stats, out);
                return None;
            }
        }
        self.c_stats.sojourn.record(now.since(p.enqueued).ps());
        Some(p)
    }
}

/// Whether `p` belongs in the L queue (§2.3: ECN field ECT(1) or CE).
fn is_l4s(p: &Pdu) -> bool {
    p.ecn & 1 == 1
}

impl QueueDiscipline for DualPi2 {
    fn admission(&self, p: &Pdu) -> Verdict {
        let packets = self.l.len() + self.c.len();
        let bytes = self.l.bytes + self.c.bytes;
        if self.cfg.limit.fits(packets, bytes, p.bytes) {
            Verdict::Queued
        } else {
            Verdict::DroppedFull
        }
    }

    fn push(&mut self, p: Pdu, now: Time) {
        self.catch_up(now);
        if is_l4s(&p) {
            self.l.push(p);
        } else {
            self.c.push(p);
        }
    }

    /// App. A.1 `dualpi2_dequeue`.
    fn pop(&mut self, now: Time, out: &mut Dequeued) -> Option<Pdu> {
        self.catch_up(now);
        loop {
            let from_l = self.pick_l()?;
            let contended = self.l.len() > 0 && self.c.len() > 0;
            let fifo = if from_l { &self.l } else { &self.c };
            let bytes = fifo.q.front().map_or(0, |p| p.bytes);
            self.charge(from_l, bytes, contended);
            let got = if from_l {
                self.pop_l(now, out)
            } else {
                self.pop_c(now, out)
            };
            if got.is_some() {
                return got;
            }
        }
    }
}

impl Occupancy for DualPi2 {
    fn packets(&self) -> u64 {
        self.l.len() + self.c.len()
    }

    fn packets_at(&self, level: usize) -> u64 {
        self.l.packets_at(level) + self.c.packets_at(level)
    }

    fn bytes(&self) -> u64 {
        self.l.bytes + self.c.bytes
    }

    fn for_each_waiting(&self, f: &mut dyn FnMut(&Pdu)) {
        self.l.for_each(f);
        self.c.for_each(f);
    }
}

#[cfg(test)]
mod tests;
