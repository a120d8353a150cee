//! The simulated world: every component of a built scenario, the scheduler
//! that drives them, and the forwarding of PDUs between them.

use super::description::{
    AppDesc, CapacityDesc, Description, LimitDesc, QueueDesc, SourceDesc, TcpDesc,
};
use super::probe::{Probe, Quantity};
use super::BuildError;
use crate::apps::mpeg2::{Mpeg2, Mpeg2Config};
use crate::apps::netpipe::NetPipeConfig;
use crate::apps::onoff::{OnOff, Periods};
use crate::apps::tcp_app::{AppKind, TcpApp};
use crate::apps::udp_rr::{UdpEnds, UdpRr, UdpRrConfig};
use crate::apps::{cbr::Cbr, poisson::Poisson, Emitter, FlowRecord, Sink, SizeDist, Source};
use crate::atm::erica::EricaPlus;
use crate::atm::vc::Vc;
use crate::engine::{Duration, RngStream, Scheduler, Slot, Time};
use crate::net::capacity::{CapacityProcess, Trace};
use crate::net::error_model::ErrorModel;
use crate::net::pdu::{Header, RmDir};
use crate::net::queue::{LevelConfig, Limit, Queue, Verdict};
use crate::net::{Link, Next, Node, Pdu};
use crate::transport::tcp::{Endpoint, TcpConfig, TcpSocket, Variant};
use std::collections::HashMap;

mod atm_net;
use crate::atm::cell::CELL_BITS;
use atm_net::mark_brm;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Owner {
    Link(u32),
    Source(u32),
    /// A TCP connection's socket: (connection, 0 = client / 1 = server).
    Tcp(u32, u8),
    /// An ABR VC's source end (cell pacing).
    Vc(u32),
    /// A UDP request/response client's timer.
    Udp(u32),
    /// The averaging-interval timer of the ERICA+ port on a link.
    Erica(u32),
    Sampler,
}

/// The receiver a PDU is addressed to at its destination node.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Agent {
    Sink(u32),
    Tcp(u32, u8),
    /// The destination end of an ABR VC (data and FRM cells).
    VcDestination(u32),
    /// The source end of an ABR VC (BRM cells).
    VcSource(u32),
    UdpClient(u32),
    UdpServer(u32),
}

