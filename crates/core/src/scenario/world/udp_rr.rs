//! UDP request/response exchanges (netperf UDP_RR, `apps::udp_rr`): the
//! `udp_rr` section, the exchange as a component (client timer, both ends'
//! agents, how each host is attached) and its summary keys
//! (`udp_rr.NAME.*`).

use super::atm::UbrDesc;
use super::build::{at, direct, Builder};
use super::component::{Component, Ctx, Model, View};
use crate::apps::udp_rr::{UdpEnds, UdpRr, UdpRrConfig, UDP_IP_HEADER};
use crate::engine::Time;
use crate::net::{AgentAddr, Iface, Pdu};
use crate::scenario::summary::{num, put, Summary};
use crate::scenario::BuildError;
use serde::{Deserialize, Serialize};

/// A `udp_rr[]` entry; the exchange's parameters are the model's own
/// `UdpRrConfig`, in the same object.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub(crate) struct UdpRrDesc {
    pub name: String,
    pub src_node: String,
    pub dst_node: String,
    /// Over UBR VCs (IP over ATM) rather than as plain packets.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) ubr: Option<UbrDesc>,
    #[serde(flatten)]
    pub config: UdpRrConfig,
}

pub(crate) struct UdpRrConn {
    pub name: String,
    pub(crate) app: UdpRr,
    /// How the client's and the server's hosts are attached.
    ifaces: [Iface; 2],
}

impl UdpRrConn {
    pub(crate) fn new(
        name: String,
        cfg: UdpRrConfig,
        ends: UdpEnds,
        ifaces: [Iface; 2],
    ) -> UdpRrConn {
        UdpRrConn {
            name,
            app: UdpRr::new(cfg, ends),
            ifaces,
        }
    }
}

impl Model for UdpRrConn {
    fn agents(&self) -> usize {
        2
    }

    fn timers(&self) -> usize {
        1
    }

    /// Agent 0 is the client, agent 1 the server.
    fn attach(&mut self, agents: &[AgentAddr]) {
        self.app.ends.client_agent = agents[0];
        self.app.ends.server_agent = agents[1];
    }

    fn wakeup(&self, _k: usize, now: Time) -> Time {
        self.app.poll_at().max(now)
    }

    fn on_timer(&mut self, _k: usize, cx: &mut Ctx<'_>) {
        if let Some(p) = self.app.on_timer(cx.now) {
            self.ifaces[0].send(cx.out, p);
        }
    }

    fn on_pdu(&mut self, agent: usize, p: &Pdu, cx: &mut Ctx<'_>) {
        if agent == 1 {
            let response = self.app.on_request(cx.now, p);
            self.ifaces[1].send(cx.out, response);
        } else if let Some(next) = self.app.on_response(cx.now, p) {
            self.ifaces[0].send(cx.out, next);
        }
    }

    fn summarise(&self, s: &mut Summary, view: &View<'_>) {
        let app = &self.app;
        let p = format!("udp_rr.{}.", self.name);
        put(s, p.clone() + "transactions", app.completed);
        put(s, p.clone() + "lost", app.lost);
        // Over the time the exchanges ran, not the rest of the run.
        let end = app
            .finished_at
            .map_or(view.now.as_secs_f64(), |t| t.as_secs_f64());
        let active = (end - app.cfg.start.as_secs_f64()).max(0.0);
        let rate = if active > 0.0 {
            app.completed as f64 / active
        } else {
            f64::NAN
        };
        put(s, p.clone() + "transactions_per_s", num(rate));
        put(
            s,
            p.clone() + "transaction_time_mean_s",
            num(app.times.mean()),
        );
        put(s, p + "transaction_time_var_s2", num(app.times.variance()));
    }
}

impl Builder<'_> {
    /// The exchanges, in description order.
    pub(super) fn udp_rr(&mut self) -> Result<Vec<u32>, BuildError> {
        let mut ids = Vec::new();
        for u in &self.d.udp_rr {
            let at = at("udp_rr", &u.name);
            let nodes = self.ends(&u.src_node, &u.dst_node, &at)?;
            let flow = self.w.new_flows(2);
            let ifaces = match &u.ubr {
                Some(ubr) => {
                    let largest = u.config.request.max(u.config.response) + UDP_IP_HEADER;
                    if largest > ubr.encapsulation.max_packet_bytes() {
                        return Err(BuildError::at(
                            &at,
                            format!("a {largest}-byte datagram does not fit one AAL5 frame"),
                        ));
                    }
                    let ends = self.ubr_ends(ubr, nodes, flow, &at)?;
                    self.vc_pair(ends, None, ubr.encapsulation, None).1
                }
                None => direct(nodes),
            };
            let ends = UdpEnds {
                client_node: nodes[0],
                server_node: nodes[1],
                // Filled in by `attach`.
                client_agent: AgentAddr::default(),
                server_agent: AgentAddr::default(),
                flow,
            };
            let conn = UdpRrConn::new(u.name.clone(), u.config.clone(), ends, ifaces);
            ids.push(self.w.add(Component::UdpRr(Box::new(conn))));
        }
        Ok(ids)
    }
}
