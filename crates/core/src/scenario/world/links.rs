//! Links: the `links` section, how a link is built from it (queue, capacity
//! process, error model, propagation delay, the port at its input), its
//! summary keys (`links.NAME.*`) and its probe metrics.

use super::build::{at, checked, Builder, Names};
use super::ports::{LinkPort, PortKind};
use super::probes::ProbeMemory;
use super::registry::Owner;
use super::World;
use crate::atm::congestion_detector::DetectorConfig;
use crate::atm::erica::EricaConfig;
use crate::engine::{Check, ConfigError, Duration, RngStream, Time};
use crate::net::capacity::CapacityConfig;
use crate::net::delay_schedule::DelaySchedule;
use crate::net::error_model::{ErrorModel, Periodic};
use crate::net::explicit_rate::ExplicitRateConfig;
use crate::net::framing::Framing;
use crate::net::queue::QueueConfig;
use crate::net::{Link, Node};
use crate::scenario::summary::{num, put, rate, Summary, PS};
use crate::scenario::BuildError;
use serde::{Deserialize, Serialize};

/// A `links[]` entry: one direction of a link.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LinkDesc {
    /// Its name in the description (`links.NAME`, or `NAME_rev` for the
    /// reverse of a duplex link).
    pub name: String,
    pub(crate) from: String,
    pub(crate) to: String,
    pub(crate) delay_ps: Duration,
    /// The propagation delay over time, when it changes (a moving path,
    /// `[constellation.NAME]`); `delay_ps` is then its first value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delay_schedule: Option<DelaySchedule>,
    /// Bit error rate, applied per bit of each PDU.
    #[serde(default)]
    pub(crate) ber: f64,
    /// Probability that a PDU is lost, whatever its size.
    #[serde(default)]
    pub(crate) loss: f64,
    /// Lose every n-th PDU (ns-2's `ErrorModel/Periodic`), the first being
    /// the `loss_first`-th (default n).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) loss_every: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) loss_first: Option<u64>,
    /// Lose the PDUs with these numbers (from 1; ns-2's `ErrorModel/List`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) loss_list: Vec<u64>,
    /// Its output queue (`queue`; the scenario's default: drop-tail, 1000
    /// packets).
    pub queue: QueueConfig,
    /// Its transmission rate over time (`rate`, or the `capacity` table).
    pub capacity: CapacityConfig,
    /// What the physical layer adds to each PDU (an Ethernet frame's).
    #[serde(default, skip_serializing_if = "Framing::is_none")]
    pub framing: Framing,
    /// Runs ERICA+ at this link's output port (an ATM switch port).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) erica: Option<EricaConfig>,
    /// Feeds back the link's measured capacity (instcap, effcap) to the
    /// rate-controlled hosts whose `rate_control` names this link.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub explicit_rate: Option<ExplicitRateConfig>,
    /// The proactive-atm thesis's congestion detector at this transmit
    /// link (notifications back to the sources of its cells).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub congestion: Option<DetectorConfig>,
}

impl LinkDesc {
    /// The link from node `from` to node `to`; its random processes draw
    /// from streams named after the link.
    pub fn build(&self, from: u32, to: u32, seed: u64) -> Result<Link, ConfigError> {
        self.check()?;
        let at = format!("links.{}", self.name);
        let capacity = self
            .capacity
            .build(RngStream::new(seed, &format!("{at}.capacity")));
        let mut errors = ErrorModel::new(
            self.ber,
            self.loss,
            RngStream::new(seed, &format!("{at}.errors")),
        );
        if let Some(every) = self.loss_every {
            errors = errors.with_periodic(Periodic::new(every, self.loss_first.unwrap_or(every)));
        }
        if !self.loss_list.is_empty() {
            errors = errors.with_list(&self.loss_list);
        }
        let link = Link::new(
            from,
            to,
            self.queue.build_at(seed, &at),
            capacity,
            errors,
            self.delay_ps,
        )
        .with_framing(self.framing);
        Ok(match &self.delay_schedule {
            Some(schedule) => link.with_delay_schedule(schedule.clone()),
            None => link,
        })
    }

    /// The port at the link's input, if the entry configures one.
    pub(crate) fn port(&self) -> Result<Option<PortKind>, ConfigError> {
        PortKind::build(self)
    }
}

impl Check for LinkDesc {
    fn check(&self) -> Result<(), ConfigError> {
        for (what, p) in [("ber", self.ber), ("loss", self.loss)] {
            if !(0.0..=1.0).contains(&p) {
                return Err(ConfigError::new(format!(
                    "{what} is a probability in [0, 1]"
                )));
            }
        }
        if self.loss_every == Some(0) || self.loss_first == Some(0) || self.loss_list.contains(&0) {
            return Err("loss_every, loss_first and loss_list count PDUs from 1".into());
        }
        if self.loss_first.is_some() && self.loss_every.is_none() {
            return Err("loss_first needs loss_every".into());
        }
        self.queue.check()?;
        if let Some(schedule) = &self.delay_schedule {
            schedule.check()?;
        }
        self.capacity.check()
    }
}

