//! The proactive congestion detector of the proactive-atm thesis (section
//! 5.1, section 6.1.4), at an ATM switch's transmit link: it measures the
//! input rate of four classes of cells (priority × CLP) every T_m, filters
//! it (0.8 of the current value, 0.2 of the previous one), and while the
//! total filtered input rate exceeds 0.9 of the link rate it answers each
//! arriving cell of the lowest classes that together carry at least 20 %
//! of the link with a congestion notification (type 0) to its source, at
//! most one per source per T_m. A cell the queue discards is answered with
//! a type-2 notification, under the same once-per-T_m rule.
//!
//! Three things the thesis leaves open are options, each defaulting to the
//! reading docs/proactive-atm.md argues for: whether "the previous value" is
//! the previous filtered rate (an exponential average) or the previous raw
//! measurement; whether the lowest classes are chosen on the filtered or
//! the current rates; and whether cells the queue discards count toward
//! the input rate.

use crate::atm::cell::{CELL_BITS, CELL_BYTES};
use crate::engine::{Check, ConfigError, Duration, Time};
use crate::net::pdu::{CellType, Header, ProactiveCell};
use crate::net::port::{Admit, Port, PortCx};
use crate::net::{Class, Pdu};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// Thesis section 5.1's four classes, highest first: priority 0 CLP 0,
/// priority 1 CLP 0, priority 0 CLP 1, priority 1 CLP 1.
pub(crate) fn class_of(priority: u8, clp: u8) -> usize {
    match (priority.min(1), clp.min(1)) {
        (0, 0) => 0,
        (1, 0) => 1,
        (0, _) => 2,
        _ => 3,
    }
}

#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Previous {
    /// The previous filtered value: an exponential average.
    #[default]
    Filtered,
    /// The previous interval's measurement.
    Raw,
}

#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum ClassRates {
    /// The lowest classes are chosen on the filtered rates.
    #[default]
    Filtered,
    /// On the last interval's measured rates.
    Current,
}

/// The proactive-atm thesis's congestion detector at a transmit link
/// (section 5.1; `links.NAME.congestion`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DetectorConfig {
    /// T_m.
    #[serde(rename = "interval_ps", default = "interval_default")]
    pub interval: Duration,
    /// Weight of the current measurement in the filter (the previous value
    /// gets the rest).
    #[serde(default = "current_weight_default")]
    pub(crate) current_weight: f64,
    /// Filtered total input rate, as a share of the link rate, above which
    /// notifications go out.
    #[serde(default = "threshold_default")]
    pub(crate) threshold: f64,
    /// The lowest classes notified together carry at least this share.
    #[serde(default = "share_default")]
    pub(crate) lowest_share: f64,
    /// Notifications on the input rate (type 0): congestion_control_on.
    #[serde(default = "yes")]
    pub(crate) input_rate: bool,
    /// Notifications on discards (type 2): simple_congestion_control_on.
    #[serde(default = "yes")]
    pub(crate) discard: bool,
    #[serde(default)]
    pub(crate) previous: Previous,
    #[serde(default)]
    pub(crate) class_rates: ClassRates,
    /// Cells the queue discards count toward the input rate.
    #[serde(default = "yes")]
    pub(crate) count_discarded: bool,
}

fn interval_default() -> Duration {
    Duration::from_millis(50)
}
fn current_weight_default() -> f64 {
    0.8
}
fn threshold_default() -> f64 {
    0.9
}
fn share_default() -> f64 {
    0.2
}
fn yes() -> bool {
    true
}

impl Default for DetectorConfig {
    fn default() -> DetectorConfig {
        DetectorConfig {
            interval: interval_default(),
            current_weight: current_weight_default(),
            threshold: threshold_default(),
            lowest_share: share_default(),
            input_rate: true,
            discard: true,
            previous: Previous::default(),
            class_rates: ClassRates::default(),
            count_discarded: true,
        }
    }
}

impl DetectorConfig {}

