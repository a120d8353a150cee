//! The wire form of a segment: sequence and acknowledgment numbers as 32-bit
//! values (`seq::wire`), the advertised window, scaled except on a SYN
//! (RFC 7323 §2.2-2.3), the window-scale option on a SYN, and up to three
//! SACK blocks on every non-SYN segment of a SACK connection (RFC 2018),
//! and the ECN flags (RFC 3168 §6.1.1: the SYN's offer and the SYN-ACK's
//! answer; §6.1.3: ECE on every other segment while echoing a mark).

use super::{TcpSocket, Variant};
use crate::engine::Time;
use crate::net::pdu::{Class, Header, Pdu, TcpHeader, TCP_ACK, TCP_SYN};
use crate::transport::tcp::seq::wire;

impl TcpSocket {
    pub(super) fn send_ack(&mut self, now: Time, out: &mut Vec<Pdu>) {
        out.push(self.segment(now, self.snd_nxt, 0, TCP_ACK));
        self.stats.acks_sent += 1;
        self.ack_sent();
    }

    pub(super) fn ack_sent(&mut self) {
        self.ack_now = false;
        self.unacked_segments = 0;
        self.delack_timer.cancel();
    }

    pub(super) fn data_segment(&self, now: Time, seq: u64, len: u64) -> Pdu {
        self.segment(now, seq, len, TCP_ACK)
    }

    pub(super) fn control(&self, now: Time, flags: u8) -> Pdu {
        self.segment(now, 0, 0, flags)
    }

    pub(super) fn segment(&self, now: Time, seq: u64, len: u64, flags: u8) -> Pdu {
        let syn = flags & TCP_SYN != 0;
        let flags = flags
            | if syn {
                self.ecn.syn_flags(flags & TCP_ACK != 0)
            } else {
                self.ecn.ack_flags()
            };
        let adv = self.advertised_window();
        let window = if syn { adv } else { adv >> self.my_shift }.min(65_535) as u16;
        let h = TcpHeader {
            seq: wire(seq),
            ack: wire(self.rx.rcv_nxt),
            window,
            flags,
            wscale: if syn { self.my_shift } else { 0 },
        };
        let header = if self.cfg.variant == Variant::Sack && !syn {
            let blocks = self.rx.sack_blocks(3);
            let blocks: Vec<(u32, u32)> = blocks
                .into_iter()
                .map(|(s, e)| (wire(s), wire(e)))
                .collect();
            Header::tcp_with_sack(h, &blocks)
        } else {
            Header::Tcp(h)
        };
        Pdu {
            bytes: self.cfg.header + len as u32,
            flow: self.endpoint.flow,
            seq: seq / self.cfg.mss.max(1) as u64,
            src_node: self.endpoint.node,
            dst_node: self.endpoint.peer_node,
            dst_agent: self.endpoint.peer_agent.index,
            dst_gen: self.endpoint.peer_agent.gen,
            created: now,
            enqueued: now,
            class: Class::new(self.cfg.priority, self.cfg.clp),
            ecn: 0,
            header,
        }
    }
}
