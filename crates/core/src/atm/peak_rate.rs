//! The peak-rate controller of the proactive-atm thesis (sections 3.2 and
//! 6.1.2): a per-VC FIFO of L1 cells at the network access that spaces its
//! departures at the agreed peak rate. A cell leaves when the previous one's
//! transmission time at the peak rate has passed; the others wait. A voice
//! or video cell arriving to a full queue is discarded; for data the cell
//! at the head is sent at once, marked CLP = 1, and the new cell queued
//! (data may exceed its peak, but only as cells the network may drop first).
//!
//! The head sent early does not restart the spacing timer: the thesis only
//! says it is "sent out", and restarting would delay the CLP = 0 cells
//! behind it for a cell the contract did not cover (docs/proactive-atm.md).

use crate::engine::{Check, ConfigError, Duration, Time};
use crate::net::Pdu;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// What a full queue does with an arrival.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PrcOverflow {
    /// Voice and video: the arriving cell is discarded.
    #[default]
    Drop,
    /// Data: the head leaves at once marked CLP = 1, the arrival is queued.
    MarkHead,
}

/// A VC's peak-rate controller (the proactive-atm thesis, sections 3.2 and
/// 6.1.2): the `peak_rate`, `prc_queue` and `prc_overflow` of a
/// `cell_sources` contract.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PeakRateConfig {
    /// The agreed peak cell rate.
    pub peak_cells_per_s: f64,
    /// L1: cells waiting, besides none in service (a cell leaves as it is
    /// released).
    pub queue_cells: u32,
    /// What a full queue does with an arrival: discard it (the default, and
    /// the scenario's for voice and video) or send the head on marked
    /// CLP = 1 (the scenario's for data).
    #[serde(default)]
    pub overflow: PrcOverflow,
}

impl PeakRateConfig {
    /// The least time between two CLP = 0 departures: one cell at the peak.
    pub(crate) fn spacing(&self) -> Duration {
        Duration::from_secs_f64(1.0 / self.peak_cells_per_s)
    }
}

impl Check for PeakRateConfig {
    fn check(&self) -> Result<(), ConfigError> {
        if !(self.peak_cells_per_s.is_finite() && self.peak_cells_per_s > 0.0) {
            return Err("the peak rate must be positive".into());
        }
        Ok(())
    }
}

/// What became of a cell offered to the controller.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum PrcOutcome {
    /// It leaves now.
    Depart(Pdu),
    /// It waits for its turn.
    Queued,
    /// The queue was full: it is discarded, given back.
    Dropped(Pdu),
    /// The queue was full: the head leaves now marked CLP = 1, the
    /// arrival took its place at the tail.
    HeadMarked(Pdu),
}

#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct PrcStats {
    pub(crate) offered: u64,
    pub(crate) dropped: u64,
    pub(crate) marked: u64,
    pub(crate) departed: u64,
}

#[derive(Clone, Debug)]
pub(crate) struct PeakRateController {
    cfg: PeakRateConfig,
    spacing: Duration,
    queue: VecDeque<Pdu>,
    /// The earliest the next spaced departure may leave.
    free_at: Time,
    pub stats: PrcStats,
}

impl PeakRateController {
    pub(crate) fn new(cfg: PeakRateConfig) -> PeakRateController {
        PeakRateController {
            spacing: cfg.spacing(),
            cfg,
            queue: VecDeque::new(),
            free_at: Time::ZERO,
            stats: PrcStats::default(),
        }
    }

    pub(crate) fn offer(&mut self, now: Time, cell: Pdu) -> PrcOutcome {
        self.stats.offered += 1;
        if self.queue.is_empty() && now >= self.free_at {
            self.free_at = now + self.spacing;
            self.stats.departed += 1;
            return PrcOutcome::Depart(cell);
        }
        if self.queue.len() < self.cfg.queue_cells as usize {
            self.queue.push_back(cell);
            return PrcOutcome::Queued;
        }
        match self.cfg.overflow {
            PrcOverflow::Drop => {
                self.stats.dropped += 1;
                PrcOutcome::Dropped(cell)
            }
            PrcOverflow::MarkHead => match self.queue.pop_front() {
                Some(mut head) => {
                    head.set_clp(1);
                    self.queue.push_back(cell);
                    self.stats.marked += 1;
                    self.stats.departed += 1;
                    PrcOutcome::HeadMarked(head)
                }
                // L1 = 0 and the server busy: the arrival itself is the
                // head there is no room for.
                None => {
                    let mut cell = cell;
                    cell.set_clp(1);
                    self.stats.marked += 1;
                    self.stats.departed += 1;
                    PrcOutcome::HeadMarked(cell)
                }
            },
        }
    }

    /// When the head may leave (`Time::NEVER` when nothing waits).
    pub(crate) fn poll_at(&self) -> Time {
        if self.queue.is_empty() {
            Time::NEVER
        } else {
            self.free_at
        }
    }

