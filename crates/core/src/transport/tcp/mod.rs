//! TCP: a byte-stream endpoint with the loss-recovery variants the studies
//! need, one file per mechanism.
//!
//! - `socket`: connection state, sending and receiving, timers (RFC 9293
//!   behaviour, RFC 5681 congestion control, RFC 6582 NewReno, RFC 6675 SACK
//!   recovery, RFC 6298 timer, RFC 7323 window scaling, RFC 1122 delayed ACK)
//! - `congestion`: the congestion controllers (Reno, CUBIC, Hybla, BBR v1, BBRv3) and HyStart++
//! - `prr`: Proportional Rate Reduction in fast recovery (RFC 6937)
//! - `cwv`: congestion window validation (RFC 2861, RFC 7661)
//! - `ecn`: Explicit Congestion Notification (RFC 3168 §6.1)
//! - `rate`: delivery rate estimation (draft-cheng-iccrg-delivery-rate-estimation)
//! - `rtt`: the RFC 6298 estimator
//! - `reassembly`: the receiver's out-of-order buffer and SACK blocks (RFC 2018)
//! - `scoreboard`: the SACK sender's scoreboard (RFC 6675)
//! - `rack`: RACK-TLP loss detection (RFC 8985)
//! - `seq`: 32-bit wire sequence numbers over 64-bit stream offsets
//! - `trace`: a sender's cwnd, ssthresh, phase, srtt and RTO as they change
//! - `window_profile`: how a host (4.4BSD, Linux) turns its receive buffer into the advertised window

pub(crate) mod congestion;
pub(crate) mod cwv;
pub(crate) mod ecn;
pub(crate) mod prr;
pub(crate) mod rack;
pub(crate) mod rate;
pub(crate) mod reassembly;
pub(crate) mod rtt;
pub(crate) mod scoreboard;
pub(crate) mod seq;
pub(crate) mod socket;
pub(crate) mod trace;
pub(crate) mod window_profile;

pub use socket::{Endpoint, TcpSocket, TcpStats};

use crate::engine::Duration;
use crate::engine::{Check, ConfigError};
use serde::{Deserialize, Serialize};

/// Loss recovery.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Variant {
    /// Retransmission timer only: no fast retransmit (as the ABR study ran).
    Tahoe,
    /// RFC 5681 fast retransmit and fast recovery.
    Reno,
    /// RFC 6582: stays in fast recovery across partial ACKs.
    NewReno,
    /// RFC 2018 SACK with RFC 6675 loss recovery.
    Sack,
}

impl Variant {
    /// The variant named as in a scenario ("tahoe", "reno", "newreno", "sack").
    pub fn parse(s: &str) -> Option<Variant> {
        Some(match s {
            "tahoe" => Variant::Tahoe,
            "reno" => Variant::Reno,
            "newreno" => Variant::NewReno,
            "sack" => Variant::Sack,
            _ => return None,
        })
    }
}

/// What the controller's reduction on a loss or a timeout is taken from.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum ReductionBasis {
    /// FlightSize, snd.max − snd.una (RFC 5681 §3.1 eq. (4), RFC 6675 §5
    /// step 4.2, RFC 9438 §4.6).
    #[default]
    Flight,
    /// cwnd, as Linux's controllers take it (`tcp_reno_ssthresh`,
    /// `bictcp_recalc_ssthresh`). After a long SACK recovery FlightSize
    /// still counts every SACKed byte above the first hole and can be far
    /// above what the path holds; cwnd is not.
    Cwnd,
}

