//! The typed scenario description (docs/scenario.md, "normalised
//! description"): SI base units, integers for picoseconds and bytes, every
//! default filled in. This file is only the index of the sections: each
//! section's entry type lives with the component that builds it
//! (`world::links`, `world::tcp`, ...), and the models' parameters inside an
//! entry deserialise straight into the models' own configs (`TcpConfig`,
//! `AbrConfig`, `EricaConfig`, ...).

use super::world::{
    arrivals, cell_sources, dvb_rcs, emulated, links, probes, sources, tcp, tfrc, tfrc_arrivals,
    udp_rr,
};
use super::BuildError;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Description {
    pub name: String,
    pub seed: u64,
    pub(crate) duration_ps: u64,
    pub(crate) sample_interval_ps: u64,
    #[serde(default)]
    pub(crate) max_events: Option<u64>,
    #[serde(default)]
    pub stop_when: Option<StopWhen>,
    pub(crate) nodes: Vec<NodeDesc>,
    pub links: Vec<links::LinkDesc>,
    #[serde(default)]
    pub(crate) sources: Vec<sources::SourceDesc>,
    #[serde(default)]
    pub(crate) sinks: Vec<sources::SinkDesc>,
    #[serde(default)]
    pub probes: Vec<probes::ProbeDesc>,
    #[serde(default)]
    pub tcp: Vec<tcp::TcpDesc>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) udp_rr: Vec<udp_rr::UdpRrDesc>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub arrivals: Vec<arrivals::ArrivalsDesc>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub emulate: Vec<emulated::EmulatedDesc>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dvb_rcs: Vec<dvb_rcs::DvbRcsDesc>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) tfrc: Vec<tfrc::TfrcDesc>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tfrc_arrivals: Vec<tfrc_arrivals::TfrcArrivalsDesc>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cell_sources: Vec<cell_sources::CellSourcesDesc>,
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
