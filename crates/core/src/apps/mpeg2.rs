//! MPEG-2 single-program transport stream carried over VBR: the video source
//! of the ABR-over-satellite paper with long-range dependent VBR background
//! (§3 "Modeling MPEG-2 Transport Streams over VBR", §4 on the generation).
//! The program rate is constant between successive MPCRs; inter-MPCR
//! intervals are uniform in [min, max] (20–100 ms, the bounds of the MPEG-2
//! standard and of AAL5 practice, §2); the rate of each interval is the next
//! value of a fractional Gaussian noise sequence (Paxson's FFT method,
//! REFERENCE.md §3.2, `fgn.rs`) mapped to the given mean and standard
//! deviation; values outside [0, peak] are skipped, not clipped (§4: clipping
//! puts an impulse in the pdf at the bound); cells go out uniformly spaced at
//! the interval's rate, which counts every byte of the cell.
//!
//! The cell clock carries the fraction of a cell accrued at the end of an
//! interval into the next one, so the number of cells is Σ R_i·T_i / cell
//! bits to within one cell however short the intervals are compared with a
//! cell time (restarting the clock at each MPCR would bias the rate).

use super::emitter::Emitter;
use super::fgn::paxson_fgn;
use super::media::MAX_RATE_BPS;
use crate::engine::time::PS_PER_S;
use crate::engine::{Duration, RngStream, Time};
use crate::net::Pdu;

/// Consecutive out-of-range fGn values after which an interval is given
/// rate 0 instead, so a configuration whose rate process (almost) never falls
/// within [0, peak] cannot hang the simulation. With a usable configuration
/// the chance of reaching it is nil (it needs 65 536 skips in a row).
const MAX_CONSECUTIVE_SKIPS: u32 = 1 << 16;
/// Empty MPCR intervals one event may go through before the source yields.
const SETTLE_INTERVALS: u32 = 4096;

#[derive(Copy, Clone, Debug, PartialEq)]
pub(crate) struct Mpeg2Config {
    /// Mean of the fGn rate process before skipping.
    pub(crate) mean_bps: f64,
    /// Its standard deviation.
    pub(crate) std_bps: f64,
    /// Hurst parameter, 0.5 ≤ H < 1 (paper 0.8).
    pub(crate) hurst: f64,
    /// Rates above are skipped (paper 15 Mb/s).
    pub(crate) peak_bps: f64,
    /// Shortest inter-MPCR interval (paper 20 ms).
    pub(crate) mpcr_min: Duration,
    /// Longest inter-MPCR interval (paper 100 ms).
    pub(crate) mpcr_max: Duration,
    /// Cell size in bytes, all of it counted in the rate (53 for ATM).
    pub(crate) cell_bytes: u32,
    /// fGn values generated at a time (at least 2; a power of two is fastest).
    pub block: usize,
}

pub(crate) struct Mpeg2 {
    pub(crate) emitter: Emitter,
    cfg: Mpeg2Config,
    rng: RngStream,
    fgn: Vec<f64>,
    fgn_pos: usize,
    rate_bps: f64,
    /// Current MPCR interval [start, end).
    start: Time,
    end: Time,
    spacing_ps: f64,
    /// Offset of the interval's first cell from its start, in spacings.
    lead: f64,
    /// Index within the interval of the next cell, and the interval's count.
    k: u64,
    cells: u64,
    /// Fraction of a cell accrued at the end of the interval, in (0, 1].
    credit_at_end: f64,
    next: Time,
    /// `next` is a wake-up to go on settling, not a cell.
    resume: bool,
    /// Latest poll instant: never schedule before it.
    floor: Time,
    intervals: u64,
    skipped: u64,
    /// (start, end, rate) of every interval, for the tests.
    #[cfg(test)]
    history: Vec<(Time, Time, f64)>,
}

