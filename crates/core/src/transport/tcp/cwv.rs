//! Congestion window validation: what a sender does with a congestion
//! window it has not been filling, because the application (or the receive
//! window) held it back or because it was idle.
//!
//! - `Off`: RFC 5681 §4.1 only: after an idle period longer than the RTO,
//!   cwnd restarts from min(IW, cwnd) (when `restart_after_idle`).
//! - `Rfc2861` (CWV, RFC 2861 §3–4; Historic since RFC 7661, but what Linux
//!   still does under `tcp_slow_start_after_idle`): after an idle period
//!   cwnd halves once per RTO that passed, not below the restart window;
//!   after each RTT in which the application limited the sender, cwnd moves
//!   half way down to the window actually used. Before either, ssthresh is
//!   raised to 3/4 of cwnd, so slow start can regain the old window.
//! - `Rfc7661` (new CWV, Experimental): cwnd is kept through a rate-limited
//!   or idle period of up to five minutes (the non-validated period, NVP),
//!   judged against pipeACK, the most data acknowledged in one round trip
//!   over the last max(3·SRTT, 1 s). A loss while the window is not
//!   validated leaves cwnd = (max(pipeACK, FlightSize) − R)/2 at the end of
//!   recovery (R: the data retransmitted), and a window left unvalidated
//!   for the whole NVP is halved (not below IW).
//!
//! In every mode cwnd grows only on ACKs that arrive while cwnd limits the
//! flight, except in RFC 7661's validated phase, where the standard rules
//! apply whatever limits the flight (RFC 7661 §4.3).

use super::congestion::Window;
use crate::engine::{Duration, Time};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// The rule a connection follows (`cwnd_validation` in a scenario).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Mode {
    #[default]
    Off,
    Rfc2861,
    Rfc7661,
}

/// RFC 7661 §4.4.2: how long a window may stay unvalidated.
pub(crate) const NVP: Duration = Duration::from_millis(300_000);

/// What the socket tells the validator about an opportunity to send.
#[derive(Copy, Clone, Debug)]
pub(crate) struct SendState {
    pub now: Time,
    /// The last attempt to send stopped at cwnd, not for want of data or
    /// of receive window.
    pub(crate) cwnd_limited: bool,
    /// Data outstanding after sending.
    pub(crate) flight: u64,
    pub(crate) srtt: Option<Duration>,
    pub(crate) rto: Duration,
    /// The peer's receive window.
    pub(crate) rwnd: u64,
    /// The initial window in bytes (RFC 5681's IW).
    pub(crate) iw: u64,
}

/// One connection's validator.
#[derive(Clone, Debug)]
pub(crate) enum Validator {
    Off,
    Rfc2861(Rfc2861),
    Rfc7661(NewCwv),
}

impl Validator {
    pub(crate) fn new(mode: Mode, now: Time) -> Validator {
        match mode {
            Mode::Off => Validator::Off,
            Mode::Rfc2861 => Validator::Rfc2861(Rfc2861::new(now)),
            Mode::Rfc7661 => Validator::Rfc7661(NewCwv::new(now)),
        }
    }

    /// The sender is about to send after `idle` with nothing outstanding.
    /// `restart_after_idle` switches the idle rules of `Off` and `Rfc2861`
    /// (RFC 7661 has its own).
    pub(crate) fn after_idle(
        &mut self,
        w: &mut Window,
        s: &SendState,
        idle: Duration,
        restart: bool,
    ) {
        match self {
            Validator::Off if restart && idle >= s.rto => {
                w.cwnd = w.cwnd.min(s.iw);
            }
            Validator::Off => {}
            Validator::Rfc2861(v) if restart => v.after_idle(w, s, idle),
            Validator::Rfc2861(_) => {}
            Validator::Rfc7661(v) => v.close_down(w, s),
        }
    }

    /// New data was just sent.
    pub(crate) fn after_send(&mut self, w: &mut Window, s: &SendState) {
        if let Validator::Rfc2861(v) = self {
            v.after_send(w, s);
        }
    }

