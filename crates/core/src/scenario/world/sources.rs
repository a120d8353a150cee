//! Traffic sources (CBR, Poisson, ON-OFF, MPEG-2 video) and the sinks that
//! measure them: the `sources` and `sinks` sections, the per-flow summary
//! keys (`flows.NAME.*`, one flow per source) and the sink keys
//! (`sinks.NAME.*`), and their probe metrics.

use super::build::{at, checked, Builder};
use super::component::{Component, Ctx, Model, View};
use super::probes::ProbeMemory;
use crate::apps::mpeg2::{Mpeg2, Mpeg2Config};
use crate::apps::onoff::{OnOff, Periods};
use crate::apps::{cbr::Cbr, poisson::Poisson, Emitter, Sink, SizeDist, Source};
use crate::engine::{Check, ConfigError, Duration, RngStream, Time};
use crate::net::Pdu;
use crate::scenario::summary::{num, put, rate, Summary, PS};
use crate::scenario::BuildError;
use serde::{Deserialize, Serialize};

#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum SourceKind {
    Cbr,
    Poisson,
    Onoff,
    Mpeg2,
}

#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum SizeKind {
    #[default]
    Constant,
    Exponential,
}

/// A `sources[]` entry. One shape for every kind; the keys a kind does not
/// use are absent or null.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub(crate) struct SourceDesc {
    pub name: String,
    pub(crate) kind: SourceKind,
    pub node: String,
    pub(crate) sink: String,
    /// The constant, mean or peak (ON-OFF) rate; MPEG-2: the mean of the
    /// fGn rate process.
    pub rate_bps: f64,
    pub packet_bytes: u32,
    #[serde(default)]
    pub(crate) size_dist: SizeKind,
    #[serde(default)]
    pub start_ps: Time,
    #[serde(default)]
    pub stop_ps: Option<Time>,
    #[serde(default)]
    pub priority: u8,
    #[serde(default)]
    pub clp: u8,
    #[serde(default)]
    pub(crate) on_ps: Option<Duration>,
    #[serde(default)]
    pub(crate) off_ps: Option<Duration>,
    #[serde(default)]
    pub(crate) periods: Option<Periods>,
    /// MPEG-2 video only: the standard deviation of the rate process...
    #[serde(default)]
    pub(crate) std_bps: Option<f64>,
    #[serde(default)]
    pub(crate) hurst: Option<f64>,
    /// ...rates above which are skipped...
    #[serde(default)]
    pub(crate) peak_bps: Option<f64>,
    /// ...and the range of the uniform inter-MPCR interval.
    #[serde(default)]
    pub(crate) mpcr_min_ps: Option<Duration>,
    #[serde(default)]
    pub(crate) mpcr_max_ps: Option<Duration>,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub(crate) struct SinkDesc {
    pub name: String,
    pub node: String,
}

impl SourceDesc {
    fn size(&self) -> SizeDist {
        match self.size_dist {
            SizeKind::Constant => SizeDist::Constant(self.packet_bytes),
            SizeKind::Exponential => SizeDist::Exponential(self.packet_bytes as f64),
        }
    }

    /// The model, sending as `emitter` says, drawing from `rng`.
    pub(crate) fn build(
        &self,
        emitter: Emitter,
        rng: RngStream,
        duration: Time,
    ) -> Result<Source, ConfigError> {
        self.check()?;
        Ok(match self.kind {
            SourceKind::Cbr => Source::Cbr(Cbr::new(emitter, self.packet_bytes, self.rate_bps)),
            SourceKind::Poisson => {
                Source::Poisson(Poisson::new(emitter, self.size(), self.rate_bps, rng))
            }
            SourceKind::Onoff => Source::OnOff(OnOff::new(
                emitter,
                self.size(),
                self.rate_bps,
                self.on_ps.expect("checked"),
                self.off_ps.expect("checked"),
                self.periods.unwrap_or(Periods::Exponential),
                rng,
            )),
            SourceKind::Mpeg2 => Source::Mpeg2(self.mpeg2(emitter, rng, duration)?),
        })
    }