impl Mpeg2 {
    /// A source whose first MPCR interval starts at `emitter.start`; `rng`
    /// drives both the fGn blocks and the interval lengths. Errs on an
    /// unusable configuration, saying why.
    pub(crate) fn new(
        emitter: Emitter,
        cfg: Mpeg2Config,
        mut rng: RngStream,
    ) -> Result<Mpeg2, String> {
        validate(&cfg)?;
        let fgn = paxson_fgn(cfg.block, cfg.hurst, &mut rng)
            .map_err(|e| format!("mpeg2: block of {}: {e}", cfg.block))?;
        let start = emitter.start;
        let mut s = Mpeg2 {
            emitter,
            cfg,
            rng,
            fgn,
            fgn_pos: 0,
            rate_bps: 0.0,
            start,
            end: start,
            spacing_ps: f64::INFINITY,
            lead: 0.0,
            k: 0,
            cells: 0,
            // A full cell of credit: the first cell leaves at `start`, as
            // with the CBR and ON-OFF sources.
            credit_at_end: 1.0,
            next: start,
            resume: false,
            floor: Time::ZERO,
            intervals: 0,
            skipped: 0,
            #[cfg(test)]
            history: Vec::new(),
        };
        s.settle();
        Ok(s)
    }

    /// The next cell instant; `Time::NEVER` once the emitter is done.
    pub(crate) fn poll_at(&self) -> Time {
        if self.emitter.active(self.next) {
            self.next.max(self.floor)
        } else {
            Time::NEVER
        }
    }

    /// Emits the cell due at `now`, if any.
    pub(crate) fn poll(&mut self, now: Time) -> Option<Pdu> {
        if now < self.next || !self.emitter.active(now) {
            return None;
        }
        if self.resume {
            self.settle();
            return None;
        }
        let p = self.emitter.make(now, self.cfg.cell_bytes);
        self.floor = now;
        self.k += 1;
        self.settle();
        Some(p)
    }

    /// Rate of the current MPCR interval.
    #[cfg(test)]
    pub(crate) fn current_rate_bps(&self) -> f64 {
        self.rate_bps
    }

    /// MPCR intervals started so far.
    #[cfg(test)]
    pub(crate) fn intervals(&self) -> u64 {
        self.intervals
    }

    /// fGn values skipped for being outside [0, peak].
    #[cfg(test)]
    pub(crate) fn skipped(&self) -> u64 {
        self.skipped
    }

    /// Moves `next` to the next cell, starting new intervals while the
    /// current one has no cell left (a short or slow interval may have none).
    /// After SETTLE_INTERVALS empty intervals it wakes at the end of the
    /// last one and goes on from there: cells far apart in many short
    /// intervals (1 b/s in 1 ps intervals: 10^13 intervals a cell) would
    /// otherwise hold one event, out of reach of Ctrl-C and the wall-clock
    /// budget.
    fn settle(&mut self) {
        self.resume = false;
        let mut started = 0;
        while self.k >= self.cells {
            if self.end >= self.emitter.stop {
                self.next = Time::NEVER;
                return;
            }
            if started == SETTLE_INTERVALS {
                self.next = self.end;
                self.resume = true;
                return;
            }
            self.begin_interval();
            started += 1;
        }
        // From the interval's float anchor, not by adding rounded spacings:
        // no drift, and consecutive spacings differ by at most 1 ps.
        let offset = (self.k as f64 + self.lead) * self.spacing_ps;
        self.next = self.start + Duration(offset.round() as u64);
    }

    fn begin_interval(&mut self) {
        let credit = self.credit_at_end;
        let rate = self.draw_rate();
        let span = self.cfg.mpcr_max.0 - self.cfg.mpcr_min.0;
        let len = self.cfg.mpcr_min.0 + (self.rng.uniform() * span as f64).round() as u64;
        self.start = self.end;
        self.end = self.start + Duration(len);
        self.rate_bps = rate;
        self.intervals += 1;
        self.k = 0;
        #[cfg(test)]
        self.history.push((self.start, self.end, rate));
        if rate > 0.0 {
            self.spacing_ps = self.cfg.cell_bytes as f64 * 8.0 * PS_PER_S as f64 / rate;
            // Cells sit at (j + 1 − credit)·spacing for j = 0, 1, … while
            // that is inside the interval: x − 1 of them rounded up, where
            // x = credit + len/spacing is the credit the interval would end
            // with if it sent nothing.
            let x = credit + len as f64 / self.spacing_ps;
            self.cells = if x > 1.0 { (x - 1.0).ceil() as u64 } else { 0 };
            self.lead = 1.0 - credit;
            self.credit_at_end = x - self.cells as f64;
        } else {
            // Silence accrues nothing: the credit waits for the next rate.
            self.spacing_ps = f64::INFINITY;
            self.cells = 0;
        }
    }

