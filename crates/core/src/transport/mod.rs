//! Transport protocols: TCP, and TFRC for media flows (with Quick-Start).

pub mod tcp;
pub mod tfrc;
