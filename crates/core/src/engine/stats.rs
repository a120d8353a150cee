//! Statistics that models record with: time-weighted averages, running
//! summaries (count, mean, min, max), histograms with quantiles, and sampled
//! time series.

/// A span of picoseconds as f64. Spans stay far below 2^63 ps (106 days),
/// and converting through i64 gives the same value as through u64 in one
/// instruction instead of x86-64's emulated unsigned conversion, which
/// showed in the profile of every queue update.
#[inline(always)]
pub(crate) fn ps_to_f64(ps: u64) -> f64 {
    debug_assert!(ps < 1 << 63);
    ps as i64 as f64
}

/// Time-weighted average of a piecewise-constant quantity (queue length,
/// capacity): the integral of the value over time divided by the time.
#[derive(Clone, Debug, Default)]
pub(crate) struct TimeAverage {
    start: u64,
    last_t: u64,
    value: f64,
    integral: f64,
    max: f64,
}

impl TimeAverage {
    #[cfg(test)]
    pub(crate) fn new(start_ps: u64, value: f64) -> TimeAverage {
        TimeAverage {
            start: start_ps,
            last_t: start_ps,
            value,
            integral: 0.0,
            max: value,
        }
    }
    /// The quantity changes to `v` at time `t` (ps).
    #[inline]
    pub(crate) fn set(&mut self, t: u64, v: f64) {
        self.integral += self.value * ps_to_f64(t - self.last_t);
        self.last_t = t;
        self.value = v;
        if v > self.max {
            self.max = v;
        }
    }
    pub(crate) fn max(&self) -> f64 {
        self.max
    }
    /// Average over [start, t].
    pub(crate) fn mean(&self, t: u64) -> f64 {
        let span = t.saturating_sub(self.start);
        if span == 0 {
            return self.value;
        }
        (self.integral + self.value * t.saturating_sub(self.last_t) as f64) / span as f64
    }
}

/// Count, sum, min, max and variance of a sample: a `Tally` plus Welford's
/// running mean and sum of squared deviations. A variance from sum and sum
/// of squares would cancel catastrophically for the near-equal transfer
/// times of a lossless ping-pong.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    pub(crate) tally: Tally,
    mean: f64,
    m2: f64,
}

impl Summary {
    pub(crate) fn add(&mut self, x: f64) {
        self.tally.add(x);
        let d = x - self.mean;
        self.mean += d / self.tally.n as f64;
        self.m2 += d * (x - self.mean);
    }

    /// Sample variance (n - 1 in the denominator); NaN below two values.
    pub(crate) fn variance(&self) -> f64 {
        if self.tally.n < 2 {
            f64::NAN
        } else {
            self.m2 / (self.tally.n - 1) as f64
        }
    }
    /// Population variance (n in the denominator): the spread of the
    /// values themselves rather than an estimate for a wider population;
    /// 0 for one value, NaN for none.
    pub(crate) fn population_variance(&self) -> f64 {
        if self.tally.n == 0 {
            f64::NAN
        } else {
            self.m2 / self.tally.n as f64
        }
    }
    pub(crate) fn mean(&self) -> f64 {
        self.tally.mean()
    }

    /// Adds another sample's figures, as if its values had been added
    /// here (Chan, Golub and LeVeque's pairwise update of the variance).
    pub(crate) fn merge(&mut self, o: &Summary) {
        if o.tally.n == 0 {
            return;
        }
        let (n1, n2) = (self.tally.n as f64, o.tally.n as f64);
        let n = n1 + n2;
        let d = o.mean - self.mean;
        self.m2 += o.m2 + d * d * n1 * n2 / n;
        self.mean += d * n2 / n;
        self.tally.merge(&o.tally);
    }
}

/// Count, sum, min and max: what a histogram keeps beside its buckets. No
/// running variance: a histogram records on every packet at every hop, and
/// Welford's update costs a division each time for a figure none of them
/// reports.
#[derive(Clone, Debug)]
pub(crate) struct Tally {
    pub(crate) n: u64,
    pub(crate) sum: f64,
    pub(crate) min: f64,
    pub(crate) max: f64,
}

impl Default for Tally {
    fn default() -> Tally {
        Tally {
            n: 0,
            sum: 0.0,
            min: f64::INFINITY,
            max: f64::NEG_INFINITY,
        }
    }
}

