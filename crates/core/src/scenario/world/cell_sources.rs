//! The proactive-atm thesis's cell sources (`cell_sources`): a group of
//! `count` identical voice, video or data sources, each its own VC from
//! `src_node` to `dst_node`, sending 53-byte cells at its nominal rate times
//! the factor its rate policy sets, and answering the congestion
//! notifications switches send back (section 5.3). Each source is a
//! component with two agents: the source, which notifications reach, and
//! its sink, which records every cell's delay so that the share of cells
//! later than the VC's minimum by more than `jitter_bound` is counted
//! exactly (section 7.1). A contract puts the VC under the access link's
//! peak-rate controller and leaky bucket (`police_at`). The group's
//! figures are `cell_sources.NAME.*`, written by its first source.

use super::build::{at, Builder, Names};
use super::component::{Component, Ctx, Model, View};
use super::ports;
use crate::apps::file_transfer::{FileTransfer, FileTransferConfig};
use crate::apps::media::MAX_RATE_BPS;
use crate::apps::rate_policy::{Notice, RatePolicy, RatePolicyConfig};
use crate::apps::session_source::{SessionConfig, SessionSource};
use crate::atm::cell::{CELL_BITS, CELL_BYTES, CELL_PAYLOAD};
use crate::atm::upc::Contract;
use crate::engine::stats::{Summary as Stats, Tally};
use crate::engine::{Check, ConfigError, Duration, RngStream, Time};
use crate::net::pdu::{CellType, Header, ProactiveCell};
use crate::net::{AgentAddr, Class, Next, Pdu};
use crate::scenario::summary::{num, put, Summary};
use crate::scenario::BuildError;
use serde::{Deserialize, Serialize};

/// What the sources of a group send.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Traffic {
    /// Voice or video: rates inside sessions.
    Sessions(SessionConfig),
    /// Data: file transfers.
    Files(FileTransferConfig),
}

impl Traffic {}

impl Check for Traffic {
    fn check(&self) -> Result<(), ConfigError> {
        match self {
            Traffic::Sessions(s) => s.check(),
            Traffic::Files(f) => f.check(),
        }
    }
}

/// A `cell_sources[]` entry.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CellSourcesDesc {
    /// Its name in the description (`cell_sources.NAME`).
    pub name: String,
    /// The node where every source's VC starts (`from`); notifications come
    /// back to it.
    pub src_node: String,
    /// The node where every VC ends (`to`), at the sources' sinks.
    pub dst_node: String,
    /// Identical sources in the group, each its own VC (the scenario's
    /// default: 1).
    pub count: u32,
    /// 0 for real time (voice, video), 1 for data.
    pub priority: u8,
    /// What each source sends: voice or video sessions, or data files (the
    /// thesis, section 6.2.1), rates counted in cell payload.
    pub traffic: Traffic,
    /// How each source's rate follows its slow start and the congestion
    /// notifications (sections 5.3 and 6.2.1.4).
    pub policy: RatePolicyConfig,
    /// The traffic contract each VC is policed by at `police_at` (section
    /// 3): a peak-rate controller, a leaky bucket or both; `None`: not
    /// policed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contract: Option<Contract>,
    /// The link at whose input the contract is enforced (the access).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub police_at: Option<String>,
    /// Cells later than their VC's minimum delay by more than this are
    /// counted late (section 7.1), ps; the scenario's default is 20 ms.
    #[serde(rename = "jitter_bound_ps")]
    pub jitter_bound: Duration,
}

impl CellSourcesDesc {}

impl Check for CellSourcesDesc {
    fn check(&self) -> Result<(), ConfigError> {
        if self.count == 0 {
            return Err("a group needs at least one source".into());
        }
        if self.priority > 1 {
            return Err("priority is 0 or 1".into());
        }
        if self.contract.is_some() != self.police_at.is_some() {
            return Err(
                "a contract needs the link it is enforced at, and that link a contract".into(),
            );
        }
        if let Some(c) = &self.contract {
            c.check()?;
        }
        self.traffic.check()?;
        self.policy.check()
    }
}

enum Process {
    Sessions(SessionSource),
    Files(FileTransfer),
}

impl Process {
    fn rate_bps(&self) -> f64 {
        match self {
            Process::Sessions(s) => s.rate_bps(),
            Process::Files(f) => f.rate_bps(),
        }
    }

