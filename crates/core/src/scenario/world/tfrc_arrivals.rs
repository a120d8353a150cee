//! Media flows that start and end during a run: a class of TFRC flows
//! arriving as a Poisson process, each between two hosts drawn at random
//! from the class's hosts, each with an encoder running for a drawn
//! duration (exponential in the tfrc-dama paper's aggregated scenario,
//! section 4 and Table II). Each flow is a TFRC flow of its own, with its
//! own flow ids (`flow_pool`), created when it arrives and released once
//! it is over; the class keeps the
//! figures of all of them: packets generated, lost to transmit-buffer
//! overflow, late at the de-jitter point, the E2ED of every packet and of
//! the packets of each flow's first `window` (Fig. 9), and the start-up
//! profile, E2ED percentiles against the time since the flow started
//! (Fig. 8). Summary keys `tfrc_arrivals.NAME.*`; the profile and the
//! window's distribution are end-of-run series.

use super::build::{at, direct, Builder};
use super::component::{Component, Ctx, Model, Series, Spawn, View};
use super::flow_pool::FlowPool;
use super::tfrc::{TfrcDesc, TfrcFlow};
use crate::apps::media::MediaConfig;
use crate::engine::stats::Histogram;
use crate::engine::{Check, ConfigError, Duration, RngStream, Time};
use crate::net::Pdu;
use crate::scenario::summary::{num, put, Summary, PS};
use crate::scenario::BuildError;
use crate::transport::tfrc::TfrcConfig;
use serde::{Deserialize, Serialize};

/// The most bins of a class's start-up profile (each a histogram).
pub(crate) const MAX_BINS: u64 = 100_000;

/// How long each flow's encoder runs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum FlowDuration {
    /// Every encoder runs the same time.
    Constant {
        /// That time, ps.
        #[serde(rename = "duration_ps")]
        duration: Duration,
    },
    /// Exponentially distributed times (at least 1 ps).
    Exponential {
        /// Their mean, ps.
        #[serde(rename = "mean_ps")]
        mean: Duration,
    },
}

impl FlowDuration {
    /// A duration of at least 1 ps.
    pub(crate) fn draw(&self, rng: &mut RngStream) -> Duration {
        match *self {
            FlowDuration::Constant { duration } => duration,
            FlowDuration::Exponential { mean } => {
                Duration((rng.exp(mean.ps() as f64).round() as u64).max(1))
            }
        }
    }
}

impl Check for FlowDuration {
    fn check(&self) -> Result<(), ConfigError> {
        let d = match self {
            FlowDuration::Constant { duration } => duration,
            FlowDuration::Exponential { mean } => mean,
        };
        if d.ps() == 0 {
            return Err("flow durations must be positive".into());
        }
        Ok(())
    }
}

/// A `tfrc_arrivals[]` entry; the flows' transport parameters are the
/// model's own `TfrcConfig`, in the same object.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct TfrcArrivalsDesc {
    /// Its name in the description (`tfrc_arrivals.NAME`).
    pub name: String,
    /// The hosts a flow's two ends are drawn from (two different ones).
    pub hosts: Vec<String>,
    /// Mean arrivals per second.
    pub rate_per_s: f64,
    /// How long each flow's encoder runs.
    pub duration: FlowDuration,
    /// The encoder and its buffer (its own duration is the drawn one).
    pub media: MediaConfig,
    /// The de-jitter buffer of every flow, as `tfrc[].tolerable_delay_ps`: a
    /// flow's play-out is fixed by its first packet at its E2ED plus this,
    /// and later packets are counted late; `None` keeps every packet.
    #[serde(
        default,
        rename = "tolerable_delay_ps",
        skip_serializing_if = "Option::is_none"
    )]
    pub tolerable_delay: Option<Duration>,
    /// The first arrival, ps (no flow arrives before it); default 0.
    #[serde(default)]
    pub start_ps: Time,
    /// No flow arrives at or after this time, ps; `None` (default): arrivals
    /// go on to the end of the run.
    #[serde(default)]
    pub stop_ps: Option<Time>,
    /// No more than this many flows in all; `None` (default): no limit.
    #[serde(default)]
    pub max_flows: Option<u64>,
    /// The start-up figures cover each flow's first `window`, in bins of
    /// `step`.
    #[serde(rename = "window_ps")]
    pub window: Duration,
    /// The width of each bin of the start-up figures, ps; the scenario's
    /// default is 500 ms.
    #[serde(rename = "step_ps")]
    pub step: Duration,
    /// How long a flow waits for what is still in flight after its last
    /// packet (only when something was lost on the way).
    #[serde(rename = "linger_ps")]
    pub linger: Duration,
    /// The transport parameters of every flow (`packet_size`, `profile` and
    /// the other TFRC keys of `[tfrc.NAME]`), in the same object.
    #[serde(flatten)]
    pub config: TfrcConfig,
}