/// A UDP request/response exchange and how its datagrams travel.
pub struct UdpRrConn {
    pub app: UdpRr,
    slot: Slot,
    /// [requests, responses] UBR VCs when it runs over ATM.
    pub vcs: Option<[u32; 2]>,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum StopCondition {
    SinkReceived(u32, u64),
    TcpCompleted(u32),
}

/// A TCP connection: the two sockets and the application driving them.
pub struct Connection {
    /// [client (`from`), server (`to`)].
    pub sockets: [TcpSocket; 2],
    pub app: TcpApp,
    pub start: Time,
    slots: [Slot; 2],
    /// Flow id of the client→server direction; the reverse is `flow + 1`.
    pub flow: u32,
    /// The ABR VCs carrying [client→server, server→client], when the
    /// connection runs over ATM.
    pub vcs: Option<[u32; 2]>,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum StopReason {
    Duration,
    MaxEvents,
    StopWhen,
}

impl StopReason {
    pub fn as_str(self) -> &'static str {
        match self {
            StopReason::Duration => "duration",
            StopReason::MaxEvents => "max_events",
            StopReason::StopWhen => "stop_when",
        }
    }
}

pub struct Names {
    pub nodes: Vec<String>,
    pub links: Vec<String>,
    pub sources: Vec<String>,
    pub sinks: Vec<String>,
    pub tcp: Vec<String>,
    pub udp_rr: Vec<String>,
}

pub struct World {
    pub name: String,
    pub seed: u64,
    pub now: Time,
    pub end: Time,
    pub events: u64,
    pub max_events: Option<u64>,
    pub stop_when: Option<StopCondition>,
    pub stopped: Option<StopReason>,
    sched: Scheduler,
    owners: Vec<Owner>,
    pub nodes: Vec<Node>,
    pub links: Vec<Link>,
    link_slots: Vec<Slot>,
    pub sources: Vec<Source>,
    source_slots: Vec<Slot>,
    pub sinks: Vec<Sink>,
    pub conns: Vec<Connection>,
    pub udp: Vec<UdpRrConn>,
    pub vcs: Vec<Vc>,
    vc_slots: Vec<Slot>,
    /// The VC whose source end sends VC v's turned-around BRMs.
    vc_partner: Vec<u32>,
    /// Flow id of VC 0; VC v's cells carry flow `vc_flow_base + v`.
    vc_flow_base: u32,
    /// ERICA+ at each link's output port, where configured.
    pub ports: Vec<Option<EricaPlus>>,
    port_slots: Vec<Slot>,
    agents: Vec<Agent>,
    /// One record per source, then two per TCP connection, by flow id.
    pub flows: Vec<FlowRecord>,
    pub probes: Vec<Probe>,
    sample_slot: Slot,
    pub sample_interval: Duration,
    next_sample: Time,
    pub unroutable: u64,
    pub names: Names,
    scratch: Vec<Pdu>,
    tcp_out: [Vec<Pdu>; 2],
}

fn index_of(
    names: &HashMap<&str, u32>,
    kind: &str,
    name: &str,
    at: &str,
) -> Result<u32, BuildError> {
    names
        .get(name)
        .copied()
        .ok_or_else(|| BuildError(format!("{at}: no {kind} named {name:?}")))
}

fn name_map(names: &[String]) -> HashMap<&str, u32> {
    names
        .iter()
        .enumerate()
        .map(|(i, n)| (n.as_str(), i as u32))
        .collect()
}

fn limit(l: LimitDesc) -> Limit {
    match l {
        LimitDesc::Packets(n) => Limit::Packets(n),
        LimitDesc::Bytes(n) => Limit::Bytes(n),
    }
}

fn build_queue(q: &QueueDesc) -> Queue {
    match q {
        QueueDesc::Droptail { limit: l } => Queue::drop_tail(limit(*l)),
        QueueDesc::Priority { high, low } => {
            let level = |d: &super::description::LevelDesc| LevelConfig {
                limit: limit(d.limit),
                clp_threshold: limit(d.clp_threshold),
            };
            Queue::two_priority(level(high), level(low))
        }
    }
}

fn build_capacity(
    c: &CapacityDesc,
    rng: RngStream,
    at: &str,
) -> Result<CapacityProcess, BuildError> {
    Ok(match c {
        CapacityDesc::Constant { rate_bps } => {
            if rate_bps.is_nan() || *rate_bps <= 0.0 {
                return Err(BuildError(format!("{at}: rate must be positive")));
            }
            CapacityProcess::constant(*rate_bps)
        }
        CapacityDesc::Markov {
            rates_bps,
            mean_holding_ps,
            initial,
        } => {
            if *initial > 1 || rates_bps.iter().all(|r| *r <= 0.0) {
                return Err(BuildError(format!("{at}: invalid Markov capacity")));
            }
            CapacityProcess::markov(
                *rates_bps,
                [Duration(mean_holding_ps[0]), Duration(mean_holding_ps[1])],
                *initial,
                rng,
            )
        }
        CapacityDesc::Trace {
            times_ps,
            rates_bps,
            period_ps,
        } => {
            let ok = !times_ps.is_empty()
                && times_ps.len() == rates_bps.len()
                && times_ps[0] == 0
                && times_ps.windows(2).all(|w| w[0] < w[1]);
            if !ok {
                return Err(BuildError(format!("{at}: invalid capacity trace")));
            }
            CapacityProcess::trace(Trace {
                times: times_ps.iter().map(|t| Time(*t)).collect(),
                rates: rates_bps.clone(),
                period: period_ps.map(Duration),
            })
        }
    })
}

fn build_source(
    s: &SourceDesc,
    emitter: Emitter,
    rng: RngStream,
    duration_ps: u64,
) -> Result<Source, BuildError> {
    let at = format!("sources.{}", s.name);
    let size = match s.size_dist.as_str() {
        "constant" => SizeDist::Constant(s.packet_bytes),
        "exponential" => SizeDist::Exponential(s.packet_bytes as f64),
        other => {
            return Err(BuildError(format!(
                "{at}: unknown size distribution {other:?}"
            )))
        }
    };
    if s.rate_bps.is_nan() || s.rate_bps <= 0.0 || s.packet_bytes == 0 {
        return Err(BuildError(format!(
            "{at}: rate and packet size must be positive"
        )));
    }
    Ok(match s.kind.as_str() {
        "cbr" => {
            let SizeDist::Constant(bytes) = size else {
                return Err(BuildError(format!("{at}: CBR sizes are constant")));
            };
            Source::Cbr(Cbr::new(emitter, bytes, s.rate_bps))
        }
        "poisson" => Source::Poisson(Poisson::new(emitter, size, s.rate_bps, rng)),
        "onoff" => {
            let (Some(on), Some(off)) = (s.on_ps, s.off_ps) else {
                return Err(BuildError(format!("{at}: on/off periods missing")));
            };
            let periods = match s.periods.as_deref().unwrap_or("exponential") {
                "exponential" => Periods::Exponential,
                "deterministic" => Periods::Deterministic,
                other => return Err(BuildError(format!("{at}: unknown periods {other:?}"))),
            };
            Source::OnOff(OnOff::new(
                emitter,
                size,
                s.rate_bps,
                Duration(on),
                Duration(off),
                periods,
                rng,
            ))
        }
        "mpeg2" => Source::Mpeg2(build_mpeg2(s, emitter, rng, duration_ps, &at)?),
        other => return Err(BuildError(format!("{at}: unknown source type {other:?}"))),
    })
}

/// fGn values per block: enough for the whole run at the shortest MPCR
/// interval, so the rate sequence of a run is one long-range-dependent
/// sample (blocks are independent of each other).
fn mpeg2_block(duration_ps: u64, mpcr_min_ps: u64) -> usize {
    let intervals = duration_ps / mpcr_min_ps.max(1) + 1;
    // Skipped values need spares; 2x covers a third skipped with margin.
    (2 * intervals).next_power_of_two().clamp(1 << 10, 1 << 22) as usize
}

fn build_mpeg2(
    s: &SourceDesc,
    emitter: Emitter,
    rng: RngStream,
    duration_ps: u64,
    at: &str,
) -> Result<Mpeg2, BuildError> {
    let (Some(std_bps), Some(hurst), Some(peak_bps), Some(min), Some(max)) =
        (s.std_bps, s.hurst, s.peak_bps, s.mpcr_min_ps, s.mpcr_max_ps)
    else {
        return Err(BuildError(format!(
            "{at}: an MPEG-2 source needs std, hurst, peak and the MPCR interval range"
        )));
    };
    let span = emitter
        .stop
        .ps()
        .min(duration_ps)
        .saturating_sub(emitter.start.ps());
    let cfg = Mpeg2Config {
        mean_bps: s.rate_bps,
        std_bps,
        hurst,
        peak_bps,
        mpcr_min: Duration(min),
        mpcr_max: Duration(max),
        cell_bytes: s.packet_bytes,
        block: mpeg2_block(span, min),
    };
    Mpeg2::new(emitter, cfg, rng).map_err(|e| BuildError(format!("{at}: {e}")))
}

impl World {
    pub fn build(d: &Description) -> Result<World, BuildError> {
        let names = Names {
            nodes: d.nodes.iter().map(|n| n.name.clone()).collect(),
            links: d.links.iter().map(|l| l.name.clone()).collect(),
            sources: d.sources.iter().map(|s| s.name.clone()).collect(),
            sinks: d.sinks.iter().map(|s| s.name.clone()).collect(),
            tcp: d.tcp.iter().map(|t| t.name.clone()).collect(),
            udp_rr: d.udp_rr.iter().map(|u| u.name.clone()).collect(),
        };
        let node_ix = name_map(&names.nodes);
        let link_ix = name_map(&names.links);
        let sink_ix = name_map(&names.sinks);
        let source_ix = name_map(&names.sources);
        let mut sched = Scheduler::new();
        let mut owners = vec![];

        let mut links = vec![];
        let mut link_slots = vec![];
        for (i, l) in d.links.iter().enumerate() {
            let at = format!("links.{}", l.name);
            let from = index_of(&node_ix, "node", &l.from, &at)?;
            let to = index_of(&node_ix, "node", &l.to, &at)?;
            let cap = build_capacity(
                &l.capacity,
                RngStream::new(d.seed, &format!("{at}.capacity")),
                &at,
            )?;
            let errors = ErrorModel::new(
                l.ber,
                l.loss,
                RngStream::new(d.seed, &format!("{at}.errors")),
            );
            links.push(Link::new(
                from,
                to,
                build_queue(&l.queue),
                cap,
                errors,
                Duration(l.delay_ps),
            ));
            link_slots.push(sched.add_slot());
            owners.push(Owner::Link(i as u32));
        }

        let mut nodes: Vec<Node> = (0..d.nodes.len())
            .map(|i| Node::new(i as u32, d.nodes.len()))
            .collect();
        for (i, n) in d.nodes.iter().enumerate() {
            for (dst, via) in &n.routes {
                let at = format!("nodes.{}.routes.{}", n.name, dst);
                let dst = index_of(&node_ix, "node", dst, &at)?;
                let via = index_of(&link_ix, "link", via, &at)?;
                if links[via as usize].from != i as u32 {
                    return Err(BuildError(format!("{at}: link does not leave this node")));
                }
                nodes[i].set_route(dst, via);
            }
        }

        let mut sinks = vec![];
        for s in &d.sinks {
            sinks.push(Sink::new(index_of(
                &node_ix,
                "node",
                &s.node,
                &format!("sinks.{}", s.name),
            )?));
        }

        let mut sources = vec![];
        let mut source_slots = vec![];
        let mut flows = vec![];
        for (i, s) in d.sources.iter().enumerate() {
            let at = format!("sources.{}", s.name);
            let sink = index_of(&sink_ix, "sink", &s.sink, &at)?;
            let emitter = Emitter {
                flow: i as u32,
                src_node: index_of(&node_ix, "node", &s.node, &at)?,
                dst_node: sinks[sink as usize].node,
                dst_agent: sink,
                priority: s.priority.min(1),
                clp: s.clp.min(1),
                start: Time(s.start_ps),
                stop: Time(s.stop_ps.unwrap_or(u64::MAX)),
                sent_packets: 0,
                sent_bytes: 0,
            };
            sources.push(build_source(
                s,
                emitter,
                RngStream::new(d.seed, &at),
                d.duration_ps,
            )?);
            flows.push(FlowRecord::default());
            let slot = sched.add_slot();
            source_slots.push(slot);
            owners.push(Owner::Source(i as u32));
        }

        let mut probes = vec![];
        for p in &d.probes {
            let at = format!("probes.{}", p.name);
            let ix = match p.target.as_str() {
                "link" => index_of(&link_ix, "link", &p.of, &at)?,
                "sink" => index_of(&sink_ix, "sink", &p.of, &at)?,
                "source" => index_of(&source_ix, "source", &p.of, &at)?,
                "tcp" => index_of(&name_map(&names.tcp), "tcp connection", &p.of, &at)?,
                other => return Err(BuildError(format!("{at}: unknown probe target {other:?}"))),
            };
            let q = Quantity::parse(&p.target, &p.metric, ix)
                .ok_or_else(|| BuildError(format!("{at}: unknown metric {:?}", p.metric)))?;
            probes.push(Probe::new(p.name.clone(), q));
        }
        let sample_slot = sched.add_slot();
        owners.push(Owner::Sampler);

        let mut ports = vec![];
        let mut port_slots = vec![];
        for (i, l) in d.links.iter().enumerate() {
            let at = format!("links.{}", l.name);
            let Some(e) = &l.erica else {
                ports.push(None);
                port_slots.push(sample_slot);
                continue;
            };
            let CapacityDesc::Constant { rate_bps } = l.capacity else {
                return Err(BuildError(format!(
                    "{at}.erica: ERICA+ needs a constant-rate link"
                )));
            };
            ports.push(Some(atm_net::erica_port(e, rate_bps, &at)?));
            port_slots.push(sched.add_slot());
            owners.push(Owner::Erica(i as u32));
        }

        let mut agents: Vec<Agent> = (0..sinks.len() as u32).map(Agent::Sink).collect();
        let mut conns = vec![];
        for (c, t) in d.tcp.iter().enumerate() {
            let client_agent = agents.len() as u32;
            agents.push(Agent::Tcp(c as u32, 0));
            agents.push(Agent::Tcp(c as u32, 1));
            let flow = flows.len() as u32;
            flows.push(FlowRecord::default());
            flows.push(FlowRecord::default());
            let slots = [sched.add_slot(), sched.add_slot()];
            owners.push(Owner::Tcp(c as u32, 0));
            owners.push(Owner::Tcp(c as u32, 1));
            conns.push(build_connection(t, &node_ix, client_agent, flow, slots)?);
        }
        let mut udp = vec![];
        let mut udp_atm = vec![];
        for (i, u) in d.udp_rr.iter().enumerate() {
            let at = format!("udp_rr.{}", u.name);
            let client_agent = agents.len() as u32;
            agents.push(Agent::UdpClient(i as u32));
            agents.push(Agent::UdpServer(i as u32));
            let flow = flows.len() as u32;
            flows.push(FlowRecord::default());
            flows.push(FlowRecord::default());
            let slot = sched.add_slot();
            owners.push(Owner::Udp(i as u32));
            let ends = UdpEnds {
                client_node: index_of(&node_ix, "node", &u.src_node, &at)?,
                server_node: index_of(&node_ix, "node", &u.dst_node, &at)?,
                client_agent,
                server_agent: client_agent + 1,
                flow,
            };
            if u.timeout_ps == 0 {
                return Err(BuildError(format!("{at}: timeout must be positive")));
            }
            let cfg = UdpRrConfig {
                request: u.request_bytes,
                response: u.response_bytes,
                count: u.count,
                warmup: u.warmup,
                timeout: Duration(u.timeout_ps),
                start: Time(u.start_ps),
            };
            if let Some(ubr) = &u.ubr {
                udp_atm.push((i, atm_net::encapsulation(&ubr.encapsulation, &at)?));
            }
            udp.push(UdpRrConn {
                app: UdpRr::new(cfg, ends),
                slot,
                vcs: None,
            });
        }
        let mut atm = vec![];
        for (c, t) in d.tcp.iter().enumerate() {
            let at = format!("tcp.{}", t.name);
            match (&t.abr, &t.ubr) {
                (Some(_), Some(_)) => {
                    return Err(BuildError(format!("{at}: give abr or ubr, not both")))
                }
                (Some(a), None) => {
                    let (cfg, encap) = atm_net::abr_config(a, &at)?;
                    atm.push((c, Some(cfg), encap));
                }
                (None, Some(u)) => {
                    atm.push((c, None, atm_net::encapsulation(&u.encapsulation, &at)?))
                }
                (None, None) => {}
            }
        }
        let vc_flow_base = flows.len() as u32;
        let stop_when = match &d.stop_when {
            None => None,
            Some(s) => Some(stop_condition(s, &sink_ix, &name_map(&names.tcp))?),
        };
        if d.duration_ps == 0 || d.sample_interval_ps == 0 {
            return Err(BuildError(
                "run: duration and sample interval must be positive".into(),
            ));
        }

        let mut w = World {
            name: d.name.clone(),
            seed: d.seed,
            now: Time::ZERO,
            end: Time(d.duration_ps),
            events: 0,
            max_events: d.max_events,
            stop_when,
            stopped: None,
            sched,
            owners,
            nodes,
            links,
            link_slots,
            sources,
            source_slots,
            sinks,
            conns,
            udp,
            vcs: Vec::new(),
            vc_slots: Vec::new(),
            vc_partner: Vec::new(),
            vc_flow_base,
            ports,
            port_slots,
            agents,
            flows,
            probes,
            sample_slot,
            sample_interval: Duration(d.sample_interval_ps),
            next_sample: Time(d.sample_interval_ps),
            unroutable: 0,
            names,
            scratch: Vec::new(),
            tcp_out: [Vec::new(), Vec::new()],
        };
        for (c, cfg, encap) in atm {
            w.add_vcs(c, cfg.as_ref(), encap);
        }
        for (i, encap) in udp_atm {
            let e = w.udp[i].app.ends;
            let pair = w.add_vc_pair([e.client_node, e.server_node], None, encap);
            w.udp[i].vcs = Some(pair);
        }
        for i in 0..w.udp.len() {
            w.sched.schedule(w.udp[i].slot, w.udp[i].app.poll_at());
        }
        for c in 0..w.conns.len() {
            w.reschedule_conn(c);
        }
        for l in 0..w.ports.len() {
            if let Some(p) = &w.ports[l] {
                w.sched.schedule(w.port_slots[l], p.interval_deadline());
            }
        }
        for i in 0..w.sources.len() {
            w.sched.schedule(w.source_slots[i], w.sources[i].poll_at());
        }
        for i in 0..w.links.len() {
            w.sched.schedule(w.link_slots[i], w.links[i].poll_at());
        }
        if !w.probes.is_empty() {
            w.sched.schedule(w.sample_slot, w.next_sample);
        }
        Ok(w)
    }

