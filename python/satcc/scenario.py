"""Scenarios: load, edit and validate a scenario into the normalised description.

A scenario (TOML file or Python dict, see docs/scenario.md) is kept raw so it
can be edited and written back; validate() turns it into the normalised
description, plain JSON-able data in SI base units that the Rust core takes and
run keys hash. Validation has three stages: pydantic models check structure,
types and units; cross-reference checks find dangling names and inconsistent
values; routing resolves every source's path and both directions of every TCP
connection. The first refusal is raised as a ScenarioError naming the file, the
key path and the reason.
"""

from __future__ import annotations

import copy
import datetime
import difflib
import json
import math
import re
import tomllib
from collections import deque
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Annotated, Any, ClassVar, NamedTuple, get_args

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    model_validator,
)
from pydantic_core import PydanticCustomError

from satcc.units import (
    UnitError,
    describe_value,
    format_limit,
    format_rate,
    format_time,
    parse_limit,
    parse_rate,
    parse_size,
    parse_time,
)

__all__ = ["Scenario", "ScenarioError", "load", "normalised_json"]


class ScenarioError(ValueError):
    """A scenario refused by validation, loading or editing.

    `source` is the file path or "<dict>", `path` the dotted key path ("" for
    the whole file), `reason` plain words; `errors` lists every (path, reason)
    found in the same stage, the first of which is the one reported.
    """

    def __init__(
        self,
        source: str,
        path: str,
        reason: str,
        errors: list[tuple[str, str]] | None = None,
    ):
        super().__init__(source, path, reason)
        self.source = source
        self.path = path
        self.reason = reason
        self.errors = errors if errors is not None else [(path, reason)]

    def __str__(self) -> str:
        if self.path:
            return f"{self.source}: {self.path}: {self.reason}"
        return f"{self.source}: {self.reason}"

    def __reduce__(self):
        return (type(self), (self.source, self.path, self.reason, self.errors))


# ---------------------------------------------------------------------------
# Scalar validators. Each refuses with a ValueError whose text is the reason
# shown to the user, so pydantic's own wording never reaches them.

# The core counts picoseconds, bytes and events in signed 64-bit integers.
_INT_LIMIT = 2**63
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
_RUN_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")
_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")


def _quote(text: object) -> str:
    return json.dumps(str(text), ensure_ascii=False)


def _field(info: ValidationInfo) -> str:
    return info.field_name or "value"


def _shown(raw: object) -> str:
    return _quote(raw) if isinstance(raw, str) else describe_value(raw).split(" ", 1)[-1]


def _check_sign(value: float, raw: object, info: ValidationInfo, positive: bool) -> None:
    if positive and not value > 0:
        raise ValueError(f"{_field(info)} must be positive, got {_shown(raw)}")
    if not positive and value < 0:
        raise ValueError(f"{_field(info)} must not be negative, got {_shown(raw)}")


def _check_range(value: int) -> None:
    if not -_INT_LIMIT < value < _INT_LIMIT:
        raise ValueError(
            f"{value} is out of range: the simulator stores it in a signed 64-bit integer"
        )


def _quantity(parse: Callable[[object], Any], positive: bool) -> Callable:
    """Validator for a unit string; the sign check keeps the text as the user wrote it."""

    def validate(raw: object, info: ValidationInfo):
        parsed = parse(raw)
        amount = parsed[1] if isinstance(parsed, tuple) else parsed
        _check_sign(amount, raw, info, positive)
        if isinstance(amount, int):
            _check_range(amount)
        return parsed

    return validate


def _string(value: object) -> str:
    if not isinstance(value, str):
        raise ValueError(f"expected a string, got {describe_value(value)}")
    return value


def _boolean(value: object) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"expected true or false, got {describe_value(value)}")
    return value


def _integer(minimum: int) -> Callable:
    # Only 0 (non-negative) and 1 (positive) are needed as minimums.
    def validate(value: object, info: ValidationInfo) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"expected an integer, got {describe_value(value)}")
        _check_sign(value, value, info, positive=minimum > 0)
        _check_range(value)
        return value

    return validate


def _zero_or_one(value: object, info: ValidationInfo) -> int:
    if isinstance(value, bool) or value not in (0, 1) or not isinstance(value, int):
        raise ValueError(f"{_field(info)} must be 0 or 1, got {describe_value(value)}")
    return value


def _probability(value: object, info: ValidationInfo) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"expected a number, got {describe_value(value)}")
    if not (math.isfinite(value) and 0 <= value <= 1):
        raise ValueError(
            f"{_field(info)} is a probability and must be between 0 and 1, got {value!r}"
        )
    return float(value)


def _number_in(low: float, high: float, low_open: bool, high_open: bool, what: str) -> Callable:
    """A plain number within a range, for dimensionless model factors."""

    def validate(value: object, info: ValidationInfo) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError(f"expected a number, got {describe_value(value)}")
        above = value > low if low_open else value >= low
        below = value < high if high_open else value <= high
        if not (math.isfinite(value) and above and below):
            raise ValueError(f"{_field(info)} must be {what}, got {value!r}")
        return float(value)

    return validate


def _choice(*options: str) -> Callable:
    def validate(value: object) -> str:
        if isinstance(value, str) and value in options:
            return value
        allowed = ", ".join(_quote(option) for option in options)
        close = difflib.get_close_matches(value, options, n=1) if isinstance(value, str) else []
        hint = f' (did you mean "{close[0]}"?)' if close else ""
        raise ValueError(f"expected one of {allowed}, got {describe_value(value)}{hint}")

    return validate


def _initial_window(value: object, info: ValidationInfo) -> int | str:
    if value == "rfc5681" or (
        isinstance(value, int) and not isinstance(value, bool) and 0 < value < _INT_LIMIT
    ):
        return value
    close = difflib.get_close_matches(value, ["rfc5681"], n=1) if isinstance(value, str) else []
    hint = ' (did you mean "rfc5681"?)' if close else ""
    raise ValueError(
        f'{_field(info)} must be a positive number of segments or "rfc5681", '
        f"got {describe_value(value)}{hint}"
    )


def _size_or_unlimited(value: object, info: ValidationInfo) -> int | str:
    if value == "unlimited":
        return value
    try:
        size = parse_size(value)
    except UnitError as exc:
        raise ValueError(f'{_field(info)} is a size or "unlimited": {exc}') from None
    _check_sign(size, value, info, positive=True)
    _check_range(size)
    return size


def _run_name(value: object) -> str:
    name = _string(value)
    if not _RUN_NAME.fullmatch(name):
        raise ValueError(
            f"{_quote(name)} cannot name output folders: use letters, digits, "
            '"_", "-" and "." (not first)'
        )
    return name


def _list(value: object) -> list:
    if not isinstance(value, list | tuple):
        raise ValueError(f"expected a list, got {describe_value(value)}")
    return list(value)


def _table(value: object) -> object:
    # Tables are checked by their model; only None needs catching here, because
    # pydantic would take it as "absent" for optional tables.
    if value is None:
        raise ValueError("expected a table, got None")
    return value


def _typed(inner: Any, validate: Callable) -> Any:
    return Annotated[inner, BeforeValidator(validate)]


def _optional(annotated: Any) -> Any:
    """Same validator, but the key may be absent. None itself is still refused."""
    inner, *metadata = get_args(annotated)
    return Annotated[inner | None, *metadata]