    fn next_change(&self) -> Time {
        match self {
            Process::Sessions(s) => s.next_change(),
            Process::Files(f) => f.next_change(),
        }
    }

    fn active(&self) -> bool {
        match self {
            Process::Sessions(s) => s.in_session(),
            Process::Files(f) => f.busy(),
        }
    }

    /// Applies the changes due: true when a session or a file began.
    fn advance(&mut self, now: Time, rng: &mut RngStream) -> bool {
        match self {
            Process::Sessions(s) => s.advance(now, rng),
            Process::Files(f) => f.advance(now, rng),
        }
    }
}

/// What a source counted.
#[derive(Clone, Debug, Default)]
struct SourceStats {
    sent: u64,
    received: u64,
    /// Every received cell's delay (ps), for the exact jitter count.
    delays: Vec<u64>,
    /// The same from the time the access policer let the cell go: the
    /// network's share, without the time the contract held the cell.
    network_delays: Vec<u64>,
    files: Stats,
    rate_factor: Stats,
}

/// Timers: 0 the cells and the traffic's changes, 1 the rate policy's
/// round trips.
const POLICY: usize = 1;

pub(crate) struct CellSource {
    pub(crate) group: u32,
    pub index: u32,
    name: String,
    priority: u8,
    nodes: [u32; 2],
    /// The VC's flow; notifications travel as `flow + 1`.
    pub flow: u32,
    agents: [AgentAddr; 2],
    process: Process,
    policy: RatePolicy,
    rng: RngStream,
    next_cell: Time,
    last_cell: Option<Time>,
    seq: u64,
    stats: SourceStats,
    jitter_bound: Duration,
}

impl CellSource {
    fn rate_bps(&self) -> f64 {
        self.process.rate_bps() * self.policy.factor()
    }

    /// The next cell's time at the rate of now.
    fn reschedule(&mut self, now: Time) {
        // The policy's factor has no ceiling for data: within the clock's
        // reach (a cell every 384 ps at most), or a 0 ps gap stops time.
        let rate = self.rate_bps().min(MAX_RATE_BPS);
        self.next_cell = if rate > 0.0 {
            let gap = Duration::from_secs_f64(f64::from(CELL_PAYLOAD) * 8.0 / rate);
            self.last_cell.map_or(now, |t| (t + gap).max(now))
        } else {
            Time::NEVER
        };
    }

    fn send_cell(&mut self, cx: &mut Ctx<'_>) {
        let now = cx.now;
        let cell = Pdu {
            bytes: CELL_BYTES,
            flow: self.flow,
            seq: self.seq,
            src_node: self.nodes[0],
            dst_node: self.nodes[1],
            dst_agent: self.agents[1].index,
            dst_gen: self.agents[1].gen,
            created: now,
            enqueued: now,
            class: Class::new(self.priority, 0),
            ecn: 0,
            header: Header::ProactiveCell(ProactiveCell {
                kind: CellType::Traffic,
                source_agent: self.agents[0].index,
                source_gen: self.agents[0].gen,
                released: now,
            }),
        };
        self.seq += 1;
        self.stats.sent += 1;
        self.last_cell = Some(now);
        cx.out.route(self.nodes[0], cell);
        if let Process::Files(f) = &mut self.process {
            if let Some(took) = f.on_cell(now) {
                self.stats.files.add(took.as_secs_f64());
                self.policy.stop();
            }
        }
    }

    /// Cells later than the VC's minimum delay by more than the bound.
    fn late(&self) -> u64 {
        late_cells(&self.stats.delays, self.jitter_bound)
    }

    /// The same over the network's share of the delay: what queueing made
    /// late, apart from cells the contract held back at the access.
    fn late_in_network(&self) -> u64 {
        late_cells(&self.stats.network_delays, self.jitter_bound)
    }
}

impl Model for CellSource {
    fn agents(&self) -> usize {
        2
    }

    fn timers(&self) -> usize {
        2
    }

    fn attach(&mut self, agents: &[AgentAddr]) {
        self.agents = [agents[0], agents[1]];
    }

    fn wakeup(&self, k: usize, _now: Time) -> Time {
        if k == POLICY {
            return self.policy.poll_at();
        }
        self.next_cell.min(self.process.next_change())
    }

