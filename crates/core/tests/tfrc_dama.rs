//! A TFRC media flow started behind a Skyplex terminal under DAMA, with
//! and without Quick-Start (the tfrc-dama paper, section 3.3): one 256 kb/s
//! flow of 1316-byte packets from a host behind terminal t1 to a host
//! behind terminal t2, reports back through t2's own demand-assigned
//! uplink. Checked against the paper's timeline in words (Fig. 4): the
//! QS-Response arrives after one RTT with the 320 kb/s approval, the QS
//! phase ends at the next report; and against its ranking (Figs. 3, 5): QS
//! lowers the worst E2ED, QSD with T_q,opt lowers it further; no uplink
//! queue overflows; every packet is accounted for.

use satcc_core::apps::media::MediaConfig;
use satcc_core::engine::{Duration, Time};
use satcc_core::net::capacity::CapacityConfig;
use satcc_core::net::queue::{Limit, QueueConfig};
use satcc_core::satmac::{DamaConfig, FrameConfig, Ncc, QsAgentConfig, Skyplex};
use satcc_core::scenario::world::dvb_rcs::{DvbRcsDesc, TerminalDesc};
use satcc_core::scenario::world::tfrc_arrivals::{FlowDuration, TfrcArrivalsDesc};
use satcc_core::scenario::{summary, ScenarioBuilder, World};
use satcc_core::transport::tfrc::{Profile, TfrcConfig};

#[derive(Clone, Copy, Debug, PartialEq)]
enum Qs {
    Off,
    Plain,
    Qsd(Duration),
}

fn channel(size: Skyplex, qs: Qs) -> DvbRcsDesc {
    let agent = match qs {
        Qs::Off => None,
        Qs::Plain => Some(QsAgentConfig::default()),
        Qs::Qsd(tq) => Some(QsAgentConfig {
            qsd: true,
            tq,
            ..QsAgentConfig::default()
        }),
    };
    let terminal = |name: &str, uplink: &str| TerminalDesc {
        name: name.into(),
        uplink: uplink.into(),
        request: Default::default(),
        quick_start: agent.clone(),
    };
    DvbRcsDesc {
        name: "rl".into(),
        frame: FrameConfig::skyplex(size),
        dama: DamaConfig::default(),
        terminals: vec![terminal("t1", "up1"), terminal("t2", "up2")],
    }
}

/// Host h1 behind terminal t1, h2 behind t2, on one Skyplex channel.
fn mesh(size: Skyplex, qs: Qs, seconds: f64) -> ScenarioBuilder {
    let ch = channel(size, qs);
    let runs = Ncc::new(ch.frame.clone(), ch.dama.clone(), 2).initial_runs();
    let tp = ch.frame.propagation.as_secs_f64();
    // t1's uplink spells out its slotted capacity; t2's names the channel,
    // which gives it the same.
    let c1 = ch.uplink_capacity(runs[0].start, runs[0].count);
    let c2 = CapacityConfig::DvbRcs {
        channel: "rl".into(),
    };
    let queue = QueueConfig::Droptail {
        limit: Limit::Packets(1000),
    };
    let q2 = queue.clone();
    ScenarioBuilder::new("tfrc-dama", seconds)
        .host("h1")
        .router("t1")
        .router("t2")
        .host("h2")
        .link("lan1", "h1", "t1", 100e6, 0.0)
        .link("lan1r", "t1", "h1", 100e6, 0.0)
        .link_with("up1", "t1", "t2", 1.0, tp, |l| {
            l.capacity = c1;
            l.queue = queue;
        })
        .link_with("up2", "t2", "t1", 1.0, tp, |l| {
            l.capacity = c2;
            l.queue = q2;
        })
        .link("lan2", "t2", "h2", 100e6, 0.0)
        .link("lan2r", "h2", "t2", 100e6, 0.0)
        .with(|d| d.dvb_rcs.push(ch))
}

fn run(size: Skyplex, qs: Qs, seconds: f64) -> summary::Summary {
    let d = mesh(size, qs, seconds)
        .tfrc_with("v", "h1", "h2", 256_000.0, 1316, |t| {
            t.config.profile = Profile::Rfc3448;
            t.config.quick_start_bps = (qs != Qs::Off).then_some(320_000.0);
        })
        .build();
    let mut w = World::build(&d).unwrap();
    w.run();
    w.summary()
}

fn f(s: &summary::Summary, k: &str) -> f64 {
    s[k].as_f64().unwrap_or_else(|| panic!("{k} missing"))
}