Str = _typed(str, _string)
Bool = _typed(bool, _boolean)
PositiveInt = _typed(int, _integer(1))
NonNegativeInt = _typed(int, _integer(0))
ZeroOne = _typed(int, _zero_or_one)
Probability = _typed(float, _probability)
RunName = _typed(str, _run_name)
Fraction = _typed(float, _number_in(0, 1, False, False, "between 0 and 1"))
AboveOne = _typed(float, _number_in(1, math.inf, True, True, "greater than 1"))
# Paxson's method (and long-range dependence) needs 1/2 <= H < 1.
Hurst = _typed(float, _number_in(0.5, 1, False, True, "at least 0.5 and below 1"))
PositiveRate = _typed(float, _quantity(parse_rate, positive=True))
NonNegativeRate = _typed(float, _quantity(parse_rate, positive=False))
PositiveTime = _typed(int, _quantity(parse_time, positive=True))
NonNegativeTime = _typed(int, _quantity(parse_time, positive=False))
PositiveSize = _typed(int, _quantity(parse_size, positive=True))
NonNegativeSize = _typed(int, _quantity(parse_size, positive=False))
PositiveLimit = _typed(tuple[str, int], _quantity(parse_limit, positive=True))
NonNegativeLimit = _typed(tuple[str, int], _quantity(parse_limit, positive=False))


def _list_of(item: Any) -> Any:
    return _typed(list[item], _list)


def _optional_table(model: type) -> Any:
    return _typed(model | None, _table)


# ---------------------------------------------------------------------------
# Models: structure and types. Semantics that span keys are checked afterwards,
# where the error can name the exact key at fault.


def _refusal(reason: str, key: object = None) -> PydanticCustomError:
    context = {"reason": reason} if key is None else {"reason": reason, "key": key}
    return PydanticCustomError("satcc", "{reason}", context)


class _Table(BaseModel):
    """A TOML table. Checks its keys itself so unknown ones get suggestions.

    Tables with a `type` key may restrict which keys each type allows and
    requires (VARIANTS: type -> (allowed keys, required keys)).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    VARIANTS: ClassVar[dict[str, tuple[tuple[str, ...], tuple[str, ...]]]] = {}
    DEFAULT_VARIANT: ClassVar[str | None] = None

    @classmethod
    def table_keys(cls) -> list[str]:
        return [info.alias or name for name, info in cls.model_fields.items()]

    @classmethod
    def table_variant(cls, data: dict) -> str | None:
        kind = data.get("type", cls.DEFAULT_VARIANT)
        return kind if isinstance(kind, str) and kind in cls.VARIANTS else None

    @model_validator(mode="before")
    @classmethod
    def check_keys(cls, data: object) -> object:
        return cls.check_table(data)

    @classmethod
    def check_table(cls, data: object) -> object:
        """Refuse unknown keys and missing variant keys; subclasses may add rules."""
        if not isinstance(data, dict):
            raise _refusal(f"expected a table, got {describe_value(data)}")
        variant = cls.table_variant(data)
        allowed = cls.VARIANTS[variant][0] if variant else tuple(cls.table_keys())
        for key in data:
            if key not in allowed:
                raise _refusal(cls.unknown_key_reason(key, variant, allowed), key)
        for key in cls.VARIANTS[variant][1] if variant else ():
            if key not in data:
                raise _refusal(f'missing required key for type = "{variant}"', key)
        return data

    @classmethod
    def unknown_key_reason(cls, key: object, variant: str | None, allowed: Iterable[str]) -> str:
        listed = ", ".join(sorted(allowed))
        if variant and key in cls.table_keys():
            return f'"{key}" is not used with type = "{variant}" (allowed: {listed})'
        close = difflib.get_close_matches(str(key), list(allowed), n=1)
        hint = f'did you mean "{close[0]}"? ' if close else ""
        return f'unknown key "{key}" ({hint}allowed: {listed})'


class StopWhen(_Table):
    """Either { sink, received_packets } or { tcp, completed }."""

    FORMS: ClassVar[dict[str, tuple[str, str]]] = {
        "sink": ("sink", "received_packets"),
        "tcp": ("tcp", "completed"),
    }

    sink: _optional(Str) = None
    received_packets: _optional(PositiveInt) = None
    tcp: _optional(Str) = None
    completed: _optional(Bool) = None

    @classmethod
    def check_table(cls, data: object) -> object:
        data = super().check_table(data)
        if "sink" in data and "tcp" in data:
            raise _refusal(
                "a condition names either a sink (with received_packets) or a tcp "
                "connection (with completed), not both",
                "tcp",
            )
        # The naming key decides the form; a lone "completed" still means tcp.
        if "tcp" in data or ("sink" not in data and "completed" in data):
            form = "tcp"
        else:
            form = "sink"
        allowed = cls.FORMS[form]
        for key in data:
            if key not in allowed:
                other = next(name for name, keys in cls.FORMS.items() if key in keys)
                raise _refusal(
                    f'"{key}" belongs to a {other} condition; a {form} condition takes '
                    f"{' and '.join(allowed)}",
                    key,
                )
        for key in allowed:
            if key not in data:
                raise _refusal("missing required key", key)
        return data


class Run(_Table):
    name: _optional(RunName) = None
    duration: PositiveTime
    seed: NonNegativeInt = 1
    sample_interval: PositiveTime = parse_time("100 ms")
    max_events: _optional(PositiveInt) = None
    stop_when: _optional_table(StopWhen) = None


class Node(_Table):
    type: _typed(str, _choice("router", "host")) = "router"
    routes: dict[str, Str] = Field(default_factory=dict)


class Band(_Table):
    limit: PositiveLimit
    clp_threshold: _optional(NonNegativeLimit) = None


class Queue(_Table):
    VARIANTS = {
        "droptail": (("type", "limit"), ()),
        "priority": (("type", "high", "low"), ("high", "low")),
    }
    DEFAULT_VARIANT = "droptail"

    type: _typed(str, _choice(*VARIANTS)) = "droptail"
    limit: _optional(PositiveLimit) = None
    high: _optional_table(Band) = None
    low: _optional_table(Band) = None


class Capacity(_Table):
    VARIANTS = {
        "constant": (("type", "rate"), ("rate",)),
        "markov": (("type", "rates", "mean_holding", "initial"), ("rates", "mean_holding")),
        "trace": (("type", "times", "rates", "repeat", "period"), ("times", "rates")),
    }

    type: _typed(str, _choice(*VARIANTS))
    rate: _optional(PositiveRate) = None
    rates: _optional(_list_of(NonNegativeRate)) = None
    mean_holding: _optional(_list_of(PositiveTime)) = None
    initial: ZeroOne = 0
    times: _optional(_list_of(NonNegativeTime)) = None
    repeat: Bool = False
    period: _optional(PositiveTime) = None


def _link_rates(link: Link) -> list[float]:
    # Every rate a link can take, whichever way it is given.
    if link.rate is not None:
        return [link.rate]
    cap = link.capacity
    return [r for r in (cap.rate, *(cap.rates or ())) if r is not None] if cap else []


class Erica(_Table):
    """ERICA+ at a switch output port, [links.NAME.erica] (REFERENCE section 1).

    Defaults are the abr-lrd-vbr study's: 500 cells or 5 ms, T0 = 500 us,
    a = 1.15, b = 1.05, QDLF = 0.5."""

    interval_cells: PositiveInt = 500
    interval: PositiveTime = parse_time("5 ms")
    t0: NonNegativeTime = parse_time("500 us")
    a: AboveOne = 1.15
    b: AboveOne = 1.05
    qdlf: Fraction = 0.5
    delta: _typed(float, _number_in(0, math.inf, False, True, "zero or more")) = 0.1
    z_alpha: _typed(float, _number_in(0, 1, True, False, "in (0, 1]")) = 1.0
    ccr: _typed(str, _choice("rm_field", "measured")) = "rm_field"
    bidirectional_counting: Bool = False


class Link(_Table):
    from_: Str = Field(alias="from")
    to: Str
    rate: _optional(PositiveRate) = None
    delay: NonNegativeTime = 0
    duplex: Bool = False
    ber: Probability = 0.0
    loss: Probability = 0.0
    queue: _typed(Queue, _table) = Field(default_factory=Queue)
    capacity: _optional_table(Capacity) = None
    erica: _optional_table(Erica) = None


_SOURCE_KEYS = (
    "type",
    "from",
    "to",
    "rate",
    "packet_size",
    "size_distribution",
    "start",
    "stop",
    "priority",
    "clp",
)


class Source(_Table):
    VARIANTS = {
        "cbr": (_SOURCE_KEYS, ()),
        "poisson": (_SOURCE_KEYS, ()),
        "onoff": ((*_SOURCE_KEYS, "on_time", "off_time", "periods"), ("on_time", "off_time")),
        "mpeg2": (
            (
                *(k for k in _SOURCE_KEYS if k not in ("size_distribution", "packet_size")),
                "std",
                "hurst",
                "peak",
                "mpcr_min",
                "mpcr_max",
            ),
            ("std",),
        ),
    }

    type: _typed(str, _choice(*VARIANTS))
    from_: Str = Field(alias="from")
    to: Str
    rate: PositiveRate
    packet_size: PositiveSize = 1000
    size_distribution: _typed(str, _choice("constant", "exponential")) = "constant"
    start: NonNegativeTime = 0
    stop: _optional(NonNegativeTime) = None
    priority: ZeroOne = 0
    clp: ZeroOne = 0
    on_time: _optional(PositiveTime) = None
    off_time: _optional(PositiveTime) = None
    periods: _optional(_typed(str, _choice("exponential", "deterministic"))) = None
    std: _optional(NonNegativeRate) = None
    hurst: Hurst = 0.8
    peak: PositiveRate = parse_rate("15 Mbps")
    mpcr_min: PositiveTime = parse_time("20 ms")
    mpcr_max: PositiveTime = parse_time("100 ms")


class Sink(_Table):
    node: Str


class App(_Table):
    """The application on a TCP connection: bulk transfer, request/response,
    or NetPIPE's ping-pong sweep over block sizes."""

    VARIANTS = {
        "bulk": (("type", "size"), ()),
        "request_response": (
            ("type", "request", "response", "count", "warmup"),
            ("request", "response"),
        ),
        "netpipe": (
            (
                "type",
                "sizes",
                "min_block",
                "max_block",
                "perturbation",
                "warmup",
                "trial_time",
                "min_repetitions",
                "max_repetitions",
                "stop_time",
            ),
            (),
        ),
    }

    type: _typed(str, _choice(*VARIANTS))
    size: _optional(PositiveSize) = None
    request: _optional(PositiveSize) = None
    response: _optional(PositiveSize) = None
    count: _optional(PositiveInt) = None
    # Leading exchanges left out of the transaction-time statistics
    # (default 0 for request_response, 1 per block size for netpipe).
    warmup: _optional(NonNegativeInt) = None
    # NetPIPE: explicit block sizes, or its schedule from min to max block
    # with the +-perturbation sizes around each (NetPIPE 3.7 defaults).
    sizes: _optional(_list_of(PositiveSize)) = None
    min_block: PositiveSize = 1
    max_block: PositiveSize = 128 * 1024
    perturbation: NonNegativeInt = 3
    trial_time: PositiveTime = parse_time("250 ms")
    min_repetitions: PositiveInt = 3
    max_repetitions: PositiveInt = 1000
    stop_time: _optional(PositiveTime) = parse_time("1 s")

    @property
    def unlimited(self) -> bool:
        if self.type == "netpipe":
            return False
        return (self.size if self.type == "bulk" else self.count) is None

    def block_sizes(self) -> list[int]:
        from satcc.analysis.netpipe import netpipe_block_sizes

        if self.sizes is not None:
            return list(self.sizes)
        return netpipe_block_sizes(self.max_block, self.perturbation, self.min_block)


