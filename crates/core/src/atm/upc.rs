//! Usage parameter control at the network access (the proactive-atm
//! thesis, section 3 and Fig. 3): for each policed VC a peak-rate
//! controller followed by a leaky bucket, each switchable, in front of the
//! access switch's transmit link. Cells of VCs without a contract pass.
//!
//! Every cell leaving the peak-rate controller, a CLP = 1 head it pushed
//! out included, is offered to the leaky bucket: the bucket polices all of
//! the VC's cells, and one already marked stays marked whether or not it
//! finds a token (docs/proactive-atm.md).

use super::leaky_bucket::{LbOutcome, LeakyBucket, LeakyBucketConfig};
use super::peak_rate::{PeakRateConfig, PeakRateController, PrcOutcome};
use crate::engine::Time;
use crate::engine::{Check, ConfigError};
use crate::net::pdu::Header;
use crate::net::port::{Admit, Port, PortCx};
use crate::net::Pdu;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A VC's traffic contract as the access enforces it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Contract {
    /// A peak-rate controller that spaces the VC's cells at the agreed peak
    /// rate; `None`: none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peak_rate: Option<PeakRateConfig>,
    /// A leaky bucket that polices the VC's mean rate and burstiness;
    /// `None`: none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub leaky_bucket: Option<LeakyBucketConfig>,
}

impl Contract {}

impl Check for Contract {
    fn check(&self) -> Result<(), ConfigError> {
        if let Some(p) = &self.peak_rate {
            p.check().map_err(|e| format!("peak_rate: {e}"))?;
        }
        if let Some(b) = &self.leaky_bucket {
            b.check().map_err(|e| format!("leaky_bucket: {e}"))?;
        }
        Ok(())
    }
}

/// One VC's policers and what they did.
#[derive(Clone, Debug)]
pub(crate) struct VcPolicer {
    prc: Option<PeakRateController>,
    lb: Option<LeakyBucket>,
}

impl VcPolicer {
    pub(crate) fn new(c: &Contract) -> VcPolicer {
        VcPolicer {
            prc: c.peak_rate.clone().map(PeakRateController::new),
            lb: c.leaky_bucket.clone().map(LeakyBucket::new),
        }
    }

    pub(crate) fn prc(&self) -> Option<&PeakRateController> {
        self.prc.as_ref()
    }

    pub(crate) fn lb(&self) -> Option<&LeakyBucket> {
        self.lb.as_ref()
    }

    fn poll_at(&self) -> Time {
        let p = self.prc.as_ref().map_or(Time::NEVER, |p| p.poll_at());
        let b = self.lb.as_ref().map_or(Time::NEVER, |b| b.poll_at());
        p.min(b)
    }

    /// A cell the peak-rate controller let go, or one arriving with no
    /// controller: on through the bucket.
    fn through_bucket(&mut self, now: Time, cell: Pdu, cx: &mut PortCx<'_>) -> Admit {
        let Some(lb) = self.lb.as_mut() else {
            cx.release.push(released(cell, now));
            return Admit::Hold;
        };
        match lb.offer(now, cell) {
            LbOutcome::Depart(p) | LbOutcome::Marked(p) => {
                cx.release.push(released(p, now));
                Admit::Hold
            }
            LbOutcome::Queued => Admit::Hold,
            LbOutcome::Dropped(cell) => {
                cx.discarded.push(cell);
                Admit::Hold
            }
        }
    }

    fn ingress(&mut self, cx: &mut PortCx<'_>, cell: Pdu) -> Admit {
        let now = cx.now;
        let Some(prc) = self.prc.as_mut() else {
            return self.through_bucket(now, cell, cx);
        };
        match prc.offer(now, cell) {
            PrcOutcome::Depart(p) => self.through_bucket(now, p, cx),
            PrcOutcome::Queued => Admit::Hold,
            PrcOutcome::Dropped(cell) => {
                cx.discarded.push(cell);
                Admit::Hold
            }
            PrcOutcome::HeadMarked(head) => {
                self.through_bucket(now, head, cx);
                Admit::Hold
            }
        }
    }

    fn poll(&mut self, cx: &mut PortCx<'_>) {
        let now = cx.now;
        if let Some(lb) = self.lb.as_mut() {
            while let Some(p) = lb.poll(now) {
                cx.release.push(released(p, now));
            }
        }
        while let Some(p) = self.prc.as_mut().and_then(|c| c.poll(now)) {
            self.through_bucket(now, p, cx);
        }
    }

    fn for_each_held(&self, f: &mut dyn FnMut(&Pdu)) {
        if let Some(p) = &self.prc {
            p.held().for_each(&mut *f);
        }
        if let Some(b) = &self.lb {
            b.held().for_each(f);
        }
    }
}

