//! ATM in the world: a pair of VCs (`atm::vc`) carrying a TCP connection or
//! a UDP exchange between two end systems, as one component, and the `abr`
//! and `ubr` entries that ask for them. ERICA+ at switch output ports is a
//! link port (`ports`).
//!
//! The pair's agents: for each VC k (0: from the client's host, 1: back),
//! 3k is its destination end (data and forward RM cells), 3k + 1 its
//! source end (backward RM cells), 3k + 2 the host side where the
//! transport's packets enter its segmentation buffer. The destination end
//! of one VC hands the backward RM cells it turns around to the source end
//! of the other, which sends them in rate (TM 4.0 source rule 3b).

use super::build::Builder;
use super::component::{Component, Ctx, View};
use crate::atm::abr::AbrConfig;
use crate::atm::cell::CELL_BITS;
use crate::atm::vc::{Arrival, Vc, VcEnds};
use crate::atm::Encapsulation;
use crate::engine::Time;
use crate::net::{AgentAddr, Iface, Pdu};
use crate::scenario::summary::{num, put, Summary};
use serde::{Deserialize, Serialize};

/// `abr = {...}` on a connection: ABR VCs with these parameters.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct AbrDesc {
    /// "llc_snap" (RFC 1577) or "vc_mux".
    pub encapsulation: Encapsulation,
    #[serde(flatten)]
    pub config: AbrConfig,
}

/// `ubr = {...}`: UBR VCs, no rate control (classical IP over ATM).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct UbrDesc {
    pub encapsulation: Encapsulation,
}

pub struct VcPair {
    /// [client → server, server → client].
    pub vcs: [Vc; 2],
    /// Summary keys go under this prefix (a connection's `tcp.NAME.`).
    pub prefix: Option<String>,
    /// When each VC's source next sends, kept from the last change of that
    /// VC: the pacing time costs a division, and most calls change one VC.
    next: [Time; 2],
}

impl VcPair {
    pub const AGENTS: usize = 6;

    /// Two VCs between `nodes[0]` and `nodes[1]` with VCIs `vci` and
    /// `vci + 1` and flows `flow`, `flow + 1`: ABR with `abr`, else UBR.
    pub fn new(
        nodes: [u32; 2],
        vci: u16,
        flow: u32,
        abr: Option<&AbrConfig>,
        encap: Encapsulation,
    ) -> VcPair {
        let vc = |k: usize| {
            let ends = VcEnds {
                flow: flow + k as u32,
                src_node: nodes[k],
                dst_node: nodes[1 - k],
                // Filled in by `attach`.
                dst_agent: AgentAddr::default(),
                src_agent: AgentAddr::default(),
                // ABR and UBR are the low level below VBR.
                priority: 1,
            };
            let vci = vci + k as u16;
            match abr {
                Some(cfg) => Vc::new(0, vci, ends, cfg.clone(), encap),
                None => Vc::ubr(0, vci, ends, encap),
            }
        };
        VcPair {
            vcs: [vc(0), vc(1)],
            prefix: None,
            next: [Time::NEVER; 2],
        }
    }

    /// The interface through which the host at end `k` (0: client) sends.
    pub fn host_iface(agents: &[AgentAddr], k: usize) -> Iface {
        Iface::Attached {
            agent: agents[3 * k + 2],
        }
    }

    pub fn attach(&mut self, agents: &[AgentAddr]) {
        for (k, vc) in self.vcs.iter_mut().enumerate() {
            vc.ends.dst_agent = agents[3 * k];
            vc.ends.src_agent = agents[3 * k + 1];
        }
        let [a, b] = &mut self.vcs;
        a.pair_with(b);
        b.pair_with(a);
    }

    /// A source idle for longer than its cell spacing may send at once.
    pub fn wakeup(&self, k: usize, now: Time) -> Time {
        self.next[k].max(now)
    }

    /// VC `k`'s source changed: when does it next send?
    fn changed(&mut self, k: usize) {
        self.next[k] = self.vcs[k].poll_at();
    }

