//! CoDel, Controlled Delay (RFC 8289): a FIFO that judges by the time
//! each PDU waited. Once the sojourn time has stayed at or above `target`
//! for `interval`, it enters a dropping state and drops (or, with `ecn`,
//! marks) at dequeue, the drops spaced `interval / sqrt(count)` apart
//! (the control law, §4.2), until a PDU leaves below `target`. Entering
//! again within 16 intervals of the last drop resumes near the previous
//! count (§5.6's pseudocode, as Linux's `include/net/codel_impl.h`).
//! Nothing is dropped while at most one maximum-size PDU is queued (the
//! `maxpacket` rule; the largest PDU seen stands for the MTU, as in
//! Linux).

use super::fifo::Fifo;
use super::{Dequeued, Limit, OneFifo, QueueDiscipline, Verdict};
use crate::engine::{Check, ConfigError, Duration, Time};
use crate::net::pdu::{ecn, Pdu};
use serde::{Deserialize, Serialize};

/// CoDel's parameters in a scenario description (`queue.type = "codel"`).
#[derive(Copy, Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CodelConfig {
    /// Hard limit: an arrival that does not fit is dropped (overflow).
    pub limit: Limit,
    /// Acceptable standing sojourn time (RFC 8289 §4.4: 5 ms).
    pub target_ps: Duration,
    /// Window over which the sojourn time must stay above `target`
    /// (§4.5: 100 ms).
    pub interval_ps: Duration,
    /// Marks ECN-capable PDUs instead of dropping them (§5.5).
    pub ecn: bool,
}

impl Check for CodelConfig {
    fn check(&self) -> Result<(), ConfigError> {
        if self.target_ps.ps() == 0 || self.interval_ps.ps() == 0 {
            return Err("queue: codel's target and interval must be positive".into());
        }
        Ok(())
    }
}

/// What `dodequeue` found: the head PDU, and whether it may be dropped.
struct Head {
    p: Option<Pdu>,
    ok_to_drop: bool,
}

/// A FIFO of PDUs CoDel's state machine runs over: a CoDel queue's one
/// FIFO, or one flow queue of FQ-CoDel.
pub(super) trait CodelSource {
    /// Takes the head PDU off.
    fn pop_head(&mut self) -> Option<Pdu>;
    /// Bytes left waiting after `pop_head`, for the `maxpacket` rule.
    fn backlog(&self) -> u64;
}

impl CodelSource for Fifo {
    fn pop_head(&mut self) -> Option<Pdu> {
        self.pop()
    }

    fn backlog(&self) -> u64 {
        self.bytes
    }
}

/// The parameters CoDel's state machine judges with.
#[derive(Copy, Clone, Debug)]
pub(super) struct CodelParams {
    pub(super) target: Duration,
    pub(super) interval: Duration,
    pub(super) ecn: bool,
    /// The largest PDU seen: one of these queued is never too many.
    pub(super) max_packet: u64,
}

/// CoDel's per-queue state (RFC 8289 §5.5's variables) and its dequeue,
/// over any `CodelSource`.
#[derive(Clone, Debug, Default)]
pub(super) struct CodelState {
    /// When the sojourn time, above target since, will have been so for
    /// an interval; `None` while below target.
    first_above: Option<Time>,
    /// In the dropping state: the time of the next drop.
    dropping: bool,
    drop_next: Time,
    count: u32,
    last_count: u32,
}

impl CodelState {
    /// `t` plus the control law's spacing at `count` drops (§4.2).
    fn control_law(t: Time, count: u32, c: &CodelParams) -> Time {
        let gap = c.interval.ps() as f64 / f64::from(count.max(1)).sqrt();
        Time(t.ps() + gap as u64)
    }

    /// §5.5 `dodequeue`: the head, and whether the sojourn time has been
    /// above target for at least an interval.
    fn dodequeue(&mut self, q: &mut impl CodelSource, now: Time, c: &CodelParams) -> Head {
        let Some(p) = q.pop_head() else {
            self.first_above = None;
            return Head {
                p: None,
                ok_to_drop: false,
            };
        };
        let sojourn = now.since(p.enqueued);
        let mut ok_to_drop = false;
        if sojourn < c.target || q.backlog() <= c.max_packet {
            self.first_above = None;
        } else {
            match self.first_above {
                None => self.first_above = Some(now + c.interval),
                Some(t) => ok_to_drop = now >= t,
            }
        }
        Head {
            p: Some(p),
            ok_to_drop,
        }
    }

