//! A constant-rate media application feeding a transport's finite transmit
//! buffer (the tfrc-dama paper, section 2.3 and Table II): the encoder
//! emits one packet every packet_bytes·8/rate seconds whatever the
//! transport may send; a packet that finds the buffer full is lost to
//! overflow and counted. Each packet is known by its generation time,
//! which the receiver's de-jitter point measures the end-to-end delay from.

use crate::engine::{Check, ConfigError, Duration, Time};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// The highest media rate, bits/s (as the scenario format's rate cap).
pub(crate) const MAX_RATE_BPS: f64 = 1e12;

/// A constant-rate media encoder and the transport's transmit buffer it
/// feeds (`tfrc.NAME.media`; the tfrc-dama paper, section 2.3 and Table II).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MediaConfig {
    /// Media rate, bits/s of whole packets on the wire.
    pub rate_bps: f64,
    /// Transmit buffer, packets (Table II's "transmit buffer").
    pub buffer_packets: u32,
    /// How long the encoder runs; None: to the end of the run.
    #[serde(
        default,
        rename = "duration_ps",
        skip_serializing_if = "Option::is_none"
    )]
    pub duration: Option<Duration>,
}

impl MediaConfig {}

impl Check for MediaConfig {
    fn check(&self) -> Result<(), ConfigError> {
        if !(self.rate_bps.is_finite() && self.rate_bps > 0.0) {
            return Err(ConfigError::new(format!(
                "media rate_bps must be positive, got {}",
                self.rate_bps
            )));
        }
        // Beyond 1 Tb/s a packet's interval is a few picoseconds: the
        // clock's resolution, and an encoder that would never let time on.
        if self.rate_bps > MAX_RATE_BPS {
            return Err(ConfigError::new(format!(
                "media rate_bps must be at most {MAX_RATE_BPS:e}, got {}",
                self.rate_bps
            )));
        }
        if self.buffer_packets == 0 {
            return Err("media buffer_packets must be at least 1".into());
        }
        if self.duration.is_some_and(|d| d.ps() == 0) {
            return Err("media duration must be positive".into());
        }
        Ok(())
    }
}

#[derive(Clone, Debug)]
pub(crate) struct MediaSource {
    interval: Duration,
    capacity: usize,
    next: Time,
    stop: Time,
    /// Generation times of the packets waiting in the transmit buffer.
    buffer: VecDeque<Time>,
    pub(crate) generated: u64,
    pub overflow: u64,
    pub(crate) buffer_max: usize,
    /// The same counts for the packets generated before `window_end` (a
    /// flow's first seconds, where slow start makes its losses).
    window_end: Time,
    pub(crate) window_generated: u64,
    pub(crate) window_overflow: u64,
}

impl MediaSource {
    /// An encoder of `packet_bytes` packets starting at `start` (at least a
    /// picosecond between packets, so that it always lets time move on).
    pub(crate) fn new(cfg: &MediaConfig, packet_bytes: u32, start: Time) -> MediaSource {
        let interval = Duration::from_secs_f64(f64::from(packet_bytes) * 8.0 / cfg.rate_bps);
        let interval = Duration(interval.ps().max(1));
        MediaSource {
            interval,
            capacity: cfg.buffer_packets as usize,
            next: start,
            stop: cfg.duration.map_or(Time::NEVER, |d| start + d),
            buffer: VecDeque::new(),
            generated: 0,
            overflow: 0,
            buffer_max: 0,
            window_end: Time::NEVER,
            window_generated: 0,
            window_overflow: 0,
        }
    }

    /// Counts the packets generated in the first `window` apart.
    pub(crate) fn with_window(mut self, start: Time, window: Duration) -> MediaSource {
        self.window_end = start + window;
        self
    }

    /// When the next packet is generated (`Time::NEVER` once stopped).
    pub(crate) fn poll_at(&self) -> Time {
        if self.next < self.stop {
            self.next
        } else {
            Time::NEVER
        }
    }

