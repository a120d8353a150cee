//! ABR end systems: source and destination behaviour (ATM Forum TM 4.0 §5.10).
//!
//! Model of the rules as summarised in REFERENCE §2 (rule numbers below are
//! TM 4.0's): the source paces in-rate cells at its allowed cell rate (ACR),
//! inserts a forward RM (FRM) cell every Nrm cells or every Trm, and adapts
//! ACR to the backward RM (BRM) cells it gets back; the destination turns
//! FRMs around, folding in the EFCI state of the data it received.
//!
//! Rates are in cells per second. Both ends are passive, plain-data state
//! machines: the source says when it may next send (`poll_at()` /
//! `next_cell_time(now)`) and what (`send_cell(now)`); the caller supplies
//! the backlog (`enqueue_cells(n)`) and feeds back BRMs (`on_brm`).
//!
//! The end system's source also sends, in rate, the BRMs its destination
//! side turned around for the VC coming the other way (rule 3b): the caller
//! hands them over with `turn_around`.
//!
//! Not modelled: destination-generated BRMs (destination rule 4), and
//! CLP/EFCI marking, which belong to the cell header the caller builds.

use super::cell::cell_rate_as_bps;
use crate::engine::{Check, ConfigError, Duration, Time};
pub(crate) use crate::net::pdu::{RmDir, RmHeader as RmCell};
use serde::{Deserialize, Serialize};

impl RmCell {
    /// A source's FRM (rule 10): ER = PCR, CI = NI = BN = 0. The VC that
    /// sends it fills in VPI/VCI.
    pub(crate) fn forward(ccr: f64, mcr: f64, pcr: f64) -> RmCell {
        RmCell {
            er: pcr,
            ccr,
            mcr,
            ..RmCell::default()
        }
    }
}

/// Negotiated ABR parameters (REFERENCE §2.1). Rates in cells/s; in a
/// scenario description (`tcp[].abr`) they are cell line rates in bit/s.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct AbrConfig {
    #[serde(rename = "pcr_bps", with = "cell_rate_as_bps")]
    pub(crate) pcr: f64,
    #[serde(rename = "mcr_bps", with = "cell_rate_as_bps")]
    pub(crate) mcr: f64,
    #[serde(rename = "icr_bps", with = "cell_rate_as_bps")]
    pub(crate) icr: f64,
    pub(crate) rif: f64,
    pub(crate) rdf: f64,
    pub(crate) nrm: u32,
    pub(crate) mrm: u32,
    #[serde(rename = "trm_ps")]
    pub(crate) trm: Duration,
    pub(crate) cdf: f64,
    pub(crate) tbe: u64,
    /// Missing-RM count; `ceil(TBE / Nrm)` when not given (`crm()`).
    #[serde(default)]
    pub(crate) crm: Option<u64>,
    #[serde(rename = "adtf_ps")]
    pub(crate) adtf: Duration,
    /// Tagged cell rate: the out-of-rate FRM rate once ACR < TCR (rule 11).
    #[serde(rename = "tcr_bps", with = "cell_rate_as_bps")]
    pub(crate) tcr: f64,
}

impl AbrConfig {
    /// TM 4.0 defaults for everything but the negotiated rates.
    #[cfg(test)]
    pub(crate) fn new(pcr: f64, mcr: f64, icr: f64) -> AbrConfig {
        let nrm = 32;
        let tbe = (1 << 24) - 1;
        AbrConfig {
            pcr,
            mcr,
            icr,
            rif: 1.0 / 16.0,
            rdf: 1.0 / 16.0,
            nrm,
            mrm: 2,
            trm: Duration::from_millis(100),
            cdf: 1.0 / 16.0,
            tbe,
            crm: None,
            adtf: Duration::from_millis(500),
            tcr: 10.0,
        }
    }

    /// The missing-RM count CRM of rule 6: given, or ceil(TBE / Nrm).
    pub(crate) fn crm(&self) -> u64 {
        self.crm
            .unwrap_or(self.tbe.div_ceil(u64::from(self.nrm.max(1))))
            .max(1)
    }
}

