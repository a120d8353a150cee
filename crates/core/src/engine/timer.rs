//! A protocol timer inside a component (TCP's retransmission and delayed-ACK
//! timers, TFRC's no-feedback timer). Arming, re-arming and cancelling only
//! change a deadline; the component reports the earliest of its timers as its
//! next wake-up, and the scheduler's lazy rescheduling makes that cheap.

use super::time::{Duration, Time};

/// A protocol timer: a deadline, or none when disarmed.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Timer {
    deadline: Option<Time>,
}

impl Timer {
    /// A disarmed timer.
    pub fn new() -> Timer {
        Timer::default()
    }

    /// Arms (or re-arms) the timer to expire `after` from `now`.
    pub(crate) fn arm(&mut self, now: Time, after: Duration) {
        self.deadline = Some(now + after);
    }

    pub(crate) fn cancel(&mut self) {
        self.deadline = None;
    }

    pub(crate) fn is_armed(&self) -> bool {
        self.deadline.is_some()
    }

    /// When it expires, `Time::NEVER` when disarmed.
    pub(crate) fn deadline(&self) -> Time {
        self.deadline.unwrap_or(Time::NEVER)
    }

    /// True once, when the timer has expired by `now`; it is then disarmed.
    pub(crate) fn fire(&mut self, now: Time) -> bool {
        match self.deadline {
            Some(t) if t <= now => {
                self.deadline = None;
                true
            }
            _ => false,
        }
    }
}

/// The earliest deadline of several timers.
#[cfg(test)]
pub(crate) fn earliest(timers: &[Timer]) -> Time {
    timers
        .iter()
        .map(Timer::deadline)
        .min()
        .unwrap_or(Time::NEVER)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rearm_cancel_fire() {
        let mut rto = Timer::new();
        let mut delack = Timer::new();
        assert_eq!(earliest(&[rto, delack]), Time::NEVER);
        rto.arm(Time(0), Duration(1_000));
        delack.arm(Time(0), Duration(200));
        assert_eq!(earliest(&[rto, delack]), Time(200));
        rto.arm(Time(100), Duration(1_000)); // an ACK restarts the RTO
        assert!(!rto.fire(Time(1_000)));
        assert!(rto.fire(Time(1_100)));
        assert!(!rto.fire(Time(1_100)), "fires once");
        delack.cancel();
        assert!(!delack.is_armed());
    }
}
