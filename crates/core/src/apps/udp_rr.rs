//! UDP request/response in the manner of netperf's UDP_RR test: the client
//! sends a request datagram, the server answers with a response datagram
//! as soon as the request arrives, and the client sends the next request
//! when the response is in. One transaction is one such round trip.
//!
//! UDP has no recovery: netperf's UDP_RR simply stalls when a datagram is
//! lost. Here the client gives up on a transaction after `timeout`, counts
//! it lost and starts the next, so that a lossy path yields a loss rate
//! rather than an empty result. Requests and responses are numbered so a
//! late response to an abandoned transaction is recognised and ignored.

use crate::engine::stats::Summary;
use crate::engine::{Check, ConfigError, Duration, Time};
use crate::net::pdu::{AgentAddr, Class, Header, Pdu};
use serde::{Deserialize, Serialize};

/// UDP (8) and IPv4 (20) headers.
pub(crate) const UDP_IP_HEADER: u32 = 28;
const PORT: u16 = 12865; // netperf's control port, used here for both ends

/// In a scenario description, the keys of a `udp_rr[]` entry.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct UdpRrConfig {
    /// Payload bytes of each request and response.
    #[serde(rename = "request_bytes")]
    pub request: u32,
    #[serde(rename = "response_bytes")]
    pub(crate) response: u32,
    /// Transactions to run (lost ones included); `None` = until the end.
    #[serde(default)]
    pub count: Option<u64>,
    /// Leading transactions not counted in the time statistics.
    #[serde(default)]
    pub(crate) warmup: u64,
    #[serde(rename = "timeout_ps")]
    pub(crate) timeout: Duration,
    #[serde(rename = "start_ps", default)]
    pub start: Time,
}

impl UdpRrConfig {}

impl Check for UdpRrConfig {
    fn check(&self) -> Result<(), ConfigError> {
        if self.timeout.ps() == 0 {
            return Err("timeout must be positive".into());
        }
        if self.request + UDP_IP_HEADER > 65_535 || self.response + UDP_IP_HEADER > 65_535 {
            return Err("request and response must fit one UDP datagram".into());
        }
        Ok(())
    }
}

/// Where the datagrams go: written into each PDU.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct UdpEnds {
    pub(crate) client_node: u32,
    pub(crate) server_node: u32,
    pub(crate) client_agent: AgentAddr,
    pub(crate) server_agent: AgentAddr,
    /// Flow of the requests; the responses are `flow + 1`.
    pub flow: u32,
}

#[derive(Clone, Debug)]
pub(crate) struct UdpRr {
    pub(crate) cfg: UdpRrConfig,
    pub(crate) ends: UdpEnds,
    /// Number of the transaction in progress (requests sent so far).
    current: u64,
    sent_at: Time,
    waiting: bool,
    pub(crate) completed: u64,
    pub(crate) lost: u64,
    pub(crate) times: Summary,
    pub(crate) finished_at: Option<Time>,
}

impl UdpRr {
    pub(crate) fn new(cfg: UdpRrConfig, ends: UdpEnds) -> UdpRr {
        UdpRr {
            cfg,
            ends,
            current: 0,
            sent_at: Time::ZERO,
            waiting: false,
            completed: 0,
            lost: 0,
            times: Summary::default(),
            finished_at: None,
        }
    }

    fn done(&self) -> bool {
        self.cfg
            .count
            .is_some_and(|c| self.completed + self.lost >= c)
    }

    /// When the client next acts: the first request, or the timeout of the
    /// transaction in progress.
    pub(crate) fn poll_at(&self) -> Time {
        if self.finished_at.is_some() {
            Time::NEVER
        } else if !self.waiting && self.current == 0 {
            self.cfg.start
        } else if self.waiting {
            self.sent_at + self.cfg.timeout
        } else {
            Time::NEVER
        }
    }

