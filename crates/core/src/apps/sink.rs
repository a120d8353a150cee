//! The measuring sink: per-flow received packets and bytes, one-way delay
//! (histogram, so quantiles too) and, from it, jitter as delay minus the
//! flow's minimum delay.

use crate::engine::stats::Histogram;
use crate::engine::Time;
use crate::net::Pdu;

/// What the network did to one flow.
#[derive(Clone, Debug, Default)]
pub struct FlowRecord {
    /// At a sink: packets and bytes received, one-way delay (ps).
    pub(crate) received_packets: u64,
    pub(crate) received_bytes: u64,
    pub(crate) delay: Histogram,
    /// Discarded: a full queue, a CLP threshold, a port, no route, or a
    /// receiver released while they were in flight.
    pub(crate) dropped: u64,
    /// Of `dropped`, those a port discarded (a policer at the access)
    /// rather than a queue.
    pub(crate) dropped_at_ports: u64,
    /// Lost to bit errors or per-PDU loss on a link.
    pub(crate) errored: u64,
}

/// A sink at a node; it aggregates every flow addressed to it.
#[derive(Clone, Debug, Default)]
pub struct Sink {
    /// The index of the node the sink is at.
    pub node: u32,
    pub(crate) received_packets: u64,
    pub(crate) received_bytes: u64,
    /// Cumulative delay sum in seconds, for interval means in probes.
    pub(crate) delay_sum_s: f64,
}

impl Sink {
    /// A sink at node `node`, nothing received yet.
    pub fn new(node: u32) -> Sink {
        Sink {
            node,
            ..Sink::default()
        }
    }

    pub(crate) fn deliver(&mut self, now: Time, p: &Pdu, flow: &mut FlowRecord) {
        let d = now.since(p.created);
        self.received_packets += 1;
        self.received_bytes += p.bytes as u64;
        self.delay_sum_s += d.as_secs_f64();
        flow.received_packets += 1;
        flow.received_bytes += p.bytes as u64;
        flow.delay.record(d.ps());
    }
}
