//! A node forwards PDUs by static routes: destination node → outgoing link.

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Next {
    /// The PDU has reached its destination node.
    Local,
    Link(u32),
    /// No route: the description was not validated, or a route is missing.
    Unroutable,
}

pub struct Node {
    pub id: u32,
    /// `routes[dst]` = outgoing link towards node `dst`.
    routes: Vec<Option<u32>>,
}

impl Node {
    pub fn new(id: u32, n_nodes: usize) -> Node {
        Node {
            id,
            routes: vec![None; n_nodes],
        }
    }

    pub fn set_route(&mut self, dst: u32, link: u32) {
        self.routes[dst as usize] = Some(link);
    }

    pub fn next_hop(&self, dst: u32) -> Next {
        if dst == self.id {
            return Next::Local;
        }
        match self.routes.get(dst as usize).copied().flatten() {
            Some(l) => Next::Link(l),
            None => Next::Unroutable,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes_and_local_delivery() {
        let mut n = Node::new(1, 3);
        n.set_route(2, 5);
        assert_eq!(n.next_hop(1), Next::Local);
        assert_eq!(n.next_hop(2), Next::Link(5));
        assert_eq!(n.next_hop(0), Next::Unroutable);
    }
}
