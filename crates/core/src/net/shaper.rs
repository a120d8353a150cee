//! A host's rate-controlled segmentation buffer: the end-to-end ABR source
//! of the abr-effcap paper (Figs. 3-4). Packets from the host's transport
//! wait in an unbounded FIFO served at the explicit rate last fed back; the
//! rate jumps to each new value at once (no TM 4.0 ramp, as in the paper's
//! testbed), also for a packet part-way through its service, whose remaining
//! bits go at the new rate. Service time is the packet's size on the wire
//! (`Framing`: the AAL5 cells of an ATM path), so a source fed back the
//! bottleneck's wire rate sends exactly what the bottleneck can carry.
//!
//! Bounded (`limit`), the buffer drops a packet that arrives when it holds
//! `limit` packets, as a host's interface queue does when full; the paper
//! takes it unbounded (its section 3.1: the buffer "extends into the main
//! memory of the computer"), the default.
//!
//! Passive like every model: it says when the head packet leaves, and the
//! component driving it supplies the time.

use super::framing::Framing;
use super::pdu::Pdu;
use crate::engine::{Rate, Time};
use std::collections::VecDeque;

#[derive(Debug)]
pub(crate) struct Shaper {
    framing: Framing,
    rate: Rate,
    /// At most this many packets wait; `None`: unbounded.
    limit: Option<usize>,
    queue: VecDeque<Pdu>,
    /// Bits of the head packet still to serve as of `since`.
    head_bits: f64,
    since: Time,
    pub stats: ShaperStats,
}

#[derive(Clone, Debug, Default)]
pub(crate) struct ShaperStats {
    pub(crate) packets: u64,
    pub bytes: u64,
    pub(crate) max_queue: u64,
    pub(crate) rate_changes: u64,
    /// Packets refused because the buffer held `limit`.
    pub(crate) dropped: u64,
    /// ∫ queue length dt in packet·ps, for the mean backlog.
    queue_area: f64,
    queue_since: Time,
}

impl Shaper {
    pub(crate) fn new(framing: Framing, initial_rate_bps: f64) -> Shaper {
        Shaper {
            framing,
            rate: Rate::from_bps(initial_rate_bps),
            limit: None,
            queue: VecDeque::new(),
            head_bits: 0.0,
            since: Time::ZERO,
            stats: ShaperStats::default(),
        }
    }

    /// The same buffer holding at most `limit` packets.
    pub(crate) fn bounded(mut self, limit: Option<usize>) -> Shaper {
        self.limit = limit;
        self
    }

    pub(crate) fn rate_bps(&self) -> f64 {
        self.rate.bps
    }

    pub(crate) fn len(&self) -> usize {
        self.queue.len()
    }

    /// Mean backlog in packets from time 0 to `now`.
    pub(crate) fn mean_queue(&self, now: Time) -> f64 {
        let area = self.stats.queue_area
            + self.queue.len() as f64 * now.since(self.stats.queue_since).ps() as f64;
        if now.ps() == 0 {
            0.0
        } else {
            area / now.ps() as f64
        }
    }

    fn account_queue(&mut self, now: Time) {
        let dt = now.since(self.stats.queue_since).ps() as f64;
        self.stats.queue_area += self.queue.len() as f64 * dt;
        self.stats.queue_since = now;
    }

    /// Takes `p` unless the buffer is full; false: dropped (counted).
    pub(crate) fn enqueue(&mut self, now: Time, p: Pdu) -> bool {
        if self.limit.is_some_and(|l| self.queue.len() >= l) {
            self.stats.dropped += 1;
            return false;
        }
        self.account_queue(now);
        if self.queue.is_empty() {
            self.head_bits = self.wire_bits(&p);
            self.since = now;
        }
        self.queue.push_back(p);
        self.stats.max_queue = self.stats.max_queue.max(self.queue.len() as u64);
        true
    }

    /// When the head packet's last bit is served; `Time::NEVER` when the
    /// buffer is empty or the rate is zero.
    pub(crate) fn next_departure(&self) -> Time {
        if self.queue.is_empty() || self.rate.bps <= 0.0 {
            return Time::NEVER;
        }
        self.since + self.rate.tx_time_bits(self.head_bits)
    }

    /// The head packet, if it has been served by `now`.
    pub(crate) fn depart(&mut self, now: Time) -> Option<Pdu> {
        if self.next_departure() > now {
            return None;
        }
        self.account_queue(now);
        let p = self.queue.pop_front()?;
        self.stats.packets += 1;
        self.stats.bytes += p.bytes as u64;
        self.since = now;
        self.head_bits = self.queue.front().map_or(0.0, |q| self.wire_bits(q));
        Some(p)
    }

