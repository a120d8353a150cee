//! Canonical benchmark B1 (shared BENCHMARKS.md): a cell storm over a GEO
//! hop, measured on the engine alone (no Python). `cargo bench --bench b1`
//! [-- SECONDS]. The scenario-level figure (`satcc bench`) runs the same
//! network from examples/b1_cell_storm.toml.

use satcc_core::scenario::description::*;
use satcc_core::scenario::World;
use std::collections::BTreeMap;
use std::time::Instant;

const OC3: f64 = 149.76e6;
const MS: u64 = 1_000_000_000;

fn link(name: &str, from: &str, to: &str, delay_ps: u64) -> LinkDesc {
    LinkDesc {
        name: name.into(),
        from: from.into(),
        to: to.into(),
        delay_ps,
        ber: 0.0,
        loss: 0.0,
        queue: QueueDesc::Droptail {
            limit: LimitDesc::Packets(100_000),
        },
        capacity: CapacityDesc::Constant { rate_bps: OC3 },
        erica: None,
    }
}

fn b1(seconds: u64) -> Description {
    let mut nodes = vec![];
    let mut links = vec![];
    let mut sources = vec![];
    for i in 0..16 {
        let n = format!("h{i:02}");
        let mut routes = BTreeMap::new();
        routes.insert("sink".to_string(), format!("a{i:02}"));
        nodes.push(NodeDesc {
            name: n.clone(),
            kind: "host".into(),
            routes,
        });
        links.push(link(&format!("a{i:02}"), &n, "s1", 5_000_000)); // 1 km ≈ 5 µs
        sources.push(SourceDesc {
            name: format!("c{i:02}"),
            kind: "cbr".into(),
            node: n,
            sink: "rx".into(),
            rate_bps: 8.892e6,
            packet_bytes: 53,
            size_dist: "constant".into(),
            start_ps: 0,
            stop_ps: None,
            priority: 0,
            clp: 0,
            on_ps: None,
            off_ps: None,
            periods: None,
            std_bps: None,
            hurst: None,
            peak_bps: None,
            mpcr_min_ps: None,
            mpcr_max_ps: None,
        });
    }
    for (name, via) in [("s1", "s1s2"), ("s2", "s2s3"), ("s3", "s3k")] {
        let mut routes = BTreeMap::new();
        routes.insert("sink".to_string(), via.to_string());
        nodes.push(NodeDesc {
            name: name.into(),
            kind: "router".into(),
            routes,
        });
    }
    nodes.push(NodeDesc {
        name: "sink".into(),
        kind: "host".into(),
        routes: BTreeMap::new(),
    });
    links.push(link("s1s2", "s1", "s2", 5 * MS));
    links.push(link("s2s3", "s2", "s3", 275 * MS));
    links.push(link("s3k", "s3", "sink", 5_000_000));
    Description {
        name: "b1".into(),
        seed: 1,
        duration_ps: seconds * 1_000_000_000_000,
        sample_interval_ps: 1_000_000_000_000,
        max_events: None,
        stop_when: None,
        nodes,
        links,
        sources,
        sinks: vec![SinkDesc {
            name: "rx".into(),
            node: "sink".into(),
        }],
        probes: vec![],
        tcp: vec![],
        udp_rr: vec![],
    }
}

fn main() {
    let seconds: u64 = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(30);
    let mut w = World::build(&b1(seconds)).expect("B1 builds");
    let t0 = Instant::now();
    w.run();
    let wall = t0.elapsed().as_secs_f64();
    let tx: u64 = w.links.iter().map(|l| l.stats.tx_packets).sum();
    let drops: u64 = w.links.iter().map(|l| l.stats.drops).sum();
    println!("B1 engine-only: {seconds} simulated s in {wall:.3} s wall");
    println!("  link transmissions/s : {:.3e}", tx as f64 / wall);
    println!("  events/s             : {:.3e}", w.events as f64 / wall);
    println!("  simulated s / wall s : {:.2}", seconds as f64 / wall);
    println!("  transmissions {tx}, events {}, drops {drops}", w.events);
}
