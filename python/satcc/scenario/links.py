"""[links.NAME]: one-way links with their queue, capacity process, error model and ERICA+ port.

A link is a queue, a transmitter at a rate that may vary (Markov-modulated
or a trace), a propagation delay and an error model. `duplex = true` adds
the reverse link NAME_rev with the same parameters; the rest of the
scenario (routes, probes, the description) sees it like any declared link.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from pydantic import Field

from satcc.units import format_limit, format_rate, format_time, parse_limit, parse_time

from .atm import Erica
from .constellation import LinkPath, check_link_path
from .description import NOT_DESCRIBED, UNLESS_DEFAULT, Desc, describe_named
from .dvb_rcs import check_uplink_capacity
from .routing import walk
from .tables import Section, _Table
from .values import (
    MAX_RATE_BPS,
    Bool,
    NonNegativeLimit,
    NonNegativeNumber,
    NonNegativeRate,
    NonNegativeTime,
    PositiveInt,
    PositiveLimit,
    PositiveNumber,
    PositiveRate,
    PositiveSize,
    PositiveTime,
    Probability,
    Str,
    UpToOne,
    ZeroOne,
    bytes_text,
    choice,
    list_of,
    optional,
    optional_table,
    table,
)
from .values import (
    Fraction as ZeroOneFraction,
)

if TYPE_CHECKING:
    from .validation import Checks

DEFAULT_LIMIT = parse_limit("1000 packets")


class Band(_Table):
    limit: PositiveLimit
    clp_threshold: optional(NonNegativeLimit) = None


class Queue(_Table):
    VARIANTS = {
        "droptail": (("type", "limit"), ()),
        "priority": (("type", "high", "low"), ("high", "low")),
        # Active queue management (docs/queues.md).
        "red": (
            (
                "type",
                "limit",
                "min_th",
                "max_th",
                "w_q",
                "max_p",
                "gentle",
                "adaptive",
                "ecn",
                "mean_packet_bytes",
            ),
            ("min_th", "max_th"),
        ),
        "codel": (("type", "limit", "target", "interval", "ecn"), ()),
        "pie": (
            (
                "type",
                "limit",
                "target",
                "tupdate",
                "alpha",
                "beta",
                "max_burst",
                "ecn",
                "mark_ecnth",
                "derandomize",
            ),
            (),
        ),
        "dualpi2": (
            (
                "type",
                "limit",
                "target",
                "tupdate",
                "alpha",
                "beta",
                "coupling",
                "step_thresh",
                "c_protection",
                "ecn",
            ),
            (),
        ),
        "fq_codel": (
            ("type", "limit", "flows", "quantum", "target", "interval", "ecn", "ce_threshold"),
            (),
        ),
    }
    DEFAULT_VARIANT = "droptail"

    type: choice(*VARIANTS) = "droptail"
    limit: optional(PositiveLimit) = None
    high: optional_table(Band) = None
    low: optional_table(Band) = None
    # RED (Floyd and Jacobson 1993; defaults ns-2.35's, docs/queues.md):
    # thresholds of the average queue, in the limit's unit.
    min_th: optional(NonNegativeNumber) = None
    max_th: optional(PositiveNumber) = None
    w_q: UpToOne = 0.002
    max_p: UpToOne = 0.1
    gentle: Bool = True
    adaptive: Bool = False
    mean_packet_bytes: PositiveInt = 500
    # CoDel (RFC 8289 §4.4, §4.5).
    target: PositiveTime = parse_time("5 ms")
    interval: PositiveTime = parse_time("100 ms")
    # FQ-CoDel (RFC 8290 §5.1): flow queues the flows hash into, and the
    # bytes each sends per round; target and interval are CoDel's.
    flows: PositiveInt = 1024
    quantum: PositiveSize = 1514
    # Linux's ce_threshold: mark ECT PDUs that waited longer (off if unset).
    ce_threshold: optional(PositiveTime) = None
    # RED, CoDel and FQ-CoDel: mark ECN-capable PDUs instead of dropping them.
    ecn: Bool = False
    # PIE (RFC 8033 §5.1) and DualPI2 (RFC 9332 App. A.1): the PI
    # controller's period and gains, each discipline's own defaults
    # (VARIANT_DEFAULTS) unless given; `target` too.
    tupdate: optional(PositiveTime) = None
    alpha: optional(NonNegativeNumber) = None
    beta: optional(NonNegativeNumber) = None
    # PIE only.
    max_burst: NonNegativeTime = parse_time("150 ms")
    mark_ecnth: Probability = 0.1
    derandomize: Bool = True
    # DualPI2 only (Linux's c_protection).
    coupling: PositiveNumber = 2.0
    step_thresh: PositiveTime = parse_time("1 ms")
    c_protection: NonNegativeNumber = 10.0


# The defaults of keys a discipline shares with others, where its own
# differ from the table's: PIE's (RFC 8033 §5.1), FQ-CoDel's limit (RFC 8290
# §5.1) and DualPI2's (RFC 9332 App. A.1, Linux's limit; ECN on, as L4S
# needs it).
VARIANT_DEFAULTS = {
    "pie": {
        "target": parse_time("15 ms"),
        "tupdate": parse_time("15 ms"),
        "alpha": 0.125,
        "beta": 1.25,
    },
    "fq_codel": {"limit": parse_limit("10240 packets")},
    "dualpi2": {
        "limit": parse_limit("10000 packets"),
        "target": parse_time("15 ms"),
        "tupdate": parse_time("16 ms"),
        "alpha": 0.16,
        "beta": 3.2,
        "ecn": True,
    },
}


def _value(queue: Queue, key: str):
    """A shared key's value: as given, else the discipline's own default,
    else the table's."""
    given = key in queue.model_fields_set and getattr(queue, key) is not None
    if given:
        return getattr(queue, key)
    own = VARIANT_DEFAULTS.get(queue.type, {})
    if key in own:
        return own[key]
    if key == "limit":
        return queue.limit or DEFAULT_LIMIT
    return getattr(queue, key)


