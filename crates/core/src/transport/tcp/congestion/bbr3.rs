//! BBRv3 (draft-ietf-ccwg-bbr-06; Linux `tcp_bbr.c` v3 of google/bbr):
//! a model of the path from delivery-rate samples, bounded by what loss
//! says. The model: `max_bw`, the largest delivery rate of the current and
//! previous ProbeBW cycle (§5.5.3–5.5.6), `min_rtt`, the smallest RTT of
//! 10 s (§5.3.4.3), their product the BDP; two bounds learnt from loss:
//! `inflight_longterm` (Linux `inflight_hi`), the flight at which a probe
//! saw more than 2 % loss (§5.5.10.2), and the short-term `bw_shortterm` /
//! `inflight_shortterm` (Linux `bw_lo` / `inflight_lo`), cut by β = 0.7 per
//! round trip with loss while not probing (§5.5.10.3). The sender paces at
//! 0.99·gain·bw and keeps at most gain·BDP (+ an ACK-aggregation allowance,
//! §5.5.9) in flight, capped by the bounds (§5.6).
//!
//! States (§4, §5.3): Startup (pacing 2.77, cwnd 2) until the rate grew
//! less than 25 % in 3 rounds or a round of recovery lost more than 2 %;
//! Drain (pacing 0.5) until the flight is down to a BDP, at most 3 rounds;
//! ProbeBW cycling DOWN (0.9) → CRUISE (1.0) → REFILL (1.0, one round) →
//! UP (1.25, cwnd 2.25) every 2–3 s (or fewer rounds on short paths, the
//! Reno-coexistence bound of 63 rounds or a BDP in segments); ProbeRTT
//! (cwnd 0.5·BDP for max(200 ms, one round)) when the RTT went 5 s without
//! a new low.
//!
//! Where the draft and Linux differ the draft is followed, except where
//! noted at the spot: the full-pipe test at round starts (draft), Drain
//! and CRUISE judged on the flight after the ACK against `bw` (draft),
//! strict `<` for a new minimum RTT (draft), the InflightAtLoss prefix
//! clamped at 0 (Linux), the Reno round bound in segments (Linux; the
//! draft compares bytes), TargetInflight = min(Inflight(bw, 1), cwnd)
//! (Linux), Startup's loss exit counting ACKs that reported losses
//! (Linux; satcc has no SACK-range count per round), UP ending on the
//! flight before the ACK (Linux's `prior_in_flight`, since satcc sends
//! after the ACK is processed). DOWN's pacing gain is the draft's 0.90
//! (Linux 0.91), the loss threshold 2 % (Linux 1.95 %).
//!
//! The controller keeps its own cwnd, as Linux's `cong_control` does: the
//! socket's recovery rules (PRR, RFC 6675's cwnd = ssthresh) are
//! overridden on the next ACK; fast recovery does not cut it (no packet
//! conservation), an RTO leaves one segment and the cwnd before the loss
//! is restored when recovery ends.
//!
//! Left out: the ECN response (Linux A only, and only below 5 ms RTT),
//! spurious-recovery undo (§5.5.11; satcc detects no spurious recovery),
//! the TLP-repair sample, the "any loss without SACK" rule of
//! IsInflightTooHigh, Linux's per-ACK too-high reaction (the draft reacts
//! per lost packet), TSO sizing (satcc sends one segment per departure:
//! the send quantum only sets the offload floor of 3 quanta, §5.6.3), the
//! earliest-departure-time flight correction, the app-limited fast path,
//! Linux's 100 ms cap on the ACK-aggregation allowance and PLB.
//!
//! Losses reach the controller when the socket retransmits a segment
//! (`rate.rs`), a little later than Linux's marking.
//!
//! The states' rules are in the submodules: `startup` (Startup, Drain),
//! `probe_bw` (the ProbeBW cycle), `probe_rtt` (min_rtt, ProbeRTT) and
//! `loss_bounds` (the model's long- and short-term bounds).

use super::bbr::MaxFilter;
use super::{Ack, CaState, CongestionControl, RateAck, Window};
use crate::engine::{Duration, RngStream, Time};
use crate::transport::tcp::rate::LostSegment;

