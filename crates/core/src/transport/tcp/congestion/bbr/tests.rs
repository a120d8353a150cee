//! BBR against the draft's and Linux's rules, driven by synthetic rate
//! samples from a path of fixed bottleneck rate and RTT.

use super::*;

const MSS: u64 = 1000;
const MS: u64 = 1_000_000_000;

/// A path delivering `bw` bytes/s with round-trip time `rtt`; one ACK
/// per millisecond, each sample spanning one RTT (so a round passes per
/// RTT), the flight held at `in_flight`.
struct Path {
    bbr: Bbr,
    w: Window,
    now: Time,
    bw: f64,
    rtt: Duration,
    delivered: u64,
    in_flight: u64,
    state: CaState,
    losses: u64,
}

impl Path {
    fn new(bw: f64, rtt_ms: u64) -> Path {
        Path {
            bbr: Bbr::new(RngStream::new(1, "t")),
            w: Window {
                cwnd: 10 * MSS,
                ssthresh: u64::MAX,
                mss: MSS,
            },
            now: Time(1000 * MS),
            bw,
            rtt: Duration(rtt_ms * MS),
            delivered: 0,
            in_flight: 1_000_000,
            state: CaState::Open,
            losses: 0,
        }
    }

    /// One ACK a millisecond later carrying an RTT sample of `rtt`.
    fn ack_with_rtt(&mut self, rtt: Duration) {
        self.now += Duration(MS);
        let acked = (self.bw * 1e-3) as u64;
        let per_rtt = (self.bw * self.rtt.as_secs_f64()) as u64;
        self.delivered += acked;
        let rs = Sample {
            delivered_total: self.delivered,
            delivered_time: self.now,
            prior_delivered: self.delivered.saturating_sub(per_rtt),
            delivered: per_rtt.min(self.delivered),
            interval: Some(self.rtt),
            acked_sacked: acked,
            losses: std::mem::take(&mut self.losses),
            rtt: Some(rtt),
            app_limited: false,
            ..Sample::default()
        };
        let a = RateAck {
            now: self.now,
            rs,
            prior_in_flight: self.in_flight,
            in_flight: self.in_flight,
            state: self.state,
            srtt: Some(self.rtt),
        };
        self.bbr.on_rate_sample(&mut self.w, &a);
    }

    fn ack(&mut self) {
        self.ack_with_rtt(self.rtt);
    }

    fn until(&mut self, mut done: impl FnMut(&Bbr) -> bool, limit_ms: u64) -> Time {
        for _ in 0..limit_ms {
            self.ack();
            if done(&self.bbr) {
                return self.now;
            }
        }
        panic!("not within {limit_ms} ms: {:?}", self.bbr.mode);
    }

    /// Through Startup and Drain into ProbeBW.
    fn reach_probe_bw(&mut self) {
        self.until(|b| b.full_bw_reached, 10_000);
        self.in_flight = self.bbr.target(1.0, MSS);
        self.until(|b| matches!(b.mode, Mode::ProbeBw { .. }), 1000);
        self.in_flight = 1_000_000;
    }
}

fn phase(b: &Bbr) -> usize {
    match b.mode {
        Mode::ProbeBw { phase, .. } => phase,
        m => panic!("not in ProbeBW: {m:?}"),
    }
}

#[test]
fn startup_ends_after_three_rounds_without_a_quarter_more_rate() {
    // The rate doubles every round for 5 rounds, then stays.
    let mut p = Path::new(125_000.0, 100);
    let mut round_of_last_growth = 0;
    for r in 0..20 {
        if r < 5 {
            p.bw = 125_000.0 * 2f64.powi(r);
            round_of_last_growth = p.bbr.rounds + 1;
        }
        for _ in 0..100 {
            p.ack();
        }
        if p.bbr.full_bw_reached {
            break;
        }
        assert_eq!(p.bbr.mode, Mode::Startup);
        assert_eq!(p.bbr.pacing_gain, HIGH_GAIN);
    }
    assert!(p.bbr.full_bw_reached);
    // Rounds start at the first ACK of each 100 ms: reached at the third
    // round start after the last growth was seen.
    assert_eq!(p.bbr.rounds, round_of_last_growth + 3);
    assert_eq!(p.bbr.mode, Mode::Drain);
    assert!((p.bbr.pacing_gain - 1.0 / 2.885).abs() < 1e-9);
    // Drain sets ssthresh to the one-BDP target (Linux).
    assert_eq!(p.w.ssthresh, p.bbr.target(1.0, MSS));
}

