//! ERICA+ alone: intervals, the load factor and fair share, each option.

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

/// `cells` ABR cells of VC 0 (and `vbr` VBR cells) in an interval of
/// `ms` milliseconds closed by hand, the queue at `q`.
fn interval_of(e: &mut EricaPlus, now: &mut Time, ms: f64, cells: u64, vbr: u64, q: u64) {
    for _ in 0..cells {
        e.on_abr_input_cell(*now, 0);
    }
    e.on_vbr_cells(*now, vbr);
    e.on_queue_length(q);
    *now += Duration::from_secs_f64(ms * 1e-3);
    e.end_interval(*now);
}

#[test]
fn new_keys_default_to_no_averaging_when_absent() {
    let json = r#"{"interval_cells": 500, "interval_ps": 5000000000, "t0_ps": 500000000,
        "a": 1.15, "b": 1.05, "qdlf": 0.5, "delta": 0.1, "z_alpha": 1.0,
        "ccr": "rm_field", "bidirectional_counting": false}"#;
    let c: EricaConfig = serde_json::from_str(json).unwrap();
    let paper = EricaConfig::paper(Rate::from_bps(C * CELL_BITS));
    assert_eq!((c.rate_alpha, c.active_decay, c.ccr_alpha), (1.0, 0.0, 1.0));
    assert_eq!(
        c,
        EricaConfig {
            link_cells_per_s: 0.0,
            ..paper
        }
    );
}

#[test]
fn check_refuses_bad_or_conflicting_averaging() {
    let bad = [
        EricaConfig {
            rate_alpha: 0.0,
            ..cfg()
        },
        EricaConfig {
            ccr_alpha: 1.5,
            ..cfg()
        },
        EricaConfig {
            active_decay: -0.1,
            ..cfg()
        },
        EricaConfig {
            active_decay: 1.1,
            ..cfg()
        },
        EricaConfig {
            z_alpha: 0.5,
            rate_alpha: 0.5,
            ..cfg()
        },
    ];
    for c in bad {
        assert!(c.check().is_err(), "{c:?}");
    }
    let both = EricaConfig {
        z_alpha: 0.5,
        rate_alpha: 0.5,
        ..cfg()
    };
    assert_eq!(both.check().unwrap_err().path, "rate_alpha");
    for c in [
        EricaConfig {
            z_alpha: 0.5,
            active_decay: 0.9,
            ccr_alpha: 0.25,
            ..cfg()
        },
        EricaConfig {
            rate_alpha: 0.5,
            active_decay: 1.0,
            ..cfg()
        },
    ] {
        assert!(c.check().is_ok(), "{c:?}");
    }
}

#[test]
fn z_alpha_averages_the_load_factor_and_restarts_after_infinity() {
    let mut e = EricaPlus::new(
        EricaConfig {
            z_alpha: 0.25,
            ..cfg()
        },
        Time::ZERO,
    );
    let mut now = Time::ZERO;
    // The first interval starts the average at the measured z = 1.
    interval_of(&mut e, &mut now, 5.0, 500, 0, Q_AT_Q0);
    assert!(close(e.load_factor(), 1.0));
    // z measured 2: 0.75 * 1 + 0.25 * 2.
    interval_of(&mut e, &mut now, 5.0, 1000, 0, Q_AT_Q0);
    assert!(close(e.load_factor(), 1.25));
    // VBR takes the whole link: no ABR capacity, z infinite ...
    interval_of(&mut e, &mut now, 5.0, 100, 500, 0);
    assert!(e.load_factor().is_infinite());
    // ... and the next interval restarts from its own measurement, 0.5.
    interval_of(&mut e, &mut now, 5.0, 250, 0, Q_AT_Q0);
    assert!(close(e.load_factor(), 0.5));
}

