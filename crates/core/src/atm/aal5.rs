//! AAL5 (ITU-T I.363.5) carrying IP over ATM as RFC 1577 classical IP does:
//! the IP packet gets the 8-byte LLC/SNAP header of RFC 1483/2684 §4.1
//! (AA-AA-03, OUI 00-00-00, EtherType 08-00), forming the CPCS-SDU (or no
//! header with VC multiplexing, or LAN emulation's 16 bytes); the
//! CPCS-PDU adds 0–47 pad bytes and the 8-byte trailer (UU, CPI, Length,
//! CRC-32) so that it fills whole 48-byte cell payloads. The last cell of a
//! frame has the PTI AUU bit set.
//!
//! Payload bytes are not simulated, so neither is the CRC: the receiver
//! checks instead that it collected exactly the cells of one frame (the
//! frame number and cell count the cells carry). That fails in exactly the
//! cases the CRC-32 and length check fail: a cell lost inside a frame, or
//! a lost last cell, which merges the frame with the next one and loses
//! both. One lost cell therefore costs a whole packet, the effect behind
//! early/partial packet discard.

#[cfg(test)]
use super::cell::cell_pdu;
use super::cell::{cell_header, AtmCellHeader, CELL_PAYLOAD};
use crate::net::pdu::{Header, Pdu};

pub(crate) const LLC_SNAP_BYTES: u32 = 8;
/// LAN emulation (ATM Forum LANE v1.0, af-lane-0021.000): a 2-byte LE
/// header (the LECID) and the 14-byte IEEE 802.3 MAC header, without the
/// FCS, before the packet.
pub(crate) const LANE_8023_BYTES: u32 = 2 + 14;
pub(crate) const AAL5_TRAILER_BYTES: u32 = 8;
/// The trailer's Length field is 16 bits.
pub(crate) const MAX_SDU_BYTES: u32 = 65_535;

/// RFC 2684 multiplexing of the packet on the VC.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Encapsulation {
    /// LLC/SNAP header before the packet (RFC 1577's default).
    #[default]
    LlcSnap,
    /// VC-based multiplexing: one protocol per VC, no header.
    VcMux,
    /// An IEEE 802.3 LAN emulation data frame: the LE header and the MAC
    /// header before the packet. The frame is not padded to 802.3's 60-byte
    /// minimum, which changes the cell count of no IP packet of 25 bytes or
    /// more (every TCP segment and UDP datagram satcc sends).
    Lane,
}

impl Encapsulation {
    /// Bytes this encapsulation puts before each packet in the CPCS-SDU: 8
    /// for LLC/SNAP, 0 for VC multiplexing, 16 for LAN emulation.
    pub fn header_bytes(self) -> u32 {
        match self {
            Encapsulation::LlcSnap => LLC_SNAP_BYTES,
            Encapsulation::VcMux => 0,
            Encapsulation::Lane => LANE_8023_BYTES,
        }
    }

    /// The largest IP packet a frame can carry: the CPCS-SDU's 16-bit
    /// length less this encapsulation's header (65527 B with LLC/SNAP).
    pub(crate) fn max_packet_bytes(self) -> u32 {
        MAX_SDU_BYTES - self.header_bytes()
    }

    /// Cells for an IP packet of `ip_bytes` (IP header included).
    pub(crate) fn cells(self, ip_bytes: u32) -> u32 {
        cells_for_sdu(ip_bytes + self.header_bytes())
    }
}

/// Cells of the CPCS-PDU for a CPCS-SDU of `sdu_bytes`: trailer added,
/// padded to whole cell payloads.
pub(crate) fn cells_for_sdu(sdu_bytes: u32) -> u32 {
    (sdu_bytes + AAL5_TRAILER_BYTES).div_ceil(CELL_PAYLOAD)
}

/// Cells for an IP packet of `ip_bytes` under RFC 1577 (LLC/SNAP + AAL5):
/// `ceil((L + 8 + 8) / 48)`.
#[cfg(test)]
pub(crate) fn cells_for_ip_packet(ip_bytes: u32) -> u32 {
    Encapsulation::LlcSnap.cells(ip_bytes)
}

