//! What a link put on the wire, kept for a packet capture of the link
//! (`[traces.NAME] pcap = "LINK"`, docs/traces.md).
//!
//! A PDU is recorded when its transmission starts: the time its first bit
//! is on the wire, which is what a capture at the sending interface stamps
//! (tcpdump on a host, ns-3's point-to-point device) and what Wireshark
//! users read as "when the packet was sent". A PDU the error model destroys
//! was on the wire all the same and is recorded. Recording copies the PDU
//! and nothing else: its headers are synthesised after the run
//! (`net::pcap`), so the event loop does no formatting and no I/O.
//!
//! The capture is bounded by a number of packets: once reached it stops
//! recording for the rest of the run and counts what it left out, which
//! the run reports. Never silently partial.

use super::pdu::Pdu;
use crate::engine::Time;

/// The PDUs a link started transmitting, up to a limit.
#[derive(Clone, Debug)]
pub(crate) struct Capture {
    records: Vec<(Time, Pdu)>,
    max_packets: u64,
    missed: u64,
    full_at: Option<Time>,
    /// The last transmission started was recorded: if the run ends before
    /// it does, the record is left out (`view`).
    last_recorded: bool,
}

impl Capture {
    /// An empty capture of at most `max_packets` PDUs.
    pub(crate) fn new(max_packets: u64) -> Capture {
        Capture {
            records: Vec::new(),
            max_packets,
            missed: 0,
            full_at: None,
            last_recorded: false,
        }
    }

    /// A transmission of `pdu` starts at `now`.
    #[cold]
    pub(crate) fn record(&mut self, now: Time, pdu: &Pdu) {
        self.last_recorded = (self.records.len() as u64) < self.max_packets;
        if self.last_recorded {
            self.records.push((now, pdu.clone()));
        } else {
            self.missed += 1;
            self.full_at.get_or_insert(now);
        }
    }

    /// What the capture holds; `unsent_last` when the run ended while the
    /// last transmission started was still on the wire: it was never sent
    /// in full, and the link's counts leave it out too.
    pub(crate) fn view(&self, unsent_last: bool) -> Captured<'_> {
        let mut v = Captured {
            records: &self.records,
            missed: self.missed,
            full_at: self.full_at,
        };
        if unsent_last && self.last_recorded {
            v.records = &self.records[..self.records.len() - 1];
        } else if unsent_last && self.missed > 0 {
            v.missed -= 1;
            if v.missed == 0 {
                v.full_at = None;
            }
        }
        v
    }
}

/// A capture as the run leaves it.
#[derive(Copy, Clone, Debug, PartialEq)]
pub(crate) struct Captured<'a> {
    /// (start of transmission, the PDU), in the order sent.
    pub(crate) records: &'a [(Time, Pdu)],
    /// PDUs sent after the limit was reached.
    pub(crate) missed: u64,
    /// When the first PDU was left out.
    pub(crate) full_at: Option<Time>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stops_at_its_limit_and_counts_the_rest() {
        let mut c = Capture::new(2);
        for t in 1..=5 {
            c.record(Time(t), &Pdu::default());
        }
        let v = c.view(false);
        assert_eq!(v.records.len(), 2);
        assert_eq!((v.missed, v.full_at), (3, Some(Time(3))));
        let v = c.view(true);
        assert_eq!((v.records.len(), v.missed), (2, 2));
    }

    #[test]
    fn an_unfinished_last_transmission_is_left_out() {
        let mut c = Capture::new(10);
        c.record(Time(1), &Pdu::default());
        c.record(Time(2), &Pdu::default());
        assert_eq!(c.view(true).records, &[(Time(1), Pdu::default())]);
        assert_eq!(c.view(false).records.len(), 2);
    }

    #[test]
    fn a_capture_full_by_the_unfinished_one_alone_is_not_full() {
        let mut c = Capture::new(1);
        c.record(Time(1), &Pdu::default());
        c.record(Time(2), &Pdu::default());
        assert_eq!((c.view(true).missed, c.view(true).full_at), (0, None));
    }
}