impl Tally {
    #[inline]
    pub(crate) fn add(&mut self, x: f64) {
        self.n += 1;
        self.sum += x;
        self.min = self.min.min(x);
        self.max = self.max.max(x);
    }

    /// sum / n, kept within [min, max] (where the true mean lies) against
    /// the rounding of the f64 sum; NaN when empty.
    pub(crate) fn mean(&self) -> f64 {
        if self.n == 0 {
            f64::NAN
        } else {
            (self.sum / self.n as f64).clamp(self.min, self.max)
        }
    }

    pub(crate) fn merge(&mut self, o: &Tally) {
        self.n += o.n;
        self.sum += o.sum;
        self.min = self.min.min(o.min);
        self.max = self.max.max(o.max);
    }
}

/// Log-linear histogram of non-negative integers (picoseconds, bytes):
/// values below 2^SUB_BITS are exact; above, each power of two is split
/// into 2^SUB_BITS buckets, so a quantile is within 1/2^SUB_BITS (0.8 %)
/// of the true value. Recording is a few integer instructions, cheap enough
/// for every packet at every hop.
///
/// Count, sum, minimum and maximum are kept as integers, exactly: a sum in
/// f64 of picosecond delays passes 2^53 after some 30 000 packets of a GEO
/// hop, and its rounding put the mean outside [min, max] (a negative mean
/// jitter for a flow of constant delay). The mean is min + (sum - n min)/n,
/// so min <= mean <= max holds in floating point too.
#[derive(Clone, Debug)]
pub struct Histogram {
    counts: Vec<u64>,
    n: u64,
    sum: u128,
    min: u64,
    max: u64,
}

const SUB_BITS: u32 = 7;
const SUB: u64 = 1 << SUB_BITS;

impl Default for Histogram {
    fn default() -> Histogram {
        Histogram::new()
    }
}

impl Histogram {
    /// An empty histogram.
    pub fn new() -> Histogram {
        Histogram {
            counts: Vec::new(),
            n: 0,
            sum: 0,
            min: u64::MAX,
            max: 0,
        }
    }

    fn bucket(v: u64) -> usize {
        if v < SUB {
            return v as usize;
        }
        let e = 63 - v.leading_zeros(); // floor(log2 v) >= SUB_BITS
        let shift = e - SUB_BITS;
        let mantissa = (v >> shift) - SUB; // 0..SUB
        (SUB + (shift as u64) * SUB + mantissa) as usize
    }

    /// Lower and upper bound of the values falling into bucket `b`.
    fn bounds(b: usize) -> (u64, u64) {
        let b = b as u64;
        if b < SUB {
            return (b, b);
        }
        let shift = (b - SUB) / SUB;
        let mantissa = (b - SUB) % SUB;
        let lo = (SUB + mantissa) << shift;
        (lo, lo.saturating_add((1u64 << shift) - 1))
    }

    /// Counts one value.
    #[inline]
    pub fn record(&mut self, v: u64) {
        let b = Self::bucket(v);
        if b >= self.counts.len() {
            self.counts.resize(b + 1, 0);
        }
        self.counts[b] += 1;
        self.n += 1;
        self.sum += u128::from(v);
        self.min = self.min.min(v);
        self.max = self.max.max(v);
    }

    /// Values recorded.
    pub fn count(&self) -> u64 {
        self.n
    }

    /// The smallest value; NaN when empty.
    pub(crate) fn min(&self) -> f64 {
        if self.n == 0 {
            f64::NAN
        } else {
            self.min as f64
        }
    }

    /// The largest value; NaN when empty.
    pub(crate) fn max(&self) -> f64 {
        if self.n == 0 {
            f64::NAN
        } else {
            self.max as f64
        }
    }

    /// The sum of the values (exact up to f64's rounding of the result).
    pub(crate) fn sum(&self) -> f64 {
        self.sum as f64
    }

    /// The mean; NaN when empty. Never outside [min, max].
    pub fn mean(&self) -> f64 {
        self.min() + self.mean_above_min()
    }

    /// The mean's excess over the minimum (a delay's mean jitter): never
    /// negative and never above max - min; NaN when empty.
    pub(crate) fn mean_above_min(&self) -> f64 {
        if self.n == 0 {
            return f64::NAN;
        }
        let excess = self.sum - u128::from(self.n) * u128::from(self.min);
        excess as f64 / self.n as f64
    }

