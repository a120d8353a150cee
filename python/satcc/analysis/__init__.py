"""Analysis: closed-form models the studies use, checked against the simulator.

- `satcc.analysis.tcp`: TCP throughput models, the square-root law of Mathis
  et al. (1997) and the full and approximate models of Padhye et al. (1998),
  plus window-limited throughput and the bandwidth-delay product.
"""

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
]
