//! BBR v1 (draft-cardwell-iccrg-bbr-congestion-control-00 §4; Linux
//! `net/ipv4/tcp_bbr.c`): a model of the path, not a reaction to loss.
//! BtlBw is the largest delivery rate of the last 10 round trips (a
//! windowed max filter), RTprop the smallest RTT of the last 10 s; the
//! sender paces at pacing_gain·BtlBw and keeps at most
//! cwnd_gain·BtlBw·RTprop (+ a few segments) in flight. The state machine:
//! Startup (gains 2/ln 2) until the delivery rate grew less than 25 % in 3
//! rounds, Drain (pacing 1/2.885) until the flight is down to one BDP,
//! ProbeBW cycling the pacing gain through 1.25, 0.75, 1 ×6 (one RTprop
//! each, from a random phase), and ProbeRTT (cwnd 4 segments for
//! max(200 ms, one round)) when RTprop went 10 s without a new low.
//!
//! Loss: packet conservation in the first round of recovery, then
//! slow-starting towards the target, and the cwnd before the loss restored
//! when recovery ends (Linux's v1; the draft leaves it out).
//!
//! Left out (docs/tcp.md): Linux's long-term (policer) bandwidth model,
//! ACK-aggregation allowance, TSO sizing (the quantum is three segments),
//! the 1 % pacing margin, earliest-departure-time flight estimate and
//! idle restart.

use super::{Ack, CongestionControl, Window};
use crate::engine::{Duration, RngStream, Time};
use crate::transport::tcp::rate::Sample;

/// Startup's gain, 2/ln 2 (Linux rounds it to 2.885).
pub(crate) const HIGH_GAIN: f64 = 2.885;
/// Drain's pacing gain: Startup's queue gone in about one round.
pub(crate) const DRAIN_GAIN: f64 = 1.0 / HIGH_GAIN;
/// ProbeBW's cwnd gain.
pub(crate) const CWND_GAIN: f64 = 2.0;
/// ProbeBW's pacing gains, one phase of about RTprop each.
pub(crate) const PACING_GAINS: [f64; 8] = [1.25, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0];
/// BtlBw filter window, round trips.
pub(crate) const BW_ROUNDS: u64 = 10;
/// RTprop filter window.
pub(crate) const RTPROP_WINDOW: Duration = Duration::from_millis(10_000);
/// Shortest stay in ProbeRTT.
pub(crate) const PROBE_RTT_TIME: Duration = Duration::from_millis(200);
/// Smallest cwnd, segments (two delayed-ACK pairs).
pub(crate) const MIN_CWND_SEGMENTS: u64 = 4;
/// Full pipe: the rate grew less than this per round ...
pub(crate) const FULL_BW_GROWTH: f64 = 1.25;
/// ... for this many rounds.
pub(crate) const FULL_BW_ROUNDS: u32 = 3;
/// Linux's TCP_INIT_CWND: the target before any RTT is known.
const INIT_CWND_SEGMENTS: u64 = 10;

/// Where loss recovery stands, as the controller sees it (Linux's
/// `icsk_ca_state` reduced to what BBR reads).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum CaState {
    #[default]
    Open,
    /// Fast recovery.
    Recovery,
    /// After a retransmission timeout, until its flight is acknowledged.
    Loss,
}

/// What the socket tells the controller on every ACK.
#[derive(Copy, Clone, Debug, Default)]
pub(crate) struct RateAck {
    pub now: Time,
    pub(crate) rs: Sample,
    /// Bytes in flight before and after this ACK (RFC 6675 pipe with SACK).
    pub(crate) prior_in_flight: u64,
    pub(crate) in_flight: u64,
    pub(crate) state: CaState,
    pub(crate) srtt: Option<Duration>,
}

/// The state machine (draft §4.3), each state with its own data.
#[derive(Copy, Clone, Debug, PartialEq)]
pub(crate) enum Mode {
    Startup,
    Drain,
    /// Gain cycling: the phase and when it began (a delivery time).
    ProbeBw {
        phase: usize,
        since: Time,
    },
    /// Flight held at 4 segments; `done` once it got there: the earliest
    /// exit, and whether a round has passed since.
    ProbeRtt {
        done: Option<Time>,
        round_done: bool,
    },
}

/// Kathleen Nichols' windowed max filter (Linux `lib/minmax.c`): the best,
/// second and third best samples of the window, so an old maximum ages out
/// without keeping every sample.
#[derive(Copy, Clone, Debug, Default)]
pub(crate) struct MaxFilter {
    s: [(u64, f64); 3],
}

impl MaxFilter {
    pub(crate) fn get(&self) -> f64 {
        self.s[0].1
    }

