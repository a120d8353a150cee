//! The socket alone: two endpoints joined by an ideal wire.

use super::*;
use crate::apps::tcp_app::{AppKind, TcpApp};
use crate::transport::tcp::cwv;
use crate::transport::tcp::rack::LossDetection;

const MS: u64 = 1_000_000_000;

/// Two sockets joined by a lossless wire with a fixed one-way delay and
/// no serialisation unless `spacing` (data segments leave side 0 at least
/// that far apart, as from a bottleneck); `drop_once` discards a data
/// segment by its offset (listed twice, also its first retransmission),
/// `delay_once` holds one back by so many extra milliseconds, `mark_once`
/// sets CE on one sent ECT (as an AQM would) by its offset; `ecn_log`
/// holds the IP ECN field of each `log` entry.
struct Pair {
    s: [TcpSocket; 2],
    app: TcpApp,
    wire: Vec<(Time, usize, Pdu)>,
    one_way: Duration,
    spacing: Duration,
    last_arrival: Time,
    dropped: Vec<u64>,
    drop_once: Vec<u64>,
    delay_once: Vec<(u64, u64)>,
    mark_once: Vec<u64>,
    log: Vec<(Time, usize, TcpHeader, u32)>,
    ecn_log: Vec<u8>,
}

impl Pair {
    fn new(cfg: TcpConfig, one_way_ms: u64, app: AppKind) -> Pair {
        let shift = cfg.window_shift();
        let e = |node, peer, flow| Endpoint {
            node,
            peer_node: peer,
            peer_agent: AgentAddr::fixed(peer),
            flow,
        };
        Pair {
            s: [
                TcpSocket::new(cfg.clone(), e(0, 1, 0), true, Time::ZERO, shift),
                TcpSocket::new(cfg, e(1, 0, 1), false, Time::ZERO, shift),
            ],
            app: TcpApp::new(app),
            wire: vec![],
            one_way: Duration(one_way_ms * MS),
            spacing: Duration(0),
            last_arrival: Time::ZERO,
            dropped: vec![],
            drop_once: vec![],
            delay_once: vec![],
            mark_once: vec![],
            log: vec![],
            ecn_log: vec![],
        }
    }

    fn emit(&mut self, now: Time, from: usize, out: &mut Vec<Pdu>) {
        for mut p in out.drain(..) {
            let Some(&h) = p.header.tcp() else {
                unreachable!()
            };
            let len = p.bytes - 40;
            let seq = h.seq as u64;
            if from == 0 && len > 0 {
                if let Some(i) = self.drop_once.iter().position(|&s| s == seq) {
                    self.drop_once.remove(i);
                    self.dropped.push(seq);
                    continue;
                }
            }
            let mut delay = self.one_way;
            if from == 0 && len > 0 {
                if let Some(i) = self.delay_once.iter().position(|&(s, _)| s == seq) {
                    delay = delay + Duration(self.delay_once.remove(i).1 * MS);
                }
            }
            self.log.push((now, from, h, len));
            self.ecn_log.push(p.ecn);
            if from == 0 && len > 0 && p.ecn != crate::net::pdu::ecn::NOT_ECT {
                if let Some(i) = self.mark_once.iter().position(|&s| s == seq) {
                    self.mark_once.remove(i);
                    p.ecn = crate::net::pdu::ecn::CE;
                }
            }
            let mut at = now + delay;
            // Spacing keeps data segments in order; without it a delayed
            // one may be overtaken.
            if from == 0 && len > 0 && self.spacing.ps() > 0 {
                at = at.max(self.last_arrival + self.spacing);
                self.last_arrival = at;
            }
            self.wire.push((at, 1 - from, p));
        }
    }

    fn service(&mut self, now: Time) {
        let [a, b] = &mut self.s;
        self.app.service(now, a, b);
        for side in 0..2 {
            let mut out = vec![];
            self.s[side].output(now, &mut out);
            self.emit(now, side, &mut out);
        }
    }

    fn run_until(&mut self, end: Time) {
        loop {
            let next_wire = self.wire.iter().map(|w| w.0).min().unwrap_or(Time::NEVER);
            let next_timer = self.s[0].poll_at().min(self.s[1].poll_at());
            let now = next_wire.min(next_timer);
            if now >= end {
                return;
            }
            for side in 0..2 {
                if self.s[side].poll_at() <= now {
                    let mut out = vec![];
                    self.s[side].poll(now, &mut out);
                    self.emit(now, side, &mut out);
                }
            }
            while let Some(i) = self.wire.iter().position(|w| w.0 == now) {
                let (_, to, p) = self.wire.remove(i);
                let mut out = vec![];
                self.s[to].on_segment(now, &p, &mut out);
                self.emit(now, to, &mut out);
                // As in the simulator: each arrival is its own event.
                self.service(now);
            }
            self.service(now);
        }
    }
}

