//! Propagation over a link as a delay line kept in arrival order: only the
//! head's arrival needs to be scheduled, not one event per PDU in flight (a
//! GEO hop at OC-3 holds about 100 000 cells). With a fixed delay PDUs
//! arrive in the order they left; with a delay that changes over time
//! (`delay_schedule`) a PDU launched after the path shortened may arrive
//! before earlier ones, and is put in its place.
//!
//! An entry is the PDU alone, one cache line: its arrival time is kept in
//! its `enqueued` field, scratch while it is on the wire (the next link
//! sets it again as the PDU enters its queue).

use super::delay_schedule::{DelayCursor, DelaySchedule};
use super::pdu::Pdu;
use crate::engine::{Duration, Time};
use std::collections::VecDeque;

pub(crate) struct DelayLine {
    delay: Duration,
    /// The delay over time, when it changes (a moving path).
    schedule: Option<Box<DelayCursor>>,
    in_flight: VecDeque<Pdu>,
}

impl DelayLine {
    pub(crate) fn new(delay: Duration) -> DelayLine {
        DelayLine {
            delay,
            schedule: None,
            in_flight: VecDeque::new(),
        }
    }

    /// A line whose delay follows `schedule` instead.
    pub(crate) fn scheduled(schedule: DelaySchedule) -> DelayLine {
        DelayLine {
            schedule: Some(Box::new(DelayCursor::new(schedule))),
            ..DelayLine::new(Duration(0))
        }
    }

    /// A PDU whose last bit left the transmitter at `now` (never earlier
    /// than the last one's). Gives it back if no path exists at `now`.
    #[inline]
    pub(crate) fn push(&mut self, now: Time, mut p: Pdu) -> Option<Pdu> {
        if self.schedule.is_none() {
            p.enqueued = now + self.delay;
            self.in_flight.push_back(p);
            return None;
        }
        self.push_scheduled(now, p)
    }

    #[cold]
    fn push_scheduled(&mut self, now: Time, p: Pdu) -> Option<Pdu> {
        let cursor = self.schedule.as_deref_mut()?;
        match cursor.advance_to(now) {
            Some(delay) => {
                self.insert(now + delay, p);
                None
            }
            None => Some(p),
        }
    }

    /// Puts `p` behind every PDU arriving no later than `at`: usually at
    /// the back; after the path shortened, ahead of those it overtakes.
    fn insert(&mut self, at: Time, mut p: Pdu) {
        let place = self.in_flight.partition_point(|q| q.enqueued <= at);
        p.enqueued = at;
        self.in_flight.insert(place, p);
    }

    /// The propagation delay at `t`: none while no path exists.
    pub(crate) fn delay_at(&self, t: Time) -> Option<Duration> {
        match &self.schedule {
            None => Some(self.delay),
            Some(cursor) => cursor.at(t),
        }
    }

    /// Whether the delay changes over time.
    pub(crate) fn is_scheduled(&self) -> bool {
        self.schedule.is_some()
    }

    /// Arrival time of the head, `Time::NEVER` when empty.
    pub(crate) fn head_arrival(&self) -> Time {
        self.in_flight.front().map_or(Time::NEVER, |p| p.enqueued)
    }

    /// The head, if it has arrived by `now`.
    pub(crate) fn pop_arrived(&mut self, now: Time) -> Option<Pdu> {
        match self.in_flight.front() {
            Some(p) if p.enqueued <= now => {
                prefetch(self.in_flight.get(PREFETCH_AHEAD));
                self.in_flight.pop_front()
            }
            _ => None,
        }
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = &Pdu> {
        self.in_flight.iter()
    }
}

// A long delay line is read 'delay' after it was written: on a GEO hop its
// head left the cache long ago, and with dozens of lines popped in turn the
// hardware's stream prefetcher does not follow them. Asking for the entry
// this many places behind the head hides the miss (B3: 7 % faster).
const PREFETCH_AHEAD: usize = 16;

/// Brings every cache line of `entry` towards the core (an entry is one
/// PDU, 64 bytes: one line if the buffer is aligned, two if not).
#[inline(always)]
fn prefetch<T>(entry: Option<&T>) {
    #[cfg(target_arch = "x86_64")]
    if let Some(e) = entry {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let p = (e as *const T).cast::<i8>();
        // SAFETY: prefetching is a hint and never faults, whatever the address.
        unsafe {
            _mm_prefetch(p, _MM_HINT_T0);
            _mm_prefetch(p.wrapping_add(std::mem::size_of::<T>() - 1), _MM_HINT_T0);
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = entry;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_is_one_cache_line() {
        // The arrival time lives in the PDU (`enqueued`): no tuple around it.
        assert!(std::mem::size_of::<Pdu>() <= 64);
        let mut d = DelayLine::new(Duration(7));
        d.push(Time(3), Pdu::default());
        assert_eq!(d.iter().next().map(|p| p.enqueued), Some(Time(10)));
    }

    #[test]
    fn fifo_arrivals() {
        let mut d = DelayLine::new(Duration(100));
        d.push(
            Time(0),
            Pdu {
                seq: 1,
                ..Pdu::default()
            },
        );
        d.push(
            Time(5),
            Pdu {
                seq: 2,
                ..Pdu::default()
            },
        );
        assert_eq!(d.head_arrival(), Time(100));
        assert!(d.pop_arrived(Time(99)).is_none());
        assert_eq!(d.pop_arrived(Time(100)).unwrap().seq, 1);
        assert_eq!(d.head_arrival(), Time(105));
    }

    fn pdu(seq: u64) -> Pdu {
        Pdu {
            seq,
            ..Pdu::default()
        }
    }

    #[test]
    fn a_shorter_path_overtakes_and_no_path_gives_the_pdu_back() {
        // 100 until 50, then 20 (the path shortened), none from 200 on.
        let mut d = DelayLine::scheduled(DelaySchedule {
            times_ps: vec![Duration(0), Duration(50), Duration(200)],
            delays_ps: vec![Some(Duration(100)), Some(Duration(20)), None],
        });
        assert!(d.push(Time(0), pdu(1)).is_none()); // arrives 100
        assert!(d.push(Time(40), pdu(2)).is_none()); // arrives 140
        assert!(d.push(Time(60), pdu(3)).is_none()); // arrives 80: first
        assert!(d.push(Time(80), pdu(4)).is_none()); // arrives 100: after 1
        assert_eq!(d.push(Time(200), pdu(5)).map(|p| p.seq), Some(5));
        let mut order = vec![];
        for t in [80, 100, 140] {
            assert_eq!(d.head_arrival(), Time(t));
            while let Some(p) = d.pop_arrived(Time(t)) {
                order.push(p.seq);
            }
        }
        assert_eq!(order, vec![3, 1, 4, 2]);
        assert_eq!(d.delay_at(Time(70)), Some(Duration(20)));
        assert_eq!(d.delay_at(Time(250)), None);
    }
}
