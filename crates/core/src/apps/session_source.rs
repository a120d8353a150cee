//! Voice and variable-rate video of the proactive-atm thesis (sections
//! 6.2.1.1, 6.2.1.2, 6.2.1.5): sessions and the gaps between them are
//! exponential (mean 15 s each); inside a session the source alternates
//! between two rates held for exponential times (mean 0.5 s each): voice
//! talks at 64 kb/s and is silent, video sends at 512 and 192 kb/s.
//!
//! At the start (and at each session's start) the state is drawn with the
//! probability of its share of the time (a Bernoulli draw, section
//! 6.2.1.5), so the sources do not all start alike. For voice the thesis
//! says this only of sessions; the talk/silence state at a session's start
//! is drawn the same way (docs/proactive-atm.md).
//!
//! A zero gap makes sessions follow one another: the source is always in a
//! session, and each new one begins afresh (new state draw, slow start).
//! That is how the study reads the thesis's video (docs/proactive-atm.md,
//! "The sources' activity").

use crate::engine::{Check, ConfigError, Duration, RngStream, Time};
use serde::{Deserialize, Serialize};

/// A voice or video source of the proactive-atm thesis (section 6.2.1):
/// exponential sessions and gaps, and inside a session two rates held for
/// exponential times.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SessionConfig {
    /// The two rates inside a session (bits/s of cell payload): voice
    /// [64 000, 0], video [512 000, 192 000].
    pub(crate) rates_bps: [f64; 2],
    /// Mean time at each of the two rates.
    #[serde(rename = "holding_ps")]
    pub(crate) holding: [Duration; 2],
    #[serde(rename = "session_ps")]
    pub(crate) session: Duration,
    /// Mean gap between sessions; zero: sessions back to back.
    #[serde(rename = "gap_ps")]
    pub(crate) gap: Duration,
}

impl SessionConfig {
    /// Section 6.2.1.1's voice: 64 kb/s talk and silence, 0.5 s each on
    /// average, in 15 s sessions with 15 s gaps.
    pub fn voice() -> SessionConfig {
        SessionConfig {
            rates_bps: [64_000.0, 0.0],
            holding: [Duration::from_millis(500); 2],
            session: Duration::from_secs_f64(15.0),
            gap: Duration::from_secs_f64(15.0),
        }
    }

    /// Section 6.2.1.2's video: 512 and 192 kb/s, 0.5 s each on average, in
    /// 15 s sessions with 15 s gaps.
    pub fn video() -> SessionConfig {
        SessionConfig {
            rates_bps: [512_000.0, 192_000.0],
            ..SessionConfig::voice()
        }
    }

    /// The mean rate over sessions and gaps.
    #[cfg(test)]
    pub(crate) fn mean_bps(&self) -> f64 {
        let h = [self.holding[0].ps() as f64, self.holding[1].ps() as f64];
        let in_session = (self.rates_bps[0] * h[0] + self.rates_bps[1] * h[1]) / (h[0] + h[1]);
        let (s, g) = (self.session.ps() as f64, self.gap.ps() as f64);
        in_session * s / (s + g)
    }
}

impl Check for SessionConfig {
    fn check(&self) -> Result<(), ConfigError> {
        if self.rates_bps.iter().any(|r| !(r.is_finite() && *r >= 0.0)) {
            return Err("session rates must be zero or more".into());
        }
        if self.rates_bps.iter().all(|r| *r == 0.0) {
            return Err("a session needs a positive rate".into());
        }
        if self
            .holding
            .iter()
            .chain([&self.session])
            .any(|d| d.ps() == 0)
        {
            return Err("the mean holding and session times must be positive".into());
        }
        Ok(())
    }
}

#[derive(Clone, Debug)]
pub(crate) struct SessionSource {
    cfg: SessionConfig,
    in_session: bool,
    /// Which of the two rates, inside a session.
    level: usize,
    session_change: Time,
    level_change: Time,
    pub(crate) sessions: u64,
}

impl SessionSource {
    pub(crate) fn new(cfg: SessionConfig, now: Time, rng: &mut RngStream) -> SessionSource {
        let (s, g) = (cfg.session.ps() as f64, cfg.gap.ps() as f64);
        let in_session = rng.bernoulli(s / (s + g));
        let mut src = SessionSource {
            cfg,
            in_session,
            level: 0,
            session_change: Time::NEVER,
            level_change: Time::NEVER,
            sessions: 0,
        };
        let mean = if in_session {
            src.cfg.session
        } else {
            src.cfg.gap
        };
        src.session_change = now + draw(rng, mean);
        if in_session {
            src.begin_session(now, rng);
        }
        src
    }

