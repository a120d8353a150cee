//! Congestion controllers: how the congestion window grows on ACKs and what
//! ssthresh a loss leaves, one file per controller. Loss *recovery* (fast
//! retransmit, NewReno partial ACKs, SACK's pipe) stays in the socket and is
//! the same for every controller, as in Linux's split between
//! `tcp_input.c` and its pluggable congestion-control modules.
//!
//! - `reno`: RFC 5681 §3.1 with RFC 3465 byte counting in slow start, and
//!   in congestion avoidance with `abc` (the default controller)
//! - `cubic`: RFC 9438
//! - `hybla`: TCP Hybla (Caini and Firrincieli 2004; Linux's tcp_hybla.c)
//! - `hystart`: HyStart++ (RFC 9406), an option of the initial slow start
//! - `bbr`: BBR v1 (draft-cardwell-iccrg-bbr-congestion-control-00, Linux
//!   `tcp_bbr.c`): rate-based, from delivery-rate samples, with pacing
//! - `bbr3`: BBRv3 (draft-ietf-ccwg-bbr-06, Linux `tcp_bbr.c` v3): BBR's
//!   model bounded by what loss says, with pacing

pub(crate) mod bbr;
pub(crate) mod bbr3;
pub(crate) mod cubic;
pub(crate) mod hybla;
pub(crate) mod hystart;
pub(crate) mod reno;

use super::TcpConfig;
use crate::engine::{Duration, RngStream, Time};
use crate::transport::tcp::rate::LostSegment;
use serde::{Deserialize, Serialize};

pub(crate) use bbr::{Bbr, CaState, RateAck};
pub(crate) use bbr3::Bbr3;
pub(crate) use cubic::Cubic;
pub(crate) use hybla::Hybla;
pub(crate) use hystart::HyStart;
pub(crate) use reno::Reno;

/// Which controller a connection runs.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Kind {
    #[default]
    Reno,
    Cubic,
    Hybla,
    Bbr,
    Bbr3,
}

/// The window a controller adjusts, in bytes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Window {
    pub(crate) cwnd: u64,
    pub(crate) ssthresh: u64,
    pub mss: u64,
}

/// What an ACK that advanced snd_una tells the controller.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Ack {
    pub now: Time,
    /// Bytes newly acknowledged.
    pub(crate) acked: u64,
    /// The acknowledged offset and the highest offset sent.
    pub(crate) ack: u64,
    pub(crate) snd_max: u64,
    /// RFC 6298 SRTT, when there is one.
    pub(crate) srtt: Option<Duration>,
    /// This ACK's own RTT sample (newest segment it covers, none retransmitted).
    pub(crate) rtt_sample: Option<Duration>,
}

/// The interface every controller offers the socket.
pub(crate) trait CongestionControl {
    /// An ACK advanced snd_una outside loss recovery while cwnd limited the
    /// flight (RFC 7661 §4: no growth otherwise).
    fn on_ack(&mut self, w: &mut Window, ack: &Ack);
    /// Fast retransmit: the ssthresh to set, `flight` being FlightSize
    /// without Limited Transmit's segments (or cwnd, with `ssthresh_from =
    /// "cwnd"`: what the reduction starts from).
    fn on_congestion(&mut self, now: Time, w: &Window, flight: u64) -> u64;
    /// First retransmission timeout of a series: the ssthresh to set.
    fn on_timeout(&mut self, now: Time, w: &Window, flight: u64) -> u64;
    /// Whether per-ACK RTT samples are wanted (HyStart++ needs them).
    fn wants_rtt_samples(&self) -> bool {
        false
    }
    /// Whether the controller runs on delivery-rate samples (BBR): the
    /// socket then keeps per-segment send state and calls
    /// `on_rate_sample` on every ACK, after its own loss recovery, and the
    /// window the controller leaves is the one used.
    fn wants_rate_samples(&self) -> bool {
        false
    }
    /// Every ACK's rate sample (only when `wants_rate_samples`).
    fn on_rate_sample(&mut self, _w: &mut Window, _a: &RateAck) {}
    /// Whether each lost segment's send snapshot is wanted (BBRv3; only
    /// with `wants_rate_samples`).
    fn wants_lost_segments(&self) -> bool {
        false
    }
    /// A segment deemed lost, as it is retransmitted (only when
    /// `wants_lost_segments`).
    fn on_lost_segment(&mut self, _now: Time, _w: &Window, _l: &LostSegment) {}
    /// Sending starts again with nothing in flight after an
    /// application-limited spell (Linux's `CA_EVENT_TX_START`; only with
    /// `wants_rate_samples`).
    fn on_tx_start(&mut self, _now: Time, _w: &Window) {}
    /// Whether an ECN echo (ECE) reduces the window (RFC 3168 §6.1.2).
    fn responds_to_ecn(&self) -> bool {
        true
    }
    /// The handshake is over; `srtt` is the SRTT its SYN exchange gave, if
    /// any (Linux's `init` at `tcp_init_transfer`; not called when the
    /// connection starts without a handshake).
    fn on_established(&mut self, _srtt: Option<Duration>) {}
    /// The rate to pace at, payload bytes per second; none: no pacing.
    fn pacing_rate(&self, _w: &Window, _srtt: Option<Duration>) -> Option<f64> {
        None
    }
    /// Whether the samples of what is now in flight should be marked
    /// application-limited (BBR's ProbeRTT).
    fn holds_app_limited(&self) -> bool {
        false
    }
}