/// A connection's parameters (both ends use the same). In a scenario
/// description they are the keys of a `tcp[]` entry, named with their units.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TcpConfig {
    /// Loss recovery (`variant`): Tahoe, Reno, NewReno (the scenario's
    /// default) or SACK.
    pub variant: Variant,
    /// How the window grows and what a loss leaves (RFC 5681 Reno, RFC 9438
    /// CUBIC, Hybla, BBR v1 or BBRv3 with pacing); loss recovery is `variant`'s.
    #[serde(default)]
    pub(crate) congestion_control: congestion::Kind,
    /// HyStart++ (RFC 9406) in the initial slow start.
    #[serde(default)]
    pub(crate) hystart: bool,
    /// Hybla's reference RTT0 (`congestion_control = "hybla"` only; None
    /// is Linux's 25 ms).
    #[serde(
        rename = "hybla_rtt0_ps",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub(crate) hybla_rtt0: Option<Duration>,
    /// Maximum segment size: payload bytes per segment.
    #[serde(rename = "mss_bytes")]
    pub mss: u32,
    /// TCP/IP header bytes on every segment.
    #[serde(rename = "header_bytes")]
    pub header: u32,
    pub(crate) initial_window_segments: u32,
    /// Appropriate Byte Counting limit L in segments (RFC 3465 §2.2): slow
    /// start grows cwnd by the bytes acknowledged, at most L·SMSS per ACK.
    /// 2 (RFC 3465) doubles cwnd per RTT even with delayed ACKs; 1 is RFC
    /// 5681's conservative min(N, SMSS).
    #[serde(default = "abc_limit_default")]
    pub(crate) abc_limit_segments: u32,
    /// Byte counting in congestion avoidance too (RFC 3465 §2.1): Reno
    /// adds one SMSS per cwnd of bytes acknowledged instead of SMSS²/cwnd
    /// per ACK. Slow start always counts bytes, up to `abc_limit_segments`
    /// per ACK; CUBIC counts acknowledged bytes in both regions anyway.
    #[serde(default)]
    pub(crate) abc: bool,
    /// Proportional Rate Reduction (RFC 6937, PRR-SSRB) paces what fast
    /// recovery sends, for `reno`, `newreno` and `sack` (Tahoe has no fast
    /// recovery).
    #[serde(default)]
    pub(crate) prr: bool,
    /// None = unlimited (the window decides).
    #[serde(rename = "initial_ssthresh_bytes", default)]
    pub(crate) initial_ssthresh: Option<u64>,
    #[serde(rename = "min_rto_ps")]
    pub(crate) min_rto: Duration,
    #[serde(rename = "initial_rto_ps")]
    pub(crate) initial_rto: Duration,
    #[serde(rename = "max_rto_ps")]
    pub(crate) max_rto: Duration,
    #[serde(rename = "granularity_ps")]
    pub(crate) granularity: Duration,
    pub(crate) delayed_ack: bool,
    #[serde(rename = "delayed_ack_ps")]
    pub(crate) delayed_ack_timeout: Duration,
    /// RFC 3042: new data on the first two duplicate ACKs.
    #[serde(default = "yes")]
    pub(crate) limited_transmit: bool,
    /// After an idle period longer than the RTO, reduce cwnd: to the
    /// initial window (RFC 5681 §4.1; some stacks of the 1990s did not), or
    /// by RFC 2861's decay under `cwnd_validation = "rfc2861"`. RFC 7661
    /// has its own rule and ignores this.
    #[serde(default = "yes")]
    pub(crate) restart_after_idle: bool,
    /// What becomes of a cwnd the sender has not been filling (RFC 2861,
    /// RFC 7661; `off` keeps only RFC 5681 §4.1's restart after idle).
    #[serde(default)]
    pub(crate) cwnd_validation: cwv::Mode,
    /// Restart the retransmission timer when the fast retransmit is sent
    /// (ns-2, Linux); off keeps the clock of the last new ACK (RFC 6298
    /// §5.1 read literally).
    #[serde(default = "yes")]
    pub(crate) rto_restart_on_fast_retransmit: bool,
    /// How SACK recovery finds lost segments: RFC 6675's IsLost or RFC
    /// 8985's RACK-TLP (`recovery`); needs `variant = "sack"`.
    #[serde(default)]
    pub(crate) recovery: rack::LossDetection,
    /// CUBIC's Reno-friendly estimate switches α_cubic to 1 at cwnd_prior
    /// (RFC 9438 §4.3); false keeps α_cubic, as Linux's tcp_cubic does.
    #[serde(default = "yes")]
    pub(crate) cubic_alpha_switch: bool,
    /// What a loss's reduction starts from (`ssthresh_from`).
    #[serde(default)]
    pub(crate) ssthresh_from: ReductionBasis,
    pub(crate) window_scaling: bool,
    /// ECN (RFC 3168 §6.1): negotiated on the handshake, new data sent
    /// ECT(0), ECE answered as a loss without a retransmission (`ecn`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub(crate) ecn: bool,
    /// With `ecn`: the L4S, Prague-like scalable response instead
    /// (`ecn = "l4s"`: ECT(1), DCTCP's per-packet echo and alpha).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub(crate) ecn_l4s: bool,
    /// RFC 8511 (ABE): an ECE reduces ssthresh to this fraction of what
    /// the reduction starts from, instead of the controller's loss
    /// response (`ecn_beta`; None: the loss response).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) ecn_beta: Option<f64>,
    /// Limits data in flight plus data written but not yet sent.
    #[serde(rename = "send_buffer_bytes")]
    pub send_buffer: u64,
    /// The window the receiver advertises (less data held out of order).
    #[serde(rename = "receive_buffer_bytes")]
    pub receive_buffer: u64,
    /// How the host turns `receive_buffer` into the advertised window
    /// (`window_profile`: 4.4BSD's free buffer, or Linux's share of it).
    #[serde(
        default,
        skip_serializing_if = "window_profile::WindowProfile::is_default"
    )]
    pub(crate) window_profile: window_profile::WindowProfile,
    /// Linux's `tcp_adv_win_scale` (`window_profile = "linux"` only).
    #[serde(
        default = "window_profile::default_adv_win_scale",
        skip_serializing_if = "window_profile::is_default_adv_win_scale"
    )]
    pub(crate) adv_win_scale: u8,
    pub(crate) handshake: bool,
    /// Queue priority (0 high, 1 low) and loss priority of the segments.
    #[serde(default)]
    pub priority: u8,
    /// Cell loss priority mark of every segment, both directions: 1 marks
    /// them to be discarded first; default 0.
    #[serde(default)]
    pub clp: u8,
}

