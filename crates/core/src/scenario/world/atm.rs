//! ATM in the world: a pair of VCs (`atm::vc`) carrying a TCP connection or
//! a UDP exchange between two end systems, as one component, and the `abr`
//! and `ubr` entries that ask for them. ERICA+ at switch output ports is a
//! link port (`ports`).
//!
//! A VC ends at an end system: the host itself (an ATM NIC), or an ATM edge
//! device (a LAN emulation bridge) with the host behind it on a LAN. Then
//! the edge device reassembles the frames arriving for the host and sends
//! the packets on over the LAN by their routes, and takes the packets the
//! host sends off the network when they reach it (a node hand-off) to
//! segment them into the VC going back.
//!
//! The pair's agents: for each VC k (0: from the client's host, 1: back),
//! 3k is its destination end (data and forward RM cells), 3k + 1 its
//! source end (backward RM cells), 3k + 2 the host side where the
//! transport's packets enter its segmentation buffer. The destination end
//! of one VC hands the backward RM cells it turns around to the source end
//! of the other, which sends them in rate (TM 4.0 source rule 3b).

use super::build::Builder;
use super::component::{Component, Ctx, Model, View};
use crate::atm::abr::AbrConfig;
use crate::atm::cell::CELL_BITS;
use crate::atm::vc::{Arrival, Vc, VcEnds};
use crate::atm::Encapsulation;
use crate::engine::Time;
use crate::net::{AgentAddr, Iface, Pdu};
use crate::scenario::summary::{num, put, Summary};
use crate::scenario::BuildError;
use serde::{Deserialize, Serialize};

/// `abr = {...}` on a connection: ABR VCs with these parameters.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub(crate) struct AbrDesc {
    /// "llc_snap" (RFC 1577) or "vc_mux".
    pub(crate) encapsulation: Encapsulation,
    #[serde(flatten)]
    pub config: AbrConfig,
}

/// `ubr = {...}`: UBR VCs, no rate control (classical IP over ATM, or a
/// LAN emulation data path).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub(crate) struct UbrDesc {
    pub(crate) encapsulation: Encapsulation,
    /// The ATM edge device (a node) behind which the `from` host sits on a
    /// LAN: the VCs end there instead of at the host (`VcPair::edges`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) from_edge: Option<String>,
    /// The same for the `to` host.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) to_edge: Option<String>,
}

impl UbrDesc {
    /// VCs ending at the hosts themselves.
    #[cfg(test)]
    pub(crate) fn host_to_host(encapsulation: Encapsulation) -> UbrDesc {
        UbrDesc {
            encapsulation,
            from_edge: None,
            to_edge: None,
        }
    }
}

pub(crate) struct VcPair {
    /// [client → server, server → client].
    pub(crate) vcs: [Vc; 2],
    /// Summary keys go under this prefix (a connection's `tcp.NAME.`).
    pub(crate) prefix: Option<String>,
    /// When each VC's source next sends, kept from the last change of that
    /// VC: the pacing time costs a division, and most calls change one VC.
    next: [Time; 2],
}

impl VcPair {
    pub(crate) const AGENTS: usize = 6;

    /// Two VCs between `nodes[0]` and `nodes[1]` with VCIs `vci` and
    /// `vci + 1` and flows `flow`, `flow + 1`: ABR with `abr`, else UBR.
    pub(crate) fn new(
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
    pub(crate) fn host_iface(agents: &[AgentAddr], k: usize) -> Iface {
        Iface::Attached {
            agent: agents[3 * k + 2],
        }
    }

    /// VC `k`'s source changed: when does it next send?
    fn changed(&mut self, k: usize) {
        self.next[k] = self.vcs[k].poll_at();
    }

    /// Packets lost in the VCs, both ways: frames that failed reassembly,
    /// and packets too large for one frame.
    pub(crate) fn packets_lost(&self) -> u64 {
        self.vcs
            .iter()
            .map(|vc| vc.stats.packets_lost + vc.stats.packets_too_large)
            .sum()
    }

    /// The allowed cell rate of VC `k` as a cell line rate, bit/s; NaN for
    /// UBR.
    pub(crate) fn acr_bps(&self, k: usize) -> f64 {
        self.vcs[k]
            .source
            .as_ref()
            .map_or(f64::NAN, |s| s.acr() * CELL_BITS)
    }
}

impl Model for VcPair {
    fn agents(&self) -> usize {
        VcPair::AGENTS
    }

    fn timers(&self) -> usize {
        2
    }

    fn attach(&mut self, agents: &[AgentAddr]) {
        for (k, vc) in self.vcs.iter_mut().enumerate() {
            vc.ends.dst_agent = agents[3 * k];
            vc.ends.src_agent = agents[3 * k + 1];
        }
        let [a, b] = &mut self.vcs;
        a.pair_with(b);
        b.pair_with(a);
    }

    /// A source idle for longer than its cell spacing may send at once.
    fn wakeup(&self, k: usize, now: Time) -> Time {
        self.next[k].max(now)
    }

    fn on_timer(&mut self, k: usize, cx: &mut Ctx<'_>) {
        let cell = self.vcs[k].emit(cx.now);
        self.changed(k);
        if let Some(cell) = cell {
            cx.out.route(cell.src_node, cell);
        }
    }

