"""[tcp.NAME]: TCP connections and the application on each.

Loss recovery is Tahoe, Reno, NewReno or SACK (RFC 6675); the congestion
controller is the Reno family's, CUBIC (RFC 9438) or Hybla, optionally with
HyStart++ (RFC 9406), and a `preset` sets several keys as a named stack
does (docs/tcp.md). Defaults follow RFC 5681, 6298 and 7323. The application is a bulk
transfer, request/response exchanges, or NetPIPE's ping-pong sweep over
block sizes. A connection needs a path each way: data from `from` to `to`,
ACKs (and responses) back. With an `abr` or `ubr` table it runs over ATM.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

from pydantic import Field, PrivateAttr, model_validator

from satcc.units import format_time, parse_time

from .atm import Abr, Ubr, check_abr, check_ubr, max_aal5_packet, ubr_paths
from .description import NOT_DESCRIBED, UNLESS_DEFAULT, Desc
from .errors import quote
from .rate_control import RateControl, check_rate_control, feedback_path
from .routing import PathRequest, both_ways
from .tables import Section, _Table
from .values import (
    MAX_DATAGRAM,
    Bool,
    InitialWindow,
    NonNegativeInt,
    NonNegativeSize,
    NonNegativeTime,
    PositiveInt,
    PositiveSize,
    PositiveTime,
    SizeOrUnlimited,
    Str,
    UpToOne,
    ZeroOne,
    bytes_text,
    choice,
    list_of,
    optional,
    optional_table,
    table,
    typed,
)

if TYPE_CHECKING:
    from .validation import Checks

TCP_VARIANTS = ("tahoe", "reno", "newreno", "sack")
NETPIPE_REPORTS = ("mean", "min_trial")
NETPIPE_REPETITION_RULES = ("ceil", "netpipe")
CONGESTION_CONTROLS = ("reno", "cubic", "hybla", "bbr", "bbr3")
CWND_VALIDATIONS = ("off", "rfc2861", "rfc7661")
# How a SACK sender finds lost segments: RFC 6675's IsLost, or RFC 8985.
RECOVERIES = ("rfc6675", "rack-tlp")
SSTHRESH_BASES = ("flight", "cwnd")
# How a host turns its receive buffer into the advertised window (docs/tcp.md).
WINDOW_PROFILES = ("bsd44", "linux")

# `preset = "..."` fills the keys a [tcp.NAME] table does not give. "rfc" is
# the IETF standards track as a conservative stack follows it; "linux" is what
# a current Linux host does by default (net.ipv4 sysctls of a 6.x kernel).
# docs/tcp.md explains each value.
PRESETS: dict[str, dict[str, object]] = {
    "rfc": {
        "variant": "sack",  # RFC 2018 + RFC 6675
        "congestion_control": "reno",  # RFC 5681
        "initial_window": "rfc5681",  # RFC 5681 §3.1 (3 segments at 1460 B)
        "min_rto": "1 s",  # RFC 6298 (2.4)
        "initial_rto": "1 s",  # RFC 6298 (2.1)
        "delayed_ack": True,
        "delayed_ack_timeout": "200 ms",
        "limited_transmit": True,  # RFC 3042
        "hystart": False,
        "restart_after_idle": True,  # RFC 5681 §4.1
        "cwnd_validation": "off",  # RFC 2861 is Historic, RFC 7661 Experimental
    },
    "linux": {
        "variant": "sack",  # tcp_sack = 1
        "congestion_control": "cubic",  # tcp_congestion_control = cubic
        "hystart": True,  # tcp_cubic hystart = 1 (Linux's HyStart; HyStart++ here)
        "initial_window": 10,  # TCP_INIT_CWND, RFC 6928
        "min_rto": "200 ms",  # TCP_RTO_MIN
        "initial_rto": "1 s",  # TCP_TIMEOUT_INIT
        "max_rto": "120 s",  # TCP_RTO_MAX
        "delayed_ack": True,
        "delayed_ack_timeout": "40 ms",  # TCP_DELACK_MIN
        "limited_transmit": True,
        "recovery": "rack-tlp",  # tcp_recovery = 1 (RACK, with TLP: tcp_early_retrans = 3)
        "prr": True,  # tcp_cwnd_reduction, always on since Linux 3.2
        "abc": True,  # tcp_cong_avoid_ai counts the segments each ACK delivers
        "ssthresh_from": "cwnd",  # tcp_reno_ssthresh, bictcp_recalc_ssthresh
        "cubic_alpha_switch": False,  # tcp_cubic's beta_scale estimate keeps alpha
        "restart_after_idle": True,  # tcp_slow_start_after_idle = 1
        "cwnd_validation": "rfc2861",  # tcp_cwnd_restart, tcp_cwnd_application_limited
        "send_buffer": "4 MiB",  # tcp_wmem max (autotuning ceiling)
        "receive_buffer": "6 MiB",  # tcp_rmem max
    },
}
MAX_SEGMENT_COUNT = 1 << 20
# RFC 7323 section 2.3: a window field is 16 bits and the shift at most 14.
MAX_WINDOW_FIELD = 65535
MAX_WINDOW_SHIFT = 14
# RFC 5681 section 4.2: an ACK must not be delayed more than 500 ms.
MAX_DELAYED_ACK = parse_time("500 ms")


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
                "trials",
                "report",
                "repetition_rule",
                "latency_repetitions",
                "trial_time",
                "min_repetitions",
                "max_repetitions",
                "stop_time",
            ),
            (),
        ),
    }

    type: Annotated[choice(*VARIANTS), Desc("kind")]
    size: Annotated[optional(PositiveSize), Desc("bytes")] = None
    request: optional(PositiveSize) = None
    response: optional(PositiveSize) = None
    count: optional(PositiveInt) = None
    # Leading exchanges left out of the transaction-time statistics
    # (default 0 for request_response, 1 per block size for netpipe).
    warmup: Annotated[
        optional(NonNegativeInt),
        Desc(types=("request_response",), default=0, omit_default=True),
        Desc(types=("netpipe",), default=1),
    ] = None
    # NetPIPE: explicit block sizes, or its schedule from min to max block
    # with the +-perturbation sizes around each (NetPIPE 3.7 defaults).
    sizes: Annotated[
        optional(list_of(PositiveSize)), Desc("sizes_bytes", compute=lambda app: app.block_sizes())
    ] = None
    min_block: Annotated[PositiveSize, NOT_DESCRIBED] = 1
    max_block: Annotated[PositiveSize, NOT_DESCRIBED] = 128 * 1024
    perturbation: Annotated[NonNegativeInt, NOT_DESCRIBED] = 3
    # NetPIPE 2.x (netpipe.c): TRIALS = 7 trials of nrepeat exchanges per
    # size, reporting the fastest trial's mean ("min_trial"); the default is
    # one trial and the mean of every timed exchange ("mean").
    trials: Annotated[PositiveInt, UNLESS_DEFAULT] = 1
    report: Annotated[choice(*NETPIPE_REPORTS), UNLESS_DEFAULT] = "mean"
    # Exchanges per trial after a size whose reported time was tlast:
    # "ceil": ceil(trial_time / tlast); "netpipe": NetPIPE 2.x's
    # floor(trial_time * (b - inc + 1) / (b * tlast)) (b the previous size,
    # inc the schedule's increment); within [min_repetitions, max_repetitions].
    repetition_rule: Annotated[choice(*NETPIPE_REPETITION_RULES), UNLESS_DEFAULT] = "ceil"
    # NetPIPE 2.x's latency test (LATENCYREPS = 100 one-byte ping-pongs)
    # before the first size, which sets that size's repetitions.
    latency_repetitions: Annotated[NonNegativeInt, UNLESS_DEFAULT] = 0
    trial_time: PositiveTime = parse_time("250 ms")
    min_repetitions: PositiveInt = 3
    max_repetitions: PositiveInt = 1000
    stop_time: optional(PositiveTime) = parse_time("1 s")
    # Not keys of the table: for NetPIPE's own schedule (no `sizes`), the
    # base size and increment of each block, which its stop check and its
    # repetition rule use.
    bases: Annotated[
        optional(list_of(PositiveSize)),
        Desc(
            "bases_bytes",
            types=("netpipe",),
            compute=lambda app: app.schedule_column("base"),
            derived=True,
            omit_default=True,
        ),
        Desc(hidden=True),
    ] = None
    increments: Annotated[
        optional(list_of(PositiveSize)),
        Desc(
            "increments_bytes",
            types=("netpipe",),
            compute=lambda app: app.schedule_column("increment"),
            derived=True,
            omit_default=True,
        ),
        Desc(hidden=True),
    ] = None

    @classmethod
    def table_keys(cls) -> list[str]:
        # `bases` and `increments` are computed, never given.
        return [key for key in super().table_keys() if key not in ("bases", "increments")]

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

    def schedule_column(self, column: str) -> list[int] | None:
        """The base size or the increment of each of `block_sizes()`, from
        NetPIPE's schedule (where a size recurs, its first test); None for
        explicit `sizes`."""
        from satcc.analysis.netpipe import netpipe_schedule

        if self.sizes is not None:
            return None
        first: dict[int, int] = {}
        for test in netpipe_schedule(self.max_block, self.perturbation, self.min_block):
            first.setdefault(test.bytes, getattr(test, column))
        return [first[size] for size in self.block_sizes()]


def _unlimited_is_null(size: int | str) -> int | None:
    return None if size == "unlimited" else size


def _ecn_mode(value: object) -> bool | str:
    if isinstance(value, bool) or value == "l4s":
        return value
    shown = quote(value) if isinstance(value, str) else repr(value)
    raise ValueError(f'expected true, false or "l4s", got {shown}')


# `ecn`: false, true (RFC 3168) or "l4s" (the Prague-like scalable response).
EcnMode = typed(bool | str, _ecn_mode)


class Tcp(_Table):
    """One TCP connection, [tcp.NAME]. Defaults follow RFC 5681, 6298 and 7323."""

    from_: Annotated[Str, Desc("src_node")] = Field(alias="from")
    to: Annotated[Str, Desc("dst_node")]
    preset: Annotated[optional(choice(*PRESETS)), NOT_DESCRIBED] = None
    # The keys the table itself gives (the preset fills the others).
    _given: frozenset[str] = PrivateAttr(default_factory=frozenset)
    variant: choice(*TCP_VARIANTS) = "newreno"
    congestion_control: Annotated[choice(*CONGESTION_CONTROLS), UNLESS_DEFAULT] = "reno"
    hystart: Annotated[Bool, UNLESS_DEFAULT] = False
    # Hybla's reference RTT0 (rho = RTT / RTT0); the core's default is
    # Linux's 25 ms (tcp_hybla's rtt0).
    hybla_rtt0: Annotated[optional(PositiveTime), UNLESS_DEFAULT] = None
    mss: PositiveSize = 1460
    header: NonNegativeSize = 40
    initial_window: Annotated[
        InitialWindow,
        Desc("initial_window_segments", compute=lambda tcp: tcp.initial_window_segments),
    ] = "rfc5681"
    abc_limit: Annotated[PositiveInt, Desc("abc_limit_segments")] = 2
    # RFC 3465 section 2.1 byte counting in congestion avoidance (Reno);
    # slow start always counts bytes, up to abc_limit segments per ACK.
    abc: Annotated[Bool, UNLESS_DEFAULT] = False
    initial_ssthresh: Annotated[SizeOrUnlimited, Desc(convert=_unlimited_is_null)] = "unlimited"
    min_rto: PositiveTime = parse_time("1 s")
    initial_rto: PositiveTime = parse_time("1 s")
    max_rto: PositiveTime = parse_time("60 s")
    clock_granularity: Annotated[PositiveTime, Desc("granularity_ps")] = parse_time("1 ms")
    delayed_ack: Bool = True
    delayed_ack_timeout: Annotated[PositiveTime, Desc("delayed_ack_ps")] = parse_time("200 ms")
    limited_transmit: Bool = True
    restart_after_idle: Annotated[Bool, UNLESS_DEFAULT] = True
    cwnd_validation: Annotated[choice(*CWND_VALIDATIONS), UNLESS_DEFAULT] = "off"
    rto_restart_on_fast_retransmit: Annotated[Bool, UNLESS_DEFAULT] = True
    # RFC 6937 Proportional Rate Reduction (PRR-SSRB) in fast recovery.
    prr: Annotated[Bool, UNLESS_DEFAULT] = False
    recovery: Annotated[choice(*RECOVERIES), UNLESS_DEFAULT] = "rfc6675"
    # What a loss's reduction starts from: FlightSize (the RFCs) or cwnd (Linux).
    ssthresh_from: Annotated[choice(*SSTHRESH_BASES), UNLESS_DEFAULT] = "flight"
    # RFC 9438 section 4.3: CUBIC's Reno-friendly alpha becomes 1 at
    # cwnd_prior; false keeps alpha_cubic, as Linux's tcp_cubic does.
    cubic_alpha_switch: Annotated[Bool, UNLESS_DEFAULT] = True
    # RFC 3168 ECN: negotiated on the handshake, new data ECT(0), ECE
    # answered as a loss without retransmission.
    # "l4s": new data ECT(1), DCTCP's per-packet echo and scalable
    # reduction (docs/tcp.md), written as ecn plus ecn_l4s.
    ecn: Annotated[EcnMode, Desc(omit_default=True, convert=lambda v: v is not False)] = False
    # Not a key of the table: computed from `ecn`.
    ecn_l4s: Annotated[
        Bool, Desc(compute=lambda tcp: tcp.ecn == "l4s", derived=True, omit_default=True)
    ] = False
    # RFC 8511 (ABE): an ECE reduces to this fraction of FlightSize instead
    # of the controller's loss response; left out: the loss response.
    ecn_beta: Annotated[optional(UpToOne), UNLESS_DEFAULT] = None
    window_scaling: Bool = True
    send_buffer: PositiveSize = 64 * 1024
    receive_buffer: PositiveSize = 64 * 1024
    # 4.4BSD advertises the free receive buffer; Linux its payload share,
    # space - (space >> adv_win_scale), capped by rcv_ssthresh, in whole
    # segments (docs/tcp.md, "Host window profiles").
    window_profile: Annotated[choice(*WINDOW_PROFILES), UNLESS_DEFAULT] = "bsd44"
    adv_win_scale: Annotated[PositiveInt, UNLESS_DEFAULT] = 1
    handshake: Bool = True
    start: NonNegativeTime = 0
    priority: ZeroOne = 0
    clp: ZeroOne = 0
    app: table(App) = Field(default_factory=lambda: App(type="bulk"))
    abr: Annotated[optional_table(Abr), UNLESS_DEFAULT] = None
    ubr: Annotated[optional_table(Ubr), UNLESS_DEFAULT] = None
    rate_control: Annotated[optional_table(RateControl), UNLESS_DEFAULT] = None

    @classmethod
    def check_table(cls, data: object) -> object:
        """The keys of `preset` fill in what the table does not give."""
        data = super().check_table(data)
        preset = data.get("preset") if isinstance(data, dict) else None
        if isinstance(preset, str) and preset in PRESETS:
            filled = {**PRESETS[preset], **data}
            # A stack runs RACK only with SACK: Linux without it marks
            # losses as NewReno does (tcp_identify_packet_loss). So a
            # preset's recovery yields to the table's own non-SACK variant.
            if "recovery" not in data and filled.get("variant") != "sack":
                filled.pop("recovery", None)
            data = filled
        return data

    @classmethod
    def table_keys(cls) -> list[str]:
        # `ecn_l4s` is computed from `ecn`, never given.
        return [key for key in super().table_keys() if key != "ecn_l4s"]

    @model_validator(mode="wrap")
    @classmethod
    def _remember_given(cls, data: object, handler: Any) -> Tcp:
        tcp = handler(data)
        tcp._given = frozenset(data) if isinstance(data, dict) else frozenset()
        return tcp

    def from_preset(self, key: str) -> bool:
        """Whether `key`'s value is the preset's, not the table's own."""
        return self.preset is not None and key not in self._given and key in PRESETS[self.preset]

    @property
    def initial_window_segments(self) -> int:
        """RFC 5681 section 3.1 (IW by SMSS) unless a count is given."""
        if self.initial_window != "rfc5681":
            return self.initial_window
        if self.mss <= 1095:
            return 4
        return 3 if self.mss <= 2190 else 2