TCP_VARIANTS = ("tahoe", "reno", "newreno", "sack")
# Beyond these the picosecond clock runs out of resolution (a byte at 1 Tb/s
# takes 8 ps) or the series out of memory.
MAX_RATE_BPS = 1e12
MAX_SAMPLES = 10_000_000
# The simulator keeps PDU sizes in 32 bits; the IPv4 limit is far below.
MAX_DATAGRAM = 65_535
MAX_SEGMENT_COUNT = 1 << 20


class Abr(_Table):
    """ABR VCs under a TCP connection, [tcp.NAME.abr] (TM 4.0 section 5.10).

    Rates are cell line rates (53 bytes per cell); the other defaults are
    TM 4.0's, with TBE at its maximum so the CRM back-off of source rule 6
    never throttles a long-delay path."""

    pcr: PositiveRate = parse_rate("149.76 Mbps")
    mcr: NonNegativeRate = 0.0
    icr: _optional(PositiveRate) = None
    rif: Fraction = 1 / 16
    rdf: Fraction = 1 / 16
    nrm: _typed(int, _integer(1)) = 32
    mrm: PositiveInt = 2
    trm: PositiveTime = parse_time("100 ms")
    cdf: Fraction = 1 / 16
    tbe: PositiveInt = 2**24 - 1
    crm: _optional(PositiveInt) = None
    adtf: PositiveTime = parse_time("500 ms")
    tcr: PositiveRate = parse_rate("4240 bps")
    encapsulation: _typed(str, _choice("llc_snap", "vc_mux")) = "llc_snap"


class Ubr(_Table):
    """UBR VCs under a TCP connection, [tcp.NAME.ubr]: classical IP over ATM
    (AAL5, RFC 1577) with no rate control; the links pace the cells."""

    encapsulation: _typed(str, _choice("llc_snap", "vc_mux")) = "llc_snap"


class Tcp(_Table):
    """One TCP connection, [tcp.NAME]. Defaults follow RFC 5681, 6298 and 7323."""

    from_: Str = Field(alias="from")
    to: Str
    variant: _typed(str, _choice(*TCP_VARIANTS)) = "newreno"
    mss: PositiveSize = 1460
    header: NonNegativeSize = 40
    initial_window: _typed(int | str, _initial_window) = "rfc5681"
    abc_limit: PositiveInt = 2
    initial_ssthresh: _typed(int | str, _size_or_unlimited) = "unlimited"
    min_rto: PositiveTime = parse_time("1 s")
    initial_rto: PositiveTime = parse_time("1 s")
    max_rto: PositiveTime = parse_time("60 s")
    clock_granularity: PositiveTime = parse_time("1 ms")
    delayed_ack: Bool = True
    delayed_ack_timeout: PositiveTime = parse_time("200 ms")
    limited_transmit: Bool = True
    restart_after_idle: Bool = True
    window_scaling: Bool = True
    send_buffer: PositiveSize = 64 * 1024
    receive_buffer: PositiveSize = 64 * 1024
    handshake: Bool = True
    start: NonNegativeTime = 0
    priority: ZeroOne = 0
    clp: ZeroOne = 0
    app: _typed(App, _table) = Field(default_factory=lambda: App(type="bulk"))
    abr: _optional_table(Abr) = None
    ubr: _optional_table(Ubr) = None

    @property
    def initial_window_segments(self) -> int:
        """RFC 5681 section 3.1 (IW by SMSS) unless a count is given."""
        if self.initial_window != "rfc5681":
            return self.initial_window
        if self.mss <= 1095:
            return 4
        return 3 if self.mss <= 2190 else 2


class UdpRr(_Table):
    """A netperf-style UDP request/response exchange, [udp_rr.NAME]."""

    from_: Str = Field(alias="from")
    to: Str
    request: PositiveSize = 1
    response: PositiveSize = 1
    count: _optional(PositiveInt) = None
    warmup: NonNegativeInt = 0
    # A lost datagram is given up after this and the next request sent.
    timeout: PositiveTime = parse_time("2 s")
    start: NonNegativeTime = 0
    ubr: _optional_table(Ubr) = None


class Probe(_Table):
    link: _optional(Str) = None
    sink: _optional(Str) = None
    source: _optional(Str) = None
    tcp: _optional(Str) = None
    metric: Str


