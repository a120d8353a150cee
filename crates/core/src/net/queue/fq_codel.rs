//! FQ-CoDel, the FlowQueue-CoDel packet scheduler and AQM (RFC 8290):
//! arrivals are hashed by flow into `flows` queues (§4.1.1), each with
//! its own CoDel (RFC 8289) run at dequeue (§4.2); a deficit round robin
//! of `quantum` bytes serves them, flows that have just become active
//! (the new-flows list) before the backlogged ones (the old-flows list)
//! (§4.2, §4.3, the pseudocode of §4.1 and §4.2 as Linux's
//! `net/sched/sch_fq_codel.c`). When the whole queue holds more than
//! `limit`, the head PDU of the queue with the most bytes is dropped
//! (§4.1.3).
//!
//! A satcc PDU carries a flow id rather than a 5-tuple: the id, mixed with
//! a perturbation drawn once from the queue's random stream (as Linux's
//! `perturbation` seed of its hash), is hashed into a bucket, so that
//! flows collide as they would under a real hash and runs stay
//! reproducible.

use super::codel::{CodelParams, CodelSource, CodelState};
use super::fifo::{level, Fifo};
use super::{Dequeued, Limit, Occupancy, QueueDiscipline, Verdict};
use crate::engine::{Check, ConfigError, Duration, RngStream, Time};
use crate::net::pdu::{ecn, Pdu};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// FQ-CoDel's parameters in a scenario description
/// (`queue.type = "fq_codel"`).
#[derive(Copy, Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FqCodelConfig {
    /// The most the queues hold together (RFC 8290 §5.1.2: 10240
    /// packets); beyond it the fattest queue loses its head.
    pub limit: Limit,
    /// Number of flow queues the flow ids hash into (§5.1.3: 1024).
    pub flows: u32,
    /// Bytes a queue may send per round (§5.1.1: 1514).
    pub quantum_bytes: u32,
    /// CoDel's target in each queue (§5.2: 5 ms).
    pub target_ps: Duration,
    /// CoDel's interval in each queue (§5.2: 100 ms).
    pub interval_ps: Duration,
    /// Marks ECN-capable PDUs instead of dropping them at dequeue (§5.2).
    pub ecn: bool,
    /// Marks every ECN-capable PDU that waited longer than this, whatever
    /// CoDel decides (Linux's `ce_threshold`, for DCTCP-style senders);
    /// `None`: off.
    #[serde(default)]
    pub ce_threshold_ps: Option<Duration>,
}

impl Check for FqCodelConfig {
    fn check(&self) -> Result<(), ConfigError> {
        if self.target_ps.ps() == 0 || self.interval_ps.ps() == 0 {
            return Err("queue: fq_codel's target and interval must be positive".into());
        }
        if self.flows == 0 {
            return Err("queue: fq_codel's flows must be at least 1".into());
        }
        if self.quantum_bytes == 0 {
            return Err("queue: fq_codel's quantum must be positive".into());
        }
        if self.ce_threshold_ps.is_some_and(|t| t.ps() == 0) {
            return Err("queue: fq_codel's ce_threshold must be positive".into());
        }
        if matches!(self.limit, Limit::Packets(0) | Limit::Bytes(0)) {
            return Err("queue: fq_codel's limit must be positive".into());
        }
        Ok(())
    }
}

/// Which scheduling list a flow queue is on (§4.2).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum List {
    /// Inactive: on neither list.
    None,
    New,
    Old,
}

/// One flow queue: its PDUs, its CoDel, its DRR deficit.
#[derive(Clone, Debug)]
struct FlowQueue {
    fifo: Fifo,
    codel: CodelState,
    deficit: i64,
    list: List,
}

/// What all the flow queues hold together.
#[derive(Clone, Debug, Default)]
struct Totals {
    packets: u64,
    bytes: u64,
    by_priority: [u64; 2],
}

impl Totals {
    fn take(&mut self, p: &Pdu) {
        self.packets -= 1;
        self.bytes -= u64::from(p.bytes);
        self.by_priority[level(p)] -= 1;
    }
}

/// One flow queue seen by its CoDel, keeping the totals in step; the
/// `maxpacket` rule looks at the whole backlog, as Linux's does.
struct Source<'a> {
    fifo: &'a mut Fifo,
    totals: &'a mut Totals,
}

impl CodelSource for Source<'_> {
    fn pop_head(&mut self) -> Option<Pdu> {
        let p = self.fifo.pop()?;
        self.totals.take(&p);
        Some(p)
    }

    fn backlog(&self) -> u64 {
        self.totals.bytes
    }
}

/// An FQ-CoDel queue.
#[derive(Clone, Debug)]
pub struct FqCodel {
    cfg: FqCodelConfig,
    queues: Vec<FlowQueue>,
    new_flows: VecDeque<u32>,
    old_flows: VecDeque<u32>,
    totals: Totals,
    /// The hash's perturbation, drawn once.
    perturbation: u64,
    /// The largest PDU seen, for every queue's CoDel.
    max_packet: u64,
}

/// SplitMix64's finaliser: every bit of `x` reaches every bit out.
fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

impl FqCodel {
    /// An empty FQ-CoDel queue whose hash perturbation comes from `rng`.
    pub fn new(cfg: FqCodelConfig, mut rng: RngStream) -> FqCodel {
        let q = FlowQueue {
            fifo: Fifo::new(),
            codel: CodelState::default(),
            deficit: 0,
            list: List::None,
        };
        FqCodel {
            cfg,
            queues: vec![q; cfg.flows.max(1) as usize],
            new_flows: VecDeque::new(),
            old_flows: VecDeque::new(),
            totals: Totals::default(),
            perturbation: rng.below(u64::MAX),
            max_packet: 0,
        }
    }

