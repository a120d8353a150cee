//! Quick-Start (RFC 4782): the rate a QS-Request asks for, as its IPv4
//! option encodes it (§4.1: 40 kb/s × 2^N), and a QS router's decision
//! with the "target" algorithm of Sarolahti, Allman and Floyd (Computer
//! Networks 51(7), 2007; ns-2's algorithm 3; REFERENCE §5.4) as the
//! tfrc-dama paper's QS agent at a satellite terminal uses it (appendix A):
//!
//! - the channel's use is its capacity minus the free capacity last heard
//!   (A.1.1, the NCC's broadcast; one observation, N = 1);
//! - rates approved in the last M intervals of `state_delay` count as used,
//!   since their traffic may not have arrived yet (the paper: M = 2,
//!   state_delay = (T_r + T_a)/2);
//! - while use stays below qs_thresh of the capacity (the paper: 0.8, free
//!   capacity of at least 20 %) a request is approved up to the headroom
//!   left below qs_thresh, rounded down to the option's rate table;
//!   otherwise, or when the headroom rounds to nothing, it is refused.
//!
//! The QS TTL and nonce checks of §4.4 are not modelled: every router on the
//! modelled paths takes part.

use crate::engine::{Check, ConfigError, Duration, Time};
use serde::{Deserialize, Serialize};

/// The lowest rate the option encodes, N = 1 (bits/s).
pub(crate) const QS_RATE_UNIT_BPS: f64 = 40_000.0;
/// The highest rate code.
pub(crate) const QS_RATE_MAX_CODE: u8 = 15;

/// The rate of code `n` (bits/s): 0 for 0, else 40 kb/s × 2^n.
pub(crate) fn rate_of_code(n: u8) -> f64 {
    if n == 0 {
        0.0
    } else {
        QS_RATE_UNIT_BPS * f64::from(1u32 << n.min(QS_RATE_MAX_CODE))
    }
}

/// The largest code whose rate does not exceed `bps`: how a sender encodes
/// what it wants and how a router rounds down what it can approve.
pub(crate) fn code_at_most(bps: f64) -> u8 {
    (1..=QS_RATE_MAX_CODE)
        .rev()
        .find(|&n| rate_of_code(n) <= bps * (1.0 + 1e-12))
        .unwrap_or(0)
}

/// A Quick-Start option on a packet (RFC 4782 §4.1), as far as the models
/// act on it: a request's rate code, which each QS router on the path may
/// lower (to 0: refused), and whether every router on the path has seen it
/// (the TTL check of §4.4, reduced to a flag a non-QS router clears).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct QsOption {
    pub(crate) rate_code: u8,
    pub(crate) every_router: bool,
}

impl QsOption {
    pub(crate) fn request(bps: f64) -> QsOption {
        QsOption {
            rate_code: code_at_most(bps),
            every_router: true,
        }
    }

    pub(crate) fn rate_bps(&self) -> f64 {
        rate_of_code(self.rate_code)
    }

