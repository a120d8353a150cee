//! The flat run summary: `run.*` keys here, and the keys of every link
//! (`links.NAME.*`) and component (`flows.NAME.*`, `tcp.NAME.*`, ...) from
//! the file of its kind. Plain numbers, sorted, so that the same run
//! serialises to the same bytes. Wall-clock figures are deliberately absent.

use super::world::component::View;
use super::world::{links, World};
use serde_json::Value;
use std::collections::BTreeMap;

pub type Summary = BTreeMap<String, Value>;

pub fn put(s: &mut Summary, key: String, v: impl Into<Value>) {
    s.insert(key, v.into());
}

/// JSON has no NaN: undefined figures (the delay of a flow that received
/// nothing) become null.
pub fn num(x: f64) -> Value {
    serde_json::Number::from_f64(x).map_or(Value::Null, Value::Number)
}

pub fn opt(x: Option<f64>) -> Value {
    x.map_or(Value::Null, num)
}

/// Bytes over seconds as bit/s; NaN over no time.
pub fn rate(bytes: u64, secs: f64) -> f64 {
    if secs > 0.0 {
        bytes as f64 * 8.0 / secs
    } else {
        f64::NAN
    }
}

/// Seconds per picosecond.
pub const PS: f64 = 1e-12;

pub fn summarise(w: &World) -> Summary {
    let mut s = Summary::new();
    put(&mut s, "run.events".into(), w.events);
    put(&mut s, "run.end_time_s".into(), num(w.now.as_secs_f64()));
    put(&mut s, "run.seed".into(), w.seed);
    put(
        &mut s,
        "run.stop_reason".into(),
        w.stopped.map_or("running", |r| r.as_str()),
    );
    put(&mut s, "run.unroutable".into(), w.unroutable);
    links::summarise(w, &mut s);
    for d in &w.dvb_rcs {
        d.summarise(&w.net, &mut s);
    }
    let in_flight = w.in_flight_per_flow();
    conservation(w, &in_flight, &mut s);
    let view = View {
        now: w.now,
        comps: &w.comps,
        flows: &w.flows,
        in_flight: &in_flight,
    };
    for c in &w.comps {
        c.model().summarise(&mut s, &view);
    }
    s
}

/// Every PDU that entered the network was delivered, dropped, lost to an
/// error, or is still in flight; every PDU an attachment (a VC) took was
/// passed on, lost or is still held. `run.pdus_unaccounted` counts the
/// others: zero, or the run lost data without counting it.
fn conservation(w: &World, in_flight: &[u64], s: &mut Summary) {
    let (sent, delivered) = (w.pdus_sent, w.pdus_delivered);
    let dropped: u64 = w.flows.iter().map(|f| f.dropped).sum();
    let errored: u64 = w.flows.iter().map(|f| f.errored).sum::<u64>()
        + w.net.links.iter().map(|l| l.pending_errors()).sum::<u64>();
    let held: u64 = in_flight.iter().sum();
    let network = sent as i64 - (delivered + dropped + errored + held) as i64;
    let attachments: i64 = w.comps.iter().map(|c| c.model().unaccounted()).sum();
    put(s, "run.pdus_sent".into(), sent);
    put(s, "run.pdus_delivered".into(), delivered);
    put(s, "run.pdus_dropped".into(), dropped);
    put(s, "run.pdus_errored".into(), errored);
    put(s, "run.pdus_in_flight".into(), held);
    put(s, "run.pdus_unaccounted".into(), network + attachments);
}

/// The summary as canonical JSON (sorted keys, shortest float repr).
pub fn to_json(s: &Summary) -> String {
    serde_json::to_string(s).expect("summary serialises")
}
