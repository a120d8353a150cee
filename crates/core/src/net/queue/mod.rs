//! Queue disciplines of a link's output buffer, one file each:
//!
//! - `drop_tail`: FIFO limited in packets or bytes.
//! - `two_priority`: strict two-priority queue with a CLP=1 selective-
//!   discard threshold (proactive-ATM thesis §4).
//! - `red`: Random Early Detection, gentle and adaptive (an AQM that
//!   decides at arrival).
//! - `codel`: CoDel, RFC 8289 (an AQM that drops at dequeue).
//! - `pie`: PIE, RFC 8033 (an AQM that decides at arrival, by delay).
//! - `dualpi2`: DualPI2, RFC 9332's coupled L4S/classic dual queue.
//! - `fq_codel`: FQ-CoDel, RFC 8290 (flow queues under deficit round
//!   robin, each with its CoDel).
//!
//! A discipline implements `QueueDiscipline`; `QueueConfig` is its entry in
//! a scenario description and builds it, and `Queue` is the one dispatch
//! point the link holds. Occupancy counts units waiting, not the one in
//! transmission.
//!
//! An active queue management (AQM) discipline adds what drop-tail does
//! not need: an arrival may change its state and draw random numbers
//! (`Queue::admit`, with its own stream named after the link), a verdict
//! may mark instead of drop (`Verdict::Marked`, `mark_or_drop`), and
//! `pop` may discard PDUs at dequeue, handing them to the link in
//! `Dequeued` for the world to book in their flows.

mod codel;
mod drop_tail;
mod dualpi2;
mod fifo;
mod fq_codel;
mod pie;
mod red;
mod two_priority;

pub use codel::{Codel, CodelConfig};
pub use drop_tail::DropTail;
pub use dualpi2::{DualPi2, DualPi2Config};
pub use fq_codel::{FqCodel, FqCodelConfig};
pub use pie::{Pie, PieConfig};
pub use red::{Red, RedConfig};
pub use two_priority::{LevelConfig, TwoPriority};

use super::pdu::{ecn, Pdu};
use crate::engine::{Check, ConfigError, Duration, Rate, RngStream, Time};
use fifo::Fifo;
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
    /// Admitted with its ECN field set to CE, instead of an early drop.
    Marked,
    /// Discarded early by an AQM (RED's probabilistic drop) though there
    /// was room.
    DroppedEarly,
}

impl Verdict {
    /// Whether the unit was admitted (marked or not).
    #[inline]
    pub fn admitted(self) -> bool {
        matches!(self, Verdict::Queued | Verdict::Marked)
    }
}

/// An AQM's early verdict on `p`: marked (its ECN field set to CE) when
/// `ecn` is on and `p` is ECN-capable, dropped otherwise (RFC 3168 §5,
/// RFC 7567 §4.2.1).
pub(crate) fn mark_or_drop(p: &mut Pdu, ecn: bool) -> Verdict {
    if ecn && p.ecn != ecn::NOT_ECT {
        p.ecn = ecn::CE;
        Verdict::Marked
    } else {
        Verdict::DroppedEarly
    }
}

/// What a discipline discarded or marked at dequeue (CoDel): the link
/// holds one, and the world takes `flows` to book each drop in its flow.
#[derive(Clone, Debug, Default)]
pub(crate) struct Dequeued {
    /// The flow of each PDU dropped and not yet booked.
    pub(crate) flows: Vec<u32>,
    /// PDUs dropped at dequeue, in all.
    pub(crate) drops: u64,
    /// PDUs marked CE at dequeue, in all.
    pub(crate) marks: u64,
    /// PDUs already waiting dropped at an arrival to make room
    /// (FQ-CoDel's drop from the fattest queue), in all; their flows are
    /// in `flows` too.
    pub(crate) overflow: u64,
}

/// What every queue discipline is to the link that holds it. The link asks
/// `admission` of every arrival (even one it can send at once, so a zero
/// CLP threshold discards on an idle link too), `push`es what is admitted
/// and cannot go at once, and `pop`s the next unit when the transmitter
/// frees. `now` is given to both so that a discipline that judges by
/// sojourn time (CoDel, PIE) can stamp and measure it.
pub(crate) trait QueueDiscipline: Occupancy {
    /// Whether the queue would take `p` now; changes nothing.
    fn admission(&self, p: &Pdu) -> Verdict;
    /// Stores `p`, which `admission` has just admitted.
    fn push(&mut self, p: Pdu, now: Time);
    /// The next unit to transmit, if any; what it discards or marks on
    /// the way goes to `out`.
    fn pop(&mut self, now: Time, out: &mut Dequeued) -> Option<Pdu>;
}

