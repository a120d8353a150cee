//! The bytes of the packets inside the model. The core moves PDUs that
//! carry a size, not bytes; the emulator keeps each packet's bytes here,
//! keyed by its sending host and sequence number, until the model delivers
//! it or has dropped it.
//!
//! Between two hosts the model is a chain of FIFO links, so one host's
//! packets to another leave in the order they were sent: when packet `s`
//! leaves, every earlier one still kept was dropped or lost to an error
//! (the model has counted it) and its bytes can go. A packet that leaves
//! after its bytes went (it overtook nothing: the path reordered) is
//! counted as missing, never silently replaced.

use std::collections::VecDeque;

pub struct Payloads {
    /// Per (sending host, receiving host): (sequence number, bytes).
    queues: Vec<VecDeque<(u64, Vec<u8>)>>,
    hosts: usize,
    /// Buffers to reuse, so a steady flow allocates nothing.
    spare: Vec<Vec<u8>>,
    /// Bytes discarded because the model dropped their packet.
    pub discarded: u64,
    /// Packets the model delivered whose bytes were no longer kept.
    pub missing: u64,
}

impl Payloads {
    pub fn new(hosts: usize) -> Payloads {
        Payloads {
            queues: (0..hosts * hosts).map(|_| VecDeque::new()).collect(),
            hosts,
            spare: Vec::new(),
            discarded: 0,
            missing: 0,
        }
    }

    fn queue(&mut self, from: usize, to: usize) -> &mut VecDeque<(u64, Vec<u8>)> {
        &mut self.queues[from * self.hosts + to]
    }

    pub fn keep(&mut self, from: usize, to: usize, seq: u64, bytes: &[u8]) {
        let mut buf = self.spare.pop().unwrap_or_default();
        buf.clear();
        buf.extend_from_slice(bytes);
        self.queue(from, to).push_back((seq, buf));
    }

    /// The bytes of packet `seq` from `from` to `to`, which the model just
    /// delivered; hand the buffer back with `recycle`.
    pub fn take(&mut self, from: usize, to: usize, seq: u64) -> Option<Vec<u8>> {
        let mut discarded = Vec::new();
        let q = &mut self.queues[from * self.hosts + to];
        let found = loop {
            match q.front() {
                Some(&(s, _)) if s < seq => discarded.push(q.pop_front().unwrap().1),
                Some(&(s, _)) if s == seq => break q.pop_front().map(|(_, b)| b),
                _ => break None,
            }
        };
        self.discarded += discarded.len() as u64;
        self.spare.extend(discarded);
        if found.is_none() {
            self.missing += 1;
        }
        found
    }

    pub fn recycle(&mut self, buf: Vec<u8>) {
        self.spare.push(buf);
    }

    /// Packets whose bytes are kept: in the model, or dropped by it and
    /// not yet passed by a later packet.
    pub fn kept(&self) -> usize {
        self.queues.iter().map(VecDeque::len).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_come_back_by_host_pair_and_sequence() {
        let mut p = Payloads::new(2);
        p.keep(0, 1, 0, b"first");
        p.keep(1, 0, 0, b"reply");
        p.keep(0, 1, 1, b"second");
        assert_eq!(p.take(0, 1, 0).as_deref(), Some(&b"first"[..]));
        assert_eq!(p.take(1, 0, 0).as_deref(), Some(&b"reply"[..]));
        assert_eq!(p.take(0, 1, 1).as_deref(), Some(&b"second"[..]));
        assert_eq!((p.kept(), p.discarded, p.missing), (0, 0, 0));
    }

    #[test]
    fn a_later_packet_leaving_discards_the_dropped_ones() {
        let mut p = Payloads::new(2);
        for s in 0..5 {
            p.keep(0, 1, s, &[s as u8]);
        }
        // 1 and 2 were dropped in the model.
        assert!(p.take(0, 1, 0).is_some());
        assert_eq!(p.take(0, 1, 3).as_deref(), Some(&[3u8][..]));
        assert_eq!((p.kept(), p.discarded, p.missing), (1, 2, 0));
    }

    #[test]
    fn a_packet_whose_bytes_went_is_counted_missing() {
        let mut p = Payloads::new(2);
        p.keep(0, 1, 0, b"a");
        p.keep(0, 1, 1, b"b");
        assert!(p.take(0, 1, 1).is_some());
        assert!(p.take(0, 1, 0).is_none(), "overtaken: its bytes went");
        assert_eq!((p.discarded, p.missing), (1, 1));
    }

    #[test]
    fn buffers_are_reused() {
        let mut p = Payloads::new(1);
        p.keep(0, 0, 0, &[7; 1500]);
        let b = p.take(0, 0, 0).unwrap();
        let ptr = b.as_ptr();
        p.recycle(b);
        p.keep(0, 0, 1, &[8; 100]);
        let b = p.take(0, 0, 1).unwrap();
        assert_eq!(b.as_ptr(), ptr);
        assert_eq!(b.len(), 100);
    }
}
