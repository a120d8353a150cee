//! The fields of an IPv4 header (RFC 791 §3.1) the emulator needs to move a
//! packet read from a TUN device: its length and its addresses. Everything
//! else crosses the model untouched, as bytes.

use std::net::Ipv4Addr;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Ipv4Info {
    /// Total length: header and payload, the size the models carry.
    pub total_len: u16,
    pub src: Ipv4Addr,
    pub dst: Ipv4Addr,
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
