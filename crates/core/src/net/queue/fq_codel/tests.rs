use super::*;

const MS: u64 = 1_000_000_000;

fn cfg(limit: u64) -> FqCodelConfig {
    FqCodelConfig {
        limit: Limit::Packets(limit),
        flows: 1024,
        quantum_bytes: 1514,
        target_ps: Duration(5 * MS),
        interval_ps: Duration(100 * MS),
        ecn: false,
        ce_threshold_ps: None,
    }
}

fn fq(limit: u64) -> FqCodel {
    FqCodel::new(cfg(limit), RngStream::new(1, "t.queue"))
}

fn pdu(flow: u32, bytes: u32, seq: u64) -> Pdu {
    Pdu {
        flow,
        bytes,
        seq,
        ..Pdu::default()
    }
}

/// `n` flow ids, each in a bucket of its own.
fn distinct_flows(q: &FqCodel, n: usize) -> Vec<u32> {
    let mut ids: Vec<u32> = Vec::new();
    for f in 0.. {
        if ids.iter().all(|&g| q.bucket(g) != q.bucket(f)) {
            ids.push(f);
        }
        if ids.len() == n {
            break;
        }
    }
    ids
}

fn pop(q: &mut FqCodel) -> Option<Pdu> {
    q.pop(Time::ZERO, &mut Dequeued::default())
}

#[test]
fn backlogged_flows_of_different_sizes_get_bytes_fair_within_a_quantum() {
    let mut q = fq(10_000);
    let f = distinct_flows(&q, 2);
    for s in 0..1000 {
        q.push(pdu(f[0], 1500, s), Time::ZERO);
        q.push(pdu(f[1], 300, s), Time::ZERO);
        q.push(pdu(f[1], 300, s), Time::ZERO);
    }
    let mut sent = [0i64; 2];
    for n in 0..600 {
        let p = pop(&mut q).unwrap();
        sent[usize::from(p.flow == f[1])] += i64::from(p.bytes);
        // After any number of dequeues the two flows' bytes differ by at
        // most a quantum plus a PDU (DRR's bound).
        assert!((sent[0] - sent[1]).abs() <= 1514 + 1500, "{n}: {sent:?}");
    }
    assert!(sent[0] > 100_000 && sent[1] > 100_000, "{sent:?}");
}

#[test]
fn a_new_sparse_flow_goes_before_the_backlogged_ones() {
    let mut q = fq(10_000);
    let f = distinct_flows(&q, 3);
    for s in 0..50 {
        q.push(pdu(f[0], 1500, s), Time::ZERO);
        q.push(pdu(f[1], 1500, s), Time::ZERO);
    }
    for _ in 0..10 {
        pop(&mut q);
    }
    assert!(q.new_flows.is_empty());
    q.push(pdu(f[2], 100, 0), Time::ZERO);
    assert_eq!(pop(&mut q).unwrap().flow, f[2]);
    // It emptied while old flows wait: it moved to the old list.
    pop(&mut q);
    assert_eq!(q.queues[q.bucket(f[2])].list, List::Old);
}

#[test]
fn a_new_flow_that_empties_and_returns_waits_its_turn_among_the_old() {
    let mut q = fq(10_000);
    let f = distinct_flows(&q, 3);
    for s in 0..50 {
        q.push(pdu(f[0], 1500, s), Time::ZERO);
        q.push(pdu(f[1], 1500, s), Time::ZERO);
    }
    for _ in 0..4 {
        pop(&mut q);
    }
    q.push(pdu(f[2], 100, 0), Time::ZERO);
    assert_eq!(pop(&mut q).unwrap().flow, f[2]);
    // Found empty at the next dequeue: moved to the end of the old flows
    // (§4.2), so that coming back it does not jump the queue again.
    let next = pop(&mut q).unwrap();
    assert_ne!(next.flow, f[2]);
    q.push(pdu(f[2], 100, 1), Time::ZERO);
    assert!(q.new_flows.is_empty());
    let order: Vec<u32> = (0..3).map(|_| pop(&mut q).unwrap().flow).collect();
    assert_ne!(order[0], f[2], "{order:?}");
    assert!(order.contains(&f[2]), "{order:?}");
}

#[test]
fn a_flow_emptying_with_no_old_flows_leaves_and_returns_as_new() {
    let mut q = fq(10_000);
    let f = distinct_flows(&q, 1);
    q.push(pdu(f[0], 100, 0), Time::ZERO);
    assert_eq!(pop(&mut q).unwrap().seq, 0);
    assert!(pop(&mut q).is_none());
    assert_eq!(q.queues[q.bucket(f[0])].list, List::None);
    assert!(q.new_flows.is_empty() && q.old_flows.is_empty());
    q.push(pdu(f[0], 100, 1), Time::ZERO);
    assert_eq!(q.new_flows.len(), 1);
}