/// What a queue holds, for the link's statistics and the end-of-run
/// accounting.
pub(crate) trait Occupancy {
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

/// A discipline whose units all wait in one FIFO (drop-tail, RED, CoDel,
/// PIE): what it holds is what the FIFO holds.
trait OneFifo {
    fn fifo(&self) -> &Fifo;
}

impl<T: OneFifo> Occupancy for T {
    fn packets(&self) -> u64 {
        self.fifo().len()
    }

    fn packets_at(&self, level: usize) -> u64 {
        self.fifo().packets_at(level)
    }

    fn bytes(&self) -> u64 {
        self.fifo().bytes
    }

    fn for_each_waiting(&self, f: &mut dyn FnMut(&Pdu)) {
        self.fifo().for_each(f);
    }
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
    /// Random Early Detection (`queue.type = "red"`).
    Red(RedConfig),
    /// CoDel, RFC 8289 (`queue.type = "codel"`).
    Codel(CodelConfig),
    /// PIE, RFC 8033 (`queue.type = "pie"`).
    Pie(PieConfig),
    /// DualPI2, RFC 9332 (`queue.type = "dualpi2"`).
    Dualpi2(DualPi2Config),
    /// FQ-CoDel, RFC 8290 (`queue.type = "fq_codel"`).
    FqCodel(FqCodelConfig),
}

impl QueueConfig {
    /// The discipline this entry describes, empty; a random one draws
    /// from the stream `{at}.queue` of the run with `seed`.
    pub fn build_at(&self, seed: u64, at: &str) -> Queue {
        match *self {
            QueueConfig::Droptail { limit } => Queue::DropTail(DropTail::new(limit)),
            QueueConfig::Priority { high, low } => Queue::TwoPriority(TwoPriority::new(high, low)),
            QueueConfig::Red(c) => {
                let rng = RngStream::new(seed, &format!("{at}.queue"));
                Queue::Red(Box::new(Red::new(c, rng)))
            }
            QueueConfig::Codel(c) => Queue::Codel(Box::new(Codel::new(c))),
            QueueConfig::Pie(c) => {
                let rng = RngStream::new(seed, &format!("{at}.queue"));
                Queue::Pie(Box::new(Pie::new(c, rng)))
            }
            QueueConfig::Dualpi2(c) => {
                let rng = RngStream::new(seed, &format!("{at}.queue"));
                Queue::DualPi2(Box::new(DualPi2::new(c, rng)))
            }
            QueueConfig::FqCodel(c) => {
                let rng = RngStream::new(seed, &format!("{at}.queue"));
                Queue::FqCodel(Box::new(FqCodel::new(c, rng)))
            }
        }
    }

    /// The discipline this entry describes, empty (a random one seeded 0).
    pub fn build(&self) -> Queue {
        self.build_at(0, "")
    }
}

impl Check for QueueConfig {
    fn check(&self) -> Result<(), ConfigError> {
        match self {
            QueueConfig::Red(c) => c.check(),
            QueueConfig::Codel(c) => c.check(),
            QueueConfig::Pie(c) => c.check(),
            QueueConfig::Dualpi2(c) => c.check(),
            QueueConfig::FqCodel(c) => c.check(),
            _ => Ok(()),
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
    /// RED; boxed, so that the link does not grow for the others.
    Red(Box<Red>),
    /// CoDel; boxed likewise.
    Codel(Box<Codel>),
    /// PIE; boxed likewise.
    Pie(Box<Pie>),
    /// DualPI2; boxed likewise.
    DualPi2(Box<DualPi2>),
    /// FQ-CoDel; boxed likewise.
    FqCodel(Box<FqCodel>),
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
            Queue::Red(q) => q.admission(p),
            Queue::Codel(q) => q.admission(p),
            Queue::Pie(q) => q.admission(p),
            Queue::DualPi2(q) => q.admission(p),
            Queue::FqCodel(q) => q.admission(p),
        }
    }

    /// Decides on arriving `p` at `now`, which may change the queue's
    /// state and `p`'s ECN field. `idle` says, for the disciplines that
    /// ask, how long the link has been idle with nothing queued, and at
    /// what rate it sends.
    #[inline(always)]
    pub(crate) fn admit(
        &mut self,
        p: &mut Pdu,
        now: Time,
        idle: impl FnOnce() -> Option<(Duration, Rate)>,
    ) -> Verdict {
        match self {
            Queue::DropTail(q) => q.admission(p),
            Queue::TwoPriority(q) => q.admission(p),
            Queue::Red(q) => q.admit(p, now, idle()),
            Queue::Codel(q) => q.admission(p),
            Queue::Pie(q) => q.admit(p, now),
            Queue::DualPi2(q) => q.admission(p),
            Queue::FqCodel(q) => q.admission(p),
        }
    }

    /// Whether the discipline is an AQM, with keys of its own in the summary.
    pub(crate) fn is_aqm(&self) -> bool {
        matches!(
            self,
            Queue::Red(_) | Queue::Codel(_) | Queue::Pie(_) | Queue::DualPi2(_) | Queue::FqCodel(_)
        )
    }

