//! The simulated world: the network fabric (nodes, links and the ports at
//! their inputs), the components that send and receive over it (traffic
//! sources, sinks, TCP connections, UDP exchanges, ATM VCs, flow arrivals),
//! the scheduler that drives them, and the forwarding of PDUs between them.
//!
//! Components are passive (`component`): they say when they next need the
//! clock, and handle a timer or an arriving PDU by pushing what they send
//! to an outbox. The world alone moves PDUs: from an outbox to a node's
//! routing or straight to an agent, through a link's port and queue, and on
//! arrival to the agent a PDU is addressed to. One file per kind of
//! component holds its description entry, how it is built, its handlers,
//! its summary keys and its probe metrics.
//!
//! The world runs by itself (`run`, `advance`) or is driven (`driver`): by
//! the real-time emulator or a test that injects PDUs, collects those that
//! leave, and moves time forward itself.

pub mod arrivals;
pub mod atm;
mod build;
pub mod cell_sources;
pub mod component;
pub mod driver;
pub mod dvb_rcs;
pub mod emulated;
pub mod flow_pool;
pub mod links;
pub mod netpipe;
pub mod ports;
pub mod probes;
mod report;
pub mod shaper;
pub mod sources;
pub mod tcp;
pub mod tfrc;
pub mod tfrc_arrivals;
pub mod udp_rr;

use crate::apps::FlowRecord;
use crate::engine::{Duration, Scheduler, Slot, Time};
use crate::net::iface::{Outbox, Via};
use crate::net::port::{Admit, Port, PortCx};
use crate::net::queue::Verdict;
use crate::net::{AgentAddr, Link, Next, Node, Pdu};
use component::{Component, Ctx, Series, Spawn, Vacant, View};
use ports::PortKind;
use probes::Probe;
use std::collections::VecDeque;

/// Who owns a scheduler slot.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Owner {
    Link(u32),
    /// The timer of the port at a link's input.
    Port(u32),
    /// Timer `k` of a component.
    Comp(u32, u8),
    Sampler,
    /// The NCC of DVB-RCS channel `i`.
    DvbRcs(u32),
    /// Released with its component; waiting for reuse.
    Free,
}

/// The most timers and agents one component has (a VC pair: two pacing
/// timers; three agents per VC: destination end, source end, host side).
pub const MAX_TIMERS: usize = 2;
pub const MAX_AGENTS: usize = 6;
/// Events between two reads of the clock in `World::advance_for`, at most.
const MAX_STRIDE: u128 = 64;

/// The slots and agents the world gave a component when it registered.
#[derive(Copy, Clone, Debug, Default)]
struct Registration {
    slots: [Slot; MAX_TIMERS],
    n_slots: u8,
    agents: [u32; MAX_AGENTS],
    n_agents: u8,
}

