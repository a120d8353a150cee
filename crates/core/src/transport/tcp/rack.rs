//! RACK-TLP loss detection (RFC 8985).
//!
//! RACK (§6) deems a segment lost once a segment sent after it has been
//! delivered and a reordering window has passed since: time, not a count
//! of duplicate ACKs, so a lost retransmission is found like any other
//! loss instead of by the retransmission timer. TLP (§7) sends one probe
//! when a flight's tail goes unacknowledged for about two round trips, so
//! that the ACK it draws lets RACK and fast recovery, not the timer, repair
//! a tail loss.
//!
//! A sans-IO state machine: the socket reports each segment it sends
//! (`on_send`) and what each ACK says (`on_ack`), asks which bytes to
//! resend (`next_lost`) and how many are in the network (`pipe`), and polls
//! the two timers kept here (RACK's reordering timer, TLP's probe timeout).
//! The socket keeps its recovery and its congestion response; only the
//! loss detection is this module's. Where satcc differs from Linux
//! (net/ipv4/tcp_recovery.c, tcp_output.c's loss probe), docs/tcp.md says.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::engine::{Duration, Time, Timer};

/// How a SACK sender decides a segment is lost (`recovery`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum LossDetection {
    /// RFC 6675 IsLost: DupThresh segments or bytes SACKed above.
    #[default]
    #[serde(rename = "rfc6675")]
    Rfc6675,
    /// RFC 8985: by time since sending, with tail loss probes.
    #[serde(rename = "rack-tlp")]
    RackTlp,
}

/// RFC 8985 §6.2: DupThresh, for the reordering window's zero rule.
const DUP_THRESH: u64 = 3;
/// RFC 8985 §7.2: WCDelAckT, the worst-case delayed-ACK time added to the
/// probe timeout when one segment is in flight.
const WORST_CASE_DELAYED_ACK: Duration = Duration::from_millis(200);
/// RFC 8985 §7.2: the probe timeout before any RTT sample.
const PTO_WITHOUT_SRTT: Duration = Duration::from_millis(1000);

/// Where one outstanding segment stands: neither cumulatively acknowledged
/// nor SACKed (those are forgotten at once; no reneging is modelled).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Mark {
    /// Not deemed lost; `resent` when a retransmission of it is out as well
    /// (after a timeout's go-back-N), which RFC 6675's pipe counts twice.
    InFlight { resent: bool },
    /// Deemed lost and not resent since: nothing of it is in the network.
    Lost,
    /// Deemed lost, then resent: only the retransmission is out.
    Resent,
}

#[derive(Copy, Clone, Debug)]
struct Seg {
    end: u64,
    /// When it was last sent (RACK's Segment.xmit_ts).
    xmit_ts: Time,
    retransmitted: bool,
    mark: Mark,
}

impl Seg {
    /// Its bytes in the network, as RFC 6675's SetPipe counts them.
    fn pipe(&self, start: u64) -> u64 {
        let len = self.end - start;
        match self.mark {
            Mark::InFlight { resent: false } | Mark::Resent => len,
            Mark::InFlight { resent: true } => 2 * len,
            Mark::Lost => 0,
        }
    }

    /// Whether RACK still watches it (RFC 8985 sets a lost segment's
    /// xmit_ts to infinity until it is resent).
    fn watched(&self) -> bool {
        self.mark != Mark::Lost
    }
}

/// The most recently sent of the segments delivered so far: RACK.xmit_ts,
/// RACK.end_seq, and RACK.rtt (RFC 8985 §6.1).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct Latest {
    xmit_ts: Time,
    end: u64,
    rtt: Duration,
}

/// A loss probe out and not yet resolved: TLP.end_seq, TLP.is_retrans
/// (RFC 8985 §7.3), and the flight it was sent into, for the congestion
/// response if it turns out to have repaired a loss.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct Probe {
    end_seq: u64,
    is_retrans: bool,
    flight: u64,
}