# ---------------------------------------------------------------------------
# Checks across keys.


def check_tcp(checks: Checks, path: tuple, name: str, tcp: Tcp) -> None:
    checks.require_ends(path, tcp, "a connection")
    if tcp.mss + tcp.header > MAX_DATAGRAM:
        checks.refuse(
            (*path, "mss"),
            f"mss + header must fit an IP datagram ({bytes_text(MAX_DATAGRAM)}), "
            f"got {bytes_text(tcp.mss)} + {bytes_text(tcp.header)}",
        )
    if tcp.initial_window_segments > MAX_SEGMENT_COUNT or tcp.abc_limit > MAX_SEGMENT_COUNT:
        key = "abc_limit" if tcp.abc_limit > MAX_SEGMENT_COUNT else "initial_window"
        checks.refuse((*path, key), f"{key} must be at most {MAX_SEGMENT_COUNT} segments")
    _check_buffers(checks, path, tcp)
    if tcp.recovery == "rack-tlp" and tcp.variant != "sack":
        checks.refuse(
            (*path, "recovery"),
            f'recovery = "rack-tlp" needs SACK (variant = "sack"): RACK-TLP tells '
            f"lost segments from delivered ones by SACK (RFC 8985 section 5), "
            f'got variant = "{tcp.variant}"',
        )
    if tcp.max_rto < tcp.min_rto:
        # The key the table gave is the one to change, not the preset's.
        if tcp.from_preset("max_rto"):
            checks.refuse(
                (*path, "min_rto"),
                f'min_rto must not exceed max_rto ("{format_time(tcp.max_rto)}", from preset '
                f'"{tcp.preset}"), got "{format_time(tcp.min_rto)}"',
            )
        else:
            checks.refuse(
                (*path, "max_rto"),
                f'max_rto must not be less than min_rto ("{format_time(tcp.min_rto)}"'
                + (f', from preset "{tcp.preset}"' if tcp.from_preset("min_rto") else "")
                + f'), got "{format_time(tcp.max_rto)}"',
            )
    if tcp.app.type == "netpipe":
        _check_netpipe(checks, (*path, "app"), tcp.app)
    _check_atm(checks, path, tcp)
    if tcp.rate_control is not None:
        if tcp.abr is not None or tcp.ubr is not None:
            checks.refuse(
                (*path, "rate_control"),
                "a connection runs over abr or ubr VCs or under rate_control, not both",
            )
        check_rate_control(checks, (*path, "rate_control"), tcp.rate_control)
    if tcp.hybla_rtt0 is not None and tcp.congestion_control != "hybla":
        checks.refuse(
            (*path, "hybla_rtt0"),
            f'hybla_rtt0 applies to congestion_control = "hybla" only, '
            f'got congestion_control = "{tcp.congestion_control}"',
        )
    # The preset's value rides along with any controller; the table's own
    # is refused, as hystart is for bbr below.
    alpha_given = not tcp.cubic_alpha_switch and not tcp.from_preset("cubic_alpha_switch")
    if alpha_given and tcp.congestion_control != "cubic":
        checks.refuse(
            (*path, "cubic_alpha_switch"),
            f'cubic_alpha_switch applies to congestion_control = "cubic" only, '
            f'got congestion_control = "{tcp.congestion_control}"',
        )
    if tcp.ecn == "l4s" and tcp.congestion_control in ("bbr", "bbr3"):
        checks.refuse(
            (*path, "ecn"),
            f'congestion_control = "{tcp.congestion_control}" ignores ECE: ecn = "l4s" needs '
            "a window controller (reno, newreno, cubic, ...)",
        )
    if tcp.ecn == "l4s" and tcp.ecn_beta is not None:
        checks.refuse(
            (*path, "ecn_beta"), 'ecn_beta is the classic response\'s: not with ecn = "l4s"'
        )
    elif tcp.ecn_beta is not None and not tcp.ecn:
        checks.refuse((*path, "ecn_beta"), "ecn_beta is the reduction on ECE: give ecn = true")
    elif tcp.ecn_beta is not None and tcp.congestion_control in ("bbr", "bbr3"):
        checks.refuse(
            (*path, "ecn_beta"),
            f'congestion_control = "{tcp.congestion_control}" ignores ECE: ecn_beta has no effect',
        )
    if tcp.congestion_control in ("bbr", "bbr3") and tcp.hystart and not tcp.from_preset("hystart"):
        checks.refuse(
            (*path, "hystart"),
            f'hystart is a slow start rule; congestion_control = "{tcp.congestion_control}" '
            "leaves Startup by its own full-pipe test",
        )
    if tcp.delayed_ack_timeout > MAX_DELAYED_ACK:
        checks.refuse(
            (*path, "delayed_ack_timeout"),
            f'delayed_ack_timeout must not exceed "500 ms": RFC 5681 says an ACK must '
            f'not be delayed more than 500 ms, got "{format_time(tcp.delayed_ack_timeout)}"',
        )


