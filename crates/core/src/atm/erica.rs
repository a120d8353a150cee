//! ERICA+ explicit-rate switch algorithm for one output port (REFERENCE.md
//! §1; Jain et al., "ERICA Switch Algorithm: A Complete Description",
//! ATM Forum/96-1172; Kalyanaraman's dissertation §6.19; parameters from the
//! ERICA+ / long-range-dependent VBR satellite paper: averaging interval of
//! 500 ABR input cells or 5 ms, T0 = 500 µs, a = 1.15, b = 1.05, QDLF = 0.5).
//!
//! Plain-data state machine driven by the switch port:
//! * forward direction: `on_abr_input_cell`, `on_vbr_cell`, `on_queue_length`,
//!   `on_frm`;
//! * `end_interval_due(now)` / `end_interval(now)` close an averaging
//!   interval (the port checks after each cell, or at `interval_deadline()`);
//! * backward direction: `on_brm(vc, er_in)` returns the ER to write back.
//!
//! Units: all rates (link rate, CCR, ER, capacities) are in **cells per
//! second** as `f64`; queue lengths in cells. VCs are dense `u32` indices
//! (per-VC state is a `Vec` grown on demand); as a link port (`net::port`,
//! at the end of this file) the port indexes VCs by the VCI of their cells.

use crate::engine::{Duration, Rate, Time};
use crate::net::pdu::{Header, Pdu, RmDir};
use crate::net::port::{Admit, Port, PortCx};
use serde::{Deserialize, Serialize};

/// Bits in one ATM cell on the wire.
use super::cell::{CELL_BITS, CELL_BYTES};

/// Where the per-VC current cell rate used for `VCShare` comes from
/// (REFERENCE §1.4 lists both).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CcrSource {
    /// The CCR field of the VC's latest FRM cell.
    RmField,
    /// The VC's input cell rate measured over the last averaging interval.
    Measured,
}

/// The port's parameters; in a scenario description, `links[].erica`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EricaConfig {
    /// Output link rate available to all classes, cells/s: the link's, not
    /// part of the description.
    #[serde(skip)]
    pub link_cells_per_s: f64,
    /// An interval ends after this many ABR input cells ...
    pub interval_cells: u64,
    /// ... or after this long, whichever comes first.
    #[serde(rename = "interval_ps")]
    pub interval_time: Duration,
    /// Target ABR queueing delay T0; Q0 = T0 · ABR capacity.
    #[serde(rename = "t0_ps")]
    pub t0: Duration,
    /// Curve parameter of the branch q > Q0 (queue above target).
    pub a: f64,
    /// Curve parameter of the branch 0 ≤ q ≤ Q0 (queue below target).
    pub b: f64,
    /// Queue drain limit factor: lower bound of the queue-control factor.
    pub qdlf: f64,
    /// Overload hysteresis: `z > 1 + delta` counts as overload. [R ≈ 0.1]
    pub delta: f64,
    /// Exponential averaging weight of the load factor; 1.0 = none
    /// (the study does not mention smoothing).
    pub z_alpha: f64,
    /// Count a VC as active when its BRM passes during the interval, so
    /// VCs sending < 1 cell per interval are not missed. [R, default off]
    pub bidirectional_counting: bool,
    #[serde(rename = "ccr")]
    pub ccr_source: CcrSource,
}

impl EricaConfig {
    /// The study's parameters on a link of `link` (line rate, all 53 bytes
    /// of each cell counted).
    pub fn paper(link: Rate) -> EricaConfig {
        EricaConfig {
            link_cells_per_s: link.bps / CELL_BITS,
            interval_cells: 500,
            interval_time: Duration::from_millis(5),
            t0: Duration::from_secs_f64(500e-6),
            a: 1.15,
            b: 1.05,
            qdlf: 0.5,
            delta: 0.1,
            z_alpha: 1.0,
            bidirectional_counting: false,
            ccr_source: CcrSource::RmField,
        }
    }

    /// Refuses parameters the algorithm cannot run with.
    pub fn check(&self) -> Result<(), String> {
        let ok = self.interval_cells > 0
            && self.interval_time.ps() > 0
            && self.a > 1.0
            && self.b > 1.0
            && (0.0..=1.0).contains(&self.qdlf)
            && self.delta >= 0.0
            && self.z_alpha > 0.0
            && self.z_alpha <= 1.0;
        if !ok {
            return Err(
                "need interval > 0, a > 1, b > 1, 0 <= QDLF <= 1, delta >= 0, 0 < z_alpha <= 1"
                    .into(),
            );
        }
        if !(self.link_cells_per_s > 0.0 && self.link_cells_per_s.is_finite()) {
            return Err("ERICA+ needs a constant, positive link rate".into());
        }
        Ok(())
    }
}

