//! Runs one normalised scenario description (the JSON the Python layer
//! hands the core) on the engine alone, for profiling a scenario without
//! Python: `cargo bench -p satcc-core --bench description -- FILE.json`.
//! Python writes the file: `satcc.scenario.normalised_json(desc)` of a
//! validated scenario, e.g. `satcc.bench.SCENARIOS["B2a"]`'s.

use satcc_core::scenario::{Description, World};
use std::time::Instant;

fn main() {
    let path = std::env::args()
        .skip(1)
        .find(|a| a.ends_with(".json"))
        .expect("usage: description FILE.json");
    let text = std::fs::read_to_string(&path).expect("readable description");
    let desc = Description::from_json(&text).expect("a valid description");
    let mut w = World::build(&desc).expect("it builds");
    let t0 = Instant::now();
    w.run();
    let wall = t0.elapsed().as_secs_f64();
    let tx: u64 = w.net.links.iter().map(|l| l.stats.tx_packets).sum();
    println!("{path}: {wall:.3} s wall");
    println!("  events               : {}", w.events);
    println!("  link transmissions   : {tx}");
    println!("  events/s             : {:.3e}", w.events as f64 / wall);
    println!(
        "  ns per event         : {:.1}",
        wall * 1e9 / w.events as f64
    );
}
