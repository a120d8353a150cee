//! TFRC media flows: the `tfrc` section, a flow as a component (the media
//! application and its transmit buffer, the TFRC sender and receiver, the
//! receiver's de-jitter point), its summary keys (`tfrc.NAME.*`) and its
//! probe metrics. Data packets go from `src_node` to `dst_node`, reports
//! back; both as plain packets routed by the network.
//!
//! A flow created by a class of media arrivals (`tfrc_arrivals`) has no
//! name and no keys of its own: it records the start-up delays the class
//! asks for and ends once its encoder has stopped and everything it sent
//! has arrived and been reported on (or `linger` after its last packet,
//! when something was lost on the way); the class keeps its figures.

use super::build::{at, direct, Builder};
use super::component::{Component, Ctx, Model, Series, View};
use super::probes::ProbeMemory;
use crate::apps::dejitter::Dejitter;
use crate::apps::media::{MediaConfig, MediaSource};
use crate::engine::{Check, ConfigError, Duration, Time};
use crate::net::pdu::ecn;
use crate::net::{AgentAddr, Header, Iface, Pdu};
use crate::scenario::summary::{num, opt, put, Summary};
use crate::scenario::BuildError;
use crate::transport::tfrc::sender::QsState;
use crate::transport::tfrc::{Receiver, Sender, TfrcConfig};
use serde::{Deserialize, Serialize};

/// A `tfrc[]` entry; the transport's parameters are the model's own
/// `TfrcConfig`, in the same object.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct TfrcDesc {
    pub name: String,
    pub src_node: String,
    pub dst_node: String,
    #[serde(default)]
    pub start_ps: Time,
    pub media: MediaConfig,
    /// The de-jitter point's tolerable delay (Table II); None keeps every
    /// packet.
    #[serde(
        default,
        rename = "tolerable_delay_ps",
        skip_serializing_if = "Option::is_none"
    )]
    pub tolerable_delay: Option<Duration>,
    /// Keep every packet's generation time, E2ED and OWD: the end-of-run
    /// series `tfrc.NAME.e2ed` and `tfrc.NAME.owd`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub(crate) trace: bool,
    #[serde(flatten)]
    pub config: TfrcConfig,
}

impl TfrcDesc {}

impl Check for TfrcDesc {
    fn check(&self) -> Result<(), ConfigError> {
        self.config.check()?;
        self.media.check()
    }
}

/// The timers of a flow: the sender's (the encoder, the next packet the
/// rate allows, the nofeedback timer) and the receiver's feedback timer.
const SENDER: usize = 0;
const RECEIVER: usize = 1;

pub(crate) struct TfrcFlow {
    pub name: String,
    cfg: TfrcConfig,
    pub media: MediaSource,
    pub(crate) sender: Sender,
    pub(crate) receiver: Receiver,
    pub(crate) dejitter: Dejitter,
    pub start: Time,
    /// Flow id of the data; reports are `flow + 1`.
    pub flow: u32,
    nodes: [u32; 2],
    /// [sender, receiver] agents, once attached.
    agents: [AgentAddr; 2],
    ifaces: [Iface; 2],
    reports_sent: u64,
    last_x_recv_bps: f64,
    /// The class of media arrivals that created it, if any.
    pub(crate) class: Option<u32>,
    /// (generated − start, E2ED) in ps of the packets generated within
    /// `startup_window` of the start: a class's start-up figures.
    pub(crate) startup: Vec<(u64, u64)>,
    startup_window: Duration,
    linger: Duration,
    last_send: Time,
    /// (generated, E2ED, OWD) of every packet received, when traced.
    trace: Option<Vec<(Time, Duration, Duration)>>,
}

