//! The SACK sender's scoreboard (RFC 6675 §3–4): which bytes above the
//! cumulative ACK the receiver holds, which are deemed lost, and the
//! estimate of bytes in the network ("pipe").
//!
//! Bytes are grouped into holes (runs not SACKed). Every byte of a hole has
//! the same SACKed data above it, so IsLost is decided per hole, and pipe is
//! computed per hole, not per segment: cheap even with 10^4 segments in
//! flight.

#[derive(Clone, Debug, Default)]
pub(crate) struct Scoreboard {
    /// SACKed blocks [start, end), disjoint, sorted, above snd_una.
    sacked: Vec<(u64, u64)>,
    /// Highest byte retransmitted in this recovery (RFC 6675 HighRxt).
    pub(crate) high_rxt: u64,
}

/// A run of bytes not SACKed, [start, end).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Hole {
    pub start: u64,
    pub end: u64,
    pub(crate) lost: bool,
}

const DUP_THRESH: usize = 3;

impl Scoreboard {
    pub(crate) fn is_empty(&self) -> bool {
        self.sacked.is_empty()
    }

    /// Records a SACK block; ignores what lies at or below `snd_una`.
    pub(crate) fn add(&mut self, snd_una: u64, start: u64, end: u64) {
        let start = start.max(snd_una);
        if end <= start {
            return;
        }
        let (mut s, mut e) = (start, end);
        self.sacked.retain(|&(a, b)| {
            if b < s || a > e {
                true
            } else {
                s = s.min(a);
                e = e.max(b);
                false
            }
        });
        let at = self.sacked.partition_point(|&(a, _)| a < s);
        self.sacked.insert(at, (s, e));
    }

    /// Forgets everything the cumulative ACK now covers.
    pub(crate) fn advance(&mut self, snd_una: u64) {
        self.sacked.retain(|&(_, b)| b > snd_una);
        if let Some(first) = self.sacked.first_mut() {
            first.0 = first.0.max(snd_una);
        }
        self.high_rxt = self.high_rxt.max(snd_una);
    }

    pub(crate) fn sacked_bytes(&self) -> u64 {
        self.sacked.iter().map(|(a, b)| b - a).sum()
    }

    #[cfg(test)]
    pub(crate) fn is_sacked(&self, seq: u64) -> bool {
        self.sacked.iter().any(|&(a, b)| a <= seq && seq < b)
    }

    /// The run of bytes starting at `seq` that the receiver does not hold:
    /// (start, end) with start ≥ seq skipping a SACKed block at `seq`, and
    /// end the start of the next SACKed block (or `limit`). Used to resend
    /// after a timeout without resending what was SACKed (RFC 6675 §5.1).
    pub(crate) fn unsacked_run(&self, seq: u64, limit: u64) -> (u64, u64) {
        let mut start = seq;
        for &(a, b) in &self.sacked {
            if a <= start && start < b {
                start = b;
            }
        }
        let end = self
            .sacked
            .iter()
            .map(|&(a, _)| a)
            .find(|&a| a > start)
            .unwrap_or(limit)
            .min(limit);
        (start.min(limit), end.max(start.min(limit)))
    }

    /// The holes between snd_una and snd_max, with IsLost per RFC 6675 §4:
    /// lost when DupThresh discontiguous SACKed blocks, or more than
    /// (DupThresh − 1)·SMSS SACKed bytes, lie above it.
    pub(crate) fn holes(&self, snd_una: u64, snd_max: u64, mss: u64) -> Vec<Hole> {
        let mut holes = Vec::with_capacity(self.sacked.len() + 1);
        let mut from = snd_una;
        let mut above_bytes = self.sacked_bytes();
        let mut above_blocks = self.sacked.len();
        for &(a, b) in &self.sacked {
            if a > from {
                holes.push(Hole {
                    start: from,
                    end: a,
                    lost: above_blocks >= DUP_THRESH || above_bytes > (DUP_THRESH as u64 - 1) * mss,
                });
            }
            above_bytes -= b - a;
            above_blocks -= 1;
            from = from.max(b);
        }
        if snd_max > from {
            holes.push(Hole {
                start: from,
                end: snd_max,
                lost: false,
            });
        }
        holes
    }

