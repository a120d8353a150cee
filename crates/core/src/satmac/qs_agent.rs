//! The Quick-Start agent of a satellite terminal, acting as the QS router
//! of the uplink (the tfrc-dama paper, sections 2.4 and 3.4, appendix A):
//!
//! - it decides on each QS-Request leaving through its terminal with the
//!   target algorithm (`net::quick_start`), the channel's free capacity
//!   being that of the last TBTP heard (A.1.1, one observation per T_b);
//! - approvals are remembered over M = 2 intervals of
//!   state_delay = (T_r + T_a)/2, the longest a request takes to show in a
//!   TBTP;
//! - with QSD it adds each approved rate to the terminal's next DAMA request
//!   and holds the packet carrying the QS-Request for T_q before sending it
//!   on, so that the QS-Response and the allocation reach the sender
//!   together (T_q = 0: QSD without the delay).

use super::frame::FrameConfig;
use crate::engine::{Check, ConfigError, Duration, Time};
use crate::net::port::{Admit, Port, PortCx};
use crate::net::quick_start::{
    default_memory_intervals, default_qs_thresh, QsOption, QsRouter, QsRouterConfig,
};
use crate::net::{Header, Pdu};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// A terminal's Quick-Start agent
/// (`[dvb_rcs.NAME.terminals.T.quick_start]`), the QS router of its uplink
/// (tfrc-dama paper, sections 2.4 and 3.4, appendix A).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QsAgentConfig {
    /// Approve only while the channel's use (the last TBTP's assigned slots
    /// plus recent approvals) stays below this share of it; default 0.8
    /// (appendix A: at least 20 % free).
    #[serde(default = "default_qs_thresh")]
    pub qs_thresh: f64,
    /// Approvals count as used for this many intervals of `state_delay` (the
    /// paper's M); default 2.
    #[serde(default = "default_memory_intervals")]
    pub memory_intervals: u32,
    /// None: (T_r + T_a)/2 of the channel's frame.
    #[serde(default, rename = "state_delay_ps")]
    pub state_delay: Option<Duration>,
    /// QSD: ask DAMA for the approved rate and hold the request for `tq`.
    #[serde(default)]
    pub qsd: bool,
    /// T_q: how long the packet carrying a QS-Request is held before it goes
    /// on, ps (only with `qsd`; default 0). The paper's eq. (6) gives the
    /// optimum, eq. (3) the most.
    #[serde(default, rename = "tq_ps")]
    pub tq: Duration,
}

impl Default for QsAgentConfig {
    fn default() -> QsAgentConfig {
        QsAgentConfig {
            qs_thresh: default_qs_thresh(),
            memory_intervals: default_memory_intervals(),
            state_delay: None,
            qsd: false,
            tq: Duration::ZERO,
        }
    }
}

impl QsAgentConfig {
    /// The router settings over `frame`.
    pub(crate) fn router(&self, frame: &FrameConfig) -> QsRouterConfig {
        let derived = Duration((frame.superframe().ps() + frame.allocation_delay().ps()) / 2);
        QsRouterConfig {
            qs_thresh: self.qs_thresh,
            memory_intervals: self.memory_intervals,
            state_delay: self.state_delay.unwrap_or(derived),
        }
    }

    pub(crate) fn check(&self, frame: &FrameConfig) -> Result<(), ConfigError> {
        if !self.qsd && self.tq.ps() > 0 {
            return Err("tq delays QS-Requests only with qsd = true".into());
        }
        self.router(frame).check()
    }
}

/// A terminal's Quick-Start agent while the run goes on: it decides on the
/// QS-Requests leaving through the terminal on the free capacity of the last
/// TBTP it heard.
#[derive(Clone, Debug)]
pub struct QsAgent {
    router: QsRouter,
    qsd: bool,
    tq: Duration,
    capacity_bps: f64,
    granularity_bps: f64,
    free_bps: f64,
    /// Approved rates not yet added to a DAMA request (QSD).
    for_dama_bps: f64,
    pub(crate) requests: u64,
    pub(crate) held: u64,
}

