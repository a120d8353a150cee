//! The ports that may sit at a link's input (`net::port`), one enum arm per
//! kind: how each is built from its link's entry, its summary keys (under
//! the link's) and its probe metrics (after the link's own).

use super::links::LinkDesc;
use crate::atm::cell::CELL_BITS;
use crate::atm::congestion_detector::DetectorPort;
use crate::atm::erica::EricaPlus;
use crate::atm::upc::{Contract, UsageParameterControl};
use crate::engine::Time;
use crate::net::explicit_rate::ExplicitRatePort;
use crate::net::port::{Admit, Port, PortChain, PortCx};
use crate::net::Pdu;
use crate::satmac::qs_agent::QsPort;
use crate::scenario::summary::{num, put, Summary};

pub enum PortKind {
    /// ERICA+ explicit-rate allocation at an ATM switch output port.
    Erica(Box<EricaPlus>),
    /// The link's measured capacity fed back to rate-controlled hosts
    /// (instcap, effcap).
    ExplicitRate(Box<ExplicitRatePort>),
    /// A satellite terminal's Quick-Start agent (`[dvb_rcs]` terminals with
    /// `quick_start`), which the DVB-RCS channel feeds its TBTPs.
    QsAgent(Box<QsPort>),
    /// Per-VC peak-rate controllers and leaky buckets at the network
    /// access (the proactive-atm thesis's UPC).
    Upc(Box<UsageParameterControl>),
    /// The proactive-atm thesis's congestion detector at a transmit link.
    Detector(Box<DetectorPort>),
    /// Several of the above in series (access policing, then detection).
    Chain(Box<PortChain<PortKind>>),
    /// A port written in a test, given to the world with `set_port`; test
    /// builds only, so that the ports of a run dispatch without it.
    #[cfg(test)]
    Test(Box<dyn Port + Send + Sync>),
}