    /// Marks `p` if ECN is on and `p` is ECN-capable; false otherwise.
    fn mark(p: &mut Pdu, c: &CodelParams, out: &mut Dequeued) -> bool {
        if c.ecn && p.ecn != ecn::NOT_ECT {
            p.ecn = ecn::CE;
            out.marks += 1;
            true
        } else {
            false
        }
    }

    fn drop(p: Pdu, out: &mut Dequeued) {
        out.drops += 1;
        out.flows.push(p.flow);
    }

    /// §5.5 `dequeue`: the next PDU of `q` to send; the PDUs dropped or
    /// marked on the way are counted in `out`.
    pub(super) fn dequeue(
        &mut self,
        q: &mut impl CodelSource,
        now: Time,
        c: &CodelParams,
        out: &mut Dequeued,
    ) -> Option<Pdu> {
        let mut r = self.dodequeue(q, now, c);
        let Some(mut p) = r.p else {
            self.dropping = false;
            return None;
        };
        if self.dropping {
            if !r.ok_to_drop {
                self.dropping = false;
            }
            while self.dropping && now >= self.drop_next {
                self.count += 1;
                if Self::mark(&mut p, c, out) {
                    self.drop_next = Self::control_law(self.drop_next, self.count, c);
                    return Some(p);
                }
                Self::drop(p, out);
                r = self.dodequeue(q, now, c);
                let Some(next) = r.p else {
                    self.dropping = false;
                    return None;
                };
                p = next;
                if r.ok_to_drop {
                    self.drop_next = Self::control_law(self.drop_next, self.count, c);
                } else {
                    self.dropping = false;
                }
            }
        } else if r.ok_to_drop {
            if !Self::mark(&mut p, c, out) {
                Self::drop(p, out);
                r = self.dodequeue(q, now, c);
                p = r.p?;
            }
            self.dropping = true;
            // Re-entering soon after leaving: resume near the old rate.
            let delta = self.count.saturating_sub(self.last_count);
            let recent = now.since(self.drop_next).ps() < 16 * c.interval.ps();
            self.count = if delta > 1 && recent { delta } else { 1 };
            self.drop_next = Self::control_law(now, self.count, c);
            self.last_count = self.count;
        }
        Some(p)
    }
}

/// A CoDel queue: CoDel's state over one FIFO.
#[derive(Clone, Debug)]
pub struct Codel {
    fifo: Fifo,
    cfg: CodelConfig,
    state: CodelState,
    /// The largest PDU seen: one of these queued is never too many.
    max_packet: u64,
}

impl Codel {
    /// An empty CoDel queue.
    pub fn new(cfg: CodelConfig) -> Codel {
        Codel {
            fifo: Fifo::new(),
            cfg,
            state: CodelState::default(),
            max_packet: 0,
        }
    }

    fn params(&self) -> CodelParams {
        CodelParams {
            target: self.cfg.target_ps,
            interval: self.cfg.interval_ps,
            ecn: self.cfg.ecn,
            max_packet: self.max_packet,
        }
    }
}

impl QueueDiscipline for Codel {
    fn admission(&self, p: &Pdu) -> Verdict {
        self.fifo.admit_under(self.cfg.limit, p.bytes)
    }

    fn push(&mut self, p: Pdu, _now: Time) {
        self.max_packet = self.max_packet.max(u64::from(p.bytes));
        self.fifo.push(p);
    }

    /// §5.5 `dequeue`.
    fn pop(&mut self, now: Time, out: &mut Dequeued) -> Option<Pdu> {
        let c = self.params();
        self.state.dequeue(&mut self.fifo, now, &c, out)
    }
}