    /// §4.1.1: the queue of flow `flow`, its perturbed hash scaled onto
    /// the buckets (as Linux's `reciprocal_scale`).
    pub(crate) fn bucket(&self, flow: u32) -> usize {
        let h = mix(u64::from(flow) ^ self.perturbation) >> 32;
        ((h * u64::from(self.cfg.flows)) >> 32) as usize
    }

    fn params(&self) -> CodelParams {
        CodelParams {
            target: self.cfg.target_ps,
            interval: self.cfg.interval_ps,
            ecn: self.cfg.ecn,
            max_packet: self.max_packet,
        }
    }

    fn over_limit(&self) -> bool {
        match self.cfg.limit {
            Limit::Packets(n) => self.totals.packets > n,
            Limit::Bytes(n) => self.totals.bytes > n,
        }
    }

    /// §4.1 enqueue: into its flow's queue; a queue that was inactive
    /// joins the new flows with a full quantum. Over the limit, the
    /// fattest queue's head is dropped, to `out`.
    pub(crate) fn push_to(&mut self, p: Pdu, out: &mut Dequeued) {
        self.max_packet = self.max_packet.max(u64::from(p.bytes));
        let i = self.bucket(p.flow);
        self.totals.packets += 1;
        self.totals.bytes += u64::from(p.bytes);
        self.totals.by_priority[level(&p)] += 1;
        let q = &mut self.queues[i];
        q.fifo.push(p);
        if q.list == List::None {
            q.list = List::New;
            q.deficit = i64::from(self.cfg.quantum_bytes);
            self.new_flows.push_back(i as u32);
        }
        while self.over_limit() {
            self.drop_from_fattest(out);
        }
    }

    /// §4.1.3 (Linux `fq_codel_drop`, with a batch of one): the head of
    /// the queue with the most bytes goes.
    fn drop_from_fattest(&mut self, out: &mut Dequeued) {
        let mut fattest = 0;
        for (i, q) in self.queues.iter().enumerate() {
            if q.fifo.bytes > self.queues[fattest].fifo.bytes {
                fattest = i;
            }
        }
        if let Some(p) = self.queues[fattest].fifo.pop() {
            self.totals.take(&p);
            out.overflow += 1;
            out.flows.push(p.flow);
        }
    }

    /// §4.2 dequeue: the first queue of the new flows, else of the old,
    /// with deficit left sends; one out of deficit gets a quantum more
    /// and goes to the end of the old flows; one found empty leaves
    /// (for the old flows, when it was new and old flows wait, so that
    /// it cannot starve them by coming back at once).
    fn dequeue(&mut self, now: Time, out: &mut Dequeued) -> Option<Pdu> {
        let c = self.params();
        loop {
            let (from_new, i) = match self.new_flows.front() {
                Some(&i) => (true, i),
                None => (false, *self.old_flows.front()?),
            };
            let q = &mut self.queues[i as usize];
            if q.deficit <= 0 {
                q.deficit += i64::from(self.cfg.quantum_bytes);
                q.list = List::Old;
                self.pop_list(from_new);
                self.old_flows.push_back(i);
                continue;
            }
            let mut src = Source {
                fifo: &mut q.fifo,
                totals: &mut self.totals,
            };
            match q.codel.dequeue(&mut src, now, &c, out) {
                Some(mut p) => {
                    q.deficit -= i64::from(p.bytes);
                    if let Some(threshold) = self.cfg.ce_threshold_ps {
                        mark_above(&mut p, now, threshold, out);
                    }
                    return Some(p);
                }
                None => {
                    self.pop_list(from_new);
                    if from_new && !self.old_flows.is_empty() {
                        self.queues[i as usize].list = List::Old;
                        self.old_flows.push_back(i);
                    } else {
                        self.queues[i as usize].list = List::None;
                    }
                }
            }
        }
    }

    fn pop_list(&mut self, from_new: bool) {
        if from_new {
            self.new_flows.pop_front();
        } else {
            self.old_flows.pop_front();
        }
    }
}

/// Linux's `ce_threshold` (`include/net/codel_impl.h`): an ECT PDU that
/// waited longer than `threshold` leaves marked CE; one already CE (CoDel
/// marked it) or Not-ECT is left alone.
fn mark_above(p: &mut Pdu, now: Time, threshold: Duration, out: &mut Dequeued) {
    let ect = p.ecn != ecn::NOT_ECT && p.ecn != ecn::CE;
    if ect && now.since(p.enqueued) > threshold {
        p.ecn = ecn::CE;
        out.marks += 1;
    }
}

impl QueueDiscipline for FqCodel {
    /// Every arrival enters: room is made by dropping from the fattest
    /// queue (`push_to`).
    fn admission(&self, _p: &Pdu) -> Verdict {
        Verdict::Queued
    }

    /// `push_to` without the drops' flows (tests).
    fn push(&mut self, p: Pdu, _now: Time) {
        self.push_to(p, &mut Dequeued::default());
    }

    fn pop(&mut self, now: Time, out: &mut Dequeued) -> Option<Pdu> {
        self.dequeue(now, out)
    }
}

impl Occupancy for FqCodel {
    fn packets(&self) -> u64 {
        self.totals.packets
    }

    fn packets_at(&self, level: usize) -> u64 {
        self.totals.by_priority[level.min(1)]
    }

    fn bytes(&self) -> u64 {
        self.totals.bytes
    }

    fn for_each_waiting(&self, f: &mut dyn FnMut(&Pdu)) {
        for q in &self.queues {
            q.fifo.for_each(f);
        }
    }
}

#[cfg(test)]
mod tests;