class ExplicitRate(_Table):
    """[links.NAME.explicit_rate]: every `interval` the link's measured
    capacity is fed back to the rate-controlled hosts whose rate_control
    names the link (the abr-effcap paper's instcap, or its effcap over each
    host's blocks; `delta` per byte of capacity, left out for its δ → ∞
    form, the minimum block average)."""

    scheme: choice("instcap", "effcap")
    interval: PositiveTime = parse_time("30 ms")
    delta: Annotated[optional(PositiveNumber), Desc("delta_per_byte")] = None


class Congestion(_Table):
    """[links.NAME.congestion]: the proactive-atm thesis's congestion
    detector at this transmit link: the input rate of four classes
    (priority x CLP) measured every `interval`, filtered, and above
    `threshold` of the link rate a notification to the source of each
    arriving cell of the lowest classes that carry `lowest_share` of the
    link; a notification for each discarded cell; at most one per source
    per interval."""

    interval: PositiveTime = parse_time("50 ms")
    current_weight: ZeroOneFraction = 0.8
    threshold: PositiveNumber = 0.9
    lowest_share: ZeroOneFraction = 0.2
    # Notifications on the input rate (type 0) and on discards (type 2).
    input_rate: Bool = True
    discard: Bool = True
    # What the thesis leaves open (docs/proactive-atm.md).
    previous: choice("filtered", "raw") = "filtered"
    class_rates: choice("filtered", "current") = "filtered"
    count_discarded: Bool = True


class Capacity(_Table):
    VARIANTS = {
        "constant": (("type", "rate"), ("rate",)),
        "markov": (
            ("type", "rates", "mean_holding", "initial", "step"),
            ("rates", "mean_holding"),
        ),
        "trace": (("type", "times", "rates", "repeat", "period"), ("times", "rates")),
        # A terminal's uplink: the slots its DVB-RCS channel gives it.
        "dvb_rcs": (("type", "channel"), ("channel",)),
    }

    type: choice(*VARIANTS)
    rate: optional(PositiveRate) = None
    rates: optional(list_of(NonNegativeRate)) = None
    mean_holding: optional(list_of(PositiveTime)) = None
    initial: ZeroOne = 0
    # Discrete time: the chain changes state only at multiples of `step`.
    step: optional(PositiveTime) = None
    times: optional(list_of(NonNegativeTime)) = None
    repeat: Bool = False
    period: optional(PositiveTime) = None
    channel: optional(Str) = None


# ---------------------------------------------------------------------------
# Queues and capacity processes have shapes of their own in the description.


def _limit(limit: tuple[str, int]) -> dict:
    return {limit[0]: limit[1]}


def _head(queue: Queue) -> dict:
    """What every single-link discipline's entry starts with: its kind and
    its limit (its own default where it has one)."""
    return {"kind": queue.type, "limit": _limit(_value(queue, "limit"))}


def _pi_controller(queue: Queue) -> dict:
    """The keys PIE and DualPI2 share: their kind, limit, and the PI
    controller's target, period and gains."""
    return {
        **_head(queue),
        "target_ps": _value(queue, "target"),
        "tupdate_ps": _value(queue, "tupdate"),
        "alpha": _value(queue, "alpha"),
        "beta": _value(queue, "beta"),
    }