impl QsAgent {
    /// An agent on `frame`'s channel, which it believes idle until the
    /// first TBTP.
    pub fn new(cfg: &QsAgentConfig, frame: &FrameConfig) -> QsAgent {
        QsAgent {
            router: QsRouter::new(cfg.router(frame)),
            qsd: cfg.qsd,
            tq: cfg.tq,
            capacity_bps: frame.channel_bps,
            granularity_bps: frame.granularity_bps(),
            free_bps: frame.channel_bps,
            for_dama_bps: 0.0,
            requests: 0,
            held: 0,
        }
    }

    /// A TBTP heard: its count of unassigned slots per multi-frame.
    pub(crate) fn on_tbtp(&mut self, free_slots: u32) {
        self.free_bps = f64::from(free_slots) * self.granularity_bps;
    }

    pub(crate) fn free_bps(&self) -> f64 {
        self.free_bps
    }

    /// A QS-Request leaving through the terminal at `now`: decides on it
    /// (lowering its rate) and says when it may go on.
    pub(crate) fn on_request(&mut self, now: Time, opt: &mut QsOption) -> Time {
        self.requests += 1;
        self.router
            .process(now, opt, self.capacity_bps, self.free_bps);
        if !self.qsd || !opt.approved() {
            return now;
        }
        self.for_dama_bps += opt.rate_bps();
        if self.tq.ps() > 0 {
            self.held += 1;
        }
        now + self.tq
    }

    /// QSD: the approved rates to add to the terminal's next request.
    pub(crate) fn take_for_dama(&mut self) -> f64 {
        std::mem::take(&mut self.for_dama_bps)
    }

    pub(crate) fn approvals(&self) -> u64 {
        self.router.approvals
    }

    pub(crate) fn refusals(&self) -> u64 {
        self.router.refusals
    }
}

/// The agent at the input of its terminal's uplink, where it sees every
/// packet leaving through the terminal. A packet whose QS-Request QSD
/// holds waits T_q, and the later packets of its flow wait behind it, so
/// that the flow stays in order (the paper's Fig. 9 tails are these first
/// packets, "delayed by T_q").
#[derive(Clone, Debug)]
pub(crate) struct QsPort {
    pub(crate) agent: QsAgent,
    /// Held packets and when each may go, in arrival order.
    held: VecDeque<(Time, Pdu)>,
    /// Packets held only because an earlier packet of their flow was.
    pub(crate) held_behind: u64,
}

impl QsPort {
    pub(crate) fn new(agent: QsAgent) -> QsPort {
        QsPort {
            agent,
            held: VecDeque::new(),
            held_behind: 0,
        }
    }

    #[cfg(test)]
    pub(crate) fn held_now(&self) -> usize {
        self.held.len()
    }
}

impl Port for QsPort {
    fn ingress(&mut self, cx: &mut PortCx<'_>, pdu: &mut Pdu) -> Admit {
        if let Some(&(release, _)) = self.held.iter().rev().find(|(_, p)| p.flow == pdu.flow) {
            self.held.push_back((release, std::mem::take(pdu)));
            self.held_behind += 1;
            return Admit::Hold;
        }
        let Header::TfrcData(h) = &mut pdu.header else {
            return Admit::Pass;
        };
        if h.qs.rate_code == 0 {
            return Admit::Pass;
        }
        let release = self.agent.on_request(cx.now, &mut h.qs);
        if release > cx.now {
            self.held.push_back((release, std::mem::take(pdu)));
            return Admit::Hold;
        }
        Admit::Pass
    }

    fn poll_at(&self) -> Time {
        self.held
            .iter()
            .map(|(t, _)| *t)
            .min()
            .unwrap_or(Time::NEVER)
    }

    fn poll(&mut self, cx: &mut PortCx<'_>) {
        let now = cx.now;
        let (due, wait): (VecDeque<_>, VecDeque<_>) =
            self.held.drain(..).partition(|(t, _)| *t <= now);
        self.held = wait;
        cx.release.extend(due.into_iter().map(|(_, p)| p));
    }