    pub fn finished(&self) -> bool {
        self.stopped.is_some()
    }

    /// Runs at most `budget` events; returns true once the run has stopped.
    /// Callers loop over this to show progress or to stay interruptible.
    pub fn advance(&mut self, budget: u64) -> bool {
        let mut done = 0;
        while self.stopped.is_none() && done < budget {
            self.step();
            done += 1;
        }
        self.stopped.is_some()
    }

    /// Runs to completion.
    pub fn run(&mut self) {
        while !self.advance(u64::MAX) {}
    }

    /// Runs until `cond` holds (checked after every event) or the run stops.
    pub fn run_until(&mut self, mut cond: impl FnMut(&World) -> bool) -> bool {
        while self.stopped.is_none() {
            if cond(self) {
                return true;
            }
            self.step();
        }
        false
    }

    fn stop(&mut self, why: StopReason) {
        self.stopped = Some(why);
        if why == StopReason::Duration {
            self.now = self.end;
            if self.next_sample == self.end && !self.probes.is_empty() {
                self.sample();
            }
        }
        for l in &mut self.links {
            l.settle(self.now);
        }
    }

    /// Processes one event.
    fn step(&mut self) {
        let Some((t, slot)) = self.sched.pop() else {
            self.stop(StopReason::Duration);
            return;
        };
        if t >= self.end {
            self.stop(StopReason::Duration);
            return;
        }
        assert!(t >= self.now, "time went backwards: {t:?} < {:?}", self.now);
        self.now = t;
        self.events += 1;
        match self.owners[slot as usize] {
            Owner::Link(i) => self.on_link(i as usize),
            Owner::Source(i) => self.on_source(i as usize),
            Owner::Tcp(c, side) => self.on_tcp_timer(c as usize, side as usize),
            Owner::Vc(v) => self.on_vc(v as usize),
            Owner::Udp(i) => {
                let p = self.udp[i as usize].app.on_timer(self.now);
                self.udp_sent(i as usize, 0, p);
            }
            Owner::Erica(l) => self.on_erica_timer(l as usize),
            Owner::Sampler => self.on_sample(),
        }
        if let Some(max) = self.max_events {
            if self.events >= max {
                self.stop(StopReason::MaxEvents);
            }
        }
        let done = match self.stop_when {
            None => false,
            Some(StopCondition::SinkReceived(k, n)) => self.sinks[k as usize].received_packets >= n,
            Some(StopCondition::TcpCompleted(c)) => {
                self.conns[c as usize].app.completed_at.is_some()
            }
        };
        if done {
            self.stop(StopReason::StopWhen);
        }
    }