    /// Adds another histogram's values.
    pub(crate) fn merge(&mut self, o: &Histogram) {
        if o.counts.len() > self.counts.len() {
            self.counts.resize(o.counts.len(), 0);
        }
        for (c, &oc) in self.counts.iter_mut().zip(&o.counts) {
            *c += oc;
        }
        self.n += o.n;
        self.sum += o.sum;
        self.min = self.min.min(o.min);
        self.max = self.max.max(o.max);
    }

    /// The empirical distribution: for each non-empty bucket, its upper
    /// bound (clamped to the largest value) and the fraction of values at
    /// or below it.
    pub(crate) fn cdf(&self) -> Vec<(f64, f64)> {
        let n = self.n as f64;
        let mut seen = 0u64;
        let mut out = Vec::new();
        for (b, &c) in self.counts.iter().enumerate() {
            if c == 0 {
                continue;
            }
            seen += c;
            let hi = Self::bounds(b).1 as f64;
            out.push((hi.min(self.max as f64), seen as f64 / n));
        }
        out
    }

    /// The q-quantile (0 ≤ q ≤ 1), as the midpoint of its bucket clamped to
    /// the observed range; NaN when empty.
    pub fn quantile(&self, q: f64) -> f64 {
        let n = self.n;
        if n == 0 {
            return f64::NAN;
        }
        if q >= 1.0 {
            return self.max();
        }
        let rank = ((q.max(0.0) * n as f64).ceil() as u64).max(1);
        let mut seen = 0;
        for (b, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                let (lo, hi) = Self::bounds(b);
                let mid = (lo as f64 + hi as f64) / 2.0;
                return mid.clamp(self.min(), self.max());
            }
        }
        self.max()
    }
}

/// A time series sampled at fixed instants.
#[derive(Clone, Debug, Default)]
pub struct TimeSeries {
    /// When each sample was taken, s since the start of the run.
    pub times_s: Vec<f64>,
    /// The sampled values, one per time.
    pub values: Vec<f64>,
}