    fn mpeg2(&self, emitter: Emitter, rng: RngStream, duration: Time) -> Result<Mpeg2, String> {
        let (Some(std_bps), Some(hurst), Some(peak_bps), Some(min), Some(max)) = (
            self.std_bps,
            self.hurst,
            self.peak_bps,
            self.mpcr_min_ps,
            self.mpcr_max_ps,
        ) else {
            return Err(
                "an MPEG-2 source needs std, hurst, peak and the MPCR interval range".into(),
            );
        };
        let span = emitter
            .stop
            .ps()
            .min(duration.ps())
            .saturating_sub(emitter.start.ps());
        let cfg = Mpeg2Config {
            mean_bps: self.rate_bps,
            std_bps,
            hurst,
            peak_bps,
            mpcr_min: min,
            mpcr_max: max,
            cell_bytes: self.packet_bytes,
            block: mpeg2_block(span, min.ps()),
        };
        Mpeg2::new(emitter, cfg, rng)
    }
}

impl Check for SourceDesc {
    fn check(&self) -> Result<(), ConfigError> {
        if !(self.rate_bps.is_finite() && self.rate_bps > 0.0) || self.packet_bytes == 0 {
            return Err("rate and packet size must be positive".into());
        }
        if self.priority > 1 || self.clp > 1 {
            return Err("priority and clp are 0 or 1".into());
        }
        if self.kind == SourceKind::Cbr && self.size_dist != SizeKind::Constant {
            return Err("CBR sizes are constant".into());
        }
        if self.kind == SourceKind::Onoff && (self.on_ps.is_none() || self.off_ps.is_none()) {
            return Err("on/off periods missing".into());
        }
        Ok(())
    }
}

/// fGn values per block: enough for the whole run at the shortest MPCR
/// interval, so the rate sequence of a run is one long-range-dependent
/// sample (blocks are independent of each other).
fn mpeg2_block(duration_ps: u64, mpcr_min_ps: u64) -> usize {
    let intervals = duration_ps / mpcr_min_ps.max(1) + 1;
    // Skipped values need spares; 2x covers a third skipped with margin.
    (2 * intervals).next_power_of_two().clamp(1 << 10, 1 << 22) as usize
}

/// A source and the name of its flow.
pub(crate) struct SourceComp {
    pub name: String,
    pub(crate) source: Source,
}

impl SourceComp {
    pub(crate) const METRICS: &'static [&'static str] = &["sent_packets", "rate_bps"];
}

impl Model for SourceComp {
    fn agents(&self) -> usize {
        0
    }

    fn timers(&self) -> usize {
        1
    }

    fn wakeup(&self, _k: usize, _now: Time) -> Time {
        self.source.poll_at()
    }

    fn on_timer(&mut self, _k: usize, cx: &mut Ctx<'_>) {
        if let Some(p) = self.source.poll(cx.now) {
            cx.out.route(p.src_node, p);
        }
    }

    fn on_pdu(&mut self, _agent: usize, _p: &Pdu, _cx: &mut Ctx<'_>) {
        // A source has no agent: nothing is addressed to it.
    }

    /// `flows.NAME.*`: what the network did to this source's packets.
    fn summarise(&self, s: &mut Summary, view: &View<'_>) {
        let e = self.source.emitter();
        let i = e.flow as usize;
        let f = &view.flows[i];
        let in_flight = view.in_flight[i];
        let elapsed_s = view.now.as_secs_f64();
        let p = format!("flows.{}.", self.name);
        let lost = e.sent_packets - f.received_packets - in_flight;
        let settled = e.sent_packets - in_flight;
        put(s, p.clone() + "sent_packets", e.sent_packets);
        put(s, p.clone() + "sent_bytes", e.sent_bytes);
        put(s, p.clone() + "received_packets", f.received_packets);
        put(s, p.clone() + "received_bytes", f.received_bytes);
        put(s, p.clone() + "in_flight_packets", in_flight);
        put(s, p.clone() + "dropped_packets", f.dropped);
        put(s, p.clone() + "errored_packets", lost - f.dropped.min(lost));
        put(s, p.clone() + "lost_packets", lost);
        let loss_rate = if settled > 0 {
            lost as f64 / settled as f64
        } else {
            f64::NAN
        };
        put(s, p.clone() + "loss_rate", num(loss_rate));
        let active_s = (elapsed_s - e.start.as_secs_f64()).max(0.0);
        put(
            s,
            p.clone() + "throughput_bps",
            num(rate(f.received_bytes, active_s)),
        );
        let d = &f.delay;
        let (min, max) = (d.min(), d.max());
        put(s, p.clone() + "delay_mean_s", num(d.mean() * PS));
        put(s, p.clone() + "delay_min_s", num(min * PS));
        put(s, p.clone() + "delay_max_s", num(max * PS));
        put(s, p.clone() + "delay_p50_s", num(d.quantile(0.5) * PS));
        put(s, p.clone() + "delay_p95_s", num(d.quantile(0.95) * PS));
        put(s, p.clone() + "delay_p99_s", num(d.quantile(0.99) * PS));
        put(s, p.clone() + "jitter_mean_s", num(d.mean_above_min() * PS));
        put(s, p + "jitter_p99_s", num((d.quantile(0.99) - min) * PS));
    }

