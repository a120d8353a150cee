//! One TFRC sender and one receiver over the profiles a flow may follow
//! (`Profile`): the RFC state machines (`sender`, `receiver`) or ns-2.35's
//! (`ns2_sender`, `ns2_receiver`). The flow drives either the same way:
//! it asks when the sender next needs the clock (`poll_at`), lets it run
//! its timers and say how many packets may go now (`poll`), then takes a
//! header for each (`on_send`); reports go to `on_feedback`.

use super::ns2_receiver::Ns2Receiver;
use super::ns2_sender::Ns2Sender;
use super::sender::{QsState, SenderStats};
use super::{Profile, TfrcConfig, TfrcReceiver, TfrcSender};
use crate::engine::Time;
use crate::net::{TfrcData, TfrcFeedback};

/// One sender of either profile, and the rate a Quick-Start approval gave
/// it (bits/s as `rate_bps` reports them), to note when it is first cut.
#[derive(Clone, Debug)]
pub struct Sender {
    inner: AnySender,
    qs_rate_bps: Option<f64>,
}

#[derive(Clone, Debug)]
enum AnySender {
    Rfc(TfrcSender),
    Ns2(Ns2Sender),
}

impl Sender {
    /// A sender of a flow starting at `start`.
    pub fn new(cfg: &TfrcConfig, start: Time) -> Sender {
        let inner = match cfg.profile {
            Profile::Ns2 => AnySender::Ns2(Ns2Sender::new(cfg)),
            _ => AnySender::Rfc(TfrcSender::new(cfg, start)),
        };
        Sender {
            inner,
            qs_rate_bps: None,
        }
    }

    /// When the sender next needs the clock, with or without packets
    /// waiting in the transmit buffer.
    pub fn poll_at(&self, waiting: bool) -> Time {
        match &self.inner {
            AnySender::Rfc(s) => {
                let send = if waiting {
                    s.next_send_at()
                } else {
                    Time::NEVER
                };
                // The nofeedback timer runs once the first packet has gone.
                let nofeedback = if s.stats.packets > 0 {
                    s.poll_at()
                } else {
                    Time::NEVER
                };
                send.min(nofeedback)
            }
            AnySender::Ns2(s) => s.poll_at(),
        }
    }

    /// Runs what is due at `now` with `waiting` packets in the transmit
    /// buffer; returns how many may go now.
    pub(crate) fn poll(&mut self, now: Time, waiting: usize) -> u32 {
        let n = match &mut self.inner {
            AnySender::Rfc(s) => {
                if s.stats.packets > 0 {
                    s.on_timer(now);
                }
                let n = u32::from(waiting > 0 && s.next_send_at() <= now);
                if waiting > n as usize {
                    s.note_waiting();
                }
                n
            }
            AnySender::Ns2(s) => s.poll(now, waiting),
        };
        self.note_quick_start(now);
        n
    }

    /// A packet goes now; `more_waiting` says whether others wait behind
    /// it. Its sequence number and header.
    pub(crate) fn on_send(&mut self, now: Time, more_waiting: bool) -> (u64, TfrcData) {
        match &mut self.inner {
            AnySender::Rfc(s) => s.on_send(now, more_waiting),
            AnySender::Ns2(s) => s.on_send(now),
        }
    }

    pub(crate) fn on_feedback(&mut self, now: Time, fb: &TfrcFeedback) {
        match &mut self.inner {
            AnySender::Rfc(s) => s.on_feedback(now, fb),
            AnySender::Ns2(s) => s.on_feedback(now, fb),
        }
        self.note_quick_start(now);
    }

    /// The rate a Quick-Start approval set, and the first time it falls
    /// below it (the paper's step (c), by whichever rule of the profile).
    fn note_quick_start(&mut self, now: Time) {
        let rate = self.rate_bps();
        if self.qs_rate_bps.is_none() && matches!(self.qs_state(), QsState::Phase { .. }) {
            self.qs_rate_bps = Some(rate);
        }
        let cut = self.qs_rate_bps.is_some_and(|qs| rate < qs * (1.0 - 1e-9));
        let stats = match &mut self.inner {
            AnySender::Rfc(s) => &mut s.stats,
            AnySender::Ns2(s) => &mut s.stats,
        };
        if cut && stats.qs_cut_at.is_none() {
            stats.qs_cut_at = Some(now);
        }
    }

    /// The application has stopped and its buffer is empty.
    pub(crate) fn stop(&mut self) {
        if let AnySender::Ns2(s) = &mut self.inner {
            s.stop();
        }
    }

    /// What the sender counted: packets and bytes sent, reports, nofeedback
    /// expiries, the Quick-Start outcome.
    pub fn stats(&self) -> &SenderStats {
        match &self.inner {
            AnySender::Rfc(s) => &s.stats,
            AnySender::Ns2(s) => &s.stats,
        }
    }

    /// The allowed rate, bits/s (ns2: of `packet_bytes`, as ns-2 holds it).
    pub fn rate_bps(&self) -> f64 {
        match &self.inner {
            AnySender::Rfc(s) => s.rate_bps(),
            AnySender::Ns2(s) => s.rate_bps(),
        }
    }

    pub(crate) fn rtt_s(&self) -> Option<f64> {
        match &self.inner {
            AnySender::Rfc(s) => s.rtt_s(),
            AnySender::Ns2(s) => s.rtt_s(),
        }
    }

    pub(crate) fn p(&self) -> f64 {
        match &self.inner {
            AnySender::Rfc(s) => s.p(),
            AnySender::Ns2(s) => s.p(),
        }
    }

    pub(crate) fn qs_state(&self) -> QsState {
        match &self.inner {
            AnySender::Rfc(s) => s.qs_state(),
            AnySender::Ns2(s) => s.qs_state(),
        }
    }
}

