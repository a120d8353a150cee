//! The receiver's view of the byte stream: the next expected byte, the
//! out-of-order blocks held in the receive buffer, and the SACK blocks to
//! report (RFC 2018 §4: the first block holds the most recently received
//! segment, then the other most recent blocks).

#[derive(Clone, Debug, Default)]
pub(crate) struct Reassembly {
    /// Next byte expected in order.
    pub(crate) rcv_nxt: u64,
    /// Out-of-order blocks [start, end), disjoint, sorted, all above rcv_nxt.
    blocks: Vec<(u64, u64)>,
    /// Block starts in order of most recent arrival, for SACK reporting.
    recent: Vec<u64>,
}

/// What an arriving segment did to the stream.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Arrival {
    /// Bytes newly delivered in order to the application.
    pub(crate) delivered: u64,
    /// The segment was above the next expected byte (a hole remains).
    pub(crate) out_of_order: bool,
    /// The segment filled (part of) a hole: ACK at once (RFC 5681 §4.2).
    pub(crate) filled_hole: bool,
    /// Nothing new in it.
    pub(crate) duplicate: bool,
}

impl Reassembly {
    /// Bytes held out of order.
    pub(crate) fn held_bytes(&self) -> u64 {
        self.blocks.iter().map(|(a, b)| b - a).sum()
    }

    pub(crate) fn has_holes(&self) -> bool {
        !self.blocks.is_empty()
    }

    pub(crate) fn receive(&mut self, seq: u64, len: u64) -> Arrival {
        let end = seq + len;
        let had_holes = self.has_holes();
        if end <= self.rcv_nxt || len == 0 {
            return Arrival {
                delivered: 0,
                out_of_order: false,
                filled_hole: false,
                duplicate: true,
            };
        }
        let start = seq.max(self.rcv_nxt);
        if start > self.rcv_nxt {
            let dup = self.insert(start, end);
            return Arrival {
                delivered: 0,
                out_of_order: true,
                filled_hole: false,
                duplicate: dup,
            };
        }
        let before = self.rcv_nxt;
        self.rcv_nxt = end;
        // Absorb held blocks now contiguous with the stream.
        while let Some(&(a, b)) = self.blocks.first() {
            if a > self.rcv_nxt {
                break;
            }
            self.rcv_nxt = self.rcv_nxt.max(b);
            self.blocks.remove(0);
        }
        let nxt = self.rcv_nxt;
        self.recent.retain(|s| *s > nxt);
        Arrival {
            delivered: self.rcv_nxt - before,
            out_of_order: false,
            filled_hole: had_holes,
            duplicate: false,
        }
    }

    /// Adds [start, end) to the held blocks, merging; true if nothing new.
    fn insert(&mut self, start: u64, end: u64) -> bool {
        let covered = self.blocks.iter().any(|&(a, b)| a <= start && end <= b);
        let (mut s, mut e) = (start, end);
        let mut kept = Vec::with_capacity(self.blocks.len() + 1);
        for &(a, b) in &self.blocks {
            if b < s || a > e {
                kept.push((a, b));
            } else {
                s = s.min(a);
                e = e.max(b);
            }
        }
        kept.push((s, e));
        kept.sort_unstable();
        self.blocks = kept;
        // The merged block is the most recent; forget starts it swallowed.
        let blocks = &self.blocks;
        self.recent
            .retain(|r| *r != s && blocks.iter().any(|(a, _)| a == r));
        self.recent.insert(0, s);
        covered
    }

    /// Up to `n` SACK blocks, most recent first.
    pub(crate) fn sack_blocks(&self, n: usize) -> Vec<(u64, u64)> {
        self.recent
            .iter()
            .filter_map(|s| self.blocks.iter().find(|(a, _)| a == s).copied())
            .take(n)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn in_order_out_of_order_and_fill() {
        let mut r = Reassembly::default();
        assert_eq!(r.receive(0, 100).delivered, 100);
        let a = r.receive(200, 100);
        assert!(a.out_of_order && a.delivered == 0);
        r.receive(400, 100);
        assert_eq!(r.sack_blocks(3), vec![(400, 500), (200, 300)]);
        assert_eq!(r.held_bytes(), 200);
        let f = r.receive(100, 100);
        assert!(f.filled_hole);
        assert_eq!(f.delivered, 200); // 100..300
        assert_eq!(r.rcv_nxt, 300);
        assert_eq!(r.sack_blocks(3), vec![(400, 500)]);
        assert!(r.receive(0, 50).duplicate);
    }

    #[test]
    fn merging_blocks_reports_the_merged_block_first() {
        let mut r = Reassembly::default();
        r.receive(100, 10);
        r.receive(300, 10);
        r.receive(110, 10);
        assert_eq!(r.sack_blocks(3), vec![(100, 120), (300, 310)]);
        assert!(r.receive(105, 5).duplicate);
    }
}
