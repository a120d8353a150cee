//! The typed scenario description (docs/scenario.md, "normalised
//! description"): SI base units, integers for picoseconds and bytes, every
//! default filled in. Later layers (TCP, ATM, DVB-RCS) add optional sections.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Description {
    pub name: String,
    pub seed: u64,
    pub duration_ps: u64,
    pub sample_interval_ps: u64,
    #[serde(default)]
    pub max_events: Option<u64>,
    #[serde(default)]
    pub stop_when: Option<StopWhen>,
    pub nodes: Vec<NodeDesc>,
    pub links: Vec<LinkDesc>,
    #[serde(default)]
    pub sources: Vec<SourceDesc>,
    #[serde(default)]
    pub sinks: Vec<SinkDesc>,
    #[serde(default)]
    pub probes: Vec<ProbeDesc>,
    #[serde(default)]
    pub tcp: Vec<TcpDesc>,
    #[serde(default)]
    pub udp_rr: Vec<UdpRrDesc>,
}

/// A netperf-style UDP request/response exchange (`apps::udp_rr`).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct UdpRrDesc {
    pub name: String,
    pub src_node: String,
    pub dst_node: String,
    pub request_bytes: u32,
    pub response_bytes: u32,
    #[serde(default)]
    pub count: Option<u64>,
    #[serde(default)]
    pub warmup: u64,
    pub timeout_ps: u64,
    #[serde(default)]
    pub start_ps: u64,
    /// Over UBR VCs (IP over ATM) rather than as plain packets.
    #[serde(default)]
    pub ubr: Option<UbrDesc>,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct StopWhen {
    /// Stop when this sink has received `received_packets`...
    #[serde(default)]
    pub sink: Option<String>,
    #[serde(default)]
    pub received_packets: Option<u64>,
    /// ...or when this TCP connection's finite workload has completed.
    #[serde(default)]
    pub tcp: Option<String>,
    #[serde(default)]
    pub completed: Option<bool>,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct NodeDesc {
    pub name: String,
    #[serde(default = "router")]
    pub kind: String,
    #[serde(default)]
    pub routes: BTreeMap<String, String>,
}

fn router() -> String {
    "router".into()
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LinkDesc {
    pub name: String,
    pub from: String,
    pub to: String,
    pub delay_ps: u64,
    #[serde(default)]
    pub ber: f64,
    #[serde(default)]
    pub loss: f64,
    pub queue: QueueDesc,
    pub capacity: CapacityDesc,
    /// Runs ERICA+ at this link's output port (an ATM switch port).
    #[serde(default)]
    pub erica: Option<EricaDesc>,
}

/// ERICA+ parameters of one switch output port (REFERENCE §1).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct EricaDesc {
    pub interval_cells: u64,
    pub interval_ps: u64,
    pub t0_ps: u64,
    pub a: f64,
    pub b: f64,
    pub qdlf: f64,
    pub delta: f64,
    /// Exponential averaging weight of the load factor (1 = none).
    pub z_alpha: f64,
    /// "rm_field" or "measured".
    pub ccr: String,
    pub bidirectional_counting: bool,
}

/// An ABR VC pair carrying a TCP connection over AAL5 (TM 4.0 §5.10).
/// Rates are cell line rates in bit/s (53 bytes per cell).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct AbrDesc {
    pub pcr_bps: f64,
    pub mcr_bps: f64,
    pub icr_bps: f64,
    pub rif: f64,
    pub rdf: f64,
    pub nrm: u32,
    pub mrm: u32,
    pub trm_ps: u64,
    pub cdf: f64,
    pub tbe: u64,
    #[serde(default)]
    pub crm: Option<u64>,
    pub adtf_ps: u64,
    pub tcr_bps: f64,
    /// "llc_snap" (RFC 1577) or "vc_mux".
    pub encapsulation: String,
}

