//! The synthesised headers read back by etherparse's parser, and their
//! checksums verified by an RFC 1071 sum written here, over the full
//! packet (payload as zeros).

use super::*;
use crate::net::pdu::{TCP_ACK, TCP_SYN};
use etherparse::{NetSlice, SlicedPacket, TransportSlice};
use pcap_file::pcap::PcapReader;

/// The one's-complement sum of 16-bit big-endian words (RFC 1071 §4.1).
fn ones_sum(parts: &[&[u8]]) -> u16 {
    let bytes: Vec<u8> = parts.concat();
    let mut sum: u32 = 0;
    for w in bytes.chunks(2) {
        let hi = u32::from(w[0]) << 8;
        let lo = w.get(1).map_or(0, |&b| u32::from(b));
        sum += hi | lo;
    }
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    sum as u16
}

/// The IPv4 header's and the transport's checksums both verify.
fn checksums_verify(full: &[u8]) {
    let ihl = usize::from(full[0] & 0x0f) * 4;
    assert_eq!(ones_sum(&[&full[..ihl]]), 0xffff, "IPv4 header checksum");
    let total = usize::from(u16::from_be_bytes([full[2], full[3]]));
    assert_eq!(total, full.len());
    let segment = &full[ihl..];
    let len = (segment.len() as u16).to_be_bytes();
    let pseudo = [&full[12..20], &[0, full[9]], &len[..]].concat();
    assert_eq!(ones_sum(&[&pseudo, segment]), 0xffff, "transport checksum");
}

fn wire() -> TcpWire {
    TcpWire {
        src_port: 49_153,
        dst_port: TCP_SERVER_PORT,
        header_bytes: 40,
        mss: 1460,
        window_scaling: true,
        sack: true,
        handshake: true,
    }
}

fn segment(bytes: u32, h: TcpHeader) -> Pdu {
    Pdu {
        bytes,
        flow: 1,
        src_node: 0,
        dst_node: 2,
        header: Header::Tcp(h),
        ..Pdu::default()
    }
}

#[test]
fn a_data_segment_has_its_real_length_and_numbers_shifted_past_the_syn() {
    let h = TcpHeader {
        seq: 2920,
        ack: 0,
        window: 512,
        flags: TCP_ACK,
        ..TcpHeader::default()
    };
    let pdu = segment(1500, h);
    let p = packet(&pdu, Some(&wire()), false).unwrap();
    assert_eq!((p.orig_len, p.data.len()), (1500, 40));
    let full = packet(&pdu, Some(&wire()), true).unwrap();
    assert_eq!(full.data.len(), 1500);
    assert_eq!(&full.data[..40], &p.data[..]);
    checksums_verify(&full.data);
    let sliced = SlicedPacket::from_ip(&full.data).unwrap();
    let Some(NetSlice::Ipv4(ip)) = sliced.net else {
        panic!("not IPv4")
    };
    assert_eq!(ip.header().source(), [10, 0, 0, 1]);
    assert_eq!(ip.header().destination(), [10, 0, 0, 3]);
    let Some(TransportSlice::Tcp(t)) = sliced.transport else {
        panic!("not TCP")
    };
    assert_eq!((t.source_port(), t.destination_port()), (49_153, 5001));
    assert_eq!((t.sequence_number(), t.acknowledgment_number()), (2921, 1));
    assert!(t.ack() && !t.syn() && !t.fin());
    assert_eq!((t.window_size(), t.payload().len()), (512, 1460));
}

#[test]
fn a_syn_carries_its_options_and_isn_zero() {
    let h = TcpHeader {
        flags: TCP_SYN,
        window: 65_535,
        wscale: 7,
        ..TcpHeader::default()
    };
    let p = packet(&segment(40, h), Some(&wire()), true).unwrap();
    checksums_verify(&p.data);
    let sliced = SlicedPacket::from_ip(&p.data).unwrap();
    let Some(TransportSlice::Tcp(t)) = sliced.transport else {
        panic!("not TCP")
    };
    assert!(t.syn() && !t.ack());
    assert_eq!((t.sequence_number(), t.acknowledgment_number()), (0, 0));
    let options: Vec<_> = t.options_iterator().map(|o| o.unwrap()).collect();
    assert!(options.contains(&TcpOptionElement::MaximumSegmentSize(1460)));
    assert!(options.contains(&TcpOptionElement::WindowScale(7)));
    assert!(options.contains(&TcpOptionElement::SelectiveAcknowledgementPermitted));
    // The options grow the packet beyond the model's 40 bytes.
    assert_eq!(p.orig_len, 52);
}

