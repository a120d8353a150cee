use super::*;

fn ms(v: u64) -> Time {
    Time(v * 1_000_000_000)
}

fn cfg(size: u32) -> TfrcConfig {
    TfrcConfig {
        profile: super::super::Profile::Ns2,
        ..TfrcConfig::new(size)
    }
}

fn back(t: Time, secs: f64) -> Time {
    Time(t.ps() - Duration::from_secs_f64(secs).ps())
}

fn report(sent: Time, x_recv: f64, p: f64) -> TfrcFeedback {
    TfrcFeedback {
        t_recvdata: sent,
        t_delay_ps: 0,
        x_recv,
        p,
        qs: QsOption::default(),
    }
}

/// Starts a sender with a packet waiting at t = 0; returns it.
fn started(size: u32) -> Ns2Sender {
    let mut s = Ns2Sender::new(&cfg(size));
    assert_eq!(s.poll(Time::ZERO, 1), 1);
    s.on_send(Time::ZERO);
    s
}

#[test]
fn starts_at_300_bytes_per_second_whatever_the_packet_size() {
    for size in [160u32, 1316] {
        let s = started(size);
        assert_eq!(s.rate_bps(), 2400.0);
        let ipi = f64::from(size) / 300.0;
        assert_eq!(s.send_at, Time::ZERO + Duration::from_secs_f64(ipi));
        // The nofeedback timer at 2·s/rate: 1.07 s or 8.77 s, not 2 s.
        assert_eq!(
            s.poll_at(),
            Time::ZERO + Duration::from_secs_f64(ipi),
            "the send timer comes first"
        );
        assert_eq!(
            s.nofeedback_at,
            Time::ZERO + Duration::from_secs_f64(2.0 * ipi)
        );
    }
}

#[test]
fn headers_ride_on_top_of_the_packet_size() {
    let s = started(1316);
    assert_eq!(s.wire_bytes(), 1316 + 32);
    assert_eq!(s.stats.bytes, 1348);
}

#[test]
fn an_explicit_initial_rto_replaces_two_packet_times() {
    let mut c = cfg(1316);
    c.initial_rto = Some(Duration::from_millis(3000));
    let mut s = Ns2Sender::new(&c);
    s.poll(Time::ZERO, 1);
    assert_eq!(s.nofeedback_at, ms(3000));
}

#[test]
fn the_first_report_sets_the_rfc3390_rate_and_sends_at_once() {
    let mut s = started(1316);
    s.on_feedback(ms(800), &report(ms(0), 1.0, 0.0));
    // Three 1316-byte packets per RTT of 0.8 s.
    assert!((s.rate - 3.0 * 1316.0 / 0.8).abs() < 1e-9);
    assert_eq!(
        s.poll(ms(800), 1),
        1,
        "a report in slow start sends at once"
    );
    // The second report keeps the initial rate whatever it says.
    s.on_send(ms(800));
    s.on_feedback(ms(900), &report(ms(800), 1.0, 0.0));
    assert!(s.rate >= 3.0 * 1316.0 / 0.8 - 1e-9);
    // 160-byte packets: four per RTT.
    let mut v = started(160);
    v.on_feedback(ms(500), &report(ms(0), 1.0, 0.0));
    assert!((v.rate - 4.0 * 160.0 / 0.5).abs() < 1e-9);
}

#[test]
fn slow_start_doubles_once_per_rtt_and_throttles_to_the_receive_rate() {
    let mut s = started(1000);
    s.on_feedback(ms(500), &report(ms(0), 1.0, 0.0));
    s.on_feedback(ms(600), &report(ms(100), 1.0, 0.0));
    let r0 = s.rate; // 4 packets per RTT
    let rtt = s.rtt;
    // Third report, more than an RTT since the last change and a large
    // receive rate: doubles.
    let later = ms(600) + Duration::from_secs_f64(rtt + 0.01);
    s.on_feedback(later, &report(back(later, rtt), 1e6, 0.0));
    assert!(
        (s.rate - 2.0 * r0).abs() < 1e-6,
        "{} vs {}",
        s.rate,
        2.0 * r0
    );
    // Within the same RTT nothing more, even with room.
    let soon = later + Duration::from_millis(10);
    s.on_feedback(soon, &report(back(soon, rtt), 1e6, 0.0));
    assert!((s.rate - 2.0 * r0).abs() < 1e-6);
    // A receive rate below half the rate: down to the receive rate
    // itself, not to twice it (the paper's step (c)).
    let x_recv = 0.2 * s.rate;
    s.on_feedback(soon, &report(back(soon, rtt), x_recv, 0.0));
    assert!((s.rate - x_recv).abs() < 1e-9);
    assert_eq!(s.phase(), Phase::SlowStart);
}

