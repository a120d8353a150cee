//! Queue disciplines of a link's output buffer, one file each:
//!
//! - `drop_tail`: FIFO limited in packets or bytes.
//! - `two_priority`: strict two-priority queue with a CLP=1 selective-
//!   discard threshold (proactive-ATM thesis §4).
//!
//! A discipline implements `QueueDiscipline`; `QueueConfig` is its entry in
//! a scenario description and builds it, and `Queue` is the one dispatch
//! point the link holds. Occupancy counts units waiting, not the one in
//! transmission.

mod drop_tail;
mod fifo;
mod two_priority;

pub use drop_tail::DropTail;
pub use two_priority::{LevelConfig, TwoPriority};

use super::pdu::Pdu;
use crate::engine::Time;
use serde::{Deserialize, Serialize};

/// A queue limit; in a scenario description `{"packets": n}` or
/// `{"bytes": n}`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Limit {
    /// At most this many units waiting (PDUs, or cells at an ATM port).
    Packets(u64),
    /// At most this many bytes waiting: a PDU is admitted only if all of it
    /// fits.
    Bytes(u64),
}

impl Limit {
    /// Does a PDU of `add` bytes still fit a queue holding `packets`/`bytes`?
    fn fits(self, packets: u64, bytes: u64, add: u32) -> bool {
        match self {
            Limit::Packets(n) => packets < n,
            Limit::Bytes(n) => bytes + add as u64 <= n,
        }
    }

    /// Is the occupancy below this threshold? (Thesis §4: CLP=1 units are
    /// discarded once the count reaches the threshold.)
    fn above_occupancy(self, packets: u64, bytes: u64) -> bool {
        match self {
            Limit::Packets(n) => packets < n,
            Limit::Bytes(n) => bytes < n,
        }
    }
}

/// What a queue does with an arriving unit.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Admitted: it waits, or goes at once if the transmitter is free.
    Queued,
    /// Discarded because the queue was full.
    DroppedFull,
    /// Discarded by the CLP=1 selective-discard threshold.
    DroppedClp,
}

/// What every queue discipline is to the link that holds it. The link asks
/// `admission` of every arrival (even one it can send at once, so a zero
/// CLP threshold discards on an idle link too), `push`es what is admitted
/// and cannot go at once, and `pop`s the next unit when the transmitter
/// frees. `now` is given to both so that a discipline that judges by
/// sojourn time (CoDel, PIE) can stamp and measure it.
pub(crate) trait QueueDiscipline {
    /// Whether the queue would take `p` now; changes nothing.
    fn admission(&self, p: &Pdu) -> Verdict;
    /// Stores `p`, which `admission` has just admitted.
    fn push(&mut self, p: Pdu, now: Time);
    /// The next unit to transmit, if any.
    fn pop(&mut self, now: Time) -> Option<Pdu>;
    /// Units waiting.
    fn packets(&self) -> u64;
    /// Units of priority `level` waiting (0 high; 1 low and every other).
    fn packets_at(&self, level: usize) -> u64;
    /// Bytes waiting.
    fn bytes(&self) -> u64;
    /// Calls `f` on every unit waiting, in no particular order (end-of-run
    /// accounting).
    fn for_each_waiting(&self, f: &mut dyn FnMut(&Pdu));
}

/// A queue in a scenario description (`links[].queue`): the registration
/// of each discipline, by its `kind`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum QueueConfig {
    /// A FIFO that discards what it cannot hold
    /// (`queue.type = "droptail"`); both priorities share it in arrival
    /// order.
    Droptail {
        /// Its limit (the scenario's default: 1000 packets).
        limit: Limit,
    },
    /// A strict two-priority queue with CLP=1 selective discard
    /// (`queue.type = "priority"`, proactive-ATM thesis §4, Fig. 4).
    Priority {
        /// The level of priority-0 PDUs, always served first.
        high: LevelConfig,
        /// The level of priority-1 PDUs, served when `high` is empty.
        low: LevelConfig,
    },
}

