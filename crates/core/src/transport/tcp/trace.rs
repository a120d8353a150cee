//! An event-driven trace of a TCP sender (`[traces.NAME] tcp = "CONN"`,
//! docs/traces.md), as ns-3's `CongestionWindow` and `RTT` trace sources
//! or ns-2's traced variables give: a row each time cwnd, ssthresh or the
//! phase (slow start, congestion avoidance, recovery) changes, or srtt or
//! RTO does, with the time and all the values then.
//!
//! The connection hands its sender to `observe` after every event it
//! handles; a row is written when what the trace watches differs from the
//! last row. Several changes within one event (cwnd halved, then inflated
//! by the duplicate ACKs of the same instant) leave the value the event
//! ended with: the time cannot tell them apart. Bounded like a capture: at
//! `max_records` rows it stops and counts the changes it left out.

use super::socket::{State, TcpSocket};
use crate::engine::{Duration, Time};

/// Where the sender stands, as the trace's `state` column names it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Phase {
    /// Opening the connection (SYN sent, no answer yet).
    Connecting,
    /// cwnd below ssthresh (RFC 5681 §3.1).
    SlowStart,
    /// cwnd at or above ssthresh.
    CongestionAvoidance,
    /// Fast recovery (RFC 5681 §3.2, RFC 6582, RFC 6675).
    Recovery,
}

impl Phase {
    /// The column's values, indexed by `Phase as u8`.
    pub(crate) const NAMES: [&'static str; 4] = [
        "connecting",
        "slow_start",
        "congestion_avoidance",
        "recovery",
    ];
}

/// What the trace watches: the window ("cwnd": cwnd, ssthresh, phase)
/// and the timer ("rtt": srtt, RTO).
#[derive(Copy, Clone, Debug, PartialEq)]
pub(crate) struct Sample {
    pub(crate) cwnd: u64,
    /// `u64::MAX` while unset (no loss yet, no initial ssthresh).
    pub(crate) ssthresh: u64,
    pub(crate) phase: Phase,
    /// None before the first RTT sample.
    pub(crate) srtt: Option<Duration>,
    pub(crate) rto: Duration,
}

impl Sample {
    fn of(s: &TcpSocket) -> Sample {
        let phase = if s.state != State::Established {
            Phase::Connecting
        } else if s.in_recovery() {
            Phase::Recovery
        } else if s.cwnd() < s.ssthresh() {
            Phase::SlowStart
        } else {
            Phase::CongestionAvoidance
        };
        Sample {
            cwnd: s.cwnd(),
            ssthresh: s.ssthresh(),
            phase,
            srtt: s.srtt(),
            rto: s.rto(),
        }
    }

    fn window(&self) -> (u64, u64, Phase) {
        (self.cwnd, self.ssthresh, self.phase)
    }

    fn timer(&self) -> (Option<Duration>, Duration) {
        (self.srtt, self.rto)
    }
}

/// The rows of one sender's trace.
#[derive(Clone, Debug)]
pub(crate) struct TcpTrace {
    window: bool,
    timer: bool,
    max_records: u64,
    /// (time, the values then), one per change watched.
    pub(crate) rows: Vec<(Time, Sample)>,
    /// The last values seen, recorded or not.
    last: Option<Sample>,
    /// Changes left out once `max_records` was reached.
    pub(crate) missed: u64,
    /// When the first change was left out.
    pub(crate) full_at: Option<Time>,
}

impl TcpTrace {
    /// A trace writing a row on changes of the window (`window`: cwnd,
    /// ssthresh, phase) and of the timer (`timer`: srtt, RTO), at most
    /// `max_records` rows.
    pub(crate) fn new(window: bool, timer: bool, max_records: u64) -> TcpTrace {
        TcpTrace {
            window,
            timer,
            max_records,
            rows: Vec::new(),
            last: None,
            missed: 0,
            full_at: None,
        }
    }

    /// The sender after an event at `now`.
    pub(crate) fn observe(&mut self, now: Time, sender: &TcpSocket) {
        let s = Sample::of(sender);
        let changed = match &self.last {
            None => true,
            Some(l) => {
                (self.window && l.window() != s.window()) || (self.timer && l.timer() != s.timer())
            }
        };
        self.last = Some(s);
        if !changed {
            return;
        }
        if (self.rows.len() as u64) < self.max_records {
            self.rows.push((now, s));
        } else {
            self.missed += 1;
            self.full_at.get_or_insert(now);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::AgentAddr;
    use crate::transport::tcp::{Endpoint, TcpConfig};

    fn sender() -> TcpSocket {
        let mut cfg = TcpConfig::default_newreno();
        cfg.handshake = false;
        let end = Endpoint {
            node: 0,
            peer_node: 1,
            peer_agent: AgentAddr::default(),
            flow: 0,
        };
        TcpSocket::new(cfg, end, true, Time::ZERO, 0)
    }

    #[test]
    fn a_row_for_the_first_look_then_only_for_changes_watched() {
        let mut s = sender();
        let mut t = TcpTrace::new(true, false, 10);
        t.observe(Time(1), &s);
        t.observe(Time(2), &s);
        assert_eq!(t.rows.len(), 1);
        assert_eq!(t.rows[0].1.phase, Phase::Connecting);
        s.poll(Time(3), &mut Vec::new()); // opens: established, no handshake
        t.observe(Time(3), &s);
        assert_eq!(t.rows.len(), 2);
        assert_eq!(
            t.rows[1],
            (
                Time(3),
                Sample {
                    phase: Phase::SlowStart,
                    ..t.rows[0].1
                }
            )
        );
        // The RTO alone is not watched by a window trace.
        let mut rtt_only = TcpTrace::new(false, true, 10);
        rtt_only.observe(Time(1), &sender());
        rtt_only.observe(Time(3), &s);
        assert_eq!(rtt_only.rows.len(), 1);
    }

    #[test]
    fn stops_at_max_records_and_counts_what_it_left_out() {
        let mut s = sender();
        let mut t = TcpTrace::new(true, true, 1);
        t.observe(Time(1), &s);
        s.poll(Time(3), &mut Vec::new());
        t.observe(Time(3), &s);
        assert_eq!((t.rows.len(), t.missed, t.full_at), (1, 1, Some(Time(3))));
    }
}