#[derive(Copy, Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum LimitDesc {
    Packets(u64),
    Bytes(u64),
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LevelDesc {
    pub limit: LimitDesc,
    pub clp_threshold: LimitDesc,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum QueueDesc {
    Droptail { limit: LimitDesc },
    Priority { high: LevelDesc, low: LevelDesc },
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum CapacityDesc {
    Constant {
        rate_bps: f64,
    },
    Markov {
        rates_bps: [f64; 2],
        mean_holding_ps: [u64; 2],
        #[serde(default)]
        initial: usize,
    },
    Trace {
        times_ps: Vec<u64>,
        rates_bps: Vec<f64>,
        #[serde(default)]
        period_ps: Option<u64>,
    },
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SourceDesc {
    pub name: String,
    /// "cbr", "poisson" or "onoff".
    pub kind: String,
    pub node: String,
    pub sink: String,
    pub rate_bps: f64,
    pub packet_bytes: u32,
    /// "constant" or "exponential".
    #[serde(default = "constant")]
    pub size_dist: String,
    #[serde(default)]
    pub start_ps: u64,
    #[serde(default)]
    pub stop_ps: Option<u64>,
    #[serde(default)]
    pub priority: u8,
    #[serde(default)]
    pub clp: u8,
    #[serde(default)]
    pub on_ps: Option<u64>,
    #[serde(default)]
    pub off_ps: Option<u64>,
    /// "exponential" or "deterministic" (ON-OFF only).
    #[serde(default)]
    pub periods: Option<String>,
    /// MPEG-2 video only: `rate_bps` is the mean of the fGn rate process,
    /// this its standard deviation...
    #[serde(default)]
    pub std_bps: Option<f64>,
    #[serde(default)]
    pub hurst: Option<f64>,
    /// ...rates above which are skipped...
    #[serde(default)]
    pub peak_bps: Option<f64>,
    /// ...and the range of the uniform inter-MPCR interval.
    #[serde(default)]
    pub mpcr_min_ps: Option<u64>,
    #[serde(default)]
    pub mpcr_max_ps: Option<u64>,
}

fn yes() -> bool {
    true
}

fn abc_default() -> u32 {
    2
}

fn constant() -> String {
    "constant".into()
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SinkDesc {
    pub name: String,
    pub node: String,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ProbeDesc {
    pub name: String,
    /// "link", "sink" or "source".
    pub target: String,
    /// Name of the target.
    pub of: String,
    pub metric: String,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TcpDesc {
    pub name: String,
    pub src_node: String,
    pub dst_node: String,
    /// "tahoe", "reno", "newreno" or "sack".
    pub variant: String,
    pub mss_bytes: u32,
    pub header_bytes: u32,
    pub initial_window_segments: u32,
    #[serde(default = "abc_default")]
    pub abc_limit_segments: u32,
    #[serde(default)]
    pub initial_ssthresh_bytes: Option<u64>,
    pub min_rto_ps: u64,
    pub initial_rto_ps: u64,
    pub max_rto_ps: u64,
    pub granularity_ps: u64,
    pub delayed_ack: bool,
    pub delayed_ack_ps: u64,
    #[serde(default = "yes")]
    pub limited_transmit: bool,
    #[serde(default = "yes")]
    pub restart_after_idle: bool,
    pub window_scaling: bool,
    pub send_buffer_bytes: u64,
    pub receive_buffer_bytes: u64,
    pub handshake: bool,
    #[serde(default)]
    pub start_ps: u64,
    #[serde(default)]
    pub priority: u8,
    #[serde(default)]
    pub clp: u8,
    pub app: AppDesc,
    /// Carry both directions over ABR VCs (TCP over ATM).
    #[serde(default)]
    pub abr: Option<AbrDesc>,
    /// Carry both directions over UBR VCs (classical IP over ATM, no rate
    /// control).
    #[serde(default)]
    pub ubr: Option<UbrDesc>,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct UbrDesc {
    /// "llc_snap" (RFC 1577) or "vc_mux".
    pub encapsulation: String,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum AppDesc {
    Bulk {
        #[serde(default)]
        bytes: Option<u64>,
    },
    RequestResponse {
        request_bytes: u64,
        response_bytes: u64,
        #[serde(default)]
        count: Option<u64>,
        /// Leading transactions not counted in the transaction statistics.
        #[serde(default)]
        warmup: u64,
    },
    /// NetPIPE's ping-pong sweep over block sizes (`apps::netpipe`).
    Netpipe {
        sizes_bytes: Vec<u64>,
        warmup: u64,
        trial_time_ps: u64,
        min_repetitions: u64,
        max_repetitions: u64,
        #[serde(default)]
        stop_time_ps: Option<u64>,
    },
}

impl Description {
    pub fn from_json(s: &str) -> Result<Description, super::BuildError> {
        serde_json::from_str(s).map_err(|e| super::BuildError(format!("invalid description: {e}")))
    }
}