/// What a poll found due.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Due {
    /// The reordering timer expired and loss detection ran again.
    Reordering,
    /// The probe timeout expired: the socket may send a probe.
    Probe,
}

/// What one ACK tells the socket, besides the losses RACK marked.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum ProbeVerdict {
    /// No probe was resolved, or it repaired nothing.
    Nothing,
    /// The probe repaired a loss (RFC 8985 §7.4): reduce cwnd as for a
    /// loss in a flight of this many bytes.
    RepairedLoss { flight: u64 },
}

/// What the socket knows of one ACK, with offsets unwrapped.
pub(crate) struct AckInfo<'a> {
    pub(crate) now: Time,
    /// The cumulative ACK (new snd_una).
    pub(crate) ack: u64,
    pub(crate) sack: &'a [(u64, u64)],
    /// The ACK neither advances snd_una nor carries SACK blocks or data.
    pub(crate) pure_dup: bool,
    /// In fast recovery or repairing a timed-out window.
    pub(crate) in_recovery: bool,
    /// Segments the scoreboard holds SACKed.
    pub(crate) sacked_segments: u64,
    pub(crate) srtt: Option<Duration>,
}

/// RACK-TLP's state for one sender.
#[derive(Debug, Default)]
pub(crate) struct Rack {
    /// The outstanding segments by start offset.
    segs: BTreeMap<u64, Seg>,
    /// The watched ones in RACK's time order: (xmit_ts, end, start).
    by_time: BTreeSet<(Time, u64, u64)>,
    /// Starts of the segments marked `Lost`, for NextSeg.
    lost: BTreeSet<u64>,
    pipe: u64,
    latest: Option<Latest>,
    min_rtt: Option<Duration>,
    /// RACK.fack: the highest end offset delivered.
    fack: u64,
    reordering_seen: bool,
    reo_timer: Timer,
    pto_timer: Timer,
    probe: Option<Probe>,
    /// An RTT sample has come since the last probe (RFC 8985 §7.3).
    rtt_since_probe: bool,
    /// The sender's last reduction of its window.
    reduced_at: Time,
    /// When a segment sent after that reduction was first delivered: from
    /// then on the queues hold only what was sent under the reduced window,
    /// and a retransmission sent after it and deemed lost is new congestion
    /// (`take_lost_retransmission`). None until then.
    reflected_at: Option<Time>,
    /// Such a lost retransmission was found and not yet taken.
    lost_retransmission: bool,
    /// Probes sent and losses they repaired, for tests and traces.
    pub(crate) probes: u64,
    pub(crate) probe_repairs: u64,
}

impl Rack {
    pub(crate) fn new() -> Rack {
        Rack::default()
    }

    /// When the next of this module's timers expires.
    pub(crate) fn poll_at(&self) -> Time {
        self.reo_timer.deadline().min(self.pto_timer.deadline())
    }

    /// Fires the timers due by `now`; the reordering timer runs loss
    /// detection again (RFC 8985 §6.2 step 5).
    pub(crate) fn poll(&mut self, now: Time, reo_wnd: Duration) -> Option<Due> {
        if self.reo_timer.fire(now) {
            self.detect_loss(now, reo_wnd);
            return Some(Due::Reordering);
        }
        self.pto_timer.fire(now).then_some(Due::Probe)
    }

    /// An RTT sample taken outside RACK (the handshake's): min_RTT is the
    /// connection's, as Linux's tcp_min_rtt includes the SYN's. Without it
    /// a short last segment resent by a probe, quicker to serialise than
    /// the full segments min_RTT came from, would look like the original's
    /// ACK and be ignored.
    pub(crate) fn note_rtt(&mut self, rtt: Duration) {
        self.min_rtt = Some(self.min_rtt.map_or(rtt, |m| m.min(rtt)));
    }

    // ----- what the socket sends -----