    fn on_timer(&mut self, k: usize, cx: &mut Ctx<'_>) {
        let now = cx.now;
        if k == POLICY {
            self.policy.poll(now);
            self.reschedule(now);
            return;
        }
        if self.process.next_change() <= now {
            let was_active = self.process.active();
            if self.process.advance(now, &mut self.rng) {
                self.policy.start(now);
                self.stats.rate_factor.add(self.policy.factor());
            }
            if was_active && !self.process.active() {
                self.policy.stop();
            }
        }
        if self.next_cell <= now && self.rate_bps() > 0.0 {
            self.send_cell(cx);
        }
        self.reschedule(now);
    }

    fn on_pdu(&mut self, agent: usize, p: &Pdu, cx: &mut Ctx<'_>) {
        let Header::ProactiveCell(h) = &p.header else {
            return;
        };
        match (agent, h.kind) {
            (0, CellType::RateNotice) => self.policy.on_notice(cx.now, Notice::InputRate),
            (0, CellType::DiscardNotice) => self.policy.on_notice(cx.now, Notice::Discard),
            (1, CellType::Traffic) => {
                self.stats.received += 1;
                self.stats.delays.push(cx.now.since(p.created).ps());
                self.stats
                    .network_delays
                    .push(cx.now.since(h.released).ps());
                return;
            }
            _ => return,
        }
        self.stats.rate_factor.add(self.policy.factor());
        self.reschedule(cx.now);
    }

    /// The group's keys, from its first source, over every source of it.
    fn summarise(&self, s: &mut Summary, view: &View<'_>) {
        if self.index != 0 {
            return;
        }
        let members: Vec<&CellSource> = view
            .comps
            .iter()
            .filter_map(|c| match c {
                Component::CellSource(m) if m.group == self.group => Some(&**m),
                _ => None,
            })
            .collect();
        let p = format!("cell_sources.{}.", self.name);
        let key = |k: &str| format!("{p}{k}");
        let sum = |f: &dyn Fn(&CellSource) -> u64| members.iter().map(|m| f(m)).sum::<u64>();
        let sent = sum(&|m| m.stats.sent);
        let dropped = sum(&|m| view.flows[m.flow as usize].dropped);
        let at_ports = sum(&|m| view.flows[m.flow as usize].dropped_at_ports);
        let late = sum(&|m| m.late());
        let secs = view.now.as_secs_f64();
        let ratio = |n: u64| {
            if sent > 0 {
                n as f64 / sent as f64
            } else {
                f64::NAN
            }
        };
        put(s, key("sources"), members.len() as u64);
        put(s, key("cells_sent"), sent);
        put(s, key("cells_received"), sum(&|m| m.stats.received));
        put(s, key("cells_dropped"), dropped);
        put(s, key("cells_dropped_at_access"), at_ports);
        put(s, key("cells_dropped_in_queues"), dropped - at_ports);
        put(s, key("queue_loss_ratio"), num(ratio(dropped - at_ports)));
        put(s, key("access_loss_ratio"), num(ratio(at_ports)));
        put(s, key("late_cells"), late);
        put(s, key("late_fraction"), num(ratio(late)));
        let late_net = sum(&|m| m.late_in_network());
        put(s, key("late_in_network_cells"), late_net);
        put(s, key("late_in_network_fraction"), num(ratio(late_net)));
        // The time the access policer held each cell: end-to-end delay less
        // the network's share.
        let mut held = Tally::default();
        for m in &members {
            for (d, n) in m.stats.delays.iter().zip(&m.stats.network_delays) {
                held.add((d - n) as f64 * 1e-12);
            }
        }
        put(s, key("access_hold_mean_s"), num(held.mean()));
        let held_max = if held.n > 0 { held.max } else { f64::NAN };
        put(s, key("access_hold_max_s"), num(held_max));
        let all = members.iter().flat_map(|m| m.stats.delays.iter().copied());
        let (mut lo, mut hi, mut total, mut n) = (u64::MAX, 0u64, 0.0, 0u64);
        for d in all {
            lo = lo.min(d);
            hi = hi.max(d);
            total += d as f64;
            n += 1;
        }
        let ps = |v: f64| if n > 0 { v * 1e-12 } else { f64::NAN };
        put(s, key("delay_min_s"), num(ps(lo as f64)));
        put(s, key("delay_mean_s"), num(ps(total / n.max(1) as f64)));
        put(s, key("delay_max_s"), num(ps(hi as f64)));
        put(s, key("offered_bps"), num(sent as f64 * CELL_BITS / secs));
        let received_payload = sum(&|m| m.stats.received) as f64 * f64::from(CELL_PAYLOAD) * 8.0;
        put(s, key("received_payload_bps"), num(received_payload / secs));
        let notices =
            |f: &dyn Fn(&RatePolicy) -> u64| members.iter().map(|m| f(&m.policy)).sum::<u64>();
        put(s, key("rate_notices"), notices(&|p| p.stats.rate_notices));
        put(
            s,
            key("rate_notices_ignored"),
            notices(&|p| p.stats.rate_notices_ignored),
        );
        put(
            s,
            key("discard_notices"),
            notices(&|p| p.stats.discard_notices),
        );
        let mut files = Stats::default();
        let mut factor = Stats::default();
        for m in &members {
            files.merge(&m.stats.files);
            factor.merge(&m.stats.rate_factor);
        }
        put(s, key("files_completed"), files.tally.n);
        put(s, key("file_time_mean_s"), num(files.mean()));
        put(s, key("rate_factor_mean"), num(factor.mean()));
    }
}

