//! TCP over simulated paths, checked against closed-form expectations
//! computed here: window-limited throughput, handshake timing, loss recovery
//! behaviour per variant.

use satcc_core::scenario::{summary, Description, World};
use serde_json::{json, Value};

/// a --fwd--> b, b --rev--> a; one TCP connection a -> b.
fn path(rate_bps: f64, one_way_ms: u64, loss: f64, tcp: Value, duration_s: f64) -> Description {
    let ms = 1_000_000_000u64;
    let link = |name: &str, from: &str, to: &str, loss: f64| {
        json!({"name": name, "from": from, "to": to, "delay_ps": one_way_ms * ms, "ber": 0.0, "loss": loss,
               "queue": {"kind": "droptail", "limit": {"packets": 1000}},
               "capacity": {"kind": "constant", "rate_bps": rate_bps}})
    };
    let mut t = json!({"name": "t", "src_node": "a", "dst_node": "b", "variant": "newreno",
        "mss_bytes": 1460, "header_bytes": 40, "initial_window_segments": 3, "initial_ssthresh_bytes": null,
        "min_rto_ps": 1000 * ms, "initial_rto_ps": 1000 * ms, "max_rto_ps": 60_000 * ms, "granularity_ps": ms,
        "delayed_ack": true, "delayed_ack_ps": 200 * ms, "window_scaling": true,
        "send_buffer_bytes": 65536, "receive_buffer_bytes": 65536, "handshake": true, "start_ps": 0,
        "priority": 0, "clp": 0, "app": {"kind": "bulk", "bytes": null}});
    for (k, v) in tcp.as_object().unwrap() {
        t[k] = v.clone();
    }
    let d = json!({"name": "tcp", "seed": 1, "duration_ps": (duration_s * 1e12) as u64,
        "sample_interval_ps": 100 * ms, "max_events": null, "stop_when": null,
        "nodes": [{"name": "a", "kind": "host", "routes": {"b": "fwd"}},
                  {"name": "b", "kind": "host", "routes": {"a": "rev"}}],
        "links": [link("fwd", "a", "b", loss), link("rev", "b", "a", 0.0)],
        "sources": [], "sinks": [], "probes": [], "tcp": [t]});
    serde_json::from_value(d).unwrap()
}

fn run(d: &Description) -> summary::Summary {
    let mut w = World::build(d).unwrap();
    w.run();
    w.summary()
}

fn f(s: &summary::Summary, k: &str) -> f64 {
    s[&format!("tcp.t.{k}")].as_f64().unwrap_or(f64::NAN)
}

#[test]
fn window_limited_throughput_is_buffer_over_rtt() {
    // 2 Mb/s, 400 ms RTT, 8 KiB send buffer: 8192 B per RTT (+ serialisation).
    let s = run(&path(
        2e6,
        200,
        0.0,
        json!({"send_buffer_bytes": 8192}),
        60.0,
    ));
    let rtt = 0.4 + (1500.0 * 8.0 / 2e6) + 40.0 * 8.0 / 2e6;
    let expect = 8192.0 * 8.0 / rtt;
    let got = f(&s, "goodput_bps");
    // Skip the start-up: measure over the whole run, so allow the first RTTs.
    assert!(
        (got - expect).abs() / expect < 0.03,
        "goodput {got} vs {expect}"
    );
    assert_eq!(f(&s, "retransmissions"), 0.0);
}

#[test]
fn large_buffer_fills_the_link() {
    let s = run(&path(
        2e6,
        200,
        0.0,
        json!({"send_buffer_bytes": 1 << 20, "receive_buffer_bytes": 1 << 20}),
        120.0,
    ));
    let payload_share = 1460.0 / 1500.0;
    let got = f(&s, "goodput_bps");
    assert!(got > 0.95 * 2e6 * payload_share, "goodput {got}");
}