#[test]
fn a_data_limited_sender_keeps_the_initial_rate_in_slow_start() {
    let mut s = started(1000);
    s.on_feedback(ms(500), &report(ms(0), 1.0, 0.0));
    s.on_feedback(ms(600), &report(ms(100), 1.0, 0.0));
    let init = s.rate;
    // The send timer finds nothing to send: data-limited.
    assert_eq!(s.poll(s.send_at, 0), 0);
    assert!(s.datalimited);
    s.on_feedback(ms(2000), &report(ms(1500), 2.0, 0.0));
    assert!((s.rate - init).abs() < 1e-9, "held at 4 packets per RTT");
}

#[test]
fn new_data_after_a_data_limited_spell_goes_at_once() {
    let mut s = started(1000);
    s.on_feedback(ms(500), &report(ms(0), 1.0, 0.0));
    assert_eq!(s.poll(ms(500), 0), 0);
    let t = ms(510);
    assert!(t < s.send_at);
    assert_eq!(s.poll(t, 1), 1);
    assert!(!s.datalimited);
    assert_eq!(s.lastlimited, t);
    // Only once: the next waits for the send timer.
    s.on_send(t);
    assert_eq!(s.poll(t, 1), 0);
}

#[test]
fn slow_increase_spreads_a_doubling_over_the_next_packets() {
    let mut s = started(1000);
    s.on_feedback(ms(500), &report(ms(0), 1.0, 0.0));
    s.on_feedback(ms(600), &report(ms(100), 1.0, 0.0));
    let later = ms(1200);
    s.on_feedback(later, &report(ms(700), 1e6, 0.0));
    let (old, new) = (s.oldrate, s.rate);
    assert!(new > old);
    // One packet: the pacing rate is oldrate + delta, not the new rate.
    s.poll(later, 1);
    let gap = s.send_at.since(later).as_secs_f64();
    assert!((gap - 1000.0 / (old + s.delta)).abs() < 1e-9);
    // delta brings oldrate to the new rate in one RTT of packets.
    let per_rtt = new * s.rtt / 1000.0;
    assert!((old + per_rtt * s.delta - new).abs() < 1e-6 * new);
}

#[test]
fn pacing_scales_with_the_square_root_of_the_rtt_outside_slow_start() {
    let mut s = started(1000);
    s.on_feedback(ms(500), &report(ms(0), 1.0, 0.0));
    s.on_feedback(ms(700), &report(ms(100), 1e5, 0.01));
    assert_eq!(s.phase(), Phase::OutOfSlowStart);
    s.poll(ms(700), 1);
    let gap = s.send_at.since(ms(700)).as_secs_f64();
    let xrate = s.rate * s.sqrtrtt / s.rttcur.sqrt();
    assert!((gap - 1000.0 / xrate).abs() < 1e-9);
    assert!(
        s.rttcur > s.rtt,
        "the last sample (0.6 s) is above the mean"
    );
}

#[test]
fn loss_in_slow_start_jumps_to_the_equation_and_later_moves_by_s_over_r() {
    let mut s = started(1000);
    s.on_feedback(ms(500), &report(ms(0), 1.0, 0.0));
    s.on_feedback(ms(1000), &report(ms(500), 1e5, 0.01));
    let eq = p_to_b(0.01, s.rtt, s.tzero, 1000.0, 1.0);
    assert!((s.rate - eq).abs() < 1e-9);
    // The equation allows more: up by s/R per RTT since the last
    // change, which leaving slow start does not count (the first
    // report's, at 0.5 s), at most two.
    let before = s.rate;
    let t1 = ms(1500);
    s.on_feedback(t1, &report(ms(1000), 1e5, 0.001));
    let mult = ((t1.as_secs_f64() - 0.5) / s.rtt).min(2.0);
    assert!((s.rate - (before + 1000.0 / s.rtt * mult)).abs() < 1e-6);
    assert_eq!(s.phase(), Phase::CongAvoid);
    // The equation allows less: down to it at once.
    s.on_feedback(ms(2000), &report(ms(1500), 1e5, 0.2));
    let eq = p_to_b(0.2, s.rtt, s.tzero, 1000.0, 1.0);
    assert!((s.rate - eq).abs() < 1e-9);
    assert_eq!(s.phase(), Phase::RateDecrease);
}

#[test]
fn the_equation_uses_the_tcp_style_rto_in_ticks() {
    let mut rto = TickRto::default();
    // 0.8 s: 8 ticks; srtt 64, rttvar 16: ((16 << 3) + 64) >> 3 = 24.
    assert!((rto.sample(0.8) - 2.4).abs() < 1e-12);
    // Again 0.8 s: delta 0, rttvar 16 - 4 = 12: ((12 << 3) + 64) >> 3 = 20.
    assert!((rto.sample(0.8) - 2.0).abs() < 1e-12);
    // A sample below half a tick counts as one tick.
    let mut r = TickRto::default();
    assert!((r.sample(0.01) - 0.3).abs() < 1e-12);
}