/// Probe metrics of a link; those of its port follow (`PortKind::METRICS`).
pub(crate) const METRICS: &[&str] = &[
    "queue_packets",
    "queue_bytes",
    "capacity_bps",
    "throughput_bps",
    "drops",
    "queue_high_packets",
    "queue_low_packets",
    "throughput_high_bps",
    "throughput_low_bps",
    "slot_share_bps",
    "marks",
    "drops_early",
    "drops_dequeue",
    "red_avg",
    "delay_s",
];

/// The value of link metric `metric` (an index into `METRICS`, then into
/// the port's) of link `l` now.
pub(crate) fn sample(
    w: &mut World,
    l: usize,
    metric: usize,
    mem: &mut ProbeMemory,
    dt: f64,
) -> f64 {
    let now = w.now;
    if metric >= METRICS.len() {
        return match &w.net.ports[l] {
            Some(port) => port.sample(metric - METRICS.len()),
            None => f64::NAN,
        };
    }
    let link = &mut w.net.links[l];
    match METRICS[metric] {
        "queue_packets" => link.queue().packets() as f64,
        "queue_bytes" => link.queue().bytes() as f64,
        "capacity_bps" => link.rate().bps,
        "throughput_bps" => {
            link.settle(now);
            mem.per_interval(link.tx_bits_at(now), dt)
        }
        "drops" => {
            let (st, dq) = (&link.stats, &link.dequeued);
            (st.drops
                + st.drops_clp
                + st.drops_early
                + st.drops_unreachable
                + dq.drops
                + dq.overflow) as f64
        }
        "queue_high_packets" => link.queue().packets_at(0) as f64,
        "queue_low_packets" => link.queue().packets_at(1) as f64,
        "throughput_high_bps" => level_rate(link, 0, now, mem, dt),
        "throughput_low_bps" => level_rate(link, 1, now, mem, dt),
        "marks" => (link.stats.marks + link.dequeued.marks) as f64,
        "drops_early" => link.stats.drops_early as f64,
        "drops_dequeue" => link.dequeued.drops as f64,
        "red_avg" => link.queue().red().map_or(f64::NAN, |r| r.avg()),
        "delay_s" => link.delay_at(now).map_or(f64::NAN, |d| d.ps() as f64 * PS),
        _ => link.slot_share_bps().unwrap_or(f64::NAN),
    }
}

fn level_rate(link: &mut Link, level: usize, now: Time, mem: &mut ProbeMemory, dt: f64) -> f64 {
    link.settle(now);
    mem.per_interval(link.stats.tx_bytes_by_priority[level] as f64 * 8.0, dt)
}

/// `links.NAME.*` of every link, and of the port at its input.
pub(crate) fn summarise(w: &World, s: &mut Summary) {
    for (i, name) in w.net.link_names.iter().enumerate() {
        let link = &w.net.links[i];
        let p = format!("links.{name}.");
        link_keys(link, w.now, s, &p);
        if let Some(port) = &w.net.ports[i] {
            port.summarise(s, &p);
        }
    }
}

fn link_keys(link: &Link, now: Time, s: &mut Summary, p: &str) {
    let end = now.ps();
    let elapsed_s = now.as_secs_f64();
    let st = &link.stats;
    let key = |k: &str| format!("{p}{k}");
    put(s, key("arrivals"), st.arrivals);
    put(s, key("tx_packets"), st.tx_packets);
    put(s, key("tx_bytes"), st.tx_bytes);
    put(s, key("drops"), st.drops + link.dequeued.overflow);
    put(s, key("drops_clp"), st.drops_clp);
    put(s, key("errors"), st.errors);
    let util = if end > 0 {
        link.busy_ps_at(now) as f64 / end as f64
    } else {
        f64::NAN
    };
    put(s, key("utilisation"), num(util));
    put(
        s,
        key("throughput_bps"),
        num(link.tx_bits_at(now) / elapsed_s),
    );
    put(
        s,
        key("queue_mean_packets"),
        num(st.queue_packets.mean(end)),
    );
    put(s, key("queue_max_packets"), num(st.queue_packets.max()));
    put(s, key("queue_mean_bytes"), num(st.queue_bytes.mean(end)));
    put(s, key("queue_max_bytes"), num(st.queue_bytes.max()));
    put(
        s,
        key("system_mean_packets"),
        num(st.system_packets.mean(end)),
    );
    put(s, key("wait_mean_s"), num(st.wait.mean() * PS));
    put(s, key("wait_p50_s"), num(st.wait.quantile(0.5) * PS));
    put(s, key("wait_p99_s"), num(st.wait.quantile(0.99) * PS));
    let max = if st.wait.count() > 0 {
        st.wait.max() * PS
    } else {
        f64::NAN
    };
    put(s, key("wait_max_s"), num(max));
    if link.queue().is_aqm() {
        aqm_keys(link, now, s, p);
    }
    if link.has_delay_schedule() {
        put(s, key("drops_unreachable"), st.drops_unreachable);
    }
    for (level, class) in ["high", "low"].iter().enumerate() {
        let bytes = st.tx_bytes_by_priority[level];
        put(
            s,
            key(&format!("tx_packets_{class}")),
            st.tx_packets_by_priority[level],
        );
        put(s, key(&format!("tx_bytes_{class}")), bytes);
        put(
            s,
            key(&format!("throughput_{class}_bps")),
            num(rate(bytes, elapsed_s)),
        );
        put(
            s,
            key(&format!("queue_max_{class}_packets")),
            st.queue_max_by_priority[level],
        );
    }
}

