//! Demand assignment at the NCC: one burst time plan (TBTP) per super-frame
//! from the terminals' capacity requests, as the tfrc-dama paper's Skyplex
//! scheme works (section 3.1) on DVB-RCS capacity categories (EN 301 790;
//! REFERENCE §6.1).
//!
//! Per TBTP, in slots per multi-frame (the allocation granularity):
//!
//! - a request N_L (the rate of eq. (1), rounded up to whole slots) at or
//!   above the terminal's standing allocation N_B is granted in full;
//! - a smaller one is released exponentially, eq. (2):
//!   N_B ← a·N_B + b·(N_L − N_B), with the paper's a = 1, b = 0.5, rounded
//!   down and never below N_L (so the release ends at the request instead
//!   of hanging one slot above it for ever);
//! - every terminal keeps at least `min_slots` (Skyplex: one per
//!   multi-frame);
//! - when the allocations exceed the channel, each keeps its minimum and the
//!   rest is shared in proportion to what was asked above it (largest
//!   remainders, ties to the lower terminal index): "normalised to the
//!   maximum capacity";
//! - with FCA, slots nobody asked for are spread equally, lowest priority
//!   and not remembered (the paper's runs do not use FCA).
//!
//! The standing allocation N_B is what the terminal would have without
//! normalisation: an over-subscribed TBTP does not start a release.
//! Slots are laid out first fit, one contiguous run per terminal in
//! terminal order; where a terminal's run sits in the multi-frame is part
//! of its delay (docs/tfrc-dama.md).

use crate::engine::ConfigError;
use crate::net::slot_schedule::SlotRun;
use serde::{Deserialize, Serialize};

/// How the NCC assigns slots (`dvb_rcs.NAME.dama`): eq. (2)'s release, the
/// slots every terminal keeps, and free capacity assignment.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DamaConfig {
    /// Eq. (2)'s a.
    #[serde(default = "one")]
    pub(crate) release_a: f64,
    /// Eq. (2)'s b.
    #[serde(default = "half")]
    pub(crate) release_b: f64,
    /// Slots per multi-frame every terminal keeps.
    #[serde(default = "one_slot")]
    pub(crate) min_slots: u32,
    /// Free capacity assignment of the slots left over.
    #[serde(default)]
    pub(crate) fca: bool,
}

fn one() -> f64 {
    1.0
}
fn half() -> f64 {
    0.5
}
fn one_slot() -> u32 {
    1
}

impl Default for DamaConfig {
    fn default() -> DamaConfig {
        DamaConfig {
            release_a: one(),
            release_b: half(),
            min_slots: one_slot(),
            fca: false,
        }
    }
}

impl DamaConfig {
    /// Refuses a release that would not decay towards the request, or
    /// minimums the channel cannot hold.
    pub(crate) fn check(&self, terminals: usize, channel_slots: u32) -> Result<(), ConfigError> {
        let (a, b) = (self.release_a, self.release_b);
        if !(a.is_finite() && b.is_finite() && b > 0.0 && b <= a && a <= 1.0) {
            return Err(ConfigError::new(format!(
                "release_a and release_b must satisfy 0 < b <= a <= 1 (got a = {a}, b = {b})"
            )));
        }
        if self.min_slots as u64 * terminals as u64 > u64::from(channel_slots) {
            return Err(ConfigError::new(format!(
                "{terminals} terminals with min_slots = {} need more than the {channel_slots} slots of a multi-frame",
                self.min_slots
            )));
        }
        Ok(())
    }
}

/// A terminal's run of slots in each multi-frame of a super-frame (the
/// first slot counted from the multi-frame's start, and how many).
pub type Assignment = SlotRun;

/// The NCC's allocator for one channel.
#[derive(Clone, Debug)]
pub struct Allocator {
    cfg: DamaConfig,
    channel_slots: u32,
    /// N_B per terminal.
    standing: Vec<u32>,
    /// TBTPs computed, which also rotates who gets FCA's odd slots.
    plans: u64,
}

