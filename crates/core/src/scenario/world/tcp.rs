//! TCP connections: the `tcp` section, a connection as a component (its
//! two sockets, the application driving them, and how each end's host is
//! attached), its summary keys (`tcp.NAME.*`) and its probe metrics. A
//! connection created by a class of flow arrivals (`arrivals`) has no name
//! of its own: the class keeps its figures and releases it when it ends.

use super::atm::{AbrDesc, UbrDesc, VcEndpoints, VcPair};
use super::build::{at, direct, Builder};
use super::component::{Component, Ctx, Model, View};
use super::netpipe;
use super::probes::ProbeMemory;
use super::shaper::RateControlDesc;
use crate::apps::tcp_app::{AppKind, TcpApp};
use crate::engine::{Check, ConfigError};
use crate::engine::{RngStream, Time};
use crate::net::{AgentAddr, Iface, Pdu};
use crate::scenario::summary::{num, opt, put, Summary};
use crate::scenario::BuildError;
use crate::transport::tcp::trace::TcpTrace;
use crate::transport::tcp::{Endpoint, TcpConfig, TcpSocket};
use serde::{Deserialize, Serialize};

/// A `tcp[]` entry; the connection's parameters are the model's own
/// `TcpConfig`, in the same object.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct TcpDesc {
    /// Its name in the description (`tcp.NAME`).
    pub name: String,
    /// The node of the connecting side (`from`): the client, or the bulk
    /// sender.
    pub src_node: String,
    /// The node of the listening side (`to`): the server, or the bulk
    /// receiver.
    pub dst_node: String,
    /// When the connecting side opens the connection, ps; default 0.
    #[serde(default)]
    pub start_ps: Time,
    pub(crate) app: AppKind,
    /// Carry both directions over ABR VCs (TCP over ATM).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) abr: Option<AbrDesc>,
    /// Carry both directions over UBR VCs (classical IP over ATM).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) ubr: Option<UbrDesc>,
    /// The sender's packets wait in a segmentation buffer served at the
    /// explicit rate a link's `explicit_rate` port feeds back.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_control: Option<RateControlDesc>,
    /// The TCP parameters of both ends (the keys of `[tcp.NAME]`), in the
    /// same object.
    #[serde(flatten)]
    pub config: TcpConfig,
}

impl TcpDesc {}

impl Check for TcpDesc {
    fn check(&self) -> Result<(), ConfigError> {
        self.config.check()?;
        self.app.check()?;
        let attachments = [
            self.abr.is_some(),
            self.ubr.is_some(),
            self.rate_control.is_some(),
        ];
        if attachments.iter().filter(|a| **a).count() > 1 {
            return Err("give at most one of abr, ubr and rate_control".into());
        }
        let encap = match (&self.abr, &self.ubr) {
            (Some(a), _) => Some(a.encapsulation),
            (None, Some(u)) => Some(u.encapsulation),
            (None, None) => None,
        };
        let segment = self.config.mss + self.config.header;
        if let Some(max) = encap.map(|e| e.max_packet_bytes()) {
            if segment > max {
                return Err(ConfigError::new(format!(
                    "a {segment}-byte segment does not fit one AAL5 frame (at most {max} B)"
                )));
            }
        }
        Ok(())
    }
}

pub(crate) struct TcpConn {
    /// Empty for a connection of a class of flows.
    pub name: String,
    /// The class of flow arrivals that created it, if any.
    pub(crate) class: Option<u32>,
    /// [client (`from`), server (`to`)].
    pub(crate) sockets: [TcpSocket; 2],
    pub(crate) app: TcpApp,
    pub start: Time,
    /// Flow id of the client→server direction; the reverse is `flow + 1`.
    pub flow: u32,
    /// How each end's host is attached.
    ifaces: [Iface; 2],
    /// The VC pair under the connection, when it runs over ATM.
    pub(crate) vcs: Option<u32>,
    /// The sender's rate-controlled segmentation buffer, if any.
    pub(crate) shaper: Option<u32>,
    /// The client's cwnd and RTT as they change, when a trace asks.
    pub(crate) trace: Option<Box<TcpTrace>>,
    outs: [Vec<Pdu>; 2],
}