    /// Approved by the whole path.
    pub(crate) fn approved(&self) -> bool {
        self.every_router && self.rate_code > 0
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct QsRouterConfig {
    /// Approve only while use stays below this fraction of the capacity.
    #[serde(default = "default_qs_thresh")]
    pub(crate) qs_thresh: f64,
    /// Intervals over which approvals are remembered (M).
    #[serde(default = "default_memory_intervals")]
    pub(crate) memory_intervals: u32,
    /// Length of one interval.
    #[serde(rename = "state_delay_ps")]
    pub(crate) state_delay: Duration,
}

/// The tfrc-dama paper's threshold (appendix A: free capacity of at least
/// 20 %).
pub(crate) fn default_qs_thresh() -> f64 {
    0.8
}

/// The tfrc-dama paper's M.
pub(crate) fn default_memory_intervals() -> u32 {
    2
}

impl QsRouterConfig {}

impl Check for QsRouterConfig {
    fn check(&self) -> Result<(), ConfigError> {
        if !(self.qs_thresh > 0.0 && self.qs_thresh <= 1.0) {
            return Err(ConfigError::new(format!(
                "qs_thresh must lie in (0, 1] (got {})",
                self.qs_thresh
            )));
        }
        if self.memory_intervals == 0 || self.state_delay.ps() == 0 {
            return Err("memory_intervals and state_delay_ps must be positive".into());
        }
        Ok(())
    }
}

/// A QS router's memory of what it approved.
#[derive(Clone, Debug)]
pub(crate) struct QsRouter {
    cfg: QsRouterConfig,
    /// Approved bits/s per interval, newest first; `memory_intervals` long.
    approved: Vec<f64>,
    /// Start of the newest interval.
    interval_start: Time,
    pub(crate) approvals: u64,
    pub(crate) refusals: u64,
}

impl QsRouter {
    pub(crate) fn new(cfg: QsRouterConfig) -> QsRouter {
        QsRouter {
            approved: vec![0.0; cfg.memory_intervals as usize],
            cfg,
            interval_start: Time::ZERO,
            approvals: 0,
            refusals: 0,
        }
    }

    /// Approvals still remembered at `now` (bits/s).
    pub(crate) fn recently_approved(&mut self, now: Time) -> f64 {
        self.forget_until(now);
        self.approved.iter().sum()
    }

    /// Decides on a request for `requested_bps` over a channel of
    /// `capacity_bps` of which `free_bps` was free at the last observation;
    /// returns the approved rate (0: refused), a value of the rate table.
    pub(crate) fn decide(
        &mut self,
        now: Time,
        requested_bps: f64,
        capacity_bps: f64,
        free_bps: f64,
    ) -> f64 {
        let used = (capacity_bps - free_bps).max(0.0) + self.recently_approved(now);
        let target = self.cfg.qs_thresh * capacity_bps;
        let room = if used < target { target - used } else { 0.0 };
        let approved = rate_of_code(code_at_most(requested_bps.min(room)));
        if approved > 0.0 {
            self.approved[0] += approved;
            self.approvals += 1;
        } else {
            self.refusals += 1;
        }
        approved
    }

    /// A router on the path: lowers the option's rate to what it approves.
    pub(crate) fn process(
        &mut self,
        now: Time,
        opt: &mut QsOption,
        capacity_bps: f64,
        free_bps: f64,
    ) {
        if opt.rate_code == 0 {
            return;
        }
        let approved = self.decide(now, opt.rate_bps(), capacity_bps, free_bps);
        opt.rate_code = code_at_most(approved);
    }

    /// Shifts the interval memory forward to the interval holding `now`.
    fn forget_until(&mut self, now: Time) {
        let len = self.cfg.state_delay.ps();
        let passed = now.since(self.interval_start).ps() / len;
        if passed == 0 {
            return;
        }
        let keep = self.approved.len();
        let shift = (passed as usize).min(keep);
        self.approved.rotate_right(shift);
        self.approved[..shift].fill(0.0);
        self.interval_start = Time(self.interval_start.ps() + passed * len);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn router() -> QsRouter {
        QsRouter::new(QsRouterConfig {
            qs_thresh: 0.8,
            memory_intervals: 2,
            state_delay: Duration::from_millis(1230),
        })
    }

    const C: f64 = 6.336e6;

    #[test]
    fn the_rate_table_of_rfc_4782() {
        assert_eq!(rate_of_code(0), 0.0);
        assert_eq!(rate_of_code(1), 80_000.0);
        assert_eq!(rate_of_code(3), 320_000.0);
        assert_eq!(rate_of_code(15), 1.31072e9);
        // The paper's 320 kb/s request is code 3 exactly; 300 kb/s rounds
        // down to 160 kb/s.
        assert_eq!(code_at_most(320_000.0), 3);
        assert_eq!(code_at_most(300_000.0), 2);
        assert_eq!(code_at_most(79_999.0), 0);
    }

    #[test]
    fn a_request_on_an_idle_channel_is_approved() {
        let mut r = router();
        assert_eq!(r.decide(Time::ZERO, 320_000.0, C, C), 320_000.0);
        assert_eq!(r.approvals, 1);
    }

    #[test]
    fn a_request_above_the_threshold_is_refused() {
        let mut r = router();
        // 81 % in use: above qs_thresh.
        assert_eq!(r.decide(Time::ZERO, 320_000.0, C, 0.19 * C), 0.0);
        assert_eq!(r.refusals, 1);
    }

    #[test]
    fn a_request_is_cut_to_the_headroom_below_the_threshold() {
        let mut r = router();
        // 78 % in use: 2 % of 6.336 Mb/s = 126.7 kb/s of headroom → 80 kb/s.
        assert_eq!(r.decide(Time::ZERO, 320_000.0, C, 0.22 * C), 80_000.0);
    }

    #[test]
    fn approvals_are_remembered_for_m_intervals() {
        let mut r = router();
        let free = 0.3 * C; // 70 % in use: 633.6 kb/s of headroom.
        let t = |ms: u64| Time(Duration::from_millis(ms).ps());
        assert_eq!(r.decide(t(0), 320_000.0, C, free), 320_000.0);
        // The first approval still counts: 313.6 kb/s left → 160 kb/s.
        assert_eq!(r.decide(t(1000), 320_000.0, C, free), 160_000.0);
        assert_eq!(r.recently_approved(t(2000)), 480_000.0);
        // After two intervals of 1.23 s the first is forgotten (the interval
        // holding t = 0 ended at 1.23 s, so it is dropped at 2.46 s), the
        // second (in the same interval) with it.
        assert_eq!(r.recently_approved(t(2460)), 0.0);
        assert_eq!(r.decide(t(2460), 320_000.0, C, free), 320_000.0);
    }

    #[test]
    fn a_router_lowers_the_option_and_a_refusal_sticks() {
        let mut r = router();
        let mut opt = QsOption::request(320_000.0);
        r.process(Time::ZERO, &mut opt, C, 0.22 * C);
        assert_eq!(opt.rate_bps(), 80_000.0);
        assert!(opt.approved());
        let mut full = QsOption::request(320_000.0);
        r.process(Time::ZERO, &mut full, C, 0.0);
        assert!(!full.approved());
        // A later router never raises a refused request.
        r.process(Time::ZERO, &mut full, C, C);
        assert_eq!(full.rate_code, 0);
    }

    #[test]
    fn bad_settings_are_refused() {
        let mut cfg = router().cfg;
        cfg.qs_thresh = 1.2;
        assert!(cfg.check().unwrap_err().to_string().contains("qs_thresh"));
    }
}
