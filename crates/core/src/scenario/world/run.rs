//! The run loop: one event at a time from the scheduler to its owner (a
//! link, a port, a component's timer, the probe sampler), until the run's
//! duration, event budget or stop condition ends it.

use super::component::Component;
use super::registry::Owner;
use super::{probes, World};

/// Events between two reads of the clock in `World::advance_for`, at most.
const MAX_STRIDE: u128 = 64;

/// A condition that stops the run before its duration (`run.stop_when`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum StopCondition {
    /// Sink component, packets.
    SinkReceived(u32, u64),
    /// TCP connection component.
    TcpCompleted(u32),
}

/// Why the run stopped (`run.stop_reason` in the summary).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum StopReason {
    /// It reached its duration (or, undriven, ran out of events).
    Duration,
    /// It processed `run.max_events` events.
    MaxEvents,
    /// Its stop condition (`run.stop_when`) held.
    StopWhen,
}

impl StopReason {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            StopReason::Duration => "duration",
            StopReason::MaxEvents => "max_events",
            StopReason::StopWhen => "stop_when",
        }
    }
}

impl World {
    /// Whether the run has stopped, for whichever reason.
    pub fn finished(&self) -> bool {
        self.stopped.is_some()
    }

    /// Runs at most `budget` events; returns true once the run has stopped.
    /// Callers loop over this to show progress or to stay interruptible.
    pub fn advance(&mut self, budget: u64) -> bool {
        let mut done = 0;
        while self.stopped.is_none() && done < budget {
            self.step();
            done += 1;
        }
        self.stopped.is_some()
    }

    /// Like `advance`, but also returns once `wall` of real time has passed,
    /// so a caller stays responsive to interrupts and wall-clock budgets
    /// however slow each event is. The clock is read about twenty times per
    /// `wall`, the stride between reads following the events' measured
    /// cost: cheap when events are fast, prompt when they are slow. At most
    /// 64 events, and at most twice the last stride: after many cheap
    /// events a run of slow ones went 4096 strong before the next read
    /// (13.9 s for a 0.1 s slice was measured); a read costs some 20 ns, a
    /// third of a percent of 64 cheap events. Stopping between events never
    /// changes the results.
    pub fn advance_for(&mut self, budget: u64, wall: std::time::Duration) -> bool {
        let start = std::time::Instant::now();
        let (mut done, mut next_look, mut stride) = (0u64, 1u64, 1u64);
        while self.stopped.is_none() && done < budget {
            self.step();
            done += 1;
            if done == next_look {
                let elapsed = start.elapsed();
                if elapsed >= wall {
                    break;
                }
                let per_event = elapsed.as_nanos() / u128::from(done) + 1;
                let fits = (wall.as_nanos() / 20 / per_event).clamp(1, MAX_STRIDE) as u64;
                stride = fits.min(stride * 2);
                next_look = done + stride;
            }
        }
        self.stopped.is_some()
    }

    /// Runs to completion.
    pub fn run(&mut self) {
        while !self.advance(u64::MAX) {}
    }

    pub(super) fn stop(&mut self, why: StopReason) {
        self.stopped = Some(why);
        if why == StopReason::Duration {
            self.now = self.end;
            if self.sampler.next == self.end && !self.probes.is_empty() {
                self.sample();
            }
        }
        for l in 0..self.net.links.len() {
            self.net.links[l].settle(self.now);
            self.book_link_errors(l);
        }
    }

    /// Processes one event.
    pub(super) fn step(&mut self) {
        let Some((t, slot)) = self.sched.pop() else {
            if !self.driven {
                self.stop(StopReason::Duration);
            }
            return;
        };
        if t >= self.end {
            self.stop(StopReason::Duration);
            return;
        }
        assert!(t >= self.now, "time went backwards: {t:?} < {:?}", self.now);
        self.now = t;
        self.events += 1;
        match self.reg.owner(slot) {
            Owner::Link(l) => self.on_link(l as usize),
            Owner::Port(l) => self.on_port_timer(l as usize),
            Owner::Comp(c, k) => self.call(c, |comp, cx| comp.model_mut().on_timer(k as usize, cx)),
            Owner::Sampler => self.on_sample(),
            Owner::Free => {}
        }
        if let Some(max) = self.max_events {
            if self.events >= max {
                self.stop(StopReason::MaxEvents);
            }
        }
        if let Some(cond) = self.stop_when {
            if self.condition_holds(cond) {
                self.stop(StopReason::StopWhen);
            }
        }
    }

    fn condition_holds(&self, cond: StopCondition) -> bool {
        match cond {
            StopCondition::SinkReceived(c, n) => match &self.reg.comps[c as usize] {
                Component::Sink(s) => s.sink.received_packets >= n,
                _ => false,
            },
            StopCondition::TcpCompleted(c) => match &self.reg.comps[c as usize] {
                Component::Tcp(t) => t.app.completed_at.is_some(),
                _ => false,
            },
        }
    }

    fn on_sample(&mut self) {
        self.sample();
        self.sampler.next += self.sampler.interval;
        self.sched.schedule(self.sampler.slot, self.sampler.next);
    }

    fn sample(&mut self) {
        let t = self.now.as_secs_f64();
        let dt = self.sampler.interval.as_secs_f64();
        for k in 0..self.probes.len() {
            let v = probes::measure(self, k, dt);
            self.probes[k].series.push(t, v);
        }
    }
}