#[test]
fn quick_start_is_approved_after_one_rtt_and_validated_at_the_next_report() {
    let s = run(Skyplex::Large, Qs::Plain, 30.0);
    assert_eq!(f(&s, "run.pdus_unaccounted"), 0.0);
    assert_eq!(f(&s, "tfrc.v.qs_approved_bps"), 320_000.0);
    assert_eq!(s["tfrc.v.qs_state"], "validated");
    assert_eq!(f(&s, "links.up1.quick_start.approvals"), 1.0);
    // The paper's Fig. 4: the second report comes about three RTTs in
    // (2.3 s); one RTT is 0.78 s on the large frame.
    let validated = f(&s, "tfrc.v.qs_validated_s");
    assert!(
        (1.5..=3.5).contains(&validated),
        "validated at {validated} s"
    );
    assert_eq!(f(&s, "links.up1.drops"), 0.0);
}

#[test]
fn qs_and_qsd_lower_the_worst_start_up_delay_on_the_large_frame() {
    let frame = FrameConfig::skyplex(Skyplex::Large);
    let max = |qs| f(&run(Skyplex::Large, qs, 30.0), "tfrc.v.e2ed_max_s");
    let none = max(Qs::Off);
    let plain = max(Qs::Plain);
    let qsd = max(Qs::Qsd(frame.tq_opt()));
    eprintln!("max E2ED: no QS {none:.2} s, QS {plain:.2} s, QSD T_q,opt {qsd:.2} s");
    assert!(plain < none, "QS {plain} vs none {none}");
    assert!(qsd < plain, "QSD {qsd} vs QS {plain}");
}

#[test]
fn qsd_asks_dama_for_the_approved_rate() {
    let frame = FrameConfig::skyplex(Skyplex::Large);
    let s = run(Skyplex::Large, Qs::Qsd(frame.tq_opt()), 10.0);
    assert_eq!(f(&s, "links.up1.quick_start.held"), 1.0);
    assert_eq!(f(&s, "run.pdus_unaccounted"), 0.0);
    // The first request after the QS-Request passed carries 320 kb/s on
    // top of the little the flow sent: more than 7 slots' worth.
    assert!(f(&s, "dvb_rcs.rl.t1.requests") > 5.0);
}

#[test]
fn a_link_naming_a_channel_that_does_not_use_it_is_refused() {
    let d = ScenarioBuilder::new("stray", 1.0)
        .host("a")
        .host("b")
        .link_with("ab", "a", "b", 1.0, 0.0, |l| {
            l.capacity = CapacityConfig::DvbRcs {
                channel: "rl".into(),
            };
        })
        .build();
    let err = World::build(&d).err().expect("refused").to_string();
    assert!(err.contains("links.ab") && err.contains("\"rl\""), "{err}");
}

/// Two flows of one class of media arrivals through one terminal with QSD:
/// while the later flow's QS-Request is held T_q, only that flow's packets
/// wait behind it, never the earlier flow's. (Flows of a class once shared
/// one flow id, so every packet of the class through the terminal waited.)
#[test]
fn qsd_holds_only_the_requesting_flow_of_a_class() {
    let frame = FrameConfig::skyplex(Skyplex::Large);
    let tq = frame.tq_max();
    let mut judged = 0;
    for seed in 1..=12 {
        let d = mesh(Skyplex::Large, Qs::Qsd(tq), 60.0)
            .with(|d| {
                d.seed = seed;
                d.tfrc_arrivals.push(TfrcArrivalsDesc {
                    name: "video".into(),
                    hosts: vec!["h1".into(), "h2".into()],
                    rate_per_s: 0.1,
                    duration: FlowDuration::Constant {
                        duration: Duration::from_secs_f64(50.0),
                    },
                    media: MediaConfig {
                        rate_bps: 64_000.0,
                        buffer_packets: 1000,
                        duration: None,
                    },
                    tolerable_delay: None,
                    start_ps: Time::ZERO,
                    stop_ps: None,
                    max_flows: Some(2),
                    window: Duration::from_secs_f64(30.0),
                    step: Duration::from_secs_f64(1.0),
                    linger: Duration::from_secs_f64(30.0),
                    config: TfrcConfig {
                        quick_start_bps: Some(80_000.0),
                        ..TfrcConfig::new(512)
                    },
                })
            })
            .build();
        let mut w = World::build(&d).unwrap();
        w.run();
        let s = w.summary();
        assert_eq!(f(&s, "run.pdus_unaccounted"), 0.0);
        if f(&s, "links.up1.quick_start.requests") < 2.0 {
            continue; // the two flows went different ways
        }
        judged += 1;
        assert_eq!(f(&s, "links.up1.quick_start.held"), 2.0);
        // Before its first report a flow sends a packet every second or
        // slower: a held request has at most two of its own behind it.
        let behind = f(&s, "links.up1.quick_start.held_behind");
        assert!(behind <= 4.0, "seed {seed}: {behind} packets held behind");
    }
    assert!(judged > 0, "no seed sent both flows through t1");
}
