use super::*;
use crate::engine::RngStream;
use crate::net::capacity::Trace;
use crate::net::framing::Framing;
use crate::net::queue::Limit;

fn link(rate: f64, delay: u64, limit: u64) -> Link {
    Link::new(
        0,
        1,
        Queue::drop_tail(Limit::Packets(limit)),
        CapacityProcess::constant(rate),
        ErrorModel::new(0.0, 0.0, RngStream::new(1, "l")),
        Duration(delay),
    )
}

fn pdu(bytes: u32, seq: u64) -> Pdu {
    Pdu {
        bytes,
        seq,
        ..Pdu::default()
    }
}

/// Drives a link alone until nothing is left; returns (time, seq) arrivals.
fn run(l: &mut Link) -> Vec<(u64, u64)> {
    let mut got = vec![];
    let mut out = vec![];
    loop {
        let t = l.poll_at();
        if t == Time::NEVER {
            return got;
        }
        l.poll(t, &mut out);
        got.extend(out.drain(..).map(|p| (t.0, p.seq)));
    }
}

#[test]
fn delivery_time_is_serialisation_plus_propagation_plus_queueing() {
    // 1000 bytes at 8 Mb/s = 1 ms; 5 ms propagation.
    let mut l = link(8e6, 5_000_000_000, 10);
    l.enqueue(Time(0), pdu(1000, 0));
    l.enqueue(Time(0), pdu(1000, 1));
    let got = run(&mut l);
    assert_eq!(got, vec![(6_000_000_000, 0), (7_000_000_000, 1)]);
    assert_eq!(l.stats.wait.max(), 1e9);
}

#[test]
fn arrival_at_the_instant_a_transmission_ends_sees_the_departure_first() {
    // 1 ms per PDU, room for one waiting. At exactly 1 ms, before the
    // link's own wake-up runs, a third PDU arrives: the waiting one must
    // start (freeing its place) and the newcomer must be queued, not
    // dropped, and the link must not wake up in the past.
    let mut l = link(8e6, 0, 1);
    l.enqueue(Time(0), pdu(1000, 0));
    l.enqueue(Time(0), pdu(1000, 1));
    let ms = 1_000_000_000;
    assert_eq!(l.enqueue(Time(ms), pdu(1000, 2)), Verdict::Queued);
    assert_eq!(l.poll_at(), Time(ms)); // PDU 0 arrives now
    let got = run(&mut l);
    assert_eq!(got, vec![(ms, 0), (2 * ms, 1), (3 * ms, 2)]);
    assert_eq!(l.stats.drops, 0);
}

#[test]
fn ethernet_framing_sends_the_frame_not_the_packet() {
    // A 1500-byte packet is a 1538-byte frame: 1230.4 µs at 10 Mb/s;
    // a 40-byte ACK a 64-byte frame plus 20, 67.2 µs. The PDU arrives
    // as it was offered, and tx_bytes counts the wire.
    let mut l = link(10e6, 0, 10).with_framing(Framing::Ethernet);
    l.enqueue(Time(0), pdu(1500, 0));
    l.enqueue(Time(0), pdu(40, 1));
    let got = run(&mut l);
    assert_eq!(got, vec![(1_230_400_000, 0), (1_297_600_000, 1)]);
    l.settle(Time(1_297_600_000));
    assert_eq!(l.stats.tx_bytes, 1538 + 84);
    // The same link without framing sends the bare packet.
    let mut plain = link(10e6, 0, 10);
    plain.enqueue(Time(0), pdu(1500, 0));
    assert_eq!(run(&mut plain), vec![(1_200_000_000, 0)]);
}

#[test]
fn overflow_drops_and_counts() {
    let mut l = link(8e6, 0, 1);
    for s in 0..4 {
        l.enqueue(Time(0), pdu(1000, s));
    }
    // One in service, one waiting, two dropped.
    assert_eq!(l.stats.drops, 2);
    assert_eq!(run(&mut l).len(), 2);
}

