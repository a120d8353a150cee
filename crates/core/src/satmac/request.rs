//! A terminal's capacity request, eq. (1) of the tfrc-dama paper (section
//! 2.1), combining the DVB-RCS categories (EN 301 790; REFERENCE §6.1):
//!
//! R_req = max{ R(t) + q(t)/T_s + F, C }
//!
//! - RBDC R(t): the mean rate of traffic entering the terminal over the last
//!   measurement interval T_r (one super-frame);
//! - VBDC q(t)/T_s: the uplink queue emptied within T_s;
//! - F: the free capacity (FCA) the terminal holds now;
//! - CRA C: the constant rate configured for the terminal, a floor.
//!
//! The paper's runs use RBDC alone with CRA as the floor. QSD (section 3.4)
//! adds, once, the rate of each Quick-Start request the terminal approved
//! during the interval, so capacity is asked for before the flow's packets
//! arrive.

use crate::engine::Duration;
use crate::engine::{Check, ConfigError};
use serde::{Deserialize, Serialize};

/// How a terminal asks for capacity, eq. (1) of the tfrc-dama paper: which
/// DVB-RCS categories it combines (`dvb_rcs.NAME.terminals.T`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RequestConfig {
    /// CRA: the rate the terminal always holds (bits/s).
    #[serde(default)]
    pub(crate) cra_bps: f64,
    /// RBDC: ask for the rate measured over the last interval.
    #[serde(default = "yes")]
    pub(crate) rbdc: bool,
    /// VBDC: ask to empty the uplink queue within this time; none, no VBDC.
    #[serde(default, rename = "vbdc_ps")]
    pub(crate) vbdc: Option<Duration>,
}

fn yes() -> bool {
    true
}

impl Default for RequestConfig {
    fn default() -> RequestConfig {
        RequestConfig {
            cra_bps: 0.0,
            rbdc: true,
            vbdc: None,
        }
    }
}

impl RequestConfig {}

impl Check for RequestConfig {
    fn check(&self) -> Result<(), ConfigError> {
        if !(self.cra_bps.is_finite() && self.cra_bps >= 0.0) {
            return Err(ConfigError::new(format!(
                "cra_bps must be >= 0 (got {})",
                self.cra_bps
            )));
        }
        if self.vbdc.is_some_and(|t| t.ps() == 0) {
            return Err("vbdc_ps must be positive".into());
        }
        Ok(())
    }
}

/// What a terminal counts between two requests.
#[derive(Clone, Debug)]
pub struct Requester {
    cfg: RequestConfig,
    /// Bits that entered the terminal since the last request.
    arrived_bits: f64,
    /// Quick-Start rates approved since the last request (QSD).
    quick_start_bps: f64,
}

impl Requester {
    /// A terminal asking by `cfg`, nothing counted yet.
    pub fn new(cfg: RequestConfig) -> Requester {
        Requester {
            cfg,
            arrived_bits: 0.0,
            quick_start_bps: 0.0,
        }
    }

    /// A packet entered the terminal from its hosts.
    #[cfg(test)]
    pub(crate) fn on_arrival(&mut self, bytes: u32) {
        self.arrived_bits += f64::from(bytes) * 8.0;
    }

    /// Bytes that entered the terminal since the last count.
    pub(crate) fn on_arrivals(&mut self, bytes: u64) {
        self.arrived_bits += bytes as f64 * 8.0;
    }

    /// QSD: a Quick-Start request the terminal approved.
    pub(crate) fn add_quick_start(&mut self, bps: f64) {
        self.quick_start_bps += bps;
    }

    /// Eq. (1) at the end of a measurement interval of length `interval`,
    /// with `queued_bytes` in the uplink queue and `fca_bps` of free
    /// capacity held; starts the next interval.
    pub fn request(&mut self, interval: Duration, queued_bytes: u64, fca_bps: f64) -> f64 {
        let rbdc = if self.cfg.rbdc && interval.ps() > 0 {
            self.arrived_bits / interval.as_secs_f64()
        } else {
            0.0
        };
        let vbdc = self
            .cfg
            .vbdc
            .map_or(0.0, |ts| queued_bytes as f64 * 8.0 / ts.as_secs_f64());
        let asked = (rbdc + vbdc + fca_bps + self.quick_start_bps).max(self.cfg.cra_bps);
        self.arrived_bits = 0.0;
        self.quick_start_bps = 0.0;
        asked
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TR: Duration = Duration::from_millis(820);

    #[test]
    fn rbdc_asks_for_the_rate_measured_over_the_interval() {
        let mut r = Requester::new(RequestConfig::default());
        // 256 kb/s of 1316-byte packets for 820 ms: 20 packets (exactly
        // 256.8 kb/s over the interval).
        for _ in 0..20 {
            r.on_arrival(1316);
        }
        let asked = r.request(TR, 0, 0.0);
        assert!((asked - 20.0 * 1316.0 * 8.0 / 0.82).abs() < 1e-6);
        // The count starts again.
        assert_eq!(r.request(TR, 0, 0.0), 0.0);
    }

    #[test]
    fn cra_is_a_floor_and_vbdc_empties_the_queue_in_ts() {
        let cfg = RequestConfig {
            cra_bps: 64_000.0,
            rbdc: true,
            vbdc: Some(Duration::from_millis(500)),
        };
        let mut r = Requester::new(cfg);
        assert_eq!(r.request(TR, 0, 0.0), 64_000.0);
        // 10 000 bytes queued: 160 kb/s to empty them in 0.5 s.
        assert_eq!(r.request(TR, 10_000, 0.0), 160_000.0);
        assert_eq!(r.request(TR, 10_000, 20_000.0), 180_000.0);
    }

    #[test]
    fn an_approved_quick_start_rate_is_asked_for_once() {
        let mut r = Requester::new(RequestConfig::default());
        r.add_quick_start(320_000.0);
        assert_eq!(r.request(TR, 0, 0.0), 320_000.0);
        assert_eq!(r.request(TR, 0, 0.0), 0.0);
    }

    #[test]
    fn bad_settings_are_refused() {
        let cfg = RequestConfig {
            cra_bps: -1.0,
            ..RequestConfig::default()
        };
        assert!(cfg.check().unwrap_err().to_string().contains("cra_bps"));
    }
}
