use super::*;

const MS: u64 = 1_000_000_000;

fn cfg() -> DualPi2Config {
    DualPi2Config {
        limit: Limit::Packets(10_000),
        target_ps: Duration(15 * MS),
        tupdate_ps: Duration(16 * MS),
        alpha: 0.16,
        beta: 3.2,
        coupling: 2.0,
        step_thresh_ps: Duration(MS),
        c_protection: 10.0,
        ecn: true,
    }
}

fn q() -> DualPi2 {
    DualPi2::new(cfg(), RngStream::new(1, "t"))
}

fn pdu(field: u8, at: u64, seq: u64) -> Pdu {
    Pdu {
        bytes: 1500,
        ecn: field,
        seq,
        enqueued: Time(at),
        ..Pdu::default()
    }
}

fn push(q: &mut DualPi2, p: Pdu) {
    let at = p.enqueued;
    q.push(p, at);
}

#[test]
fn pi2_update_by_hand() {
    let mut q = q();
    push(&mut q, pdu(ecn::NOT_ECT, 0, 0));
    q.catch_up(Time(16 * MS));
    // q = 16 ms: 0.16*0.016*(0.016-0.015) + 3.2*0.016*(0.016-0).
    let p1 = 0.16 * 0.016 * 0.001 + 3.2 * 0.016 * 0.016;
    assert!((q.base() - p1).abs() < 1e-15, "{}", q.base());
    q.catch_up(Time(32 * MS));
    let p2 = p1 + 0.16 * 0.016 * 0.017 + 3.2 * 0.016 * 0.016;
    assert!((q.base() - p2).abs() < 1e-15);
    assert!((q.p_c() - p2 * p2).abs() < 1e-18);
    assert!((q.p_cl() - 2.0 * p2).abs() < 1e-15);
    // Below target with a falling queue: p' falls, never below zero.
    q.pop(Time(40 * MS), &mut Dequeued::default());
    q.catch_up(Time(48 * MS));
    let p3 = p2 + 0.16 * 0.016 * (0.0 - 0.015) + 3.2 * 0.016 * (0.0 - 0.032);
    assert!((q.base() - p3).abs() < 1e-15 && p3 > 0.0 && p3 < 1e-5);
    // One more: clamped at zero, not negative.
    q.catch_up(Time(64 * MS));
    assert_eq!(q.base(), 0.0);
}

#[test]
fn lazy_updates_equal_a_timer_across_an_idle_gap() {
    // Same arrivals and dequeues; one queue is also woken every 1 ms, as
    // a timer would, the other only at its events (with a 10 s idle gap).
    let events: Vec<(u64, bool)> = (0..400)
        .map(|i| (i * 2 * MS / 3, i % 3 != 2))
        .chain((0..300).map(|i| (10_000 * MS + i * MS / 2, i % 4 != 3)))
        .collect();
    let mut lazy = q();
    let mut timed = q();
    let mut trace = (Vec::new(), Vec::new());
    let mut t_ms = 0;
    for (seq, &(t, arrive)) in events.iter().enumerate() {
        while t_ms * MS <= t {
            timed.catch_up(Time(t_ms * MS));
            t_ms += 1;
        }
        for (qq, tr) in [(&mut lazy, &mut trace.0), (&mut timed, &mut trace.1)] {
            if arrive {
                push(qq, pdu(ecn::NOT_ECT, t, seq as u64));
            } else {
                let mut out = Dequeued::default();
                let got = qq.pop(Time(t), &mut out).map(|p| p.seq);
                tr.push((got, out.drops, qq.base().to_bits()));
            }
        }
    }
    assert_eq!(trace.0, trace.1);
    // The queue built up (p' rose) before the gap.
    assert!(trace.0.iter().any(|&(_, _, p)| f64::from_bits(p) > 0.0));
}

#[test]
fn step_marks_l_at_one_ms_of_sojourn() {
    let mut q = q();
    push(&mut q, pdu(ecn::ECT1, 0, 0));
    push(&mut q, pdu(ecn::ECT1, 0, 1));
    let mut out = Dequeued::default();
    let a = q.pop(Time(MS - 1), &mut out).unwrap();
    assert_eq!(a.ecn, ecn::ECT1);
    let b = q.pop(Time(MS), &mut out).unwrap();
    assert_eq!(b.ecn, ecn::CE);
    assert_eq!((out.marks, q.l_stats.marks), (1, 1));
}