impl TcpConn {
    pub(crate) const METRICS: &'static [&'static str] = &[
        "cwnd_bytes",
        "ssthresh_bytes",
        "flight_bytes",
        "srtt_s",
        "rto_s",
        "rwnd_bytes",
        "goodput_bps",
        "delivered_bytes",
        "retransmissions",
        "acr_bps",
    ];

    /// A connection between `nodes` [client, server] with both directions'
    /// flows from `flow`; `ifaces` say how each host is attached.
    pub(crate) fn new(
        name: String,
        cfg: &TcpConfig,
        app: AppKind,
        nodes: [u32; 2],
        start: Time,
        flow: u32,
        ifaces: [Iface; 2],
    ) -> TcpConn {
        let shift = cfg.window_shift();
        let socket = |side: usize| {
            let endpoint = Endpoint {
                node: nodes[side],
                peer_node: nodes[1 - side],
                // Filled in by `attach`.
                peer_agent: AgentAddr::default(),
                flow: flow + side as u32,
            };
            TcpSocket::new(cfg.clone(), endpoint, side == 0, start, shift)
        };
        TcpConn {
            name,
            class: None,
            sockets: [socket(0), socket(1)],
            app: TcpApp::new(app),
            start,
            flow,
            ifaces,
            vcs: None,
            shaper: None,
            trace: None,
            outs: [Vec::new(), Vec::new()],
        }
    }

    /// After any event: the application reacts, both sockets send what
    /// they may, through their hosts' interfaces.
    fn service(&mut self, cx: &mut Ctx<'_>) {
        let now = cx.now;
        if now >= self.start {
            let [client, server] = &mut self.sockets;
            self.app.service(now, client, server);
        }
        for side in 0..2 {
            self.sockets[side].output(now, &mut self.outs[side]);
        }
        for side in 0..2 {
            for p in self.outs[side].drain(..) {
                self.ifaces[side].send(cx.out, p);
            }
        }
        if let Some(t) = self.trace.as_deref_mut() {
            t.observe(now, &self.sockets[0]);
        }
        // A flow of a class is done once its data is delivered and the
        // sender has seen it acknowledged.
        if self.class.is_some() && self.app.completed_at.is_some() && self.sockets[0].all_acked() {
            cx.finished = true;
        }
    }

    fn vc_pair<'a>(&self, view: &'a View<'_>) -> Option<&'a VcPair> {
        match self.vcs.map(|v| &view.comps[v as usize]) {
            Some(Component::Vcs(pair)) => Some(pair),
            _ => None,
        }
    }
}

impl Model for TcpConn {
    fn agents(&self) -> usize {
        2
    }

    fn timers(&self) -> usize {
        2
    }

    /// Agent 0 is the client socket, agent 1 the server socket.
    fn attach(&mut self, agents: &[AgentAddr]) {
        self.sockets[0].endpoint.peer_agent = agents[1];
        self.sockets[1].endpoint.peer_agent = agents[0];
    }

    fn wakeup(&self, side: usize, _now: Time) -> Time {
        self.sockets[side].poll_at()
    }

    fn on_timer(&mut self, side: usize, cx: &mut Ctx<'_>) {
        self.sockets[side].poll(cx.now, &mut self.outs[side]);
        self.service(cx);
    }

    fn on_pdu(&mut self, side: usize, p: &Pdu, cx: &mut Ctx<'_>) {
        self.sockets[side].on_segment(cx.now, p, &mut self.outs[side]);
        self.service(cx);
    }

    fn summarise(&self, s: &mut Summary, view: &View<'_>) {
        if self.class.is_some() {
            return;
        }
        let [client, server] = &self.sockets;
        let st = &client.stats;
        let p = format!("tcp.{}.", self.name);
        let key = |k: &str| format!("{p}{k}");
        put(s, key("segments_sent"), st.segments_sent);
        put(s, key("bytes_sent"), st.bytes_sent);
        put(s, key("retransmissions"), st.retransmissions);
        put(s, key("fast_retransmits"), st.fast_retransmits);
        put(s, key("timeouts"), st.timeouts);
        put(s, key("dup_acks"), st.dup_acks);
        put(s, key("acks_sent"), server.stats.acks_sent);
        put(s, key("cwnd_max_bytes"), st.cwnd_max.max(client.cwnd()));
        put(s, key("delivered_bytes"), server.delivered);
        if client.config().ecn {
            put(s, key("ce_marks_received"), server.stats.ce_marks_received);
            put(s, key("ecn_reductions"), st.ecn_reductions);
        }
        let active_s = view.now.since(self.start).as_secs_f64();
        let goodput = if active_s > 0.0 {
            server.delivered as f64 * 8.0 / active_s
        } else {
            f64::NAN
        };
        put(s, key("goodput_bps"), num(goodput));
        let done = self
            .app
            .completed_at
            .map(|t| t.since(self.start).as_secs_f64());
        put(s, key("completion_time_s"), opt(done));
        put(
            s,
            key("srtt_s"),
            opt(client.srtt().map(|d| d.as_secs_f64())),
        );
        put(s, key("rto_s"), num(client.rto().as_secs_f64()));
        let f = self.flow as usize;
        let mut drops = view.flows[f].dropped + view.flows[f + 1].dropped;
        if let Some(pair) = self.vc_pair(view) {
            drops += pair.packets_lost();
        }
        put(s, key("segments_dropped"), drops);
        put(s, key("transactions"), self.app.completed);
        if let Some(np) = &self.app.netpipe {
            netpipe::summarise(s, &p, np);
        }
        let times = &self.app.transaction_times;
        put(s, key("transaction_time_mean_s"), num(times.mean()));
        put(s, key("transaction_time_var_s2"), num(times.variance()));
        let (min, max) = if times.tally.n > 0 {
            (times.tally.min, times.tally.max)
        } else {
            (f64::NAN, f64::NAN)
        };
        put(s, key("transaction_time_min_s"), num(min));
        put(s, key("transaction_time_max_s"), num(max));
    }