fn abc_limit_default() -> u32 {
    2
}

fn yes() -> bool {
    true
}

impl TcpConfig {
    /// RFC 5681 §3.1 initial window for this MSS, in segments.
    #[cfg(test)]
    pub(crate) fn rfc5681_initial_window(mss: u32) -> u32 {
        match mss {
            0..=1095 => 4,
            1096..=2190 => 3,
            _ => 2,
        }
    }

    /// RFC 7323 §2.3: the smallest shift that lets the receive buffer be
    /// advertised, at most 14; 0 without window scaling.
    pub(crate) fn window_shift(&self) -> u8 {
        if !self.window_scaling {
            return 0;
        }
        let mut s = 0u8;
        while s < 14 && (65_535u64 << s) < self.receive_buffer {
            s += 1;
        }
        s
    }

    /// A configuration for tests and examples: NewReno, MSS 1460, 40-byte
    /// headers, RFC defaults.
    pub(crate) fn default_newreno() -> TcpConfig {
        TcpConfig {
            variant: Variant::NewReno,
            congestion_control: congestion::Kind::Reno,
            hystart: false,
            hybla_rtt0: None,
            mss: 1460,
            header: 40,
            initial_window_segments: 3,
            abc_limit_segments: 2,
            abc: false,
            prr: false,
            initial_ssthresh: None,
            min_rto: Duration::from_millis(1000),
            initial_rto: Duration::from_millis(1000),
            max_rto: Duration::from_millis(60_000),
            granularity: Duration::from_millis(1),
            delayed_ack: true,
            delayed_ack_timeout: Duration::from_millis(200),
            limited_transmit: true,
            restart_after_idle: true,
            cwnd_validation: cwv::Mode::Off,
            rto_restart_on_fast_retransmit: true,
            recovery: rack::LossDetection::Rfc6675,
            ssthresh_from: ReductionBasis::Flight,
            cubic_alpha_switch: true,
            window_scaling: true,
            ecn: false,
            ecn_l4s: false,
            ecn_beta: None,
            send_buffer: 65_536,
            receive_buffer: 65_536,
            window_profile: window_profile::WindowProfile::Bsd44,
            adv_win_scale: window_profile::LINUX_ADV_WIN_SCALE,
            handshake: true,
            priority: 0,
            clp: 0,
        }
    }
}