/// ERICA+ queue-control factor f(q) (REFERENCE §1.2): b at q = 0, 1 at
/// q = Q0, falling towards 0 above Q0, never below QDLF.
pub fn queue_control_factor(q: f64, q0: f64, a: f64, b: f64, qdlf: f64) -> f64 {
    if q0 <= 0.0 {
        // No ABR capacity: any queue is infinitely far above target.
        return if q <= 0.0 { b } else { qdlf };
    }
    let f = if q <= q0 {
        b * q0 / ((b - 1.0) * q + q0)
    } else {
        a * q0 / ((a - 1.0) * q + q0)
    };
    f.max(qdlf)
}

#[derive(Clone, Debug, Default)]
struct VcState {
    /// Rate used for VCShare, cells/s.
    ccr: f64,
    cells_this_interval: u64,
    seen_this_interval: bool,
    active_last_interval: bool,
}

#[derive(Clone, Debug)]
pub struct EricaPlus {
    cfg: EricaConfig,
    vcs: Vec<VcState>,
    // Measurements of the interval in progress.
    start: Time,
    abr_cells: u64,
    vbr_cells: u64,
    queue_cells: f64,
    // Results of the last completed interval.
    abr_capacity: f64,
    target_cap: f64,
    z: f64,
    fair_share: f64,
    n_active: u32,
    max_alloc_previous: f64,
    max_alloc_current: f64,
    intervals: u64,
}

impl EricaPlus {
    /// Before the first interval has been measured the port behaves as if
    /// one VC were exactly loading an empty link (z = 1), so the first BRMs
    /// may grant up to the target capacity; sources start at ICR anyway.
    pub fn new(cfg: EricaConfig, now: Time) -> EricaPlus {
        let abr_capacity = cfg.link_cells_per_s;
        let target_cap = cfg.b.max(cfg.qdlf) * abr_capacity;
        EricaPlus {
            cfg,
            vcs: Vec::new(),
            start: now,
            abr_cells: 0,
            vbr_cells: 0,
            queue_cells: 0.0,
            abr_capacity,
            target_cap,
            z: 1.0,
            fair_share: target_cap,
            n_active: 0,
            max_alloc_previous: target_cap,
            max_alloc_current: target_cap,
            intervals: 0,
        }
    }

    pub fn config(&self) -> &EricaConfig {
        &self.cfg
    }

    fn vc_mut(&mut self, vc: u32) -> &mut VcState {
        let i = vc as usize;
        if i >= self.vcs.len() {
            self.vcs.resize(i + 1, VcState::default());
        }
        &mut self.vcs[i]
    }

    /// An ABR cell of `vc` arrived for this output port.
    pub fn on_abr_input_cell(&mut self, _now: Time, vc: u32) {
        self.abr_cells += 1;
        let s = self.vc_mut(vc);
        s.cells_this_interval += 1;
        s.seen_this_interval = true;
    }

    /// An ABR cell that loads this port but belongs to no VC controlled
    /// here (a BRM of a VC flowing the other way): it counts in the input
    /// rate, not in any VC's activity.
    pub fn on_abr_transit_cell(&mut self, _now: Time) {
        self.abr_cells += 1;
    }

    /// `n` higher-priority (CBR/VBR) cells arrived for this port; what they
    /// use is not available to ABR. Counted on arrival: VBR is served first,
    /// so over an interval what arrives is what leaves.
    pub fn on_vbr_cells(&mut self, _now: Time, n: u64) {
        self.vbr_cells += n;
    }

    /// The current ABR queue length; the value at the end of the interval
    /// drives the queue-control function.
    pub fn on_queue_length(&mut self, q_cells: u64) {
        self.queue_cells = q_cells as f64;
    }

    /// A forward RM cell of `vc` with CCR field `ccr` (cells/s) passed; the
    /// cell itself is forwarded unchanged.
    pub fn on_frm(&mut self, vc: u32, ccr: f64) {
        if self.cfg.ccr_source == CcrSource::RmField {
            self.vc_mut(vc).ccr = ccr;
        }
    }

    /// When the interval ends by time if the cell count is not reached.
    pub fn interval_deadline(&self) -> Time {
        self.start + self.cfg.interval_time
    }

    pub fn end_interval_due(&self, now: Time) -> bool {
        self.abr_cells >= self.cfg.interval_cells || now >= self.interval_deadline()
    }

