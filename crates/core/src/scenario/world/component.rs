//! Components: the models that send and receive over the network fabric,
//! one enum arm per kind. This file is the single dispatch point: the world
//! calls a component only through the methods below, which pass the call
//! to the kind's own file.
//!
//! A component owns scheduler slots (`timers`) and agents (`agents`: the
//! addresses PDUs are delivered to). It is passive: it says when each timer
//! is next due (`wakeup`), and handles a timer or a PDU by pushing what it
//! sends to the outbox of its `Ctx`; it never sees the world.

use super::arrivals::FlowArrivals;
use super::atm::VcPair;
use super::cell_sources::CellSource;
use super::driver::Exit;
use super::emulated::EmulatedHost;
use super::probes::ProbeMemory;
use super::shaper::ShaperComp;
use super::sources::{SinkComp, SourceComp};
use super::tcp::TcpConn;
use super::tfrc::TfrcFlow;
use super::tfrc_arrivals::TfrcArrivals;
use super::udp_rr::UdpRrConn;
use crate::apps::FlowRecord;
use crate::engine::Time;
use crate::net::iface::Outbox;
use crate::net::{AgentAddr, Pdu};
use crate::scenario::summary::Summary;

/// What a handler may act on.
pub struct Ctx<'a> {
    pub now: Time,
    /// What the component sends; the world forwards it after the call.
    pub out: &'a mut Outbox,
    /// Per-flow records, by flow id (a sink books deliveries in them; a
    /// class of arrivals adds records for its flows).
    pub flows: &'a mut Vec<FlowRecord>,
    /// Components to create now (a flow arriving during the run).
    pub spawn: &'a mut Vec<Spawn>,
    /// Set when the component's work is done: the world releases it.
    pub finished: bool,
}

/// A component to create during the run, as plain data; the world builds
/// it (`build::spawned`) and makes its parent the one that asked.
#[derive(Clone, Debug)]
pub enum Spawn {
    /// A TCP flow of a class of flow arrivals: its size in bytes and its
    /// own pair of flow ids (`flow_pool`).
    TcpFlow { bytes: u64, flow: u32 },
    /// A media flow of a class of media arrivals: its hosts (indices into
    /// the class's), how long its encoder runs and its own flow ids.
    TfrcFlow {
        src: u32,
        dst: u32,
        duration: crate::engine::Duration,
        flow: u32,
    },
}

/// Read-only access for summaries and probes: a component may report on
/// the components it works with (a connection on the VCs under it).
pub struct View<'a> {
    pub now: Time,
    pub comps: &'a [Component],
    pub flows: &'a [FlowRecord],
    /// PDUs of each flow still in the network (end-of-run summaries only).
    pub in_flight: &'a [u64],
}

pub enum Component {
    /// A released component's place, waiting for reuse.
    Vacant,
    Source(Box<SourceComp>),
    Sink(Box<SinkComp>),
    Tcp(Box<TcpConn>),
    Tfrc(Box<TfrcFlow>),
    UdpRr(Box<UdpRrConn>),
    Vcs(Box<VcPair>),
    Shaper(Box<ShaperComp>),
    Arrivals(Box<FlowArrivals>),
    TfrcArrivals(Box<TfrcArrivals>),
    CellSource(Box<CellSource>),
    Exit(Box<Exit>),
    Emulated(Box<EmulatedHost>),
}

impl Component {
    pub fn agents(&self) -> usize {
        match self {
            Component::Vacant
            | Component::Source(_)
            | Component::Arrivals(_)
            | Component::TfrcArrivals(_) => 0,
            Component::Sink(_) | Component::Exit(_) | Component::Emulated(_) => 1,
            Component::Tcp(_)
            | Component::UdpRr(_)
            | Component::Tfrc(_)
            | Component::CellSource(_) => 2,
            Component::Vcs(_) => VcPair::AGENTS,
            Component::Shaper(_) => ShaperComp::AGENTS,
        }
    }

    pub fn timers(&self) -> usize {
        match self {
            Component::Vacant
            | Component::Sink(_)
            | Component::Exit(_)
            | Component::Emulated(_) => 0,
            Component::Source(_)
            | Component::UdpRr(_)
            | Component::Arrivals(_)
            | Component::TfrcArrivals(_)
            | Component::Shaper(_) => 1,
            Component::Tcp(_)
            | Component::Vcs(_)
            | Component::Tfrc(_)
            | Component::CellSource(_) => 2,
        }
    }

    /// Told the addresses of its agents, once registered.
    pub fn attach(&mut self, agents: &[AgentAddr]) {
        match self {
            Component::Tcp(c) => c.attach(agents),
            Component::UdpRr(c) => c.attach(agents),
            Component::Tfrc(c) => c.attach(agents),
            Component::CellSource(c) => c.attach(agents),
            Component::Vcs(c) => c.attach(agents),
            Component::Emulated(c) => c.attach(agents),
            _ => {}
        }
    }

    /// When timer `k` is next due (`Time::NEVER`: not armed).
    pub fn wakeup(&self, k: usize, now: Time) -> Time {
        match self {
            Component::Source(c) => c.wakeup(),
            Component::Tcp(c) => c.wakeup(k),
            Component::Tfrc(c) => c.wakeup(k, now),
            Component::CellSource(c) => c.wakeup(k),
            Component::UdpRr(c) => c.wakeup(now),
            Component::Vcs(c) => c.wakeup(k, now),
            Component::Arrivals(c) => c.wakeup(),
            Component::TfrcArrivals(c) => c.wakeup(),
            Component::Shaper(c) => c.wakeup(),
            Component::Vacant
            | Component::Sink(_)
            | Component::Exit(_)
            | Component::Emulated(_) => Time::NEVER,
        }
    }