class _Document(_Table):
    run: Run
    nodes: dict[str, Node] = Field(default_factory=dict)
    links: dict[str, Link] = Field(default_factory=dict)
    sources: dict[str, Source] = Field(default_factory=dict)
    sinks: dict[str, Sink] = Field(default_factory=dict)
    tcp: dict[str, Tcp] = Field(default_factory=dict)
    udp_rr: dict[str, UdpRr] = Field(default_factory=dict)
    probes: dict[str, Probe] = Field(default_factory=dict)


PROBE_METRICS = {
    "link": (
        "queue_packets",
        "queue_bytes",
        "capacity_bps",
        "throughput_bps",
        "drops",
        "queue_high_packets",
        "queue_low_packets",
        "throughput_high_bps",
        "throughput_low_bps",
        "erica_fair_share_bps",
        "erica_abr_capacity_bps",
        "erica_load_factor",
    ),
    "sink": ("throughput_bps", "received_packets", "delay_mean_s"),
    "source": ("sent_packets", "rate_bps"),
    "tcp": (
        "cwnd_bytes",
        "ssthresh_bytes",
        "flight_bytes",
        "srtt_s",
        "rto_s",
        "rwnd_bytes",
        "goodput_bps",
        "delivered_bytes",
        "retransmissions",
        "acr_bps",
    ),
}

# RFC 7323 section 2.3: a window field is 16 bits and the shift at most 14.
MAX_WINDOW_FIELD = 65535
MAX_WINDOW_SHIFT = 14
# RFC 5681 section 4.2: an ACK must not be delayed more than 500 ms.
MAX_DELAYED_ACK = parse_time("500 ms")


# ---------------------------------------------------------------------------
# Key paths and pydantic's errors in plain words.


def _join_path(parts: Iterable[object]) -> str:
    def show(part: object) -> str:
        text = str(part)
        return text if isinstance(part, int) or _BARE_KEY.fullmatch(text) else _quote(text)

    return ".".join(show(part) for part in parts)


def _pydantic_reason(error: dict) -> str:
    kind, context = error["type"], error.get("ctx") or {}
    if kind == "satcc":
        return context["reason"]
    if kind == "value_error":
        return str(context["error"])
    if kind == "missing":
        top_level = len(error["loc"]) == 1
        return (
            f"missing required table [{error['loc'][0]}]" if top_level else "missing required key"
        )
    if kind in ("dict_type", "model_type", "model_attributes_type"):
        return f"expected a table, got {describe_value(error['input'])}"
    if kind in ("list_type", "tuple_type"):
        return f"expected a list, got {describe_value(error['input'])}"
    if kind in ("string_type", "str_type"):
        return f"names must be strings, got {describe_value(error['input'])}"
    return error["msg"]


def _translate(exc: ValidationError) -> list[tuple[str, str]]:
    found = []
    for error in exc.errors(include_url=False):
        parts = list(error["loc"])
        if parts and parts[-1] == "[key]":  # pydantic's marker for a bad dict key
            parts.pop()
        if error["type"] == "satcc" and "key" in (error.get("ctx") or {}):
            parts.append(error["ctx"]["key"])
        found.append((_join_path(parts), _pydantic_reason(error)))
    return found


# ---------------------------------------------------------------------------
# Cross-reference and value checks on the typed document.


class _LinkSpec(NamedTuple):
    name: str
    src: str
    dst: str
    link: Link


# kind -> (the document's table, the noun in messages, its plural)
_KINDS = {
    "node": ("nodes", "node", "nodes"),
    "link": ("links", "link", "links"),
    "sink": ("sinks", "sink", "sinks"),
    "source": ("sources", "source", "sources"),
    "tcp": ("tcp", "tcp connection", "tcp connections"),
    "udp_rr": ("udp_rr", "udp_rr exchange", "udp_rr exchanges"),
}


def _no_such(kind: str, name: str, names: Iterable[str]) -> str:
    _, noun, plural = _KINDS[kind]
    known = sorted(names)
    listed = ", ".join(known[:20]) + (", ..." if len(known) > 20 else "")
    where = f"{plural}: {listed}" if known else f"there are no {plural}"
    return f"no {noun} named {_quote(name)} ({where})"


def _bytes(size: int) -> str:
    return f"{size} B"


def _expand_links(doc: _Document) -> dict[str, _LinkSpec]:
    """Declared links plus the NAME_rev reverse of each duplex link (if free)."""
    links = {name: _LinkSpec(name, link.from_, link.to, link) for name, link in doc.links.items()}
    for name, link in sorted(doc.links.items()):
        reverse = f"{name}_rev"
        if link.duplex and reverse not in links:
            links[reverse] = _LinkSpec(reverse, link.to, link.from_, link)
    return links


