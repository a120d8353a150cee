"""Study `tcp-crosscheck`: satcc's TCP against ns-2.35 on the same scenarios.

Each case is a dumbbell (python/satcc/studies/ns2.py, `Case`) built twice
from one description: as a satcc scenario here and as an ns-2 Tcl script
there, with every parameter matched (docs/tcp-crosscheck.md lists each match
and why). Cases: a window-limited and a buffer-limited flow over a GEO hop
(2 Mb/s, 556 ms RTT); random per-packet loss on the data direction
(1e-4, 1e-3, 1e-2 over a 10 Mb/s GEO hop) with and without delayed ACKs, with
and without Limited Transmit, minimum RTO 1 s and 200 ms, Reno, NewReno and
SACK; four flows with RTTs from 100 to 600 ms sharing one drop-tail
bottleneck; and CUBIC (satcc's RFC 9438 controller against ns-2.35's Linux
sender running Linux 2.6.22's tcp_cubic, with its beta set to RFC 9438's
0.7): buffer-limited over the GEO hop, random loss 1e-4 and 1e-3 over GEO,
and 3e-3 over a 41 ms path where CUBIC runs on its Reno-friendly estimate;
and TCP Hybla (satcc's controller against the same sender running 2.6.22's
tcp_hybla, RTT0 25 ms in both): buffer-limited over the GEO hop, random loss
1e-3 over GEO (rho = 22) and 3e-3 over the 41 ms path (rho = 1.5).

Goodput is the payload delivered in order at the receiver between the end of
a warm-up and the end of the run, the same window in both simulators (satcc:
the run's `delivered_bytes` less that of the same run stopped at the warm-up;
ns-2: the sink's `bytes_` at both instants). Retransmissions and timeouts
are counted over the same window in both. Cases with random loss run over
20 seeds; the others are deterministic (one seed).

Random losses are the same in both simulators: for each seed and flow a
list of lost packets is drawn once (Bernoulli(p) per packet number,
python/satcc/studies/loss_pattern.py) and given to satcc as a link's
`loss_list` and to ns-2 as an `ErrorModel/List`, on the link that carries
that flow's data alone (the bottleneck for one flow, each flow's access link
for several), so that the two count the same PDUs. A seed's two runs are
then a pair: they differ only where the two TCPs react differently to the
same losses. (Each simulator drawing its own, `Case(shared_losses=False)`,
the runs compare only as distributions, and short runs show the sampling
noise between two draws rather than TCP: the reason for sharing them.)

The judged check is the ratio of the mean goodputs, satcc / ns-2, against 1
with a 5 % tolerance (the "published" value is ns-2's mean goodput; the ratio
form lets the framework judge it). The Padhye et al. (1998) full model (with
timeouts; b = 2 with delayed ACKs, 1 without) and the Mathis et al. (1997)
law are shown beside the random-loss cases, and Padhye's Wmax/RTT limit beside
the window-limited one; beside the CUBIC random-loss cases, CUBIC's response
function (RFC 9438 §5.1, `response.cubic_window`); beside the Hybla ones, Hybla's
AIMD average (rho^2 segments per RTT, halving: `response.hybla_window`). The models
take the loss rate the run realised (`loss_realised`: PDUs lost over PDUs
sent on the lossy links in the measured window), not the p the pattern was
drawn with. Without ns-2
(`ns` not on PATH) the ns-2 columns are absent, nothing is judged, and the
models are the only comparison.

Quick mode runs every case but the CUBIC and Hybla ones with random loss,
with 3 seeds instead of 20 where loss is random, each run a fifth (single
flows with random loss) or a third (the others) as long as in full mode and
its warm-up half as long; its losses are shared as in full mode, so its ratios compare the two TCPs
on the same losses, over a handful of loss events per seed.
"""

from __future__ import annotations

import json
import math
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import Any

