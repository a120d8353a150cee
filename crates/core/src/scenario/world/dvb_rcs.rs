//! DVB-RCS return links (`[dvb_rcs.NAME]`): an NCC and its terminals on
//! one MF-TDMA channel (`satmac`). Each terminal's uplink is a link of the
//! description whose capacity is the slots the NCC gives it (a slotted
//! capacity on the frame's grid); at every super-frame boundary each
//! terminal asks for what entered its uplink (eq. (1)), the NCC plans
//! (`satmac::Ncc`), and the plan is handed to the uplinks for the
//! super-frame it applies to. A terminal with `quick_start` has a QS agent
//! at its uplink's input (`satmac::qs_agent::QsPort`): it hears each TBTP's
//! free capacity when the TBTP reaches the terminals, and with QSD its
//! approvals join the terminal's next request. The channel is a component
//! of the fabric: its one timer wakes it at each boundary and when a TBTP
//! is heard, and it acts on its uplinks through `Ctx::net`.

use super::build::{at, Builder, Names};
use super::component::{Component, Ctx, Model, View};
use super::ports::PortKind;
use super::registry::Owner;
use super::Net;
use crate::engine::{Duration, RngStream, Time};
use crate::net::capacity::CapacityConfig;
use crate::net::Pdu;
use crate::satmac::qs_agent::QsPort;
use crate::satmac::{
    DamaConfig, FrameConfig, Ncc, QsAgent, QsAgentConfig, RequestConfig, Requester,
};
use crate::scenario::summary::{num, put, Summary};
use crate::scenario::BuildError;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// A `dvb_rcs` entry.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DvbRcsDesc {
    /// Its name in the description (`dvb_rcs.NAME`), which uplink capacities
    /// name as their `channel`.
    pub name: String,
    /// The channel's frame geometry and one hop's propagation delay
    /// (`frame`, or a Skyplex preset).
    pub frame: FrameConfig,
    /// How the NCC assigns slots (`dama`): eq. (2)'s release, the slots
    /// every terminal keeps, free capacity assignment; the paper's by
    /// default.
    #[serde(default)]
    pub dama: DamaConfig,
    /// The terminals sharing the channel, in the order the multi-frame lays
    /// out their slots.
    pub terminals: Vec<TerminalDesc>,
}

/// A terminal: the link it sends on and how it asks for capacity.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TerminalDesc {
    /// Its name in the description (`dvb_rcs.NAME.terminals.T`).
    pub name: String,
    /// The link the terminal sends on, whose capacity is this channel's.
    pub uplink: String,
    /// How it asks for capacity (eq. (1)): CRA floor, RBDC, VBDC; by default
    /// RBDC alone with no CRA.
    #[serde(default)]
    pub request: RequestConfig,
    /// A Quick-Start agent at the terminal (QS router of its uplink).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quick_start: Option<QsAgentConfig>,
}

impl DvbRcsDesc {
    /// The capacity an uplink of this channel has: the frame's slot grid,
    /// starting with `run` (what the terminal holds before the first plan).
    pub fn uplink_capacity(&self, first_slot: u32, slot_count: u32) -> CapacityConfig {
        let f = &self.frame;
        CapacityConfig::Slotted {
            rate_bps: f.channel_bps,
            slot_ps: f.slot(),
            slots_per_period: f.slots_per_multiframe(),
            periods_per_epoch: f.multiframes_per_superframe,
            first_slot,
            slot_count,
        }
    }
}

struct Terminal {
    name: String,
    uplink: u32,
    requester: Requester,
    /// The uplink's `arrival_bytes` at the last request.
    counted_bytes: u64,
    last_request_bps: f64,
    requests: u64,
    /// Its uplink carries a QS agent.
    quick_start: bool,
}

/// A channel's NCC and terminals while the run goes on.
pub(crate) struct DvbRcs {
    name: String,
    ncc: Ncc,
    terminals: Vec<Terminal>,
    next_boundary: Time,
    /// Plans that reached an uplink after their super-frame had begun.
    late_plans: u64,
    /// TBTPs on their way down: when the terminals hear each, and its free
    /// slots per multi-frame.
    tbtps: VecDeque<(Time, u32)>,
}

impl Model for DvbRcs {
    fn agents(&self) -> usize {
        0
    }

