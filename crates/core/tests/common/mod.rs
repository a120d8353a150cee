//! What integration tests share: the path of the BBR tests (`bbr.rs`,
//! `bbr3.rs`), one bulk SACK connection over a drop-tail bottleneck built
//! as the core's description directly, and running a description to its
//! summary (`moving_path.rs` too). Each test crate uses a part of it.
#![allow(dead_code)]

use satcc_core::scenario::{summary, Description, World};
use serde_json::json;

pub const MS: u64 = 1_000_000_000;

/// a --fwd--> b over `rate_bps` with `one_way_ms` each way and a drop-tail
/// buffer of `queue_packets`; one bulk SACK connection a -> b.
pub fn path(
    rate_bps: f64,
    one_way_ms: u64,
    queue_packets: u64,
    loss: f64,
    cc: &str,
    seed: u64,
    secs: f64,
) -> Description {
    let link = |name: &str, from: &str, to: &str, loss: f64| {
        json!({"name": name, "from": from, "to": to, "delay_ps": one_way_ms * MS, "ber": 0.0, "loss": loss,
               "queue": {"kind": "droptail", "limit": {"packets": queue_packets}},
               "capacity": {"kind": "constant", "rate_bps": rate_bps}})
    };
    let t = json!({"name": "t", "src_node": "a", "dst_node": "b", "variant": "sack",
        "congestion_control": cc,
        "mss_bytes": 1460, "header_bytes": 40, "initial_window_segments": 10, "initial_ssthresh_bytes": null,
        "min_rto_ps": 200 * MS, "initial_rto_ps": 1000 * MS, "max_rto_ps": 120_000 * MS, "granularity_ps": MS,
        "delayed_ack": true, "delayed_ack_ps": 40 * MS, "window_scaling": true,
        "send_buffer_bytes": 1u64 << 26, "receive_buffer_bytes": 1u64 << 26, "handshake": true, "start_ps": 0,
        "priority": 0, "clp": 0, "app": {"kind": "bulk", "bytes": null}});
    let d = json!({"name": cc, "seed": seed, "duration_ps": (secs * 1e12) as u64,
        "sample_interval_ps": 100 * MS, "max_events": null, "stop_when": null,
        "nodes": [{"name": "a", "kind": "host", "routes": {"b": "fwd"}},
                  {"name": "b", "kind": "host", "routes": {"a": "rev"}}],
        "links": [link("fwd", "a", "b", loss), link("rev", "b", "a", 0.0)],
        "sources": [], "sinks": [], "probes": [], "tcp": [t]});
    serde_json::from_value(d).unwrap()
}

pub fn run(d: &Description) -> summary::Summary {
    let mut w = World::build(d).unwrap();
    w.run();
    w.summary()
}

pub fn f(s: &summary::Summary, k: &str) -> f64 {
    s[k].as_f64().unwrap_or(f64::NAN)
}
