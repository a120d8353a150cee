//! A virtual circuit carrying IP packets end to end as AAL5 frames (TCP
//! over ATM: RFC 1577 LLC/SNAP, `aal5`). At the source end system, a per-VC
//! segmentation buffer filled with whole packets. An ABR VC drains it one
//! cell at a time at the allowed cell rate (TM 4.0 source rules, `abr`),
//! with an FRM every Nrm cells; a UBR VC, which has no rate control, hands
//! all the cells of a packet to the network at once and lets the links
//! pace them. At the destination end system, AAL5 reassembly and, for ABR,
//! the turnaround of FRMs into BRMs.
//!
//! Cells carry no payload, so the packets themselves (with their TCP
//! headers) wait in the VC, in frame order, between the moment their last
//! cell leaves and the moment it arrives. ATM keeps cell order on a VC,
//! so the destination finds a frame's packet at the front of that queue;
//! frames in front of it lost a cell on the way.
//!
//! A connection's two VCs are paired: the BRMs the destination end of one
//! turns around are sent, in rate, by the source end of the other (TM 4.0
//! source rule 3b), so an end system never puts more than PCR on its link.
//! An unpaired VC's destination sends them straight back. A passive state
//! machine: the world supplies time and moves the cells.

use super::aal5::{frame_cell_header, Encapsulation, Reassembler};
use super::abr::{AbrConfig, AbrDestination, AbrSource, CellKind, RmCell, RmDir};
use super::cell::{cell_header, cell_pdu, AtmCellHeader, CELL_BYTES};
use crate::engine::Time;
use crate::net::pdu::{AgentAddr, Class, Header, Pdu};
use std::collections::VecDeque;

/// Where the cells of a VC go: written into every cell it sends.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct VcEnds {
    /// Flow id for per-flow accounting of the cells.
    pub flow: u32,
    pub src_node: u32,
    pub dst_node: u32,
    /// Receiving agent at `dst_node` (data and FRM cells).
    pub dst_agent: AgentAddr,
    /// Receiving agent at `src_node` (BRM cells).
    pub(crate) src_agent: AgentAddr,
    /// Queue priority of the cells; ABR is the low level below VBR.
    pub priority: u8,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct VcStats {
    pub(crate) packets_offered: u64,
    pub(crate) cells_sent: u64,
    pub(crate) packets_delivered: u64,
    /// Packets whose frame failed reassembly (a cell lost on the way).
    pub(crate) packets_lost: u64,
    /// Packets refused at the source end: too large for one AAL5 frame.
    pub(crate) packets_too_large: u64,
    /// FRMs turned around at the destination end.
    pub(crate) frms_turned_around: u64,
    /// Largest segmentation-buffer backlog, bytes of IP packets.
    pub(crate) max_buffered_bytes: u64,
}

/// What the destination end does with an arriving cell.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Arrival {
    Nothing,
    /// A frame completed intact: its packet.
    Packet(Pdu),
    /// An FRM was turned around: the BRM to send back, by the paired VC's
    /// source (`turn_around`) or straight back (`brm_cell`).
    Turnaround(RmCell),
}

pub(crate) struct Vc {
    pub(crate) vpi: u16,
    pub(crate) vci: u16,
    pub(crate) ends: VcEnds,
    /// The ABR source end; `None` for a UBR VC.
    pub(crate) source: Option<AbrSource>,
    pub(crate) destination: AbrDestination,
    encap: Encapsulation,
    /// Packets whose cells are not all sent; the front one is in progress.
    waiting: VecDeque<Pdu>,
    /// Cells of the front packet already sent.
    front_sent: u32,
    next_frame: u32,
    /// (frame, packet) whose last cell has left but not yet arrived.
    in_transit: VecDeque<(u32, Pdu)>,
    reassembler: Reassembler,
    buffered_bytes: u64,
    /// The VC (ends, VCI) whose turned-around BRMs this source sends.
    partner: Option<(VcEnds, u16)>,
    pub stats: VcStats,
}

/// The RM fields of an RM cell PDU.
pub(crate) fn rm_of(p: &Pdu) -> Option<RmCell> {
    match &p.header {
        Header::Rm(h) => Some(**h),
        _ => None,
    }
}

