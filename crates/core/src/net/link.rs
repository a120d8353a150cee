//! A one-way point-to-point link: an output queue, a transmitter whose rate
//! follows a capacity process, the framing its physical layer adds to each
//! PDU, an error model applied per PDU by its size on the wire, and a
//! propagation delay line.
//!
//! The link is a passive state machine: `enqueue(now, pdu)` offers a PDU,
//! `poll_at()` says when it next has something to do, and `poll(now, out)`
//! does it, handing arrived PDUs to `out`. The discrete-event scheduler drives
//! it in simulation; a real-time clock can drive the very same code.

use super::capacity::CapacityProcess;
use super::capture::{Capture, Captured};
use super::delay_line::DelayLine;
use super::delay_schedule::DelaySchedule;
use super::error_model::ErrorModel;
use super::framing::Framing;
pub(crate) use super::link_stats::LinkStats;
use super::link_stats::StandingDelay;
use super::pdu::Pdu;
use super::queue::{Dequeued, Queue, Verdict};
use super::slot_schedule::SlotSchedule;
use crate::engine::{Duration, Rate, Time};

/// An empty transmission-time cache: no PDU has `u32::MAX` bytes.
const NO_TX_TIME: (u32, Duration) = (u32::MAX, Duration(0));
/// The window of an AQM link's standing delay: CoDel's default interval
/// (RFC 8289 §4.5), the time a queue is given to drain a burst.
const STANDING_WINDOW: Duration = Duration(100_000_000_000);

/// A fixed-rate transmission whose outcome is decided but not yet booked.
#[derive(Copy, Clone, Debug)]
struct Committed {
    started: Time,
    end: Time,
    bytes: u32,
    priority: u8,
    /// Errors destroyed it: it never enters the delay line, but it is on
    /// the wire until `end` (the link keeps it in `errored_on_wire`).
    errored: bool,
}

/// A PDU being serialised while the capacity may change under it; its end
/// time moves with the rate.
struct InService {
    pdu: Pdu,
    /// Its size on the wire (`Framing::wire_bytes`).
    wire_bytes: u32,
    /// Decided when the transmission starts, as on the fixed-rate path.
    delivered: bool,
    /// Bits still to send as of `since`.
    bits_left: f64,
    since: Time,
}

/// A one-way point-to-point link: output queue, transmitter at the rate of
/// its capacity process, framing, error model and propagation delay.
pub struct Link {
    pub(crate) from: u32,
    pub(crate) to: u32,
    queue: Queue,
    capacity: CapacityProcess,
    errors: ErrorModel,
    framing: Framing,
    line: DelayLine,
    /// Transmission in progress over a changing capacity, ending at `tx_end`.
    in_service: Option<InService>,
    tx_end: Time,
    /// The transmission in progress at a fixed rate, if any. Its PDU is
    /// already in the delay line (arrival time known at the start), so it
    /// costs no event of its own: a link at low load costs one event per PDU
    /// instead of two. Its statistics are booked when it ends (`settle`).
    committed: Option<Committed>,
    /// The committed transmission's PDU when errors destroyed it, held for
    /// end-of-run accounting. Apart from `Committed` so that the common,
    /// intact transmission copies 40 bytes, not 150.
    errored_on_wire: Option<Pdu>,
    /// The capacity process's current rate and next change, cached: they
    /// are read several times per PDU and change rarely.
    rate: Rate,
    next_change: Time,
    /// The last PDU size sent at `rate` and its transmission time: links
    /// mostly carry PDUs of one or two sizes, and the time costs a division
    /// and a rounding call. Cleared when the rate changes.
    tx_time_cache: (u32, Duration),
    /// ∫ rate dt up to the last capacity change, in bits, and that change.
    capacity_bits: f64,
    capacity_since: Time,
    /// What it counted: arrivals, transmissions, drops, errors, queue
    /// occupancy and waits (the `links.NAME.*` summary keys).
    pub stats: LinkStats,
    /// Flows of the PDUs lost to errors since the driver last took them
    /// (`take_errored`): it books them per flow.
    errored: Vec<u32>,
    /// When the last fixed-rate transmission ends (set as it starts) or the
    /// last variable-rate one ended: from then on the link is idle if
    /// nothing is waiting (RED's decay of its average).
    last_tx_end: Time,
    /// What the queue dropped or marked at dequeue (CoDel); the flows of
    /// the drops wait here until the driver takes them (`take_dropped`).
    pub(crate) dequeued: Dequeued,
    /// The PDUs put on the wire, when a trace captures the link; boxed, so
    /// that a link without one grows by a pointer only.
    capture: Option<Box<Capture>>,
}

