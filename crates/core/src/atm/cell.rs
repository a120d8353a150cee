//! The ATM cell (ITU-T I.361): 53 bytes, a 5-byte header and a 48-byte
//! payload. The header (`AtmCellHeader`, defined as plain data in
//! `net::pdu` and carried in `Header::AtmCell`) keeps the fields the models
//! act on — VPI, VCI, the 3-bit payload type (PTI) and the cell loss
//! priority (CLP) — plus three model-only fields for AAL5 reassembly (see
//! `aal5`). The HEC and GFC are not modelled: cells are delivered intact or
//! lost.

pub use crate::net::pdu::AtmCellHeader;
use crate::net::pdu::{Class, Header, Pdu};

/// Bytes of one ATM cell on the wire: a 5-byte header and a 48-byte payload.
pub const CELL_BYTES: u32 = 53;
#[cfg(test)]
pub(crate) const CELL_HEADER: u32 = 5;
/// Bytes of a cell's payload.
pub const CELL_PAYLOAD: u32 = 48;
/// Bits of one cell on the wire: cell rates and line rates convert by it.
pub(crate) const CELL_BITS: f64 = CELL_BYTES as f64 * 8.0;

/// Cell rates (cells/s) written in a scenario description as the line rate
/// of the cells in bit/s (`*_bps` keys): all 53 bytes of each cell count.
pub(crate) mod cell_rate_as_bps {
    use super::CELL_BITS;
    use serde::{Deserialize, Deserializer, Serializer};

    pub(crate) fn serialize<S: Serializer>(cells_per_s: &f64, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(cells_per_s * CELL_BITS)
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
        Ok(f64::deserialize(d)? / CELL_BITS)
    }
}

/// PTI bit 2: 0 = user data cell, 1 = OAM/RM/reserved (I.361 §2.2.4).
const PTI_MANAGEMENT: u8 = 0b100;
/// PTI bit 1 of a user data cell: explicit forward congestion indication.
const PTI_EFCI: u8 = 0b010;
/// PTI bit 0 of a user data cell: ATM-user-to-ATM-user indication, which
/// AAL5 uses as "last cell of the CPCS-PDU" (SDU type 1).
const PTI_AUU: u8 = 0b001;
/// OAM F5 flow cells, segment and end-to-end.
#[cfg(test)]
pub(crate) const PTI_OAM_SEGMENT: u8 = 4;
#[cfg(test)]
pub(crate) const PTI_OAM_END_TO_END: u8 = 5;
/// Resource management cell (ABR, ATM Forum TM 4.0).
#[cfg(test)]
pub(crate) const PTI_RM: u8 = 6;

impl AtmCellHeader {
    /// A user data cell on `vpi/vci`; `end_of_frame` sets the AUU bit.
    pub fn data(vpi: u16, vci: u16, end_of_frame: bool) -> AtmCellHeader {
        AtmCellHeader {
            vpi,
            vci,
            pti: if end_of_frame { PTI_AUU } else { 0 },
            ..AtmCellHeader::default()
        }
    }

    pub(crate) fn is_data(&self) -> bool {
        self.pti & PTI_MANAGEMENT == 0
    }

    #[cfg(test)]
    pub(crate) fn is_rm(&self) -> bool {
        self.pti == PTI_RM
    }

    #[cfg(test)]
    pub(crate) fn is_oam(&self) -> bool {
        self.pti == PTI_OAM_SEGMENT || self.pti == PTI_OAM_END_TO_END
    }

    /// The last cell of an AAL5 frame (user data cell with AUU = 1).
    pub(crate) fn end_of_frame(&self) -> bool {
        self.is_data() && self.pti & PTI_AUU != 0
    }

    /// Congestion experienced on the way (user data cell with EFCI = 1).
    pub(crate) fn efci(&self) -> bool {
        self.is_data() && self.pti & PTI_EFCI != 0
    }

    /// A congested switch marks data cells; management cells have no EFCI
    /// bit, so they pass unchanged.
    #[cfg(test)]
    pub(crate) fn set_efci(&mut self, on: bool) {
        if self.is_data() {
            self.pti = if on {
                self.pti | PTI_EFCI
            } else {
                self.pti & !PTI_EFCI
            };
        }
    }
}

/// A 53-byte cell PDU with header `h`, copying the flow, endpoints, times
/// and priority of `like` (the packet it carries, or any template).
pub(crate) fn cell_pdu(like: &Pdu, h: AtmCellHeader) -> Pdu {
    Pdu {
        bytes: CELL_BYTES,
        class: Class::new(like.priority(), h.clp),
        header: Header::AtmCell(h),
        ..*like
    }
}

/// The cell header of `p`, if it is a cell.
pub(crate) fn cell_header(p: &Pdu) -> Option<&AtmCellHeader> {
    match &p.header {
        Header::AtmCell(h) => Some(h),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cell_sizes() {
        assert_eq!(CELL_HEADER + CELL_PAYLOAD, CELL_BYTES);
        assert!(std::mem::size_of::<AtmCellHeader>() <= 16);
    }

    #[test]
    fn pti_bits() {
        let mut h = AtmCellHeader::data(1, 42, false);
        assert!(h.is_data() && !h.end_of_frame() && !h.efci() && !h.is_rm());
        h.set_efci(true);
        assert!(h.efci() && !h.end_of_frame());
        let mut last = AtmCellHeader::data(1, 42, true);
        last.set_efci(true);
        assert!(last.end_of_frame() && last.efci() && last.pti == 3);
        last.set_efci(false);
        assert_eq!(last.pti, 1);

        let mut rm = AtmCellHeader {
            pti: PTI_RM,
            ..AtmCellHeader::default()
        };
        assert!(rm.is_rm() && !rm.is_data() && !rm.is_oam());
        // PTI 6 has bits 1 and 0 = 1, 0: neither EFCI nor end of frame.
        assert!(!rm.end_of_frame() && !rm.efci());
        rm.set_efci(true);
        assert_eq!(rm.pti, PTI_RM);
        // PTI 7 (reserved) is not end-of-frame either.
        let reserved = AtmCellHeader {
            pti: 7,
            ..AtmCellHeader::default()
        };
        assert!(!reserved.end_of_frame() && !reserved.is_rm());
    }

    #[test]
    fn header_round_trip_through_pdu() {
        let h = AtmCellHeader {
            vpi: 0xabc,
            vci: 0xfedc,
            pti: 3,
            clp: 1,
            frame: 0xdead_beef,
            index: 191,
            sdu_len: 9188,
        };
        let like = Pdu {
            flow: 7,
            seq: 99,
            src_node: 1,
            dst_node: 2,
            ..Pdu::default()
        };
        let p = cell_pdu(&like, h);
        assert_eq!(p.bytes, CELL_BYTES);
        assert_eq!(
            (p.flow, p.seq, p.src_node, p.dst_node, p.clp()),
            (7, 99, 1, 2, 1)
        );
        let copy = p.clone(); // A cell's header is inline: it travels with the PDU.
        assert_eq!(cell_header(&copy), Some(&h));
        assert_eq!(cell_header(&like), None);
    }
}