impl QueueConfig {
    /// The discipline this entry describes, empty.
    pub fn build(&self) -> Queue {
        match *self {
            QueueConfig::Droptail { limit } => Queue::DropTail(DropTail::new(limit)),
            QueueConfig::Priority { high, low } => Queue::TwoPriority(TwoPriority::new(high, low)),
        }
    }
}

/// The queue a link holds: one variant per discipline. Each method
/// dispatches with a `match` rather than through `&dyn QueueDiscipline`:
/// the queue is on every PDU's path, and an indirect call there cost 9 %
/// of B1's instructions (BENCHMARKS.md). Being exhaustive, the matches
/// make the compiler list every arm a new discipline still lacks.
#[derive(Clone, Debug)]
pub enum Queue {
    /// A drop-tail FIFO.
    DropTail(DropTail),
    /// A strict two-priority queue with CLP=1 selective discard.
    TwoPriority(TwoPriority),
}

impl Queue {
    #[cfg(test)]
    pub(crate) fn drop_tail(limit: Limit) -> Queue {
        QueueConfig::Droptail { limit }.build()
    }

    /// A strict two-priority queue with these levels for priority 0 and 1.
    pub fn two_priority(high: LevelConfig, low: LevelConfig) -> Queue {
        QueueConfig::Priority { high, low }.build()
    }

    /// Whether the queue would take `p` now; changes nothing.
    #[inline]
    pub(crate) fn admission(&self, p: &Pdu) -> Verdict {
        match self {
            Queue::DropTail(q) => q.admission(p),
            Queue::TwoPriority(q) => q.admission(p),
        }
    }

    /// Stores `p`, which `admission` has just admitted.
    #[inline]
    pub(crate) fn push_admitted(&mut self, p: Pdu, now: Time) {
        match self {
            Queue::DropTail(q) => q.push(p, now),
            Queue::TwoPriority(q) => q.push(p, now),
        }
    }

    /// Admits `p` at `now` if `admission` allows it.
    pub fn push(&mut self, p: Pdu, now: Time) -> Verdict {
        let v = self.admission(&p);
        if v == Verdict::Queued {
            self.push_admitted(p, now);
        }
        v
    }

    #[inline]
    pub(crate) fn pop(&mut self, now: Time) -> Option<Pdu> {
        match self {
            Queue::DropTail(q) => q.pop(now),
            Queue::TwoPriority(q) => q.pop(now),
        }
    }

    #[inline]
    pub(crate) fn packets(&self) -> u64 {
        match self {
            Queue::DropTail(q) => q.packets(),
            Queue::TwoPriority(q) => q.packets(),
        }
    }

    /// Units of priority `level` waiting (in a drop-tail queue too, which
    /// serves both levels in arrival order).
    #[inline]
    pub(crate) fn packets_at(&self, level: usize) -> u64 {
        match self {
            Queue::DropTail(q) => q.packets_at(level),
            Queue::TwoPriority(q) => q.packets_at(level),
        }
    }

    /// Bytes waiting, not counting the PDU in transmission.
    #[inline]
    pub fn bytes(&self) -> u64 {
        match self {
            Queue::DropTail(q) => q.bytes(),
            Queue::TwoPriority(q) => q.bytes(),
        }
    }