impl Vc {
    /// An ABR VC with parameters `cfg`.
    pub(crate) fn new(
        vpi: u16,
        vci: u16,
        ends: VcEnds,
        cfg: AbrConfig,
        encap: Encapsulation,
    ) -> Vc {
        Vc {
            source: Some(AbrSource::new(cfg)),
            ..Vc::ubr(vpi, vci, ends, encap)
        }
    }

    /// A UBR VC: no rate control, no RM cells.
    pub(crate) fn ubr(vpi: u16, vci: u16, ends: VcEnds, encap: Encapsulation) -> Vc {
        Vc {
            vpi,
            vci,
            ends,
            source: None,
            destination: AbrDestination::new(),
            encap,
            waiting: VecDeque::new(),
            front_sent: 0,
            next_frame: 0,
            in_transit: VecDeque::new(),
            reassembler: Reassembler::new(encap),
            buffered_bytes: 0,
            partner: None,
            stats: VcStats::default(),
        }
    }

    /// This VC's source end will send the BRMs of `other`, the VC coming
    /// the other way between the same end systems.
    pub(crate) fn pair_with(&mut self, other: &Vc) {
        assert_eq!(
            (other.ends.src_node, other.ends.dst_node),
            (self.ends.dst_node, self.ends.src_node),
            "paired VCs join the same end systems in opposite directions"
        );
        self.partner = Some((other.ends, other.vci));
    }

    /// A BRM of the paired VC, to send in rate (rule 3b).
    pub(crate) fn turn_around(&mut self, brm: RmCell) {
        if let Some(s) = self.source.as_mut() {
            s.turn_around(brm);
        }
    }

    /// The cell carrying BRM `brm` of the VC with `ends`/`vci` from its
    /// destination end back to its source end.
    fn backward_cell(now: Time, ends: VcEnds, vci: u16, vpi: u16, brm: &RmCell) -> Pdu {
        Pdu {
            bytes: CELL_BYTES,
            flow: ends.flow,
            seq: 0,
            src_node: ends.dst_node,
            dst_node: ends.src_node,
            dst_agent: ends.src_agent.index,
            dst_gen: ends.src_agent.gen,
            created: now,
            enqueued: now,
            class: Class::new(ends.priority, 0),
            ecn: 0,
            header: Header::Rm(Box::new(RmCell { vpi, vci, ..*brm })),
        }
    }

    /// An RM cell of this VC: its VPI/VCI written in.
    fn addressed(&self, rm: RmCell) -> RmCell {
        RmCell {
            vpi: self.vpi,
            vci: self.vci,
            ..rm
        }
    }

    /// The cell carrying this VC's BRM straight back (an unpaired VC).
    #[cfg(test)]
    pub(crate) fn brm_cell(&self, now: Time, brm: &RmCell) -> Pdu {
        Vc::backward_cell(now, self.ends, self.vci, self.vpi, brm)
    }

    /// IP bytes waiting in the segmentation buffer.
    #[cfg(test)]
    pub(crate) fn buffered_bytes(&self) -> u64 {
        self.buffered_bytes
    }

    /// A packet from the layer above joins the segmentation buffer, unless
    /// it is too large for one AAL5 frame: the 16-bit length would wrap and
    /// every frame fail at the destination, so it is refused and counted.
    pub(crate) fn offer(&mut self, packet: Pdu) {
        self.stats.packets_offered += 1;
        if packet.bytes > self.encap.max_packet_bytes() {
            self.stats.packets_too_large += 1;
            return;
        }
        if let Some(s) = self.source.as_mut() {
            s.enqueue_cells(u64::from(self.encap.cells(packet.bytes)));
        }
        self.buffered_bytes += u64::from(packet.bytes);
        self.stats.max_buffered_bytes = self.stats.max_buffered_bytes.max(self.buffered_bytes);
        self.waiting.push_back(packet);
    }

    /// When the source end next sends a cell; never for UBR, whose cells
    /// are all taken (`emit` until `None`) as soon as a packet is offered.
    pub(crate) fn poll_at(&self) -> Time {
        self.source.as_ref().map_or(Time::NEVER, |s| s.poll_at())
    }