/// Pad bytes in the last cell(s) of the CPCS-PDU.
#[cfg(test)]
pub(crate) fn pad_bytes(sdu_bytes: u32) -> u32 {
    cells_for_sdu(sdu_bytes) * CELL_PAYLOAD - sdu_bytes - AAL5_TRAILER_BYTES
}

/// Appends to `out` the cells of `packet` sent as frame `frame` on
/// `vpi/vci`. Each cell copies the packet's flow, sequence number,
/// endpoints, times and priorities; only the last has the end-of-frame bit.
/// Returns the number of cells.
///
/// Panics if the packet does not fit one CPCS-PDU (SDU > 65 535 bytes):
/// the scenario's MTU must keep packets within AAL5's limit.
#[cfg(test)]
pub(crate) fn segment(
    packet: &Pdu,
    encap: Encapsulation,
    vpi: u16,
    vci: u16,
    frame: u32,
    out: &mut Vec<Pdu>,
) -> u32 {
    let sdu = packet.bytes + encap.header_bytes();
    assert!(
        sdu <= MAX_SDU_BYTES,
        "AAL5: a {}-byte packet exceeds the 65535-byte CPCS-SDU",
        packet.bytes
    );
    let n = cells_for_sdu(sdu);
    out.reserve(n as usize);
    for i in 0..n {
        let h = frame_cell_header(packet, encap, vpi, vci, frame, i);
        out.push(cell_pdu(packet, h));
    }
    n
}

/// The header of cell `index` of `packet` sent as `frame` on `vpi/vci`;
/// for senders that emit a frame's cells one at a time (a paced ABR
/// source) rather than all at once.
pub(crate) fn frame_cell_header(
    packet: &Pdu,
    encap: Encapsulation,
    vpi: u16,
    vci: u16,
    frame: u32,
    index: u32,
) -> AtmCellHeader {
    let sdu = packet.bytes + encap.header_bytes();
    let n = cells_for_sdu(sdu);
    AtmCellHeader {
        frame,
        index: index as u16,
        sdu_len: sdu as u16,
        clp: packet.clp(),
        ..AtmCellHeader::data(vpi, vci, index + 1 == n)
    }
}

/// The sending side of one VC: numbers the frames so that the receiver
/// (and the statistics) can tell them apart. The VCs segment in `vc.rs`;
/// this one feeds the reassembler's tests.
#[cfg(test)]
#[derive(Clone, Debug, Default)]
pub(crate) struct Segmenter {
    pub(crate) vpi: u16,
    pub(crate) vci: u16,
    pub(crate) encap: Encapsulation,
    next_frame: u32,
    pub(crate) frames: u64,
    pub(crate) cells: u64,
}

#[cfg(test)]
impl Segmenter {
    pub(crate) fn new(vpi: u16, vci: u16, encap: Encapsulation) -> Segmenter {
        Segmenter {
            vpi,
            vci,
            encap,
            ..Segmenter::default()
        }
    }

