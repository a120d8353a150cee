//! NetPIPE (Snell, Mikler and Gustafson, 1996): ping-pong of blocks of
//! increasing size over one TCP connection. For each block size the client
//! sends the block, the server echoes a block of the same size once the
//! whole block has arrived, and the client times the round trip; NetPIPE
//! reports half of it as the block's transfer time.
//!
//! As in NetPIPE, the connection stays up across block sizes, so each size
//! starts with the congestion state the previous one left. Each size runs
//! `trials` trials of `repetitions` back-to-back exchanges, after
//! `warmup` untimed ones; the number of repetitions follows the previous
//! size's reported time (`RepetitionRule`), and the test stops after the
//! first base size whose reported time exceeds `stop_time` (NetPIPE's
//! STOPTM). What is reported is configurable (`Report`): NetPIPE 2.x
//! reports the smallest of its trials' mean transfer times and the
//! variance of those trial means (netpipe.c: `bwdata[n].t = MIN(...)` and
//! `t2/TRIALS - (t1/TRIALS)^2`); satcc's first model reported the mean and
//! variance of every timed exchange, still the default.
//!
//! NetPIPE 2.x can also start with a latency test (LATENCYREPS = 100
//! ping-pongs of 1 byte) whose mean one-way time sets the repetitions of
//! the first size (`latency_repetitions`). Its control messages (the
//! repetition count and the reported time sent to the receiver, and a
//! 6-byte "SyncMe" each way before each trial) are untimed and are not
//! modelled.

use crate::engine::stats::Summary;
use crate::engine::{Check, ConfigError, Duration, Time};
use serde::{Deserialize, Serialize};

/// What NetPIPE reports as a block's transfer time (`app.report`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Report {
    /// The mean of every timed exchange (half its round trip), with the
    /// sample variance of those exchanges.
    #[default]
    Mean,
    /// NetPIPE's: the smallest of the trials' mean transfer times, with the
    /// population variance of the trial means.
    MinTrial,
}

/// How many exchanges a trial has at the next size (`app.repetition_rule`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum RepetitionRule {
    /// ceil(trial_time / previous reported transfer time).
    #[default]
    Ceil,
    /// NetPIPE 2.x's: floor(trial_time / (tlast × b / (b − inc + 1))), with
    /// b the previous block size, tlast its reported time and inc the
    /// schedule's increment at the new size; the minimum when b − inc + 1
    /// is not positive.
    Netpipe,
}

/// In a scenario description: a `tcp[].app` of kind "netpipe".
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct NetPipeConfig {
    /// Block sizes in bytes, in the order tested.
    #[serde(rename = "sizes_bytes")]
    pub(crate) sizes: Vec<u64>,
    /// For each size, the base size c of NetPIPE's group c − p, c, c + p:
    /// the stop time is checked once a group is done. Without it each size
    /// is its own group.
    #[serde(rename = "bases_bytes", default)]
    pub(crate) bases: Option<Vec<u64>>,
    /// For each size, NetPIPE's increment of the base size when it is
    /// tested (`RepetitionRule::Netpipe`). Without it, 1.
    #[serde(rename = "increments_bytes", default)]
    pub(crate) increments: Option<Vec<u64>>,
    /// Untimed exchanges at the start of each size.
    pub(crate) warmup: u64,
    /// Timed trials per size (NetPIPE 2.x: TRIALS = 7).
    #[serde(default = "one")]
    pub(crate) trials: u64,
    #[serde(default)]
    pub(crate) report: Report,
    #[serde(default)]
    pub(crate) repetition_rule: RepetitionRule,
    /// Untimed 1-byte exchanges before the first size, whose mean one-way
    /// time is the "previous" time for the first size's repetitions
    /// (NetPIPE 2.x: LATENCYREPS = 100). With none, the first size has
    /// `min_repetitions`.
    #[serde(default)]
    pub(crate) latency_repetitions: u64,
    /// Target duration of a trial's exchanges (NetPIPE's RUNTM).
    #[serde(rename = "trial_time_ps")]
    pub(crate) trial_time: Duration,
    /// Exchanges per trial are kept within [min, max] (NetPIPE 2.x: at
    /// least TRIALS, no upper bound).
    pub(crate) min_repetitions: u64,
    pub(crate) max_repetitions: u64,
    /// Stop after the first base size whose reported time exceeds this.
    #[serde(rename = "stop_time_ps", default)]
    pub(crate) stop_time: Option<Duration>,
}