    fn template(&self, now: Time, dst_node: u32, dst_agent: AgentAddr, src_node: u32) -> Pdu {
        Pdu {
            bytes: CELL_BYTES,
            flow: self.ends.flow,
            seq: self.stats.cells_sent,
            src_node,
            dst_node,
            dst_agent: dst_agent.index,
            dst_gen: dst_agent.gen,
            created: now,
            enqueued: now,
            class: Class::new(self.ends.priority, 0),
            ecn: 0,
            header: Header::Ip,
        }
    }

    /// The cell the source end sends at `now`, if one is due.
    pub(crate) fn emit(&mut self, now: Time) -> Option<Pdu> {
        let kind = match self.source.as_mut() {
            Some(s) => s.send_cell(now)?,
            None if self.waiting.is_empty() => return None,
            None => CellKind::Data,
        };
        let e = self.ends;
        let mut cell = self.template(now, e.dst_node, e.dst_agent, e.src_node);
        self.stats.cells_sent += 1;
        match kind {
            CellKind::Data => {
                let packet = self
                    .waiting
                    .front()
                    .expect("cells to send without a packet");
                let h = frame_cell_header(
                    packet,
                    self.encap,
                    self.vpi,
                    self.vci,
                    self.next_frame,
                    self.front_sent,
                );
                // In-rate cells have CLP = 0 (TM 4.0 source rule 4).
                let h = AtmCellHeader { clp: 0, ..h };
                self.front_sent += 1;
                if h.end_of_frame() {
                    let packet = self.waiting.pop_front().expect("the front");
                    self.buffered_bytes -= u64::from(packet.bytes);
                    self.in_transit.push_back((self.next_frame, packet));
                    self.next_frame = self.next_frame.wrapping_add(1);
                    self.front_sent = 0;
                }
                cell = cell_pdu(&cell, h);
            }
            CellKind::Frm(rm) => cell.header = Header::Rm(Box::new(self.addressed(rm))),
            CellKind::OutOfRateFrm(rm) => {
                cell.header = Header::Rm(Box::new(self.addressed(rm)));
                cell.set_clp(1);
            }
            CellKind::Brm(rm) => {
                let (ends, vci) = self.partner.expect("a BRM to turn around without a pair");
                cell = Vc::backward_cell(now, ends, vci, self.vpi, &rm);
            }
        }
        Some(cell)
    }

    /// A data or FRM cell of this VC reaches the destination end.
    pub(crate) fn on_destination_cell(&mut self, _now: Time, cell: &Pdu) -> Arrival {
        if let Some(rm) = rm_of(cell) {
            if rm.dir != RmDir::Forward {
                return Arrival::Nothing;
            }
            self.destination.on_frm(&rm);
            let brm = self.destination.take_brm().expect("FRM just turned around");
            self.stats.frms_turned_around += 1;
            return Arrival::Turnaround(brm);
        }
        let Some(h) = cell_header(cell).copied() else {
            return Arrival::Nothing;
        };
        self.destination.on_data(h.efci());
        let intact = self.reassembler.push(cell).is_some();
        if !h.end_of_frame() {
            return Arrival::Nothing;
        }
        // Frames before this one lost their last cell and, with it, every
        // cell collected since; this frame survives only if intact.
        while let Some(&(f, _)) = self.in_transit.front() {
            if (f.wrapping_sub(h.frame) as i32) >= 0 {
                break;
            }
            self.in_transit.pop_front();
            self.stats.packets_lost += 1;
        }
        match self.in_transit.front() {
            Some(&(f, _)) if f == h.frame => {
                let (_, packet) = self.in_transit.pop_front().expect("the front");
                if intact {
                    self.stats.packets_delivered += 1;
                    Arrival::Packet(packet)
                } else {
                    self.stats.packets_lost += 1;
                    Arrival::Nothing
                }
            }
            _ => Arrival::Nothing,
        }
    }

    /// A BRM of this VC reaches the source end.
    pub(crate) fn on_source_cell(&mut self, now: Time, cell: &Pdu) {
        if let (Some(rm), Some(s)) = (
            rm_of(cell).filter(|r| r.dir == RmDir::Backward),
            self.source.as_mut(),
        ) {
            s.on_brm(now, &rm);
        }
    }

