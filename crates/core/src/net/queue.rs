//! Queue disciplines of a link's output buffer.
//!
//! - Drop-tail FIFO limited in packets or bytes.
//! - Strict two-priority queue with per-priority maximum length and a
//!   selective-discard threshold for CLP=1 units (proactive-ATM thesis §4 and
//!   §4.1, Fig. 4): below the threshold every unit is admitted; at or above it
//!   CLP=1 units are discarded and CLP=0 units are admitted while the queue is
//!   below its maximum. Priority 0 is always served first, non-preemptively.
//!
//! Occupancy counts units waiting, not the one in transmission.

use super::pdu::Pdu;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// A queue limit; in a scenario description `{"packets": n}` or
/// `{"bytes": n}`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Limit {
    Packets(u64),
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

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    Queued,
    /// Discarded because the queue was full.
    DroppedFull,
    /// Discarded by the CLP=1 selective-discard threshold.
    DroppedClp,
}

/// One FIFO with occupancy counters.
#[derive(Clone, Debug)]
struct Fifo {
    q: VecDeque<Pdu>,
    bytes: u64,
    by_priority: [u64; 2],
}

impl Fifo {
    fn new() -> Fifo {
        Fifo {
            q: VecDeque::new(),
            bytes: 0,
            by_priority: [0; 2],
        }
    }
    fn push(&mut self, p: Pdu) {
        self.bytes += p.bytes as u64;
        self.by_priority[(p.priority as usize).min(1)] += 1;
        self.q.push_back(p);
    }
    fn pop(&mut self) -> Option<Pdu> {
        let p = self.q.pop_front()?;
        self.bytes -= p.bytes as u64;
        self.by_priority[(p.priority as usize).min(1)] -= 1;
        Some(p)
    }
    fn len(&self) -> u64 {
        self.q.len() as u64
    }
}

#[derive(Clone, Debug)]
pub struct DropTail {
    fifo: Fifo,
    limit: Limit,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LevelConfig {
    pub limit: Limit,
    pub clp_threshold: Limit,
}

#[derive(Clone, Debug)]
pub struct TwoPriority {
    fifos: [Fifo; 2],
    config: [LevelConfig; 2],
}

/// A queue in a scenario description (`links[].queue`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum QueueConfig {
    Droptail { limit: Limit },
    Priority { high: LevelConfig, low: LevelConfig },
}

impl QueueConfig {
    pub fn build(&self) -> Queue {
        match *self {
            QueueConfig::Droptail { limit } => Queue::drop_tail(limit),
            QueueConfig::Priority { high, low } => Queue::two_priority(high, low),
        }
    }
}

#[derive(Clone, Debug)]
pub enum Queue {
    DropTail(DropTail),
    TwoPriority(TwoPriority),
}

impl Queue {
    pub fn drop_tail(limit: Limit) -> Queue {
        Queue::DropTail(DropTail {
            fifo: Fifo::new(),
            limit,
        })
    }

    pub fn two_priority(high: LevelConfig, low: LevelConfig) -> Queue {
        Queue::TwoPriority(TwoPriority {
            fifos: [Fifo::new(), Fifo::new()],
            config: [high, low],
        })
    }

    /// Whether the queue would take `p` now; changes nothing. An arrival at
    /// an idle link is judged too, so a zero CLP threshold discards every
    /// CLP=1 unit even when the link is free.
    pub fn admission(&self, p: &Pdu) -> Verdict {
        match self {
            Queue::DropTail(d) => {
                if d.limit.fits(d.fifo.len(), d.fifo.bytes, p.bytes) {
                    Verdict::Queued
                } else {
                    Verdict::DroppedFull
                }
            }
            Queue::TwoPriority(t) => {
                let level = (p.priority as usize).min(1);
                let (f, c) = (&t.fifos[level], t.config[level]);
                let (n, b) = (f.len(), f.bytes);
                if p.clp != 0 && !c.clp_threshold.above_occupancy(n, b) {
                    Verdict::DroppedClp
                } else if c.limit.fits(n, b, p.bytes) {
                    Verdict::Queued
                } else {
                    Verdict::DroppedFull
                }
            }
        }
    }

    /// Admits `p` if `admission` allows it.
    pub fn push(&mut self, p: Pdu) -> Verdict {
        let v = self.admission(&p);
        if v == Verdict::Queued {
            match self {
                Queue::DropTail(d) => d.fifo.push(p),
                Queue::TwoPriority(t) => t.fifos[(p.priority as usize).min(1)].push(p),
            }
        }
        v
    }

