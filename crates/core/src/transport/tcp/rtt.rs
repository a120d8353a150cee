//! Round-trip time estimation and the retransmission timeout, RFC 6298:
//! SRTT/RTTVAR smoothing (§2.2–2.3), RTO = SRTT + max(G, 4·RTTVAR) with a
//! floor and a ceiling (§2.4–2.5), exponential back-off on expiry (§5.5).

use crate::engine::Duration;

#[derive(Clone, Debug)]
pub(crate) struct RttEstimator {
    srtt: Option<f64>,
    rttvar: f64,
    base_rto: f64,
    backoff: u32,
    min_rto: f64,
    max_rto: f64,
    granularity: f64,
}

impl RttEstimator {
    pub(crate) fn new(
        initial_rto: Duration,
        min_rto: Duration,
        max_rto: Duration,
        granularity: Duration,
    ) -> RttEstimator {
        RttEstimator {
            srtt: None,
            rttvar: 0.0,
            base_rto: initial_rto.as_secs_f64(),
            backoff: 0,
            min_rto: min_rto.as_secs_f64(),
            max_rto: max_rto.as_secs_f64(),
            granularity: granularity.as_secs_f64(),
        }
    }

    /// A valid measurement (never from a retransmitted segment: Karn's rule
    /// is the caller's). A new sample also ends any back-off (§5.7 note).
    pub(crate) fn sample(&mut self, r: Duration) {
        let r = r.as_secs_f64();
        match self.srtt {
            None => {
                self.srtt = Some(r);
                self.rttvar = r / 2.0;
            }
            Some(s) => {
                self.rttvar = 0.75 * self.rttvar + 0.25 * (s - r).abs();
                self.srtt = Some(0.875 * s + 0.125 * r);
            }
        }
        let s = self.srtt.unwrap();
        self.base_rto =
            (s + self.granularity.max(4.0 * self.rttvar)).clamp(self.min_rto, self.max_rto);
        self.backoff = 0;
    }

    /// The timer expired: double the timeout, up to the ceiling.
    pub(crate) fn back_off(&mut self) {
        self.backoff = (self.backoff + 1).min(30);
    }

    /// Raises the timeout to at least `floor` (RFC 6298 §5.7: 3 s after a
    /// timed-out SYN).
    pub(crate) fn raise_to(&mut self, floor: Duration) {
        self.base_rto = self.base_rto.max(floor.as_secs_f64());
    }

    pub(crate) fn rto(&self) -> Duration {
        let rto = (self.base_rto * f64::from(1u32 << self.backoff.min(30))).min(self.max_rto);
        Duration::from_secs_f64(rto)
    }

    pub(crate) fn srtt(&self) -> Option<Duration> {
        self.srtt.map(Duration::from_secs_f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(x: u64) -> Duration {
        Duration::from_millis(x)
    }

    #[test]
    fn rfc6298_first_and_second_sample() {
        let mut e = RttEstimator::new(ms(1000), ms(200), ms(60_000), ms(1));
        assert_eq!(e.rto(), ms(1000));
        e.sample(ms(400));
        // SRTT 400, RTTVAR 200, RTO = 400 + 800.
        assert_eq!(e.rto(), ms(1200));
        e.sample(ms(600));
        // RTTVAR = 0.75*200 + 0.25*200 = 200; SRTT = 425; RTO = 1225.
        assert_eq!(e.rto(), ms(1225));
    }

    #[test]
    fn floor_backoff_and_ceiling() {
        let mut e = RttEstimator::new(ms(1000), ms(1000), ms(60_000), ms(1));
        e.sample(ms(10));
        assert_eq!(e.rto(), ms(1000)); // floored at min_rto
        for _ in 0..3 {
            e.back_off();
        }
        assert_eq!(e.rto(), ms(8000));
        for _ in 0..10 {
            e.back_off();
        }
        assert_eq!(e.rto(), ms(60_000));
        e.sample(ms(10));
        assert_eq!(e.rto(), ms(1000)); // a new sample ends the back-off
    }
}