fn cfg(variant: Variant, delayed_ack: bool) -> TcpConfig {
    TcpConfig {
        variant,
        delayed_ack,
        header: 40,
        mss: 1000,
        initial_window_segments: 2,
        send_buffer: 1 << 20,
        receive_buffer: 1 << 20,
        ..TcpConfig::default_newreno()
    }
}

#[test]
fn handshake_then_data_one_rtt_later() {
    let mut p = Pair::new(
        cfg(Variant::NewReno, true),
        50,
        AppKind::Bulk { bytes: Some(1000) },
    );
    p.run_until(Time(1000 * MS));
    let syn = p.log[0];
    assert_eq!(syn.2.flags, TCP_SYN);
    assert_eq!(syn.2.wscale, 5); // 1 MiB needs 65535 << 5
    let syn_ack = p.log[1];
    assert_eq!(
        (syn_ack.0, syn_ack.1, syn_ack.2.flags),
        (Time(50 * MS), 1, TCP_SYN | TCP_ACK)
    );
    let first_data = p.log.iter().find(|l| l.3 > 0).unwrap();
    assert_eq!((first_data.0, first_data.1), (Time(100 * MS), 0));
    assert_eq!(p.s[1].delivered, 1000);
    // Samples: 100 ms from the SYN, then 300 ms for the lone segment
    // (sent at 100 ms, ACK delayed 200 ms, back at 400 ms):
    // SRTT = 7/8·100 + 1/8·300 = 125 ms (RFC 6298 §2.3).
    assert_eq!(p.s[0].srtt(), Some(Duration(125 * MS)));
}

#[test]
fn a_lone_segment_is_acked_after_the_delayed_ack_timeout() {
    let mut p = Pair::new(
        cfg(Variant::NewReno, true),
        50,
        AppKind::Bulk { bytes: Some(1000) },
    );
    p.run_until(Time(1000 * MS));
    let ack = p
        .log
        .iter()
        .rfind(|l| l.1 == 1 && l.2.flags == TCP_ACK)
        .unwrap();
    // Data arrives at 150 ms; the ACK waits the 200 ms delayed-ACK timer.
    assert_eq!(ack.0, Time(350 * MS));
}

#[test]
fn every_second_segment_is_acked_at_once() {
    let mut p = Pair::new(
        cfg(Variant::NewReno, true),
        50,
        AppKind::Bulk { bytes: Some(2000) },
    );
    p.run_until(Time(1000 * MS));
    let acks: Vec<_> = p
        .log
        .iter()
        .filter(|l| l.1 == 1 && l.2.flags == TCP_ACK)
        .collect();
    assert_eq!(acks.len(), 1);
    assert_eq!(acks[0].0, Time(150 * MS));
    assert_eq!(acks[0].2.ack, 2000);
}

#[test]
fn advertised_window_is_scaled() {
    let p = Pair::new(
        cfg(Variant::NewReno, true),
        50,
        AppKind::Bulk { bytes: None },
    );
    let h = *p.s[1]
        .segment(Time::ZERO, 0, 0, TCP_ACK)
        .header
        .tcp()
        .expect("a TCP segment");
    assert_eq!((h.window as u64) << 5, (1u64 << 20) & !31);
}

fn one_loss(variant: Variant) -> Pair {
    let mut p = Pair::new(
        cfg(variant, false),
        50,
        AppKind::Bulk {
            bytes: Some(100_000),
        },
    );
    p.drop_once = vec![20_000];
    p.run_until(Time(20_000 * MS));
    assert_eq!(p.s[1].delivered, 100_000);
    p
}

#[test]
fn newreno_repairs_one_loss_by_fast_retransmit() {
    let p = one_loss(Variant::NewReno);
    assert_eq!(p.s[0].stats.fast_retransmits, 1);
    assert_eq!(p.s[0].stats.timeouts, 0);
    assert_eq!(p.s[0].stats.retransmissions, 1);
}