/// Startup on a path whose rate grows by `factor` at every round start.
fn growing(factor: f64) -> Bbr {
    let mut p = Path::new(125_000.0, 100);
    for _ in 0..5000 {
        p.ack();
        if p.bbr.round_start {
            p.bw *= factor;
        }
    }
    p.bbr
}

#[test]
fn a_quarter_more_within_three_rounds_keeps_startup() {
    // Growth is measured from the last rate that was 25 % up: 26 % a
    // round, or 8 % (1.08³ = 1.26), resets the count; 7 % (1.07³ = 1.23)
    // lets three rounds pass.
    assert_eq!(growing(1.26).mode, Mode::Startup);
    assert_eq!(growing(1.08).mode, Mode::Startup);
    assert!(growing(1.07).full_bw_reached);
}

#[test]
fn drain_ends_when_the_flight_is_one_bdp() {
    let mut p = Path::new(1_250_000.0, 600);
    p.until(|b| b.full_bw_reached, 20_000);
    let bdp = p.bbr.target(1.0, MSS);
    p.in_flight = bdp + MSS;
    for _ in 0..50 {
        p.ack();
    }
    assert_eq!(p.bbr.mode, Mode::Drain);
    p.in_flight = bdp;
    p.ack();
    assert!(matches!(p.bbr.mode, Mode::ProbeBw { .. }));
}

#[test]
fn gain_cycle_runs_in_order_one_rtprop_a_phase() {
    let mut p = Path::new(1_250_000.0, 100);
    p.reach_probe_bw();
    // Wait for the probing phase, then watch two whole cycles.
    p.until(|b| phase(b) == 0, 2000);
    let mut changes = vec![(p.now, 0)];
    while changes.len() <= 16 {
        p.ack();
        let ph = phase(&p.bbr);
        if ph != changes.last().unwrap().1 {
            changes.push((p.now, ph));
        }
    }
    let order: Vec<usize> = changes.iter().map(|c| c.1).collect();
    assert_eq!(order, [0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0]);
    for c in changes.windows(2) {
        // A phase ends at the first ACK more than RTprop after it began.
        assert_eq!(c[1].0.since(c[0].0), Duration(101 * MS));
    }
    assert_eq!(PACING_GAINS, [1.25, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]);
}

#[test]
fn probing_ends_early_on_loss_never_before_rtprop_and_draining_ends_at_one_bdp() {
    let mut p = Path::new(1_250_000.0, 100);
    p.reach_probe_bw();
    p.until(|b| phase(b) == 0, 2000);
    // Flight below 1.25·BDP and no loss: the probe outlasts RTprop.
    p.in_flight = p.bbr.target(1.0, MSS);
    for _ in 0..300 {
        p.ack();
    }
    assert_eq!(phase(&p.bbr), 0);
    p.losses = MSS;
    p.ack();
    assert_eq!(
        phase(&p.bbr),
        1,
        "a loss ends the probe once it is full length"
    );
    // The flight is one BDP (the probe's two extra segments gone):
    // draining stops at once.
    p.in_flight = p.bbr.target(1.0, MSS);
    p.ack();
    assert_eq!(phase(&p.bbr), 2);
}

#[test]
fn pacing_rate_is_gain_times_btlbw_and_cwnd_is_gain_times_bdp_plus_quanta() {
    let bw = 1_250_000.0;
    let mut p = Path::new(bw, 100);
    p.reach_probe_bw();
    for _ in 0..3000 {
        p.ack();
        let g = PACING_GAINS[phase(&p.bbr)];
        let rate = p.bbr.pacing_rate(&p.w, None).unwrap();
        assert!((rate - g * bw).abs() < 1e-6 * bw, "{rate} vs {g}·{bw}");
    }
    // BDP = 1.25 MB/s · 100 ms = 125 segments; cwnd gain 2: 250, + 3
    // segments of quantum, to an even count: 254 (256 in the probe phase).
    p.until(|b| phase(b) == 2, 1000);
    assert_eq!(p.w.cwnd, 254 * MSS);
    p.until(|b| phase(b) == 0, 1000);
    // cwnd grows to the new target by what each ACK acknowledges.
    for _ in 0..5 {
        p.ack();
    }
    assert_eq!(p.w.cwnd, 256 * MSS);
}