impl Allocator {
    /// `channel_slots`: slots per multi-frame. Every terminal starts at its
    /// minimum, as after logon.
    pub fn new(cfg: DamaConfig, channel_slots: u32, terminals: usize) -> Allocator {
        debug_assert!(cfg.check(terminals, channel_slots).is_ok());
        Allocator {
            standing: vec![cfg.min_slots; terminals],
            cfg,
            channel_slots,
            plans: 0,
        }
    }

    /// N_B per terminal.
    pub(crate) fn standing(&self) -> &[u32] {
        &self.standing
    }

    /// What each terminal holds from logon on (its CRA, in slots per
    /// multi-frame): granted before any request, as CRA is configured at
    /// service set-up, not asked for.
    pub(crate) fn logon(&mut self, floors: &[u32]) {
        for (n_b, &f) in self.standing.iter_mut().zip(floors) {
            *n_b = (*n_b).max(f);
        }
    }

    /// One TBTP from the latest request of each terminal (slots per
    /// multi-frame), laid out over the multi-frame.
    pub(crate) fn plan(&mut self, requested: &[u32]) -> Vec<Assignment> {
        assert_eq!(
            requested.len(),
            self.standing.len(),
            "one request per terminal"
        );
        for (n_b, &n_l) in self.standing.iter_mut().zip(requested) {
            *n_b = release(&self.cfg, *n_b, n_l.max(self.cfg.min_slots));
        }
        let mut counts = fit(&self.standing, self.cfg.min_slots, self.channel_slots);
        if self.cfg.fca {
            spread_free(&mut counts, self.channel_slots, self.plans);
        }
        self.plans += 1;
        lay_out(&counts)
    }
}

/// Eq. (2) for a decrease, the request itself for an increase.
fn release(cfg: &DamaConfig, n_b: u32, n_l: u32) -> u32 {
    if n_l >= n_b {
        return n_l;
    }
    let (n_b, n_l) = (f64::from(n_b), f64::from(n_l));
    let next = cfg.release_a * n_b + cfg.release_b * (n_l - n_b);
    (next + 1e-9).floor().max(n_l) as u32
}

/// The allocations if they fit; otherwise the minimums plus the rest of
/// the channel shared in proportion to the excess asked (largest
/// remainders).
fn fit(wanted: &[u32], min: u32, channel: u32) -> Vec<u32> {
    let total: u64 = wanted.iter().map(|&w| u64::from(w)).sum();
    if total <= u64::from(channel) {
        return wanted.to_vec();
    }
    let spare = channel - min * wanted.len() as u32;
    let excess: Vec<u64> = wanted.iter().map(|&w| u64::from(w - min)).collect();
    let excess_total: u64 = excess.iter().sum();
    let mut counts: Vec<u32> = Vec::with_capacity(wanted.len());
    let mut remainders: Vec<(u64, usize)> = Vec::with_capacity(wanted.len());
    for (i, &e) in excess.iter().enumerate() {
        let share = e * u64::from(spare);
        counts.push(min + (share / excess_total) as u32);
        remainders.push((share % excess_total, i));
    }
    let given: u32 = counts.iter().sum();
    remainders.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    for &(_, i) in remainders.iter().take((channel - given) as usize) {
        counts[i] += 1;
    }
    counts
}

/// FCA: the unassigned slots, one at a time round the terminals, starting
/// from a different terminal each TBTP so none is favoured.
fn spread_free(counts: &mut [u32], channel: u32, turn: u64) {
    let n = counts.len();
    if n == 0 {
        return;
    }
    let free = channel - counts.iter().sum::<u32>();
    for k in 0..free as usize {
        counts[(turn as usize + k) % n] += 1;
    }
}