impl Link {
    /// A link from node `from` to node `to`, unframed, with this queue,
    /// capacity, error model and propagation delay.
    pub fn new(
        from: u32,
        to: u32,
        queue: Queue,
        capacity: CapacityProcess,
        errors: ErrorModel,
        delay: Duration,
    ) -> Link {
        let (rate, next_change) = (capacity.rate(), capacity.next_change());
        let mut stats = LinkStats::default();
        if queue.is_aqm() {
            stats.standing = Some(Box::new(StandingDelay::new(STANDING_WINDOW.ps())));
        }
        Link {
            from,
            to,
            queue,
            capacity,
            errors,
            framing: Framing::None,
            line: DelayLine::new(delay),
            in_service: None,
            tx_end: Time::NEVER,
            committed: None,
            errored_on_wire: None,
            rate,
            next_change,
            tx_time_cache: NO_TX_TIME,
            capacity_bits: 0.0,
            capacity_since: Time::ZERO,
            stats,
            errored: Vec::new(),
            last_tx_end: Time::ZERO,
            dequeued: Dequeued::default(),
            capture: None,
        }
    }

    /// Records every PDU this link starts to transmit from now on, up to
    /// `max_packets` of them (`net::capture`).
    pub(crate) fn capture(&mut self, max_packets: u64) {
        self.capture = Some(Box::new(Capture::new(max_packets)));
    }