#[test]
fn finite_transfer_completes_and_stops() {
    let mut d = path(
        10e6,
        50,
        0.0,
        json!({"app": {"kind": "bulk", "bytes": 100_000}}),
        30.0,
    );
    d.stop_when = serde_json::from_value(json!({"tcp": "t", "completed": true})).unwrap();
    let s = run(&d);
    assert_eq!(f(&s, "delivered_bytes"), 100_000.0);
    let t = f(&s, "completion_time_s");
    // Handshake (1 RTT), then slow start from 3 segments doubling per RTT:
    // 3+6+12+24+48 ≥ 69 segments in 5 rounds, the last arriving half an RTT
    // after it is sent: about 0.1 + 4×0.1 + 0.05 s plus serialisation and
    // the delayed ACK of an odd segment (200 ms) at most once.
    assert!(t > 0.5 && t < 0.85, "completion {t}");
    assert_eq!(s["run.stop_reason"], "stop_when");
}

fn lossy(variant: &str, loss: f64) -> summary::Summary {
    lossy_seed(variant, loss, 1)
}

fn lossy_seed(variant: &str, loss: f64, seed: u64) -> summary::Summary {
    let mut d = path(
        10e6,
        50,
        loss,
        json!({"variant": variant, "send_buffer_bytes": 1 << 20, "receive_buffer_bytes": 1 << 20}),
        200.0,
    );
    d.seed = seed;
    run(&d)
}

/// Mean goodput over seeds 1..=4.
fn mean_goodput(variant: &str, loss: f64) -> f64 {
    (1..=4)
        .map(|seed| f(&lossy_seed(variant, loss, seed), "goodput_bps"))
        .sum::<f64>()
        / 4.0
}

#[test]
fn tahoe_never_fast_retransmits() {
    let s = lossy("tahoe", 0.01);
    assert_eq!(f(&s, "fast_retransmits"), 0.0);
    assert!(f(&s, "timeouts") > 0.0);
    assert!(f(&s, "goodput_bps") > 0.0);
}

#[test]
fn variants_recover_and_sack_does_at_least_as_well() {
    let reno = lossy("reno", 0.01);
    let newreno = lossy("newreno", 0.01);
    let sack = lossy("sack", 0.01);
    for s in [&reno, &newreno, &sack] {
        assert!(f(s, "fast_retransmits") > 10.0);
    }
    assert!(f(&newreno, "timeouts") <= f(&reno, "timeouts"));
    // Where single losses dominate, RFC 6675 keeps about three segments
    // fewer in flight during recovery than Reno's ssthresh + 3·SMSS, so SACK
    // is level with Reno, not ahead; it gains when a window loses several
    // segments (socket tests; tests/test_tcp_validation.py).
    for p in [0.001, 0.01] {
        let (sack, reno) = (mean_goodput("sack", p), mean_goodput("reno", p));
        assert!(sack >= 0.97 * reno, "p = {p}: SACK {sack} vs Reno {reno}");
    }
    assert!(f(&sack, "timeouts") <= f(&reno, "timeouts"));
}

#[test]
fn same_seed_same_bytes() {
    let a = summary::to_json(&lossy("sack", 0.01));
    let b = summary::to_json(&lossy("sack", 0.01));
    assert_eq!(a, b);
}

/// GEO path (2 Mb/s, 550 ms RTT), 1 % random loss on the data direction,
/// 200 ms minimum RTO: with the timer restarted at the fast retransmit a
/// single loss is repaired within the RTO; without it the timer, running
/// since the last new ACK, often expires before the retransmission's ACK
/// can be back (one RTT later), so timeouts multiply.
#[test]
fn restarting_the_timer_at_fast_retransmit_avoids_spurious_timeouts() {
    let geo = |restart: bool| {
        let tcp = json!({"variant": "sack", "min_rto_ps": 200_000_000_000u64,
            "send_buffer_bytes": 1 << 20, "receive_buffer_bytes": 1 << 20,
            "rto_restart_on_fast_retransmit": restart});
        let s = run(&path(2e6, 275, 0.01, tcp, 300.0));
        (
            f(&s, "timeouts"),
            f(&s, "fast_retransmits"),
            f(&s, "goodput_bps"),
        )
    };
    let (to_restart, fr_restart, g_restart) = geo(true);
    let (to_keep, _, g_keep) = geo(false);
    eprintln!("restart: {to_restart} timeouts, {fr_restart} fast retransmits, {g_restart} b/s; kept: {to_keep} timeouts, {g_keep} b/s");
    assert!(fr_restart > 30.0, "fast retransmits {fr_restart}");
    assert!(
        to_keep > 3.0 * to_restart.max(1.0),
        "timeouts: restarted {to_restart}, kept {to_keep}"
    );
    assert!(g_restart > g_keep, "goodput {g_restart} vs {g_keep}");
}