/// RFC 3042 §2: the two segments Limited Transmit sends on the first
/// duplicate ACKs are not part of FlightSize when ssthresh is set, so
/// the ssthresh of a fast retransmit is the same with and without it:
/// half the window that was in flight when the loss happened.
#[test]
fn ssthresh_leaves_out_limited_transmit_segments() {
    for v in [Variant::Reno, Variant::NewReno, Variant::Sack] {
        let ssthresh = |limited_transmit: bool| {
            let c = TcpConfig {
                limited_transmit,
                initial_ssthresh: Some(16_000),
                ..cfg(v, false)
            };
            let mut p = Pair::new(c, 50, AppKind::Bulk { bytes: None });
            // Dropped in congestion avoidance with cwnd near 16 segments.
            p.drop_once = vec![60_000];
            p.run_until(Time(2_000 * MS));
            assert_eq!(p.s[0].stats.fast_retransmits, 1);
            let sent_after_loss = p
                .log
                .iter()
                .filter(|l| l.1 == 0 && l.3 > 0 && l.2.seq as u64 > 60_000)
                .count();
            (p.s[0].ssthresh(), sent_after_loss)
        };
        let (with_lt, _) = ssthresh(true);
        let (without_lt, _) = ssthresh(false);
        assert_eq!(with_lt, without_lt, "{v:?}");
        // Half of a window of 16 to 18 whole segments.
        assert!((8_000..=9_000).contains(&with_lt), "{v:?}: {with_lt}");
    }
}

#[test]
fn tahoe_waits_for_the_timer() {
    let p = one_loss(Variant::Tahoe);
    assert_eq!(p.s[0].stats.fast_retransmits, 0);
    assert_eq!(p.s[0].stats.timeouts, 1);
    assert!(p.s[0].cwnd() < 20_000);
}

#[test]
fn newreno_and_sack_repair_three_losses_in_one_window_without_timeout() {
    for (v, prr) in [Variant::NewReno, Variant::Sack]
        .map(|v| [(v, false), (v, true)])
        .concat()
    {
        let mut p = Pair::new(
            TcpConfig {
                prr,
                ..cfg(v, false)
            },
            50,
            AppKind::Bulk {
                bytes: Some(200_000),
            },
        );
        p.drop_once = vec![30_000, 33_000, 36_000];
        p.run_until(Time(20_000 * MS));
        assert_eq!(p.s[1].delivered, 200_000, "{v:?} {prr}");
        assert_eq!(p.s[0].stats.timeouts, 0, "{v:?} {prr}");
        assert_eq!(p.s[0].stats.fast_retransmits, 1, "{v:?} {prr}");
        assert_eq!(p.s[0].stats.retransmissions, 3, "{v:?} {prr}");
    }
}

#[test]
fn request_response_round_trip() {
    let mut p = Pair::new(
        cfg(Variant::NewReno, true),
        50,
        AppKind::RequestResponse {
            request: 1,
            response: 1,
            count: Some(10),
            warmup: 0,
        },
    );
    p.run_until(Time(5_000 * MS));
    assert_eq!(p.app.completed, 10);
    // The first transaction includes the handshake; the others one RTT.
    let mean = p.app.transaction_times.mean();
    assert!((mean - (0.1 + 0.1 / 10.0)).abs() < 1e-9, "{mean}");
}

// ----- congestion window validation (cwv.rs) -----

/// A SACK connection whose cwnd has grown in a 200 kB bulk transfer, under
/// `mode`; no delayed ACKs, 100 ms RTT. Also the time in ms when the last
/// byte was acknowledged.
fn grown(mode: cwv::Mode) -> (Pair, u64) {
    let c = TcpConfig {
        cwnd_validation: mode,
        ..cfg(Variant::Sack, false)
    };
    let mut p = Pair::new(
        c,
        50,
        AppKind::Bulk {
            bytes: Some(200_000),
        },
    );
    let mut done_ms = 0;
    while p.s[1].delivered < 200_000 || !p.s[0].all_acked() {
        done_ms += 10;
        p.run_until(Time(done_ms * MS));
    }
    assert!(p.s[0].cwnd() >= 60_000, "{}", p.s[0].cwnd());
    (p, done_ms)
}

/// The application writes `bytes` every 200 ms (two round trips, so
/// each burst is acknowledged before the next) from `from_ms`, `n` times.
fn rate_limited(p: &mut Pair, from_ms: u64, n: u64, bytes: u64) {
    for i in 0..n {
        let t = Time((from_ms + 200 * i) * MS);
        p.run_until(t);
        p.s[0].write(bytes);
        p.service(t);
    }
    p.run_until(Time((from_ms + 200 * n) * MS));
}

