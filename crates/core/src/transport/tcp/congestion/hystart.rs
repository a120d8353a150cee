//! HyStart++ (RFC 9406): leaves the initial slow start when the round's
//! minimum RTT has risen by a threshold over the previous round's (§4.2),
//! then grows cautiously (a quarter of slow start) for up to CSS_ROUNDS
//! rounds before congestion avoidance, going back to slow start if the RTT
//! falls again (a spurious exit). Only the initial slow start uses it
//! (§4.3); a loss ends it.

use super::{Ack, Window};
use crate::engine::Duration;

/// RFC 9406 §4.3 constants.
pub(crate) const MIN_RTT_THRESH: Duration = Duration::from_millis(4);
pub(crate) const MAX_RTT_THRESH: Duration = Duration::from_millis(16);
pub(crate) const MIN_RTT_DIVISOR: u64 = 8;
pub(crate) const N_RTT_SAMPLE: u32 = 8;
pub(crate) const CSS_GROWTH_DIVISOR: u64 = 4;
pub(crate) const CSS_ROUNDS: u32 = 5;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Phase {
    SlowStart,
    /// Conservative slow start, with the rounds spent in it.
    Css(u32),
    /// Left for congestion avoidance, or ended by a loss.
    Done,
}

#[derive(Clone, Debug)]
pub(crate) struct HyStart {
    pub(crate) phase: Phase,
    window_end: u64,
    last_round_min: Option<Duration>,
    round_min: Option<Duration>,
    samples: u32,
    css_baseline: Option<Duration>,
}

impl Default for HyStart {
    fn default() -> HyStart {
        HyStart {
            phase: Phase::SlowStart,
            window_end: 0,
            last_round_min: None,
            round_min: None,
            samples: 0,
            css_baseline: None,
        }
    }
}

/// RttThresh (§4.2): an eighth of the last round's minimum, within 4–16 ms.
pub(crate) fn rtt_thresh(last_round_min: Duration) -> Duration {
    Duration(last_round_min.ps() / MIN_RTT_DIVISOR).clamp(MIN_RTT_THRESH, MAX_RTT_THRESH)
}

impl HyStart {
    pub(crate) fn active(&self) -> bool {
        self.phase != Phase::Done
    }

    /// A loss (or the end of slow start by ssthresh): no more HyStart++.
    pub(crate) fn stop(&mut self) {
        self.phase = Phase::Done;
    }

    /// One ACK in slow start; returns the increase to apply to cwnd
    /// (`increase` is slow start's own), and may end slow start by
    /// setting ssthresh.
    pub(crate) fn on_ack(&mut self, w: &mut Window, ack: &Ack, increase: u64) -> u64 {
        if ack.ack >= self.window_end {
            self.new_round(w, ack.snd_max);
        }
        if let Some(s) = ack.rtt_sample {
            self.round_min = Some(self.round_min.map_or(s, |m| m.min(s)));
            self.samples += 1;
        }
        let enough = self.samples >= N_RTT_SAMPLE;
        match self.phase {
            Phase::SlowStart => {
                if let (true, Some(cur), Some(last)) = (enough, self.round_min, self.last_round_min)
                {
                    if cur >= last + rtt_thresh(last) {
                        self.css_baseline = Some(cur);
                        self.phase = Phase::Css(0);
                    }
                }
                increase
            }
            Phase::Css(_) => {
                if let (true, Some(cur), Some(base)) = (enough, self.round_min, self.css_baseline) {
                    if cur < base {
                        // Spurious exit: back to slow start.
                        self.css_baseline = None;
                        self.phase = Phase::SlowStart;
                        return increase;
                    }
                }
                increase / CSS_GROWTH_DIVISOR
            }
            Phase::Done => increase,
        }
    }