/// The keys of a link whose queue is an AQM: marks, drops by cause, the
/// sojourn time's distribution and RED's average. Only such links have
/// them, so that other links' summaries stay as they were.
fn aqm_keys(link: &Link, now: Time, s: &mut Summary, p: &str) {
    let st = &link.stats;
    let dq = &link.dequeued;
    let key = |k: &str| format!("{p}{k}");
    put(s, key("marks"), st.marks + dq.marks);
    put(s, key("drops_overflow"), st.drops + dq.overflow);
    put(s, key("drops_early"), st.drops_early);
    put(s, key("drops_dequeue"), dq.drops);
    put(s, key("sojourn_mean_s"), num(st.wait.mean() * PS));
    if let Some(standing) = &st.standing {
        put(s, key("sojourn_standing_s"), num(standing.mean_ps() * PS));
    }
    for (name, q) in [("p50", 0.5), ("p95", 0.95), ("p99", 0.99)] {
        put(
            s,
            key(&format!("sojourn_{name}_s")),
            num(st.wait.quantile(q) * PS),
        );
    }
    if let Some(red) = link.queue().red() {
        put(
            s,
            key("red_avg_mean"),
            num(red.avg_over_time.mean(now.ps())),
        );
        put(s, key("red_max_p"), num(red.max_p()));
    }
    if let Some(pie) = link.queue().pie() {
        put(
            s,
            key("pie_prob_mean"),
            num(pie.prob_over_time.mean(now.ps())),
        );
    }
    if let Some(d) = link.queue().dualpi2() {
        for (side, st) in [("l", &d.l_stats), ("c", &d.c_stats)] {
            put(s, key(&format!("{side}_marks")), st.marks);
            put(s, key(&format!("{side}_drops")), st.drops);
            put(s, key(&format!("{side}_packets")), st.sojourn.count());
            let mean = st.sojourn.mean() * PS;
            put(s, key(&format!("{side}_sojourn_mean_s")), num(mean));
            let p99 = st.sojourn.quantile(0.99) * PS;
            put(s, key(&format!("{side}_sojourn_p99_s")), num(p99));
        }
    }
}

impl Builder<'_> {
    /// The nodes, every link with its port, and the sampler's slot.
    pub(super) fn links(&mut self) -> Result<(), BuildError> {
        let d = self.d;
        let w = &mut self.w;
        w.net.node_names = d.nodes.iter().map(|n| n.name.clone()).collect();
        w.net.nodes = (0..d.nodes.len())
            .map(|i| Node::new(i as u32, d.nodes.len()))
            .collect();
        for (i, l) in d.links.iter().enumerate() {
            let at = at("links", &l.name);
            let from = self.node(&l.from, &at)?;
            let to = self.node(&l.to, &at)?;
            let link = checked(l.build(from, to, d.seed), &at)?;
            let port = checked(l.port(), &at)?;
            let w = &mut self.w;
            w.net.links.push(link);
            w.net.link_names.push(l.name.clone());
            let slot = w.alloc_slot(Owner::Link(i as u32));
            w.net.link_slots.push(slot);
            let port_slot = match &port {
                Some(_) => w.alloc_slot(Owner::Port(i as u32)),
                None => 0,
            };
            w.net.ports.push(port);
            w.net.port_slots.push(port_slot);
        }
        self.w.sampler.slot = self.w.alloc_slot(Owner::Sampler);
        Ok(())
    }

    /// Every node's next hop towards each destination it routes to.
    pub(super) fn routes(&mut self) -> Result<(), BuildError> {
        let link_ix = Names::of(self.d.links.iter().map(|l| l.name.as_str()));
        for (i, n) in self.d.nodes.iter().enumerate() {
            for (dst, via) in &n.routes {
                let at = format!("nodes.{}.routes.{}", n.name, dst);
                let dst = self.node(dst, &at)?;
                let via = link_ix.find("link", via, &at)?;
                if self.w.net.links[via as usize].from != i as u32 {
                    return Err(BuildError::at(
                        &at,
                        "link does not leave this node".to_string(),
                    ));
                }
                self.w.net.nodes[i].set_route(dst, via);
            }
        }
        Ok(())
    }
}