/// One connection's controller: a new one is a variant here, its line in
/// `new`, `inner` and `inner_mut`, and a `Kind` (as smoltcp's
/// `AnyController`).
#[derive(Clone, Debug)]
pub(crate) enum Controller {
    Reno(Reno),
    Cubic(Cubic),
    Hybla(Hybla),
    Bbr(Box<Bbr>),
    Bbr3(Box<Bbr3>),
}

impl Controller {
    /// The connection's controller as its configuration asks: `abc` (RFC
    /// 3465 §2.1 byte counting in Reno's congestion avoidance; CUBIC counts
    /// acknowledged bytes anyway, RFC 9438 §4.3), `hybla_rtt0` (Hybla's
    /// RTT0, its default when None), `cubic_alpha_switch`.
    pub(crate) fn new(cfg: &TcpConfig) -> Controller {
        let hystart = cfg.hystart.then(HyStart::default);
        let l = cfg.abc_limit_segments;
        match cfg.congestion_control {
            Kind::Reno => Controller::Reno(Reno::new(l, hystart, cfg.abc)),
            Kind::Cubic => {
                let mut c = Cubic::new(l, hystart);
                c.alpha_switch = cfg.cubic_alpha_switch;
                Controller::Cubic(c)
            }
            Kind::Hybla => Controller::Hybla(Hybla::new(l, hystart, cfg.hybla_rtt0)),
            Kind::Bbr => Controller::Bbr(Box::default()),
            Kind::Bbr3 => Controller::Bbr3(Box::default()),
        }
    }

    /// The random stream of a controller that draws (BBR's first ProbeBW
    /// phase, BBRv3's probe waits); the others ignore it.
    pub(crate) fn seed(&mut self, rng: RngStream) {
        match self {
            Controller::Bbr(b) => b.seed(rng),
            Controller::Bbr3(b) => b.seed(rng),
            _ => {}
        }
    }

    /// The one dispatch point.
    #[inline]
    pub(crate) fn inner(&self) -> &dyn CongestionControl {
        match self {
            Controller::Reno(c) => c,
            Controller::Cubic(c) => c,
            Controller::Hybla(c) => c,
            Controller::Bbr(c) => c.as_ref(),
            Controller::Bbr3(c) => c.as_ref(),
        }
    }

    #[inline]
    pub(crate) fn inner_mut(&mut self) -> &mut dyn CongestionControl {
        match self {
            Controller::Reno(c) => c,
            Controller::Cubic(c) => c,
            Controller::Hybla(c) => c,
            Controller::Bbr(c) => c.as_mut(),
            Controller::Bbr3(c) => c.as_mut(),
        }
    }
}

impl CongestionControl for Controller {
    fn on_ack(&mut self, w: &mut Window, ack: &Ack) {
        self.inner_mut().on_ack(w, ack)
    }
    fn on_congestion(&mut self, now: Time, w: &Window, flight: u64) -> u64 {
        self.inner_mut().on_congestion(now, w, flight)
    }
    fn on_timeout(&mut self, now: Time, w: &Window, flight: u64) -> u64 {
        self.inner_mut().on_timeout(now, w, flight)
    }
    fn wants_rtt_samples(&self) -> bool {
        self.inner().wants_rtt_samples()
    }
    fn wants_rate_samples(&self) -> bool {
        self.inner().wants_rate_samples()
    }
    fn on_rate_sample(&mut self, w: &mut Window, a: &RateAck) {
        self.inner_mut().on_rate_sample(w, a)
    }
    fn wants_lost_segments(&self) -> bool {
        self.inner().wants_lost_segments()
    }
    fn on_lost_segment(&mut self, now: Time, w: &Window, l: &LostSegment) {
        self.inner_mut().on_lost_segment(now, w, l)
    }
    fn on_tx_start(&mut self, now: Time, w: &Window) {
        self.inner_mut().on_tx_start(now, w)
    }
    fn on_established(&mut self, srtt: Option<Duration>) {
        self.inner_mut().on_established(srtt)
    }
    fn responds_to_ecn(&self) -> bool {
        self.inner().responds_to_ecn()
    }
    fn pacing_rate(&self, w: &Window, srtt: Option<Duration>) -> Option<f64> {
        self.inner().pacing_rate(w, srtt)
    }
    fn holds_app_limited(&self) -> bool {
        self.inner().holds_app_limited()
    }
}

/// Slow start (RFC 5681 §3.1, RFC 3465 §2.2): cwnd grows by the bytes
/// acknowledged, at most L·SMSS per ACK, and stops at ssthresh (as in
/// Linux); with HyStart++ the growth may be slowed or ended early.
pub(crate) fn slow_start(
    w: &mut Window,
    ack: &Ack,
    abc_limit_segments: u32,
    hystart: Option<&mut HyStart>,
) {
    let mut increase = ack.acked.min(u64::from(abc_limit_segments) * w.mss);
    if let Some(h) = hystart.filter(|h| h.active()) {
        increase = h.on_ack(w, ack, increase);
        if w.cwnd + increase >= w.ssthresh {
            h.stop(); // the initial slow start ends here (RFC 9406 §4.3)
        }
    }
    if w.cwnd < w.ssthresh {
        w.cwnd = (w.cwnd + increase).min(w.ssthresh.max(w.cwnd));
    }
}