impl PortKind {
    /// Probe metrics of ports, numbered after the link's own.
    pub const METRICS: &'static [&'static str] = &[
        "erica_fair_share_bps",
        "erica_abr_capacity_bps",
        "erica_load_factor",
        "instcap_bps",
        "fed_back_bps",
        "qs_free_bps",
        "filtered_input_rate",
    ];

    /// The port a link entry configures, if any.
    pub fn build(d: &LinkDesc) -> Result<Option<PortKind>, String> {
        if d.erica.is_some() && d.explicit_rate.is_some() {
            return Err("give erica or explicit_rate, not both".into());
        }
        if let Some(cfg) = &d.congestion {
            if d.erica.is_some() || d.explicit_rate.is_some() {
                return Err("a congestion detector takes the link's port alone".into());
            }
            cfg.check().map_err(|e| format!("congestion: {e}"))?;
            let Some(rate_bps) = d.capacity.constant_rate() else {
                return Err("congestion: the detector needs a constant-rate link".into());
            };
            let port = DetectorPort::new(cfg.clone(), rate_bps);
            return Ok(Some(PortKind::Detector(Box::new(port))));
        }
        if let Some(cfg) = &d.explicit_rate {
            cfg.check().map_err(|e| format!("explicit_rate: {e}"))?;
            let port = ExplicitRatePort::new(cfg.clone(), Time::ZERO);
            return Ok(Some(PortKind::ExplicitRate(Box::new(port))));
        }
        let Some(cfg) = &d.erica else {
            return Ok(None);
        };
        let Some(rate_bps) = d.capacity.constant_rate() else {
            return Err("erica: ERICA+ needs a constant-rate link".into());
        };
        let mut cfg = cfg.clone();
        cfg.link_cells_per_s = rate_bps / CELL_BITS;
        cfg.check().map_err(|e| format!("erica: {e}"))?;
        Ok(Some(PortKind::Erica(Box::new(EricaPlus::new(
            cfg,
            Time::ZERO,
        )))))
    }

    /// Its keys, under its link's prefix `p` (`links.NAME.`).
    pub fn summarise(&self, s: &mut Summary, p: &str) {
        match self {
            PortKind::Erica(e) => {
                put(s, format!("{p}erica.intervals"), e.intervals());
                put(s, format!("{p}erica.n_active"), e.n_active());
                put(s, format!("{p}erica.load_factor"), num(e.load_factor()));
                put(
                    s,
                    format!("{p}erica.fair_share_bps"),
                    num(e.fair_share() * CELL_BITS),
                );
                put(
                    s,
                    format!("{p}erica.abr_capacity_bps"),
                    num(e.abr_capacity() * CELL_BITS),
                );
            }
            PortKind::ExplicitRate(e) => {
                put(s, format!("{p}explicit_rate.intervals"), e.intervals);
                put(s, format!("{p}explicit_rate.sources"), e.sources() as u64);
                put(
                    s,
                    format!("{p}explicit_rate.instcap_bps"),
                    num(e.instcap_bps()),
                );
            }
            PortKind::QsAgent(q) => {
                let a = &q.agent;
                put(s, format!("{p}quick_start.requests"), a.requests);
                put(s, format!("{p}quick_start.approvals"), a.approvals());
                put(s, format!("{p}quick_start.refusals"), a.refusals());
                put(s, format!("{p}quick_start.held"), a.held);
                put(s, format!("{p}quick_start.held_behind"), q.held_behind);
                put(s, format!("{p}quick_start.free_bps"), num(a.free_bps()));
            }
            PortKind::Upc(u) => summarise_upc(u, s, p),
            PortKind::Detector(d) => {
                let st = &d.detector.stats;
                put(s, format!("{p}congestion.intervals"), st.intervals);
                put(
                    s,
                    format!("{p}congestion.congested_intervals"),
                    st.congested_intervals,
                );
                put(
                    s,
                    format!("{p}congestion.rate_notices"),
                    st.input_rate_notices,
                );
                put(
                    s,
                    format!("{p}congestion.discard_notices"),
                    st.discard_notices,
                );
                let f = d.detector.filtered_total();
                put(s, format!("{p}congestion.filtered_input_rate"), num(f));
            }
            PortKind::Chain(c) => {
                for stage in &c.stages {
                    stage.summarise(s, p);
                }
            }
            #[cfg(test)]
            PortKind::Test(_) => {}
        }
    }

    /// Port metric `metric` (an index into `METRICS`); NaN for a metric
    /// another kind of port has.
    pub fn sample(&self, metric: usize) -> f64 {
        match self {
            PortKind::Erica(e) => match PortKind::METRICS[metric] {
                "erica_fair_share_bps" => e.fair_share() * CELL_BITS,
                "erica_abr_capacity_bps" => e.abr_capacity() * CELL_BITS,
                "erica_load_factor" => e.load_factor(),
                _ => f64::NAN,
            },
            PortKind::ExplicitRate(e) => match PortKind::METRICS[metric] {
                "instcap_bps" => e.instcap_bps(),
                // The first source's (the one a single-session run has).
                "fed_back_bps" => e.fed_back_bps.first().copied().unwrap_or(f64::NAN),
                _ => f64::NAN,
            },
            PortKind::QsAgent(q) => match PortKind::METRICS[metric] {
                "qs_free_bps" => q.agent.free_bps(),
                _ => f64::NAN,
            },
            PortKind::Detector(d) => match PortKind::METRICS[metric] {
                "filtered_input_rate" => d.detector.filtered_total(),
                _ => f64::NAN,
            },
            PortKind::Upc(_) => f64::NAN,
            PortKind::Chain(c) => c
                .stages
                .iter()
                .map(|st| st.sample(metric))
                .find(|v| !v.is_nan())
                .unwrap_or(f64::NAN),
            #[cfg(test)]
            PortKind::Test(_) => f64::NAN,
        }
    }
}

