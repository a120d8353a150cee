//! A link's propagation delay over time, piecewise constant: the one-way
//! delay of a path that moves, such as a LEO constellation's shortest route
//! between two ground stations recomputed at every step (100 ms in Hypatia,
//! Kassing et al., IMC 2020, §3), or no delay at all while no route exists.
//!
//! A PDU takes the delay in force when its last bit leaves the transmitter
//! and keeps it: the path it was launched on carries it to the end, as a
//! packet already between satellites when the forwarding state changes
//! (ns-3's channels in Hypatia fix each packet's delay at transmission). A
//! PDU launched after a shortening may therefore overtake earlier ones, as
//! on a real route change. One sent while no route exists is dropped.

use crate::engine::{Check, ConfigError, Duration, Time};
use serde::{Deserialize, Serialize};

/// The delay from each instant on, in a scenario description
/// (`links[].delay_schedule`): `delays_ps[i]` holds from `times_ps[i]`
/// until the next instant (the last to the end of the run); `null` while
/// the path does not exist.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DelaySchedule {
    /// When each delay begins: strictly increasing, the first at zero.
    pub times_ps: Vec<Duration>,
    /// The one-way delay from that instant, or none while unreachable.
    pub delays_ps: Vec<Option<Duration>>,
}

impl Check for DelaySchedule {
    fn check(&self) -> Result<(), ConfigError> {
        if self.times_ps.is_empty() || self.times_ps.len() != self.delays_ps.len() {
            return Err(
                "delay_schedule: times_ps and delays_ps must be non-empty and as long".into(),
            );
        }
        if self.times_ps[0].ps() != 0 {
            return Err("delay_schedule: the first time must be zero".into());
        }
        if self.times_ps.windows(2).any(|w| w[0] >= w[1]) {
            return Err("delay_schedule: times must increase strictly".into());
        }
        Ok(())
    }
}

impl DelaySchedule {
    /// The delay in force at `t` (none while unreachable), by search.
    pub(crate) fn at(&self, t: Time) -> Option<Duration> {
        let i = self.times_ps.partition_point(|s| s.ps() <= t.ps());
        self.delays_ps[i.max(1) - 1]
    }
}

/// A schedule read at non-decreasing times (the ends of a link's
/// transmissions): each lookup moves a cursor instead of searching.
#[derive(Clone, Debug)]
pub(crate) struct DelayCursor {
    schedule: DelaySchedule,
    /// The index of the delay in force at the last lookup.
    current: usize,
}

impl DelayCursor {
    pub(crate) fn new(schedule: DelaySchedule) -> DelayCursor {
        DelayCursor {
            schedule,
            current: 0,
        }
    }

    /// The delay in force at `t`, no earlier than the last lookup's time.
    pub(crate) fn advance_to(&mut self, t: Time) -> Option<Duration> {
        let times = &self.schedule.times_ps;
        while self.current + 1 < times.len() && times[self.current + 1].ps() <= t.ps() {
            self.current += 1;
        }
        self.schedule.delays_ps[self.current]
    }

    /// The delay in force at any `t` (for probes), by search.
    pub(crate) fn at(&self, t: Time) -> Option<Duration> {
        self.schedule.at(t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schedule() -> DelaySchedule {
        DelaySchedule {
            times_ps: vec![Duration(0), Duration(100), Duration(200)],
            delays_ps: vec![Some(Duration(30)), None, Some(Duration(10))],
        }
    }

    #[test]
    fn each_delay_holds_from_its_instant_to_the_next() {
        let s = schedule();
        let mut c = DelayCursor::new(s.clone());
        for (t, want) in [
            (0, Some(30)),
            (99, Some(30)),
            (100, None),
            (150, None),
            (200, Some(10)),
            (10_000, Some(10)),
        ] {
            assert_eq!(s.at(Time(t)), want.map(Duration), "search at {t}");
            assert_eq!(c.advance_to(Time(t)), want.map(Duration), "cursor at {t}");
        }
    }

    #[test]
    fn bad_schedules_are_refused() {
        let mut s = schedule();
        s.times_ps[0] = Duration(5);
        assert!(s.check().unwrap_err().to_string().contains("first time"));
        let mut s = schedule();
        s.times_ps[2] = Duration(100);
        assert!(s.check().unwrap_err().to_string().contains("strictly"));
        let mut s = schedule();
        s.delays_ps.pop();
        assert!(s.check().unwrap_err().to_string().contains("as long"));
        assert!(schedule().check().is_ok());
    }
}