impl Check for AbrConfig {
    /// Refuses parameters the source rules cannot run with.
    fn check(&self) -> Result<(), ConfigError> {
        let numbers = [
            self.pcr, self.mcr, self.icr, self.tcr, self.rif, self.rdf, self.cdf,
        ];
        if numbers.iter().any(|x| !x.is_finite()) {
            return Err("rates and factors must be finite".into());
        }
        if !(self.pcr > 0.0 && 0.0 <= self.mcr && self.mcr <= self.icr && self.icr <= self.pcr) {
            return Err("rates need 0 <= MCR <= ICR <= PCR and PCR > 0".into());
        }
        if [self.rif, self.rdf, self.cdf]
            .iter()
            .any(|f| !(0.0..=1.0).contains(f))
        {
            return Err("RIF, RDF and CDF must be in [0, 1]".into());
        }
        if self.nrm < 2 || self.mrm < 1 || self.tbe == 0 || self.tcr <= 0.0 {
            return Err("need Nrm >= 2, Mrm >= 1, TBE >= 1 and TCR > 0".into());
        }
        // TCR paces the out-of-rate RM cells of a source held below it: a
        // rate above PCR is no limit, and past ~1e15 cells/s a 0 ps spacing
        // would stop the clock.
        if self.tcr > self.pcr {
            return Err("TCR must not exceed PCR".into());
        }
        if self.crm == Some(0) {
            return Err("CRM must be at least 1".into());
        }
        Ok(())
    }
}

/// What the source puts on the wire next.
#[derive(Copy, Clone, Debug, PartialEq)]
pub(crate) enum CellKind {
    Data,
    /// An in-rate FRM (CLP = 0).
    Frm(RmCell),
    /// An out-of-rate FRM (CLP = 1), sent at TCR while ACR < TCR (rule 11).
    OutOfRateFrm(RmCell),
    /// A turned-around BRM of the VC coming the other way (rule 3b).
    Brm(RmCell),
}

#[derive(Clone, Debug, Default)]
pub(crate) struct AbrSourceStats {
    pub(crate) data_cells: u64,
    pub(crate) frm_cells: u64,
    pub(crate) out_of_rate_frms: u64,
    /// BRMs received (rules 8-9).
    pub(crate) brm_cells: u64,
    /// Turned-around BRMs sent for the VC coming the other way (rule 3b).
    pub(crate) turned_around: u64,
    /// Turned-around BRMs replaced by a newer one before they could go.
    pub(crate) turnarounds_overwritten: u64,
}

pub(crate) struct AbrSource {
    cfg: AbrConfig,
    acr: f64,
    backlog: u64,
    /// In-rate cells sent since the last in-rate FRM (the FRM excluded).
    cells_since_frm: u32,
    /// `None` until the first FRM, which makes the first cell an FRM (rule 2).
    last_frm: Option<Time>,
    /// In-rate FRMs sent since the last BRM with BN = 0 (rule 6).
    frms_since_brm: u64,
    /// The spacing is recomputed from the current ACR, so a BRM that raises
    /// ACR takes effect on the very next cell.
    last_sent: Option<Time>,
    /// The one BRM waiting to be turned around (destination rule 3: a newer
    /// FRM overwrites it).
    turnaround: Option<RmCell>,
    brm_since_frm: bool,
    pub stats: AbrSourceStats,
}

impl AbrSource {
    pub(crate) fn new(cfg: AbrConfig) -> AbrSource {
        if let Err(why) = cfg.check() {
            panic!("invalid ABR parameters: {why}");
        }
        AbrSource {
            acr: cfg.icr,
            cfg,
            backlog: 0,
            cells_since_frm: 0,
            last_frm: None,
            frms_since_brm: 0,
            last_sent: None,
            turnaround: None,
            brm_since_frm: false,
            stats: AbrSourceStats::default(),
        }
    }

    /// Allowed cell rate, cells/s.
    pub(crate) fn acr(&self) -> f64 {
        self.acr
    }

    #[cfg(test)]
    pub(crate) fn backlog(&self) -> u64 {
        self.backlog
    }

    /// Data cells handed over by the layer above.
    pub(crate) fn enqueue_cells(&mut self, n: u64) {
        self.backlog += n;
    }

    /// A BRM to send back for the VC coming the other way (rule 3b); it
    /// replaces one still waiting.
    pub(crate) fn turn_around(&mut self, brm: RmCell) {
        if self.turnaround.replace(brm).is_some() {
            self.stats.turnarounds_overwritten += 1;
        }
    }

    fn has_work(&self) -> bool {
        self.backlog > 0 || self.turnaround.is_some()
    }