    /// A segment [seq, seq+len) leaves now: new data, or a retransmission
    /// (which restarts its clock and clears a loss mark).
    pub(crate) fn on_send(&mut self, now: Time, seq: u64, len: u64, retransmission: bool) {
        if len == 0 {
            return;
        }
        let end = seq + len;
        if !retransmission {
            let seg = Seg {
                end,
                xmit_ts: now,
                retransmitted: false,
                mark: Mark::InFlight { resent: false },
            };
            self.insert(seq, seg);
            return;
        }
        self.split(seq);
        self.split(end);
        let starts: Vec<u64> = self.segs.range(seq..end).map(|(&s, _)| s).collect();
        for s in starts {
            let mut seg = self.remove(s).expect("listed");
            seg.xmit_ts = now;
            seg.retransmitted = true;
            seg.mark = match seg.mark {
                Mark::InFlight { .. } => Mark::InFlight { resent: true },
                Mark::Lost | Mark::Resent => Mark::Resent,
            };
            self.insert(s, seg);
        }
    }

    // ----- what the ACKs say -----

    /// RFC 8985 §6.2 steps 1–5 and §7.4 for one ACK.
    pub(crate) fn on_ack(&mut self, a: &AckInfo) -> ProbeVerdict {
        let mut delivered = self.deliver_cumulative(a.ack);
        for &(s, e) in a.sack {
            self.deliver_range(s.max(a.ack), e, &mut delivered);
        }
        // Step 2, in the order of sending.
        delivered.sort_by_key(|d| (d.1.xmit_ts, d.1.end));
        for &(_, seg) in &delivered {
            self.update(a.now, &seg);
        }
        // Step 3, in sequence order.
        delivered.sort_by_key(|d| d.1.end);
        for &(_, seg) in &delivered {
            if seg.end > self.fack {
                self.fack = seg.end;
            } else if seg.end < self.fack && !seg.retransmitted {
                self.reordering_seen = true;
            }
        }
        let reo = self.reo_wnd(a.in_recovery, a.sacked_segments, a.srtt);
        self.detect_loss(a.now, reo);
        self.probe_on_ack(a)
    }

    /// Step 2 (RACK_update) for one delivered segment. Without timestamps a
    /// retransmitted segment's ACK may be the original's: one that comes
    /// back sooner than the minimum RTT is taken as such and ignored.
    fn update(&mut self, now: Time, seg: &Seg) {
        let rtt = now.since(seg.xmit_ts);
        if seg.retransmitted {
            if self.min_rtt.is_some_and(|m| rtt < m) {
                return;
            }
        } else {
            self.min_rtt = Some(self.min_rtt.map_or(rtt, |m| m.min(rtt)));
        }
        if self.reflected_at.is_none() && seg.xmit_ts >= self.reduced_at {
            self.reflected_at = Some(now);
        }
        self.rtt_since_probe = true;
        let newer = self
            .latest
            .is_none_or(|l| (seg.xmit_ts, seg.end) > (l.xmit_ts, l.end));
        let (xmit_ts, end) = match self.latest {
            Some(l) if !newer => (l.xmit_ts, l.end),
            _ => (seg.xmit_ts, seg.end),
        };
        self.latest = Some(Latest { xmit_ts, end, rtt });
    }

    /// Step 4 (RACK_update_reo_wnd) without DSACK, which satcc's receiver
    /// does not send: the multiplier stays 1, so min_RTT/4 capped at SRTT,
    /// and zero (DupThresh's behaviour) until reordering is seen, in
    /// recovery or once DupThresh segments are SACKed.
    pub(crate) fn reo_wnd(
        &self,
        in_recovery: bool,
        sacked_segments: u64,
        srtt: Option<Duration>,
    ) -> Duration {
        if !self.reordering_seen && (in_recovery || sacked_segments >= DUP_THRESH) {
            return Duration::ZERO;
        }
        let quarter = Duration(self.min_rtt.unwrap_or(Duration::ZERO).0 / 4);
        srtt.map_or(quarter, |s| quarter.min(s))
    }