    /// The RED queue, if it is one.
    pub(crate) fn red(&self) -> Option<&Red> {
        match self {
            Queue::Red(q) => Some(q),
            _ => None,
        }
    }

    /// The PIE queue, if it is one.
    pub(crate) fn pie(&self) -> Option<&Pie> {
        match self {
            Queue::Pie(q) => Some(q),
            _ => None,
        }
    }

    /// The DualPI2 queue, if it is one.
    pub(crate) fn dualpi2(&self) -> Option<&DualPi2> {
        match self {
            Queue::DualPi2(q) => Some(q),
            _ => None,
        }
    }

    /// Stores `p`, which `admission` has just admitted; PDUs already
    /// waiting that a discipline drops to make room go to `out`.
    #[inline(always)]
    pub(crate) fn push_admitted(&mut self, p: Pdu, now: Time, out: &mut Dequeued) {
        match self {
            Queue::DropTail(q) => q.push(p, now),
            Queue::TwoPriority(q) => q.push(p, now),
            Queue::Red(q) => q.push(p, now),
            Queue::Codel(q) => q.push(p, now),
            Queue::Pie(q) => q.push(p, now),
            Queue::DualPi2(q) => q.push(p, now),
            Queue::FqCodel(q) => q.push_to(p, out),
        }
    }

    /// Admits `p` at `now` if `admission` allows it.
    pub fn push(&mut self, p: Pdu, now: Time) -> Verdict {
        let v = self.admission(&p);
        if v == Verdict::Queued {
            self.push_admitted(p, now, &mut Dequeued::default());
        }
        v
    }

    #[inline(always)]
    pub(crate) fn pop(&mut self, now: Time, out: &mut Dequeued) -> Option<Pdu> {
        match self {
            Queue::DropTail(q) => q.pop(now, out),
            Queue::TwoPriority(q) => q.pop(now, out),
            Queue::Red(q) => q.pop(now, out),
            Queue::Codel(q) => q.pop(now, out),
            Queue::Pie(q) => q.pop(now, out),
            Queue::DualPi2(q) => q.pop(now, out),
            Queue::FqCodel(q) => q.pop(now, out),
        }
    }

    #[inline(always)]
    pub(crate) fn packets(&self) -> u64 {
        match self {
            Queue::DropTail(q) => q.packets(),
            Queue::TwoPriority(q) => q.packets(),
            Queue::Red(q) => q.packets(),
            Queue::Codel(q) => q.packets(),
            Queue::Pie(q) => q.packets(),
            Queue::DualPi2(q) => q.packets(),
            Queue::FqCodel(q) => q.packets(),
        }
    }

    /// Units of priority `level` waiting (in a drop-tail queue too, which
    /// serves both levels in arrival order).
    #[inline(always)]
    pub(crate) fn packets_at(&self, level: usize) -> u64 {
        match self {
            Queue::DropTail(q) => q.packets_at(level),
            Queue::TwoPriority(q) => q.packets_at(level),
            Queue::Red(q) => q.packets_at(level),
            Queue::Codel(q) => q.packets_at(level),
            Queue::Pie(q) => q.packets_at(level),
            Queue::DualPi2(q) => q.packets_at(level),
            Queue::FqCodel(q) => q.packets_at(level),
        }
    }

    /// Bytes waiting, not counting the PDU in transmission.
    #[inline]
    pub fn bytes(&self) -> u64 {
        match self {
            Queue::DropTail(q) => q.bytes(),
            Queue::TwoPriority(q) => q.bytes(),
            Queue::Red(q) => q.bytes(),
            Queue::Codel(q) => q.bytes(),
            Queue::Pie(q) => q.bytes(),
            Queue::DualPi2(q) => q.bytes(),
            Queue::FqCodel(q) => q.bytes(),
        }
    }

    /// Every PDU waiting, in no particular order (end-of-run accounting).
    pub(crate) fn for_each_waiting(&self, mut f: impl FnMut(&Pdu)) {
        match self {
            Queue::DropTail(q) => q.for_each_waiting(&mut f),
            Queue::TwoPriority(q) => q.for_each_waiting(&mut f),
            Queue::Red(q) => q.for_each_waiting(&mut f),
            Queue::Codel(q) => q.for_each_waiting(&mut f),
            Queue::Pie(q) => q.for_each_waiting(&mut f),
            Queue::DualPi2(q) => q.for_each_waiting(&mut f),
            Queue::FqCodel(q) => q.for_each_waiting(&mut f),
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
            class: crate::net::Class::new(priority, clp),
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
        assert_eq!(q.pop(Time::ZERO, &mut Dequeued::default()).unwrap().seq, 0);
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
        let order: Vec<u64> =
            std::iter::from_fn(|| q.pop(Time::ZERO, &mut Dequeued::default()).map(|p| p.seq))
                .collect();
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