/// Cells later than the smallest of `delays` by more than `bound`.
fn late_cells(delays: &[u64], bound: Duration) -> u64 {
    let Some(&min) = delays.iter().min() else {
        return 0;
    };
    let limit = min + bound.ps();
    delays.iter().filter(|&&d| d > limit).count() as u64
}

impl Builder<'_> {
    /// Whether the routed path from `src` to `dst` crosses `link`.
    fn route_crosses(&self, src: u32, dst: u32, link: u32) -> bool {
        let net = &self.w.net;
        let mut node = src;
        // A path visits each node once at most: a longer walk is a loop.
        for _ in 0..net.nodes.len() {
            match net.nodes[node as usize].next_hop(dst) {
                Next::Link(l) if l == link => return true,
                Next::Link(l) => node = net.links[l as usize].to,
                Next::Local | Next::Unroutable => return false,
            }
        }
        false
    }

    /// The groups of cell sources: `count` components each, in order; a
    /// contract puts each VC under the policers of `police_at`.
    pub(super) fn cell_sources(&mut self) -> Result<Vec<u32>, BuildError> {
        let mut ids = Vec::new();
        let links = Names::of(self.d.links.iter().map(|l| l.name.as_str()));
        for (g, d) in self.d.cell_sources.iter().enumerate() {
            let here = at("cell_sources", &d.name);
            let nodes = self.ends(&d.src_node, &d.dst_node, &here)?;
            let police = match &d.police_at {
                Some(name) => Some(links.find("link", name, &here)?),
                None => None,
            };
            if let Some(l) = police {
                if !self.route_crosses(nodes[0], nodes[1], l) {
                    return Err(BuildError::at(
                        &here,
                        format!(
                            "police_at link {:?} is not on the path of its cells: \
                         a contract there would police nothing",
                            self.d.links[l as usize].name
                        ),
                    ));
                }
            }
            for i in 0..d.count {
                let flow = self.w.new_flows(2);
                let mut rng = RngStream::new(self.d.seed, &format!("{here}[{i}]"));
                let process = match &d.traffic {
                    Traffic::Sessions(c) => {
                        Process::Sessions(SessionSource::new(c.clone(), Time::ZERO, &mut rng))
                    }
                    Traffic::Files(c) => {
                        Process::Files(FileTransfer::new(c.clone(), Time::ZERO, &mut rng))
                    }
                };
                let mut policy = RatePolicy::new(d.policy.clone());
                if process.active() {
                    policy.start(Time::ZERO);
                }
                if let (Some(l), Some(c)) = (police, &d.contract) {
                    let had_port = self.w.net.ports[l as usize].is_some();
                    ports::police(&mut self.w.net.ports[l as usize], flow, c);
                    if !had_port {
                        self.w.net.port_slots[l as usize] =
                            self.w.alloc_slot(super::registry::Owner::Port(l));
                    }
                }
                let mut src = CellSource {
                    group: g as u32,
                    index: i,
                    name: d.name.clone(),
                    priority: d.priority,
                    nodes,
                    flow,
                    agents: [AgentAddr::default(); 2],
                    process,
                    policy,
                    rng,
                    next_cell: Time::NEVER,
                    last_cell: None,
                    seq: 0,
                    stats: SourceStats::default(),
                    jitter_bound: d.jitter_bound,
                };
                src.reschedule(Time::ZERO);
                ids.push(self.w.add(Component::CellSource(Box::new(src))));
            }
        }
        Ok(ids)
    }
}