    /// Generates every packet due by `now`.
    pub(crate) fn generate(&mut self, now: Time) {
        while self.next <= now && self.next < self.stop {
            let early = self.next < self.window_end;
            self.generated += 1;
            self.window_generated += u64::from(early);
            if self.buffer.len() < self.capacity {
                self.buffer.push_back(self.next);
                self.buffer_max = self.buffer_max.max(self.buffer.len());
            } else {
                self.overflow += 1;
                self.window_overflow += u64::from(early);
            }
            self.next += self.interval;
        }
    }

    /// The oldest waiting packet's generation time, taken for sending.
    pub(crate) fn take(&mut self) -> Option<Time> {
        self.buffer.pop_front()
    }

    pub(crate) fn waiting(&self) -> usize {
        self.buffer.len()
    }

    /// The encoder has stopped and the buffer is empty.
    pub(crate) fn done(&self) -> bool {
        self.poll_at() == Time::NEVER && self.buffer.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(rate_bps: f64, buffer_packets: u32) -> MediaConfig {
        MediaConfig {
            rate_bps,
            buffer_packets,
            duration: None,
        }
    }

    #[test]
    fn emits_at_the_media_rate() {
        // 1316 B at 256 kb/s: one packet every 41.125 ms.
        let mut m = MediaSource::new(&cfg(256_000.0, 1000), 1316, Time::ZERO);
        m.generate(Time::from_secs_f64(1.0));
        assert_eq!(m.generated, 25);
        assert_eq!(m.take(), Some(Time::ZERO));
        assert_eq!(m.take(), Some(Time(41_125_000_000)));
    }

    #[test]
    fn a_full_buffer_overflows_and_counts() {
        let mut m = MediaSource::new(&cfg(16_000.0, 2), 160, Time::ZERO);
        m.generate(Time::from_secs_f64(0.1));
        // 80 ms a packet: t = 0 and 80 ms fit, nothing overflows yet.
        assert_eq!((m.generated, m.overflow, m.waiting()), (2, 0, 2));
        m.generate(Time::from_secs_f64(0.4));
        assert_eq!((m.generated, m.overflow, m.waiting()), (6, 4, 2));
        assert_eq!(m.generated, m.overflow + m.waiting() as u64);
    }

    #[test]
    fn the_first_window_counts_its_own_losses() {
        let start = Time::from_secs_f64(1.0);
        let mut m = MediaSource::new(&cfg(16_000.0, 2), 160, start)
            .with_window(start, Duration::from_millis(200));
        // Packets at 1.00, 1.08, 1.16 s in the window, 1.24 and 1.32 after;
        // the buffer of 2 lets the first two in.
        m.generate(Time::from_secs_f64(1.35));
        assert_eq!((m.generated, m.overflow), (5, 3));
        assert_eq!((m.window_generated, m.window_overflow), (3, 1));
    }

    #[test]
    fn an_encoder_always_lets_time_move_on() {
        // 1e20 b/s would put packets 0 ps apart: check() refuses it, and
        // the encoder itself keeps a picosecond between packets.
        let c = cfg(1e20, 10);
        assert!(c.check().unwrap_err().to_string().contains("at most"));
        let mut m = MediaSource::new(&c, 1000, Time::ZERO);
        m.generate(Time(5));
        assert_eq!(m.generated, 6);
    }

    #[test]
    fn stops_after_its_duration() {
        let mut c = cfg(8_000.0, 100);
        c.duration = Some(Duration::from_millis(3500));
        let mut m = MediaSource::new(&c, 1000, Time::from_secs_f64(1.0));
        m.generate(Time::from_secs_f64(10.0));
        // Generated at 1, 2, 3 and 4 s.
        assert_eq!(m.generated, 4);
        assert_eq!(m.poll_at(), Time::NEVER);
        assert!(!m.done());
        while m.take().is_some() {}
        assert!(m.done());
    }
}