impl TfrcArrivalsDesc {
    /// The description of one flow of the class, starting at `now`.
    fn flow(&self, src: &str, dst: &str, now: Time, duration: Duration) -> TfrcDesc {
        TfrcDesc {
            name: String::new(),
            src_node: src.into(),
            dst_node: dst.into(),
            start_ps: now,
            media: MediaConfig {
                duration: Some(duration),
                ..self.media.clone()
            },
            tolerable_delay: self.tolerable_delay,
            trace: false,
            config: self.config.clone(),
        }
    }
}

impl Check for TfrcArrivalsDesc {
    fn check(&self) -> Result<(), ConfigError> {
        if !(self.rate_per_s.is_finite() && self.rate_per_s > 0.0) {
            return Err("rate_per_s must be positive".into());
        }
        if self.hosts.len() < 2 {
            return Err("a class needs at least two hosts".into());
        }
        if self.step.ps() == 0 || self.window < self.step {
            return Err("step must be positive and no longer than window".into());
        }
        if self.window.ps() / self.step.ps() > MAX_BINS {
            return Err(ConfigError::new(format!(
                "window / step gives more than {MAX_BINS} bins of start-up figures"
            )));
        }
        if self.media.duration.is_some() {
            return Err("a class's media duration is drawn from `duration`".into());
        }
        self.duration.check()?;
        self.media.check()?;
        self.config.check()
    }
}

/// What the class counts over its flows.
#[derive(Clone, Debug, Default)]
struct Tally {
    flows: u64,
    generated: u64,
    overflow: u64,
    window_generated: u64,
    window_overflow: u64,
    sent: u64,
    received: u64,
    late: u64,
    lost: u64,
    nofeedback: u64,
    qs_approved: u64,
    e2ed: Histogram,
    /// Packets generated in each flow's first `window`.
    window: Histogram,
    /// The same, by bin of time since the flow started.
    bins: Vec<Histogram>,
}

impl Tally {
    fn add(&mut self, f: &TfrcFlow, step: Duration) {
        self.flows += 1;
        self.generated += f.media.generated;
        self.overflow += f.media.overflow;
        self.window_generated += f.media.window_generated;
        self.window_overflow += f.media.window_overflow;
        let st = f.sender.stats();
        self.sent += st.packets;
        self.received += f.receiver.packets();
        self.late += f.dejitter.late;
        self.lost += f.receiver.packets_lost();
        self.nofeedback += st.nofeedback_expiries;
        self.qs_approved += u64::from(st.qs_approved_bps > 0.0);
        self.e2ed.merge(&f.dejitter.e2ed);
        for &(age, e2ed) in &f.startup {
            self.window.record(e2ed);
            self.bins[(age / step.ps()) as usize].record(e2ed);
        }
    }
}

/// A class of media arrivals and what its ended flows left.
pub(crate) struct TfrcArrivals {
    pub name: String,
    d: TfrcArrivalsDesc,
    hosts: Vec<u32>,
    /// Each live flow's own pair of flow ids (data, reports).
    flows: FlowPool,
    mean_gap_ps: f64,
    stop: Time,
    next: Time,
    rng: RngStream,
    pub(crate) started: u64,
    pub(crate) ended: u64,
    pub(crate) active_max: u64,
    tally: Tally,
}

