"""Random losses drawn once and handed to two simulators alike.

Two simulators that each draw their own random losses can only be compared
as distributions: over a short run the difference between their draws
swamps any difference between the protocols, and it takes many seeds to
average it out. A loss pattern drawn here, a list of the packet numbers a
link loses, is given to both instead, so that every run of one simulator
meets exactly the losses of the matching run of the other, and what still
differs is the protocol's reaction to them.

The pattern is Bernoulli(p) per packet over the first `packets` packet
numbers, drawn from numpy's PCG64 seeded with `key` (for instance the run's
seed and the flow's index). satcc takes it as a link's `loss_list` (PDU
numbers from 1, `crates/core/src/net/error_model.rs`); ns-2.35 as an
`ErrorModel/List` (`ns2_droplist`). Both count the same PDUs: ns-2.35's
ListErrorModel (queue/errmodel.cc, packet units) keeps a counter `cnt_`
from 0, drops the packet when the next number of its sorted `droplist_`
equals it, and counts every packet that passes the error module, whatever
its type (SYN, data, retransmission, ACK); `link-lossmodel` puts the module
after one direction of one link. satcc's link error model counts every PDU
that starts transmission on its link. So packet n of satcc's list is packet
n - 1 of ns-2's, provided the same PDUs cross the link in both: a link that
carries one flow's data direction only (its SYN and data segments).
"""

from __future__ import annotations

from collections.abc import Sequence


def bernoulli(p: float, packets: int, key: Sequence[int]) -> tuple[int, ...]:
    """The numbers (from 1) of the packets lost among the first `packets`,
    each lost with probability `p`, drawn from PCG64 seeded with `key`."""
    if not 0 <= p < 1:
        raise ValueError(f"a loss probability is in [0, 1), got {p!r}")
    if packets < 0:
        raise ValueError(f"the number of packets is at least 0, got {packets!r}")
    if p == 0 or packets == 0:
        return ()
    import numpy as np

    draws = np.random.default_rng(list(key)).random(packets)
    return tuple(int(i) + 1 for i in np.flatnonzero(draws < p))


def ns2_droplist(lost: Sequence[int]) -> str:
    """`lost` (numbers from 1, as satcc's `loss_list`) as ns-2's
    ErrorModel/List `droplist` argument: numbers from 0, sorted, in braces.
    ns-2 refuses a repeated number, so this does too."""
    numbers = sorted(lost)
    if any(n < 1 for n in numbers):
        raise ValueError("loss lists count packets from 1")
    if len(set(numbers)) != len(numbers):
        raise ValueError("a loss list names each packet once (ns-2 refuses repeats)")
    return "{" + " ".join(str(n - 1) for n in numbers) + "}"
