//! Components: the models that send and receive over the network fabric.
//! Each kind implements `Model` in its own file; this file holds the trait
//! and the single dispatch point (`Component::model`), as smoltcp's
//! `AnyController` does for its congestion controllers.
//!
//! A component owns scheduler slots (`timers`) and agents (`agents`: the
//! addresses PDUs are delivered to). It is passive: it says when each timer
//! is next due (`wakeup`), and handles a timer or a PDU by pushing what it
//! sends to the outbox of its `Ctx`; it never sees the world (only the
//! fabric's own controllers, a DVB-RCS NCC, act on the fabric).

use super::arrivals::FlowArrivals;
use super::atm::VcPair;
use super::cell_sources::CellSource;
use super::driver::Exit;
use super::dvb_rcs::DvbRcs;
use super::emulated::EmulatedHost;
use super::probes::ProbeMemory;
use super::shaper::ShaperComp;
use super::sources::{SinkComp, SourceComp};
use super::tcp::TcpConn;
use super::tfrc::TfrcFlow;
use super::tfrc_arrivals::TfrcArrivals;
use super::udp_rr::UdpRrConn;
use super::Net;
use crate::apps::FlowRecord;
use crate::engine::Time;
use crate::net::iface::Outbox;
use crate::net::{AgentAddr, Pdu};
use crate::scenario::summary::Summary;

/// What a handler may act on.
pub(crate) struct Ctx<'a> {
    pub now: Time,
    /// What the component sends; the world forwards it after the call.
    pub(crate) out: &'a mut Outbox,
    /// Per-flow records, by flow id (a sink books deliveries in them; a
    /// class of arrivals adds records for its flows).
    pub(crate) flows: &'a mut Vec<FlowRecord>,
    /// Components to create now (a flow arriving during the run).
    pub(crate) spawn: &'a mut Vec<Spawn>,
    /// The network fabric, for the models that are part of it: a DVB-RCS
    /// channel's NCC reads its terminals' uplinks and assigns their slots.
    /// A traffic model only sends.
    pub net: &'a mut Net,
    /// Set when the component's work is done: the world releases it.
    pub(crate) finished: bool,
}

/// A component to create during the run, as plain data; the world builds
/// it (`build::spawned`) and makes its parent the one that asked.
#[derive(Clone, Debug)]
pub(crate) enum Spawn {
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
pub(crate) struct View<'a> {
    pub now: Time,
    pub net: &'a Net,
    pub(crate) comps: &'a [Component],
    pub(crate) flows: &'a [FlowRecord],
    /// PDUs of each flow still in the network (end-of-run summaries only).
    pub(crate) in_flight: &'a [u64],
}

/// Series a model has only at the end of the run: (name, x, values).
pub(crate) type Series = (String, Vec<f64>, Vec<f64>);

