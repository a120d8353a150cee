//! ERICA+ explicit-rate switch algorithm for one output port (REFERENCE.md
//! §1; Jain et al., "ERICA Switch Algorithm: A Complete Description",
//! ATM Forum/96-1172; Kalyanaraman's dissertation §6.19; parameters from the
//! ERICA+ / long-range-dependent VBR satellite paper: averaging interval of
//! 500 ABR input cells or 5 ms, T0 = 500 µs, a = 1.15, b = 1.05, QDLF = 0.5).
//!
//! Optional averaging across intervals, all off by default (the paper
//! mentions none), from the dissertation's §6.10-6.11 and its switch
//! pseudo-code (Appendix, pp. 399-404):
//! * `z_alpha`: exponential averaging of the load factor itself ("method 1");
//! * `rate_alpha`: exponential averaging of the interval's ABR input cells,
//!   ABR capacity in cells and length, the load factor being the ratio of
//!   the averages ("method 2": a ratio is averaged as the ratio of the
//!   averaged numerator and denominator, §6.11);
//! * `active_decay`: averaging of the number of active VCs ("Averaging VCs
//!   option"): a VC not seen in an interval still counts with a contribution
//!   that decays by this factor per interval;
//! * `ccr_source = Measured` ("Per VC CCR option"), and `ccr_alpha`: each
//!   VC's CCR exponentially averaged (an extension by the same ratio-of-
//!   averages rule; the sources above do not average the CCR).
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

#[cfg(test)]
use crate::engine::Rate;
use crate::engine::{Check, ConfigError, Duration, Time};
use crate::net::pdu::{Header, Pdu, RmDir};
use crate::net::port::{Admit, Port, PortCx};
use serde::{Deserialize, Serialize};

/// Bits in one ATM cell on the wire.
#[cfg(test)]
use super::cell::CELL_BITS;
use super::cell::CELL_BYTES;

/// Where the per-VC current cell rate used for `VCShare` comes from
/// (REFERENCE §1.4 lists both).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum CcrSource {
    /// The CCR field of the VC's latest FRM cell.
    RmField,
    /// The VC's input cell rate measured over the last averaging interval.
    Measured,
}

/// The port's parameters; in a scenario description, `links[].erica`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct EricaConfig {
    /// Output link rate available to all classes, cells/s: the link's, not
    /// part of the description.
    #[serde(skip)]
    pub(crate) link_cells_per_s: f64,
    /// An interval ends after this many ABR input cells ...
    pub(crate) interval_cells: u64,
    /// ... or after this long, whichever comes first.
    #[serde(rename = "interval_ps")]
    pub(crate) interval_time: Duration,
    /// Target ABR queueing delay T0; Q0 = T0 · ABR capacity.
    #[serde(rename = "t0_ps")]
    pub(crate) t0: Duration,
    /// Curve parameter of the branch q > Q0 (queue above target).
    pub(crate) a: f64,
    /// Curve parameter of the branch 0 ≤ q ≤ Q0 (queue below target).
    pub(crate) b: f64,
    /// Queue drain limit factor: lower bound of the queue-control factor.
    pub(crate) qdlf: f64,
    /// Overload hysteresis: `z > 1 + delta` counts as overload. [R ≈ 0.1]
    pub delta: f64,
    /// Exponential averaging weight of the load factor; 1.0 = none
    /// (the study does not mention smoothing). The dissertation's "method 1"
    /// (p. 402): z <- (1 - alpha) z + alpha z_measured, restarting from the
    /// measured value after an infinite one.
    pub(crate) z_alpha: f64,
    /// Exponential averaging weight of the interval's ABR input cells, ABR
    /// capacity in cells and length, from which the input rate, the ABR
    /// capacity and z are then computed; 1.0 = none. The dissertation's
    /// "method 2" (§6.11, pp. 400-402). An alternative to `z_alpha`: at most
    /// one of the two may be below 1.
    #[serde(default = "one")]
    pub(crate) rate_alpha: f64,
    /// Averaging of the number of active VCs (the dissertation's "Averaging
    /// VCs option", pp. 399-403): a VC seen in an interval contributes 1, one
    /// not seen contributes its previous contribution times this factor, and
    /// the fair share divides by the sum (at least 1). 0 = count only the
    /// VCs seen in the interval.
    #[serde(default)]
    pub(crate) active_decay: f64,
    /// Count a VC as active when its BRM passes during the interval, so
    /// VCs sending < 1 cell per interval are not missed. [R, default off]
    pub(crate) bidirectional_counting: bool,
    #[serde(rename = "ccr")]
    pub(crate) ccr_source: CcrSource,
    /// Exponential averaging weight of each VC's CCR; 1.0 = none. With
    /// `RmField` each FRM's CCR field is one sample; with `Measured` the
    /// VC's cells and the interval length are averaged separately and the
    /// CCR is their ratio. (Not in the ERICA sources: the ratio-of-averages
    /// rule of §6.11 applied per VC.)
    #[serde(default = "one")]
    pub(crate) ccr_alpha: f64,
}

