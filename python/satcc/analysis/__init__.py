"""Analysis: closed-form models the studies use, checked against the simulator.

- `satcc.analysis.tcp`: TCP throughput models, the square-root law of Mathis
  et al. (1997) and the full and approximate models of Padhye et al. (1998),
  plus window-limited throughput and the bandwidth-delay product.
- `satcc.analysis.hurst`: Hurst-parameter estimators (aggregated variance,
  Whittle for fGn) for long-range dependent series such as `satcc.traffic.fgn`.
- `satcc.analysis.netpipe`: the netpipe-satellite paper's closed forms (AAL5
  cells and the cell tax, window-limited throughput, the paper's throughput
  fraction and buffer requirement BB) and NetPIPE's rules (block-size
  schedule, repetitions, half-round-trip transfer times and %CDV).
- `satcc.analysis.tfrc_fluid`: the tfrc-dama paper's fluid model of one TFRC
  media flow started behind a DAMA terminal (section 3.5, Fig. 7): the four
  cumulative curves, E2ED as their horizontal distance, and T_q,opt found
  numerically.
- `satcc.analysis.effcap`: the abr-effcap paper's Markov renewal model of
  TCP over end-to-end ABR on a two-state bottleneck (section 3): cycle
  outcomes, throughput and efficiency bounds (Figs. 8 and 9).
- `satcc.analysis.effcap_estimator`: the same paper's effcap feedback
  (section 4.1), the effective capacity of blocks of capacity samples.
- `satcc.analysis.markov`: finite Markov chains (transition matrices,
  stationary distributions, P^n of a two-state chain) for the above.
"""

from satcc.analysis.effcap import (
    BottleneckInterval,
    CycleOutcome,
    EfficiencyBounds,
    MarkovRenewalResult,
    bottleneck_interval,
    cycle_outcome,
    efficiency_bounds,
    interval_switch_probability,
    markov_renewal_analysis,
    rtt_step_matrix,
    rtt_switch_probability,
    slow_start_packets,
    slow_start_rounds,
    window_increment_pmf,
)
from satcc.analysis.effcap_estimator import effcap_estimate, effcap_series
from satcc.analysis.hurst import (
    fgn_spectral_density,
    hurst_aggregated_variance,
    hurst_whittle,
)
from satcc.analysis.markov import n_step_matrix, stationary_distribution, two_state_matrix
from satcc.analysis.netpipe import (
    AAL5_TRAILER_BYTES,
    ATM_CELL_BYTES,
    ATM_CELL_PAYLOAD_BYTES,
    LLC_SNAP_BYTES,
    NETPIPE_MBIT,
    NETPIPE_PERTURBATION_BYTES,
    NETPIPE_RUNTM_S,
    NETPIPE_STOPTM_S,
    NETPIPE_TRIALS,
    NetpipeTest,
    TransferTimeStats,
    aal5_cells,
    atm_efficiency,
    buffer_requirement_cells,
    fit_slope_through_origin,
    netpipe_block_sizes,
    netpipe_repetitions,
    netpipe_schedule,
    paper_throughput_fraction,
    predicted_slope_mbps_per_kb,
    tcp_segments,
    transfer_time_stats,
    window_limited_goodput_bps,
    window_limited_throughput_bps,
    wire_bytes_atm,
)
from satcc.analysis.tcp import (
    MATHIS_C_ACK_EVERY_SEGMENT,
    MATHIS_C_DELAYED_ACK,
    bdp_bytes,
    mathis_throughput,
    padhye_approx,
    padhye_throughput,
    padhye_window,
    window_limited_throughput,
)

__all__ = [
    "MATHIS_C_ACK_EVERY_SEGMENT",
    "MATHIS_C_DELAYED_ACK",
    "bdp_bytes",
    "mathis_throughput",
    "padhye_approx",
    "padhye_throughput",
    "padhye_window",
    "window_limited_throughput",
    "fgn_spectral_density",
    "hurst_aggregated_variance",
    "hurst_whittle",
    "AAL5_TRAILER_BYTES",
    "ATM_CELL_BYTES",
    "ATM_CELL_PAYLOAD_BYTES",
    "LLC_SNAP_BYTES",
    "NETPIPE_MBIT",
    "NETPIPE_PERTURBATION_BYTES",
    "NETPIPE_RUNTM_S",
    "NETPIPE_STOPTM_S",
    "NETPIPE_TRIALS",
    "NetpipeTest",
    "TransferTimeStats",
    "aal5_cells",
    "atm_efficiency",
    "buffer_requirement_cells",
    "fit_slope_through_origin",
    "netpipe_block_sizes",
    "netpipe_repetitions",
    "netpipe_schedule",
    "paper_throughput_fraction",
    "predicted_slope_mbps_per_kb",
    "tcp_segments",
    "transfer_time_stats",
    "window_limited_goodput_bps",
    "window_limited_throughput_bps",
    "wire_bytes_atm",
    "BottleneckInterval",
    "CycleOutcome",
    "EfficiencyBounds",
    "MarkovRenewalResult",
    "bottleneck_interval",
    "cycle_outcome",
    "effcap_estimate",
    "effcap_series",
    "efficiency_bounds",
    "interval_switch_probability",
    "markov_renewal_analysis",
    "n_step_matrix",
    "rtt_step_matrix",
    "rtt_switch_probability",
    "slow_start_packets",
    "slow_start_rounds",
    "stationary_distribution",
    "two_state_matrix",
    "window_increment_pmf",
]