    fn on_pdu(&mut self, agent: usize, p: &Pdu, cx: &mut Ctx<'_>) {
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
                vc.offer(p.clone());
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

    /// `vc_forward.*` and `vc_reverse.*` under the owner's prefix.
    fn summarise(&self, s: &mut Summary, view: &View<'_>) {
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

    /// Packets offered and not accounted for, both ways (`Vc`): zero.
    fn unaccounted(&self) -> i64 {
        self.vcs.iter().map(|vc| vc.packets_unaccounted()).sum()
    }
}

/// Where a transport's VC pair ends, and which packets enter it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) struct VcEndpoints {
    /// The transport's hosts: [client, server].
    pub hosts: [u32; 2],
    /// The end systems of the VCs: each host, or its edge device.
    pub(crate) ends: [u32; 2],
    /// The transport's flow from the client; the server's is `flow + 1`.
    pub flow: u32,
}

impl VcEndpoints {
    /// VCs from host to host.
    pub(super) fn hosts(hosts: [u32; 2], flow: u32) -> VcEndpoints {
        VcEndpoints {
            hosts,
            ends: hosts,
            flow,
        }
    }
}

impl Builder<'_> {
    /// The end systems of UBR VCs between `hosts`: each host, or the edge
    /// device `ubr` puts it behind.
    pub(super) fn ubr_ends(
        &self,
        ubr: &UbrDesc,
        hosts: [u32; 2],
        flow: u32,
        at: &str,
    ) -> Result<VcEndpoints, BuildError> {
        let mut ends = hosts;
        for (k, edge) in [&ubr.from_edge, &ubr.to_edge].into_iter().enumerate() {
            if let Some(name) = edge {
                ends[k] = self.node(name, &format!("{at}.ubr"))?;
            }
        }
        if ends[0] == ends[1] {
            return Err(BuildError::at(
                &format!("{at}.ubr"),
                "the VCs would start and end at the same node",
            ));
        }
        Ok(VcEndpoints { hosts, ends, flow })
    }

    /// A VC pair for a transport; its id and the hosts' interfaces onto it.
    /// A host behind an edge device sends as if directly attached: its
    /// packets cross the LAN and enter the VC at the edge (a hand-off).
    pub(super) fn vc_pair(
        &mut self,
        at: VcEndpoints,
        abr: Option<&AbrConfig>,
        encap: Encapsulation,
        prefix: Option<String>,
    ) -> (u32, [Iface; 2]) {
        let flow = self.w.new_flows(2);
        let mut pair = VcPair::new(at.ends, self.next_vci, flow, abr, encap);
        pair.prefix = prefix;
        self.next_vci += 2;
        let id = self.w.add(Component::Vcs(Box::new(pair)));
        let agents = self.w.agents_of(id);
        let iface = |k: usize| {
            if at.ends[k] == at.hosts[k] {
                VcPair::host_iface(&agents, k)
            } else {
                Iface::Direct { node: at.hosts[k] }
            }
        };
        let ifaces = [iface(0), iface(1)];
        for k in 0..2 {
            if at.ends[k] != at.hosts[k] {
                self.w.net.nodes[at.ends[k] as usize]
                    .hand_off(at.flow + k as u32, agents[3 * k + 2]);
            }
        }
        (id, ifaces)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::framing::Framing;
    use crate::scenario::{summary, ScenarioBuilder, World};

    /// a —ATM, 2 Mb/s, 100 ms— e —Ethernet, 10 Mb/s— b, and a 1-byte
    /// UDP exchange from a to b over LAN emulation UBR VCs ending at e.
    fn lan_behind_edge(to_edge: Option<&str>) -> summary::Summary {
        let edge = to_edge.map(str::to_string);
        let d = ScenarioBuilder::new("edge", 10.0)
            .host("a")
            .router("e")
            .host("b")
            .duplex("atm", "a", "e", 2e6, 0.1)
            .link_with("lan", "e", "b", 10e6, 0.0, |l| {
                l.framing = Framing::Ethernet
            })
            .link_with("lan_rev", "b", "e", 10e6, 0.0, |l| {
                l.framing = Framing::Ethernet
            })
            .udp_rr_with("rr", "a", "b", |u| {
                u.config.count = Some(5);
                u.ubr = Some(UbrDesc {
                    to_edge: edge,
                    ..UbrDesc::host_to_host(Encapsulation::Lane)
                });
            })
            .build();
        let mut w = World::build(&d).unwrap();
        w.run();
        w.summary()
    }

    #[test]
    fn an_edge_device_carries_the_lan_hosts_packets_as_packets() {
        let s = lan_behind_edge(Some("e"));
        let n = |k: &str| s[k].as_f64().unwrap();
        assert_eq!(n("udp_rr.rr.transactions"), 5.0);
        assert_eq!(n("run.pdus_unaccounted"), 0.0);
        // A 29-byte datagram is 2 cells under LANE (29 + 16 + 8 = 53 B) on
        // the ATM link each way, and one 84-byte Ethernet frame on the LAN.
        assert_eq!(n("links.atm.tx_packets"), 10.0);
        assert_eq!(n("links.atm_rev.tx_packets"), 10.0);
        assert_eq!(n("links.lan.tx_bytes"), 5.0 * 84.0);
        assert_eq!(n("links.lan_rev.tx_bytes"), 5.0 * 84.0);
        // Each exchange: 2 cells and 100 ms each way, and a frame each way
        // on the LAN after the edge has the whole datagram.
        let expected = 2.0 * (0.1 + 2.0 * 424.0 / 2e6 + 84.0 * 8.0 / 10e6);
        let t = n("udp_rr.rr.transaction_time_mean_s");
        assert!((t - expected).abs() < 1e-9, "{t} vs {expected}");
    }

    #[test]
    fn without_the_edge_the_vcs_reach_the_host_in_cells() {
        // The same path with VCs to b itself: cells on the LAN links too.
        let s = lan_behind_edge(None);
        let n = |k: &str| s[k].as_f64().unwrap();
        assert_eq!(n("udp_rr.rr.transactions"), 5.0);
        assert_eq!(n("links.lan.tx_packets"), 10.0);
    }
}
