//! TCP over end-to-end explicit-rate control (the abr-effcap paper's
//! system, Figs. 3-4): a sender's segmentation buffer served at the rate a
//! bottleneck port feeds back, with the loop delay placed on a feedback
//! link. Checked against what the construction implies: the feedback
//! arrives one loop delay after the interval it measures, a source fed the
//! bottleneck's own rate never overflows it, and every packet is counted.

use satcc_core::engine::{Duration, Time};
use satcc_core::net::capacity::CapacityConfig;
use satcc_core::net::explicit_rate::{ExplicitRateConfig, Scheme};
use satcc_core::net::framing::Framing;
use satcc_core::net::queue::{Limit, QueueConfig};
use satcc_core::scenario::world::shaper::RateControlDesc;
use satcc_core::scenario::{summary, ScenarioBuilder, World};
use satcc_core::transport::tcp::Variant;

const HIGH: f64 = 800_000.0; // 100 KB/s
const DELTA_S: f64 = 0.2;

/// s -access-> b -bottleneck (Δ/2, 10 packets, AAL5)-> d -ack (Δ/2)-> s,
/// and the feedback b -fb (Δ)-> s. Tahoe, 500-byte packets, 32 KB window.
fn system(
    capacity: CapacityConfig,
    seconds: f64,
    scheme: Scheme,
    blocks: (usize, usize),
) -> (summary::Summary, Vec<f64>) {
    bounded_system(capacity, seconds, scheme, blocks, None)
}

/// `system` with the host's buffer holding at most `buffer` packets.
fn bounded_system(
    capacity: CapacityConfig,
    seconds: f64,
    scheme: Scheme,
    (block, blocks): (usize, usize),
    buffer: Option<usize>,
) -> (summary::Summary, Vec<f64>) {
    let d = ScenarioBuilder::new("er", seconds)
        .sample_interval(1.0)
        .host("s")
        .router("b")
        .host("d")
        .link("access", "s", "b", 100e6, 0.0)
        .link_with("bottleneck", "b", "d", HIGH, DELTA_S / 2.0, |l| {
            l.capacity = capacity;
            l.framing = Framing::Aal5;
            l.queue = QueueConfig::Droptail {
                limit: Limit::Packets(10),
            };
            l.explicit_rate = Some(ExplicitRateConfig {
                scheme,
                interval: Duration::from_millis(30),
                delta: None,
            });
        })
        .link("ack", "d", "s", 100e6, DELTA_S / 2.0)
        .link("fb", "b", "s", 100e6, DELTA_S)
        .tcp_with("t", "s", "d", |t| {
            t.config.variant = Variant::Tahoe;
            t.config.mss = 460;
            t.config.header = 40;
            t.config.send_buffer = 32 * 1024;
            t.config.receive_buffer = 32 * 1024;
            t.rate_control = Some(RateControlDesc {
                link: "bottleneck".into(),
                initial_rate_bps: HIGH,
                framing: Framing::Aal5,
                block,
                blocks,
                buffer_packets: buffer,
            });
        })
        .probe("goodput", "tcp", "t", "goodput_bps")
        .build();
    let mut w = World::build(&d).unwrap();
    w.run();
    (w.summary(), w.probes[0].series.values.clone())
}

fn f(s: &summary::Summary, k: &str) -> f64 {
    s[k].as_f64().unwrap_or_else(|| panic!("{k} missing"))
}

/// Capacity halves at 10 s, inside the measurement interval [9.99, 10.02]
/// s (30 ms grid), whose average is 10 ms high and 20 ms low. That value
/// reaches the source Δ = 200 ms after the interval, at 10.22 s; the first
/// interval wholly at the low rate ends at 10.05 s and arrives at 10.25 s.
fn halving() -> CapacityConfig {
    CapacityConfig::Trace {
        times_ps: vec![Time::ZERO, Time::from_secs_f64(10.0)],
        rates_bps: vec![HIGH, HIGH / 2.0],
        period_ps: None,
    }
}

const INSTCAP: (usize, usize) = (1, 1);

#[test]
fn the_rate_changes_one_loop_delay_after_the_capacity() {
    let (before, _) = system(halving(), 10.21, Scheme::Instcap, INSTCAP);
    assert_eq!(f(&before, "tcp.t.rate_control.rate_bps"), HIGH);
    let (mixed, _) = system(halving(), 10.23, Scheme::Instcap, INSTCAP);
    let expect = (HIGH + 2.0 * HIGH / 2.0) / 3.0;
    assert!((f(&mixed, "tcp.t.rate_control.rate_bps") - expect).abs() < 1e-6);
    let (after, _) = system(halving(), 10.26, Scheme::Instcap, INSTCAP);
    assert_eq!(f(&after, "tcp.t.rate_control.rate_bps"), HIGH / 2.0);
}

