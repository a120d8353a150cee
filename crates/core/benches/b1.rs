//! Canonical benchmark B1 (shared BENCHMARKS.md): a cell storm over a GEO
//! hop, measured on the engine alone (no Python). `cargo bench --bench b1`
//! [-- SECONDS]. The scenario-level figure (`satcc bench`) runs the same
//! network from examples/b1_cell_storm.toml.

use satcc_core::net::queue::{Limit, QueueConfig};
use satcc_core::scenario::{Description, ScenarioBuilder, World};
use std::time::Instant;

const OC3: f64 = 149.76e6;

fn b1(seconds: u64) -> Description {
    let deep = |l: &mut satcc_core::scenario::world::links::LinkDesc| {
        l.queue = QueueConfig::Droptail {
            limit: Limit::Packets(100_000),
        }
    };
    let mut b = ScenarioBuilder::new("b1", seconds as f64).sample_interval(1.0);
    for name in ["s1", "s2", "s3"] {
        b = b.router(name);
    }
    b = b.host("sink").sink("rx", "sink");
    for i in 0..16 {
        let h = format!("h{i:02}");
        b = b
            .host(&h)
            // 1 km of fibre: about 5 µs.
            .link_with(&format!("a{i:02}"), &h, "s1", OC3, 5e-6, deep)
            .cbr(&format!("c{i:02}"), &h, "rx", 8.892e6, 53);
    }
    b.link_with("s1s2", "s1", "s2", OC3, 0.005, deep)
        .link_with("s2s3", "s2", "s3", OC3, 0.275, deep)
        .link_with("s3k", "s3", "sink", OC3, 5e-6, deep)
        .build()
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
    let tx: u64 = w.net.links.iter().map(|l| l.stats.tx_packets).sum();
    let drops: u64 = w.net.links.iter().map(|l| l.stats.drops).sum();
    println!("B1 engine-only: {seconds} simulated s in {wall:.3} s wall");
    println!("  link transmissions/s : {:.3e}", tx as f64 / wall);
    println!("  events/s             : {:.3e}", w.events as f64 / wall);
    println!("  simulated s / wall s : {:.2}", seconds as f64 / wall);
    println!("  transmissions {tx}, events {}, drops {drops}", w.events);
}