from satcc.executors import default_jobs
from satcc.studies import ns2
from satcc.studies.ns2 import ACCESS_QUEUE_PACKETS, ACCESS_RATE_BPS, HEADER_BYTES, Case, Flow
from satcc.studies.spec import RunSpec
from satcc.studies.tcp_crosscheck import response

RANDOM_SEEDS = tuple(range(1, 21))
QUICK_RANDOM_SEEDS = (1, 2, 3)
# ns-2.35's tcp_cubic (Linux 2.6.22.6, CUBIC 2.1) reduces to 819/1024 = 0.8
# by default; the CUBIC cases set its `beta` parameter to 717/1024 = 0.7, the
# beta_cubic of RFC 9438 and of later Linux versions (docs/tcp-crosscheck.md).
CUBIC_BETA_NS2 = 717

GEO_2M = {"rate_bps": 2e6, "delay_s": 0.274}  # 556 ms RTT with the access links
GEO_10M = {"rate_bps": 10e6, "delay_s": 0.274, "queue_limit": 1000, "window_packets": 1000}


@dataclass(frozen=True)
class Point:
    """One case of the study: its label, the scenario, whether its loss is
    random (then it runs over many seeds), and its quick-mode run length."""

    label: str
    case: Case
    quick_duration_s: float
    quick_warmup_s: float
    quick: bool = True  # False: full mode only

    @property
    def random(self) -> bool:
        return self.case.loss > 0


def _loss_label(p: float) -> str:
    return f"{p:.0e}".replace("e-0", "e-")


