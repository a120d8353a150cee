//! The ports that may sit at a link's input (`net::port`): how each is
//! built from its link's entry, its summary keys (under the link's) and its
//! probe metrics (after the link's own), as one `LinkPort` impl per kind and
//! one dispatch point (`PortKind::port`).

use super::links::LinkDesc;
use crate::atm::cell::CELL_BITS;
use crate::atm::congestion_detector::DetectorPort;
use crate::atm::erica::{EricaConfig, EricaPlus};
use crate::atm::upc::{Contract, UsageParameterControl};
use crate::engine::{Check, ConfigError, Time};
use crate::net::explicit_rate::ExplicitRatePort;
use crate::net::port::{Admit, Port, PortChain, PortCx};
use crate::net::Pdu;
use crate::satmac::qs_agent::QsPort;
use crate::scenario::summary::{num, put, Summary};

/// What a port is to its link beyond the `Port` hook: its keys in the run
/// summary and its probe metrics. Each kind implements it here, where the
/// summary's names live, so that the models in `atm/`, `net/` and `satmac/`
/// stay free of them.
pub(crate) trait LinkPort: Port {
    /// Its keys, under its link's prefix `p` (`links.NAME.`).
    fn summarise(&self, s: &mut Summary, p: &str);
    /// Port metric `metric` (an index into `PortKind::METRICS`); NaN for a
    /// metric another kind of port has.
    fn sample(&self, metric: usize) -> f64;
}

pub(crate) enum PortKind {
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
    Test(Box<TestPort>),
}

impl PortKind {
    /// Probe metrics of ports, numbered after the link's own.
    pub(crate) const METRICS: &'static [&'static str] = &[
        "erica_fair_share_bps",
        "erica_abr_capacity_bps",
        "erica_load_factor",
        "instcap_bps",
        "fed_back_bps",
        "qs_free_bps",
        "filtered_input_rate",
    ];

    /// The one dispatch point: the kind's port.
    #[inline]
    pub(crate) fn port(&self) -> &dyn LinkPort {
        match self {
            PortKind::Erica(e) => &**e,
            PortKind::ExplicitRate(e) => &**e,
            PortKind::QsAgent(q) => &**q,
            PortKind::Upc(u) => &**u,
            PortKind::Detector(d) => &**d,
            PortKind::Chain(c) => &**c,
            #[cfg(test)]
            PortKind::Test(p) => &**p,
        }
    }

    #[inline]
    pub(crate) fn port_mut(&mut self) -> &mut dyn LinkPort {
        match self {
            PortKind::Erica(e) => &mut **e,
            PortKind::ExplicitRate(e) => &mut **e,
            PortKind::QsAgent(q) => &mut **q,
            PortKind::Upc(u) => &mut **u,
            PortKind::Detector(d) => &mut **d,
            PortKind::Chain(c) => &mut **c,
            #[cfg(test)]
            PortKind::Test(p) => &mut **p,
        }
    }

    /// The port a link entry configures, if any.
    pub(crate) fn build(d: &LinkDesc) -> Result<Option<PortKind>, ConfigError> {
        Self::check(d)?;
        if let Some(cfg) = &d.congestion {
            let rate_bps = d.capacity.constant_rate().expect("checked");
            let port = DetectorPort::new(cfg.clone(), rate_bps);
            return Ok(Some(PortKind::Detector(Box::new(port))));
        }
        if let Some(cfg) = &d.explicit_rate {
            let port = ExplicitRatePort::new(cfg.clone(), Time::ZERO);
            return Ok(Some(PortKind::ExplicitRate(Box::new(port))));
        }
        Ok(erica_config(d).map(|cfg| PortKind::Erica(Box::new(EricaPlus::new(cfg, Time::ZERO)))))
    }

    /// Refuses a link entry whose port cannot run, without building it
    /// (`Description::check` asks this of every link).
    pub(crate) fn check(d: &LinkDesc) -> Result<(), ConfigError> {
        if d.erica.is_some() && d.explicit_rate.is_some() {
            return Err("give erica or explicit_rate, not both".into());
        }
        if let Some(cfg) = &d.congestion {
            if d.erica.is_some() || d.explicit_rate.is_some() {
                return Err("a congestion detector takes the link's port alone".into());
            }
            cfg.check().map_err(|e| e.within("congestion"))?;
            if d.capacity.constant_rate().is_none() {
                return Err(ConfigError::at(
                    "congestion",
                    "the detector needs a constant-rate link",
                ));
            }
        }
        if let Some(cfg) = &d.explicit_rate {
            cfg.check().map_err(|e| e.within("explicit_rate"))?;
        }
        if d.erica.is_some() && d.capacity.constant_rate().is_none() {
            return Err(ConfigError::at(
                "erica",
                "ERICA+ needs a constant-rate link",
            ));
        }
        if let Some(cfg) = erica_config(d) {
            cfg.check().map_err(|e| e.within("erica"))?;
        }
        Ok(())
    }
}

