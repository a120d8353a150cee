//! The proactive-atm thesis's network (Fig. 5) end to end: voice, video and
//! data cell sources at user 1, 21 Mb/s 5 ms fibre to switch 1, the 6 Mb/s
//! 270 ms satellite link to switch 2, fibre to user 2; every link both
//! ways. Checked against what the thesis's mechanisms imply: without
//! control an overload loses cells at the satellite queue; with access
//! policing and proactive detection (case 2) the sources slow down before
//! the queue overflows; every cell is accounted for; priority-0 delay is
//! untouched by priority-1 load.

use satcc_core::apps::file_transfer::FileTransferConfig;
use satcc_core::apps::rate_policy::RatePolicyConfig;
use satcc_core::apps::session_source::SessionConfig;
use satcc_core::atm::congestion_detector::DetectorConfig;
use satcc_core::atm::leaky_bucket::{LeakyBucketConfig, NonConforming};
use satcc_core::atm::peak_rate::{PeakRateConfig, PrcOverflow};
use satcc_core::atm::upc::Contract;
use satcc_core::engine::Duration;
use satcc_core::net::queue::{LevelConfig, Limit, QueueConfig};
use satcc_core::scenario::summary::Summary;
use satcc_core::scenario::world::cell_sources::{CellSourcesDesc, Traffic};
use satcc_core::scenario::world::links::LinkDesc;
use satcc_core::scenario::{Description, ScenarioBuilder, World};

const RTT: Duration = Duration(560_000_000_000);

#[derive(Clone, Copy, PartialEq)]
enum Case {
    /// No policing, no notifications, nominal rates.
    Uncontrolled,
    /// Policing, input-rate and discard notifications, adaptive rates.
    Proactive,
}

fn switch_queue() -> QueueConfig {
    // The thesis's 512/256 and 1024/512 counting the cell in service:
    // one fewer waiting (docs/proactive-atm.md).
    QueueConfig::Priority {
        high: LevelConfig {
            limit: Limit::Packets(511),
            clp_threshold: Limit::Packets(255),
        },
        low: LevelConfig {
            limit: Limit::Packets(1023),
            clp_threshold: Limit::Packets(511),
        },
    }
}

fn user_queue() -> QueueConfig {
    QueueConfig::Priority {
        high: LevelConfig {
            limit: Limit::Packets(999),
            clp_threshold: Limit::Packets(999),
        },
        low: LevelConfig {
            limit: Limit::Packets(4999),
            clp_threshold: Limit::Packets(4999),
        },
    }
}

fn link(case: Case, queue: QueueConfig) -> impl FnOnce(&mut LinkDesc) {
    move |l: &mut LinkDesc| {
        l.queue = queue;
        if case == Case::Proactive {
            l.congestion = Some(DetectorConfig::default());
        }
    }
}

fn group(name: &str, kind: &str, count: u32, case: Case) -> CellSourcesDesc {
    let adaptive = case == Case::Proactive;
    let (traffic, priority, mut policy, peak, drain, overflow) = match kind {
        "voice" => (
            Traffic::Sessions(SessionConfig::voice()),
            0,
            RatePolicyConfig::real_time(RTT),
            64e3,
            36e3,
            PrcOverflow::Drop,
        ),
        "video" => (
            Traffic::Sessions(SessionConfig::video()),
            0,
            RatePolicyConfig::real_time(RTT),
            512e3,
            391e3,
            PrcOverflow::Drop,
        ),
        _ => (
            Traffic::Files(FileTransferConfig::thesis()),
            1,
            RatePolicyConfig::data(RTT),
            500e3,
            556e3,
            PrcOverflow::MarkHead,
        ),
    };
    policy.adaptive = adaptive;
    let contract = adaptive.then(|| Contract {
        peak_rate: Some(PeakRateConfig {
            peak_cells_per_s: peak / 384.0,
            queue_cells: 512,
            overflow,
        }),
        leaky_bucket: Some(LeakyBucketConfig {
            drain_cells_per_s: drain / 384.0,
            depth_cells: 200.0,
            queue_cells: 0,
            non_conforming: NonConforming::Mark,
            stepped: true,
        }),
    });
    CellSourcesDesc {
        name: name.into(),
        src_node: "user1".into(),
        dst_node: "user2".into(),
        count,
        priority,
        traffic,
        policy,
        police_at: contract.as_ref().map(|_| "sat".into()),
        contract,
        jitter_bound: Duration::from_millis(20),
    }
}

