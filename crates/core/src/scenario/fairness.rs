//! Jain's fairness index over the flows of one kind, from their own summary
//! figures (R. Jain, D.-M. Chiu and W. Hawe, "A quantitative measure of
//! fairness and discrimination for resource allocation in shared computer
//! systems", DEC-TR-301, 1984):
//!
//! ```text
//! J = (x_1 + ... + x_n)^2 / (n * (x_1^2 + ... + x_n^2))
//! ```
//!
//! 1 when every flow gets the same, 1/n when one flow gets everything, and
//! k/n when k flows share equally and the others starve. It reads only the
//! per-flow figures already in the summary, so it is computed once, after
//! every component has written its keys, and every consumer of a summary
//! (a run, a sweep, a study, the emulator) sees the same value.
//!
//! Each flow's figure is over its own active time, from its `start` to the
//! end of the run (`tcp.T.goodput_bps`, `tfrc.F.goodput_bps`,
//! `flows.S.throughput_bps`), so connections started at different times are
//! each judged on the time they had. A flow with no figure (it had not
//! started by the end) is left out; the index is null when fewer than two
//! flows have a figure or all of them are zero.

use super::summary::{num, put, Summary};

/// (summary prefix, per-flow figure, key of the index). Only kinds with one
/// row per flow: classes of arrivals and groups of cell sources report their
/// flows together and have no per-flow figure to compare.
const KINDS: [(&str, &str, &str); 3] = [
    ("tcp", "goodput_bps", "fairness.jain_tcp_goodput"),
    ("tfrc", "goodput_bps", "fairness.jain_tfrc_goodput"),
    ("flows", "throughput_bps", "fairness.jain_flows_throughput"),
];

/// Adds the index of every kind with at least two flows.
pub(crate) fn summarise(s: &mut Summary) {
    for (prefix, figure, key) in KINDS {
        let figures = per_flow(s, prefix, figure);
        if figures.len() >= 2 {
            let defined: Vec<f64> = figures.into_iter().flatten().collect();
            put(s, key.to_string(), num(jain(&defined)));
        }
    }
}

/// `PREFIX.NAME.FIGURE` of every flow NAME in key order (names hold no
/// dots), None where the figure is null.
fn per_flow(s: &Summary, prefix: &str, figure: &str) -> Vec<Option<f64>> {
    s.iter()
        .filter_map(|(k, v)| {
            let mut parts = k.splitn(3, '.');
            let ours = parts.next() == Some(prefix)
                && parts.next().is_some()
                && parts.next() == Some(figure);
            ours.then(|| v.as_f64())
        })
        .collect()
}

/// Jain's index of `x`; NaN for fewer than two values or all zero.
pub(crate) fn jain(x: &[f64]) -> f64 {
    let sum: f64 = x.iter().sum();
    let squares: f64 = x.iter().map(|v| v * v).sum();
    if x.len() < 2 || squares <= 0.0 {
        return f64::NAN;
    }
    sum * sum / (x.len() as f64 * squares)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn equal_shares_give_one_and_one_flow_alone_one_over_n() {
        assert!(close(jain(&[2e6, 2e6, 2e6, 2e6]), 1.0));
        assert!(close(jain(&[5e6, 0.0, 0.0, 0.0]), 0.25));
        // Two of four share equally, two starve: k/n.
        assert!(close(jain(&[3e6, 3e6, 0.0, 0.0]), 0.5));
        // (1 + 3)^2 / (2 * (1 + 9)) = 16 / 20.
        assert!(close(jain(&[1.0, 3.0]), 0.8));
    }

    #[test]
    fn undefined_for_fewer_than_two_or_nothing_received() {
        assert!(jain(&[]).is_nan());
        assert!(jain(&[4e6]).is_nan());
        assert!(jain(&[0.0, 0.0]).is_nan());
    }

    fn summary(pairs: &[(&str, Value)]) -> Summary {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_string(), v.clone()))
            .collect()
    }

    #[test]
    fn reads_the_flows_own_figures_and_skips_those_without_one() {
        let mut s = summary(&[
            ("tcp.a.goodput_bps", Value::from(1.0)),
            ("tcp.b.goodput_bps", Value::from(3.0)),
            ("tcp.c.goodput_bps", Value::Null),
            // Not a connection's own goodput: ignored.
            ("tcp.a.vc_forward.goodput_bps", Value::from(100.0)),
            ("arrivals.x.flow_goodput_mean_bps", Value::from(7.0)),
            ("flows.v.throughput_bps", Value::from(2.0)),
        ]);
        summarise(&mut s);
        assert!(close(s["fairness.jain_tcp_goodput"].as_f64().unwrap(), 0.8));
        // One source is not a comparison, and no TFRC flow at all.
        assert!(!s.contains_key("fairness.jain_flows_throughput"));
        assert!(!s.contains_key("fairness.jain_tfrc_goodput"));
    }

    #[test]
    fn two_flows_without_a_figure_give_null() {
        let mut s = summary(&[
            ("flows.a.throughput_bps", Value::Null),
            ("flows.b.throughput_bps", Value::Null),
        ]);
        summarise(&mut s);
        assert_eq!(s["fairness.jain_flows_throughput"], Value::Null);
    }
}
