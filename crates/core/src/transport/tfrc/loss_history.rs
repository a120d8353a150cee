//! The TFRC receiver's loss history (RFC 5348 §5, with the TFRC-SP changes
//! of RFC 4828 §3): which packets are lost, how losses group into loss
//! events, the loss intervals between events and the loss event rate p
//! from their weighted average.
//!
//! - A packet is lost once NDUPACK = 3 packets with higher sequence numbers
//!   have arrived without it (§5.1); its loss time is interpolated between
//!   the arrivals around the gap (§5.2).
//! - Losses within one RTT of the first loss of an event belong to that
//!   event (§5.2); an interval runs from the first loss of one event to the
//!   first loss of the next, I_0 being the open one (§5.3).
//! - p = 1 / max(I_tot0, I_tot1) · W_tot over the last n = 8 intervals with
//!   weights 1, 1, 1, 1, 0.8, 0.6, 0.4, 0.2 (§5.4). History discounting
//!   (§5.5) is not modelled.
//! - The first loss event seeds the history with a synthetic interval the
//!   receiver derives from its receive rate (§6.3.1); the caller supplies it.
//! - With ECN, a CE-marked packet is a congestion indication on arrival
//!   (RFC 5348 §5 counts a marked packet as a lost one, RFC 3168 §5): it
//!   is a loss at its own arrival time, without waiting for NDUPACK later
//!   packets, and groups into events and intervals as a loss does.
//! - TFRC-SP: an interval shorter than two RTTs counts as its length over
//!   the packets its event lost, and I_0 counts only once it is two RTTs
//!   old.

use crate::engine::Time;
use std::collections::VecDeque;

pub(crate) const NDUPACK: u8 = 3;
pub(crate) const N_INTERVALS: usize = 8;
const WEIGHTS: [f64; N_INTERVALS] = [1.0, 1.0, 1.0, 1.0, 0.8, 0.6, 0.4, 0.2];

/// A packet not yet received with later ones around it.
#[derive(Clone, Debug)]
struct Missing {
    seq: u64,
    later: u8,
    before: (u64, Time),
    after: (u64, Time),
}

#[derive(Clone, Debug)]
struct Event {
    start_seq: u64,
    start: Time,
    lost: u32,
}

/// A closed loss interval: its length in packets, how long it lasted and
/// how many packets the event that opened it lost.
#[derive(Clone, Debug)]
struct Interval {
    packets: f64,
    seconds: f64,
    lost: u32,
}

#[derive(Clone, Debug)]
pub(crate) struct LossHistory {
    small_packets: bool,
    highest: Option<(u64, Time)>,
    missing: VecDeque<Missing>,
    current: Option<Event>,
    /// Most recent first.
    closed: VecDeque<Interval>,
    pub(crate) packets_lost: u64,
    /// CE-marked packets, counted as losses in the events (ECN).
    pub(crate) packets_marked: u64,
    pub(crate) loss_events: u64,
}

/// What one arrival changed.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Arrival {
    pub(crate) new_losses: u32,
    pub(crate) new_events: u32,
}

impl LossHistory {
    pub(crate) fn new(small_packets: bool) -> LossHistory {
        LossHistory {
            small_packets,
            highest: None,
            missing: VecDeque::new(),
            current: None,
            closed: VecDeque::new(),
            packets_lost: 0,
            packets_marked: 0,
            loss_events: 0,
        }
    }