/// One receiver of either profile.
#[derive(Clone, Debug)]
pub enum Receiver {
    /// The RFC 5348 receiver (§6), under both RFC profiles.
    Rfc(Box<TfrcReceiver>),
    /// ns-2.35's `Agent/TFRCSink`.
    Ns2(Box<Ns2Receiver>),
}

impl Receiver {
    /// The receiver of a flow with these parameters, by its profile.
    pub fn new(cfg: &TfrcConfig) -> Receiver {
        match cfg.profile {
            Profile::Ns2 => Receiver::Ns2(Box::new(Ns2Receiver::new(cfg))),
            _ => Receiver::Rfc(Box::new(TfrcReceiver::new(cfg))),
        }
    }

    /// A data packet arrived; true when it must be reported at once.
    pub(crate) fn on_data(&mut self, now: Time, seq: u64, bytes: u32, h: &TfrcData) -> bool {
        match self {
            Receiver::Rfc(r) => r.on_data(now, seq, bytes, h),
            Receiver::Ns2(r) => r.on_data(now, seq, bytes, h),
        }
    }

    /// The data packet just given to `on_data` was CE-marked (ECN, RFC
    /// profiles only: the configuration refuses `ecn` under ns2); true
    /// when it must be reported at once.
    pub(crate) fn on_mark(&mut self, now: Time, seq: u64) -> bool {
        match self {
            Receiver::Rfc(r) => r.on_mark(now, seq),
            Receiver::Ns2(_) => false,
        }
    }

    /// When its feedback timer (ns2: its backup timer) is next due.
    pub fn poll_at(&self) -> Time {
        match self {
            Receiver::Rfc(r) => r.poll_at(),
            Receiver::Ns2(r) => r.poll_at(),
        }
    }

    /// The feedback timer: true when `report` should be asked now.
    pub(crate) fn on_timer(&mut self, now: Time) -> bool {
        match self {
            Receiver::Rfc(r) => r.on_timer(now),
            Receiver::Ns2(r) => r.on_timer(now),
        }
    }

    /// The report to send now, if there is anything to report.
    pub(crate) fn report(&mut self, now: Time) -> Option<TfrcFeedback> {
        match self {
            Receiver::Rfc(r) => Some(r.report(now)),
            Receiver::Ns2(r) => r.report(now),
        }
    }

    /// Data arrived since the last report.
    pub(crate) fn report_pending(&self) -> bool {
        match self {
            Receiver::Rfc(r) => r.report_pending(),
            Receiver::Ns2(r) => r.report_pending(),
        }
    }

    pub(crate) fn packets(&self) -> u64 {
        match self {
            Receiver::Rfc(r) => r.packets,
            Receiver::Ns2(r) => r.packets,
        }
    }

    /// Bytes received, on the wire.
    pub fn bytes(&self) -> u64 {
        match self {
            Receiver::Rfc(r) => r.bytes,
            Receiver::Ns2(r) => r.bytes,
        }
    }

    pub(crate) fn loss_events(&self) -> u64 {
        match self {
            Receiver::Rfc(r) => r.loss_history().loss_events,
            Receiver::Ns2(r) => r.loss_events,
        }
    }

    /// CE-marked data packets (ECN).
    pub(crate) fn packets_marked(&self) -> u64 {
        match self {
            Receiver::Rfc(r) => r.loss_history().packets_marked,
            Receiver::Ns2(_) => 0,
        }
    }

    pub(crate) fn packets_lost(&self) -> u64 {
        match self {
            Receiver::Rfc(r) => r.loss_history().packets_lost,
            Receiver::Ns2(r) => r.packets_lost,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::quick_start::QsOption;

    fn ms(v: u64) -> Time {
        Time(v * 1_000_000_000)
    }

    fn report(sent: Time, x_recv: f64, qs: bool) -> TfrcFeedback {
        TfrcFeedback {
            t_recvdata: sent,
            t_delay_ps: 0,
            x_recv,
            p: 0.0,
            qs: if qs {
                QsOption::request(320_000.0)
            } else {
                QsOption::default()
            },
        }
    }

    fn sender(profile: Profile) -> Sender {
        let cfg = TfrcConfig {
            profile,
            quick_start_bps: Some(320_000.0),
            ..TfrcConfig::new(1316)
        };
        let mut s = Sender::new(&cfg, Time::ZERO);
        assert_eq!(s.poll(Time::ZERO, 1), 1);
        s.on_send(Time::ZERO, false);
        s
    }

    #[test]
    fn the_first_cut_of_a_quick_start_rate_is_noted_under_either_profile() {
        // RFC 5348: the report validating the phase cuts to twice what it
        // says arrived.
        let mut rfc = sender(Profile::Rfc5348);
        rfc.on_feedback(ms(800), &report(ms(0), 0.0, true));
        rfc.on_send(ms(800), false);
        rfc.on_feedback(ms(1700), &report(ms(800), 5_000.0, false));
        assert_eq!(rfc.stats().qs_cut_at, Some(ms(1700)));
        // ns-2: the second report keeps at least the rate it has; the third
        // falls to the receive rate.
        let mut ns2 = sender(Profile::Ns2);
        ns2.on_feedback(ms(800), &report(ms(0), 1.0, true));
        ns2.on_send(ms(800), false);
        ns2.on_feedback(ms(1700), &report(ms(800), 5_000.0, false));
        assert_eq!(ns2.stats().qs_validated_at, Some(ms(1700)));
        assert_eq!(ns2.stats().qs_cut_at, None);
        ns2.on_feedback(ms(2600), &report(ms(1700), 5_000.0, false));
        assert_eq!(ns2.stats().qs_cut_at, Some(ms(2600)));
    }
}
