//! A link's capture as a pcap file (docs/traces.md): the headers a PDU
//! would have on a real network, synthesised from what the model carries,
//! in a classic nanosecond pcap (magic 0xa1b23c4d, LINKTYPE_RAW: each record
//! starts with its IPv4 header).
//!
//! The models carry header fields, not bytes: a TCP segment its sequence
//! and acknowledgement numbers, flags, window and SACK blocks, a datagram
//! its ports if it has any. This file writes them as IPv4 + TCP or IPv4 +
//! UDP headers (`etherparse`, checksums included) and the file with
//! `pcap-file`. The payload is not simulated: a record holds the headers
//! only and its original length is the packet's real one, or, on request,
//! the payload as zero bytes (the checksums are those of that packet
//! either way, so a tool can verify them on a full capture).
//!
//! What the file shows that the model does not have:
//! - addresses: node i (in the description's order) is 10.0.0.0 + i + 1;
//! - ports: a TCP connection's client uses 49152 + (its flow id mod 16384)
//!   and its server 5001; a datagram without ports of its own goes from and
//!   to 49152 + (its flow id mod 16384);
//! - sequence numbers: the model's stream offsets start at 0 and its SYN
//!   takes no sequence space; on the wire a connection with a handshake has
//!   ISN 0 and its data from 1, as a real SYN takes one number;
//! - options: MSS, window scale and SACK-permitted on SYNs, SACK blocks,
//!   and no-operation padding up to the model's `header_bytes`.
//!
//! ATM cells (and RM and the proactive-atm cells) are not IP packets: a
//! capture skips them and counts them (`Synthesis::cells`).

use super::pdu::{Header, Pdu, TcpHeader};
use crate::engine::Time;
use etherparse::UdpHeader;
use etherparse::{ip_number, IpNumber, Ipv4Header, TcpHeader as WireTcp, TcpOptionElement};
use pcap_file::pcap::{PcapHeader, PcapPacket, PcapWriter};
use pcap_file::{DataLink, Endianness, TsResolution};

/// The pcap file's header and each record's header.
pub(crate) const FILE_HEADER_BYTES: u64 = 24;
pub(crate) const RECORD_HEADER_BYTES: u64 = 16;
/// An IPv4 header with no options, a TCP header with the most options.
const IPV4_BYTES: u32 = 20;
const TCP_MIN_BYTES: u32 = 20;
const TCP_MAX_BYTES: u32 = 60;
const UDP_BYTES: u32 = 8;
const MAX_DATAGRAM: u32 = 65_535;
const TTL: u8 = 64;
/// The server side of every TCP connection (iperf's port).
pub(crate) const TCP_SERVER_PORT: u16 = 5001;
/// The elided payload, as the checksums see it.
static ZEROS: [u8; MAX_DATAGRAM as usize] = [0; MAX_DATAGRAM as usize];

/// The IPv4 address of the node at `index` in the description's nodes.
pub(crate) fn node_address(index: u32) -> [u8; 4] {
    (0x0a00_0000u32 + (index + 1)).to_be_bytes()
}

/// The port of a flow's end that has no port in the model (a TCP client,
/// a datagram source): in the dynamic range, one per flow id.
pub(crate) fn flow_port(flow: u32) -> u16 {
    49_152 + (flow % 16_384) as u16
}

/// Whether a PDU is an IP packet, which a capture can show (not an ATM
/// cell).
pub(crate) fn is_packet(pdu: &Pdu) -> bool {
    !matches!(
        pdu.header,
        Header::AtmCell(_) | Header::Rm(_) | Header::ProactiveCell(_)
    )
}

/// What the file needs to know of a TCP flow (one direction of a
/// connection) beyond its segments' headers.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct TcpWire {
    pub(crate) src_port: u16,
    pub(crate) dst_port: u16,
    /// The model's TCP/IP header bytes per segment (`header_bytes`): a
    /// segment's payload is its size less these.
    pub(crate) header_bytes: u32,
    pub(crate) mss: u16,
    pub(crate) window_scaling: bool,
    pub(crate) sack: bool,
    /// The connection opens with a handshake: its SYNs take sequence
    /// number 0 and its data starts at 1.
    pub(crate) handshake: bool,
}

/// One record: the bytes kept and the packet's length on the wire.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Packet {
    pub(crate) data: Vec<u8>,
    pub(crate) orig_len: u32,
}

