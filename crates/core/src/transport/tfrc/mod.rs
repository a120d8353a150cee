//! TFRC, TCP-friendly rate control (RFC 5348), and its small-packet variant
//! TFRC-SP (RFC 4828), with the Quick-Start start-up of RFC 4782 §4.7 as
//! the tfrc-dama paper's sender uses it. One file per mechanism:
//!
//! - `equation`: the TCP throughput equation and its inverse (§3.1)
//! - `loss_history`: loss detection, loss events and intervals, p (§5)
//! - `receiver`: the receive rate and when to send feedback (§6)
//! - `sender`: the allowed rate, slow start, X_recv set, nofeedback timer
//!   (§4) and the Quick-Start phase
//! - `ns2_sender`, `ns2_receiver`, `ns2_formula`: the same as ns-2.35's
//!   TFRC agents run them (`profile = "ns2"`)
//! - `profile`: one sender and one receiver type over the profiles
//!
//! Under the RFC profiles rates are bytes/s of whole packets on the wire:
//! the sender paces packets of `packet_bytes`, and the receiver counts the
//! same bytes. Under ns2 they are bytes/s of `packet_bytes`, and each
//! packet carries `header_bytes` more on the wire, as ns-2's do.

pub(crate) mod equation;
pub(crate) mod loss_history;
pub(crate) mod ns2_formula;
pub(crate) mod ns2_receiver;
pub(crate) mod ns2_sender;
pub(crate) mod profile;
pub(crate) mod receiver;
pub(crate) mod sender;

pub use profile::{Receiver, Sender};
pub use receiver::TfrcReceiver;
pub use sender::TfrcSender;

use crate::engine::Duration;
use crate::engine::{Check, ConfigError};
use serde::{Deserialize, Serialize};

/// Whose rules a TFRC flow follows: an RFC's, or ns-2.35's agents (the
/// simulator of the studies satcc reproduces), which differ from both in
/// start-up, slow start and reporting (`ns2_sender`, `ns2_receiver`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Profile {
    /// RFC 5348 (the default): W_init/R on the first report, then doubling
    /// per RTT within twice the largest rate of the X_recv set.
    #[default]
    Rfc5348,
    /// RFC 3448's start-up, which the tfrc-dama paper's simulator followed:
    /// one packet per second until the first report, then doubling per RTT
    /// within twice the last report's receive rate alone.
    Rfc3448,
    /// ns-2.35's `Agent/TFRC` and `Agent/TFRCSink` with their defaults
    /// (docs/tfrc-crosscheck.md lists each rule).
    Ns2,
}

impl Profile {
    /// The RFC whose sender rules apply; None for ns-2's.
    pub(crate) fn revision(self) -> Option<Revision> {
        match self {
            Profile::Rfc5348 => Some(Revision::Rfc5348),
            Profile::Rfc3448 => Some(Revision::Rfc3448),
            Profile::Ns2 => None,
        }
    }
}

/// Which revision of TFRC's sender rules (the two differ in start-up,
/// which is what the tfrc-dama study measures).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub(crate) enum Revision {
    /// RFC 3448 §4.3, which the tfrc-dama paper's simulator followed: one
    /// packet per second until the first report, then
    /// X = max(min(2X, 2X_recv), s/R) once per RTT, X_recv being the last
    /// report's receive rate alone.
    Rfc3448,
    /// RFC 5348 §4.2–4.3: X = W_init/R on the first report, with
    /// W_init = min(4s, max(2s, 4380 B)), then doubling per RTT limited by
    /// twice the largest receive rate of the X_recv set, never below W_init/R.
    #[default]
    Rfc5348,
}

/// A TFRC flow's parameters. In a scenario description they are the keys
/// of the flow's entry, named with their units.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TfrcConfig {
    /// A data packet's size on the wire (RFC profiles), or ns-2's
    /// `packetSize_`, to which the wire adds `header_bytes`.
    pub packet_bytes: u32,
    /// IP and transport headers (TFRC-SP's H, RFC 4828 §3): of
    /// `packet_bytes` under the RFC profiles (default 40), on top of them
    /// under ns2 (`headersize_`, default 32).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub header_bytes: Option<u32>,
    /// TFRC-SP (RFC 4828).
    #[serde(default)]
    pub small_packets: bool,
    /// Whose rules the flow follows (`profile`); default RFC 5348.
    #[serde(default)]
    pub profile: Profile,
    /// The nofeedback timer before the first RTT sample (RFC 5348 §4.2:
    /// 2 s; ns-2: two packets at its initial rate; the paper's section 3.5
    /// argues for 3 s over satellite paths).
    #[serde(
        rename = "initial_rto_ps",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub initial_rto: Option<Duration>,
    /// The longest back-off between packets (t_mbi, §4.3): the rate never
    /// falls below packet_bytes / t_mbi.
    #[serde(rename = "t_mbi_ps", default = "t_mbi_default")]
    pub t_mbi: Duration,
    /// Feedback packet size on the wire.
    #[serde(default = "feedback_default")]
    pub feedback_bytes: u32,
    /// Ask Quick-Start for this rate (bits/s) with the first packet;
    /// RFC 4782 rounds it down to its table (40 kb/s · 2^N).
    #[serde(
        rename = "quick_start_bps",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub quick_start_bps: Option<f64>,
    /// ECN: data packets leave ECT(0), and the receiver counts a CE-marked
    /// one as a loss for the loss event rate (RFC profiles only).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub ecn: bool,
}