#[test]
fn after_idle_cwnd_restarts_decays_or_is_kept() {
    let after_idle = |mode| {
        let (mut p, _) = grown(mode);
        let before = (p.s[0].cwnd(), p.s[0].ssthresh());
        let idle_from = p.s[0].last_send;
        let t = Time(5_000 * MS);
        p.run_until(t);
        p.s[0].write(1000);
        p.service(t);
        let rto = p.s[0].rto();
        (
            before,
            (p.s[0].cwnd(), p.s[0].ssthresh()),
            t.since(idle_from),
            rto,
        )
    };
    // RFC 5681 §4.1: back to IW.
    let ((c0, _), (c, _), _, _) = after_idle(cwv::Mode::Off);
    assert_eq!(c, 2_000, "from {c0}");
    // RFC 2861: halved once per RTO idle, not below IW; ssthresh ≥ 3/4·cwnd.
    let ((c0, s0), (c, s), idle, rto) = after_idle(cwv::Mode::Rfc2861);
    let halvings = idle.ps() / rto.ps();
    assert!(halvings >= 2, "idle {idle:?}, rto {rto:?}");
    assert_eq!(c, (c0 >> halvings).max(2_000));
    assert_eq!(s, s0.max(3 * c0 / 4));
    // RFC 7661: kept (well within the five-minute NVP).
    let ((c0, s0), (c, s), _, _) = after_idle(cwv::Mode::Rfc7661);
    assert_eq!((c, s), (c0, s0));
}

#[test]
fn an_application_limited_sender_keeps_or_decays_its_window() {
    // Three segments every two RTTs for 6 s, against a window of 60+
    // segments.
    let limited = |mode| {
        let (mut p, done) = grown(mode);
        let c0 = p.s[0].cwnd();
        rate_limited(&mut p, done, 30, 3_000);
        assert_eq!(p.s[1].delivered, 200_000 + 90_000);
        (c0, p.s[0].cwnd())
    };
    // Not cwnd-limited: no growth, no decay.
    let (c0, c) = limited(cwv::Mode::Off);
    assert_eq!(c, c0);
    // RFC 2861: half way to the 3 segments used, once per RTT sent
    // application-limited.
    let (c0, c) = limited(cwv::Mode::Rfc2861);
    assert!(c < 4_000, "{c0} -> {c}");
    assert!(c >= 3_000, "{c0} -> {c}");
    // RFC 7661: while the bulk transfer's samples (half of cwnd) are in
    // pipeACK's sampling period (1 s) the window is validated and grows;
    // then pipeACK is 3 segments < cwnd/2, the non-validated phase, where
    // cwnd is neither grown nor cut before the NVP ends.
    let (mut p, done) = grown(cwv::Mode::Rfc7661);
    let c0 = p.s[0].cwnd();
    rate_limited(&mut p, done, 10, 3_000);
    let c1 = p.s[0].cwnd();
    assert!(c1 >= c0, "{c0} -> {c1}");
    rate_limited(&mut p, done + 2_000, 20, 3_000);
    assert_eq!(p.s[0].cwnd(), c1);
}

#[test]
fn rfc7661_loss_in_the_non_validated_phase() {
    // Eight segments every two RTTs, pipeACK = 8 segments; the first of
    // the 13th burst is lost, seven duplicate ACKs follow.
    let after_loss = |mode| {
        let (mut p, done) = grown(mode);
        p.drop_once = vec![200_000 + 12 * 8_000];
        rate_limited(&mut p, done, 20, 8_000);
        assert_eq!(p.s[0].stats.fast_retransmits, 1);
        assert_eq!(p.s[0].stats.timeouts, 0);
        assert_eq!(p.s[1].delivered, 200_000 + 160_000);
        p
    };
    // RFC 6675: ssthresh = cwnd = FlightSize/2 at the end of recovery.
    let off = after_loss(cwv::Mode::Off);
    assert_eq!(off.s[0].ssthresh(), 4_000);
    // RFC 7661 §4.4.1: (max(pipeACK, LossFlightSize) − R)/2 with R one
    // segment, and pipeACK starts again undefined (validated).
    let new = after_loss(cwv::Mode::Rfc7661);
    assert_eq!(new.s[0].ssthresh(), 3_500);
}

/// One loss in congestion avoidance at a window of 20 segments (100 ms
/// RTT, no delayed ACKs), stepped 1 ms at a time: the sender's segments
/// (time in ms, offset, retransmission) during the fast recovery, the
/// recovery's start (ms), and cwnd, ssthresh and flight as it ended.
struct Recovered {
    sends: Vec<(u64, u64, bool)>,
    start: u64,
    cwnd: u64,
    ssthresh: u64,
    flight: u64,
}