    fn on_link(&mut self, i: usize) {
        let mut out = std::mem::take(&mut self.scratch);
        let link = &mut self.links[i];
        link.poll(self.now, &mut out);
        let to = link.to;
        self.sched.update(self.link_slots[i], link.poll_at());
        for p in out.drain(..) {
            self.forward(to, p);
        }
        self.scratch = out;
    }

    fn on_source(&mut self, i: usize) {
        let src = &mut self.sources[i];
        let p = src.poll(self.now);
        self.sched.update(self.source_slots[i], src.poll_at());
        if let Some(p) = p {
            self.forward(p.src_node, p);
        }
    }

    fn on_sample(&mut self) {
        self.sample();
        self.next_sample += self.sample_interval;
        self.sched.schedule(self.sample_slot, self.next_sample);
    }

    /// Hands a PDU that is at `node` to the next link or to its receiver.
    fn forward(&mut self, node: u32, mut p: Pdu) {
        if let Header::Rm(h) = &mut p.header {
            if h.dir == RmDir::Backward {
                let vc = p.flow - self.vc_flow_base;
                // The BRM's source end is the VC's destination end.
                mark_brm(
                    &self.nodes[node as usize],
                    &mut self.ports,
                    p.src_node,
                    vc,
                    h,
                );
            }
        }
        match self.nodes[node as usize].next_hop(p.dst_node) {
            Next::Local => match self.agents[p.dst_agent as usize] {
                Agent::Sink(k) => {
                    let flow = &mut self.flows[p.flow as usize];
                    self.sinks[k as usize].deliver(self.now, &p, flow);
                }
                Agent::Tcp(c, side) => self.on_tcp_segment(c as usize, side as usize, &p),
                Agent::VcDestination(v) => self.on_vc_destination(node, v as usize, &p),
                Agent::VcSource(v) => self.on_vc_source(v as usize, &p),
                Agent::UdpServer(i) => {
                    let response = self.udp[i as usize].app.on_request(self.now, &p);
                    self.udp_sent(i as usize, 1, Some(response));
                }
                Agent::UdpClient(i) => {
                    let next = self.udp[i as usize].app.on_response(self.now, &p);
                    self.udp_sent(i as usize, 0, next);
                }
            },
            Next::Link(l) => {
                if self.ports[l as usize].is_some() {
                    self.erica_input(l as usize, &p);
                }
                let link = &mut self.links[l as usize];
                if link.enqueue(self.now, p) != Verdict::Queued {
                    self.flows[p.flow as usize].dropped += 1;
                }
                self.sched
                    .update(self.link_slots[l as usize], link.poll_at());
            }
            Next::Unroutable => {
                self.unroutable += 1;
                self.flows[p.flow as usize].dropped += 1;
            }
        }
    }