/// `links.NAME.upc.*`: what the link's policers did, over all its VCs.
fn summarise_upc(u: &UsageParameterControl, s: &mut Summary, p: &str) {
    let (mut prc_dropped, mut prc_marked, mut lb_marked, mut lb_dropped) = (0, 0, 0, 0);
    for vc in u.vcs.values() {
        if let Some(c) = vc.prc() {
            prc_dropped += c.stats.dropped;
            prc_marked += c.stats.marked;
        }
        if let Some(b) = vc.lb() {
            lb_marked += b.stats.marked;
            lb_dropped += b.stats.dropped;
        }
    }
    put(s, format!("{p}upc.vcs"), u.vcs.len() as u64);
    put(s, format!("{p}upc.peak_rate_dropped"), prc_dropped);
    put(s, format!("{p}upc.peak_rate_marked"), prc_marked);
    put(s, format!("{p}upc.bucket_marked"), lb_marked);
    put(s, format!("{p}upc.bucket_dropped"), lb_dropped);
}

/// Puts VC `flow` under `contract` at the input of a link whose port is
/// `port`: the link's UPC, made if it has none, in front of any other
/// port it has.
pub fn police(port: &mut Option<PortKind>, flow: u32, contract: &Contract) {
    if let Some(PortKind::Upc(u)) = port {
        u.police(flow, contract);
        return;
    }
    if let Some(PortKind::Chain(c)) = port {
        if let Some(PortKind::Upc(u)) = c.stages.first_mut() {
            u.police(flow, contract);
            return;
        }
    }
    let mut upc = UsageParameterControl::default();
    upc.police(flow, contract);
    let upc = PortKind::Upc(Box::new(upc));
    *port = Some(match port.take() {
        None => upc,
        Some(PortKind::Chain(mut c)) => {
            c.stages.insert(0, upc);
            PortKind::Chain(c)
        }
        Some(other) => PortKind::Chain(Box::new(PortChain::new(vec![upc, other]))),
    });
}

impl Port for PortKind {
    fn ingress(&mut self, cx: &mut PortCx<'_>, pdu: &mut Pdu) -> Admit {
        match self {
            PortKind::Erica(e) => e.ingress(cx, pdu),
            PortKind::ExplicitRate(e) => e.ingress(cx, pdu),
            PortKind::QsAgent(q) => q.ingress(cx, pdu),
            PortKind::Upc(u) => u.ingress(cx, pdu),
            PortKind::Detector(d) => d.ingress(cx, pdu),
            PortKind::Chain(c) => c.ingress(cx, pdu),
            #[cfg(test)]
            PortKind::Test(p) => p.ingress(cx, pdu),
        }
    }

    fn backward(&mut self, now: Time, pdu: &mut Pdu) {
        match self {
            PortKind::Erica(e) => e.backward(now, pdu),
            PortKind::ExplicitRate(e) => e.backward(now, pdu),
            PortKind::QsAgent(q) => q.backward(now, pdu),
            PortKind::Upc(u) => u.backward(now, pdu),
            PortKind::Detector(d) => d.backward(now, pdu),
            PortKind::Chain(c) => c.backward(now, pdu),
            #[cfg(test)]
            PortKind::Test(p) => p.backward(now, pdu),
        }
    }

    fn poll_at(&self) -> Time {
        match self {
            PortKind::Erica(e) => e.poll_at(),
            PortKind::ExplicitRate(e) => e.poll_at(),
            PortKind::QsAgent(q) => q.poll_at(),
            PortKind::Upc(u) => u.poll_at(),
            PortKind::Detector(d) => d.poll_at(),
            PortKind::Chain(c) => c.poll_at(),
            #[cfg(test)]
            PortKind::Test(p) => p.poll_at(),
        }
    }

    fn poll(&mut self, cx: &mut PortCx<'_>) {
        match self {
            PortKind::Erica(e) => e.poll(cx),
            PortKind::ExplicitRate(e) => e.poll(cx),
            PortKind::QsAgent(q) => q.poll(cx),
            PortKind::Upc(u) => u.poll(cx),
            PortKind::Detector(d) => d.poll(cx),
            PortKind::Chain(c) => c.poll(cx),
            #[cfg(test)]
            PortKind::Test(p) => p.poll(cx),
        }
    }

