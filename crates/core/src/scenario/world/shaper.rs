//! Rate-controlled hosts (`tcp[].rate_control`): a sender's segmentation
//! buffer served at the explicit rate a link's `explicit_rate` port feeds
//! back (`net::shaper`, `net::explicit_rate`), as a component. Its agent
//! takes the host's packets and the feedback; its timer is the next
//! departure; its keys go under its connection's (`tcp.NAME.rate_control.`).

use super::build::Builder;
use super::component::{Component, Ctx, Model, View};
use super::ports::PortKind;
use crate::engine::{Check, ConfigError, Duration, Time};
use crate::net::explicit_rate::Source;
use crate::net::framing::Framing;
use crate::net::shaper::Shaper;
use crate::net::{Header, Iface, Pdu};
use crate::scenario::summary::{num, put, Summary};
use crate::scenario::BuildError;
use serde::{Deserialize, Serialize};

/// A connection's `rate_control` entry.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RateControlDesc {
    /// The link whose `explicit_rate` port feeds this host back.
    pub link: String,
    /// The rate before the first feedback arrives.
    pub initial_rate_bps: f64,
    /// How the packets are timed on the wire (the path's framing).
    #[serde(default, skip_serializing_if = "Framing::is_none")]
    pub framing: Framing,
    /// effcap's block length M and number of blocks N, in intervals.
    #[serde(default = "one")]
    pub block: usize,
    /// effcap's number N of sliding blocks for this host (default 1).
    #[serde(default = "one")]
    pub blocks: usize,
    /// The most packets the buffer holds; left out: unbounded (the paper's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffer_packets: Option<usize>,
}

fn one() -> usize {
    1
}

impl RateControlDesc {}

impl Check for RateControlDesc {
    fn check(&self) -> Result<(), ConfigError> {
        if !(self.initial_rate_bps.is_finite() && self.initial_rate_bps > 0.0) {
            return Err("initial_rate must be positive".into());
        }
        if self.block == 0 || self.blocks == 0 {
            return Err("block and blocks are at least 1".into());
        }
        if self.buffer_packets == Some(0) {
            return Err("buffer must hold at least 1 packet".into());
        }
        Ok(())
    }
}

pub(crate) struct ShaperComp {
    pub(crate) shaper: Shaper,
    node: u32,
    prefix: String,
    taken: u64,
    /// Whether the buffer is bounded (its drops are reported only then).
    bounded: bool,
    feedback: u64,
    last_feedback: Option<Time>,
}

impl ShaperComp {
    pub(crate) const AGENTS: usize = 1;

    pub(crate) fn new(d: &RateControlDesc, node: u32, prefix: String) -> ShaperComp {
        ShaperComp {
            shaper: Shaper::new(d.framing, d.initial_rate_bps).bounded(d.buffer_packets),
            node,
            prefix,
            taken: 0,
            bounded: d.buffer_packets.is_some(),
            feedback: 0,
            last_feedback: None,
        }
    }
}

impl Model for ShaperComp {
    fn agents(&self) -> usize {
        ShaperComp::AGENTS
    }

    fn timers(&self) -> usize {
        1
    }

    fn wakeup(&self, _k: usize, _now: Time) -> Time {
        self.shaper.next_departure()
    }

    fn on_timer(&mut self, _k: usize, cx: &mut Ctx<'_>) {
        while let Some(p) = self.shaper.depart(cx.now) {
            cx.out.route(self.node, p);
        }
    }

    /// A packet of the host's transport, or the feedback.
    fn on_pdu(&mut self, _agent: usize, p: &Pdu, cx: &mut Ctx<'_>) {
        match p.header {
            Header::Rate { rate_bps } => {
                self.shaper.set_rate(cx.now, rate_bps);
                self.feedback += 1;
                self.last_feedback = Some(cx.now);
            }
            _ => {
                // A packet the full buffer refuses never entered the
                // network: the shaper counts it, the flow does not.
                self.taken += 1;
                self.shaper.enqueue(cx.now, p.clone());
            }
        }
    }

    fn summarise(&self, s: &mut Summary, view: &View<'_>) {
        let now = view.now;
        let key = |k: &str| format!("{}rate_control.{k}", self.prefix);
        let st = &self.shaper.stats;
        put(s, key("packets"), st.packets);
        put(s, key("feedback_received"), self.feedback);
        put(s, key("rate_changes"), st.rate_changes);
        if self.bounded {
            put(s, key("dropped_packets"), st.dropped);
        }
        put(s, key("rate_bps"), num(self.shaper.rate_bps()));
        put(s, key("max_queue_packets"), st.max_queue);
        put(
            s,
            key("mean_queue_packets"),
            num(self.shaper.mean_queue(now)),
        );
        put(s, key("queued_packets"), self.shaper.len() as u64);
        let age = self.last_feedback.map(|t| now.since(t));
        put(
            s,
            key("feedback_age_s"),
            num(age.map_or(f64::NAN, Duration::as_secs_f64)),
        );
    }

    /// Packets taken and neither sent on, dropped nor held: zero.
    fn unaccounted(&self) -> i64 {
        let st = &self.shaper.stats;
        self.taken as i64 - (st.packets + st.dropped + self.shaper.len() as u64) as i64
    }
}

impl Builder<'_> {
    /// The segmentation buffer of a connection's sending host at `node`,
    /// registered with the `explicit_rate` port of the link `rc.link`
    /// names. Returns its component and the interface the host sends
    /// through.
    pub(super) fn rate_controlled(
        &mut self,
        rc: &RateControlDesc,
        node: u32,
        at: &str,
        prefix: String,
    ) -> Result<(u32, Iface), BuildError> {
        let at = format!("{at}.rate_control");
        let Some(l) = self.d.links.iter().position(|l| l.name == rc.link) else {
            return Err(BuildError::at(&at, format!("no link named {:?}", rc.link)));
        };
        if !matches!(self.w.net.ports[l], Some(PortKind::ExplicitRate(_))) {
            return Err(BuildError::at(
                &at,
                format!(
                    "link {:?} has no explicit_rate port to feed this host back",
                    rc.link
                ),
            ));
        }
        let id = self.w.add(Component::Shaper(Box::new(ShaperComp::new(
            rc, node, prefix,
        ))));
        let agent = self.w.agents_of(id)[0];
        let source = Source {
            node,
            agent,
            flow: self.w.new_flows(1),
            block: rc.block,
            blocks: rc.blocks,
        };
        if let Some(PortKind::ExplicitRate(port)) = self.w.net.ports[l].as_mut() {
            port.add_source(source);
        }
        Ok((id, Iface::Attached { agent }))
    }
}
