//! Processes that drive a link's capacity over time: constant, two-state
//! Markov-modulated (the bottleneck model of the TCP/ABR effcap study), or a
//! piecewise-constant trace (optionally periodic).

use crate::engine::{Duration, Rate, RngStream, Time};
use serde::{Deserialize, Serialize};

/// A link's capacity in a scenario description (`links[].capacity`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum CapacityConfig {
    Constant {
        rate_bps: f64,
    },
    Markov {
        rates_bps: [f64; 2],
        mean_holding_ps: [Duration; 2],
        #[serde(default)]
        initial: usize,
    },
    Trace {
        times_ps: Vec<Time>,
        rates_bps: Vec<f64>,
        #[serde(default)]
        period_ps: Option<Duration>,
    },
}

impl CapacityConfig {
    /// Refuses a process that could not run: no positive rate, a trace not
    /// starting at 0 or not increasing, a period not after the last change.
    pub fn check(&self) -> Result<(), String> {
        let rate_ok = |r: &f64| r.is_finite() && *r >= 0.0;
        match self {
            CapacityConfig::Constant { rate_bps } => {
                if !(rate_bps.is_finite() && *rate_bps > 0.0) {
                    return Err("rate must be positive".into());
                }
            }
            CapacityConfig::Markov {
                rates_bps,
                mean_holding_ps,
                initial,
            } => {
                let ok = *initial <= 1
                    && rates_bps.iter().all(rate_ok)
                    && rates_bps.iter().any(|r| *r > 0.0)
                    && mean_holding_ps.iter().all(|d| d.ps() > 0);
                if !ok {
                    return Err("invalid Markov capacity".into());
                }
            }
            CapacityConfig::Trace {
                times_ps,
                rates_bps,
                period_ps,
            } => {
                let ok = !times_ps.is_empty()
                    && times_ps.len() == rates_bps.len()
                    && times_ps[0] == Time::ZERO
                    && times_ps.windows(2).all(|w| w[0] < w[1])
                    && rates_bps.iter().all(rate_ok)
                    && rates_bps.iter().any(|r| *r > 0.0)
                    && period_ps.is_none_or(|p| Time(p.ps()) > times_ps[times_ps.len() - 1]);
                if !ok {
                    return Err("invalid capacity trace".into());
                }
            }
        }
        Ok(())
    }

    /// The process, drawing from `rng` if it is random.
    pub fn build(&self, rng: RngStream) -> CapacityProcess {
        match self {
            CapacityConfig::Constant { rate_bps } => CapacityProcess::constant(*rate_bps),
            CapacityConfig::Markov {
                rates_bps,
                mean_holding_ps,
                initial,
            } => CapacityProcess::markov(*rates_bps, *mean_holding_ps, *initial, rng),
            CapacityConfig::Trace {
                times_ps,
                rates_bps,
                period_ps,
            } => CapacityProcess::trace(Trace {
                times: times_ps.clone(),
                rates: rates_bps.clone(),
                period: *period_ps,
            }),
        }
    }

    /// The rate of a constant capacity, `None` if it varies.
    pub fn constant_rate(&self) -> Option<f64> {
        match self {
            CapacityConfig::Constant { rate_bps } => Some(*rate_bps),
            _ => None,
        }
    }
}

#[derive(Clone, Debug)]
pub struct Trace {
    /// Change instants, starting at 0 and strictly increasing.
    pub times: Vec<Time>,
    pub rates: Vec<f64>,
    /// Restart the trace every `period` when set.
    pub period: Option<Duration>,
}

pub enum CapacityProcess {
    Constant(f64),
    /// State `i` holds for an exponential time with mean `mean_holding[i]`.
    Markov {
        rates: [f64; 2],
        mean_holding: [Duration; 2],
        state: usize,
        next_change: Time,
        rng: RngStream,
    },
    Trace {
        trace: Trace,
        /// Index of the segment in force.
        index: usize,
        /// Start of the current repetition.
        epoch: Time,
    },
}

impl CapacityProcess {
    pub fn constant(bps: f64) -> CapacityProcess {
        CapacityProcess::Constant(bps)
    }

    pub fn markov(
        rates: [f64; 2],
        mean_holding: [Duration; 2],
        initial: usize,
        mut rng: RngStream,
    ) -> CapacityProcess {
        let first = Time::ZERO + holding(&mut rng, mean_holding[initial]);
        CapacityProcess::Markov {
            rates,
            mean_holding,
            state: initial,
            next_change: first,
            rng,
        }
    }

    pub fn trace(trace: Trace) -> CapacityProcess {
        CapacityProcess::Trace {
            trace,
            index: 0,
            epoch: Time::ZERO,
        }
    }

    /// Capacity in force now.
    pub fn rate(&self) -> Rate {
        Rate::from_bps(match self {
            CapacityProcess::Constant(r) => *r,
            CapacityProcess::Markov { rates, state, .. } => rates[*state],
            CapacityProcess::Trace { trace, index, .. } => trace.rates[*index],
        })
    }

    /// When the capacity next changes, `Time::NEVER` if it never does.
    pub fn next_change(&self) -> Time {
        match self {
            CapacityProcess::Constant(_) => Time::NEVER,
            CapacityProcess::Markov { next_change, .. } => *next_change,
            CapacityProcess::Trace {
                trace,
                index,
                epoch,
            } => {
                if index + 1 < trace.times.len() {
                    *epoch + Duration(trace.times[index + 1].0)
                } else if let Some(p) = trace.period {
                    *epoch + p
                } else {
                    Time::NEVER
                }
            }
        }
    }

    /// Applies the change due at `now` (`now == next_change()`).
    pub fn advance(&mut self, now: Time) {
        match self {
            CapacityProcess::Constant(_) => {}
            CapacityProcess::Markov {
                mean_holding,
                state,
                next_change,
                rng,
                ..
            } => {
                *state = 1 - *state;
                *next_change = now + holding(rng, mean_holding[*state]);
            }
            CapacityProcess::Trace {
                trace,
                index,
                epoch,
            } => {
                if *index + 1 < trace.times.len() {
                    *index += 1;
                } else if let Some(p) = trace.period {
                    *index = 0;
                    *epoch += p;
                }
            }
        }
    }
}

/// An exponential holding time, at least 1 ps so time always advances.
fn holding(rng: &mut RngStream, mean: Duration) -> Duration {
    Duration((rng.exp(mean.0 as f64).round() as u64).max(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn periodic_trace_repeats() {
        let mut c = CapacityProcess::trace(Trace {
            times: vec![Time(0), Time(10)],
            rates: vec![1e6, 2e6],
            period: Some(Duration(30)),
        });
        let mut seen = vec![];
        for _ in 0..5 {
            let t = c.next_change();
            c.advance(t);
            seen.push((t.0, c.rate().bps));
        }
        assert_eq!(
            seen,
            vec![(10, 2e6), (30, 1e6), (40, 2e6), (60, 1e6), (70, 2e6)]
        );
    }

    #[test]
    fn markov_time_fractions_match_holding_means() {
        let mut c = CapacityProcess::markov(
            [2e6, 1e6],
            [Duration(3_000), Duration(1_000)],
            0,
            RngStream::new(1, "cap"),
        );
        let mut t = Time::ZERO;
        let mut in_state0 = 0u64;
        for _ in 0..200_000 {
            let next = c.next_change();
            if c.rate().bps == 2e6 {
                in_state0 += next.0 - t.0;
            }
            t = next;
            c.advance(t);
        }
        let frac = in_state0 as f64 / t.0 as f64;
        assert!((frac - 0.75).abs() < 0.01, "fraction in state 0: {frac}");
    }
}