#[test]
fn a_source_fed_the_bottleneck_rate_keeps_its_queue_at_home() {
    let constant = CapacityConfig::Constant { rate_bps: HIGH };
    let (s, goodput) = system(constant, 20.0, Scheme::Instcap, INSTCAP);
    // The window (32 KB) is beyond the pipe (about 20 KB at 100 KB/s of
    // cells): the rest waits in the host's buffer, not at the bottleneck,
    // which never overflows.
    assert_eq!(f(&s, "links.bottleneck.drops"), 0.0);
    assert_eq!(f(&s, "tcp.t.retransmissions"), 0.0);
    assert!(f(&s, "tcp.t.rate_control.mean_queue_packets") > 10.0);
    assert_eq!(f(&s, "run.pdus_unaccounted"), 0.0);
    // Once slow start is over (by 2 s), the bottleneck's cells carry 460
    // of every 583 bytes as goodput: on average, and every second to
    // within the packets a 1 s sample may or may not hold.
    let expect = HIGH * 460.0 / 583.0;
    let steady = &goodput[2..];
    for g in steady {
        assert!((g - expect).abs() <= 2.0 * 460.0 * 8.0, "{g} vs {expect}");
    }
    let mean = steady.iter().sum::<f64>() / steady.len() as f64;
    assert!((mean - expect).abs() / expect < 0.003, "{mean} vs {expect}");
    // One feedback per 30 ms interval k, arriving at 30k ms + Δ + its 53
    // bytes at 100 Mb/s, if before the end.
    let fb = f(&s, "tcp.t.rate_control.feedback_received");
    let last = (20.0 - DELTA_S - 53.0 * 8.0 / 100e6) / 0.03;
    assert_eq!(fb, last.floor());
}

#[test]
fn effcap_with_one_block_of_one_interval_is_instcap() {
    let capacity = CapacityConfig::Markov {
        rates_bps: [HIGH, HIGH / 2.0],
        mean_holding_ps: [Duration::from_millis(300); 2],
        initial: 0,
        step_ps: Some(Duration::from_millis(30)),
    };
    let run = |scheme, blocks| summary::to_json(&system(capacity.clone(), 30.0, scheme, blocks).0);
    assert_eq!(run(Scheme::Instcap, INSTCAP), run(Scheme::Effcap, INSTCAP));
    assert_ne!(run(Scheme::Instcap, INSTCAP), run(Scheme::Effcap, (7, 56)));
}

/// A bounded host buffer: the 32 KB window (71 packets) is more than the
/// pipe (about 34 packets of cells at 100 KB/s over 200 ms) and 10 waiting,
/// so the host drops what the full buffer cannot take, Tahoe times out and
/// resends from the lost packet on (go-back-N); the bottleneck, fed its
/// own rate, still never overflows, and every packet is counted.
#[test]
fn a_full_host_buffer_drops_and_tahoe_times_out() {
    let constant = CapacityConfig::Constant { rate_bps: HIGH };
    let (s, _) = bounded_system(constant.clone(), 20.0, Scheme::Instcap, INSTCAP, Some(10));
    let host_drops = f(&s, "tcp.t.rate_control.dropped_packets");
    assert!(host_drops > 0.0);
    assert_eq!(f(&s, "tcp.t.rate_control.max_queue_packets"), 10.0);
    assert_eq!(f(&s, "links.bottleneck.drops"), 0.0);
    assert!(f(&s, "tcp.t.timeouts") > 0.0);
    // Go-back-N: more resent than lost.
    assert!(f(&s, "tcp.t.retransmissions") > host_drops);
    assert_eq!(f(&s, "run.pdus_unaccounted"), 0.0);
    // A bound the window never reaches changes nothing but the drop count
    // it reports.
    let unbounded = summary::to_json(&system(constant.clone(), 20.0, Scheme::Instcap, INSTCAP).0);
    let (mut wide, _) = bounded_system(constant, 20.0, Scheme::Instcap, INSTCAP, Some(100));
    let none = wide.remove("tcp.t.rate_control.dropped_packets");
    assert_eq!(none.and_then(|v| v.as_f64()), Some(0.0));
    assert_eq!(summary::to_json(&wide), unbounded);
}