fn one() -> u64 {
    1
}

impl NetPipeConfig {
    /// The base size of the `i`th block (itself without `bases`).
    fn base(&self, i: usize) -> u64 {
        self.bases.as_ref().map_or(self.sizes[i], |b| b[i])
    }

    fn increment(&self, i: usize) -> u64 {
        self.increments.as_ref().map_or(1, |inc| inc[i])
    }

    /// Whether the stop time is checked after the `i`th block: the last of
    /// its base's group.
    fn ends_group(&self, i: usize) -> bool {
        i + 1 == self.sizes.len() || self.base(i + 1) != self.base(i)
    }

    /// Exchanges per trial at the `i`th block, after a block of `prev`
    /// bytes whose reported transfer time was `tlast` seconds.
    pub(crate) fn repetitions(&self, i: usize, prev: u64, tlast: f64) -> u64 {
        let wanted = match self.repetition_rule {
            RepetitionRule::Ceil => (self.trial_time.as_secs_f64() / tlast).ceil(),
            RepetitionRule::Netpipe => netpipe_repetitions(
                self.trial_time.as_secs_f64(),
                tlast,
                prev,
                self.increment(i),
            ),
        };
        let wanted = if wanted.is_finite() {
            wanted.max(0.0) as u64
        } else {
            u64::MAX
        };
        wanted.clamp(self.min_repetitions.max(1), self.max_repetitions.max(1))
    }
}

impl Check for NetPipeConfig {
    fn check(&self) -> Result<(), ConfigError> {
        if self.sizes.is_empty() || self.sizes.contains(&0) || self.min_repetitions == 0 {
            return Err("NetPIPE needs block sizes of at least 1 byte and a repetition".into());
        }
        if self.max_repetitions < self.min_repetitions {
            return Err("max_repetitions must be at least min_repetitions".into());
        }
        if self.trials == 0 {
            return Err("NetPIPE needs at least one trial per block size".into());
        }
        for (name, list) in [("bases", &self.bases), ("increments", &self.increments)] {
            if list.as_ref().is_some_and(|l| l.len() != self.sizes.len()) {
                return Err(ConfigError::new(format!(
                    "NetPIPE's {name} must give one value per block size"
                )));
            }
        }
        Ok(())
    }
}

/// NetPIPE 2.x's repetitions before its lower bound (netpipe.c, main loop):
/// the trial time over an estimate of the next transfer time, the previous
/// one scaled by b / (b − inc + 1), truncated. 0 when b − inc + 1 is not
/// positive (NetPIPE then takes its minimum, TRIALS), infinite when the
/// estimate is 0.
pub(crate) fn netpipe_repetitions(trial_time_s: f64, tlast_s: f64, prev: u64, inc: u64) -> f64 {
    let denominator = prev as f64 - inc as f64 + 1.0;
    if denominator <= 0.0 {
        return 0.0;
    }
    let estimate = prev as f64 / denominator * tlast_s;
    if estimate <= 0.0 {
        return f64::INFINITY;
    }
    (trial_time_s / estimate).floor()
}

/// The exchanges timed at one block size, grouped into trials.
#[derive(Clone, Debug)]
pub(crate) struct BlockResult {
    pub bytes: u64,
    pub(crate) report: Report,
    /// Exchanges per trial (NetPIPE's nrepeat).
    pub(crate) repetitions: u64,
    /// Round-trip time of every timed exchange, seconds.
    pub(crate) round_trips: Summary,
    /// Mean transfer time (half the mean round trip) of each complete
    /// trial, seconds: NetPIPE's t = (trial time) / (2 nrepeat).
    pub(crate) trials: Summary,
    /// The round trips of the trial in progress: their sum and count.
    trial_sum: f64,
    trial_exchanges: u64,
}

impl BlockResult {
    pub(crate) fn new(bytes: u64, repetitions: u64, report: Report) -> BlockResult {
        BlockResult {
            bytes,
            report,
            repetitions: repetitions.max(1),
            round_trips: Summary::default(),
            trials: Summary::default(),
            trial_sum: 0.0,
            trial_exchanges: 0,
        }
    }