fn recover_one_loss(variant: Variant, prr: bool, recovery: LossDetection) -> Recovered {
    let c = TcpConfig {
        prr,
        recovery,
        initial_window_segments: 20,
        initial_ssthresh: Some(20_000),
        ..cfg(variant, false)
    };
    let mut p = Pair::new(c, 50, AppKind::Bulk { bytes: None });
    p.spacing = Duration(MS); // 8 Mb/s: ACKs 1 ms apart
    p.drop_once = vec![40_000];
    let (mut start, mut end, mut at_end) = (None, None, (0, 0, 0));
    for ms in 1..3_000 {
        p.run_until(Time(ms * MS));
        let s = &p.s[0];
        if start.is_none() && s.in_recovery() {
            start = Some(ms - 1);
        } else if start.is_some() && end.is_none() && !s.in_recovery() {
            end = Some(ms - 1);
            at_end = (s.cwnd(), s.ssthresh(), s.flight());
        }
    }
    let (start, end) = (start.unwrap(), end.unwrap());
    let mut highest = 0;
    let mut sends = vec![];
    for l in p.log.iter().filter(|l| l.1 == 0 && l.3 > 0) {
        let (t, seq) = (l.0 .0 / MS, l.2.seq as u64);
        if (start..end).contains(&t) {
            sends.push((t, seq, seq < highest));
        }
        highest = highest.max(seq + l.3 as u64);
    }
    Recovered {
        sends,
        start,
        cwnd: at_end.0,
        ssthresh: at_end.1,
        flight: at_end.2,
    }
}

/// RFC 6937: PRR spreads the reduction over the recovery's round trip
/// (new data on about every other ACK from the start) where RFC 6675 and
/// RFC 5681's inflation wait half a round trip in silence; it sends
/// ssthresh in all (the retransmission included), and recovery ends with
/// cwnd = ssthresh and about ssthresh in flight. The same holds when
/// RACK-TLP finds the loss (Linux's combination).
#[test]
fn prr_spreads_the_reduction_and_ends_at_ssthresh() {
    let cases = [
        (Variant::Reno, LossDetection::Rfc6675),
        (Variant::NewReno, LossDetection::Rfc6675),
        (Variant::Sack, LossDetection::Rfc6675),
        (Variant::Sack, LossDetection::RackTlp),
    ];
    for (v, recovery) in cases {
        for prr in [false, true] {
            let r = recover_one_loss(v, prr, recovery);
            // The duplicate ACKs return over the first ~21 ms (1 ms apart).
            let early = r
                .sends
                .iter()
                .filter(|s| !s.2 && s.0 < r.start + 10)
                .count();
            if !prr {
                assert_eq!(early, 0, "{v:?}: {:?}", r.sends);
                continue;
            }
            assert!(early >= 3, "{v:?}: {:?}", r.sends);
            let mut gaps = r.sends.windows(2).take(7).map(|w| w[1].0 - w[0].0);
            assert!(gaps.all(|g| g <= 3), "{v:?}: {:?}", r.sends);
            assert_eq!(
                r.sends.len() as u64,
                r.ssthresh / 1000,
                "{v:?}: {:?}",
                r.sends
            );
            assert_eq!(r.cwnd, r.ssthresh, "{v:?}");
            assert!(
                r.flight <= r.ssthresh && r.flight + 1000 > r.ssthresh,
                "{v:?}"
            );
        }
    }
}

mod ecn;
mod rack_tlp;

#[test]
fn hybla_takes_rho_from_the_handshake() {
    // 40 ms RTT: the SYN's sample gives 12 eighths at RTT0 = 25 ms. The lone
    // data segment's ACK, held by the delayed-ACK timer, raises SRTT to
    // 7/8·40 + 1/8·240 = 65 ms, which alone would give 20 eighths.
    let mut c = cfg(Variant::Sack, true);
    c.congestion_control = congestion::Kind::Hybla;
    let mut p = Pair::new(c, 20, AppKind::Bulk { bytes: Some(1000) });
    p.run_until(Time(1000 * MS));
    assert_eq!(p.s[1].delivered, 1000);
    assert_eq!(p.s[0].srtt(), Some(Duration(65 * MS)));
    let Controller::Hybla(h) = &p.s[0].cc else {
        panic!("not Hybla")
    };
    assert_eq!(h.rho8(), 12);
}