    fn sample(&self, metric: usize, mem: &mut ProbeMemory, dt: f64, _view: &View<'_>) -> f64 {
        let e = self.source.emitter();
        match Self::METRICS[metric] {
            "sent_packets" => e.sent_packets as f64,
            _ => mem.per_interval(e.sent_bytes as f64 * 8.0, dt),
        }
    }
}

/// A measuring sink: every flow addressed to it is booked in its flow's
/// record, and in the sink's own totals.
pub(crate) struct SinkComp {
    pub name: String,
    pub(crate) sink: Sink,
}

impl SinkComp {
    pub(crate) const METRICS: &'static [&'static str] =
        &["throughput_bps", "received_packets", "delay_mean_s"];
}

impl Model for SinkComp {
    fn agents(&self) -> usize {
        1
    }

    fn timers(&self) -> usize {
        0
    }

    fn wakeup(&self, _k: usize, _now: Time) -> Time {
        Time::NEVER
    }

    fn on_timer(&mut self, _k: usize, _cx: &mut Ctx<'_>) {
        // No timers.
    }

    fn on_pdu(&mut self, _agent: usize, p: &Pdu, cx: &mut Ctx<'_>) {
        self.sink.deliver(cx.now, p, &mut cx.flows[p.flow as usize]);
    }

    fn summarise(&self, s: &mut Summary, view: &View<'_>) {
        let sk = &self.sink;
        let p = format!("sinks.{}.", self.name);
        put(s, p.clone() + "received_packets", sk.received_packets);
        put(s, p.clone() + "received_bytes", sk.received_bytes);
        put(
            s,
            p + "throughput_bps",
            num(rate(sk.received_bytes, view.now.as_secs_f64())),
        );
    }

    fn sample(&self, metric: usize, mem: &mut ProbeMemory, dt: f64, _view: &View<'_>) -> f64 {
        let sk = &self.sink;
        match Self::METRICS[metric] {
            "throughput_bps" => mem.per_interval(sk.received_bytes as f64 * 8.0, dt),
            "received_packets" => sk.received_packets as f64,
            _ => mem.interval_mean(sk.delay_sum_s, sk.received_packets as f64),
        }
    }
}

impl Builder<'_> {
    pub(super) fn sinks(&mut self) -> Result<(), BuildError> {
        for s in &self.d.sinks {
            let node = self.node(&s.node, &at("sinks", &s.name))?;
            let sink = Component::Sink(Box::new(SinkComp {
                name: s.name.clone(),
                sink: Sink::new(node),
            }));
            self.add_named("sink", &s.name, sink);
        }
        Ok(())
    }

    /// The sources, in description order.
    pub(super) fn sources(&mut self) -> Result<Vec<u32>, BuildError> {
        let mut ids = Vec::new();
        for s in &self.d.sources {
            let at = at("sources", &s.name);
            let sink = self.find("sink", "sink", &s.sink, &at)?;
            let Component::Sink(sink_comp) = &self.w.reg.comps[sink as usize] else {
                unreachable!("a sink's id")
            };
            let dst_node = sink_comp.sink.node;
            let emitter = Emitter {
                flow: self.w.new_flows(1),
                src_node: self.node(&s.node, &at)?,
                dst_node,
                dst_agent: self.w.agents_of(sink)[0],
                priority: s.priority,
                clp: s.clp,
                start: s.start_ps,
                // Nothing after the run's end matters: a source never
                // looks past it (a slow MPEG-2 source would search on).
                stop: s.stop_ps.unwrap_or(Time::NEVER).min(self.w.end),
                sent_packets: 0,
                sent_bytes: 0,
            };
            let rng = RngStream::new(self.d.seed, &at);
            let source = checked(s.build(emitter, rng, self.w.end), &at)?;
            let comp = Component::Source(Box::new(SourceComp {
                name: s.name.clone(),
                source,
            }));
            ids.push(self.add_named("source", &s.name, comp));
        }
        Ok(ids)
    }
}