    /// What the capture holds at `now`, the end of the run: the
    /// transmissions that started and ended (`Capture::view`).
    pub(crate) fn captured(&self, now: Time) -> Option<Captured<'_>> {
        let c = self.capture.as_deref()?;
        Some(c.view(self.transmitting(now)))
    }

    /// The link with its propagation delay following `schedule`.
    pub(crate) fn with_delay_schedule(mut self, schedule: DelaySchedule) -> Link {
        self.line = DelayLine::scheduled(schedule);
        self
    }

    /// The propagation delay at `t`; none while the path does not exist.
    pub(crate) fn delay_at(&self, t: Time) -> Option<Duration> {
        self.line.delay_at(t)
    }

    /// Whether the propagation delay changes over time.
    pub(crate) fn has_delay_schedule(&self) -> bool {
        self.line.is_scheduled()
    }

    /// The link with this framing: every PDU is sent, and exposed to bit
    /// errors, at its size on the wire; `tx_bytes` counts wire bytes.
    pub(crate) fn with_framing(mut self, framing: Framing) -> Link {
        self.framing = framing;
        self
    }

    pub(crate) fn rate(&self) -> Rate {
        self.rate
    }

    /// Replaces the capacity process before the run starts (a DVB-RCS
    /// channel giving its terminals' uplinks their slots).
    pub(crate) fn set_capacity(&mut self, capacity: CapacityProcess) {
        debug_assert!(self.in_service.is_none() && self.stats.arrival_bytes == 0);
        self.rate = capacity.rate();
        self.next_change = capacity.next_change();
        self.capacity = capacity;
        self.tx_time_cache = NO_TX_TIME;
    }

    /// The slot schedule of a link with a slotted capacity, to give it the
    /// runs of later epochs (a TBTP). Plans only ever concern epochs not
    /// yet begun and every epoch boundary is a change instant, so the
    /// cached rate and next change stay right.
    pub(crate) fn slots_mut(&mut self) -> Option<&mut SlotSchedule> {
        self.capacity.slots_mut()
    }

    /// The rate of the slots a slotted link owns now (the run's share of
    /// its period), `None` for other capacities.
    pub(crate) fn slot_share_bps(&self) -> Option<f64> {
        let s = self.capacity.slots()?;
        let g = s.grid();
        Some(g.rate_bps * f64::from(s.run().count) / f64::from(g.slots_per_period))
    }

    /// Its output queue.
    pub fn queue(&self) -> &Queue {
        &self.queue
    }

    fn transmitting(&self, now: Time) -> bool {
        self.in_service.is_some() || self.busy_until() > now
    }

    /// End of the fixed-rate transmission in progress (or of the last one).
    fn busy_until(&self) -> Time {
        self.committed.map_or(Time::ZERO, |c| c.end)
    }

    /// Offers a PDU to the link at `now`.
    pub fn enqueue(&mut self, now: Time, mut pdu: Pdu) -> Verdict {
        // Whatever is due at this very instant (a transmission ending, a
        // capacity change) happens before the arrival, whichever of the two
        // events the scheduler ran first.
        self.catch_up(now);
        self.stats.arrivals += 1;
        self.stats.arrival_bytes += u64::from(pdu.bytes);
        pdu.enqueued = now;
        let (in_service, end, rate) = (&self.in_service, self.last_tx_end, self.rate);
        let v = self.queue.admit(&mut pdu, now, || {
            // Idle since the last transmission ended (an AQM's decay).
            (in_service.is_none() && end <= now).then(|| (now.since(end), rate))
        });
        if v == Verdict::Marked {
            return self.enqueue_marked(now, pdu);
        }
        if v == Verdict::Queued
            && !self.transmitting(now)
            && self.queue.packets() == 0
            && self.rate().bps > 0.0
        {
            self.start_tx(now, pdu);
            return v;
        }
        match v {
            Verdict::Queued | Verdict::Marked => self.push_admitted(now, pdu),
            Verdict::DroppedFull => self.stats.drops += 1,
            Verdict::DroppedClp => self.stats.drops_clp += 1,
            Verdict::DroppedEarly => self.stats.drops_early += 1,
        }
        v
    }

    /// A PDU admitted with a CE mark (an AQM's `Verdict::Marked`): counted,
    /// then sent or queued as any admitted one. Apart, so that drop-tail's
    /// path tests one verdict only.
    #[cold]
    fn enqueue_marked(&mut self, now: Time, pdu: Pdu) -> Verdict {
        self.stats.marks += 1;
        if !self.transmitting(now) && self.queue.packets() == 0 && self.rate().bps > 0.0 {
            self.start_tx(now, pdu);
        } else {
            self.push_admitted(now, pdu);
        }
        Verdict::Marked
    }

    #[inline]
    fn push_admitted(&mut self, now: Time, pdu: Pdu) {
        // A level's queue only grows here, so its maximum is kept here.
        let level = usize::from(pdu.priority().min(1));
        self.queue.push_admitted(pdu, now, &mut self.dequeued);
        let m = &mut self.stats.queue_max_by_priority[level];
        *m = (*m).max(self.queue.packets_at(level));
        self.note_queue(now);
    }

    /// When the link next needs `poll`: the end of a transmission with PDUs
    /// waiting behind it, the arrival of the head of the delay line, or a
    /// capacity change.
    pub fn poll_at(&self) -> Time {
        let next_start =
            if self.queue.packets() > 0 && self.in_service.is_none() && self.rate().bps > 0.0 {
                self.busy_until()
            } else {
                Time::NEVER
            };
        self.tx_end
            .min(next_start)
            .min(self.line.head_arrival())
            .min(self.next_change)
    }

    /// Does everything due at `now`; PDUs arriving at the far end go to `out`.
    pub fn poll(&mut self, now: Time, out: &mut Vec<Pdu>) {
        if let Some(p) = self.poll_one(now) {
            out.push(p);
            while let Some(p) = self.line.pop_arrived(now) {
                out.push(p);
            }
        }
    }

    /// `poll` for the common case of one arrival per event: does everything
    /// due at `now` and returns the first PDU arriving at the far end; the
    /// caller takes any others with `pop_arrived`.
    #[inline]
    pub(crate) fn poll_one(&mut self, now: Time) -> Option<Pdu> {
        self.catch_up(now);
        self.line.pop_arrived(now)
    }

    /// The next PDU arriving at the far end by `now`, after `poll_one`.
    #[inline]
    pub(crate) fn pop_arrived(&mut self, now: Time) -> Option<Pdu> {
        self.line.pop_arrived(now)
    }

    /// Brings the transmitter up to `now`: a transmission ending now ends
    /// at the rate it was sent with, then capacity changes apply, then the
    /// next PDU starts.
    fn catch_up(&mut self, now: Time) {
        if self.tx_end > now && self.next_change > now && self.busy_until() > now {
            return; // mid-transmission, nothing due: the common case under load
        }
        if self.tx_end <= now {
            self.finish_variable_rate_tx(now);
        }
        while self.next_change <= now {
            self.change_capacity(now);
            if self.tx_end <= now {
                self.finish_variable_rate_tx(now);
            }
        }
        self.settle(now);
        self.start_next(now);
    }

    fn start_next(&mut self, now: Time) {
        if self.transmitting(now) || self.rate().bps <= 0.0 {
            return;
        }
        if let Some(next) = self.queue.pop(now, &mut self.dequeued) {
            self.start_tx(now, next);
        }
    }

    fn start_tx(&mut self, now: Time, pdu: Pdu) {
        let sojourn = now.since(pdu.enqueued).ps();
        self.stats.wait.record(sojourn);
        if let Some(standing) = self.stats.standing.as_mut() {
            standing.record(now.ps(), sojourn);
        }
        if let Some(c) = self.capture.as_deref_mut() {
            c.record(now, &pdu);
        }
        let wire_bytes = self.framing.wire_bytes(pdu.bytes);
        let end = now + self.tx_time(wire_bytes);
        let delivered = !self.errors.corrupts(wire_bytes);
        if self.next_change >= end {
            self.last_tx_end = end;
            self.committed = Some(Committed {
                started: now,
                end,
                bytes: wire_bytes,
                priority: pdu.priority(),
                errored: !delivered,
            });
            if delivered {
                if let Some(p) = self.line.push(end, pdu) {
                    self.unreachable(p.flow);
                }
            } else {
                self.errored_on_wire = Some(pdu);
            }
        } else {
            self.tx_end = end;
            self.in_service = Some(InService {
                pdu,
                wire_bytes,
                delivered,
                bits_left: wire_bytes as f64 * 8.0,
                since: now,
            });
        }
        self.note_queue(now);
    }

    /// Transmission time of `wire_bytes` at the current rate.
    #[inline]
    fn tx_time(&mut self, wire_bytes: u32) -> Duration {
        let (bytes, d) = self.tx_time_cache;
        if bytes == wire_bytes {
            return d;
        }
        let d = self.rate.tx_time(wire_bytes);
        self.tx_time_cache = (wire_bytes, d);
        d
    }

    /// Books a finished transmission in the statistics.
    /// `lost`: the flow of the PDU, when errors destroyed it.
    #[inline]
    fn book(&mut self, bytes: u32, priority: u8, lost: Option<u32>) {
        match lost {
            None => self.stats.sent(bytes, priority),
            Some(flow) => self.lost(flow),
        }
    }

    /// A PDU sent while its path does not exist: dropped, and booked in
    /// its flow with the queue's drops at dequeue.
    #[cold]
    fn unreachable(&mut self, flow: u32) {
        self.stats.drops_unreachable += 1;
        self.dequeued.flows.push(flow);
    }

    #[cold]
    fn lost(&mut self, flow: u32) {
        self.stats.errors += 1;
        self.errored.push(flow);
    }

    fn finish_variable_rate_tx(&mut self, now: Time) {
        let s = self.in_service.take().expect("tx_end set without a PDU");
        self.tx_end = Time::NEVER;
        self.last_tx_end = now;
        self.stats.busy_ps += now.since(s.since).ps();
        let lost = (!s.delivered).then_some(s.pdu.flow);
        self.book(s.wire_bytes, s.pdu.priority(), lost);
        if s.delivered {
            if let Some(p) = self.line.push(now, s.pdu) {
                self.unreachable(p.flow);
            }
        }
        self.note_queue(now);
    }

    /// Books a fixed-rate transmission that has ended by `now`. Called
    /// before the link changes or its statistics are read.
    #[inline(always)]
    pub(crate) fn settle(&mut self, now: Time) {
        if let Some(c) = self.committed {
            if c.end <= now {
                self.committed = None;
                self.stats.busy_ps += c.end.since(c.started).ps();
                let lost = if c.errored {
                    self.errored_on_wire.take().map(|p| p.flow)
                } else {
                    None
                };
                self.book(c.bytes, c.priority, lost);
                let waiting = self.queue.packets() as f64;
                self.stats.system_packets.set(c.end.ps(), waiting);
            }
        }
    }

    /// Bits of delivered PDUs sent up to `now`, counting the part of the
    /// transmission in progress already on the wire, so that a rate measured
    /// over an interval shorter than one PDU never exceeds the link rate.
    pub(crate) fn tx_bits_at(&self, now: Time) -> f64 {
        let done = self.stats.tx_bytes as f64 * 8.0;
        let partial = if let Some(c) = self.committed.filter(|c| !c.errored && c.end > now) {
            let frac = now.since(c.started).ps() as f64 / c.end.since(c.started).ps() as f64;
            frac * c.bytes as f64 * 8.0
        } else if let Some(s) = self.in_service.as_ref().filter(|s| s.delivered) {
            let left = s.bits_left - self.rate().bits_in(now.since(s.since));
            (s.wire_bytes as f64 * 8.0 - left.max(0.0)).max(0.0)
        } else {
            0.0
        };
        done + partial
    }

    /// The capacity integral from time 0 to `now`, in bits: what the link
    /// could have sent, busy or not (the effcap study's instcap is its
    /// increase over a measurement interval, divided by the interval). The
    /// link must have been advanced to `now`.
    pub(crate) fn capacity_bits_at(&self, now: Time) -> f64 {
        debug_assert!(self.next_change >= now);
        self.capacity_bits + self.rate.bits_in(now.since(self.capacity_since))
    }

    /// Time spent transmitting up to `now` (a PDU held at zero capacity is
    /// not being transmitted), counting the elapsed part of a transmission
    /// in progress: for utilisation at the end of a run.
    pub(crate) fn busy_ps_at(&self, now: Time) -> u64 {
        let current = if let Some(c) = self.committed.filter(|c| c.end > now) {
            now.since(c.started).ps()
        } else if let Some(s) = self.in_service.as_ref().filter(|_| self.rate().bps > 0.0) {
            now.since(s.since).ps()
        } else {
            0
        };
        self.stats.busy_ps + current
    }

    /// A capacity change: a PDU in transmission finishes its remaining bits
    /// at the new rate; at rate zero it waits, and the queue holds.
    fn change_capacity(&mut self, now: Time) {
        let old = self.rate;
        self.capacity_bits += old.bits_in(now.since(self.capacity_since));
        self.capacity_since = now;
        self.capacity.advance(now);
        self.rate = self.capacity.rate();
        self.tx_time_cache = NO_TX_TIME;
        self.next_change = self.capacity.next_change();
        let new = self.rate;
        if let Some(s) = self.in_service.as_mut() {
            if old.bps > 0.0 {
                s.bits_left = (s.bits_left - old.bits_in(now.since(s.since))).max(0.0);
                self.stats.busy_ps += now.since(s.since).ps();
            }
            s.since = now;
            self.tx_end = if new.bps > 0.0 {
                now + new.tx_time_bits(s.bits_left)
            } else {
                Time::NEVER
            };
        }
    }

    fn note_queue(&mut self, now: Time) {
        let busy = self.transmitting(now);
        self.stats
            .queue_changed(now, self.queue.packets(), self.queue.bytes(), busy);
    }

    /// Whether PDUs were lost to errors since `take_errored` last ran.
    #[inline]
    pub(crate) fn has_errored(&self) -> bool {
        !self.errored.is_empty()
    }

    /// PDUs lost to errors that `take_errored` has not taken yet.
    pub(crate) fn pending_errors(&self) -> u64 {
        self.errored.len() as u64
    }

    /// The flows of the PDUs lost to errors since the last call, one entry
    /// per PDU (a PDU counts as lost once its last bit has left).
    pub(crate) fn take_errored(&mut self, mut f: impl FnMut(u32)) {
        for flow in self.errored.drain(..) {
            f(flow);
        }
    }

    /// Whether the queue dropped PDUs at dequeue since `take_dropped` ran.
    #[inline]
    pub(crate) fn has_dropped(&self) -> bool {
        !self.dequeued.flows.is_empty()
    }

    /// PDUs dropped at dequeue that `take_dropped` has not taken yet.
    pub(crate) fn pending_drops(&self) -> u64 {
        self.dequeued.flows.len() as u64
    }

    /// The flows of the PDUs the queue dropped at dequeue since the last
    /// call, one entry per PDU.
    pub(crate) fn take_dropped(&mut self, mut f: impl FnMut(u32)) {
        for flow in self.dequeued.flows.drain(..) {
            f(flow);
        }
    }

    /// Calls `f` for every PDU still inside the link (end-of-run accounting):
    /// waiting, on the wire (an errored one included until its last bit has
    /// left), or propagating.
    pub(crate) fn for_each_held(&self, mut f: impl FnMut(&Pdu)) {
        self.queue.for_each_waiting(&mut f);
        if let Some(s) = &self.in_service {
            f(&s.pdu);
        }
        if let Some(p) = &self.errored_on_wire {
            f(p);
        }
        self.line.iter().for_each(f);
    }
}

#[cfg(test)]
mod tests;