impl TfrcArrivals {
    pub(crate) fn new(d: &TfrcArrivalsDesc, hosts: Vec<u32>, rng: RngStream) -> TfrcArrivals {
        let bins = (d.window.ps().div_ceil(d.step.ps())) as usize;
        TfrcArrivals {
            name: d.name.clone(),
            d: d.clone(),
            hosts,
            flows: FlowPool::default(),
            mean_gap_ps: 1e12 / d.rate_per_s,
            stop: d.stop_ps.unwrap_or(Time::NEVER),
            next: d.start_ps,
            rng,
            started: 0,
            ended: 0,
            active_max: 0,
            tally: Tally {
                bins: vec![Histogram::new(); bins],
                ..Tally::default()
            },
        }
    }

    fn exhausted(&self) -> bool {
        self.next >= self.stop || self.d.max_flows.is_some_and(|m| self.started >= m)
    }

    /// The flow a `Spawn::TfrcFlow` of this class (id `me`) asked for:
    /// between `ends` (indices into the class's hosts), over its own
    /// `flow` ids.
    pub(crate) fn flow_between(
        &self,
        me: u32,
        now: Time,
        ends: [u32; 2],
        duration: Duration,
        flow: u32,
    ) -> TfrcFlow {
        let (s, t) = (ends[0] as usize, ends[1] as usize);
        let d = self
            .d
            .flow(&self.d.hosts[s], &self.d.hosts[t], now, duration);
        let nodes = [self.hosts[s], self.hosts[t]];
        TfrcFlow::new(&d, nodes, flow, direct(nodes)).of_class(me, self.d.window, self.d.linger)
    }

    /// One of the class's flows is over and released.
    pub(crate) fn on_flow_ended(&mut self, f: &TfrcFlow) {
        self.ended += 1;
        self.flows.release(f.flow);
        self.tally.add(f, self.d.step);
    }

    /// The class's figures with its flows still running counted in.
    fn tally_with_active(&self, view: &View<'_>) -> Tally {
        let mut t = self.tally.clone();
        for c in view.comps {
            if let Component::Tfrc(f) = c {
                if f.class.is_some() && self.flows.owns(f.flow) {
                    t.add(f, self.d.step);
                }
            }
        }
        t
    }
}

impl Model for TfrcArrivals {
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

    /// A flow arrives: its two hosts and its duration are drawn, and the
    /// world creates it now.
    fn on_timer(&mut self, _k: usize, cx: &mut Ctx<'_>) {
        if self.exhausted() || cx.now < self.next {
            return;
        }
        let n = self.hosts.len();
        let src = self.rng.below(n as u64) as usize;
        let dst = (src + 1 + self.rng.below(n as u64 - 1) as usize) % n;
        let duration = self.d.duration.draw(&mut self.rng);
        let flow = self.flows.take(cx.flows);
        cx.spawn.push(Spawn::TfrcFlow {
            src: src as u32,
            dst: dst as u32,
            duration,
            flow,
        });
        self.started += 1;
        self.active_max = self.active_max.max(self.started - self.ended);
        let gap = (self.rng.exp(self.mean_gap_ps).round() as u64).max(1);
        self.next = cx.now + Duration(gap);
    }

    fn on_pdu(&mut self, _agent: usize, _p: &Pdu, _cx: &mut Ctx<'_>) {
        // A class of arrivals has no agent; its flows have theirs.
    }