    /// Data packet `seq` arrived at `now`; `rtt_s` is the sender's RTT
    /// estimate it carried. `seed` gives the synthetic first interval (in
    /// packets) when the first loss event begins.
    pub(crate) fn on_packet(
        &mut self,
        seq: u64,
        now: Time,
        rtt_s: f64,
        seed: &mut dyn FnMut() -> f64,
    ) -> Arrival {
        let mut arrival = Arrival::default();
        // A late arrival fills its hole; every hole below `seq` sees one
        // more packet after it.
        self.missing.retain(|m| m.seq != seq);
        for m in self.missing.iter_mut().filter(|m| m.seq < seq) {
            m.later = m.later.saturating_add(1);
        }
        match self.highest {
            None => self.highest = Some((seq, now)),
            Some((h, t)) if seq > h => {
                for gap in h + 1..seq {
                    self.missing.push_back(Missing {
                        seq: gap,
                        later: 1,
                        before: (h, t),
                        after: (seq, now),
                    });
                }
                self.highest = Some((seq, now));
            }
            Some(_) => {}
        }
        while let Some(m) = self.missing.front() {
            if m.later < NDUPACK {
                break;
            }
            let m = self.missing.pop_front().expect("front exists");
            self.packets_lost += 1;
            let new_event = self.on_loss(&m, rtt_s, seed);
            arrival.new_losses += 1;
            arrival.new_events += u32::from(new_event);
        }
        arrival
    }

    /// Packet `seq`, already passed to `on_packet`, arrived CE-marked at
    /// `now`: a loss at `now` for the loss events (ECN).
    pub(crate) fn on_mark(
        &mut self,
        seq: u64,
        now: Time,
        rtt_s: f64,
        seed: &mut dyn FnMut() -> f64,
    ) -> Arrival {
        self.packets_marked += 1;
        let m = Missing {
            seq,
            later: NDUPACK,
            before: (seq, now),
            after: (seq + 1, now),
        };
        let new_event = self.on_loss(&m, rtt_s, seed);
        Arrival {
            new_losses: 1,
            new_events: u32::from(new_event),
        }
    }

    fn on_loss(&mut self, m: &Missing, rtt_s: f64, seed: &mut dyn FnMut() -> f64) -> bool {
        let t = interpolate(m);
        match &mut self.current {
            Some(ev) if t.since(ev.start).as_secs_f64() <= rtt_s => {
                ev.lost += 1;
                false
            }
            Some(ev) => {
                self.closed.push_front(Interval {
                    packets: (m.seq - ev.start_seq) as f64,
                    seconds: t.since(ev.start).as_secs_f64(),
                    lost: ev.lost,
                });
                self.closed.truncate(N_INTERVALS);
                self.start_event(m.seq, t);
                true
            }
            None => {
                let synthetic = seed().max(1.0);
                self.closed.push_front(Interval {
                    packets: synthetic,
                    seconds: f64::INFINITY,
                    lost: 1,
                });
                self.start_event(m.seq, t);
                true
            }
        }
    }

    fn start_event(&mut self, seq: u64, t: Time) {
        self.loss_events += 1;
        self.current = Some(Event {
            start_seq: seq,
            start: t,
            lost: 1,
        });
    }

    /// The loss event rate at `now` (0 before the first loss).
    pub(crate) fn p(&self, now: Time, rtt_s: f64) -> f64 {
        let Some(ev) = &self.current else {
            return 0.0;
        };
        let highest = self.highest.map_or(ev.start_seq, |(h, _)| h);
        let i0 = (highest + 1 - ev.start_seq) as f64;
        let closed: Vec<f64> = self
            .closed
            .iter()
            .map(|iv| self.counted(iv, rtt_s))
            .collect();
        let k = closed.len();
        let w_tot: f64 = WEIGHTS[..k].iter().sum();
        let tot1: f64 = closed.iter().zip(WEIGHTS).map(|(i, w)| i * w).sum();
        let tot0: f64 = i0 * WEIGHTS[0]
            + closed[..k - 1]
                .iter()
                .zip(&WEIGHTS[1..])
                .map(|(i, w)| i * w)
                .sum::<f64>();
        let i0_counts = !self.small_packets || now.since(ev.start).as_secs_f64() >= 2.0 * rtt_s;
        let tot = if i0_counts { tot0.max(tot1) } else { tot1 };
        1.0 / (tot / w_tot)
    }