    /// Rule 11: below TCR only out-of-rate FRMs go out, at TCR.
    fn out_of_rate(&self) -> bool {
        self.acr < self.cfg.tcr
    }

    /// Time between cells at the current pacing rate (rule 1).
    pub(crate) fn cell_spacing(&self) -> Duration {
        let rate = if self.out_of_rate() {
            self.cfg.tcr
        } else {
            self.acr
        };
        // At least the clock's tick: a spacing of 0 would stop time.
        Duration::from_secs_f64(1.0 / rate).max(Duration(1))
    }

    /// When the source next wants to send; `Time::NEVER` with neither data
    /// nor a BRM to turn around.
    pub(crate) fn poll_at(&self) -> Time {
        if !self.has_work() {
            return Time::NEVER;
        }
        match self.last_sent {
            None => Time::ZERO,
            Some(t) => t + self.cell_spacing(),
        }
    }

    #[cfg(test)]
    pub(crate) fn next_cell_time(&self, now: Time) -> Time {
        self.poll_at().max(now)
    }

    /// Rule 2 / rule 3a, plus a fresh FRM after an idle period longer than
    /// ADTF so the use-it-or-lose-it reset (rule 5) applies before any data.
    fn frm_due(&self, now: Time) -> bool {
        let Some(last) = self.last_frm else {
            return true;
        };
        let elapsed = now.since(last);
        self.cells_since_frm + 1 >= self.cfg.nrm
            || (self.cells_since_frm >= self.cfg.mrm && elapsed >= self.cfg.trm)
            || elapsed > self.cfg.adtf
    }

    /// Sends the next cell if one is due at `now`; `None` when there is no
    /// backlog or the pacing interval has not yet elapsed.
    pub(crate) fn send_cell(&mut self, now: Time) -> Option<CellKind> {
        if now < self.poll_at() {
            return None;
        }
        self.last_sent = Some(now);
        if self.out_of_rate() {
            // Out-of-rate FRMs do not count as in-rate cells (rules 3, 6).
            self.stats.out_of_rate_frms += 1;
            let rm = RmCell::forward(self.acr, self.cfg.mcr, self.cfg.pcr);
            return Some(CellKind::OutOfRateFrm(rm));
        }
        if self.frm_due(now) {
            return Some(CellKind::Frm(self.send_frm(now)));
        }
        // Rule 3b: a waiting BRM goes first unless one already went since
        // the last FRM and data is waiting too.
        if self.turnaround.is_some() && (!self.brm_since_frm || self.backlog == 0) {
            let brm = self.turnaround.take().expect("checked");
            self.brm_since_frm = true;
            self.cells_since_frm += 1;
            self.stats.turned_around += 1;
            return Some(CellKind::Brm(brm));
        }
        self.backlog -= 1;
        self.cells_since_frm += 1;
        self.stats.data_cells += 1;
        Some(CellKind::Data)
    }

    fn send_frm(&mut self, now: Time) -> RmCell {
        // Rule 5, use-it-or-lose-it: a source that was idle must not
        // return at a rate the network granted long ago.
        if let Some(last) = self.last_frm {
            if self.acr > self.cfg.icr && now.since(last) > self.cfg.adtf {
                self.acr = self.cfg.icr;
            }
        }
        // Rule 6: too many FRMs unanswered means the feedback path is
        // broken or congested, so back off blind.
        if self.frms_since_brm >= self.cfg.crm() {
            self.acr = (self.acr - self.acr * self.cfg.cdf).max(self.cfg.mcr);
        }
        self.last_frm = Some(now);
        self.cells_since_frm = 0;
        self.brm_since_frm = false;
        self.frms_since_brm += 1;
        self.stats.frm_cells += 1;
        // Rule 7: the FRM carries the rate it was (re)computed to.
        RmCell::forward(self.acr, self.cfg.mcr, self.cfg.pcr)
    }

    /// Rules 8 and 9 on a returning BRM.
    pub(crate) fn on_brm(&mut self, _now: Time, rm: &RmCell) {
        debug_assert_eq!(rm.dir, RmDir::Backward, "on_brm given an FRM");
        self.stats.brm_cells += 1;
        if !rm.bn {
            self.frms_since_brm = 0;
        }
        let (mcr, pcr) = (self.cfg.mcr, self.cfg.pcr);
        if rm.ci {
            self.acr = (self.acr - self.acr * self.cfg.rdf).max(mcr);
        } else if !rm.ni {
            self.acr = (self.acr + self.cfg.rif * pcr).min(pcr);
        }
        self.acr = self.acr.min(rm.er).clamp(mcr, pcr);
    }
}