    /// An ACK advanced snd_una to `ack` outside loss recovery, `snd_max`
    /// being the highest offset sent. Returns whether cwnd may grow on it.
    pub(crate) fn on_ack(&mut self, w: &mut Window, s: &SendState, ack: u64, snd_max: u64) -> bool {
        match self {
            Validator::Off | Validator::Rfc2861(_) => s.cwnd_limited,
            Validator::Rfc7661(v) => {
                v.sample(s, ack, snd_max);
                v.close_down(w, s);
                s.cwnd_limited || v.validated(s.now, w.cwnd, s.srtt)
            }
        }
    }

    /// Fast retransmit: loss recovery begins with `flight` outstanding;
    /// `retransmitted` counts the bytes resent so far on the connection.
    pub(crate) fn on_recovery_start(&mut self, w: &Window, s: &SendState, retransmitted: u64) {
        if let Validator::Rfc7661(v) = self {
            v.on_recovery_start(w, s, retransmitted);
        }
    }

    /// Loss recovery has ended; may set cwnd and ssthresh again.
    pub(crate) fn on_recovery_end(&mut self, w: &mut Window, retransmitted: u64) {
        if let Validator::Rfc7661(v) = self {
            v.on_recovery_end(w, retransmitted);
        }
    }

    /// The retransmission timer expired: the standard response applies
    /// and validation starts afresh.
    pub(crate) fn on_timeout(&mut self, now: Time) {
        match self {
            Validator::Off => {}
            Validator::Rfc2861(v) => v.restart_period(now),
            Validator::Rfc7661(v) => v.forget(),
        }
    }

    /// RFC 7661's pipeACK now, if defined (for tests).
    #[cfg(test)]
    pub(crate) fn pipe_ack(&self, now: Time, srtt: Option<Duration>) -> Option<u64> {
        match self {
            Validator::Rfc7661(v) => v.pipe_ack(now, srtt),
            _ => None,
        }
    }
}

/// RFC 2861's state: the start of the current application-limited period
/// and the largest flight in it.
#[derive(Clone, Debug)]
pub(crate) struct Rfc2861 {
    t_prev: Time,
    w_used: u64,
}

impl Rfc2861 {
    fn new(now: Time) -> Rfc2861 {
        Rfc2861 {
            t_prev: now,
            w_used: 0,
        }
    }

    /// RFC 2861 §4: halve min(cwnd, rwnd) once per RTO of idleness, not
    /// below the restart window min(IW, cwnd) (RFC 5681 §4.1's RW, the
    /// floor Linux's `tcp_cwnd_restart` keeps too).
    fn after_idle(&mut self, w: &mut Window, s: &SendState, idle: Duration) {
        if idle < s.rto || s.rto.ps() == 0 {
            return;
        }
        let restart_window = s.iw.min(w.cwnd);
        w.ssthresh = w.ssthresh.max(3 * w.cwnd / 4);
        let mut periods = idle.ps() / s.rto.ps();
        while periods > 0 && w.cwnd > restart_window {
            w.cwnd = (w.cwnd.min(s.rwnd) / 2).max(restart_window);
            periods -= 1;
        }
        self.restart_period(s.now);
    }

    /// RFC 2861 §4, after a segment is sent: while cwnd limits the sender
    /// the period restarts; otherwise, once a round trip has passed
    /// application-limited, cwnd = (cwnd + W_used)/2.
    fn after_send(&mut self, w: &mut Window, s: &SendState) {
        if s.cwnd_limited {
            self.restart_period(s.now);
            return;
        }
        self.w_used = self.w_used.max(s.flight);
        let Some(rtt) = s.srtt else { return };
        if s.now.since(self.t_prev) >= rtt {
            w.ssthresh = w.ssthresh.max(3 * w.cwnd / 4);
            w.cwnd = ((w.cwnd + self.w_used) / 2).max(w.mss);
            self.restart_period(s.now);
        }
    }

    fn restart_period(&mut self, now: Time) {
        self.t_prev = now;
        self.w_used = 0;
    }
}

