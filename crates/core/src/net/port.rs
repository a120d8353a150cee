//! What sits at a link's input: the hook through which switch algorithms,
//! policers and congestion detectors see the traffic of a link.
//!
//! A port sees every PDU offered to its link before the queue does
//! (`ingress`): it may count it, mark it, drop it, or hold it to release it
//! into the link later (a peak-rate spacer). It also sees the feedback
//! travelling back towards the sources of that traffic (`backward`: an
//! ABR backward RM cell passing the port's node, whose explicit rate an
//! ERICA+ port lowers). It may keep a timer of its own (`poll_at`/`poll`,
//! an averaging interval) and send PDUs of its own from the link's node
//! (backward congestion cells). Like every model it is passive: the
//! driver supplies the time and moves the PDUs.

use super::iface::Outbox;
use super::link::Link;
use super::pdu::Pdu;
use crate::engine::Time;

/// What happens to a PDU offered to a port's link.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Admit {
    /// On to the link's queue (the port may have changed it: CLP marking).
    Pass,
    /// Discarded by the port.
    Drop,
    /// Kept by the port, which releases it into the link later.
    Hold,
}

/// What a port may act on and send while it handles a PDU or its timer.
pub struct PortCx<'a> {
    /// The time of the PDU or timer at hand.
    pub now: Time,
    /// The link this port feeds, as it is before the PDU at hand is queued.
    pub link: &'a Link,
    /// PDUs the port sends from the link's node (e.g. towards a source).
    pub(crate) out: &'a mut Outbox,
    /// Held PDUs the port releases into its link, in order.
    pub(crate) release: &'a mut Vec<Pdu>,
    /// PDUs the port discarded other than by answering `Drop` to their
    /// `ingress` (a held PDU a later stage refused): counted as dropped.
    pub(crate) discarded: &'a mut Vec<Pdu>,
}