impl Check for DetectorConfig {
    fn check(&self) -> Result<(), ConfigError> {
        if self.interval.ps() == 0 {
            return Err("the measurement interval must be positive".into());
        }
        let unit = |x: f64| x.is_finite() && (0.0..=1.0).contains(&x);
        if !unit(self.current_weight) || !unit(self.lowest_share) {
            return Err("current_weight and lowest_share lie in [0, 1]".into());
        }
        if !(self.threshold.is_finite() && self.threshold > 0.0) {
            return Err("the threshold must be positive".into());
        }
        Ok(())
    }
}

/// A notification to send to a cell's source.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Notice {
    /// Type 0: the filtered input rate passed the threshold.
    InputRate,
    /// Type 2: the cell was discarded.
    Discard,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct DetectorStats {
    pub intervals: u64,
    /// Intervals that ended with the filtered total above the threshold.
    pub(crate) congested_intervals: u64,
    pub(crate) input_rate_notices: u64,
    pub(crate) discard_notices: u64,
}

#[derive(Clone, Debug)]
pub(crate) struct CongestionDetector {
    cfg: DetectorConfig,
    /// Bits per class over the interval a full one takes at the link rate.
    bits_per_interval: f64,
    /// Bits arrived per class in the current interval.
    arrived: [f64; 4],
    /// The last interval's measured rates, as shares of the link.
    current: [f64; 4],
    filtered: [f64; 4],
    interval_end: Time,
    /// When each source was last sent a notification.
    last_notice: HashMap<u32, Time>,
    pub stats: DetectorStats,
}

impl CongestionDetector {
    /// A detector at a link of `link_bps`, its first interval starting at 0.
    pub(crate) fn new(cfg: DetectorConfig, link_bps: f64) -> CongestionDetector {
        CongestionDetector {
            bits_per_interval: link_bps * cfg.interval.as_secs_f64(),
            interval_end: Time(cfg.interval.ps()),
            cfg,
            arrived: [0.0; 4],
            current: [0.0; 4],
            filtered: [0.0; 4],
            last_notice: HashMap::new(),
            stats: DetectorStats::default(),
        }
    }

    pub(crate) fn poll_at(&self) -> Time {
        self.interval_end
    }

    /// Ends every interval that has passed by `now`.
    pub(crate) fn poll(&mut self, now: Time) {
        while now >= self.interval_end {
            let w = self.cfg.current_weight;
            for c in 0..4 {
                let measured = self.arrived[c] / self.bits_per_interval;
                let previous = match self.cfg.previous {
                    Previous::Filtered => self.filtered[c],
                    Previous::Raw => self.current[c],
                };
                self.filtered[c] = w * measured + (1.0 - w) * previous;
                self.current[c] = measured;
            }
            self.arrived = [0.0; 4];
            self.stats.intervals += 1;
            if self.congested() {
                self.stats.congested_intervals += 1;
            }
            self.interval_end += self.cfg.interval;
        }
    }

    /// The filtered total input rate, as a share of the link.
    pub(crate) fn filtered_total(&self) -> f64 {
        self.filtered.iter().sum()
    }

    #[cfg(test)]
    pub(crate) fn filtered_rates(&self) -> [f64; 4] {
        self.filtered
    }

    fn congested(&self) -> bool {
        self.filtered_total() > self.cfg.threshold
    }

    /// The highest class notified: classes from it down to class 4
    /// together carry at least the lowest share (all four if they never do).
    pub(crate) fn lowest_notified_class(&self) -> usize {
        let rates = match self.cfg.class_rates {
            ClassRates::Filtered => self.filtered,
            ClassRates::Current => self.current,
        };
        let mut sum = 0.0;
        for c in (0..4).rev() {
            sum += rates[c];
            if sum >= self.cfg.lowest_share {
                return c;
            }
        }
        0
    }

    /// A cell of `class` arrives at `now`, from `source` if it names one to
    /// tell; `discarded` says whether the queue will refuse it. The
    /// notification to send, if any.
    pub(crate) fn on_cell(
        &mut self,
        now: Time,
        class: usize,
        source: Option<u32>,
        discarded: bool,
    ) -> Option<Notice> {
        self.poll(now);
        if !discarded || self.cfg.count_discarded {
            self.arrived[class] += CELL_BITS;
        }
        let source = source?;
        let notice = if discarded && self.cfg.discard {
            Some(Notice::Discard)
        } else if self.cfg.input_rate && self.congested() && class >= self.lowest_notified_class() {
            Some(Notice::InputRate)
        } else {
            None
        }?;
        // At most one notification per source per interval, of either type.
        let recent = self
            .last_notice
            .get(&source)
            .is_some_and(|&t| now.since(t) <= self.cfg.interval);
        if recent {
            return None;
        }
        self.last_notice.insert(source, now);
        match notice {
            Notice::InputRate => self.stats.input_rate_notices += 1,
            Notice::Discard => self.stats.discard_notices += 1,
        }
        Some(notice)
    }
}