def describe_queue(queue: Queue) -> dict:
    if queue.type == "droptail":
        return _head(queue)
    if queue.type == "red":
        return {
            **_head(queue),
            "min_th": queue.min_th,
            "max_th": queue.max_th,
            "w_q": queue.w_q,
            "max_p": queue.max_p,
            "gentle": queue.gentle,
            "adaptive": queue.adaptive,
            "ecn": queue.ecn,
            "mean_packet_bytes": queue.mean_packet_bytes,
        }
    if queue.type == "codel":
        return {
            **_head(queue),
            "target_ps": queue.target,
            "interval_ps": queue.interval,
            "ecn": queue.ecn,
        }
    if queue.type == "pie":
        return {
            **_pi_controller(queue),
            "max_burst_ps": queue.max_burst,
            "ecn": queue.ecn,
            "mark_ecnth": queue.mark_ecnth,
            "derandomize": queue.derandomize,
        }
    if queue.type == "dualpi2":
        return {
            **_pi_controller(queue),
            "coupling": queue.coupling,
            "step_thresh_ps": queue.step_thresh,
            "c_protection": queue.c_protection,
            "ecn": _value(queue, "ecn"),
        }
    if queue.type == "fq_codel":
        return {
            **_head(queue),
            "flows": queue.flows,
            "quantum_bytes": queue.quantum,
            "target_ps": queue.target,
            "interval_ps": queue.interval,
            "ecn": queue.ecn,
            "ce_threshold_ps": queue.ce_threshold,
        }
    bands = {}
    for name in ("high", "low"):
        band = getattr(queue, name)
        threshold = band.clp_threshold or band.limit
        bands[name] = {"limit": _limit(band.limit), "clp_threshold": _limit(threshold)}
    return {"kind": "priority", **bands}


def describe_capacity(link: Link) -> dict:
    capacity = link.capacity
    if capacity is None:
        return {"kind": "constant", "rate_bps": link.rate}
    if capacity.type == "constant":
        return {"kind": "constant", "rate_bps": capacity.rate}
    if capacity.type == "dvb_rcs":
        return {"kind": "dvb_rcs", "channel": capacity.channel}
    if capacity.type == "markov":
        markov = {
            "kind": "markov",
            "rates_bps": list(capacity.rates),
            "mean_holding_ps": list(capacity.mean_holding),
            "initial": capacity.initial,
        }
        if capacity.step is not None:
            markov["step_ps"] = capacity.step
        return markov
    return {
        "kind": "trace",
        "times_ps": list(capacity.times),
        "rates_bps": list(capacity.rates),
        "period_ps": capacity.period if capacity.repeat else None,
    }


class Link(_Table):
    from_: Str = Field(alias="from")
    to: Str
    # Written as the constant capacity when no capacity table is given.
    rate: Annotated[optional(PositiveRate), NOT_DESCRIBED] = None
    delay: NonNegativeTime = 0
    # Expanded into the reverse link NAME_rev.
    duplex: Annotated[Bool, NOT_DESCRIBED] = False
    ber: Probability = 0.0
    loss: Probability = 0.0
    # Every n-th PDU lost (ns-2's ErrorModel/Periodic), the first being the
    # loss_first-th: the same losses in any simulator.
    loss_every: Annotated[optional(PositiveInt), UNLESS_DEFAULT] = None
    loss_first: Annotated[optional(PositiveInt), UNLESS_DEFAULT] = None
    # The numbers (from 1) of the PDUs to lose (ns-2's ErrorModel/List).
    loss_list: Annotated[optional(list_of(PositiveInt)), UNLESS_DEFAULT] = None
    # What the physical layer adds to each PDU: nothing, or an Ethernet
    # frame's preamble, header, FCS and gap (and padding to 64 bytes).
    framing: Annotated[choice("none", "ethernet", "aal5"), UNLESS_DEFAULT] = "none"
    queue: Annotated[table(Queue), Desc(convert=describe_queue)] = Field(default_factory=Queue)
    capacity: Annotated[optional_table(Capacity), Desc(compute=describe_capacity)] = None
    erica: Annotated[optional_table(Erica), UNLESS_DEFAULT] = None
    explicit_rate: Annotated[optional_table(ExplicitRate), UNLESS_DEFAULT] = None
    congestion: Annotated[optional_table(Congestion), UNLESS_DEFAULT] = None
    # The delay of a constellation's moving path instead of `delay`
    # ([constellation.NAME]); described as the link's `delay_schedule`.
    path: Annotated[optional_table(LinkPath), NOT_DESCRIBED] = None

    def rates(self) -> list[float]:
        """Every rate the link can take, whichever way it is given."""
        if self.rate is not None:
            return [self.rate]
        cap = self.capacity
        return [r for r in (cap.rate, *(cap.rates or ())) if r is not None] if cap else []