/// The destination end of an ABR VC (REFERENCE §2.4).
#[derive(Clone, Debug, Default)]
pub(crate) struct AbrDestination {
    /// EFCI bit of the last data cell received (rule 1).
    efci: bool,
    /// Only one turned-around BRM waits per VC (rule 3).
    pending: Option<RmCell>,
    pub(crate) brms_overwritten: u64,
}

impl AbrDestination {
    pub(crate) fn new() -> AbrDestination {
        AbrDestination::default()
    }

    pub(crate) fn on_data(&mut self, efci: bool) {
        self.efci = efci;
    }

    /// Rule 2: turn the FRM around, ER/CCR/MCR/NI kept, CI raised if the
    /// data path saw congestion (EFCI), which is then forgotten so one
    /// marked cell yields one CI.
    pub(crate) fn on_frm(&mut self, frm: &RmCell) {
        debug_assert_eq!(frm.dir, RmDir::Forward, "on_frm given a BRM");
        let brm = RmCell {
            dir: RmDir::Backward,
            bn: false,
            ci: frm.ci || self.efci,
            ..*frm
        };
        self.efci = false;
        if self.pending.replace(brm).is_some() {
            self.brms_overwritten += 1;
        }
    }

    /// The BRM waiting to be sent back, if any.
    pub(crate) fn take_brm(&mut self) -> Option<RmCell> {
        self.pending.take()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tcr_above_pcr_is_refused_and_a_spacing_is_never_zero() {
        // 1e15 cells/s spaced 0 ps apart: simulated time stood still.
        let mut cfg = AbrConfig::new(PCR, 0.0, PCR);
        cfg.tcr = 1e15;
        assert!(cfg.check().unwrap_err().to_string().contains("TCR"));
        cfg.tcr = PCR;
        cfg.pcr = 1e15;
        cfg.icr = 1e15;
        let s = AbrSource::new(cfg);
        assert!(s.cell_spacing().ps() >= 1);
    }

    #[test]
    fn rule_3b_a_waiting_brm_goes_once_per_frm_cycle_before_data() {
        let mut s = AbrSource::new(AbrConfig::new(PCR, 0.0, PCR));
        s.enqueue_cells(100);
        let brm = RmCell {
            dir: RmDir::Backward,
            ..RmCell::forward(1.0, 0.0, PCR)
        };
        let mut kinds = vec![];
        let mut t = Time::ZERO;
        for k in 0..40 {
            if k == 1 || k == 5 || k == 6 {
                s.turn_around(brm);
            }
            t = s.next_cell_time(t);
            kinds.push(match s.send_cell(t).unwrap() {
                CellKind::Frm(_) => 'F',
                CellKind::Brm(_) => 'B',
                CellKind::Data => 'd',
                CellKind::OutOfRateFrm(_) => 'o',
            });
        }
        let seq: String = kinds.into_iter().collect();
        // FRM first (rule 2); the first BRM at once; the one handed over at
        // cell 5 (overwritten at 6) waits for the next FRM, which comes
        // after Nrm - 1 = 31 in-rate cells, the BRM among them (rule 3a).
        assert_eq!(&seq[..8], "FBdddddd");
        assert_eq!(seq.find('F').unwrap(), 0);
        assert_eq!(&seq[32..34], "FB");
        assert_eq!(s.stats.turned_around, 2);
        assert_eq!(s.stats.turnarounds_overwritten, 1);
    }

    const PCR: f64 = 353_207.55; // OC-3 payload, cells/s
    const ICR: f64 = 35_000.0;
    const MCR: f64 = 1_000.0;

    fn source() -> AbrSource {
        AbrSource::new(AbrConfig::new(PCR, MCR, ICR))
    }

    fn brm(er: f64, ci: bool, ni: bool) -> RmCell {
        RmCell {
            dir: RmDir::Backward,
            bn: false,
            ci,
            ni,
            er,
            ccr: ICR,
            mcr: MCR,
            ..RmCell::default()
        }
    }

    /// Sends `n` cells as fast as pacing allows; returns the cells and times.
    fn drain(src: &mut AbrSource, n: usize) -> Vec<(Time, CellKind)> {
        let mut out = Vec::new();
        let mut now = Time::ZERO;
        for _ in 0..n {
            now = src.next_cell_time(now);
            out.push((now, src.send_cell(now).expect("cell due")));
        }
        out
    }

    #[test]
    fn abr_acr_starts_at_icr_and_stays_within_mcr_pcr() {
        let mut src = source();
        assert_eq!(src.acr(), ICR);
        for _ in 0..200 {
            src.on_brm(Time::ZERO, &brm(1e12, false, false));
            assert!(src.acr() <= PCR);
        }
        assert_eq!(src.acr(), PCR);
        for _ in 0..2000 {
            src.on_brm(Time::ZERO, &brm(PCR, true, false));
            assert!(src.acr() >= MCR);
        }
        assert_eq!(src.acr(), MCR);
        src.on_brm(Time::ZERO, &brm(0.0, false, false));
        assert_eq!(src.acr(), MCR, "ER below MCR does not push ACR under MCR");
    }

    #[test]
    fn abr_one_frm_per_nrm_cells_first_cell_is_frm() {
        let mut src = source();
        src.enqueue_cells(10_000);
        let cells = drain(&mut src, 320);
        let frm_at: Vec<usize> = cells
            .iter()
            .enumerate()
            .filter(|(_, (_, k))| matches!(k, CellKind::Frm(_)))
            .map(|(i, _)| i)
            .collect();
        assert_eq!(frm_at, (0..10).map(|i| i * 32).collect::<Vec<_>>());
        assert_eq!(src.stats.data_cells, 310);
        assert_eq!(src.backlog(), 10_000 - 310);
    }

    #[test]
    fn abr_trm_forces_frm_after_mrm_cells_at_low_rate() {
        // 20 cells/s: 32 cells would take 1.6 s, so Trm = 100 ms rules.
        let mut src = AbrSource::new(AbrConfig::new(PCR, 0.0, 20.0));
        src.enqueue_cells(100);
        let cells = drain(&mut src, 7);
        let kinds: Vec<bool> = cells
            .iter()
            .map(|(_, k)| matches!(k, CellKind::Frm(_)))
            .collect();
        // FRM, then Mrm = 2 data cells (each 50 ms apart, so Trm has passed).
        assert_eq!(kinds, [true, false, false, true, false, false, true]);
    }

    #[test]
    fn abr_cell_spacing_is_one_over_acr() {
        let mut src = source();
        src.enqueue_cells(100);
        let cells = drain(&mut src, 3);
        let gap = Duration::from_secs_f64(1.0 / ICR);
        assert_eq!(src.cell_spacing(), gap);
        assert_eq!(cells[1].0, Time::ZERO + gap);
        assert_eq!(cells[2].0, cells[1].0 + gap);
        assert_eq!(src.send_cell(cells[2].0), None, "not before the spacing");
    }

    #[test]
    fn abr_no_backlog_no_cells() {
        let mut src = source();
        assert_eq!(src.poll_at(), Time::NEVER);
        assert_eq!(src.send_cell(Time::ZERO), None);
    }

    #[test]
    fn abr_brm_er_below_acr_sets_acr_to_er() {
        let mut src = source();
        src.on_brm(Time::ZERO, &brm(10_000.0, false, false));
        assert_eq!(src.acr(), 10_000.0);
    }

    #[test]
    fn abr_increase_by_rif_pcr_unless_ni_or_er() {
        let mut src = source();
        src.on_brm(Time::ZERO, &brm(PCR, false, false));
        assert!((src.acr() - (ICR + PCR / 16.0)).abs() < 1e-9);
        let before = src.acr();
        src.on_brm(Time::ZERO, &brm(PCR, false, true));
        assert_eq!(src.acr(), before, "NI forbids the increase");
        src.on_brm(Time::ZERO, &brm(before + 100.0, false, false));
        assert_eq!(src.acr(), before + 100.0, "increase capped at ER");
    }

    #[test]
    fn abr_ci_reduces_by_rdf() {
        let mut src = source();
        src.on_brm(Time::ZERO, &brm(PCR, true, false));
        assert!((src.acr() - ICR * (1.0 - 1.0 / 16.0)).abs() < 1e-9);
    }

    #[test]
    fn abr_crm_unanswered_frms_cut_by_cdf() {
        let mut cfg = AbrConfig::new(PCR, MCR, ICR);
        cfg.crm = Some(2);
        let mut src = AbrSource::new(cfg);
        src.enqueue_cells(1000);
        let frm_ccr = |cells: &[(Time, CellKind)]| -> Vec<f64> {
            cells
                .iter()
                .filter_map(|(_, k)| match k {
                    CellKind::Frm(rm) => Some(rm.ccr),
                    _ => None,
                })
                .collect()
        };
        let ccr = frm_ccr(&drain(&mut src, 96));
        let cut = ICR * (1.0 - 1.0 / 16.0);
        assert_eq!(ccr[..2], [ICR, ICR]);
        assert!((ccr[2] - cut).abs() < 1e-9, "third FRM sees ACR cut by CDF");
        // A BN = 0 BRM resets the count (with ER = ACR so the rate holds).
        src.on_brm(Time::ZERO, &brm(src.acr(), false, true));
        assert_eq!(src.frms_since_brm, 0);
    }

    #[test]
    fn abr_adtf_idle_resets_acr_to_icr() {
        let mut src = source();
        src.enqueue_cells(1);
        let t0 = src.next_cell_time(Time::ZERO);
        assert!(matches!(src.send_cell(t0), Some(CellKind::Frm(_))));
        assert_eq!(src.send_cell(src.poll_at()), Some(CellKind::Data));
        src.on_brm(Time::ZERO, &brm(PCR, false, false));
        assert!(src.acr() > ICR);
        // Idle for longer than ADTF (0.5 s), then new data.
        let later = Time::from_secs_f64(0.6);
        src.enqueue_cells(5);
        match src.send_cell(later) {
            Some(CellKind::Frm(rm)) => assert_eq!(rm.ccr, ICR),
            other => panic!("expected an FRM after idle, got {other:?}"),
        }
        assert_eq!(src.acr(), ICR);
    }

    #[test]
    fn abr_below_tcr_sends_only_out_of_rate_frms() {
        let mut src = AbrSource::new(AbrConfig::new(PCR, 0.0, ICR));
        src.on_brm(Time::ZERO, &brm(1.0, false, false));
        assert_eq!(src.acr(), 1.0);
        src.enqueue_cells(10);
        let cells = drain(&mut src, 3);
        assert!(cells
            .iter()
            .all(|(_, k)| matches!(k, CellKind::OutOfRateFrm(_))));
        assert_eq!(cells[1].0, Time::from_secs_f64(0.1), "spaced at TCR");
        assert_eq!(src.backlog(), 10);
    }

    #[test]
    fn abr_destination_turns_frm_around_with_efci_as_ci() {
        let mut dst = AbrDestination::new();
        let frm = RmCell::forward(ICR, MCR, PCR);
        dst.on_data(true);
        dst.on_frm(&frm);
        let b = dst.take_brm().expect("BRM pending");
        assert_eq!(b.dir, RmDir::Backward);
        assert!(b.ci && !b.bn && !b.ni);
        assert_eq!((b.er, b.ccr, b.mcr), (PCR, ICR, MCR));
        // The EFCI state was consumed: the next FRM comes back clean.
        dst.on_frm(&frm);
        assert!(!dst.take_brm().unwrap().ci);
        assert_eq!(dst.take_brm(), None);
    }

    #[test]
    fn abr_destination_keeps_only_latest_frm() {
        let mut dst = AbrDestination::new();
        dst.on_frm(&RmCell::forward(1.0e4, MCR, PCR));
        dst.on_frm(&RmCell::forward(2.0e4, MCR, PCR));
        assert_eq!(dst.brms_overwritten, 1);
        assert_eq!(dst.take_brm().unwrap().ccr, 2.0e4);
    }

    #[test]
    fn abr_closed_loop_converges_to_er() {
        let mut src = source();
        let mut dst = AbrDestination::new();
        src.enqueue_cells(100_000);
        let mut now = Time::ZERO;
        for _ in 0..20_000 {
            now = src.next_cell_time(now);
            match src.send_cell(now).unwrap() {
                CellKind::Data => dst.on_data(false),
                CellKind::Frm(mut rm) => {
                    rm.er = rm.er.min(100_000.0); // a switch's fair share
                    dst.on_frm(&rm);
                    src.on_brm(now, &dst.take_brm().unwrap());
                }
                CellKind::OutOfRateFrm(_) | CellKind::Brm(_) => unreachable!(),
            }
        }
        assert_eq!(src.acr(), 100_000.0);
    }
}
