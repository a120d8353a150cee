//! What every traffic source shares: addressing, marks, the active window
//! [start, stop) and the per-flow sent counters.

use crate::engine::{RngStream, Time};
use crate::net::pdu::AgentAddr;
use crate::net::{Class, Header, Pdu};

/// How a source's packet sizes are drawn (`size_distribution`), bytes.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum SizeDist {
    /// Every packet this many bytes.
    Constant(u32),
    /// Exponential with this mean, rounded to whole bytes, at least 1.
    Exponential(f64),
}

impl SizeDist {
    pub(crate) fn mean_bytes(self) -> f64 {
        match self {
            SizeDist::Constant(b) => b as f64,
            SizeDist::Exponential(m) => m,
        }
    }

    pub(crate) fn draw(self, rng: &mut RngStream) -> u32 {
        match self {
            SizeDist::Constant(b) => b,
            SizeDist::Exponential(m) => (rng.exp(m).round() as u32).max(1),
        }
    }
}

/// What a traffic source stamps on every packet it creates (its flow, ends
/// and marks) and the window it is active in.
#[derive(Clone, Debug)]
pub struct Emitter {
    /// The flow the packets count under in the per-flow statistics.
    pub flow: u32,
    /// The node where the packets enter the network (`from`).
    pub src_node: u32,
    /// The node of the sink that receives them.
    pub dst_node: u32,
    /// The sink's agent at `dst_node`.
    pub dst_agent: AgentAddr,
    /// Queue priority of every packet: 0 high (real time), 1 low.
    pub priority: u8,
    /// Cell loss priority mark of every packet: 1 is discarded first.
    pub clp: u8,
    /// When the source starts, ps; nothing is sent before it.
    pub start: Time,
    /// No emission at or after this time.
    pub(crate) stop: Time,
    pub(crate) sent_packets: u64,
    pub(crate) sent_bytes: u64,
}

impl Emitter {
    pub(crate) fn active(&self, t: Time) -> bool {
        t >= self.start && t < self.stop
    }

    /// A new PDU of `bytes` created at `now`.
    pub(crate) fn make(&mut self, now: Time, bytes: u32) -> Pdu {
        let p = Pdu {
            bytes,
            flow: self.flow,
            seq: self.sent_packets,
            src_node: self.src_node,
            dst_node: self.dst_node,
            dst_agent: self.dst_agent.index,
            dst_gen: self.dst_agent.gen,
            created: now,
            enqueued: now,
            class: Class::new(self.priority, self.clp),
            ecn: 0,
            header: Header::Ip,
        };
        self.sent_packets += 1;
        self.sent_bytes += bytes as u64;
        p
    }

    /// Flow 0 from node 0 to agent 0 at node 1, active in [start, stop):
    /// the emitter the sources' unit tests drive.
    #[cfg(test)]
    pub(crate) fn for_test(start: Time, stop: Time) -> Emitter {
        Emitter {
            flow: 0,
            src_node: 0,
            dst_node: 1,
            dst_agent: AgentAddr::fixed(0),
            priority: 0,
            clp: 0,
            start,
            stop,
            sent_packets: 0,
            sent_bytes: 0,
        }
    }
}
