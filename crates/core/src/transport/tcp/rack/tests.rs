//! RACK-TLP's state machine on hand-built send and ACK sequences, after
//! the behaviours RFC 8985 describes (§3's examples, §6.2, §6.3, §7).

use super::*;

const MS: u64 = 1_000_000_000;
const SEG: u64 = 1000;

fn t(ms: u64) -> Time {
    Time(ms * MS)
}

fn ms(ms: u64) -> Duration {
    Duration(ms * MS)
}

/// Sends segments `first..=last` (numbered from 1) at `at`.
fn send(r: &mut Rack, at: Time, first: u64, last: u64) {
    for n in first..=last {
        r.on_send(at, (n - 1) * SEG, SEG, false);
    }
}

fn resend(r: &mut Rack, at: Time, n: u64) {
    r.on_send(at, (n - 1) * SEG, SEG, true);
}

/// SACK block covering segments `first..=last`.
fn block(first: u64, last: u64) -> (u64, u64) {
    ((first - 1) * SEG, last * SEG)
}

fn ack(r: &mut Rack, at: Time, cum: u64, sack: &[(u64, u64)], in_recovery: bool) -> ProbeVerdict {
    let sacked_segments = sack.iter().map(|(s, e)| (e - s.max(&cum)) / SEG).sum();
    r.on_ack(&AckInfo {
        now: at,
        ack: cum,
        sack,
        pure_dup: false,
        in_recovery,
        sacked_segments,
        srtt: Some(ms(100)),
    })
}

fn lost(r: &Rack) -> Vec<u64> {
    r.lost.iter().map(|s| s / SEG + 1).collect()
}

#[test]
fn a_segment_sent_before_a_delivered_one_is_lost_after_rtt_plus_reo_wnd() {
    // P1 and P2 leave together; P2 is SACKed one RTT later. With one
    // segment SACKed and no reordering seen, reo_wnd = min_RTT/4 = 25 ms:
    // P1 is not lost yet, and the timer is set for the moment it would be.
    let mut r = Rack::new();
    send(&mut r, t(0), 1, 2);
    ack(&mut r, t(100), 0, &[block(2, 2)], false);
    assert!(lost(&r).is_empty());
    assert_eq!(r.poll_at(), t(125));
    assert_eq!(r.poll(t(124), ms(25)), None);
    assert_eq!(r.poll(t(125), ms(25)), Some(Due::Reordering));
    assert_eq!(lost(&r), vec![1]);
    assert_eq!(r.next_lost(), Some((0, SEG)));
    assert_eq!(r.pipe(), 0, "P1 lost, P2 SACKed: nothing in the network");
}

#[test]
fn reordering_within_the_window_is_not_marked_lost() {
    // P1 arrives 10 ms after P2, within reo_wnd: never lost, and RACK
    // notes the reordering (P1 delivered below RACK.fack, never resent).
    let mut r = Rack::new();
    send(&mut r, t(0), 1, 2);
    ack(&mut r, t(100), 0, &[block(2, 2)], false);
    ack(&mut r, t(110), 2 * SEG, &[], false);
    assert!(lost(&r).is_empty());
    assert!(r.reordering_seen);
    assert_eq!(r.poll_at(), Time::NEVER, "nothing left to wait for");
    // From now on the window stays min_RTT/4 even in recovery.
    assert_eq!(r.reo_wnd(true, 5, Some(ms(100))), ms(25));
}

#[test]
fn dupthresh_sacked_segments_mark_loss_at_once_without_reordering() {
    // §6.2 step 4: no reordering seen and DupThresh segments SACKed:
    // reo_wnd = 0, so P1 is lost on the ACK that SACKs P2..P4.
    let mut r = Rack::new();
    send(&mut r, t(0), 1, 4);
    ack(&mut r, t(100), 0, &[block(2, 4)], false);
    assert_eq!(lost(&r), vec![1]);
    assert_eq!(r.reo_wnd(false, 3, Some(ms(100))), Duration::ZERO);
    assert_eq!(r.reo_wnd(true, 0, Some(ms(100))), Duration::ZERO);
    assert_eq!(r.reo_wnd(false, 2, Some(ms(100))), ms(25));
    // Capped at SRTT.
    assert_eq!(r.reo_wnd(false, 2, Some(ms(10))), ms(10));
}