/// RFC 7661's state.
#[derive(Clone, Debug)]
pub(crate) struct NewCwv {
    /// pipeACK samples in the sampling period: (when taken, bytes).
    samples: VecDeque<(Time, u64)>,
    /// False until the first sample, and again after a loss in the NVP or a
    /// timeout (RFC 7661 §4.1: an undefined pipeACK validates cwnd).
    defined: bool,
    /// The round trip being measured (RFC 7661 §4.2's HighACK method):
    /// HighACK when it began and the highest offset sent then; it ends
    /// when that offset is acknowledged.
    round: Option<(u64, u64)>,
    /// The last time cwnd was found validated.
    validated_at: Time,
    /// A loss met in the NVP: pipeACK and FlightSize then, and the bytes
    /// retransmitted before it.
    loss: Option<NvpLoss>,
}

#[derive(Copy, Clone, Debug)]
struct NvpLoss {
    pipe_ack: u64,
    flight: u64,
    retransmitted_before: u64,
}

impl NewCwv {
    fn new(now: Time) -> NewCwv {
        NewCwv {
            samples: VecDeque::new(),
            defined: false,
            round: None,
            validated_at: now,
            loss: None,
        }
    }

    /// The pipeACK Sampling Period, max(3·SRTT, 1 s) (RFC 7661 §4.2).
    fn sampling_period(srtt: Option<Duration>) -> Duration {
        let one_second = Duration::from_millis(1000);
        match srtt {
            Some(r) => Duration(3 * r.ps()).max(one_second),
            None => one_second,
        }
    }

    /// Ends the current round trip when its last byte is acknowledged and
    /// records what it delivered as a pipeACK sample.
    fn sample(&mut self, s: &SendState, ack: u64, snd_max: u64) {
        match self.round {
            None => self.round = Some((ack, snd_max)),
            Some((start, end)) => {
                // A round that began with nothing in flight ends with the
                // data sent after it, not on the first ACK that follows.
                let end = if end == start { snd_max } else { end };
                if ack >= end {
                    self.samples.push_back((s.now, ack - start));
                    self.defined = true;
                    self.round = Some((ack, snd_max));
                } else {
                    self.round = Some((start, end));
                }
            }
        }
        let period = Self::sampling_period(s.srtt);
        while let Some(&(t, _)) = self.samples.front() {
            if s.now.since(t) <= period {
                break;
            }
            self.samples.pop_front();
        }
    }

    /// The largest sample within the sampling period; zero once every
    /// sample has aged out (an idle sender has delivered nothing lately).
    pub(crate) fn pipe_ack(&self, now: Time, srtt: Option<Duration>) -> Option<u64> {
        if !self.defined {
            return None;
        }
        let period = Self::sampling_period(srtt);
        let recent = self.samples.iter().filter(|(t, _)| now.since(*t) <= period);
        Some(recent.map(|&(_, b)| b).max().unwrap_or(0))
    }

    /// RFC 7661 §4.3: cwnd is validated while pipeACK ≥ cwnd/2, or while
    /// pipeACK is undefined.
    fn validated(&self, now: Time, cwnd: u64, srtt: Option<Duration>) -> bool {
        self.pipe_ack(now, srtt).is_none_or(|p| 2 * p >= cwnd)
    }

    /// RFC 7661 §4.4.2: each full NVP spent unvalidated halves cwnd (not
    /// below IW) after raising ssthresh to 3/4 of it.
    fn close_down(&mut self, w: &mut Window, s: &SendState) {
        if self.validated(s.now, w.cwnd, s.srtt) {
            self.validated_at = s.now;
            return;
        }
        while s.now.since(self.validated_at) > NVP {
            w.ssthresh = w.ssthresh.max(3 * w.cwnd / 4);
            w.cwnd = (w.cwnd / 2).max(s.iw);
            self.validated_at += NVP;
        }
    }

    fn on_recovery_start(&mut self, w: &Window, s: &SendState, retransmitted: u64) {
        self.round = None; // no samples during recovery (RFC 7661 §4.2)
        if self.validated(s.now, w.cwnd, s.srtt) {
            return;
        }
        self.loss = Some(NvpLoss {
            pipe_ack: self.pipe_ack(s.now, s.srtt).unwrap_or(0),
            flight: s.flight,
            retransmitted_before: retransmitted,
        });
    }