impl LinkPort for PortKind {
    fn summarise(&self, s: &mut Summary, p: &str) {
        self.port().summarise(s, p);
    }

    fn sample(&self, metric: usize) -> f64 {
        self.port().sample(metric)
    }
}

impl LinkPort for EricaPlus {
    fn summarise(&self, s: &mut Summary, p: &str) {
        put(s, format!("{p}erica.intervals"), self.intervals());
        put(s, format!("{p}erica.n_active"), self.n_active());
        put(s, format!("{p}erica.load_factor"), num(self.load_factor()));
        put(
            s,
            format!("{p}erica.fair_share_bps"),
            num(self.fair_share() * CELL_BITS),
        );
        put(
            s,
            format!("{p}erica.abr_capacity_bps"),
            num(self.abr_capacity() * CELL_BITS),
        );
    }

    fn sample(&self, metric: usize) -> f64 {
        match PortKind::METRICS[metric] {
            "erica_fair_share_bps" => self.fair_share() * CELL_BITS,
            "erica_abr_capacity_bps" => self.abr_capacity() * CELL_BITS,
            "erica_load_factor" => self.load_factor(),
            _ => f64::NAN,
        }
    }
}

impl LinkPort for ExplicitRatePort {
    fn summarise(&self, s: &mut Summary, p: &str) {
        put(s, format!("{p}explicit_rate.intervals"), self.intervals);
        put(
            s,
            format!("{p}explicit_rate.sources"),
            self.sources() as u64,
        );
        put(
            s,
            format!("{p}explicit_rate.instcap_bps"),
            num(self.instcap_bps()),
        );
    }

    fn sample(&self, metric: usize) -> f64 {
        match PortKind::METRICS[metric] {
            "instcap_bps" => self.instcap_bps(),
            // The first source's (the one a single-session run has).
            "fed_back_bps" => self.fed_back_bps.first().copied().unwrap_or(f64::NAN),
            _ => f64::NAN,
        }
    }
}

impl LinkPort for QsPort {
    fn summarise(&self, s: &mut Summary, p: &str) {
        let a = &self.agent;
        put(s, format!("{p}quick_start.requests"), a.requests);
        put(s, format!("{p}quick_start.approvals"), a.approvals());
        put(s, format!("{p}quick_start.refusals"), a.refusals());
        put(s, format!("{p}quick_start.held"), a.held);
        put(s, format!("{p}quick_start.held_behind"), self.held_behind);
        put(s, format!("{p}quick_start.free_bps"), num(a.free_bps()));
    }

    fn sample(&self, metric: usize) -> f64 {
        match PortKind::METRICS[metric] {
            "qs_free_bps" => self.agent.free_bps(),
            _ => f64::NAN,
        }
    }
}

impl LinkPort for UsageParameterControl {
    fn summarise(&self, s: &mut Summary, p: &str) {
        summarise_upc(self, s, p);
    }

    fn sample(&self, _metric: usize) -> f64 {
        // The policers have no probe metric of their own.
        f64::NAN
    }
}

