//! The data source of the proactive-atm thesis (section 6.2.1.3): files of
//! 1 Mbyte sent as cells at the source's rate (nominal 0.5 Mb/s), a new
//! file started at exponential times (mean 16 s) after the previous start.
//! A start timer that expires while a file is still being sent is started
//! again, and the next file starts when it expires after the current one
//! has gone (the thesis's restart rule). Lost cells are not sent again.
//! At time zero a file is under way with probability one half (section
//! 6.2.1.5), as for the voice and video sources.

use crate::atm::cell::CELL_PAYLOAD;
use crate::engine::{Check, ConfigError, Duration, RngStream, Time};
use serde::{Deserialize, Serialize};

/// The data source of the proactive-atm thesis (section 6.2.1.3): files sent
/// as cells at a nominal rate, a new one started an exponential time after
/// the last start.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileTransferConfig {
    pub(crate) file_bytes: u64,
    /// The nominal rate, bits/s of cell payload.
    pub(crate) nominal_bps: f64,
    /// Mean time between two files' starts.
    #[serde(rename = "interval_ps")]
    pub interval: Duration,
}

impl FileTransferConfig {
    /// The thesis's: 1 Mbyte files at 0.5 Mb/s of cell payload, a start
    /// every 16 s on average.
    pub fn thesis() -> FileTransferConfig {
        FileTransferConfig {
            file_bytes: 1_000_000,
            nominal_bps: 500_000.0,
            interval: Duration::from_secs_f64(16.0),
        }
    }

    /// Cells of one file: its bytes in 48-byte payloads.
    pub(crate) fn cells_per_file(&self) -> u64 {
        self.file_bytes.div_ceil(u64::from(CELL_PAYLOAD))
    }
}

impl Check for FileTransferConfig {
    fn check(&self) -> Result<(), ConfigError> {
        if self.file_bytes == 0 || !(self.nominal_bps.is_finite() && self.nominal_bps > 0.0) {
            return Err("file size and nominal rate must be positive".into());
        }
        if self.interval.ps() == 0 {
            return Err("the mean interval between files must be positive".into());
        }
        Ok(())
    }
}

#[derive(Clone, Debug)]
pub(crate) struct FileTransfer {
    cfg: FileTransferConfig,
    /// The file under way: when it started and the cells still to send.
    current: Option<(Time, u64)>,
    next_start: Time,
    pub(crate) started: u64,
    pub(crate) completed: u64,
}

impl FileTransfer {
    pub(crate) fn new(cfg: FileTransferConfig, now: Time, rng: &mut RngStream) -> FileTransfer {
        let busy = rng.bernoulli(0.5);
        let mut f = FileTransfer {
            next_start: now + draw(rng, cfg.interval),
            current: None,
            cfg,
            started: 0,
            completed: 0,
        };
        if busy {
            f.begin(now);
        }
        f
    }

    fn begin(&mut self, now: Time) {
        self.current = Some((now, self.cfg.cells_per_file()));
        self.started += 1;
    }

    pub(crate) fn busy(&self) -> bool {
        self.current.is_some()
    }

    /// The nominal rate now: while a file is under way.
    pub(crate) fn rate_bps(&self) -> f64 {
        if self.busy() {
            self.cfg.nominal_bps
        } else {
            0.0
        }
    }

    pub(crate) fn next_change(&self) -> Time {
        self.next_start
    }

    /// The start timer, if due: true when a file began.
    pub(crate) fn advance(&mut self, now: Time, rng: &mut RngStream) -> bool {
        let mut began = false;
        while self.next_start <= now {
            let at = self.next_start;
            self.next_start = at + draw(rng, self.cfg.interval);
            if self.current.is_none() {
                self.begin(at);
                began = true;
            }
        }
        began
    }

    /// A cell of the file went: the time the file took, if it was the last.
    pub(crate) fn on_cell(&mut self, now: Time) -> Option<Duration> {
        let (start, left) = self.current.as_mut()?;
        *left -= 1;
        if *left > 0 {
            return None;
        }
        let took = now.since(*start);
        self.current = None;
        self.completed += 1;
        Some(took)
    }
}

fn draw(rng: &mut RngStream, mean: Duration) -> Duration {
    Duration((rng.exp(mean.ps() as f64).round() as u64).max(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_20834_cells_and_takes_16_s_at_nominal() {
        let cfg = FileTransferConfig::thesis();
        assert_eq!(cfg.cells_per_file(), 20_834);
        let at_nominal = cfg.cells_per_file() as f64 * 384.0 / cfg.nominal_bps;
        assert!((at_nominal - 16.0).abs() < 0.01, "{at_nominal}");
    }

    #[test]
    fn a_timer_that_expires_mid_file_is_started_again() {
        let cfg = FileTransferConfig {
            interval: Duration::from_secs_f64(1.0),
            ..FileTransferConfig::thesis()
        };
        let mut rng = RngStream::new(3, "files");
        let mut f = FileTransfer::new(cfg.clone(), Time::ZERO, &mut rng);
        // Send nothing for a long time: every expiry restarts the timer and
        // no second file begins while the first is unfinished.
        let first = f.started;
        let began = f.advance(Time::from_secs_f64(100.0), &mut rng);
        if first == 1 {
            assert!(!began);
            assert_eq!(f.started, 1);
        } else {
            assert!(began);
            assert_eq!(f.started, 1);
        }
        // Finish it: the next file waits for the next expiry.
        let cells = cfg.cells_per_file();
        let mut took = None;
        for _ in 0..cells {
            took = f.on_cell(Time::from_secs_f64(150.0));
        }
        assert!(took.is_some() && !f.busy());
        let next = f.next_change();
        assert!(next > Time::from_secs_f64(100.0));
        assert!(f.advance(next, &mut rng));
        assert_eq!(f.started, 2);
    }
}
