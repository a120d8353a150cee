//! RACK-TLP (RFC 8985) over a simulated GEO path, with losses placed by
//! PDU number on the data direction (`loss_list`), against RFC 6675's
//! detection on the same losses.

use satcc_core::scenario::{summary, Description, World};
use serde_json::{json, Value};

const MS: u64 = 1_000_000_000;

/// a --fwd--> b (275 ms, 2 Mb/s), b --rev--> a; a 100 kB SACK transfer.
fn describe(recovery: &str, prr: bool, loss_list: &[u64]) -> Description {
    let link = |name: &str, from: &str, to: &str, lost: Value| {
        json!({"name": name, "from": from, "to": to, "delay_ps": 275 * MS, "ber": 0.0, "loss": 0.0,
               "loss_list": lost, "queue": {"kind": "droptail", "limit": {"packets": 1000}},
               "capacity": {"kind": "constant", "rate_bps": 2e6}})
    };
    let t = json!({"name": "t", "src_node": "a", "dst_node": "b", "variant": "sack",
        "recovery": recovery, "prr": prr,
        "mss_bytes": 1460, "header_bytes": 40, "initial_window_segments": 10, "initial_ssthresh_bytes": null,
        "min_rto_ps": 1000 * MS, "initial_rto_ps": 1000 * MS, "max_rto_ps": 60_000 * MS, "granularity_ps": MS,
        "delayed_ack": true, "delayed_ack_ps": 40 * MS, "window_scaling": true,
        "send_buffer_bytes": 1 << 20, "receive_buffer_bytes": 1 << 20, "handshake": true, "start_ps": 0,
        "priority": 0, "clp": 0, "app": {"kind": "bulk", "bytes": 100_000}});
    let d = json!({"name": "rack", "seed": 1, "duration_ps": 30_000 * MS,
        "sample_interval_ps": 100 * MS, "max_events": null,
        "stop_when": {"tcp": "t", "completed": true},
        "nodes": [{"name": "a", "kind": "host", "routes": {"b": "fwd"}},
                  {"name": "b", "kind": "host", "routes": {"a": "rev"}}],
        "links": [link("fwd", "a", "b", json!(loss_list)), link("rev", "b", "a", json!([]))],
        "sources": [], "sinks": [], "probes": [], "tcp": [t]});
    serde_json::from_value(d).unwrap()
}

fn geo(recovery: &str, loss_list: &[u64]) -> summary::Summary {
    geo_with(recovery, false, loss_list)
}

fn geo_with(recovery: &str, prr: bool, loss_list: &[u64]) -> summary::Summary {
    let mut w = World::build(&describe(recovery, prr, loss_list)).unwrap();
    w.run();
    w.summary()
}

fn f(s: &summary::Summary, k: &str) -> f64 {
    s[&format!("tcp.t.{k}")].as_f64().unwrap_or(f64::NAN)
}

#[test]
fn the_tail_of_a_transfer_is_repaired_by_a_probe_not_the_timer() {
    // PDU 1 is the SYN; the 69 data segments are PDUs 2..=70. Losing the
    // last two leaves no later segment to SACK: RFC 6675 waits for the
    // RTO, TLP probes 2·SRTT after the last ACK and RACK finds the other.
    let rfc = geo("rfc6675", &[69, 70]);
    let rack = geo("rack-tlp", &[69, 70]);
    let (t_rfc, t_rack) = (f(&rfc, "completion_time_s"), f(&rack, "completion_time_s"));
    eprintln!(
        "tail: rfc6675 {t_rfc:.3} s, {} timeouts; rack-tlp {t_rack:.3} s, {} timeouts",
        f(&rfc, "timeouts"),
        f(&rack, "timeouts")
    );
    assert_eq!(f(&rfc, "timeouts"), 1.0);
    assert_eq!(f(&rack, "timeouts"), 0.0);
    assert_eq!(f(&rack, "delivered_bytes"), 100_000.0);
    assert!(t_rack < t_rfc, "{t_rack} vs {t_rfc}");
}

#[test]
fn many_losses_in_one_window_are_repaired_in_one_recovery() {
    // A third of the fourth flight lost, as after a slow-start overshoot.
    let lost: Vec<u64> = (40..=52).collect();
    let rfc = geo("rfc6675", &lost);
    let rack = geo("rack-tlp", &lost);
    // Linux's combination: RACK finds the losses, PRR paces the repair.
    let rack_prr = geo_with("rack-tlp", true, &lost);
    eprintln!(
        "burst: rfc6675 {:.3} s, rack-tlp {:.3} s, rack-tlp + prr {:.3} s",
        f(&rfc, "completion_time_s"),
        f(&rack, "completion_time_s"),
        f(&rack_prr, "completion_time_s")
    );
    for s in [&rfc, &rack, &rack_prr] {
        assert_eq!(f(s, "delivered_bytes"), 100_000.0);
        assert_eq!(f(s, "retransmissions"), lost.len() as f64);
        assert_eq!(f(s, "fast_retransmits"), 1.0);
        assert_eq!(f(s, "timeouts"), 0.0);
    }
}

#[test]
fn rack_tlp_without_sack_is_refused() {
    let mut d: Value = serde_json::from_str(&describe("rack-tlp", false, &[]).to_json()).unwrap();
    d["tcp"][0]["variant"] = json!("newreno");
    let d: Description = serde_json::from_value(d).unwrap();
    let e = World::build(&d).err().expect("refused").to_string();
    assert!(e.contains("SACK"), "{e}");
}

/// The same GEO hop with a 30-packet queue and an initial window of 600
/// segments: a slow-start overshoot far beyond the 162 packets the path
/// and queue hold, with unlimited data behind it, for 30 s.
fn overshoot(prr: bool) -> summary::Summary {
    let mut d: Value = serde_json::from_str(&describe("rack-tlp", prr, &[]).to_json()).unwrap();
    d["links"][0]["queue"]["limit"]["packets"] = json!(30);
    let t = &mut d["tcp"][0];
    t["mss_bytes"] = json!(1000);
    t["initial_window_segments"] = json!(600);
    t["send_buffer_bytes"] = json!(100_000_000);
    t["receive_buffer_bytes"] = json!(100_000_000);
    t["app"] = json!({"kind": "bulk", "bytes": null});
    d["stop_when"] = Value::Null;
    let d: Description = serde_json::from_value(d).unwrap();
    let mut w = World::build(&d).unwrap();
    w.run();
    w.summary()
}

#[test]
fn a_lost_retransmission_reduces_the_window_again_without_prr() {
    // RFC 8985 §9.3. Without the second reduction recovery kept the window
    // of 314 segments it entered with, each round of retransmissions
    // overflowed the queue again and snd.una never passed 234 kB: 6979
    // retransmissions and 62 kb/s in 30 s. PRR bounds the sending itself.
    let rack = overshoot(false);
    let rack_prr = overshoot(true);
    eprintln!(
        "overshoot: rack-tlp {:.0} b/s, {} rtx; with prr {:.0} b/s, {} rtx",
        f(&rack, "goodput_bps"),
        f(&rack, "retransmissions"),
        f(&rack_prr, "goodput_bps"),
        f(&rack_prr, "retransmissions")
    );
    assert!(
        f(&rack, "goodput_bps") > 1.0e6,
        "{}",
        f(&rack, "goodput_bps")
    );
    assert!(f(&rack, "retransmissions") < 1500.0);
    assert_eq!(f(&rack, "timeouts"), 0.0);
    assert!(f(&rack_prr, "goodput_bps") > 1.5e6);
}