    pub fn on_timer(&mut self, k: usize, cx: &mut Ctx<'_>) {
        let cell = self.vcs[k].emit(cx.now);
        self.changed(k);
        if let Some(cell) = cell {
            cx.out.route(cell.src_node, cell);
        }
    }

    pub fn on_pdu(&mut self, agent: usize, p: &Pdu, cx: &mut Ctx<'_>) {
        let k = agent / 3;
        match agent % 3 {
            0 => match self.vcs[k].on_destination_cell(cx.now, p) {
                Arrival::Packet(packet) => cx.out.route(self.vcs[k].ends.dst_node, packet),
                Arrival::Turnaround(brm) => {
                    self.vcs[1 - k].turn_around(brm);
                    self.changed(1 - k);
                }
                Arrival::Nothing => {}
            },
            1 => {
                self.vcs[k].on_source_cell(cx.now, p);
                self.changed(k);
            }
            _ => {
                let vc = &mut self.vcs[k];
                vc.offer(*p);
                if vc.source.is_none() {
                    // UBR: every cell goes at once; the links pace them.
                    while let Some(cell) = vc.emit(cx.now) {
                        cx.out.route(cell.src_node, cell);
                    }
                }
                self.changed(k);
            }
        }
    }

    /// Packets offered and not accounted for, both ways (`Vc`): zero.
    pub fn packets_unaccounted(&self) -> i64 {
        self.vcs.iter().map(|vc| vc.packets_unaccounted()).sum()
    }

    /// Packets lost in the VCs, both ways: frames that failed reassembly,
    /// and packets too large for one frame.
    pub fn packets_lost(&self) -> u64 {
        self.vcs
            .iter()
            .map(|vc| vc.stats.packets_lost + vc.stats.packets_too_large)
            .sum()
    }

    /// The allowed cell rate of VC `k` as a cell line rate, bit/s; NaN for
    /// UBR.
    pub fn acr_bps(&self, k: usize) -> f64 {
        self.vcs[k]
            .source
            .as_ref()
            .map_or(f64::NAN, |s| s.acr() * CELL_BITS)
    }

    /// `vc_forward.*` and `vc_reverse.*` under the owner's prefix.
    pub fn summarise(&self, s: &mut Summary, view: &View<'_>) {
        let Some(p) = &self.prefix else {
            return;
        };
        for (vc, dir) in self.vcs.iter().zip(["vc_forward", "vc_reverse"]) {
            let q = format!("{p}{dir}.");
            put(s, q.clone() + "cells_sent", vc.stats.cells_sent);
            if let Some(src) = &vc.source {
                put(s, q.clone() + "frm_cells", src.stats.frm_cells);
                put(s, q.clone() + "brm_cells", src.stats.brm_cells);
                put(s, q.clone() + "brms_turned_around", src.stats.turned_around);
                put(s, q.clone() + "acr_bps", num(src.acr() * CELL_BITS));
            }
            put(
                s,
                q.clone() + "cells_dropped",
                view.flows[vc.ends.flow as usize].dropped,
            );
            put(s, q.clone() + "packets_lost", vc.stats.packets_lost);
            put(
                s,
                q.clone() + "packets_too_large",
                vc.stats.packets_too_large,
            );
            put(s, q + "max_buffered_bytes", vc.stats.max_buffered_bytes);
        }
    }
}

impl Builder<'_> {
    /// A VC pair between `nodes` for a transport; its id and the hosts'
    /// interfaces onto it.
    pub(super) fn vc_pair(
        &mut self,
        nodes: [u32; 2],
        abr: Option<&AbrConfig>,
        encap: Encapsulation,
        prefix: Option<String>,
    ) -> (u32, [Iface; 2]) {
        let flow = self.w.new_flows(2);
        let mut pair = VcPair::new(nodes, self.next_vci, flow, abr, encap);
        pair.prefix = prefix;
        self.next_vci += 2;
        let id = self.w.add(Component::Vcs(Box::new(pair)));
        let agents = self.w.agents_of(id);
        (
            id,
            [
                VcPair::host_iface(&agents, 0),
                VcPair::host_iface(&agents, 1),
            ],
        )
    }
}
