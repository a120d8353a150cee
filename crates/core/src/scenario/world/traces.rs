//! Traces: the `traces` section (docs/traces.md). A trace records, during
//! the run, what the summary and the sampled probes cannot show:
//! - `pcap`: every PDU a link puts on the wire (`net::capture`), written
//!   after the run as a pcap file with synthesised IPv4/TCP/UDP headers
//!   (`net::pcap`);
//! - `tcp`: a connection's sender at every change of its window or its
//!   timer (`transport::tcp::trace`).
//!
//! Nothing is written during the run: the caller asks the world for each
//! trace's output at the end (`World::traces`) and writes the files. Both
//! kinds are bounded; what a bound left out is in the trace's report,
//! never dropped silently.

use super::build::{at, Builder, Names};
use super::component::Component;
use super::World;
use crate::engine::{Check, ConfigError, Time};
use crate::net::capture::Captured;
use crate::net::pcap::{self, PcapFile, TcpWire, FILE_HEADER_BYTES, TCP_SERVER_PORT};
use crate::scenario::BuildError;
use crate::transport::tcp::trace::{Phase, TcpTrace};
use crate::transport::tcp::{TcpConfig, Variant};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// A `traces[]` entry: its name and what it records.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct TraceDesc {
    /// Its name in the description (`traces.NAME`), which names its file.
    pub name: String,
    #[serde(flatten)]
    pub(crate) of: TraceOf,
}

/// What a trace records, by its `kind`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub(crate) enum TraceOf {
    /// The PDUs a link transmits, as a pcap file.
    Pcap {
        link: String,
        /// Records hold the payload (as zero bytes), not only the headers.
        payload: bool,
        /// Stop recording after this many packets...
        max_packets: u64,
        /// ...or before the file would grow beyond this many bytes.
        max_bytes: u64,
    },
    /// A TCP connection's sender as it changes.
    Tcp {
        connection: String,
        /// What makes a row: "cwnd" (cwnd, ssthresh, state), "rtt" (srtt, rto).
        events: Vec<TcpEvent>,
        max_records: u64,
    },
}

/// The changes that make a row of a TCP trace.
#[derive(Copy, Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub(crate) enum TcpEvent {
    /// cwnd, ssthresh and the sender's phase.
    Cwnd,
    /// srtt and the retransmission timeout.
    Rtt,
}

impl Check for TraceDesc {
    fn check(&self) -> Result<(), ConfigError> {
        match &self.of {
            TraceOf::Pcap {
                max_packets,
                max_bytes,
                ..
            } => {
                if *max_packets == 0 {
                    return Err(ConfigError::at("max_packets", "must be at least 1"));
                }
                if *max_bytes <= FILE_HEADER_BYTES {
                    return Err(ConfigError::at(
                        "max_bytes",
                        format!("must leave room for a packet after the file's {FILE_HEADER_BYTES}-byte header"),
                    ));
                }
            }
            TraceOf::Tcp {
                events,
                max_records,
                ..
            } => {
                if events.is_empty() {
                    return Err(ConfigError::at(
                        "events",
                        "name at least one of cwnd and rtt",
                    ));
                }
                if *max_records == 0 {
                    return Err(ConfigError::at("max_records", "must be at least 1"));
                }
            }
        }
        Ok(())
    }
}

/// A trace while the run goes on: where its records are kept.
pub(crate) struct Trace {
    name: String,
    what: Recording,
}

enum Recording {
    /// In link `link`'s capture.
    Pcap {
        link: u32,
        payload: bool,
        max_bytes: u64,
    },
    /// In the trace of the TCP connection with component id `comp`.
    Tcp { comp: u32 },
}

/// What a trace recorded, for the caller to write out, and how complete
/// it is.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceOutput {
    /// The trace's name (`traces.NAME`).
    pub name: String,
    /// What it recorded and what its bounds left out.
    pub report: TraceReport,
    /// The file's bytes or the trace's columns.
    pub data: TraceData,
}

