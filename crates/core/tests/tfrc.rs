//! TFRC flows end to end, against what does not come from satcc: the
//! media rate a lossless path must carry, the propagation and
//! serialisation delays a steady flow's packets must see, and a TCP flow
//! sharing a drop-tail bottleneck (RFC 5348's aim: a rate "reasonably
//! fair" to TCP, here within a factor of two).

use satcc_core::net::queue::{Limit, QueueConfig};
use satcc_core::scenario::{summary, ScenarioBuilder, World};
use satcc_core::transport::tfrc::Profile;

fn f(s: &summary::Summary, k: &str) -> f64 {
    s[k].as_f64().unwrap_or_else(|| panic!("{k} missing"))
}

fn conserved(s: &summary::Summary) {
    assert_eq!(f(s, "run.pdus_unaccounted"), 0.0);
}

/// h → r over a 1 Mb/s, 250 ms link, reports back over a fast one: a
/// 256 kb/s flow of 1316-byte packets.
fn lossless(profile: Profile, seconds: f64) -> summary::Summary {
    let d = ScenarioBuilder::new("tfrc", seconds)
        .host("h")
        .host("r")
        .link("fwd", "h", "r", 1e6, 0.25)
        .link("back", "r", "h", 100e6, 0.25)
        .tfrc_with("v", "h", "r", 256_000.0, 1316, |t| {
            t.config.profile = profile;
        })
        .build();
    let mut w = World::build(&d).unwrap();
    w.run();
    w.summary()
}

#[test]
fn a_lossless_path_carries_the_media_rate_after_start_up() {
    for rev in [Profile::Rfc5348, Profile::Rfc3448] {
        let s = lossless(rev, 30.0);
        conserved(&s);
        assert_eq!(f(&s, "tfrc.v.tx_buffer_overflow"), 0.0);
        assert_eq!(f(&s, "tfrc.v.packets_lost"), 0.0);
        // Everything generated but the last packets in flight arrived.
        let gen = f(&s, "tfrc.v.generated");
        let got = f(&s, "tfrc.v.packets_received");
        assert!(
            gen - got <= 20.0,
            "{rev:?}: generated {gen}, received {got}"
        );
        // The steady state: 250 ms + 1316·8/1 Mb/s = 260.5 ms, the
        // fastest any packet can take; the median sees no queue.
        let p50 = f(&s, "tfrc.v.e2ed_p50_s");
        assert!((p50 - 0.2605).abs() < 0.01, "{rev:?}: median E2ED {p50}");
        // RTT 500 ms + serialisation.
        let rtt = f(&s, "tfrc.v.rtt_s");
        assert!((rtt - 0.5108).abs() < 0.01, "{rev:?}: rtt {rtt}");
    }
}

#[test]
fn rfc3448_starts_slower_than_rfc5348() {
    let new = lossless(Profile::Rfc5348, 30.0);
    let old = lossless(Profile::Rfc3448, 30.0);
    let (m_new, m_old) = (f(&new, "tfrc.v.e2ed_max_s"), f(&old, "tfrc.v.e2ed_max_s"));
    // RFC 3448 starts at one packet per RTT, RFC 5348 at about three
    // (W_init = 4380 B): the transmit buffer builds more under RFC 3448.
    assert!(
        m_old > m_new,
        "max E2ED: RFC 3448 {m_old}, RFC 5348 {m_new}"
    );
}

/// TFRC/TCP wire-rate ratios ns-2.35 gives on the same dumbbell (its
/// Agent/TFRC with defaults, Agent/TCP/Newreno with a delayed-ACK sink,
/// window 44 packets), by bottleneck queue in packets; the script is
/// `tests/data/ns2_tfrc_tcp.tcl`.
const NS2_RATIO: [(u32, f64); 3] = [(25, 3.209), (50, 2.249), (100, 1.300)];

/// 2 Mb/s bottleneck, 40 ms base RTT, a drop-tail queue of `queue`
/// packets; a greedy TFRC flow (media well above the link, a large
/// transmit buffer) and a NewReno bulk transfer, 1500 bytes a packet on
/// the wire. Returns the TFRC/TCP ratio of wire rates over 120 s.
fn tfrc_over_tcp(queue: u32, profile: Profile) -> f64 {
    let d = ScenarioBuilder::new("fair", 120.0)
        .host("a")
        .host("b")
        .router("r1")
        .router("r2")
        .link("a1", "a", "r1", 100e6, 0.001)
        .link("b1", "b", "r1", 100e6, 0.001)
        .link_with("bn", "r1", "r2", 2e6, 0.018, |l| {
            l.queue = QueueConfig::Droptail {
                limit: Limit::Packets(queue.into()),
            };
        })
        .host("x")
        .host("y")
        .link("r2x", "r2", "x", 100e6, 0.001)
        .link("r2y", "r2", "y", 100e6, 0.001)
        .link("xa", "x", "a", 100e6, 0.019)
        .link("yb", "y", "b", 100e6, 0.019)
        .tfrc_with("media", "a", "x", 4e6, 1500, |t| {
            t.media.buffer_packets = 100_000;
            t.config.profile = profile;
        })
        .tcp_with("bulk", "b", "y", |t| {
            t.config.mss = 1460;
            t.config.header = 40;
        })
        .build();
    let mut w = World::build(&d).unwrap();
    w.run();
    let s = w.summary();
    conserved(&s);
    let tfrc = f(&s, "tfrc.media.goodput_bps");
    let tcp = f(&s, "tcp.bulk.goodput_bps") * 1500.0 / 1460.0;
    assert!(f(&s, "tfrc.media.loss_events") > 0.0);
    assert!(tfrc + tcp > 0.9 * 2e6, "the link is used: {}", tfrc + tcp);
    tfrc / tcp
}

#[test]
fn tfrc_and_tcp_share_a_drop_tail_bottleneck_as_in_ns2() {
    // A smoothly paced TFRC flow meets a full drop-tail queue less often
    // than TCP's bursts do, so it sees fewer loss events and takes more
    // with a short queue; the gap closes as the queue grows. Measured
    // (2026-11-24): satcc 2.81, 1.25, 1.29 against ns-2's 3.21, 2.25, 1.30
    // for 25, 50, 100 packets. With one flow of each the outcome depends
    // on drop-tail phase effects, and ns-2's TFRC is not RFC 5348's (its
    // receiver discounts old loss intervals, its sender's equation takes
    // the TCP RTO): the tfrc-crosscheck study compares satcc's ns2 profile
    // with ns-2 over ensembles of this dumbbell. Checked here, for the RFC
    // profile: each ratio within a factor of two of ns-2's, TFRC
    // ahead with the short queue in both, and RFC 5348's aim (within a
    // factor of two of TCP) with the long one.
    let ratios: Vec<f64> = NS2_RATIO
        .iter()
        .map(|&(queue, ns2)| {
            let ratio = tfrc_over_tcp(queue, Profile::Rfc5348);
            eprintln!("queue {queue}: TFRC/TCP satcc {ratio:.3}, ns-2 {ns2:.3}");
            assert!(
                (0.5..=2.0).contains(&(ratio / ns2)),
                "queue {queue}: satcc {ratio}, ns-2 {ns2}"
            );
            ratio
        })
        .collect();
    assert!(ratios[0] > 2.0 && ratios[0] > ratios[2], "{ratios:?}");
    assert!(
        (0.5..=2.0).contains(&ratios[2]),
        "queue 100: TFRC/TCP = {}",
        ratios[2]
    );
}
