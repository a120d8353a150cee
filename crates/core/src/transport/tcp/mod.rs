//! TCP: a byte-stream endpoint with the loss-recovery variants the studies
//! need, one file per mechanism.
//!
//! - `socket`: connection state, sending and receiving, timers (RFC 9293
//!   behaviour, RFC 5681 congestion control, RFC 6582 NewReno, RFC 6675 SACK
//!   recovery, RFC 6298 timer, RFC 7323 window scaling, RFC 1122 delayed ACK)
//! - `rtt`: the RFC 6298 estimator
//! - `reassembly`: the receiver's out-of-order buffer and SACK blocks (RFC 2018)
//! - `scoreboard`: the SACK sender's scoreboard (RFC 6675)
//! - `seq`: 32-bit wire sequence numbers over 64-bit stream offsets

pub mod reassembly;
pub mod rtt;
pub mod scoreboard;
pub mod seq;
pub mod socket;

pub use socket::{Endpoint, TcpSocket, TcpStats};

use crate::engine::Duration;

/// Loss recovery.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
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

#[derive(Clone, Debug, PartialEq)]
pub struct TcpConfig {
    pub variant: Variant,
    /// Maximum segment size: payload bytes per segment.
    pub mss: u32,
    /// TCP/IP header bytes on every segment.
    pub header: u32,
    pub initial_window_segments: u32,
    /// Appropriate Byte Counting limit L in segments (RFC 3465 §2.2): slow
    /// start grows cwnd by the bytes acknowledged, at most L·SMSS per ACK.
    /// 2 (RFC 3465) doubles cwnd per RTT even with delayed ACKs; 1 is RFC
    /// 5681's conservative min(N, SMSS).
    pub abc_limit_segments: u32,
    /// None = unlimited (the window decides).
    pub initial_ssthresh: Option<u64>,
    pub min_rto: Duration,
    pub initial_rto: Duration,
    pub max_rto: Duration,
    pub granularity: Duration,
    pub delayed_ack: bool,
    pub delayed_ack_timeout: Duration,
    /// RFC 3042: new data on the first two duplicate ACKs.
    pub limited_transmit: bool,
    /// RFC 5681 §4.1: back to the initial window after an idle period
    /// longer than the RTO (some stacks of the 1990s did not).
    pub restart_after_idle: bool,
    pub window_scaling: bool,
    /// Limits data in flight plus data written but not yet sent.
    pub send_buffer: u64,
    /// The window the receiver advertises (less data held out of order).
    pub receive_buffer: u64,
    pub handshake: bool,
    pub priority: u8,
    pub clp: u8,
}

impl TcpConfig {
    /// RFC 5681 §3.1 initial window for this MSS, in segments.
    pub fn rfc5681_initial_window(mss: u32) -> u32 {
        match mss {
            0..=1095 => 4,
            1096..=2190 => 3,
            _ => 2,
        }
    }

    /// RFC 7323 §2.3: the smallest shift that lets the receive buffer be
    /// advertised, at most 14; 0 without window scaling.
    pub fn window_shift(&self) -> u8 {
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
    pub fn default_newreno() -> TcpConfig {
        TcpConfig {
            variant: Variant::NewReno,
            mss: 1460,
            header: 40,
            initial_window_segments: 3,
            abc_limit_segments: 2,
            initial_ssthresh: None,
            min_rto: Duration::from_millis(1000),
            initial_rto: Duration::from_millis(1000),
            max_rto: Duration::from_millis(60_000),
            granularity: Duration::from_millis(1),
            delayed_ack: true,
            delayed_ack_timeout: Duration::from_millis(200),
            limited_transmit: true,
            restart_after_idle: true,
            window_scaling: true,
            send_buffer: 65_536,
            receive_buffer: 65_536,
            handshake: true,
            priority: 0,
            clp: 0,
        }
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
}
