//! What a link's physical layer adds to every PDU it carries. A PDU's
//! `bytes` are what the layer above handed over (an IP packet, a 53-byte
//! cell); the link transmits, and exposes to bit errors, its wire size.

use serde::{Deserialize, Serialize};

/// IEEE 802.3: 7 bytes of preamble and the start-of-frame delimiter, the
/// 14-byte MAC header, the 4-byte FCS and the 12-byte inter-frame gap.
pub(crate) const ETHERNET_OVERHEAD_BYTES: u32 = 8 + 14 + 4 + 12;
/// IEEE 802.3: a frame carries at least 46 bytes of payload (64-byte
/// minimum frame), padded when the packet is shorter.
pub(crate) const ETHERNET_MIN_PAYLOAD_BYTES: u32 = 46;

/// What a link's physical layer adds to each PDU (`links.NAME.framing`,
/// default none): the link transmits, and exposes to bit errors, the PDU's
/// size on the wire.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Framing {
    /// The PDU is sent as it is (ATM cells on a cell-based link, or a link
    /// whose rate is already the rate available to packets).
    #[default]
    None,
    /// Each packet is one Ethernet frame (IEEE 802.3).
    Ethernet,
    /// Each packet is carried over ATM as RFC 1577 does (LLC/SNAP header,
    /// AAL5 trailer and padding, 53-byte cells), timed as its whole cells
    /// without simulating them one by one: the cell tax of a packet-level
    /// model of an ATM path (`atm::aal5` segments real cells; its tests
    /// check that the two agree).
    Aal5,
}

/// RFC 2684 LLC/SNAP header, AAL5 CPCS trailer, and a cell's payload and
/// size (ITU-T I.363.5, I.361).
const AAL5_OVERHEAD_BYTES: u32 = 8 + 8;
const CELL_PAYLOAD_BYTES: u32 = 48;
const CELL_BYTES: u32 = 53;

impl Framing {
    /// Bytes on the wire for a PDU of `bytes`.
    pub(crate) fn wire_bytes(self, bytes: u32) -> u32 {
        match self {
            Framing::None => bytes,
            Framing::Ethernet => bytes.max(ETHERNET_MIN_PAYLOAD_BYTES) + ETHERNET_OVERHEAD_BYTES,
            Framing::Aal5 => {
                (bytes + AAL5_OVERHEAD_BYTES).div_ceil(CELL_PAYLOAD_BYTES) * CELL_BYTES
            }
        }
    }

    pub(crate) fn is_none(&self) -> bool {
        *self == Framing::None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ethernet_frames_have_their_overhead_and_minimum() {
        // A 1500-byte packet: 1538 bytes on the wire, 1230.4 µs at 10 Mb/s.
        assert_eq!(Framing::Ethernet.wire_bytes(1500), 1538);
        // A 40-byte ACK is padded to the 64-byte minimum frame: 84 bytes.
        assert_eq!(Framing::Ethernet.wire_bytes(40), 84);
        assert_eq!(Framing::Ethernet.wire_bytes(46), 84);
        assert_eq!(Framing::None.wire_bytes(53), 53);
    }

    #[test]
    fn aal5_framing_sends_whole_cells() {
        // A 500-byte packet: 516 bytes of CPCS-SDU and trailer, 11 cells.
        assert_eq!(Framing::Aal5.wire_bytes(500), 11 * 53);
        // 32 bytes fill one cell's payload exactly; 33 need a second.
        assert_eq!(Framing::Aal5.wire_bytes(32), 53);
        assert_eq!(Framing::Aal5.wire_bytes(33), 106);
    }
}