    /// Sends a datagram of UDP exchange `i` from its client (side 0) or
    /// server (1), over its VC when it has one; then rearms the client's
    /// timer.
    fn udp_sent(&mut self, i: usize, side: usize, p: Option<Pdu>) {
        if let Some(p) = p {
            match self.udp[i].vcs {
                Some(vcs) => self.vc_offer(vcs[side] as usize, p),
                None => self.forward(p.src_node, p),
            }
        }
        let u = &self.udp[i];
        self.sched.update(u.slot, u.app.poll_at().max(self.now));
    }

    fn on_tcp_timer(&mut self, c: usize, side: usize) {
        let mut out = std::mem::take(&mut self.tcp_out[side]);
        self.conns[c].sockets[side].poll(self.now, &mut out);
        self.tcp_out[side] = out;
        self.service_conn(c);
    }

    fn on_tcp_segment(&mut self, c: usize, side: usize, p: &Pdu) {
        let mut out = std::mem::take(&mut self.tcp_out[side]);
        self.conns[c].sockets[side].on_segment(self.now, p, &mut out);
        self.tcp_out[side] = out;
        self.service_conn(c);
    }

    /// After any event on a connection: the application reacts, both
    /// sockets send what they may, and their wake-ups are updated.
    fn service_conn(&mut self, c: usize) {
        let now = self.now;
        let mut outs = std::mem::take(&mut self.tcp_out);
        let conn = &mut self.conns[c];
        if now >= conn.start {
            let [client, server] = &mut conn.sockets;
            conn.app.service(now, client, server);
        }
        for (side, out) in outs.iter_mut().enumerate() {
            conn.sockets[side].output(now, out);
        }
        self.reschedule_conn(c);
        for (side, out) in outs.iter_mut().enumerate() {
            let node = self.conns[c].sockets[side].endpoint.node;
            match self.conns[c].vcs {
                Some(vcs) => {
                    for p in out.drain(..) {
                        self.vc_offer(vcs[side] as usize, p);
                    }
                }
                None => {
                    for p in out.drain(..) {
                        self.forward(node, p);
                    }
                }
            }
        }
        self.tcp_out = outs;
    }