    /// One timed exchange of `round_trip_s` seconds; the trial ends with
    /// its `repetitions`th exchange. Exchanges run back to back, so a
    /// trial lasts the sum of its round trips.
    pub(crate) fn record(&mut self, round_trip_s: f64) {
        self.round_trips.add(round_trip_s);
        self.trial_sum += round_trip_s;
        self.trial_exchanges += 1;
        if self.trial_exchanges == self.repetitions {
            self.trials
                .add(self.trial_sum / (2 * self.repetitions) as f64);
            self.trial_sum = 0.0;
            self.trial_exchanges = 0;
        }
    }

    /// The reported transfer time, seconds; NaN before anything to report.
    pub(crate) fn transfer_time_s(&self) -> f64 {
        match self.report {
            Report::Mean => self.exchange_mean_s(),
            Report::MinTrial if self.trials.tally.n > 0 => self.trials.tally.min,
            Report::MinTrial => f64::NAN,
        }
    }

    /// The reported variance of the transfer time, s².
    pub(crate) fn transfer_time_var_s2(&self) -> f64 {
        match self.report {
            Report::Mean => self.exchange_var_s2(),
            Report::MinTrial => self.trials.population_variance(),
        }
    }

    /// Mean transfer time over every timed exchange, seconds.
    pub(crate) fn exchange_mean_s(&self) -> f64 {
        self.round_trips.mean() / 2.0
    }

    /// Sample variance of the transfer time over every timed exchange (a
    /// quarter of the round trip's).
    pub(crate) fn exchange_var_s2(&self) -> f64 {
        self.round_trips.variance() / 4.0
    }
}

/// What the client is doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// The latency test before the sweep.
    Latency,
    /// The block sizes.
    Sweep,
}

#[derive(Clone, Debug)]
pub(crate) struct NetPipe {
    cfg: NetPipeConfig,
    phase: Phase,
    index: usize,
    /// Exchanges done in the current phase or size, warm-up included.
    exchanges: u64,
    /// Cumulative bytes the server must have received before it answers,
    /// and the client before the exchange is complete.
    request_end: u64,
    response_end: u64,
    awaiting_response: bool,
    exchange_start: Time,
    /// Round trips of the latency test.
    pub(crate) latency: Summary,
    pub(crate) results: Vec<BlockResult>,
    pub(crate) finished_at: Option<Time>,
    started: bool,
}

/// Bytes each side is to write next: (client, server).
pub(crate) type Writes = (u64, u64);

impl NetPipe {
    pub(crate) fn new(cfg: NetPipeConfig) -> NetPipe {
        NetPipe {
            cfg,
            phase: Phase::Latency,
            index: 0,
            exchanges: 0,
            request_end: 0,
            response_end: 0,
            awaiting_response: false,
            exchange_start: Time::ZERO,
            latency: Summary::default(),
            results: Vec::new(),
            finished_at: None,
            started: false,
        }
    }

    pub(crate) fn config(&self) -> &NetPipeConfig {
        &self.cfg
    }

    /// NetPIPE's latency, half the mean round trip of the latency test
    /// (NaN without one).
    pub(crate) fn latency_s(&self) -> f64 {
        self.latency.mean() / 2.0
    }