/// The detector at a transmit link's input: every cell offered to the link
/// is measured; the source of a traffic cell the detector picks is sent a
/// notification cell from the link's node, a priority-0 cell that takes the
/// real reverse path (section 5.2: EBCN).
#[derive(Clone, Debug)]
pub(crate) struct DetectorPort {
    pub(crate) detector: CongestionDetector,
}

impl DetectorPort {
    pub(crate) fn new(cfg: DetectorConfig, link_bps: f64) -> DetectorPort {
        DetectorPort {
            detector: CongestionDetector::new(cfg, link_bps),
        }
    }
}

/// The notification for the source of `cell`, sent from `node` at `now`
/// and booked in the flow after the cell's (`ProactiveCell`).
fn notice_cell(cell: &Pdu, h: &ProactiveCell, notice: Notice, node: u32, now: Time) -> Pdu {
    let kind = match notice {
        Notice::InputRate => CellType::RateNotice,
        Notice::Discard => CellType::DiscardNotice,
    };
    Pdu {
        bytes: CELL_BYTES,
        flow: notice_flow(cell),
        seq: 0,
        src_node: node,
        dst_node: cell.src_node,
        dst_agent: h.source_agent,
        dst_gen: h.source_gen,
        created: now,
        enqueued: now,
        class: Class::new(0, 0),
        ecn: 0,
        header: Header::ProactiveCell(ProactiveCell { kind, ..*h }),
    }
}

/// The flow a traffic cell's source books its notifications in.
fn notice_flow(cell: &Pdu) -> u32 {
    cell.flow + 1
}

impl Port for DetectorPort {
    fn ingress(&mut self, cx: &mut PortCx<'_>, pdu: &mut Pdu) -> Admit {
        let class = class_of(pdu.priority(), pdu.clp());
        let discarded = !cx.link.queue().admission(pdu).admitted();
        // Only traffic cells name a source to tell; notifications and
        // other PDUs are measured alone.
        let source = match &pdu.header {
            Header::ProactiveCell(h) if h.kind == CellType::Traffic => Some(*h),
            _ => None,
        };
        let key = source.map(|_| notice_flow(pdu));
        let notice = self.detector.on_cell(cx.now, class, key, discarded);
        if let (Some(h), Some(n)) = (source, notice) {
            let cell = notice_cell(pdu, &h, n, cx.link.from, cx.now);
            cx.out.route(cx.link.from, cell);
        }
        Admit::Pass
    }

    fn poll_at(&self) -> Time {
        self.detector.poll_at()
    }