    /// Step 5 (RACK_detect_loss_and_arm_timer): every watched segment sent
    /// before the latest delivered one is lost once RACK.rtt + reo_wnd has
    /// passed since it was sent; the timer waits for the last of the others.
    fn detect_loss(&mut self, now: Time, reo_wnd: Duration) {
        let Some(l) = self.latest else {
            return;
        };
        let wait = l.rtt + reo_wnd;
        // Deadlines grow with xmit_ts, so the expired ones lead.
        while let Some(&(ts, end, start)) = self.by_time.first() {
            if (ts, end) >= (l.xmit_ts, l.end) || ts + wait > now {
                break;
            }
            self.mark_lost(start);
        }
        match self.by_time.range(..(l.xmit_ts, l.end, 0)).next_back() {
            Some(&(ts, _, _)) => self.reo_timer.arm(now, (ts + wait).since(now)),
            None => self.reo_timer.cancel(),
        }
    }

    fn mark_lost(&mut self, start: u64) {
        let mut seg = self
            .remove(start)
            .expect("watched segments are outstanding");
        if seg.retransmitted && self.reflected_at.is_some_and(|t| seg.xmit_ts >= t) {
            self.lost_retransmission = true;
        }
        seg.mark = Mark::Lost;
        self.insert(start, seg);
    }

    /// RFC 8985 §6.3: at a timeout the first outstanding segment is lost,
    /// and the others once RACK.rtt + reo_wnd has passed since they left.
    pub(crate) fn on_rto(&mut self, now: Time, reo_wnd: Duration) {
        if let Some((&first, seg)) = self.segs.first_key_value() {
            if seg.watched() {
                self.mark_lost(first);
            }
        }
        if let Some(l) = self.latest {
            let wait = l.rtt + reo_wnd;
            while let Some(&(ts, _, start)) = self.by_time.first() {
                if ts + wait > now {
                    break;
                }
                self.mark_lost(start);
            }
        }
        self.reo_timer.cancel();
        self.pto_timer.cancel();
        self.probe = None;
    }

    // ----- what the socket asks -----

    /// Bytes in the network (RFC 6675 SetPipe with RACK's loss marks).
    pub(crate) fn pipe(&self) -> u64 {
        self.pipe
    }

    #[cfg(test)]
    pub(crate) fn reordering_seen(&self) -> bool {
        self.reordering_seen
    }

    /// The sender reduced its window now (recovery entered, a timeout, a
    /// probe's repair or a lost retransmission's response).
    pub(crate) fn note_reduction(&mut self, now: Time) {
        self.reduced_at = now;
        self.reflected_at = None;
        self.lost_retransmission = false;
    }

    /// Whether a retransmission sent once the last reduction had reached
    /// the receiver has been deemed lost (RFC 8985 §9.3 asks for a congestion response to it
    /// when PRR does not bound the sending); clears it.
    pub(crate) fn take_lost_retransmission(&mut self) -> bool {
        std::mem::take(&mut self.lost_retransmission)
    }

    #[cfg(test)]
    pub(crate) fn has_lost(&self) -> bool {
        !self.lost.is_empty()
    }

    /// NextSeg rule 1 with RACK's marks: the lowest segment deemed lost and
    /// not resent since, as (start, length).
    pub(crate) fn next_lost(&self) -> Option<(u64, u64)> {
        let &s = self.lost.first()?;
        Some((s, self.segs[&s].end - s))
    }

    /// The highest outstanding segment, which a probe resends when there
    /// is no new data to send.
    pub(crate) fn last_segment(&self) -> Option<(u64, u64)> {
        self.segs.last_key_value().map(|(&s, seg)| (s, seg.end - s))
    }

    // ----- TLP (RFC 8985 §7) -----

