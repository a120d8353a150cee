//! A time-slotted capacity: the share of a TDMA channel that one station
//! may send in. Time is divided into slots; `slots_per_period` slots make a
//! period (a DVB-RCS multi-frame) and `periods_per_epoch` periods an epoch
//! (a super-frame, the span one burst time plan covers). In each period of
//! an epoch the station owns one run of consecutive slots, the same run in
//! every period of that epoch; it sends at the channel rate inside its run
//! and not at all outside it, so a packet longer than what is left of the
//! run finishes in the next one (a link's transmitter carries a PDU across
//! capacity changes).
//!
//! Plans for later epochs are given while the schedule runs (a TBTP heard
//! ahead of the super-frame it describes); a plan stays in force until the
//! next one. Every epoch boundary is a change instant, so a plan given
//! before its epoch starts is always picked up there.

use crate::engine::{Check, ConfigError, Duration, Time};
use std::collections::VecDeque;

/// A run of slots in each period: `count` slots from slot `start`.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct SlotRun {
    pub start: u32,
    pub count: u32,
}

/// The slot grid and the rate of the channel.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct SlotGrid {
    pub rate_bps: f64,
    pub(crate) slot: Duration,
    pub(crate) slots_per_period: u32,
    pub(crate) periods_per_epoch: u32,
}

impl SlotGrid {
    pub(crate) fn period(&self) -> Duration {
        Duration(self.slot.ps() * u64::from(self.slots_per_period))
    }

    pub(crate) fn epoch(&self) -> Duration {
        Duration(self.period().ps() * u64::from(self.periods_per_epoch))
    }

    /// The index of the epoch holding `t`.
    pub(crate) fn epoch_of(&self, t: Time) -> u64 {
        t.ps() / self.epoch().ps()
    }
}

impl Check for SlotGrid {
    fn check(&self) -> Result<(), ConfigError> {
        if !(self.rate_bps.is_finite() && self.rate_bps > 0.0) {
            return Err("a slotted capacity needs a positive rate".into());
        }
        if self.slot.ps() == 0 || self.slots_per_period == 0 || self.periods_per_epoch == 0 {
            return Err("slot_ps, slots_per_period and periods_per_epoch must be positive".into());
        }
        Ok(())
    }
}

#[derive(Clone, Debug)]
pub struct SlotSchedule {
    grid: SlotGrid,
    run: SlotRun,
    /// Plans for later epochs, in epoch order.
    plans: VecDeque<(u64, SlotRun)>,
    on: bool,
    next_change: Time,
    /// Plans that came for an epoch already begun: applied from the next.
    pub(crate) late_plans: u64,
}

impl SlotSchedule {
    pub fn new(grid: SlotGrid, first: SlotRun) -> SlotSchedule {
        let mut s = SlotSchedule {
            grid,
            run: clamp(first, grid.slots_per_period),
            plans: VecDeque::new(),
            on: false,
            next_change: Time::ZERO,
            late_plans: 0,
        };
        s.settle(Time::ZERO);
        s
    }

    pub(crate) fn grid(&self) -> &SlotGrid {
        &self.grid
    }

    /// The run in force now.
    pub fn run(&self) -> SlotRun {
        self.run
    }

    pub fn rate_bps(&self) -> f64 {
        if self.on {
            self.grid.rate_bps
        } else {
            0.0
        }
    }

    pub(crate) fn next_change(&self) -> Time {
        self.next_change
    }

    /// Gives the run for `epoch` and later ones, heard at `now`. A plan
    /// for an epoch already begun applies from the next epoch.
    pub(crate) fn plan(&mut self, now: Time, epoch: u64, run: SlotRun) {
        let mut epoch = epoch;
        let current = self.grid.epoch_of(now);
        if epoch <= current {
            self.late_plans += 1;
            epoch = current + 1;
        }
        self.plans.retain(|(e, _)| *e < epoch);
        self.plans
            .push_back((epoch, clamp(run, self.grid.slots_per_period)));
    }

    /// Applies the change due at `now` (`now == next_change()`).
    pub(crate) fn advance(&mut self, now: Time) {
        let epoch = self.grid.epoch_of(now);
        while self.plans.front().is_some_and(|(e, _)| *e <= epoch) {
            self.run = self.plans.pop_front().map(|(_, r)| r).unwrap_or(self.run);
        }
        self.settle(now);
    }

    fn settle(&mut self, now: Time) {
        let (on, next) = state_at(&self.grid, self.run, now);
        self.on = on;
        self.next_change = next;
    }
}

fn clamp(run: SlotRun, slots: u32) -> SlotRun {
    let start = run.start.min(slots);
    SlotRun {
        start,
        count: run.count.min(slots - start),
    }
}

