//! The leaky bucket of the proactive-atm thesis (sections 3.1 and 6.1.1):
//! a per-VC token pool of depth D, filled at the drain rate and starting
//! full, policing a connection's mean rate and burstiness. A cell that finds
//! a token leaves and takes it; one that finds none waits in a FIFO of L2
//! cells for the next token, and one that finds that queue full too is
//! discarded, or marked CLP = 1 and sent on: the arrival itself when L2 = 0,
//! else the head of the queue, the arrival taking its place (section 3.1
//! b).
//!
//! Tokens come in periodic steps (the thesis increments the count "at
//! periodic intervals dictated by the drain rate": one token per cell time
//! at the drain rate) or continuously; with continuous tokens and no queue
//! the bucket is exactly ITU-T I.371's GCRA(T, τ) with T = 1/drain and
//! τ = (D − 1)·T (checked in the tests).

use crate::engine::{Check, ConfigError, Duration, Time};
use crate::net::Pdu;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// What becomes of a cell no token will let through.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NonConforming {
    /// Discarded.
    Drop,
    /// Sent on with CLP = 1, to be discarded first further on.
    #[default]
    Mark,
}

/// A VC's leaky bucket (the proactive-atm thesis, sections 3.1 and 6.1.1):
/// the `drain_rate`, `bucket_depth`, `bucket_queue`, `non_conforming` and
/// `stepped_tokens` of a `cell_sources` contract.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LeakyBucketConfig {
    /// Tokens (cells) per second.
    pub drain_cells_per_s: f64,
    /// D, in tokens (cells).
    pub depth_cells: f64,
    /// L2: cells that may wait for a token.
    #[serde(default)]
    pub queue_cells: u32,
    /// What becomes of a cell no token lets through: marked CLP = 1 (the
    /// default) or dropped.
    #[serde(default)]
    pub non_conforming: NonConforming,
    /// Tokens in steps of one (the thesis) or as a continuous fluid.
    #[serde(default = "stepped")]
    pub stepped: bool,
}

fn stepped() -> bool {
    true
}

impl LeakyBucketConfig {
    /// One token's worth of time: a cell at the drain rate.
    pub(crate) fn token_time(&self) -> Duration {
        Duration::from_secs_f64(1.0 / self.drain_cells_per_s)
    }
}

impl Check for LeakyBucketConfig {
    fn check(&self) -> Result<(), ConfigError> {
        if !(self.drain_cells_per_s.is_finite() && self.drain_cells_per_s > 0.0) {
            return Err("the drain rate must be positive".into());
        }
        if !(self.depth_cells.is_finite() && self.depth_cells >= 1.0) {
            return Err("the bucket depth must be at least one cell".into());
        }
        Ok(())
    }
}

/// What became of a cell offered to the bucket.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum LbOutcome {
    /// It conforms and leaves now (with its CLP as it came).
    Depart(Pdu),
    Queued,
    /// It does not conform and is discarded: given back.
    Dropped(Pdu),
    /// A cell leaves now marked CLP = 1: the arrival (no queue) or the
    /// head of the queue (the arrival queued in its place).
    Marked(Pdu),
}

#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct LbStats {
    pub(crate) offered: u64,
    pub(crate) conforming: u64,
    pub(crate) marked: u64,
    pub(crate) dropped: u64,
}

#[derive(Clone, Debug)]
pub(crate) struct LeakyBucket {
    cfg: LeakyBucketConfig,
    token_ps: f64,
    /// Tokens in the pool at `updated`.
    tokens: f64,
    updated: Time,
    queue: VecDeque<Pdu>,
    pub stats: LbStats,
}

impl LeakyBucket {
    /// A full bucket at time zero.
    pub(crate) fn new(cfg: LeakyBucketConfig) -> LeakyBucket {
        LeakyBucket {
            token_ps: cfg.token_time().ps() as f64,
            tokens: cfg.depth_cells,
            updated: Time::ZERO,
            queue: VecDeque::new(),
            cfg,
            stats: LbStats::default(),
        }
    }