def _check_buffers(checks: Checks, path: tuple, tcp: Tcp) -> None:
    for key in ("send_buffer", "receive_buffer"):
        size = getattr(tcp, key)
        if size < tcp.mss:
            checks.refuse(
                (*path, key),
                f"{key} ({bytes_text(size)}) is smaller than one segment "
                f"(mss = {bytes_text(tcp.mss)})",
            )
    if tcp.adv_win_scale not in (1, 2, 3):
        checks.refuse(
            (*path, "adv_win_scale"), f"adv_win_scale must be 1, 2 or 3, got {tcp.adv_win_scale}"
        )
    elif tcp.adv_win_scale != 1 and tcp.window_profile != "linux":
        checks.refuse(
            (*path, "adv_win_scale"),
            f'adv_win_scale is Linux\'s: give it with window_profile = "linux", '
            f'got window_profile = "{tcp.window_profile}"',
        )
    if tcp.window_profile == "linux" and tcp.adv_win_scale in (1, 2, 3):
        share = tcp.receive_buffer - (tcp.receive_buffer >> tcp.adv_win_scale)
        if share < tcp.mss:
            checks.refuse(
                (*path, "receive_buffer"),
                f"the window a linux host offers from receive_buffer ({bytes_text(share)}) "
                f"is smaller than one segment (mss = {bytes_text(tcp.mss)})",
            )
    largest = MAX_WINDOW_FIELD << MAX_WINDOW_SHIFT
    if tcp.window_scaling and tcp.receive_buffer > largest:
        checks.refuse(
            (*path, "receive_buffer"),
            f"receive_buffer exceeds what window scaling can advertise "
            f"({MAX_WINDOW_FIELD} << {MAX_WINDOW_SHIFT} bytes), "
            f"got {bytes_text(tcp.receive_buffer)}",
        )