#[test]
fn nofeedback_halves_the_rate_stays_in_slow_start_and_sends_urgently() {
    let mut s = started(1316);
    let t = s.nofeedback_at;
    // The send timer went off before with data: not data-limited.
    s.poll(s.send_at, 1);
    s.on_send(s.send_at);
    assert_eq!(s.poll(t, 1), 1, "sends at once");
    assert_eq!(s.rate, 150.0);
    assert_eq!(s.phase(), Phase::SlowStart);
    assert!(s.urgent);
    assert_eq!(s.round_id, 1);
    assert_eq!(s.stats.nofeedback_expiries, 1);
    // The next timer: 2·s/rate at the halved rate (no RTT yet).
    let next = t + Duration::from_secs_f64(2.0 * 1316.0 / 150.0);
    assert_eq!(s.nofeedback_at, next);
    // The first report after it: round 2, which keeps at least the
    // initial rate.
    s.on_feedback(t + Duration::from_millis(300), &report(ms(0), 1.0, 0.0));
    assert!(!s.urgent);
    assert!(s.rate >= 3.0 * 1316.0 / s.rtt - 1e-9);
}

#[test]
fn a_data_limited_sender_is_not_halved_below_the_rfc3390_rate() {
    let mut s = started(1000);
    s.on_feedback(ms(500), &report(ms(0), 1.0, 0.0));
    let w = 4.0 * 1000.0 / s.rtt;
    s.rate = 3.0 * w;
    s.poll(s.send_at, 0); // data-limited
    let t = s.nofeedback_at;
    s.poll(t, 0);
    assert!((s.rate - 1.5 * w).abs() < 1e-9, "halved, still above W/R");
    let t = s.nofeedback_at;
    s.poll(t, 0);
    assert!((s.rate - w).abs() < 1e-9, "not below W/R");
    let t = s.nofeedback_at;
    s.poll(t, 0);
    assert!((s.rate - w).abs() < 1e-9);
    assert!(s.all_idle);
}

#[test]
fn tfrc_sp_is_voip_mode() {
    let mut c = cfg(160);
    c.small_packets = true;
    let mut s = Ns2Sender::new(&c);
    s.poll(Time::ZERO, 1);
    s.on_send(Time::ZERO);
    s.on_feedback(ms(100), &report(ms(0), 1.0, 0.0));
    s.on_feedback(ms(200), &report(ms(100), 1e5, 0.05));
    let eq = p_to_b(0.05, s.rtt, s.tzero, 1460.0, 1.0) * 160.0 / 192.0;
    assert!((s.rcvrate - eq).abs() < 1e-9);
    // At most 100 packets a second.
    s.rate = 1e6;
    s.poll(ms(200), 1);
    assert_eq!(s.send_at, ms(210));
}

fn qs_sender() -> Ns2Sender {
    let mut c = cfg(1316);
    c.quick_start_bps = Some(320_000.0);
    let mut s = Ns2Sender::new(&c);
    s.poll(Time::ZERO, 1);
    s
}

fn approval(sent: Time) -> TfrcFeedback {
    TfrcFeedback {
        qs: QsOption::request(320_000.0),
        ..report(sent, 1.0, 0.0)
    }
}

#[test]
fn quick_start_sets_the_approved_wire_rate_until_validation() {
    let mut s = qs_sender();
    assert_eq!(s.on_send(Time::ZERO).1.qs, QsOption::request(320_000.0));
    s.on_feedback(ms(800), &approval(ms(0)));
    // 40 000 B/s on the wire, of which 1316/1348 are packet bytes.
    assert!((s.rate - 40_000.0 * 1316.0 / 1348.0).abs() < 1e-9);
    assert!(matches!(s.qs_state(), QsState::Phase { .. }));
    assert_eq!(s.poll(ms(800), 1), 1, "sends at once");
    // A report on packets sent before the approval changes nothing.
    let r = s.rate;
    s.on_feedback(ms(1500), &report(ms(700), 500.0, 0.0));
    assert_eq!(s.rate, r);
    // The first report on the phase's packets: round 3, a receive rate
    // below half the rate: down to the receive rate.
    s.on_feedback(ms(2300), &report(ms(900), 5000.0, 0.0));
    assert_eq!(s.qs_state(), QsState::Validated);
    assert!((s.rate - 5000.0).abs() < 1e-9);
    assert_eq!(s.stats.qs_validated_at, Some(ms(2300)));
}

#[test]
fn nofeedback_keeps_an_unanswered_request_and_ends_a_phase() {
    let mut s = qs_sender();
    s.on_send(Time::ZERO);
    let t = s.nofeedback_at;
    s.poll(t, 0);
    assert_eq!(s.qs_state(), QsState::Asked);
    s.on_feedback(t + Duration::from_millis(100), &approval(ms(0)));
    assert!(matches!(s.qs_state(), QsState::Phase { .. }));
    let t = s.nofeedback_at;
    s.poll(t, 0);
    assert_eq!(s.qs_state(), QsState::NotUsed);
}