fn one() -> f64 {
    1.0
}

impl EricaConfig {
    /// The study's parameters on a link of `link` (line rate, all 53 bytes
    /// of each cell counted).
    #[cfg(test)]
    pub(crate) fn paper(link: Rate) -> EricaConfig {
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
            rate_alpha: 1.0,
            active_decay: 0.0,
            bidirectional_counting: false,
            ccr_source: CcrSource::RmField,
            ccr_alpha: 1.0,
        }
    }
}

impl Check for EricaConfig {
    /// Refuses parameters the algorithm cannot run with.
    fn check(&self) -> Result<(), ConfigError> {
        let ok = self.interval_cells > 0
            && self.interval_time.ps() > 0
            && self.a > 1.0
            && self.b > 1.0
            && (0.0..=1.0).contains(&self.qdlf)
            && self.delta >= 0.0
            && self.z_alpha > 0.0
            && self.z_alpha <= 1.0
            && self.rate_alpha > 0.0
            && self.rate_alpha <= 1.0
            && self.ccr_alpha > 0.0
            && self.ccr_alpha <= 1.0
            && (0.0..=1.0).contains(&self.active_decay);
        if !ok {
            return Err(
                "need interval > 0, a > 1, b > 1, 0 <= QDLF <= 1, delta >= 0, \
                 0 < z_alpha, rate_alpha, ccr_alpha <= 1, 0 <= active_decay <= 1"
                    .into(),
            );
        }
        if self.z_alpha < 1.0 && self.rate_alpha < 1.0 {
            return Err(ConfigError::at(
                "rate_alpha",
                format!(
                    "z_alpha and rate_alpha are alternative averagings of the load factor: \
                     give at most one of them below 1, got {} and {}",
                    self.z_alpha, self.rate_alpha
                ),
            ));
        }
        if !(self.link_cells_per_s > 0.0 && self.link_cells_per_s.is_finite()) {
            return Err("ERICA+ needs a constant, positive link rate".into());
        }
        Ok(())
    }
}

/// ERICA+ queue-control factor f(q) (REFERENCE §1.2): b at q = 0, 1 at
/// q = Q0, falling towards 0 above Q0, never below QDLF.
pub(crate) fn queue_control_factor(q: f64, q0: f64, a: f64, b: f64, qdlf: f64) -> f64 {
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
    /// A CCR sample has been taken (the first one starts the average).
    has_ccr: bool,
    /// Averaged cells per interval (measured CCR with `ccr_alpha` < 1).
    avg_cells: f64,
    cells_this_interval: u64,
    seen_this_interval: bool,
    active_last_interval: bool,
    /// Weight in the averaged number of active VCs (`active_decay` > 0).
    contribution: f64,
}

/// Exponential average: `(1 - alpha) * avg + alpha * x`.
fn ewma(avg: f64, x: f64, alpha: f64) -> f64 {
    (1.0 - alpha) * avg + alpha * x
}

/// An averaging option's weight when it is on. The configuration spells
/// "off" as 1.0 (the newest value alone, as the TM 4.0 appendix writes the
/// options); the code below sees `None` and takes the newest value as it
/// is, not through `ewma`.
fn averaging(alpha: f64) -> Option<f64> {
    (alpha < 1.0).then_some(alpha)
}

/// Running averages of the per-interval measurements (`rate_alpha` < 1):
/// ABR input cells, ABR capacity in cells, interval length in seconds.
#[derive(Copy, Clone, Debug)]
struct RateAverages {
    input_cells: f64,
    capacity_cells: f64,
    len: f64,
}

#[derive(Clone, Debug)]
pub(crate) struct EricaPlus {
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
    /// The number of VCs the fair share divides by (averaged, at least 1).
    active_estimate: f64,
    rate_averages: Option<RateAverages>,
    /// Averaged interval length, s, for measured CCRs with `ccr_alpha` < 1.
    ccr_avg_len: Option<f64>,
    max_alloc_previous: f64,
    max_alloc_current: f64,
    intervals: u64,
}