    /// Close the averaging interval ending at `now` (REFERENCE §1.1-1.3).
    pub fn end_interval(&mut self, now: Time) {
        // A zero-length interval cannot give a rate; 1 ps keeps it finite.
        let len = now.since(self.start).as_secs_f64().max(1e-12);
        let abr_input_rate = self.abr_cells as f64 / len;
        let vbr_rate = self.vbr_cells as f64 / len;
        self.abr_capacity = (self.cfg.link_cells_per_s - vbr_rate).max(0.0);
        let q0 = self.cfg.t0.as_secs_f64() * self.abr_capacity;
        let f = queue_control_factor(self.queue_cells, q0, self.cfg.a, self.cfg.b, self.cfg.qdlf);
        self.target_cap = f * self.abr_capacity;

        let z_now = if self.target_cap > 0.0 {
            abr_input_rate / self.target_cap
        } else {
            f64::INFINITY
        };
        let alpha = self.cfg.z_alpha;
        self.z = if alpha >= 1.0 || !self.z.is_finite() || !z_now.is_finite() {
            z_now
        } else {
            (1.0 - alpha) * self.z + alpha * z_now
        };

        let measured = self.cfg.ccr_source == CcrSource::Measured;
        let mut n_active = 0u32;
        for s in &mut self.vcs {
            if measured {
                s.ccr = s.cells_this_interval as f64 / len;
            }
            s.active_last_interval = s.seen_this_interval;
            n_active += u32::from(s.seen_this_interval);
            s.seen_this_interval = false;
            s.cells_this_interval = 0;
        }
        self.n_active = n_active;
        self.fair_share = self.target_cap / f64::from(n_active.max(1));
        self.max_alloc_previous = self.max_alloc_current;
        self.max_alloc_current = self.fair_share;

        self.start = now;
        self.abr_cells = 0;
        self.vbr_cells = 0;
        self.intervals += 1;
    }

    /// A backward RM cell of `vc` carrying `er_in` (cells/s) passes; returns
    /// the ER to write into it (REFERENCE §1.5), never above `er_in`.
    pub fn on_brm(&mut self, vc: u32, er_in: f64) -> f64 {
        let bidirectional = self.cfg.bidirectional_counting;
        let s = self.vc_mut(vc);
        if bidirectional {
            s.seen_this_interval = true;
        }
        let ccr = s.ccr;
        let vc_share = if self.z > 0.0 {
            ccr / self.z
        } else if ccr > 0.0 {
            f64::INFINITY
        } else {
            0.0
        };
        let mut er = if self.z > 1.0 + self.cfg.delta {
            self.fair_share.max(vc_share)
        } else {
            self.fair_share.max(vc_share).max(self.max_alloc_previous)
        };
        self.max_alloc_current = self.max_alloc_current.max(er);
        // A VC below the fair share may rise only to it, not jump past it.
        if er > self.fair_share && ccr < self.fair_share {
            er = self.fair_share;
        }
        er = er.min(self.target_cap);
        er_in.min(er)
    }

    // Results of the last completed interval.

    /// Load (overload) factor z.
    pub fn load_factor(&self) -> f64 {
        self.z
    }
    pub fn fair_share(&self) -> f64 {
        self.fair_share
    }
    pub fn target_capacity(&self) -> f64 {
        self.target_cap
    }
    pub fn abr_capacity(&self) -> f64 {
        self.abr_capacity
    }
    pub fn n_active(&self) -> u32 {
        self.n_active
    }
    pub fn max_alloc_previous(&self) -> f64 {
        self.max_alloc_previous
    }
    pub fn intervals(&self) -> u64 {
        self.intervals
    }
    /// `vc` sent at least one cell (or BRM, if bidirectional) in the last
    /// completed interval.
    pub fn is_active(&self, vc: u32) -> bool {
        self.vcs
            .get(vc as usize)
            .is_some_and(|s| s.active_last_interval)
    }
    /// Rate currently used as the VC's CCR, cells/s.
    pub fn ccr(&self, vc: u32) -> f64 {
        self.vcs.get(vc as usize).map_or(0.0, |s| s.ccr)
    }
}

/// ERICA+ as a switch output port. Priority-0 PDUs are the higher-priority
/// (VBR) load, counted in the cells they would fill; priority-1 cells of a
/// VC are that VC's ABR input (FRMs also carry its CCR); anything else at
/// priority 1 (BRMs of VCs flowing the other way, plain packets) loads the
/// port without belonging to a VC controlled here.
impl Port for EricaPlus {
    fn ingress(&mut self, cx: &mut PortCx<'_>, p: &mut Pdu) -> Admit {
        let now = cx.now;
        if p.priority == 0 {
            self.on_vbr_cells(now, u64::from(p.bytes.div_ceil(CELL_BYTES)));
        } else {
            match &p.header {
                Header::Rm(h) if h.dir == RmDir::Backward => self.on_abr_transit_cell(now),
                Header::Rm(h) => {
                    self.on_frm(u32::from(h.vci), h.ccr);
                    self.on_abr_input_cell(now, u32::from(h.vci));
                }
                Header::AtmCell(h) => self.on_abr_input_cell(now, u32::from(h.vci)),
                _ => self.on_abr_transit_cell(now),
            }
        }
        if self.end_interval_due(now) {
            self.close_interval(cx);
        }
        Admit::Pass
    }