    fn begin_session(&mut self, now: Time, rng: &mut RngStream) {
        let h = [
            self.cfg.holding[0].ps() as f64,
            self.cfg.holding[1].ps() as f64,
        ];
        self.level = usize::from(!rng.bernoulli(h[0] / (h[0] + h[1])));
        self.level_change = now + draw(rng, self.cfg.holding[self.level]);
        self.sessions += 1;
    }

    pub(crate) fn in_session(&self) -> bool {
        self.in_session
    }

    /// The nominal rate now (bits/s of payload).
    pub(crate) fn rate_bps(&self) -> f64 {
        if self.in_session {
            self.cfg.rates_bps[self.level]
        } else {
            0.0
        }
    }

    pub(crate) fn next_change(&self) -> Time {
        if self.in_session {
            self.session_change.min(self.level_change)
        } else {
            self.session_change
        }
    }

    /// Applies the changes due by `now`; true when a session began.
    pub(crate) fn advance(&mut self, now: Time, rng: &mut RngStream) -> bool {
        let mut began = false;
        while self.next_change() <= now {
            if self.session_change <= now
                && (!self.in_session || self.session_change <= self.level_change)
            {
                let at = self.session_change;
                if self.in_session && self.cfg.gap.ps() == 0 {
                    self.session_change = at + draw(rng, self.cfg.session);
                    self.begin_session(at, rng);
                    began = true;
                    continue;
                }
                self.in_session = !self.in_session;
                let mean = if self.in_session {
                    self.cfg.session
                } else {
                    self.cfg.gap
                };
                self.session_change = at + draw(rng, mean);
                if self.in_session {
                    self.begin_session(at, rng);
                    began = true;
                }
            } else {
                let at = self.level_change;
                self.level = 1 - self.level;
                self.level_change = at + draw(rng, self.cfg.holding[self.level]);
            }
        }
        began
    }
}

/// An exponential time of mean `mean`, at least 1 ps.
fn draw(rng: &mut RngStream, mean: Duration) -> Duration {
    Duration((rng.exp(mean.ps() as f64).round() as u64).max(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The long-run mean rate: time-weighted over a long run.
    fn measured_mean(cfg: SessionConfig, seed: u64) -> f64 {
        let mut rng = RngStream::new(seed, "sessions");
        let mut s = SessionSource::new(cfg, Time::ZERO, &mut rng);
        let end = Time::from_secs_f64(200_000.0);
        let (mut t, mut bits) = (Time::ZERO, 0.0);
        while t < end {
            let next = s.next_change().min(end);
            bits += s.rate_bps() * next.since(t).as_secs_f64();
            t = next;
            s.advance(t, &mut rng);
        }
        bits / end.as_secs_f64()
    }

    #[test]
    fn voice_averages_32_kbps_and_video_176() {
        // Voice: 64 kb/s half of each session, sessions half of the time:
        // 16 kb/s. Video: (512 + 192)/2 = 352 kb/s in sessions: 176 kb/s.
        assert!((SessionConfig::voice().mean_bps() - 16_000.0).abs() < 1e-6);
        assert!((SessionConfig::video().mean_bps() - 176_000.0).abs() < 1e-6);
        let v = measured_mean(SessionConfig::voice(), 1);
        assert!((v / 16_000.0 - 1.0).abs() < 0.03, "{v}");
        let w = measured_mean(SessionConfig::video(), 2);
        assert!((w / 176_000.0 - 1.0).abs() < 0.03, "{w}");
    }

    #[test]
    fn with_no_gap_sessions_follow_one_another() {
        // Video with back-to-back sessions: always in a session, so its
        // long-run rate is the in-session mean, (512 + 192)/2 = 352 kb/s,
        // and a session begins about every 15 s.
        let cfg = SessionConfig {
            gap: Duration(0),
            ..SessionConfig::video()
        };
        assert!(cfg.check().is_ok());
        assert!((cfg.mean_bps() - 352_000.0).abs() < 1e-6);
        assert!((measured_mean(cfg.clone(), 3) / 352_000.0 - 1.0).abs() < 0.03);
        let mut rng = RngStream::new(4, "sessions");
        let mut s = SessionSource::new(cfg, Time::ZERO, &mut rng);
        let (mut began, end) = (0u64, Time::from_secs_f64(30_000.0));
        while s.next_change() < end {
            assert!(s.in_session() && s.rate_bps() > 0.0);
            began += u64::from(s.advance(s.next_change(), &mut rng));
        }
        let per_session = 30_000.0 / began as f64;
        assert!((per_session / 15.0 - 1.0).abs() < 0.05, "{per_session}");
    }

    #[test]
    fn the_start_state_is_drawn_half_and_half() {
        let n = 4000;
        let active = (0..n)
            .filter(|&i| {
                let mut rng = RngStream::new(i, "start");
                SessionSource::new(SessionConfig::video(), Time::ZERO, &mut rng).in_session()
            })
            .count();
        assert!((active as f64 / n as f64 - 0.5).abs() < 0.03, "{active}");
    }
}