impl TfrcFlow {
    pub(crate) const METRICS: &'static [&'static str] = &[
        "e2ed_s",
        "owd_s",
        "rate_bps",
        "x_recv_bps",
        "tx_buffer_packets",
        "rtt_s",
        "p",
        "send_bps",
        "goodput_bps",
    ];

    pub(crate) fn new(d: &TfrcDesc, nodes: [u32; 2], flow: u32, ifaces: [Iface; 2]) -> TfrcFlow {
        let start = d.start_ps;
        TfrcFlow {
            name: d.name.clone(),
            cfg: d.config.clone(),
            media: MediaSource::new(&d.media, d.config.packet_bytes, start),
            sender: Sender::new(&d.config, start),
            receiver: Receiver::new(&d.config),
            dejitter: Dejitter::new(d.tolerable_delay),
            start,
            flow,
            nodes,
            agents: [AgentAddr::default(); 2],
            ifaces,
            reports_sent: 0,
            last_x_recv_bps: f64::NAN,
            class: None,
            startup: Vec::new(),
            startup_window: Duration::ZERO,
            linger: Duration::ZERO,
            last_send: start,
            trace: d.trace.then(Vec::new),
        }
    }

    /// A flow of class `class`: it records the delays of what it generates
    /// within `startup_window` and gives up waiting for what is in flight
    /// `linger` after its last packet.
    pub(crate) fn of_class(
        mut self,
        class: u32,
        startup_window: Duration,
        linger: Duration,
    ) -> TfrcFlow {
        self.class = Some(class);
        self.media = self.media.with_window(self.start, startup_window);
        self.startup_window = startup_window;
        self.linger = linger;
        self
    }

    /// A flow of a class is over: its encoder stopped and its buffer is
    /// empty, and either every packet it sent arrived, the receiver has
    /// nothing left to report and every report arrived, or `linger` has
    /// passed since the last packet left.
    fn over(&self, now: Time) -> bool {
        if self.class.is_none() || !self.media.done() {
            return false;
        }
        let all_in = self.receiver.packets() >= self.sender.stats().packets
            && !self.receiver.report_pending()
            && self.reports_sent == self.sender.stats().reports;
        all_in || now >= self.last_send + self.linger
    }

    /// The encoder runs up to now; the sender sends what its rate allows.
    fn service(&mut self, cx: &mut Ctx<'_>) {
        let now = cx.now;
        self.media.generate(now);
        let n = self.sender.poll(now, self.media.waiting());
        for _ in 0..n {
            let generated = self.media.take().expect("a packet waits");
            let (seq, h) = self.sender.on_send(now, self.media.waiting() > 0);
            let p = Pdu {
                bytes: self.cfg.wire_bytes(),
                flow: self.flow,
                seq,
                src_node: self.nodes[0],
                dst_node: self.nodes[1],
                dst_agent: self.agents[1].index,
                dst_gen: self.agents[1].gen,
                created: generated,
                enqueued: now,
                header: Header::TfrcData(Box::new(h)),
                ecn: if self.cfg.ecn {
                    ecn::ECT0
                } else {
                    ecn::NOT_ECT
                },
                ..Pdu::default()
            };
            self.ifaces[0].send(cx.out, p);
            self.last_send = now;
        }
        if self.media.done() {
            self.sender.stop();
        }
    }

    fn send_report(&mut self, cx: &mut Ctx<'_>) {
        let Some(fb) = self.receiver.report(cx.now) else {
            return;
        };
        let p = Pdu {
            bytes: self.cfg.feedback_bytes,
            flow: self.flow + 1,
            seq: self.reports_sent,
            src_node: self.nodes[1],
            dst_node: self.nodes[0],
            dst_agent: self.agents[0].index,
            dst_gen: self.agents[0].gen,
            created: cx.now,
            enqueued: cx.now,
            header: Header::TfrcFeedback(Box::new(fb)),
            ..Pdu::default()
        };
        self.reports_sent += 1;
        self.ifaces[1].send(cx.out, p);
    }
}

impl Model for TfrcFlow {
    fn agents(&self) -> usize {
        2
    }

    fn timers(&self) -> usize {
        2
    }

    /// Agent 0 is the sender (it gets the reports), agent 1 the receiver.
    fn attach(&mut self, agents: &[AgentAddr]) {
        self.agents = [agents[0], agents[1]];
    }

    fn wakeup(&self, k: usize, now: Time) -> Time {
        if k == RECEIVER {
            return self.receiver.poll_at();
        }
        if self.class.is_some() && self.media.done() {
            return self.last_send + self.linger;
        }
        let sender = self.sender.poll_at(self.media.waiting() > 0).max(now);
        sender.min(self.media.poll_at())
    }

    fn on_timer(&mut self, k: usize, cx: &mut Ctx<'_>) {
        if k == SENDER {
            self.service(cx);
        } else if self.receiver.on_timer(cx.now) {
            self.send_report(cx);
        }
        cx.finished = self.over(cx.now);
    }

    fn on_pdu(&mut self, agent: usize, p: &Pdu, cx: &mut Ctx<'_>) {
        match (agent, &p.header) {
            (0, Header::TfrcFeedback(fb)) => {
                self.sender.on_feedback(cx.now, fb);
                self.last_x_recv_bps = fb.x_recv * 8.0;
                self.service(cx);
            }
            (1, Header::TfrcData(h)) => {
                let (e2ed, _) = self.dejitter.on_packet(cx.now, p.created, h.sent);
                if let Some(trace) = &mut self.trace {
                    trace.push((p.created, e2ed, cx.now.since(h.sent)));
                }
                let age = p.created.since(self.start);
                if age < self.startup_window {
                    self.startup.push((age.ps(), e2ed.ps()));
                }
                let mut report = self.receiver.on_data(cx.now, p.seq, p.bytes, h);
                if p.ecn == ecn::CE {
                    report |= self.receiver.on_mark(cx.now, p.seq);
                }
                if report {
                    self.send_report(cx);
                }
            }
            _ => {}
        }
        cx.finished = self.over(cx.now);
    }