    fn backward(&mut self, _now: Time, p: &mut Pdu) {
        if let Header::Rm(h) = &mut p.header {
            h.er = self.on_brm(u32::from(h.vci), h.er);
        }
    }

    fn poll_at(&self) -> Time {
        self.interval_deadline()
    }

    fn poll(&mut self, cx: &mut PortCx<'_>) {
        if self.end_interval_due(cx.now) {
            self.close_interval(cx);
        }
    }
}

impl EricaPlus {
    /// The queue-control function reads the ABR (priority-1) queue as the
    /// interval closes.
    fn close_interval(&mut self, cx: &PortCx<'_>) {
        self.on_queue_length(cx.link.queue().packets_at(1));
        self.end_interval(cx.now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const C: f64 = 100_000.0; // cells/s: 500 cells per 5 ms interval

    fn cfg() -> EricaConfig {
        EricaConfig {
            link_cells_per_s: C,
            // Intervals end by time in these tests, so rates are exact.
            interval_cells: 1_000_000,
            ..EricaConfig::paper(Rate::from_bps(C * CELL_BITS))
        }
    }

    fn close(x: f64, y: f64) -> bool {
        (x - y).abs() <= 1e-9 * y.abs().max(1.0)
    }

    /// One interval in which each VC sends at `rates[i]` and reports it in an
    /// FRM; returns the ER each gets back from a BRM carrying a huge ER.
    fn run_interval(e: &mut EricaPlus, now: &mut Time, rates: &[f64], q: u64) -> Vec<f64> {
        let dt = e.config().interval_time;
        for (vc, &r) in rates.iter().enumerate() {
            e.on_frm(vc as u32, r);
            let cells = (r * dt.as_secs_f64()).round() as u64;
            for _ in 0..cells {
                e.on_abr_input_cell(*now, vc as u32);
            }
        }
        e.on_queue_length(q);
        *now += dt;
        assert!(e.end_interval_due(*now));
        e.end_interval(*now);
        (0..rates.len())
            .map(|vc| e.on_brm(vc as u32, 1e12))
            .collect()
    }

    /// Queue held at Q0 = T0 · C = 50 cells, so f = 1 and target = C.
    const Q_AT_Q0: u64 = 50;

    #[test]
    fn paper_config_converts_line_rate_to_cells() {
        let c = EricaConfig::paper(Rate::from_bps(149.76e6));
        assert!((c.link_cells_per_s - 353_207.547).abs() < 1e-2);
        assert_eq!(c.interval_cells, 500);
        assert_eq!(c.interval_time, Duration::from_millis(5));
        assert_eq!(c.t0, Duration(500_000_000));
    }

    #[test]
    fn single_vc_converges_to_target_from_below_and_above() {
        for start in [0.1 * C, 2.0 * C] {
            let mut e = EricaPlus::new(cfg(), Time::ZERO);
            let mut now = Time::ZERO;
            let mut r = start;
            for _ in 0..5 {
                r = run_interval(&mut e, &mut now, &[r], Q_AT_Q0)[0];
            }
            assert!(close(e.target_capacity(), C));
            assert!(close(e.fair_share(), C));
            assert!(close(r, C), "start {start}: er {r}");
            assert!(close(e.load_factor(), 1.0));
        }
    }

    #[test]
    fn equal_demand_vcs_get_equal_max_min_share() {
        let n = 4;
        let mut e = EricaPlus::new(cfg(), Time::ZERO);
        let mut now = Time::ZERO;
        let mut rates = vec![0.05 * C, 0.1 * C, 0.6 * C, 0.9 * C];
        for _ in 0..40 {
            rates = run_interval(&mut e, &mut now, &rates, Q_AT_Q0);
        }
        assert_eq!(e.n_active(), n);
        assert!(close(e.fair_share(), C / n as f64));
        // Equal to each other exactly; equal to C/N within the quantisation
        // of the measured input (one cell per 5 ms interval = 200 cells/s).
        for r in &rates {
            assert_eq!(*r, rates[0]);
            assert!((r - C / n as f64).abs() < 200.0, "{rates:?}");
        }
    }

    #[test]
    fn queue_control_factor_matches_reference_formula() {
        let (a, b, qdlf, q0) = (1.15, 1.05, 0.5, 50.0);
        let f = |q: f64| queue_control_factor(q, q0, a, b, qdlf);
        assert!(close(f(0.0), b));
        assert!(close(f(25.0), 1.05 / 1.025));
        assert!(close(f(q0), 1.0));
        assert!(close(f(100.0), 1.15 / 1.3));
        // 1.15 / 2.5 = 0.46 < QDLF: the floor applies.
        assert!(close(f(500.0), qdlf));
        assert!(close(f(1e9), qdlf));
    }

    #[test]
    fn queue_above_target_reduces_target_capacity() {
        let mut e = EricaPlus::new(cfg(), Time::ZERO);
        let mut now = Time::ZERO;
        run_interval(&mut e, &mut now, &[C], 100);
        assert!(close(e.target_capacity(), C * 1.15 / 1.3));
        run_interval(&mut e, &mut now, &[C], 0);
        assert!(close(e.target_capacity(), C * 1.05));
        let er = run_interval(&mut e, &mut now, &[C], 10_000)[0];
        assert!(close(e.target_capacity(), 0.5 * C));
        // z = 2 is overload: ER = max(FairShare, CCR/z) = C/2.
        assert!(close(er, 0.5 * C));
    }

    #[test]
    fn vbr_load_reduces_abr_capacity() {
        let mut e = EricaPlus::new(cfg(), Time::ZERO);
        let mut now = Time::ZERO;
        // VBR at 40 % of the link: 200 cells in 5 ms.
        for _ in 0..200 {
            e.on_vbr_cells(now, 1);
        }
        let er = run_interval(&mut e, &mut now, &[0.6 * C], 0)[0];
        assert!(close(e.abr_capacity(), 0.6 * C));
        assert!(close(e.target_capacity(), 0.6 * C * 1.05));
        assert!(close(er, 0.6 * C * 1.05));
        // VBR gone: capacity back to the whole link.
        run_interval(&mut e, &mut now, &[0.6 * C], 0);
        assert!(close(e.abr_capacity(), C));
    }

    #[test]
    fn idle_vc_is_not_active_after_an_empty_interval() {
        let mut e = EricaPlus::new(cfg(), Time::ZERO);
        let mut now = Time::ZERO;
        run_interval(&mut e, &mut now, &[0.3 * C, 0.3 * C], Q_AT_Q0);
        assert_eq!(e.n_active(), 2);
        assert!(e.is_active(1));
        run_interval(&mut e, &mut now, &[0.3 * C, 0.0], Q_AT_Q0);
        assert_eq!(e.n_active(), 1);
        assert!(e.is_active(0) && !e.is_active(1));
        assert!(close(e.fair_share(), C));
    }

    #[test]
    fn bidirectional_counting_keeps_slow_vc_active() {
        let mut e = EricaPlus::new(
            EricaConfig {
                bidirectional_counting: true,
                ..cfg()
            },
            Time::ZERO,
        );
        let mut now = Time::ZERO;
        e.on_brm(7, 1e12);
        run_interval(&mut e, &mut now, &[0.3 * C], Q_AT_Q0);
        assert!(e.is_active(7));
        assert_eq!(e.n_active(), 2);
    }

    #[test]
    fn interval_ends_on_cell_count_or_time() {
        let mut c = cfg();
        c.interval_cells = 500;
        let mut e = EricaPlus::new(c, Time::ZERO);
        let t = Time::from_secs_f64(1e-3);
        for _ in 0..499 {
            e.on_abr_input_cell(t, 0);
        }
        assert!(!e.end_interval_due(t));
        e.on_abr_input_cell(t, 0);
        assert!(e.end_interval_due(t));
        e.end_interval(t);
        assert!(!e.end_interval_due(t));
        assert_eq!(e.interval_deadline(), t + Duration::from_millis(5));
        assert!(e.end_interval_due(e.interval_deadline()));
    }

    #[test]
    fn brm_never_raises_er_and_measured_ccr_works() {
        let mut e = EricaPlus::new(
            EricaConfig {
                ccr_source: CcrSource::Measured,
                ..cfg()
            },
            Time::ZERO,
        );
        let mut now = Time::ZERO;
        // on_frm is ignored with measured CCR; the cell count sets it.
        run_interval(&mut e, &mut now, &[0.4 * C], Q_AT_Q0);
        assert!(close(e.ccr(0), 0.4 * C));
        assert!(close(e.on_brm(0, 0.1 * C), 0.1 * C));
    }
}
