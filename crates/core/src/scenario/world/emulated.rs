//! Hosts outside the model (`[emulate.NAME]`): real Linux hosts, each a
//! network namespace attached at a node through a TUN device, whose IP
//! packets cross the modelled network in real time (`satcc emulate`, the
//! `satcc-emu` crate). In the world such a host is an injection point and
//! an exit: what it sends enters at its node (`World::send_from_host`), what
//! is addressed to it waits at its agent until the driver takes it
//! (`World::take_arrived`). A simulation of the same scenario runs the
//! network with these hosts silent.
//!
//! Each host's packets are one flow, so the run's conservation check and
//! the per-direction figures (`emulate.NAME.*`) cover them like any
//! source's.
//!
//! A host may send through a rate-controlled segmentation buffer
//! (`rate_control`, the end-to-end ABR source of the abr-effcap paper's
//! testbed, `world::shaper`): its packets then wait there, served at the
//! rate a link's `explicit_rate` port feeds back, before they enter the
//! network at its node. Packets held there are counted under
//! `emulate.NAME.rate_control.queued_packets`, not `in_flight`.

use super::build::{at, Builder};
use super::component::{Component, Ctx, Model, View};
use super::probes::ProbeMemory;
use super::shaper::RateControlDesc;
use super::World;
use crate::engine::Time;
use crate::net::{AgentAddr, Header, Iface, Pdu};
use crate::scenario::summary::{num, put, rate, Summary, PS};
use crate::scenario::BuildError;
use serde::{Deserialize, Serialize};
use std::net::Ipv4Addr;

/// An `emulate[]` entry: where the host is attached and its IPv4 address
/// (the emulator delivers a packet to the host that owns its destination).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct EmulatedDesc {
    /// Its name in the description (`emulate.NAME`).
    pub name: String,
    /// The node the host is attached at: its packets enter the network
    /// there, and packets for it leave there.
    pub node: String,
    /// Its IPv4 address, dotted quad: the emulator delivers a packet to the
    /// host that owns its destination address.
    pub address: String,
    /// The host's packets wait in a segmentation buffer served at an
    /// explicit rate fed back by a link (`tcp[].rate_control`'s model).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_control: Option<RateControlDesc>,
}

pub(crate) struct EmulatedHost {
    pub name: String,
    pub node: u32,
    pub address: Ipv4Addr,
    /// The flow of the packets this host sends.
    pub flow: u32,
    agent: AgentAddr,
    /// Its rate-controlled buffer's agent, which takes what it sends.
    attachment: Option<AgentAddr>,
    sent_packets: u64,
    sent_bytes: u64,
    received_packets: u64,
    received_bytes: u64,
    /// Arrived, with their arrival times, until the driver takes them.
    arrived: Vec<(Time, Pdu)>,
}

/// What the driver needs to move one host's packets: its component id, node,
/// address and flow.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct HostHandle {
    pub(crate) id: u32,
    /// The index of the node the host is attached at.
    pub node: u32,
    /// Its IPv4 address.
    pub address: Ipv4Addr,
    /// The flow its packets are counted under.
    pub flow: u32,
}

impl EmulatedHost {
    pub(crate) const METRICS: &'static [&'static str] =
        &["sent_bps", "delivered_bps", "received_bps", "delay_mean_s"];
}

impl Model for EmulatedHost {
    fn agents(&self) -> usize {
        1
    }

    fn timers(&self) -> usize {
        0
    }

    fn attach(&mut self, agents: &[AgentAddr]) {
        self.agent = agents[0];
    }

    fn wakeup(&self, _k: usize, _now: Time) -> Time {
        Time::NEVER
    }

    fn on_timer(&mut self, _k: usize, _cx: &mut Ctx<'_>) {
        // Real time drives it, not the scheduler.
    }

    fn on_pdu(&mut self, _agent: usize, p: &Pdu, cx: &mut Ctx<'_>) {
        self.received_packets += 1;
        self.received_bytes += u64::from(p.bytes);
        // The sender's flow books the delivery and its one-way delay.
        let flow = &mut cx.flows[p.flow as usize];
        flow.received_packets += 1;
        flow.received_bytes += u64::from(p.bytes);
        flow.delay.record(cx.now.since(p.created).ps());
        self.arrived.push((cx.now, p.clone()));
    }

    fn summarise(&self, s: &mut Summary, view: &View<'_>) {
        let f = &view.flows[self.flow as usize];
        let p = format!("emulate.{}.", self.name);
        let secs = view.now.as_secs_f64();
        put(s, p.clone() + "sent_packets", self.sent_packets);
        put(s, p.clone() + "sent_bytes", self.sent_bytes);
        put(s, p.clone() + "delivered_packets", f.received_packets);
        put(s, p.clone() + "delivered_bytes", f.received_bytes);
        put(s, p.clone() + "dropped", f.dropped);
        put(s, p.clone() + "errored", f.errored);
        let held = view.in_flight.get(self.flow as usize).copied().unwrap_or(0);
        put(s, p.clone() + "in_flight", held);
        put(
            s,
            p.clone() + "delivered_bps",
            num(rate(f.received_bytes, secs)),
        );
        put(s, p.clone() + "delay_mean_s", num(f.delay.mean() * PS));
        put(
            s,
            p.clone() + "delay_p50_s",
            num(f.delay.quantile(0.5) * PS),
        );
        put(
            s,
            p.clone() + "delay_p99_s",
            num(f.delay.quantile(0.99) * PS),
        );
        put(
            s,
            p.clone() + "delay_max_s",
            num(f.delay.quantile(1.0) * PS),
        );
        put(s, p.clone() + "received_packets", self.received_packets);
        put(s, p + "received_bytes", self.received_bytes);
    }