/// The packet a PDU is on the wire, with its payload as zero bytes when
/// `payload`, else its headers only; None for an ATM cell. `tcp` describes
/// the flow of a TCP segment (None: a client of `header_bytes` 40).
pub(crate) fn packet(pdu: &Pdu, tcp: Option<&TcpWire>, payload: bool) -> Option<Packet> {
    let (src, dst) = (node_address(pdu.src_node), node_address(pdu.dst_node));
    let port = flow_port(pdu.flow);
    let (headers, total) = match &pdu.header {
        Header::Tcp(_) | Header::TcpSack(_) => {
            let h = pdu.header.tcp().expect("a TCP header");
            let fallback = TcpWire {
                src_port: port,
                dst_port: TCP_SERVER_PORT,
                header_bytes: IPV4_BYTES + TCP_MIN_BYTES,
                mss: 1460,
                window_scaling: false,
                sack: false,
                handshake: false,
            };
            let sack = pdu.header.sack_blocks();
            tcp_segment(pdu.bytes, h, sack, tcp.unwrap_or(&fallback), src, dst)
        }
        Header::Udp { src_port, dst_port } => datagram(pdu.bytes, *src_port, *dst_port, src, dst),
        Header::Ip | Header::Rate { .. } | Header::TfrcData(_) | Header::TfrcFeedback(_) => {
            datagram(pdu.bytes, port, port, src, dst)
        }
        Header::AtmCell(_) | Header::Rm(_) | Header::ProactiveCell(_) => return None,
    };
    let mut data = headers;
    if payload {
        data.resize(total as usize, 0);
    }
    Some(Packet {
        data,
        orig_len: total,
    })
}

/// IPv4 + UDP headers of a `bytes`-byte datagram (at least the headers),
/// and its total length.
fn datagram(bytes: u32, sport: u16, dport: u16, src: [u8; 4], dst: [u8; 4]) -> (Vec<u8>, u32) {
    let total = bytes.clamp(IPV4_BYTES + UDP_BYTES, MAX_DATAGRAM);
    let payload = (total - IPV4_BYTES - UDP_BYTES) as usize;
    let ip = ipv4(total, ip_number::UDP, src, dst);
    let udp = UdpHeader::with_ipv4_checksum(sport, dport, &ip, &ZEROS[..payload])
        .expect("a UDP datagram within 65535 bytes");
    let mut out = ip.to_bytes().to_vec();
    out.extend_from_slice(&udp.to_bytes());
    (out, total)
}

/// IPv4 + TCP headers of a segment of `bytes` in the model, and its total
/// length on the wire: its payload plus the synthesised headers.
fn tcp_segment(
    bytes: u32,
    h: &TcpHeader,
    sack: &[(u32, u32)],
    wire: &TcpWire,
    src: [u8; 4],
    dst: [u8; 4],
) -> (Vec<u8>, u32) {
    let payload = bytes.saturating_sub(wire.header_bytes);
    let mut tcp = tcp_header(h, sack, wire);
    let total = (IPV4_BYTES + tcp.header_len() as u32 + payload).min(MAX_DATAGRAM);
    let payload = total - IPV4_BYTES - tcp.header_len() as u32;
    let ip = ipv4(total, ip_number::TCP, src, dst);
    tcp.checksum = tcp
        .calc_checksum_ipv4(&ip, &ZEROS[..payload as usize])
        .expect("a TCP segment within 65535 bytes");
    let mut out = ip.to_bytes().to_vec();
    out.extend_from_slice(&tcp.to_bytes());
    (out, total)
}

