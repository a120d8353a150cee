"""Study `queueing-theory`: the simulator against closed-form queueing results.

Before trusting the simulator on satellite links we check it where the answer
is known exactly. One Poisson source feeds one 10 Mbps link with no
propagation delay and a queue too large to overflow, so the link is an M/G/1
queue. With exponentially distributed packet sizes it is (almost) M/M/1, with
constant sizes M/D/1. At loads rho = 0.5, 0.8 and 0.95 we measure

- Wq, the mean time a packet waits before its transmission starts
  (summary key links.ab.wait_mean_s),
- Lq, the time-average number of packets waiting (links.ab.queue_mean_packets),
- Lq / (lambda Wq), which Little's law says is 1, with lambda the measured
  arrival rate (arrivals / simulated time),

and compare them with the Pollaczek-Khinchine mean-value formula
Wq = lambda E[S^2] / (2 (1 - rho)), Lq = lambda Wq.

"Almost" M/M/1: the simulator rounds exponential packet sizes to whole bytes
(at least 1 byte), so the service time is a discretised exponential. The
reference value is the P-K value for that exact discretised distribution, not
the textbook M/M/1 number; the study description prints both, and they
differ by less than 1e-5 (relative) at a 1000-byte mean.

Run lengths come from the variance of the waiting-time mean: a Lindley
recursion of M/M/1 waiting times gives a relative standard error per run of
about c/sqrt(N) for N packets, with c = 5.6, 11 and 42 at rho = 0.5, 0.8 and
0.95 (M/D/1 is less variable). Quick mode (two seeds; 3e5, 1e6 and 4e6
packets) puts each M/M/1 mean about 4 standard errors inside its tolerance,
full mode (five seeds; 1e6, 4e6 and 1.6e7 packets) about 12. Quick mode is a
demonstration: a failure there is weak evidence, a failure in full mode is not.
"""

from __future__ import annotations

import math
from typing import Any

from satcc.studies.spec import Reference, RunSpec, Study, measured

LINK_RATE_BPS = 10_000_000  # C = 10 Mbps
MEAN_BYTES = 1000
LINK = "ab"
SINK = "rx"
LOADS = (0.5, 0.8, 0.95)
MODELS = ("M/M/1", "M/D/1")

FULL_PACKETS = {0.5: 1_000_000, 0.8: 4_000_000, 0.95: 16_000_000}
QUICK_PACKETS = {0.5: 300_000, 0.8: 1_000_000, 0.95: 4_000_000}
FULL_SEEDS = [1, 2, 3, 4, 5]
QUICK_SEEDS = [1, 2]

# Tolerances fixed from the run-length analysis in the module docstring, not
# from looking at results: near saturation the queue mixes slowly, so the
# 0.95 means get twice the room. Little's law holds path by path, up to the
# packets still queued at the end, hence the tight 2%.
MEAN_TOLERANCE = {0.5: 0.03, 0.8: 0.03, 0.95: 0.06}
LITTLE_TOLERANCE = 0.02

KLEINROCK = "Kleinrock, Queueing Systems Vol. 1: Theory (Wiley, 1975)"
LITTLE = "Little, 'A proof for the queuing formula L = lambda W', Oper. Res. 9(3):383-387, 1961"


# ---------------------------------------------------------------------------
# Closed forms


def rounded_exponential_moments(mean_bytes: float) -> tuple[float, float]:
    """E[S] and E[S^2] of S = max(1, round(X)) bytes, X exponential with mean `mean_bytes`.

    From the tail sums E[S] = sum_k P(S >= k) and E[S^2] = sum_k (2k-1) P(S >= k),
    with P(S >= 1) = 1 and P(S >= k) = P(X >= k - 1/2) = a^(k - 1/2) for k >= 2,
    a = exp(-1/mean). The geometric series are summed in closed form; 1 - a is
    computed with expm1 because it is tiny for realistic packet sizes.
    """
    a = math.exp(-1.0 / mean_bytes)
    one_minus_a = -math.expm1(-1.0 / mean_bytes)
    half = math.exp(0.5 / mean_bytes)
    sum_a = a * a / one_minus_a  # sum_{k>=2} a^k
    sum_ka = a / one_minus_a**2 - a  # sum_{k>=2} k a^k
    first = 1.0 + half * sum_a
    second = 1.0 + half * (2.0 * sum_ka - sum_a)
    return first, second


def service_moments(model: str) -> tuple[float, float]:
    """E[S] and E[S^2] of the service time in seconds on the 10 Mbps link."""
    seconds_per_byte = 8.0 / LINK_RATE_BPS
    if model == "M/D/1":
        s = MEAN_BYTES * seconds_per_byte
        return s, s * s
    first, second = rounded_exponential_moments(MEAN_BYTES)
    return first * seconds_per_byte, second * seconds_per_byte**2


def arrival_rate(rho: float) -> float:
    """Packets per second the source emits: rate / (8 * mean size)."""
    return rho * LINK_RATE_BPS / (8.0 * MEAN_BYTES)


def pollaczek_khinchine_wq(lam: float, es: float, es2: float) -> float:
    """Mean wait in queue of M/G/1 (P-K mean-value formula)."""
    rho = lam * es
    return lam * es2 / (2.0 * (1.0 - rho))


def reference_wq(model: str, rho: float) -> float:
    return pollaczek_khinchine_wq(arrival_rate(rho), *service_moments(model))


def reference_lq(model: str, rho: float) -> float:
    return arrival_rate(rho) * reference_wq(model, rho)


