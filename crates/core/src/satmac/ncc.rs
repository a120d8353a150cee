//! The demand-assignment loop between the terminals and the NCC (the
//! tfrc-dama paper, section 3.1 and Fig. 1), as a passive machine driven at
//! super-frame boundaries:
//!
//! 1. at each boundary every terminal makes its request (eq. (1) over the
//!    super-frame just ended, T_r = T_b);
//! 2. it is sent in the next multi-frame and heard by the NCC one hop
//!    later (`FrameConfig::request_heard`);
//! 3. at each boundary (a TBTP instant) the NCC plans with the latest
//!    request heard from each terminal (`dama::Allocator`);
//! 4. the TBTP reaches the terminals one hop later, and the plan applies
//!    from the first super-frame the terminals hold it a multi-frame ahead
//!    of (`FrameConfig::plan_applies`).
//!
//! The request-to-plan delay is therefore the allocation delay T_a of
//! `FrameConfig::allocation_delay`, measured in the tests here rather than
//! assumed.

use super::dama::{Allocator, Assignment, DamaConfig};
use super::frame::FrameConfig;
use crate::engine::Time;
use std::collections::VecDeque;

/// A burst time plan: who owns which slots from super-frame `epoch` on.
#[derive(Clone, Debug, PartialEq)]
pub struct Tbtp {
    /// When the NCC computed and broadcast it.
    pub(crate) sent: Time,
    /// When the terminals hear it.
    pub(crate) heard: Time,
    /// The super-frame (counted from 0 at time 0) it first applies to.
    pub(crate) epoch: u64,
    pub(crate) runs: Vec<Assignment>,
    /// Slots per multi-frame nobody was given.
    pub(crate) free_slots: u32,
}

/// The NCC of a DVB-RCS return channel: it hears the terminals' requests one
/// hop after they are sent and plans one TBTP per super-frame.
pub struct Ncc {
    frame: FrameConfig,
    alloc: Allocator,
    /// Requests on their way up: (heard at, slots per terminal).
    in_flight: VecDeque<(Time, Vec<u32>)>,
    /// The latest request heard from each terminal.
    heard: Vec<u32>,
    pub(crate) plans: u64,
}

impl Ncc {
    /// The NCC of a channel with this frame and DAMA rules for `terminals`
    /// terminals, each holding its minimum until the first plan.
    pub fn new(frame: FrameConfig, dama: DamaConfig, terminals: usize) -> Ncc {
        let min = dama.min_slots;
        let alloc = Allocator::new(dama, frame.slots_per_multiframe(), terminals);
        Ncc {
            frame,
            alloc,
            in_flight: VecDeque::new(),
            heard: vec![min; terminals],
            plans: 0,
        }
    }

    /// Terminals that hold a constant rate (CRA) from logon: `cra_bps`
    /// per terminal, granted from the first super-frame on.
    pub(crate) fn with_cra(mut self, cra_bps: &[f64]) -> Ncc {
        let floors: Vec<u32> = cra_bps.iter().map(|&c| self.frame.slots_for(c)).collect();
        self.alloc.logon(&floors);
        for (h, f) in self.heard.iter_mut().zip(&floors) {
            *h = (*h).max(*f);
        }
        self
    }

    /// Slots per multi-frame the terminals hold before the first plan.
    pub(crate) fn initial_slots(&self) -> u32 {
        self.alloc.standing().iter().sum()
    }

    /// The channel's frame.
    pub fn frame(&self) -> &FrameConfig {
        &self.frame
    }

    /// The allocation every terminal has before any plan: its minimum,
    /// laid out as the allocator lays out plans.
    pub fn initial_runs(&self) -> Vec<Assignment> {
        let mut start = 0;
        self.alloc
            .standing()
            .iter()
            .map(|&count| {
                let run = Assignment { start, count };
                start += count;
                run
            })
            .collect()
    }