def hybla_case(**fields: Any) -> Case:
    """A Hybla case: ns-2's Linux sender with tcp_hybla, rtt0 25 ms in both,
    and the initial window floor(rho) in both (hybla_init sets ns-2's cwnd to
    it at the SYN's ACK, whatever windowInit_; satcc keeps the configured
    one, so it is given the same)."""
    case = Case(variant="sack", congestion_control="hybla", **fields)
    return replace(case, initial_window=case.hybla_rho8() // 8)


def _cubic_point(label: str, p: float, duration_s: float, warmup_s: float, **path: Any) -> Point:
    """A CUBIC case with random loss, run in full mode only."""
    case = Case(
        variant="sack",
        congestion_control="cubic",
        cubic_beta=CUBIC_BETA_NS2,
        loss=p,
        shared_losses=True,
        duration_s=duration_s,
        warmup_s=warmup_s,
        **path,
    )
    return Point(label, case, duration_s / 3, warmup_s / 2, quick=False)


def _hybla_point(label: str, p: float, duration_s: float, warmup_s: float, **path: Any) -> Point:
    """A Hybla case with random loss, run in full mode only (as CUBIC's)."""
    case = hybla_case(loss=p, shared_losses=True, duration_s=duration_s, warmup_s=warmup_s, **path)
    return Point(label, case, duration_s / 3, warmup_s / 2, quick=False)


def _loss_point(
    p: float,
    variant: str = "newreno",
    delayed_ack: bool = True,
    limited_transmit: bool = True,
    min_rto_s: float = 1.0,
) -> Point:
    # Run lengths for about 500 loss events per case over the 20 seeds
    # (1 / p packets each), so that each mean has a CI of a few percent.
    duration, warmup = {1e-4: (2500.0, 100.0), 1e-3: (600.0, 60.0), 1e-2: (400.0, 40.0)}[p]
    tags = [variant, "delack" if delayed_ack else "ack-every", "LT" if limited_transmit else "noLT"]
    tags.append(f"minRTO {min_rto_s:g}s")
    case = Case(
        variant=variant,
        loss=p,
        shared_losses=True,
        delayed_ack=delayed_ack,
        limited_transmit=limited_transmit,
        min_rto_s=min_rto_s,
        duration_s=duration,
        warmup_s=warmup,
        **GEO_10M,
    )
    return Point(f"loss {_loss_label(p)} {' '.join(tags)}", case, duration / 5, warmup / 2)


def points() -> list[Point]:
    out = [
        Point(
            "GEO window-limited W=32",
            Case(window_packets=32, queue_limit=100, duration_s=300.0, warmup_s=50.0, **GEO_2M),
            100.0,
            30.0,
        )
    ]
    for variant in ("reno", "newreno", "sack"):
        out.append(
            Point(
                f"GEO buffer-limited {variant}",
                Case(
                    variant=variant,
                    window_packets=1000,
                    queue_limit=30,
                    duration_s=600.0,
                    warmup_s=100.0,
                    **GEO_2M,
                ),
                200.0,
                50.0,
            )
        )
    out += [_loss_point(1e-4), _loss_point(1e-4, delayed_ack=False)]
    for p in (1e-3, 1e-2):
        out += [
            _loss_point(p),
            _loss_point(p, delayed_ack=False),
            _loss_point(p, limited_transmit=False),
            _loss_point(p, min_rto_s=0.2),
            _loss_point(p, variant="reno"),
            _loss_point(p, variant="sack"),
        ]
    # Four flows, RTTs 100 to 600 ms, on one 10 Mb/s drop-tail bottleneck,
    # with a little random loss (1e-4) so that the flows' phases differ
    # from seed to seed (pure drop-tail would be one deterministic outcome
    # each, set by phase effects).
    access = (0.0245, 0.108, 0.1915, 0.275)  # one way: RTT = 2 (access + 25 ms) + serialisation
    for variant in ("newreno", "sack"):
        out.append(
            Point(
                f"4 flows RTT 100-600 ms {variant}",
                Case(
                    variant=variant,
                    rate_bps=10e6,
                    delay_s=0.025,
                    queue_limit=200,
                    loss=1e-4,
                    shared_losses=True,
                    window_packets=1000,
                    duration_s=300.0,
                    warmup_s=60.0,
                    flows=tuple(Flow(a, 0.5 * i) for i, a in enumerate(access)),
                ),
                100.0,
                40.0,
            )
        )
    # CUBIC: satcc's RFC 9438 controller (SACK recovery) against ns-2's
    # Linux sender with tcp_cubic 2.1 (docs/tcp-crosscheck.md). Buffer-limited
    # over the GEO hop (deterministic; quick mode's one CUBIC case), random
    # loss over GEO at 1e-4 (a 50 Mb/s hop, so that the loss and not the
    # link sets the window; window and queue 2000 packets, below the BDP of
    # 2317) and 1e-3, and 3e-3 over a 41 ms path, where W_cubic grows slower
    # than the Reno-friendly estimate. Over the 20 seeds: about 700 loss
    # events at 1e-4 (each costs 10 000 packets), over 2000 at the others.
    out += [
        Point(
            "GEO buffer-limited cubic",
            Case(
                variant="sack",
                congestion_control="cubic",
                cubic_beta=CUBIC_BETA_NS2,
                window_packets=1000,
                queue_limit=30,
                duration_s=600.0,
                warmup_s=100.0,
                **GEO_2M,
            ),
            200.0,
            50.0,
        ),
        _cubic_point(
            "loss 1e-4 cubic delack 50 Mb/s",
            1e-4,
            360.0,
            60.0,
            rate_bps=50e6,
            delay_s=0.274,
            queue_limit=2000,
            window_packets=2000,
        ),
        _cubic_point("loss 1e-3 cubic delack", 1e-3, 600.0, 60.0, **GEO_10M),
        _cubic_point(
            "loss 3e-3 cubic delack RTT 41 ms",
            3e-3,
            100.0,
            20.0,
            rate_bps=10e6,
            delay_s=0.019,
            queue_limit=1000,
            window_packets=1000,
        ),
    ]
    # Hybla: satcc's controller (SACK recovery) against ns-2's Linux sender
    # with 2.6.22's tcp_hybla (docs/tcp-crosscheck.md), rtt0 25 ms. Over the
    # GEO hops rho = 22 (the SYN's 550 ms over 25 ms), at 41 ms 1.5, in both
    # (each takes it from the SYN's SRTT); the same paths as CUBIC's:
    # buffer-limited over GEO (deterministic; quick mode's one Hybla case),
    # random loss 1e-3 over GEO and 3e-3 at 41 ms.
    out += [
        Point(
            "GEO buffer-limited hybla",
            hybla_case(
                window_packets=1000, queue_limit=30, duration_s=600.0, warmup_s=100.0, **GEO_2M
            ),
            200.0,
            50.0,
        ),
        _hybla_point("loss 1e-3 hybla delack", 1e-3, 600.0, 60.0, **GEO_10M),
        _hybla_point(
            "loss 3e-3 hybla delack RTT 41 ms",
            3e-3,
            100.0,
            20.0,
            rate_bps=10e6,
            delay_s=0.019,
            queue_limit=1000,
            window_packets=1000,
        ),
    ]
    return out


POINTS = points()
BY_LABEL = {p.label: p for p in POINTS}


def case_of(point: Point, quick: bool) -> Case:
    if not quick:
        return point.case
    return replace(point.case, duration_s=point.quick_duration_s, warmup_s=point.quick_warmup_s)


# ---------------------------------------------------------------------------
# The satcc scenario of a case


def tcp_entry(case: Case, src: str, dst: str, start_s: float = 0.0) -> dict:
    """A bulk transfer from `src` to `dst` with the TCP of `case`, each
    parameter as ns-2's sender and sink have it (ns2.tcp_settings)."""
    window = f"{case.window_packets * case.mss} B"
    # Under Hybla ns-2's window_ is the initial ssthresh only and its cwnd
    # clamp 65535 packets (ns2.HYBLA_CWND_CLAMP): the send buffer is that.
    limit = case.send_limit_packets
    receive = case.receive_buffer_packets or 2 * limit
    entry = {
        "from": src,
        "to": dst,
        "variant": case.variant,
        "mss": f"{case.mss} B",
        "header": f"{HEADER_BYTES} B",
        "initial_window": case.initial_window,
        # ns-2 adds one segment per new ACK in slow start, whatever it
        # acknowledges: RFC 5681's counting, L = 1.
        "abc_limit": 1,
        # ns-2 starts with ssthresh_ = window_.
        "initial_ssthresh": window,
        "min_rto": f"{case.min_rto_s} s",
        "initial_rto": f"{case.initial_rto_s} s",
        "max_rto": f"{case.max_rto_s} s",
        "clock_granularity": f"{case.tick_s} s",
        "delayed_ack": case.delayed_ack,
        "delayed_ack_timeout": f"{case.delack_interval_s} s",
        "limited_transmit": case.limited_transmit,
        # ns-2 restarts the timer when it sends the fast retransmit
        # (reset_rtx_timer(1, 0) in dupack_action).
        "rto_restart_on_fast_retransmit": True,
        # ns-2's window_ is a fixed limit on the packets in flight: the send
        # buffer. Its sinks take any amount of out-of-order data, where
        # satcc's receiver advertises its free buffer space: twice the window
        # never shrinks the advertisement below the window (measured: with
        # one window, recovery from a slow-start overshoot of 700 packets
        # stalled on it, and the two diverged from the first loss on).
        "send_buffer": f"{limit * case.mss} B",
        "receive_buffer": f"{receive * case.mss} B",
        "start": f"{start_s} s",
        "app": {"type": "bulk"},
    }
    if case.congestion_control != "reno":
        # RFC 9438 CUBIC or Hybla; HyStart++ off (ns-2.35's CUBIC 2.1 and
        # tcp_hybla have no HyStart).
        entry["congestion_control"] = case.congestion_control
        entry["hystart"] = False
    if case.congestion_control == "hybla":
        # ns-2's `set_ca_param hybla rtt0` (ns2.tcl_script).
        entry["hybla_rtt0"] = f"{case.hybla_rtt0_ms} ms"
        # tcp_hybla's ssthresh is 2.6.22's tcp_reno_ssthresh, max(cwnd/2, 2).
        entry["ssthresh_from"] = "cwnd"
    return entry


def scenario(
    case: Case,
    name: str = "tcp-crosscheck",
    duration_s: float | None = None,
    seed: int | None = None,
) -> dict:
    """The satcc scenario of `case`, stopped at `duration_s` (default: the
    case's duration). A case with shared losses needs the `seed` whose
    losses it is to lose (`Case.loss_lists`)."""
    lists: tuple[tuple[int, ...], ...] = tuple(() for _ in case.flows)
    if case.shared_losses and case.loss > 0:
        if seed is None:
            raise ValueError("a case with shared losses has one scenario per seed: give the seed")
        lists = case.loss_lists(seed)
    big = {"limit": f"{ACCESS_QUEUE_PACKETS} packets"}
    rate = f"{case.rate_bps:.9g} bps"
    delay = f"{case.delay_s:.9g} s"
    nodes: dict[str, dict] = {"r1": {}, "r2": {}}
    links: dict[str, dict] = {
        # ns-2's queue-limit N keeps N-1 packets waiting beside the one in
        # transmission; satcc's limit counts the waiting ones only.
        "bn": {
            "from": "r1",
            "to": "r2",
            "rate": rate,
            "delay": delay,
            "loss": 0.0 if case.shared_losses else case.loss,
            "queue": {"limit": f"{case.queue_limit - 1} packets"},
        },
        "bn_back": {"from": "r2", "to": "r1", "rate": rate, "delay": delay, "queue": big},
    }
    tcp: dict[str, dict] = {}
    for i, flow in enumerate(case.flows):
        nodes[f"s{i}"] = {"type": "host"}
        nodes[f"d{i}"] = {"type": "host"}
        access = {"rate": f"{ACCESS_RATE_BPS:.9g} bps", "duplex": True, "queue": big}
        links[f"in{i}"] = {"from": f"s{i}", "to": "r1", "delay": f"{flow.access_delay_s} s"}
        links[f"in{i}"].update(access)
        links[f"out{i}"] = {"from": "r2", "to": f"d{i}", "delay": "0 s", **access}
        tcp[f"f{i}"] = tcp_entry(case, f"s{i}", f"d{i}", flow.start_s)
        if lists[i]:
            # The losses on the link that carries this flow's data alone,
            # in the data direction only (a duplex link's reverse would
            # copy them onto the ACKs).
            lossy = loss_link(case, i)
            links[lossy]["loss_list"] = list(lists[i])
            if lossy == f"in{i}":
                del links[lossy]["duplex"]
                reverse = {**links[lossy], "from": "r1", "to": f"s{i}"}
                del reverse["loss_list"]
                links[f"in{i}_rev"] = reverse
    duration = case.duration_s if duration_s is None else duration_s
    return {
        "run": {"name": name, "duration": f"{duration:.9g} s"},
        "nodes": nodes,
        "links": links,
        "tcp": tcp,
    }


def loss_link(case: Case, flow: int) -> str:
    """The satcc link whose error model loses flow `flow`'s data: the
    bottleneck, or with shared losses and several flows the flow's own
    access link (ns2.Case.loss_links_per_flow)."""
    return f"in{flow}" if case.shared_losses and case.loss_links_per_flow else "bn"


def runs(quick: bool) -> list[RunSpec]:
    """Each case under its seeds. A case with shared losses has one scenario
    per seed (each seed its own loss lists), so one RunSpec per seed, all
    under the case's label: the framework averages a label's runs over
    their seeds as it does one RunSpec's."""
    specs = []
    for point in POINTS:
        if quick and not point.quick:
            continue
        case = case_of(point, quick)
        seeds = (QUICK_RANDOM_SEEDS if quick else RANDOM_SEEDS) if point.random else (1,)
        params = {
            "variant": case.variant,
            "loss": case.loss,
            "flows": len(case.flows),
            "rtt_s": [round(case.rtt_s(i), 6) for i in range(len(case.flows))],
            "rate_bps": case.rate_bps,
            "queue_limit_ns2": case.queue_limit,
            "window_packets": case.window_packets,
            "delayed_ack": case.delayed_ack,
            "limited_transmit": case.limited_transmit,
            # ns-2 restarts the timer when it sends the fast retransmit
            # (reset_rtx_timer(1, 0) in dupack_action).
            "rto_restart_on_fast_retransmit": True,
            "min_rto_s": case.min_rto_s,
            "duration_s": case.duration_s,
            "warmup_s": case.warmup_s,
            "shared_losses": case.shared_losses and case.loss > 0,
            "seeds": list(seeds),
        }
        if case.congestion_control != "reno":
            params["congestion_control"] = case.congestion_control
        if case.congestion_control == "cubic":
            params["ns2_cubic_beta"] = case.cubic_beta
        if case.congestion_control == "hybla":
            params["hybla_rtt0_ms"] = case.hybla_rtt0_ms
            params["ns2_hybla_rho"] = case.hybla_rho8() / 8
        if params["shared_losses"]:
            specs += [
                RunSpec(point.label, params, scenario(case, seed=s), seeds=(s,)) for s in seeds
            ]
        else:
            specs.append(RunSpec(point.label, params, scenario(case), seeds=seeds))
    return specs


def seeds(quick: bool) -> list[int]:
    return list(QUICK_RANDOM_SEEDS if quick else RANDOM_SEEDS)


# ---------------------------------------------------------------------------
# The other side of each run: satcc stopped at the warm-up, and ns-2


# satcc's counters taken at the end of the warm-up, to count over the window:
# each flow's, and those of the link that loses its data (the PDUs it
# started, `tx_packets` + `errors`, and those it lost, `errors`).
WINDOWED = ("delivered_bytes", "retransmissions", "timeouts")
LINK_WINDOWED = ("tx_packets", "errors")
_lock = threading.Lock()
_companions: dict[tuple[str, int], dict[str, float]] = {}


def _case_of_spec(spec: RunSpec) -> Case:
    point = BY_LABEL[spec.label]
    p = spec.params
    return replace(point.case, duration_s=p["duration_s"], warmup_s=p["warmup_s"])


def _companion(case: Case, seed: int, ns: str | None) -> dict[str, float]:
    from satcc.runner import run

    stopped = scenario(case, duration_s=case.warmup_s, seed=seed)
    warm = run(stopped, seed=seed, progress=False).summary
    out = {
        f"warm.{i}.{name}": float(warm[f"tcp.f{i}.{name}"])
        for i in range(len(case.flows))
        for name in WINDOWED
    }
    for i in range(len(case.flows)):
        link = loss_link(case, i)
        out.update({f"warm.{link}.{n}": float(warm[f"links.{link}.{n}"]) for n in LINK_WINDOWED})
    if ns is not None:
        out.update(ns2.run(case, seed, ns))
    return out


def _seeds_of(spec: RunSpec) -> tuple[int, ...]:
    # Every seed of the case, also where each has a RunSpec of its own.
    return tuple(spec.params.get("seeds") or spec.seeds or ())


def companions(spec: RunSpec, seed: int) -> dict[str, float]:
    """For (spec, seed): satcc's counters at the warm-up's end
    (`warm.<flow>.*`, `warm.<link>.*`) and ns-2's figures (`flow.<i>.*`,
    absent without ns-2). The first call for a case computes every seed of
    it at once, in threads (satcc runs without the GIL, ns-2 in its own
    process)."""
    ns = ns2.find_ns()
    key = json.dumps([spec.label, spec.params, ns], sort_keys=True)
    with _lock:
        if (key, seed) not in _companions:
            case = _case_of_spec(spec)
            todo = [s for s in (_seeds_of(spec) or (seed,)) if (key, s) not in _companions]
            if seed not in todo:
                todo.append(seed)
            with ThreadPoolExecutor(max_workers=max(1, default_jobs())) as pool:
                results = pool.map(lambda s: _companion(case, s, ns), todo)
                for s, result in zip(todo, results, strict=True):
                    _companions[(key, s)] = result
        return _companions[(key, seed)]


# ---------------------------------------------------------------------------
# Metrics


def realised_loss(summary: dict[str, Any], warm: dict[str, float], case: Case) -> float:
    """The fraction of the PDUs the lossy links started in the measured
    window that they lost (satcc's count; ns-2 loses the same packets of
    nearly the same PDUs with shared losses); NaN when none started."""
    links = sorted({loss_link(case, i) for i in range(len(case.flows))})
    lost = started = 0.0
    for link in links:
        errors = float(summary[f"links.{link}.errors"]) - warm[f"warm.{link}.errors"]
        sent = float(summary[f"links.{link}.tx_packets"]) - warm[f"warm.{link}.tx_packets"]
        lost, started = lost + errors, started + sent + errors
    return lost / started if started else math.nan


def ns2_present() -> bool:
    return ns2.find_ns() is not None


def metrics(summary: dict[str, Any], spec: RunSpec) -> dict[str, float]:
    case = _case_of_spec(spec)
    seed = int(summary["run.seed"])
    other = companions(spec, seed)
    n = len(case.flows)
    out: dict[str, float] = {}
    totals = {"satcc": 0.0, "ns2": 0.0}
    for name in ("retransmissions", "timeouts"):
        out[f"satcc_{name}"] = sum(
            float(summary[f"tcp.f{i}.{name}"]) - other[f"warm.{i}.{name}"] for i in range(n)
        )
        out[f"ns2_{name}"] = sum(other.get(f"flow.{i}.{name}", math.nan) for i in range(n))
    for i in range(n):
        delivered = float(summary[f"tcp.f{i}.delivered_bytes"]) - other[f"warm.{i}.delivered_bytes"]
        ours = delivered * 8 / case.measured_s / 1e6
        theirs = other.get(f"flow.{i}.goodput_bps", math.nan) / 1e6
        totals["satcc"] += ours
        totals["ns2"] += theirs
        if n > 1:
            out[f"satcc_goodput_mbps_flow{i}"] = ours
            out[f"ns2_goodput_mbps_flow{i}"] = theirs
            out[f"paired_ratio_flow{i}"] = ours / theirs if theirs else math.nan
    out["satcc_goodput_mbps"] = totals["satcc"]
    out["ns2_goodput_mbps"] = totals["ns2"]
    # Against ns-2's mean over the case's seeds: the mean of this metric
    # over the seeds is then the ratio of the two means.
    ns2_means = _ns2_mean_goodputs(spec, n)
    out["goodput_ratio"] = totals["satcc"] / ns2_means["total"]
    if n > 1:
        for i in range(n):
            out[f"goodput_ratio_flow{i}"] = out[f"satcc_goodput_mbps_flow{i}"] / ns2_means[i]
    # The same seed's runs, side by side: with shared losses both lost the
    # same packets, and this ratio's spread over the seeds is TCP's alone.
    out["paired_ratio"] = totals["satcc"] / totals["ns2"] if totals["ns2"] else math.nan
    # The models at the loss rate the run realised (with a listed pattern,
    # what the run met, not the p it was drawn with).
    p = realised_loss(summary, other, case) if case.loss > 0 else 0.0
    out["loss_realised"] = p
    out["padhye_mbps"], out["mathis_mbps"] = response.reno_models(case, p)
    out["cubic_model_mbps"] = response.cubic_model(case, p)
    out["hybla_model_mbps"] = response.hybla_model(case, p)
    return out


def _ns2_mean_goodputs(spec: RunSpec, n: int) -> dict[Any, float]:
    rows = [companions(spec, s) for s in _seeds_of(spec)]
    per_flow = {
        i: ns2.mean_or_nan([r.get(f"flow.{i}.goodput_bps", math.nan) / 1e6 for r in rows])
        for i in range(n)
    }
    return {**per_flow, "total": sum(per_flow.values())}