#[test]
fn a_lost_retransmission_is_detected_without_the_timer() {
    // RFC 8985 §3's lost-retransmission case: P1 lost, P2..P10 SACKed at
    // 100 ms, so P1 is lost and resent at 100 ms together with new P11.
    // The retransmission is lost too; P11's SACK at 200 ms shows a segment
    // sent with (and after) it delivered one RTT later: P1 is lost again.
    let mut r = Rack::new();
    send(&mut r, t(0), 1, 10);
    ack(&mut r, t(100), 0, &[block(2, 10)], true);
    assert_eq!(lost(&r), vec![1]);
    resend(&mut r, t(100), 1);
    send(&mut r, t(100), 11, 11);
    assert!(lost(&r).is_empty());
    assert_eq!(r.pipe(), 2 * SEG);
    ack(&mut r, t(200), 0, &[block(2, 11)], true);
    assert_eq!(lost(&r), vec![1], "the retransmission is deemed lost");
    assert_eq!(r.pipe(), 0);
    resend(&mut r, t(200), 1);
    ack(&mut r, t(300), 11 * SEG, &[], true);
    assert!(!r.has_lost() && r.segs.is_empty() && r.pipe() == 0);
}

#[test]
fn a_retransmission_acked_sooner_than_min_rtt_does_not_move_rack() {
    // The ACK of a resent segment that returns within min_RTT acknowledges
    // the original: its RTT sample is ambiguous and RACK ignores it.
    let mut r = Rack::new();
    send(&mut r, t(0), 1, 2);
    ack(&mut r, t(100), SEG, &[], false);
    resend(&mut r, t(150), 2);
    ack(&mut r, t(160), 2 * SEG, &[], false);
    let l = r.latest.unwrap();
    assert_eq!((l.xmit_ts, l.end, l.rtt), (t(0), SEG, ms(100)));
}

#[test]
fn segments_sent_after_the_latest_delivered_are_never_marked() {
    let mut r = Rack::new();
    send(&mut r, t(0), 1, 2);
    send(&mut r, t(50), 3, 5);
    ack(&mut r, t(100), 0, &[block(2, 2)], true); // reo_wnd 0 in recovery
    assert_eq!(lost(&r), vec![1]);
    assert_eq!(r.poll_at(), Time::NEVER);
    assert_eq!(r.pipe(), 3 * SEG);
}

#[test]
fn a_timeout_marks_the_first_segment_and_those_older_than_rtt_plus_reo_wnd() {
    // §6.3.
    let mut r = Rack::new();
    send(&mut r, t(0), 1, 1);
    ack(&mut r, t(100), SEG, &[], false); // RACK.rtt = 100 ms
    send(&mut r, t(100), 2, 3);
    send(&mut r, t(300), 4, 4);
    r.on_rto(t(350), ms(25));
    assert_eq!(lost(&r), vec![2, 3], "sent 250 ms ago (> 125 ms)");
    r.on_rto(t(420), ms(25));
    assert_eq!(lost(&r), vec![2, 3], "P4 sent 120 ms ago, not the first");
    let mut r2 = Rack::new();
    send(&mut r2, t(0), 1, 2);
    r2.on_rto(t(10), ms(25));
    assert_eq!(lost(&r2), vec![1], "the first is lost whatever its age");
}

#[test]
fn retransmissions_split_segments_that_straddle_them() {
    let mut r = Rack::new();
    r.on_send(t(0), 0, 3000, false);
    r.on_send(t(10), 1000, 1000, true);
    assert_eq!(r.pipe(), 4000);
    ack(&mut r, t(100), 500, &[(2000, 3000)], false);
    assert_eq!(r.segs.len(), 2);
    assert_eq!(r.segs[&500].end, 1000);
    assert_eq!(r.segs[&1000].end, 2000);
}

#[test]
fn the_probe_timeout_is_two_srtt_plus_the_delayed_ack_for_one_segment() {
    // §7.2.
    let mut r = Rack::new();
    r.arm_pto(t(0), Some(ms(100)), false, t(1000));
    assert_eq!(r.poll_at(), t(200));
    r.arm_pto(t(0), Some(ms(100)), true, t(1000));
    assert_eq!(r.poll_at(), t(400));
    r.arm_pto(t(0), Some(ms(600)), false, t(1000));
    assert_eq!(r.poll_at(), t(1000), "never after the RTO");
    r.arm_pto(t(0), None, false, t(3000));
    assert_eq!(r.poll_at(), t(1000));
    assert_eq!(r.poll(t(1000), ms(0)), Some(Due::Probe));
}

