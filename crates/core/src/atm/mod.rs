//! ATM: the 53-byte cell, AAL5 segmentation and reassembly of IP packets
//! (RFC 1577 over LLC/SNAP), and the TCP/IP-over-ATM efficiency those
//! overheads imply.

pub mod aal5;
pub mod cell;
pub mod overhead;

pub use aal5::{cells_for_ip_packet, segment, Encapsulation, Reassembler, Segmenter};
pub use cell::{AtmCellHeader, CELL_BYTES, CELL_PAYLOAD};
