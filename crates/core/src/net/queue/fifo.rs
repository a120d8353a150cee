//! A first-in first-out buffer with the occupancy counters every
//! discipline reports: packets, bytes, and packets per CLP/priority level.

use super::{Limit, Verdict};
use crate::net::pdu::Pdu;
use std::collections::VecDeque;

#[derive(Clone, Debug)]
pub(super) struct Fifo {
    pub(super) q: VecDeque<Pdu>,
    pub(super) bytes: u64,
    /// Units waiting per priority level (0 high, 1 low and every other).
    pub(super) by_priority: [u64; 2],
}

impl Fifo {
    pub(super) fn new() -> Fifo {
        Fifo {
            q: VecDeque::new(),
            bytes: 0,
            by_priority: [0; 2],
        }
    }

    pub(super) fn push(&mut self, p: Pdu) {
        self.bytes += p.bytes as u64;
        self.by_priority[level(&p)] += 1;
        self.q.push_back(p);
    }

    pub(super) fn pop(&mut self) -> Option<Pdu> {
        let p = self.q.pop_front()?;
        self.bytes -= p.bytes as u64;
        self.by_priority[level(&p)] -= 1;
        Some(p)
    }

    pub(super) fn len(&self) -> u64 {
        self.q.len() as u64
    }

    /// Whether a PDU of `add` bytes still fits under `limit`.
    pub(super) fn fits(&self, limit: Limit, add: u32) -> bool {
        limit.fits(self.len(), self.bytes, add)
    }

    /// A tail-drop limit's verdict on a PDU of `add` bytes: queued if it
    /// fits under `limit`, dropped as overflow if not.
    pub(super) fn admit_under(&self, limit: Limit, add: u32) -> Verdict {
        if self.fits(limit, add) {
            Verdict::Queued
        } else {
            Verdict::DroppedFull
        }
    }

    /// Units waiting at priority `level` (0 high; 1 low and every other).
    pub(super) fn packets_at(&self, level: usize) -> u64 {
        self.by_priority[level.min(1)]
    }

    pub(super) fn for_each(&self, f: &mut dyn FnMut(&Pdu)) {
        self.q.iter().for_each(f);
    }
}

/// The priority level a PDU counts in: 0, or 1 for every lower priority.
pub(super) fn level(p: &Pdu) -> usize {
    (p.priority() as usize).min(1)
}
