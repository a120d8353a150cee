//! NetPIPE (Snell, Mikler and Gustafson, 1996; NetPIPE 3.7 `netpipe.c`):
//! ping-pong of blocks of increasing size over one TCP connection. For each
//! block size the client sends the block, the server echoes a block of the
//! same size once the whole block has arrived, and the client times the
//! round trip; NetPIPE reports half of it as the block's transfer time.
//!
//! As in NetPIPE, the connection stays up across block sizes, so each size
//! starts with the congestion state the previous one left; the first
//! exchanges of each size are a warm-up and are not timed; the number of
//! timed exchanges adapts to the previous size's transfer time so that
//! each size takes about `trial_time`; and the test stops after the first
//! size whose mean transfer time exceeds `stop_time` (NetPIPE's STOPTM).

use crate::engine::stats::Summary;
use crate::engine::{Duration, Time};
use serde::{Deserialize, Serialize};

/// In a scenario description: a `tcp[].app` of kind "netpipe".
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NetPipeConfig {
    /// Block sizes in bytes, in the order tested.
    #[serde(rename = "sizes_bytes")]
    pub sizes: Vec<u64>,
    /// Untimed exchanges at the start of each size.
    pub warmup: u64,
    /// Timed exchanges per size: about `trial_time` / previous transfer
    /// time, within [`min_repetitions`, `max_repetitions`].
    #[serde(rename = "trial_time_ps")]
    pub trial_time: Duration,
    pub min_repetitions: u64,
    pub max_repetitions: u64,
    /// Stop after the first size whose mean transfer time exceeds this.
    #[serde(rename = "stop_time_ps", default)]
    pub stop_time: Option<Duration>,
}

impl NetPipeConfig {
    pub fn check(&self) -> Result<(), String> {
        if self.sizes.is_empty() || self.sizes.contains(&0) || self.min_repetitions == 0 {
            return Err("NetPIPE needs block sizes of at least 1 byte and a repetition".into());
        }
        if self.max_repetitions < self.min_repetitions {
            return Err("max_repetitions must be at least min_repetitions".into());
        }
        Ok(())
    }
}

/// The round trips timed at one block size.
#[derive(Clone, Debug)]
pub struct BlockResult {
    pub bytes: u64,
    /// Round-trip times, seconds (transfer time = half).
    pub round_trips: Summary,
}

impl BlockResult {
    pub fn transfer_time_mean_s(&self) -> f64 {
        self.round_trips.mean() / 2.0
    }
    /// Variance of the transfer time (a quarter of the round trip's).
    pub fn transfer_time_var_s2(&self) -> f64 {
        self.round_trips.variance() / 4.0
    }
}

#[derive(Clone, Debug)]
pub struct NetPipe {
    cfg: NetPipeConfig,
    index: usize,
    /// Exchanges done at the current size, warm-up included.
    exchanges: u64,
    repetitions: u64,
    /// Cumulative bytes the server must have received before it answers,
    /// and the client before the exchange is complete.
    request_end: u64,
    response_end: u64,
    awaiting_response: bool,
    exchange_start: Time,
    pub results: Vec<BlockResult>,
    pub finished_at: Option<Time>,
    started: bool,
}

/// Bytes each side is to write next: (client, server).
pub type Writes = (u64, u64);

impl NetPipe {
    pub fn new(cfg: NetPipeConfig) -> NetPipe {
        let repetitions = cfg.min_repetitions.max(1);
        NetPipe {
            cfg,
            index: 0,
            exchanges: 0,
            repetitions,
            request_end: 0,
            response_end: 0,
            awaiting_response: false,
            exchange_start: Time::ZERO,
            results: Vec::new(),
            finished_at: None,
            started: false,
        }
    }

    fn size(&self) -> u64 {
        self.cfg.sizes[self.index]
    }

    fn send_request(&mut self, now: Time) -> u64 {
        let size = self.size();
        self.request_end += size;
        self.exchange_start = now;
        self.awaiting_response = false;
        size
    }

    /// Advances on what the two ends have delivered (cumulative bytes) and
    /// returns what each side must now write.
    pub fn service(&mut self, now: Time, client_delivered: u64, server_delivered: u64) -> Writes {
        let mut writes = (0, 0);
        if self.finished_at.is_some() || self.cfg.sizes.is_empty() {
            return writes;
        }
        if !self.started {
            self.started = true;
            self.results.push(BlockResult {
                bytes: self.size(),
                round_trips: Summary::default(),
            });
            writes.0 += self.send_request(now);
        }
        if !self.awaiting_response && server_delivered >= self.request_end {
            let size = self.size();
            self.response_end += size;
            self.awaiting_response = true;
            writes.1 += size;
        }
        if self.awaiting_response && client_delivered >= self.response_end {
            self.exchange_done(now);
            if self.finished_at.is_none() {
                writes.0 += self.send_request(now);
            }
        }
        writes
    }

