//! ECN in the socket (RFC 3168 §6.1): negotiation, ECT on new data only,
//! the receiver's echo until CWR, and the sender's one reduction per
//! window, taken from the controller's loss response.

use super::*;
use crate::net::pdu::{ecn, TCP_CWR, TCP_ECE};
use crate::transport::tcp::congestion::Kind;

fn ecn_cfg(cc: Kind, delayed_ack: bool) -> TcpConfig {
    TcpConfig {
        ecn: true,
        congestion_control: cc,
        ..cfg(Variant::NewReno, delayed_ack)
    }
}

const BYTES: u64 = 400_000;

/// A bulk transfer over 50 ms each way, data segments 1 ms apart at the
/// receiver, the segments at `marks` CE-marked on their way.
fn pair(c: TcpConfig, marks: &[u64]) -> Pair {
    let mut p = Pair::new(c, 50, AppKind::Bulk { bytes: Some(BYTES) });
    p.spacing = Duration(MS);
    p.mark_once = marks.to_vec();
    p
}

fn run(c: TcpConfig, marks: &[u64]) -> Pair {
    let mut p = pair(c, marks);
    p.run_until(Time(20_000 * MS));
    assert_eq!(p.s[1].delivered, BYTES);
    p
}

fn is_data(l: &(Time, usize, TcpHeader, u32)) -> bool {
    l.1 == 0 && l.3 > 0
}

#[test]
fn the_handshake_negotiates_and_only_new_data_is_ect() {
    let p = run(ecn_cfg(Kind::Reno, true), &[]);
    assert_eq!(p.log[0].2.flags, TCP_SYN | TCP_ECE | TCP_CWR);
    assert_eq!(p.log[1].2.flags, TCP_SYN | TCP_ACK | TCP_ECE);
    assert!(p.s[0].ecn.on() && p.s[1].ecn.on());
    for (l, &field) in p.log.iter().zip(&p.ecn_log) {
        let want = if is_data(l) { ecn::ECT0 } else { ecn::NOT_ECT };
        assert_eq!(field, want, "{l:?}");
        assert_eq!(
            l.2.flags & (TCP_ECE | TCP_CWR) != 0,
            l.2.flags & TCP_SYN != 0
        );
    }
    // A peer that does not offer ECN gets none: Not-ECT data.
    let mut q = Pair::new(
        cfg(Variant::NewReno, true),
        50,
        AppKind::Bulk { bytes: Some(1000) },
    );
    q.s[1] = TcpSocket::new(
        ecn_cfg(Kind::Reno, true),
        q.s[1].endpoint,
        false,
        Time::ZERO,
        0,
    );
    q.run_until(Time(2000 * MS));
    assert_eq!(q.s[1].delivered, 1000);
    assert_eq!(q.log[1].2.flags, TCP_SYN | TCP_ACK);
    assert!(!q.s[1].ecn.on());
    assert!(q.ecn_log.iter().all(|&f| f == ecn::NOT_ECT));
}

/// What the controller's loss response leaves from this FlightSize.
fn loss_response(cc: Kind, flight: u64, mss: u64) -> u64 {
    match cc {
        Kind::Cubic => ((flight as f64 * 0.7) as u64).max(2 * mss),
        _ => (flight / 2).max(2 * mss),
    }
}