/// Startup's pacing gain, 4 ln 2 (§2.5).
pub(crate) const STARTUP_PACING_GAIN: f64 = 2.77;
/// The cwnd gain of every state but UP and ProbeRTT (§2.6).
pub(crate) const DEFAULT_CWND_GAIN: f64 = 2.0;
/// Drain's pacing gain (§5.3.2; 0.35 in draft -04, 1/2.885 in Linux A).
pub(crate) const DRAIN_PACING_GAIN: f64 = 0.5;
/// Drain ends after this many rounds whatever the flight (§5.3.2).
pub(crate) const DRAIN_MAX_ROUNDS: u64 = 3;
/// ProbeBW_DOWN's pacing gain (§5.3.3.1; Linux 0.91).
pub(crate) const DOWN_PACING_GAIN: f64 = 0.9;
/// ProbeBW_UP's pacing gain (§5.3.3.5).
pub(crate) const UP_PACING_GAIN: f64 = 1.25;
/// ProbeBW_UP's cwnd gain (§5.3.3.5).
pub(crate) const UP_CWND_GAIN: f64 = 2.25;
/// ProbeRTT's cwnd, as a fraction of the BDP (§2.16.2).
pub(crate) const PROBE_RTT_CWND_GAIN: f64 = 0.5;
/// Paced 1 % below the estimate (§5.6.2).
pub(crate) const PACING_MARGIN: f64 = 0.01;
/// More lost than this fraction of what was in flight is "too high" (§2.8).
pub(crate) const LOSS_THRESH: f64 = 0.02;
/// The multiplicative cut of the short-term bounds per lossy round (§2.8).
pub(crate) const BETA: f64 = 0.7;
/// Room left under inflight_longterm while cruising (§2.8).
pub(crate) const HEADROOM: f64 = 0.15;
/// Smallest cwnd, segments (§2.8).
pub(crate) const MIN_PIPE_SEGMENTS: u64 = 4;
/// Full pipe: the rate grew less than this per round ...
pub(crate) const FULL_BW_GROWTH: f64 = 1.25;
/// ... for this many rounds (§5.3.1.2).
pub(crate) const FULL_BW_ROUNDS: u32 = 3;
/// Startup's loss exit: this many ACKs reporting losses in a loss round.
pub(crate) const STARTUP_FULL_LOSS_COUNT: u32 = 6;
/// min_rtt's window (§2.9.2).
pub(crate) const MIN_RTT_WINDOW: Duration = Duration::from_millis(10_000);
/// ProbeRTT when the RTT went this long without a new low (§2.16.2).
pub(crate) const PROBE_RTT_INTERVAL: Duration = Duration::from_millis(5_000);
/// Shortest stay in ProbeRTT at its cwnd (§2.16.2).
pub(crate) const PROBE_RTT_DURATION: Duration = Duration::from_millis(200);
/// extra_acked's window once the pipe is full, rounds (§2.12).
pub(crate) const EXTRA_ACKED_ROUNDS: u64 = 10;
/// The wall-clock wait between probes is this plus U[0, 1) s (§5.3.3.8.3).
pub(crate) const PROBE_WAIT_BASE: Duration = Duration::from_millis(2_000);
/// The Reno-coexistence bound on rounds between probes (§5.3.3.8).
pub(crate) const MAX_PROBE_ROUNDS: u64 = 63;
/// Largest send quantum (§5.6.3).
const MAX_SEND_QUANTUM: u64 = 64 * 1024;
/// Doublings of the inflight_longterm growth step, at most (§5.3.3.5).
const MAX_UP_ROUNDS: u32 = 30;
/// "Infinite" for byte bounds.
const INF: u64 = u64::MAX;

/// The states (§4), ProbeBW's four phases each a state.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    Startup,
    Drain,
    Down,
    Cruise,
    Refill,
    Up,
    ProbeRtt,
}

impl Mode {
    fn in_probe_bw(self) -> bool {
        matches!(self, Mode::Down | Mode::Cruise | Mode::Refill | Mode::Up)
    }