def textbook_wq(model: str, rho: float) -> float:
    """Kleinrock's M/M/1 rho/(mu - lambda) and M/D/1 rho/(2 mu (1 - rho))."""
    mu = LINK_RATE_BPS / (8.0 * MEAN_BYTES)
    if model == "M/M/1":
        return rho / (mu - rho * mu)
    return rho / (2.0 * mu * (1.0 - rho))


# ---------------------------------------------------------------------------
# Runs and metrics


def label(model: str, rho: float) -> str:
    return f"{model} rho={rho:.2f}"


def scenario(model: str, rho: float, packets: int) -> dict[str, Any]:
    lam = arrival_rate(rho)
    # The run ends on stop_when; the duration is only a backstop, three times
    # the expected time to deliver `packets`.
    duration_s = math.ceil(3.0 * packets / lam)
    return {
        "run": {
            "name": f"queueing-{model.replace('/', '').lower()}-rho{rho:.2f}",
            "duration": f"{duration_s} s",
            "stop_when": {"sink": SINK, "received_packets": packets},
        },
        "nodes": {"a": {}, "b": {}},
        "links": {
            LINK: {
                "from": "a",
                "to": "b",
                "rate": f"{LINK_RATE_BPS} bps",
                "delay": "0 s",
                "queue": {"type": "droptail", "limit": "1000000 packets"},
            }
        },
        "sources": {
            "poisson": {
                "type": "poisson",
                "from": "a",
                "to": SINK,
                "rate": f"{round(rho * LINK_RATE_BPS)} bps",
                "packet_size": f"{MEAN_BYTES} B",
                "size_distribution": "exponential" if model == "M/M/1" else "constant",
            }
        },
        "sinks": {SINK: {"node": "b"}},
    }


def runs(quick: bool) -> list[RunSpec]:
    packets = QUICK_PACKETS if quick else FULL_PACKETS
    return [
        RunSpec(
            label=label(model, rho),
            params={"model": model, "rho": rho, "packets": packets[rho]},
            scenario=scenario(model, rho, packets[rho]),
        )
        for model in MODELS
        for rho in LOADS
    ]


def seeds(quick: bool) -> list[int]:
    return list(QUICK_SEEDS if quick else FULL_SEEDS)


def metrics(summary: dict[str, Any], spec: RunSpec) -> dict[str, float]:
    def value(key: str) -> float:
        return measured(summary[key])

    wq = value(f"links.{LINK}.wait_mean_s")
    lq = value(f"links.{LINK}.queue_mean_packets")
    lam = value(f"links.{LINK}.arrivals") / summary["run.end_time_s"]
    # Little's law needs arrivals that waited: without, there is no ratio.
    little = lq / (lam * wq) if lam * wq > 0 else math.nan
    return {"Wq_s": wq, "Lq_packets": lq, "little_ratio": little}


# ---------------------------------------------------------------------------
# References


def _pk_source(model: str, quantity: str) -> str:
    if model == "M/M/1":
        service = "service = exponential size rounded to whole bytes (M/M/1 up to rounding, ch. 3)"
    else:
        service = "constant service (M/D/1)"
    little = ", with Little's law Lq = lambda Wq" if quantity == "Lq" else ""
    return f"{KLEINROCK}, ch. 5, Pollaczek-Khinchine mean-value formula; {service}{little}"


def references() -> list[Reference]:
    refs = []
    for model in MODELS:
        for rho in LOADS:
            run = label(model, rho)
            tol = MEAN_TOLERANCE[rho]
            note = f"textbook {model} Wq = {textbook_wq(model, rho):.9g} s"
            refs += [
                Reference(
                    run, "Wq_s", reference_wq(model, rho), _pk_source(model, "Wq"), tol, notes=note
                ),
                Reference(
                    run,
                    "Lq_packets",
                    reference_lq(model, rho),
                    _pk_source(model, "Lq"),
                    tol,
                    notes=note,
                ),
                Reference(run, "little_ratio", 1.0, LITTLE, LITTLE_TOLERANCE),
            ]
    return refs


def _closeness_lines() -> str:
    lines = []
    for rho in LOADS:
        exact, textbook = reference_wq("M/M/1", rho), textbook_wq("M/M/1", rho)
        lines.append(
            f"- rho={rho:.2f}: byte-rounded P-K Wq = {exact * 1e3:.7f} ms, "
            f"textbook M/M/1 = {textbook * 1e3:.7f} ms (relative difference "
            f"{(exact - textbook) / textbook:+.1e})"
        )
    return "\n".join(lines)


DESCRIPTION = (
    "One Poisson source, one 10 Mbps link without propagation delay or loss: an M/G/1 queue "
    "with exponential (M/M/1) or constant (M/D/1) 1000-byte packets at loads 0.5, 0.8, 0.95. "
    "Checks the mean wait Wq and mean number waiting Lq against the Pollaczek-Khinchine "
    "formula and Lq/(lambda Wq) against Little's law. Exponential sizes are rounded to whole "
    "bytes, so the M/M/1 references are the P-K values of that discretised distribution:\n"
    + _closeness_lines()
)

STUDY = Study(
    name="queueing-theory",
    title="M/M/1 and M/D/1 against closed-form queueing results",
    paper=f"{KLEINROCK}; {LITTLE}",
    description=DESCRIPTION,
    runs=runs,
    metrics=metrics,
    references=references(),
    seeds=seeds,
    quick_note=(
        "2 seeds and shorter runs, each mean about 4 standard errors inside its tolerance "
        "(about 12 in full mode); a failure here is weak evidence. Run without --quick for "
        "the reference comparison."
    ),
)