    /// §7.2: arms the probe timeout at 2·SRTT, plus the worst-case delayed
    /// ACK when one segment is in flight, and not after the RTO.
    pub(crate) fn arm_pto(
        &mut self,
        now: Time,
        srtt: Option<Duration>,
        one_segment: bool,
        rto_at: Time,
    ) {
        let pto = match srtt {
            Some(s) if one_segment => s + s + WORST_CASE_DELAYED_ACK,
            Some(s) => s + s,
            None => PTO_WITHOUT_SRTT,
        };
        let at = (now + pto).min(rto_at);
        self.pto_timer.arm(now, at.since(now));
    }

    pub(crate) fn cancel_pto(&mut self) {
        self.pto_timer.cancel();
    }

    /// §7.3: at most one probe per flight, and only after an RTT sample
    /// since the last.
    pub(crate) fn may_probe(&self) -> bool {
        self.probe.is_none() && self.rtt_since_probe
    }

    /// A probe left, ending at `end_seq` (SND.NXT after it), into a flight
    /// of `flight` bytes.
    pub(crate) fn on_probe(&mut self, end_seq: u64, is_retrans: bool, flight: u64) {
        self.probe = Some(Probe {
            end_seq,
            is_retrans,
            flight,
        });
        self.rtt_since_probe = false;
        self.pto_timer.cancel();
        self.probes += 1;
    }

    /// §7.4: whether the outstanding probe, if this ACK resolves it,
    /// repaired a loss. A retransmitted probe answered by an ACK beyond it
    /// repaired one; answered by a pure duplicate ACK, both copies arrived
    /// (satcc's receiver sends no DSACK, so this is the only such sign).
    fn probe_on_ack(&mut self, a: &AckInfo) -> ProbeVerdict {
        let Some(p) = self.probe else {
            return ProbeVerdict::Nothing;
        };
        if a.ack < p.end_seq {
            return ProbeVerdict::Nothing;
        }
        if !p.is_retrans {
            self.probe = None;
        } else if a.ack > p.end_seq {
            self.probe = None;
            self.probe_repairs += 1;
            return ProbeVerdict::RepairedLoss { flight: p.flight };
        } else if a.pure_dup {
            self.probe = None;
        }
        ProbeVerdict::Nothing
    }

    // ----- the segment store -----

    fn insert(&mut self, start: u64, seg: Seg) {
        self.pipe += seg.pipe(start);
        if seg.watched() {
            self.by_time.insert((seg.xmit_ts, seg.end, start));
        } else {
            self.lost.insert(start);
        }
        self.segs.insert(start, seg);
    }

    fn remove(&mut self, start: u64) -> Option<Seg> {
        let seg = self.segs.remove(&start)?;
        self.pipe -= seg.pipe(start);
        if seg.watched() {
            self.by_time.remove(&(seg.xmit_ts, seg.end, start));
        } else {
            self.lost.remove(&start);
        }
        Some(seg)
    }

    /// Cuts the segment holding `at` in two, so that `at` starts one.
    fn split(&mut self, at: u64) {
        let Some((&s, &seg)) = self.segs.range(..at).next_back() else {
            return;
        };
        if seg.end <= at {
            return;
        }
        self.remove(s);
        self.insert(s, Seg { end: at, ..seg });
        self.insert(at, seg);
    }

    /// Forgets what the cumulative ACK covers; returns it.
    fn deliver_cumulative(&mut self, ack: u64) -> Vec<(u64, Seg)> {
        let mut delivered = Vec::new();
        self.split(ack);
        while let Some((&s, _)) = self.segs.first_key_value() {
            if s >= ack {
                break;
            }
            delivered.push((s, self.remove(s).expect("present")));
        }
        delivered
    }

    /// Forgets the segments a SACK block [s, e) covers, adding them to
    /// `delivered`.
    fn deliver_range(&mut self, s: u64, e: u64, delivered: &mut Vec<(u64, Seg)>) {
        if e <= s {
            return;
        }
        self.split(s);
        self.split(e);
        let starts: Vec<u64> = self.segs.range(s..e).map(|(&k, _)| k).collect();
        for k in starts {
            delivered.push((k, self.remove(k).expect("listed")));
        }
    }
}

#[cfg(test)]
mod tests;