#[test]
fn probe_rtt_after_ten_seconds_without_a_lower_rtt_for_max_200ms_and_a_round() {
    for rtt_ms in [100, 600] {
        let mut p = Path::new(1_250_000.0, rtt_ms);
        p.reach_probe_bw();
        // Samples equal to RTprop refresh it (Linux's `<=`): the last one
        // was just now.
        let t0 = p.now;
        // Every later sample is 1 ms longer than RTprop: none refreshes it.
        let longer = Duration((rtt_ms + 1) * MS);
        let mut entered = None;
        for _ in 0..20_000 {
            p.ack_with_rtt(longer);
            if matches!(p.bbr.mode, Mode::ProbeRtt { .. }) {
                entered = Some(p.now);
                break;
            }
        }
        let entered = entered.expect("ProbeRTT");
        // Expiry is strictly after 10 s.
        assert_eq!(entered.since(t0), Duration(10_001 * MS));
        assert_eq!(p.w.cwnd, MIN_CWND_SEGMENTS * MSS);
        assert_eq!((p.bbr.pacing_gain, p.bbr.cwnd_gain), (1.0, 1.0));
        // The flight drains to 4 segments at once here; the stay starts.
        p.in_flight = 4 * MSS;
        let start = p.now + Duration(MS);
        let mut left = None;
        for _ in 0..5000 {
            p.ack_with_rtt(longer);
            if !matches!(p.bbr.mode, Mode::ProbeRtt { .. }) {
                left = Some(p.now);
                break;
            }
        }
        let stay = left.expect("left ProbeRTT").since(start);
        let expect = Duration(200 * MS).max(Duration(rtt_ms * MS));
        assert!(
            stay >= expect && stay <= expect + Duration(2 * MS),
            "rtt {rtt_ms} ms: stayed {stay:?}"
        );
        assert!(
            matches!(p.bbr.mode, Mode::ProbeBw { .. }),
            "full pipe: back to ProbeBW"
        );
        // RTprop refreshed: the next ProbeRTT is 10 s away.
        assert!(p.w.cwnd > MIN_CWND_SEGMENTS * MSS, "cwnd restored");
    }
}

#[test]
fn a_lower_rtt_postpones_probe_rtt() {
    let mut p = Path::new(1_250_000.0, 100);
    p.reach_probe_bw();
    for i in 0..15_000 {
        // A lower sample every 5 s keeps RTprop fresh.
        let rtt = if i % 5000 == 0 {
            Duration(100 * MS - (i / 5000 + 1) * 1000)
        } else {
            Duration(101 * MS)
        };
        p.ack_with_rtt(rtt);
        assert!(!matches!(p.bbr.mode, Mode::ProbeRtt { .. }));
    }
}

#[test]
fn first_probe_bw_phase_is_random_never_the_draining_one_and_seeded() {
    let first = |seed: u64| {
        let mut p = Path::new(1_250_000.0, 100);
        p.bbr.seed(RngStream::new(seed, "tcp.x.client"));
        p.reach_probe_bw();
        phase(&p.bbr)
    };
    let phases: Vec<usize> = (0..200).map(first).collect();
    assert!(!phases.contains(&1));
    for ph in [0, 2, 3, 4, 5, 6, 7] {
        assert!(phases.contains(&ph), "phase {ph} never drawn");
    }
    assert_eq!(first(7), first(7));
}

#[test]
fn recovery_conserves_packets_then_restores_the_cwnd() {
    let mut p = Path::new(1_250_000.0, 100);
    p.reach_probe_bw();
    p.until(|b| phase(b) == 2, 1000);
    let before = p.w.cwnd;
    let ssthresh = p.bbr.on_congestion(p.now, &p.w, p.in_flight);
    assert_eq!(ssthresh, before);
    p.state = CaState::Recovery;
    p.in_flight = 100 * MSS;
    p.ack();
    // First ACK of recovery: cwnd = in flight + acknowledged.
    assert_eq!(p.w.cwnd, 100 * MSS + 1250);
    p.state = CaState::Open;
    p.ack();
    assert_eq!(p.w.cwnd, before, "restored on leaving recovery");
}

#[test]
fn max_filter_forgets_a_peak_after_its_window() {
    let mut f = MaxFilter::default();
    f.update(10, 1, 100.0);
    for t in 2..=11 {
        assert_eq!(f.update(10, t, 50.0), 100.0);
    }
    assert_eq!(f.update(10, 12, 50.0), 50.0, "11 rounds old");
    assert_eq!(f.update(10, 13, 70.0), 70.0);
}