#[test]
fn one_mark_one_reduction_no_retransmission_cwr_then_no_echo() {
    const MARK: u64 = 30_000;
    for cc in [Kind::Reno, Kind::Cubic, Kind::Hybla] {
        // A 64 KB receive window keeps Hybla's fast growth from sending
        // everything before the mark is echoed.
        let c = TcpConfig {
            receive_buffer: 65_536,
            ..ecn_cfg(cc, false)
        };
        let p = run(c.clone(), &[MARK]);
        let st = &p.s[0].stats;
        assert_eq!(st.ecn_reductions, 1, "{cc:?}");
        assert_eq!(
            (st.retransmissions, st.fast_retransmits, st.timeouts),
            (0, 0, 0)
        );
        assert_eq!(p.s[1].stats.ce_marks_received, 1);

        // The first ECE: sent by the receiver at `t`, at the sender 50 ms
        // later. Stop a second run just before it to see the flight.
        let ece = p
            .log
            .iter()
            .find(|l| l.1 == 1 && l.2.flags & (TCP_ECE | TCP_SYN) == TCP_ECE)
            .unwrap();
        assert_eq!(
            ece.2.ack as u64,
            MARK + 1000,
            "{cc:?}: the marked segment's ACK"
        );
        let arrival = Time(ece.0 .0 + 50 * MS);
        let mut q = pair(c, &[MARK]);
        q.run_until(arrival);
        assert_eq!(q.s[0].stats.ecn_reductions, 0);
        let flight = q.s[0].snd_max - ece.2.ack as u64;
        q.run_until(Time(arrival.0 + 1));
        let want = loss_response(cc, flight, 1000);
        assert_eq!(q.s[0].stats.ecn_reductions, 1);
        assert_eq!((q.s[0].ssthresh, q.s[0].cwnd), (want, want), "{cc:?}");

        // CWR on the first data segment sent after the reduction, and on
        // no other; ECE on every ACK from the mark until CWR arrives.
        let cwr: Vec<_> = p
            .log
            .iter()
            .filter(|l| l.2.flags & TCP_CWR != 0 && l.2.flags & TCP_SYN == 0)
            .collect();
        assert_eq!(cwr.len(), 1, "{cc:?}");
        let first_after = p.log.iter().find(|l| is_data(l) && l.0 >= arrival).unwrap();
        assert_eq!(cwr[0].0, first_after.0);
        assert_eq!(cwr[0].2.seq, first_after.2.seq);
        let cwr_ack = cwr[0].2.seq as u64 + 1000;
        for l in p
            .log
            .iter()
            .filter(|l| l.1 == 1 && l.2.flags & TCP_SYN == 0)
        {
            let echoing = l.2.ack as u64 > MARK && (l.2.ack as u64) < cwr_ack;
            assert_eq!(l.2.flags & TCP_ECE != 0, echoing, "{cc:?} {l:?}");
        }
    }
}

#[test]
fn ecn_beta_sets_the_reduction_instead_of_the_controller() {
    const MARK: u64 = 30_000;
    for cc in [Kind::Reno, Kind::Cubic] {
        let c = TcpConfig {
            ecn_beta: Some(0.8),
            ..ecn_cfg(cc, false)
        };
        let p = run(c.clone(), &[MARK]);
        assert_eq!(p.s[0].stats.ecn_reductions, 1);
        let ece = p
            .log
            .iter()
            .find(|l| l.1 == 1 && l.2.flags & (TCP_ECE | TCP_SYN) == TCP_ECE)
            .unwrap();
        let arrival = Time(ece.0 .0 + 50 * MS);
        let mut q = pair(c, &[MARK]);
        q.run_until(arrival);
        let flight = q.s[0].snd_max - ece.2.ack as u64;
        q.run_until(Time(arrival.0 + 1));
        let want = ((flight as f64 * 0.8) as u64).max(2000);
        assert_eq!((q.s[0].ssthresh, q.s[0].cwnd), (want, want), "{cc:?}");
    }
}

#[test]
fn two_marks_in_one_window_reduce_once_in_two_windows_twice() {
    let p = run(ecn_cfg(Kind::Reno, false), &[30_000, 33_000]);
    assert_eq!(p.s[0].stats.ecn_reductions, 1);
    assert_eq!(p.s[1].stats.ce_marks_received, 2);
    let p = run(ecn_cfg(Kind::Reno, false), &[20_000, 80_000]);
    assert_eq!(p.s[0].stats.ecn_reductions, 2);
    assert_eq!(p.s[0].stats.retransmissions, 0);
}