    pub fn on_timer(&mut self, k: usize, cx: &mut Ctx<'_>) {
        match self {
            Component::Source(c) => c.on_timer(cx),
            Component::Tcp(c) => c.on_timer(k, cx),
            Component::Tfrc(c) => c.on_timer(k, cx),
            Component::CellSource(c) => c.on_timer(k, cx),
            Component::UdpRr(c) => c.on_timer(cx),
            Component::Vcs(c) => c.on_timer(k, cx),
            Component::Arrivals(c) => c.on_timer(cx),
            Component::TfrcArrivals(c) => c.on_timer(cx),
            Component::Shaper(c) => c.on_timer(cx),
            Component::Vacant
            | Component::Sink(_)
            | Component::Exit(_)
            | Component::Emulated(_) => {}
        }
    }

    /// A PDU addressed to the component's agent `agent`.
    pub fn on_pdu(&mut self, agent: usize, p: &Pdu, cx: &mut Ctx<'_>) {
        match self {
            Component::Sink(c) => c.on_pdu(p, cx),
            Component::Tcp(c) => c.on_pdu(agent, p, cx),
            Component::Tfrc(c) => c.on_pdu(agent, p, cx),
            Component::CellSource(c) => c.on_pdu(agent, p, cx),
            Component::UdpRr(c) => c.on_pdu(agent, p, cx),
            Component::Vcs(c) => c.on_pdu(agent, p, cx),
            Component::Exit(c) => c.on_pdu(p, cx),
            Component::Emulated(c) => c.on_pdu(p, cx),
            Component::Shaper(c) => c.on_pdu(p, cx),
            Component::Vacant
            | Component::Source(_)
            | Component::Arrivals(_)
            | Component::TfrcArrivals(_) => {}
        }
    }

    /// Its keys in the run summary.
    pub fn summarise(&self, s: &mut Summary, view: &View<'_>) {
        match self {
            Component::Source(c) => c.summarise(s, view),
            Component::Sink(c) => c.summarise(s, view),
            Component::Tcp(c) => c.summarise(s, view),
            Component::Tfrc(c) => c.summarise(s, view.now),
            Component::CellSource(c) => c.summarise(s, view),
            Component::UdpRr(c) => c.summarise(s, view),
            Component::Vcs(c) => c.summarise(s, view),
            Component::Arrivals(c) => c.summarise(s, view),
            Component::TfrcArrivals(c) => c.summarise(s, view),
            Component::Shaper(c) => c.summarise(s, view.now),
            Component::Emulated(c) => c.summarise(s, view),
            Component::Vacant | Component::Exit(_) => {}
        }
    }

    /// The value of probe metric `metric` (an index into the kind's metric
    /// list) now; `dt` is the sampling interval.
    pub fn sample(&self, metric: usize, mem: &mut ProbeMemory, dt: f64, view: &View<'_>) -> f64 {
        match self {
            Component::Source(c) => c.sample(metric, mem, dt),
            Component::Sink(c) => c.sample(metric, mem, dt),
            Component::Tcp(c) => c.sample(metric, mem, dt, view),
            Component::Tfrc(c) => c.sample(metric, mem, dt),
            Component::Emulated(c) => c.sample(metric, mem, dt, view),
            _ => f64::NAN,
        }
    }

    /// Series it has only at the end of the run (a class's start-up
    /// profile): (name, x, values).
    pub fn end_series(&self, view: &View<'_>) -> Vec<(String, Vec<f64>, Vec<f64>)> {
        match self {
            Component::TfrcArrivals(c) => c.series(view),
            Component::Tfrc(c) => c.series(),
            _ => Vec::new(),
        }
    }

    /// The component that `Spawn` request `s` of this one (id `me`) asks
    /// for, starting at `now`.
    pub fn spawned(&self, me: u32, now: Time, s: Spawn) -> Component {
        match (self, s) {
            (Component::Arrivals(a), Spawn::TcpFlow { bytes, flow }) => {
                Component::Tcp(Box::new(a.flow(me, now, bytes, flow)))
            }
            (
                Component::TfrcArrivals(a),
                Spawn::TfrcFlow {
                    src,
                    dst,
                    duration,
                    flow,
                },
            ) => Component::Tfrc(Box::new(a.flow_between(
                me,
                now,
                [src, dst],
                duration,
                flow,
            ))),
            _ => unreachable!("only a class of flow arrivals spawns components"),
        }
    }

    /// PDUs the component took and can account for neither as passed on,
    /// lost, nor held: zero, unless a model loses data without counting it.
    /// Only attachments that carry other components' PDUs (VCs) take any.
    pub fn unaccounted(&self) -> i64 {
        match self {
            Component::Vcs(c) => c.packets_unaccounted(),
            Component::Shaper(c) => c.packets_unaccounted(),
            _ => 0,
        }
    }

    /// The class of flows a component created during the run belongs to.
    pub fn parent(&self) -> Option<u32> {
        match self {
            Component::Tcp(c) => c.class,
            Component::Tfrc(c) => c.class,
            _ => None,
        }
    }

    /// A component of this one's class of flows ended.
    pub fn on_child_released(&mut self, child: Component, now: Time) {
        match (self, child) {
            (Component::Arrivals(a), Component::Tcp(t)) => a.on_flow_ended(&t, now),
            (Component::TfrcArrivals(a), Component::Tfrc(f)) => a.on_flow_ended(&f),
            _ => {}
        }
    }
}