fn probe_ack(r: &mut Rack, at: Time, cum: u64, pure_dup: bool) -> ProbeVerdict {
    r.on_ack(&AckInfo {
        now: at,
        ack: cum,
        sack: &[],
        pure_dup,
        in_recovery: false,
        sacked_segments: 0,
        srtt: Some(ms(100)),
    })
}

#[test]
fn one_probe_per_flight_and_only_after_an_rtt_sample() {
    let mut r = Rack::new();
    send(&mut r, t(0), 1, 3);
    assert!(!r.may_probe(), "no RTT sample yet");
    probe_ack(&mut r, t(100), SEG, false);
    assert!(r.may_probe());
    resend(&mut r, t(300), 3);
    r.on_probe(3 * SEG, true, 2 * SEG);
    assert!(!r.may_probe(), "a probe is out");
}

#[test]
fn a_retransmitted_probe_that_repaired_the_tail_asks_for_a_reduction() {
    // §7.4: P3 lost; the probe resends it; its ACK covers more than the
    // probe's end once new data P4 (sent after) is acknowledged.
    let mut r = Rack::new();
    send(&mut r, t(0), 1, 3);
    probe_ack(&mut r, t(100), 2 * SEG, false);
    resend(&mut r, t(300), 3);
    r.on_probe(3 * SEG, true, SEG);
    send(&mut r, t(350), 4, 4);
    assert_eq!(
        probe_ack(&mut r, t(400), 3 * SEG, false),
        ProbeVerdict::Nothing
    );
    assert_eq!(
        probe_ack(&mut r, t(450), 4 * SEG, false),
        ProbeVerdict::RepairedLoss { flight: SEG }
    );
    assert!(r.probe.is_none());
}

#[test]
fn a_duplicate_ack_for_the_probe_means_nothing_was_lost() {
    let mut r = Rack::new();
    send(&mut r, t(0), 1, 3);
    probe_ack(&mut r, t(100), 2 * SEG, false);
    resend(&mut r, t(300), 3);
    r.on_probe(3 * SEG, true, SEG);
    // The original P3 was only late: its ACK, then the probe's duplicate.
    assert_eq!(
        probe_ack(&mut r, t(310), 3 * SEG, false),
        ProbeVerdict::Nothing
    );
    assert_eq!(
        probe_ack(&mut r, t(400), 3 * SEG, true),
        ProbeVerdict::Nothing
    );
    assert!(r.probe.is_none(), "the episode is over");
    // A probe of new data ends its episode when acknowledged.
    send(&mut r, t(500), 4, 4);
    r.on_probe(4 * SEG, false, 0);
    assert_eq!(
        probe_ack(&mut r, t(600), 4 * SEG, false),
        ProbeVerdict::Nothing
    );
    assert!(r.probe.is_none());
}

#[test]
fn a_lost_retransmission_counts_once_the_reduction_has_reached_the_receiver() {
    // P1..P10 leave at 0; P2..P10 are SACKed at 100, P1 is lost and the
    // sender reduces (recovery) and resends it at 100. Resent P1 is lost
    // again, found when P11, sent at 150, is SACKed at 250: but P11 was
    // the first segment sent after the reduction to be delivered, so the
    // queue P1 met still held what was sent before: no new congestion.
    let mut r = Rack::new();
    send(&mut r, t(0), 1, 10);
    ack(&mut r, t(100), 0, &[block(2, 10)], true);
    assert_eq!(lost(&r), vec![1]);
    r.note_reduction(t(100));
    resend(&mut r, t(100), 1);
    send(&mut r, t(150), 11, 11);
    ack(&mut r, t(250), 0, &[block(2, 11)], true);
    assert_eq!(lost(&r), vec![1]);
    assert!(!r.take_lost_retransmission());
    // Resent again at 250, after the reduction was seen delivered, and
    // lost again (P12, sent at 260, SACKed at 360): a second indication.
    resend(&mut r, t(250), 1);
    send(&mut r, t(260), 12, 12);
    ack(&mut r, t(360), 0, &[block(2, 12)], true);
    assert_eq!(lost(&r), vec![1]);
    assert!(r.take_lost_retransmission());
    assert!(!r.take_lost_retransmission(), "taken once");
}
