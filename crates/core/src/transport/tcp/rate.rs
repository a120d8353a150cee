//! Delivery rate estimation (draft-cheng-iccrg-delivery-rate-estimation-00
//! §3; Linux `net/ipv4/tcp_rate.c`): every segment sent carries a snapshot
//! of how much had been delivered and when; when it is acknowledged or
//! SACKed, the bytes delivered since that snapshot over the longer of the
//! send and ACK intervals is one rate sample. Samples taken while the
//! sender had nothing to send are marked application-limited.
//!
//! Counts are in bytes (Linux counts packets). A segment is delivered
//! once: by the SACK block that first covers it whole, or by the
//! cumulative ACK. Losses are counted when a segment is retransmitted (the
//! sender deems it lost then; Linux counts at the marking, a little
//! earlier) and reported with the next sample.
//!
//! For BBRv3 (`congestion/bbr3.rs`) each send also notes the bytes in
//! flight just after it (`tx_in_flight`) and the connection's cumulative
//! loss count (`lost`), so a sample carries both for its newest delivered
//! segment (draft-ietf-ccwg-bbr §4.1.2 `P.tx_in_flight`, `P.lost`), and a
//! retransmission reports the lost segment's own send snapshot
//! (`LostSegment`) before overwriting it. A loss is still counted at the
//! retransmission: that is the moment satcc's sender commits to "lost"
//! (RFC 6675's NextSeg or RACK's mark followed by a send), and it keeps
//! `Sample::losses`, which BBR v1 reads, as it was. While recovery is held
//! back by cwnd or pacing, the count lags Linux's (which counts at the
//! mark), so BBRv3 sees excess loss a little later.

use crate::engine::{Duration, Time};
use std::collections::VecDeque;

/// What the sender noted when it (last) sent a segment.
#[derive(Copy, Clone, Debug)]
struct Sent {
    start: u64,
    end: u64,
    sent: Time,
    /// The connection's `delivered` and `delivered_time` at the send.
    delivered: u64,
    delivered_time: Time,
    /// Send time of the first segment of the flight the sample spans.
    first_sent_time: Time,
    app_limited: bool,
    retransmitted: bool,
    /// Already counted as delivered by a SACK block.
    sacked: bool,
    /// Bytes in flight just after this send (RFC 6675 pipe + the segment).
    tx_in_flight: u64,
    /// The connection's cumulative lost bytes at the send.
    lost: u64,
}

/// A segment deemed lost (being retransmitted), with what was noted when it
/// was last sent (draft-ietf-ccwg-bbr §5.5.10.2 `HandleLostPacket`'s `P`).
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub(crate) struct LostSegment {
    /// Its length.
    pub(crate) len: u64,
    /// Bytes in flight just after it was sent (`P.tx_in_flight`).
    pub(crate) tx_in_flight: u64,
    /// The cumulative lost bytes when it was sent (`P.lost`).
    pub(crate) lost_at_send: u64,
    /// Whether it was sent application-limited.
    pub(crate) app_limited: bool,
    /// The cumulative lost bytes now, this segment included (`C.lost`).
    pub(crate) lost_total: u64,
    /// The connection's delivered bytes now (`C.delivered`).
    pub(crate) delivered_total: u64,
}

/// One ACK's rate sample (draft §3.3 `rs`).
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub(crate) struct Sample {
    /// The connection's bytes delivered so far (`C.delivered`).
    pub(crate) delivered_total: u64,
    /// When the last delivery happened (`C.delivered_time`).
    pub(crate) delivered_time: Time,
    /// `C.delivered` when the newest segment this ACK delivered was sent.
    pub(crate) prior_delivered: u64,
    /// Bytes delivered over `interval`.
    pub(crate) delivered: u64,
    /// max(send elapsed, ACK elapsed); none when the sample is not valid
    /// (nothing delivered, or shorter than the minimum RTT).
    pub(crate) interval: Option<Duration>,
    /// Bytes this ACK newly acknowledged or SACKed.
    pub(crate) acked_sacked: u64,
    /// Bytes newly deemed lost (retransmitted) since the last sample.
    pub(crate) losses: u64,
    /// RTT of the newest segment delivered that was never retransmitted.
    pub(crate) rtt: Option<Duration>,
    pub(crate) app_limited: bool,
    /// Bytes in flight just after the newest delivered segment was sent
    /// (`rs.tx_in_flight`).
    pub(crate) tx_in_flight: u64,
    /// Bytes deemed lost between that segment's send and now (`rs.lost`).
    pub(crate) lost: u64,
    /// Whether cwnd held the sender back at some send whose data was not
    /// all delivered before this ACK (about: in the last round trip).
    pub(crate) cwnd_limited: bool,
}

