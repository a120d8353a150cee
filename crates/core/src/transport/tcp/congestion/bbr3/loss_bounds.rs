//! BBRv3's model bounds learnt from loss (draft-ietf-ccwg-bbr-06
//! §5.5.10): the long-term `inflight_longterm` a probe found too high
//! (more than 2 % lost) and raised while probing up, and the short-term
//! `bw_shortterm` / `inflight_shortterm` cut by β per round with loss.

use super::*;

impl Bbr3 {
    /// §5.3.3.5 BBRRaiseInflightLongtermSlope: the step doubles each round.
    pub(super) fn raise_longterm_slope(&mut self, w: &Window) {
        let growth = 1u64 << self.up_rounds;
        self.up_rounds = (self.up_rounds + 1).min(MAX_UP_ROUNDS);
        let cwnd = self.cwnd.unwrap_or(w.cwnd);
        self.up_per_inc = (cwnd / growth).max(w.mss);
    }

    /// §5.3.3.5 BBRProbeInflightLongtermUpward.
    pub(super) fn probe_longterm_upward(&mut self, a: &RateAck, w: &Window) {
        let cwnd = self.cwnd.unwrap_or(w.cwnd);
        if !a.rs.cwnd_limited || cwnd < self.inflight_longterm {
            return;
        }
        self.up_acked += a.rs.acked_sacked;
        if self.up_acked >= self.up_per_inc {
            let k = self.up_acked / self.up_per_inc;
            self.up_acked -= k * self.up_per_inc;
            self.inflight_longterm = self.inflight_longterm.saturating_add(k * w.mss);
        }
        if self.round_start {
            self.raise_longterm_slope(w);
        }
    }

    /// IsInflightTooHigh: more than 2 % of the flight lost.
    pub(super) fn too_high(tx_in_flight: u64, lost: u64) -> bool {
        lost as f64 > LOSS_THRESH * tx_in_flight as f64
    }

    /// §5.5.10.2 BBRHandleInflightTooHigh.
    pub(super) fn handle_inflight_too_high(
        &mut self,
        now: Time,
        delivered: u64,
        tx_in_flight: u64,
        app_limited: bool,
        w: &Window,
    ) {
        self.prev_probe_too_high = true;
        self.bw_probe_samples = false; // react once per probe
        if !app_limited {
            let floor = scale(self.target_inflight(w) as f64, BETA);
            self.inflight_longterm = tx_in_flight.max(floor);
        }
        if self.mode == Mode::Up {
            self.start_down(now, delivered);
        }
    }

    /// §5.5.10.3 BBRNoteLoss.
    pub(super) fn note_loss(&mut self, delivered: u64) {
        if !self.loss_in_round {
            self.loss_round_delivered = delivered;
        }
        self.loss_in_round = true;
    }

    pub(super) fn reset_congestion_signals(&mut self) {
        self.loss_in_round = false;
        self.bw_latest = 0.0;
        self.inflight_latest = 0;
    }

    pub(super) fn reset_short_term_model(&mut self) {
        self.bw_shortterm = f64::INFINITY;
        self.inflight_shortterm = INF;
    }

    /// §5.5.3 BBRUpdateMaxBw and §5.5.10.3 BBRUpdateCongestionSignals.
    pub(super) fn update_congestion_signals(&mut self, a: &RateAck) {
        if a.rs.losses > 0 {
            self.loss_in_round = true;
        }
        if let Some(rate) = a.rs.rate() {
            if rate >= self.max_bw || !a.rs.app_limited {
                self.max_bw_hi[1] = self.max_bw_hi[1].max(rate);
                self.max_bw = self.max_bw_hi[0].max(self.max_bw_hi[1]);
            }
        }
        if !self.loss_round_start {
            return;
        }
        // BBRAdaptLowerBoundsFromCongestion, once per loss round.
        if !self.mode.probing() && self.loss_in_round {
            if self.bw_shortterm.is_infinite() {
                self.bw_shortterm = self.max_bw;
            }
            if self.inflight_shortterm == INF {
                self.inflight_shortterm = self.cwnd.unwrap_or(0);
            }
            self.bw_shortterm = self.bw_latest.max(BETA * self.bw_shortterm);
            self.inflight_shortterm = self
                .inflight_latest
                .max(scale(self.inflight_shortterm as f64, BETA));
        }
        self.loss_in_round = false;
    }

    /// §5.3.3.9 BBRAdaptLongTermModel; whether it changed the state.
    pub(super) fn adapt_long_term_model(&mut self, a: &RateAck, w: &Window) -> bool {
        if self.ack_phase == AckPhase::ProbeStarting && self.round_start {
            self.ack_phase = AckPhase::ProbeFeedback;
        }
        if self.ack_phase == AckPhase::ProbeStopping && self.round_start {
            self.bw_probe_samples = false;
            self.ack_phase = AckPhase::Init;
            if self.mode.in_probe_bw() && !a.rs.app_limited {
                self.advance_max_bw_filter();
            }
            // §5.3.3.6: a precautionary probe without excess loss: probe
            // again at once.
            if self.mode.in_probe_bw() && self.prev_probe_precautionary && !self.prev_probe_too_high
            {
                self.start_refill(a.rs.delivered_total);
                return true;
            }
        }
        if Self::too_high(a.rs.tx_in_flight, a.rs.lost) || self.inflight_longterm == INF {
            return false;
        }
        if a.rs.tx_in_flight > self.inflight_longterm {
            self.inflight_longterm = a.rs.tx_in_flight;
        }
        if self.mode == Mode::Up {
            self.probe_longterm_upward(a, w);
        }
        false
    }
}