    /// Packets whose cells are all sent and not yet accounted for at the
    /// destination (end-of-run accounting).
    #[cfg(test)]
    pub(crate) fn packets_in_transit(&self) -> usize {
        self.in_transit.len()
    }

    /// Packets offered and neither delivered, lost, refused, waiting for
    /// their cells to be sent nor in transit: zero unless the VC loses
    /// packets without counting them.
    pub(crate) fn packets_unaccounted(&self) -> i64 {
        let s = &self.stats;
        let held = (self.waiting.len() + self.in_transit.len()) as u64;
        s.packets_offered as i64
            - (s.packets_delivered + s.packets_lost + s.packets_too_large + held) as i64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Duration;
    use crate::net::pdu::TcpHeader;

    const PCR: f64 = 353_207.55;

    fn vc() -> Vc {
        let ends = VcEnds {
            flow: 7,
            src_node: 0,
            dst_node: 3,
            dst_agent: AgentAddr::fixed(11),
            src_agent: AgentAddr::fixed(10),
            priority: 1,
        };
        Vc::new(
            0,
            42,
            ends,
            AbrConfig::new(PCR, 0.0, PCR / 10.0),
            Encapsulation::LlcSnap,
        )
    }

    fn segment(seq: u32, bytes: u32) -> Pdu {
        Pdu {
            bytes,
            header: Header::Tcp(TcpHeader {
                seq,
                ..TcpHeader::default()
            }),
            ..Pdu::default()
        }
    }

    /// Drains every cell the source sends, in order.
    fn drain(v: &mut Vc) -> Vec<Pdu> {
        let mut cells = vec![];
        while v.poll_at() != Time::NEVER {
            let t = v.poll_at();
            cells.push(v.emit(t).expect("due"));
        }
        cells
    }

    #[test]
    fn a_552_byte_segment_is_12_cells_plus_the_first_frm() {
        // 512-byte MSS + 40 bytes TCP/IP = 552; + 8 LLC/SNAP + 8 trailer
        // = 568 → 12 cells (paper §6). The first cell of a source is an FRM.
        let mut v = vc();
        v.offer(segment(1, 552));
        let cells = drain(&mut v);
        assert_eq!(cells.len(), 13);
        assert!(matches!(&cells[0].header, Header::Rm(h) if h.dir == RmDir::Forward));
        assert!(cells.iter().all(|c| c.bytes == 53 && c.priority() == 1));
        assert!(cell_header(&cells[12]).unwrap().end_of_frame());
        assert_eq!(v.buffered_bytes(), 0);
    }

    #[test]
    fn delivers_packets_with_their_headers_and_turns_frms_around() {
        let mut v = vc();
        for k in 0..5 {
            v.offer(segment(1000 * k, 552));
        }
        let mut got = vec![];
        let mut brms = 0;
        for c in drain(&mut v) {
            match v.on_destination_cell(Time::ZERO, &c) {
                Arrival::Packet(p) => got.push(p),
                Arrival::Turnaround(rm) => {
                    brms += 1;
                    let b = v.brm_cell(Time::ZERO, &rm);
                    assert_eq!((b.dst_node, b.dst_agent, b.flow), (0, 10, 7));
                    assert!(matches!(b.header, Header::Rm(h) if h.dir == RmDir::Backward));
                }
                Arrival::Nothing => {}
            }
        }
        let seqs: Vec<u32> = got
            .iter()
            .map(|p| match p.header {
                Header::Tcp(h) => h.seq,
                _ => panic!("header lost"),
            })
            .collect();
        assert_eq!(seqs, vec![0, 1000, 2000, 3000, 4000]);
        // 60 data cells: an FRM first, then one after every 31 in-rate cells.
        assert_eq!(brms, 2);
        assert_eq!(v.stats.packets_delivered, 5);
    }

    #[test]
    fn a_lost_cell_loses_its_packet_and_a_lost_last_cell_loses_two() {
        let mut v = vc();
        for k in 0..4 {
            v.offer(segment(k, 552));
        }
        let data: Vec<Pdu> = drain(&mut v)
            .into_iter()
            .filter(|c| cell_header(c).is_some())
            .collect();
        assert_eq!(data.len(), 48);
        let mut got = vec![];
        for (i, c) in data.iter().enumerate() {
            // Cell 3 of frame 0 and the last cell of frame 2 are lost.
            if i == 3 || i == 35 {
                continue;
            }
            if let Arrival::Packet(p) = v.on_destination_cell(Time::ZERO, c) {
                got.push(p.header);
            }
        }
        assert_eq!(got.len(), 1, "only frame 1 survives");
        assert_eq!(v.stats.packets_lost, 3);
        assert_eq!(v.packets_in_transit(), 0);
    }

    #[test]
    fn the_paired_vc_sends_the_brms_in_rate() {
        // Forward VC 0→3 and reverse VC 3→0: FRMs of the forward VC come
        // back as BRMs sent by the reverse VC's source, at its ACR, even
        // when it has no data of its own.
        let mut fwd = vc();
        let rev_ends = VcEnds {
            flow: 8,
            src_node: 3,
            dst_node: 0,
            dst_agent: AgentAddr::fixed(12),
            src_agent: AgentAddr::fixed(13),
            priority: 1,
        };
        let cfg = AbrConfig::new(PCR, 0.0, PCR / 10.0);
        let mut rev = Vc::new(0, 43, rev_ends, cfg, Encapsulation::LlcSnap);
        fwd.pair_with(&rev);
        rev.pair_with(&fwd);
        fwd.offer(segment(0, 552));
        let frm = fwd.emit(Time::ZERO).unwrap();
        let Arrival::Turnaround(rm) = fwd.on_destination_cell(Time::ZERO, &frm) else {
            panic!("FRM not turned around");
        };
        rev.turn_around(rm);
        // The reverse VC's first cell is its own FRM (rule 2), then the BRM.
        let t0 = rev.poll_at();
        assert!(matches!(rev.emit(t0).unwrap().header, Header::Rm(h) if h.dir == RmDir::Forward));
        let t = rev.poll_at();
        assert_eq!(t.since(t0), rev.source.as_ref().unwrap().cell_spacing());
        let brm = rev.emit(t).expect("BRM due");
        assert!(matches!(&brm.header, Header::Rm(h) if h.dir == RmDir::Backward && h.vci == 42));
        assert_eq!(
            (brm.src_node, brm.dst_node, brm.dst_agent, brm.flow),
            (3, 0, 10, 7)
        );
        assert_eq!(rev.poll_at(), Time::NEVER, "nothing else to send");
        assert_eq!(rev.source.as_ref().unwrap().stats.turned_around, 1);
        fwd.on_source_cell(t, &brm);
        assert_eq!(fwd.source.as_ref().unwrap().stats.brm_cells, 1);
        // A second turnaround waits one cell time at the reverse VC's ACR.
        rev.turn_around(rm);
        assert_eq!(
            rev.poll_at().since(t),
            rev.source.as_ref().unwrap().cell_spacing()
        );
    }

    #[test]
    fn brm_er_limits_the_source_rate() {
        let mut v = vc();
        v.offer(segment(0, 9180));
        let frm = v.emit(Time::ZERO).unwrap();
        let Arrival::Turnaround(mut rm) = v.on_destination_cell(Time::ZERO, &frm) else {
            panic!("FRM not turned around");
        };
        rm.er = 1000.0;
        let brm = v.brm_cell(Time::ZERO, &rm);
        v.on_source_cell(Time::ZERO, &brm);
        assert!((v.source.as_ref().unwrap().acr() - 1000.0).abs() < 1e-9);
        let t1 = v.poll_at();
        v.emit(t1).unwrap();
        assert_eq!(v.poll_at().since(t1), Duration::from_secs_f64(1e-3));
    }

    #[test]
    fn a_packet_too_large_for_one_frame_is_refused_and_counted() {
        // 65528 B of IP + 8 B of LLC/SNAP: the 16-bit CPCS-SDU length
        // would wrap, so no frame could carry it.
        let mut v = Vc::ubr(0, 40, vc().ends, Encapsulation::LlcSnap);
        v.offer(segment(0, 65_528));
        v.offer(segment(1, 65_527));
        assert_eq!(v.stats.packets_too_large, 1);
        assert_eq!(v.buffered_bytes(), 65_527);
        assert_eq!(v.packets_unaccounted(), 0);
    }
}