    /// Every PDU waiting, in no particular order (end-of-run accounting).
    pub(crate) fn for_each_waiting(&self, mut f: impl FnMut(&Pdu)) {
        match self {
            Queue::DropTail(q) => q.for_each_waiting(&mut f),
            Queue::TwoPriority(q) => q.for_each_waiting(&mut f),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Time;

    fn pdu(bytes: u32, priority: u8, clp: u8, seq: u64) -> Pdu {
        Pdu {
            bytes,
            priority,
            clp,
            seq,
            ..Pdu::default()
        }
    }

    #[test]
    fn drop_tail_packet_limit() {
        let mut q = Queue::drop_tail(Limit::Packets(2));
        assert_eq!(q.push(pdu(100, 0, 0, 0), Time::ZERO), Verdict::Queued);
        assert_eq!(q.push(pdu(100, 0, 0, 1), Time::ZERO), Verdict::Queued);
        assert_eq!(q.push(pdu(100, 0, 0, 2), Time::ZERO), Verdict::DroppedFull);
        assert_eq!(q.pop(Time::ZERO).unwrap().seq, 0);
        assert_eq!(q.packets(), 1);
    }

    #[test]
    fn drop_tail_byte_limit_admits_exact_fit() {
        let mut q = Queue::drop_tail(Limit::Bytes(250));
        assert_eq!(q.push(pdu(100, 0, 0, 0), Time::ZERO), Verdict::Queued);
        assert_eq!(q.push(pdu(150, 0, 0, 1), Time::ZERO), Verdict::Queued);
        assert_eq!(q.push(pdu(1, 0, 0, 2), Time::ZERO), Verdict::DroppedFull);
        assert_eq!(q.bytes(), 250);
    }

    #[test]
    fn high_priority_served_first_fifo_within_level() {
        let cfg = LevelConfig {
            limit: Limit::Packets(10),
            clp_threshold: Limit::Packets(10),
        };
        let mut q = Queue::two_priority(cfg, cfg);
        q.push(pdu(53, 1, 0, 0), Time::ZERO);
        q.push(pdu(53, 0, 0, 1), Time::ZERO);
        q.push(pdu(53, 1, 0, 2), Time::ZERO);
        q.push(pdu(53, 0, 0, 3), Time::ZERO);
        let order: Vec<u64> = std::iter::from_fn(|| q.pop(Time::ZERO).map(|p| p.seq)).collect();
        assert_eq!(order, vec![1, 3, 0, 2]);
    }

    #[test]
    fn byte_threshold_is_on_occupancy_and_zero_discards_all_marked() {
        let cfg = LevelConfig {
            limit: Limit::Bytes(2000),
            clp_threshold: Limit::Bytes(1000),
        };
        let mut q = Queue::two_priority(cfg, cfg);
        q.push(pdu(500, 1, 0, 0), Time::ZERO);
        // 500 B waiting, below the 1000 B threshold: a 600 B CLP=1 unit enters.
        assert_eq!(q.push(pdu(600, 1, 1, 1), Time::ZERO), Verdict::Queued);
        assert_eq!(q.push(pdu(10, 1, 1, 2), Time::ZERO), Verdict::DroppedClp);
        let zero = LevelConfig {
            limit: Limit::Packets(10),
            clp_threshold: Limit::Packets(0),
        };
        let q = Queue::two_priority(zero, zero);
        assert_eq!(q.admission(&pdu(53, 0, 1, 0)), Verdict::DroppedClp);
        assert_eq!(q.admission(&pdu(53, 0, 0, 0)), Verdict::Queued);
    }

    #[test]
    fn clp_threshold_discards_marked_units_only() {
        // Thesis §4: threshold 2, maximum 3.
        let cfg = LevelConfig {
            limit: Limit::Packets(3),
            clp_threshold: Limit::Packets(2),
        };
        let mut q = Queue::two_priority(cfg, cfg);
        assert_eq!(q.push(pdu(53, 1, 1, 0), Time::ZERO), Verdict::Queued);
        assert_eq!(q.push(pdu(53, 1, 0, 1), Time::ZERO), Verdict::Queued);
        assert_eq!(q.push(pdu(53, 1, 1, 2), Time::ZERO), Verdict::DroppedClp);
        assert_eq!(q.push(pdu(53, 1, 0, 3), Time::ZERO), Verdict::Queued);
        assert_eq!(q.push(pdu(53, 1, 0, 4), Time::ZERO), Verdict::DroppedFull);
        // The other priority has its own room.
        assert_eq!(q.push(pdu(53, 0, 1, 5), Time::ZERO), Verdict::Queued);
        assert_eq!(q.packets(), 4);
    }
}
