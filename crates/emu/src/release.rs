//! How well the emulator keeps the model's time: for every packet handed to
//! a host, how late it was written compared with the instant the model
//! delivered it (the release-time error). Reported in every run's summary
//! as the median, 99th percentile and maximum, in microseconds.

use satcc_core::engine::stats::Histogram;
use satcc_core::scenario::summary::{num, put, Summary};

#[derive(Default)]
pub struct ReleaseErrors {
    /// Lateness in nanoseconds.
    late_ns: Histogram,
    /// Written before their time: never, unless the loop is wrong.
    early: u64,
}

impl ReleaseErrors {
    pub fn record(&mut self, lateness_ns: i64) {
        if lateness_ns < 0 {
            self.early += 1;
        }
        self.late_ns.record(lateness_ns.max(0) as u64);
    }

    pub fn count(&self) -> u64 {
        self.late_ns.count()
    }

    /// Quantile `q` in microseconds (NaN before the first packet).
    pub fn quantile_us(&self, q: f64) -> f64 {
        self.late_ns.quantile(q) / 1e3
    }

    pub fn summarise(&self, s: &mut Summary) {
        let p = "emulator.release_error_";
        put(s, format!("{p}packets"), self.count());
        put(s, format!("{p}median_us"), num(self.quantile_us(0.5)));
        put(s, format!("{p}p99_us"), num(self.quantile_us(0.99)));
        put(s, format!("{p}max_us"), num(self.quantile_us(1.0)));
        put(s, format!("{p}mean_us"), num(self.late_ns.mean() / 1e3));
        put(s, format!("{p}early_packets"), self.early);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_in_microseconds() {
        let mut r = ReleaseErrors::default();
        for ns in 1..=1000 {
            r.record(ns * 100);
        }
        assert_eq!(r.count(), 1000);
        // Within the histogram's 0.8 % buckets.
        assert!((r.quantile_us(0.5) - 50.0).abs() < 0.5);
        assert!((r.quantile_us(0.99) - 99.0).abs() < 1.0);
        assert_eq!(r.quantile_us(1.0), 100.0);
        let mut s = Summary::new();
        r.summarise(&mut s);
        assert_eq!(s["emulator.release_error_early_packets"], 0);
    }

    #[test]
    fn early_writes_are_counted_not_hidden() {
        let mut r = ReleaseErrors::default();
        r.record(-5);
        assert_eq!(r.early, 1);
        assert_eq!(r.quantile_us(0.5), 0.0);
    }
}