    fn reschedule_conn(&mut self, c: usize) {
        let conn = &self.conns[c];
        for side in 0..2 {
            self.sched
                .update(conn.slots[side], conn.sockets[side].poll_at());
        }
    }

    fn sample(&mut self) {
        let t = self.now.as_secs_f64();
        let dt = self.sample_interval.as_secs_f64();
        for k in 0..self.probes.len() {
            let v = self.probe_value(k, dt);
            self.probes[k].series.push(t, v);
        }
    }

    fn probe_value(&mut self, k: usize, dt: f64) -> f64 {
        use Quantity::*;
        let q = self.probes[k].quantity;
        let now = self.now;
        let p = &mut self.probes[k];
        match q {
            LinkQueuePackets(i) => self.links[i as usize].queue().packets() as f64,
            LinkQueueBytes(i) => self.links[i as usize].queue().bytes() as f64,
            LinkCapacity(i) => self.links[i as usize].rate().bps,
            LinkThroughput(i) => {
                let l = &mut self.links[i as usize];
                l.settle(now);
                p.per_interval(l.tx_bits_at(now), dt)
            }
            LinkDrops(i) => {
                let s = &self.links[i as usize].stats;
                (s.drops + s.drops_clp) as f64
            }
            LinkQueueHigh(i) => self.links[i as usize].queue().packets_at(0) as f64,
            LinkQueueLow(i) => self.links[i as usize].queue().packets_at(1) as f64,
            LinkThroughputHigh(i) | LinkThroughputLow(i) => {
                let level = usize::from(matches!(q, LinkThroughputLow(_)));
                let l = &mut self.links[i as usize];
                l.settle(now);
                p.per_interval(l.stats.tx_bytes_by_priority[level] as f64 * 8.0, dt)
            }
            EricaFairShare(i) | EricaAbrCapacity(i) | EricaLoadFactor(i) => {
                match &self.ports[i as usize] {
                    None => f64::NAN,
                    Some(e) => match q {
                        EricaFairShare(_) => e.fair_share() * CELL_BITS,
                        EricaAbrCapacity(_) => e.abr_capacity() * CELL_BITS,
                        _ => e.load_factor(),
                    },
                }
            }
            SinkThroughput(i) => {
                p.per_interval(self.sinks[i as usize].received_bytes as f64 * 8.0, dt)
            }
            SinkReceived(i) => self.sinks[i as usize].received_packets as f64,
            SinkDelayMean(i) => {
                let s = &self.sinks[i as usize];
                p.interval_mean(s.delay_sum_s, s.received_packets as f64)
            }
            SourceSent(i) => self.sources[i as usize].emitter().sent_packets as f64,
            SourceRate(i) => p.per_interval(
                self.sources[i as usize].emitter().sent_bytes as f64 * 8.0,
                dt,
            ),
            TcpCwnd(c) => self.conns[c as usize].sockets[0].cwnd() as f64,
            TcpSsthresh(c) => match self.conns[c as usize].sockets[0].ssthresh() {
                u64::MAX => f64::NAN,
                s => s as f64,
            },
            TcpFlight(c) => self.conns[c as usize].sockets[0].flight() as f64,
            TcpSrtt(c) => {
                let srtt = self.conns[c as usize].sockets[0].srtt();
                srtt.map_or(f64::NAN, |d| d.as_secs_f64())
            }
            TcpRto(c) => self.conns[c as usize].sockets[0].rto().as_secs_f64(),
            TcpRwnd(c) => self.conns[c as usize].sockets[1].advertised_window() as f64,
            TcpGoodput(c) => {
                let delivered = self.conns[c as usize].sockets[1].delivered;
                p.per_interval(delivered as f64 * 8.0, dt)
            }
            TcpDelivered(c) => self.conns[c as usize].sockets[1].delivered as f64,
            TcpRetransmissions(c) => self.conns[c as usize].sockets[0].stats.retransmissions as f64,
            TcpAcr(c) => match self.conns[c as usize].vcs {
                Some([v, _]) => self.vcs[v as usize]
                    .source
                    .as_ref()
                    .map_or(f64::NAN, |s| s.acr() * CELL_BITS),
                None => f64::NAN,
            },
        }
    }

