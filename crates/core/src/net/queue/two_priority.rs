//! Strict two-priority queue with a per-level maximum length and a
//! selective-discard threshold for CLP=1 units (proactive-ATM thesis §4
//! and §4.1, Fig. 4): below the threshold every unit is admitted; at or
//! above it CLP=1 units are discarded and CLP=0 units are admitted while
//! the level is below its maximum. Priority 0 is always served first,
//! non-preemptively.

use super::fifo::{level, Fifo};
use super::{Limit, Occupancy, QueueDiscipline, Verdict};
use crate::engine::Time;
use crate::net::pdu::Pdu;
use serde::{Deserialize, Serialize};

/// One priority level's limits.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LevelConfig {
    /// The most this level holds (`limit`), in packets or bytes.
    pub limit: Limit,
    /// The occupancy at or above which arriving CLP=1 PDUs are discarded
    /// (`clp_threshold`, thesis §4 selective discard); the scenario's
    /// default is `limit`.
    pub clp_threshold: Limit,
}

/// Strict two-priority queue: priority 0 is always served first,
/// non-preemptively; each level has its limit and CLP=1 threshold.
#[derive(Clone, Debug)]
pub struct TwoPriority {
    fifos: [Fifo; 2],
    config: [LevelConfig; 2],
}

impl TwoPriority {
    /// An empty queue with these levels for priority 0 and 1.
    pub fn new(high: LevelConfig, low: LevelConfig) -> TwoPriority {
        TwoPriority {
            fifos: [Fifo::new(), Fifo::new()],
            config: [high, low],
        }
    }
}

impl QueueDiscipline for TwoPriority {
    fn admission(&self, p: &Pdu) -> Verdict {
        let level = level(p);
        let (f, c) = (&self.fifos[level], self.config[level]);
        let (n, b) = (f.len(), f.bytes);
        if p.clp() != 0 && !c.clp_threshold.above_occupancy(n, b) {
            Verdict::DroppedClp
        } else if c.limit.fits(n, b, p.bytes) {
            Verdict::Queued
        } else {
            Verdict::DroppedFull
        }
    }

    fn push(&mut self, p: Pdu, _now: Time) {
        self.fifos[level(&p)].push(p);
    }

    fn pop(&mut self, _now: Time, _out: &mut super::Dequeued) -> Option<Pdu> {
        self.fifos[0].pop().or_else(|| self.fifos[1].pop())
    }
}

impl Occupancy for TwoPriority {
    fn packets(&self) -> u64 {
        self.fifos[0].len() + self.fifos[1].len()
    }

    fn packets_at(&self, level: usize) -> u64 {
        self.fifos[level.min(1)].len()
    }

    fn bytes(&self) -> u64 {
        self.fifos[0].bytes + self.fifos[1].bytes
    }

    fn for_each_waiting(&self, f: &mut dyn FnMut(&Pdu)) {
        self.fifos[0]
            .q
            .iter()
            .chain(self.fifos[1].q.iter())
            .for_each(f);
    }
}