/// Fraction of `n` PDUs of `field` marked and dropped at base `p`.
fn fractions(p: f64, field: u8, n: u64) -> (f64, f64) {
    let mut q = q();
    q.p = p;
    let mut out = Dequeued::default();
    for i in 0..n {
        push(&mut q, pdu(field, 0, i));
        // Leave at once: no native step mark, no update (t < 16 ms).
        q.pop(Time(0), &mut out);
    }
    (out.marks as f64 / n as f64, out.drops as f64 / n as f64)
}

#[test]
fn coupled_and_classic_probabilities() {
    let n = 100_000;
    // p' = 0.2: L marked with 2p' = 0.4, C ECT(0) marked and Not-ECT
    // dropped with p'^2 = 0.04.
    let (m, d) = fractions(0.2, ecn::ECT1, n);
    assert!((m - 0.4).abs() < 0.01 && d == 0.0, "{m} {d}");
    let (m, d) = fractions(0.2, ecn::ECT0, n);
    assert!((m - 0.04).abs() < 0.003 && d == 0.0, "{m} {d}");
    let (m, d) = fractions(0.2, ecn::NOT_ECT, n);
    assert!(m == 0.0 && (d - 0.04).abs() < 0.003, "{m} {d}");
    // At p' = 0.5 exactly p_CL = 1: every L PDU marked, none dropped.
    assert_eq!(fractions(0.5, ecn::ECT1, 1000), (1.0, 0.0));
}

#[test]
fn overload_drops_l_with_p_c() {
    // p' = 0.6 > 1/k: L PDUs dropped with p'^2 = 0.36, the rest marked.
    let (m, d) = fractions(0.6, ecn::ECT1, 100_000);
    assert!((d - 0.36).abs() < 0.01, "{d}");
    assert!((m + d - 1.0).abs() < 1e-12);
}

#[test]
fn wrr_gives_c_its_protection_share() {
    let mut q = q();
    for i in 0..1000 {
        push(&mut q, pdu(ecn::ECT1, 0, i));
        push(&mut q, pdu(ecn::NOT_ECT, 0, 10_000 + i));
    }
    let mut out = Dequeued::default();
    // No update before 16 ms: nothing is dropped; 0.5 ms sojourn, no step.
    let from_c = (0..500)
        .filter(|_| q.pop(Time(MS / 2), &mut out).unwrap().seq >= 10_000)
        .count();
    assert_eq!(from_c, 50);
    // Alone, C is served at once.
    let mut q2 = self::q();
    push(&mut q2, pdu(ecn::ECT0, 0, 7));
    assert_eq!(q2.pop(Time(0), &mut out).unwrap().seq, 7);
}

#[test]
fn classifier_and_shared_limit() {
    let mut c = cfg();
    c.limit = Limit::Packets(2);
    let mut q = DualPi2::new(c, RngStream::new(1, "t"));
    push(&mut q, pdu(ecn::CE, 0, 0));
    push(&mut q, pdu(ecn::ECT0, 0, 1));
    assert_eq!((q.l.len(), q.c.len()), (1, 1));
    assert_eq!(q.admission(&pdu(ecn::ECT1, 0, 2)), Verdict::DroppedFull);
    assert_eq!(q.packets(), 2);
    let mut n = 0;
    q.for_each_waiting(&mut |_| n += 1);
    assert_eq!(n, 2);
}

#[test]
fn check_refuses_bad_parameters() {
    let mut c = cfg();
    c.c_protection = 101.0;
    assert!(c.check().unwrap_err().to_string().contains("c_protection"));
    let mut c = cfg();
    c.coupling = 0.0;
    assert!(c.check().unwrap_err().to_string().contains("coupling"));
    let mut c = cfg();
    c.tupdate_ps = Duration(0);
    assert!(c.check().is_err());
    assert!(cfg().check().is_ok());
}