    fn timers(&self) -> usize {
        1
    }

    fn wakeup(&self, _k: usize, _now: Time) -> Time {
        self.next_wake()
    }

    fn on_timer(&mut self, _k: usize, cx: &mut Ctx<'_>) {
        self.on_wake(cx.now, cx.net);
    }

    fn on_pdu(&mut self, _agent: usize, _p: &Pdu, _cx: &mut Ctx<'_>) {
        unreachable!("a DVB-RCS channel has no agents");
    }

    fn summarise(&self, s: &mut Summary, view: &View<'_>) {
        self.summarise_on(view.net, s);
    }
}

impl DvbRcs {
    fn next_wake(&self) -> Time {
        let heard = self.tbtps.front().map_or(Time::NEVER, |t| t.0);
        self.next_boundary.min(heard)
    }

    /// Whatever is due now: TBTPs reaching the terminals, a boundary.
    fn on_wake(&mut self, now: Time, net: &mut Net) {
        while self.tbtps.front().is_some_and(|t| t.0 <= now) {
            let (_, free) = self.tbtps.pop_front().expect("front exists");
            for t in self.terminals.iter().filter(|t| t.quick_start) {
                if let Some(q) = qs_agent(net, t.uplink) {
                    q.on_tbtp(free);
                }
            }
        }
        if now >= self.next_boundary {
            self.on_boundary(now, net);
        }
    }

    /// A super-frame boundary: the terminals' requests go up, the NCC
    /// plans, the uplinks get the plan for the super-frame it applies to.
    fn on_boundary(&mut self, now: Time, net: &mut Net) {
        let tr = self.ncc.frame().superframe();
        for t in self.terminals.iter_mut().filter(|t| t.quick_start) {
            if let Some(q) = qs_agent(net, t.uplink) {
                t.requester.add_quick_start(q.take_for_dama());
            }
        }
        let requests: Vec<f64> = self
            .terminals
            .iter_mut()
            .map(|t| request(t, &net.links[t.uplink as usize], tr))
            .collect();
        let plan = self.ncc.boundary(now, &requests);
        self.tbtps.push_back((plan.heard, plan.free_slots));
        for (t, run) in self.terminals.iter().zip(&plan.runs) {
            let link = &mut net.links[t.uplink as usize];
            if let Some(s) = link.slots_mut() {
                let before = s.late_plans;
                s.plan(now, plan.epoch, *run);
                self.late_plans += s.late_plans - before;
            }
        }
        self.next_boundary = now + tr;
    }

    /// `dvb_rcs.NAME.*` and `dvb_rcs.NAME.TERMINAL.*`.
    fn summarise_on(&self, net: &Net, s: &mut Summary) {
        let p = format!("dvb_rcs.{}.", self.name);
        let f = self.ncc.frame();
        let ms = |d: Duration| num(d.as_secs_f64() * 1e3);
        put(s, format!("{p}plans"), self.ncc.plans);
        put(s, format!("{p}late_plans"), self.late_plans);
        put(s, format!("{p}granularity_bps"), num(f.granularity_bps()));
        put(s, format!("{p}superframe_ms"), ms(f.superframe()));
        put(
            s,
            format!("{p}allocation_delay_ms"),
            ms(f.allocation_delay()),
        );
        put(s, format!("{p}mean_rtt_ms"), ms(f.mean_rtt()));
        put(s, format!("{p}tq_max_ms"), ms(f.tq_max()));
        put(s, format!("{p}tq_opt_ms"), ms(f.tq_opt()));
        for t in &self.terminals {
            let q = format!("{p}{}.", t.name);
            let link = &net.links[t.uplink as usize];
            put(s, format!("{q}requests"), t.requests);
            put(s, format!("{q}last_request_bps"), num(t.last_request_bps));
            let share = link.slot_share_bps().unwrap_or(f64::NAN);
            put(s, format!("{q}allocated_bps"), num(share));
        }
    }
}

/// The QS agent at the input of link `l`, if it has one.
fn qs_agent(net: &mut Net, l: u32) -> Option<&mut QsAgent> {
    match net.ports[l as usize].as_mut() {
        Some(PortKind::QsAgent(q)) => Some(&mut q.agent),
        _ => None,
    }
}