fn t_mbi_default() -> Duration {
    Duration::from_millis(64_000)
}
fn feedback_default() -> u32 {
    40
}

/// RFC 4828 §3: TFRC-SP puts a nominal 1460-byte segment in the equation
/// whatever the packets' size.
pub(crate) const SP_NOMINAL_SEGMENT: f64 = 1460.0;
/// RFC 4828 §3: at most one packet per 10 ms.
pub(crate) const SP_MIN_INTERVAL_S: f64 = 0.010;

impl TfrcConfig {
    /// A plain TFRC flow of `packet_bytes` packets, RFC 5348 defaults.
    pub fn new(packet_bytes: u32) -> TfrcConfig {
        TfrcConfig {
            packet_bytes,
            header_bytes: None,
            small_packets: false,
            profile: Profile::default(),
            initial_rto: None,
            t_mbi: t_mbi_default(),
            feedback_bytes: feedback_default(),
            quick_start_bps: None,
            ecn: false,
        }
    }

    /// The segment size s the equation and the initial rates use.
    pub(crate) fn s_equation(&self) -> f64 {
        if self.small_packets {
            SP_NOMINAL_SEGMENT
        } else {
            f64::from(self.packet_bytes)
        }
    }

    /// TFRC-SP's header penalty P/(P + H) on the equation's rate (RFC 4828
    /// §3); 1 for plain TFRC.
    pub(crate) fn header_penalty(&self) -> f64 {
        if self.small_packets {
            let h = self.header_bytes();
            let p = f64::from(self.packet_bytes - h);
            p / (p + f64::from(h))
        } else {
            1.0
        }
    }

    /// The lowest rate, bytes/s: one packet per t_mbi.
    pub(crate) fn min_rate(&self) -> f64 {
        f64::from(self.packet_bytes) / self.t_mbi.as_secs_f64()
    }

    /// W_init of RFC 5348 §4.2, bytes.
    pub(crate) fn w_init(&self) -> f64 {
        let s = self.s_equation();
        (4.0 * s).min((2.0 * s).max(4380.0))
    }

    /// The nofeedback timer before any report, where a fixed one applies
    /// (under ns2 without one set it is two packets at the initial rate).
    pub(crate) fn initial_rto(&self) -> Duration {
        self.initial_rto.unwrap_or(Duration::from_millis(2000))
    }

    /// Header bytes: the one set, or the profile's default.
    pub fn header_bytes(&self) -> u32 {
        self.header_bytes.unwrap_or(match self.profile {
            Profile::Ns2 => ns2_sender::HEADER_BYTES,
            _ => 40,
        })
    }

    /// A data packet's size on the wire.
    pub(crate) fn wire_bytes(&self) -> u32 {
        match self.profile {
            Profile::Ns2 => self.packet_bytes.saturating_add(self.header_bytes()),
            _ => self.packet_bytes,
        }
    }
}

impl Check for TfrcConfig {
    fn check(&self) -> Result<(), ConfigError> {
        if self.packet_bytes == 0 {
            return Err("packet_bytes must be positive".into());
        }
        if self.wire_bytes() > 65_535 {
            return Err(ConfigError::new(format!(
                "a packet must fit an IP datagram (65535 B), got {} B on the wire",
                self.wire_bytes()
            )));
        }
        if self.profile != Profile::Ns2 && self.header_bytes() >= self.packet_bytes {
            return Err(ConfigError::new(format!(
                "header_bytes ({}) must be smaller than packet_bytes ({})",
                self.header_bytes(),
                self.packet_bytes
            )));
        }
        if self.ecn && self.profile == Profile::Ns2 {
            return Err("ecn is modelled under the RFC profiles only, not ns2".into());
        }
        if self.feedback_bytes == 0 {
            return Err("feedback_bytes must be positive".into());
        }
        for (name, v) in [("initial_rto", self.initial_rto()), ("t_mbi", self.t_mbi)] {
            if v.ps() == 0 {
                return Err(ConfigError::new(format!("{name} must be positive")));
            }
        }
        if let Some(q) = self.quick_start_bps {
            if !(q.is_finite() && q >= 40_000.0) {
                return Err(ConfigError::new(format!(
                    "quick_start_bps must be at least 40000 (RFC 4782's lowest rate), got {q}"
                )));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_packet_must_fit_a_datagram_headers_and_all() {
        assert!(TfrcConfig::new(65_535).check().is_ok());
        assert!(TfrcConfig::new(70_000)
            .check()
            .unwrap_err()
            .to_string()
            .contains("datagram"));
        // ns-2's headers ride on top: 65 520 + 32 does not fit.
        let ns2 = TfrcConfig {
            profile: Profile::Ns2,
            ..TfrcConfig::new(65_520)
        };
        assert_eq!(ns2.wire_bytes(), 65_552);
        assert!(ns2.check().is_err());
        let huge = TfrcConfig {
            profile: Profile::Ns2,
            ..TfrcConfig::new(u32::MAX)
        };
        assert!(huge.check().is_err(), "no overflow on the way");
    }
}

#[cfg(test)]
mod ecn_run;
