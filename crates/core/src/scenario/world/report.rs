//! The run's summary from the world: the `run.*` keys, the conservation
//! check every run makes (sent = delivered + dropped + errored + in
//! flight), then the keys of every link and component from the file of its
//! kind (`scenario::summary` has the format), then the fairness indices over
//! the flows' figures (`scenario::fairness`).

use super::{links, World};
use crate::scenario::fairness;
use crate::scenario::summary::{num, put, Summary};

impl World {
    /// The run summary now: `run.*`, conservation, every link's and
    /// component's keys, then the fairness indices.
    pub fn summary(&self) -> Summary {
        summarise(self)
    }
}

fn summarise(w: &World) -> Summary {
    let mut s = Summary::new();
    put(&mut s, "run.events".into(), w.events);
    put(&mut s, "run.end_time_s".into(), num(w.now.as_secs_f64()));
    put(&mut s, "run.seed".into(), w.seed);
    put(
        &mut s,
        "run.stop_reason".into(),
        w.stopped.map_or("running", |r| r.as_str()),
    );
    put(&mut s, "run.unroutable".into(), w.counts.unroutable);
    links::summarise(w, &mut s);
    let in_flight = w.in_flight_per_flow();
    conservation(w, &in_flight, &mut s);
    let view = w.view(&in_flight);
    for c in &w.reg.comps {
        c.model().summarise(&mut s, &view);
    }
    fairness::summarise(&mut s);
    s
}

/// Every PDU that entered the network was delivered, dropped, lost to an
/// error, or is still in flight; every PDU an attachment (a VC) took was
/// passed on, lost or is still held. `run.pdus_unaccounted` counts the
/// others: zero, or the run lost data without counting it.
fn conservation(w: &World, in_flight: &[u64], s: &mut Summary) {
    let (sent, delivered) = (w.counts.pdus_sent, w.counts.pdus_delivered);
    let dropped: u64 = w.flows.iter().map(|f| f.dropped).sum::<u64>()
        + w.net.links.iter().map(|l| l.pending_drops()).sum::<u64>();
    let errored: u64 = w.flows.iter().map(|f| f.errored).sum::<u64>()
        + w.net.links.iter().map(|l| l.pending_errors()).sum::<u64>();
    let held: u64 = in_flight.iter().sum();
    let network = sent as i64 - (delivered + dropped + errored + held) as i64;
    let attachments: i64 = w.reg.comps.iter().map(|c| c.model().unaccounted()).sum();
    put(s, "run.pdus_sent".into(), sent);
    put(s, "run.pdus_delivered".into(), delivered);
    put(s, "run.pdus_dropped".into(), dropped);
    put(s, "run.pdus_errored".into(), errored);
    put(s, "run.pdus_in_flight".into(), held);
    put(s, "run.pdus_unaccounted".into(), network + attachments);
}
