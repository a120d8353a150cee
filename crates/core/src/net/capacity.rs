//! Processes that drive a link's capacity over time: constant, two-state
//! Markov-modulated (the bottleneck model of the TCP/ABR effcap study), or a
//! piecewise-constant trace (optionally periodic), or the slots a TDMA
//! station owns (`slot_schedule`: a DVB-RCS terminal's share of the
//! return channel, replanned while the run goes on).
//!
//! The Markov chain runs in continuous time (exponential holding times) or,
//! as in the effcap paper's testbed (section 4), in discrete time: it may
//! change state only at multiples of a `step` (its 30 ms measurement
//! interval), leaving state i at each step with probability `step /
//! mean_holding[i]`, so holding times are geometric multiples of the step
//! with the same means.

use super::slot_schedule::{SlotGrid, SlotRun, SlotSchedule};
use crate::engine::{Check, ConfigError, Duration, Rate, RngStream, Time};
use serde::{Deserialize, Serialize};

/// A link's capacity in a scenario description (`links[].capacity`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum CapacityConfig {
    /// A constant rate (`links.NAME.rate`, or `capacity.type = "constant"`).
    Constant {
        /// The link's transmission rate, bit/s.
        rate_bps: f64,
    },
    /// Two-state Markov-modulated capacity, the bottleneck of the effcap
    /// paper.
    Markov {
        /// The rate in each of the two states, bit/s; at most one may be
        /// zero (an outage).
        rates_bps: [f64; 2],
        /// Mean time spent in each state, ps: of an exponential holding
        /// time, or of a geometric number of steps with `step_ps`.
        mean_holding_ps: [Duration; 2],
        /// The state at time 0, 0 or 1; default 0.
        #[serde(default)]
        initial: usize,
        /// Changes only at multiples of this step (discrete time).
        #[serde(default)]
        step_ps: Option<Duration>,
    },
    /// A piecewise-constant trace of rates, optionally repeated.
    Trace {
        /// The instants at which the rate changes, ps: starting at 0 and
        /// strictly increasing.
        times_ps: Vec<Time>,
        /// The rate from each instant of `times_ps` on, bit/s: one per time,
        /// none negative, not all zero.
        rates_bps: Vec<f64>,
        /// Restart the trace every this long (ps, after the last change);
        /// default `None`: the last rate holds to the end of the run.
        #[serde(default)]
        period_ps: Option<Duration>,
    },
    /// The channel rate inside a run of slots of each period, nothing
    /// outside; the run is replanned per epoch during the run.
    Slotted {
        /// The channel rate, bit/s: what the station sends at inside its
        /// run.
        rate_bps: f64,
        /// Length of one slot, ps.
        slot_ps: Duration,
        /// Slots in a period (a DVB-RCS multi-frame).
        slots_per_period: u32,
        /// Periods in an epoch (a super-frame: the span one burst time plan
        /// covers).
        periods_per_epoch: u32,
        /// The run before the first plan.
        #[serde(default)]
        first_slot: u32,
        /// Length of that run, in slots; default 0: nothing can be sent
        /// before the first plan.
        #[serde(default)]
        slot_count: u32,
    },
    /// A terminal's uplink on the DVB-RCS channel `channel`
    /// (`[dvb_rcs.NAME]`), which gives it its slotted capacity when the
    /// world is built; nothing until then.
    DvbRcs {
        /// Name of the channel the terminal sends on (`dvb_rcs.NAME`).
        channel: String,
    },
}

impl CapacityConfig {
    /// The process, drawing from `rng` if it is random.
    pub fn build(&self, rng: RngStream) -> CapacityProcess {
        match self {
            CapacityConfig::Constant { rate_bps } => CapacityProcess::constant(*rate_bps),
            CapacityConfig::Markov {
                rates_bps,
                mean_holding_ps,
                initial,
                step_ps,
            } => {
                let chain = Chain {
                    rates: *rates_bps,
                    mean_holding: *mean_holding_ps,
                    step: *step_ps,
                };
                CapacityProcess::markov(chain, *initial, rng)
            }
            CapacityConfig::Trace {
                times_ps,
                rates_bps,
                period_ps,
            } => CapacityProcess::trace(Trace {
                times: times_ps.clone(),
                rates: rates_bps.clone(),
                period: *period_ps,
            }),
            CapacityConfig::Slotted { .. } => {
                let (grid, run) = self.slots().expect("slotted");
                CapacityProcess::Slotted(SlotSchedule::new(grid, run))
            }
            CapacityConfig::DvbRcs { .. } => CapacityProcess::constant(0.0),
        }
    }