    fn for_each_held(&self, f: &mut dyn FnMut(&Pdu)) {
        self.held.iter().for_each(|(_, p)| f(p));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::satmac::frame::Skyplex;

    fn large() -> FrameConfig {
        FrameConfig::skyplex(Skyplex::Large)
    }

    #[test]
    fn state_delay_is_half_of_tr_plus_ta() {
        let r = QsAgentConfig::default().router(&large());
        assert!((r.state_delay.as_secs_f64() - (0.8204 + 1.6408) / 2.0).abs() < 1e-4);
    }

    #[test]
    fn plain_quick_start_approves_and_passes_at_once() {
        let mut a = QsAgent::new(&QsAgentConfig::default(), &large());
        a.on_tbtp(139);
        let mut opt = QsOption::request(320_000.0);
        assert_eq!(a.on_request(Time(7), &mut opt), Time(7));
        assert_eq!(opt.rate_bps(), 320_000.0);
        assert_eq!(a.take_for_dama(), 0.0);
    }

    #[test]
    fn qsd_asks_dama_for_the_approved_rate_once_and_holds_the_request() {
        let tq = Duration::from_millis(518);
        let cfg = QsAgentConfig {
            qsd: true,
            tq,
            ..QsAgentConfig::default()
        };
        let mut a = QsAgent::new(&cfg, &large());
        let mut opt = QsOption::request(320_000.0);
        assert_eq!(a.on_request(Time::ZERO, &mut opt), Time(tq.ps()));
        assert_eq!(a.take_for_dama(), 320_000.0);
        assert_eq!(a.take_for_dama(), 0.0);
        assert_eq!(a.held, 1);
    }

    #[test]
    fn a_busy_channel_refuses_and_qsd_asks_nothing() {
        let cfg = QsAgentConfig {
            qsd: true,
            tq: Duration::from_millis(518),
            ..QsAgentConfig::default()
        };
        let mut a = QsAgent::new(&cfg, &large());
        // 20 of 144 slots free: 13.9 % free, use above 0.8.
        a.on_tbtp(20);
        let mut opt = QsOption::request(320_000.0);
        assert_eq!(a.on_request(Time(5), &mut opt), Time(5));
        assert!(!opt.approved());
        assert_eq!(a.take_for_dama(), 0.0);
        assert_eq!(a.refusals(), 1);
    }

    fn data(flow: u32, seq: u64, qs: QsOption) -> Pdu {
        Pdu {
            flow,
            seq,
            header: Header::TfrcData(Box::new(crate::net::TfrcData {
                qs,
                ..Default::default()
            })),
            ..Pdu::default()
        }
    }

    #[test]
    fn qsd_holds_the_requesting_flow_and_lets_others_pass() {
        use crate::net::port::testing::Bench;
        let tq = Duration::from_millis(500);
        let cfg = QsAgentConfig {
            qsd: true,
            tq,
            ..QsAgentConfig::default()
        };
        let mut port = QsPort::new(QsAgent::new(&cfg, &large()));
        let mut bench = Bench::new(1e6);
        let mut cx = bench.cx(Time::ZERO);
        // Flow 7 asks; flow 9 (another flow through the terminal) and
        // flow 7's next packet follow while the request is held.
        let mut ask = data(7, 0, QsOption::request(320_000.0));
        assert_eq!(port.ingress(&mut cx, &mut ask), Admit::Hold);
        cx.now = Time(1_000);
        assert_eq!(
            port.ingress(&mut cx, &mut data(9, 40, QsOption::default())),
            Admit::Pass
        );
        assert_eq!(
            port.ingress(&mut cx, &mut data(7, 1, QsOption::default())),
            Admit::Hold
        );
        assert_eq!((port.held_now(), port.held_behind), (2, 1));
        cx.now = Time(tq.ps());
        port.poll(&mut cx);
        let seqs: Vec<_> = cx.release.iter().map(|p| (p.flow, p.seq)).collect();
        assert_eq!(seqs, vec![(7, 0), (7, 1)], "released in order, at T_q");
    }

    #[test]
    fn a_delay_without_qsd_is_refused() {
        let cfg = QsAgentConfig {
            tq: Duration::from_millis(1),
            ..QsAgentConfig::default()
        };
        assert!(cfg.check(&large()).unwrap_err().to_string().contains("qsd"));
    }
}
