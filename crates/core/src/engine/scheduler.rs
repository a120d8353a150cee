//! The event scheduler: one wake-up slot per component, ordered by
//! (time, scheduling sequence).
//!
//! Every component (a link, a source, a TCP socket...) owns one slot and
//! keeps it set to its next wake-up (`poll_at`). Equal times run in the order
//! the wake-ups were requested, which makes runs deterministic.
//!
//! Rescheduling is cheap because protocols reset timers constantly (TCP moves
//! its retransmission timer on every ACK): moving a wake-up *later* only
//! records the new deadline; the heap entry already there fires early, sees
//! the later deadline and re-inserts itself once. Moving it *earlier* pushes a
//! new entry and the old one is recognised as stale by its generation number.
//!
//! The entry a `pop` returns stays at the top of the heap until the next
//! heap operation: most events end with their component rescheduling
//! itself, and that next entry then simply replaces the top (one sift down
//! instead of a removal and an insertion). Entries are ordered by a unique
//! (time, sequence) key, so the order of events does not depend on the
//! shape of the heap.

use super::time::Time;

/// Handle of a component's wake-up slot.
pub type Slot = u32;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct Entry {
    time: u64,
    seq: u64,
    slot: Slot,
    gen: u32,
}

impl Entry {
    /// Earlier time first, then earlier request: keys are unique.
    #[inline(always)]
    fn before(&self, other: &Entry) -> bool {
        (self.time, self.seq) < (other.time, other.seq)
    }
}

/// A binary min-heap of entries. Its own rather than std's `BinaryHeap`
/// because the scheduler's commonest operation is replacing the top with a
/// component's next wake-up: here the new entry sifts down from registers
/// ("hole" moves) instead of being written through `peek_mut` and read
/// back. On B1 this is about 3 % faster than std's heap; four or eight
/// children per node, and a radix heap, were slower (BENCHMARKS.md).
#[derive(Default)]
struct Heap {
    v: Vec<Entry>,
}

impl Heap {
    #[cfg(test)]
    fn len(&self) -> usize {
        self.v.len()
    }

    fn peek(&self) -> Option<&Entry> {
        self.v.first()
    }

    fn push(&mut self, e: Entry) {
        self.v.push(e);
        self.sift_up(self.v.len() - 1, e);
    }

    /// Replaces the top with `e`.
    fn replace_top(&mut self, e: Entry) {
        debug_assert!(!self.v.is_empty());
        self.sift_down(0, e);
    }

    fn pop(&mut self) -> Option<Entry> {
        let last = self.v.pop()?;
        if self.v.is_empty() {
            return Some(last);
        }
        let top = self.v[0];
        self.sift_down(0, last);
        Some(top)
    }

    /// Puts `e` at `pos` or above it, moving larger parents down.
    #[inline]
    fn sift_up(&mut self, mut pos: usize, e: Entry) {
        while pos > 0 {
            let parent = (pos - 1) / 2;
            let p = self.v[parent];
            if !e.before(&p) {
                break;
            }
            self.v[pos] = p;
            pos = parent;
        }
        self.v[pos] = e;
    }

    /// Puts `e` at `pos` or below it, moving smaller children up.
    #[inline]
    fn sift_down(&mut self, mut pos: usize, e: Entry) {
        let n = self.v.len();
        loop {
            let first = 2 * pos + 1;
            if first >= n {
                break;
            }
            let second = first + 1;
            let best = if second < n && self.v[second].before(&self.v[first]) {
                second
            } else {
                first
            };
            let b = self.v[best];
            if !b.before(&e) {
                break;
            }
            self.v[pos] = b;
            pos = best;
        }
        self.v[pos] = e;
    }
}

#[derive(Copy, Clone, Debug)]
struct SlotState {
    /// Requested wake-up, `u64::MAX` when none.
    deadline: u64,
    /// Sequence number of the request that set `deadline`.
    seq: u64,
    /// Time of this slot's live heap entry, `u64::MAX` when it has none.
    heap_time: u64,
    gen: u32,
}

