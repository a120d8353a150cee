//! Driving a world from outside, as the real-time emulator does: PDUs
//! injected at a node leave at an exit at the modelled time, an idle
//! network waits instead of ending the run, and moving the clock in steps
//! changes nothing in the results.

use satcc_core::engine::Time;
use satcc_core::net::{Header, Pdu};
use satcc_core::scenario::{summary, ScenarioBuilder, World};

const MS: u64 = 1_000_000_000;

fn path() -> World {
    // 8 Mb/s, 10 ms each way: a 1000-byte PDU takes 1 ms + 10 ms.
    let d = ScenarioBuilder::new("driven", 100.0)
        .host("a")
        .host("b")
        .duplex("ab", "a", "b", 8e6, 0.010)
        .build();
    let mut w = World::build(&d).unwrap();
    w.drive();
    w
}

fn packet(to: satcc_core::net::AgentAddr, flow: u32, seq: u64, now: Time) -> Pdu {
    Pdu {
        bytes: 1000,
        flow,
        seq,
        src_node: 0,
        dst_node: 1,
        dst_agent: to.index,
        dst_gen: to.gen,
        created: now,
        enqueued: now,
        header: Header::Ip,
        ..Pdu::default()
    }
}

#[test]
fn an_injected_pdu_leaves_at_the_modelled_time() {
    let mut w = path();
    let exit = w.add_exit();
    let flow = w.add_flow();
    w.inject(0, packet(exit, flow, 0, w.now));
    w.inject(0, packet(exit, flow, 1, w.now));
    // The world next needs the clock when the first is serialised (the
    // second starts); the first arrives after its serialisation and the
    // propagation, the second 1 ms later.
    assert_eq!(w.next_wakeup(), Some(Time(MS)));
    w.run_until(Time(11 * MS));
    let left = w.take_exited(exit);
    assert_eq!(left.len(), 1);
    assert_eq!((left[0].0, left[0].1.seq), (Time(11 * MS), 0));
    w.run_until(Time(20 * MS));
    let left = w.take_exited(exit);
    assert_eq!(
        left.iter()
            .map(|(t, p)| (t.ps(), p.seq))
            .collect::<Vec<_>>(),
        vec![(12 * MS, 1)]
    );
    assert!(w.take_exited(exit).is_empty(), "taken once");
    let s = w.summary();
    assert_eq!(
        (
            s["run.pdus_sent"].as_u64(),
            s["run.pdus_delivered"].as_u64()
        ),
        (Some(2), Some(2))
    );
    assert_eq!(s["run.pdus_unaccounted"].as_i64(), Some(0));
}

#[test]
fn an_idle_driven_world_waits_for_the_next_injection() {
    let mut w = path();
    let exit = w.add_exit();
    let flow = w.add_flow();
    w.run_until(Time(50 * MS));
    assert!(!w.finished(), "nothing scheduled does not end a driven run");
    assert_eq!(w.next_wakeup(), None);
    assert_eq!(w.now, Time(50 * MS));
    w.inject(0, packet(exit, flow, 7, w.now));
    w.run_until(Time(70 * MS));
    let left = w.take_exited(exit);
    assert_eq!((left[0].0, left[0].1.seq), (Time(61 * MS), 7));
    // Past the run's duration it stops like any run.
    w.run_until(Time(200_000 * MS));
    assert!(w.finished());
}

#[test]
fn stepping_the_clock_changes_nothing() {
    let d = ScenarioBuilder::new("steps", 30.0)
        .host("a")
        .router("r")
        .host("b")
        .duplex("ar", "a", "r", 10e6, 0.002)
        .duplex("rb", "r", "b", 2e6, 0.25)
        .sink("rx", "b")
        .cbr("c", "a", "rx", 5e5, 500)
        .tcp("t", "a", "b")
        .probe("q", "link", "rb", "queue_packets")
        .build();
    let mut whole = World::build(&d).unwrap();
    whole.run();
    let mut stepped = World::build(&d).unwrap();
    let mut t = 0;
    while !stepped.finished() {
        t += 7_777 * 1_000_000; // 7.777 ms steps, unrelated to any period
        stepped.run_until(Time(t));
    }
    assert_eq!(
        summary::to_json(&whole.summary()),
        summary::to_json(&stepped.summary())
    );
    assert_eq!(
        whole.probes[0].series.values,
        stepped.probes[0].series.values
    );
}