impl Sample {
    /// The delivery rate, bytes per second, when the sample is valid.
    pub(crate) fn rate(&self) -> Option<f64> {
        let i = self.interval?.as_secs_f64();
        (i > 0.0).then(|| self.delivered as f64 / i)
    }
}

/// The sender's side of the estimator.
#[derive(Clone, Debug, Default)]
pub(crate) struct RateEstimator {
    /// Segments sent and not yet cumulatively acknowledged, by offset.
    sent: VecDeque<Sent>,
    delivered: u64,
    delivered_time: Time,
    first_sent_time: Time,
    /// Nonzero while application-limited: the `delivered` count past which
    /// samples are no longer (draft §3.4 `C.app_limited`).
    app_limited: u64,
    lost: u64,
    /// Cumulative lost bytes (`C.lost`).
    lost_total: u64,
    /// Past this `delivered` count the sender was last cwnd-limited.
    cwnd_limited_until: u64,
    /// Whether lost segments are reported (`LostSegment`, BBRv3).
    report_losses: bool,
    lost_segments: Vec<LostSegment>,
    min_rtt: Option<Duration>,
    /// This ACK's sample as it is being built.
    acc: Option<Sent>,
    acked_sacked: u64,
    rtt_from: Option<Time>,
}

impl RateEstimator {
    /// An estimator that also reports each lost segment's send snapshot
    /// (`take_lost`).
    pub(crate) fn reporting_losses() -> RateEstimator {
        RateEstimator {
            report_losses: true,
            ..RateEstimator::default()
        }
    }

    /// A segment [seq, seq + len) leaves now with `flight` bytes already
    /// outstanding and `in_flight` in the network (RFC 6675 pipe; draft §3.2
    /// "Transmitting a data packet").
    pub(crate) fn on_send(&mut self, now: Time, seq: u64, len: u64, flight: u64, in_flight: u64) {
        let newest = self.sent.back().map_or(0, |s| s.end);
        let resend = seq < newest;
        if resend {
            self.lost_total += len;
        }
        if flight == 0 {
            self.first_sent_time = now;
            self.delivered_time = now;
        }
        let snap = Sent {
            start: seq,
            end: seq + len,
            sent: now,
            delivered: self.delivered,
            delivered_time: self.delivered_time,
            first_sent_time: self.first_sent_time,
            app_limited: self.app_limited != 0,
            retransmitted: false,
            sacked: false,
            tx_in_flight: in_flight + len,
            lost: self.lost_total,
        };
        if !resend {
            self.sent.push_back(snap);
            return;
        }
        self.lost += len;
        let from = self.sent.partition_point(|s| s.end <= seq);
        for s in self.sent.iter_mut().skip(from) {
            if s.start >= seq + len {
                break;
            }
            if self.report_losses && !s.sacked {
                self.lost_segments.push(LostSegment {
                    len: s.end - s.start,
                    tx_in_flight: s.tx_in_flight,
                    lost_at_send: s.lost,
                    app_limited: s.app_limited,
                    lost_total: self.lost_total,
                    delivered_total: self.delivered,
                });
            }
            *s = Sent {
                start: s.start,
                end: s.end,
                retransmitted: true,
                sacked: s.sacked,
                ..snap
            };
        }
    }

    /// A SACK block [start, end): its whole segments are delivered.
    pub(crate) fn on_sack(&mut self, now: Time, start: u64, end: u64) {
        let from = self.sent.partition_point(|s| s.end <= start);
        for i in from..self.sent.len() {
            let s = self.sent[i];
            if s.start >= end {
                break;
            }
            if !s.sacked && s.start >= start && s.end <= end {
                self.sent[i].sacked = true;
                self.deliver(now, s);
            }
        }
    }

    /// The cumulative ACK reached `ack`.
    pub(crate) fn on_cum_ack(&mut self, now: Time, ack: u64) {
        while let Some(&s) = self.sent.front() {
            if s.end > ack {
                break;
            }
            self.sent.pop_front();
            if !s.sacked {
                self.deliver(now, s);
            }
        }
    }