#[test]
fn over_the_limit_the_fattest_queue_loses_its_head() {
    let mut q = fq(10);
    let f = distinct_flows(&q, 2);
    let mut out = Dequeued::default();
    for s in 0..4 {
        q.push_to(pdu(f[0], 1500, s), &mut out);
    }
    for s in 0..6 {
        q.push_to(pdu(f[1], 100, s), &mut out);
    }
    assert_eq!((q.packets(), out.overflow), (10, 0));
    // The arrival is from the flow with more packets but fewer bytes:
    // the one with the most bytes pays.
    q.push_to(pdu(f[1], 100, 6), &mut out);
    assert_eq!((q.packets(), out.overflow), (10, 1));
    assert_eq!(out.flows, vec![f[0]]);
    assert_eq!(q.bytes(), 3 * 1500 + 7 * 100);
    let firsts: Vec<(u32, u64)> = std::iter::from_fn(|| pop(&mut q))
        .filter(|p| p.flow == f[0])
        .map(|p| (p.flow, p.seq))
        .take(1)
        .collect();
    assert_eq!(firsts, vec![(f[0], 1)], "the head (seq 0) went");
}

#[test]
fn hashing_collides_like_a_hash_and_depends_on_the_seed_only() {
    let q = fq(10);
    let buckets: std::collections::HashSet<usize> = (0..1024).map(|f| q.bucket(f)).collect();
    // 1024 ids into 1024 buckets: about 1024 (1 - 1/e) = 647 distinct.
    assert!((600..700).contains(&buckets.len()), "{}", buckets.len());
    let same = fq(10);
    let other = FqCodel::new(cfg(10), RngStream::new(2, "t.queue"));
    assert!((0..100).all(|f| q.bucket(f) == same.bucket(f)));
    assert!((0..100).any(|f| q.bucket(f) != other.bucket(f)));
    let one = FqCodel::new(
        FqCodelConfig {
            flows: 1,
            ..cfg(10)
        },
        RngStream::new(1, "t.queue"),
    );
    assert!((0..100).all(|f| one.bucket(f) == 0));
}

#[test]
fn each_queue_s_codel_drops_its_own_standing_queue_only() {
    let mut q = fq(10_000);
    let f = distinct_flows(&q, 2);
    let mut out = Dequeued::default();
    let mut seq = 0;
    // Flow 0 keeps 20 PDUs waiting, 50 ms old; flow 1 sends one fresh PDU
    // every 10 ms. One dequeue per ms for 2 s.
    for t in 0..2000u64 {
        let now = Time((t + 1000) * MS);
        while q.queues[q.bucket(f[0])].fifo.len() < 20 {
            let mut p = pdu(f[0], 1500, seq);
            p.enqueued = Time((t + 1000 - 50) * MS);
            seq += 1;
            q.push_to(p, &mut out);
        }
        if t % 10 == 0 {
            let mut p = pdu(f[1], 200, t);
            p.enqueued = now;
            q.push_to(p, &mut out);
        }
        q.pop(now, &mut out);
    }
    assert!(out.drops > 10, "{}", out.drops);
    assert!(out.flows.iter().all(|&g| g == f[0]));
    assert_eq!(out.overflow, 0);
}

#[test]
fn check_refuses_zero_parameters() {
    assert!(cfg(10).check().is_ok());
    for bad in [
        FqCodelConfig {
            flows: 0,
            ..cfg(10)
        },
        FqCodelConfig {
            quantum_bytes: 0,
            ..cfg(10)
        },
        FqCodelConfig {
            target_ps: Duration(0),
            ..cfg(10)
        },
        FqCodelConfig {
            limit: Limit::Packets(0),
            ..cfg(10)
        },
    ] {
        assert!(bad.check().is_err(), "{bad:?}");
    }
}

#[test]
fn ce_threshold_marks_ect_pdus_that_waited_longer_only() {
    let mut q = FqCodel::new(
        FqCodelConfig {
            ce_threshold_ps: Some(Duration(MS)),
            ..cfg(100)
        },
        RngStream::new(1, "t.queue"),
    );
    let f = distinct_flows(&q, 1)[0];
    let mut out = Dequeued::default();
    for (seq, (waited_ms, e)) in [
        (2, ecn::ECT0),
        (2, ecn::NOT_ECT),
        (0, ecn::ECT0),
        (2, ecn::CE),
    ]
    .into_iter()
    .enumerate()
    {
        let mut p = pdu(f, 1000, seq as u64);
        p.ecn = e;
        p.enqueued = Time((10 - waited_ms) * MS);
        q.push_to(p, &mut out);
    }
    let got: Vec<u8> =
        std::iter::from_fn(|| q.pop(Time(10 * MS), &mut out).map(|p| p.ecn)).collect();
    assert_eq!(got, vec![ecn::CE, ecn::NOT_ECT, ecn::ECT0, ecn::CE]);
    assert_eq!((out.marks, out.drops), (1, 0));
    assert!(FqCodelConfig {
        ce_threshold_ps: Some(Duration(0)),
        ..cfg(10)
    }
    .check()
    .is_err());
}