    /// The next fGn value within [0, peak], skipping the others (§4).
    fn draw_rate(&mut self) -> f64 {
        let mut run = 0;
        loop {
            if self.fgn_pos == self.fgn.len() {
                // A fresh block is independent of the previous one (and each
                // is circularly correlated), so the long-range dependence is
                // cut at every block boundary: the block should cover the
                // whole run, as the world sizes it to.
                self.fgn = paxson_fgn(self.cfg.block, self.cfg.hurst, &mut self.rng)
                    .expect("mpeg2: fGn parameters were validated by new()");
                self.fgn_pos = 0;
            }
            let v = self.cfg.mean_bps + self.cfg.std_bps * self.fgn[self.fgn_pos];
            self.fgn_pos += 1;
            if (0.0..=self.cfg.peak_bps).contains(&v) {
                return v;
            }
            self.skipped += 1;
            run += 1;
            if run >= MAX_CONSECUTIVE_SKIPS {
                return 0.0;
            }
        }
    }
}

fn validate(c: &Mpeg2Config) -> Result<(), String> {
    if !(c.mean_bps.is_finite() && c.mean_bps >= 0.0) {
        return Err(format!(
            "mpeg2: mean rate must be finite and >= 0, got {}",
            c.mean_bps
        ));
    }
    if !(c.std_bps.is_finite() && c.std_bps >= 0.0) {
        return Err(format!(
            "mpeg2: rate standard deviation must be finite and >= 0, got {}",
            c.std_bps
        ));
    }
    // Paxson's method (fgn.rs) covers the persistent range only.
    if !(0.5..1.0).contains(&c.hurst) {
        return Err(format!(
            "mpeg2: Hurst parameter must satisfy 0.5 <= H < 1, got {}",
            c.hurst
        ));
    }
    if c.peak_bps.is_nan() || c.peak_bps <= 0.0 {
        return Err(format!("mpeg2: peak rate must be > 0, got {}", c.peak_bps));
    }
    // Cells a fraction of a picosecond apart would pile up on one instant.
    if c.peak_bps > MAX_RATE_BPS {
        return Err(format!(
            "mpeg2: peak rate above {MAX_RATE_BPS:e} b/s is not supported, got {}",
            c.peak_bps
        ));
    }
    if c.std_bps == 0.0 && (c.mean_bps == 0.0 || c.mean_bps > c.peak_bps) {
        return Err(format!(
            "mpeg2: with zero standard deviation every rate equals the mean {} b/s, \
             so the source would never send (peak {} b/s)",
            c.mean_bps, c.peak_bps
        ));
    }
    if c.mpcr_min == Duration::ZERO {
        return Err("mpeg2: minimum inter-MPCR interval must be > 0".into());
    }
    if c.mpcr_min > c.mpcr_max {
        return Err(format!(
            "mpeg2: minimum inter-MPCR interval ({} ps) exceeds the maximum ({} ps)",
            c.mpcr_min.0, c.mpcr_max.0
        ));
    }
    if c.cell_bytes == 0 {
        return Err("mpeg2: cell size must be > 0 bytes".into());
    }
    if c.block < 2 {
        return Err(format!(
            "mpeg2: fGn block must hold at least 2 values, got {}",
            c.block
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000_000;

    fn emitter(start: Time, stop: Time) -> Emitter {
        Emitter::for_test(start, stop)
    }

    /// The paper's source (§3–4) with the given mean and deviation.
    fn paper(mean_bps: f64, std_bps: f64, block: usize) -> Mpeg2Config {
        Mpeg2Config {
            mean_bps,
            std_bps,
            hurst: 0.8,
            peak_bps: 15e6,
            mpcr_min: Duration(20 * MS),
            mpcr_max: Duration(100 * MS),
            cell_bytes: 53,
            block,
        }
    }

    fn source(cfg: Mpeg2Config, seconds: u64, seed: u64) -> Mpeg2 {
        let e = emitter(Time::ZERO, Time(seconds * PS_PER_S));
        Mpeg2::new(e, cfg, RngStream::new(seed, "video")).unwrap()
    }

    #[test]
    fn a_source_with_cells_far_apart_in_tiny_intervals_yields_to_the_loop() {
        // 1 b/s in 1 ps intervals: some 4e14 intervals between cells. Before,
        // one event went through them all, out of reach of Ctrl-C.
        let cfg = Mpeg2Config {
            mean_bps: 1.0,
            std_bps: 0.0,
            peak_bps: 2.0,
            mpcr_min: Duration(1),
            mpcr_max: Duration(1),
            ..paper(1.0, 0.0, 1 << 10)
        };
        let mut s = source(cfg, 10, 1);
        s.poll(Time::ZERO).expect("the first cell leaves at once");
        let mut t = Time::ZERO;
        for _ in 0..3 {
            let next = s.poll_at();
            assert!(next > t, "time moves on from one wake-up to the next");
            assert!(
                s.poll(next).is_none(),
                "a wake-up to go on settling, not a cell"
            );
            t = next;
        }
        assert_eq!(s.intervals(), 1 + 4 * u64::from(SETTLE_INTERVALS));
    }

    #[test]
    fn a_peak_beyond_the_clock_is_refused() {
        let cfg = Mpeg2Config {
            peak_bps: 1e15,
            ..paper(1e6, 1e6, 1 << 10)
        };
        let e = emitter(Time::ZERO, Time(PS_PER_S));
        assert!(Mpeg2::new(e, cfg, RngStream::new(1, "v")).is_err());
    }

    /// Runs a source to its stop time; returns the emission instants.
    fn run(s: &mut Mpeg2) -> Vec<Time> {
        let mut times = Vec::new();
        let mut last = Time::ZERO;
        while s.poll_at() != Time::NEVER {
            let t = s.poll_at();
            assert!(t >= last, "poll_at went back from {last} to {t}");
            if t.0 > 0 {
                assert!(s.poll(Time(t.0 - 1)).is_none(), "a cell before poll_at()");
            }
            s.poll(t).expect("a cell is due at poll_at()");
            times.push(t);
            last = t;
        }
        times
    }

    /// Time-weighted mean of the rates used, over [0, stop).
    fn weighted_mean_rate(s: &Mpeg2) -> f64 {
        let stop = s.emitter.stop;
        let bits: f64 = s
            .history
            .iter()
            .map(|&(a, b, r)| r * (b.min(stop).0.saturating_sub(a.0)) as f64)
            .sum();
        bits / stop.0 as f64
    }

    #[test]
    fn long_run_cell_rate_is_the_mean_of_the_rates_used() {
        // 5 ± 1 Mb/s never leaves [0, 15 Mb/s]. The fGn sample mean converges
        // slowly (its sd ∝ n^(H−1)), but every block is standardised, so
        // whole blocks of 1024 carry exactly the nominal mean.
        let secs = 200;
        let mut s = source(paper(5e6, 1e6, 1024), secs, 1);
        let times = run(&mut s);
        let measured = times.len() as f64 * 424.0 / secs as f64;
        let weighted = weighted_mean_rate(&s);
        let used: Vec<f64> = s.history.iter().map(|h| h.2).collect();
        let plain = used.iter().sum::<f64>() / used.len() as f64;
        eprintln!(
            "cells {} measured {measured:.0} b/s, time-weighted {weighted:.0}, \
             plain mean {plain:.0} over {} intervals, skipped {}",
            times.len(),
            used.len(),
            s.skipped()
        );
        assert_eq!(s.skipped(), 0);
        // Phase carried across intervals: within a cell or two of Σ R_i·T_i.
        let expected_cells = weighted * secs as f64 / 424.0;
        assert!(
            (times.len() as f64 - expected_cells).abs() <= 2.0,
            "{} cells, expected {expected_cells}",
            times.len()
        );
        assert!(
            (measured - plain).abs() / plain < 0.02,
            "{measured} vs {plain}"
        );
        assert!((measured - 5e6).abs() / 5e6 < 0.05, "{measured}");
    }

    #[test]
    fn out_of_range_rates_are_skipped_not_clipped() {
        // The paper's (5 Mb/s, 5 Mb/s) set: N(5, 5) truncated to [0, 15]
        // has mean 5 + 5(φ(−1) − φ(2))/(Φ(2) − Φ(−1)) ≈ 6.15 Mb/s; the paper
        // measured 56.44 Mb/s for 9 sources, 6.27 Mb/s each. Clipping would
        // give about 5.4 Mb/s.
        let secs = 200;
        let mut s = source(paper(5e6, 5e6, 4096), secs, 3);
        let times = run(&mut s);
        let measured = times.len() as f64 * 424.0 / secs as f64;
        let rates: Vec<f64> = s.history.iter().map(|h| h.2).collect();
        eprintln!(
            "measured {measured:.0} b/s over {} intervals, skipped {} ({:.1} %)",
            rates.len(),
            s.skipped(),
            100.0 * s.skipped() as f64 / (s.skipped() as f64 + rates.len() as f64)
        );
        assert!(rates.iter().all(|r| (0.0..=15e6).contains(r)));
        assert!(s.skipped() > 0);
        assert!((5.8e6..=6.8e6).contains(&measured), "{measured}");
    }

    #[test]
    fn intervals_are_uniform_between_20_and_100_ms() {
        // A slow source: the intervals do not depend on the rate.
        let secs = 1000;
        let mut s = source(paper(50e3, 10e3, 1 << 15), secs, 5);
        run(&mut s);
        let lens: Vec<u64> = s.history.iter().map(|&(a, b, _)| (b - a).0).collect();
        assert_eq!(lens.len() as u64, s.intervals());
        assert!(lens.iter().all(|l| (20 * MS..=100 * MS).contains(l)));
        let mean = lens.iter().sum::<u64>() as f64 / lens.len() as f64 / MS as f64;
        eprintln!("{} intervals, mean {mean:.3} ms", lens.len());
        assert!((mean - 60.0).abs() / 60.0 < 0.03, "{mean}");
        // Uniform, not just bounded: about a quarter in each quarter.
        let q = lens.iter().filter(|&&l| l < 40 * MS).count() as f64 / lens.len() as f64;
        assert!((q - 0.25).abs() < 0.03, "{q}");
    }

    #[test]
    fn cells_are_equally_spaced_within_an_interval() {
        let mut s = source(paper(5e6, 2e6, 256), 2, 7);
        let times = run(&mut s);
        let mut checked = 0;
        for &(a, b, r) in &s.history {
            let inside: Vec<u64> = times
                .iter()
                .filter(|t| **t >= a && **t < b)
                .map(|t| t.0)
                .collect();
            let gaps: Vec<u64> = inside.windows(2).map(|w| w[1] - w[0]).collect();
            let spacing = 424.0 * PS_PER_S as f64 / r;
            for g in &gaps {
                assert!((*g as f64 - spacing).abs() <= 1.0, "{g} vs {spacing}");
            }
            for w in gaps.windows(2) {
                assert!(w[0].abs_diff(w[1]) <= 1, "{w:?}");
            }
            // Uniform over the whole interval: no gap at either end longer
            // than a spacing.
            if let (Some(first), Some(last)) = (inside.first(), inside.last()) {
                assert!((first - a.0) as f64 <= spacing + 1.0);
                if b <= s.emitter.stop {
                    assert!((b.0 - last) as f64 <= spacing + 1.0);
                }
            }
            checked += gaps.len();
        }
        assert!(checked > 1000, "{checked}");
    }

    #[test]
    fn same_seed_same_cells_other_seed_other_cells() {
        let go = |seed| run(&mut source(paper(5e6, 5e6, 512), 1, seed));
        let a = go(11);
        assert!(a.len() > 1000);
        assert_eq!(a, go(11));
        assert_ne!(a, go(12));
    }

    #[test]
    fn window_is_respected() {
        let ms = |m: u64| Time(m * MS);
        let e = emitter(ms(250), ms(750));
        let mut s = Mpeg2::new(e, paper(5e6, 1e6, 64), RngStream::new(1, "v")).unwrap();
        assert_eq!(s.poll_at(), ms(250)); // first MPCR interval starts here
        assert!(s.poll(ms(100)).is_none());
        let times = run(&mut s);
        assert!(times.iter().all(|t| *t >= ms(250) && *t < ms(750)));
        assert_eq!(s.poll_at(), Time::NEVER);
        assert!(s.poll(ms(800)).is_none());
        assert_eq!(s.emitter.sent_packets, times.len() as u64);
        assert_eq!(s.emitter.sent_bytes, 53 * times.len() as u64);
    }

    #[test]
    fn bad_configs_are_rejected() {
        let good = paper(5e6, 5e6, 16);
        let cases: Vec<(&str, Mpeg2Config)> = vec![
            (
                "mean",
                Mpeg2Config {
                    mean_bps: -1.0,
                    ..good
                },
            ),
            (
                "mean",
                Mpeg2Config {
                    mean_bps: f64::NAN,
                    ..good
                },
            ),
            (
                "deviation",
                Mpeg2Config {
                    std_bps: f64::INFINITY,
                    ..good
                },
            ),
            (
                "deviation",
                Mpeg2Config {
                    std_bps: -1.0,
                    ..good
                },
            ),
            ("Hurst", Mpeg2Config { hurst: 1.0, ..good }),
            ("Hurst", Mpeg2Config { hurst: 0.3, ..good }),
            (
                "Hurst",
                Mpeg2Config {
                    hurst: f64::NAN,
                    ..good
                },
            ),
            (
                "peak",
                Mpeg2Config {
                    peak_bps: 0.0,
                    ..good
                },
            ),
            (
                "peak",
                Mpeg2Config {
                    peak_bps: f64::NAN,
                    ..good
                },
            ),
            (
                "never send",
                Mpeg2Config {
                    std_bps: 0.0,
                    mean_bps: 20e6,
                    ..good
                },
            ),
            (
                "never send",
                Mpeg2Config {
                    std_bps: 0.0,
                    mean_bps: 0.0,
                    ..good
                },
            ),
            (
                "minimum",
                Mpeg2Config {
                    mpcr_min: Duration::ZERO,
                    ..good
                },
            ),
            (
                "exceeds",
                Mpeg2Config {
                    mpcr_min: Duration(101 * MS),
                    ..good
                },
            ),
            (
                "cell",
                Mpeg2Config {
                    cell_bytes: 0,
                    ..good
                },
            ),
            ("block", Mpeg2Config { block: 1, ..good }),
        ];
        for (word, cfg) in cases {
            let e = emitter(Time::ZERO, Time(PS_PER_S));
            match Mpeg2::new(e, cfg, RngStream::new(1, "v")) {
                Ok(_) => panic!("accepted {cfg:?}"),
                Err(msg) => assert!(msg.contains(word), "{msg:?} lacks {word:?}"),
            }
        }
        // Constant-rate and odd-block edge cases are usable.
        let e = emitter(Time::ZERO, Time(PS_PER_S));
        let cbr = Mpeg2Config {
            std_bps: 0.0,
            ..good
        };
        assert!(Mpeg2::new(e.clone(), cbr, RngStream::new(1, "v")).is_ok());
        let odd = Mpeg2Config { block: 3, ..good };
        assert!(Mpeg2::new(e, odd, RngStream::new(1, "v")).is_ok());
    }

    #[test]
    fn hopeless_rate_process_falls_back_to_silence() {
        // Mean 20 σ above the peak: every value is skipped, and the source
        // goes quiet instead of looping for ever.
        let cfg = Mpeg2Config {
            mean_bps: 1e9,
            std_bps: 1e6,
            ..paper(0.0, 0.0, 1 << 12)
        };
        let e = emitter(Time::ZERO, Time(200 * MS));
        let mut s = Mpeg2::new(e, cfg, RngStream::new(1, "v")).unwrap();
        assert!(run(&mut s).is_empty());
        assert_eq!(s.current_rate_bps(), 0.0);
        assert!(s.skipped() >= MAX_CONSECUTIVE_SKIPS as u64 * s.intervals());
    }
}
