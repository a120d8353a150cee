//! Descriptions written in Rust, for tests and benchmarks: the defaults of
//! the scenario format filled in, routes computed by fewest hops as the
//! Python validator computes them, and a closure to change any field of an
//! entry that is not the default.
//!
//! ```
//! use satcc_core::scenario::{ScenarioBuilder, World};
//! let d = ScenarioBuilder::new("geo", 10.0)
//!     .host("a")
//!     .host("b")
//!     .duplex("sat", "a", "b", 2e6, 0.27)
//!     .sink("rx", "b")
//!     .cbr("video", "a", "rx", 1e6, 1000)
//!     .build();
//! let mut w = World::build(&d).unwrap();
//! w.run();
//! ```

use super::description::{Description, NodeDesc};
use super::world::arrivals::{ArrivalsDesc, FlowSize};
use super::world::links::LinkDesc;
use super::world::probes::ProbeDesc;
use super::world::sources::{SinkDesc, SizeKind, SourceDesc, SourceKind};
use super::world::tcp::TcpDesc;
use super::world::tfrc::TfrcDesc;
#[cfg(test)]
use super::world::udp_rr::UdpRrDesc;
use crate::apps::media::MediaConfig;
use crate::apps::tcp_app::AppKind;
#[cfg(test)]
use crate::apps::udp_rr::UdpRrConfig;
use crate::engine::{Duration, Time};
use crate::net::capacity::CapacityConfig;
use crate::net::framing::Framing;
use crate::net::queue::{Limit, QueueConfig};
use crate::transport::tcp::TcpConfig;
use crate::transport::tfrc::TfrcConfig;
use std::collections::{BTreeMap, VecDeque};

/// Writes a [`Description`] in Rust with the scenario format's defaults, for
/// tests and benchmarks (the module's example shows one).
pub struct ScenarioBuilder {
    d: Description,
}

fn secs(s: f64) -> Duration {
    Duration::from_secs_f64(s)
}

impl ScenarioBuilder {
    /// A run of `duration_s` seconds, seed 1, sampled every 100 ms.
    pub fn new(name: &str, duration_s: f64) -> ScenarioBuilder {
        ScenarioBuilder {
            d: Description {
                name: name.into(),
                seed: 1,
                duration_ps: secs(duration_s).ps(),
                sample_interval_ps: Duration::from_millis(100).ps(),
                ..Description::default()
            },
        }
    }

    /// The run seed (default 1).
    pub fn seed(mut self, seed: u64) -> Self {
        self.d.seed = seed;
        self
    }

    /// Samples the probes every `s` seconds (default 0.1).
    pub fn sample_interval(mut self, s: f64) -> Self {
        self.d.sample_interval_ps = secs(s).ps();
        self
    }

    /// Any run-level change (`max_events`, `stop_when`, ...).
    pub fn with(mut self, f: impl FnOnce(&mut Description)) -> Self {
        f(&mut self.d);
        self
    }

    fn node(mut self, name: &str, kind: &str) -> Self {
        self.d.nodes.push(NodeDesc {
            name: name.into(),
            kind: kind.into(),
            routes: BTreeMap::new(),
        });
        self
    }

    /// A node of type `host`; [`ScenarioBuilder::build`] fills in its
    /// routes.
    pub fn host(self, name: &str) -> Self {
        self.node(name, "host")
    }

    /// A node of type `router`; [`ScenarioBuilder::build`] fills in its
    /// routes.
    pub fn router(self, name: &str) -> Self {
        self.node(name, "router")
    }

    /// A one-way link at a constant rate with a 1000-packet drop-tail queue.
    pub fn link(self, name: &str, from: &str, to: &str, rate_bps: f64, delay_s: f64) -> Self {
        self.link_with(name, from, to, rate_bps, delay_s, |_| {})
    }

    /// A link as [`ScenarioBuilder::link`] makes it, then changed by `f`
    /// (its queue, capacity, error model or port).
    pub fn link_with(
        mut self,
        name: &str,
        from: &str,
        to: &str,
        rate_bps: f64,
        delay_s: f64,
        f: impl FnOnce(&mut LinkDesc),
    ) -> Self {
        let mut l = LinkDesc {
            name: name.into(),
            from: from.into(),
            to: to.into(),
            delay_ps: secs(delay_s),
            delay_schedule: None,
            ber: 0.0,
            loss: 0.0,
            loss_every: None,
            loss_first: None,
            loss_list: Vec::new(),
            queue: QueueConfig::Droptail {
                limit: Limit::Packets(1000),
            },
            capacity: CapacityConfig::Constant { rate_bps },
            framing: Framing::None,
            erica: None,
            explicit_rate: None,
            congestion: None,
        };
        f(&mut l);
        self.d.links.push(l);
        self
    }

