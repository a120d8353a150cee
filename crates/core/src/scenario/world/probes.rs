//! Probes: the `probes` section, named quantities sampled every
//! `sample_interval` into time series. Each kind of target lists its own
//! metrics in its file; `METRICS` gathers them, in the order the scenario
//! format shows them, and is what the Python validator checks names
//! against.

use super::build::{at, Builder, Names};
use super::emulated::EmulatedHost;
use super::links;
use super::ports::PortKind;
use super::sources::{SinkComp, SourceComp};
use super::tcp::TcpConn;
use super::tfrc::TfrcFlow;
use super::World;
use crate::engine::stats::TimeSeries;
use crate::scenario::BuildError;
use serde::{Deserialize, Serialize};

/// A `probes[]` entry: one metric of one target, sampled every
/// `sample_interval_ps` into a time series.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ProbeDesc {
    /// Its name in the description (`probes.NAME`), which names its series.
    pub name: String,
    /// "link", "sink", "source" or "tcp".
    pub(crate) target: String,
    /// Name of the target.
    pub(crate) of: String,
    pub(crate) metric: String,
}

/// Every probe target and its metrics.
pub fn metrics() -> Vec<(&'static str, Vec<&'static str>)> {
    let link = links::METRICS.iter().chain(PortKind::METRICS).copied();
    vec![
        ("link", link.collect()),
        ("sink", SinkComp::METRICS.to_vec()),
        ("source", SourceComp::METRICS.to_vec()),
        ("tcp", TcpConn::METRICS.to_vec()),
        ("tfrc", TfrcFlow::METRICS.to_vec()),
        ("emulate", EmulatedHost::METRICS.to_vec()),
    ]
}

/// The index of `metric` among the metrics of `target`.
pub(crate) fn metric_index(target: &str, metric: &str) -> Option<usize> {
    metrics()
        .into_iter()
        .find(|(t, _)| *t == target)?
        .1
        .iter()
        .position(|m| *m == metric)
}

/// What a probe samples.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// A link, by its index in the description's `links`.
    Link(u32),
    /// A sink, source, TCP connection, TFRC flow or emulated host, by its
    /// component id.
    Component(u32),
}

/// What a probe remembers between samples, for rates and means over the
/// interval.
#[derive(Copy, Clone, Debug, Default)]
pub(crate) struct ProbeMemory {
    /// Cumulative counters at the previous sample.
    last: (f64, f64),
}

impl ProbeMemory {
    /// Rate of a cumulative counter over the interval since the last sample.
    pub(crate) fn per_interval(&mut self, cumulative: f64, interval_s: f64) -> f64 {
        let d = cumulative - self.last.0;
        self.last.0 = cumulative;
        d / interval_s
    }

    /// Mean of a cumulative sum over a cumulative count since the last sample.
    pub(crate) fn interval_mean(&mut self, sum: f64, count: f64) -> f64 {
        let (ds, dn) = (sum - self.last.0, count - self.last.1);
        self.last = (sum, count);
        if dn > 0.0 {
            ds / dn
        } else {
            f64::NAN
        }
    }
}

/// A probe while the run goes on: what it samples and the series of its
/// samples.
pub struct Probe {
    /// Its name in the description (`probes.NAME`).
    pub name: String,
    pub(crate) target: Target,
    /// Index into the target kind's metrics.
    pub(crate) metric: usize,
    memory: ProbeMemory,
    /// Its samples: the time of each (s) and the metric's value then.
    pub series: TimeSeries,
}

impl Probe {
    /// A probe of `metric` (an index into the target kind's metrics) of
    /// `target`, with no samples yet.
    pub fn new(name: String, target: Target, metric: usize) -> Probe {
        Probe {
            name,
            target,
            metric,
            memory: ProbeMemory::default(),
            series: TimeSeries::default(),
        }
    }
}

/// The current value of probe `k`; `dt` is the sampling interval.
pub(crate) fn measure(w: &mut World, k: usize, dt: f64) -> f64 {
    let (target, metric) = (w.probes[k].target, w.probes[k].metric);
    let mut mem = w.probes[k].memory;
    let v = match target {
        Target::Link(l) => {
            let v = links::sample(w, l as usize, metric, &mut mem, dt);
            w.book_link_errors(l as usize);
            v
        }
        Target::Component(c) => {
            let view = w.view(&[]);
            w.reg.comps[c as usize]
                .model()
                .sample(metric, &mut mem, dt, &view)
        }
    };
    w.probes[k].memory = mem;
    v
}

impl Builder<'_> {
    pub(super) fn probes(&mut self) -> Result<(), BuildError> {
        let link_ix = Names::of(self.d.links.iter().map(|l| l.name.as_str()));
        for p in &self.d.probes {
            let at = at("probes", &p.name);
            let target = match p.target.as_str() {
                "link" => Target::Link(link_ix.find("link", &p.of, &at)?),
                "sink" => Target::Component(self.find("sink", "sink", &p.of, &at)?),
                "source" => Target::Component(self.find("source", "source", &p.of, &at)?),
                "tcp" => Target::Component(self.find("tcp", "tcp connection", &p.of, &at)?),
                "tfrc" => Target::Component(self.find("tfrc", "tfrc flow", &p.of, &at)?),
                "emulate" => {
                    Target::Component(self.find("emulate", "emulated host", &p.of, &at)?)
                }
                other => {
                    return Err(BuildError::at(
                        &at,
                        format!("unknown probe target {other:?}"),
                    ))
                }
            };
            let metric = metric_index(&p.target, &p.metric)
                .ok_or_else(|| BuildError::at(&at, format!("unknown metric {:?}", p.metric)))?;
            self.w
                .probes
                .push(Probe::new(p.name.clone(), target, metric));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_metric_has_a_unique_name_within_its_target() {
        for (target, ms) in metrics() {
            let mut sorted = ms.clone();
            sorted.sort();
            sorted.dedup();
            assert_eq!(sorted.len(), ms.len(), "{target}");
            for m in ms {
                assert!(metric_index(target, m).is_some());
            }
        }
    }
}