    /// Draft §3.3 UpdateRateSample for one delivered segment: the newest
    /// sent one decides the sample.
    fn deliver(&mut self, now: Time, s: Sent) {
        let len = s.end - s.start;
        self.delivered += len;
        self.acked_sacked += len;
        let newer = self
            .acc
            .is_none_or(|a| s.sent > a.sent || (s.sent == a.sent && s.end > a.end));
        if newer {
            self.acc = Some(s);
            self.first_sent_time = s.sent;
        }
        if !s.retransmitted && self.rtt_from.is_none_or(|t| s.sent >= t) {
            self.rtt_from = Some(s.sent);
        }
        let _ = now;
    }

    /// Draft §3.3 GenerateRateSample, once per ACK after its deliveries.
    pub(crate) fn sample(&mut self, now: Time) -> Sample {
        if self.app_limited != 0 && self.delivered > self.app_limited {
            self.app_limited = 0;
        }
        let acked_sacked = std::mem::take(&mut self.acked_sacked);
        if acked_sacked > 0 {
            self.delivered_time = now;
        }
        let rtt = self.rtt_from.take().map(|t| now.since(t));
        if let Some(r) = rtt {
            self.min_rtt = Some(self.min_rtt.map_or(r, |m| m.min(r)));
        }
        let mut rs = Sample {
            delivered_total: self.delivered,
            delivered_time: self.delivered_time,
            acked_sacked,
            losses: std::mem::take(&mut self.lost),
            rtt,
            cwnd_limited: self.cwnd_limited_until != 0 && self.delivered < self.cwnd_limited_until,
            ..Sample::default()
        };
        let Some(a) = self.acc.take() else {
            return rs;
        };
        rs.prior_delivered = a.delivered;
        rs.app_limited = a.app_limited;
        rs.tx_in_flight = a.tx_in_flight;
        rs.lost = self.lost_total - a.lost;
        rs.delivered = self.delivered - a.delivered;
        let send_elapsed = a.sent.since(a.first_sent_time);
        let ack_elapsed = now.since(a.delivered_time);
        let interval = send_elapsed.max(ack_elapsed);
        // An interval shorter than the minimum RTT would overstate the rate
        // (draft §3.3: ACK compression or a stretched send).
        if self.min_rtt.is_none_or(|m| interval >= m) && interval.ps() > 0 {
            rs.interval = Some(interval);
        }
        rs
    }

    /// The sender has nothing more to send while the window has room
    /// (draft §3.4 CheckIfApplicationLimited): samples until what is now in
    /// flight is delivered are application-limited.
    pub(crate) fn mark_app_limited(&mut self, flight: u64) {
        self.app_limited = (self.delivered + flight).max(1);
    }

    /// cwnd stopped a send with `flight` bytes outstanding: samples count
    /// as cwnd-limited until that flight (and the next segment) is
    /// delivered (Linux's `is_cwnd_limited` over a window of data).
    pub(crate) fn mark_cwnd_limited(&mut self, flight: u64) {
        self.cwnd_limited_until = self.delivered + flight + 1;
    }

    /// Whether samples are application-limited now.
    pub(crate) fn is_app_limited(&self) -> bool {
        self.app_limited != 0
    }

