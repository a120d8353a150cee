//! The protocol data unit every model moves: a packet, a TCP segment, an ATM
//! cell or a DVB-RCS burst. Plain `Copy` data with a fixed-size header
//! variant, so moving one never allocates; payload bytes are not carried,
//! only their count.

use crate::engine::Time;

pub const TCP_FIN: u8 = 0x01;
pub const TCP_SYN: u8 = 0x02;
pub const TCP_ACK: u8 = 0x10;

/// TCP segment header fields the models need (RFC 9293 §3.1; SACK blocks
/// RFC 2018). Sequence numbers are 32-bit and wrap, as on the wire.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct TcpHeader {
    pub seq: u32,
    pub ack: u32,
    /// Advertised window field, before scaling.
    pub window: u16,
    pub flags: u8,
    /// Window-scale option (RFC 7323 §2.2), meaningful on SYN segments.
    pub wscale: u8,
    pub sack_blocks: u8,
    pub sack: [(u32, u32); 3],
}

/// ATM cell header fields (ITU-T I.361) and the AAL5 reassembly fields the
/// models carry instead of payload bytes. Plain data here, so `net` imports
/// nothing from above; the PTI helpers and their meaning live in
/// `atm::cell`.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct AtmCellHeader {
    /// 8 bits at the UNI, 12 at the NNI.
    pub vpi: u16,
    pub vci: u16,
    /// Payload type, 3 bits.
    pub pti: u8,
    /// Cell loss priority bit. Queues read `Pdu::clp`; `atm::cell::cell_pdu`
    /// keeps the two equal.
    pub clp: u8,
    /// Model-only AAL5 fields: the cell's frame on its VC, its index in the
    /// frame, and the CPCS-SDU length the trailer carries (last cell). They
    /// stand in for the CRC-32 and length check over unsimulated bytes.
    pub frame: u32,
    pub index: u16,
    pub sdu_len: u16,
}

/// An ABR resource-management cell (ATM Forum TM 4.0 §5.10.3.1): the
/// cell's VPI/VCI and the RM fields the end systems and switches act on.
/// Rates are cells/s; the standard's 16-bit float encoding is not modelled.
/// Plain data here; its meaning lives in `atm::abr`.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct RmHeader {
    pub vpi: u16,
    pub vci: u16,
    /// DIR bit: false = forward (source to destination).
    pub backward: bool,
    pub bn: bool,
    pub ci: bool,
    pub ni: bool,
    pub er: f64,
    pub ccr: f64,
    pub mcr: f64,
}

/// The header of a PDU. RM cells and DVB-RCS frames join as variants when
/// those layers land; the enum stays `Copy` and small.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub enum Header {
    /// A plain IP datagram with no transport state (the CBR, Poisson and
    /// ON-OFF sources' packets).
    #[default]
    Ip,
    Udp {
        src_port: u16,
        dst_port: u16,
    },
    Tcp(TcpHeader),
    /// A 53-byte ATM cell (`atm::cell`).
    AtmCell(AtmCellHeader),
    /// A 53-byte ABR RM cell (`atm::abr`).
    Rm(RmHeader),
}

#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct Pdu {
    /// Size on the wire, all headers included.
    pub bytes: u32,
    /// Flow (source or connection) index, for per-flow statistics.
    pub flow: u32,
    /// Per-flow sequence number of this PDU (0, 1, ...).
    pub seq: u64,
    pub src_node: u32,
    pub dst_node: u32,
    /// Receiving endpoint at `dst_node` (a sink, a TCP socket...).
    pub dst_agent: u32,
    pub created: Time,
    /// When the PDU entered its current queue; scratch for wait statistics.
    pub enqueued: Time,
    /// 0 = high (real time), 1 = low.
    pub priority: u8,
    /// Loss priority: 1 marks a PDU to discard first (ATM CLP bit).
    pub clp: u8,
    pub header: Header,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pdu_stays_small() {
        // Hot-path moves copy the PDU: keep it within two cache lines.
        assert!(
            std::mem::size_of::<Pdu>() <= 128,
            "{}",
            std::mem::size_of::<Pdu>()
        );
    }
}