    /// Appends the cells of `packet` to `out`; returns how many.
    pub(crate) fn segment(&mut self, packet: &Pdu, out: &mut Vec<Pdu>) -> u32 {
        let n = segment(packet, self.encap, self.vpi, self.vci, self.next_frame, out);
        self.next_frame = self.next_frame.wrapping_add(1);
        self.frames += 1;
        self.cells += n as u64;
        n
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReassemblyStats {
    /// User data cells offered (management cells are not counted).
    pub(crate) cells_received: u64,
    /// Cells of the frames that failed the check.
    pub(crate) cells_discarded: u64,
    pub(crate) frames_ok: u64,
    /// Reassembled CPCS-PDUs that failed the check: one per failure, as a
    /// real receiver counts CRC errors, even when a lost last cell merged
    /// two packets into that one PDU.
    pub(crate) frames_discarded: u64,
    /// IP bytes of the delivered packets.
    pub(crate) bytes_ok: u64,
}

/// The receiving side of one VC: collects cells until the end-of-frame
/// cell, then delivers the packet or discards the frame. A passive state
/// machine fed one cell at a time; it holds counts, never the cells.
#[derive(Clone, Debug, Default)]
pub struct Reassembler {
    pub(crate) encap: Encapsulation,
    /// Cells collected since the last end-of-frame cell.
    count: u32,
    /// Frame number of the first of them.
    frame: u32,
    /// Cells of more than one frame were collected (a last cell was lost).
    mixed: bool,
    /// What it counted: cells received and discarded, frames delivered and
    /// failed, bytes delivered.
    pub stats: ReassemblyStats,
}

impl Reassembler {
    /// A receiver for packets in this encapsulation, no cell collected yet.
    pub fn new(encap: Encapsulation) -> Reassembler {
        Reassembler {
            encap,
            ..Reassembler::default()
        }
    }

    /// Offers one arrived cell. Returns the reassembled IP packet when this
    /// cell completes an intact frame. Management cells (OAM, RM) are not
    /// part of frames and are ignored; so are PDUs that are not cells.
    pub fn push(&mut self, cell: &Pdu) -> Option<Pdu> {
        let h = match cell_header(cell) {
            Some(h) if h.is_data() => *h,
            _ => return None,
        };
        self.stats.cells_received += 1;
        if self.count == 0 {
            self.frame = h.frame;
        } else if h.frame != self.frame {
            self.mixed = true;
        }
        self.count += 1;
        if !h.end_of_frame() {
            return None;
        }
        // The trailer (in this last cell) gives the length; the count must
        // match it and all cells must be of this frame.
        let sdu = h.sdu_len as u32;
        let intact = !self.mixed && self.count == cells_for_sdu(sdu);
        let cells = self.count;
        self.count = 0;
        self.mixed = false;
        if !intact {
            self.stats.frames_discarded += 1;
            self.stats.cells_discarded += cells as u64;
            return None;
        }
        let bytes = sdu - self.encap.header_bytes();
        self.stats.frames_ok += 1;
        self.stats.bytes_ok += bytes as u64;
        Some(Pdu {
            bytes,
            // Upper-layer headers are not carried in cells; an endpoint
            // that needs them keys them by (flow, seq).
            header: Header::Ip,
            ..*cell
        })
    }

    /// Cells collected towards a frame not yet ended.
    #[cfg(test)]
    pub(crate) fn pending_cells(&self) -> u32 {
        self.count
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn link_framing_times_the_cells_segmentation_makes() {
        use crate::net::framing::Framing;
        for ip_bytes in 20..3000 {
            let cells = cells_for_ip_packet(ip_bytes);
            assert_eq!(Framing::Aal5.wire_bytes(ip_bytes), cells * 53, "{ip_bytes}");
        }
    }

    use super::super::cell::{CELL_BYTES, PTI_RM};
    use super::*;

    fn packet(bytes: u32, seq: u64) -> Pdu {
        Pdu {
            bytes,
            flow: 3,
            seq,
            src_node: 1,
            dst_node: 2,
            dst_agent: 5,
            ..Pdu::default()
        }
    }

    #[test]
    fn cell_counts_match_reference_examples() {
        // REFERENCE.md §2.5: 9180 → 192, 1500 → 32, a 40-byte ACK → 2.
        assert_eq!(cells_for_ip_packet(9180), 192);
        assert_eq!(cells_for_ip_packet(1500), 32);
        assert_eq!(cells_for_ip_packet(40), 2);
        // 32 cells boundary: 32·48 − 16 = 1520 fits, 1521 does not.
        assert_eq!(cells_for_ip_packet(1520), 32);
        assert_eq!(cells_for_ip_packet(1521), 33);
        assert_eq!(pad_bytes(1508), 32 * 48 - 1508 - 8);
        // Without LLC/SNAP a 40-byte packet fits one cell.
        assert_eq!(Encapsulation::VcMux.cells(40), 1);
        // LANE: 16 header bytes and the 8-byte trailer. A 1500-byte packet
        // is 1524 B, 32 cells, as with LLC/SNAP; a 40-byte ACK 64 B, 2
        // cells; 1512 B is the largest packet in 32 cells (1536 B).
        assert_eq!(Encapsulation::Lane.cells(1500), 32);
        assert_eq!(Encapsulation::Lane.cells(40), 2);
        assert_eq!(Encapsulation::Lane.cells(1512), 32);
        assert_eq!(Encapsulation::Lane.cells(1513), 33);
        assert_eq!(Encapsulation::Lane.max_packet_bytes(), 65_535 - 16);
    }

    #[test]
    fn segmentation_of_1500_byte_packet() {
        let mut out = Vec::new();
        let n = segment(
            &packet(1500, 9),
            Encapsulation::LlcSnap,
            0,
            100,
            4,
            &mut out,
        );
        assert_eq!(n, 32);
        assert_eq!(out.len(), 32);
        for (i, c) in out.iter().enumerate() {
            let h = cell_header(c).unwrap();
            assert_eq!(c.bytes, CELL_BYTES);
            assert_eq!((c.flow, c.seq), (3, 9));
            assert_eq!((h.vci, h.frame, h.index as usize), (100, 4, i));
            assert_eq!(h.end_of_frame(), i == 31, "cell {i}");
        }
    }

    fn cells_of(seg: &mut Segmenter, sizes: &[u32]) -> Vec<Vec<Pdu>> {
        sizes
            .iter()
            .enumerate()
            .map(|(i, &b)| {
                let mut v = Vec::new();
                seg.segment(&packet(b, i as u64), &mut v);
                v
            })
            .collect()
    }

    #[test]
    fn reassembly_delivers_discards_and_resynchronises() {
        let mut seg = Segmenter::new(0, 32, Encapsulation::LlcSnap);
        let frames = cells_of(&mut seg, &[1500, 552, 1500]);
        let mut r = Reassembler::new(Encapsulation::LlcSnap);
        let mut got = Vec::new();
        for (f, cells) in frames.iter().enumerate() {
            for (i, c) in cells.iter().enumerate() {
                if f == 1 && i == 3 {
                    continue; // one cell of the middle frame lost
                }
                got.extend(r.push(c));
            }
        }
        assert_eq!(got.len(), 2);
        assert_eq!((got[0].bytes, got[0].seq, got[0].flow), (1500, 0, 3));
        assert_eq!((got[1].bytes, got[1].seq), (1500, 2));
        assert_eq!(got[1].header, Header::Ip);
        let s = &r.stats;
        assert_eq!((s.frames_ok, s.frames_discarded), (2, 1));
        assert_eq!(s.cells_received, 32 + 11 + 32);
        assert_eq!(s.cells_discarded, 11);
        assert_eq!(s.bytes_ok, 3000);
        assert_eq!(r.pending_cells(), 0);
    }

    #[test]
    fn lost_last_cell_merges_two_frames() {
        let mut seg = Segmenter::new(0, 32, Encapsulation::LlcSnap);
        let frames = cells_of(&mut seg, &[552, 552, 1500]);
        let mut r = Reassembler::new(Encapsulation::LlcSnap);
        let mut got = Vec::new();
        for (f, cells) in frames.iter().enumerate() {
            for (i, c) in cells.iter().enumerate() {
                if f == 0 && i + 1 == cells.len() {
                    continue; // end-of-frame cell of frame 0 lost
                }
                got.extend(r.push(c));
            }
        }
        // Frames 0 and 1 reassemble as one PDU that fails; frame 2 is fine.
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].seq, 2);
        assert_eq!((r.stats.frames_ok, r.stats.frames_discarded), (1, 1));
        assert_eq!(r.stats.cells_discarded, 11 + 12);
    }

    #[test]
    fn management_cells_do_not_disturb_reassembly() {
        let mut seg = Segmenter::new(0, 32, Encapsulation::LlcSnap);
        let frames = cells_of(&mut seg, &[1500]);
        let rm = cell_pdu(
            &packet(0, 0),
            AtmCellHeader {
                pti: PTI_RM,
                ..AtmCellHeader::default()
            },
        );
        let mut r = Reassembler::new(Encapsulation::LlcSnap);
        let mut got = Vec::new();
        for c in &frames[0] {
            got.extend(r.push(c));
            assert!(r.push(&rm).is_none());
        }
        assert_eq!(got.len(), 1);
        assert_eq!(r.stats.cells_received, 32);
        assert!(r.push(&packet(1500, 0)).is_none());
    }

    #[test]
    #[should_panic(expected = "65535")]
    fn oversized_packet_is_refused() {
        segment(
            &packet(MAX_SDU_BYTES, 0),
            Encapsulation::LlcSnap,
            0,
            1,
            0,
            &mut Vec::new(),
        );
    }
}