#[test]
fn rate_alpha_averages_cells_and_lengths_not_the_ratio() {
    let mut e = EricaPlus::new(
        EricaConfig {
            rate_alpha: 0.5,
            ..cfg()
        },
        Time::ZERO,
    );
    let mut now = Time::ZERO;
    // 100 cells in 1 ms (rate C), then 100 cells in 4 ms (C/4).
    interval_of(&mut e, &mut now, 1.0, 100, 0, Q_AT_Q0);
    assert!(close(e.load_factor(), 1.0));
    interval_of(&mut e, &mut now, 4.0, 100, 0, Q_AT_Q0);
    // Averages: 100 cells in 2.5 ms = 0.4 C, not (1 + 1/4) / 2 = 0.625.
    assert!(close(e.abr_capacity(), C));
    assert!(close(e.load_factor(), 0.4));
    // VBR at 60 % of a 5 ms interval (300 cells), no ABR: the capacity
    // average is (0.5 * 250 + 0.5 * 200) cells over 3.75 ms.
    interval_of(&mut e, &mut now, 5.0, 0, 300, Q_AT_Q0);
    assert!(close(e.abr_capacity(), 225.0 / 3.75e-3));
    assert!(close(
        e.load_factor(),
        (50.0 / 3.75e-3) / e.target_capacity()
    ));
}

#[test]
fn active_decay_averages_the_number_of_active_vcs() {
    let d = 0.5;
    let mut e = EricaPlus::new(
        EricaConfig {
            active_decay: d,
            ..cfg()
        },
        Time::ZERO,
    );
    let mut now = Time::ZERO;
    run_interval(&mut e, &mut now, &[0.3 * C, 0.3 * C, 0.3 * C], Q_AT_Q0);
    assert!(close(e.active_estimate(), 3.0));
    // VCs 1 and 2 fall silent: each still counts d, then d^2.
    run_interval(&mut e, &mut now, &[0.3 * C, 0.0, 0.0], Q_AT_Q0);
    assert_eq!(e.n_active(), 1);
    assert!(close(e.active_estimate(), 1.0 + 2.0 * d));
    assert!(close(e.fair_share(), C / (1.0 + 2.0 * d)));
    run_interval(&mut e, &mut now, &[0.3 * C, 0.0, 0.0], Q_AT_Q0);
    assert!(close(e.active_estimate(), 1.0 + 2.0 * d * d));
    // VC 2 back: it counts 1 again at once.
    run_interval(&mut e, &mut now, &[0.3 * C, 0.0, 0.3 * C], Q_AT_Q0);
    assert!(close(e.active_estimate(), 2.0 + d * d * d));
    // Everybody silent: the estimate never falls below 1.
    for _ in 0..5 {
        run_interval(&mut e, &mut now, &[0.0, 0.0, 0.0], Q_AT_Q0);
    }
    assert!(close(e.active_estimate(), 1.0));
    assert!(close(e.fair_share(), e.target_capacity()));
}

#[test]
fn active_decay_counts_brms_with_bidirectional_counting() {
    let mut e = EricaPlus::new(
        EricaConfig {
            active_decay: 0.5,
            bidirectional_counting: true,
            ..cfg()
        },
        Time::ZERO,
    );
    let mut now = Time::ZERO;
    e.on_brm(1, 1e12);
    run_interval(&mut e, &mut now, &[0.3 * C], Q_AT_Q0);
    assert!(close(e.active_estimate(), 2.0));
    run_interval(&mut e, &mut now, &[0.3 * C], Q_AT_Q0);
    assert!(close(e.active_estimate(), 1.5));
}

#[test]
fn ccr_alpha_averages_the_rm_field_per_frm() {
    let mut e = EricaPlus::new(
        EricaConfig {
            ccr_alpha: 0.25,
            ..cfg()
        },
        Time::ZERO,
    );
    e.on_frm(0, 100.0);
    assert!(close(e.ccr(0), 100.0));
    e.on_frm(0, 200.0);
    assert!(close(e.ccr(0), 125.0));
    e.on_frm(1, 40.0);
    assert!(close(e.ccr(1), 40.0));
}

#[test]
fn ccr_alpha_averages_measured_cells_and_lengths() {
    let mut e = EricaPlus::new(
        EricaConfig {
            ccr_source: CcrSource::Measured,
            ccr_alpha: 0.5,
            ..cfg()
        },
        Time::ZERO,
    );
    let mut now = Time::ZERO;
    interval_of(&mut e, &mut now, 1.0, 100, 0, Q_AT_Q0);
    assert!(close(e.ccr(0), 1e5));
    interval_of(&mut e, &mut now, 4.0, 100, 0, Q_AT_Q0);
    // 100 cells per 2.5 ms on average.
    assert!(close(e.ccr(0), 4e4));
    // The FRM field is ignored with measured CCR.
    e.on_frm(0, 1.0);
    assert!(close(e.ccr(0), 4e4));
}