    pub fn pop(&mut self) -> Option<Pdu> {
        match self {
            Queue::DropTail(d) => d.fifo.pop(),
            Queue::TwoPriority(t) => t.fifos[0].pop().or_else(|| t.fifos[1].pop()),
        }
    }

    pub fn packets(&self) -> u64 {
        match self {
            Queue::DropTail(d) => d.fifo.len(),
            Queue::TwoPriority(t) => t.fifos[0].len() + t.fifos[1].len(),
        }
    }

    /// Units of priority `level` waiting (in a drop-tail queue too, which
    /// serves both levels in arrival order).
    pub fn packets_at(&self, level: usize) -> u64 {
        match self {
            Queue::DropTail(d) => d.fifo.by_priority[level.min(1)],
            Queue::TwoPriority(t) => t.fifos[level.min(1)].len(),
        }
    }

    pub fn bytes(&self) -> u64 {
        match self {
            Queue::DropTail(d) => d.fifo.bytes,
            Queue::TwoPriority(t) => t.fifos[0].bytes + t.fifos[1].bytes,
        }
    }

    /// Every PDU waiting, in no particular order (end-of-run accounting).
    pub fn iter(&self) -> Box<dyn Iterator<Item = &Pdu> + '_> {
        match self {
            Queue::DropTail(d) => Box::new(d.fifo.q.iter()),
            Queue::TwoPriority(t) => Box::new(t.fifos[0].q.iter().chain(t.fifos[1].q.iter())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(q.push(pdu(100, 0, 0, 0)), Verdict::Queued);
        assert_eq!(q.push(pdu(100, 0, 0, 1)), Verdict::Queued);
        assert_eq!(q.push(pdu(100, 0, 0, 2)), Verdict::DroppedFull);
        assert_eq!(q.pop().unwrap().seq, 0);
        assert_eq!(q.packets(), 1);
    }

    #[test]
    fn drop_tail_byte_limit_admits_exact_fit() {
        let mut q = Queue::drop_tail(Limit::Bytes(250));
        assert_eq!(q.push(pdu(100, 0, 0, 0)), Verdict::Queued);
        assert_eq!(q.push(pdu(150, 0, 0, 1)), Verdict::Queued);
        assert_eq!(q.push(pdu(1, 0, 0, 2)), Verdict::DroppedFull);
        assert_eq!(q.bytes(), 250);
    }

    #[test]
    fn high_priority_served_first_fifo_within_level() {
        let cfg = LevelConfig {
            limit: Limit::Packets(10),
            clp_threshold: Limit::Packets(10),
        };
        let mut q = Queue::two_priority(cfg, cfg);
        q.push(pdu(53, 1, 0, 0));
        q.push(pdu(53, 0, 0, 1));
        q.push(pdu(53, 1, 0, 2));
        q.push(pdu(53, 0, 0, 3));
        let order: Vec<u64> = std::iter::from_fn(|| q.pop().map(|p| p.seq)).collect();
        assert_eq!(order, vec![1, 3, 0, 2]);
    }

    #[test]
    fn byte_threshold_is_on_occupancy_and_zero_discards_all_marked() {
        let cfg = LevelConfig {
            limit: Limit::Bytes(2000),
            clp_threshold: Limit::Bytes(1000),
        };
        let mut q = Queue::two_priority(cfg, cfg);
        q.push(pdu(500, 1, 0, 0));
        // 500 B waiting, below the 1000 B threshold: a 600 B CLP=1 unit enters.
        assert_eq!(q.push(pdu(600, 1, 1, 1)), Verdict::Queued);
        assert_eq!(q.push(pdu(10, 1, 1, 2)), Verdict::DroppedClp);
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
        assert_eq!(q.push(pdu(53, 1, 1, 0)), Verdict::Queued);
        assert_eq!(q.push(pdu(53, 1, 0, 1)), Verdict::Queued);
        assert_eq!(q.push(pdu(53, 1, 1, 2)), Verdict::DroppedClp);
        assert_eq!(q.push(pdu(53, 1, 0, 3)), Verdict::Queued);
        assert_eq!(q.push(pdu(53, 1, 0, 4)), Verdict::DroppedFull);
        // The other priority has its own room.
        assert_eq!(q.push(pdu(53, 0, 1, 5)), Verdict::Queued);
        assert_eq!(q.packets(), 4);
    }
}