def expand_links(doc) -> dict[str, Link]:
    """Declared links plus the NAME_rev reverse of each duplex link (if free)."""
    links = dict(doc.links)
    for name, link in sorted(doc.links.items()):
        reverse = f"{name}_rev"
        if link.duplex and reverse not in links:
            links[reverse] = link.model_copy(update={"from_": link.to, "to": link.from_})
    return links


# ---------------------------------------------------------------------------
# Checks across keys.


def check_queue_sizes(checks: Checks, routes: dict, requests) -> None:
    """Refuses a byte-limited queue too small for the PDUs routed through it:
    not even an empty queue could take one, so every one would be dropped."""
    links = checks.entries("links")
    ends = {name: (link.from_, link.to) for name, link in links.items()}
    refused = set()
    for request in requests:
        if not request.pdu_bytes:
            continue
        for name in walk(routes, ends, request):
            band = _band(links[name].queue, request.priority)
            kind, limit = band[1]
            if kind == "bytes" and limit < request.pdu_bytes and name not in refused:
                refused.add(name)
                declared = name if name in checks.doc.links else name.removesuffix("_rev")
                checks.refuse(
                    ("links", declared, "queue", *band[0], "limit"),
                    f'limit "{format_limit(band[1])}" is smaller than the '
                    f"{bytes_text(request.pdu_bytes)} PDUs of {request.purpose}: "
                    "the queue could not hold one, so every one would be dropped",
                )


def _band(queue: Queue, priority: int) -> tuple[tuple, tuple[str, int]]:
    """The key path within the queue and the limit that applies to a priority."""
    if queue.type != "priority":
        return (), _value(queue, "limit")
    name = "high" if priority == 0 else "low"
    return (name,), getattr(queue, name).limit


def check_link(checks: Checks, path: tuple, name: str, link: Link) -> None:
    for rate in link.rates():
        if rate > MAX_RATE_BPS:
            checks.refuse(
                (*path, "rate" if link.rate is not None else "capacity"),
                f"rate above {format_rate(MAX_RATE_BPS)} is not supported",
            )
            break
    checks.require_ends(path, link, "a link")
    if link.rate is not None and link.capacity is not None:
        checks.refuse((*path, "rate"), "give either rate or capacity, not both")
    if link.rate is None and link.capacity is None:
        checks.refuse((*path, "rate"), "missing required key (or give a capacity table)")
    if link.duplex and f"{name}_rev" in checks.doc.links:
        checks.refuse(
            (*path, "duplex"),
            f'the reverse link would be named "{name}_rev", which is already a link',
        )
    if link.loss_first is not None and link.loss_every is None:
        checks.refuse((*path, "loss_first"), "loss_first needs loss_every")
    _check_queue(checks, (*path, "queue"), link.queue)
    check_link_path(checks, path, link)
    variable = link.capacity is not None and link.capacity.type != "constant"
    if link.erica is not None and variable:
        checks.refuse(
            (*path, "erica"),
            "ERICA+ needs a constant-rate link (give rate, or a constant capacity)",
        )
    if link.erica is not None and link.explicit_rate is not None:
        checks.refuse(
            (*path, "explicit_rate"), "a link's input port runs erica or explicit_rate, not both"
        )
    if link.congestion is not None and (link.erica is not None or link.explicit_rate is not None):
        checks.refuse((*path, "congestion"), "a congestion detector takes the link's port alone")
    if link.congestion is not None and variable:
        checks.refuse(
            (*path, "congestion"),
            "the detector measures against a constant rate (give rate, or a constant capacity)",
        )
    if link.capacity is not None:
        _check_capacity(checks, (*path, "capacity"), link.capacity)
    if link.duplex and link.capacity is not None and link.capacity.type == "dvb_rcs":
        checks.refuse(
            (*path, "duplex"),
            "a DVB-RCS uplink carries one terminal's traffic one way: declare the other "
            "direction as a link of its own",
        )