/// How complete a trace is.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TraceReport {
    /// "pcap" or "tcp".
    pub kind: &'static str,
    /// The link or connection traced.
    pub of: String,
    /// Packets in the file, or rows of the trace.
    pub records: u64,
    /// Packets or changes left out once a bound was reached.
    pub not_recorded: u64,
    /// The bound that stopped the recording: "max_packets", "max_bytes"
    /// or "max_records"; None if nothing was left out.
    pub stopped_by: Option<&'static str>,
    /// The simulated time of the first record left out.
    pub stopped_at_s: Option<f64>,
    /// ATM cells the link carried, which a pcap of IP packets leaves out.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cells_not_recorded: Option<u64>,
    /// Each node's address in the file, by node name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub addresses: Option<Vec<(String, String)>>,
}

/// A trace's data.
#[derive(Clone, Debug, PartialEq)]
pub enum TraceData {
    /// A pcap file.
    Pcap(Vec<u8>),
    /// A TCP trace's columns.
    Tcp(TcpColumns),
}

/// The columns of a TCP trace, one entry per row.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TcpColumns {
    /// When the change happened, s.
    pub time_s: Vec<f64>,
    /// The congestion window, bytes.
    pub cwnd_bytes: Vec<f64>,
    /// The slow-start threshold, bytes; NaN while unset.
    pub ssthresh_bytes: Vec<f64>,
    /// The smoothed RTT, s; NaN before the first sample.
    pub srtt_s: Vec<f64>,
    /// The retransmission timeout, s.
    pub rto_s: Vec<f64>,
    /// The sender's phase, an index into [`TcpColumns::STATES`].
    pub state: Vec<u8>,
}

impl TcpColumns {
    /// The names of the `state` column's values.
    pub const STATES: [&'static str; 4] = Phase::NAMES;
}

impl Builder<'_> {
    /// Sets the links and connections the traces name to record.
    pub(super) fn traces(&mut self) -> Result<(), BuildError> {
        let link_ix = Names::of(self.d.links.iter().map(|l| l.name.as_str()));
        let mut traced: HashMap<(&str, &str), &str> = HashMap::new();
        for t in &self.d.traces {
            let at = at("traces", &t.name);
            let (kind, of, key) = match &t.of {
                TraceOf::Pcap { link, .. } => ("link", link.as_str(), "pcap"),
                TraceOf::Tcp { connection, .. } => ("connection", connection.as_str(), "tcp"),
            };
            if let Some(other) = traced.insert((kind, of), &t.name) {
                return Err(BuildError::at(
                    &format!("{at}.{key}"),
                    format!("{kind} {of:?} is already traced by trace {other:?}"),
                ));
            }
            let what = match &t.of {
                TraceOf::Pcap {
                    link,
                    payload,
                    max_packets,
                    max_bytes,
                } => {
                    let l = link_ix.find("link", link, &at)?;
                    self.w.net.links[l as usize].capture(*max_packets);
                    Recording::Pcap {
                        link: l,
                        payload: *payload,
                        max_bytes: *max_bytes,
                    }
                }
                TraceOf::Tcp {
                    connection,
                    events,
                    max_records,
                } => {
                    let comp = self.find("tcp", "tcp connection", connection, &at)?;
                    let Component::Tcp(conn) = &mut self.w.reg.comps[comp as usize] else {
                        unreachable!("a tcp name names a connection")
                    };
                    let watch = |e| events.contains(&e);
                    let trace =
                        TcpTrace::new(watch(TcpEvent::Cwnd), watch(TcpEvent::Rtt), *max_records);
                    conn.trace = Some(Box::new(trace));
                    Recording::Tcp { comp }
                }
            };
            self.w.traces.push(Trace {
                name: t.name.clone(),
                what,
            });
        }
        Ok(())
    }
}

impl World {
    /// Every trace's output as the run leaves it, in description order.
    pub fn traces(&self) -> Vec<TraceOutput> {
        self.traces
            .iter()
            .map(|t| match t.what {
                Recording::Pcap {
                    link,
                    payload,
                    max_bytes,
                } => {
                    let l = &self.net.links[link as usize];
                    let captured = l.captured(self.now).expect("a traced link captures");
                    let (bytes, mut report) = self.pcap_file(captured, payload, max_bytes);
                    report.of = self.net.link_names[link as usize].clone();
                    TraceOutput {
                        name: t.name.clone(),
                        report,
                        data: TraceData::Pcap(bytes),
                    }
                }
                Recording::Tcp { comp } => {
                    let Component::Tcp(conn) = &self.reg.comps[comp as usize] else {
                        unreachable!("a named connection is never released")
                    };
                    let trace = conn.trace.as_deref().expect("a traced connection");
                    TraceOutput {
                        name: t.name.clone(),
                        report: TraceReport {
                            kind: "tcp",
                            of: conn.name.clone(),
                            records: trace.rows.len() as u64,
                            not_recorded: trace.missed,
                            stopped_by: (trace.missed > 0).then_some("max_records"),
                            stopped_at_s: trace.full_at.map(Time::as_secs_f64),
                            cells_not_recorded: None,
                            addresses: None,
                        },
                        data: TraceData::Tcp(columns(trace)),
                    }
                }
            })
            .collect()
    }

