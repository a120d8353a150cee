//! Simulated time as an integer count of picoseconds.
//!
//! Integers, not floats: a cell time at 149.76 Mb/s is 2 831 196 ps, and
//! adding float spacings for 10^8 cells drifts; u64 picoseconds cover 213
//! days of simulated time, far beyond any study.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::ops::{Add, AddAssign, Sub};

pub(crate) const PS_PER_S: u64 = 1_000_000_000_000;

/// An instant of simulated (or emulated) time, in picoseconds since start.
/// In a scenario description it is the plain integer (keys ending `_ps`).
#[derive(
    Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct Time(pub u64);

/// A span of time in picoseconds.
#[derive(
    Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct Duration(pub u64);

impl Time {
    /// The start of the run.
    pub const ZERO: Time = Time(0);
    /// Stands for "never" in wake-up computations.
    pub(crate) const NEVER: Time = Time(u64::MAX);

    /// The instant `s` seconds after the start, rounded to the nearest ps;
    /// panics unless `s` is finite and not negative.
    pub fn from_secs_f64(s: f64) -> Time {
        Time(secs_to_ps(s))
    }
    /// Seconds since the start.
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / PS_PER_S as f64
    }
    /// Picoseconds since the start.
    pub fn ps(self) -> u64 {
        self.0
    }
    pub(crate) fn since(self, earlier: Time) -> Duration {
        Duration(self.0.saturating_sub(earlier.0))
    }
}

impl Duration {
    /// No time at all.
    pub const ZERO: Duration = Duration(0);

    /// A span of `s` seconds, rounded to the nearest ps; panics unless `s`
    /// is finite and not negative.
    pub fn from_secs_f64(s: f64) -> Duration {
        Duration(secs_to_ps(s))
    }
    /// A span of `ms` milliseconds.
    pub const fn from_millis(ms: u64) -> Duration {
        Duration(ms * 1_000_000_000)
    }
    /// The span in seconds.
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / PS_PER_S as f64
    }
    /// The span in picoseconds.
    pub fn ps(self) -> u64 {
        self.0
    }
}

fn secs_to_ps(s: f64) -> u64 {
    assert!(
        s >= 0.0 && s.is_finite(),
        "time must be finite and >= 0, got {s}"
    );
    (s * PS_PER_S as f64).round() as u64
}

impl Add<Duration> for Time {
    type Output = Time;
    fn add(self, d: Duration) -> Time {
        Time(self.0.saturating_add(d.0))
    }
}
impl AddAssign<Duration> for Time {
    fn add_assign(&mut self, d: Duration) {
        self.0 = self.0.saturating_add(d.0);
    }
}
impl Sub<Time> for Time {
    type Output = Duration;
    fn sub(self, rhs: Time) -> Duration {
        Duration(self.0 - rhs.0)
    }
}
impl Add for Duration {
    type Output = Duration;
    fn add(self, d: Duration) -> Duration {
        Duration(self.0 + d.0)
    }
}

impl fmt::Display for Time {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.9} s", self.as_secs_f64())
    }
}

/// A transmission rate in bits per second.
#[derive(Copy, Clone, Debug, PartialEq, PartialOrd)]
pub struct Rate {
    pub(crate) bps: f64,
}

impl Rate {
    pub(crate) fn from_bps(bps: f64) -> Rate {
        Rate { bps }
    }
    /// Serialisation time of `bytes` at this rate, rounded to the nearest
    /// picosecond (the rounding error, < 0.5 ps per PDU, never accumulates
    /// because each transmission is timed from its own start).
    pub(crate) fn tx_time(self, bytes: u32) -> Duration {
        self.tx_time_bits(bytes as f64 * 8.0)
    }
    pub(crate) fn tx_time_bits(self, bits: f64) -> Duration {
        debug_assert!(self.bps > 0.0);
        Duration((bits * PS_PER_S as f64 / self.bps).round() as u64)
    }
    /// Bits sent at this rate during `d`.
    pub(crate) fn bits_in(self, d: Duration) -> f64 {
        self.bps * d.0 as f64 / PS_PER_S as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn oc3_cell_time_matches_design_figure() {
        let r = Rate::from_bps(149.76e6);
        assert_eq!(r.tx_time(53), Duration(2_831_197)); // 2 831 196.58 ps, rounded
    }

    #[test]
    fn seconds_round_trip() {
        let t = Time::from_secs_f64(0.27);
        assert_eq!(t.ps(), 270_000_000_000);
        assert!((t.as_secs_f64() - 0.27).abs() < 1e-15);
    }

    #[test]
    fn never_saturates() {
        assert_eq!(Time::NEVER + Duration(5), Time::NEVER);
    }

    #[test]
    fn bits_in_inverts_tx_time() {
        let r = Rate::from_bps(2.048e6);
        let d = r.tx_time(1500);
        assert!((r.bits_in(d) - 12000.0).abs() < 1e-3);
    }
}