    /// §5.5.10.3 IsProbingBW: no short-term cut while probing.
    fn probing(self) -> bool {
        matches!(self, Mode::Startup | Mode::Refill | Mode::Up)
    }

    /// (pacing gain, cwnd gain).
    fn gains(self) -> (f64, f64) {
        match self {
            Mode::Startup => (STARTUP_PACING_GAIN, DEFAULT_CWND_GAIN),
            Mode::Drain => (DRAIN_PACING_GAIN, DEFAULT_CWND_GAIN),
            Mode::Down => (DOWN_PACING_GAIN, DEFAULT_CWND_GAIN),
            Mode::Cruise | Mode::Refill => (1.0, DEFAULT_CWND_GAIN),
            Mode::Up => (UP_PACING_GAIN, UP_CWND_GAIN),
            Mode::ProbeRtt => (1.0, PROBE_RTT_CWND_GAIN),
        }
    }
}

/// Where the ACKs of a bandwidth probe stand (§5.3.3.9 `ack_phase`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum AckPhase {
    Init,
    Refilling,
    ProbeStarting,
    ProbeFeedback,
    ProbeStopping,
}

/// The controller.
#[derive(Debug)]
pub(crate) struct Bbr3 {
    pub(crate) mode: Mode,
    /// Its own cwnd (None until the first ACK: the socket's initial one).
    cwnd: Option<u64>,
    /// The socket's initial cwnd (`InitialCwnd`).
    init_cwnd: Option<u64>,
    pub(crate) round_count: u64,
    next_round_delivered: u64,
    pub(crate) round_start: bool,
    /// max_bw's two slots: the previous and the current ProbeBW cycle.
    max_bw_hi: [f64; 2],
    pub(crate) max_bw: f64,
    /// min(max_bw, bw_shortterm): the rate the model uses.
    pub(crate) bw: f64,
    pub(crate) bw_shortterm: f64,
    pub(crate) inflight_shortterm: u64,
    pub(crate) inflight_longterm: u64,
    pub(crate) bw_latest: f64,
    pub(crate) inflight_latest: u64,
    loss_round_delivered: u64,
    pub(crate) loss_round_start: bool,
    pub(crate) loss_in_round: bool,
    loss_events_in_round: u32,
    pub(crate) min_rtt: Option<Duration>,
    min_rtt_stamp: Time,
    probe_rtt_min: Option<Duration>,
    probe_rtt_min_stamp: Time,
    probe_rtt_expired: bool,
    full_bw: f64,
    full_bw_count: u32,
    full_bw_now: bool,
    pub(crate) full_bw_reached: bool,
    pub(crate) pacing_rate: Option<f64>,
    send_quantum: u64,
    pub(crate) extra_acked: u64,
    extra_acked_filter: MaxFilter,
    extra_acked_start: Time,
    extra_acked_delivered: u64,
    // ProbeBW
    pub(crate) cycle_stamp: Time,
    pub(crate) bw_probe_wait: Duration,
    pub(crate) rounds_since_probe: u64,
    pub(crate) ack_phase: AckPhase,
    pub(crate) prev_probe_too_high: bool,
    pub(crate) prev_probe_precautionary: bool,
    pub(crate) bw_probe_samples: bool,
    up_rounds: u32,
    up_acked: u64,
    up_per_inc: u64,
    drain_start_round: u64,
    // ProbeRTT
    probe_rtt_done: Option<Time>,
    probe_rtt_round_done: bool,
    pub(crate) idle_restart: bool,
    /// cwnd before the last loss or ProbeRTT, to restore.
    pub(crate) prior_cwnd: u64,
    prev_state: CaState,
    started: bool,
    /// `C.delivered` at the last ACK.
    delivered: u64,
    rng: RngStream,
}

impl Clone for Bbr3 {
    fn clone(&self) -> Bbr3 {
        Bbr3 {
            rng: self.rng.clone(),
            ..*self
        }
    }
}

impl Default for Bbr3 {
    fn default() -> Bbr3 {
        Bbr3::new(RngStream::new(0, "bbr3"))
    }
}

