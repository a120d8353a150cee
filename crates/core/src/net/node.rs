//! A node forwards PDUs by static routes: destination node → outgoing link.
//! A device at the node may instead take the packets of given flows off the
//! network (hand-offs): an ATM edge device puts the packets a LAN host
//! sends onto its virtual circuit.
//!
//! A small network keeps a node's routes as a table indexed by destination
//! (one load per hop); a large one keeps only the routes a node has, sorted
//! (a table per node would grow with the square of the nodes: 30 000 nodes
//! would need 3.6 GB).

use super::pdu::AgentAddr;

/// Where a node sends a PDU next.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Next {
    /// The PDU has reached its destination node.
    Local,
    /// On the link of this index.
    Link(u32),
    /// No route: the description was not validated, or a route is missing.
    Unroutable,
}

/// Networks up to this many nodes index routes by destination.
const DENSE_NODES: usize = 1024;
const NO_ROUTE: u32 = u32::MAX;

enum Routes {
    /// `table[dst]` = outgoing link towards `dst`, `NO_ROUTE` if none.
    Dense(Vec<u32>),
    /// (destination, link), sorted by destination.
    Sparse(Vec<(u32, u32)>),
}

/// A node: its static routes, destination node to outgoing link, and the
/// flows a device at it takes off the network.
pub struct Node {
    pub(crate) id: u32,
    routes: Routes,
    /// (flow, agent): packets of the flow reaching this node go to the
    /// agent instead of on by their route. Few per node, so a list.
    hand_offs: Vec<(u32, AgentAddr)>,
}

impl Node {
    /// Node `id` of a network of `n_nodes` nodes, with no routes yet.
    pub fn new(id: u32, n_nodes: usize) -> Node {
        let routes = if n_nodes <= DENSE_NODES {
            Routes::Dense(vec![NO_ROUTE; n_nodes])
        } else {
            Routes::Sparse(Vec::new())
        };
        Node {
            id,
            routes,
            hand_offs: Vec::new(),
        }
    }

    /// Packets of `flow` reaching this node go to `agent` from now on.
    pub(crate) fn hand_off(&mut self, flow: u32, agent: AgentAddr) {
        self.hand_offs.retain(|&(f, _)| f != flow);
        self.hand_offs.push((flow, agent));
    }

    /// The agent that takes the packets of `flow` at this node, if any.
    #[inline]
    pub(crate) fn hand_off_for(&self, flow: u32) -> Option<AgentAddr> {
        if self.hand_offs.is_empty() {
            return None;
        }
        self.hand_offs
            .iter()
            .find(|&&(f, _)| f == flow)
            .map(|&(_, a)| a)
    }

    pub(crate) fn set_route(&mut self, dst: u32, link: u32) {
        match &mut self.routes {
            Routes::Dense(table) => table[dst as usize] = link,
            Routes::Sparse(pairs) => match pairs.binary_search_by_key(&dst, |&(d, _)| d) {
                Ok(i) => pairs[i].1 = link,
                Err(i) => pairs.insert(i, (dst, link)),
            },
        }
    }

    pub(crate) fn next_hop(&self, dst: u32) -> Next {
        if dst == self.id {
            return Next::Local;
        }
        let link = match &self.routes {
            Routes::Dense(table) => table.get(dst as usize).copied().unwrap_or(NO_ROUTE),
            Routes::Sparse(pairs) => pairs
                .binary_search_by_key(&dst, |&(d, _)| d)
                .map_or(NO_ROUTE, |i| pairs[i].1),
        };
        if link == NO_ROUTE {
            Next::Unroutable
        } else {
            Next::Link(link)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes_and_local_delivery() {
        for n in [3, 5000] {
            let mut node = Node::new(1, n);
            node.set_route(2, 5);
            assert_eq!(node.next_hop(1), Next::Local);
            assert_eq!(node.next_hop(2), Next::Link(5));
            assert_eq!(node.next_hop(0), Next::Unroutable);
            node.set_route(2, 6);
            assert_eq!(node.next_hop(2), Next::Link(6), "{n} nodes");
        }
    }

    #[test]
    fn hand_offs_take_their_flows_only() {
        let mut node = Node::new(1, 3);
        assert_eq!(node.hand_off_for(4), None);
        node.hand_off(4, AgentAddr::fixed(9));
        node.hand_off(6, AgentAddr::fixed(2));
        assert_eq!(node.hand_off_for(4), Some(AgentAddr::fixed(9)));
        assert_eq!(node.hand_off_for(5), None);
        // A second hand-off of a flow replaces the first.
        node.hand_off(4, AgentAddr::fixed(3));
        assert_eq!(node.hand_off_for(4), Some(AgentAddr::fixed(3)));
    }
}
