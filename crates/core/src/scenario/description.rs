//! The typed scenario description (docs/scenario.md, "normalised
//! description"): SI base units, integers for picoseconds and bytes, every
//! default filled in. This file is only the index of the sections: each
//! section's entry type lives with the component that builds it
//! (`world::links`, `world::tcp`, ...), and the models' parameters inside an
//! entry deserialise straight into the models' own configs (`TcpConfig`,
//! `AbrConfig`, `EricaConfig`, ...).

use super::world::{
    arrivals, cell_sources, dvb_rcs, emulated, links, probes, sources, tcp, tfrc, tfrc_arrivals,
    traces, udp_rr,
};
use super::BuildError;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// A validated scenario as the core receives it (docs/scenario.md, "The
/// normalised description"): one list per section, SI base units, every
/// default filled in, routes resolved.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Description {
    /// The scenario's name (`run.name`), used in output folders and reports.
    pub name: String,
    /// The run seed (`run.seed`, 1 unless the scenario gives another): each
    /// random component draws from a stream seeded from it and the
    /// component's name.
    pub seed: u64,
    pub(crate) duration_ps: u64,
    pub(crate) sample_interval_ps: u64,
    #[serde(default)]
    pub(crate) max_events: Option<u64>,
    /// Stop before `duration_ps` when this condition holds
    /// (`run.stop_when`); `None`: no condition.
    #[serde(default)]
    pub stop_when: Option<StopWhen>,
    pub(crate) nodes: Vec<NodeDesc>,
    /// The one-way links (`[links.NAME]`), with the `NAME_rev` reverse of
    /// each duplex one.
    pub links: Vec<links::LinkDesc>,
    #[serde(default)]
    pub(crate) sources: Vec<sources::SourceDesc>,
    #[serde(default)]
    pub(crate) sinks: Vec<sources::SinkDesc>,
    /// The probes (`[probes.NAME]`): the metrics sampled every
    /// `sample_interval_ps`.
    #[serde(default)]
    pub probes: Vec<probes::ProbeDesc>,
    /// The TCP connections (`[tcp.NAME]`).
    #[serde(default)]
    pub tcp: Vec<tcp::TcpDesc>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) udp_rr: Vec<udp_rr::UdpRrDesc>,
    /// Classes of TCP transfers arriving during the run (`[arrivals.NAME]`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub arrivals: Vec<arrivals::ArrivalsDesc>,
    /// Real hosts attached at nodes of the network (`[emulate.NAME]`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub emulate: Vec<emulated::EmulatedDesc>,
    /// DVB-RCS return channels, each an NCC and its terminals
    /// (`[dvb_rcs.NAME]`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dvb_rcs: Vec<dvb_rcs::DvbRcsDesc>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) tfrc: Vec<tfrc::TfrcDesc>,
    /// Classes of TFRC media flows arriving during the run
    /// (`[tfrc_arrivals.NAME]`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tfrc_arrivals: Vec<tfrc_arrivals::TfrcArrivalsDesc>,
    /// Groups of the proactive-atm thesis's cell sources
    /// (`[cell_sources.NAME]`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cell_sources: Vec<cell_sources::CellSourcesDesc>,
    /// Packet captures of links and event-driven traces of TCP senders
    /// (`[traces.NAME]`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub traces: Vec<traces::TraceDesc>,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct StopWhen {
    /// Stop when this sink has received `received_packets`...
    #[serde(default)]
    pub(crate) sink: Option<String>,
    #[serde(default)]
    pub(crate) received_packets: Option<u64>,
    /// ...or when this TCP connection's finite workload has completed.
    #[serde(default)]
    pub tcp: Option<String>,
    #[serde(default)]
    pub(crate) completed: Option<bool>,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub(crate) struct NodeDesc {
    pub name: String,
    #[serde(default = "router")]
    pub(crate) kind: String,
    #[serde(default)]
    pub(crate) routes: BTreeMap<String, String>,
}

fn router() -> String {
    "router".into()
}

impl Description {
    /// Reads a description; a key no section knows is refused by name, also
    /// inside entries whose model parameters are read by the model's config.
    pub fn from_json(s: &str) -> Result<Description, BuildError> {
        let input: Value = serde_json::from_str(s)
            .map_err(|e| BuildError::new(format!("invalid description: {e}")))?;
        Description::from_value(input)
    }

    pub(crate) fn from_value(input: Value) -> Result<Description, BuildError> {
        let d: Description = serde_json::from_value(input.clone())
            .map_err(|e| BuildError::new(format!("invalid description: {e}")))?;
        // Entries that share their object with a model's config cannot deny
        // unknown keys in serde itself: compare with what was understood.
        let understood = serde_json::to_value(&d).expect("a description serialises");
        if let Some(path) = unknown_key(&input, &understood, String::new()) {
            return Err(BuildError::new(format!(
                "invalid description: unknown key {path}"
            )));
        }
        Ok(d)
    }

    /// The description as JSON, in the form [`Description::from_json`]
    /// reads.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a description serialises")
    }
}

/// The first key of `input` that `understood` (the parsed description,
/// written back) does not have.
fn unknown_key(input: &Value, understood: &Value, at: String) -> Option<String> {
    match (input, understood) {
        (Value::Object(a), Value::Object(b)) => a.iter().find_map(|(k, v)| {
            let path = if at.is_empty() {
                k.clone()
            } else {
                format!("{at}.{k}")
            };
            match b.get(k) {
                None => Some(path),
                Some(w) => unknown_key(v, w, path),
            }
        }),
        (Value::Array(a), Value::Array(b)) => a
            .iter()
            .zip(b)
            .enumerate()
            .find_map(|(i, (v, w))| unknown_key(v, w, format!("{at}[{i}]"))),
        _ => None,
    }
}