    /// `name` from `a` to `b` and `name_rev` back, alike.
    pub fn duplex(self, name: &str, a: &str, b: &str, rate_bps: f64, delay_s: f64) -> Self {
        self.link(name, a, b, rate_bps, delay_s).link(
            &format!("{name}_rev"),
            b,
            a,
            rate_bps,
            delay_s,
        )
    }

    /// A sink at `node`: it receives the packets of the sources that name
    /// it.
    pub fn sink(mut self, name: &str, node: &str) -> Self {
        self.d.sinks.push(SinkDesc {
            name: name.into(),
            node: node.into(),
        });
        self
    }

    /// A CBR source of `bytes`-byte packets.
    pub fn cbr(self, name: &str, from: &str, sink: &str, rate_bps: f64, bytes: u32) -> Self {
        self.source_with(name, SourceKind::Cbr, from, sink, rate_bps, bytes, |_| {})
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn source_with(
        mut self,
        name: &str,
        kind: SourceKind,
        from: &str,
        sink: &str,
        rate_bps: f64,
        bytes: u32,
        f: impl FnOnce(&mut SourceDesc),
    ) -> Self {
        let mut s = SourceDesc {
            name: name.into(),
            kind,
            node: from.into(),
            sink: sink.into(),
            rate_bps,
            packet_bytes: bytes,
            size_dist: SizeKind::Constant,
            start_ps: Time::ZERO,
            stop_ps: None,
            priority: 0,
            clp: 0,
            on_ps: None,
            off_ps: None,
            periods: None,
            std_bps: None,
            hurst: None,
            peak_bps: None,
            mpcr_min_ps: None,
            mpcr_max_ps: None,
        };
        f(&mut s);
        self.d.sources.push(s);
        self
    }

    /// A bulk TCP transfer (unlimited) with the format's default
    /// parameters (NewReno, MSS 1460, RFC defaults).
    pub fn tcp(self, name: &str, from: &str, to: &str) -> Self {
        self.tcp_with(name, from, to, |_| {})
    }

    /// A connection as [`ScenarioBuilder::tcp`] makes it, then changed by
    /// `f` (its TCP parameters, application, start or ATM path).
    pub fn tcp_with(
        mut self,
        name: &str,
        from: &str,
        to: &str,
        f: impl FnOnce(&mut TcpDesc),
    ) -> Self {
        let mut t = TcpDesc {
            name: name.into(),
            src_node: from.into(),
            dst_node: to.into(),
            start_ps: Time::ZERO,
            app: AppKind::Bulk { bytes: None },
            abr: None,
            ubr: None,
            rate_control: None,
            config: TcpConfig::default_newreno(),
        };
        f(&mut t);
        self.d.tcp.push(t);
        self
    }

    /// A TFRC media flow of `packet_bytes` packets at `rate_bps` with a
    /// 1000-packet transmit buffer, RFC 5348 defaults.
    pub fn tfrc_with(
        mut self,
        name: &str,
        from: &str,
        to: &str,
        rate_bps: f64,
        packet_bytes: u32,
        f: impl FnOnce(&mut TfrcDesc),
    ) -> Self {
        let mut t = TfrcDesc {
            name: name.into(),
            src_node: from.into(),
            dst_node: to.into(),
            start_ps: Time::ZERO,
            media: MediaConfig {
                rate_bps,
                buffer_packets: 1000,
                duration: None,
            },
            tolerable_delay: None,
            trace: false,
            config: TfrcConfig::new(packet_bytes),
        };
        f(&mut t);
        self.d.tfrc.push(t);
        self
    }

    /// A UDP request/response exchange of 1-byte messages, 2 s timeout.
    #[cfg(test)]
    pub(crate) fn udp_rr_with(
        mut self,
        name: &str,
        from: &str,
        to: &str,
        f: impl FnOnce(&mut UdpRrDesc),
    ) -> Self {
        let mut u = UdpRrDesc {
            name: name.into(),
            src_node: from.into(),
            dst_node: to.into(),
            ubr: None,
            config: UdpRrConfig {
                request: 1,
                response: 1,
                count: None,
                warmup: 0,
                timeout: Duration::from_millis(2000),
                start: Time::ZERO,
            },
        };
        f(&mut u);
        self.d.udp_rr.push(u);
        self
    }

    /// TCP flows of `size` arriving at `rate_per_s` per second.
    pub fn arrivals_with(
        mut self,
        name: &str,
        from: &str,
        to: &str,
        rate_per_s: f64,
        size: FlowSize,
        f: impl FnOnce(&mut ArrivalsDesc),
    ) -> Self {
        let mut a = ArrivalsDesc {
            name: name.into(),
            src_node: from.into(),
            dst_node: to.into(),
            rate_per_s,
            size,
            start_ps: Time::ZERO,
            stop_ps: None,
            max_flows: None,
            config: TcpConfig::default_newreno(),
        };
        f(&mut a);
        self.d.arrivals.push(a);
        self
    }

    /// A probe of `metric` of the entry `of` of kind `target` (`"link"`,
    /// `"sink"`, `"source"`, `"tcp"`, ...; docs/scenario.md lists the
    /// metrics).
    pub fn probe(mut self, name: &str, target: &str, of: &str, metric: &str) -> Self {
        self.d.probes.push(ProbeDesc {
            name: name.into(),
            target: target.into(),
            of: of.into(),
            metric: metric.into(),
        });
        self
    }

    /// The description, with every node's route to every node it can
    /// reach: the first link, in name order, on a fewest-hop path.
    pub fn build(mut self) -> Description {
        fill_routes(&mut self.d);
        self.d
    }
}

fn fill_routes(d: &mut Description) {
    let names: Vec<String> = d.nodes.iter().map(|n| n.name.clone()).collect();
    let mut links: Vec<&LinkDesc> = d.links.iter().collect();
    links.sort_by(|a, b| a.name.cmp(&b.name));
    let mut routes: Vec<BTreeMap<String, String>> = vec![BTreeMap::new(); names.len()];
    for dest in &names {
        // Hop counts to `dest` over the reversed links.
        let mut dist: BTreeMap<&str, u32> = BTreeMap::from([(dest.as_str(), 0)]);
        let mut queue = VecDeque::from([dest.as_str()]);
        while let Some(n) = queue.pop_front() {
            for l in links.iter().filter(|l| l.to == n) {
                if !dist.contains_key(l.from.as_str()) {
                    dist.insert(&l.from, dist[n] + 1);
                    queue.push_back(&l.from);
                }
            }
        }
        for (i, node) in names.iter().enumerate() {
            let Some(&h) = dist.get(node.as_str()).filter(|&&h| h > 0) else {
                continue;
            };
            let via = links
                .iter()
                .find(|l| l.from == *node && dist.get(l.to.as_str()) == Some(&(h - 1)));
            if let Some(l) = via {
                routes[i].entry(dest.clone()).or_insert(l.name.clone());
            }
        }
    }
    for (n, r) in d.nodes.iter_mut().zip(routes) {
        for (dest, via) in r {
            n.routes.entry(dest).or_insert(via);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::World;

    #[test]
    fn routes_take_fewest_hops_and_keep_explicit_ones() {
        let d = ScenarioBuilder::new("r", 1.0)
            .host("a")
            .router("r")
            .host("b")
            .link("ab", "a", "b", 1e6, 0.0)
            .link("ar", "a", "r", 1e6, 0.0)
            .link("rb", "r", "b", 1e6, 0.0)
            .build();
        let a = &d.nodes[0].routes;
        assert_eq!(a["b"], "ab");
        assert_eq!(a["r"], "ar");
        assert!(d.nodes[2].routes.is_empty(), "nothing leaves b");
    }

    #[test]
    fn a_built_description_reads_back_through_json() {
        let d = ScenarioBuilder::new("j", 2.0)
            .host("a")
            .host("b")
            .duplex("l", "a", "b", 1e6, 0.01)
            .sink("rx", "b")
            .cbr("c", "a", "rx", 1e5, 100)
            .tcp("t", "a", "b")
            .build();
        let back = Description::from_json(&d.to_json()).expect("reads back");
        assert_eq!(back, d);
        let mut w = World::build(&back).unwrap();
        w.run();
        assert!(w.events > 0);
    }
}
