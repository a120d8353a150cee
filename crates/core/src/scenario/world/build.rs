//! From a description to a world ready to run: the network fabric first,
//! then every section's components in the order of the description, then
//! the probes and the stop condition, then the first wake-ups.
//!
//! Each section's entries are built in the file of their kind (an
//! `impl Builder` block there); this file only orders the steps and holds
//! what they share: the names found so far and the world being built.

use super::component::Component;
use super::registry::Registry;
use super::{Counts, Net, Sampler, Scratch, StopCondition, World};
use crate::engine::{Check, ConfigError, Duration, Scheduler, Time};
use crate::net::{Iface, Port};
use crate::scenario::description::{Description, StopWhen};
use crate::scenario::BuildError;
use std::collections::HashMap;

/// Names of one kind of thing, to their indices.
pub(super) struct Names<'a>(HashMap<&'a str, u32>);

impl<'a> Names<'a> {
    pub(super) fn of(names: impl Iterator<Item = &'a str>) -> Names<'a> {
        Names(names.enumerate().map(|(i, n)| (n, i as u32)).collect())
    }

    pub(super) fn find(&self, kind: &str, name: &str, at: &str) -> Result<u32, BuildError> {
        self.0
            .get(name)
            .copied()
            .ok_or_else(|| BuildError::at(at, format!("no {kind} named {name:?}")))
    }
}

/// Where an entry is in the description: `section.name`.
pub(super) fn at(section: &str, name: &str) -> String {
    format!("{section}.{name}")
}

/// Prefixes a model's refusal with where in the description it is.
pub(super) fn checked<T, E: Into<ConfigError>>(r: Result<T, E>, at: &str) -> Result<T, BuildError> {
    r.map_err(|why| why.into().within(at))
}

/// Both ends' hosts attached directly to their nodes.
pub(super) fn direct(nodes: [u32; 2]) -> [Iface; 2] {
    nodes.map(|node| Iface::Direct { node })
}

/// The first VCI of user VCs (0-31 are reserved, I.361).
const FIRST_VCI: u16 = 32;

/// The state of a build, shared by the kinds' build steps.
pub(super) struct Builder<'a> {
    pub(super) w: World,
    pub(super) d: &'a Description,
    pub(super) node_ix: Names<'a>,
    /// VCIs are handed out in the order VCs are built.
    pub(super) next_vci: u16,
    /// Components that probes and the stop condition may name, by the
    /// probe target of their kind ("sink", "source", "tcp") and name.
    pub(super) named: HashMap<(&'static str, String), u32>,
}

impl Builder<'_> {
    pub(super) fn node(&self, name: &str, at: &str) -> Result<u32, BuildError> {
        self.node_ix.find("node", name, at)
    }

    /// The two nodes a flow runs between, which must differ: a flow from a
    /// node to itself delivers without a hop, and TCP's did so recursively
    /// until the stack overflowed (the scenario layer refuses it first).
    pub(super) fn ends(&self, src: &str, dst: &str, at: &str) -> Result<[u32; 2], BuildError> {
        let nodes = [self.node(src, at)?, self.node(dst, at)?];
        if nodes[0] == nodes[1] {
            return Err(BuildError::at(
                at,
                format!("starts and ends at node {src:?}: a flow needs two nodes"),
            ));
        }
        Ok(nodes)
    }

    /// Registers a component that probes and `stop_when` may name.
    pub(super) fn add_named(&mut self, kind: &'static str, name: &str, c: Component) -> u32 {
        let id = self.w.add(c);
        self.named.insert((kind, name.to_string()), id);
        id
    }

    pub(super) fn find(
        &self,
        kind: &'static str,
        noun: &str,
        name: &str,
        at: &str,
    ) -> Result<u32, BuildError> {
        self.named
            .get(&(kind, name.to_string()))
            .copied()
            .ok_or_else(|| BuildError::at(at, format!("no {noun} named {name:?}")))
    }
}