    /// RFC 6675 SetPipe: bytes not SACKed and not deemed lost, plus bytes
    /// retransmitted (below HighRxt) and not yet SACKed or acknowledged.
    pub(crate) fn pipe(&self, snd_una: u64, snd_max: u64, mss: u64) -> u64 {
        self.holes(snd_una, snd_max, mss)
            .iter()
            .map(|h| {
                let outstanding = if h.lost { 0 } else { h.end - h.start };
                let retransmitted = self.high_rxt.clamp(h.start, h.end) - h.start;
                outstanding + retransmitted
            })
            .sum()
    }

    /// Whether the first unacknowledged byte is deemed lost (RFC 6675 §5
    /// step 4: enter recovery before three duplicate ACKs).
    pub(crate) fn first_is_lost(&self, snd_una: u64, snd_max: u64, mss: u64) -> bool {
        self.holes(snd_una, snd_max, mss)
            .first()
            .is_some_and(|h| h.start == snd_una && h.lost)
    }

    /// RFC 6675 NextSeg rule 1: the lowest lost byte above HighRxt, and the
    /// length up to the end of its hole.
    pub(crate) fn next_lost(&self, snd_una: u64, snd_max: u64, mss: u64) -> Option<(u64, u64)> {
        self.holes(snd_una, snd_max, mss)
            .into_iter()
            .filter(|h| h.lost && h.end > self.high_rxt)
            .map(|h| {
                let s = h.start.max(self.high_rxt);
                (s, h.end - s)
            })
            .next()
    }

    /// NextSeg rule 3: an unSACKed byte above HighRxt that is not deemed lost,
    /// below the highest SACKed byte (used when no new data may be sent).
    pub(crate) fn next_unsacked(&self, snd_una: u64, snd_max: u64, mss: u64) -> Option<(u64, u64)> {
        let high_sacked = self.sacked.last()?.1;
        self.holes(snd_una, snd_max, mss)
            .into_iter()
            .filter(|h| !h.lost && h.end > self.high_rxt && h.start < high_sacked)
            .map(|h| {
                let s = h.start.max(self.high_rxt);
                (s, h.end.min(high_sacked) - s)
            })
            .next()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loss_by_three_blocks_or_bytes_above() {
        let mss = 100;
        let mut sb = Scoreboard::default();
        // Segments 0..10 sent; 0 lost, 1 and 3 SACKed.
        sb.add(0, 100, 200);
        sb.add(0, 300, 400);
        let h = sb.holes(0, 1000, mss);
        assert!(!h[0].lost, "two blocks, 200 bytes above: not yet lost");
        sb.add(0, 500, 600);
        let h = sb.holes(0, 1000, mss);
        assert!(h[0].lost, "three blocks above");
        assert!(!h[1].lost && h[1].start == 200); // 2 blocks, 200 bytes above
        assert_eq!(
            h.last().unwrap(),
            &Hole {
                start: 600,
                end: 1000,
                lost: false
            }
        );
        // pipe: hole 0 lost (0) + 200..300 (100) + 400..500 (100) + 600..1000 (400)
        assert_eq!(sb.pipe(0, 1000, mss), 600);
        assert_eq!(sb.next_lost(0, 1000, mss), Some((0, 100)));
        sb.high_rxt = 100; // hole 0 retransmitted
        assert_eq!(sb.pipe(0, 1000, mss), 700);
        assert_eq!(sb.next_lost(0, 1000, mss), None);
        assert_eq!(sb.next_unsacked(0, 1000, mss), Some((200, 100)));
    }

    #[test]
    fn unsacked_runs_skip_what_the_receiver_holds() {
        let mut sb = Scoreboard::default();
        sb.add(0, 100, 200);
        sb.add(0, 300, 400);
        assert_eq!(sb.unsacked_run(0, 1000), (0, 100));
        assert_eq!(sb.unsacked_run(100, 1000), (200, 300));
        assert_eq!(sb.unsacked_run(350, 1000), (400, 1000));
        assert_eq!(sb.unsacked_run(150, 250), (200, 250));
    }

    #[test]
    fn advance_prunes_and_merges() {
        let mut sb = Scoreboard::default();
        sb.add(0, 100, 200);
        sb.add(0, 200, 300);
        assert_eq!(sb.sacked_bytes(), 200);
        sb.advance(150);
        assert_eq!(sb.sacked_bytes(), 150);
        assert!(sb.is_sacked(250) && !sb.is_sacked(300));
    }
}
