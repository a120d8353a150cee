//! Explicit-rate feedback from a bottleneck's measured capacity: the
//! instcap and effcap schemes of the abr-effcap paper (sections 2 and 4.1),
//! as a port at the bottleneck link's input.
//!
//! Every measurement interval T (30 ms in the paper's testbed) the port
//! reads the capacity its link offered during the interval, C = ∫ rate dt,
//! whether or not traffic used it, and feeds back to each rate-controlled
//! source, one PDU per source per interval:
//!
//! - instcap: the last interval's average capacity C/T;
//! - effcap: with the last N blocks of M samples each, a block starting
//!   every sample (sliding, the paper's Fig. 7),
//!   Γ(δ) = −1/(Mδ) · log((1/N) Σ_j exp(−δ Σ_i C_ij)) per interval (eq. (25)),
//!   and as δ → ∞ the smallest block average (eq. (31)), the paper's choice;
//!
//! divided equally among the sources the port feeds (the fair share of
//! section 7). Each source may have its own M and N (section 7, case 1:
//! proportional to its round trip). Until N·M + … samples exist, the
//! blocks available are used.
//!
//! The feedback is a PDU routed from the link's node to the source, so it
//! takes the path's delay: a scenario places the loop delay where it wants
//! it (the abr-effcap study routes it over a link of delay Δ).

use super::iface::Outbox;
use super::pdu::{AgentAddr, Header, Pdu};
use super::port::{Admit, Port, PortCx};
use crate::engine::{Check, ConfigError, Duration, Time};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// Bytes of a feedback PDU on the wire (one cell, as an RM cell).
pub(crate) const FEEDBACK_BYTES: u32 = 53;

/// What the port feeds back (the abr-effcap paper, section 4.1), divided
/// equally among the hosts it feeds.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Scheme {
    /// The last interval's average capacity.
    Instcap,
    /// The effective capacity over each host's last N sliding blocks of M
    /// intervals: eq. (25) with `delta`, or the smallest block average
    /// (eq. (31), δ → ∞) without.
    Effcap,
}

/// A link's `explicit_rate` entry.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExplicitRateConfig {
    /// Which capacity is fed back (`scheme`, required).
    pub scheme: Scheme,
    /// The measurement and feedback interval T.
    #[serde(rename = "interval_ps")]
    pub interval: Duration,
    /// effcap's δ per byte of capacity; none: δ → ∞ (eq. (31)).
    #[serde(default, rename = "delta_per_byte")]
    pub delta: Option<f64>,
}

impl ExplicitRateConfig {}

impl Check for ExplicitRateConfig {
    fn check(&self) -> Result<(), ConfigError> {
        if self.interval.ps() == 0 {
            return Err("the feedback interval must be positive".into());
        }
        if self.delta.is_some_and(|d| !(d.is_finite() && d > 0.0)) {
            return Err("delta must be positive and finite (leave it out for δ → ∞)".into());
        }
        Ok(())
    }
}

/// A source the port feeds: where its rate controller is, and its effcap
/// block length M and number of blocks N.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Source {
    pub node: u32,
    pub(crate) agent: AgentAddr,
    pub flow: u32,
    pub block: usize,
    pub blocks: usize,
}

/// effcap over per-interval capacities `c` (oldest first, in bytes): the
/// sliding blocks of `block` samples ending at the last `blocks` samples,
/// as many as exist; `None` before the first full block. Returns bytes per
/// interval.
pub(crate) fn effcap(c: &[f64], block: usize, blocks: usize, delta: Option<f64>) -> Option<f64> {
    if block == 0 || blocks == 0 || c.len() < block {
        return None;
    }
    let n = blocks.min(c.len() - block + 1);
    let sums = (0..n).map(|j| {
        let end = c.len() - j;
        c[end - block..end].iter().sum::<f64>()
    });
    let m = block as f64;
    Some(match delta {
        None => sums.fold(f64::INFINITY, f64::min) / m,
        Some(d) => {
            // log-mean-exp, shifted by the smallest sum so no term overflows.
            let sums: Vec<f64> = sums.collect();
            let low = sums.iter().copied().fold(f64::INFINITY, f64::min);
            let mean = sums.iter().map(|s| (-d * (s - low)).exp()).sum::<f64>() / n as f64;
            (low - mean.ln() / d) / m
        }
    })
}

/// The port.
#[derive(Debug)]
pub(crate) struct ExplicitRatePort {
    cfg: ExplicitRateConfig,
    sources: Vec<Source>,
    /// Per-interval capacities in bytes, as many as the longest effcap
    /// window needs.
    samples: VecDeque<f64>,
    keep: usize,
    /// The capacity integral (bits) at the start of the current interval.
    last_bits: f64,
    next: Time,
    /// The rate last fed back to each source (bits/s of the link's wire).
    pub(crate) fed_back_bps: Vec<f64>,
    pub intervals: u64,
}

impl ExplicitRatePort {
    pub(crate) fn new(cfg: ExplicitRateConfig, start: Time) -> ExplicitRatePort {
        ExplicitRatePort {
            next: start + cfg.interval,
            cfg,
            sources: Vec::new(),
            samples: VecDeque::new(),
            keep: 1,
            last_bits: 0.0,
            fed_back_bps: Vec::new(),
            intervals: 0,
        }
    }