    fn for_each_held(&self, f: &mut dyn FnMut(&Pdu)) {
        match self {
            PortKind::Erica(e) => e.for_each_held(f),
            PortKind::ExplicitRate(e) => e.for_each_held(f),
            PortKind::QsAgent(q) => q.for_each_held(f),
            PortKind::Upc(u) => u.for_each_held(f),
            PortKind::Detector(d) => d.for_each_held(f),
            PortKind::Chain(c) => c.for_each_held(f),
            #[cfg(test)]
            PortKind::Test(p) => p.for_each_held(f),
        }
    }
}

/// The port hook exercised with a port written here: a spacer that holds
/// PDUs and releases them into its link one per fixed gap, discarding
/// arrivals to a full buffer (the shape of a peak-rate controller). The
/// world must release held PDUs at the port's times, count the discarded
/// ones as dropped, and count held ones as still in flight.
#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Duration;
    use crate::net::port::testing::Spacer;
    use crate::scenario::world::{Owner, World};
    use crate::scenario::{summary, ScenarioBuilder};

    /// Puts `port` at the input of link `l`, with its timer.
    fn set_port(w: &mut World, l: usize, port: Box<dyn Port + Send + Sync>) {
        w.net.port_slots[l] = w.alloc_slot(Owner::Port(l as u32));
        let t = port.poll_at();
        w.net.ports[l] = Some(PortKind::Test(port));
        w.sched.schedule(w.net.port_slots[l], t);
    }

    #[test]
    fn held_pdus_leave_at_the_ports_pace_and_discards_are_counted() {
        // 1000-byte packets every 4 ms into a spacer that lets one through
        // every 8 ms: half are discarded once its 10 places are full.
        let d = ScenarioBuilder::new("spaced", 10.0)
            .host("a")
            .host("b")
            .link("ab", "a", "b", 10e6, 0.0)
            .sink("rx", "b")
            .cbr("c", "a", "rx", 2e6, 1000)
            .probe("rate", "sink", "rx", "throughput_bps")
            .build();
        let mut w = World::build(&d).unwrap();
        let spacer = Spacer::new(Duration::from_millis(8), 10);
        set_port(&mut w, 0, Box::new(spacer));
        w.run();
        let s = summary::summarise(&w);
        let get = |k: &str| s[&format!("flows.c.{k}")].as_u64().unwrap();
        assert_eq!(get("sent_packets"), 2500);
        // One release per 8 ms over 10 s, the last still on the wire.
        let received = get("received_packets");
        assert!((1249..=1250).contains(&received), "{received}");
        assert_eq!(
            get("sent_packets"),
            received + get("dropped_packets") + get("in_flight_packets")
        );
        assert!(
            get("in_flight_packets") >= 10,
            "the spacer's buffer counts as in flight"
        );
        // Released one per 8 ms: 1 Mb/s at the sink in every full interval.
        let rate = &w.probes[0].series.values;
        assert!(rate[5..].iter().all(|r| (r - 1e6).abs() < 1e5), "{rate:?}");
    }

    /// A port that says it holds what it actually forgets: the run must
    /// say that PDUs went missing.
    struct Forgetful;

    impl Port for Forgetful {
        fn ingress(&mut self, _cx: &mut PortCx<'_>, _pdu: &mut Pdu) -> Admit {
            Admit::Hold
        }
    }

    #[test]
    fn a_pdu_lost_without_being_counted_shows_in_the_summary() {
        let d = ScenarioBuilder::new("leaky", 1.0)
            .host("a")
            .host("b")
            .link("ab", "a", "b", 10e6, 0.0)
            .sink("rx", "b")
            .cbr("c", "a", "rx", 1e6, 1000)
            .build();
        let mut w = World::build(&d).unwrap();
        set_port(&mut w, 0, Box::new(Forgetful));
        w.run();
        let s = summary::summarise(&w);
        assert_eq!(s["run.pdus_sent"].as_i64(), Some(125));
        assert_eq!(s["run.pdus_unaccounted"].as_i64(), Some(125));
    }
}