#[test]
fn sack_blocks_are_shifted_like_the_numbers_they_name() {
    let h = TcpHeader {
        ack: 1000,
        flags: TCP_ACK,
        ..TcpHeader::default()
    };
    let seg = Pdu {
        header: Header::tcp_with_sack(h, &[(3000, 4000), (5000, 6000)]),
        ..segment(40, h)
    };
    let p = packet(&seg, Some(&wire()), true).unwrap();
    checksums_verify(&p.data);
    let sliced = SlicedPacket::from_ip(&p.data).unwrap();
    let Some(TransportSlice::Tcp(t)) = sliced.transport else {
        panic!("not TCP")
    };
    let options: Vec<_> = t.options_iterator().map(|o| o.unwrap()).collect();
    assert!(
        options.contains(&TcpOptionElement::SelectiveAcknowledgement(
            (3001, 4001),
            [Some((5001, 6001)), None, None]
        ))
    );
    assert_eq!(t.acknowledgment_number(), 1001);
}

#[test]
fn headers_are_padded_to_the_size_the_model_charges() {
    let mut w = wire();
    w.header_bytes = 52;
    w.handshake = false;
    let h = TcpHeader {
        seq: 7,
        flags: TCP_ACK,
        ..TcpHeader::default()
    };
    let p = packet(&segment(1052, h), Some(&w), true).unwrap();
    assert_eq!(p.orig_len, 1052);
    checksums_verify(&p.data);
    let sliced = SlicedPacket::from_ip(&p.data).unwrap();
    let Some(TransportSlice::Tcp(t)) = sliced.transport else {
        panic!("not TCP")
    };
    assert_eq!((t.sequence_number(), t.payload().len()), (7, 1000));
}

#[test]
fn datagrams_are_udp_with_their_ports_or_their_flow_s() {
    let udp = Pdu {
        bytes: 100,
        flow: 3,
        src_node: 1,
        dst_node: 0,
        header: Header::Udp {
            src_port: 12_865,
            dst_port: 12_866,
        },
        ..Pdu::default()
    };
    let p = packet(&udp, None, true).unwrap();
    checksums_verify(&p.data);
    let sliced = SlicedPacket::from_ip(&p.data).unwrap();
    let Some(TransportSlice::Udp(u)) = sliced.transport else {
        panic!("not UDP")
    };
    assert_eq!((u.source_port(), u.destination_port()), (12_865, 12_866));
    assert_eq!(u.payload().len(), 72);
    let plain = Pdu {
        header: Header::Ip,
        ..udp
    };
    let p = packet(&plain, None, false).unwrap();
    assert_eq!((p.orig_len, p.data.len()), (100, 28));
    let p = packet(&plain, None, true).unwrap();
    checksums_verify(&p.data);
    let sliced = SlicedPacket::from_ip(&p.data).unwrap();
    let Some(TransportSlice::Udp(u)) = sliced.transport else {
        panic!("not UDP")
    };
    assert_eq!(u.source_port(), flow_port(3));
}

#[test]
fn cells_are_not_packets() {
    let cell = Pdu {
        bytes: 53,
        header: Header::AtmCell(Default::default()),
        ..Pdu::default()
    };
    assert_eq!(packet(&cell, None, false), None);
}

#[test]
fn the_file_reads_back_with_nanosecond_stamps() {
    let mut f = PcapFile::new();
    let h = TcpHeader {
        flags: TCP_ACK,
        ..TcpHeader::default()
    };
    let p = packet(&segment(1500, h), Some(&wire()), false).unwrap();
    f.push(Time(1_234_567_890_123_456), &p);
    let bytes = f.into_bytes();
    assert_eq!(&bytes[..4], &0xa1b2_3c4du32.to_le_bytes());
    assert_eq!(
        bytes.len() as u64,
        FILE_HEADER_BYTES + PcapFile::record_bytes(&p)
    );
    let mut r = PcapReader::new(&bytes[..]).unwrap();
    assert_eq!(r.header().datalink, DataLink::RAW);
    let read = r.next_packet().unwrap().unwrap();
    assert_eq!(read.timestamp, std::time::Duration::new(1234, 567_890_123));
    assert_eq!((read.orig_len, &read.data[..]), (1500, &p.data[..]));
}
