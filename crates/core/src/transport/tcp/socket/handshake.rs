//! Connection set-up (RFC 9293 §3.5): the active open, the SYN and SYN-ACK
//! exchange, the peer's window scale (RFC 7323 §2.2) and the handshake's
//! RTT sample (RFC 6298 §5.7 after a retransmitted SYN).

use super::{State, TcpSocket};
use crate::engine::{Duration, Time};
use crate::net::pdu::{Pdu, TcpHeader, TCP_ACK, TCP_SYN};
use crate::transport::tcp::congestion::CongestionControl;

impl TcpSocket {
    pub(super) fn open(&mut self, now: Time, out: &mut Vec<Pdu>) {
        if !self.cfg.handshake {
            self.state = State::Established;
            return;
        }
        self.state = State::SynSent;
        self.timing = Some((0, now));
        out.push(self.control(now, TCP_SYN));
        self.rto_timer.arm(now, self.rtt.rto());
    }

    pub(super) fn on_syn(&mut self, now: Time, h: &TcpHeader, out: &mut Vec<Pdu>) {
        let is_syn_ack = h.flags & TCP_ACK != 0;
        match (self.state, is_syn_ack) {
            (State::Listen | State::SynRcvd, false) => {
                self.learn_peer(h);
                self.ecn.on_syn(false, h.flags);
                if self.state == State::Listen {
                    self.timing = Some((0, now));
                }
                self.state = State::SynRcvd;
                out.push(self.control(now, TCP_SYN | TCP_ACK));
                self.rto_timer.arm(now, self.rtt.rto());
            }
            (State::SynSent, true) => {
                self.learn_peer(h);
                self.ecn.on_syn(true, h.flags);
                self.handshake_rtt(now);
                self.state = State::Established;
                self.rto_timer.cancel();
                self.ack_now = true;
            }
            // A retransmitted SYN-ACK: our ACK was lost; repeat it.
            (State::Established, true) => self.ack_now = true,
            _ => {}
        }
    }

    fn learn_peer(&mut self, h: &TcpHeader) {
        self.peer_shift = if self.cfg.window_scaling { h.wscale } else { 0 };
        // RFC 7323 §2.2: the window of a SYN is never scaled.
        self.peer_rwnd = h.window as u64;
    }

    pub(super) fn handshake_rtt(&mut self, now: Time) {
        if let Some((_, t)) = self.timing.take() {
            if !self.syn_retransmitted {
                self.rtt.sample(now.since(t));
                if let Some(r) = self.rack.as_mut() {
                    r.note_rtt(now.since(t));
                }
            }
        }
        if self.syn_retransmitted {
            // RFC 6298 §5.7.
            self.rtt.raise_to(Duration::from_millis(3000));
        }
        self.cc.on_established(self.rtt.srtt());
    }

    pub(super) fn established_by_ack(&mut self, now: Time) {
        self.handshake_rtt(now);
        self.state = State::Established;
        self.rto_timer.cancel();
    }
}
