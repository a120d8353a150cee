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
pub(crate) mod atm;
mod build;
pub mod cell_sources;
mod check;
pub(crate) mod component;
pub(crate) mod driver;
pub mod dvb_rcs;
pub mod emulated;
mod fabric;
pub(crate) mod flow_pool;
pub mod links;
pub(crate) mod netpipe;
pub(crate) mod ports;
pub mod probes;
mod registry;
mod report;
mod run;
pub mod shaper;
pub(crate) mod sources;
pub mod tcp;
pub(crate) mod tfrc;
pub mod tfrc_arrivals;
pub mod traces;
pub(crate) mod udp_rr;

use crate::apps::FlowRecord;
use crate::engine::{Duration, Scheduler, Slot, Time};
use crate::net::iface::{Outbox, Via};
use crate::net::port::{Admit, Port, PortCx};
use crate::net::{AgentAddr, Next, Pdu};
use component::{Component, Ctx, Series, Spawn, View};
pub use fabric::Net;
use ports::PortKind;
use probes::Probe;
use registry::{Owner, Registry, Unreached};
pub use registry::{MAX_AGENTS, MAX_TIMERS};
pub use run::{StopCondition, StopReason};

/// How the run's PDUs fared, world-wide: with the flows' drops and errors
/// and what links hold, the run's conservation check (`report`).
#[derive(Clone, Debug, Default)]
pub(crate) struct Counts {
    /// PDUs that entered the network (from a component or the driver).
    pub(crate) pdus_sent: u64,
    /// PDUs that reached the agent they were addressed to.
    pub(crate) pdus_delivered: u64,
    /// PDUs with no route at a node they reached.
    pub(crate) unroutable: u64,
    /// PDUs addressed to an agent released while they were in flight.
    pub(crate) stale: u64,
}

/// When the probes are next read.
struct Sampler {
    slot: Slot,
    interval: Duration,
    next: Time,
}

/// Buffers the forwarding reuses from event to event.
#[derive(Default)]
struct Scratch {
    /// What handlers send, as a stack: a call's PDUs sit above those of
    /// the calls it is nested in (a PDU a handler sent, delivered at once,
    /// may make another component send), and are gone when it returns.
    outbox: Outbox,
    /// A link's arrivals after the first of an event.
    link_out: Vec<Pdu>,
    /// PDUs a port released into its link.
    port_release: Vec<Pdu>,
    /// PDUs a port discarded outside `ingress`'s answer, to book as drops.
    port_discarded: Vec<Pdu>,
    spawn: Vec<Spawn>,
}

/// The world: its clock and run limits (the run loop is in `run`), the
/// fabric, the registry of components, the flows' records and the probes.
pub struct World {
    /// The scenario's name (`run.name`).
    pub name: String,
    /// The run seed every random stream is drawn from.
    pub seed: u64,
    /// The simulated time the run has reached: that of the last event, or
    /// `end` once the run stopped for its duration.
    pub now: Time,
    /// When the run stops for its duration (`run.duration`): no event at or
    /// after it is processed.
    pub end: Time,
    /// Events processed so far (`run.events` in the summary).
    pub events: u64,
    pub(crate) max_events: Option<u64>,
    /// The condition that stops the run early (`run.stop_when`), if any.
    pub stop_when: Option<StopCondition>,
    pub(crate) stopped: Option<StopReason>,
    /// Driven by a caller (`driver`): an idle network waits for injections
    /// instead of ending the run.
    driven: bool,
    sched: Scheduler,
    /// The network fabric: nodes, links and the ports at the links' inputs.
    pub net: Net,
    pub(crate) reg: Registry,
    /// One record per flow id: sources, connection directions, VCs, classes.
    pub(crate) flows: Vec<FlowRecord>,
    /// The probes and the series they have sampled so far.
    pub probes: Vec<Probe>,
    /// The traces (`traces`): what each records and where it is kept.
    pub(crate) traces: Vec<traces::Trace>,
    sampler: Sampler,
    pub(crate) counts: Counts,
    scratch: Scratch,
}

impl World {
    /// Books the PDUs link `l` lost to errors, or its queue dropped at
    /// dequeue, in their flows. Done when the
    /// link wakes (and at the end): errors found while a PDU was offered
    /// wait in the link until then (`Link::pending_errors` counts them).
    #[inline]
    fn book_link_errors(&mut self, l: usize) {
        let link = &self.net.links[l];
        if link.has_errored() || link.has_dropped() {
            self.book_link_losses(l);
        }
    }

