//! How a host hands its PDUs to the network, and the outbox every model
//! writes what it sends into.
//!
//! A transport (TCP, UDP request/response) never knows how its host is
//! attached: it calls `Iface::send`. A directly attached host routes the
//! PDU from its node at once; a host behind an attachment (an ATM VC's
//! segmentation buffer, and later a DVB-RCS terminal's uplink queue or a TUN
//! device) hands it to the agent that models that attachment, which puts it
//! on the network in its own time. Which one a transport gets is decided
//! once, where the scenario is built.
//!
//! Models never forward PDUs themselves: they push them to an `Outbox`, and
//! the driver (the simulator, the real-time emulator, a test) takes them
//! from there in order.

use super::pdu::{AgentAddr, Pdu};

/// Where a PDU taken from an outbox goes next.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Via {
    /// Routed from this node towards `pdu.dst_node`.
    Node(u32),
    /// Handed to this agent at once, without routing (a host's attachment).
    Agent(AgentAddr),
}

/// PDUs a model sends during one call, in the order it sent them.
#[derive(Clone, Debug, Default)]
pub struct Outbox {
    items: Vec<(Via, Pdu)>,
}

impl Outbox {
    /// Sends `pdu` on its way `via` a node's routing or straight to an
    /// agent.
    pub fn push(&mut self, via: Via, pdu: Pdu) {
        self.items.push((via, pdu));
    }

    /// Sends `pdu` from `node` into the network.
    pub(crate) fn route(&mut self, node: u32, pdu: Pdu) {
        self.push(Via::Node(node), pdu);
    }

    /// Whether nothing was sent.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    pub(crate) fn len(&self) -> usize {
        self.items.len()
    }

    /// Takes the PDUs out in the order they were sent; the outbox keeps its
    /// memory for the next call.
    #[cfg(test)]
    pub(crate) fn drain(&mut self) -> std::vec::Drain<'_, (Via, Pdu)> {
        self.items.drain(..)
    }

    /// Takes the `i`-th PDU sent, leaving a default one in its place. With
    /// `len` and `truncate`, an outbox serves as a stack: a driver notes the
    /// length before a call, takes what the call added one by one (which may
    /// add more above it, taken and truncated by the nested call), then
    /// truncates back.
    pub(crate) fn take(&mut self, i: usize) -> (Via, Pdu) {
        let (via, p) = &mut self.items[i];
        (*via, std::mem::take(p))
    }

    pub(crate) fn truncate(&mut self, len: usize) {
        self.items.truncate(len);
    }
}

/// How a host is attached to the network, as its transport sees it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Iface {
    /// On a node: PDUs are routed from it directly.
    Direct {
        /// The index of the host's node.
        node: u32,
    },
    /// Behind an attachment modelled by an agent (e.g. an ATM VC).
    Attached {
        /// The agent that models the attachment and takes the host's PDUs.
        agent: AgentAddr,
    },
}

impl Iface {
    pub(crate) fn send(&self, out: &mut Outbox, pdu: Pdu) {
        match *self {
            Iface::Direct { node } => out.route(node, pdu),
            Iface::Attached { agent } => out.push(Via::Agent(agent), pdu),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_interface_decides_the_way_not_the_sender() {
        let mut out = Outbox::default();
        let p = Pdu::default();
        Iface::Direct { node: 3 }.send(&mut out, p.clone());
        let vc = AgentAddr { index: 7, gen: 2 };
        Iface::Attached { agent: vc }.send(&mut out, p);
        let ways: Vec<Via> = out.drain().map(|(v, _)| v).collect();
        assert_eq!(ways, vec![Via::Node(3), Via::Agent(vc)]);
        assert!(out.is_empty());
    }
}
