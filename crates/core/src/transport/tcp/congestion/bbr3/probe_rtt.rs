//! BBRv3's min_rtt estimate and ProbeRTT (draft-ietf-ccwg-bbr-06
//! §5.3.4): the 10 s minimum, the dip to half a BDP when the RTT went 5 s
//! without a new low, and the cwnd saved before it and restored after.

use super::*;

impl Bbr3 {
    /// ProbeRTT's cwnd: half a BDP, at least 4 segments (§5.6.4.5).
    pub(crate) fn probe_rtt_cwnd(&self, w: &Window) -> u64 {
        self.bdp_multiple(self.bw, PROBE_RTT_CWND_GAIN, w)
            .max(MIN_PIPE_SEGMENTS * w.mss)
    }

    /// §5.3.4.3 BBRUpdateMinRTT: a strictly lower RTT replaces at once
    /// (Linux: lower or equal); after 10 s the ProbeRTT minimum does.
    pub(super) fn update_min_rtt(&mut self, a: &RateAck) {
        let now = a.now;
        self.probe_rtt_expired = now > self.probe_rtt_min_stamp + PROBE_RTT_INTERVAL;
        if let Some(rtt) = a.rs.rtt {
            if self.probe_rtt_min.is_none_or(|m| rtt < m) || self.probe_rtt_expired {
                self.probe_rtt_min = Some(rtt);
                self.probe_rtt_min_stamp = now;
            }
        }
        let expired = now > self.min_rtt_stamp + MIN_RTT_WINDOW;
        if let Some(p) = self.probe_rtt_min {
            if self.min_rtt.is_none_or(|m| p < m) || expired {
                self.min_rtt = Some(p);
                self.min_rtt_stamp = self.probe_rtt_min_stamp;
            }
        }
    }

    /// §5.3.4.3 BBRCheckProbeRTT.
    pub(super) fn check_probe_rtt(&mut self, a: &RateAck, w: &Window) {
        if self.mode != Mode::ProbeRtt && self.probe_rtt_expired && !self.idle_restart {
            self.save_cwnd(self.cwnd.unwrap_or(w.cwnd));
            self.mode = Mode::ProbeRtt;
            self.probe_rtt_done = None;
            self.ack_phase = AckPhase::ProbeStopping;
            self.start_round(a.rs.delivered_total);
        }
        if self.mode == Mode::ProbeRtt {
            self.handle_probe_rtt(a, w);
        }
        if a.rs.delivered > 0 {
            self.idle_restart = false;
        }
    }

    pub(super) fn handle_probe_rtt(&mut self, a: &RateAck, w: &Window) {
        match self.probe_rtt_done {
            None if a.in_flight <= self.probe_rtt_cwnd(w) => {
                self.probe_rtt_done = Some(a.now + PROBE_RTT_DURATION);
                self.probe_rtt_round_done = false;
                self.start_round(a.rs.delivered_total);
            }
            None => {}
            Some(_) => {
                if self.round_start {
                    self.probe_rtt_round_done = true;
                }
                if self.probe_rtt_round_done {
                    self.check_probe_rtt_done(a.now, a.rs.delivered_total);
                }
            }
        }
    }

    pub(super) fn check_probe_rtt_done(&mut self, now: Time, delivered: u64) {
        if self.probe_rtt_done.is_some_and(|t| now > t) {
            self.probe_rtt_min_stamp = now; // the next ProbeRTT in 5 s
            self.restore_cwnd();
            // BBRExitProbeRTT.
            self.reset_short_term_model();
            if self.full_bw_reached {
                self.start_down(now, delivered);
                self.start_cruise();
            } else {
                self.enter_startup();
            }
        }
    }

    pub(super) fn save_cwnd(&mut self, cwnd: u64) {
        if self.prev_state < CaState::Recovery && self.mode != Mode::ProbeRtt {
            self.prior_cwnd = cwnd;
        } else {
            self.prior_cwnd = self.prior_cwnd.max(cwnd);
        }
    }

    pub(super) fn restore_cwnd(&mut self) {
        if let Some(c) = &mut self.cwnd {
            *c = (*c).max(self.prior_cwnd);
        }
    }
}