    /// The head, if its turn has come.
    pub(crate) fn poll(&mut self, now: Time) -> Option<Pdu> {
        if self.queue.is_empty() || now < self.free_at {
            return None;
        }
        self.free_at = now + self.spacing;
        self.stats.departed += 1;
        self.queue.pop_front()
    }

    pub(crate) fn held(&self) -> impl Iterator<Item = &Pdu> {
        self.queue.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::RngStream;

    fn cell(seq: u64) -> Pdu {
        Pdu {
            bytes: 53,
            seq,
            ..Pdu::default()
        }
    }

    fn prc(peak_bps: f64, queue: u32, overflow: PrcOverflow) -> PeakRateController {
        PeakRateController::new(PeakRateConfig {
            peak_cells_per_s: peak_bps / 384.0,
            queue_cells: queue,
            overflow,
        })
    }

    /// Drives the controller with arrivals at `times` (ps), releasing
    /// queued cells whenever due; returns (time, cell) of every departure.
    fn drive(c: &mut PeakRateController, times: &[u64]) -> Vec<(Time, Pdu)> {
        let mut out = vec![];
        let mut arrivals = times.iter().enumerate().peekable();
        loop {
            let next_arrival = arrivals.peek().map_or(Time::NEVER, |(_, &t)| Time(t));
            let next_release = c.poll_at();
            if next_arrival == Time::NEVER && next_release == Time::NEVER {
                return out;
            }
            if next_release <= next_arrival {
                let cell = c.poll(next_release).expect("due");
                out.push((next_release, cell));
            } else {
                let (i, _) = arrivals.next().unwrap();
                match c.offer(next_arrival, cell(i as u64)) {
                    PrcOutcome::Depart(p) | PrcOutcome::HeadMarked(p) => {
                        out.push((next_arrival, p))
                    }
                    PrcOutcome::Queued | PrcOutcome::Dropped(_) => {}
                }
            }
        }
    }

    #[test]
    fn clp0_departures_are_never_closer_than_one_cell_at_the_peak() {
        // Bursts far above the peak, random gaps: every CLP = 0 departure
        // keeps the spacing, whatever the overflow rule.
        for overflow in [PrcOverflow::Drop, PrcOverflow::MarkHead] {
            let mut c = prc(64_000.0, 8, overflow);
            let spacing = c.cfg.spacing();
            let mut rng = RngStream::new(1, "prc");
            let mut t = 0u64;
            let times: Vec<u64> = (0..5000)
                .map(|_| {
                    t += rng.exp(spacing.ps() as f64 / 3.0) as u64;
                    t
                })
                .collect();
            let out = drive(&mut c, &times);
            let clp0: Vec<Time> = out
                .iter()
                .filter(|(_, p)| p.clp() == 0)
                .map(|o| o.0)
                .collect();
            assert!(clp0.windows(2).all(|w| w[1].since(w[0]) >= spacing));
            assert_eq!(c.stats.offered, 5000);
            let lost = c.stats.dropped;
            assert_eq!(out.len() as u64 + lost, 5000, "{overflow:?}");
            if overflow == PrcOverflow::Drop {
                assert!(lost > 0 && c.stats.marked == 0);
            } else {
                assert!(lost == 0 && c.stats.marked > 0);
            }
        }
    }

    #[test]
    fn a_conforming_stream_passes_unchanged() {
        let mut c = prc(64_000.0, 4, PrcOverflow::Drop);
        let gap = c.cfg.spacing().ps() + 1000;
        let times: Vec<u64> = (0..100).map(|i| i * gap).collect();
        let out = drive(&mut c, &times);
        assert_eq!(out.len(), 100);
        assert!(out.iter().all(|(t, p)| t.ps() == times[p.seq as usize]));
    }

    #[test]
    fn a_burst_is_spaced_and_what_overflows_is_dropped_or_marked() {
        let spacing = prc(64_000.0, 2, PrcOverflow::Drop).cfg.spacing();
        // Five cells at once: one leaves, two wait, two find the queue full.
        let mut c = prc(64_000.0, 2, PrcOverflow::Drop);
        let out = drive(&mut c, &[0; 5]);
        let at: Vec<u64> = out.iter().map(|(t, _)| t.ps()).collect();
        assert_eq!(at, vec![0, spacing.ps(), 2 * spacing.ps()]);
        assert_eq!(c.stats.dropped, 2);
        // Data: the two overflows each push the head out at once, marked;
        // the last three cells leave spaced.
        let mut c = prc(64_000.0, 2, PrcOverflow::MarkHead);
        let out = drive(&mut c, &[0; 5]);
        let seqs: Vec<(u64, u8)> = out.iter().map(|(_, p)| (p.seq, p.clp())).collect();
        assert_eq!(seqs, vec![(0, 0), (1, 1), (2, 1), (3, 0), (4, 0)]);
        assert_eq!(out[3].0.ps(), spacing.ps());
    }
}