impl Check for TcpConfig {
    /// Refuses parameters a connection cannot run with.
    fn check(&self) -> Result<(), ConfigError> {
        let mss = u64::from(self.mss);
        if self.mss == 0 || self.send_buffer < mss || self.receive_buffer < mss {
            return Err("mss and buffers must hold at least one segment".into());
        }
        if u64::from(self.mss) + u64::from(self.header) > 65_535 {
            return Err("mss + header must fit an IP datagram (65535 B)".into());
        }
        if self.initial_window_segments == 0 || self.abc_limit_segments == 0 {
            return Err("initial window and ABC limit must be at least one segment".into());
        }
        if self.max_rto < self.min_rto || self.min_rto.ps() == 0 || self.granularity.ps() == 0 {
            return Err("need 0 < min_rto <= max_rto and a positive clock granularity".into());
        }
        if let Some(rtt0) = self.hybla_rtt0 {
            if self.congestion_control != congestion::Kind::Hybla {
                return Err("hybla_rtt0 is Hybla's: give it with congestion_control hybla".into());
            }
            if rtt0.ps() == 0 {
                return Err("hybla_rtt0 must be positive".into());
            }
        }
        if self.recovery == rack::LossDetection::RackTlp && self.variant != Variant::Sack {
            // RFC 8985 §5: RACK needs to know which segments were delivered.
            return Err(
                "recovery = \"rack-tlp\" needs SACK (variant = \"sack\"): RFC 8985 §5".into(),
            );
        }
        if self.ecn_l4s && !self.ecn {
            return Err("ecn_l4s is a mode of ECN: give ecn = true".into());
        }
        if self.ecn_l4s && self.ecn_beta.is_some() {
            return Err("ecn_beta is the classic response's: not with ecn = \"l4s\"".into());
        }
        if let Some(b) = self.ecn_beta {
            if !self.ecn {
                return Err("ecn_beta is the reduction on ECE: give ecn = true".into());
            }
            if !(b > 0.0 && b <= 1.0) {
                return Err(ConfigError::new(format!(
                    "ecn_beta must be in (0, 1], got {b}"
                )));
            }
            if matches!(
                self.congestion_control,
                congestion::Kind::Bbr | congestion::Kind::Bbr3
            ) {
                return Err("BBR ignores ECE: ecn_beta has no effect".into());
            }
        }
        if !(1..=3).contains(&self.adv_win_scale) {
            return Err(ConfigError::new(format!(
                "adv_win_scale must be 1, 2 or 3, got {}",
                self.adv_win_scale
            )));
        }
        if self.adv_win_scale != window_profile::LINUX_ADV_WIN_SCALE
            && self.window_profile != window_profile::WindowProfile::Linux
        {
            return Err("adv_win_scale is Linux's: give it with window_profile = \"linux\"".into());
        }
        let window = window_profile::ReceiveWindow::new(
            self.window_profile,
            self.receive_buffer,
            mss,
            self.adv_win_scale,
        );
        if window.clamp() < mss {
            return Err(
                "the window the receive buffer gives must hold at least one segment".into(),
            );
        }
        if self.priority > 1 || self.clp > 1 {
            return Err("priority and clp are 0 or 1".into());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn initial_window_rule() {
        assert_eq!(TcpConfig::rfc5681_initial_window(536), 4);
        assert_eq!(TcpConfig::rfc5681_initial_window(1460), 3);
        assert_eq!(TcpConfig::rfc5681_initial_window(9140), 2);
    }

    #[test]
    fn window_shift_fits_the_buffer() {
        let mut c = TcpConfig::default_newreno();
        c.receive_buffer = 65_535;
        assert_eq!(c.window_shift(), 0);
        c.receive_buffer = 16_000_000;
        assert_eq!(c.window_shift(), 8); // 65535 << 8 = 16.8 MB
        c.receive_buffer = 1 << 40;
        assert_eq!(c.window_shift(), 14);
        c.window_scaling = false;
        assert_eq!(c.window_shift(), 0);
    }

    #[test]
    fn ecn_beta_needs_ecn_a_fraction_and_a_window_controller() {
        let mut c = TcpConfig::default_newreno();
        c.ecn_beta = Some(0.8);
        assert!(c.check().unwrap_err().to_string().contains("ecn = true"));
        c.ecn = true;
        assert!(c.check().is_ok());
        for bad in [0.0, -0.5, 1.5, f64::NAN] {
            c.ecn_beta = Some(bad);
            assert!(c.check().is_err(), "{bad}");
        }
        c.ecn_beta = Some(1.0);
        assert!(c.check().is_ok());
        c.congestion_control = congestion::Kind::Bbr;
        assert!(c.check().is_err());
    }

    #[test]
    fn rack_tlp_needs_sack() {
        let mut c = TcpConfig::default_newreno();
        c.recovery = rack::LossDetection::RackTlp;
        assert!(c.check().is_err());
        c.variant = Variant::Sack;
        assert!(c.check().is_ok());
        c.prr = true;
        assert!(c.check().is_ok());
    }
}
