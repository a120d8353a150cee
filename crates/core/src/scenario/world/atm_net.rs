//! The ATM part of the world: ABR VCs carrying TCP connections (source end
//! pacing, destination reassembly and RM turnaround) and ERICA+ at switch
//! output ports, which measures the cells offered to its link and writes
//! explicit rates into the BRMs passing the other way (REFERENCE §1.1).
//!
//! A switch port is an ordinary link: its two-priority queue serves VBR
//! (priority 0) before ABR (priority 1). ERICA+ counts priority-0 cells as
//! the higher-priority load its ABR capacity excludes.

use super::{Agent, BuildError, Owner, World};
use crate::atm::abr::AbrConfig;
use crate::atm::cell::{CELL_BITS, CELL_BYTES};
use crate::atm::erica::{CcrSource, EricaConfig, EricaPlus};
use crate::atm::vc::{Arrival, Vc, VcEnds};
use crate::atm::Encapsulation;
use crate::engine::{Duration, Time};
use crate::net::pdu::{Header, RmDir, RmHeader};
use crate::net::{Next, Node, Pdu};
use crate::scenario::description::{AbrDesc, EricaDesc};

/// Writes the ER of the ERICA+ port that carries the VC forward out of
/// `node` (towards `forward_dst`) into a passing BRM.
pub(super) fn mark_brm(
    node: &Node,
    ports: &mut [Option<EricaPlus>],
    forward_dst: u32,
    vc: u32,
    h: &mut RmHeader,
) {
    if let Next::Link(l) = node.next_hop(forward_dst) {
        if let Some(port) = ports[l as usize].as_mut() {
            h.er = port.on_brm(vc, h.er);
        }
    }
}

pub(super) fn encapsulation(name: &str, at: &str) -> Result<Encapsulation, BuildError> {
    match name {
        "llc_snap" => Ok(Encapsulation::LlcSnap),
        "vc_mux" => Ok(Encapsulation::VcMux),
        other => Err(BuildError(format!("{at}: unknown encapsulation {other:?}"))),
    }
}

pub(super) fn abr_config(d: &AbrDesc, at: &str) -> Result<(AbrConfig, Encapsulation), BuildError> {
    let err = |why: &str| BuildError(format!("{at}.abr: {why}"));
    let finite = [
        d.pcr_bps, d.mcr_bps, d.icr_bps, d.tcr_bps, d.rif, d.rdf, d.cdf,
    ];
    if finite.iter().any(|x| !x.is_finite()) {
        return Err(err("rates and factors must be finite"));
    }
    if !(d.pcr_bps > 0.0 && 0.0 <= d.mcr_bps && d.mcr_bps <= d.icr_bps && d.icr_bps <= d.pcr_bps) {
        return Err(err("rates need 0 <= MCR <= ICR <= PCR and PCR > 0"));
    }
    if [d.rif, d.rdf, d.cdf]
        .iter()
        .any(|f| !(0.0..=1.0).contains(f))
    {
        return Err(err("RIF, RDF and CDF must be in [0, 1]"));
    }
    if d.nrm < 2 || d.mrm < 1 || d.tbe == 0 || d.tcr_bps <= 0.0 {
        return Err(err("need Nrm >= 2, Mrm >= 1, TBE >= 1 and TCR > 0"));
    }
    let encap = encapsulation(&d.encapsulation, &format!("{at}.abr"))?;
    let mut cfg = AbrConfig::new(
        d.pcr_bps / CELL_BITS,
        d.mcr_bps / CELL_BITS,
        d.icr_bps / CELL_BITS,
    );
    cfg.rif = d.rif;
    cfg.rdf = d.rdf;
    cfg.nrm = d.nrm;
    cfg.mrm = d.mrm;
    cfg.trm = Duration(d.trm_ps);
    cfg.cdf = d.cdf;
    cfg.tbe = d.tbe;
    cfg.crm = d.crm.unwrap_or(d.tbe.div_ceil(u64::from(d.nrm))).max(1);
    cfg.adtf = Duration(d.adtf_ps);
    cfg.tcr = d.tcr_bps / CELL_BITS;
    Ok((cfg, encap))
}

pub(super) fn erica_port(d: &EricaDesc, link_bps: f64, at: &str) -> Result<EricaPlus, BuildError> {
    let err = |why: &str| BuildError(format!("{at}.erica: {why}"));
    let ccr_source = match d.ccr.as_str() {
        "rm_field" => CcrSource::RmField,
        "measured" => CcrSource::Measured,
        other => return Err(err(&format!("unknown ccr source {other:?}"))),
    };
    let ok = d.interval_cells > 0
        && d.interval_ps > 0
        && d.a > 1.0
        && d.b > 1.0
        && (0.0..=1.0).contains(&d.qdlf)
        && d.delta >= 0.0
        && d.z_alpha > 0.0
        && d.z_alpha <= 1.0;
    if !ok {
        return Err(err(
            "need interval > 0, a > 1, b > 1, 0 <= QDLF <= 1, delta >= 0, 0 < z_alpha <= 1",
        ));
    }
    let cfg = EricaConfig {
        link_cells_per_s: link_bps / CELL_BITS,
        interval_cells: d.interval_cells,
        interval_time: Duration(d.interval_ps),
        t0: Duration(d.t0_ps),
        a: d.a,
        b: d.b,
        qdlf: d.qdlf,
        delta: d.delta,
        z_alpha: d.z_alpha,
        bidirectional_counting: d.bidirectional_counting,
        ccr_source,
    };
    Ok(EricaPlus::new(cfg, Time::ZERO))
}