    /// A closed interval as it enters the average (TFRC-SP divides a short
    /// one by its event's losses).
    fn counted(&self, iv: &Interval, rtt_s: f64) -> f64 {
        if self.small_packets && iv.seconds < 2.0 * rtt_s && iv.lost > 1 {
            iv.packets / f64::from(iv.lost)
        } else {
            iv.packets
        }
    }

    /// Closed intervals, most recent first, as they enter the average.
    #[cfg(test)]
    pub(crate) fn intervals(&self, rtt_s: f64) -> Vec<f64> {
        self.closed
            .iter()
            .map(|iv| self.counted(iv, rtt_s))
            .collect()
    }
}

/// §5.2: T_loss = T_before + (T_after − T_before)(S_loss − S_before) /
/// (S_after − S_before).
fn interpolate(m: &Missing) -> Time {
    let (sb, tb) = m.before;
    let (sa, ta) = m.after;
    let frac = (m.seq - sb) as f64 / (sa - sb) as f64;
    Time(tb.ps() + (ta.since(tb).ps() as f64 * frac).round() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at_ms(ms: u64) -> Time {
        Time(ms * 1_000_000_000)
    }

    /// Feeds packets `0..n` one every 10 ms, skipping `lost`; returns the
    /// history and the number of events the arrivals reported.
    fn feed(n: u64, lost: &[u64], rtt_s: f64, small: bool, seed: f64) -> (LossHistory, u32) {
        let mut h = LossHistory::new(small);
        let mut events = 0;
        for seq in (0..n).filter(|s| !lost.contains(s)) {
            events += h
                .on_packet(seq, at_ms(10 * seq), rtt_s, &mut || seed)
                .new_events;
        }
        (h, events)
    }

    #[test]
    fn no_loss_means_p_zero() {
        let (h, ev) = feed(100, &[], 0.1, false, 50.0);
        assert_eq!(ev, 0);
        assert_eq!(h.p(at_ms(1000), 0.1), 0.0);
    }

    #[test]
    fn a_hole_is_a_loss_only_after_three_later_packets() {
        let mut h = LossHistory::new(false);
        let mut seed = || 100.0;
        for seq in [0, 1, 3, 4] {
            h.on_packet(seq, at_ms(seq), 0.1, &mut seed);
        }
        assert_eq!(h.packets_lost, 0);
        h.on_packet(5, at_ms(5), 0.1, &mut seed);
        assert_eq!(h.packets_lost, 1);
    }

    /// ECN: a mark is a loss event on arrival, not three packets later,
    /// and the intervals it closes are those the same drops would close.
    #[test]
    fn a_mark_is_a_loss_at_its_arrival() {
        let mut h = LossHistory::new(false);
        let mut seed = || 100.0;
        for seq in 0..=50 {
            h.on_packet(seq, at_ms(10 * seq), 0.1, &mut seed);
        }
        assert_eq!(h.on_mark(50, at_ms(500), 0.1, &mut seed).new_events, 1);
        assert_eq!((h.packets_marked, h.packets_lost, h.loss_events), (1, 0, 1));
        // A second mark within one RTT joins the event; one after opens
        // the next, closing an interval of 80 packets.
        for seq in 51..=200 {
            h.on_packet(seq, at_ms(10 * seq), 0.1, &mut seed);
            if seq == 55 || seq == 130 {
                h.on_mark(seq, at_ms(10 * seq), 0.1, &mut seed);
            }
        }
        assert_eq!(h.loss_events, 2);
        let (d, _) = feed(201, &[50, 55, 130], 0.1, false, 100.0);
        assert_eq!(h.intervals(0.1), d.intervals(0.1));
        assert_eq!(h.intervals(0.1)[0], 80.0);
    }

    #[test]
    fn a_reordered_packet_is_not_a_loss() {
        let mut h = LossHistory::new(false);
        let mut seed = || 100.0;
        for seq in [0, 1, 3, 4, 2, 5, 6, 7] {
            h.on_packet(seq, at_ms(seq), 0.1, &mut seed);
        }
        assert_eq!(h.packets_lost, 0);
        assert_eq!(h.p(at_ms(10), 0.1), 0.0);
    }

    #[test]
    fn losses_within_one_rtt_are_one_event() {
        // 10 ms spacing, RTT 100 ms: 20, 25 and 29 fall in one event; 40
        // (200 ms after 20) opens the next.
        let (h, ev) = feed(100, &[20, 25, 29, 40], 0.1, false, 50.0);
        assert_eq!(h.packets_lost, 4);
        assert_eq!(ev, 2);
        assert_eq!(h.loss_events, 2);
        // Synthetic seed 50, then the interval 20 → 40.
        assert_eq!(h.intervals(0.1), vec![20.0, 50.0]);
    }

    #[test]
    fn loss_event_rate_by_hand() {
        // Losses at 100, 130, 190, 200 (10 ms apart: 1 s, 0.3 s, 0.6 s,
        // 0.1 s; RTT 50 ms, so each is its own event), 250 packets, seed 80.
        // Closed, most recent first: I1 = 200-190 = 10, I2 = 60, I3 = 30,
        // I4 = 80 (seed); I0 = 249 + 1 - 200 = 50.
        // k = 4, W = 4; tot0 = 50 + 10 + 60 + 30 = 150; tot1 = 10 + 60 + 30
        // + 80 = 180; I_mean = 45, p = 1/45.
        let (h, _) = feed(250, &[100, 130, 190, 200], 0.05, false, 80.0);
        assert_eq!(h.intervals(0.05), vec![10.0, 60.0, 30.0, 80.0]);
        let p = h.p(at_ms(2500), 0.05);
        assert!((p - 1.0 / 45.0).abs() < 1e-12, "{p}");
    }

    #[test]
    fn weights_apply_beyond_four_intervals() {
        // Ten losses every 50 packets (each its own event at RTT 0.1 s,
        // 500 ms apart), seed 1000: the eight most recent closed intervals
        // are 50 each (the seed has dropped out); I0 = 600 - 500 = 100.
        let lost: Vec<u64> = (1..=10).map(|k| 50 * k).collect();
        let (h, _) = feed(600, &lost, 0.1, false, 1000.0);
        assert_eq!(h.intervals(0.1), vec![50.0; 8]);
        // W = 6.0; tot1 = 50 · 6 = 300; tot0 = 100 + 50 · 5 = 350.
        let p = h.p(at_ms(6000), 0.1);
        assert!((p - 6.0 / 350.0).abs() < 1e-12, "{p}");
    }

    #[test]
    fn loss_time_is_interpolated_between_neighbours() {
        let m = Missing {
            seq: 12,
            later: 3,
            before: (10, at_ms(100)),
            after: (14, at_ms(140)),
        };
        assert_eq!(interpolate(&m), at_ms(120));
    }

    #[test]
    fn small_packets_divide_a_short_interval_by_its_losses() {
        // RTT 1 s, 10 ms spacing: losses 100, 101, 102 form one event that
        // lost 3; 250 (1.5 s later) opens the next, closing an interval of
        // 150 packets that lasted 1.5 s, under two RTTs.
        let lost = [100, 101, 102, 250];
        let (tfrc, _) = feed(400, &lost, 1.0, false, 1000.0);
        let (sp, _) = feed(400, &lost, 1.0, true, 1000.0);
        assert_eq!(tfrc.intervals(1.0)[0], 150.0);
        assert_eq!(sp.intervals(1.0)[0], 50.0);
        // I0 (150 packets, 1.5 s old) is left out by TFRC-SP only.
        // TFRC: tot0 = 150 + 150, tot1 = 150 + 1000; W = 2 → p = 2/1150.
        assert!((tfrc.p(at_ms(4000), 1.0) - 2.0 / 1150.0).abs() < 1e-12);
        // TFRC-SP at 3.99 s (1.49 s after the event): tot1 = 50 + 1000.
        assert!((sp.p(at_ms(3990), 1.0) - 2.0 / 1050.0).abs() < 1e-12);
    }
}