    /// The grid and first run of a slotted capacity.
    fn slots(&self) -> Option<(SlotGrid, SlotRun)> {
        match self {
            CapacityConfig::Slotted {
                rate_bps,
                slot_ps,
                slots_per_period,
                periods_per_epoch,
                first_slot,
                slot_count,
            } => Some((
                SlotGrid {
                    rate_bps: *rate_bps,
                    slot: *slot_ps,
                    slots_per_period: *slots_per_period,
                    periods_per_epoch: *periods_per_epoch,
                },
                SlotRun {
                    start: *first_slot,
                    count: *slot_count,
                },
            )),
            _ => None,
        }
    }

    /// The rate of a constant capacity, `None` if it varies.
    pub(crate) fn constant_rate(&self) -> Option<f64> {
        match self {
            CapacityConfig::Constant { rate_bps } => Some(*rate_bps),
            _ => None,
        }
    }
}

impl Check for CapacityConfig {
    /// Refuses a process that could not run: no positive rate, a trace not
    /// starting at 0 or not increasing, a period not after the last change.
    fn check(&self) -> Result<(), ConfigError> {
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
                step_ps,
            } => {
                let ok = *initial <= 1
                    && rates_bps.iter().all(rate_ok)
                    && rates_bps.iter().any(|r| *r > 0.0)
                    && mean_holding_ps.iter().all(|d| d.ps() > 0);
                if !ok {
                    return Err("invalid Markov capacity".into());
                }
                if let Some(step) = step_ps {
                    if step.ps() == 0 || mean_holding_ps.iter().any(|d| d < step) {
                        return Err(
                            "a Markov step must be positive and at most each mean holding time"
                                .into(),
                        );
                    }
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
            CapacityConfig::Slotted { .. } => {
                let (grid, run) = self.slots().expect("slotted");
                grid.check()?;
                if run.start + run.count > grid.slots_per_period {
                    return Err("the first run of slots overruns the period".into());
                }
            }
            CapacityConfig::DvbRcs { .. } => {}
        }
        Ok(())
    }
}

/// A piecewise-constant capacity trace: its change instants and rates.
#[derive(Clone, Debug)]
pub struct Trace {
    /// Change instants, starting at 0 and strictly increasing.
    pub(crate) times: Vec<Time>,
    pub(crate) rates: Vec<f64>,
    /// Restart the trace every `period` when set.
    pub(crate) period: Option<Duration>,
}

/// A two-state Markov chain's parameters.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Chain {
    pub(crate) rates: [f64; 2],
    /// Mean time in each state.
    pub(crate) mean_holding: [Duration; 2],
    /// Discrete time: changes only at multiples of this step.
    pub step: Option<Duration>,
}

impl Chain {
    /// A time in `state`: exponential, or in discrete time a whole number
    /// of steps, geometric with the same mean (at least 1 ps, so time
    /// always advances).
    fn holding(&self, rng: &mut RngStream, state: usize) -> Duration {
        let mean = self.mean_holding[state];
        match self.step {
            None => Duration((rng.exp(mean.0 as f64).round() as u64).max(1)),
            Some(step) => {
                let leave = (step.0 as f64 / mean.0 as f64).min(1.0);
                Duration(step.0.max(1) * rng.trials_to_success(leave))
            }
        }
    }
}

/// A link's capacity as it varies during the run, built from a
/// [`CapacityConfig`].
pub enum CapacityProcess {
    /// A constant rate, bit/s.
    Constant(f64),
    /// State `i` holds for a time with mean `chain.mean_holding[i]`.
    Markov {
        /// The chain's rates, mean holding times and step.
        chain: Chain,
        /// The state in force, 0 or 1.
        state: usize,
        /// When the chain next leaves `state`.
        next_change: Time,
        /// The random stream the holding times are drawn from.
        rng: RngStream,
    },
    /// A trace, repeated if it has a period.
    Trace {
        /// The trace's change instants and rates.
        trace: Trace,
        /// Index of the segment in force.
        index: usize,
        /// Start of the current repetition.
        epoch: Time,
    },
    /// The slots a TDMA station owns (a DVB-RCS terminal's uplink),
    /// replanned while the run goes on.
    Slotted(SlotSchedule),
}

impl CapacityProcess {
    /// A constant capacity of `bps` bits per second.
    pub fn constant(bps: f64) -> CapacityProcess {
        CapacityProcess::Constant(bps)
    }