fn network(case: Case, seconds: f64, seed: u64, groups: Vec<CellSourcesDesc>) -> Description {
    ScenarioBuilder::new("thesis", seconds)
        .seed(seed)
        .host("user1")
        .router("sw1")
        .router("sw2")
        .host("user2")
        .link_with(
            "up",
            "user1",
            "sw1",
            21e6,
            0.005,
            link(Case::Uncontrolled, user_queue()),
        )
        .link_with(
            "up_rev",
            "sw1",
            "user1",
            21e6,
            0.005,
            link(case, switch_queue()),
        )
        .link_with("sat", "sw1", "sw2", 6e6, 0.270, link(case, switch_queue()))
        .link_with(
            "sat_rev",
            "sw2",
            "sw1",
            6e6,
            0.270,
            link(case, switch_queue()),
        )
        .link_with(
            "down",
            "sw2",
            "user2",
            21e6,
            0.005,
            link(case, switch_queue()),
        )
        .link_with(
            "down_rev",
            "user2",
            "sw2",
            21e6,
            0.005,
            link(Case::Uncontrolled, user_queue()),
        )
        .with(|d| d.cell_sources = groups)
        .build()
}

fn run(d: &Description) -> Summary {
    let mut w = World::build(d).unwrap();
    w.run();
    w.summary()
}

fn get(s: &Summary, k: &str) -> f64 {
    s[k].as_f64().unwrap_or_else(|| panic!("{k} missing"))
}

fn voice_and_video(case: Case, videos: u32, seed: u64) -> Summary {
    let groups = vec![
        group("voice", "voice", 5 * videos, case),
        group("video", "video", videos, case),
    ];
    run(&network(case, 60.0, seed, groups))
}

#[test]
fn uncontrolled_overload_loses_cells_at_the_satellite_queue_and_every_cell_is_counted() {
    // 24 video and 120 voice sources: a mean of 24 x 176 + 120 x 16 kb/s
    // of payload, 6.1 Mb/s on the wire, above the 6 Mb/s link.
    let s = voice_and_video(Case::Uncontrolled, 24, 1);
    assert_eq!(get(&s, "run.pdus_unaccounted"), 0.0);
    assert!(get(&s, "links.sat.drops") > 0.0);
    let lost = get(&s, "cell_sources.video.queue_loss_ratio");
    assert!(lost > 0.01, "video loss {lost}");
    assert_eq!(get(&s, "cell_sources.video.cells_dropped_at_access"), 0.0);
    assert!(get(&s, "cell_sources.voice.late_fraction") > 0.1);
    // Only the satellite queue drops: the fibres never fill.
    for l in ["up", "up_rev", "sat_rev", "down", "down_rev"] {
        assert_eq!(get(&s, &format!("links.{l}.drops")), 0.0, "{l}");
    }
}

#[test]
fn proactive_control_slows_the_sources_before_the_queue_overflows() {
    let s = voice_and_video(Case::Proactive, 24, 1);
    assert_eq!(get(&s, "run.pdus_unaccounted"), 0.0);
    assert!(get(&s, "links.sat.congestion.rate_notices") > 0.0);
    assert!(get(&s, "cell_sources.video.rate_notices") > 0.0);
    assert!(get(&s, "cell_sources.video.rate_factor_mean") < 1.0);
    let lost = get(&s, "cell_sources.video.queue_loss_ratio")
        + get(&s, "cell_sources.voice.queue_loss_ratio");
    let uncontrolled = voice_and_video(Case::Uncontrolled, 24, 1);
    let before = get(&uncontrolled, "cell_sources.video.queue_loss_ratio");
    assert!(lost < before / 10.0, "controlled {lost} vs {before}");
    // The notifications take the real reverse path: back over the fibre.
    assert!(get(&s, "links.up_rev.tx_packets") > 0.0);
}

#[test]
fn data_sources_exceed_their_nominal_rate_when_the_link_is_free() {
    // Three data sources on an empty 6 Mb/s link: adaptive rates grow past
    // 0.5 Mb/s, and the files take less than the 16 s of the nominal rate.
    let s = run(&network(
        Case::Proactive,
        120.0,
        2,
        vec![group("data", "data", 3, Case::Proactive)],
    ));
    assert_eq!(get(&s, "run.pdus_unaccounted"), 0.0);
    assert!(get(&s, "cell_sources.data.files_completed") > 3.0);
    let t = get(&s, "cell_sources.data.file_time_mean_s");
    assert!(t < 16.0, "mean file time {t} s");
    // Case 1: nominal rate after slow start, a little over 16 s a file.
    let s1 = run(&network(
        Case::Uncontrolled,
        120.0,
        2,
        vec![group("data", "data", 3, Case::Uncontrolled)],
    ));
    let t1 = get(&s1, "cell_sources.data.file_time_mean_s");
    assert!((16.0..17.5).contains(&t1), "nominal file time {t1} s");
}