    /// RFC 7661 §4.4.1: after a loss in the NVP, cwnd = (max(pipeACK,
    /// LossFlightSize) − R)/2, at least one segment, and ssthresh = cwnd;
    /// the sender then leaves the NVP with pipeACK undefined.
    fn on_recovery_end(&mut self, w: &mut Window, retransmitted: u64) {
        self.round = None;
        let Some(loss) = self.loss.take() else { return };
        let r = retransmitted - loss.retransmitted_before;
        let base = loss.pipe_ack.max(loss.flight).saturating_sub(r);
        w.cwnd = (base / 2).max(w.mss);
        w.ssthresh = w.cwnd;
        self.forget();
    }

    fn forget(&mut self) {
        self.samples.clear();
        self.defined = false;
        self.round = None;
        self.loss = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    fn ms(t: u64) -> Time {
        Time(t * 1_000_000_000)
    }

    fn state(now_ms: u64, cwnd_limited: bool, flight: u64) -> SendState {
        SendState {
            now: ms(now_ms),
            cwnd_limited,
            flight,
            srtt: Some(Duration::from_millis(100)),
            rto: Duration::from_millis(1000),
            rwnd: 1 << 30,
            iw: 3 * MSS,
        }
    }

    fn window(cwnd_segments: u64) -> Window {
        Window {
            cwnd: cwnd_segments * MSS,
            ssthresh: 10 * MSS,
            mss: MSS,
        }
    }

    #[test]
    fn rfc5681_restart_takes_cwnd_to_iw_after_one_rto_idle() {
        let mut v = Validator::new(Mode::Off, ms(0));
        let mut w = window(40);
        let s = state(5000, false, 0);
        v.after_idle(&mut w, &s, Duration::from_millis(999), true);
        assert_eq!(w.cwnd, 40 * MSS);
        v.after_idle(&mut w, &s, Duration::from_millis(1000), true);
        assert_eq!(w.cwnd, 3 * MSS);
    }

    #[test]
    fn rfc2861_halves_per_rto_idle_down_to_the_restart_window() {
        let mut v = Validator::new(Mode::Rfc2861, ms(0));
        let mut w = window(40);
        let s = state(5000, false, 0);
        v.after_idle(&mut w, &s, Duration::from_millis(2500), true);
        // Two RTOs: 40 -> 20 -> 10 segments; ssthresh = max(10, 3/4·40).
        assert_eq!(w.cwnd, 10 * MSS);
        assert_eq!(w.ssthresh, 30 * MSS);
        v.after_idle(&mut w, &s, Duration::from_millis(60_000), true);
        assert_eq!(w.cwnd, 3 * MSS); // never below min(IW, cwnd)
        let mut off = window(40);
        v.after_idle(&mut off, &s, Duration::from_millis(60_000), false);
        assert_eq!(off.cwnd, 40 * MSS); // restart_after_idle = false
    }

    #[test]
    fn rfc2861_moves_cwnd_half_way_to_the_window_used_each_rtt() {
        let mut v = Validator::new(Mode::Rfc2861, ms(0));
        let mut w = window(40);
        // Application-limited sends with 8 then 10 segments out: nothing
        // happens within the first RTT...
        v.after_send(&mut w, &state(50, false, 8 * MSS));
        v.after_send(&mut w, &state(90, false, 10 * MSS));
        assert_eq!(w.cwnd, 40 * MSS);
        // ...then cwnd = (40 + 10)/2 and ssthresh = 3/4 of 40.
        v.after_send(&mut w, &state(100, false, 6 * MSS));
        assert_eq!(w.cwnd, 25 * MSS);
        assert_eq!(w.ssthresh, 30 * MSS);
        // A cwnd-limited send starts the period again.
        v.after_send(&mut w, &state(150, true, 25 * MSS));
        v.after_send(&mut w, &state(200, false, 20 * MSS));
        assert_eq!(w.cwnd, 25 * MSS);
    }

    /// A receiver's cumulative ACKs, one per 100 ms round trip.
    struct Acks(u64);

    impl Acks {
        /// `n` round trips of `bytes` each from `from_ms`; whether cwnd may
        /// grow on the last ACK.
        fn rounds(
            &mut self,
            v: &mut Validator,
            w: &mut Window,
            from_ms: u64,
            n: u64,
            bytes: u64,
        ) -> bool {
            let mut grows = false;
            for i in 0..n {
                self.0 += bytes;
                let s = state(from_ms + 100 * i, false, bytes);
                grows = v.on_ack(w, &s, self.0, self.0 + bytes);
            }
            grows
        }
    }

    #[test]
    fn rfc7661_pipe_ack_is_the_largest_round_in_the_sampling_period() {
        let mut v = Validator::new(Mode::Rfc7661, ms(0));
        let mut w = window(40);
        let mut acks = Acks(0);
        assert_eq!(v.pipe_ack(ms(0), None), None);
        // Undefined pipeACK: validated, so growth is allowed even when the
        // application limits the flight.
        assert!(acks.rounds(&mut v, &mut w, 0, 1, 30 * MSS));
        acks.rounds(&mut v, &mut w, 100, 3, 30 * MSS);
        assert_eq!(v.pipe_ack(ms(400), w_srtt()), Some(30 * MSS));
        // Smaller rounds: the round that began with 30 segments out ends at
        // 900 ms and its sample holds for max(3·RTT, 1 s); then 5 segments.
        acks.rounds(&mut v, &mut w, 400, 7, 5 * MSS);
        assert_eq!(v.pipe_ack(ms(1000), w_srtt()), Some(30 * MSS));
        acks.rounds(&mut v, &mut w, 1100, 13, 5 * MSS);
        assert_eq!(v.pipe_ack(ms(2300), w_srtt()), Some(5 * MSS));
        assert_eq!(v.pipe_ack(ms(5000), w_srtt()), Some(0));
    }

    fn w_srtt() -> Option<Duration> {
        Some(Duration::from_millis(100))
    }

    #[test]
    fn rfc7661_keeps_cwnd_unvalidated_for_the_nvp_then_halves_it() {
        let mut v = Validator::new(Mode::Rfc7661, ms(0));
        let mut w = window(40);
        let mut acks = Acks(0);
        acks.rounds(&mut v, &mut w, 0, 3, 40 * MSS);
        // A rate-limited stream of 4 segments per RTT: below cwnd/2, so no
        // growth, but cwnd is kept...
        let grows = acks.rounds(&mut v, &mut w, 300, 3000, 4 * MSS);
        assert!(!grows);
        assert_eq!(w.cwnd, 40 * MSS, "kept within the five minutes");
        // ...until a whole NVP has passed unvalidated.
        acks.rounds(&mut v, &mut w, 300_300, 30, 4 * MSS);
        assert_eq!(w.cwnd, 20 * MSS);
        assert_eq!(w.ssthresh, 30 * MSS);
    }

    #[test]
    fn rfc7661_loss_in_the_nvp_bases_cwnd_on_what_was_used() {
        let mut v = Validator::new(Mode::Rfc7661, ms(0));
        let mut w = window(40);
        let mut acks = Acks(0);
        acks.rounds(&mut v, &mut w, 0, 20, 6 * MSS); // pipeACK 6 segments
        let s = state(2000, false, 8 * MSS);
        v.on_recovery_start(&w, &s, 5 * MSS);
        // Two segments retransmitted in this recovery.
        v.on_recovery_end(&mut w, 7 * MSS);
        assert_eq!(w.cwnd, 3 * MSS); // (max(6, 8) - 2)/2
        assert_eq!(w.ssthresh, 3 * MSS);
        assert_eq!(v.pipe_ack(ms(2000), w_srtt()), None);
    }

    #[test]
    fn rfc7661_loss_in_the_validated_phase_is_left_to_the_controller() {
        let mut v = Validator::new(Mode::Rfc7661, ms(0));
        let mut w = window(40);
        let mut acks = Acks(0);
        acks.rounds(&mut v, &mut w, 0, 5, 30 * MSS);
        v.on_recovery_start(&w, &state(500, true, 40 * MSS), 0);
        let before = w;
        v.on_recovery_end(&mut w, 3 * MSS);
        assert_eq!(w, before);
        assert_eq!(v.pipe_ack(ms(500), w_srtt()), Some(30 * MSS));
    }
}
