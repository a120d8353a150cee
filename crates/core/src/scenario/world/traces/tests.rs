//! Traces of a whole run: a capture holds what the link's counts say it
//! sent, its bounds are reported, and a TCP trace follows the sender.

use super::*;
use crate::scenario::{Description, ScenarioBuilder};
use pcap_file::pcap::PcapReader;

fn pcap(name: &str, link: &str, max_packets: u64, max_bytes: u64) -> TraceDesc {
    TraceDesc {
        name: name.into(),
        of: TraceOf::Pcap {
            link: link.into(),
            payload: false,
            max_packets,
            max_bytes,
        },
    }
}

fn tcp_trace(name: &str, events: Vec<TcpEvent>) -> TraceDesc {
    TraceDesc {
        name: name.into(),
        of: TraceOf::Tcp {
            connection: "t".into(),
            events,
            max_records: 1_000_000,
        },
    }
}

/// A bulk transfer a -> b over 10 Mb/s, 20 ms each way, for 2 s; the
/// forward link loses 1 % of its PDUs.
fn transfer(traces: Vec<TraceDesc>) -> Description {
    ScenarioBuilder::new("traces", 2.0)
        .host("a")
        .host("b")
        .link_with("fwd", "a", "b", 10e6, 0.02, |l| l.loss = 0.01)
        .link("rev", "b", "a", 10e6, 0.02)
        .tcp("t", "a", "b")
        .with(|d| d.traces = traces)
        .build()
}

fn run(d: &Description) -> World {
    let mut w = World::build(d).unwrap();
    w.run();
    w
}

fn count(w: &World, key: &str) -> u64 {
    w.summary()[key].as_u64().unwrap()
}

fn packets(bytes: &[u8]) -> Vec<(std::time::Duration, u32, usize)> {
    let mut r = PcapReader::new(bytes).unwrap();
    let mut out = Vec::new();
    while let Some(p) = r.next_packet() {
        let p = p.unwrap();
        out.push((p.timestamp, p.orig_len, p.data.len()));
    }
    out
}

#[test]
fn a_capture_holds_every_pdu_the_link_sent_or_lost_on_the_wire() {
    let w = run(&transfer(vec![pcap("f", "fwd", 1_000_000, 1 << 30)]));
    let out = w.traces();
    let TraceData::Pcap(bytes) = &out[0].data else {
        panic!("not a pcap")
    };
    let sent = count(&w, "links.fwd.tx_packets") + count(&w, "links.fwd.errors");
    assert!(
        count(&w, "links.fwd.errors") > 0,
        "the run should lose some"
    );
    let ps = packets(bytes);
    assert_eq!(ps.len() as u64, sent);
    assert_eq!(out[0].report.records, sent);
    assert_eq!(
        (out[0].report.not_recorded, out[0].report.stopped_by),
        (0, None)
    );
    assert_eq!(out[0].report.of, "fwd");
    // The SYN goes on the wire at time 0; data segments are 1500 bytes.
    assert_eq!(ps[0].0, std::time::Duration::ZERO);
    assert!(ps.iter().filter(|p| p.1 == 1500).count() as u64 > sent / 2);
    assert!(ps.windows(2).all(|p| p[0].0 <= p[1].0));
}

#[test]
fn bounds_stop_the_capture_and_say_where() {
    let w = run(&transfer(vec![pcap("f", "fwd", 10, 1 << 30)]));
    let sent = count(&w, "links.fwd.tx_packets") + count(&w, "links.fwd.errors");
    let out = &w.traces()[0];
    assert_eq!(out.report.records, 10);
    assert_eq!(out.report.not_recorded, sent - 10);
    assert_eq!(out.report.stopped_by, Some("max_packets"));
    assert!(out.report.stopped_at_s.unwrap() > 0.0);

    // Room for the file's header and three 40-byte records of 16 + 40.
    let w = run(&transfer(vec![pcap(
        "f",
        "fwd",
        1_000_000,
        24 + 3 * 56 + 10,
    )]));
    let out = &w.traces()[0];
    let TraceData::Pcap(bytes) = &out.data else {
        panic!("not a pcap")
    };
    assert_eq!(out.report.records, 3);
    assert_eq!(out.report.not_recorded, sent - 3);
    assert_eq!(out.report.stopped_by, Some("max_bytes"));
    assert!(bytes.len() <= 24 + 3 * 56 + 10);
    assert_eq!(packets(bytes).len(), 3);
}