    /// A super-frame boundary `now`: the terminals' requests (bits/s) go up
    /// and the NCC plans with what it has heard by now.
    pub(crate) fn boundary(&mut self, now: Time, requests_bps: &[f64]) -> Tbtp {
        let slots = requests_bps
            .iter()
            .map(|&r| self.frame.slots_for(r))
            .collect();
        self.in_flight
            .push_back((self.frame.request_heard(now), slots));
        while self.in_flight.front().is_some_and(|(t, _)| *t <= now) {
            if let Some((_, s)) = self.in_flight.pop_front() {
                self.heard = s;
            }
        }
        let runs = self.alloc.plan(&self.heard);
        let used: u32 = runs.iter().map(|r| r.count).sum();
        let applies = self.frame.plan_applies(now);
        self.plans += 1;
        Tbtp {
            sent: now,
            heard: now + self.frame.propagation,
            epoch: applies.ps() / self.frame.superframe().ps(),
            runs,
            free_slots: self.frame.slots_per_multiframe() - used,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Duration;
    use crate::satmac::frame::Skyplex;

    /// Drives the loop with one terminal asking `rate(k)` at boundary k;
    /// returns the run count applying in each super-frame.
    fn counts_by_superframe(size: Skyplex, rate: impl Fn(u64) -> f64, n: u64) -> Vec<u32> {
        let frame = FrameConfig::skyplex(size);
        let tb = frame.superframe().ps();
        let mut ncc = Ncc::new(frame, DamaConfig::default(), 1);
        let mut by_epoch = vec![1u32; (n + 10) as usize];
        for k in 1..=n {
            let plan = ncc.boundary(Time(k * tb), &[rate(k)]);
            for slots in by_epoch.iter_mut().skip(plan.epoch as usize) {
                *slots = plan.runs[0].count;
            }
        }
        by_epoch.truncate(n as usize);
        by_epoch
    }

    /// A step of demand measured over super-frame [k0−1, k0) is asked at
    /// boundary k0 and served from boundary k0 + T_a/T_b on: 2 super-frames
    /// later for the large frame, 6 for the small (Table I).
    #[test]
    fn the_measured_allocation_delay_is_the_derived_one() {
        for (size, lag) in [(Skyplex::Large, 2u64), (Skyplex::Small, 6)] {
            let frame = FrameConfig::skyplex(size);
            assert_eq!(frame.allocation_delay().ps(), lag * frame.superframe().ps());
            let k0 = 5;
            let counts = counts_by_superframe(size, |k| if k >= k0 { 600e3 } else { 0.0 }, 20);
            let first = counts.iter().position(|&c| c > 1).unwrap() as u64;
            assert_eq!(first, k0 + lag, "{size:?}: {counts:?}");
        }
    }

    /// A constant 256 kb/s settles at the request rounded up to the
    /// granularity: 6 × 44 kb/s (large), 1 × 264 kb/s (small).
    #[test]
    fn a_constant_rate_converges_to_the_request_rounded_up() {
        let large = counts_by_superframe(Skyplex::Large, |_| 256e3, 12);
        assert_eq!(large[11], 6);
        let small = counts_by_superframe(Skyplex::Small, |_| 256e3, 20);
        assert_eq!(small[19], 1);
        let small = counts_by_superframe(Skyplex::Small, |_| 300e3, 20);
        assert_eq!(small[19], 2);
    }

    /// CRA is held from logon: the first super-frame already carries it,
    /// and later requests below it keep it.
    #[test]
    fn cra_is_held_from_the_start() {
        let frame = FrameConfig::skyplex(Skyplex::Large);
        let tb = frame.superframe().ps();
        let cra = frame.channel_bps / 5.0;
        let mut ncc = Ncc::new(frame, DamaConfig::default(), 2).with_cra(&[cra, 0.0]);
        let first = ncc.initial_runs();
        assert_eq!((first[0].count, first[1].count), (29, 1));
        assert_eq!(first[1].start, 29);
        let plan = ncc.boundary(Time(tb), &[cra, 0.0]);
        assert_eq!(plan.runs[0].count, 29);
    }

    #[test]
    fn the_tbtp_reports_the_free_slots() {
        let frame = FrameConfig::skyplex(Skyplex::Large);
        let tb = frame.superframe().ps();
        let mut ncc = Ncc::new(frame, DamaConfig::default(), 5);
        let plan = ncc.boundary(Time(tb), &[0.0; 5]);
        assert_eq!(plan.free_slots, 144 - 5);
        assert_eq!(plan.heard.since(plan.sent), Duration::from_millis(252));
    }
}