    fn new_round(&mut self, w: &mut Window, snd_max: u64) {
        self.window_end = snd_max;
        self.last_round_min = self.round_min;
        self.round_min = None;
        self.samples = 0;
        if let Phase::Css(rounds) = self.phase {
            if rounds + 1 >= CSS_ROUNDS {
                w.ssthresh = w.cwnd; // on to congestion avoidance
                self.phase = Phase::Done;
            } else {
                self.phase = Phase::Css(rounds + 1);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Time;

    const MS: u64 = 1_000_000_000;

    fn ack(ack: u64, snd_max: u64, rtt_ms: u64) -> Ack {
        Ack {
            now: Time::ZERO,
            acked: 1000,
            ack,
            snd_max,
            srtt: None,
            rtt_sample: Some(Duration(rtt_ms * MS)),
        }
    }

    #[test]
    fn threshold_is_clamped() {
        assert_eq!(rtt_thresh(Duration(8 * MS)), MIN_RTT_THRESH);
        assert_eq!(rtt_thresh(Duration(80 * MS)), Duration(10 * MS));
        assert_eq!(rtt_thresh(Duration(600 * MS)), MAX_RTT_THRESH);
    }

    /// Rounds of 8 samples at 100 ms, then a round at 120 ms (above
    /// 100 + 12.5 ms): conservative slow start, a quarter of the growth,
    /// and after CSS_ROUNDS rounds ssthresh = cwnd.
    #[test]
    fn rising_rtt_enters_css_then_congestion_avoidance() {
        let mut h = HyStart::default();
        let mut w = Window {
            cwnd: 10_000,
            ssthresh: u64::MAX,
            mss: 1000,
        };
        let mut sent = 0;
        let mut round = |h: &mut HyStart, w: &mut Window, rtt: u64| {
            let end = sent + 20_000;
            let mut grown = 0;
            for i in 0..8u64 {
                grown += h.on_ack(w, &ack(sent + i * 1000 + 1, end, rtt), 2000);
            }
            sent = end;
            grown
        };
        assert_eq!(round(&mut h, &mut w, 100), 16_000);
        assert_eq!(round(&mut h, &mut w, 100), 16_000);
        assert_eq!(h.phase, Phase::SlowStart);
        round(&mut h, &mut w, 120);
        assert_eq!(h.phase, Phase::Css(0));
        assert_eq!(round(&mut h, &mut w, 120), 8 * 500);
        for _ in 0..3 {
            round(&mut h, &mut w, 120);
        }
        assert_eq!(h.phase, Phase::Css(4));
        round(&mut h, &mut w, 120);
        assert_eq!(h.phase, Phase::Done);
        assert_eq!(w.ssthresh, w.cwnd);
    }

    #[test]
    fn falling_rtt_in_css_resumes_slow_start() {
        let mut h = HyStart {
            phase: Phase::Css(1),
            css_baseline: Some(Duration(120 * MS)),
            window_end: u64::MAX,
            ..HyStart::default()
        };
        let mut w = Window {
            cwnd: 10_000,
            ssthresh: u64::MAX,
            mss: 1000,
        };
        for i in 0..7 {
            assert_eq!(h.on_ack(&mut w, &ack(i, 0, 100), 2000), 500);
        }
        assert_eq!(h.on_ack(&mut w, &ack(8, 0, 100), 2000), 2000);
        assert_eq!(h.phase, Phase::SlowStart);
    }

    /// Slow start that reaches ssthresh ends HyStart++ with it (only the
    /// initial slow start uses it), so no RTT samples are kept after.
    #[test]
    fn reaching_ssthresh_ends_it() {
        let mut h = HyStart::default();
        let mut w = Window {
            cwnd: 10_000,
            ssthresh: 12_000,
            mss: 1000,
        };
        super::super::slow_start(&mut w, &ack(1, 20_000, 100), 2, Some(&mut h));
        assert!(h.active() && w.cwnd == 11_000);
        super::super::slow_start(&mut w, &ack(2, 20_000, 100), 2, Some(&mut h));
        assert!(!h.active() && w.cwnd == 12_000);
    }
}