    pub(crate) fn markov(chain: Chain, initial: usize, mut rng: RngStream) -> CapacityProcess {
        let first = Time::ZERO + chain.holding(&mut rng, initial);
        CapacityProcess::Markov {
            chain,
            state: initial,
            next_change: first,
            rng,
        }
    }

    pub(crate) fn trace(trace: Trace) -> CapacityProcess {
        CapacityProcess::Trace {
            trace,
            index: 0,
            epoch: Time::ZERO,
        }
    }

    /// Capacity in force now.
    pub(crate) fn rate(&self) -> Rate {
        Rate::from_bps(match self {
            CapacityProcess::Constant(r) => *r,
            CapacityProcess::Markov { chain, state, .. } => chain.rates[*state],
            CapacityProcess::Trace { trace, index, .. } => trace.rates[*index],
            CapacityProcess::Slotted(s) => s.rate_bps(),
        })
    }

    /// When the capacity next changes, `Time::NEVER` if it never does.
    pub(crate) fn next_change(&self) -> Time {
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
            CapacityProcess::Slotted(s) => s.next_change(),
        }
    }

    /// The slot schedule of a slotted capacity.
    pub(crate) fn slots(&self) -> Option<&SlotSchedule> {
        match self {
            CapacityProcess::Slotted(s) => Some(s),
            _ => None,
        }
    }

    /// The slot schedule of a slotted capacity, to give it new plans.
    pub(crate) fn slots_mut(&mut self) -> Option<&mut SlotSchedule> {
        match self {
            CapacityProcess::Slotted(s) => Some(s),
            _ => None,
        }
    }

    /// Applies the change due at `now` (`now == next_change()`).
    pub(crate) fn advance(&mut self, now: Time) {
        match self {
            CapacityProcess::Constant(_) => {}
            CapacityProcess::Markov {
                chain,
                state,
                next_change,
                rng,
            } => {
                *state = 1 - *state;
                *next_change = now + chain.holding(rng, *state);
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
            CapacityProcess::Slotted(s) => s.advance(now),
        }
    }
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
        let chain = Chain {
            rates: [2e6, 1e6],
            mean_holding: [Duration(3_000), Duration(1_000)],
            step: None,
        };
        let mut c = CapacityProcess::markov(chain, 0, RngStream::new(1, "cap"));
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

    /// The effcap testbed's chain: 30 ms steps, 100 and 50 KB/s, symmetric
    /// mean sojourn 90 ms. Every change falls on a step; sojourns are whole
    /// numbers of steps, geometric with mean 3 steps; half the time in each
    /// state, so a mean of 75 KB/s.
    #[test]
    fn stepped_markov_changes_on_steps_with_the_asked_sojourns() {
        let step = Duration::from_millis(30);
        let chain = Chain {
            rates: [800_000.0, 400_000.0],
            mean_holding: [Duration::from_millis(90); 2],
            step: Some(step),
        };
        let mut c = CapacityProcess::markov(chain, 0, RngStream::new(7, "cap"));
        let (mut t, mut bits, mut sojourns) = (Time::ZERO, 0.0, [vec![], vec![]]);
        for _ in 0..100_000 {
            let next = c.next_change();
            assert_eq!(next.0 % step.0, 0, "a change off the step grid at {next}");
            let state = usize::from(c.rate().bps < 600_000.0);
            sojourns[state].push(next.since(t).0 / step.0);
            bits += c.rate().bits_in(next.since(t));
            t = next;
            c.advance(t);
        }
        for s in &sojourns {
            let mean = s.iter().sum::<u64>() as f64 / s.len() as f64;
            assert!((mean - 3.0).abs() < 0.05, "mean sojourn {mean} steps");
            // Geometric: P(one step) = 1/3.
            let one = s.iter().filter(|k| **k == 1).count() as f64 / s.len() as f64;
            assert!((one - 1.0 / 3.0).abs() < 0.01, "P(1 step) = {one}");
        }
        let mean_rate = bits / t.as_secs_f64();
        assert!((mean_rate - 600_000.0).abs() < 6_000.0, "{mean_rate}");
    }

    #[test]
    fn a_step_longer_than_a_mean_sojourn_is_refused() {
        let c = CapacityConfig::Markov {
            rates_bps: [1e6, 5e5],
            mean_holding_ps: [Duration::from_millis(20), Duration::from_millis(90)],
            initial: 0,
            step_ps: Some(Duration::from_millis(30)),
        };
        assert!(c.check().unwrap_err().to_string().contains("step"));
    }
}
