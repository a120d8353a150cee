"""Analysis: closed-form models the studies use, checked against the simulator.

- `satcc.analysis.tcp`: TCP throughput models, the square-root law of Mathis
  et al. (1997) and the full and approximate models of Padhye et al. (1998),
  plus window-limited throughput and the bandwidth-delay product.
- `satcc.analysis.hurst`: Hurst-parameter estimators (aggregated variance,
  Whittle for fGn) for long-range dependent series such as `satcc.traffic.fgn`.
"""

from satcc.analysis.hurst import (
    fgn_spectral_density,
    hurst_aggregated_variance,
    hurst_whittle,
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
]