    fn exchange_done(&mut self, now: Time) {
        self.exchanges += 1;
        if self.exchanges > self.cfg.warmup {
            let rt = now.since(self.exchange_start).as_secs_f64();
            self.results
                .last_mut()
                .expect("a size in progress")
                .round_trips
                .add(rt);
        }
        if self.exchanges < self.cfg.warmup + self.repetitions {
            return;
        }
        let done = self.results.last().expect("a size in progress");
        let transfer = done.transfer_time_mean_s();
        let too_slow = self
            .cfg
            .stop_time
            .is_some_and(|s| transfer > s.as_secs_f64());
        if too_slow || self.index + 1 == self.cfg.sizes.len() {
            self.finished_at = Some(now);
            return;
        }
        self.index += 1;
        self.exchanges = 0;
        let wanted = (self.cfg.trial_time.as_secs_f64() / transfer).ceil();
        let wanted = if wanted.is_finite() {
            wanted as u64
        } else {
            u64::MAX
        };
        self.repetitions = wanted.clamp(
            self.cfg.min_repetitions.max(1),
            self.cfg.max_repetitions.max(1),
        );
        self.results.push(BlockResult {
            bytes: self.size(),
            round_trips: Summary::default(),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(sizes: Vec<u64>) -> NetPipeConfig {
        NetPipeConfig {
            sizes,
            warmup: 1,
            trial_time: Duration::from_millis(250),
            min_repetitions: 3,
            max_repetitions: 100,
            stop_time: Some(Duration::from_secs_f64(1.0)),
        }
    }

    /// Drives the exchanges over an ideal pipe: a block of b bytes takes
    /// `one_way(b)` to arrive.
    fn drive(np: &mut NetPipe, one_way: impl Fn(u64) -> f64) -> Time {
        let (mut client, mut server) = (0u64, 0u64);
        let mut now = Time::ZERO;
        let (mut to_server, mut to_client) = np.service(now, client, server);
        while np.finished_at.is_none() {
            if to_server > 0 {
                now += Duration::from_secs_f64(one_way(to_server));
                server += to_server;
                to_server = 0;
            } else {
                now += Duration::from_secs_f64(one_way(to_client));
                client += to_client;
                to_client = 0;
            }
            let (c, s) = np.service(now, client, server);
            to_server += c;
            to_client += s;
        }
        now
    }

    #[test]
    fn times_every_size_and_adapts_repetitions() {
        // 0.1 s latency plus 1 µs per byte.
        let mut np = NetPipe::new(cfg(vec![1, 1000, 100_000]));
        drive(&mut np, |b| 0.1 + b as f64 * 1e-6);
        let sizes: Vec<u64> = np.results.iter().map(|r| r.bytes).collect();
        assert_eq!(sizes, vec![1, 1000, 100_000]);
        for r in &np.results {
            let expected = 0.1 + r.bytes as f64 * 1e-6;
            assert!((r.transfer_time_mean_s() - expected).abs() < 1e-9);
            assert!(r.transfer_time_var_s2().abs() < 1e-15);
        }
        // 3 at first; then ceil(0.25 / 0.100001) = 3; ceil(0.25 / 0.101) = 3.
        assert!(np.results.iter().all(|r| r.round_trips.n == 3));
    }

    #[test]
    fn stops_after_the_first_size_slower_than_the_stop_time() {
        let mut np = NetPipe::new(cfg(vec![1, 10_000, 1_000_000, 2_000_000]));
        drive(&mut np, |b| 0.2 + b as f64 * 1e-6);
        // 1 MB takes 1.2 s > 1 s: tested, and the last one.
        let sizes: Vec<u64> = np.results.iter().map(|r| r.bytes).collect();
        assert_eq!(sizes, vec![1, 10_000, 1_000_000]);
    }

    #[test]
    fn fast_sizes_get_more_repetitions() {
        let mut np = NetPipe::new(cfg(vec![1, 2, 3]));
        drive(&mut np, |_| 0.01);
        let reps: Vec<u64> = np.results.iter().map(|r| r.round_trips.n).collect();
        assert_eq!(reps, vec![3, 25, 25]);
    }
}
