//! BBR over whole simulated paths: a long lossless GEO path with a deep
//! buffer (full use, a standing queue of at most about one BDP, where
//! CUBIC fills the buffer), and a shallow buffer with random loss (BBR does
//! not read loss as congestion: far above CUBIC, as Linux's BBR is in
//! docs/tcp-sim-vs-linux.md).

mod common;

use common::{f, path, run};
use serde_json::json;

/// 10 Mb/s, 600 ms RTT, 2000 packets of buffer (4 BDPs), no loss.
#[test]
fn geo_deep_buffer_full_use_with_at_most_a_bdp_standing() {
    let bdp_packets = 10e6 * 0.6 / 8.0 / 1500.0; // 500
    let bbr = run(&path(10e6, 300, 2000, 0.0, "bbr", 1, 120.0));
    let cubic = run(&path(10e6, 300, 2000, 0.0, "cubic", 1, 120.0));
    let (u, q, w50) = (
        f(&bbr, "links.fwd.utilisation"),
        f(&bbr, "links.fwd.queue_mean_packets"),
        f(&bbr, "links.fwd.wait_p50_s"),
    );
    eprintln!(
        "bbr: utilisation {u:.3}, queue mean {q:.0} packets, median wait {w50:.3} s, srtt {:.3} s, drops {}; \
         cubic: utilisation {:.3}, queue mean {:.0} max {:.0} packets, drops {}",
        f(&bbr, "tcp.t.srtt_s"),
        f(&bbr, "links.fwd.drops"),
        f(&cubic, "links.fwd.utilisation"),
        f(&cubic, "links.fwd.queue_mean_packets"),
        f(&cubic, "links.fwd.queue_max_packets"),
        f(&cubic, "links.fwd.drops"),
    );
    // Steady state: payload delivered from 20 s on against the link's
    // payload rate.
    let early = run(&path(10e6, 300, 2000, 0.0, "bbr", 1, 20.0));
    let steady = (f(&bbr, "tcp.t.delivered_bytes") - f(&early, "tcp.t.delivered_bytes")) * 8.0
        / 100.0
        / (10e6 * 1460.0 / 1500.0);
    eprintln!("bbr steady-state use {steady:.3}");
    assert!(steady >= 0.9, "steady-state use {steady}");
    assert!(q <= bdp_packets, "standing queue {q} packets");
    assert!(w50 <= 0.6, "median queueing delay {w50} s");
    // CUBIC fills the buffer until it overflows.
    assert!(f(&cubic, "links.fwd.queue_max_packets") >= 1990.0);
    assert!(f(&cubic, "links.fwd.queue_mean_packets") > 2.0 * q);
}

fn mean_goodput(queue: u64, cc: &str) -> f64 {
    (1..=4u64)
        .map(|seed| {
            f(
                &run(&path(10e6, 50, queue, 1e-3, cc, seed, 60.0)),
                "tcp.t.goodput_bps",
            )
        })
        .sum::<f64>()
        / 4.0
}

/// 10 Mb/s, 100 ms RTT, random loss 1e-3 on the data direction: BBR keeps
/// its rate, CUBIC halves its window at every loss. Linux on the
/// 400-packet path (docs/tcp-sim-vs-linux.md): BBR 7.7 Mb/s, CUBIC 4.6.
#[test]
fn random_loss_leaves_bbr_far_above_cubic() {
    for queue in [400, 40] {
        let (bbr, cubic) = (mean_goodput(queue, "bbr"), mean_goodput(queue, "cubic"));
        eprintln!("buffer {queue}: bbr {bbr:.0} b/s, cubic {cubic:.0} b/s");
        assert!(
            bbr > 1.4 * cubic,
            "buffer {queue}: bbr {bbr} vs cubic {cubic}"
        );
        assert!(bbr > 7e6, "buffer {queue}: bbr {bbr}");
    }
}

/// Deterministic from the seed (the first ProbeBW phase is drawn).
#[test]
fn same_seed_same_run() {
    let d = path(10e6, 50, 40, 1e-3, "bbr", 3, 20.0);
    assert_eq!(run(&d), run(&d));
}

/// BBR with Linux's loss recovery (RACK-TLP with PRR) on a shallow buffer:
/// the controller's window and pacing still rule in recovery, so the
/// sender loses about what it loses with RFC 6675 (it once lost a third
/// of its packets when recovery overrode the window and bypassed pacing).
#[test]
fn in_rack_tlp_recovery_bbr_keeps_its_window_and_pacing() {
    let loss_ratio = |recovery: &str, prr: bool| {
        let mut d: serde_json::Value =
            serde_json::from_str(&path(10e6, 10, 8, 0.0, "bbr", 1, 20.0).to_json()).unwrap();
        d["tcp"][0]["recovery"] = json!(recovery);
        d["tcp"][0]["prr"] = json!(prr);
        let s = run(&serde_json::from_value(d).unwrap());
        let ratio = f(&s, "links.fwd.drops") / f(&s, "links.fwd.arrivals");
        eprintln!(
            "{recovery} prr={prr}: {:.4} of packets dropped, {:.3} Mb/s",
            ratio,
            f(&s, "links.fwd.throughput_bps") / 1e6
        );
        assert!(f(&s, "links.fwd.utilisation") > 0.95);
        ratio
    };
    let rfc = loss_ratio("rfc6675", false);
    for (recovery, prr) in [("rack-tlp", false), ("rack-tlp", true)] {
        let r = loss_ratio(recovery, prr);
        assert!(
            r < 0.05 && r < 1.5 * rfc,
            "{recovery} prr={prr}: {r} against {rfc}"
        );
    }
}