/// One contiguous run per terminal, in terminal order from slot 0.
fn lay_out(counts: &[u32]) -> Vec<Assignment> {
    let mut start = 0;
    counts
        .iter()
        .map(|&count| {
            let a = Assignment { start, count };
            start += count;
            a
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn alloc(terminals: usize, channel: u32) -> Allocator {
        Allocator::new(DamaConfig::default(), channel, terminals)
    }

    fn counts(plan: &[Assignment]) -> Vec<u32> {
        plan.iter().map(|a| a.count).collect()
    }

    #[test]
    fn an_increase_is_granted_at_once() {
        let mut a = alloc(5, 144);
        assert_eq!(counts(&a.plan(&[6, 0, 0, 0, 0])), vec![6, 1, 1, 1, 1]);
    }

    /// Eq. (2) with a = 1, b = 0.5: the excess over the request halves each
    /// TBTP (rounded down) until the allocation reaches the request.
    #[test]
    fn a_decrease_is_released_exponentially() {
        let mut a = alloc(1, 144);
        a.plan(&[40]);
        let mut seen = vec![];
        for _ in 0..7 {
            seen.push(a.plan(&[1])[0].count);
        }
        assert_eq!(seen, vec![20, 10, 5, 3, 2, 1, 1]);
    }

    #[test]
    fn the_release_time_constant_is_set_by_b() {
        // A large allocation decays as (1 - b)^n: for b = 0.5 a time
        // constant of 1/ln 2 = 1.44 TBTPs (the paper calls it "two
        // super-frames"; docs/tfrc-dama.md).
        let mut a = alloc(1, 100_000);
        a.plan(&[65_536]);
        let excess: Vec<f64> = (0..8)
            .map(|_| f64::from(a.plan(&[0])[0].count - 1))
            .collect();
        let per_tbtp = (excess[7] / excess[0]).powf(1.0 / 7.0);
        assert!((per_tbtp - 0.5).abs() < 1e-3, "{per_tbtp}");
        let tau = -1.0 / per_tbtp.ln();
        assert!((tau - std::f64::consts::LOG2_E).abs() < 0.01, "{tau}");
    }

    #[test]
    fn every_terminal_keeps_its_minimum() {
        let mut a = alloc(3, 24);
        assert_eq!(counts(&a.plan(&[0, 0, 0])), vec![1, 1, 1]);
    }

    #[test]
    fn an_oversubscribed_channel_is_shared_in_proportion() {
        let mut a = alloc(3, 24);
        // Asked (30, 10, 0) above the minimum of 1; the 21 spare slots
        // share as 15.75, 5.25, 0 → 16 (largest remainder), 5, 0.
        let plan = a.plan(&[31, 11, 1]);
        assert_eq!(counts(&plan), vec![17, 6, 1]);
        assert_eq!(plan.iter().map(|p| p.count).sum::<u32>(), 24);
        // Normalisation does not start a release: the wish stands.
        assert_eq!(a.standing(), &[31, 11, 1]);
    }

    #[test]
    fn slots_are_laid_out_in_contiguous_runs() {
        let mut a = alloc(3, 24);
        let plan = a.plan(&[2, 3, 4]);
        assert_eq!(
            plan,
            vec![
                Assignment { start: 0, count: 2 },
                Assignment { start: 2, count: 3 },
                Assignment { start: 5, count: 4 },
            ]
        );
    }

    #[test]
    fn fca_hands_out_the_rest_in_turn() {
        let cfg = DamaConfig {
            fca: true,
            ..DamaConfig::default()
        };
        let mut a = Allocator::new(cfg, 9, 3);
        assert_eq!(counts(&a.plan(&[2, 1, 1])), vec![4, 3, 2]);
        assert_eq!(counts(&a.plan(&[2, 1, 1])), vec![3, 3, 3]);
        // FCA is not remembered as a standing allocation.
        assert_eq!(a.standing(), &[2, 1, 1]);
    }

    #[test]
    fn impossible_settings_are_refused() {
        let mut cfg = DamaConfig::default();
        assert!(cfg
            .check(7, 6)
            .unwrap_err()
            .to_string()
            .contains("min_slots"));
        cfg.release_b = 1.5;
        assert!(cfg
            .check(1, 6)
            .unwrap_err()
            .to_string()
            .contains("release_b"));
    }
}