/// Whether `t` lies inside the run, and the next instant after `t` where
/// that may change (a run's edge or the epoch's end).
fn state_at(grid: &SlotGrid, run: SlotRun, t: Time) -> (bool, Time) {
    let epoch_len = grid.epoch().ps();
    let epoch_end = (t.ps() / epoch_len + 1) * epoch_len;
    if run.count == 0 {
        return (false, Time(epoch_end));
    }
    let period = grid.period().ps();
    let period_start = t.ps() / period * period;
    let off = t.ps() - period_start;
    let first = u64::from(run.start) * grid.slot.ps();
    let last = u64::from(run.start + run.count) * grid.slot.ps();
    if run.count == grid.slots_per_period {
        return (true, Time(epoch_end));
    }
    let (on, next) = if off < first {
        (false, period_start + first)
    } else if off < last {
        (true, period_start + last)
    } else {
        (false, period_start + period + first)
    };
    (on, Time(next.min(epoch_end)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{Rate, RngStream};
    use crate::net::error_model::ErrorModel;
    use crate::net::queue::{Limit, Queue};
    use crate::net::{Link, Pdu};

    fn pdu(bytes: u32, seq: u64) -> Pdu {
        Pdu {
            bytes,
            seq,
            ..Pdu::default()
        }
    }

    fn grid() -> SlotGrid {
        // 1 µs slots, 10 per period, 3 periods per epoch, 8 Mb/s.
        SlotGrid {
            rate_bps: 8e6,
            slot: Duration(1_000_000),
            slots_per_period: 10,
            periods_per_epoch: 3,
        }
    }

    /// The changes over `until` as (time in slots, rate).
    fn trace(s: &mut SlotSchedule, until: u64) -> Vec<(u64, f64)> {
        let mut out = vec![(0, s.rate_bps())];
        loop {
            let t = s.next_change();
            if t.ps() >= until * 1_000_000 {
                return out;
            }
            s.advance(t);
            out.push((t.ps() / 1_000_000, s.rate_bps()));
        }
    }

    #[test]
    fn the_run_repeats_in_every_period() {
        let mut s = SlotSchedule::new(grid(), SlotRun { start: 2, count: 3 });
        let on = 8e6;
        assert_eq!(
            trace(&mut s, 30),
            vec![
                (0, 0.0),
                (2, on),
                (5, 0.0),
                (12, on),
                (15, 0.0),
                (22, on),
                (25, 0.0)
            ]
        );
    }

    #[test]
    fn a_plan_takes_effect_at_its_epoch() {
        let mut s = SlotSchedule::new(grid(), SlotRun { start: 0, count: 1 });
        s.plan(Time(5_000_000), 1, SlotRun { start: 8, count: 2 });
        let changes = trace(&mut s, 60);
        let on = 8e6;
        // Epoch 0: slot 0 of each period; epochs 1 and later: slots 8–9.
        assert_eq!(
            &changes[..6],
            &[(0, on), (1, 0.0), (10, on), (11, 0.0), (20, on), (21, 0.0)]
        );
        assert_eq!(&changes[6..9], &[(30, 0.0), (38, on), (40, 0.0)]);
        assert_eq!(changes.last(), Some(&(58, on)));
    }

    #[test]
    fn a_late_plan_waits_for_the_next_epoch_and_is_counted() {
        let mut s = SlotSchedule::new(grid(), SlotRun { start: 0, count: 1 });
        s.plan(Time(35_000_000), 1, SlotRun { start: 5, count: 1 });
        assert_eq!(s.late_plans, 1);
        let changes = trace(&mut s, 90);
        assert!(changes.contains(&(30, 8e6)), "epoch 1 keeps the old run");
        assert!(changes.contains(&(65, 8e6)), "epoch 2 has the new one");
    }

    #[test]
    fn no_slots_means_no_capacity_until_a_plan_gives_some() {
        let mut s = SlotSchedule::new(grid(), SlotRun::default());
        s.plan(
            Time::ZERO,
            2,
            SlotRun {
                start: 0,
                count: 10,
            },
        );
        assert_eq!(trace(&mut s, 90), vec![(0, 0.0), (30, 0.0), (60, 8e6)]);
    }

    /// Capacity per epoch = rate × owned slots × periods: a link fed by
    /// the schedule sends no more than its slots carry.
    #[test]
    fn capacity_over_an_epoch_is_the_owned_slots() {
        let mut s = SlotSchedule::new(grid(), SlotRun { start: 3, count: 4 });
        let (mut t, mut bits) = (Time::ZERO, 0.0);
        while t.ps() < 30_000_000 {
            let next = s.next_change().min(Time(30_000_000));
            bits += s.rate_bps() * next.since(t).as_secs_f64();
            s.advance(next);
            t = next;
        }
        assert!((bits - 8e6 * 12e-6).abs() < 1e-6, "{bits}");
    }

    /// A DVB-RCS terminal's uplink: one 1504-byte slot per 10-slot
    /// multi-frame at 6.336 Mb/s. Two 1316-byte packets: the first fits in
    /// the first slot; the second starts in its last 188 bytes and ends
    /// 1128 bytes into the next multi-frame's slot.
    #[test]
    fn a_packet_longer_than_the_rest_of_its_slot_ends_in_the_next_slot() {
        let grid = SlotGrid {
            rate_bps: 6.336e6,
            slot: Rate::from_bps(6.336e6).tx_time(1504),
            slots_per_period: 10,
            periods_per_epoch: 3,
        };
        let mut l = Link::new(
            0,
            1,
            Queue::drop_tail(Limit::Packets(1000)),
            crate::net::capacity::CapacityProcess::Slotted(SlotSchedule::new(
                grid,
                SlotRun { start: 0, count: 1 },
            )),
            ErrorModel::new(0.0, 0.0, RngStream::new(1, "l")),
            Duration(0),
        );
        l.enqueue(Time::ZERO, pdu(1316, 1));
        l.enqueue(Time::ZERO, pdu(1316, 2));
        let mut got = vec![];
        let mut out = vec![];
        while got.len() < 2 {
            let t = l.poll_at();
            l.poll(t, &mut out);
            got.extend(out.drain(..).map(|p| (t.0, p.seq)));
        }
        let byte = 8.0 / 6.336e6 * 1e12;
        let period = grid.period().0 as f64;
        assert!((got[0].0 as f64 - 1316.0 * byte).abs() < 2.0, "{got:?}");
        let second = period + (2.0 * 1316.0 - 1504.0) * byte;
        assert!(
            (got[1].0 as f64 - second).abs() < 2.0,
            "{got:?} vs {second}"
        );
    }
}
