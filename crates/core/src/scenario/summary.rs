//! The flat run summary: `links.NAME.*`, `flows.NAME.*`, `sinks.NAME.*` and
//! `run.*` keys with plain numbers, sorted, so that the same run serialises
//! to the same bytes. Wall-clock figures are deliberately absent.

use super::world::World;
use crate::atm::cell::CELL_BITS;
use serde_json::Value;
use std::collections::BTreeMap;

pub type Summary = BTreeMap<String, Value>;

fn put(s: &mut Summary, key: String, v: impl Into<Value>) {
    s.insert(key, v.into());
}

/// JSON has no NaN: undefined figures (the delay of a flow that received
/// nothing) become null.
fn num(x: f64) -> Value {
    serde_json::Number::from_f64(x).map_or(Value::Null, Value::Number)
}

const PS: f64 = 1e-12;

pub fn summarise(w: &World) -> Summary {
    let mut s = Summary::new();
    let end = w.now.ps();
    let elapsed_s = w.now.as_secs_f64();
    put(&mut s, "run.events".into(), w.events);
    put(&mut s, "run.end_time_s".into(), num(elapsed_s));
    put(&mut s, "run.seed".into(), w.seed);
    put(
        &mut s,
        "run.stop_reason".into(),
        w.stopped.map_or("running", |r| r.as_str()),
    );
    put(&mut s, "run.unroutable".into(), w.unroutable);
    links(w, &mut s, end, elapsed_s);
    flows(w, &mut s, elapsed_s);
    tcp(w, &mut s);
    udp_rr(w, &mut s, elapsed_s);
    for (k, name) in w.names.sinks.iter().enumerate() {
        let sk = &w.sinks[k];
        let p = format!("sinks.{name}.");
        put(&mut s, p.clone() + "received_packets", sk.received_packets);
        put(&mut s, p.clone() + "received_bytes", sk.received_bytes);
        put(
            &mut s,
            p + "throughput_bps",
            num(rate(sk.received_bytes, elapsed_s)),
        );
    }
    s
}

fn rate(bytes: u64, secs: f64) -> f64 {
    if secs > 0.0 {
        bytes as f64 * 8.0 / secs
    } else {
        f64::NAN
    }
}

fn links(w: &World, s: &mut Summary, end: u64, elapsed_s: f64) {
    for (i, name) in w.names.links.iter().enumerate() {
        let st = &w.links[i].stats;
        let busy = w.links[i].busy_ps_at(w.now);
        let p = format!("links.{name}.");
        put(s, p.clone() + "arrivals", st.arrivals);
        put(s, p.clone() + "tx_packets", st.tx_packets);
        put(s, p.clone() + "tx_bytes", st.tx_bytes);
        put(s, p.clone() + "drops", st.drops);
        put(s, p.clone() + "drops_clp", st.drops_clp);
        put(s, p.clone() + "errors", st.errors);
        let util = if end > 0 {
            busy as f64 / end as f64
        } else {
            f64::NAN
        };
        put(s, p.clone() + "utilisation", num(util));
        put(
            s,
            p.clone() + "throughput_bps",
            num(w.links[i].tx_bits_at(w.now) / elapsed_s),
        );
        put(
            s,
            p.clone() + "queue_mean_packets",
            num(st.queue_packets.mean(end)),
        );
        put(
            s,
            p.clone() + "queue_max_packets",
            num(st.queue_packets.max()),
        );
        put(
            s,
            p.clone() + "queue_mean_bytes",
            num(st.queue_bytes.mean(end)),
        );
        put(s, p.clone() + "queue_max_bytes", num(st.queue_bytes.max()));
        put(
            s,
            p.clone() + "system_mean_packets",
            num(st.system_packets.mean(end)),
        );
        put(
            s,
            p.clone() + "wait_mean_s",
            num(st.wait.summary.mean() * PS),
        );
        put(s, p.clone() + "wait_p50_s", num(st.wait.quantile(0.5) * PS));
        put(
            s,
            p.clone() + "wait_p99_s",
            num(st.wait.quantile(0.99) * PS),
        );
        let max = if st.wait.count() > 0 {
            st.wait.summary.max * PS
        } else {
            f64::NAN
        };
        put(s, p.clone() + "wait_max_s", num(max));
        for (level, class) in ["high", "low"].iter().enumerate() {
            let bytes = st.tx_bytes_by_priority[level];
            put(
                s,
                format!("{p}tx_packets_{class}"),
                st.tx_packets_by_priority[level],
            );
            put(s, format!("{p}tx_bytes_{class}"), bytes);
            put(
                s,
                format!("{p}throughput_{class}_bps"),
                num(rate(bytes, elapsed_s)),
            );
            put(
                s,
                format!("{p}queue_max_{class}_packets"),
                st.queue_max_by_priority[level],
            );
        }
        if let Some(e) = &w.ports[i] {
            let bits = CELL_BITS;
            put(s, p.clone() + "erica.intervals", e.intervals());
            put(s, p.clone() + "erica.n_active", e.n_active());
            put(s, p.clone() + "erica.load_factor", num(e.load_factor()));
            put(
                s,
                p.clone() + "erica.fair_share_bps",
                num(e.fair_share() * bits),
            );
            put(
                s,
                p + "erica.abr_capacity_bps",
                num(e.abr_capacity() * bits),
            );
        }
    }
}