    fn summarise(&self, s: &mut Summary, view: &View<'_>) {
        let now = view.now;
        if self.class.is_some() {
            return;
        }
        let p = format!("tfrc.{}.", self.name);
        let key = |k: &str| format!("{p}{k}");
        let m = &self.media;
        put(s, key("generated"), m.generated);
        put(s, key("tx_buffer_overflow"), m.overflow);
        put(s, key("tx_buffer_waiting"), m.waiting() as u64);
        put(s, key("tx_buffer_max_packets"), m.buffer_max as u64);
        let st = self.sender.stats();
        put(s, key("packets_sent"), st.packets);
        put(s, key("reports_received"), st.reports);
        put(s, key("reports_sent"), self.reports_sent);
        put(s, key("nofeedback_expiries"), st.nofeedback_expiries);
        put(s, key("rate_bps"), num(self.sender.rate_bps()));
        put(s, key("rtt_s"), opt(self.sender.rtt_s()));
        put(s, key("p"), num(self.sender.p()));
        put(s, key("qs_approved_bps"), num(st.qs_approved_bps));
        let validated = st
            .qs_validated_at
            .map(|t| t.since(self.start).as_secs_f64());
        put(s, key("qs_validated_s"), opt(validated));
        let cut = st.qs_cut_at.map(|t| t.since(self.start).as_secs_f64());
        put(s, key("qs_cut_s"), opt(cut));
        let first = st
            .first_report_at
            .map(|t| t.since(self.start).as_secs_f64());
        put(s, key("first_report_s"), opt(first));
        let qs = match self.sender.qs_state() {
            QsState::Off => "off",
            QsState::Asked => "asked",
            QsState::Phase { .. } => "phase",
            QsState::Validated => "validated",
            QsState::NotUsed => "not_used",
        };
        s.insert(key("qs_state"), serde_json::Value::from(qs));
        let r = &self.receiver;
        put(s, key("packets_received"), r.packets());
        put(s, key("loss_events"), r.loss_events());
        put(s, key("packets_lost"), r.packets_lost());
        if self.cfg.ecn {
            put(s, key("packets_marked"), r.packets_marked());
        }
        let d = &self.dejitter;
        put(s, key("late"), d.late);
        let secs = |ps: f64| ps / 1e12;
        for (name, h) in [("e2ed", &d.e2ed), ("owd", &d.owd)] {
            put(s, key(&format!("{name}_mean_s")), num(secs(h.mean())));
            put(
                s,
                key(&format!("{name}_max_s")),
                num(if h.count() > 0 {
                    secs(h.max())
                } else {
                    f64::NAN
                }),
            );
            put(s, key(&format!("{name}_p50_s")), num(secs(h.quantile(0.5))));
            put(
                s,
                key(&format!("{name}_p95_s")),
                num(secs(h.quantile(0.95))),
            );
        }
        let active = now.since(self.start).as_secs_f64();
        let goodput = if active > 0.0 {
            r.bytes() as f64 * 8.0 / active
        } else {
            f64::NAN
        };
        put(s, key("goodput_bps"), num(goodput));
    }

    fn sample(&self, metric: usize, mem: &mut ProbeMemory, dt: f64, _view: &View<'_>) -> f64 {
        match Self::METRICS[metric] {
            "e2ed_s" => self.dejitter.last_e2ed_s,
            "owd_s" => self.dejitter.last_owd_s,
            "rate_bps" => self.sender.rate_bps(),
            "x_recv_bps" => self.last_x_recv_bps,
            "tx_buffer_packets" => self.media.waiting() as f64,
            "rtt_s" => self.sender.rtt_s().unwrap_or(f64::NAN),
            "p" => self.sender.p(),
            "send_bps" => mem.per_interval(self.sender.stats().bytes as f64 * 8.0, dt),
            _ => mem.per_interval(self.receiver.bytes() as f64 * 8.0, dt),
        }
    }

    /// The packet trace, if kept: E2ED and OWD against generation time.
    fn end_series(&self, _view: &View<'_>) -> Vec<Series> {
        let Some(trace) = &self.trace else {
            return Vec::new();
        };
        let x: Vec<f64> = trace.iter().map(|t| t.0.as_secs_f64()).collect();
        let e2ed = trace.iter().map(|t| t.1.as_secs_f64()).collect();
        let owd = trace.iter().map(|t| t.2.as_secs_f64()).collect();
        vec![
            (format!("tfrc.{}.e2ed", self.name), x.clone(), e2ed),
            (format!("tfrc.{}.owd", self.name), x, owd),
        ]
    }

    fn parent(&self) -> Option<u32> {
        self.class
    }
}

impl Builder<'_> {
    /// The flows, in description order.
    pub(super) fn tfrc(&mut self) -> Result<Vec<u32>, BuildError> {
        let mut ids = Vec::new();
        for d in &self.d.tfrc {
            let at = at("tfrc", &d.name);
            let nodes = self.ends(&d.src_node, &d.dst_node, &at)?;
            let flow = self.w.new_flows(2);
            let f = TfrcFlow::new(d, nodes, flow, direct(nodes));
            ids.push(self.add_named("tfrc", &d.name, Component::Tfrc(Box::new(f))));
        }
        Ok(ids)
    }
}