    fn poll(&mut self, cx: &mut PortCx<'_>) {
        self.detector.poll(cx.now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINK: f64 = 6e6;

    fn detector() -> CongestionDetector {
        CongestionDetector::new(DetectorConfig::default(), LINK)
    }

    /// Feeds `cells_per_class` cells of each class evenly over the interval
    /// starting at `start` (sources numbered by class), closes it.
    fn interval(
        d: &mut CongestionDetector,
        start: Time,
        cells_per_class: [u64; 4],
    ) -> Vec<(usize, Option<Notice>)> {
        let total: u64 = cells_per_class.iter().sum();
        let step = d.cfg.interval.ps() / total.max(1);
        let mut out = vec![];
        let mut t = start.ps();
        for (c, &n) in cells_per_class.iter().enumerate() {
            for _ in 0..n {
                out.push((c, d.on_cell(Time(t), c, Some(c as u32), false)));
                t += step;
            }
        }
        d.poll(start + d.cfg.interval);
        out
    }

    fn cells(share: f64) -> u64 {
        (share * LINK * 0.05 / CELL_BITS).round() as u64
    }

    #[test]
    fn the_filter_weighs_the_current_interval_0_8() {
        let mut d = detector();
        interval(&mut d, Time::ZERO, [cells(0.5), 0, 0, 0]);
        let first = d.filtered_rates()[0];
        assert!((first - 0.8 * 0.5).abs() < 0.002, "{first}");
        interval(&mut d, Time(50_000_000_000), [cells(0.5), 0, 0, 0]);
        let second = d.filtered_rates()[0];
        assert!(
            (second - (0.8 * 0.5 + 0.2 * first)).abs() < 0.002,
            "{second}"
        );
    }

    #[test]
    fn below_the_threshold_nothing_is_sent() {
        let mut d = detector();
        for k in 0..10 {
            let out = interval(
                &mut d,
                Time(k * 50_000_000_000),
                [cells(0.3), cells(0.3), cells(0.1), cells(0.1)],
            );
            assert!(out.iter().all(|(_, n)| n.is_none()));
        }
        assert!(d.filtered_total() > 0.79 && d.filtered_total() < 0.9);
    }

    #[test]
    fn above_it_the_lowest_classes_that_carry_a_fifth_are_told_once_per_interval() {
        let mut d = detector();
        // 50 % class 1, 30 % class 2, 10 % each of classes 3 and 4: total
        // 1.0; classes 4 and 3 carry 20 %, so classes 3 and 4 are told.
        let load = [cells(0.5), cells(0.3), cells(0.1), cells(0.1)];
        for k in 0..5 {
            interval(&mut d, Time(k * 50_000_000_000), load);
        }
        assert_eq!(d.lowest_notified_class(), 2);
        let out = interval(&mut d, Time(5 * 50_000_000_000), load);
        let told: Vec<usize> = out
            .iter()
            .filter(|(_, n)| n.is_some())
            .map(|(c, _)| *c)
            .collect();
        // One source per class, each told once in the interval.
        assert_eq!(told, vec![2, 3]);
        assert!(out
            .iter()
            .all(|(_, n)| n.is_none() || *n == Some(Notice::InputRate)));
        // With classes 3 and 4 quiet, class 2 (30 %) is the lowest fifth.
        for k in 6..12 {
            interval(
                &mut d,
                Time(k * 50_000_000_000),
                [cells(0.7), cells(0.3), 0, 0],
            );
        }
        assert_eq!(d.lowest_notified_class(), 1);
    }

    #[test]
    fn a_discard_is_told_even_below_the_threshold_but_not_twice_per_interval() {
        let mut d = detector();
        let t0 = Time(1_000_000_000);
        assert_eq!(d.on_cell(t0, 0, Some(7), true), Some(Notice::Discard));
        assert_eq!(
            d.on_cell(t0 + Duration::from_millis(10), 0, Some(7), true),
            None
        );
        assert_eq!(
            d.on_cell(t0 + Duration::from_millis(10), 0, Some(8), true),
            Some(Notice::Discard)
        );
        assert_eq!(
            d.on_cell(t0 + Duration::from_millis(51), 0, Some(7), true),
            Some(Notice::Discard)
        );
        assert_eq!(d.stats.discard_notices, 3);
    }

    #[test]
    fn the_open_choices_change_what_they_should() {
        // Raw previous: two equal intervals give 0.8 x + 0.2 x = x at once.
        let mut d = CongestionDetector::new(
            DetectorConfig {
                previous: Previous::Raw,
                ..DetectorConfig::default()
            },
            LINK,
        );
        interval(&mut d, Time::ZERO, [cells(0.5), 0, 0, 0]);
        interval(&mut d, Time(50_000_000_000), [cells(0.5), 0, 0, 0]);
        assert!((d.filtered_rates()[0] - 0.5).abs() < 0.002);
        // Discarded cells left out of the input rate.
        let mut d = CongestionDetector::new(
            DetectorConfig {
                count_discarded: false,
                discard: false,
                ..DetectorConfig::default()
            },
            LINK,
        );
        for i in 0..cells(0.5) {
            d.on_cell(Time(i * 1000), 0, Some(1), true);
        }
        d.poll(Time(50_000_000_000));
        assert_eq!(d.filtered_total(), 0.0);
    }
}