    /// A sample `v` at time `t` (rounds) in a window of `win`.
    pub(crate) fn update(&mut self, win: u64, t: u64, v: f64) -> f64 {
        let new = (t, v);
        if v >= self.s[0].1 || t.saturating_sub(self.s[2].0) > win {
            self.s = [new; 3];
            return v;
        }
        if v >= self.s[1].1 {
            self.s[1] = new;
            self.s[2] = new;
        } else if v >= self.s[2].1 {
            self.s[2] = new;
        }
        let dt = t - self.s[0].0;
        if dt > win {
            // The best aged out: promote the others, maybe twice.
            self.s = [self.s[1], self.s[2], new];
            if t - self.s[0].0 > win {
                self.s = [self.s[1], self.s[2], new];
            }
        } else if self.s[1].0 == self.s[0].0 && dt > win / 4 {
            // A quarter of the window without a second choice: take one.
            self.s[1] = new;
            self.s[2] = new;
        } else if self.s[2].0 == self.s[1].0 && dt > win / 2 {
            self.s[2] = new;
        }
        self.s[0].1
    }
}

#[derive(Debug)]
pub(crate) struct Bbr {
    pub(crate) mode: Mode,
    /// BtlBw, bytes per second, over round trips.
    bw: MaxFilter,
    rounds: u64,
    next_round_delivered: u64,
    round_start: bool,
    /// RTprop and when it was last lowered (or refreshed).
    min_rtt: Option<Duration>,
    min_rtt_stamp: Option<Time>,
    full_bw: f64,
    full_bw_count: u32,
    pub(crate) full_bw_reached: bool,
    pub(crate) pacing_gain: f64,
    pub(crate) cwnd_gain: f64,
    pacing_rate: Option<f64>,
    /// cwnd before the last loss or ProbeRTT, to restore.
    prior_cwnd: u64,
    prev_state: CaState,
    packet_conservation: bool,
    /// ProbeRTT keeps the delivery-rate samples app-limited.
    hold_app_limited: bool,
    rng: RngStream,
}

impl Clone for Bbr {
    fn clone(&self) -> Bbr {
        Bbr {
            rng: self.rng.clone(),
            ..*self
        }
    }
}

impl Default for Bbr {
    fn default() -> Bbr {
        Bbr::new(RngStream::new(0, "bbr"))
    }
}

impl Bbr {
    /// A controller drawing its first ProbeBW phase from `rng`.
    pub(crate) fn new(rng: RngStream) -> Bbr {
        Bbr {
            mode: Mode::Startup,
            bw: MaxFilter::default(),
            rounds: 0,
            next_round_delivered: 0,
            round_start: false,
            min_rtt: None,
            min_rtt_stamp: None,
            full_bw: 0.0,
            full_bw_count: 0,
            full_bw_reached: false,
            pacing_gain: HIGH_GAIN,
            cwnd_gain: HIGH_GAIN,
            pacing_rate: None,
            prior_cwnd: 0,
            prev_state: CaState::Open,
            packet_conservation: false,
            hold_app_limited: false,
            rng,
        }
    }

    pub(crate) fn seed(&mut self, rng: RngStream) {
        self.rng = rng;
    }

    /// BtlBw, bytes per second.
    pub(crate) fn btl_bw(&self) -> f64 {
        self.bw.get()
    }

    /// gain·BtlBw·RTprop in bytes, rounded up to whole segments (the
    /// initial window's worth before any RTT is known).
    pub(crate) fn bdp(&self, gain: f64, mss: u64) -> u64 {
        let Some(rtt) = self.min_rtt else {
            return INIT_CWND_SEGMENTS * mss;
        };
        let bytes = gain * self.btl_bw() * rtt.as_secs_f64();
        (bytes / mss as f64).ceil() as u64 * mss
    }

    /// The flight to aim at: the BDP plus three segments of quantum, to an
    /// even number of segments, two more in the probing phase (Linux's
    /// `bbr_quantization_budget`, one segment per send instead of TSO).
    pub(crate) fn target(&self, gain: f64, mss: u64) -> u64 {
        let mut segs = self.bdp(gain, mss) / mss + 3;
        segs = (segs + 1) & !1;
        if matches!(self.mode, Mode::ProbeBw { phase: 0, .. }) {
            segs += 2;
        }
        segs * mss
    }

    fn save_cwnd(&mut self, cwnd: u64) {
        if self.prev_state < CaState::Recovery && !matches!(self.mode, Mode::ProbeRtt { .. }) {
            self.prior_cwnd = cwnd;
        } else {
            self.prior_cwnd = self.prior_cwnd.max(cwnd);
        }
    }

    // ----- the model (draft §4.1, §4.3) -----