class _Checks:
    """Collects refusals in a fixed order: sections as in the spec, names sorted."""

    def __init__(self, doc: _Document):
        self.doc = doc
        self.links = _expand_links(doc)
        self.found: list[tuple[str, str]] = []

    def refuse(self, path: tuple, reason: str) -> None:
        self.found.append((_join_path(path), reason))

    def run(self) -> list[tuple[str, str]]:
        self.check_run()
        sections = (
            ("nodes", self.check_node),
            ("links", self.check_link),
            ("sources", self.check_source),
            ("sinks", self.check_sink),
            ("tcp", self.check_tcp),
            ("udp_rr", self.check_udp_rr),
            ("probes", self.check_probe),
        )
        for section, check in sections:
            for name, item in sorted(getattr(self.doc, section).items()):
                if not _NAME.fullmatch(name):
                    self.refuse(
                        (section, name),
                        f"invalid name {_quote(name)}: names start with a letter or "
                        '"_" and contain only letters, digits, "_" and "-"',
                    )
                check((section, name), name, item)
        return self.found

    def require(self, path: tuple, kind: str, name: str) -> bool:
        names = getattr(self.doc, _KINDS[kind][0]) if kind != "link" else self.links
        if name not in names:
            self.refuse(path, _no_such(kind, name, names))
            return False
        return True

    def check_run(self) -> None:
        run = self.doc.run
        if self.doc.probes and run.duration // run.sample_interval > MAX_SAMPLES:
            self.refuse(
                ("run", "sample_interval"),
                f"{run.duration // run.sample_interval:,} samples per probe: at most "
                f"{MAX_SAMPLES:,} (a longer sample_interval, or a shorter duration)",
            )
        stop_when = self.doc.run.stop_when
        if stop_when is None:
            return
        path = ("run", "stop_when")
        if stop_when.sink is not None:
            self.require((*path, "sink"), "sink", stop_when.sink)
            return
        known = self.require((*path, "tcp"), "tcp", stop_when.tcp)
        if not stop_when.completed:
            self.refuse(
                (*path, "completed"),
                "completed = false is no condition: write completed = true, or leave stop_when out",
            )
        elif known and self.doc.tcp[stop_when.tcp].app.unlimited:
            app = self.doc.tcp[stop_when.tcp].app
            what = "sends unlimited data (no size)" if app.type == "bulk" else "has no count"
            self.refuse(
                (*path, "completed"),
                f"tcp connection {_quote(stop_when.tcp)} never completes: "
                f'its app (type = "{app.type}") {what}',
            )

    def check_node(self, path: tuple, name: str, node: Node) -> None:
        for dest, link in sorted(node.routes.items()):
            where = (*path, "routes", dest)
            if not self.require(where, "node", dest) or not self.require(where, "link", link):
                continue
            if dest == name:
                self.refuse(where, f"a node needs no route to itself ({_quote(name)})")
            elif self.links[link].src != name:
                self.refuse(
                    where,
                    f"link {_quote(link)} leaves node {_quote(self.links[link].src)}, "
                    f"not {_quote(name)}",
                )

    def check_link(self, path: tuple, name: str, link: Link) -> None:
        for rate in _link_rates(link):
            if rate > MAX_RATE_BPS:
                self.refuse(
                    (*path, "rate" if link.rate is not None else "capacity"),
                    f"rate above {format_rate(MAX_RATE_BPS)} is not supported",
                )
                break
        ends_known = self.require((*path, "from"), "node", link.from_)
        ends_known = self.require((*path, "to"), "node", link.to) and ends_known
        if ends_known and link.from_ == link.to:
            self.refuse(
                (*path, "to"), f"a link joins two different nodes, got {_quote(link.to)} twice"
            )
        if link.rate is not None and link.capacity is not None:
            self.refuse((*path, "rate"), "give either rate or capacity, not both")
        if link.rate is None and link.capacity is None:
            self.refuse((*path, "rate"), "missing required key (or give a capacity table)")
        if link.duplex and f"{name}_rev" in self.doc.links:
            self.refuse(
                (*path, "duplex"),
                f'the reverse link would be named "{name}_rev", which is already a link',
            )
        self.check_queue((*path, "queue"), link.queue)
        variable = link.capacity is not None and link.capacity.type != "constant"
        if link.erica is not None and variable:
            self.refuse(
                (*path, "erica"),
                "ERICA+ needs a constant-rate link (give rate, or a constant capacity)",
            )
        if link.capacity is not None:
            self.check_capacity((*path, "capacity"), link.capacity)

    def check_queue(self, path: tuple, queue: Queue) -> None:
        for band_name in ("high", "low"):
            band = getattr(queue, band_name)
            if band is None or band.clp_threshold is None:
                continue
            where = (*path, band_name, "clp_threshold")
            (kind, limit), (threshold_kind, threshold) = band.limit, band.clp_threshold
            if threshold_kind != kind:
                self.refuse(where, f"clp_threshold must be counted in {kind}, like limit")
            elif threshold > limit:
                self.refuse(
                    where,
                    f'clp_threshold "{format_limit(band.clp_threshold)}" exceeds limit '
                    f'"{format_limit(band.limit)}"',
                )

    def check_capacity(self, path: tuple, capacity: Capacity) -> None:
        if capacity.type == "markov":
            self.check_markov(path, capacity)
        elif capacity.type == "trace":
            self.check_trace(path, capacity)

    def check_markov(self, path: tuple, capacity: Capacity) -> None:
        for key, noun in (("rates", "rates"), ("mean_holding", "mean holding times")):
            if len(getattr(capacity, key)) != 2:
                self.refuse(
                    (*path, key),
                    f"expected 2 {noun} (one per state), got {len(getattr(capacity, key))}",
                )
        if capacity.rates and not any(capacity.rates):
            self.refuse((*path, "rates"), "the two rates cannot both be zero (at most one outage)")

    def check_trace(self, path: tuple, capacity: Capacity) -> None:
        times, rates = capacity.times, capacity.rates
        if not times:
            self.refuse((*path, "times"), "a trace needs at least one time")
            return
        if times[0] != 0:
            self.refuse(
                (*path, "times", 0), f'a trace starts at "0 s", got "{format_time(times[0])}"'
            )
        for index in range(1, len(times)):
            if times[index] <= times[index - 1]:
                self.refuse(
                    (*path, "times", index),
                    f'times must strictly increase: "{format_time(times[index])}" follows '
                    f'"{format_time(times[index - 1])}"',
                )
        if len(rates) != len(times):
            self.refuse(
                (*path, "rates"),
                f"expected one rate per time ({len(times)}), got {len(rates)} rates",
            )
        elif not any(rates):
            self.refuse((*path, "rates"), "all rates are zero: the link would never transmit")
        self.check_trace_period(path, capacity)

    def check_trace_period(self, path: tuple, capacity: Capacity) -> None:
        last = capacity.times[-1]
        if capacity.repeat and capacity.period is None:
            self.refuse((*path, "period"), "missing required key (repeat = true needs a period)")
        elif not capacity.repeat and capacity.period is not None:
            self.refuse((*path, "period"), "period is only used with repeat = true")
        elif capacity.repeat and capacity.period <= last:
            self.refuse(
                (*path, "period"),
                f'period must be greater than the last time "{format_time(last)}", '
                f'got "{format_time(capacity.period)}"',
            )

    def check_source(self, path: tuple, name: str, source: Source) -> None:
        self.require((*path, "from"), "node", source.from_)
        if source.type == "cbr" and source.size_distribution != "constant":
            self.refuse(
                (*path, "size_distribution"),
                'a CBR source sends constant sizes: "exponential" is for poisson and onoff',
            )
        if source.rate > MAX_RATE_BPS:
            self.refuse((*path, "rate"), f"rate above {format_rate(MAX_RATE_BPS)} is not supported")
        if source.packet_size > MAX_DATAGRAM:
            self.refuse(
                (*path, "packet_size"),
                f"packet_size must fit an IP datagram ({_bytes(MAX_DATAGRAM)}), "
                f"got {_bytes(source.packet_size)}",
            )
        self.require((*path, "to"), "sink", source.to)
        if source.type == "mpeg2":
            self.check_mpeg2(path, source)
        if source.stop is not None and source.stop <= source.start:
            self.refuse(
                (*path, "stop"),
                f'stop must be after start ("{format_time(source.start)}"), '
                f'got "{format_time(source.stop)}"',
            )

    def check_mpeg2(self, path: tuple, source: Source) -> None:
        if source.mpcr_min > source.mpcr_max:
            self.refuse(
                (*path, "mpcr_min"),
                f'mpcr_min must not exceed mpcr_max ("{format_time(source.mpcr_max)}"), '
                f'got "{format_time(source.mpcr_min)}"',
            )
        if source.rate > source.peak:
            self.refuse(
                (*path, "rate"),
                f'the mean rate exceeds the peak ("{format_rate(source.peak)}") above which '
                f"rates are skipped",
            )

    def check_udp_rr(self, path: tuple, name: str, udp: UdpRr) -> None:
        ends_known = self.require((*path, "from"), "node", udp.from_)
        ends_known = self.require((*path, "to"), "node", udp.to) and ends_known
        if ends_known and udp.from_ == udp.to:
            self.refuse(
                (*path, "to"), f"an exchange joins two different nodes, got {_quote(udp.to)} twice"
            )
        for key in ("request", "response"):
            if getattr(udp, key) > MAX_DATAGRAM - 28:
                self.refuse(
                    (*path, key),
                    f"{key} must fit one UDP datagram ({_bytes(MAX_DATAGRAM - 28)} of payload), "
                    f"got {_bytes(getattr(udp, key))}",
                )

    def check_netpipe(self, path: tuple, app: App) -> None:
        if app.sizes is None and app.max_block < app.min_block:
            self.refuse(
                (*path, "max_block"),
                f"max_block must be at least min_block ({_bytes(app.min_block)}), "
                f"got {_bytes(app.max_block)}",
            )
        if app.max_repetitions < app.min_repetitions:
            self.refuse(
                (*path, "max_repetitions"),
                f"max_repetitions must be at least min_repetitions ({app.min_repetitions}), "
                f"got {app.max_repetitions}",
            )
        if app.sizes is not None and not app.sizes:
            self.refuse((*path, "sizes"), "give at least one block size")

    def check_abr(self, path: tuple, abr: Abr) -> None:
        icr = abr.icr if abr.icr is not None else max(abr.pcr / 10, abr.mcr)
        if abr.pcr > MAX_RATE_BPS:
            self.refuse((*path, "pcr"), f"rate above {format_rate(MAX_RATE_BPS)} is not supported")
        if abr.mcr > abr.pcr:
            self.refuse(
                (*path, "mcr"),
                f'mcr must not exceed pcr ("{format_rate(abr.pcr)}"), got "{format_rate(abr.mcr)}"',
            )
        elif not abr.mcr <= icr <= abr.pcr:
            self.refuse(
                (*path, "icr"),
                f'icr must be between mcr ("{format_rate(abr.mcr)}") and pcr '
                f'("{format_rate(abr.pcr)}"), got "{format_rate(icr)}"',
            )
        if abr.nrm < 2:
            self.refuse((*path, "nrm"), f"nrm must be at least 2 cells, got {abr.nrm}")

    def check_sink(self, path: tuple, name: str, sink: Sink) -> None:
        self.require((*path, "node"), "node", sink.node)

    def check_tcp(self, path: tuple, name: str, tcp: Tcp) -> None:
        ends_known = self.require((*path, "from"), "node", tcp.from_)
        ends_known = self.require((*path, "to"), "node", tcp.to) and ends_known
        if ends_known and tcp.from_ == tcp.to:
            self.refuse(
                (*path, "to"),
                f"a connection joins two different nodes, got {_quote(tcp.to)} twice",
            )
        if tcp.mss + tcp.header > MAX_DATAGRAM:
            self.refuse(
                (*path, "mss"),
                f"mss + header must fit an IP datagram ({_bytes(MAX_DATAGRAM)}), "
                f"got {_bytes(tcp.mss)} + {_bytes(tcp.header)}",
            )
        if tcp.initial_window_segments > MAX_SEGMENT_COUNT or tcp.abc_limit > MAX_SEGMENT_COUNT:
            key = "abc_limit" if tcp.abc_limit > MAX_SEGMENT_COUNT else "initial_window"
            self.refuse((*path, key), f"{key} must be at most {MAX_SEGMENT_COUNT} segments")
        for key in ("send_buffer", "receive_buffer"):
            size = getattr(tcp, key)
            if size < tcp.mss:
                self.refuse(
                    (*path, key),
                    f"{key} ({_bytes(size)}) is smaller than one segment (mss = {_bytes(tcp.mss)})",
                )
        largest = MAX_WINDOW_FIELD << MAX_WINDOW_SHIFT
        if tcp.window_scaling and tcp.receive_buffer > largest:
            self.refuse(
                (*path, "receive_buffer"),
                f"receive_buffer exceeds what window scaling can advertise "
                f"({MAX_WINDOW_FIELD} << {MAX_WINDOW_SHIFT} bytes), "
                f"got {_bytes(tcp.receive_buffer)}",
            )
        if tcp.max_rto < tcp.min_rto:
            self.refuse(
                (*path, "max_rto"),
                f'max_rto must not be less than min_rto ("{format_time(tcp.min_rto)}"), '
                f'got "{format_time(tcp.max_rto)}"',
            )
        if tcp.app.type == "netpipe":
            self.check_netpipe((*path, "app"), tcp.app)
        if tcp.abr is not None and tcp.ubr is not None:
            self.refuse((*path, "ubr"), "a connection runs over abr or ubr VCs, not both")
        if tcp.abr is not None:
            self.check_abr((*path, "abr"), tcp.abr)
            if tcp.clp:
                self.refuse(
                    (*path, "clp"),
                    "over ABR the VC sends every in-rate cell with CLP = 0 "
                    "(TM 4.0 source rule 4), so clp = 1 would be ignored",
                )
        if tcp.delayed_ack_timeout > MAX_DELAYED_ACK:
            self.refuse(
                (*path, "delayed_ack_timeout"),
                f'delayed_ack_timeout must not exceed "500 ms": RFC 5681 says an ACK must '
                f'not be delayed more than 500 ms, got "{format_time(tcp.delayed_ack_timeout)}"',
            )

    def check_probe(self, path: tuple, name: str, probe: Probe) -> None:
        targets = [kind for kind in PROBE_METRICS if getattr(probe, kind) is not None]
        if not targets:
            self.refuse(path, "needs exactly one target key: link, sink, source or tcp")
            return
        if len(targets) > 1:
            self.refuse(
                (*path, targets[1]),
                f"a probe has exactly one target, got {' and '.join(targets)}",
            )
            return
        kind = targets[0]
        if self.require((*path, kind), kind, getattr(probe, kind)):
            metrics = PROBE_METRICS[kind]
            if probe.metric not in metrics:
                self.refuse(
                    (*path, "metric"),
                    f"metric {_quote(probe.metric)} is not available for a {kind} probe "
                    f"(allowed: {', '.join(sorted(metrics))})",
                )