/// The TCP header the model's fields make, checksum not yet set.
fn tcp_header(h: &TcpHeader, sack: &[(u32, u32)], wire: &TcpWire) -> WireTcp {
    let syn = h.flags & SYN != 0;
    let ack = h.flags & ACK != 0;
    // A real SYN takes one sequence number; the model's takes none.
    let shift = u32::from(wire.handshake);
    let seq = if syn {
        h.seq
    } else {
        h.seq.wrapping_add(shift)
    };
    let mut t = WireTcp::new(wire.src_port, wire.dst_port, seq, h.window);
    t.acknowledgment_number = if ack { h.ack.wrapping_add(shift) } else { 0 };
    t.fin = h.flags & FIN != 0;
    t.syn = syn;
    t.rst = h.flags & RST != 0;
    t.psh = h.flags & PSH != 0;
    t.ack = ack;
    let mut options = Vec::with_capacity(8);
    if syn {
        options.push(TcpOptionElement::MaximumSegmentSize(wire.mss));
        if wire.window_scaling {
            options.push(TcpOptionElement::Noop);
            options.push(TcpOptionElement::WindowScale(h.wscale));
        }
        if wire.sack {
            options.extend([TcpOptionElement::Noop, TcpOptionElement::Noop]);
            options.push(TcpOptionElement::SelectiveAcknowledgementPermitted);
        }
    } else if !sack.is_empty() {
        let block = |(s, e): (u32, u32)| (s.wrapping_add(shift), e.wrapping_add(shift));
        let blocks = sack;
        let mut rest = [None; 3];
        for (r, b) in rest.iter_mut().zip(&blocks[1..]) {
            *r = Some(block(*b));
        }
        options.extend([TcpOptionElement::Noop, TcpOptionElement::Noop]);
        options.push(TcpOptionElement::SelectiveAcknowledgement(
            block(blocks[0]),
            rest,
        ));
    }
    // No-operations up to the header size the model charges (a 52-byte
    // `header_bytes` stands for a timestamp option's 12).
    let used: u32 = options.iter().map(option_len).sum();
    let room = wire.header_bytes.saturating_sub(IPV4_BYTES + TCP_MIN_BYTES);
    let room = room.min(TCP_MAX_BYTES - TCP_MIN_BYTES) / 4 * 4;
    for _ in used..room {
        options.push(TcpOptionElement::Noop);
    }
    t.set_options(&options)
        .expect("at most 40 bytes of TCP options");
    t
}

fn option_len(o: &TcpOptionElement) -> u32 {
    match o {
        TcpOptionElement::Noop => 1,
        TcpOptionElement::MaximumSegmentSize(_) => 4,
        TcpOptionElement::WindowScale(_) => 3,
        TcpOptionElement::SelectiveAcknowledgementPermitted => 2,
        TcpOptionElement::SelectiveAcknowledgement(_, rest) => {
            2 + 8 * (1 + rest.iter().flatten().count() as u32)
        }
        TcpOptionElement::Timestamp(..) => 10,
    }
}

const FIN: u8 = 0x01;
const SYN: u8 = 0x02;
const RST: u8 = 0x04;
const PSH: u8 = 0x08;
const ACK: u8 = 0x10;

fn ipv4(total: u32, protocol: IpNumber, src: [u8; 4], dst: [u8; 4]) -> Ipv4Header {
    let mut ip = Ipv4Header::new((total - IPV4_BYTES) as u16, TTL, protocol, src, dst)
        .expect("an IPv4 datagram within 65535 bytes");
    ip.header_checksum = ip.calc_header_checksum();
    ip
}

/// A pcap file being written in memory: nanosecond time stamps from the
/// simulation clock (time 0 is the epoch), little-endian whatever the
/// machine, so that a run gives the same bytes everywhere.
pub(crate) struct PcapFile {
    writer: PcapWriter<Vec<u8>>,
}

impl PcapFile {
    /// An empty file. Its snap length is the largest datagram even when
    /// the records hold headers only: a reader takes a record's original
    /// length beyond the snap length for a damaged file.
    pub(crate) fn new() -> PcapFile {
        let header = PcapHeader {
            snaplen: MAX_DATAGRAM,
            datalink: DataLink::RAW,
            ts_resolution: TsResolution::NanoSecond,
            endianness: Endianness::Little,
            ..PcapHeader::default()
        };
        let writer = PcapWriter::with_header(Vec::new(), header).expect("writing to memory");
        PcapFile { writer }
    }

    /// The size a record of `p` adds to the file.
    pub(crate) fn record_bytes(p: &Packet) -> u64 {
        RECORD_HEADER_BYTES + p.data.len() as u64
    }

    /// Appends `p`, sent at `at` (the nanosecond below, for a time between
    /// two).
    pub(crate) fn push(&mut self, at: Time, p: &Packet) {
        let ns = at.ps() / 1_000;
        let stamp = std::time::Duration::new(ns / 1_000_000_000, (ns % 1_000_000_000) as u32);
        self.writer
            .write_packet(&PcapPacket::new(stamp, p.orig_len, &p.data))
            .expect("a record within the snap length, written to memory");
    }

    /// The file's bytes.
    pub(crate) fn into_bytes(self) -> Vec<u8> {
        self.writer.into_writer()
    }
}

#[cfg(test)]
mod tests;