def _check_queue(checks: Checks, path: tuple, queue: Queue) -> None:
    if queue.type == "red" and queue.min_th is not None and queue.max_th is not None:
        limit = _value(queue, "limit")
        if queue.min_th >= queue.max_th:
            checks.refuse((*path, "min_th"), "min_th must be below max_th")
        elif queue.max_th > limit[1]:
            checks.refuse(
                (*path, "max_th"),
                f'max_th exceeds limit "{format_limit(limit)}" (both count {limit[0]})',
            )
    if queue.type == "dualpi2" and queue.c_protection > 100:
        checks.refuse((*path, "c_protection"), "c_protection is a percentage: at most 100")
    if queue.type != "priority":
        return
    for band_name in ("high", "low"):
        band = getattr(queue, band_name)
        if band is None or band.clp_threshold is None:
            continue
        where = (*path, band_name, "clp_threshold")
        (kind, limit), (threshold_kind, threshold) = band.limit, band.clp_threshold
        if threshold_kind != kind:
            checks.refuse(where, f"clp_threshold must be counted in {kind}, like limit")
        elif threshold > limit:
            checks.refuse(
                where,
                f'clp_threshold "{format_limit(band.clp_threshold)}" exceeds limit '
                f'"{format_limit(band.limit)}"',
            )


def _check_capacity(checks: Checks, path: tuple, capacity: Capacity) -> None:
    if capacity.type == "dvb_rcs":
        check_uplink_capacity(checks, path, capacity.channel)
    elif capacity.type == "markov":
        _check_markov(checks, path, capacity)
    elif capacity.type == "trace":
        _check_trace(checks, path, capacity)


def _check_markov(checks: Checks, path: tuple, capacity: Capacity) -> None:
    for key, noun in (("rates", "rates"), ("mean_holding", "mean holding times")):
        if len(getattr(capacity, key)) != 2:
            checks.refuse(
                (*path, key),
                f"expected 2 {noun} (one per state), got {len(getattr(capacity, key))}",
            )
    if capacity.rates and not any(capacity.rates):
        checks.refuse((*path, "rates"), "the two rates cannot both be zero (at most one outage)")
    if capacity.step is not None:
        for index, mean in enumerate(capacity.mean_holding or []):
            if mean < capacity.step:
                checks.refuse(
                    (*path, "mean_holding", index),
                    f'a mean holding time cannot be shorter than the step "'
                    f'{format_time(capacity.step)}" (the chain changes at most once per step), '
                    f'got "{format_time(mean)}"',
                )


def _check_trace(checks: Checks, path: tuple, capacity: Capacity) -> None:
    times, rates = capacity.times, capacity.rates
    if not times:
        checks.refuse((*path, "times"), "a trace needs at least one time")
        return
    if times[0] != 0:
        checks.refuse(
            (*path, "times", 0), f'a trace starts at "0 s", got "{format_time(times[0])}"'
        )
    for index in range(1, len(times)):
        if times[index] <= times[index - 1]:
            checks.refuse(
                (*path, "times", index),
                f'times must strictly increase: "{format_time(times[index])}" follows '
                f'"{format_time(times[index - 1])}"',
            )
    if len(rates) != len(times):
        checks.refuse(
            (*path, "rates"),
            f"expected one rate per time ({len(times)}), got {len(rates)} rates",
        )
    elif not any(rates):
        checks.refuse((*path, "rates"), "all rates are zero: the link would never transmit")
    _check_trace_period(checks, path, capacity)


def _check_trace_period(checks: Checks, path: tuple, capacity: Capacity) -> None:
    last = capacity.times[-1]
    if capacity.repeat and capacity.period is None:
        checks.refuse((*path, "period"), "missing required key (repeat = true needs a period)")
    elif not capacity.repeat and capacity.period is not None:
        checks.refuse((*path, "period"), "period is only used with repeat = true")
    elif capacity.repeat and capacity.period <= last:
        checks.refuse(
            (*path, "period"),
            f'period must be greater than the last time "{format_time(last)}", '
            f'got "{format_time(capacity.period)}"',
        )


def describe_link(name: str, link: Link, resolved) -> dict:
    """A link's entry; one on a constellation's path carries its delay
    schedule, and its first delay (0 if it starts unreachable)."""
    entry = describe_named(name, link, resolved)
    schedule = resolved.delay_schedules.get(name) if resolved is not None else None
    if schedule is not None:
        entry["delay_ps"] = schedule["delays_ps"][0] or 0
        entry["delay_schedule"] = schedule
    return entry


SECTION = Section(
    key="links",
    table=Link,
    noun="link",
    description_key="links",
    check=check_link,
    describe=describe_link,
    expand=expand_links,
    probe_target="link",
)