#[test]
fn a_mark_is_acknowledged_at_once_despite_delayed_acks() {
    // Without marks the ACK for segment 20 covers 21 as well (every
    // second segment); a mark on 20 has it acknowledged alone, at once.
    const MARK: u64 = 20_000;
    let plain = run(ecn_cfg(Kind::Reno, true), &[]);
    assert!(plain
        .log
        .iter()
        .any(|l| l.1 == 1 && l.2.ack as u64 == MARK + 2000));
    assert!(!plain
        .log
        .iter()
        .any(|l| l.1 == 1 && l.2.ack as u64 == MARK + 1000));
    let p = run(ecn_cfg(Kind::Reno, true), &[MARK]);
    let ece = p
        .log
        .iter()
        .find(|l| l.1 == 1 && l.2.flags & (TCP_ECE | TCP_SYN) == TCP_ECE)
        .unwrap();
    assert_eq!(ece.2.ack as u64, MARK + 1000);
}

#[test]
fn bbr_ignores_ece() {
    for cc in [Kind::Bbr, Kind::Bbr3] {
        let p = run(ecn_cfg(cc, false), &[30_000]);
        assert_eq!(p.s[1].stats.ce_marks_received, 1);
        assert_eq!(p.s[0].stats.ecn_reductions, 0, "{cc:?}");
    }
}

#[test]
fn without_ecn_nothing_changes() {
    let a = run(cfg(Variant::NewReno, false), &[]);
    let mut c = cfg(Variant::NewReno, false);
    c.ecn = false;
    let b = run(c, &[30_000]);
    assert_eq!(a.log, b.log);
    assert!(b.ecn_log.iter().all(|&f| f == ecn::NOT_ECT));
    assert_eq!(b.s[1].stats.ce_marks_received, 0);
}

/// L4S mode (RFC 8257 §3.2's echo): with delayed ACKs, every ACK covers
/// only segments of one CE state and carries ECE exactly when they were
/// marked, so the bytes acknowledged with ECE are the marked ones; new
/// data leaves ECT(1) and no CWR is sent.
#[test]
fn l4s_echo_reports_each_marked_byte_with_delayed_acks() {
    let mut c = ecn_cfg(Kind::Reno, true);
    c.ecn_l4s = true;
    let mss = c.mss as u64;
    // Isolated marks at odd and even places, and a run of three.
    let marked = [5, 8, 9, 10, 21, 40];
    let marks: Vec<u64> = marked.iter().map(|i| i * mss).collect();
    let p = run(c, &marks);
    for (l, &field) in p.log.iter().zip(&p.ecn_log) {
        if is_data(l) && field != ecn::NOT_ECT {
            assert!(field == ecn::ECT1 || field == ecn::CE, "{l:?}");
        }
        assert_eq!(
            l.2.flags & TCP_CWR != 0,
            l.2.flags & TCP_SYN != 0 && l.1 == 0
        );
    }
    let syn_ack = p.log.iter().find(|l| l.1 == 1).unwrap();
    assert!(syn_ack.2.flags & TCP_SYN != 0);
    let (mut prev, mut echoed, mut acks) = (0, 0, 0);
    for l in p
        .log
        .iter()
        .filter(|l| l.1 == 1 && l.2.flags & TCP_SYN == 0)
    {
        let rel = u64::from(l.2.ack.wrapping_sub(syn_ack.2.ack));
        if rel <= prev {
            continue;
        }
        let ece = l.2.flags & TCP_ECE != 0;
        let covered: Vec<u64> = (prev / mss..rel.div_ceil(mss)).collect();
        assert!(
            covered.iter().all(|i| marked.contains(i) == ece),
            "ACK to {rel} (ECE {ece}) covers segments {covered:?}"
        );
        echoed += if ece { rel - prev } else { 0 };
        acks += 1;
        prev = rel;
    }
    assert_eq!(echoed, 6 * mss);
    // Delayed ACKs were in force: fewer ACKs than segments.
    assert!(acks < BYTES / mss, "{acks}");
    assert!(p.s[0].stats.ecn_reductions >= 1);
    assert_eq!(p.s[0].stats.retransmissions, 0);
}