def _check_netpipe(checks: Checks, path: tuple, app: App) -> None:
    if app.sizes is None and app.max_block < app.min_block:
        checks.refuse(
            (*path, "max_block"),
            f"max_block must be at least min_block ({bytes_text(app.min_block)}), "
            f"got {bytes_text(app.max_block)}",
        )
    if app.max_repetitions < app.min_repetitions:
        checks.refuse(
            (*path, "max_repetitions"),
            f"max_repetitions must be at least min_repetitions ({app.min_repetitions}), "
            f"got {app.max_repetitions}",
        )
    if app.sizes is not None and not app.sizes:
        checks.refuse((*path, "sizes"), "give at least one block size")


def _check_atm(checks: Checks, path: tuple, tcp: Tcp) -> None:
    if tcp.abr is not None and tcp.ubr is not None:
        checks.refuse((*path, "ubr"), "a connection runs over abr or ubr VCs, not both")
    vcs = tcp.abr if tcp.abr is not None else tcp.ubr
    if vcs is not None and tcp.mss + tcp.header > max_aal5_packet(vcs):
        checks.refuse(
            (*path, "mss"),
            f"over ATM, mss + header must fit one AAL5 frame "
            f"({bytes_text(max_aal5_packet(vcs))} with {vcs.encapsulation} encapsulation), "
            f"got {bytes_text(tcp.mss)} + {bytes_text(tcp.header)}",
        )
    if tcp.ubr is not None:
        check_ubr(checks, (*path, "ubr"), tcp, tcp.ubr)
    if tcp.abr is not None:
        check_abr(checks, (*path, "abr"), tcp.abr)
        if tcp.clp:
            checks.refuse(
                (*path, "clp"),
                "over ABR the VC sends every in-rate cell with CLP = 0 "
                "(TM 4.0 source rule 4), so clp = 1 would be ignored",
            )


