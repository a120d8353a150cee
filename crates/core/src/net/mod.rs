//! Network primitives: the PDU, queue disciplines, links (transmitter,
//! delay line, error model, capacity process) and nodes with static routes.

pub mod capacity;
pub mod delay_line;
pub mod error_model;
pub mod link;
pub mod node;
pub mod pdu;
pub mod queue;

pub use link::Link;
pub use node::{Next, Node};
pub use pdu::{Header, Pdu};
