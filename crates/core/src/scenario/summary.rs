//! The flat run summary and how its keys are written: plain numbers,
//! sorted, so that the same run serialises to the same bytes. Wall-clock
//! figures are deliberately absent. The world fills it (`World::summary`,
//! `world/report.rs`): the `run.*` keys, then each link's and each
//! component's from the file of its kind; this module knows nothing of the
//! world.

use serde_json::Value;
use std::collections::BTreeMap;

/// The run summary: a flat map from key (`links.NAME.drops`) to a plain
/// number, sorted by key (docs/scenario.md lists the keys).
pub type Summary = BTreeMap<String, Value>;

/// Sets key `key` of the summary to `v`.
pub fn put(s: &mut Summary, key: String, v: impl Into<Value>) {
    s.insert(key, v.into());
}

/// JSON has no NaN: undefined figures (the delay of a flow that received
/// nothing) become null.
pub fn num(x: f64) -> Value {
    serde_json::Number::from_f64(x).map_or(Value::Null, Value::Number)
}

pub(crate) fn opt(x: Option<f64>) -> Value {
    x.map_or(Value::Null, num)
}

/// Bytes over seconds as bit/s; NaN over no time.
pub(crate) fn rate(bytes: u64, secs: f64) -> f64 {
    if secs > 0.0 {
        bytes as f64 * 8.0 / secs
    } else {
        f64::NAN
    }
}

/// Seconds per picosecond.
pub(crate) const PS: f64 = 1e-12;

/// The summary as canonical JSON (sorted keys, shortest float repr).
pub fn to_json(s: &Summary) -> String {
    serde_json::to_string(s).expect("summary serialises")
}
