//! Media flows that arrive during a run (`tfrc_arrivals`): each flow runs
//! between two different hosts of its class for a drawn time, ends when
//! what it sent has arrived and been reported on, and is released; the
//! class's figures account for every packet its flows generated. On an
//! idle, fast mesh every packet arrives after the path's delay, so the
//! start-up profile and the window's distribution are checked against it.

use satcc_core::apps::media::MediaConfig;
use satcc_core::engine::{Duration, Time};
use satcc_core::scenario::summary::{self, Summary};
use satcc_core::scenario::world::tfrc_arrivals::{FlowDuration, TfrcArrivalsDesc};
use satcc_core::scenario::{Description, ScenarioBuilder, World};
use satcc_core::transport::tfrc::TfrcConfig;

const HOSTS: [&str; 3] = ["a", "b", "c"];

/// Three hosts around a hub, 10 Mb/s and 50 ms per spoke; 64 kb/s media
/// of 500-byte packets, flows of 20 s on average arriving every 2 s.
fn mesh(seconds: f64, buffer: u32, max_flows: Option<u64>) -> Description {
    let mut b = ScenarioBuilder::new("mesh", seconds).router("hub");
    for h in HOSTS {
        b = b.host(h).duplex(&format!("l{h}"), h, "hub", 10e6, 0.050);
    }
    b.with(|d| {
        d.tfrc_arrivals.push(TfrcArrivalsDesc {
            name: "video".into(),
            hosts: HOSTS.iter().map(|h| h.to_string()).collect(),
            rate_per_s: 0.5,
            duration: FlowDuration::Exponential {
                mean: Duration::from_secs_f64(20.0),
            },
            media: MediaConfig {
                rate_bps: 64_000.0,
                buffer_packets: buffer,
                duration: None,
            },
            tolerable_delay: None,
            start_ps: Time::ZERO,
            stop_ps: None,
            max_flows,
            window: Duration::from_secs_f64(30.0),
            step: Duration::from_secs_f64(1.0),
            linger: Duration::from_secs_f64(30.0),
            config: TfrcConfig::new(500),
        })
    })
    .build()
}

fn get(s: &Summary, k: &str) -> f64 {
    s[&format!("tfrc_arrivals.video.{k}")]
        .as_f64()
        .unwrap_or_else(|| panic!("{k} missing"))
}

#[test]
fn flows_end_are_released_and_every_packet_is_counted() {
    let mut w = World::build(&mesh(400.0, 1000, Some(60))).unwrap();
    w.run();
    let s = w.summary();
    assert_eq!(s["run.pdus_unaccounted"].as_f64(), Some(0.0));
    assert_eq!(get(&s, "flows_started"), 60.0);
    // 60 flows of 20 s on average, the last started near 120 s: all over
    // long before 400 s, and each released.
    assert_eq!(get(&s, "flows_ended"), 60.0);
    assert_eq!(w.live_components().0, 1, "only the class is left");
    // Nothing is lost on an idle mesh and nothing waits: what was
    // generated was sent and received, and no report was left in flight.
    assert_eq!(get(&s, "tx_buffer_overflow"), 0.0);
    assert_eq!(get(&s, "generated"), get(&s, "packets_sent"));
    assert_eq!(get(&s, "packets_sent"), get(&s, "packets_received"));
    assert_eq!(get(&s, "data_dropped"), 0.0);
    assert_eq!(get(&s, "reports_dropped"), 0.0);
    // 64 kb/s of 500 B is 16 packets/s; 60 flows of 20 s is about 19 200.
    let generated = get(&s, "generated");
    assert!(
        (12_000.0..28_000.0).contains(&generated),
        "{generated} packets"
    );
}

#[test]
fn the_delay_is_the_paths_once_slow_start_is_over() {
    let mut w = World::build(&mesh(300.0, 1000, Some(40))).unwrap();
    w.run();
    let s = w.summary();
    // Two spokes: 100 ms of propagation and two 0.4 ms serialisations.
    let path = 0.1 + 2.0 * 500.0 * 8.0 / 10e6;
    let p50 = get(&s, "e2ed_p50_s");
    assert!((p50 - path).abs() < 0.002, "median E2ED {p50} s");
    let series = w.end_series();
    let find = |name: &str| {
        series
            .iter()
            .find(|(n, _, _)| n == &format!("tfrc_arrivals.video.{name}"))
            .unwrap_or_else(|| panic!("{name} missing"))
    };
    let (x, p95) = (&find("startup_e2ed_p95").1, &find("startup_e2ed_p95").2);
    assert_eq!(x.len(), 30);
    assert!((x[0] - 0.5).abs() < 1e-12 && (x[29] - 29.5).abs() < 1e-12);
    // Slow start queues the first second's packets in the transmit buffer;
    // by the tenth second every flow sends at the media rate.
    assert!(p95[0] > p95[10] && (p95[10] - path).abs() < 0.005);
    let (delays, cdf) = (&find("window_e2ed_cdf").1, &find("window_e2ed_cdf").2);
    assert!((cdf.last().unwrap() - 1.0).abs() < 1e-12);
    assert!(delays.windows(2).all(|w| w[0] < w[1]));
    assert!(cdf.windows(2).all(|w| w[0] < w[1]));
    assert!(delays[0] >= path - 1e-9);
}

#[test]
fn a_small_transmit_buffer_overflows_in_slow_start_and_is_counted() {
    let mut w = World::build(&mesh(200.0, 2, Some(20))).unwrap();
    w.run();
    let s = w.summary();
    assert_eq!(s["run.pdus_unaccounted"].as_f64(), Some(0.0));
    let (generated, overflow) = (get(&s, "generated"), get(&s, "tx_buffer_overflow"));
    assert!(overflow > 0.0, "no overflow with a two-packet buffer");
    assert_eq!(generated, overflow + get(&s, "packets_sent"));
    let share = get(&s, "tx_buffer_loss");
    assert!((share - overflow / generated).abs() < 1e-12);
}

#[test]
fn the_same_seed_gives_the_same_flows() {
    let run = || {
        let mut w = World::build(&mesh(100.0, 1000, Some(20))).unwrap();
        w.run();
        summary::to_json(&w.summary())
    };
    assert_eq!(run(), run());
}
