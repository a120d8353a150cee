//! Links whose delay follows a schedule (a moving LEO path): PDUs are
//! neither lost nor duplicated when the delay changes, a shortening lets
//! later PDUs overtake, a PDU sent while no path exists is dropped and
//! counted, and every run's conservation check holds.

mod common;

use common::{f, run, MS};
use satcc_core::scenario::Description;
use serde_json::{json, Value};

/// 20 ms, then every 100 ms a step between 20 and 35 ms one way (a path
/// change every second, shortening by 15 ms at some), with no path at all
/// from 5 s to 6 s.
fn schedule(secs: u64) -> Value {
    let (mut times, mut delays) = (vec![], vec![]);
    for step in 0..secs * 10 {
        let t_ms = step * 100;
        times.push(t_ms * MS);
        let delay = if (5000..6000).contains(&t_ms) {
            Value::Null
        } else {
            let second = t_ms / 1000;
            let base = if second % 2 == 0 { 20 } else { 35 };
            json!((base * 1000 + (t_ms % 1000)) * MS / 1000)
        };
        delays.push(delay);
    }
    json!({"times_ps": times, "delays_ps": delays})
}

/// CBR at 1 Mb/s of 125-byte PDUs a -> b, or (`with_tcp`) one CUBIC
/// transfer of 12 MB a -> b instead.
fn description(secs: u64, with_tcp: bool) -> Description {
    let link = |name: &str, from: &str, to: &str| {
        json!({"name": name, "from": from, "to": to, "delay_ps": 20 * MS, "ber": 0.0, "loss": 0.0,
               "delay_schedule": schedule(secs),
               "queue": {"kind": "droptail", "limit": {"packets": 200}},
               "capacity": {"kind": "constant", "rate_bps": 10e6}})
    };
    let (mut tcp, mut sources, mut sinks) = (vec![], vec![], vec![]);
    if !with_tcp {
        sources.push(
            json!({"name": "cbr", "kind": "cbr", "node": "a", "sink": "rx",
            "rate_bps": 1e6, "packet_bytes": 125, "size_dist": "constant", "start_ps": 0,
            "stop_ps": null, "priority": 0, "clp": 0, "on_ps": null, "off_ps": null,
            "periods": null}),
        );
        sinks.push(json!({"name": "rx", "node": "b"}));
    } else {
        tcp.push(
            json!({"name": "t", "src_node": "a", "dst_node": "b", "variant": "sack",
            "congestion_control": "cubic",
            "mss_bytes": 1460, "header_bytes": 40, "initial_window_segments": 10,
            "initial_ssthresh_bytes": null, "min_rto_ps": 200 * MS, "initial_rto_ps": 1000 * MS,
            "max_rto_ps": 120_000 * MS, "granularity_ps": MS, "delayed_ack": true,
            "delayed_ack_ps": 40 * MS, "window_scaling": true, "send_buffer_bytes": 1u64 << 26,
            "receive_buffer_bytes": 1u64 << 26, "handshake": true, "start_ps": 0, "priority": 0,
            "clp": 0, "app": {"kind": "bulk", "bytes": 12_000_000}}),
        );
    }
    let d = json!({"name": "moving", "seed": 1, "duration_ps": secs * 1000 * MS,
        "sample_interval_ps": 100 * MS, "max_events": null, "stop_when": null,
        "nodes": [{"name": "a", "kind": "host", "routes": {"b": "fwd"}},
                  {"name": "b", "kind": "host", "routes": {"a": "rev"}}],
        "links": [link("fwd", "a", "b"), link("rev", "b", "a")],
        "sources": sources,
        "sinks": sinks,
        "probes": [{"name": "d", "target": "link", "of": "fwd", "metric": "delay_s"}],
        "tcp": tcp});
    serde_json::from_value(d).unwrap()
}

#[test]
fn cbr_over_a_moving_path_loses_only_what_was_sent_without_a_path() {
    let s = run(&description(10, false));
    // 1000 PDUs a second; the second without a path drops about 1000.
    let unreachable = f(&s, "links.fwd.drops_unreachable");
    assert!((990.0..=1010.0).contains(&unreachable), "{unreachable}");
    assert_eq!(f(&s, "flows.cbr.dropped_packets"), unreachable);
    let sent = f(&s, "flows.cbr.sent_packets");
    let received = f(&s, "flows.cbr.received_packets");
    let in_flight = f(&s, "flows.cbr.in_flight_packets");
    assert_eq!(sent, received + unreachable + in_flight);
    assert_eq!(f(&s, "run.pdus_unaccounted"), 0.0);
    // The one-way delay follows the schedule: its least is 20 ms, its
    // most 35.9 ms plus a transmission.
    assert!((f(&s, "flows.cbr.delay_min_s") - 0.0201).abs() < 1e-4);
    assert!(f(&s, "flows.cbr.delay_max_s") < 0.0361);
    // Links that keep a fixed delay have no such key.
    assert!(!s.contains_key("links.fwd.drops_early"));
}

#[test]
fn tcp_over_a_moving_path_delivers_every_byte_once() {
    let s = run(&description(30, true));
    assert_eq!(f(&s, "tcp.t.delivered_bytes"), 12_000_000.0);
    assert_eq!(f(&s, "run.pdus_unaccounted"), 0.0);
    // Segments sent during the outage were dropped and repaired.
    assert!(f(&s, "links.fwd.drops_unreachable") > 0.0);
    assert!(f(&s, "tcp.t.retransmissions") > 0.0);
}

#[test]
fn the_delay_probe_reads_the_schedule() {
    let mut w = satcc_core::scenario::World::build(&description(10, false)).unwrap();
    w.run();
    let values = &w.probes[0].series.values;
    // Sampled every 100 ms from 0.1 s: 20.1 ms at 0.1 s, 35 ms at 1 s,
    // none at 5.5 s.
    assert!((values[0] - 0.0201).abs() < 1e-12);
    assert!((values[9] - 0.035).abs() < 1e-12);
    assert!(values[54].is_nan());
}