/// A cell leaving the policers at `now`: its header says when, so that the
/// delay the contract added (cells held at the peak rate) is told apart
/// from the network's.
fn released(mut cell: Pdu, now: Time) -> Pdu {
    if let Header::ProactiveCell(h) = &mut cell.header {
        h.released = now;
    }
    cell
}

/// The policers of one access link, by VC (flow id).
#[derive(Clone, Debug, Default)]
pub(crate) struct UsageParameterControl {
    pub(crate) vcs: BTreeMap<u32, VcPolicer>,
}

impl UsageParameterControl {
    pub(crate) fn police(&mut self, flow: u32, contract: &Contract) {
        self.vcs.insert(flow, VcPolicer::new(contract));
    }
}

impl Port for UsageParameterControl {
    /// A cell is held whatever becomes of it, and what leaves is released:
    /// the port's releases keep each VC's cells in order.
    fn ingress(&mut self, cx: &mut PortCx<'_>, pdu: &mut Pdu) -> Admit {
        match self.vcs.get_mut(&pdu.flow) {
            Some(vc) => vc.ingress(cx, std::mem::take(pdu)),
            None => Admit::Pass,
        }
    }

    fn poll_at(&self) -> Time {
        self.vcs
            .values()
            .map(|v| v.poll_at())
            .min()
            .unwrap_or(Time::NEVER)
    }

    fn poll(&mut self, cx: &mut PortCx<'_>) {
        let now = cx.now;
        for vc in self.vcs.values_mut() {
            if vc.poll_at() <= now {
                vc.poll(cx);
            }
        }
    }

    fn for_each_held(&self, f: &mut dyn FnMut(&Pdu)) {
        for vc in self.vcs.values() {
            vc.for_each_held(f);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::atm::leaky_bucket::NonConforming;
    use crate::atm::peak_rate::PrcOverflow;
    use crate::engine::Duration;
    use crate::net::port::testing::Bench;

    fn contract(peak: bool, bucket: bool) -> Contract {
        Contract {
            peak_rate: peak.then_some(PeakRateConfig {
                peak_cells_per_s: 64_000.0 / 384.0,
                queue_cells: 512,
                overflow: PrcOverflow::Drop,
            }),
            leaky_bucket: bucket.then_some(LeakyBucketConfig {
                drain_cells_per_s: 36_000.0 / 384.0,
                depth_cells: 20.0,
                queue_cells: 0,
                non_conforming: NonConforming::Mark,
                stepped: true,
            }),
        }
    }

    /// Offers a back-to-back burst of `n` cells of VC 1 at 0 and polls the
    /// port to the end; returns (time, clp) of every cell that left.
    fn burst(c: Contract, n: u64) -> Vec<(Time, u8)> {
        let mut upc = UsageParameterControl::default();
        upc.police(1, &c);
        let mut bench = Bench::new(6e6);
        let mut left = vec![];
        let mut cx = bench.cx(Time::ZERO);
        for seq in 0..n {
            let mut p = Pdu {
                flow: 1,
                seq,
                bytes: 53,
                ..Pdu::default()
            };
            assert_eq!(upc.ingress(&mut cx, &mut p), Admit::Hold);
        }
        left.extend(cx.release.drain(..).map(|p| (Time::ZERO, p.clp())));
        while upc.poll_at() != Time::NEVER {
            cx.now = upc.poll_at();
            upc.poll(&mut cx);
            let now = cx.now;
            left.extend(cx.release.drain(..).map(|p| (now, p.clp())));
        }
        left
    }

    #[test]
    fn the_controller_spaces_the_burst_and_the_bucket_marks_beyond_its_depth() {
        let out = burst(contract(true, true), 100);
        assert_eq!(out.len(), 100);
        let gap = Duration::from_secs_f64(384.0 / 64_000.0);
        assert!(out.windows(2).all(|w| w[1].0.since(w[0].0) >= gap));
        // Cells at 64 kb/s into a 36 kb/s bucket of 20: after the depth's
        // worth and what the drain adds meanwhile, cells are marked.
        let marked = out.iter().filter(|o| o.1 == 1).count();
        let t_end = out.last().unwrap().0.as_secs_f64();
        let tokens = 20.0 + (t_end * 36_000.0 / 384.0).floor();
        assert!(
            (marked as f64 - (100.0 - tokens)).abs() <= 1.0,
            "{marked} marked, {tokens} tokens"
        );
    }

    #[test]
    fn switched_off_policers_let_cells_through_as_they_came() {
        let out = burst(contract(false, false), 30);
        assert!(out.iter().all(|&(t, clp)| t == Time::ZERO && clp == 0));
        let only_bucket = burst(contract(false, true), 30);
        assert_eq!(only_bucket.iter().filter(|o| o.1 == 1).count(), 10);
    }
}
