//! Flows that start and end during a run: a class of TCP transfers between
//! two hosts arriving as a Poisson process, each with its own connection
//! state, created when it arrives and released when it has delivered its
//! bytes and seen them acknowledged — the open-loop file-transfer workload
//! of web and satellite-access studies. Memory follows the flows in
//! progress, not the flows started. The class keeps the per-flow figures,
//! aggregated: the `arrivals` section, its summary keys
//! (`arrivals.NAME.*`).
//!
//! Flow sizes are constant, exponential, or Pareto with shape α > 1 and
//! the given mean (heavy-tailed sizes, as measured for web transfers).

use super::build::{at, direct, Builder};
use super::component::{Component, Ctx, Model, Spawn, View};
use super::flow_pool::FlowPool;
use super::tcp::TcpConn;
use crate::apps::tcp_app::AppKind;
use crate::engine::stats::{Histogram, Summary as Stats};
use crate::engine::{Check, ConfigError, Duration, RngStream, Time};
use crate::net::Pdu;
use crate::scenario::summary::{num, put, Summary, PS};
use crate::scenario::BuildError;
use crate::transport::tcp::TcpConfig;
use serde::{Deserialize, Serialize};

/// How the sizes of a class's flows are drawn.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum FlowSize {
    /// Every flow the same size.
    Constant {
        /// The size, bytes.
        bytes: u64,
    },
    /// Exponentially distributed sizes, rounded to whole bytes (at least 1).
    Exponential {
        /// The mean size, bytes (at least 1).
        mean_bytes: f64,
    },
    /// Pareto with shape `shape` (> 1) and mean `mean_bytes`.
    Pareto {
        /// The mean size, bytes (at least 1).
        mean_bytes: f64,
        /// The shape α, above 1 (a finite mean); the smaller, the heavier
        /// the tail.
        shape: f64,
    },
}

impl FlowSize {
    /// A size in whole bytes, at least 1.
    pub(crate) fn draw(&self, rng: &mut RngStream) -> u64 {
        let bytes = match *self {
            FlowSize::Constant { bytes } => return bytes,
            FlowSize::Exponential { mean_bytes } => rng.exp(mean_bytes),
            FlowSize::Pareto { mean_bytes, shape } => {
                // Scale x_m from the mean α·x_m/(α−1); inverse transform.
                let xm = mean_bytes * (shape - 1.0) / shape;
                xm / (1.0 - rng.uniform()).powf(1.0 / shape)
            }
        };
        (bytes.round() as u64).max(1)
    }
}

impl Check for FlowSize {
    fn check(&self) -> Result<(), ConfigError> {
        let ok = match *self {
            FlowSize::Constant { bytes } => bytes > 0,
            FlowSize::Exponential { mean_bytes } => mean_bytes.is_finite() && mean_bytes >= 1.0,
            FlowSize::Pareto { mean_bytes, shape } => {
                mean_bytes.is_finite() && mean_bytes >= 1.0 && shape.is_finite() && shape > 1.0
            }
        };
        if ok {
            Ok(())
        } else {
            Err("flow sizes need a mean of at least 1 byte (and a Pareto shape above 1)".into())
        }
    }
}

/// An `arrivals[]` entry; the flows' TCP parameters are the model's own
/// `TcpConfig`, in the same object.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct ArrivalsDesc {
    /// Its name in the description (`arrivals.NAME`).
    pub name: String,
    /// The node of every flow's client, which sends the data (`from`).
    pub src_node: String,
    /// The node of every flow's server, which receives it (`to`).
    pub dst_node: String,
    /// Mean arrivals per second.
    pub rate_per_s: f64,
    pub(crate) size: FlowSize,
    /// The first arrival, ps; default 0.
    #[serde(default)]
    pub start_ps: Time,
    /// No arrivals at or after this time.
    #[serde(default)]
    pub stop_ps: Option<Time>,
    /// No more than this many flows in all.
    #[serde(default)]
    pub max_flows: Option<u64>,
    /// The TCP parameters of every flow's connection (the keys of
    /// `[tcp.NAME]`), in the same object.
    #[serde(flatten)]
    pub config: TcpConfig,
}

impl ArrivalsDesc {}

impl Check for ArrivalsDesc {
    fn check(&self) -> Result<(), ConfigError> {
        if !(self.rate_per_s.is_finite() && self.rate_per_s > 0.0) {
            return Err("rate_per_s must be positive".into());
        }
        self.size.check()?;
        self.config.check()
    }
}

/// A class of flow arrivals and what its ended flows left.
pub(crate) struct FlowArrivals {
    pub name: String,
    pub config: TcpConfig,
    /// [client, server] nodes.
    pub(crate) nodes: [u32; 2],
    /// Each live flow's own pair of flow ids (data, ACKs).
    pub(crate) flows: FlowPool,
    size: FlowSize,
    mean_gap_ps: f64,
    stop: Time,
    max_flows: Option<u64>,
    next: Time,
    rng: RngStream,
    pub(crate) started: u64,
    pub(crate) completed: u64,
    pub(crate) active_max: u64,
    bytes_delivered: u64,
    completion: Histogram,
    completion_s: Stats,
    goodput_bps: Stats,
    retransmissions: u64,
    timeouts: u64,
}

impl FlowArrivals {
    pub(crate) fn new(d: &ArrivalsDesc, nodes: [u32; 2], rng: RngStream) -> FlowArrivals {
        FlowArrivals {
            name: d.name.clone(),
            config: d.config.clone(),
            nodes,
            flows: FlowPool::default(),
            size: d.size.clone(),
            mean_gap_ps: 1e12 / d.rate_per_s,
            stop: d.stop_ps.unwrap_or(Time::NEVER),
            max_flows: d.max_flows,
            next: d.start_ps,
            rng,
            started: 0,
            completed: 0,
            active_max: 0,
            bytes_delivered: 0,
            completion: Histogram::new(),
            completion_s: Stats::default(),
            goodput_bps: Stats::default(),
            retransmissions: 0,
            timeouts: 0,
        }
    }