    fn update_bw(&mut self, a: &RateAck) {
        self.round_start = false;
        let Some(rate) = a.rs.rate() else {
            return;
        };
        if a.rs.prior_delivered >= self.next_round_delivered {
            self.next_round_delivered = a.rs.delivered_total;
            self.rounds += 1;
            self.round_start = true;
            self.packet_conservation = false;
        }
        // An app-limited sample says little unless it beats the estimate.
        if !a.rs.app_limited || rate >= self.btl_bw() {
            self.bw.update(BW_ROUNDS, self.rounds, rate);
        }
    }

    fn update_cycle_phase(&mut self, a: &RateAck, mss: u64) {
        let Mode::ProbeBw { phase, since } = self.mode else {
            return;
        };
        let rtprop = self.min_rtt.unwrap_or(Duration::ZERO);
        let full_length = a.rs.delivered_time.since(since) > rtprop;
        let gain = PACING_GAINS[phase];
        let next = if gain == 1.0 {
            full_length
        } else if gain > 1.0 {
            // Probe until the flight reached gain·BDP, or a loss says it
            // will not fit.
            full_length && (a.rs.losses > 0 || a.prior_in_flight >= self.target(gain, mss))
        } else {
            // Drain until the flight is down to one BDP.
            full_length || a.prior_in_flight <= self.target(1.0, mss)
        };
        if next {
            self.mode = Mode::ProbeBw {
                phase: (phase + 1) % PACING_GAINS.len(),
                since: a.rs.delivered_time,
            };
        }
    }

    fn enter_probe_bw(&mut self, a: &RateAck) {
        // A random phase other than the draining one (Linux: 7 of 8).
        let before = PACING_GAINS.len() - 1 - self.rng.below(7) as usize;
        self.mode = Mode::ProbeBw {
            phase: (before + 1) % PACING_GAINS.len(),
            since: a.rs.delivered_time,
        };
    }

    fn check_full_pipe(&mut self, a: &RateAck) {
        if self.full_bw_reached || !self.round_start || a.rs.app_limited {
            return;
        }
        if self.btl_bw() >= self.full_bw * FULL_BW_GROWTH {
            self.full_bw = self.btl_bw();
            self.full_bw_count = 0;
            return;
        }
        self.full_bw_count += 1;
        self.full_bw_reached = self.full_bw_count >= FULL_BW_ROUNDS;
    }

    fn check_drain(&mut self, w: &mut Window, a: &RateAck) {
        if self.mode == Mode::Startup && self.full_bw_reached {
            self.mode = Mode::Drain;
            w.ssthresh = self.target(1.0, w.mss);
        }
        if self.mode == Mode::Drain && a.in_flight <= self.target(1.0, w.mss) {
            self.enter_probe_bw(a);
        }
    }

    fn update_min_rtt(&mut self, w: &mut Window, a: &RateAck) {
        let now = a.now;
        let stamp = *self.min_rtt_stamp.get_or_insert(now);
        let expired = now > stamp + RTPROP_WINDOW;
        if let Some(rtt) = a.rs.rtt {
            if self.min_rtt.is_none_or(|m| rtt <= m) || expired {
                self.min_rtt = Some(rtt);
                self.min_rtt_stamp = Some(now);
            }
        }
        if expired && !matches!(self.mode, Mode::ProbeRtt { .. }) {
            self.save_cwnd(w.cwnd);
            self.mode = Mode::ProbeRtt {
                done: None,
                round_done: false,
            };
        }
        self.hold_app_limited = false;
        let Mode::ProbeRtt { done, round_done } = self.mode else {
            return;
        };
        self.hold_app_limited = true;
        match done {
            None if a.in_flight <= MIN_CWND_SEGMENTS * w.mss => {
                self.next_round_delivered = a.rs.delivered_total;
                self.mode = Mode::ProbeRtt {
                    done: Some(now + PROBE_RTT_TIME),
                    round_done: false,
                };
            }
            None => {}
            Some(t) => {
                let round_done = round_done || self.round_start;
                self.mode = Mode::ProbeRtt { done, round_done };
                if round_done && now > t {
                    self.min_rtt_stamp = Some(now);
                    w.cwnd = w.cwnd.max(self.prior_cwnd);
                    if self.full_bw_reached {
                        self.enter_probe_bw(a);
                    } else {
                        self.mode = Mode::Startup;
                    }
                }
            }
        }
    }

    fn update_gains(&mut self) {
        (self.pacing_gain, self.cwnd_gain) = match self.mode {
            Mode::Startup => (HIGH_GAIN, HIGH_GAIN),
            Mode::Drain => (DRAIN_GAIN, HIGH_GAIN),
            Mode::ProbeBw { phase, .. } => (PACING_GAINS[phase], CWND_GAIN),
            Mode::ProbeRtt { .. } => (1.0, 1.0),
        };
    }

    // ----- the controls (draft §4.2) -----