    fn sample(&self, metric: usize, mem: &mut ProbeMemory, dt: f64, view: &View<'_>) -> f64 {
        let f = &view.flows[self.flow as usize];
        match Self::METRICS[metric] {
            "sent_bps" => mem.per_interval(self.sent_bytes as f64 * 8.0, dt),
            "delivered_bps" => mem.per_interval(f.received_bytes as f64 * 8.0, dt),
            "received_bps" => mem.per_interval(self.received_bytes as f64 * 8.0, dt),
            _ => mem.interval_mean(f.delay.sum() * PS, f.delay.count() as f64),
        }
    }
}

impl Builder<'_> {
    /// The hosts, in description order; returns the components of their
    /// rate-controlled buffers.
    pub(super) fn emulated(&mut self) -> Result<Vec<u32>, BuildError> {
        let mut shapers = Vec::new();
        for e in &self.d.emulate {
            let at = at("emulate", &e.name);
            let node = self.node(&e.node, &at)?;
            let address: Ipv4Addr = e.address.parse().map_err(|_| {
                BuildError::at(
                    &at,
                    format!("address {:?} is not an IPv4 address", e.address),
                )
            })?;
            let mut attachment = None;
            if let Some(rc) = &e.rate_control {
                let prefix = format!("emulate.{}.", e.name);
                let (id, iface) = self.rate_controlled(rc, node, &at, prefix)?;
                let Iface::Attached { agent } = iface else {
                    unreachable!("a rate-controlled host is attached to its buffer")
                };
                attachment = Some(agent);
                shapers.push(id);
            }
            let host = EmulatedHost {
                name: e.name.clone(),
                node,
                address,
                flow: self.w.new_flows(1),
                agent: AgentAddr::default(),
                attachment,
                sent_packets: 0,
                sent_bytes: 0,
                received_packets: 0,
                received_bytes: 0,
                arrived: Vec::new(),
            };
            self.add_named("emulate", &e.name, Component::Emulated(Box::new(host)));
        }
        Ok(shapers)
    }
}

impl World {
    /// The hosts outside the model, in description order.
    pub fn emulated_hosts(&self) -> Vec<HostHandle> {
        let mut hosts: Vec<HostHandle> = Vec::new();
        for (id, c) in self.reg.comps.iter().enumerate() {
            if let Component::Emulated(h) = c {
                hosts.push(HostHandle {
                    id: id as u32,
                    node: h.node,
                    address: h.address,
                    flow: h.flow,
                });
            }
        }
        hosts.sort_by_key(|h| h.flow);
        hosts
    }

    /// Host `from` sends a packet of `bytes` (its IP length) to host `to`
    /// now: it enters the network at `from`'s node. Returns its sequence
    /// number in `from`'s flow, by which the driver finds its bytes again.
    pub fn send_from_host(&mut self, from: HostHandle, to: HostHandle, bytes: u32) -> u64 {
        self.send_from_host_with_ecn(from, to, bytes, 0)
    }

    /// As `send_from_host`, the packet carrying `ecn`, its IP header's ECN
    /// field (RFC 3168 §5), so that the model's queues may mark it.
    pub fn send_from_host_with_ecn(
        &mut self,
        from: HostHandle,
        to: HostHandle,
        bytes: u32,
        ecn: u8,
    ) -> u64 {
        let Component::Emulated(dst) = &self.reg.comps[to.id as usize] else {
            panic!("send_from_host: {to:?} is not an emulated host");
        };
        let agent = dst.agent;
        let Component::Emulated(src) = &mut self.reg.comps[from.id as usize] else {
            panic!("send_from_host: {from:?} is not an emulated host");
        };
        let seq = src.sent_packets;
        let attachment = src.attachment;
        src.sent_packets += 1;
        src.sent_bytes += u64::from(bytes);
        let p = Pdu {
            bytes,
            flow: from.flow,
            seq,
            src_node: from.node,
            dst_node: to.node,
            dst_agent: agent.index,
            dst_gen: agent.gen,
            created: self.now,
            enqueued: self.now,
            header: Header::Ip,
            ecn: ecn & 0b11,
            ..Pdu::default()
        };
        match attachment {
            // The buffer puts it on the network (and counts it sent) when
            // its rate lets it go.
            Some(buffer) => {
                self.deliver_to(buffer, &p);
            }
            None => self.inject(from.node, p),
        }
        seq
    }

    /// The packets that reached `host` since the last call, with their
    /// arrival times, in order.
    pub fn take_arrived(&mut self, host: HostHandle) -> Vec<(Time, Pdu)> {
        match &mut self.reg.comps[host.id as usize] {
            Component::Emulated(h) => std::mem::take(&mut h.arrived),
            _ => Vec::new(),
        }
    }
}
