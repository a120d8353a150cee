//! Driving a world from outside: the real-time emulator (which injects
//! packets read from TUN devices and takes those that leave at the modelled
//! time) and tests. The driver owns the clock: it asks when the world next
//! needs it (`next_wakeup`), lets it run up to an instant (`run_until`),
//! hands it PDUs at a node (`inject`), and collects the PDUs that leave it
//! at an exit (`add_exit`, `take_exited`). A driven world does not end when
//! its network falls idle; it waits for the next injection.

use super::component::{Component, Ctx, Model, View};
use super::{StopReason, World};
use crate::engine::Time;
use crate::net::{AgentAddr, Pdu};
use crate::scenario::summary::Summary;

/// Where PDUs leave the model: an agent at a node that keeps what reaches
/// it, with the time it arrived, until the driver takes it.
pub(crate) struct Exit {
    left: Vec<(Time, Pdu)>,
}

impl Model for Exit {
    fn agents(&self) -> usize {
        1
    }

    fn timers(&self) -> usize {
        0
    }

    fn wakeup(&self, _k: usize, _now: Time) -> Time {
        Time::NEVER
    }

    fn on_timer(&mut self, _k: usize, _cx: &mut Ctx<'_>) {
        // No timers.
    }

    fn on_pdu(&mut self, _agent: usize, p: &Pdu, cx: &mut Ctx<'_>) {
        self.left.push((cx.now, p.clone()));
    }

    fn summarise(&self, _s: &mut Summary, _view: &View<'_>) {
        // The run summary says how the run ended.
    }
}

impl World {
    /// Switches to driven mode: an idle network no longer ends the run.
    pub fn drive(&mut self) {
        self.driven = true;
    }

    /// When the world next has something to do by itself; `None` when
    /// nothing is scheduled (it waits for an injection).
    pub fn next_wakeup(&mut self) -> Option<Time> {
        self.sched.peek_time()
    }

    /// Runs every event due at or before `t`, then sets the clock to `t`
    /// (PDUs injected next enter at `t`). Reaching the end of the run's
    /// duration stops it.
    pub fn run_until(&mut self, t: Time) {
        while self.stopped.is_none() {
            match self.sched.peek_time() {
                Some(next) if next <= t && next < self.end => self.step(),
                _ => break,
            }
        }
        if self.stopped.is_some() {
            return;
        }
        if t >= self.end {
            self.stop(StopReason::Duration);
        } else if t > self.now {
            self.now = t;
        }
    }

    /// A new flow id for PDUs the driver injects: the network books what
    /// happens to them under it, as for any flow.
    pub fn add_flow(&mut self) -> u32 {
        self.new_flows(1)
    }

    /// A PDU enters the network at `node` now, routed towards
    /// `pdu.dst_node` (to an exit there, or to any agent). Its `flow` must
    /// be one the world knows (`add_flow`).
    pub fn inject(&mut self, node: u32, pdu: Pdu) {
        assert!(
            (pdu.flow as usize) < self.flows.len(),
            "inject: flow {} is not one of the world's (add_flow)",
            pdu.flow
        );
        self.counts.pdus_sent += 1;
        self.forward(node, pdu);
    }

    /// An exit: PDUs addressed to the returned agent are kept for
    /// `take_exited` once they reach their `dst_node` (the exit's node is
    /// the one its PDUs are routed to).
    pub fn add_exit(&mut self) -> AgentAddr {
        let id = self.add(Component::Exit(Box::new(Exit { left: Vec::new() })));
        self.agents_of(id)[0]
    }

    /// The PDUs that reached `exit` since the last call, with the times
    /// they arrived, in order.
    pub fn take_exited(&mut self, exit: AgentAddr) -> Vec<(Time, Pdu)> {
        let comp = self.reg.comp_of_agent(exit.index);
        match comp.map(|c| &mut self.reg.comps[c as usize]) {
            Some(Component::Exit(e)) => std::mem::take(&mut e.left),
            _ => Vec::new(),
        }
    }
}