    /// PDUs of each flow still inside links (queued, in transmission or
    /// propagating) — needed to tell loss from data still in flight.
    pub fn in_flight_per_flow(&self) -> Vec<u64> {
        let mut n = vec![0u64; self.flows.len()];
        for l in &self.links {
            l.for_each_held(|p| n[p.flow as usize] += 1);
        }
        n
    }
}

fn build_connection(
    t: &TcpDesc,
    node_ix: &HashMap<&str, u32>,
    client_agent: u32,
    flow: u32,
    slots: [Slot; 2],
) -> Result<Connection, BuildError> {
    let at = format!("tcp.{}", t.name);
    let variant = Variant::parse(&t.variant)
        .ok_or_else(|| BuildError(format!("{at}: unknown variant {:?}", t.variant)))?;
    if t.mss_bytes == 0
        || t.send_buffer_bytes < t.mss_bytes as u64
        || t.receive_buffer_bytes < t.mss_bytes as u64
    {
        return Err(BuildError(format!(
            "{at}: mss and buffers must hold at least one segment"
        )));
    }
    let cfg = TcpConfig {
        variant,
        mss: t.mss_bytes,
        header: t.header_bytes,
        initial_window_segments: t.initial_window_segments.max(1),
        abc_limit_segments: t.abc_limit_segments.max(1),
        initial_ssthresh: t.initial_ssthresh_bytes,
        min_rto: Duration(t.min_rto_ps),
        initial_rto: Duration(t.initial_rto_ps),
        max_rto: Duration(t.max_rto_ps),
        granularity: Duration(t.granularity_ps),
        delayed_ack: t.delayed_ack,
        delayed_ack_timeout: Duration(t.delayed_ack_ps),
        limited_transmit: t.limited_transmit,
        restart_after_idle: t.restart_after_idle,
        window_scaling: t.window_scaling,
        send_buffer: t.send_buffer_bytes,
        receive_buffer: t.receive_buffer_bytes,
        handshake: t.handshake,
        priority: t.priority.min(1),
        clp: t.clp.min(1),
    };
    let client_node = index_of(node_ix, "node", &t.src_node, &at)?;
    let server_node = index_of(node_ix, "node", &t.dst_node, &at)?;
    let start = Time(t.start_ps);
    let shift = cfg.window_shift();
    let client = TcpSocket::new(
        cfg.clone(),
        Endpoint {
            node: client_node,
            peer_node: server_node,
            peer_agent: client_agent + 1,
            flow,
        },
        true,
        start,
        shift,
    );
    let server = TcpSocket::new(
        cfg,
        Endpoint {
            node: server_node,
            peer_node: client_node,
            peer_agent: client_agent,
            flow: flow + 1,
        },
        false,
        start,
        shift,
    );
    let kind = match &t.app {
        AppDesc::Bulk { bytes } => AppKind::Bulk { bytes: *bytes },
        AppDesc::Netpipe {
            sizes_bytes,
            warmup,
            trial_time_ps,
            min_repetitions,
            max_repetitions,
            stop_time_ps,
        } => {
            if sizes_bytes.is_empty() || sizes_bytes.contains(&0) || *min_repetitions == 0 {
                return Err(BuildError(format!(
                    "{at}: NetPIPE needs block sizes of at least 1 byte and a repetition"
                )));
            }
            AppKind::NetPipe(NetPipeConfig {
                sizes: sizes_bytes.clone(),
                warmup: *warmup,
                trial_time: Duration(*trial_time_ps),
                min_repetitions: *min_repetitions,
                max_repetitions: (*max_repetitions).max(*min_repetitions),
                stop_time: stop_time_ps.map(Duration),
            })
        }
        AppDesc::RequestResponse {
            request_bytes,
            response_bytes,
            count,
            warmup,
        } => {
            let (request_bytes, response_bytes, count, warmup) =
                (*request_bytes, *response_bytes, *count, *warmup);
            if request_bytes == 0 || response_bytes == 0 {
                return Err(BuildError(format!(
                    "{at}: request and response must be at least 1 byte"
                )));
            }
            AppKind::RequestResponse {
                request: request_bytes,
                response: response_bytes,
                count,
                warmup,
            }
        }
    };
    Ok(Connection {
        sockets: [client, server],
        app: TcpApp::new(kind),
        start,
        slots,
        flow,
        vcs: None,
    })
}

fn stop_condition(
    s: &super::description::StopWhen,
    sink_ix: &HashMap<&str, u32>,
    tcp_ix: &HashMap<&str, u32>,
) -> Result<StopCondition, BuildError> {
    let at = "run.stop_when";
    match (&s.sink, s.received_packets, &s.tcp) {
        (Some(k), Some(n), None) => Ok(StopCondition::SinkReceived(
            index_of(sink_ix, "sink", k, at)?,
            n,
        )),
        (None, None, Some(t)) => Ok(StopCondition::TcpCompleted(index_of(
            tcp_ix,
            "tcp connection",
            t,
            at,
        )?)),
        _ => Err(BuildError(format!(
            "{at}: give a sink and received_packets, or a tcp connection"
        ))),
    }
}