    /// Brings the pool up to `now`. Stepped tokens arrive at whole
    /// multiples of the token time (counted from zero), continuous ones
    /// flow in.
    fn refill(&mut self, now: Time) {
        if now <= self.updated {
            return;
        }
        let added = if self.cfg.stepped {
            let before = (self.updated.ps() as f64 / self.token_ps).floor();
            let after = (now.ps() as f64 / self.token_ps).floor();
            after - before
        } else {
            (now.ps() - self.updated.ps()) as f64 / self.token_ps
        };
        self.tokens = (self.tokens + added).min(self.cfg.depth_cells);
        self.updated = now;
    }

    fn take(&mut self) -> bool {
        // A rounding error below one whole token still counts as one.
        if self.tokens >= 1.0 - 1e-9 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }

    pub(crate) fn offer(&mut self, now: Time, cell: Pdu) -> LbOutcome {
        self.stats.offered += 1;
        self.refill(now);
        if self.queue.is_empty() && self.take() {
            self.stats.conforming += 1;
            return LbOutcome::Depart(cell);
        }
        if self.queue.len() < self.cfg.queue_cells as usize {
            self.queue.push_back(cell);
            return LbOutcome::Queued;
        }
        match self.cfg.non_conforming {
            NonConforming::Drop => {
                self.stats.dropped += 1;
                LbOutcome::Dropped(cell)
            }
            NonConforming::Mark => {
                let mut out = match self.queue.pop_front() {
                    Some(head) => {
                        self.queue.push_back(cell);
                        head
                    }
                    None => cell,
                };
                out.set_clp(1);
                self.stats.marked += 1;
                LbOutcome::Marked(out)
            }
        }
    }

    /// When the next token lets the head of the queue go.
    pub(crate) fn poll_at(&self) -> Time {
        if self.queue.is_empty() {
            return Time::NEVER;
        }
        let missing = (1.0 - self.tokens).max(0.0);
        if missing <= 1e-9 {
            return self.updated;
        }
        if self.cfg.stepped {
            let step = (self.updated.ps() as f64 / self.token_ps).floor() + 1.0;
            Time((step * self.token_ps).ceil() as u64)
        } else {
            Time(self.updated.ps() + (missing * self.token_ps).ceil() as u64)
        }
    }

    /// The head of the queue, if a token has come for it.
    pub(crate) fn poll(&mut self, now: Time) -> Option<Pdu> {
        if self.queue.is_empty() {
            return None;
        }
        self.refill(now);
        if self.take() {
            self.stats.conforming += 1;
            self.queue.pop_front()
        } else {
            None
        }
    }

