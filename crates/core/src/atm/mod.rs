//! ATM: the 53-byte cell, AAL5 segmentation and reassembly of IP packets
//! (RFC 1577 over LLC/SNAP), the TCP/IP-over-ATM efficiency those overheads
//! imply, the ABR end systems (TM 4.0 §5.10) and the ERICA+ switch
//! algorithm, and the ABR virtual circuit (`vc`) that carries packets
//! through them; the access policing of the proactive-atm thesis (the
//! peak-rate controller and the leaky bucket) and its congestion detector. Switch ports are links with a two-priority queue (VBR over
//! ABR) and, optionally, ERICA+; the scenario world joins them.

pub(crate) mod aal5;
pub(crate) mod abr;
pub(crate) mod cell;
pub mod congestion_detector;
pub(crate) mod erica;
pub mod leaky_bucket;
#[cfg(test)]
mod overhead;
pub mod peak_rate;
pub mod upc;
pub(crate) mod vc;

pub use aal5::{Encapsulation, Reassembler};
pub use cell::{AtmCellHeader, CELL_BYTES, CELL_PAYLOAD};