impl World {
    /// The world a description describes, at time 0 and ready to run; a
    /// description it cannot run is refused, naming the key at fault.
    pub fn build(d: &Description) -> Result<World, BuildError> {
        if d.duration_ps == 0 || d.sample_interval_ps == 0 {
            return Err(BuildError::at(
                "run",
                "duration and sample interval must be positive",
            ));
        }
        d.check()?;
        let mut b = Builder {
            w: World::empty(d),
            d,
            node_ix: Names::of(d.nodes.iter().map(|n| n.name.as_str())),
            next_vci: FIRST_VCI,
            named: HashMap::new(),
        };
        b.links()?;
        b.routes()?;
        let dvb_rcs = b.dvb_rcs()?;
        b.sinks()?;
        let sources = b.sources()?;
        let (tcp, shapers) = b.tcp()?;
        let udp = b.udp_rr()?;
        let tfrc = b.tfrc()?;
        let arrivals = b.arrivals()?;
        let media_arrivals = b.tfrc_arrivals()?;
        let cells = b.cell_sources()?;
        let host_shapers = b.emulated()?;
        b.probes()?;
        b.traces()?;
        b.w.stop_when = match &d.stop_when {
            None => None,
            Some(s) => Some(b.stop_condition(s)?),
        };
        // First wake-ups, in the order earlier versions requested them:
        // ties at equal times run in request order, so this order is part
        // of the results. New kinds start after the sources.
        let w = &mut b.w;
        for &id in udp.iter().chain(&tcp) {
            w.start(id);
        }
        for l in 0..w.net.ports.len() {
            if let Some(p) = &w.net.ports[l] {
                w.sched.schedule(w.net.port_slots[l], p.poll_at());
            }
        }
        let shapers = shapers.iter().chain(&host_shapers);
        let newer = tfrc.iter().chain(&media_arrivals).chain(&cells);
        for &id in sources.iter().chain(&arrivals).chain(shapers).chain(newer) {
            w.start(id);
        }
        for l in 0..w.net.links.len() {
            w.sched
                .schedule(w.net.link_slots[l], w.net.links[l].poll_at());
        }
        for &id in &dvb_rcs {
            w.start(id);
        }
        if !w.probes.is_empty() {
            w.sched.schedule(w.sampler.slot, w.sampler.next);
        }
        Ok(b.w)
    }

    /// A world with the run's clock and limits and nothing in it.
    fn empty(d: &Description) -> World {
        World {
            name: d.name.clone(),
            seed: d.seed,
            now: Time::ZERO,
            end: Time(d.duration_ps),
            events: 0,
            max_events: d.max_events,
            stop_when: None,
            stopped: None,
            driven: false,
            sched: Scheduler::new(),
            net: Net {
                nodes: Vec::new(),
                links: Vec::new(),
                ports: Vec::new(),
                link_names: Vec::new(),
                node_names: Vec::new(),
                link_slots: Vec::new(),
                port_slots: Vec::new(),
            },
            reg: Registry::default(),
            flows: Vec::new(),
            probes: Vec::new(),
            traces: Vec::new(),
            sampler: Sampler {
                slot: 0,
                interval: Duration(d.sample_interval_ps),
                next: Time(d.sample_interval_ps),
            },
            counts: Counts::default(),
            scratch: Scratch::default(),
        }
    }

    /// `n` new flow ids; returns the first.
    pub(super) fn new_flows(&mut self, n: usize) -> u32 {
        super::flow_pool::new_flow_ids(&mut self.flows, n)
    }
}

impl Builder<'_> {
    fn stop_condition(&self, s: &StopWhen) -> Result<StopCondition, BuildError> {
        let at = "run.stop_when";
        match (&s.sink, s.received_packets, &s.tcp) {
            (Some(k), Some(n), None) => Ok(StopCondition::SinkReceived(
                self.find("sink", "sink", k, at)?,
                n,
            )),
            (None, None, Some(t)) => Ok(StopCondition::TcpCompleted(self.find(
                "tcp",
                "tcp connection",
                t,
                at,
            )?)),
            _ => Err(BuildError::at(
                at,
                "give a sink and received_packets, or a tcp connection".to_string(),
            )),
        }
    }
}