    #[cold]
    fn book_link_losses(&mut self, l: usize) {
        let flows = &mut self.flows;
        self.net.links[l].take_errored(|f| flows[f as usize].errored += 1);
        self.net.links[l].take_dropped(|f| flows[f as usize].dropped += 1);
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
                self.scratch.link_out.push(p);
            }
        }
        self.sched.update(self.net.link_slots[l], link.poll_at());
        self.book_link_errors(l);
        if let Some(p) = first {
            self.forward(to, p);
            if !self.scratch.link_out.is_empty() {
                self.forward_rest(to);
            }
        }
    }

    #[cold]
    fn forward_rest(&mut self, to: u32) {
        let mut rest = std::mem::take(&mut self.scratch.link_out);
        for p in rest.drain(..) {
            self.forward(to, p);
        }
        self.scratch.link_out = rest;
    }

    /// Calls a component's handler, then updates its wake-ups, forwards
    /// what it sent (depth first, in the order sent), starts the components
    /// it spawned and releases it if it is done.
    fn call(&mut self, id: u32, handler: impl FnOnce(&mut Component, &mut Ctx<'_>)) {
        let mark = self.scratch.outbox.len();
        let mut cx = Ctx {
            now: self.now,
            out: &mut self.scratch.outbox,
            flows: &mut self.flows,
            spawn: &mut self.scratch.spawn,
            net: &mut self.net,
            finished: false,
        };
        handler(&mut self.reg.comps[id as usize], &mut cx);
        let finished = cx.finished;
        let model = self.reg.comps[id as usize].model();
        for (k, &slot) in self.reg.slots(id).iter().enumerate() {
            self.sched.update(slot, model.wakeup(k, self.now));
        }
        self.send_from(mark);
        if !self.scratch.spawn.is_empty() {
            self.start_spawned(id);
        }
        if finished {
            self.release(id);
        }
    }

    /// Sends what the outbox holds above `mark`, in order, then drops it.
    fn send_from(&mut self, mark: usize) {
        let end = self.scratch.outbox.len();
        for i in mark..end {
            let (via, p) = self.scratch.outbox.take(i);
            self.send(via, p);
        }
        self.scratch.outbox.truncate(mark);
    }

    fn send(&mut self, via: Via, p: Pdu) {
        match via {
            Via::Node(node) => {
                self.counts.pdus_sent += 1;
                self.forward(node, p)
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
    fn forward(&mut self, node: u32, mut p: Pdu) {
        if p.is_feedback() {
            self.pass_ports_backward(node, &mut p);
        }
        if let Some(a) = self.net.nodes[node as usize].hand_off_for(p.flow) {
            // It leaves the network here, as if delivered, and keeps its
            // own address for the way on (an ATM edge device's VC).
            if self.deliver_to(a, &p) {
                self.counts.pdus_delivered += 1;
            }
            return;
        }
        match self.net.nodes[node as usize].next_hop(p.dst_node) {
            Next::Local => {
                // Delivered once it reaches its agent (not a stale one).
                if self.deliver_to(p.agent(), &p) {
                    self.counts.pdus_delivered += 1;
                }
            }
            Next::Link(l) => self.enqueue(l as usize, p),
            Next::Unroutable => {
                self.counts.unroutable += 1;
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

    fn enqueue(&mut self, l: usize, mut p: Pdu) {
        if self.net.ports[l].is_some() {
            match self.port_ingress(l, &mut p) {
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
        let flow = p.flow as usize;
        if !link.enqueue(self.now, p).admitted() {
            self.flows[flow].dropped += 1;
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
        let mark = self.scratch.outbox.len();
        let port = self.net.ports[l].as_mut().expect("a port");
        let mut cx = PortCx {
            now: self.now,
            link: &self.net.links[l],
            out: &mut self.scratch.outbox,
            release: &mut self.scratch.port_release,
            discarded: &mut self.scratch.port_discarded,
        };
        handler(port, &mut cx);
        self.sched.update(self.net.port_slots[l], port.poll_at());
        // Both buffers are mostly empty, and draining a vector of PDUs
        // (which have drop glue) costs even then: test first.
        if !self.scratch.port_discarded.is_empty() {
            for p in self.scratch.port_discarded.drain(..) {
                self.flows[p.flow as usize].dropped += 1;
                self.flows[p.flow as usize].dropped_at_ports += 1;
            }
        }
        if !self.scratch.port_release.is_empty() {
            self.enqueue_released(l);
        }
        if self.scratch.outbox.len() > mark {
            self.send_from(mark);
        }
    }

    /// What a port released enters its link without passing the port
    /// again; nothing here calls a handler, so the buffer is free afterwards.
    fn enqueue_released(&mut self, l: usize) {
        for p in self.scratch.port_release.drain(..) {
            let link = &mut self.net.links[l];
            let flow = p.flow as usize;
            if !link.enqueue(self.now, p).admitted() {
                self.flows[flow].dropped += 1;
            }
            self.sched.update(self.net.link_slots[l], link.poll_at());
        }
    }

    /// Hands `p` to agent `to`: the one it is addressed to, when it has
    /// reached its destination node. False when there is no such agent
    /// (any more): the PDU is dropped.
    fn deliver_to(&mut self, to: AgentAddr, p: &Pdu) -> bool {
        match self.reg.receiver(to) {
            Ok((comp, agent)) => {
                self.call(comp, |c, cx| c.model_mut().on_pdu(agent, p, cx));
                true
            }
            Err(why) => {
                match why {
                    Unreached::Unknown => self.counts.unroutable += 1,
                    Unreached::Stale => self.counts.stale += 1,
                }
                self.flows[p.flow as usize].dropped += 1;
                false
            }
        }
    }

    /// PDUs of each flow still inside the network (queued, in
    /// transmission, propagating, or held by a port): needed to tell loss
    /// from data still in flight.
    pub(crate) fn in_flight_per_flow(&self) -> Vec<u64> {
        let mut n = vec![0u64; self.flows.len()];
        for l in &self.net.links {
            l.for_each_held(|p| n[p.flow as usize] += 1);
        }
        for port in self.net.ports.iter().flatten() {
            port.for_each_held(&mut |p| n[p.flow as usize] += 1);
        }
        n
    }

    /// What a component may read of the world (summaries, probes), with
    /// each flow's PDUs `in_flight` (empty where none is needed).
    fn view<'a>(&'a self, in_flight: &'a [u64]) -> View<'a> {
        View {
            now: self.now,
            net: &self.net,
            comps: &self.reg.comps,
            flows: &self.flows,
            in_flight,
        }
    }

    /// Series the components have only at the end of the run (a class's
    /// start-up profile), after the probes': (name, x, values).
    pub fn end_series(&self) -> Vec<Series> {
        let in_flight = self.in_flight_per_flow();
        let view = self.view(&in_flight);
        self.reg
            .comps
            .iter()
            .flat_map(|c| c.model().end_series(&view))
            .collect()
    }

    // ----- registration: components built before and during the run -----

    fn alloc_slot(&mut self, owner: Owner) -> Slot {
        self.reg.alloc_slot(owner, &mut self.sched)
    }

    /// Registers a component; nothing is scheduled yet (`start`).
    pub(crate) fn add(&mut self, comp: Component) -> u32 {
        self.reg.add(comp, &mut self.sched)
    }

    /// The agents of a registered component, in its own order.
    pub(crate) fn agents_of(&self, id: u32) -> Vec<AgentAddr> {
        self.reg.agents_of(id)
    }

    /// Schedules a registered component's first wake-ups.
    fn start(&mut self, id: u32) {
        let model = self.reg.comps[id as usize].model();
        for (k, &slot) in self.reg.slots(id).iter().enumerate() {
            self.sched.schedule(slot, model.wakeup(k, self.now));
        }
    }

    /// Components created by `parent` during the call that just ended.
    fn start_spawned(&mut self, parent: u32) {
        let spawned = std::mem::take(&mut self.scratch.spawn);
        for s in spawned {
            let comp = self.reg.comps[parent as usize].spawned(parent, self.now, s);
            let id = self.add(comp);
            self.start(id);
        }
    }

    /// Frees a component whose work is done (`Registry::release`); its
    /// parent (a class of flows) takes what it needs of it for its summary.
    fn release(&mut self, id: u32) {
        let comp = self.reg.release(id, &mut self.sched);
        if let Some(parent) = comp.model().parent() {
            self.reg.comps[parent as usize].on_child_released(comp, self.now);
        }
    }

    /// Components currently registered (not released), and the most there
    /// ever were at once.
    pub fn live_components(&self) -> (usize, usize) {
        self.reg.live_components()
    }

    /// Agents and scheduler slots allocated so far (reused after release).
    pub fn allocated(&self) -> (usize, usize) {
        self.reg.allocated()
    }
}