#[test]
fn emulated_hosts_send_and_receive_through_the_model() {
    use satcc_core::scenario::world::emulated::EmulatedDesc;
    let mut d = ScenarioBuilder::new("hosts", 100.0)
        .host("a")
        .host("b")
        .duplex("ab", "a", "b", 8e6, 0.010)
        .build();
    for (name, node, address) in [("left", "a", "10.77.0.1"), ("right", "b", "10.77.0.2")] {
        d.emulate.push(EmulatedDesc {
            name: name.into(),
            node: node.into(),
            address: address.into(),
            rate_control: None,
        });
    }
    let mut w = World::build(&d).unwrap();
    w.drive();
    let hosts = w.emulated_hosts();
    assert_eq!(hosts.len(), 2);
    assert_eq!(hosts[1].address.to_string(), "10.77.0.2");
    let (left, right) = (hosts[0], hosts[1]);
    assert_eq!(w.send_from_host(left, right, 1000), 0);
    assert_eq!(w.send_from_host(left, right, 1000), 1);
    w.run_until(Time(5 * MS));
    assert_eq!(w.send_from_host(right, left, 40), 0);
    w.run_until(Time(30 * MS));
    let at_right = w.take_arrived(right);
    let times: Vec<(u64, u64)> = at_right.iter().map(|(t, p)| (t.ps(), p.seq)).collect();
    // 1 ms of serialisation each, then 10 ms.
    assert_eq!(times, vec![(11 * MS, 0), (12 * MS, 1)]);
    assert_eq!(at_right[0].1.flow, left.flow);
    let at_left = w.take_arrived(left);
    assert_eq!(at_left.len(), 1);
    assert_eq!(at_left[0].0.ps(), 5 * MS + 40 * 1_000_000 + 10 * MS);
    assert!(w.take_arrived(left).is_empty(), "taken once");
    let s = w.summary();
    assert_eq!(s["emulate.left.sent_packets"], 2);
    assert_eq!(s["emulate.left.delivered_packets"], 2);
    assert_eq!(s["emulate.right.received_bytes"], 2000);
    assert_eq!(s["emulate.left.received_packets"], 1);
    assert_eq!(s["emulate.left.delay_max_s"], 0.012);
    assert_eq!(s["run.pdus_unaccounted"], 0);
}

/// A host behind a rate-controlled buffer (the abr-effcap testbed's
/// sender): its packets leave at the rate the bottleneck feeds back, timed
/// as AAL5 cells (500 bytes are 11 cells, 583 bytes), so a host fed the
/// bottleneck's own rate never queues there.
#[test]
fn a_rate_controlled_host_sends_at_the_fed_back_rate() {
    use satcc_core::engine::Duration;
    use satcc_core::net::explicit_rate::{ExplicitRateConfig, Scheme};
    use satcc_core::net::framing::Framing;
    use satcc_core::scenario::world::emulated::EmulatedDesc;
    use satcc_core::scenario::world::shaper::RateControlDesc;
    const BOTTLENECK: f64 = 800_000.0;
    let mut d = ScenarioBuilder::new("rate-controlled host", 100.0)
        .host("a")
        .router("b")
        .host("c")
        .link("access", "a", "b", 100e6, 0.0)
        .link_with("bottleneck", "b", "c", BOTTLENECK, 0.010, |l| {
            l.framing = Framing::Aal5;
            l.explicit_rate = Some(ExplicitRateConfig {
                scheme: Scheme::Instcap,
                interval: Duration::from_millis(30),
                delta: None,
            });
        })
        .link("back", "c", "a", 100e6, 0.010)
        .link("fb", "b", "a", 100e6, 0.0)
        .build();
    let rate_control = RateControlDesc {
        link: "bottleneck".into(),
        initial_rate_bps: BOTTLENECK / 2.0,
        framing: Framing::Aal5,
        block: 1,
        blocks: 1,
        buffer_packets: None,
    };
    for (name, node, address, rc) in [
        ("left", "a", "10.77.0.1", Some(rate_control)),
        ("right", "c", "10.77.0.2", None),
    ] {
        d.emulate.push(EmulatedDesc {
            name: name.into(),
            node: node.into(),
            address: address.into(),
            rate_control: rc,
        });
    }
    let mut w = World::build(&d).unwrap();
    w.drive();
    let hosts = w.emulated_hosts();
    let (left, right) = (hosts[0], hosts[1]);
    for seq in 0..100 {
        assert_eq!(w.send_from_host(left, right, 500), seq);
    }
    w.run_until(Time(300 * MS));
    let half_way = w.summary();
    let arrived = w.take_arrived(right);
    let held = half_way["emulate.left.rate_control.queued_packets"]
        .as_u64()
        .unwrap();
    let in_network = half_way["emulate.left.in_flight"].as_u64().unwrap();
    assert_eq!(
        arrived.len() as u64 + held + in_network,
        100,
        "every packet somewhere"
    );
    assert!(
        held > 0,
        "the buffer holds what its rate has not let go yet"
    );
    // Before the first feedback (at 30 ms) the buffer serves at the initial
    // half rate; after it, at the bottleneck's, so packets arrive one cell
    // train apart: 583 bytes at 800 kb/s.
    let train_ps = (583.0 * 8.0 / BOTTLENECK * 1e12).round() as u64;
    let first = (583.0 * 8.0 / (BOTTLENECK / 2.0) * 1e12).round() as u64;
    assert_eq!(
        arrived[0].0.ps(),
        first + 40 * 1_000_000 + train_ps + 10 * MS
    );
    let gaps: Vec<u64> = arrived
        .windows(2)
        .skip(5)
        .map(|p| p[1].0.ps() - p[0].0.ps())
        .collect();
    assert!(gaps.iter().all(|&g| g.abs_diff(train_ps) <= 1), "{gaps:?}");
    w.run_until(Time(2_000 * MS));
    w.take_arrived(right);
    let s = w.summary();
    assert_eq!(s["emulate.left.delivered_packets"], 100);
    assert_eq!(s["emulate.left.dropped"], 0);
    assert_eq!(s["emulate.left.rate_control.packets"], 100);
    assert_eq!(s["emulate.left.rate_control.rate_bps"], BOTTLENECK);
    assert!(
        s["emulate.left.rate_control.feedback_received"]
            .as_u64()
            .unwrap()
            >= 60
    );
    assert_eq!(s["run.pdus_unaccounted"], 0);
}