impl OneFifo for Codel {
    fn fifo(&self) -> &Fifo {
        &self.fifo
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::queue::Occupancy;

    const MS: u64 = 1_000_000_000;

    fn codel(ecn: bool) -> Codel {
        Codel::new(CodelConfig {
            limit: Limit::Packets(1000),
            target_ps: Duration(5 * MS),
            interval_ps: Duration(100 * MS),
            ecn,
        })
    }

    /// Times start here, so that a PDU can be `wait_ms` old at once.
    const T0: u64 = 1000;

    /// Keeps 5 PDUs queued, each `wait_ms` old when it enters, served one
    /// per ms (so each waits `wait_ms` + 4 ms in all): the times (ms from
    /// the start) of the drops (or marks) up to `until_ms`.
    fn run(q: &mut Codel, wait_ms: u64, until_ms: u64) -> Vec<u64> {
        let mut out = Dequeued::default();
        let mut events = Vec::new();
        let mut seq = 0;
        for t in 0..until_ms {
            while q.packets() < 5 {
                let p = Pdu {
                    bytes: 1500,
                    seq,
                    enqueued: Time((t + T0 - wait_ms) * MS),
                    ecn: ecn::ECT0,
                    ..Pdu::default()
                };
                seq += 1;
                q.push(p, Time((t + T0) * MS));
            }
            let before = out.drops + out.marks;
            q.pop(Time((t + T0) * MS), &mut out);
            if out.drops + out.marks > before {
                events.push(t);
            }
        }
        events
    }

    #[test]
    fn below_target_nothing_is_dropped() {
        assert!(run(&mut codel(false), 0, 2000).is_empty());
    }

    #[test]
    fn first_drop_one_interval_after_the_sojourn_rises_above_target() {
        let drops = run(&mut codel(false), 20, 1000);
        // Above target from the first dequeue at 0 ms: first drop at 100 ms.
        assert!(drops.len() > 5);
        assert_eq!(drops[0], 100);
    }

    #[test]
    fn drops_come_closer_as_one_over_sqrt_count() {
        let drops = run(&mut codel(false), 20, 3000);
        let gaps: Vec<u64> = drops.windows(2).map(|w| w[1] - w[0]).collect();
        // interval / sqrt(n) for n = 1.. (± 1 ms of dequeue granularity).
        for (n, g) in gaps.iter().enumerate().take(20) {
            let want = 100.0 / ((n + 1) as f64).sqrt();
            assert!((*g as f64 - want).abs() <= 1.5, "gap {n}: {g} vs {want}");
        }
    }

    #[test]
    fn ecn_marks_instead_of_dropping_at_the_same_times() {
        let mut q = codel(true);
        let marks = run(&mut q, 20, 1000);
        assert_eq!(marks, run(&mut codel(false), 20, 1000));
        let mut out = Dequeued::default();
        q.pop(Time((1000 + T0) * MS), &mut out);
        assert!(out.flows.is_empty());
    }

    #[test]
    fn one_mtu_queued_is_never_too_much() {
        let mut q = codel(false);
        let mut out = Dequeued::default();
        for t in 0..1000u64 {
            // One PDU waiting behind the one being served, each 50 ms old.
            while q.packets() < 2 {
                let p = Pdu {
                    bytes: 1500,
                    enqueued: Time(t.saturating_sub(50) * MS),
                    ..Pdu::default()
                };
                q.push(p, Time(t * MS));
            }
            q.pop(Time(t * MS), &mut out);
        }
        assert_eq!(out.drops, 0);
    }

    #[test]
    fn re_entering_soon_resumes_near_the_old_count() {
        let mut q = codel(false);
        run(&mut q, 20, 1000);
        let high = q.state.count;
        assert!(high > 10, "{high}");
        // A short spell below target, then above again.
        let mut out = Dequeued::default();
        let t0 = 1000 + T0;
        while q.packets() > 0 {
            q.pop(Time(t0 * MS), &mut out);
        }
        let p = Pdu {
            bytes: 1500,
            enqueued: Time(t0 * MS),
            ..Pdu::default()
        };
        q.push(p, Time(t0 * MS));
        q.pop(Time(t0 * MS), &mut out);
        assert!(!q.state.dropping);
        run_from(&mut q, t0 + 1, 20, 400);
        // It resumed with the drops of the last spell (count - last_count
        // > 1), not from 1.
        assert!(
            q.state.dropping && q.state.last_count > 1,
            "{}",
            q.state.last_count
        );
    }

    fn run_from(q: &mut Codel, from_ms: u64, wait_ms: u64, for_ms: u64) {
        let mut out = Dequeued::default();
        for t in from_ms..from_ms + for_ms {
            while q.packets() < 5 {
                let p = Pdu {
                    bytes: 1500,
                    enqueued: Time(t.saturating_sub(wait_ms) * MS),
                    ..Pdu::default()
                };
                q.push(p, Time(t * MS));
            }
            q.pop(Time(t * MS), &mut out);
        }
    }
}