# ---------------------------------------------------------------------------
# Routing: every source's path to its sink and both directions of every TCP
# connection, as per-node next hops.


class _RouteError(Exception):
    def __init__(self, path: tuple, reason: str):
        super().__init__(path, reason)
        self.path = path
        self.reason = reason


class _Router:
    """Destination-based static routing, as a node's routing table would do it.

    A node's next hop towards D is its explicit route if it has one, else the
    first link (in name order) that leaves it on a fewest-hop path to D. Using
    one next hop per (node, destination) keeps all sources towards D consistent.
    """

    def __init__(self, doc: _Document, links: dict[str, _LinkSpec]):
        self.explicit = {name: node.routes for name, node in doc.nodes.items()}
        self.leaving: dict[str, list[_LinkSpec]] = {name: [] for name in doc.nodes}
        self.arriving: dict[str, list[str]] = {name: [] for name in doc.nodes}
        for spec in sorted(links.values(), key=lambda spec: spec.name):
            self.leaving[spec.src].append(spec)
            self.arriving[spec.dst].append(spec.src)
        self.links = links
        self.distances: dict[str, dict[str, int]] = {}
        self.used: dict[str, dict[str, str]] = {name: {} for name in doc.nodes}

    def distance_to(self, dest: str) -> dict[str, int]:
        """Hop count from every node that can reach dest (BFS over reversed links)."""
        if dest not in self.distances:
            distance, queue = {dest: 0}, deque([dest])
            while queue:
                node = queue.popleft()
                for previous in self.arriving[node]:
                    if previous not in distance:
                        distance[previous] = distance[node] + 1
                        queue.append(previous)
            self.distances[dest] = distance
        return self.distances[dest]

    def fewest_hops(self, node: str, dest: str) -> str | None:
        distance = self.distance_to(dest)
        if node not in distance:
            return None
        for spec in self.leaving[node]:
            if distance.get(spec.dst) == distance[node] - 1:
                return spec.name
        return None

    def route(self, start: str, dest: str, blame: tuple, purpose: str) -> None:
        """Follow start -> dest; with no explicit route to blame, blame the key `blame`.

        `purpose` ends the no-path message, e.g. 'sink "rx"' or 'ACKs of tcp "t"'.
        """
        hops: list[tuple[str, str, bool]] = []  # (node, link, explicit)
        visited: dict[str, int] = {}
        node = start
        while node != dest:
            visited[node] = len(hops)
            explicit = self.explicit[node].get(dest)
            link = explicit or self.fewest_hops(node, dest)
            if link is None:
                self.dead_end(hops, start, dest, blame, purpose, node)
            hops.append((node, link, explicit is not None))
            node = self.links[link].dst
            if node in visited:
                self.loop(hops[visited[node] :], dest)
        for hop_node, link, _ in hops:
            self.used[hop_node][dest] = link

    def dead_end(self, hops, start, dest, blame, purpose, node) -> None:
        taken = [hop for hop in hops if hop[2]]
        if not taken:
            raise _RouteError(
                blame, f"no path from node {_quote(start)} to node {_quote(dest)} ({purpose})"
            )
        culprit, link, _ = taken[-1]
        raise _RouteError(
            ("nodes", culprit, "routes", dest),
            f"route from {_quote(culprit)} towards {_quote(dest)} via link {_quote(link)} "
            f"leads to {_quote(node)}, which has no path onward",
        )

    def loop(self, cycle: list[tuple[str, str, bool]], dest: str) -> None:
        # Fewest-hop next hops alone never loop, so the cycle has an explicit hop.
        culprit, link, _ = next(hop for hop in cycle if hop[2])
        raise _RouteError(
            ("nodes", culprit, "routes", dest),
            f"route from {_quote(culprit)} towards {_quote(dest)} via link {_quote(link)} "
            f"loops back to {_quote(culprit)}",
        )