#[test]
fn capacity_change_mid_transmission_rescales_remaining_bits() {
    // 1000 bytes at 8 Mb/s would take 1 ms; at 0.5 ms the rate halves,
    // so the remaining 4000 bits take 1 ms more: done at 1.5 ms.
    let mut l = Link::new(
        0,
        1,
        Queue::drop_tail(Limit::Packets(10)),
        CapacityProcess::trace(Trace {
            times: vec![Time(0), Time(500_000_000)],
            rates: vec![8e6, 4e6],
            period: None,
        }),
        ErrorModel::new(0.0, 0.0, RngStream::new(1, "l")),
        Duration(0),
    );
    l.enqueue(Time(0), pdu(1000, 0));
    assert_eq!(run(&mut l), vec![(1_500_000_000, 0)]);
}

fn traced(times_ms: &[f64], rates: &[f64], limit: u64, loss: f64) -> Link {
    Link::new(
        0,
        1,
        Queue::drop_tail(Limit::Packets(limit)),
        CapacityProcess::trace(Trace {
            times: times_ms.iter().map(|t| Time((t * 1e9) as u64)).collect(),
            rates: rates.to_vec(),
            period: None,
        }),
        ErrorModel::new(0.0, loss, RngStream::new(1, "l")),
        Duration(0),
    )
}

#[test]
fn a_transmission_ending_as_capacity_drops_to_zero_is_not_held() {
    // 0.5 ms at 8 Mb/s (4000 bits), then 1 ms at 4 Mb/s (4000 bits):
    // done at 2 ms exactly, when the capacity drops to zero.
    let mut l = traced(&[0.0, 1.0, 2.0], &[8e6, 4e6, 0.0], 10, 0.0);
    l.enqueue(Time(500_000_000), pdu(1000, 0));
    assert_eq!(run(&mut l), vec![(2_000_000_000, 0)]);
    assert_eq!(l.busy_ps_at(Time(3_000_000_000)), 1_500_000_000);
}

#[test]
fn the_capacity_integral_counts_idle_time_too() {
    // 8 Mb/s for 1 ms, 4 Mb/s for 1 ms, then 0: 8000 + 4000 bits, with
    // or without traffic.
    let ms = 1_000_000_000;
    let mut l = traced(&[0.0, 1.0, 2.0], &[8e6, 4e6, 0.0], 10, 0.0);
    assert_eq!(l.capacity_bits_at(Time(ms / 2)), 4000.0);
    let mut out = vec![];
    l.poll(Time(ms), &mut out);
    assert_eq!(l.capacity_bits_at(Time(3 * ms / 2)), 10_000.0);
    l.poll(Time(2 * ms), &mut out);
    assert_eq!(l.capacity_bits_at(Time(5 * ms)), 12_000.0);
}

#[test]
fn same_instant_departure_first_on_the_variable_rate_path_too() {
    // A no-op capacity change mid-transmission moves the link to the
    // variable-rate path; the verdict must not change.
    let ms = 1_000_000_000;
    let mut l = traced(&[0.0, 0.5], &[8e6, 8e6], 1, 0.0);
    l.enqueue(Time(0), pdu(1000, 0));
    l.enqueue(Time(0), pdu(1000, 1));
    assert_eq!(l.enqueue(Time(ms), pdu(1000, 2)), Verdict::Queued);
    assert_eq!(run(&mut l).len(), 3);
}

#[test]
fn an_errored_pdu_on_the_wire_is_held_until_its_last_bit() {
    let mut l = link_with_loss(1.0);
    l.enqueue(Time(0), pdu(1000, 0)); // 1 ms at 8 Mb/s
    let mut held = 0;
    l.for_each_held(|_| held += 1);
    assert_eq!(held, 1);
    assert_eq!(l.tx_bits_at(Time(500_000_000)), 0.0);
    l.settle(Time(1_000_000_000));
    held = 0;
    l.for_each_held(|_| held += 1);
    assert_eq!((held, l.stats.errors), (0, 1));
}

fn link_with_loss(loss: f64) -> Link {
    Link::new(
        0,
        1,
        Queue::drop_tail(Limit::Packets(10)),
        CapacityProcess::constant(8e6),
        ErrorModel::new(0.0, loss, RngStream::new(1, "l")),
        Duration(0),
    )
}