impl EricaPlus {
    /// Before the first interval has been measured the port behaves as if
    /// one VC were exactly loading an empty link (z = 1), so the first BRMs
    /// may grant up to the target capacity; sources start at ICR anyway.
    pub(crate) fn new(cfg: EricaConfig, now: Time) -> EricaPlus {
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
            active_estimate: 1.0,
            rate_averages: None,
            ccr_avg_len: None,
            max_alloc_previous: target_cap,
            max_alloc_current: target_cap,
            intervals: 0,
        }
    }

    #[cfg(test)]
    pub(crate) fn config(&self) -> &EricaConfig {
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
    pub(crate) fn on_abr_input_cell(&mut self, _now: Time, vc: u32) {
        self.abr_cells += 1;
        let s = self.vc_mut(vc);
        s.cells_this_interval += 1;
        s.seen_this_interval = true;
        s.contribution = 1.0;
    }

    /// An ABR cell that loads this port but belongs to no VC controlled
    /// here (a BRM of a VC flowing the other way): it counts in the input
    /// rate, not in any VC's activity.
    pub(crate) fn on_abr_transit_cell(&mut self, _now: Time) {
        self.abr_cells += 1;
    }

    /// `n` higher-priority (CBR/VBR) cells arrived for this port; what they
    /// use is not available to ABR. Counted on arrival: VBR is served first,
    /// so over an interval what arrives is what leaves.
    pub(crate) fn on_vbr_cells(&mut self, _now: Time, n: u64) {
        self.vbr_cells += n;
    }

    /// The current ABR queue length; the value at the end of the interval
    /// drives the queue-control function.
    pub(crate) fn on_queue_length(&mut self, q_cells: u64) {
        self.queue_cells = q_cells as f64;
    }

    /// A forward RM cell of `vc` with CCR field `ccr` (cells/s) passed; the
    /// cell itself is forwarded unchanged.
    pub(crate) fn on_frm(&mut self, vc: u32, ccr: f64) {
        if self.cfg.ccr_source == CcrSource::RmField {
            let averaged = averaging(self.cfg.ccr_alpha);
            let s = self.vc_mut(vc);
            s.ccr = match averaged {
                Some(alpha) if s.has_ccr => ewma(s.ccr, ccr, alpha),
                _ => ccr,
            };
            s.has_ccr = true;
        }
    }

    /// When the interval ends by time if the cell count is not reached.
    pub(crate) fn interval_deadline(&self) -> Time {
        self.start + self.cfg.interval_time
    }

    pub(crate) fn end_interval_due(&self, now: Time) -> bool {
        self.abr_cells >= self.cfg.interval_cells || now >= self.interval_deadline()
    }

    /// Close the averaging interval ending at `now` (REFERENCE §1.1-1.3):
    /// the ABR input rate and capacity, the target and the load factor,
    /// each VC's CCR where measured, the number of active VCs and the fair
    /// share.
    pub(crate) fn end_interval(&mut self, now: Time) {
        // A zero-length interval cannot give a rate; 1 ps keeps it finite.
        let len = now.since(self.start).as_secs_f64().max(1e-12);
        let abr_input_rate = self.measure_rates(len);
        let q0 = self.cfg.t0.as_secs_f64() * self.abr_capacity;
        let f = queue_control_factor(self.queue_cells, q0, self.cfg.a, self.cfg.b, self.cfg.qdlf);
        self.target_cap = f * self.abr_capacity;
        self.update_load_factor(abr_input_rate);
        self.count_vcs(len);
        self.max_alloc_previous = self.max_alloc_current;
        self.max_alloc_current = self.fair_share;

        self.start = now;
        self.abr_cells = 0;
        self.vbr_cells = 0;
        self.intervals += 1;
    }

    /// The interval's ABR input rate; sets the ABR capacity. With
    /// `rate_alpha` < 1, method 2 (§6.11): the additive quantities are
    /// averaged, then divided.
    fn measure_rates(&mut self, len: f64) -> f64 {
        let Some(alpha) = averaging(self.cfg.rate_alpha) else {
            let vbr_rate = self.vbr_cells as f64 / len;
            self.abr_capacity = (self.cfg.link_cells_per_s - vbr_rate).max(0.0);
            return self.abr_cells as f64 / len;
        };
        let now_avg = RateAverages {
            input_cells: self.abr_cells as f64,
            capacity_cells: (self.cfg.link_cells_per_s * len - self.vbr_cells as f64).max(0.0),
            len,
        };
        let avg = match self.rate_averages {
            None => now_avg,
            Some(a) => RateAverages {
                input_cells: ewma(a.input_cells, now_avg.input_cells, alpha),
                capacity_cells: ewma(a.capacity_cells, now_avg.capacity_cells, alpha),
                len: ewma(a.len, now_avg.len, alpha),
            },
        };
        self.rate_averages = Some(avg);
        self.abr_capacity = avg.capacity_cells / avg.len;
        avg.input_cells / avg.len
    }

    /// z = input rate / target, averaged with `z_alpha` < 1 (method 1)
    /// while both the average and the new value are finite.
    fn update_load_factor(&mut self, abr_input_rate: f64) {
        let z_now = if self.target_cap > 0.0 {
            abr_input_rate / self.target_cap
        } else {
            f64::INFINITY
        };
        self.z = match averaging(self.cfg.z_alpha) {
            Some(alpha) if self.z.is_finite() && z_now.is_finite() => ewma(self.z, z_now, alpha),
            _ => z_now,
        };
    }

    /// Each VC's measured CCR (averaged with `ccr_alpha` < 1: its cells and
    /// the interval length separately), the VCs active in the interval and
    /// their decayed count, and the fair share.
    fn count_vcs(&mut self, len: f64) {
        let measured = self.cfg.ccr_source == CcrSource::Measured;
        let ccr_averaging = averaging(self.cfg.ccr_alpha).filter(|_| measured);
        let ccr_len = match ccr_averaging {
            Some(alpha) => {
                let l = self.ccr_avg_len.map_or(len, |a| ewma(a, len, alpha));
                self.ccr_avg_len = Some(l);
                l
            }
            None => len,
        };
        let decay = self.cfg.active_decay;
        let mut n_active = 0u32;
        let mut estimate = 0.0;
        for s in &mut self.vcs {
            if measured {
                let cells = s.cells_this_interval as f64;
                match ccr_averaging {
                    None => s.ccr = cells / len,
                    Some(alpha) => {
                        s.avg_cells = if s.has_ccr {
                            ewma(s.avg_cells, cells, alpha)
                        } else {
                            cells
                        };
                        s.has_ccr = true;
                        s.ccr = s.avg_cells / ccr_len;
                    }
                }
            }
            s.active_last_interval = s.seen_this_interval;
            n_active += u32::from(s.seen_this_interval);
            // A VC seen in the interval has contribution 1; one not seen
            // keeps what the last interval's decay left of it.
            estimate += s.contribution;
            s.contribution *= decay;
            s.seen_this_interval = false;
            s.cells_this_interval = 0;
        }
        self.n_active = n_active;
        self.fair_share = if decay > 0.0 {
            self.active_estimate = estimate.max(1.0);
            self.target_cap / self.active_estimate
        } else {
            self.active_estimate = f64::from(n_active.max(1));
            self.target_cap / f64::from(n_active.max(1))
        };
    }

    /// A backward RM cell of `vc` carrying `er_in` (cells/s) passes; returns
    /// the ER to write into it (REFERENCE §1.5), never above `er_in`.
    pub(crate) fn on_brm(&mut self, vc: u32, er_in: f64) -> f64 {
        let bidirectional = self.cfg.bidirectional_counting;
        let s = self.vc_mut(vc);
        if bidirectional {
            s.seen_this_interval = true;
            s.contribution = 1.0;
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
    pub(crate) fn load_factor(&self) -> f64 {
        self.z
    }
    pub(crate) fn fair_share(&self) -> f64 {
        self.fair_share
    }
    #[cfg(test)]
    pub(crate) fn target_capacity(&self) -> f64 {
        self.target_cap
    }
    pub(crate) fn abr_capacity(&self) -> f64 {
        self.abr_capacity
    }
    pub(crate) fn n_active(&self) -> u32 {
        self.n_active
    }
    /// The number of VCs the fair share divides by: `n_active` (at least 1),
    /// or the averaged count with `active_decay` > 0.
    #[cfg(test)]
    pub(crate) fn active_estimate(&self) -> f64 {
        self.active_estimate
    }
    pub(crate) fn intervals(&self) -> u64 {
        self.intervals
    }
    /// `vc` sent at least one cell (or BRM, if bidirectional) in the last
    /// completed interval.
    #[cfg(test)]
    pub(crate) fn is_active(&self, vc: u32) -> bool {
        self.vcs
            .get(vc as usize)
            .is_some_and(|s| s.active_last_interval)
    }
    /// Rate currently used as the VC's CCR, cells/s.
    #[cfg(test)]
    pub(crate) fn ccr(&self, vc: u32) -> f64 {
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
        if p.priority() == 0 {
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
mod tests;