/// An agent: the component that receives what is addressed to it, which of
/// the component's agents it is, and the generation of its index.
#[derive(Copy, Clone, Debug)]
struct AgentEntry {
    comp: u32,
    port: u8,
    gen: u16,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum StopCondition {
    /// Sink component, packets.
    SinkReceived(u32, u64),
    /// TCP connection component.
    TcpCompleted(u32),
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

/// The network fabric: what PDUs cross between components.
pub struct Net {
    pub nodes: Vec<Node>,
    pub links: Vec<Link>,
    /// Per link: the port at its input, if any.
    pub ports: Vec<Option<PortKind>>,
    pub link_names: Vec<String>,
    pub node_names: Vec<String>,
    link_slots: Vec<Slot>,
    port_slots: Vec<Slot>,
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
    /// Driven by a caller (`driver`): an idle network waits for injections
    /// instead of ending the run.
    driven: bool,
    sched: Scheduler,
    owners: Vec<Owner>,
    free_slots: Vec<Slot>,
    pub net: Net,
    /// Every component, by id; released ones are `Vacant` until reused.
    pub comps: Vec<Component>,
    regs: Vec<Registration>,
    free_comps: Vec<u32>,
    agents: Vec<AgentEntry>,
    /// Released agent indices, reused oldest first so that a generation
    /// comes round again as late as possible.
    free_agents: VecDeque<u32>,
    /// One record per flow id: sources, connection directions, VCs, classes.
    pub flows: Vec<FlowRecord>,
    pub probes: Vec<Probe>,
    /// DVB-RCS return channels (NCC and terminals).
    pub dvb_rcs: Vec<dvb_rcs::DvbRcs>,
    sample_slot: Slot,
    pub sample_interval: Duration,
    next_sample: Time,
    /// PDUs with no route at a node they reached.
    pub unroutable: u64,
    /// PDUs addressed to an agent released while they were in flight.
    pub stale: u64,
    /// PDUs that entered the network (from a component or the driver), and
    /// PDUs that reached the agent they were addressed to: with the flows'
    /// drops and errors and what links hold, the run's conservation check.
    pub pdus_sent: u64,
    pub pdus_delivered: u64,
    /// What handlers send, as a stack: a call's PDUs sit above those of
    /// the calls it is nested in (a PDU a handler sent, delivered at once,
    /// may make another component send), and are gone when it returns.
    outbox: Outbox,
    link_out: Vec<Pdu>,
    port_release: Vec<Pdu>,
    /// PDUs a port discarded outside `ingress`'s answer, to book as drops.
    port_discarded: Vec<Pdu>,
    spawn: Vec<Spawn>,
}

impl World {
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

    /// Like `advance`, but also returns once `wall` of real time has passed,
    /// so a caller stays responsive to interrupts and wall-clock budgets
    /// however slow each event is. The clock is read about twenty times per
    /// `wall`, the stride between reads following the events' measured
    /// cost: cheap when events are fast, prompt when they are slow. At most
    /// 64 events, and at most twice the last stride: after many cheap
    /// events a run of slow ones went 4096 strong before the next read
    /// (13.9 s for a 0.1 s slice was measured); a read costs some 20 ns, a
    /// third of a percent of 64 cheap events. Stopping between events never
    /// changes the results.
    pub fn advance_for(&mut self, budget: u64, wall: std::time::Duration) -> bool {
        let start = std::time::Instant::now();
        let (mut done, mut next_look, mut stride) = (0u64, 1u64, 1u64);
        while self.stopped.is_none() && done < budget {
            self.step();
            done += 1;
            if done == next_look {
                let elapsed = start.elapsed();
                if elapsed >= wall {
                    break;
                }
                let per_event = elapsed.as_nanos() / u128::from(done) + 1;
                let fits = (wall.as_nanos() / 20 / per_event).clamp(1, MAX_STRIDE) as u64;
                stride = fits.min(stride * 2);
                next_look = done + stride;
            }
        }
        self.stopped.is_some()
    }

    /// Runs to completion.
    pub fn run(&mut self) {
        while !self.advance(u64::MAX) {}
    }

    fn stop(&mut self, why: StopReason) {
        self.stopped = Some(why);
        if why == StopReason::Duration {
            self.now = self.end;
            if self.next_sample == self.end && !self.probes.is_empty() {
                self.sample();
            }
        }
        for l in 0..self.net.links.len() {
            self.net.links[l].settle(self.now);
            self.book_link_errors(l);
        }
    }

    /// Books the PDUs link `l` lost to errors in their flows. Done when the
    /// link wakes (and at the end): errors found while a PDU was offered
    /// wait in the link until then (`Link::pending_errors` counts them).
    fn book_link_errors(&mut self, l: usize) {
        if self.net.links[l].has_errored() {
            let flows = &mut self.flows;
            self.net.links[l].take_errored(|f| flows[f as usize].errored += 1);
        }
    }

    /// Processes one event.
    fn step(&mut self) {
        let Some((t, slot)) = self.sched.pop() else {
            if !self.driven {
                self.stop(StopReason::Duration);
            }
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
            Owner::Link(l) => self.on_link(l as usize),
            Owner::Port(l) => self.on_port_timer(l as usize),
            Owner::Comp(c, k) => self.call(c, |comp, cx| comp.model_mut().on_timer(k as usize, cx)),
            Owner::Sampler => self.on_sample(),
            Owner::DvbRcs(i) => self.on_dvb_rcs(i as usize),
            Owner::Free => {}
        }
        if let Some(max) = self.max_events {
            if self.events >= max {
                self.stop(StopReason::MaxEvents);
            }
        }
        if let Some(cond) = self.stop_when {
            if self.condition_holds(cond) {
                self.stop(StopReason::StopWhen);
            }
        }
    }

    fn condition_holds(&self, cond: StopCondition) -> bool {
        match cond {
            StopCondition::SinkReceived(c, n) => match &self.comps[c as usize] {
                Component::Sink(s) => s.sink.received_packets >= n,
                _ => false,
            },
            StopCondition::TcpCompleted(c) => match &self.comps[c as usize] {
                Component::Tcp(t) => t.app.completed_at.is_some(),
                _ => false,
            },
        }
    }

    /// Everything due at link `l`. All arrivals are taken off the link,
    /// and its next wake-up set, before the first is forwarded. Usually
    /// one PDU arrives and stays a local; any others wait in `link_out`.
    fn on_link(&mut self, l: usize) {
        let link = &mut self.net.links[l];
        let first = link.poll_one(self.now);
        let to = link.to;
        if first.is_some() {
            while let Some(p) = link.pop_arrived(self.now) {
                self.link_out.push(p);
            }
        }
        self.sched.update(self.net.link_slots[l], link.poll_at());
        self.book_link_errors(l);
        if let Some(mut p) = first {
            self.forward(to, &mut p);
            if !self.link_out.is_empty() {
                self.forward_rest(to);
            }
        }
    }

    #[cold]
    fn forward_rest(&mut self, to: u32) {
        let mut rest = std::mem::take(&mut self.link_out);
        for mut p in rest.drain(..) {
            self.forward(to, &mut p);
        }
        self.link_out = rest;
    }

    fn on_dvb_rcs(&mut self, i: usize) {
        let d = &mut self.dvb_rcs[i];
        d.on_wake(self.now, &mut self.net);
        self.sched.update(d.slot, d.wakeup());
    }

    fn on_sample(&mut self) {
        self.sample();
        self.next_sample += self.sample_interval;
        self.sched.schedule(self.sample_slot, self.next_sample);
    }

    fn sample(&mut self) {
        let t = self.now.as_secs_f64();
        let dt = self.sample_interval.as_secs_f64();
        for k in 0..self.probes.len() {
            let v = probes::measure(self, k, dt);
            self.probes[k].series.push(t, v);
        }
    }

    /// Calls a component's handler, then updates its wake-ups, forwards
    /// what it sent (depth first, in the order sent), starts the components
    /// it spawned and releases it if it is done.
    fn call(&mut self, id: u32, handler: impl FnOnce(&mut Component, &mut Ctx<'_>)) {
        let mark = self.outbox.len();
        let mut cx = Ctx {
            now: self.now,
            out: &mut self.outbox,
            flows: &mut self.flows,
            spawn: &mut self.spawn,
            finished: false,
        };
        let comp = &mut self.comps[id as usize];
        handler(comp, &mut cx);
        let finished = cx.finished;
        let reg = &self.regs[id as usize];
        for k in 0..reg.n_slots as usize {
            self.sched
                .update(reg.slots[k], comp.model().wakeup(k, self.now));
        }
        self.send_from(mark);
        if !self.spawn.is_empty() {
            self.start_spawned(id);
        }
        if finished {
            self.release(id);
        }
    }

    /// Sends what the outbox holds above `mark`, in order, then drops it.
    fn send_from(&mut self, mark: usize) {
        let end = self.outbox.len();
        for i in mark..end {
            let (via, p) = self.outbox.get(i);
            self.send(via, p);
        }
        self.outbox.truncate(mark);
    }

    fn send(&mut self, via: Via, mut p: Pdu) {
        match via {
            Via::Node(node) => {
                self.pdus_sent += 1;
                self.forward(node, &mut p)
            }
            // The PDU keeps its own address (where it goes after the
            // attachment has carried it).
            Via::Agent(a) => {
                self.deliver_to(a, &p);
            }
        }
    }

    /// Hands a PDU that is at `node` to the next link or to its receiver,
    /// or to the device that takes its flow off the network here.
    fn forward(&mut self, node: u32, p: &mut Pdu) {
        if p.is_feedback() {
            self.pass_ports_backward(node, p);
        }
        if let Some(a) = self.net.nodes[node as usize].hand_off_for(p.flow) {
            // It leaves the network here, as if delivered, and keeps its
            // own address for the way on (an ATM edge device's VC).
            if self.deliver_to(a, p) {
                self.pdus_delivered += 1;
            }
            return;
        }
        match self.net.nodes[node as usize].next_hop(p.dst_node) {
            Next::Local => {
                // Delivered once it reaches its agent (not a stale one).
                if self.deliver_to(p.agent(), p) {
                    self.pdus_delivered += 1;
                }
            }
            Next::Link(l) => self.enqueue(l as usize, p),
            Next::Unroutable => {
                self.unroutable += 1;
                self.flows[p.flow as usize].dropped += 1;
            }
        }
    }

    /// Feedback travelling back to a source passes the port of the link
    /// that carries the source's traffic forward out of this node.
    fn pass_ports_backward(&mut self, node: u32, p: &mut Pdu) {
        if let Next::Link(l) = self.net.nodes[node as usize].next_hop(p.src_node) {
            if let Some(port) = self.net.ports[l as usize].as_mut() {
                port.backward(self.now, p);
            }
        }
    }

    fn enqueue(&mut self, l: usize, p: &mut Pdu) {
        if self.net.ports[l].is_some() {
            match self.port_ingress(l, p) {
                Admit::Pass => {}
                Admit::Drop => {
                    self.flows[p.flow as usize].dropped += 1;
                    self.flows[p.flow as usize].dropped_at_ports += 1;
                    return;
                }
                Admit::Hold => return,
            }
        }
        let link = &mut self.net.links[l];
        if link.enqueue(self.now, *p) != Verdict::Queued {
            self.flows[p.flow as usize].dropped += 1;
        }
        self.sched.update(self.net.link_slots[l], link.poll_at());
    }

    /// The port at link `l` sees `p` before its queue does.
    fn port_ingress(&mut self, l: usize, p: &mut Pdu) -> Admit {
        let mut admit = Admit::Pass;
        self.with_port(l, |port, cx| admit = port.ingress(cx, p));
        admit
    }

    fn on_port_timer(&mut self, l: usize) {
        self.with_port(l, |port, cx| port.poll(cx));
    }

    /// Runs a port's handler, updates its timer, then puts what it
    /// released into its link and sends what it sent.
    fn with_port(&mut self, l: usize, handler: impl FnOnce(&mut PortKind, &mut PortCx<'_>)) {
        let mark = self.outbox.len();
        let port = self.net.ports[l].as_mut().expect("a port");
        let mut cx = PortCx {
            now: self.now,
            link: &self.net.links[l],
            out: &mut self.outbox,
            release: &mut self.port_release,
            discarded: &mut self.port_discarded,
        };
        handler(port, &mut cx);
        self.sched.update(self.net.port_slots[l], port.poll_at());
        for p in self.port_discarded.drain(..) {
            self.flows[p.flow as usize].dropped += 1;
            self.flows[p.flow as usize].dropped_at_ports += 1;
        }
        // Released PDUs enter the link without passing the port again;
        // nothing here calls a handler, so the buffer is free afterwards.
        for p in self.port_release.drain(..) {
            let link = &mut self.net.links[l];
            if link.enqueue(self.now, p) != Verdict::Queued {
                self.flows[p.flow as usize].dropped += 1;
            }
            self.sched.update(self.net.link_slots[l], link.poll_at());
        }
        if self.outbox.len() > mark {
            self.send_from(mark);
        }
    }

    /// Hands `p` to agent `to`: the one it is addressed to, when it has
    /// reached its destination node. False when there is no such agent
    /// (any more): the PDU is dropped.
    fn deliver_to(&mut self, to: AgentAddr, p: &Pdu) -> bool {
        let Some(&a) = self.agents.get(to.index as usize) else {
            self.unroutable += 1;
            self.flows[p.flow as usize].dropped += 1;
            return false;
        };
        if a.gen != to.gen {
            // Its receiver was released while it was in flight.
            self.stale += 1;
            self.flows[p.flow as usize].dropped += 1;
            return false;
        }
        self.call(a.comp, |comp, cx| {
            comp.model_mut().on_pdu(a.port as usize, p, cx)
        });
        true
    }

    /// PDUs of each flow still inside the network (queued, in
    /// transmission, propagating, or held by a port): needed to tell loss
    /// from data still in flight.
    pub fn in_flight_per_flow(&self) -> Vec<u64> {
        let mut n = vec![0u64; self.flows.len()];
        for l in &self.net.links {
            l.for_each_held(|p| n[p.flow as usize] += 1);
        }
        for port in self.net.ports.iter().flatten() {
            port.for_each_held(&mut |p| n[p.flow as usize] += 1);
        }
        n
    }

    // ----- registration: components built before and during the run -----

    fn alloc_slot(&mut self, owner: Owner) -> Slot {
        match self.free_slots.pop() {
            Some(s) => {
                self.owners[s as usize] = owner;
                s
            }
            None => {
                self.owners.push(owner);
                self.sched.add_slot()
            }
        }
    }

    fn alloc_agent(&mut self, comp: u32, port: u8) -> AgentAddr {
        match self.free_agents.pop_front() {
            Some(i) => {
                let e = &mut self.agents[i as usize];
                e.comp = comp;
                e.port = port;
                AgentAddr {
                    index: i,
                    gen: e.gen,
                }
            }
            None => {
                self.agents.push(AgentEntry { comp, port, gen: 0 });
                AgentAddr::fixed(self.agents.len() as u32 - 1)
            }
        }
    }

    /// Registers a component: its id, agents and timer slots; returns the
    /// id. Nothing is scheduled yet (`start`).
    pub(crate) fn add(&mut self, mut comp: Component) -> u32 {
        let id = match self.free_comps.pop() {
            Some(id) => id,
            None => {
                self.comps.push(Component::Vacant(Vacant));
                self.regs.push(Registration::default());
                self.comps.len() as u32 - 1
            }
        };
        let (n_agents, n_timers) = (comp.model().agents(), comp.model().timers());
        assert!(n_agents <= MAX_AGENTS && n_timers <= MAX_TIMERS);
        let mut reg = Registration {
            n_slots: n_timers as u8,
            n_agents: n_agents as u8,
            ..Registration::default()
        };
        let mut addrs = [AgentAddr::default(); MAX_AGENTS];
        for (i, addr) in addrs.iter_mut().enumerate().take(n_agents) {
            *addr = self.alloc_agent(id, i as u8);
            reg.agents[i] = addr.index;
        }
        for k in 0..n_timers {
            reg.slots[k] = self.alloc_slot(Owner::Comp(id, k as u8));
        }
        comp.model_mut().attach(&addrs[..n_agents]);
        self.comps[id as usize] = comp;
        self.regs[id as usize] = reg;
        id
    }

    /// The agents of a registered component, in its own order.
    pub fn agents_of(&self, id: u32) -> Vec<AgentAddr> {
        let reg = &self.regs[id as usize];
        reg.agents[..reg.n_agents as usize]
            .iter()
            .map(|&i| AgentAddr {
                index: i,
                gen: self.agents[i as usize].gen,
            })
            .collect()
    }

    /// Schedules a registered component's first wake-ups.
    fn start(&mut self, id: u32) {
        let reg = self.regs[id as usize];
        for k in 0..reg.n_slots as usize {
            let t = self.comps[id as usize].model().wakeup(k, self.now);
            self.sched.schedule(reg.slots[k], t);
        }
    }

    /// Components created by `parent` during the call that just ended.
    fn start_spawned(&mut self, parent: u32) {
        let spawned = std::mem::take(&mut self.spawn);
        for s in spawned {
            let comp = self.comps[parent as usize].spawned(parent, self.now, s);
            let id = self.add(comp);
            self.start(id);
        }
    }

    /// Frees a component whose work is done: its timers are cancelled, its
    /// agents' generations move on (PDUs still in flight to them are
    /// discarded on arrival), and its parent (a class of flows) takes what
    /// it needs of it for its summary.
    fn release(&mut self, id: u32) {
        let comp = std::mem::replace(&mut self.comps[id as usize], Component::Vacant(Vacant));
        let reg = std::mem::take(&mut self.regs[id as usize]);
        for &s in &reg.slots[..reg.n_slots as usize] {
            self.sched.cancel(s);
            self.owners[s as usize] = Owner::Free;
            self.free_slots.push(s);
        }
        for &a in &reg.agents[..reg.n_agents as usize] {
            let e = &mut self.agents[a as usize];
            e.gen = e.gen.wrapping_add(1);
            self.free_agents.push_back(a);
        }
        self.free_comps.push(id);
        if let Some(parent) = comp.model().parent() {
            self.comps[parent as usize].on_child_released(comp, self.now);
        }
    }

    /// Series the components have only at the end of the run (a class's
    /// start-up profile), after the probes': (name, x, values).
    pub fn end_series(&self) -> Vec<Series> {
        let in_flight = self.in_flight_per_flow();
        let view = View {
            now: self.now,
            comps: &self.comps,
            flows: &self.flows,
            in_flight: &in_flight,
        };
        self.comps
            .iter()
            .flat_map(|c| c.model().end_series(&view))
            .collect()
    }

    /// Components currently registered (not released), and the most there
    /// ever were at once (the arena's size).
    pub fn live_components(&self) -> (usize, usize) {
        (self.comps.len() - self.free_comps.len(), self.comps.len())
    }

    /// Agents and scheduler slots allocated so far (reused after release).
    pub fn allocated(&self) -> (usize, usize) {
        (self.agents.len(), self.owners.len())
    }
}