#[test]
fn a_tcp_trace_follows_the_sender_through_slow_start_and_recovery() {
    let w = run(&transfer(vec![tcp_trace(
        "c",
        vec![TcpEvent::Cwnd, TcpEvent::Rtt],
    )]));
    let out = &w.traces()[0];
    let TraceData::Tcp(c) = &out.data else {
        panic!("not a tcp trace")
    };
    let names: Vec<_> = c
        .state
        .iter()
        .map(|&s| TcpColumns::STATES[s as usize])
        .collect();
    assert_eq!(names[0], "connecting");
    assert_eq!(c.time_s[0], 0.0);
    assert!(names.contains(&"slow_start") && names.contains(&"recovery"));
    assert!(c.time_s.windows(2).all(|t| t[0] <= t[1]));
    assert!(c.srtt_s[0].is_nan() && c.srtt_s.last().unwrap() > &0.04);
    assert_eq!(out.report.records as usize, c.time_s.len());
    // Outside recovery (whose cwnd NewReno inflates) the largest cwnd is
    // the summary's.
    let max_cwnd = (0..c.time_s.len())
        .filter(|&k| names[k] != "recovery")
        .map(|k| c.cwnd_bytes[k])
        .fold(0.0, f64::max);
    assert_eq!(max_cwnd as u64, count(&w, "tcp.t.cwnd_max_bytes"));
    // Each row changes what the trace watches.
    for k in 1..c.time_s.len() {
        let same_window = (c.cwnd_bytes[k], c.state[k]) == (c.cwnd_bytes[k - 1], c.state[k - 1])
            && c.ssthresh_bytes[k].to_bits() == c.ssthresh_bytes[k - 1].to_bits();
        let same_timer =
            c.srtt_s[k].to_bits() == c.srtt_s[k - 1].to_bits() && c.rto_s[k] == c.rto_s[k - 1];
        assert!(!(same_window && same_timer), "row {k} changes nothing");
    }
    // A window-only trace has fewer rows, none for a timer change alone.
    let w2 = run(&transfer(vec![tcp_trace("c", vec![TcpEvent::Cwnd])]));
    let TraceData::Tcp(c2) = &w2.traces()[0].data else {
        panic!("not a tcp trace")
    };
    assert!(c2.time_s.len() < c.time_s.len());
}

#[test]
fn tracing_changes_nothing_of_the_run() {
    let plain = run(&transfer(vec![]));
    let traced = run(&transfer(vec![
        pcap("f", "fwd", 1_000_000, 1 << 30),
        tcp_trace("c", vec![TcpEvent::Cwnd, TcpEvent::Rtt]),
    ]));
    assert_eq!(plain.summary(), traced.summary());
}

#[test]
fn a_link_is_captured_by_one_trace_only() {
    let d = transfer(vec![
        pcap("f", "fwd", 10, 1 << 20),
        pcap("g", "fwd", 10, 1 << 20),
    ]);
    let e = World::build(&d).err().unwrap();
    assert_eq!(e.path, "traces.g.pcap");
    assert!(e.msg.contains("already traced by trace \"f\""), "{}", e.msg);
}

#[test]
fn bounds_are_checked() {
    let mut t = pcap("f", "fwd", 0, 1000);
    assert_eq!(t.check().unwrap_err().path, "max_packets");
    t = pcap("f", "fwd", 1, 24);
    assert_eq!(t.check().unwrap_err().path, "max_bytes");
    assert_eq!(tcp_trace("c", vec![]).check().unwrap_err().path, "events");
}
