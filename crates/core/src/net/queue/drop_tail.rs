//! Drop-tail FIFO: a unit is admitted while the buffer holds fewer than
//! its limit in packets (or has room for its bytes), and discarded
//! otherwise. Both priority levels share the one FIFO in arrival order.

use super::fifo::Fifo;
use super::{Limit, OneFifo, QueueDiscipline, Verdict};
use crate::engine::Time;
use crate::net::pdu::Pdu;

/// Drop-tail FIFO: both priorities share it in arrival order.
#[derive(Clone, Debug)]
pub struct DropTail {
    fifo: Fifo,
    limit: Limit,
}

impl DropTail {
    /// An empty FIFO holding at most `limit`.
    pub fn new(limit: Limit) -> DropTail {
        DropTail {
            fifo: Fifo::new(),
            limit,
        }
    }
}

impl QueueDiscipline for DropTail {
    fn admission(&self, p: &Pdu) -> Verdict {
        self.fifo.admit_under(self.limit, p.bytes)
    }

    fn push(&mut self, p: Pdu, _now: Time) {
        self.fifo.push(p);
    }

    fn pop(&mut self, _now: Time, _out: &mut super::Dequeued) -> Option<Pdu> {
        self.fifo.pop()
    }
}

impl OneFifo for DropTail {
    fn fifo(&self) -> &Fifo {
        &self.fifo
    }
}