/// x·g in bytes, rounded.
fn scale(x: f64, g: f64) -> u64 {
    (x * g).round() as u64
}

impl Bbr3 {
    /// A controller drawing its probe waits from `rng` (§5.2.1 `BBROnInit`).
    pub(crate) fn new(rng: RngStream) -> Bbr3 {
        Bbr3 {
            mode: Mode::Startup,
            cwnd: None,
            init_cwnd: None,
            round_count: 0,
            next_round_delivered: 0,
            round_start: false,
            max_bw_hi: [0.0; 2],
            max_bw: 0.0,
            bw: 0.0,
            bw_shortterm: f64::INFINITY,
            inflight_shortterm: INF,
            inflight_longterm: INF,
            bw_latest: 0.0,
            inflight_latest: 0,
            loss_round_delivered: 0,
            loss_round_start: false,
            loss_in_round: false,
            loss_events_in_round: 0,
            min_rtt: None,
            min_rtt_stamp: Time::ZERO,
            probe_rtt_min: None,
            probe_rtt_min_stamp: Time::ZERO,
            probe_rtt_expired: false,
            full_bw: 0.0,
            full_bw_count: 0,
            full_bw_now: false,
            full_bw_reached: false,
            pacing_rate: None,
            send_quantum: 0,
            extra_acked: 0,
            extra_acked_filter: MaxFilter::default(),
            extra_acked_start: Time::ZERO,
            extra_acked_delivered: 0,
            cycle_stamp: Time::ZERO,
            bw_probe_wait: Duration::ZERO,
            rounds_since_probe: 0,
            ack_phase: AckPhase::Init,
            prev_probe_too_high: false,
            prev_probe_precautionary: false,
            bw_probe_samples: false,
            up_rounds: 0,
            up_acked: 0,
            up_per_inc: INF,
            drain_start_round: 0,
            probe_rtt_done: None,
            probe_rtt_round_done: false,
            idle_restart: false,
            prior_cwnd: 0,
            prev_state: CaState::Open,
            started: false,
            delivered: 0,
            rng,
        }
    }

    pub(crate) fn seed(&mut self, rng: RngStream) {
        self.rng = rng;
    }

    pub(crate) fn pacing_gain(&self) -> f64 {
        self.mode.gains().0
    }

    pub(crate) fn cwnd_gain(&self) -> f64 {
        self.mode.gains().1
    }

    // ----- the model's quantities (§5.6.4.2) -----

    /// BBRBDPMultiple: gain·bw·min_rtt, InitialCwnd before any RTT.
    fn bdp_multiple(&self, bw: f64, gain: f64, w: &Window) -> u64 {
        match self.min_rtt {
            None => self.init_cwnd.unwrap_or(10 * w.mss),
            Some(rtt) => scale(bw * rtt.as_secs_f64(), gain),
        }
    }

    /// BBRQuantizationBudget: at least the offload budget (3 send quanta)
    /// and 4 segments, 2 segments more in UP.
    fn quantization_budget(&self, inflight: u64, mss: u64) -> u64 {
        let offload = 3 * self.send_quantum.max(2 * mss);
        let q = inflight.max(offload).max(MIN_PIPE_SEGMENTS * mss);
        if self.mode == Mode::Up {
            q.saturating_add(2 * mss)
        } else {
            q
        }
    }

    /// BBRInflight(bw, gain).
    pub(crate) fn inflight(&self, bw: f64, gain: f64, w: &Window) -> u64 {
        self.quantization_budget(self.bdp_multiple(bw, gain, w), w.mss)
    }

    /// The cwnd the model allows (§5.6.4.2 BBRUpdateMaxInflight).
    pub(crate) fn max_inflight(&self, w: &Window) -> u64 {
        let x = self
            .bdp_multiple(self.bw, self.cwnd_gain(), w)
            .saturating_add(self.extra_acked);
        self.quantization_budget(x, w.mss)
    }

