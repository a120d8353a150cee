//! The fields of an IPv4 header (RFC 791 §3.1) the emulator needs to move a
//! packet read from a TUN device: its length, its addresses and its ECN
//! field (RFC 3168 §5). Everything else crosses the model untouched, as
//! bytes, except a CE mark the model set, which `set_ce` writes back with
//! the header checksum updated incrementally (RFC 1624 eqn. 3).

use std::net::Ipv4Addr;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Ipv4Info {
    /// Total length: header and payload, the size the models carry.
    pub total_len: u16,
    pub src: Ipv4Addr,
    pub dst: Ipv4Addr,
    /// The ECN field, the low two bits of the old TOS octet.
    pub ecn: u8,
}

/// The ECN field's Congestion Experienced codepoint.
pub const CE: u8 = 0b11;

/// Sets the ECN field of the IPv4 packet in `frame` to CE, updating the
/// header checksum: HC' = ~(~HC + ~m + m') over the 16-bit word m that
/// holds the TOS octet (RFC 1624 §3, eqn. 3, in one's complement sums).
/// The caller has checked `frame` with `parse`.
pub fn set_ce(frame: &mut [u8]) {
    let old = u16::from_be_bytes([frame[0], frame[1]]);
    frame[1] |= CE;
    let new = u16::from_be_bytes([frame[0], frame[1]]);
    let hc = u16::from_be_bytes([frame[10], frame[11]]);
    let sum = ones_add(ones_add(!hc, !old), new);
    frame[10..12].copy_from_slice(&(!sum).to_be_bytes());
}

/// One's complement 16-bit addition (end-around carry).
fn ones_add(a: u16, b: u16) -> u16 {
    let (s, carry) = a.overflowing_add(b);
    s + u16::from(carry)
}

/// Why a frame read from a device is not moved.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum NotMoved {
    /// Not IPv4 (an IPv6 packet, or garbage).
    NotIpv4,
    /// Shorter than its header, or than the total length it claims.
    Truncated,
}

pub fn parse(frame: &[u8]) -> Result<Ipv4Info, NotMoved> {
    let Some(&first) = frame.first() else {
        return Err(NotMoved::Truncated);
    };
    if first >> 4 != 4 {
        return Err(NotMoved::NotIpv4);
    }
    let header_len = usize::from(first & 0x0f) * 4;
    if header_len < 20 || frame.len() < header_len {
        return Err(NotMoved::Truncated);
    }
    let total_len = u16::from_be_bytes([frame[2], frame[3]]);
    if usize::from(total_len) < header_len || usize::from(total_len) > frame.len() {
        return Err(NotMoved::Truncated);
    }
    let addr = |at: usize| Ipv4Addr::new(frame[at], frame[at + 1], frame[at + 2], frame[at + 3]);
    Ok(Ipv4Info {
        total_len,
        src: addr(12),
        dst: addr(16),
        ecn: frame[1] & CE,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An ICMP echo request from 10.0.0.1 to 10.0.0.2 as Linux's ping
    /// writes it (84 bytes: 20 of header, 8 of ICMP, 56 of data).
    fn ping() -> Vec<u8> {
        let mut p = vec![
            0x45, 0x00, 0x00, 0x54, 0x12, 0x34, 0x40, 0x00, 0x40, 0x01, 0x00, 0x00, 10, 0, 0, 1,
            10, 0, 0, 2,
        ];
        p.resize(84, 0);
        p
    }

    #[test]
    fn reads_length_and_addresses() {
        let info = parse(&ping()).unwrap();
        assert_eq!(info.total_len, 84);
        assert_eq!(info.src, Ipv4Addr::new(10, 0, 0, 1));
        assert_eq!(info.dst, Ipv4Addr::new(10, 0, 0, 2));
    }

    /// The RFC 1071 sum of a header, computed afresh.
    fn checksum(h: &[u8]) -> u16 {
        let mut s: u32 = h
            .chunks(2)
            .map(|w| u32::from(u16::from_be_bytes([w[0], w[1]])))
            .sum();
        while s >> 16 != 0 {
            s = (s & 0xffff) + (s >> 16);
        }
        !(s as u16)
    }

    /// A UDP packet's header from 192.168.0.1 to 192.168.0.199 whose
    /// checksum, 0xb861, is the one the usual worked example gives; with
    /// the TOS octet at ECT(0) it is 0xb85f, and after CE 0xb85e (from an
    /// independent RFC 1071 sum).
    fn udp_header(tos: u8, checksum: u16) -> Vec<u8> {
        let mut h = vec![
            0x45, tos, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0, 0, 192, 168, 0, 1, 192,
            168, 0, 199,
        ];
        h[10..12].copy_from_slice(&checksum.to_be_bytes());
        h.resize(0x73, 0);
        h
    }

    #[test]
    fn ce_is_written_back_with_the_checksum_updated() {
        assert_eq!(checksum(&udp_header(0, 0)[..20]), 0xb861);
        let mut p = udp_header(0x02, 0xb85f);
        assert_eq!(parse(&p).unwrap().ecn, 0b10);
        set_ce(&mut p);
        assert_eq!(p[1], 0x03);
        assert_eq!(u16::from_be_bytes([p[10], p[11]]), 0xb85e);
        assert_eq!(parse(&p).unwrap().ecn, CE);
        // DSCP bits are kept: EF (46) with ECT(0) is 0xba, checksum 0xb7a7.
        let mut ef = udp_header(0xba, 0xb7a7);
        set_ce(&mut ef);
        assert_eq!(
            (ef[1], u16::from_be_bytes([ef[10], ef[11]])),
            (0xbb, 0xb7a6)
        );
        // Every TOS octet and starting checksum: the incremental update
        // agrees with a fresh sum; an already-marked packet is unchanged.
        for tos in 0..=255u8 {
            for id in [0u16, 1, 0x1234, 0xfffe, 0xffff] {
                let mut h = udp_header(tos, 0);
                h[4..6].copy_from_slice(&id.to_be_bytes());
                let c = checksum(&h[..20]);
                h[10..12].copy_from_slice(&c.to_be_bytes());
                let before = h.clone();
                set_ce(&mut h);
                assert_eq!(
                    checksum(&h[..20]),
                    0,
                    "tos {tos:#x} id {id:#x}: sum verifies"
                );
                if tos & CE == CE {
                    assert_eq!(h, before);
                }
            }
        }
    }

    #[test]
    fn refuses_ipv6_and_short_frames() {
        let mut v6 = ping();
        v6[0] = 0x60;
        assert_eq!(parse(&v6), Err(NotMoved::NotIpv4));
        assert_eq!(parse(&ping()[..60]), Err(NotMoved::Truncated));
        assert_eq!(parse(&ping()[..10]), Err(NotMoved::Truncated));
        assert_eq!(parse(&[]), Err(NotMoved::Truncated));
        let mut bad_ihl = ping();
        bad_ihl[0] = 0x44;
        assert_eq!(parse(&bad_ihl), Err(NotMoved::Truncated));
    }

    #[test]
    fn padding_beyond_the_total_length_is_not_counted() {
        let mut p = ping();
        p.extend_from_slice(&[0; 6]);
        assert_eq!(parse(&p).unwrap().total_len, 84);
    }
}