const NONE: u64 = u64::MAX;

/// The event scheduler: one wake-up slot per component, events in order of
/// time and, at equal times, of when they were asked for.
#[derive(Default)]
pub struct Scheduler {
    heap: Heap,
    slots: Vec<SlotState>,
    next_seq: u64,
    /// The heap's top is the entry `pop` last returned, not yet removed.
    popped_top: bool,
}

impl Scheduler {
    /// A scheduler with no slots.
    pub fn new() -> Scheduler {
        Scheduler::default()
    }

    pub(crate) fn add_slot(&mut self) -> Slot {
        self.slots.push(SlotState {
            deadline: NONE,
            seq: 0,
            heap_time: NONE,
            gen: 0,
        });
        (self.slots.len() - 1) as Slot
    }

    /// Sets the slot's wake-up to `t`, replacing any earlier request;
    /// `Time::NEVER` cancels it.
    pub(crate) fn schedule(&mut self, slot: Slot, t: Time) {
        if t == Time::NEVER {
            self.cancel(slot);
            return;
        }
        let seq = self.next_seq;
        self.next_seq += 1;
        let s = &mut self.slots[slot as usize];
        s.deadline = t.0;
        s.seq = seq;
        if s.heap_time != NONE && s.heap_time < t.0 {
            return; // the live entry fires first and re-inserts itself
        }
        s.gen = s.gen.wrapping_add(1);
        s.heap_time = t.0;
        let e = Entry {
            time: t.0,
            seq,
            slot,
            gen: s.gen,
        };
        if self.popped_top {
            self.popped_top = false;
            self.heap.replace_top(e);
        } else {
            self.heap.push(e);
        }
    }

    /// Removes the entry `pop` returned, if it is still at the top.
    fn drop_popped(&mut self) {
        if self.popped_top {
            self.popped_top = false;
            self.heap.pop();
        }
    }

    /// Schedules only when `t` differs from the pending wake-up: the common
    /// case of a component whose next event did not move costs nothing.
    pub(crate) fn update(&mut self, slot: Slot, t: Time) {
        let d = self.slots[slot as usize].deadline;
        if d != t.0 {
            self.schedule(slot, t);
        }
    }

    pub(crate) fn cancel(&mut self, slot: Slot) {
        self.slots[slot as usize].deadline = NONE;
    }

    /// The pending wake-up of a slot.
    #[cfg(test)]
    pub(crate) fn pending(&self, slot: Slot) -> Option<Time> {
        let d = self.slots[slot as usize].deadline;
        (d != NONE).then_some(Time(d))
    }

    /// Removes and returns the next due wake-up.
    pub(crate) fn pop(&mut self) -> Option<(Time, Slot)> {
        self.drop_popped();
        while let Some(&e) = self.heap.peek() {
            let s = &mut self.slots[e.slot as usize];
            if e.gen != s.gen {
                self.heap.pop(); // superseded by an earlier request
                continue;
            }
            s.heap_time = NONE;
            if s.deadline == NONE {
                self.heap.pop(); // cancelled
                continue;
            }
            if s.deadline > e.time {
                // Moved later since this entry was pushed: re-insert once.
                s.heap_time = s.deadline;
                let later = Entry {
                    time: s.deadline,
                    seq: s.seq,
                    slot: e.slot,
                    gen: s.gen,
                };
                self.heap.replace_top(later);
                continue;
            }
            s.deadline = NONE;
            self.popped_top = true;
            return Some((Time(e.time), e.slot));
        }
        None
    }

    /// Time of the next due wake-up, without removing it.
    pub(crate) fn peek_time(&mut self) -> Option<Time> {
        self.drop_popped();
        // Settle stale and postponed entries so the top is a real wake-up.
        loop {
            let e = *self.heap.peek()?;
            let s = &mut self.slots[e.slot as usize];
            if e.gen != s.gen || s.deadline == NONE {
                if e.gen == s.gen {
                    s.heap_time = NONE;
                }
                self.heap.pop();
                continue;
            }
            if s.deadline > e.time {
                self.heap.pop();
                s.heap_time = s.deadline;
                let (time, seq, gen) = (s.deadline, s.seq, s.gen);
                self.heap.push(Entry {
                    time,
                    seq,
                    slot: e.slot,
                    gen,
                });
                continue;
            }
            return Some(Time(e.time));
        }
    }