    fn exhausted(&self) -> bool {
        self.next >= self.stop || self.max_flows.is_some_and(|m| self.started >= m)
    }

    /// The connection of a flow this class asked for (`Spawn::TcpFlow`),
    /// starting now over its own `flow` ids; `me` is this class's
    /// component id.
    pub(crate) fn flow(&self, me: u32, now: Time, bytes: u64, flow: u32) -> TcpConn {
        let mut conn = TcpConn::new(
            String::new(),
            &self.config,
            AppKind::Bulk { bytes: Some(bytes) },
            self.nodes,
            now,
            flow,
            direct(self.nodes),
        );
        conn.class = Some(me);
        conn
    }

    /// One of the class's flows delivered everything and is released.
    pub(crate) fn on_flow_ended(&mut self, t: &TcpConn, now: Time) {
        self.completed += 1;
        self.flows.release(t.flow);
        let done = t.app.completed_at.unwrap_or(now);
        let took = done.since(t.start);
        let delivered = t.sockets[1].delivered;
        self.bytes_delivered += delivered;
        self.completion.record(took.ps());
        self.completion_s.add(took.as_secs_f64());
        if took.ps() > 0 {
            self.goodput_bps
                .add(delivered as f64 * 8.0 / took.as_secs_f64());
        }
        let st = &t.sockets[0].stats;
        self.retransmissions += st.retransmissions;
        self.timeouts += st.timeouts;
    }
}

impl Model for FlowArrivals {
    fn agents(&self) -> usize {
        0
    }

    fn timers(&self) -> usize {
        1
    }

    fn wakeup(&self, _k: usize, _now: Time) -> Time {
        if self.exhausted() {
            Time::NEVER
        } else {
            self.next
        }
    }

    /// A flow arrives: the world creates its connection now.
    fn on_timer(&mut self, _k: usize, cx: &mut Ctx<'_>) {
        if self.exhausted() || cx.now < self.next {
            return;
        }
        let bytes = self.size.draw(&mut self.rng);
        let flow = self.flows.take(cx.flows);
        cx.spawn.push(Spawn::TcpFlow { bytes, flow });
        self.started += 1;
        self.active_max = self.active_max.max(self.started - self.completed);
        let gap = (self.rng.exp(self.mean_gap_ps).round() as u64).max(1);
        self.next = cx.now + Duration(gap);
    }

    fn on_pdu(&mut self, _agent: usize, _p: &Pdu, _cx: &mut Ctx<'_>) {
        // A class of arrivals has no agent; its flows have theirs.
    }

    fn summarise(&self, s: &mut Summary, view: &View<'_>) {
        let p = format!("arrivals.{}.", self.name);
        let key = |k: &str| format!("{p}{k}");
        put(s, key("flows_started"), self.started);
        put(s, key("flows_completed"), self.completed);
        put(s, key("flows_active"), self.started - self.completed);
        put(s, key("flows_active_max"), self.active_max);
        put(s, key("bytes_delivered"), self.bytes_delivered);
        let c = &self.completion;
        let q = |x: f64| {
            if c.count() > 0 {
                c.quantile(x) * PS
            } else {
                f64::NAN
            }
        };
        put(
            s,
            key("completion_time_mean_s"),
            num(self.completion_s.mean()),
        );
        put(s, key("completion_time_p50_s"), num(q(0.5)));
        put(s, key("completion_time_p95_s"), num(q(0.95)));
        put(s, key("completion_time_p99_s"), num(q(0.99)));
        put(
            s,
            key("flow_goodput_mean_bps"),
            num(self.goodput_bps.mean()),
        );
        put(s, key("retransmissions"), self.retransmissions);
        put(s, key("timeouts"), self.timeouts);
        let (data, acks) = self.flows.total(view.flows, |f| f.dropped);
        put(s, key("segments_dropped"), data + acks);
    }
}

impl Builder<'_> {
    /// The classes of flow arrivals, in description order.
    pub(super) fn arrivals(&mut self) -> Result<Vec<u32>, BuildError> {
        let mut ids = Vec::new();
        for a in &self.d.arrivals {
            let at = at("arrivals", &a.name);
            let nodes = self.ends(&a.src_node, &a.dst_node, &at)?;
            let rng = RngStream::new(self.d.seed, &at);
            let class = FlowArrivals::new(a, nodes, rng);
            ids.push(self.w.add(Component::Arrivals(Box::new(class))));
        }
        Ok(ids)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pareto_sizes_have_the_asked_mean() {
        let size = FlowSize::Pareto {
            mean_bytes: 50_000.0,
            shape: 2.5,
        };
        let mut rng = RngStream::new(3, "pareto");
        let n = 400_000;
        let mean = (0..n).map(|_| size.draw(&mut rng) as f64).sum::<f64>() / n as f64;
        // Shape 2.5 has a finite variance: the sample mean is within 2 %.
        assert!((mean / 50_000.0 - 1.0).abs() < 0.02, "mean {mean}");
    }

    #[test]
    fn exponential_sizes_have_the_asked_mean() {
        let size = FlowSize::Exponential { mean_bytes: 1e4 };
        let mut rng = RngStream::new(4, "exp");
        let n = 200_000;
        let mean = (0..n).map(|_| size.draw(&mut rng) as f64).sum::<f64>() / n as f64;
        assert!((mean / 1e4 - 1.0).abs() < 0.01, "mean {mean}");
    }
}
