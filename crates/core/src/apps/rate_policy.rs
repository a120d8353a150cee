//! A source's rate control in the proactive-atm thesis (section 5.3) with
//! its slow start (section 6.2.1.4), as a factor on the source's nominal
//! rate:
//!
//! - a session (a voice or video session, a file transfer) starts at 50 %
//!   of nominal and gains 10 % of nominal every round trip T_rt until it
//!   reaches nominal or is first told of congestion; from then on it gains
//!   2 % of nominal per T_rt;
//! - a type-0 notification (the link's input rate) cuts the rate by 20 %
//!   of its current value, and the next ones are ignored for one T_rt; a
//!   type-2 notification (a discarded cell) cuts it by 50 %, and is never
//!   ignored;
//! - voice and video never go below 50 % of nominal nor above nominal;
//!   data may fall to zero and has no ceiling;
//! - the round of increases restarts one T_rt after each cut.
//!
//! With `adaptive = false` (the thesis's case 1) notifications are ignored
//! and the rate stays at nominal once slow start has reached it.

pub use crate::atm::congestion_detector::Notice;
use crate::engine::{Check, ConfigError, Duration, Time};
use serde::{Deserialize, Serialize};

/// A cell source's rate control (the proactive-atm thesis, section 5.3) and
/// slow start (section 6.2.1.4), as fractions of its nominal rate
/// (`cell_sources.NAME.policy`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RatePolicyConfig {
    /// T_rt: the round-trip propagation delay to the destination.
    #[serde(rename = "rtt_ps")]
    pub(crate) rtt: Duration,
    /// Follow congestion notifications (`rate_control`, default true); false
    /// is the thesis's case 1: the rate stays at nominal once slow start
    /// reached it.
    #[serde(default = "yes")]
    pub adaptive: bool,
    #[serde(default = "slow_start_initial")]
    pub(crate) slow_start_initial: f64,
    #[serde(default = "slow_start_step")]
    pub(crate) slow_start_step: f64,
    #[serde(default = "increase_step")]
    pub(crate) increase_step: f64,
    /// Fraction of the current rate a type-0 notification takes off.
    #[serde(default = "rate_cut")]
    pub(crate) rate_cut: f64,
    /// Fraction of the current rate a type-2 notification takes off.
    #[serde(default = "discard_cut")]
    pub(crate) discard_cut: f64,
    /// The least factor (0.5 voice and video, 0 data).
    pub(crate) floor: f64,
    /// The greatest factor (1 voice and video); none for data.
    #[serde(default)]
    pub(crate) ceiling: Option<f64>,
}

fn yes() -> bool {
    true
}
fn slow_start_initial() -> f64 {
    0.5
}
fn slow_start_step() -> f64 {
    0.1
}
fn increase_step() -> f64 {
    0.02
}
fn rate_cut() -> f64 {
    0.2
}
fn discard_cut() -> f64 {
    0.5
}

impl RatePolicyConfig {
    /// The thesis's policy for voice and video (floor 50 %, ceiling 100 %).
    pub fn real_time(rtt: Duration) -> RatePolicyConfig {
        RatePolicyConfig {
            rtt,
            adaptive: true,
            slow_start_initial: slow_start_initial(),
            slow_start_step: slow_start_step(),
            increase_step: increase_step(),
            rate_cut: rate_cut(),
            discard_cut: discard_cut(),
            floor: 0.5,
            ceiling: Some(1.0),
        }
    }

    /// The thesis's policy for data (no floor, no ceiling).
    pub fn data(rtt: Duration) -> RatePolicyConfig {
        RatePolicyConfig {
            floor: 0.0,
            ceiling: None,
            ..RatePolicyConfig::real_time(rtt)
        }
    }
}