/// What every kind of component is to the world. A kind implements it in
/// its own file; the required methods are the ones whose absence would be a
/// silent bug (a timer never fired, a PDU dropped on the floor, a kind
/// missing from the summary), so a new kind that forgets one does not
/// compile. The provided ones are right for every kind that has nothing of
/// the sort.
pub(crate) trait Model {
    /// Agents: the addresses PDUs are delivered to (`on_pdu`'s `agent`).
    fn agents(&self) -> usize;
    /// Scheduler slots (`wakeup`'s and `on_timer`'s `k`).
    fn timers(&self) -> usize;
    /// Told the addresses of its agents, once registered.
    fn attach(&mut self, agents: &[AgentAddr]) {
        let _ = agents;
    }
    /// When timer `k` is next due (`Time::NEVER`: not armed).
    fn wakeup(&self, k: usize, now: Time) -> Time;
    fn on_timer(&mut self, k: usize, cx: &mut Ctx<'_>);
    /// A PDU addressed to its agent `agent`.
    fn on_pdu(&mut self, agent: usize, p: &Pdu, cx: &mut Ctx<'_>);
    /// Its keys in the run summary.
    fn summarise(&self, s: &mut Summary, view: &View<'_>);
    /// The value of probe metric `metric` (an index into the kind's metric
    /// list, `scenario::probes`) now; `dt` is the sampling interval. Only
    /// kinds with metrics are ever asked: validation refuses a probe on
    /// any other.
    fn sample(&self, metric: usize, mem: &mut ProbeMemory, dt: f64, view: &View<'_>) -> f64 {
        let _ = (metric, mem, dt, view);
        f64::NAN
    }
    /// Series it has only at the end of the run (a class's start-up
    /// profile).
    fn end_series(&self, view: &View<'_>) -> Vec<Series> {
        let _ = view;
        Vec::new()
    }
    /// PDUs it took and can account for neither as passed on, lost, nor
    /// held: zero, unless a model loses data without counting it. Only
    /// kinds that carry other components' PDUs (VCs, shapers) take any.
    fn unaccounted(&self) -> i64 {
        0
    }
    /// The class of flows it was created for during the run, if any.
    fn parent(&self) -> Option<u32> {
        None
    }
}

/// A released component's place, waiting for reuse: nothing is addressed
/// to it and it has no timers.
pub(crate) struct Vacant;

impl Model for Vacant {
    fn agents(&self) -> usize {
        0
    }

    fn timers(&self) -> usize {
        0
    }

    fn wakeup(&self, _k: usize, _now: Time) -> Time {
        Time::NEVER
    }

    fn on_timer(&mut self, _k: usize, _cx: &mut Ctx<'_>) {}

    fn on_pdu(&mut self, _agent: usize, _p: &Pdu, _cx: &mut Ctx<'_>) {}

    fn summarise(&self, _s: &mut Summary, _view: &View<'_>) {}
}

/// Every kind of component, as one value the world can hold in a vector.
/// A new kind is a variant here and an arm in `model` and `model_mut`.
pub(crate) enum Component {
    Vacant(Vacant),
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
    DvbRcs(Box<DvbRcs>),
}

impl Component {
    /// The one dispatch point: the kind's model.
    #[inline]
    pub(crate) fn model(&self) -> &dyn Model {
        match self {
            Component::Vacant(c) => c,
            Component::Source(c) => &**c,
            Component::Sink(c) => &**c,
            Component::Tcp(c) => &**c,
            Component::Tfrc(c) => &**c,
            Component::UdpRr(c) => &**c,
            Component::Vcs(c) => &**c,
            Component::Shaper(c) => &**c,
            Component::Arrivals(c) => &**c,
            Component::TfrcArrivals(c) => &**c,
            Component::CellSource(c) => &**c,
            Component::Exit(c) => &**c,
            Component::Emulated(c) => &**c,
            Component::DvbRcs(c) => &**c,
        }
    }

    #[inline]
    pub(crate) fn model_mut(&mut self) -> &mut dyn Model {
        match self {
            Component::Vacant(c) => c,
            Component::Source(c) => &mut **c,
            Component::Sink(c) => &mut **c,
            Component::Tcp(c) => &mut **c,
            Component::Tfrc(c) => &mut **c,
            Component::UdpRr(c) => &mut **c,
            Component::Vcs(c) => &mut **c,
            Component::Shaper(c) => &mut **c,
            Component::Arrivals(c) => &mut **c,
            Component::TfrcArrivals(c) => &mut **c,
            Component::CellSource(c) => &mut **c,
            Component::Exit(c) => &mut **c,
            Component::Emulated(c) => &mut **c,
            Component::DvbRcs(c) => &mut **c,
        }
    }

    /// The component that `Spawn` request `s` of this one (id `me`) asks
    /// for, starting at `now`: a class of arrivals and the flows it makes.
    pub(crate) fn spawned(&self, me: u32, now: Time, s: Spawn) -> Component {
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

    /// A component of this one's class of flows ended.
    pub(crate) fn on_child_released(&mut self, child: Component, now: Time) {
        match (self, child) {
            (Component::Arrivals(a), Component::Tcp(t)) => a.on_flow_ended(&t, now),
            (Component::TfrcArrivals(a), Component::Tfrc(f)) => a.on_flow_ended(&f),
            _ => {}
        }
    }
}