impl TimeSeries {
    /// Appends the sample `v` taken at `t_s` seconds.
    pub fn push(&mut self, t_s: f64, v: f64) {
        self.times_s.push(t_s);
        self.values.push(v);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_average_of_a_square_wave() {
        let mut a = TimeAverage::new(0, 0.0);
        a.set(10, 4.0);
        a.set(20, 0.0);
        assert_eq!(a.mean(40), 1.0);
        assert_eq!(a.max(), 4.0);
    }

    #[test]
    fn sample_and_population_variance() {
        let mut s = Summary::default();
        assert!(s.population_variance().is_nan());
        s.add(2.0);
        assert_eq!(s.population_variance(), 0.0);
        assert!(s.variance().is_nan());
        for x in [4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0] {
            s.add(x);
        }
        // 2, 4, 4, 4, 5, 5, 7, 9: mean 5, squared deviations sum to 32.
        assert!((s.population_variance() - 4.0).abs() < 1e-12);
        assert!((s.variance() - 32.0 / 7.0).abs() < 1e-12);
    }

    #[test]
    fn a_constant_delay_has_its_own_mean_and_no_jitter() {
        // A GEO hop's delay in ps, 200 000 times: the f64 sum passed 2^53 and
        // the mean came out 6.8e-13 s below the minimum.
        let v = 275_010_662_394u64;
        let mut h = Histogram::new();
        for _ in 0..200_000 {
            h.record(v);
        }
        assert_eq!(h.mean(), v as f64);
        assert_eq!(h.mean_above_min(), 0.0);
        assert_eq!((h.min(), h.max()), (v as f64, v as f64));
    }

    #[test]
    fn the_mean_stays_within_min_and_max_and_is_exact() {
        use rand::{RngExt, SeedableRng};
        let mut rng = rand_pcg::Pcg64::seed_from_u64(7);
        for case in 0..200 {
            let base: u64 = rng.random_range(0..1u64 << 50);
            let spread: u64 = if case % 3 == 0 {
                0
            } else {
                rng.random_range(1..1u64 << 20)
            };
            let (mut a, mut b) = (Histogram::new(), Histogram::new());
            let mut exact: u128 = 0;
            let n = rng.random_range(1..5000u64);
            for i in 0..n {
                let x = base + rng.random_range(0..=spread);
                exact += u128::from(x);
                if i % 2 == 0 {
                    a.record(x)
                } else {
                    b.record(x)
                }
            }
            a.merge(&b);
            let (lo, hi, mean) = (a.min(), a.max(), a.mean());
            assert!(lo <= mean && mean <= hi, "{lo} <= {mean} <= {hi}");
            assert!(a.mean_above_min() >= 0.0 && a.mean_above_min() <= hi - lo);
            let want = exact as f64 / n as f64;
            assert!((mean - want).abs() <= want * 1e-15, "{mean} vs {want}");
            assert_eq!(a.count(), n);
        }
    }

    #[test]
    fn an_empty_histogram_has_no_figures() {
        let h = Histogram::new();
        assert!(h.mean().is_nan() && h.min().is_nan() && h.max().is_nan());
        assert!(h.mean_above_min().is_nan() && h.quantile(0.5).is_nan());
    }

    #[test]
    fn histogram_buckets_cover_values() {
        for v in [
            0u64,
            1,
            127,
            128,
            129,
            255,
            256,
            1000,
            2_831_197,
            u64::MAX / 3,
        ] {
            let (lo, hi) = Histogram::bounds(Histogram::bucket(v));
            assert!(lo <= v && v <= hi, "{v} not in [{lo}, {hi}]");
        }
    }

    #[test]
    fn histogram_quantiles_within_precision() {
        let mut h = Histogram::new();
        for v in 1..=100_000u64 {
            h.record(v * 1000);
        }
        for q in [0.5, 0.9, 0.99] {
            let exact = q * 100_000.0 * 1000.0;
            let got = h.quantile(q);
            assert!(
                (got - exact).abs() / exact < 1.0 / 128.0,
                "q{q}: {got} vs {exact}"
            );
        }
        assert_eq!(h.mean(), 50_000.5 * 1000.0);
        assert_eq!(h.quantile(1.0), 100_000_000.0);
    }

    #[test]
    fn merged_figures_equal_those_of_the_values_together() {
        let (a, b): (Vec<u64>, Vec<u64>) = (1..=300u64).map(|v| v * v).partition(|v| v % 3 == 0);
        let mut all = Histogram::new();
        let (mut ha, mut hb) = (Histogram::new(), Histogram::new());
        for &v in &a {
            ha.record(v);
            all.record(v);
        }
        for &v in &b {
            hb.record(v);
            all.record(v);
        }
        ha.merge(&hb);
        assert_eq!(ha.count(), all.count());
        assert_eq!(ha.min(), all.min());
        assert_eq!(ha.max(), all.max());
        assert_eq!(ha.sum(), all.sum());
        for q in [0.05, 0.5, 0.95] {
            assert_eq!(ha.quantile(q), all.quantile(q));
        }
        assert_eq!(ha.cdf(), all.cdf());
        // Chan's pairwise update gives the variance of the values together.
        let (mut sa, mut sb, mut sall) =
            (Summary::default(), Summary::default(), Summary::default());
        for &v in &a {
            sa.add(v as f64);
            sall.add(v as f64);
        }
        for &v in &b {
            sb.add(v as f64);
            sall.add(v as f64);
        }
        sa.merge(&sb);
        assert_eq!(sa.tally.n, sall.tally.n);
        assert!((sa.mean() - sall.mean()).abs() < 1e-9);
        let rel = (sa.variance() - sall.variance()).abs() / sall.variance();
        assert!(rel < 1e-12, "variance off by {rel}");
    }

    #[test]
    fn cdf_rises_to_one_at_the_largest_value() {
        let mut h = Histogram::new();
        for v in [5u64, 5, 7, 1000, 1000, 1000, 5000] {
            h.record(v);
        }
        let cdf = h.cdf();
        assert_eq!(cdf[0], (5.0, 2.0 / 7.0));
        assert_eq!(cdf[1], (7.0, 3.0 / 7.0));
        assert_eq!(*cdf.last().unwrap(), (5000.0, 1.0));
        assert!(cdf.windows(2).all(|w| w[0].0 < w[1].0 && w[0].1 < w[1].1));
        assert!(Histogram::new().cdf().is_empty());
    }

    #[test]
    fn empty_histogram_is_nan() {
        assert!(Histogram::new().quantile(0.5).is_nan());
    }
}