    /// The pcap file of a capture, within `max_bytes`, and its report.
    fn pcap_file(&self, c: Captured<'_>, payload: bool, max_bytes: u64) -> (Vec<u8>, TraceReport) {
        let wires = self.tcp_wires();
        let mut file = PcapFile::new();
        let (mut size, mut written, mut cells) = (FILE_HEADER_BYTES, 0u64, 0u64);
        let mut stopped_by = (c.missed > 0).then_some("max_packets");
        let mut stopped_at = c.full_at;
        let mut left_out = c.missed;
        for (k, (at, pdu)) in c.records.iter().enumerate() {
            let Some(p) = pcap::packet(pdu, wires.get(&pdu.flow), payload) else {
                cells += 1;
                continue;
            };
            size += PcapFile::record_bytes(&p);
            if size > max_bytes {
                // The rest of the records, cells aside, and those never kept.
                let rest = &c.records[k..];
                left_out += rest.iter().filter(|(_, q)| pcap::is_packet(q)).count() as u64;
                cells += rest.iter().filter(|(_, q)| !pcap::is_packet(q)).count() as u64;
                stopped_by = Some("max_bytes");
                stopped_at = Some(*at);
                break;
            }
            file.push(*at, &p);
            written += 1;
        }
        let addresses = self
            .net
            .node_names
            .iter()
            .enumerate()
            .map(|(i, n)| (n.clone(), dotted(pcap::node_address(i as u32))))
            .collect();
        let report = TraceReport {
            kind: "pcap",
            of: String::new(),
            records: written,
            not_recorded: left_out,
            stopped_by,
            stopped_at_s: stopped_at.map(Time::as_secs_f64),
            cells_not_recorded: Some(cells),
            addresses: Some(addresses),
        };
        (file.into_bytes(), report)
    }

    /// How each TCP flow's segments look on the wire, by flow id: the
    /// connections alive now and every pair of flow ids a class of
    /// arrivals has used.
    fn tcp_wires(&self) -> HashMap<u32, TcpWire> {
        let mut wires = HashMap::new();
        let mut add = |client_flow: u32, cfg: &TcpConfig| {
            let wire = |src_port, dst_port| TcpWire {
                src_port,
                dst_port,
                header_bytes: cfg.header,
                mss: cfg.mss.min(u32::from(u16::MAX)) as u16,
                window_scaling: cfg.window_scaling,
                sack: cfg.variant == Variant::Sack,
                handshake: cfg.handshake,
            };
            let client = pcap::flow_port(client_flow);
            wires.insert(client_flow, wire(client, TCP_SERVER_PORT));
            wires.insert(client_flow + 1, wire(TCP_SERVER_PORT, client));
        };
        for c in &self.reg.comps {
            match c {
                Component::Tcp(conn) => add(conn.flow, conn.sockets[0].config()),
                Component::Arrivals(class) => {
                    for &f in class.flows.firsts() {
                        add(f, &class.config);
                    }
                }
                _ => {}
            }
        }
        wires
    }
}

fn dotted(a: [u8; 4]) -> String {
    format!("{}.{}.{}.{}", a[0], a[1], a[2], a[3])
}

fn columns(t: &TcpTrace) -> TcpColumns {
    let mut c = TcpColumns::default();
    for (at, s) in &t.rows {
        c.time_s.push(at.as_secs_f64());
        c.cwnd_bytes.push(s.cwnd as f64);
        c.ssthresh_bytes.push(match s.ssthresh {
            u64::MAX => f64::NAN,
            v => v as f64,
        });
        c.srtt_s.push(s.srtt.map_or(f64::NAN, |d| d.as_secs_f64()));
        c.rto_s.push(s.rto.as_secs_f64());
        c.state.push(s.phase as u8);
    }
    c
}

#[cfg(test)]
mod tests;