impl LinkPort for DetectorPort {
    fn summarise(&self, s: &mut Summary, p: &str) {
        let st = &self.detector.stats;
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
        let f = self.detector.filtered_total();
        put(s, format!("{p}congestion.filtered_input_rate"), num(f));
    }

    fn sample(&self, metric: usize) -> f64 {
        match PortKind::METRICS[metric] {
            "filtered_input_rate" => self.detector.filtered_total(),
            _ => f64::NAN,
        }
    }
}

impl LinkPort for PortChain<PortKind> {
    fn summarise(&self, s: &mut Summary, p: &str) {
        for stage in &self.stages {
            stage.summarise(s, p);
        }
    }

    /// The first stage that has the metric.
    fn sample(&self, metric: usize) -> f64 {
        self.stages
            .iter()
            .map(|st| st.sample(metric))
            .find(|v| !v.is_nan())
            .unwrap_or(f64::NAN)
    }
}

/// A link's ERICA+ parameters with its cell rate filled in, if it runs
/// ERICA+ on a constant-rate link.
fn erica_config(d: &LinkDesc) -> Option<EricaConfig> {
    let mut cfg = d.erica.clone()?;
    cfg.link_cells_per_s = d.capacity.constant_rate()? / CELL_BITS;
    Some(cfg)
}

/// A port written in a test, with no keys or metrics of its own.
#[cfg(test)]
pub(crate) struct TestPort(pub Box<dyn Port + Send + Sync>);

#[cfg(test)]
impl Port for TestPort {
    fn ingress(&mut self, cx: &mut PortCx<'_>, pdu: &mut Pdu) -> Admit {
        self.0.ingress(cx, pdu)
    }

    fn backward(&mut self, now: Time, pdu: &mut Pdu) {
        self.0.backward(now, pdu)
    }

    fn poll_at(&self) -> Time {
        self.0.poll_at()
    }

    fn poll(&mut self, cx: &mut PortCx<'_>) {
        self.0.poll(cx)
    }

    fn for_each_held(&self, f: &mut dyn FnMut(&Pdu)) {
        self.0.for_each_held(f)
    }
}

#[cfg(test)]
impl LinkPort for TestPort {
    fn summarise(&self, _s: &mut Summary, _p: &str) {}

    fn sample(&self, _metric: usize) -> f64 {
        f64::NAN
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
pub(crate) fn police(port: &mut Option<PortKind>, flow: u32, contract: &Contract) {
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
        self.port_mut().ingress(cx, pdu)
    }

    fn backward(&mut self, now: Time, pdu: &mut Pdu) {
        self.port_mut().backward(now, pdu)
    }

    fn poll_at(&self) -> Time {
        self.port().poll_at()
    }

    fn poll(&mut self, cx: &mut PortCx<'_>) {
        self.port_mut().poll(cx)
    }

    fn for_each_held(&self, f: &mut dyn FnMut(&Pdu)) {
        self.port().for_each_held(f)
    }
}

/// The port hook exercised with a port written here: a spacer that holds
/// PDUs and releases them into its link one per fixed gap, discarding
/// arrivals to a full buffer (the shape of a peak-rate controller). The
/// world must release held PDUs at the port's times, count the discarded
/// ones as dropped, and count held ones as still in flight.
#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::engine::Duration;
    use crate::net::port::testing::Spacer;
    use crate::scenario::world::registry::Owner;
    use crate::scenario::world::World;
    use crate::scenario::ScenarioBuilder;

    /// Puts `port` at the input of link `l`, with its timer.
    pub(crate) fn set_port(w: &mut World, l: usize, port: Box<dyn Port + Send + Sync>) {
        w.net.port_slots[l] = w.alloc_slot(Owner::Port(l as u32));
        let t = port.poll_at();
        w.net.ports[l] = Some(PortKind::Test(Box::new(TestPort(port))));
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
        let s = w.summary();
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
        let s = w.summary();
        assert_eq!(s["run.pdus_sent"].as_i64(), Some(125));
        assert_eq!(s["run.pdus_unaccounted"].as_i64(), Some(125));
    }
}