    fn size(&self) -> u64 {
        match self.phase {
            Phase::Latency => 1,
            Phase::Sweep => self.cfg.sizes[self.index],
        }
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
    pub(crate) fn service(
        &mut self,
        now: Time,
        client_delivered: u64,
        server_delivered: u64,
    ) -> Writes {
        let mut writes = (0, 0);
        if self.finished_at.is_some() || self.cfg.sizes.is_empty() {
            return writes;
        }
        if !self.started {
            self.started = true;
            if self.cfg.latency_repetitions == 0 {
                self.begin_size(0, self.cfg.min_repetitions);
            }
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

    fn begin_size(&mut self, index: usize, repetitions: u64) {
        self.phase = Phase::Sweep;
        self.index = index;
        self.exchanges = 0;
        let bytes = self.cfg.sizes[index];
        self.results
            .push(BlockResult::new(bytes, repetitions, self.cfg.report));
    }

    fn exchange_done(&mut self, now: Time) {
        let round_trip = now.since(self.exchange_start).as_secs_f64();
        self.exchanges += 1;
        match self.phase {
            Phase::Latency => {
                self.latency.add(round_trip);
                if self.exchanges == self.cfg.latency_repetitions {
                    // NetPIPE's first size follows a 1-byte "block".
                    let reps = self.cfg.repetitions(0, 1, self.latency_s());
                    self.begin_size(0, reps);
                }
            }
            Phase::Sweep => {
                let block = self.results.last_mut().expect("a size in progress");
                if self.exchanges > self.cfg.warmup {
                    block.record(round_trip);
                }
                let timed = self.cfg.trials.saturating_mul(block.repetitions);
                if self.exchanges >= self.cfg.warmup.saturating_add(timed) {
                    self.size_done(now);
                }
            }
        }
    }

    fn size_done(&mut self, now: Time) {
        let tlast = self
            .results
            .last()
            .expect("a size in progress")
            .transfer_time_s();
        let i = self.index;
        let too_slow =
            self.cfg.ends_group(i) && self.cfg.stop_time.is_some_and(|s| tlast > s.as_secs_f64());
        if too_slow || i + 1 == self.cfg.sizes.len() {
            self.finished_at = Some(now);
            return;
        }
        let reps = self.cfg.repetitions(i + 1, self.cfg.sizes[i], tlast);
        self.begin_size(i + 1, reps);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(sizes: Vec<u64>) -> NetPipeConfig {
        NetPipeConfig {
            sizes,
            bases: None,
            increments: None,
            warmup: 1,
            trials: 1,
            report: Report::Mean,
            repetition_rule: RepetitionRule::Ceil,
            latency_repetitions: 0,
            trial_time: Duration::from_millis(250),
            min_repetitions: 3,
            max_repetitions: 100,
            stop_time: Some(Duration::from_secs_f64(1.0)),
        }
    }

    /// NetPIPE 2.x's settings: 7 trials of at least 7 exchanges, the
    /// smallest trial mean, its repetition rule, no warm-up.
    fn netpipe2(sizes: Vec<u64>) -> NetPipeConfig {
        NetPipeConfig {
            warmup: 0,
            trials: 7,
            report: Report::MinTrial,
            repetition_rule: RepetitionRule::Netpipe,
            min_repetitions: 7,
            max_repetitions: 1_000_000,
            ..cfg(sizes)
        }
    }

    /// Drives the exchanges over a pipe where the `k`th transfer (counting
    /// both directions from 0) of `b` bytes takes `one_way(k, b)`.
    fn drive(np: &mut NetPipe, one_way: impl Fn(u64, u64) -> f64) -> Time {
        let (mut client, mut server) = (0u64, 0u64);
        let mut now = Time::ZERO;
        let mut k = 0;
        let (mut to_server, mut to_client) = np.service(now, client, server);
        while np.finished_at.is_none() {
            if to_server > 0 {
                now += Duration::from_secs_f64(one_way(k, to_server));
                server += to_server;
                to_server = 0;
            } else {
                now += Duration::from_secs_f64(one_way(k, to_client));
                client += to_client;
                to_client = 0;
            }
            k += 1;
            let (c, s) = np.service(now, client, server);
            to_server += c;
            to_client += s;
        }
        now
    }

    fn block(report: Report, repetitions: u64, round_trips: &[f64]) -> BlockResult {
        let mut b = BlockResult::new(8192, repetitions, report);
        for &rt in round_trips {
            b.record(rt);
        }
        b
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn a_trial_is_its_mean_one_way_time_and_netpipe_reports_the_smallest() {
        // Three trials of two exchanges: round trips (0.5, 0.5), (0.5,
        // 1.7), (0.6, 0.6). Trial means one way: 0.25, 0.55, 0.3.
        let rts = [0.5, 0.5, 0.5, 1.7, 0.6, 0.6];
        let b = block(Report::MinTrial, 2, &rts);
        assert_eq!(b.trials.tally.n, 3);
        assert!(close(b.transfer_time_s(), 0.25));
        // NetPIPE's t2/TRIALS - (t1/TRIALS)^2 over 0.25, 0.55, 0.3:
        // mean 1.1/3, variance (0.0625 + 0.3025 + 0.09)/3 - (1.1/3)^2.
        let var = 0.455 / 3.0 - (1.1f64 / 3.0).powi(2);
        assert!(close(b.transfer_time_var_s2(), var));
        // The mean of every exchange, as satcc reported before.
        let m = block(Report::Mean, 2, &rts);
        assert!(close(m.transfer_time_s(), 4.4 / 6.0 / 2.0));
        assert!(close(m.transfer_time_s(), b.exchange_mean_s()));
        assert!(close(m.transfer_time_var_s2(), b.exchange_var_s2()));
    }

    #[test]
    fn an_incomplete_trial_is_not_reported() {
        let b = block(Report::MinTrial, 3, &[0.4, 0.4, 0.4, 0.2, 0.2]);
        assert_eq!((b.trials.tally.n, b.round_trips.tally.n), (1, 5));
        assert!(close(b.transfer_time_s(), 0.2));
        assert_eq!(b.transfer_time_var_s2(), 0.0);
        let none = block(Report::MinTrial, 3, &[0.4, 0.4]);
        assert!(none.transfer_time_s().is_nan() && none.transfer_time_var_s2().is_nan());
        // The mean of the exchanges needs no complete trial.
        assert!(close(
            block(Report::Mean, 3, &[0.4, 0.2]).transfer_time_s(),
            0.15
        ));
    }

    #[test]
    fn netpipe_scales_the_last_time_by_its_increment_rule() {
        // After 12 bytes at 0.01 s, 13 bytes (base 16, increment 8):
        // estimate 0.01 * 12 / 5 = 0.024 s, 0.25 / 0.024 = 10.4 -> 10.
        assert_eq!(netpipe_repetitions(0.25, 0.01, 12, 8), 10.0);
        // The first size after the 1-byte latency test: 1 / (1 - 1 + 1).
        assert_eq!(netpipe_repetitions(0.25, 0.001, 1, 1), 250.0);
        // b - inc + 1 <= 0: NetPIPE falls back to its minimum.
        assert_eq!(netpipe_repetitions(0.25, 0.001, 3, 4), 0.0);
        assert_eq!(netpipe_repetitions(0.25, 0.0, 3, 1), f64::INFINITY);
        let mut c = netpipe2(vec![12, 13]);
        c.increments = Some(vec![4, 8]);
        assert_eq!(c.repetitions(1, 12, 0.01), 10);
        // At a satellite's 0.2 s: the minimum, TRIALS = 7.
        assert_eq!(c.repetitions(1, 12, 0.2), 7);
        c.max_repetitions = 9;
        assert_eq!(c.repetitions(1, 12, 0.01), 9);
    }

    #[test]
    fn times_every_size_and_adapts_repetitions() {
        // 0.1 s latency plus 1 µs per byte.
        let mut np = NetPipe::new(cfg(vec![1, 1000, 100_000]));
        drive(&mut np, |_, b| 0.1 + b as f64 * 1e-6);
        let sizes: Vec<u64> = np.results.iter().map(|r| r.bytes).collect();
        assert_eq!(sizes, vec![1, 1000, 100_000]);
        for r in &np.results {
            let expected = 0.1 + r.bytes as f64 * 1e-6;
            assert!((r.transfer_time_s() - expected).abs() < 1e-9);
            assert!(r.transfer_time_var_s2().abs() < 1e-15);
        }
        // 3 at first; then ceil(0.25 / 0.100001) = 3; ceil(0.25 / 0.101) = 3.
        assert!(np.results.iter().all(|r| r.round_trips.tally.n == 3));
    }

    #[test]
    fn stops_after_the_first_size_slower_than_the_stop_time() {
        let mut np = NetPipe::new(cfg(vec![1, 10_000, 1_000_000, 2_000_000]));
        drive(&mut np, |_, b| 0.2 + b as f64 * 1e-6);
        // 1 MB takes 1.2 s > 1 s: tested, and the last one.
        let sizes: Vec<u64> = np.results.iter().map(|r| r.bytes).collect();
        assert_eq!(sizes, vec![1, 10_000, 1_000_000]);
    }

    #[test]
    fn a_base_size_group_is_finished_before_the_stop_time_is_checked() {
        // NetPIPE checks its stop time between base sizes: 997, 1000 and
        // 1003 KB all run although the first already takes over 1 s.
        let mut c = cfg(vec![1, 997_000, 1_000_000, 1_003_000, 2_000_000]);
        c.bases = Some(vec![1, 1_000_000, 1_000_000, 1_000_000, 2_000_000]);
        let mut np = NetPipe::new(c);
        drive(&mut np, |_, b| 0.2 + b as f64 * 1e-6);
        assert_eq!(np.results.len(), 4);
    }

    #[test]
    fn fast_sizes_get_more_repetitions() {
        let mut np = NetPipe::new(cfg(vec![1, 2, 3]));
        drive(&mut np, |_, _| 0.01);
        let reps: Vec<u64> = np.results.iter().map(|r| r.round_trips.tally.n).collect();
        assert_eq!(reps, vec![3, 25, 25]);
    }

    #[test]
    fn netpipe_2_runs_its_trials_after_a_latency_test() {
        let mut c = netpipe2(vec![1, 2, 3]);
        c.latency_repetitions = 100;
        let mut np = NetPipe::new(c);
        drive(&mut np, |_, _| 0.008);
        assert_eq!(np.latency.tally.n, 100);
        assert!((np.latency_s() - 0.008).abs() < 1e-12);
        // floor(0.25 / 0.008) = 31 exchanges in each of 7 trials.
        for r in &np.results {
            assert_eq!(
                (r.repetitions, r.trials.tally.n, r.round_trips.tally.n),
                (31, 7, 217)
            );
            assert!((r.transfer_time_s() - 0.008).abs() < 1e-12);
        }
    }

    #[test]
    fn one_slow_exchange_spoils_one_trial_only() {
        // 2 trials of 7 (minimum) at 0.2 s one way; the 3rd exchange of
        // the second size takes 1 s more each way.
        let mut c = netpipe2(vec![100, 200]);
        c.trials = 2;
        let mut np = NetPipe::new(c);
        // Transfers 0..27 are the first size's 14 exchanges.
        drive(&mut np, |k, _| if k == 32 || k == 33 { 1.2 } else { 0.2 });
        let slow = &np.results[1];
        assert_eq!(slow.trials.tally.n, 2);
        assert!(close(slow.transfer_time_s(), 0.2));
        assert!(close(slow.trials.tally.max, (6.0 * 0.2 + 1.2) / 7.0));
        assert!(close(slow.exchange_mean_s(), (13.0 * 0.2 + 1.2) / 14.0));
    }

    #[test]
    fn reads_its_description_with_the_defaults_of_the_first_model() {
        let base = r#"{"sizes_bytes": [1, 2], "warmup": 1, "trial_time_ps": 250000000000,
            "min_repetitions": 3, "max_repetitions": 1000, "stop_time_ps": null"#;
        let c: NetPipeConfig = serde_json::from_str(&format!("{base}}}")).unwrap();
        assert_eq!(
            (c.trials, c.report, c.latency_repetitions),
            (1, Report::Mean, 0)
        );
        assert_eq!(c.repetition_rule, RepetitionRule::Ceil);
        let given = r#", "trials": 7, "report": "min_trial", "repetition_rule": "netpipe"}"#;
        let c: NetPipeConfig = serde_json::from_str(&format!("{base}{given}")).unwrap();
        assert_eq!((c.trials, c.report), (7, Report::MinTrial));
        assert_eq!(c.repetition_rule, RepetitionRule::Netpipe);
        let wrong =
            serde_json::from_str::<NetPipeConfig>(&format!(r#"{base}, "report": "median"}}"#));
        assert!(wrong
            .unwrap_err()
            .to_string()
            .contains("unknown variant `median`"));
    }

    #[test]
    fn checks_its_lists_and_trials() {
        let mut c = cfg(vec![1, 2]);
        assert!(c.check().is_ok());
        c.bases = Some(vec![1]);
        assert!(c.check().unwrap_err().to_string().contains("bases"));
        c.bases = None;
        c.trials = 0;
        assert!(c.check().is_err());
    }
}