def packet_sizes(tcp: Tcp) -> tuple[int, int]:
    """The largest packet each way: full segments forward; ACKs back, or
    full segments when the server answers."""
    full = tcp.mss + tcp.header
    return (full, full if tcp.app.type != "bulk" else tcp.header)


def segment_sizes(tcp: Tcp) -> tuple[int, int]:
    """The largest PDU each way: packets, or cells over ATM."""
    if getattr(tcp, "abr", None) is not None or getattr(tcp, "ubr", None) is not None:
        return (53, 53)
    return packet_sizes(tcp)


def tcp_paths(name: str, tcp: Tcp, doc) -> list[PathRequest]:
    # A connection needs both directions: data from -> to, ACKs (and responses) back.
    data, acks = f"data of tcp {quote(name)}", f"ACKs of tcp {quote(name)}"
    if getattr(tcp, "ubr", None) is not None:
        return ubr_paths("tcp", name, tcp, (data, acks), packet_sizes(tcp))
    paths = both_ways("tcp", name, tcp, data, acks, segment_sizes(tcp))
    what = f"explicit-rate feedback of tcp {quote(name)}"
    at = ("tcp", name)
    paths += feedback_path(getattr(tcp, "rate_control", None), tcp.from_, at, what, doc)
    return paths


SECTION = Section(
    key="tcp",
    table=Tcp,
    noun="tcp connection",
    description_key="tcp",
    check=check_tcp,
    paths=tcp_paths,
    probe_target="tcp",
)