/// Eq. (1) for terminal `t` over the super-frame just ended.
fn request(t: &mut Terminal, uplink: &crate::net::Link, tr: Duration) -> f64 {
    let arrived = uplink.stats.arrival_bytes - t.counted_bytes;
    t.counted_bytes = uplink.stats.arrival_bytes;
    t.requester.on_arrivals(arrived);
    let queued = uplink.queue().bytes();
    t.last_request_bps = t.requester.request(tr, queued, 0.0);
    t.requests += 1;
    t.last_request_bps
}

impl Builder<'_> {
    /// The `dvb_rcs` entries; their first boundary is one super-frame in.
    /// Returns their component ids.
    pub(super) fn dvb_rcs(&mut self) -> Result<Vec<u32>, BuildError> {
        let links = Names::of(self.d.links.iter().map(|l| l.name.as_str()));
        let (mut claimed, mut ids) = (vec![], vec![]);
        for d in &self.d.dvb_rcs {
            let here = at("dvb_rcs", &d.name);
            let slots = d.frame.slots_per_multiframe();
            let cra: Vec<f64> = d.terminals.iter().map(|t| t.request.cra_bps).collect();
            let ncc = Ncc::new(d.frame.clone(), d.dama.clone(), d.terminals.len()).with_cra(&cra);
            if ncc.initial_slots() > slots {
                return Err(BuildError::at(
                    &format!("{here}.terminals"),
                    format!(
                        "their CRA needs {} slots per multi-frame, \
                     more than the channel's {slots}",
                        ncc.initial_slots()
                    ),
                ));
            }
            let first = ncc.initial_runs();
            let mut terminals = vec![];
            for (t, run) in d.terminals.iter().zip(&first) {
                let tat = format!("{here}.terminals.{}", t.name);
                let l = links.find("link", &t.uplink, &tat)?;
                let want = d.uplink_capacity(run.start, run.count);
                match &self.d.links[l as usize].capacity {
                    CapacityConfig::DvbRcs { channel } if *channel == d.name => {
                        let process = want.build(RngStream::new(self.d.seed, &tat));
                        self.w.net.links[l as usize].set_capacity(process);
                        claimed.push(l);
                    }
                    have if *have == want => {}
                    _ => {
                        return Err(BuildError::at(
                            &tat,
                            format!(
                                "uplink {:?} must have capacity {{kind = \"dvb_rcs\", \
                             channel = {:?}}} or the channel's slotted capacity {want:?}",
                                t.uplink, d.name
                            ),
                        ))
                    }
                }
                if let Some(qs) = &t.quick_start {
                    if self.w.net.ports[l as usize].is_some() {
                        return Err(BuildError::at(
                            &tat,
                            format!(
                                "uplink {:?} already has a port; a QS agent needs its own",
                                t.uplink
                            ),
                        ));
                    }
                    let agent = QsAgent::new(qs, &d.frame);
                    let port = PortKind::QsAgent(Box::new(QsPort::new(agent)));
                    self.w.net.ports[l as usize] = Some(port);
                    self.w.net.port_slots[l as usize] = self.w.alloc_slot(Owner::Port(l));
                }
                terminals.push(Terminal {
                    name: t.name.clone(),
                    uplink: l,
                    requester: Requester::new(t.request.clone()),
                    counted_bytes: 0,
                    last_request_bps: 0.0,
                    requests: 0,
                    quick_start: t.quick_start.is_some(),
                });
            }
            let channel = DvbRcs {
                name: d.name.clone(),
                next_boundary: Time(d.frame.superframe().ps()),
                ncc,
                terminals,
                late_plans: 0,
                tbtps: VecDeque::new(),
            };
            ids.push(self.w.add(Component::DvbRcs(Box::new(channel))));
        }
        for (l, link) in self.d.links.iter().enumerate() {
            if let CapacityConfig::DvbRcs { channel } = &link.capacity {
                if !claimed.contains(&(l as u32)) {
                    return Err(BuildError::at(
                        &at("links", &link.name),
                        format!(
                            "capacity names dvb_rcs channel {channel:?}, \
                             whose terminals do not send on this link"
                        ),
                    ));
                }
            }
        }
        Ok(ids)
    }
}
