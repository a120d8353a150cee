//! BBRv3's ProbeBW cycle (draft-ietf-ccwg-bbr-06 §5.3.3): DOWN, CRUISE,
//! REFILL and UP, when each phase ends, and the randomised wait between
//! bandwidth probes (Reno coexistence, §5.3.3.5).

use super::*;

impl Bbr3 {
    /// §5.3.3.8.3 BBRPickProbeWait.
    pub(super) fn pick_probe_wait(&mut self) {
        self.rounds_since_probe = self.rng.below(2);
        self.bw_probe_wait = PROBE_WAIT_BASE + Duration::from_secs_f64(self.rng.uniform());
    }

    pub(super) fn start_down(&mut self, now: Time, delivered: u64) {
        self.reset_congestion_signals();
        self.up_per_inc = INF;
        self.pick_probe_wait();
        self.cycle_stamp = now;
        self.ack_phase = AckPhase::ProbeStopping;
        self.start_round(delivered);
        self.mode = Mode::Down;
    }

    pub(super) fn start_cruise(&mut self) {
        self.mode = Mode::Cruise;
    }

    pub(super) fn start_refill(&mut self, delivered: u64) {
        self.reset_short_term_model();
        self.up_rounds = 0;
        self.up_acked = 0;
        self.prev_probe_precautionary = false;
        self.ack_phase = AckPhase::Refilling;
        self.start_round(delivered);
        self.mode = Mode::Refill;
    }

    pub(super) fn start_up(&mut self, a: &RateAck, w: &Window) {
        self.ack_phase = AckPhase::ProbeStarting;
        self.start_round(a.rs.delivered_total);
        self.reset_full_bw();
        self.full_bw = a.rs.rate().unwrap_or(0.0);
        self.mode = Mode::Up;
        self.raise_longterm_slope(w);
    }

    /// §5.3.3.8 BBRIsTimeToProbeBW (starts REFILL if so).
    pub(super) fn time_to_probe(&mut self, a: &RateAck, w: &Window) -> bool {
        let waited = a.now > self.cycle_stamp + self.bw_probe_wait;
        // Linux counts the bound in segments (the draft's bytes are a slip).
        let reno_rounds = (self.target_inflight(w) / w.mss).min(MAX_PROBE_ROUNDS);
        if waited || self.rounds_since_probe >= reno_rounds {
            self.start_refill(a.rs.delivered_total);
            return true;
        }
        false
    }

    /// §5.3.3.9 BBRIsTimeToCruise.
    pub(super) fn time_to_cruise(&self, a: &RateAck, w: &Window) -> bool {
        a.in_flight <= self.inflight_with_headroom(w.mss)
            && a.in_flight <= self.inflight(self.max_bw, 1.0, w)
    }

    /// §5.3.3.9 BBRIsTimeToGoDown. The flight is the one before the ACK
    /// (Linux's `prior_in_flight`): satcc sends after the ACK is processed,
    /// so the flight after it is always below a full cwnd.
    pub(super) fn time_to_go_down(&mut self, a: &RateAck, w: &Window) -> bool {
        if self.prev_probe_too_high && a.prior_in_flight >= self.inflight_longterm {
            self.prev_probe_precautionary = true;
            return true;
        }
        let cwnd = self.cwnd.unwrap_or(w.cwnd);
        if a.rs.cwnd_limited && cwnd >= self.inflight_longterm {
            // The bound, not the path, limits the rate: keep probing.
            self.reset_full_bw();
            self.full_bw = a.rs.rate().unwrap_or(0.0);
        } else if self.full_bw_now {
            return true;
        }
        false
    }

    /// §5.3.3.9 BBRUpdateProbeBWCyclePhase.
    pub(super) fn update_probe_bw_cycle_phase(&mut self, a: &RateAck, w: &Window) {
        if !self.full_bw_reached || self.adapt_long_term_model(a, w) {
            return;
        }
        let mode = self.mode;
        match mode {
            Mode::Down if !self.time_to_probe(a, w) && self.time_to_cruise(a, w) => {
                self.start_cruise();
            }
            Mode::Cruise => {
                self.time_to_probe(a, w);
            }
            // REFILL lasts one round.
            Mode::Refill if self.round_start => {
                self.bw_probe_samples = true;
                self.start_up(a, w);
            }
            Mode::Up if self.time_to_go_down(a, w) => {
                self.prev_probe_too_high = false;
                self.start_down(a.now, a.rs.delivered_total);
            }
            _ => {}
        }
    }
}