    /// A new explicit rate: the head's remaining bits go at it from now.
    pub(crate) fn set_rate(&mut self, now: Time, rate_bps: f64) {
        if !self.queue.is_empty() {
            let served = self.rate.bits_in(now.since(self.since));
            self.head_bits = (self.head_bits - served).max(0.0);
        }
        self.since = now;
        if rate_bps != self.rate.bps {
            self.stats.rate_changes += 1;
        }
        self.rate = Rate::from_bps(rate_bps.max(0.0));
    }

    fn wire_bits(&self, p: &Pdu) -> f64 {
        self.framing.wire_bytes(p.bytes) as f64 * 8.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000_000;

    fn packet(seq: u64) -> Pdu {
        Pdu {
            bytes: 500,
            seq,
            ..Pdu::default()
        }
    }

    #[test]
    fn packets_leave_at_the_rate_in_cells() {
        // 500 B is 11 cells, 4664 bits: 5.83 ms each at 800 kb/s.
        let mut s = Shaper::new(Framing::Aal5, 800_000.0);
        for i in 0..3 {
            s.enqueue(Time::ZERO, packet(i));
        }
        let mut left = vec![];
        while let Some(t) = Some(s.next_departure()).filter(|t| *t != Time::NEVER) {
            let p = s.depart(t).unwrap();
            left.push((t.ps(), p.seq));
        }
        assert_eq!(
            left,
            vec![(5_830_000_000, 0), (11_660_000_000, 1), (17_490_000_000, 2)]
        );
        assert_eq!(s.stats.packets, 3);
    }

    #[test]
    fn a_rate_change_applies_to_the_rest_of_the_head_packet() {
        // Half the packet at 800 kb/s (2.915 ms), the rest at 400 kb/s.
        let mut s = Shaper::new(Framing::Aal5, 800_000.0);
        s.enqueue(Time::ZERO, packet(0));
        s.set_rate(Time(2_915_000_000), 400_000.0);
        assert_eq!(s.next_departure(), Time(2_915_000_000 + 5_830_000_000));
        assert!(s.depart(Time(8 * MS)).is_none());
        assert!(s.depart(Time(2_915_000_000 + 5_830_000_000)).is_some());
        // At zero rate nothing leaves until a rate comes back.
        s.enqueue(Time(9 * MS), packet(1));
        s.set_rate(Time(9 * MS), 0.0);
        assert_eq!(s.next_departure(), Time::NEVER);
        s.set_rate(Time(20 * MS), 800_000.0);
        assert_eq!(s.next_departure(), Time(20 * MS + 5_830_000_000));
    }

    #[test]
    fn a_bounded_buffer_drops_what_arrives_when_full() {
        // Limit 2 at 800 kb/s: the third packet at time 0 is refused; once
        // the head has left (5.83 ms) there is room for one more.
        let mut s = Shaper::new(Framing::Aal5, 800_000.0).bounded(Some(2));
        assert!(s.enqueue(Time::ZERO, packet(0)));
        assert!(s.enqueue(Time::ZERO, packet(1)));
        assert!(!s.enqueue(Time::ZERO, packet(2)));
        let t = s.next_departure();
        assert_eq!(t, Time(5_830_000_000));
        assert_eq!(s.depart(t).unwrap().seq, 0);
        assert!(s.enqueue(t, packet(3)));
        assert!(!s.enqueue(t, packet(4)));
        let mut left = vec![];
        while s.next_departure() != Time::NEVER {
            left.push(s.depart(s.next_departure()).unwrap().seq);
        }
        assert_eq!(left, vec![1, 3]);
        assert_eq!(
            (s.stats.packets, s.stats.dropped, s.stats.max_queue),
            (3, 2, 2)
        );
    }

    #[test]
    fn mean_backlog_is_the_time_average() {
        let mut s = Shaper::new(Framing::None, 8_000.0); // 500 B: 0.5 s
        s.enqueue(Time::ZERO, packet(0));
        s.enqueue(Time::ZERO, packet(1));
        let t1 = s.next_departure();
        s.depart(t1).unwrap();
        let t2 = s.next_departure();
        s.depart(t2).unwrap();
        // 2 packets for 0.5 s, 1 for 0.5 s, over 1 s: 1.5.
        assert!((s.mean_queue(t2) - 1.5).abs() < 1e-9);
        assert_eq!(s.stats.max_queue, 2);
    }
}