    /// TargetInflight: min(Inflight(bw, 1), cwnd) (Linux's `bbr_target_inflight`;
    /// the draft takes the bare BDP).
    fn target_inflight(&self, w: &Window) -> u64 {
        self.inflight(self.bw, 1.0, w)
            .min(self.cwnd.unwrap_or(w.cwnd))
    }

    /// BBRInflightWithHeadroom: inflight_longterm less 15 % (≥ 1 segment),
    /// at least 4 segments.
    pub(crate) fn inflight_with_headroom(&self, mss: u64) -> u64 {
        if self.inflight_longterm == INF {
            return INF;
        }
        let lt = self.inflight_longterm;
        let headroom = mss.max(scale(lt as f64, HEADROOM));
        lt.saturating_sub(headroom).max(MIN_PIPE_SEGMENTS * mss)
    }

    // ----- the state machine's steps -----

    /// BBRStartRound: the round ends when a segment sent after now is
    /// acknowledged.
    fn start_round(&mut self, delivered: u64) {
        self.next_round_delivered = delivered;
    }

    fn reset_full_bw(&mut self) {
        self.full_bw = 0.0;
        self.full_bw_count = 0;
        self.full_bw_now = false;
    }

    // ----- per ACK (§5.2.3 BBRUpdateOnACK) -----

    /// §5.5.1 BBRUpdateRound, on valid samples (as Linux).
    fn update_round(&mut self, a: &RateAck) {
        self.round_start = false;
        if a.rs.rate().is_some() && a.rs.prior_delivered >= self.next_round_delivered {
            self.next_round_delivered = a.rs.delivered_total;
            self.round_count += 1;
            self.rounds_since_probe += 1;
            self.round_start = true;
        }
    }

    /// §5.5.10.3 BBRUpdateLatestDeliverySignals.
    fn update_latest_delivery_signals(&mut self, a: &RateAck) {
        self.loss_round_start = false;
        let Some(rate) = a.rs.rate() else {
            return;
        };
        self.bw_latest = self.bw_latest.max(rate);
        self.inflight_latest = self.inflight_latest.max(a.rs.delivered);
        if a.rs.prior_delivered >= self.loss_round_delivered {
            self.loss_round_delivered = a.rs.delivered_total;
            self.loss_round_start = true;
        }
    }

    fn advance_latest_delivery_signals(&mut self, a: &RateAck) {
        if self.loss_round_start {
            if let Some(rate) = a.rs.rate() {
                self.bw_latest = rate;
                self.inflight_latest = a.rs.delivered;
            }
        }
    }

    /// §5.5.6: forget the cycle before last.
    fn advance_max_bw_filter(&mut self) {
        if self.max_bw_hi[1] > 0.0 {
            self.max_bw_hi = [self.max_bw_hi[1], 0.0];
        }
        self.max_bw = self.max_bw_hi[0].max(self.max_bw_hi[1]);
    }

    /// §5.5.9 BBRUpdateACKAggregation (the draft's 10-round filter, 1 round
    /// in Startup; no 100 ms cap).
    fn update_ack_aggregation(&mut self, a: &RateAck) {
        let interval = a.now.since(self.extra_acked_start).as_secs_f64();
        let mut expected = (self.bw * interval) as u64;
        if self.extra_acked_delivered <= expected {
            self.extra_acked_delivered = 0;
            self.extra_acked_start = a.now;
            expected = 0;
        }
        self.extra_acked_delivered += a.rs.acked_sacked;
        let cwnd = self.cwnd.unwrap_or(0);
        let extra =
            (self.extra_acked_delivered - expected.min(self.extra_acked_delivered)).min(cwnd);
        let len = if self.full_bw_reached {
            EXTRA_ACKED_ROUNDS
        } else {
            1
        };
        self.extra_acked = self
            .extra_acked_filter
            .update(len, self.round_count, extra as f64) as u64;
    }

    // ----- the controls (§5.6) -----

    /// §5.6.2: 0.99·gain·bw; before the pipe is full it only rises.
    fn set_pacing_rate_with_gain(&mut self, gain: f64) {
        let rate = gain * self.bw * (1.0 - PACING_MARGIN);
        if self.full_bw_reached || self.pacing_rate.is_none_or(|r| rate > r) {
            self.pacing_rate = Some(rate);
        }
    }

