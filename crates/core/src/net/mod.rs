//! Network primitives: the PDU, queue disciplines, links (transmitter,
//! framing, delay line, error model, capacity process), nodes with static routes,
//! the ports that sit at a link's input and the interfaces that attach a
//! host to the network.

pub mod capacity;
pub(crate) mod capture;
pub(crate) mod delay_line;
pub mod delay_schedule;
pub mod error_model;
pub mod explicit_rate;
pub mod framing;
pub(crate) mod iface;
pub(crate) mod link;
pub(crate) mod link_stats;
pub mod node;
pub(crate) mod pcap;
pub(crate) mod pdu;
pub(crate) mod port;
pub mod queue;
pub(crate) mod quick_start;
pub(crate) mod shaper;
pub(crate) mod slot_schedule;

pub use iface::{Iface, Outbox, Via};
pub use link::Link;
pub use node::{Next, Node};
pub use pdu::{AgentAddr, Class, Header, Pdu, TfrcData, TfrcFeedback};
pub use port::{Admit, Port, PortCx};
