//! BBRv3's Startup and Drain (draft-ietf-ccwg-bbr-06 §5.3.1, §5.3.2): the
//! full-pipe test (the rate grew less than 25 % in 3 rounds, or a round
//! of recovery lost more than 2 %) and the drain of the queue Startup
//! built, down to a BDP in at most 3 rounds.

use super::*;

impl Bbr3 {
    pub(super) fn enter_startup(&mut self) {
        self.mode = Mode::Startup;
    }

    pub(super) fn enter_drain(&mut self, w: &mut Window) {
        self.mode = Mode::Drain;
        self.drain_start_round = self.round_count;
        self.reset_congestion_signals();
        // Linux notes the BDP as ssthresh (for monitoring only).
        w.ssthresh = self.inflight(self.max_bw, 1.0, w);
    }

    /// §5.3.1.2 BBRCheckFullBWReached (at round starts, on the raw sample).
    pub(super) fn check_full_bw_reached(&mut self, a: &RateAck) {
        if self.full_bw_now || !self.round_start || a.rs.app_limited {
            return;
        }
        let Some(rate) = a.rs.rate() else {
            return;
        };
        if rate >= self.full_bw * FULL_BW_GROWTH {
            self.reset_full_bw();
            self.full_bw = rate;
            return;
        }
        self.full_bw_count += 1;
        self.full_bw_now = self.full_bw_count >= FULL_BW_ROUNDS;
        if self.full_bw_now {
            self.full_bw_reached = true;
        }
    }

    /// §5.3.1.3 BBRCheckStartupHighLoss, counting ACKs that reported
    /// losses as Linux does; then Startup → Drain once the pipe is full.
    pub(super) fn check_startup_done(&mut self, w: &mut Window, a: &RateAck) {
        if !self.full_bw_reached {
            if a.rs.losses > 0 {
                self.loss_events_in_round = (self.loss_events_in_round + 1).min(15);
            }
            if self.loss_round_start
                && a.state == CaState::Recovery
                && self.loss_events_in_round >= STARTUP_FULL_LOSS_COUNT
                && Self::too_high(a.rs.tx_in_flight, a.rs.lost)
            {
                // BBRHandleQueueTooHighInStartup.
                self.full_bw_reached = true;
                self.inflight_longterm =
                    self.inflight(self.max_bw, 1.0, w).max(self.inflight_latest);
            }
            if self.loss_round_start {
                self.loss_events_in_round = 0;
            }
        }
        if self.mode == Mode::Startup && self.full_bw_reached {
            self.enter_drain(w);
        }
    }

    /// §5.3.2 BBRCheckDrainDone: the flight is down to a BDP, or 3 rounds.
    pub(super) fn check_drain_done(&mut self, w: &Window, a: &RateAck) {
        if self.mode == Mode::Drain
            && (a.in_flight <= self.inflight(self.bw, 1.0, w)
                || self.round_count > self.drain_start_round + DRAIN_MAX_ROUNDS)
        {
            self.start_down(a.now, a.rs.delivered_total);
        }
    }
}