fn flows(w: &World, s: &mut Summary, elapsed_s: f64) {
    let in_flight = w.in_flight_per_flow();
    for (i, name) in w.names.sources.iter().enumerate() {
        let e = w.sources[i].emitter();
        let f = &w.flows[i];
        let p = format!("flows.{name}.");
        let lost = e.sent_packets - f.received_packets - in_flight[i];
        let settled = e.sent_packets - in_flight[i];
        put(s, p.clone() + "sent_packets", e.sent_packets);
        put(s, p.clone() + "sent_bytes", e.sent_bytes);
        put(s, p.clone() + "received_packets", f.received_packets);
        put(s, p.clone() + "received_bytes", f.received_bytes);
        put(s, p.clone() + "in_flight_packets", in_flight[i]);
        put(s, p.clone() + "dropped_packets", f.dropped);
        put(s, p.clone() + "errored_packets", lost - f.dropped.min(lost));
        put(s, p.clone() + "lost_packets", lost);
        let loss_rate = if settled > 0 {
            lost as f64 / settled as f64
        } else {
            f64::NAN
        };
        put(s, p.clone() + "loss_rate", num(loss_rate));
        let active_s = (elapsed_s - e.start.as_secs_f64()).max(0.0);
        put(
            s,
            p.clone() + "throughput_bps",
            num(rate(f.received_bytes, active_s)),
        );
        let d = &f.delay;
        let min = if d.count() > 0 {
            d.summary.min
        } else {
            f64::NAN
        };
        let max = if d.count() > 0 {
            d.summary.max
        } else {
            f64::NAN
        };
        put(s, p.clone() + "delay_mean_s", num(d.summary.mean() * PS));
        put(s, p.clone() + "delay_min_s", num(min * PS));
        put(s, p.clone() + "delay_max_s", num(max * PS));
        put(s, p.clone() + "delay_p50_s", num(d.quantile(0.5) * PS));
        put(s, p.clone() + "delay_p95_s", num(d.quantile(0.95) * PS));
        put(s, p.clone() + "delay_p99_s", num(d.quantile(0.99) * PS));
        put(
            s,
            p.clone() + "jitter_mean_s",
            num((d.summary.mean() - min) * PS),
        );
        put(s, p + "jitter_p99_s", num((d.quantile(0.99) - min) * PS));
    }
}

fn opt(x: Option<f64>) -> Value {
    x.map_or(Value::Null, num)
}

