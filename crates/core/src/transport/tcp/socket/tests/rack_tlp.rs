//! RACK-TLP in the socket (RFC 8985): the cases its §3 and §7 walk
//! through, each against RFC 6675's detection on the same losses.

use super::*;
use crate::engine::Check;

fn sack(recovery: LossDetection) -> TcpConfig {
    TcpConfig {
        recovery,
        ..cfg(Variant::Sack, false)
    }
}

fn bulk(recovery: LossDetection, bytes: u64, drop: &[u64], delay: &[(u64, u64)]) -> Pair {
    let mut p = Pair::new(sack(recovery), 50, AppKind::Bulk { bytes: Some(bytes) });
    p.drop_once = drop.to_vec();
    p.delay_once = delay.to_vec();
    p.run_until(Time(30_000 * MS));
    assert_eq!(p.s[1].delivered, bytes, "{recovery:?}");
    p
}

/// When the sender last sent a segment (the transfer's end as it saw it).
fn last_data_ack(p: &Pair) -> Time {
    p.log.iter().rfind(|l| l.1 == 1).unwrap().0
}

#[test]
fn a_lost_retransmission_is_repaired_without_a_timeout() {
    // Segment 30 and its fast retransmission are both lost. RFC 6675 can
    // only wait for the timer; RACK sees segments sent after the
    // retransmission delivered one RTT later and resends it again.
    let drop = [30_000, 30_000];
    let rfc = bulk(LossDetection::Rfc6675, 200_000, &drop, &[]);
    let rack = bulk(LossDetection::RackTlp, 200_000, &drop, &[]);
    assert_eq!(rfc.s[0].stats.timeouts, 1);
    assert_eq!(rack.s[0].stats.timeouts, 0);
    assert_eq!(rack.s[0].stats.fast_retransmits, 1, "one recovery episode");
    assert_eq!(rack.s[0].stats.retransmissions, 2);
    // RFC 6675 waits a 1 s RTO where RACK waits one RTT, and restarts
    // from one segment: its transfer ends 300 ms later (1.65 s, 1.35 s).
    assert!(last_data_ack(&rack) + Duration(250 * MS) < last_data_ack(&rfc));
}

#[test]
fn a_tail_loss_is_repaired_by_the_probe_without_a_timeout() {
    // The last segment of a transfer is lost: no later segment can
    // produce a duplicate ACK, so RFC 6675 waits for the RTO (1 s). TLP
    // resends it 2·SRTT after the last ACK (RFC 8985 §7.3).
    let rfc = bulk(LossDetection::Rfc6675, 20_000, &[19_000], &[]);
    let rack = bulk(LossDetection::RackTlp, 20_000, &[19_000], &[]);
    assert_eq!(rfc.s[0].stats.timeouts, 1);
    assert_eq!(rack.s[0].stats.timeouts, 0);
    let r = rack.s[0].rack.as_ref().unwrap();
    assert_eq!((r.probes, r.probe_repairs), (1, 0));
    let probe = rack
        .log
        .iter()
        .filter(|l| l.1 == 0 && l.2.seq == 19_000 && l.3 > 0)
        .map(|l| l.0)
        .next()
        .unwrap();
    let last_ack_sent = rack
        .log
        .iter()
        .rfind(|l| l.1 == 1 && l.0 < probe)
        .unwrap()
        .0;
    // SRTT is 100 ms on this wire. The last ACK arrives 50 ms after it
    // was sent and re-arms the timer with one segment in flight:
    // PTO = 2·SRTT + WCDelAckT (200 ms) = 400 ms.
    assert_eq!(probe.since(last_ack_sent), Duration(450 * MS));
    assert!(last_data_ack(&rack) + Duration(500 * MS) < last_data_ack(&rfc));
}

#[test]
fn losses_at_the_tail_are_found_by_rack_after_the_probe() {
    // The last three segments are lost: the probe resends the last one,
    // its SACK lets RACK mark the two before it lost (after reo_wnd) and
    // fast recovery resends them (RFC 8985 §3's tail-loss example).
    let drop = [17_000, 18_000, 19_000];
    let rfc = bulk(LossDetection::Rfc6675, 20_000, &drop, &[]);
    let rack = bulk(LossDetection::RackTlp, 20_000, &drop, &[]);
    assert_eq!(rfc.s[0].stats.timeouts, 1);
    assert_eq!(rack.s[0].stats.timeouts, 0);
    assert_eq!(rack.s[0].stats.fast_retransmits, 1);
    assert_eq!(rack.s[0].stats.retransmissions, 3);
    assert_eq!(rack.s[0].rack.as_ref().unwrap().probes, 1);
}

#[test]
fn a_probe_that_repaired_a_loss_reduces_cwnd() {
    // A bulk sender whose flight's last segment is lost, with more data
    // to come later: the probe resends it and the ACK beyond it shows a
    // loss was repaired (§7.4): ssthresh and cwnd come down.
    let mut p = Pair::new(
        sack(LossDetection::RackTlp),
        50,
        AppKind::Bulk {
            bytes: Some(20_000),
        },
    );
    p.drop_once = vec![19_000];
    p.run_until(Time(2_000 * MS));
    let before = p.s[0].cwnd();
    assert_eq!(p.s[0].ssthresh(), u64::MAX);
    p.s[0].write(10_000);
    p.service(Time(2_000 * MS));
    p.run_until(Time(4_000 * MS));
    let r = p.s[0].rack.as_ref().unwrap();
    assert_eq!((r.probes, r.probe_repairs), (1, 1));
    assert!(
        p.s[0].ssthresh() < before,
        "{} vs {before}",
        p.s[0].ssthresh()
    );
    assert_eq!(p.s[0].stats.timeouts, 0);
}

#[test]
fn reordering_within_the_window_is_not_a_loss_once_seen() {
    // Two segments are each held back 5 ms. The first, overtaken by one
    // segment only, is no loss for either, and shows RACK reordering
    // (delivered below RACK.fack, never resent). The second is overtaken
    // by a dozen: RFC 6675 resends it on DupThresh; RACK, having seen
    // reordering, keeps reo_wnd = min_RTT/4 = 25 ms (RFC 8985 §6.2 step 4)
    // and the segment arrives within it. (Had the first event had three
    // segments SACKed past it, RACK's reo_wnd would have been 0 and it too
    // would have resent: without DSACK a resent segment arriving late
    // cannot show reordering.)
    let delay = [(0, 5), (40_000, 5)];
    let rfc = bulk(LossDetection::Rfc6675, 100_000, &[], &delay);
    let rack = bulk(LossDetection::RackTlp, 100_000, &[], &delay);
    assert_eq!(rfc.s[0].stats.retransmissions, 1);
    assert_eq!(rack.s[0].stats.retransmissions, 0);
    assert!(rack.s[0].rack.as_ref().unwrap().reordering_seen());
}

#[test]
fn rack_tlp_needs_sack() {
    let c = TcpConfig {
        recovery: LossDetection::RackTlp,
        ..cfg(Variant::NewReno, false)
    };
    let e = c.check().unwrap_err().to_string();
    assert!(e.contains("SACK"), "{e}");
    assert!(sack(LossDetection::RackTlp).check().is_ok());
}
