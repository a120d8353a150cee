//! Whole-run properties of the engine: same description and seed give the
//! same bytes; different seeds differ; chunked advancing equals one run.

use satcc_core::scenario::{summary, Description, World};

const SCENARIO: &str = r#"{
  "name": "det", "seed": 7, "duration_ps": 20000000000000, "sample_interval_ps": 100000000000,
  "max_events": null, "stop_when": null,
  "nodes": [{"name": "a", "kind": "router", "routes": {"c": "ab"}},
            {"name": "b", "kind": "router", "routes": {"c": "bc"}},
            {"name": "c", "kind": "router", "routes": {}}],
  "links": [
    {"name": "ab", "from": "a", "to": "b", "delay_ps": 1000000000, "ber": 1e-6, "loss": 0.0,
     "queue": {"kind": "droptail", "limit": {"packets": 20}},
     "capacity": {"kind": "constant", "rate_bps": 10000000.0}},
    {"name": "bc", "from": "b", "to": "c", "delay_ps": 270000000000, "ber": 0.0, "loss": 0.001,
     "queue": {"kind": "priority", "high": {"limit": {"packets": 50}, "clp_threshold": {"packets": 50}},
               "low": {"limit": {"packets": 30}, "clp_threshold": {"packets": 10}}},
     "capacity": {"kind": "markov", "rates_bps": [2048000.0, 1024000.0], "mean_holding_ps": [1000000000000, 500000000000], "initial": 0}}],
  "sources": [
    {"name": "p", "kind": "poisson", "node": "a", "sink": "rx", "rate_bps": 1200000.0, "packet_bytes": 500,
     "size_dist": "exponential", "start_ps": 0, "stop_ps": null, "priority": 1, "clp": 1,
     "on_ps": null, "off_ps": null, "periods": null},
    {"name": "v", "kind": "onoff", "node": "a", "sink": "rx", "rate_bps": 1000000.0, "packet_bytes": 200,
     "size_dist": "constant", "start_ps": 0, "stop_ps": null, "priority": 0, "clp": 0,
     "on_ps": 300000000000, "off_ps": 300000000000, "periods": "exponential"}],
  "sinks": [{"name": "rx", "node": "c"}],
  "probes": [{"name": "q", "target": "link", "of": "bc", "metric": "queue_packets"},
             {"name": "d", "target": "sink", "of": "rx", "metric": "delay_mean_s"}]
}"#;

fn run(seed: u64, chunk: u64) -> (String, Vec<Vec<u64>>) {
    let mut d = Description::from_json(SCENARIO).unwrap();
    d.seed = seed;
    let mut w = World::build(&d).unwrap();
    while !w.advance(chunk) {}
    let series = w
        .probes
        .iter()
        .map(|p| p.series.values.iter().map(|v| v.to_bits()).collect())
        .collect();
    (summary::to_json(&w.summary()), series)
}

#[test]
fn same_seed_same_bytes() {
    assert_eq!(run(7, u64::MAX), run(7, u64::MAX));
}

#[test]
fn chunked_advance_equals_one_run() {
    assert_eq!(run(7, u64::MAX), run(7, 1_000));
}

#[test]
fn different_seeds_differ() {
    assert_ne!(run(7, u64::MAX).0, run(8, u64::MAX).0);
}

#[test]
fn packets_are_conserved() {
    let mut w = World::build(&Description::from_json(SCENARIO).unwrap()).unwrap();
    w.run();
    let s = w.summary();
    for name in ["p", "v"] {
        let get = |k: &str| s[&format!("flows.{name}.{k}")].as_u64().unwrap();
        assert_eq!(
            get("sent_packets"),
            get("received_packets") + get("lost_packets") + get("in_flight_packets")
        );
        assert!(get("received_packets") > 0);
    }
    let link_losses: u64 = ["drops", "drops_clp", "errors"]
        .iter()
        .flat_map(|k| ["ab", "bc"].map(|l| s[&format!("links.{l}.{k}")].as_u64().unwrap()))
        .sum();
    let flow_losses: u64 = ["p", "v"]
        .iter()
        .map(|f| s[&format!("flows.{f}.lost_packets")].as_u64().unwrap())
        .sum();
    assert_eq!(link_losses, flow_losses);
    assert!(
        s["links.bc.drops_clp"].as_u64().unwrap() > 0,
        "the scenario exercises CLP discard"
    );
}

#[test]
fn a_description_with_an_unknown_key_is_refused_by_name() {
    let bad = SCENARIO.replace("\"ber\": 1e-6", "\"bre\": 1e-6");
    let err = Description::from_json(&bad).unwrap_err();
    assert!(err.msg.contains("bre"), "{err}");
}