    fn summarise(&self, s: &mut Summary, view: &View<'_>) {
        let p = format!("tfrc_arrivals.{}.", self.name);
        let key = |k: &str| format!("{p}{k}");
        let t = self.tally_with_active(view);
        put(s, key("flows_started"), self.started);
        put(s, key("flows_ended"), self.ended);
        put(s, key("flows_active"), self.started - self.ended);
        put(s, key("flows_active_max"), self.active_max);
        put(s, key("generated"), t.generated);
        put(s, key("tx_buffer_overflow"), t.overflow);
        let share = |n: u64| {
            if t.generated > 0 {
                n as f64 / t.generated as f64
            } else {
                f64::NAN
            }
        };
        put(s, key("tx_buffer_loss"), num(share(t.overflow)));
        // The same over each flow's first `window` (Fig. 9's).
        put(s, key("window_generated"), t.window_generated);
        put(s, key("window_tx_buffer_overflow"), t.window_overflow);
        let window_share = if t.window_generated > 0 {
            t.window_overflow as f64 / t.window_generated as f64
        } else {
            f64::NAN
        };
        put(s, key("window_tx_buffer_loss"), num(window_share));
        put(s, key("packets_sent"), t.sent);
        put(s, key("packets_received"), t.received);
        put(s, key("packets_lost"), t.lost);
        put(s, key("late"), t.late);
        put(s, key("late_fraction"), num(share(t.late)));
        put(s, key("nofeedback_expiries"), t.nofeedback);
        put(s, key("flows_qs_approved"), t.qs_approved);
        for (name, h) in [("e2ed", &t.e2ed), ("window_e2ed", &t.window)] {
            let q = |x: f64| num(h.quantile(x) * PS);
            put(s, key(&format!("{name}_mean_s")), num(h.mean() * PS));
            put(s, key(&format!("{name}_p50_s")), q(0.5));
            put(s, key(&format!("{name}_p95_s")), q(0.95));
            put(s, key(&format!("{name}_p99_s")), q(0.99));
            put(s, key(&format!("{name}_max_s")), q(1.0));
        }
        let (data, reports) = self.flows.total(view.flows, |f| f.dropped);
        put(s, key("data_dropped"), data);
        put(s, key("reports_dropped"), reports);
    }

    /// End-of-run series: the start-up profile (E2ED percentiles and mean
    /// per bin of time since the flow started, x = the bin's middle) and
    /// the distribution of the window's E2EDs (x = delay, y = fraction at
    /// or below), all in seconds.
    fn end_series(&self, view: &View<'_>) -> Vec<Series> {
        let t = self.tally_with_active(view);
        let p = format!("tfrc_arrivals.{}.", self.name);
        let step = self.d.step.as_secs_f64();
        let mids: Vec<f64> = (0..t.bins.len()).map(|i| (i as f64 + 0.5) * step).collect();
        let mut out = vec![];
        for (name, q) in [
            ("startup_e2ed_p5", 0.05),
            ("startup_e2ed_p50", 0.5),
            ("startup_e2ed_p95", 0.95),
        ] {
            let v = t.bins.iter().map(|h| h.quantile(q) * PS).collect();
            out.push((format!("{p}{name}"), mids.clone(), v));
        }
        let mean = t.bins.iter().map(|h| h.mean() * PS).collect();
        out.push((format!("{p}startup_e2ed_mean"), mids, mean));
        let (x, y) = t.window.cdf().into_iter().map(|(x, y)| (x * PS, y)).unzip();
        out.push((format!("{p}window_e2ed_cdf"), x, y));
        out
    }
}

impl Builder<'_> {
    /// The classes of media arrivals, in description order.
    pub(super) fn tfrc_arrivals(&mut self) -> Result<Vec<u32>, BuildError> {
        let mut ids = Vec::new();
        for a in &self.d.tfrc_arrivals {
            let at = at("tfrc_arrivals", &a.name);
            let hosts = a
                .hosts
                .iter()
                .map(|h| self.node(h, &at))
                .collect::<Result<Vec<_>, _>>()?;
            let rng = RngStream::new(self.d.seed, &at);
            let class = TfrcArrivals::new(a, hosts, rng);
            ids.push(self.w.add(Component::TfrcArrivals(Box::new(class))));
        }
        Ok(ids)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exponential_durations_have_the_asked_mean() {
        let d = FlowDuration::Exponential {
            mean: Duration::from_secs_f64(60.0),
        };
        let mut rng = RngStream::new(5, "durations");
        let n = 100_000;
        let mean = (0..n).map(|_| d.draw(&mut rng).as_secs_f64()).sum::<f64>() / n as f64;
        assert!((mean / 60.0 - 1.0).abs() < 0.01, "mean {mean}");
    }
}