    pub(crate) fn held(&self) -> impl Iterator<Item = &Pdu> {
        self.queue.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::RngStream;

    fn cell(seq: u64) -> Pdu {
        Pdu {
            bytes: 53,
            seq,
            ..Pdu::default()
        }
    }

    fn bucket(depth: f64, stepped: bool) -> LeakyBucket {
        LeakyBucket::new(LeakyBucketConfig {
            drain_cells_per_s: 391_000.0 / 384.0,
            depth_cells: depth,
            queue_cells: 0,
            non_conforming: NonConforming::Mark,
            stepped,
        })
    }

    /// ITU-T I.371's virtual scheduling algorithm: a cell at t conforms if
    /// t >= TAT - tau; then TAT = max(t, TAT) + T.
    struct Gcra {
        tat: f64,
        t: f64,
        tau: f64,
    }

    impl Gcra {
        fn conforms(&mut self, at: f64) -> bool {
            if at < self.tat - self.tau - 1e-3 {
                return false;
            }
            self.tat = self.tat.max(at) + self.t;
            true
        }
    }

    fn arrivals(seed: u64, n: usize, mean_gap: f64) -> Vec<u64> {
        let mut rng = RngStream::new(seed, "lb arrivals");
        let mut t = 0u64;
        (0..n)
            .map(|_| {
                // Bursts and gaps: half the cells back to back.
                if rng.bernoulli(0.5) {
                    t += 1;
                } else {
                    t += rng.exp(mean_gap) as u64;
                }
                t
            })
            .collect()
    }

    fn verdicts(b: &mut LeakyBucket, times: &[u64]) -> Vec<bool> {
        times
            .iter()
            .enumerate()
            .map(|(i, &t)| matches!(b.offer(Time(t), cell(i as u64)), LbOutcome::Depart(_)))
            .collect()
    }

    #[test]
    fn continuous_tokens_are_exactly_the_gcra() {
        for (seed, depth) in [(1, 1.0), (2, 4.0), (3, 37.5), (4, 200.0)] {
            let mut b = bucket(depth, false);
            let t = b.token_ps;
            let mut gcra = Gcra {
                tat: 0.0,
                t,
                tau: (depth - 1.0) * t,
            };
            let times = arrivals(seed, 20_000, t);
            let got = verdicts(&mut b, &times);
            let want: Vec<bool> = times.iter().map(|&x| gcra.conforms(x as f64)).collect();
            assert!(got == want, "depth {depth}: differs from the GCRA");
            assert!(got.iter().any(|c| !c) && got.iter().any(|c| *c));
        }
    }

    #[test]
    fn stepped_tokens_are_the_gcra_a_step_late() {
        // With tokens in whole steps a cell sees the pool as it was at the
        // last step: the stepped bucket is the GCRA with every arrival time
        // taken back to the step before it, at most one token time.
        let mut stepping_mattered = false;
        for (seed, depth) in [(5, 1.0), (6, 2.0), (7, 30.0)] {
            let mut b = bucket(depth, true);
            let t = b.token_ps;
            let mut gcra = Gcra {
                tat: 0.0,
                t,
                tau: (depth - 1.0) * t,
            };
            let times = arrivals(seed, 20_000, t);
            let got = verdicts(&mut b, &times);
            let want: Vec<bool> = times
                .iter()
                .map(|&x| gcra.conforms((x as f64 / t).floor() * t))
                .collect();
            assert!(
                got == want,
                "depth {depth}: differs from the GCRA a step late"
            );
            let mut plain = Gcra {
                tat: 0.0,
                t,
                tau: (depth - 1.0) * t,
            };
            let unstepped: Vec<bool> = times.iter().map(|&x| plain.conforms(x as f64)).collect();
            stepping_mattered |= got != unstepped;
        }
        // The streams are such that the plain GCRA would judge otherwise.
        assert!(stepping_mattered);
    }

    #[test]
    fn a_full_bucket_passes_a_burst_of_its_depth() {
        let mut b = bucket(10.0, true);
        let got = verdicts(&mut b, &[5; 12]);
        assert_eq!(got.iter().filter(|c| **c).count(), 10);
        assert_eq!(b.stats.marked, 2);
    }

    #[test]
    fn a_queue_waits_for_tokens_and_a_full_one_marks_its_head() {
        let mut b = LeakyBucket::new(LeakyBucketConfig {
            drain_cells_per_s: 1000.0, // one token per ms
            depth_cells: 1.0,
            queue_cells: 2,
            non_conforming: NonConforming::Mark,
            stepped: true,
        });
        let ms = 1_000_000_000u64;
        assert!(matches!(b.offer(Time(0), cell(0)), LbOutcome::Depart(_)));
        assert_eq!(b.offer(Time(1), cell(1)), LbOutcome::Queued);
        assert_eq!(b.offer(Time(2), cell(2)), LbOutcome::Queued);
        match b.offer(Time(3), cell(3)) {
            LbOutcome::Marked(p) => assert_eq!((p.seq, p.clp()), (1, 1)),
            other => panic!("{other:?}"),
        }
        assert_eq!(b.poll_at(), Time(ms));
        assert_eq!(b.poll(Time(ms)).map(|p| p.seq), Some(2));
        assert_eq!(b.poll_at(), Time(2 * ms));
        assert_eq!(b.poll(Time(2 * ms - 1)), None);
        assert_eq!(b.poll(Time(2 * ms)).map(|p| (p.seq, p.clp())), Some((3, 0)));
        assert_eq!(b.poll_at(), Time::NEVER);
    }
}