#[test]
fn cells_held_by_the_peak_rate_controller_are_late_at_the_sink_but_not_in_the_network() {
    // Three data sources on an empty link grow past their 500 kb/s peak, so
    // the access controller holds their cells: counted from the cells'
    // creation most arrive late, counted from the controller's release
    // none does, for no queue in the network ever fills.
    let s = run(&network(
        Case::Proactive,
        120.0,
        2,
        vec![group("data", "data", 3, Case::Proactive)],
    ));
    let k = |m: &str| get(&s, &format!("cell_sources.data.{m}"));
    assert!(k("late_fraction") > 0.2, "{}", k("late_fraction"));
    assert_eq!(k("late_in_network_fraction"), 0.0);
    assert!(
        k("access_hold_mean_s") > 0.02,
        "{}",
        k("access_hold_mean_s")
    );
    assert!(k("access_hold_max_s") >= k("access_hold_mean_s"));
    assert_eq!(get(&s, "links.sat.drops"), 0.0);
    // Without a contract nothing holds a cell: the two measures agree.
    let u = run(&network(
        Case::Uncontrolled,
        60.0,
        2,
        vec![group("data", "data", 15, Case::Uncontrolled)],
    ));
    let k = |m: &str| get(&u, &format!("cell_sources.data.{m}"));
    assert_eq!(k("access_hold_max_s"), 0.0);
    assert!(k("late_cells") > 0.0);
    assert_eq!(k("late_cells"), k("late_in_network_cells"));
}

#[test]
fn priority_0_delay_does_not_feel_priority_1_load() {
    // Voice alone, then voice beside enough data to fill the link: the
    // voice cells' worst jitter grows by at most one cell time per hop.
    let voice = |with_data: bool| {
        let mut g = vec![group("voice", "voice", 20, Case::Uncontrolled)];
        if with_data {
            g.push(group("data", "data", 26, Case::Uncontrolled));
        }
        run(&network(Case::Uncontrolled, 60.0, 3, g))
    };
    let alone = voice(false);
    let loaded = voice(true);
    assert!(get(&loaded, "links.sat.utilisation") > 0.9);
    assert!(get(&loaded, "links.sat.queue_max_packets") > 100.0);
    assert_eq!(get(&loaded, "cell_sources.voice.cells_dropped"), 0.0);
    // Non-preemptive priority: a voice cell waits at most for the data
    // cell in transmission at each of its three hops.
    let cell_times: f64 = [21e6, 6e6, 21e6].iter().map(|r| 424.0 / r).sum();
    let worst = get(&loaded, "cell_sources.voice.delay_max_s");
    let without = get(&alone, "cell_sources.voice.delay_max_s");
    assert!(worst <= without + cell_times + 1e-9, "{worst} vs {without}");
    assert!(worst > without, "the data cells should show");
    assert_eq!(get(&loaded, "cell_sources.voice.late_cells"), 0.0);
}

/// The thesis's transmit-link queue counts the cell in service in its
/// occupancy N (section 4: insert while N < threshold; past it, CLP = 1
/// is discarded and CLP = 0 inserted while N < maximum). satcc's queue
/// counts cells waiting, so the thesis's (L, threshold) is satcc's
/// (L − 1, threshold − 1): checked here cell by cell against the thesis's
/// rule on a random stream.
#[test]
fn the_theses_occupancy_counting_the_cell_in_service_is_one_fewer_waiting() {
    use satcc_core::engine::{RngStream, Time};
    use satcc_core::net::capacity::CapacityProcess;
    use satcc_core::net::error_model::ErrorModel;
    use satcc_core::net::queue::{Queue, Verdict};
    use satcc_core::net::{Link, Pdu};

    let (limit, threshold) = (12u64, 6u64);
    let mut link = Link::new(
        0,
        1,
        Queue::two_priority(
            LevelConfig {
                limit: Limit::Packets(limit - 1),
                clp_threshold: Limit::Packets(threshold - 1),
            },
            LevelConfig {
                limit: Limit::Packets(limit - 1),
                clp_threshold: Limit::Packets(threshold - 1),
            },
        ),
        CapacityProcess::constant(424_000.0), // one cell per ms
        ErrorModel::new(0.0, 0.0, RngStream::new(1, "e")),
        Duration::ZERO,
    );
    // The thesis's queue: departure times of the cells in it.
    let service = 1_000_000_000u64;
    let mut in_system: std::collections::VecDeque<u64> = Default::default();
    let mut rng = RngStream::new(7, "arrivals");
    let (mut t, mut out) = (0u64, vec![]);
    let mut agreed = 0;
    for seq in 0..20_000u64 {
        t += rng.exp(service as f64 * 0.8) as u64;
        while link.poll_at() <= Time(t) {
            let at = link.poll_at();
            link.poll(at, &mut out);
        }
        while in_system.front().is_some_and(|&d| d <= t) {
            in_system.pop_front();
        }
        let clp = u8::from(rng.bernoulli(0.5));
        let n = in_system.len() as u64;
        let thesis = n < threshold || (clp == 0 && n < limit);
        let pdu = Pdu {
            bytes: 53,
            seq,
            class: satcc_core::net::Class::new(0, clp),
            ..Pdu::default()
        };
        let satcc = link.enqueue(Time(t), pdu) == Verdict::Queued;
        assert_eq!(satcc, thesis, "cell {seq} at N = {n}, CLP {clp}");
        if thesis {
            let start = in_system.back().copied().unwrap_or(0).max(t);
            in_system.push_back(start + service);
        }
        agreed += 1;
    }
    assert_eq!(agreed, 20_000);
    assert!(in_system.len() <= limit as usize);
}