def _routes(doc: _Document, links: dict[str, _LinkSpec]) -> dict[str, dict[str, str]]:
    router = _Router(doc, links)
    for name, source in sorted(doc.sources.items()):
        sink = source.to
        router.route(
            source.from_, doc.sinks[sink].node, ("sources", name, "to"), f"sink {_quote(sink)}"
        )
    # A connection needs both directions: data from -> to, ACKs (and responses) back.
    for name, tcp in sorted(doc.tcp.items()):
        router.route(tcp.from_, tcp.to, ("tcp", name, "to"), f"data of tcp {_quote(name)}")
        router.route(tcp.to, tcp.from_, ("tcp", name, "from"), f"ACKs of tcp {_quote(name)}")
    for name, udp in sorted(doc.udp_rr.items()):
        what = f"udp_rr {_quote(name)}"
        router.route(udp.from_, udp.to, ("udp_rr", name, "to"), f"requests of {what}")
        router.route(udp.to, udp.from_, ("udp_rr", name, "from"), f"responses of {what}")
    return router.used


# ---------------------------------------------------------------------------
# The normalised description.


def _limit(limit: tuple[str, int]) -> dict:
    return {limit[0]: limit[1]}


def _queue(queue: Queue) -> dict:
    if queue.type == "droptail":
        return {"kind": "droptail", "limit": _limit(queue.limit or parse_limit("1000 packets"))}
    bands = {}
    for name in ("high", "low"):
        band = getattr(queue, name)
        threshold = band.clp_threshold or band.limit
        bands[name] = {"limit": _limit(band.limit), "clp_threshold": _limit(threshold)}
    return {"kind": "priority", **bands}


def _capacity(link: Link) -> dict:
    capacity = link.capacity
    if capacity is None:
        return {"kind": "constant", "rate_bps": link.rate}
    if capacity.type == "constant":
        return {"kind": "constant", "rate_bps": capacity.rate}
    if capacity.type == "markov":
        return {
            "kind": "markov",
            "rates_bps": list(capacity.rates),
            "mean_holding_ps": list(capacity.mean_holding),
            "initial": capacity.initial,
        }
    return {
        "kind": "trace",
        "times_ps": list(capacity.times),
        "rates_bps": list(capacity.rates),
        "period_ps": capacity.period if capacity.repeat else None,
    }


def _link(spec: _LinkSpec) -> dict:
    link = spec.link
    # Optional model sections appear only when used, so that adding one to
    # the format leaves the run keys of existing scenarios unchanged.
    erica = {} if link.erica is None else {"erica": _erica(link.erica)}
    return {
        "name": spec.name,
        "from": spec.src,
        "to": spec.dst,
        "delay_ps": link.delay,
        "ber": link.ber,
        "loss": link.loss,
        "queue": _queue(link.queue),
        "capacity": _capacity(link),
        **erica,
    }


def _erica(erica: Erica) -> dict:
    return {
        "interval_cells": erica.interval_cells,
        "interval_ps": erica.interval,
        "t0_ps": erica.t0,
        "a": erica.a,
        "b": erica.b,
        "qdlf": erica.qdlf,
        "delta": erica.delta,
        "z_alpha": erica.z_alpha,
        "ccr": erica.ccr,
        "bidirectional_counting": erica.bidirectional_counting,
    }


def _abr(abr: Abr) -> dict:
    return {
        "pcr_bps": abr.pcr,
        "mcr_bps": abr.mcr,
        # ICR defaults to PCR/10: TM 4.0 leaves it to negotiation.
        "icr_bps": abr.icr if abr.icr is not None else max(abr.pcr / 10, abr.mcr),
        "rif": abr.rif,
        "rdf": abr.rdf,
        "nrm": abr.nrm,
        "mrm": abr.mrm,
        "trm_ps": abr.trm,
        "cdf": abr.cdf,
        "tbe": abr.tbe,
        "crm": abr.crm,
        "adtf_ps": abr.adtf,
        "tcr_bps": abr.tcr,
        "encapsulation": abr.encapsulation,
    }


def _source(name: str, source: Source) -> dict:
    onoff = source.type == "onoff"
    mpeg2 = source.type == "mpeg2"
    video = (
        {
            "std_bps": source.std,
            "hurst": source.hurst,
            "peak_bps": source.peak,
            "mpcr_min_ps": source.mpcr_min,
            "mpcr_max_ps": source.mpcr_max,
        }
        if mpeg2
        else {}
    )
    return {
        "name": name,
        "kind": source.type,
        "node": source.from_,
        "sink": source.to,
        "rate_bps": source.rate,
        # An MPEG-2 source sends ATM cells.
        "packet_bytes": 53 if mpeg2 else source.packet_size,
        "size_dist": source.size_distribution,
        "start_ps": source.start,
        "stop_ps": source.stop,
        "priority": source.priority,
        "clp": source.clp,
        "on_ps": source.on_time if onoff else None,
        "off_ps": source.off_time if onoff else None,
        "periods": (source.periods or "exponential") if onoff else None,
        **video,
    }


def _app(app: App) -> dict:
    if app.type == "bulk":
        return {"kind": "bulk", "bytes": app.size}
    if app.type == "netpipe":
        return {
            "kind": "netpipe",
            "sizes_bytes": app.block_sizes(),
            "warmup": 1 if app.warmup is None else app.warmup,
            "trial_time_ps": app.trial_time,
            "min_repetitions": app.min_repetitions,
            "max_repetitions": app.max_repetitions,
            "stop_time_ps": app.stop_time,
        }
    return {
        "kind": "request_response",
        "request_bytes": app.request,
        "response_bytes": app.response,
        "count": app.count,
        **({"warmup": app.warmup} if app.warmup else {}),
    }


def _tcp(name: str, tcp: Tcp) -> dict:
    return {
        "name": name,
        "src_node": tcp.from_,
        "dst_node": tcp.to,
        "variant": tcp.variant,
        "mss_bytes": tcp.mss,
        "header_bytes": tcp.header,
        "initial_window_segments": tcp.initial_window_segments,
        "abc_limit_segments": tcp.abc_limit,
        "initial_ssthresh_bytes": None
        if tcp.initial_ssthresh == "unlimited"
        else tcp.initial_ssthresh,
        "min_rto_ps": tcp.min_rto,
        "initial_rto_ps": tcp.initial_rto,
        "max_rto_ps": tcp.max_rto,
        "granularity_ps": tcp.clock_granularity,
        "delayed_ack": tcp.delayed_ack,
        "delayed_ack_ps": tcp.delayed_ack_timeout,
        "limited_transmit": tcp.limited_transmit,
        **({} if tcp.restart_after_idle else {"restart_after_idle": False}),
        "window_scaling": tcp.window_scaling,
        "send_buffer_bytes": tcp.send_buffer,
        "receive_buffer_bytes": tcp.receive_buffer,
        "handshake": tcp.handshake,
        "start_ps": tcp.start,
        "priority": tcp.priority,
        "clp": tcp.clp,
        "app": _app(tcp.app),
        **({} if tcp.abr is None else {"abr": _abr(tcp.abr)}),
        **({} if tcp.ubr is None else {"ubr": {"encapsulation": tcp.ubr.encapsulation}}),
    }


def _stop_when(stop_when: StopWhen | None) -> dict | None:
    if stop_when is None:
        return None
    if stop_when.sink is not None:
        return {"sink": stop_when.sink, "received_packets": stop_when.received_packets}
    return {"tcp": stop_when.tcp, "completed": True}


def _probe(name: str, probe: Probe) -> dict:
    target = next(kind for kind in PROBE_METRICS if getattr(probe, kind) is not None)
    return {"name": name, "target": target, "of": getattr(probe, target), "metric": probe.metric}