/// What sits at a link's input (an ERICA+ switch port, an explicit-rate
/// feedback point, a Quick-Start agent, a policer, a congestion detector):
/// it sees every PDU offered to the link before the queue does, and the
/// feedback travelling back to the sources of the link's traffic.
pub trait Port {
    /// A PDU offered to the port's link.
    fn ingress(&mut self, cx: &mut PortCx<'_>, pdu: &mut Pdu) -> Admit;

    /// Feedback (`Pdu::is_feedback`) passing the port's node on its way back
    /// to a source whose traffic this link carries.
    fn backward(&mut self, _now: Time, _pdu: &mut Pdu) {}

    /// When the port's own timer is next due.
    fn poll_at(&self) -> Time {
        Time::NEVER
    }

    /// The port's timer.
    fn poll(&mut self, _cx: &mut PortCx<'_>) {}

    /// Calls `f` for every PDU the port holds (end-of-run accounting).
    fn for_each_held(&self, _f: &mut dyn FnMut(&Pdu)) {}
}

/// Ports in series at one link's input (a policer in front of a congestion
/// detector): a PDU passes each stage in order, and one a stage held and
/// later releases goes on through the stages after it before it reaches
/// the queue. A later stage that refuses a released PDU has it counted as
/// discarded.
pub(crate) struct PortChain<P: Port> {
    pub(crate) stages: Vec<P>,
    /// Scratch for what a stage releases, reused between calls.
    scratch: Vec<Pdu>,
}

impl<P: Port> PortChain<P> {
    pub(crate) fn new(stages: Vec<P>) -> PortChain<P> {
        PortChain {
            stages,
            scratch: Vec::new(),
        }
    }

    /// Runs `f` on stage `k` with a context whose releases are collected,
    /// then passes each released PDU through the stages after `k`.
    fn at_stage<R>(
        &mut self,
        k: usize,
        cx: &mut PortCx<'_>,
        f: impl FnOnce(&mut P, &mut PortCx<'_>) -> R,
    ) -> R {
        let mut released = std::mem::take(&mut self.scratch);
        let result = {
            let mut sub = PortCx {
                now: cx.now,
                link: cx.link,
                out: cx.out,
                release: &mut released,
                discarded: cx.discarded,
            };
            f(&mut self.stages[k], &mut sub)
        };
        // Mostly empty; a drain of PDUs costs even then (drop glue).
        if !released.is_empty() {
            for mut p in released.drain(..) {
                match self.pass_from(k + 1, cx, &mut p) {
                    Admit::Pass => cx.release.push(p),
                    Admit::Drop => cx.discarded.push(p),
                    Admit::Hold => {}
                }
            }
        }
        self.scratch = released;
        result
    }

    /// A PDU entering the chain at stage `k`.
    fn pass_from(&mut self, k: usize, cx: &mut PortCx<'_>, pdu: &mut Pdu) -> Admit {
        for i in k..self.stages.len() {
            let admit = self.at_stage(i, cx, |stage, sub| stage.ingress(sub, pdu));
            if admit != Admit::Pass {
                return admit;
            }
        }
        Admit::Pass
    }
}

impl<P: Port> Port for PortChain<P> {
    fn ingress(&mut self, cx: &mut PortCx<'_>, pdu: &mut Pdu) -> Admit {
        self.pass_from(0, cx, pdu)
    }

    fn backward(&mut self, now: Time, pdu: &mut Pdu) {
        for s in &mut self.stages {
            s.backward(now, pdu);
        }
    }

    fn poll_at(&self) -> Time {
        self.stages
            .iter()
            .map(|s| s.poll_at())
            .min()
            .unwrap_or(Time::NEVER)
    }

    fn poll(&mut self, cx: &mut PortCx<'_>) {
        for k in 0..self.stages.len() {
            if self.stages[k].poll_at() <= cx.now {
                self.at_stage(k, cx, |stage, sub| stage.poll(sub));
            }
        }
    }

    fn for_each_held(&self, f: &mut dyn FnMut(&Pdu)) {
        for s in &self.stages {
            s.for_each_held(f);
        }
    }
}

/// Ports for tests of the mechanisms ports plug into (here and in the
/// world's port dispatch).
#[cfg(test)]
pub(crate) mod testing {
    use super::*;
    use crate::engine::{Duration, RngStream};
    use crate::net::capacity::CapacityProcess;
    use crate::net::error_model::ErrorModel;
    use crate::net::iface::Outbox;
    use crate::net::queue::{Limit, Queue};
    use std::collections::VecDeque;

    /// What a port's handlers borrow, for tests: a link of `rate_bps` with
    /// a ten-packet queue, and the buffers the port sends, releases and
    /// discards into.
    pub(crate) struct Bench {
        pub link: Link,
        pub(crate) out: Outbox,
        pub(crate) release: Vec<Pdu>,
        pub(crate) discarded: Vec<Pdu>,
    }

    impl Bench {
        pub(crate) fn new(rate_bps: f64) -> Bench {
            Bench {
                link: Link::new(
                    0,
                    1,
                    Queue::drop_tail(Limit::Packets(10)),
                    CapacityProcess::constant(rate_bps),
                    ErrorModel::new(0.0, 0.0, RngStream::new(1, "l")),
                    Duration::ZERO,
                ),
                out: Outbox::default(),
                release: Vec::new(),
                discarded: Vec::new(),
            }
        }

        /// The handlers' context at `now`.
        pub(crate) fn cx(&mut self, now: Time) -> PortCx<'_> {
            PortCx {
                now,
                link: &self.link,
                out: &mut self.out,
                release: &mut self.release,
                discarded: &mut self.discarded,
            }
        }
    }

    /// Holds up to `limit` PDUs, drops the rest, and releases one per `gap`.
    pub(crate) struct Spacer {
        gap: Duration,
        limit: usize,
        held: VecDeque<Pdu>,
        next: Time,
    }

    impl Spacer {
        pub(crate) fn new(gap: Duration, limit: usize) -> Spacer {
            Spacer {
                gap,
                limit,
                held: VecDeque::new(),
                next: Time::ZERO,
            }
        }
    }

    impl Port for Spacer {
        fn ingress(&mut self, _cx: &mut PortCx<'_>, pdu: &mut Pdu) -> Admit {
            if self.held.len() >= self.limit {
                return Admit::Drop;
            }
            self.held.push_back(std::mem::take(pdu));
            Admit::Hold
        }

        fn poll_at(&self) -> Time {
            if self.held.is_empty() {
                Time::NEVER
            } else {
                self.next
            }
        }

        fn poll(&mut self, cx: &mut PortCx<'_>) {
            if cx.now >= self.next {
                if let Some(p) = self.held.pop_front() {
                    cx.release.push(p);
                    self.next = cx.now + self.gap;
                }
            }
        }

        fn for_each_held(&self, f: &mut dyn FnMut(&Pdu)) {
            self.held.iter().for_each(f);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Duration;
    use testing::{Bench, Spacer};

    /// Drops odd sequence numbers, marks the rest and counts what it saw.
    #[derive(Default)]
    struct OddDropper {
        seen: Vec<u64>,
    }

    impl Port for OddDropper {
        fn ingress(&mut self, _cx: &mut PortCx<'_>, pdu: &mut Pdu) -> Admit {
            self.seen.push(pdu.seq);
            if pdu.seq % 2 == 1 {
                return Admit::Drop;
            }
            pdu.set_clp(1);
            Admit::Pass
        }
    }

    enum Stage {
        Spacer(Spacer),
        Dropper(OddDropper),
    }

    impl Port for Stage {
        fn ingress(&mut self, cx: &mut PortCx<'_>, pdu: &mut Pdu) -> Admit {
            match self {
                Stage::Spacer(s) => s.ingress(cx, pdu),
                Stage::Dropper(d) => d.ingress(cx, pdu),
            }
        }
        fn poll_at(&self) -> Time {
            match self {
                Stage::Spacer(s) => s.poll_at(),
                Stage::Dropper(d) => d.poll_at(),
            }
        }
        fn poll(&mut self, cx: &mut PortCx<'_>) {
            match self {
                Stage::Spacer(s) => s.poll(cx),
                Stage::Dropper(d) => d.poll(cx),
            }
        }
        fn for_each_held(&self, f: &mut dyn FnMut(&Pdu)) {
            if let Stage::Spacer(s) = self {
                s.for_each_held(f)
            }
        }
    }

    #[test]
    fn released_pdus_pass_the_later_stages_before_the_queue() {
        let mut bench = Bench::new(1e6);
        let mut chain = PortChain::new(vec![
            Stage::Spacer(Spacer::new(Duration::from_millis(1), usize::MAX)),
            Stage::Dropper(OddDropper::default()),
        ]);
        let mut cx = bench.cx(Time::ZERO);
        for seq in 0..4 {
            let mut p = Pdu {
                seq,
                ..Pdu::default()
            };
            assert_eq!(chain.ingress(&mut cx, &mut p), Admit::Hold);
        }
        let mut held = 0;
        chain.for_each_held(&mut |_| held += 1);
        assert_eq!(held, 4);
        // Released one per ms; the dropper sees each as it is released.
        let mut t = Time::ZERO;
        while chain.poll_at() != Time::NEVER {
            t = chain.poll_at();
            cx.now = t;
            chain.poll(&mut cx);
        }
        assert_eq!(t, Time(3_000_000_000));
        assert_eq!(
            cx.release
                .iter()
                .map(|p| (p.seq, p.clp()))
                .collect::<Vec<_>>(),
            [(0, 1), (2, 1)]
        );
        assert_eq!(
            cx.discarded.iter().map(|p| p.seq).collect::<Vec<_>>(),
            [1, 3]
        );
        match &chain.stages[1] {
            Stage::Dropper(d) => assert_eq!(d.seen, [0, 1, 2, 3]),
            _ => unreachable!(),
        }
    }
}