    /// Number of entries in the heap, live or stale (for memory checks).
    #[cfg(test)]
    pub(crate) fn heap_len(&self) -> usize {
        self.heap.len() - usize::from(self.popped_top)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drain(s: &mut Scheduler) -> Vec<(u64, Slot)> {
        std::iter::from_fn(|| s.pop().map(|(t, k)| (t.0, k))).collect()
    }

    #[test]
    fn orders_by_time_then_request_order() {
        let mut s = Scheduler::new();
        let a = s.add_slot();
        let b = s.add_slot();
        let c = s.add_slot();
        s.schedule(c, Time(5));
        s.schedule(b, Time(3));
        s.schedule(a, Time(5));
        assert_eq!(drain(&mut s), vec![(3, b), (5, c), (5, a)]);
    }

    #[test]
    fn moving_later_fires_once_at_new_time() {
        let mut s = Scheduler::new();
        let a = s.add_slot();
        s.schedule(a, Time(10));
        s.schedule(a, Time(20));
        s.schedule(a, Time(30));
        assert_eq!(s.heap_len(), 1);
        assert_eq!(drain(&mut s), vec![(30, a)]);
    }

    #[test]
    fn moving_earlier_supersedes() {
        let mut s = Scheduler::new();
        let a = s.add_slot();
        s.schedule(a, Time(30));
        s.schedule(a, Time(10));
        assert_eq!(drain(&mut s), vec![(10, a)]);
    }

    #[test]
    fn cancel_and_reschedule() {
        let mut s = Scheduler::new();
        let a = s.add_slot();
        let b = s.add_slot();
        s.schedule(a, Time(10));
        s.schedule(b, Time(15));
        s.cancel(a);
        assert_eq!(s.pending(a), None);
        assert_eq!(s.peek_time(), Some(Time(15)));
        s.schedule(a, Time(12));
        assert_eq!(drain(&mut s), vec![(12, a), (15, b)]);
    }

    #[test]
    fn postponed_slot_keeps_its_request_order() {
        // a requested at 5 after b, then moved: ties at the new time follow
        // the order of the latest requests.
        let mut s = Scheduler::new();
        let a = s.add_slot();
        let b = s.add_slot();
        s.schedule(a, Time(1));
        s.schedule(b, Time(5));
        s.schedule(a, Time(5));
        assert_eq!(drain(&mut s), vec![(5, b), (5, a)]);
    }

    #[test]
    fn randomised_against_reference_model() {
        // Compare with a naive model: a map slot -> (deadline, seq).
        use rand::{RngExt, SeedableRng};
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(7);
        let mut s = Scheduler::new();
        let n = 20;
        for _ in 0..n {
            s.add_slot();
        }
        let mut model: Vec<Option<(u64, u64)>> = vec![None; n];
        let mut seq = 0u64;
        let mut now = 0u64;
        for _ in 0..20_000 {
            let op = rng.random_range(0..10);
            let k = rng.random_range(0..n) as Slot;
            if op < 6 {
                let t = now + rng.random_range(0..50);
                s.schedule(k, Time(t));
                model[k as usize] = Some((t, seq));
                seq += 1;
            } else if op < 7 {
                s.cancel(k);
                model[k as usize] = None;
            } else {
                let want = model
                    .iter()
                    .enumerate()
                    .filter_map(|(i, m)| m.map(|(t, q)| (t, q, i as Slot)))
                    .min();
                let got = s.pop();
                match want {
                    None => assert_eq!(got, None),
                    Some((t, _, i)) => {
                        assert_eq!(got, Some((Time(t), i)));
                        model[i as usize] = None;
                        now = t;
                    }
                }
            }
        }
    }
}