    pub(crate) fn add_source(&mut self, s: Source) {
        if self.cfg.scheme == Scheme::Effcap {
            self.keep = self.keep.max(s.block + s.blocks - 1);
        }
        self.sources.push(s);
        self.fed_back_bps.push(f64::NAN);
    }

    pub(crate) fn sources(&self) -> usize {
        self.sources.len()
    }

    /// The link's average capacity over the last interval (bits/s).
    pub(crate) fn instcap_bps(&self) -> f64 {
        let secs = self.cfg.interval.as_secs_f64();
        self.samples.back().map_or(f64::NAN, |b| b * 8.0 / secs)
    }

    /// The whole link's rate for a source with this block and number of
    /// blocks, in bits/s.
    fn estimate_bps(&self, s: &Source) -> Option<f64> {
        let secs = self.cfg.interval.as_secs_f64();
        let bytes = match self.cfg.scheme {
            Scheme::Instcap => self.samples.back().copied(),
            Scheme::Effcap => {
                let c = self.samples.as_slices();
                let c: Vec<f64> = c.0.iter().chain(c.1).copied().collect();
                effcap(&c, s.block, s.blocks, self.cfg.delta)
            }
        };
        bytes.map(|b| b * 8.0 / secs)
    }

    fn measure(&mut self, now: Time, capacity_bits: f64) {
        self.samples
            .push_back((capacity_bits - self.last_bits) / 8.0);
        self.last_bits = capacity_bits;
        while self.samples.len() > self.keep {
            self.samples.pop_front();
        }
        self.intervals += 1;
        self.next = now + self.cfg.interval;
    }

    fn feed_back(&mut self, now: Time, from_node: u32, out: &mut Outbox) {
        let share = 1.0 / self.sources.len().max(1) as f64;
        for i in 0..self.sources.len() {
            let s = self.sources[i];
            let Some(rate) = self.estimate_bps(&s) else {
                continue;
            };
            let rate_bps = rate * share;
            self.fed_back_bps[i] = rate_bps;
            out.route(from_node, feedback_pdu(now, from_node, &s, rate_bps));
        }
    }
}

fn feedback_pdu(now: Time, from_node: u32, s: &Source, rate_bps: f64) -> Pdu {
    Pdu {
        bytes: FEEDBACK_BYTES,
        flow: s.flow,
        src_node: from_node,
        dst_node: s.node,
        dst_agent: s.agent.index,
        dst_gen: s.agent.gen,
        created: now,
        enqueued: now,
        header: Header::Rate { rate_bps },
        ..Pdu::default()
    }
}

impl Port for ExplicitRatePort {
    fn ingress(&mut self, _cx: &mut PortCx<'_>, _pdu: &mut Pdu) -> Admit {
        Admit::Pass
    }

    fn poll_at(&self) -> Time {
        self.next
    }

    fn poll(&mut self, cx: &mut PortCx<'_>) {
        if cx.now < self.next {
            return;
        }
        self.measure(cx.now, cx.link.capacity_bits_at(cx.now));
        self.feed_back(cx.now, cx.link.from, cx.out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn effcap_with_one_block_of_one_sample_is_instcap() {
        let c = [3.0, 1.0, 4.0, 1.0, 5.0];
        assert_eq!(effcap(&c, 1, 1, None), Some(5.0));
        assert_eq!(effcap(&c, 1, 1, Some(0.7)), Some(5.0));
    }

    #[test]
    fn effcap_is_the_smallest_sliding_block_average() {
        // Blocks of 2 ending at the last 3 samples: [1,5], [4,1], [1,4],
        // averages 3, 2.5, 2.5.
        let c = [3.0, 1.0, 4.0, 1.0, 5.0];
        assert_eq!(effcap(&c, 2, 3, None), Some(2.5));
        // Fewer samples than blocks: the blocks there are.
        assert_eq!(effcap(&c, 4, 10, None), Some(9.0 / 4.0));
        assert_eq!(effcap(&c[..1], 2, 3, None), None);
    }

    #[test]
    fn finite_delta_lies_between_the_mean_and_the_minimum() {
        let c = [3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0];
        let min = effcap(&c, 2, 5, None).unwrap();
        // Block averages ending at the last 5 samples.
        let avgs = [4.0, 5.5, 7.0, 3.0, 2.5];
        let mean = avgs.iter().sum::<f64>() / 5.0;
        let small = effcap(&c, 2, 5, Some(1e-9)).unwrap();
        let large = effcap(&c, 2, 5, Some(1e3)).unwrap();
        assert!((small - mean).abs() < 1e-6, "{small} vs {mean}");
        assert!((large - min).abs() < 1e-3, "{large} vs {min}");
        // Eq. (25) with M = 2, δ = 0.5: −1/(Mδ) log mean exp(−δ·sum), and
        // each block's sum is twice its average, so −log mean exp(−avg).
        let mid = effcap(&c, 2, 5, Some(0.5)).unwrap();
        let direct = -(avgs.iter().map(|a| (-a).exp()).sum::<f64>() / 5.0).ln();
        assert!((mid - direct).abs() < 1e-12, "{mid} vs {direct}");
        assert!(min < mid && mid < mean);
    }
}