    fn sample(&self, metric: usize, mem: &mut ProbeMemory, dt: f64, view: &View<'_>) -> f64 {
        let [client, server] = &self.sockets;
        match Self::METRICS[metric] {
            "cwnd_bytes" => client.cwnd() as f64,
            "ssthresh_bytes" => match client.ssthresh() {
                u64::MAX => f64::NAN,
                s => s as f64,
            },
            "flight_bytes" => client.flight() as f64,
            "srtt_s" => client.srtt().map_or(f64::NAN, |d| d.as_secs_f64()),
            "rto_s" => client.rto().as_secs_f64(),
            "rwnd_bytes" => server.advertised_window() as f64,
            "goodput_bps" => mem.per_interval(server.delivered as f64 * 8.0, dt),
            "delivered_bytes" => server.delivered as f64,
            "retransmissions" => client.stats.retransmissions as f64,
            _ => self.vc_pair(view).map_or(f64::NAN, |pair| pair.acr_bps(0)),
        }
    }

    fn parent(&self) -> Option<u32> {
        self.class
    }
}

impl Builder<'_> {
    /// The connections, in description order, each on its VC pair when it
    /// runs over ATM; then the rate-controlled senders' buffers.
    pub(super) fn tcp(&mut self) -> Result<(Vec<u32>, Vec<u32>), BuildError> {
        let mut ids = Vec::new();
        let mut shapers = Vec::new();
        for t in &self.d.tcp {
            let at = at("tcp", &t.name);
            let nodes = self.ends(&t.src_node, &t.dst_node, &at)?;
            let flow = self.w.new_flows(2);
            let prefix = Some(format!("tcp.{}.", t.name));
            let (vcs, ifaces) = match (&t.abr, &t.ubr) {
                (Some(a), _) => {
                    let ends = VcEndpoints::hosts(nodes, flow);
                    let (id, ifaces) = self.vc_pair(ends, Some(&a.config), a.encapsulation, prefix);
                    (Some(id), ifaces)
                }
                (None, Some(u)) => {
                    let ends = self.ubr_ends(u, nodes, flow, &at)?;
                    let (id, ifaces) = self.vc_pair(ends, None, u.encapsulation, prefix);
                    (Some(id), ifaces)
                }
                (None, None) => (None, direct(nodes)),
            };
            let mut ifaces = ifaces;
            let mut shaper = None;
            if let Some(rc) = &t.rate_control {
                let p = format!("tcp.{}.", t.name);
                let (id, iface) = self.rate_controlled(rc, nodes[0], &at, p)?;
                ifaces[0] = iface;
                shaper = Some(id);
                shapers.push(id);
            }
            let mut conn = TcpConn::new(
                t.name.clone(),
                &t.config,
                t.app.clone(),
                nodes,
                t.start_ps,
                flow,
                ifaces,
            );
            for (side, end) in ["client", "server"].into_iter().enumerate() {
                let rng = RngStream::new(self.d.seed, &format!("tcp.{}.{end}", t.name));
                conn.sockets[side].seed_controller(rng);
            }
            conn.vcs = vcs;
            conn.shaper = shaper;
            ids.push(self.add_named("tcp", &t.name, Component::Tcp(Box::new(conn))));
        }
        Ok((ids, shapers))
    }
}