    /// §5.6.3: 1 ms at the pacing rate, 2 segments to 64 KB.
    fn set_send_quantum(&mut self, mss: u64) {
        let q = (self.pacing_rate.unwrap_or(0.0) * 1e-3) as u64;
        self.send_quantum = q.clamp(2 * mss, MAX_SEND_QUANTUM.max(2 * mss));
    }

    /// §5.6.4.6 BBRSetCwnd and §5.6.4.7 BBRBoundCwndForModel.
    fn set_cwnd(&mut self, w: &Window, a: &RateAck) -> u64 {
        let mss = w.mss;
        let mut cwnd = self.cwnd.unwrap_or(w.cwnd);
        let acked = a.rs.acked_sacked;
        if acked > 0 {
            let max_inflight = self.max_inflight(w);
            let init = self.init_cwnd.unwrap_or(10 * mss);
            if self.full_bw_reached {
                cwnd = cwnd.saturating_add(acked).min(max_inflight);
            } else if cwnd < max_inflight || a.rs.delivered_total < init {
                cwnd = cwnd.saturating_add(acked);
            }
            cwnd = cwnd.max(MIN_PIPE_SEGMENTS * mss);
        }
        if self.mode == Mode::ProbeRtt {
            cwnd = cwnd.min(self.probe_rtt_cwnd(w));
        }
        let cap = match self.mode {
            Mode::Down | Mode::Refill | Mode::Up => self.inflight_longterm,
            Mode::Cruise | Mode::ProbeRtt => self.inflight_with_headroom(mss),
            Mode::Startup | Mode::Drain => INF,
        };
        let cap = cap
            .min(self.inflight_shortterm)
            .max(MIN_PIPE_SEGMENTS * mss);
        cwnd.min(cap)
    }

    /// Recovery's and the RTO's ends (§5.6.4.4): the cwnd before the loss
    /// comes back (then the model bounds it).
    fn note_ca_state(&mut self, a: &RateAck) {
        if self.prev_state >= CaState::Recovery && a.state < CaState::Recovery {
            self.restore_cwnd();
        }
        self.prev_state = a.state;
    }
}

/// Before any bandwidth sample: Startup's gain over the initial window per
/// SRTT, 1 ms without one (§5.6.2 BBRInitPacingRate; no margin, as the
/// draft).
fn initial_pacing_rate(cwnd: u64, srtt: Option<Duration>) -> f64 {
    let rtt = srtt.map_or(1e-3, |d| d.as_secs_f64().max(1e-6));
    STARTUP_PACING_GAIN * cwnd as f64 / rtt
}

impl CongestionControl for Bbr3 {
    /// The window follows the model (`on_rate_sample`), not ACK counting.
    fn on_ack(&mut self, _w: &mut Window, _ack: &Ack) {}

    /// §5.6.4.4 on entering fast recovery: note the cwnd to restore; no cut
    /// (the socket sets cwnd = the value returned, and the model's own on
    /// the same ACK).
    fn on_congestion(&mut self, _now: Time, w: &Window, _flight: u64) -> u64 {
        let cwnd = self.cwnd.unwrap_or(w.cwnd);
        self.save_cwnd(cwnd);
        cwnd
    }

    /// §5.6.4.4 on a retransmission timeout (with Linux's `bbr_set_state`):
    /// the pipe must be found full again, the short-term flight bound
    /// starts from the cwnd before the loss, cwnd is one segment.
    fn on_timeout(&mut self, _now: Time, w: &Window, _flight: u64) -> u64 {
        let cwnd = self.cwnd.unwrap_or(w.cwnd);
        self.save_cwnd(cwnd);
        self.prev_state = CaState::Loss;
        self.reset_full_bw();
        if !self.mode.probing() && self.inflight_shortterm == INF {
            self.inflight_shortterm = cwnd.max(self.prior_cwnd);
        }
        self.cwnd = Some(w.mss);
        w.ssthresh
    }