    fn datagram(&self, now: Time, to_server: bool, seq: u64) -> Pdu {
        let e = self.ends;
        let (src, dst, agent, flow, payload) = if to_server {
            (
                e.client_node,
                e.server_node,
                e.server_agent,
                e.flow,
                self.cfg.request,
            )
        } else {
            (
                e.server_node,
                e.client_node,
                e.client_agent,
                e.flow + 1,
                self.cfg.response,
            )
        };
        Pdu {
            bytes: payload + UDP_IP_HEADER,
            flow,
            seq,
            src_node: src,
            dst_node: dst,
            dst_agent: agent.index,
            dst_gen: agent.gen,
            created: now,
            enqueued: now,
            class: Class::new(0, 0),
            ecn: 0,
            header: Header::Udp {
                src_port: PORT,
                dst_port: PORT,
            },
        }
    }

    fn next_request(&mut self, now: Time) -> Option<Pdu> {
        if self.done() {
            self.finished_at = Some(now);
            self.waiting = false;
            return None;
        }
        self.current += 1;
        self.sent_at = now;
        self.waiting = true;
        Some(self.datagram(now, true, self.current))
    }

    /// The client's timer: the first request, or giving up on a lost
    /// transaction and sending the next.
    pub(crate) fn on_timer(&mut self, now: Time) -> Option<Pdu> {
        if now < self.poll_at() {
            return None;
        }
        if self.waiting {
            self.lost += 1;
        }
        self.next_request(now)
    }

    /// A request reached the server: its response, at once.
    pub(crate) fn on_request(&self, now: Time, request: &Pdu) -> Pdu {
        self.datagram(now, false, request.seq)
    }

    /// A response reached the client: the next request, if any.
    pub(crate) fn on_response(&mut self, now: Time, response: &Pdu) -> Option<Pdu> {
        if !self.waiting || response.seq != self.current {
            return None; // the answer to a transaction already given up
        }
        self.completed += 1;
        if self.completed + self.lost > self.cfg.warmup {
            self.times.add(now.since(self.sent_at).as_secs_f64());
        }
        self.waiting = false;
        self.next_request(now)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rr(count: u64) -> UdpRr {
        let cfg = UdpRrConfig {
            request: 1,
            response: 1,
            count: Some(count),
            warmup: 0,
            timeout: Duration::from_millis(500),
            start: Time::ZERO,
        };
        let ends = UdpEnds {
            client_node: 0,
            server_node: 1,
            client_agent: AgentAddr::fixed(5),
            server_agent: AgentAddr::fixed(6),
            flow: 2,
        };
        UdpRr::new(cfg, ends)
    }

    #[test]
    fn ping_pong_over_an_ideal_pipe() {
        let mut a = rr(3);
        let one_way = Duration::from_millis(100);
        let mut now = Time::ZERO;
        let mut req = a.on_timer(now).expect("first request");
        assert_eq!((req.bytes, req.dst_agent, req.flow), (29, 6, 2));
        loop {
            now += one_way;
            let resp = a.on_request(now, &req);
            assert_eq!((resp.dst_agent, resp.flow, resp.seq), (5, 3, req.seq));
            now += one_way;
            match a.on_response(now, &resp) {
                Some(next) => req = next,
                None => break,
            }
        }
        assert_eq!((a.completed, a.lost), (3, 0));
        assert!((a.times.mean() - 0.2).abs() < 1e-12);
        assert_eq!(a.poll_at(), Time::NEVER);
    }

    #[test]
    fn a_lost_datagram_times_out_and_a_late_answer_is_ignored() {
        let mut a = rr(2);
        let first = a.on_timer(Time::ZERO).unwrap();
        let t = a.poll_at();
        assert_eq!(t, Time::ZERO + Duration::from_millis(500));
        let second = a.on_timer(t).expect("next request after the timeout");
        assert_eq!((a.lost, second.seq), (1, 2));
        let late = a.on_request(t, &first);
        assert!(a.on_response(t, &late).is_none());
        let resp = a.on_request(t, &second);
        assert!(a.on_response(t + Duration::from_millis(1), &resp).is_none());
        assert_eq!((a.completed, a.lost), (1, 1));
        assert!(a.finished_at.is_some());
    }
}