    /// The segments deemed lost since the last call (only when reporting).
    pub(crate) fn take_lost(&mut self) -> Vec<LostSegment> {
        std::mem::take(&mut self.lost_segments)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(t: u64) -> Time {
        Time(t * 1_000_000_000)
    }

    #[test]
    fn a_paced_flight_samples_the_bottleneck_rate() {
        // Ten 1000-byte segments sent 1 ms apart, the path 100 ms long and
        // serving one per 1 ms: each ACK after the first delivers 1000 B per
        // 1 ms, and the sample is 1 MB/s whether the send or the ACK
        // interval decides.
        let mut r = RateEstimator::default();
        for i in 0..10 {
            r.on_send(ms(i), i * 1000, 1000, i * 1000, i * 1000);
        }
        let mut last = Sample::default();
        for i in 0..10 {
            r.on_cum_ack(ms(100 + i), (i + 1) * 1000);
            last = r.sample(ms(100 + i));
        }
        assert_eq!(last.delivered_total, 10_000);
        assert_eq!(last.acked_sacked, 1000);
        // The last segment was sent at 9 ms with nothing delivered yet: its
        // snapshot (delivered 0 at 0 ms) gives 10000 B over 109 ms.
        assert_eq!(last.delivered, 10_000);
        assert_eq!(last.interval, Some(ms(109).since(Time::ZERO)));
        assert_eq!(last.rtt, Some(Duration::from_millis(100)));
        // The next flight is sent as ACKs arrive: delivered 10000 at 109 ms.
        r.on_send(ms(109), 10_000, 1000, 0, 0);
        r.on_cum_ack(ms(209), 11_000);
        let s = r.sample(ms(209));
        assert_eq!((s.prior_delivered, s.delivered), (10_000, 1000));
        assert_eq!(s.interval, Some(Duration::from_millis(100)));
    }

    #[test]
    fn sacked_segments_count_once_and_retransmissions_are_losses() {
        let mut r = RateEstimator::default();
        for i in 0..4 {
            r.on_send(ms(0), i * 100, 100, i * 100, i * 100);
        }
        r.on_sack(ms(10), 100, 300); // segments 1 and 2
        let s = r.sample(ms(10));
        assert_eq!((s.acked_sacked, s.delivered_total), (200, 200));
        r.on_sack(ms(11), 100, 400); // 1 and 2 again, 3 new
        assert_eq!(r.sample(ms(11)).acked_sacked, 100);
        r.on_send(ms(12), 0, 100, 100, 100); // segment 0 resent
        r.on_cum_ack(ms(22), 400);
        let s = r.sample(ms(22));
        assert_eq!(
            (s.acked_sacked, s.delivered_total, s.losses),
            (100, 400, 100)
        );
        assert_eq!(s.rtt, None, "Karn: no RTT from a retransmission");
    }

    #[test]
    fn samples_carry_the_flight_at_send_and_the_losses_since() {
        let mut r = RateEstimator::reporting_losses();
        for i in 0..4 {
            r.on_send(ms(0), i * 100, 100, i * 100, i * 100);
        }
        r.on_sack(ms(10), 100, 400);
        let s = r.sample(ms(10));
        assert_eq!((s.tx_in_flight, s.lost), (400, 0), "segment 3: 300 + 100");
        assert!(r.take_lost().is_empty());
        // Segment 0 resent: it is lost, reported with its first send's
        // snapshot, and counted at once.
        r.on_send(ms(12), 0, 100, 400, 0);
        let lost = LostSegment {
            len: 100,
            tx_in_flight: 100,
            lost_at_send: 0,
            app_limited: false,
            lost_total: 100,
            delivered_total: 300,
        };
        assert_eq!(r.take_lost(), vec![lost]);
        r.on_send(ms(13), 400, 100, 400, 100);
        r.on_send(ms(14), 500, 100, 500, 200);
        // Segment 4 resent too: 100 more lost after segment 5 was sent.
        r.on_send(ms(15), 400, 100, 600, 200);
        assert_eq!(r.take_lost()[0].lost_at_send, 100);
        r.on_cum_ack(ms(22), 400);
        let s = r.sample(ms(22));
        assert_eq!((s.tx_in_flight, s.lost), (100, 100), "segment 0's resend");
        r.on_cum_ack(ms(24), 600);
        let s = r.sample(ms(24));
        // The newest delivered is segment 4's resend (sent at 15 ms).
        assert_eq!((s.tx_in_flight, s.lost), (300, 0));
        // Without reporting, nothing is kept.
        let mut r = RateEstimator::default();
        r.on_send(ms(0), 0, 100, 0, 0);
        r.on_send(ms(1), 0, 100, 100, 0);
        assert!(r.take_lost().is_empty());
    }

    #[test]
    fn cwnd_limited_lasts_until_the_flight_then_out_is_delivered() {
        let mut r = RateEstimator::default();
        for i in 0..3 {
            r.on_send(ms(0), i * 100, 100, i * 100, i * 100);
        }
        r.mark_cwnd_limited(300);
        r.on_cum_ack(ms(10), 300);
        assert!(r.sample(ms(10)).cwnd_limited);
        r.on_send(ms(10), 300, 100, 0, 0);
        r.on_cum_ack(ms(20), 400);
        assert!(!r.sample(ms(20)).cwnd_limited, "a flight later");
    }

    #[test]
    fn app_limited_marks_samples_until_the_flight_is_delivered() {
        let mut r = RateEstimator::default();
        r.on_send(ms(0), 0, 100, 0, 0);
        r.mark_app_limited(100);
        r.on_send(ms(1), 100, 100, 100, 100);
        r.on_cum_ack(ms(50), 100);
        assert!(!r.sample(ms(50)).app_limited, "sent before the mark");
        r.on_cum_ack(ms(51), 200);
        let s = r.sample(ms(51));
        assert!(s.app_limited);
        r.on_send(ms(52), 200, 100, 0, 0);
        r.on_cum_ack(ms(102), 300);
        assert!(!r.sample(ms(102)).app_limited, "mark passed at 200 B");
    }
}