    /// BBRv3's ECN response (Linux's, below 5 ms RTT) is left out.
    fn responds_to_ecn(&self) -> bool {
        false
    }

    fn wants_rate_samples(&self) -> bool {
        true
    }

    fn wants_lost_segments(&self) -> bool {
        true
    }

    /// §5.5.10.2 BBRHandleLostPacket: note the loss; a probe's segment lost
    /// with more than 2 % of its flight marks the flight at which the loss
    /// rate crossed 2 % (BBRInflightAtLoss) as inflight_longterm.
    fn on_lost_segment(&mut self, now: Time, w: &Window, l: &LostSegment) {
        self.note_loss(l.delivered_total);
        if !self.bw_probe_samples {
            return;
        }
        let tx = l.tx_in_flight;
        let lost = l.lost_total - l.lost_at_send;
        if !Self::too_high(tx, lost) {
            return;
        }
        let prev = tx.saturating_sub(l.len) as f64;
        let lost_prev = lost.saturating_sub(l.len) as f64;
        // Linux clamps a negative prefix (the threshold was crossed before
        // this segment) at 0; the draft's formula has no clamp.
        let prefix = ((LOSS_THRESH * prev - lost_prev) / (1.0 - LOSS_THRESH)).max(0.0);
        let at_loss = (prev + prefix).round() as u64;
        self.handle_inflight_too_high(now, l.delivered_total, at_loss, l.app_limited, w);
    }

    /// §5.2.3 BBRUpdateOnACK: the model, then pacing rate and cwnd.
    fn on_rate_sample(&mut self, w: &mut Window, a: &RateAck) {
        if !self.started {
            self.started = true;
            self.init_cwnd = Some(w.cwnd);
            self.cwnd = Some(self.cwnd.unwrap_or(w.cwnd));
            self.min_rtt_stamp = a.now;
            self.probe_rtt_min_stamp = a.now;
            self.extra_acked_start = a.now;
            self.cycle_stamp = a.now;
        }
        if self.pacing_rate.is_none() && a.srtt.is_some() {
            let init = self.init_cwnd.unwrap_or(w.cwnd);
            self.pacing_rate = Some(initial_pacing_rate(init, a.srtt));
        }
        self.delivered = a.rs.delivered_total;
        self.note_ca_state(a);
        self.update_round(a);
        self.update_latest_delivery_signals(a);
        self.update_congestion_signals(a);
        self.update_ack_aggregation(a);
        self.check_full_bw_reached(a);
        self.check_startup_done(w, a);
        self.check_drain_done(w, a);
        self.update_probe_bw_cycle_phase(a, w);
        self.update_min_rtt(a);
        self.check_probe_rtt(a, w);
        self.advance_latest_delivery_signals(a);
        // BBRBoundBWForModel.
        self.bw = self.max_bw.min(self.bw_shortterm);
        self.set_pacing_rate_with_gain(self.pacing_gain());
        self.set_send_quantum(w.mss);
        let cwnd = self.set_cwnd(w, a);
        self.cwnd = Some(cwnd);
        w.cwnd = cwnd;
    }

    /// §5.4.1 BBRHandleRestartFromIdle: sending again after an idle,
    /// application-limited spell.
    fn on_tx_start(&mut self, now: Time, _w: &Window) {
        self.idle_restart = true;
        self.extra_acked_start = now;
        if self.mode.in_probe_bw() {
            self.set_pacing_rate_with_gain(1.0);
        } else if self.mode == Mode::ProbeRtt {
            self.check_probe_rtt_done(now, self.delivered);
        }
    }

    fn pacing_rate(&self, w: &Window, srtt: Option<Duration>) -> Option<f64> {
        Some(
            self.pacing_rate
                .unwrap_or_else(|| initial_pacing_rate(self.init_cwnd.unwrap_or(w.cwnd), srtt)),
        )
    }

    fn holds_app_limited(&self) -> bool {
        self.mode == Mode::ProbeRtt
    }
}

mod loss_bounds;
mod probe_bw;
mod probe_rtt;
mod startup;
#[cfg(test)]
mod tests;
