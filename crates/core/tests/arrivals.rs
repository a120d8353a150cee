//! Flows that start and end during a run: their state is released when
//! they end, so memory follows the flows in progress and not the flows
//! started; each class reports its flows' figures, which for short
//! transfers on an idle path match the handshake-plus-one-flight time.

use satcc_core::scenario::summary::{self, Summary};
use satcc_core::scenario::world::arrivals::FlowSize;
use satcc_core::scenario::{Description, ScenarioBuilder, World};

/// 100 Mb/s, 10 ms each way; 2000-byte transfers arriving 1000 per second.
fn web(flows: u64, seconds: f64) -> Description {
    ScenarioBuilder::new("web", seconds)
        .host("client")
        .host("server")
        .duplex("l", "client", "server", 100e6, 0.010)
        .arrivals_with(
            "short",
            "client",
            "server",
            1000.0,
            FlowSize::Constant { bytes: 2000 },
            |a| a.max_flows = Some(flows),
        )
        .build()
}

fn get(s: &Summary, k: &str) -> f64 {
    s[&format!("arrivals.short.{k}")].as_f64().unwrap()
}

#[test]
fn memory_stays_flat_over_a_hundred_thousand_flows() {
    let n = 100_000;
    let mut w = World::build(&web(n, 200.0)).unwrap();
    while w.now.as_secs_f64() < 50.0 {
        w.advance(100_000);
    }
    let half = w.live_components().1;
    w.run();
    let s = w.summary();
    assert_eq!(get(&s, "flows_started"), n as f64);
    assert_eq!(get(&s, "flows_completed"), n as f64);
    assert_eq!(get(&s, "flows_active"), 0.0);
    assert_eq!(
        w.live_components().0,
        1,
        "every flow released, the class left"
    );
    // The arena of components, agents and scheduler slots is as large as
    // the most flows ever in progress at once (a few dozen here), not as
    // the flows started: the class, then two agents and two timers per
    // flow, besides the two links' slots and the sampler's.
    let most = get(&s, "flows_active_max") as usize;
    assert!(most < 200, "{most} flows at once");
    assert_eq!(w.live_components().1, 1 + most);
    assert_eq!(w.allocated(), (2 * most, 4 + 2 * most));
    assert!(half <= 1 + most);
}

#[test]
fn a_short_transfer_takes_the_handshake_and_one_flight() {
    let mut w = World::build(&web(2_000, 10.0)).unwrap();
    w.run();
    let s = w.summary();
    // SYN, SYN-ACK, then both segments in the initial window: the server
    // has every byte 1.5 round trips after the SYN, plus the serialisation
    // of a SYN, a SYN-ACK and the two segments (1500 + 540 B) at 100 Mb/s.
    let tx = (40.0 + 40.0 + 1500.0 + 540.0) * 8.0 / 100e6;
    let expect = 0.030 + tx;
    for k in ["completion_time_mean_s", "completion_time_p50_s"] {
        let got = get(&s, k);
        assert!(
            (got - expect).abs() / expect < 0.01,
            "{k}: {got} vs {expect}"
        );
    }
    assert_eq!(get(&s, "bytes_delivered"), 2000.0 * 2000.0);
    assert_eq!(get(&s, "retransmissions"), 0.0);
    assert_eq!(get(&s, "segments_dropped"), 0.0);
}

#[test]
fn arrivals_are_poisson_at_the_asked_rate() {
    // No cap: 1000 per second over 20 s.
    let mut d = web(u64::MAX, 20.0);
    d.arrivals[0].max_flows = None;
    let mut w = World::build(&d).unwrap();
    w.run();
    let started = get(&w.summary(), "flows_started");
    // Poisson: 20 000 expected, standard deviation about 141.
    assert!((started - 20_000.0).abs() < 5.0 * 141.0, "{started}");
}

#[test]
fn same_seed_same_flows() {
    let run = || {
        let mut w = World::build(&web(5_000, 10.0)).unwrap();
        w.run();
        summary::to_json(&w.summary())
    };
    assert_eq!(run(), run());
}