/// CUBIC's average window under a loss rate p (RFC 9438 §5.1, from the
/// deterministic-loss analysis): (C(3+β)/(4(1−β)))^¼ · RTT^¾ / p^¾ segments,
/// and never below the Reno-friendly sqrt(3/(2p)).
fn cubic_model_bps(rtt_s: f64, p: f64, mss: f64) -> f64 {
    let (c, beta) = (0.4f64, 0.7f64);
    let cubic =
        (c * (3.0 + beta) / (4.0 * (1.0 - beta))).powf(0.25) * rtt_s.powf(0.75) / p.powf(0.75);
    let reno = (1.5 / p).sqrt();
    cubic.max(reno) * mss * 8.0 / rtt_s
}

fn cubic_run(one_way_ms: u64, loss: f64, cc: &str, seed: u64) -> summary::Summary {
    let tcp = json!({"variant": "sack", "congestion_control": cc, "delayed_ack": false,
        "send_buffer_bytes": 1u64 << 28, "receive_buffer_bytes": 1u64 << 28});
    let mut d = path(1e9, one_way_ms, loss, tcp, 300.0);
    d.seed = seed;
    run(&d)
}

/// Long fat path (600 ms RTT, 1 Gb/s, p = 1e-4): CUBIC's own region, far
/// above Reno; goodput within 30 % of the response function (which
/// assumes periodic loss; here losses are independent).
#[test]
fn cubic_throughput_against_the_rfc9438_response_function() {
    let rtt = 0.6 + 2.0 * 1500.0 * 8.0 / 1e9;
    let model = cubic_model_bps(rtt, 1e-4, 1460.0);
    let seeds = 1..=4u64;
    let got: f64 = seeds
        .clone()
        .map(|s| f(&cubic_run(300, 1e-4, "cubic", s), "goodput_bps"))
        .sum::<f64>()
        / 4.0;
    let reno: f64 = seeds
        .map(|s| f(&cubic_run(300, 1e-4, "reno", s), "goodput_bps"))
        .sum::<f64>()
        / 4.0;
    eprintln!(
        "cubic {got:.0} b/s, model {model:.0} b/s, ratio {:.3}; reno {reno:.0} b/s",
        got / model
    );
    assert!(
        (got / model - 1.0).abs() < 0.3,
        "cubic {got} vs model {model}"
    );
    assert!(got > 2.0 * reno, "cubic {got} vs reno {reno}");
}

/// Short path (20 ms RTT, p = 0.1 %): W_cubic grows slower than Reno, so
/// CUBIC runs on its Reno-friendly estimate (α_cubic, β = 0.7), which RFC
/// 9438 §4.3 designed to give Reno's average window under periodic loss
/// (the controller's unit test shows 38.5 against 38.7 segments). Here,
/// with independent losses, CUBIC is 13 % above Reno (14 % at p = 1 %):
/// losses come at irregular intervals, and in the long ones W_est passes
/// cwnd_prior and grows at Reno's full rate from 0.7 of the window instead
/// of 0.5, and the gentler reduction leaves more segments in flight to
/// trigger fast retransmit (fewer timeouts).
#[test]
fn cubic_is_reno_friendly_on_short_paths() {
    let mean = |cc: &str| {
        (1..=4u64)
            .map(|s| f(&cubic_run(10, 1e-3, cc, s), "goodput_bps"))
            .sum::<f64>()
            / 4.0
    };
    let (cubic, reno) = (mean("cubic"), mean("reno"));
    eprintln!(
        "reno-friendly: cubic {cubic:.0} b/s, reno {reno:.0} b/s, ratio {:.3}",
        cubic / reno
    );
    assert!(
        (1.0..1.3).contains(&(cubic / reno)),
        "cubic {cubic} vs reno {reno}"
    );
}
