//! Applications over a TCP connection: bulk transfer (unlimited, or a file
//! of given size, as in the ABR and effcap studies) and request/response
//! exchanges (NetPIPE-style ping-pong: the client sends a request, the
//! server answers once the whole request has arrived, the client sends the
//! next request once the whole response has arrived).
//!
//! Writes are limited by the send buffer, so a request larger than the
//! socket buffer is written piece by piece as acknowledgements free room.
//! NetPIPE's sweep over block sizes is in `netpipe`.

use super::netpipe::{NetPipe, NetPipeConfig};
use crate::engine::stats::Summary;
use crate::engine::Time;
use crate::engine::{Check, ConfigError};
use crate::transport::tcp::TcpSocket;
use serde::{Deserialize, Serialize};

/// The application on a connection; in a scenario description, `tcp[].app`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub(crate) enum AppKind {
    Bulk {
        #[serde(default)]
        bytes: Option<u64>,
    },
    RequestResponse {
        #[serde(rename = "request_bytes")]
        request: u64,
        #[serde(rename = "response_bytes")]
        response: u64,
        #[serde(default)]
        count: Option<u64>,
        /// Leading transactions left out of `transaction_times` (NetPIPE's
        /// warm-up: the first also waits for the handshake and slow start).
        #[serde(default)]
        warmup: u64,
    },
    /// NetPIPE's ping-pong over a schedule of block sizes.
    #[serde(rename = "netpipe")]
    NetPipe(NetPipeConfig),
}

impl AppKind {}

impl Check for AppKind {
    fn check(&self) -> Result<(), ConfigError> {
        match self {
            AppKind::Bulk { bytes } if *bytes == Some(0) => {
                Err("a bulk transfer has at least 1 byte".into())
            }
            AppKind::RequestResponse {
                request, response, ..
            } if *request == 0 || *response == 0 => {
                Err("request and response must be at least 1 byte".into())
            }
            AppKind::NetPipe(cfg) => cfg.check(),
            _ => Ok(()),
        }
    }
}

#[derive(Clone, Debug)]
pub(crate) struct TcpApp {
    pub(crate) kind: AppKind,
    /// Bytes each side still has to write: (client, server).
    pending: (u64, u64),
    /// Transactions (or 1 for a bulk file) completed.
    pub(crate) completed: u64,
    /// Requests the server has answered.
    served: u64,
    transaction_start: Time,
    pub(crate) transaction_times: Summary,
    /// When the whole finite workload was delivered.
    pub(crate) completed_at: Option<Time>,
    started: bool,
    pub(crate) netpipe: Option<NetPipe>,
}

impl TcpApp {
    pub(crate) fn new(kind: AppKind) -> TcpApp {
        let netpipe = match &kind {
            AppKind::NetPipe(cfg) => Some(NetPipe::new(cfg.clone())),
            _ => None,
        };
        TcpApp {
            netpipe,
            kind,
            pending: (0, 0),
            completed: 0,
            served: 0,
            transaction_start: Time::ZERO,
            transaction_times: Summary::default(),
            completed_at: None,
            started: false,
        }
    }

    /// Reacts to what the sockets delivered and writes what is due.
    pub(crate) fn service(&mut self, now: Time, client: &mut TcpSocket, server: &mut TcpSocket) {
        match &self.kind {
            AppKind::Bulk { bytes } => self.bulk(now, *bytes, client, server),
            AppKind::RequestResponse {
                request,
                response,
                count,
                warmup,
            } => {
                let (sizes, count, warmup) = ((*request, *response), *count, *warmup);
                self.ping_pong(now, sizes, count, warmup, client, server)
            }
            AppKind::NetPipe(_) => {
                let np = self.netpipe.as_mut().expect("a NetPIPE app");
                let (c, s) = np.service(now, client.delivered, server.delivered);
                self.pending.0 += c;
                self.pending.1 += s;
                if let Some(t) = np.finished_at {
                    self.completed_at.get_or_insert(t);
                }
            }
        }
        write_some(client, &mut self.pending.0);
        write_some(server, &mut self.pending.1);
    }

    fn bulk(
        &mut self,
        now: Time,
        bytes: Option<u64>,
        client: &mut TcpSocket,
        server: &mut TcpSocket,
    ) {
        match bytes {
            None => self.pending.0 = u64::MAX,
            Some(total) => {
                if !self.started {
                    self.started = true;
                    self.pending.0 = total;
                }
                if self.completed_at.is_none() && server.delivered >= total {
                    self.completed = 1;
                    self.completed_at = Some(now);
                }
            }
        }
        let _ = client;
    }

    fn ping_pong(
        &mut self,
        now: Time,
        (request, response): (u64, u64),
        count: Option<u64>,
        warmup: u64,
        client: &mut TcpSocket,
        server: &mut TcpSocket,
    ) {
        if !self.started {
            self.started = true;
            self.transaction_start = now;
            self.pending.0 += request;
        }
        // The server answers each request once all of it has arrived.
        while server.delivered >= (self.served + 1) * request {
            self.served += 1;
            self.pending.1 += response;
        }
        // The client counts a transaction when its whole response is in.
        while client.delivered >= (self.completed + 1) * response {
            self.completed += 1;
            if self.completed > warmup {
                self.transaction_times
                    .add(now.since(self.transaction_start).as_secs_f64());
            }
            if count.is_some_and(|c| self.completed >= c) {
                self.completed_at.get_or_insert(now);
                break;
            }
            self.transaction_start = now;
            self.pending.0 += request;
        }
    }
}

fn write_some(s: &mut TcpSocket, pending: &mut u64) {
    let n = (*pending).min(s.send_space());
    if n > 0 {
        s.write(n);
        if *pending != u64::MAX {
            *pending -= n;
        }
    }
}