impl Check for RatePolicyConfig {
    fn check(&self) -> Result<(), ConfigError> {
        if self.rtt.ps() == 0 {
            return Err("the round trip T_rt must be positive".into());
        }
        let unit = |x: f64| x.is_finite() && (0.0..=1.0).contains(&x);
        for (name, v) in [
            ("slow_start_initial", self.slow_start_initial),
            ("slow_start_step", self.slow_start_step),
            ("increase_step", self.increase_step),
            ("rate_cut", self.rate_cut),
            ("discard_cut", self.discard_cut),
            ("floor", self.floor),
        ] {
            if !unit(v) {
                return Err(ConfigError::new(format!(
                    "{name} must lie in [0, 1], got {v}"
                )));
            }
        }
        if self
            .ceiling
            .is_some_and(|c| !(c.is_finite() && c >= self.floor))
        {
            return Err("the ceiling must be at least the floor".into());
        }
        Ok(())
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct PolicyStats {
    pub(crate) rate_notices: u64,
    pub(crate) rate_notices_ignored: u64,
    pub(crate) discard_notices: u64,
}

#[derive(Clone, Debug)]
pub(crate) struct RatePolicy {
    cfg: RatePolicyConfig,
    /// The rate as a fraction of nominal.
    factor: f64,
    slow_start: bool,
    /// Type-0 notifications before this are ignored.
    ignore_until: Time,
    next_increase: Time,
    pub stats: PolicyStats,
}

impl RatePolicy {
    pub(crate) fn new(cfg: RatePolicyConfig) -> RatePolicy {
        RatePolicy {
            factor: 1.0,
            slow_start: false,
            ignore_until: Time::ZERO,
            next_increase: Time::NEVER,
            cfg,
            stats: PolicyStats::default(),
        }
    }

    pub(crate) fn factor(&self) -> f64 {
        self.factor
    }

    /// A session starts at `now`: slow start from 50 % of nominal.
    pub(crate) fn start(&mut self, now: Time) {
        self.factor = self.cfg.slow_start_initial;
        self.slow_start = true;
        self.next_increase = now + self.cfg.rtt;
    }

    /// The session ended: no more increases until the next.
    pub(crate) fn stop(&mut self) {
        self.next_increase = Time::NEVER;
    }

    pub(crate) fn poll_at(&self) -> Time {
        self.next_increase
    }

    /// The round-trip timer: one increase per T_rt.
    pub(crate) fn poll(&mut self, now: Time) {
        while now >= self.next_increase {
            self.next_increase += self.cfg.rtt;
            if self.slow_start {
                self.factor += self.cfg.slow_start_step;
                if self.factor >= 1.0 - 1e-12 {
                    self.factor = 1.0;
                    self.slow_start = false;
                }
            } else if self.cfg.adaptive {
                self.factor += self.cfg.increase_step;
            } else {
                // Case 1: nominal is where slow start ends, and stays.
                self.next_increase = Time::NEVER;
            }
            self.clamp();
        }
    }

    fn clamp(&mut self) {
        if let Some(c) = self.cfg.ceiling {
            self.factor = self.factor.min(c);
        }
        self.factor = self.factor.max(self.cfg.floor);
    }

    /// A notification reached the source at `now`.
    pub(crate) fn on_notice(&mut self, now: Time, notice: Notice) {
        if !self.cfg.adaptive {
            return;
        }
        match notice {
            Notice::InputRate => {
                self.stats.rate_notices += 1;
                if now < self.ignore_until {
                    self.stats.rate_notices_ignored += 1;
                    return;
                }
                self.factor *= 1.0 - self.cfg.rate_cut;
                self.ignore_until = now + self.cfg.rtt;
            }
            Notice::Discard => {
                self.stats.discard_notices += 1;
                self.factor *= 1.0 - self.cfg.discard_cut;
            }
        }
        self.slow_start = false;
        self.clamp();
        if self.next_increase != Time::NEVER {
            self.next_increase = now + self.cfg.rtt;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RTT: Duration = Duration(560_000_000_000);

    fn at(rtts: f64) -> Time {
        Time((rtts * RTT.ps() as f64).round() as u64)
    }

    #[test]
    fn slow_start_climbs_a_tenth_per_round_trip_to_nominal() {
        let mut p = RatePolicy::new(RatePolicyConfig::real_time(RTT));
        p.start(Time::ZERO);
        let mut seen = vec![p.factor()];
        for k in 1..=7 {
            p.poll(at(k as f64));
            seen.push(p.factor());
        }
        let want = [0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.0, 1.0];
        assert!(
            seen.iter().zip(want).all(|(a, b)| (a - b).abs() < 1e-9),
            "{seen:?}"
        );
    }

    #[test]
    fn cuts_and_recovery_follow_the_thesis() {
        let mut p = RatePolicy::new(RatePolicyConfig::data(RTT));
        p.start(Time::ZERO);
        p.poll(at(5.0)); // nominal
        p.on_notice(at(5.5), Notice::InputRate);
        assert!((p.factor() - 0.8).abs() < 1e-12);
        // A second type 0 within the round trip is ignored; a type 2 is not.
        p.on_notice(at(5.9), Notice::InputRate);
        assert!((p.factor() - 0.8).abs() < 1e-12);
        p.on_notice(at(6.0), Notice::Discard);
        assert!((p.factor() - 0.4).abs() < 1e-12);
        assert_eq!(p.stats.rate_notices_ignored, 1);
        // From one round trip after the last cut, 2 % of nominal per round
        // trip, and data has no ceiling.
        p.poll(at(6.9));
        assert!((p.factor() - 0.4).abs() < 1e-12);
        p.poll(at(7.0));
        assert!((p.factor() - 0.42).abs() < 1e-12);
        p.poll(at(7.0 + 40.0));
        assert!((p.factor() - 1.22).abs() < 1e-9, "{}", p.factor());
    }

    #[test]
    fn voice_and_video_stay_between_half_and_full_rate() {
        let mut p = RatePolicy::new(RatePolicyConfig::real_time(RTT));
        p.start(Time::ZERO);
        for k in 0..10 {
            p.on_notice(at(1.0 + k as f64 * 2.0), Notice::Discard);
        }
        assert_eq!(p.factor(), 0.5);
        p.poll(at(100.0));
        assert_eq!(p.factor(), 1.0);
        // Data may stop altogether.
        let mut d = RatePolicy::new(RatePolicyConfig::data(RTT));
        d.start(Time::ZERO);
        for k in 0..60 {
            d.on_notice(at(1.0 + k as f64 * 0.01), Notice::Discard);
        }
        assert!(d.factor() < 1e-15);
    }

    #[test]
    fn without_adaptation_only_slow_start_moves_the_rate() {
        let mut p = RatePolicy::new(RatePolicyConfig {
            adaptive: false,
            ..RatePolicyConfig::data(RTT)
        });
        p.start(Time::ZERO);
        p.on_notice(at(0.5), Notice::Discard);
        p.poll(at(20.0));
        assert_eq!(p.factor(), 1.0);
        assert_eq!(p.poll_at(), Time::NEVER);
    }
}