impl World {
    /// Adds the two VCs of connection `c` (built but not yet scheduled).
    /// Adds the two VCs of connection `c`: ABR with `cfg`, UBR without.
    pub(super) fn add_vcs(&mut self, c: usize, cfg: Option<&AbrConfig>, encap: Encapsulation) {
        let ends = [0, 1].map(|side| self.conns[c].sockets[side].endpoint.node);
        let pair = self.add_vc_pair(ends, cfg, encap);
        self.conns[c].vcs = Some(pair);
    }

    /// Two VCs between `nodes[0]` and `nodes[1]`, one each way, paired for
    /// the turnaround of their RM cells; returns [0 → 1, 1 → 0].
    pub(super) fn add_vc_pair(
        &mut self,
        nodes: [u32; 2],
        cfg: Option<&AbrConfig>,
        encap: Encapsulation,
    ) -> [u32; 2] {
        let mut pair = [0u32; 2];
        for (side, slot) in pair.iter_mut().enumerate() {
            let v = self.vcs.len() as u32;
            let dst_agent = self.agents.len() as u32;
            self.agents.push(Agent::VcDestination(v));
            self.agents.push(Agent::VcSource(v));
            let ends = VcEnds {
                flow: self.vc_flow_base + v,
                src_node: nodes[side],
                dst_node: nodes[1 - side],
                dst_agent,
                src_agent: dst_agent + 1,
                priority: 1,
            };
            self.flows.push(Default::default());
            // VCI 32 upwards: 0-31 are reserved (I.361).
            let vci = 32 + v as u16;
            self.vcs.push(match cfg {
                Some(cfg) => Vc::new(0, vci, ends, cfg.clone(), encap),
                None => Vc::ubr(0, vci, ends, encap),
            });
            self.vc_slots.push(self.sched.add_slot());
            self.owners.push(Owner::Vc(v));
            *slot = v;
        }
        let [a, b] = pair.map(|v| v as usize);
        let (first, second) = self.vcs.split_at_mut(b);
        first[a].pair_with(&second[0]);
        second[0].pair_with(&first[a]);
        self.vc_partner.extend([b as u32, a as u32]);
        pair
    }

    pub(super) fn vc_offer(&mut self, v: usize, p: Pdu) {
        self.vcs[v].offer(p);
        if self.vcs[v].source.is_none() {
            // UBR: every cell goes at once; the links pace them.
            while let Some(cell) = self.vcs[v].emit(self.now) {
                self.forward(cell.src_node, cell);
            }
        }
        self.reschedule_vc(v);
    }

    /// A source idle for longer than its cell spacing may send at once.
    fn reschedule_vc(&mut self, v: usize) {
        let at = self.vcs[v].poll_at().max(self.now);
        self.sched.update(self.vc_slots[v], at);
    }

    pub(super) fn on_vc(&mut self, v: usize) {
        let cell = self.vcs[v].emit(self.now);
        self.reschedule_vc(v);
        if let Some(cell) = cell {
            self.forward(cell.src_node, cell);
        }
    }

    pub(super) fn on_vc_destination(&mut self, node: u32, v: usize, cell: &Pdu) {
        match self.vcs[v].on_destination_cell(self.now, cell) {
            Arrival::Packet(p) => self.forward(node, p),
            Arrival::Turnaround(brm) => {
                // Rule 3b: the reverse VC's source sends it in rate.
                let partner = self.vc_partner[v] as usize;
                self.vcs[partner].turn_around(brm);
                self.reschedule_vc(partner);
            }
            Arrival::Nothing => {}
        }
    }

    pub(super) fn on_vc_source(&mut self, v: usize, cell: &Pdu) {
        self.vcs[v].on_source_cell(self.now, cell);
        self.reschedule_vc(v);
    }

    /// A PDU about to be offered to link `l`, whose port runs ERICA+.
    pub(super) fn erica_input(&mut self, l: usize, p: &Pdu) {
        let now = self.now;
        let base = self.vc_flow_base;
        let port = self.ports[l].as_mut().expect("ERICA+ port");
        if p.priority == 0 {
            // A packet that is not a cell loads the port like the cells it
            // would fill.
            port.on_vbr_cells(now, u64::from(p.bytes.div_ceil(CELL_BYTES)));
        } else {
            match &p.header {
                Header::Rm(h) if h.dir == RmDir::Backward => port.on_abr_transit_cell(now),
                Header::Rm(h) => {
                    port.on_frm(p.flow - base, h.ccr);
                    port.on_abr_input_cell(now, p.flow - base);
                }
                _ if p.flow >= base => port.on_abr_input_cell(now, p.flow - base),
                _ => port.on_abr_transit_cell(now),
            }
        }
        if port.end_interval_due(now) {
            self.close_interval(l);
        }
    }

    fn close_interval(&mut self, l: usize) {
        let q = self.links[l].queue().packets_at(1);
        let port = self.ports[l].as_mut().expect("ERICA+ port");
        port.on_queue_length(q);
        port.end_interval(self.now);
        self.sched
            .update(self.port_slots[l], port.interval_deadline());
    }

    pub(super) fn on_erica_timer(&mut self, l: usize) {
        let port = self.ports[l].as_ref().expect("ERICA+ port");
        if port.end_interval_due(self.now) {
            self.close_interval(l);
        } else {
            let t = port.interval_deadline();
            self.sched.update(self.port_slots[l], t);
        }
    }
}