def _description(doc: _Document, name: str, seed: int, links, routes) -> dict:
    run = doc.run
    return {
        "name": name,
        "seed": seed,
        "duration_ps": run.duration,
        "sample_interval_ps": run.sample_interval,
        "max_events": run.max_events,
        "stop_when": _stop_when(run.stop_when),
        "nodes": [
            {
                "name": node_name,
                "kind": node.type,
                "routes": dict(sorted(routes[node_name].items())),
            }
            for node_name, node in sorted(doc.nodes.items())
        ],
        "links": [_link(spec) for _, spec in sorted(links.items())],
        "sources": [_source(key, item) for key, item in sorted(doc.sources.items())],
        "sinks": [{"name": key, "node": item.node} for key, item in sorted(doc.sinks.items())],
        "tcp": [_tcp(key, item) for key, item in sorted(doc.tcp.items())],
        "probes": [_probe(key, item) for key, item in sorted(doc.probes.items())],
        **(
            {"udp_rr": [_udp_rr(k, u) for k, u in sorted(doc.udp_rr.items())]} if doc.udp_rr else {}
        ),
    }


def _udp_rr(name: str, udp: UdpRr) -> dict:
    return {
        "name": name,
        "src_node": udp.from_,
        "dst_node": udp.to,
        "request_bytes": udp.request,
        "response_bytes": udp.response,
        "count": udp.count,
        "warmup": udp.warmup,
        "timeout_ps": udp.timeout,
        "start_ps": udp.start,
        **({} if udp.ubr is None else {"ubr": {"encapsulation": udp.ubr.encapsulation}}),
    }


def _check_seed(seed: object, source: str) -> int:
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < _INT_LIMIT:
        raise ScenarioError(
            source,
            "run.seed",
            f"seed override must be an integer from 0 to 2^63-1, got {describe_value(seed)}",
        )
    return seed


def _refuse_first(source: str, found: list[tuple[str, str]]) -> ScenarioError:
    return ScenarioError(source, found[0][0], found[0][1], errors=found)


def _validate(data: dict, source: str, default_name: str, seed: int | None) -> dict:
    try:
        doc = _Document.model_validate(data)
    except ValidationError as exc:
        raise _refuse_first(source, _translate(exc)) from None
    found = _Checks(doc).run()
    if found:
        raise _refuse_first(source, found)
    links = _expand_links(doc)
    try:
        routes = _routes(doc, links)
    except _RouteError as exc:
        raise ScenarioError(source, _join_path(exc.path), exc.reason) from None
    chosen_seed = doc.run.seed if seed is None else _check_seed(seed, source)
    return _description(doc, doc.run.name or default_name, chosen_seed, links, routes)


def normalised_json(desc: dict) -> str:
    """The canonical text of a description: what the Rust core reads and run keys hash."""
    return json.dumps(desc, sort_keys=True, separators=(",", ":"), allow_nan=False)


# ---------------------------------------------------------------------------
# A small TOML writer: enough for scenarios, so edited ones can be saved.


def _toml_string(text: str) -> str:
    # JSON escapes are valid TOML basic-string escapes; TOML also forbids a raw DEL.
    return json.dumps(text, ensure_ascii=False).replace("\x7f", "\\u007f")


def _toml_key(key: object) -> str:
    text = str(key)
    return text if _BARE_KEY.fullmatch(text) else _toml_string(text)


def _toml_value(value: object, path: str) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return _toml_string(value)
    if isinstance(value, datetime.datetime | datetime.date | datetime.time):
        return value.isoformat()
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_toml_value(item, path) for item in value) + "]"
    if isinstance(value, dict):
        items = ", ".join(
            f"{_toml_key(key)} = {_toml_value(item, f'{path}.{key}')}"
            for key, item in value.items()
        )
        return "{ " + items + " }" if items else "{}"
    raise ValueError(f"{path}: TOML cannot hold {describe_value(value)}; leave the key out instead")


def _write_table(table: dict, prefix: tuple, lines: list[str]) -> None:
    # Tables down to [links.NAME] get headers; deeper ones (queue, capacity,
    # routes) read better inline, as the spec writes them.
    def is_section(value: object) -> bool:
        return isinstance(value, dict) and len(prefix) < 2

    values = [(key, value) for key, value in table.items() if not is_section(value)]
    sections = [(key, value) for key, value in table.items() if is_section(value)]
    if prefix and (values or not sections):
        if lines:
            lines.append("")
        lines.append("[" + ".".join(_toml_key(part) for part in prefix) + "]")
    for key, value in values:
        path = ".".join(str(part) for part in (*prefix, key))
        lines.append(f"{_toml_key(key)} = {_toml_value(value, path)}")
    for key, value in sections:
        _write_table(value, (*prefix, key), lines)


def _to_toml(data: dict) -> str:
    lines: list[str] = []
    _write_table(data, (), lines)
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------
# The public Scenario.

_MISSING = object()


def _default_name(source: str) -> str:
    return "scenario" if source.startswith("<") else Path(source).stem


class Scenario:
    """A raw, editable scenario; validate() produces the normalised description."""

    def __init__(self, data: dict, source: str = "<dict>"):
        if not isinstance(data, dict):
            raise ScenarioError(source, "", f"expected a table, got {describe_value(data)}")
        self._data = data
        self._source = source

    @classmethod
    def from_dict(cls, data: dict, source: str = "<dict>") -> Scenario:
        """Wrap a deep copy of data, so later edits never touch the caller's dict."""
        if not isinstance(data, dict):
            raise ScenarioError(source, "", f"expected a table, got {describe_value(data)}")
        return cls(copy.deepcopy(data), source)

    @property
    def data(self) -> dict:
        return self._data

    @property
    def source(self) -> str:
        return self._source

    @property
    def name(self) -> str:
        run = self._data.get("run")
        name = run.get("name") if isinstance(run, dict) else None
        return name if isinstance(name, str) else _default_name(self._source)

    def __repr__(self) -> str:
        return f"Scenario(name={self.name!r}, source={self._source!r})"

    def get(self, path: str, default: Any = _MISSING) -> Any:
        """The raw value at a dotted key path such as "links.sat1.rate"."""
        value: Any = self._data
        for part in path.split("."):
            if isinstance(value, dict) and part in value:
                value = value[part]
            elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
                value = value[int(part)]
            elif default is _MISSING:
                raise KeyError(path)
            else:
                return default
        return value

    def set(self, path: str, value: Any) -> Scenario:
        """Set the raw value at a dotted key path, creating tables on the way."""
        parts = path.split(".")
        if not all(parts):
            raise ScenarioError(self._source, path, "a key path needs non-empty keys")
        table = self._data
        for depth, part in enumerate(parts[:-1]):
            table = table.setdefault(part, {})
            if not isinstance(table, dict):
                where = ".".join(parts[: depth + 1])
                raise ScenarioError(
                    self._source, path, f"{where} is {describe_value(table)}, not a table"
                )
        table[parts[-1]] = value
        return self

    def copy(self) -> Scenario:
        return Scenario(copy.deepcopy(self._data), self._source)

    def validate(self, seed: int | None = None) -> dict:
        """The normalised description (docs/scenario.md); seed overrides run.seed."""
        return _validate(self._data, self._source, _default_name(self._source), seed)

    def to_toml(self) -> str:
        """TOML text that loads back to an equal dict."""
        return _to_toml(self._data)


def load(path: str | Path) -> Scenario:
    """Read a TOML scenario. Only syntax is checked here; validate() checks the rest."""
    source = str(path)
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise ScenarioError(source, "", f"cannot read the file: {exc.strerror}") from None
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ScenarioError(
            source, "", f"not UTF-8 text: {exc.reason} at byte {exc.start}"
        ) from None
    except tomllib.TOMLDecodeError as exc:
        raise ScenarioError(source, "", f"malformed TOML: {exc}") from None
    return Scenario(data, source)
