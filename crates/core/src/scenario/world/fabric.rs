//! The network fabric: nodes with their routing, links, the port at each
//! link's input, and the scheduler slots of links and ports. PDUs cross it
//! between components; the fabric's own controllers (a DVB-RCS channel's
//! NCC) act on it through their `Ctx`.

use super::ports::PortKind;
use crate::engine::Slot;
use crate::net::{Link, Node};

/// The network fabric: what PDUs cross between components.
pub struct Net {
    pub(crate) nodes: Vec<Node>,
    /// The links, in the order of the description's `links`.
    pub links: Vec<Link>,
    /// Per link: the port at its input, if any.
    pub(crate) ports: Vec<Option<PortKind>>,
    pub(crate) link_names: Vec<String>,
    pub(crate) node_names: Vec<String>,
    pub(super) link_slots: Vec<Slot>,
    pub(super) port_slots: Vec<Slot>,
}