#[test]
fn zero_capacity_holds_the_queue() {
    let mut l = Link::new(
        0,
        1,
        Queue::drop_tail(Limit::Packets(10)),
        CapacityProcess::trace(Trace {
            times: vec![Time(0), Time(1_000), Time(2_000)],
            rates: vec![8e6, 0.0, 8e6],
            period: None,
        }),
        ErrorModel::new(0.0, 0.0, RngStream::new(1, "l")),
        Duration(0),
    );
    let mut out = vec![];
    l.poll(Time(1_000), &mut out); // now in the outage
    l.enqueue(Time(1_500), pdu(1, 7));
    assert_eq!(run(&mut l), vec![(2_000 + 1_000_000, 7)]);
}

#[test]
fn queue_time_average_of_a_burst() {
    // Three PDUs at t=0 on an idle 8 Mb/s link, 1 ms each: one waits
    // 1 ms, one 2 ms; mean waiting count over 3 ms = (2*1 + 1*1)/3.
    let mut l = link(8e6, 0, 10);
    for s in 0..3 {
        l.enqueue(Time(0), pdu(1000, s));
    }
    run(&mut l);
    let m = l.stats.queue_packets.mean(3_000_000_000);
    assert!((m - 1.0).abs() < 1e-12, "{m}");
    assert_eq!(l.stats.busy_ps, 3_000_000_000);
}

fn red_link(rate: f64) -> Link {
    use crate::net::queue::{QueueConfig, RedConfig};
    let cfg = RedConfig {
        limit: Limit::Packets(100),
        min_th: 5.0,
        max_th: 15.0,
        w_q: 0.5,
        max_p: 0.1,
        gentle: true,
        adaptive: false,
        ecn: false,
        mean_packet_bytes: 1000,
    };
    Link::new(
        0,
        1,
        QueueConfig::Red(cfg).build(),
        CapacityProcess::constant(rate),
        ErrorModel::new(0.0, 0.0, RngStream::new(1, "l")),
        Duration(0),
    )
}

#[test]
fn red_decays_its_average_over_the_time_the_link_was_idle() {
    // 1000 bytes at 8 Mb/s = 1 ms. Three PDUs at 0: the average sees
    // queues 0, 0 and 1 (w_q 0.5): 0.5. The link idles from 3 ms; an
    // arrival at 7 ms finds it idle for 4 packet times: 0.5 × 0.5^4 × 0.5.
    let mut l = red_link(8e6);
    for seq in 0..3 {
        l.enqueue(Time(0), pdu(1000, seq));
    }
    let avg = |l: &Link| l.queue().red().unwrap().avg();
    assert_eq!(avg(&l), 0.5);
    run(&mut l);
    let ms = 1_000_000_000;
    l.enqueue(Time(7 * ms), pdu(1000, 3));
    assert!(
        (avg(&l) - 0.5 * 0.5f64.powi(5)).abs() < 1e-12,
        "{}",
        avg(&l)
    );
    // While a transmission is in progress there is no decay: one sample of 0.
    let before = avg(&l);
    l.enqueue(Time(7 * ms + ms / 2), pdu(1000, 4));
    assert_eq!(avg(&l), before * 0.5);
}

#[test]
fn codel_drops_at_dequeue_reach_the_link_s_pending_drops() {
    use crate::net::queue::{CodelConfig, QueueConfig};
    let cfg = CodelConfig {
        limit: Limit::Packets(1000),
        target_ps: Duration(5_000_000_000),
        interval_ps: Duration(100_000_000_000),
        ecn: false,
    };
    let mut l = Link::new(
        0,
        1,
        QueueConfig::Codel(cfg).build(),
        CapacityProcess::constant(8e6),
        ErrorModel::new(0.0, 0.0, RngStream::new(1, "l")),
        Duration(0),
    );
    // 400 PDUs at once, 1 ms each: sojourn grows past 5 ms and stays.
    for seq in 0..400 {
        l.enqueue(Time(0), pdu(1000, seq));
    }
    let got = run(&mut l);
    let dropped = l.pending_drops();
    assert!(dropped > 0);
    assert_eq!(got.len() as u64 + dropped, 400);
    let mut flows = 0;
    l.take_dropped(|_| flows += 1);
    assert_eq!((flows, l.pending_drops()), (dropped, 0));
}