fn tcp(w: &World, s: &mut Summary) {
    for (c, name) in w.names.tcp.iter().enumerate() {
        let conn = &w.conns[c];
        let [client, server] = &conn.sockets;
        let st = &client.stats;
        let p = format!("tcp.{name}.");
        put(s, p.clone() + "segments_sent", st.segments_sent);
        put(s, p.clone() + "bytes_sent", st.bytes_sent);
        put(s, p.clone() + "retransmissions", st.retransmissions);
        put(s, p.clone() + "fast_retransmits", st.fast_retransmits);
        put(s, p.clone() + "timeouts", st.timeouts);
        put(s, p.clone() + "dup_acks", st.dup_acks);
        put(s, p.clone() + "acks_sent", server.stats.acks_sent);
        put(
            s,
            p.clone() + "cwnd_max_bytes",
            st.cwnd_max.max(client.cwnd()),
        );
        put(s, p.clone() + "delivered_bytes", server.delivered);
        let active_s = w.now.since(conn.start).as_secs_f64();
        let goodput = if active_s > 0.0 {
            server.delivered as f64 * 8.0 / active_s
        } else {
            f64::NAN
        };
        put(s, p.clone() + "goodput_bps", num(goodput));
        let done = conn
            .app
            .completed_at
            .map(|t| t.since(conn.start).as_secs_f64());
        put(s, p.clone() + "completion_time_s", opt(done));
        put(
            s,
            p.clone() + "srtt_s",
            opt(client.srtt().map(|d| d.as_secs_f64())),
        );
        put(s, p.clone() + "rto_s", num(client.rto().as_secs_f64()));
        let mut drops =
            w.flows[conn.flow as usize].dropped + w.flows[conn.flow as usize + 1].dropped;
        if let Some(pair) = conn.vcs {
            for (v, dir) in pair.iter().zip(["vc_forward", "vc_reverse"]) {
                let vc = &w.vcs[*v as usize];
                drops += vc.stats.packets_lost;
                let q = format!("{p}{dir}.");
                put(s, q.clone() + "cells_sent", vc.stats.cells_sent);
                if let Some(src) = &vc.source {
                    put(s, q.clone() + "frm_cells", src.stats.frm_cells);
                    put(s, q.clone() + "brm_cells", src.stats.brm_cells);
                    put(s, q.clone() + "brms_turned_around", src.stats.turned_around);
                    put(s, q.clone() + "acr_bps", num(src.acr() * CELL_BITS));
                }
                put(
                    s,
                    q.clone() + "cells_dropped",
                    w.flows[vc.ends.flow as usize].dropped,
                );
                put(s, q.clone() + "packets_lost", vc.stats.packets_lost);
                put(s, q + "max_buffered_bytes", vc.stats.max_buffered_bytes);
            }
        }
        put(s, p.clone() + "segments_dropped", drops);
        put(s, p.clone() + "transactions", conn.app.completed);
        if let Some(np) = &conn.app.netpipe {
            netpipe(s, &p, np);
        }
        let times = &conn.app.transaction_times;
        put(s, p.clone() + "transaction_time_mean_s", num(times.mean()));
        put(
            s,
            p.clone() + "transaction_time_var_s2",
            num(times.variance()),
        );
        let (min, max) = if times.n > 0 {
            (times.min, times.max)
        } else {
            (f64::NAN, f64::NAN)
        };
        put(s, p.clone() + "transaction_time_min_s", num(min));
        put(s, p + "transaction_time_max_s", num(max));
    }
}

fn udp_rr(w: &World, s: &mut Summary, elapsed_s: f64) {
    for (i, name) in w.names.udp_rr.iter().enumerate() {
        let app = &w.udp[i].app;
        let p = format!("udp_rr.{name}.");
        put(s, p.clone() + "transactions", app.completed);
        put(s, p.clone() + "lost", app.lost);
        // Over the time the exchanges ran, not the rest of the run.
        let end = app.finished_at.map_or(elapsed_s, |t| t.as_secs_f64());
        let active = (end - app.cfg.start.as_secs_f64()).max(0.0);
        let rate = if active > 0.0 {
            app.completed as f64 / active
        } else {
            f64::NAN
        };
        put(s, p.clone() + "transactions_per_s", num(rate));
        put(
            s,
            p.clone() + "transaction_time_mean_s",
            num(app.times.mean()),
        );
        put(s, p + "transaction_time_var_s2", num(app.times.variance()));
    }
}

/// One group of keys per block size NetPIPE tested, named so that they
/// sort by size.
fn netpipe(s: &mut Summary, prefix: &str, np: &crate::apps::netpipe::NetPipe) {
    put(s, format!("{prefix}netpipe.blocks"), np.results.len());
    for r in &np.results {
        let q = format!("{prefix}netpipe.block_{:09}.", r.bytes);
        let t = r.transfer_time_mean_s();
        put(s, q.clone() + "bytes", r.bytes);
        put(s, q.clone() + "repetitions", r.round_trips.n);
        put(s, q.clone() + "transfer_time_s", num(t));
        put(
            s,
            q.clone() + "transfer_time_var_s2",
            num(r.transfer_time_var_s2()),
        );
        put(s, q + "throughput_bps", num(r.bytes as f64 * 8.0 / t));
    }
}

/// The summary as canonical JSON (sorted keys, shortest float repr).
pub fn to_json(s: &Summary) -> String {
    serde_json::to_string(s).expect("summary serialises")
}