    fn set_pacing_rate(&mut self, w: &Window, a: &RateAck) {
        if self.pacing_rate.is_none() && a.srtt.is_some() {
            self.pacing_rate = Some(initial_pacing_rate(w, a.srtt));
        }
        let rate = self.pacing_gain * self.btl_bw();
        // Until the pipe is full the rate only rises (a slow first sample
        // must not throttle Startup).
        if self.full_bw_reached || self.pacing_rate.is_none_or(|r| rate > r) {
            self.pacing_rate = Some(rate);
        }
    }

    /// Linux's `bbr_set_cwnd_to_recover_or_restore`: the cwnd to start
    /// from, and whether packet conservation holds it.
    fn recover_or_restore(&mut self, w: &Window, a: &RateAck) -> (u64, bool) {
        let acked = a.rs.acked_sacked;
        let mut cwnd = w.cwnd;
        if a.rs.losses > 0 {
            cwnd = cwnd.saturating_sub(a.rs.losses).max(w.mss);
        }
        if a.state == CaState::Recovery && self.prev_state != CaState::Recovery {
            // First round of recovery: send one for one acknowledged.
            self.packet_conservation = true;
            self.next_round_delivered = a.rs.delivered_total;
            cwnd = a.in_flight + acked;
        } else if self.prev_state >= CaState::Recovery && a.state < CaState::Recovery {
            cwnd = cwnd.max(self.prior_cwnd);
            self.packet_conservation = false;
        }
        self.prev_state = a.state;
        if self.packet_conservation {
            return (cwnd.max(a.in_flight + acked), true);
        }
        (cwnd, false)
    }

    fn set_cwnd(&mut self, w: &mut Window, a: &RateAck) {
        let mss = w.mss;
        let acked = a.rs.acked_sacked;
        let mut cwnd = w.cwnd;
        if acked > 0 {
            let conserving;
            (cwnd, conserving) = self.recover_or_restore(w, a);
            if !conserving {
                let target = self.target(self.cwnd_gain, mss);
                if self.full_bw_reached {
                    cwnd = (cwnd + acked).min(target);
                } else if cwnd < target || a.rs.delivered_total < INIT_CWND_SEGMENTS * mss {
                    cwnd += acked;
                }
                cwnd = cwnd.max(MIN_CWND_SEGMENTS * mss);
            }
        }
        if matches!(self.mode, Mode::ProbeRtt { .. }) {
            cwnd = cwnd.min(MIN_CWND_SEGMENTS * mss);
        }
        w.cwnd = cwnd;
    }
}

/// Before any bandwidth sample: Startup's gain over the initial window per
/// SRTT (1 ms without one, as Linux).
fn initial_pacing_rate(w: &Window, srtt: Option<Duration>) -> f64 {
    let rtt = srtt.map_or(1e-3, |d| d.as_secs_f64().max(1e-6));
    HIGH_GAIN * w.cwnd as f64 / rtt
}

impl CongestionControl for Bbr {
    /// The window follows the model (`on_rate_sample`), not ACK counting.
    fn on_ack(&mut self, _w: &mut Window, _ack: &Ack) {}

    /// Linux's `bbr_ssthresh`: note the cwnd to restore after recovery.
    /// The socket's own recovery window is overridden on this same ACK.
    fn on_congestion(&mut self, _now: Time, w: &Window, _flight: u64) -> u64 {
        self.save_cwnd(w.cwnd);
        self.prior_cwnd.max(2 * w.mss)
    }

    /// Linux's `bbr_set_state(TCP_CA_Loss)`: the pipe must be found full
    /// again, and the timeout closes a round.
    fn on_timeout(&mut self, now: Time, w: &Window, flight: u64) -> u64 {
        let ssthresh = self.on_congestion(now, w, flight);
        self.prev_state = CaState::Loss;
        self.full_bw = 0.0;
        self.round_start = true;
        ssthresh
    }

    /// Linux's `tcp_bbr` ignores ECE.
    fn responds_to_ecn(&self) -> bool {
        false
    }

    fn wants_rate_samples(&self) -> bool {
        true
    }

    /// Linux's `bbr_main`: update the model, then pacing rate and cwnd.
    fn on_rate_sample(&mut self, w: &mut Window, a: &RateAck) {
        self.update_bw(a);
        self.update_cycle_phase(a, w.mss);
        self.check_full_pipe(a);
        self.check_drain(w, a);
        self.update_min_rtt(w, a);
        self.update_gains();
        self.set_pacing_rate(w, a);
        self.set_cwnd(w, a);
    }

    fn pacing_rate(&self, w: &Window, srtt: Option<Duration>) -> Option<f64> {
        Some(
            self.pacing_rate
                .unwrap_or_else(|| initial_pacing_rate(w, srtt)),
        )
    }

    fn holds_app_limited(&self) -> bool {
        self.hold_app_limited
    }
}

#[cfg(test)]
mod tests;
